# Shared look of make report's plots (loaded by each plots/*.gp; the
# caller sets out and work with gnuplot -e). The terminal follows out's
# extension: .svg for papers, .png otherwise.
if (strlen(out) > 4 && out[strlen(out)-3:strlen(out)] eq '.svg') {
	set terminal svg size 900,540 dynamic enhanced font "DejaVu Sans,10"
} else {
	set terminal pngcairo size 900,540 enhanced font "DejaVu Sans,10"
}
set output out
set grid ytics lc rgb "#dddddd"
set key outside right top noenhanced
set border 3
set tics nomirror
