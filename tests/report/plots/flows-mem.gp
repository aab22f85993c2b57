# Per-flow quantities vs number of flows, log x (work/<dat>, default
# flows-mem.dat: flows, then one or two value columns). Variables: ylab,
# ttl (title), dat, t2/t3 (titles of columns 2/3; no t2: one unnamed line).
load plots.'/common.gp'
if (!exists("dat")) dat = 'flows-mem.dat'
if (!exists("ttl")) ttl = 'NIC memory per flow vs number of flows'
set title ttl
set logscale x 10
set xlabel "concurrent kTLS flows"
set ylabel ylab noenhanced
set yrange [0:*]
set key top right noenhanced
if (exists("t3")) {
	plot work.'/'.dat using 1:2 with linespoints lw 2 pt 7 title t2, \
	     '' using 1:3 with linespoints lw 2 pt 5 title t3
} else {
	plot work.'/'.dat using 1:2 with linespoints lw 2 pt 7 notitle
}
