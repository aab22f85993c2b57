# Engine vs gcm(aes), ns per byte, clustered bars per record size
# (work/engine.dat: "LABEL" engine gcm ratio).
load plots.'/common.gp'
set title "Engine vs the kernel's gcm(aes), 1448-byte frames (TCG guest)"
set ylabel "ns per plaintext byte"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set yrange [0:*]
set xlabel "TLS record size"
plot work.'/engine.dat' using 2:xtic(1) title "engine" lc rgb "#1f77b4", \
     '' using 3 title "gcm(aes)" lc rgb "#ff7f0e", \
     '' using ($0):($2 > $3 ? $2 : $3):(sprintf("ratio %.2f", $4)) with labels offset 0,1 notitle
