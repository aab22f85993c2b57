#!/bin/bash
# make report, host side: the evaluation's points (eval.csv, written by
# sections/70-eval.sh) per configuration and rate, over their seeds, and
# the analytic model next to them. docs/evaluation.md explains both.
#   eval-aggregate.sh EVAL_CSV WORK
# Writes into WORK:
#   eval-points.tsv   one line per point: config, model, rate, seeds,
#                     record share median/q1/q3 (%), device share
#                     median/q1/q3 (%), model record share (%), events,
#                     records in software per event, lost syncs, resync
#                     requests, resync wait W (records followed per lost
#                     sync), receiver CPU ns/B (medians)
#   eval-<config>-<family>.dat   the same, per plot: rate first
#   eval-configs      the configs, eval-families the traffic model families
#   eval-summary.md   per config and family: the largest rate whose median
#                     device share is >= 95, 80 and 50 %
# The model (per record, first order): a loss event of B frames (B = 1 for
# independent loss and reorder, the mean burst for Gilbert-Elliott) at
# rate L per frame, records of f frames (record + framing over a 1448-byte
# MSS): events per record f L / B; each touches 1 + B/f records and takes
# a header with probability min(1, B/f), which costs W more records until
# the NIC decrypts again. Missed per record m = (L/B)(f + B + min(f,B) W);
# with those costs landing on records like Poisson arrivals, the record
# share is exp(-m) (1 - m to first order). W is the point's own measured
# wait (records followed per lost sync), the one input the model takes
# from the run. Tail loss puts every loss on a record's last frame, which
# nearly always carries the next header too: with q = min(1, L f) the
# share of record ends lost, a record escapes when neither its own end nor
# the previous one was lost, (1 - q)^2 exp(-q W). A stall loses nothing
# (TCP's second copy is old data): 100 %, as duplication does.
set -uo pipefail
CSV=${1:?eval.csv}; WORK=${2:?work dir}
rm -f "$WORK"/eval-*
awk -F, -v work="$WORK" '
function qsort(a, lo, hi,   i, j, p, t) {
	if (lo >= hi) return
	p = a[int((lo + hi) / 2)]; i = lo; j = hi
	while (i <= j) {
		while (a[i] < p) i++
		while (a[j] > p) j--
		if (i <= j) { t = a[i]; a[i] = a[j]; a[j] = t; i++; j-- }
	}
	qsort(a, lo, j); qsort(a, i, hi)
}
# quantile of the n values in v (sorted in place), q in [0,1], linear
function quant(v, n, q,   h, l) {
	h = (n - 1) * q + 1; l = int(h)
	return l >= n ? v[n] : v[l] + (h - l) * (v[l + 1] - v[l])
}
function stat(key, field, q,   n, i, v) {
	n = cnt[key]
	for (i = 1; i <= n; i++) v[i] = val[key, field, i]
	qsort(v, 1, n)
	return quant(v, n, q)
}
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
$c["ok"] == 1 {
	cfg = $c["mode"] "-rec" $c["recovery"] "-" $c["rsize"] "B-tls" $c["tls"]
	fam = $c["model"] ($c["param"] != 0 ? $c["param"] : "")
	# the clean points belong to every family of their config, at rate 0
	key = cfg SUBSEP fam SUBSEP $c["rate"]
	if (fam != "clean") { fams[fam] = 1; cfgs[cfg] = 1 }
	row[NR] = $0
	add(key, NR)
}
function add(key, r,   k, n, rec, dec, f, s) {
	split(row[r], f, ",")
	n = ++cnt[key]; keys[key] = 1
	rec = f[c["records"]]; dec = f[c["decrypted"]]
	val[key, "rshare", n] = rec > 0 ? dec * 100 / rec : 0
	val[key, "dshare", n] = f[c["device_share"]] / 100
	val[key, "events", n] = f[c["events"]]
	val[key, "swev", n] = f[c["events"]] > 0 ? (rec - dec) / f[c["events"]] : 0
	val[key, "lost", n] = f[c["sync_lost"]]
	val[key, "req", n] = f[c["resync_req"]]
	val[key, "cpu", n] = f[c["cpu_ns_per_byte"]]
	sumfol[key] += f[c["followed"]]; sumlost[key] += f[c["sync_lost"]]
	rsize[key] = f[c["rsize"]]; tlsv[key] = f[c["tls"]]
	param[key] = f[c["param"]]; model[key] = f[c["model"]]
}
END {
	for (cf in cfgs) print cf > (work "/eval-configs")
	for (fm in fams) print fm > (work "/eval-families")
	# clean points: copied into each family of their config at rate 0
	for (key in keys) {
		split(key, k, SUBSEP)
		if (k[2] != "clean") continue
		for (fm in fams) {
			nk = k[1] SUBSEP fm SUBSEP 0
			for (i = 1; i <= cnt[key]; i++) {
				cnt[nk]++
				split("rshare dshare events swev lost req cpu", fl, " ")
				for (j in fl) val[nk, fl[j], cnt[nk]] = val[key, fl[j], i]
			}
			sumfol[nk] = sumfol[key]; sumlost[nk] = sumlost[key]
			rsize[nk] = rsize[key]; tlsv[nk] = tlsv[key]
			param[nk] = fm ~ /^n?ge/ ? substr(fm, fm ~ /^n/ ? 4 : 3) : 0
			model[nk] = fm; keys2[nk] = 1
		}
	}
	for (key in keys) { split(key, k, SUBSEP); if (k[2] != "clean") keys2[key] = 1 }
	print "config\tfamily\trate\tseeds\trshare_med\trshare_q1\trshare_q3\tdshare_med\tdshare_q1\tdshare_q3\tmodel_rshare\tevents\tsw_per_event\tsync_lost\tresync_req\tW\tcpu_ns_per_byte" > (work "/eval-points.tsv")
	for (key in keys2) {
		split(key, k, SUBSEP)
		L = k[3] / 100
		B = (k[2] ~ /^n?ge/) ? substr(k[2], k[2] ~ /^n/ ? 4 : 3) + 0 : 1
		f = (rsize[key] + (tlsv[key] == "1.3" ? 22 : 29)) / 1448
		W = sumlost[key] > 0 ? sumfol[key] / sumlost[key] : 0
		m = (L / B) * (f + B + (f < B ? f : B) * W)
		mod = 100 * exp(-m)
		# a lost record end costs that record and the next (its header
		# went with it), then the wait: the end of each record is lost with
		# probability q, at most once, so a record escapes when neither
		# its own end nor the one before it was lost (not Poisson: q
		# reaches 0.57 at 5 %)
		if (k[2] == "tail") {
			q = L * f < 1 ? L * f : 1
			mod = 100 * (1 - q) * (1 - q) * exp(-q * W)
		}
		# a stall loses nothing: the second copy is old data
		if (k[2] == "stall" || k[2] == "dup") mod = 100
		line = sprintf("%s\t%s\t%s\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.1f\t%.2f\t%.1f\t%.1f\t%.1f\t%.1f",
			k[1], k[2], k[3], cnt[key],
			stat(key, "rshare", 0.5), stat(key, "rshare", 0.25), stat(key, "rshare", 0.75),
			stat(key, "dshare", 0.5), stat(key, "dshare", 0.25), stat(key, "dshare", 0.75),
			mod, stat(key, "events", 0.5), stat(key, "swev", 0.5), stat(key, "lost", 0.5),
			stat(key, "req", 0.5), W, stat(key, "cpu", 0.5))
		print line > (work "/eval-points.tsv")
		# plot data: rate rshare(med q1 q3) dshare(med q1 q3) model
		print k[3], stat(key, "rshare", 0.5), stat(key, "rshare", 0.25), stat(key, "rshare", 0.75),
			stat(key, "dshare", 0.5), stat(key, "dshare", 0.25), stat(key, "dshare", 0.75), mod \
			> (work "/eval-" k[1] "-" k[2] ".unsorted")
	}
}' "$CSV"
for f in "$WORK"/eval-*.unsorted; do
	[ -e "$f" ] || continue
	sort -g "$f" > "${f%.unsorted}.dat" && rm -f "$f"
done
[ -s "$WORK/eval-points.tsv" ] || exit 1
# Summary: per config and family, the largest rate whose median device
# share stays at or above each threshold while every lower rate does too.
{
	echo "| configuration | traffic model | share >= 95 % up to | >= 80 % up to | >= 50 % up to | rates measured |"
	echo "|---|---|---|---|---|---|"
	for cfgf in "$WORK"/eval-*.dat; do
		b=$(basename "$cfgf" .dat); b=${b#eval-}
		fam=${b##*-} cfg=${b%-*}
		awk -v cfg="$cfg" -v fam="$fam" '
			{ r[NR] = $1; s[NR] = $5 }
			END {
				split("95 80 50", th, " ")
				for (t = 1; t <= 3; t++) {
					up = "below"; held = 1
					for (i = 1; i <= NR; i++) {
						if (s[i] >= th[t] && held) up = r[i] " %"
						else held = 0
					}
					if (held && NR) up = ">= " r[NR] " % (all)"
					out[t] = up
				}
				rates = ""; for (i = 1; i <= NR; i++) rates = rates (i > 1 ? ", " : "") r[i]
				printf "| %s | %s | %s | %s | %s | %s |\n", cfg, fam, out[1], out[2], out[3], rates
			}' "$cfgf"
	done | sort
} > "$WORK/eval-summary.md"
