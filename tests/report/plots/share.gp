# Share of TLS bytes decrypted by the NIC vs a fault level, one colour per
# resync mode: solid device_share, dashed nic_share (work/share-FAULT-MODE.dat:
# percent device% nic%). Variables: fault, modes, xlab.
load plots.'/common.gp'
set title sprintf("NIC-decrypted share vs %s (solid: device\\_share, dashed: nic\\_share)", fault)
set xlabel xlab
set ylabel "decrypted by the NIC (%)"
set yrange [0:101]
set xrange [-0.2:*]
n = words(modes)
plot for [i=1:n] sprintf("%s/share-%s-%s.dat", work, fault, word(modes, i)) \
	using 1:2 with linespoints lw 2 pt 7 lc i title word(modes, i).' device', \
     for [i=1:n] sprintf("%s/share-%s-%s.dat", work, fault, word(modes, i)) \
	using 1:3 with linespoints lw 1.5 dt 2 pt 6 lc i title word(modes, i).' nic'
