# Receiver CPU ns per byte per mode (work/cpu.dat: "LABEL" ns/B).
load plots.'/common.gp'
set title "Receiver CPU per byte: offload vs software kTLS (TCG guest)"
set ylabel "receiver CPU ns per byte"
set style data histogram
set style histogram clustered
set style fill solid 0.8 border -1
set boxwidth 0.7
set yrange [0:*]
set xtics noenhanced
plot work.'/cpu.dat' using 2:xtic(1) notitle lc rgb "#2ca02c", \
     '' using ($0):2:(sprintf("%.2f", $2)) with labels offset 0,1 notitle
