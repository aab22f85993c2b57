# Resync latency histogram: records per resync (buckets as the module
# reports them) x count, one bar per mode (work/latency.dat, header row
# "records MODE..."). Variable: nm (number of modes).
load plots.'/common.gp'
set title "Resync latency: records from the first header found to decrypting again (2 % loss)"
set xlabel "records per resync"
set ylabel "resyncs"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set yrange [0:*]
set key autotitle columnheader noenhanced
plot for [i=2:nm+1] work.'/latency.dat' using i:xtic(1)
