# Shared look of make report's plots (loaded by each plots/*.gp; the
# caller sets out and work with gnuplot -e).
set terminal pngcairo size 900,540 enhanced font "DejaVu Sans,10"
set output out
set grid ytics lc rgb "#dddddd"
set key outside right top noenhanced
set border 3
set tics nomirror
