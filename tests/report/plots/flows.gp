# Shares (%) vs number of flows, log x (work/flows.dat: flows, then one
# column per name in ynames).
load plots.'/common.gp'
set title "NIC-decrypted share vs number of flows"
set logscale x 10
set xlabel "concurrent kTLS flows"
set ylabel "decrypted by the NIC (%)"
set yrange [0:101]
plot for [i=1:words(ynames)] work.'/flows.dat' using 1:(column(i + 1)) \
	with linespoints lw 2 pt 7 title word(ynames, i)
