# The evaluation, one configuration (cfg): per traffic model family (fams)
# the share of records the NIC decrypted against the rate, median over the
# seeds with the interquartile range as error bars, and the analytic
# model's curve dashed in the same colour (work/eval-CFG-FAMILY.dat:
# rate rshare_med q1 q3 dshare_med q1 q3 model).
load plots.'/common.gp'
set title sprintf("Records NIC-decrypted vs fault rate: %s (median, IQR over seeds; dashed: model)", cfg) noenhanced
set xlabel "fault rate (% of frames: lost, in bursts, at record ends, reordered, or stalling)"
set ylabel "records decrypted by the NIC (%)"
set yrange [0:101]
set xrange [-0.2:*]
n = words(fams)
plot for [i=1:n] sprintf("%s/eval-%s-%s.dat", work, cfg, word(fams, i)) \
	using 1:2:3:4 with yerrorlines lw 2 pt 7 lc i title word(fams, i), \
     for [i=1:n] sprintf("%s/eval-%s-%s.dat", work, cfg, word(fams, i)) \
	using 1:8 with lines lw 1.5 dt 2 lc i title word(fams, i).' model'
