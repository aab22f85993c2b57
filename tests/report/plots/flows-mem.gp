# A per-flow quantity vs number of flows, log x (work/<dat>, default
# flows-mem.dat). Variables: ylab (the CSV column), ttl (title), dat.
load plots.'/common.gp'
if (!exists("dat")) dat = 'flows-mem.dat'
if (!exists("ttl")) ttl = 'NIC memory per flow vs number of flows'
set title ttl
set logscale x 10
set xlabel "concurrent kTLS flows"
set ylabel ylab noenhanced
set yrange [0:*]
plot work.'/'.dat using 1:2 with linespoints lw 2 pt 7 notitle
