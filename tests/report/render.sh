#!/bin/bash
# make report, host side, second half: turn the guest's output into
# OUT/data/*.csv, OUT/*.png (gnuplot, pngcairo) and OUT/index.md.
#   render.sh GUEST_LOG OUT     (run.sh calls it; rerun by hand to redo
#                                the plots from a saved guest.log)
# Guest lines: "@@csv NAME.csv ROW" (first row of a file is its header),
# "@@sum KEY VALUE", "# report: section NAME start|done", "# FAIL: why".
# A plot whose data is missing is listed as not produced, with the reason.
# Exit status: 1 if a section failed or a plot could not be drawn.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
LOG=${1:?guest log}; OUT=${2:?output dir}
DATA=$OUT/data WORK=$OUT/work
rm -rf "$DATA" "$WORK" "$OUT"/*.png "$OUT"/*.svg "$OUT/index.md"
mkdir -p "$DATA" "$WORK"
bad=0

# Split the log: CSV rows in order, summary rows, which section wrote
# which CSV, each section's first failure line.
awk -v data="$DATA" -v work="$WORK" '
	/^# report: section .* start$/ { sec = $4; print sec > (work "/started") }
	/^# report: section .* done/ { sec = "" }
	/^@@csv / { f = $2; row = $0; sub(/^@@csv [^ ]* /, "", row)
		print row > (data "/" f)
		if (!(f in owner)) { owner[f] = sec; print f, sec > (work "/owners") } }
	/^@@sum / { row = $0; sub(/^@@sum /, "", row); print row > (work "/sums") }
	/^# FAIL: / && sec != "" && !(sec in why) { why[sec] = 1; r = $0; sub(/^# FAIL: /, "", r)
		print sec, r > (work "/fails") }
' "$LOG"
touch "$WORK/owners" "$WORK/sums" "$WORK/fails" "$WORK/started"
sumval() { awk -v k="$1" '$1 == k { sub(/^[^ ]* /, ""); print; exit }' "$WORK/sums"; }

# Why a CSV is missing: its section failed (with its first FAIL line),
# was not in this run, or does not exist in tests/report/sections.
missing_why() {	# CSV SECTION
	local st; st=$(sumval "section_$2")
	if [ "$st" = failed ]; then
		echo "section $2 failed: $(awk -v s="$2" '$1 == s { sub(/^[^ ]* /, ""); print; exit }' "$WORK/fails")"
	elif [ "$st" = ok ]; then
		echo "section $2 passed but wrote no $1"
	elif grep -qx "$2" "$WORK/started"; then
		echo "section $2 started but the guest run ended before it did (timeout or crash: see guest.log)"
	elif [ -e "$HERE/sections/$2.sh" ]; then
		echo "section $2 did not run (REPORT_SECTIONS, or the guest run ended early)"
	else
		echo "no section writes $1 yet (tests/report/sections/$2.sh is not in the tree)"
	fi
}
# col CSV NAME: 1-based index of column NAME in CSV's header (empty if none)
col() { head -1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1 | sed -n 1p; }

declare -a PLOTS=()	# markdown blocks, in order
plot() {	# NAME.png TITLE EXPLANATION GP_SCRIPT [gnuplot -e assignments]
	local png=$1 title=$2 text=$3 gp=$4 vars=${5:-}
	local svg=${png%.png}.svg
	if gnuplot -e "out='$OUT/$png'; work='$WORK'; plots='$HERE/plots'; $vars" "$HERE/plots/$gp" 2> "$WORK/$png.err" && [ -s "$OUT/$png" ] &&
		gnuplot -e "out='$OUT/$svg'; work='$WORK'; plots='$HERE/plots'; $vars" "$HERE/plots/$gp" 2>> "$WORK/$png.err" && [ -s "$OUT/$svg" ]; then
		PLOTS+=("### $title"$'\n\n'"![$title]($png) ([SVG]($svg))"$'\n\n'"$text")
	else
		bad=1
		PLOTS+=("### $title"$'\n\n'"**Not produced**: gnuplot failed: $(head -3 "$WORK/$png.err" | tr '\n' ' ')")
	fi
}
absent() {	# TITLE CSV SECTION
	local why; why=$(missing_why "$2" "$3")
	# a section left out (REPORT_SECTIONS) or not written yet is no failure
	case $why in *"did not run"*|"no section writes"*) ;; *) bad=1 ;; esac
	PLOTS+=("### $1"$'\n\n'"**Not produced**: $why.")
}
partial() {	# CSV SECTION -> a note when the section that wrote CSV failed
	[ "$(sumval "section_$2")" = failed ] && echo " **Partial data**: $(missing_why "$1" "$2")."
}

# --- share vs loss / reorder, per resync mode (share.csv) ---
S=$DATA/share.csv
if [ -s "$S" ] && [ "$(wc -l < "$S")" -gt 1 ]; then
	modes=$(awk -F, 'NR > 1 && !seen[$3]++ { printf "%s ", $3 }' "$S")
	for fault in loss reorder; do
		for m in $modes; do
			awk -F, -v f=$fault -v m=$m 'NR > 1 && $1 == f && $3 == m && $7 == 1 { print $2, $4 / 100, $5 / 100 }' "$S" |
				sort -g > "$WORK/share-$fault-$m.dat"
		done
	done
	bytes=$(sumval share_bytes_per_point | awk '{ printf "%g MiB", $1 / 1048576 }')
	plot share-loss.png "NIC-decrypted share vs loss" \
"Share of the TLS bytes the NIC decrypted (solid: device_share, all bytes of the transfer; dashed: nic_share, the records the NIC could act on, leaving out those that arrived while it waited for the kernel's resync answer and those touched by a hole) against seeded cable loss on the sender's frames, for each resync mode, late-frame recovery off so every lost sync goes through the core. One verified kTLS transfer of $bytes per point (16 KiB records, one cable seed): a point is one run, not an average, and not exactly repeatable (the seed fixes the cable's draws, but which frames they hit depends on timing such as retransmissions: in two runs nic_share differed by up to 4 points under loss and up to 13 under 5 % reorder, device_share under reorder by up to 35); device_share also depends on how fast the TCG guest's receiver reads (the wait for the core), nic_share much less. A mode ending in _tls13 is the same mode over TLS 1.3 (only on the patched-kernel lane, KVER=6.12-tls13).$(partial share.csv 10-share-loss-reorder)" \
		share.gp "fault='loss'; modes='$modes'; xlab='cable loss (% of frames dropped)'"
	plot share-reorder.png "NIC-decrypted share vs reorder" \
"The same against seeded reordering (cable reorder_ppm as %, reorder_gap 3), no loss. With recovery off a reordered frame that carried a record header costs a resync through the core; the engine's late-frame recovery (on by default, not measured here) avoids that round trip. One transfer of $bytes per point; device_share varies with the receiver's read pace (see above), nic_share is the steadier curve.$(partial share.csv 10-share-loss-reorder)" \
		share.gp "fault='reorder'; modes='$modes'; xlab='cable reorder (% of frames, gap 3)'"
else
	absent "NIC-decrypted share vs loss" share.csv 10-share-loss-reorder
	absent "NIC-decrypted share vs reorder" share.csv 10-share-loss-reorder
fi

# --- engine vs gcm(aes) (engine.csv) ---
E=$DATA/engine.csv
if [ -s "$E" ] && [ "$(wc -l < "$E")" -gt 1 ]; then
	awk -F, 'NR > 1 { printf "\"%s B\" %s %s %s\n", $1, $2, $3, $4 }' "$E" > "$WORK/engine.dat"
	plot engine.png "Engine vs the kernel's gcm(aes)" \
"ns per plaintext byte of the emulated NIC's engine (frame parsing, record tracking, streaming AES-GCM over 1448-byte frames) and of one synchronous gcm(aes) decrypt per record over the same records (module/bench.c, best of 3; ratio above the bars). Driver: $(sumval gcm_aes_driver). Measured in the TCG guest: absolute ns are emulated-CPU time (about 75x native for crypto) and only the ratio carries over, and only roughly (TCG does not slow every instruction alike).$(partial engine.csv 20-engine-vs-gcm)" \
		engine.gp
else
	absent "Engine vs the kernel's gcm(aes)" engine.csv 20-engine-vs-gcm
fi

# --- offload vs flow count (flows.csv, written by 30-flows.sh) ---
# The share columns it may have: share (a fraction of records),
# device_share / nic_share (per 10000, lib.sh); all plotted as %.
F=$DATA/flows.csv
if [ -s "$F" ] && [ "$(wc -l < "$F")" -gt 1 ] && [ -n "$(col "$F" flows)" ]; then
	fc=$(col "$F" flows) ycols= ynames=
	for c in share device_share nic_share; do
		i=$(col "$F" $c); [ -n "$i" ] && ycols+="$i " ynames+="$c "
	done
	oc=$(col "$F" ok)
	mc=$(head -1 "$F" | tr ',' '\n' | grep -nE 'bytes_per_flow|mem' | cut -d: -f1 | sed -n 1p)
	dc=$(col "$F" device_ns_per_byte)
	if [ -n "$ycols" ]; then
		# one column per share, scaled to %: max <= 1 a fraction, > 100 per 10000;
		# points without ok=1 are left out
		awk -F, -v f=$fc -v ys="$ycols" -v ok=${oc:-0} '
			NR > 1 && (!ok || $ok == 1) { n++; x[n] = $f; k = split(ys, y, " ")
				for (j = 1; j <= k; j++) { v[n, j] = $y[j]; if ($y[j] + 0 > mx[j]) mx[j] = $y[j] + 0 } }
			END { for (i = 1; i <= n; i++) { printf "%s", x[i]
				for (j = 1; j <= k; j++) printf " %g", v[i, j] * (mx[j] <= 1 ? 100 : mx[j] > 100 ? 0.01 : 1)
				print "" } }' "$F" | sort -g > "$WORK/flows.dat"
		plot flows.png "NIC-decrypted share vs number of flows" \
"$ynames(as %) against the number of concurrent kTLS flows on one port (log scale), clean link, from flows.csv (share: the fraction of records the NIC decrypted; points whose transfer was not verified ok are left out). Large flow counts mostly measure connection setup under TCG; each point is one run.$(partial flows.csv 30-flows)" \
			flows.gp "ynames='$ynames'"
	else
		bad=1; PLOTS+=("### NIC-decrypted share vs number of flows"$'\n\n'"**Not produced**: flows.csv has no share, device_share or nic_share column (header: $(head -1 "$F")).")
	fi
	if [ -n "$mc" ]; then
		mname=$(head -1 "$F" | cut -d, -f"$mc")
		kc=$(col "$F" key_bytes_per_flow)
		# second line: the key objects' share, when the CSV has it
		awk -F, -v f=$fc -v m=$mc -v k=${kc:-0} 'NR > 1 && $m ~ /^[0-9.]+$/ { print $f, $m, (k ? $k : "NaN") }' "$F" |
			sort -g > "$WORK/flows-mem.dat"
		plot flows-mem.png "NIC memory per flow vs number of flows" \
"Column $mname of flows.csv against the number of flows (log scale): the module's own accounting (debugfs innova/objects) sampled while the flows were installed, the sample with the most keys: key objects (AES cipher and CTR transforms, GHASH transform, the key struct) and the driver's flow object in kmalloc buckets, plus the engine's flow slot (its preallocated table per port over max_flows). The same at every count means no per-flow cost hides in shared structures; points where no sample caught the flows installed (a short run) are left out.$(partial flows.csv 30-flows)" \
			flows-mem.gp "ylab='bytes per flow'; ttl='NIC memory per flow vs number of flows'; t2='$mname'; t3='key_bytes_per_flow'"
	fi
	if [ -n "$dc" ]; then
		awk -F, -v f=$fc -v d=$dc 'NR > 1 && $d ~ /^[0-9.]+$/ { print $f, $d }' "$F" | sort -g > "$WORK/flows-dev.dat"
		plot flows-dev.png "Device time per byte vs number of flows" \
"rx_tls_device_ns (the engine's time: frame parsing, flow lookup, record tracking, decryption, write-back) per received byte against the number of concurrent flows, same runs as above. Flat means the per-frame cost does not grow with the flow table (hashed lookup); the records are 1 KiB, so per-record work weighs more than in 16 KiB records. Emulated-CPU time under TCG: compare the points, not the absolute ns.$(partial flows.csv 30-flows)" \
			flows-mem.gp "ylab='device ns per byte'; ttl='Device time per byte vs number of flows'; dat='flows-dev.dat'"
	fi
else
	absent "NIC-decrypted share vs number of flows" flows.csv 30-flows
fi

# --- receiver CPU, offload vs software (cpu.csv, written by 40-cpu.sh) ---
C=$DATA/cpu.csv
if [ -s "$C" ] && [ "$(wc -l < "$C")" -gt 1 ] && [ -n "$(col "$C" mode)" ] && [ -n "$(col "$C" cpu_ns_per_byte)" ]; then
	mc=$(col "$C" mode) cc=$(col "$C" cpu_ns_per_byte) bc=$(col "$C" bytes)
	awk -F, -v m=$mc -v c=$cc -v b=${bc:-0} 'NR > 1 { lab = $m; if (b) lab = lab " " $b / 1048576 " MiB"; printf "\"%s\" %s\n", lab, $c }' "$C" > "$WORK/cpu.dat"
	plot cpu.png "Receiver CPU per byte: offload vs software kTLS" \
"cpu_ns_per_byte of cpu.csv per mode: the receiving CPU's kernel time (system, irq, softirq of the CPU the receiver is pinned to) over one verified transfer, less the time the emulated engine spent there (device_ns: on real hardware that work is the NIC's), per received byte; user time is left out (the same in both modes). From tick-granular /proc/stat counts under TCG, whose crypto cost differs from native, so the bars compare within this run only; the summary's cpu_ratio_* rows give the ratios.$(partial cpu.csv 40-cpu)" \
		cpu.gp
else
	[ -s "$C" ] && { bad=1; PLOTS+=("### Receiver CPU per byte: offload vs software kTLS"$'\n\n'"**Not produced**: cpu.csv lacks the mode or cpu_ns_per_byte column (header: $(head -1 "$C")).")
	} || absent "Receiver CPU per byte: offload vs software kTLS" cpu.csv 40-cpu
fi

# --- resync latency histogram (latency.csv) ---
L=$DATA/latency.csv
if [ -s "$L" ] && [ "$(wc -l < "$L")" -gt 1 ]; then
	# rows: latency bucket (file order), columns: modes; absent = 0
	awk -F, 'NR > 1 { if (!($2 in bi)) { bi[$2] = ++nb; bn[nb] = $2 } if (!($1 in mi)) { mi[$1] = ++nm; mn[nm] = $1 }
		c[$2, $1] = $3 }
		END { printf "-1 records"; for (j = 1; j <= nm; j++) printf " %s", mn[j]; print ""
		      for (i = 1; i <= nb; i++) { printf "%d \"%s\"", (bn[i] ~ /\+$/ ? 1e9 : bn[i]), bn[i]
			for (j = 1; j <= nm; j++) printf " %d", c[bn[i], mn[j]]; print "" } }' "$L" |
		sort -g | sed 's/^[^ ]* //' |
		# numeric buckets past the last non-empty one are left out; the
		# open-ended bucket always stays
		awk 'NR == 1 || $1 ~ /\+"$/ { keep[NR] = 1 } { row[NR] = $0; for (j = 2; j <= NF; j++) if (NR > 1 && $1 !~ /\+"$/ && $j + 0 > 0) last = NR }
			END { for (i = 1; i <= NR; i++) if (keep[i] || i <= last) print row[i] }' > "$WORK/latency.dat"
	nm=$(awk -F, 'NR > 1 && !s[$1]++' "$L" | wc -l)
	plot latency.png "Resync latency distribution" \
"The port's resync_latency histogram: after a flow lost sync, how many records the NIC followed undecrypted from the first intact header it found to its first record decrypted again (0: that header's record itself; the last bar is the open-ended bucket; empty buckets before it are left out), under seeded 2 % loss, late-frame recovery off, per resync mode, one verified transfer per mode. A resync through the core waits for the core's record parser, i.e. for the receiver's reads, which TCG slows unevenly: the tail is the receiver's pace as much as the mode's.$(partial latency.csv 50-resync-latency)" \
		latency.gp "nm=$nm"
else
	absent "Resync latency distribution" latency.csv 50-resync-latency
fi

# --- key updates, TLS 1.3 (rekey.csv, written by 60-rekey.sh; lane only) ---
K=$DATA/rekey.csv
T="Key updates (TLS 1.3): NIC share against the KeyUpdate interval"
if [ -s "$K" ]; then
	tbl=$(awk -F, 'NR == 1 { print "| interval (records) | cable | record size | updates | records | NIC-decrypted records | device share % | records in software per update (at least) | passed before their key, per update | unmarked at the change, per update | NIC share of records it had the key for % | auth failures | sync lost |"; print "|---|---|---|---|---|---|---|---|---|---|---|---|---|"; next }
		{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $11, $12, $13, $9, $10 }' "$K")
	PLOTS+=("### $T"$'\n\n'"$tbl"$'\n\n'"One verified kTLS transfer per row (AES-GCM-128; the sender rekeys kTLS TX after each KeyUpdate, the receiver installs each next key, and the patched kernel replaces the NIC's context: tls_dev_del, then tls_dev_add at the record after the KeyUpdate). Between updates the NIC decrypts every record it has the key for; the records in software are those that passed it while the receiver read the KeyUpdate and installed the next key, which under TCG is slow, so the column is the receiver's pace as much as the NIC's. At an update per record no record's key arrives before the record (0 %). Passed before their key: the driver's count at each replacing add (the old flow hands over the records it followed without a key, the walk over the socket's queue finds the rest); unmarked: the KeyUpdate's last frame carries the next key's first bytes, so it, and often the record before it, reach the host encrypted; the NIC share of the records it had the key for leaves the receiver's pace out. Auth failures: a context started on records a later KeyUpdate already covered (the driver cannot see an encrypted KeyUpdate in the queued data): the NIC verifies that record first and marks nothing.$(partial rekey.csv 60-rekey)")
elif [ -n "$(sumval rekey_skipped)" ]; then
	PLOTS+=("### $T"$'\n\n'"Not measured: $(sumval rekey_skipped).")
else
	absent "$T" rekey.csv 60-rekey
fi

# --- the evaluation: traffic models, seeds, model (eval.csv, 70-eval.sh) ---
V=$DATA/eval.csv
EVAL_SUMMARY=
if [ -s "$V" ] && [ "$(wc -l < "$V")" -gt 1 ] && "$HERE/eval-aggregate.sh" "$V" "$WORK"; then
	fams=$(sort "$WORK/eval-families" | tr '\n' ' ')
	seeds=$(awk -F'\t' 'NR > 1 { print $4 }' "$WORK/eval-points.tsv" | sort -n | sed -n 1p)
	for cfg in $(sort "$WORK/eval-configs"); do
		plot "eval-$cfg.png" "Evaluation: $cfg" \
"Records the NIC decrypted (of all the receiver got) against the fault rate, for each traffic model (bern: independent loss on the cable; geB: Gilbert-Elliott bursty loss on the cable, mean burst B frames, same mean rate; ngeB: the same from tc netem's loss gemodel, unseeded; tail: as many frames lost as bern loses, all of them frames that end a record; reoG: a frame held and released G frames later; stall: that share of the frames stops the link for 1 s, so TCP times out and sends again, nothing lost), configuration $cfg (resync mode, late-frame recovery on/off, record size, TLS version). Each point is the median over its seeds (at least $seeds), the error bars the interquartile range; the rate-0 point is the clean link. Dashed: the analytic model of docs/evaluation.md, record share exp(-m) with m = (L/B)(f + B + min(f,B) W) records missed per record (tail: min(1, L f)(2 + W); stall: 0) and W the resync wait measured at that point. The points and the model's inputs are in $(basename "$WORK")/eval-points.tsv, copied to data/eval-points.tsv.$(partial eval.csv 70-eval)" \
			eval.gp "cfg='$cfg'; fams='$fams'"
	done
	cp "$WORK/eval-points.tsv" "$DATA/eval-points.tsv"
	EVAL_SUMMARY=$(cat "$WORK/eval-summary.md")
elif [ -s "$V" ]; then
	bad=1; PLOTS+=("### Evaluation"$'\n\n'"**Not produced**: eval.csv has no intact point, or it could not be aggregated (header: $(head -1 "$V")).")
else
	absent "Evaluation" eval.csv 70-eval
fi

# --- index.md ---
failed=$(awk '$1 ~ /^section_/ && $2 == "failed" { sub(/^section_/, "", $1); printf "%s%s", n++ ? " " : "", $1 }' "$WORK/sums")
[ -n "$failed" ] && bad=1
[ "${GUEST_RC:-0}" = 0 ] || bad=1
{
	echo "# Innova report"
	echo
	echo "Generated $(date -u '+%Y-%m-%d %H:%M UTC') by \`make report\`; guest kernel $(sumval kernel)."
	echo "Guest CPU: $(sumval guest_cpu), **QEMU TCG** (software emulation, no KVM): every time and rate below is emulated-CPU time, crypto runs about 75x slower than native, so compare within this report only; shares and counts do not depend on speed except where noted."
	echo
	if [ "${GUEST_RC:-0}" != 0 ] || [ -n "$failed" ]; then
		echo "**Incomplete run**: guest exit status ${GUEST_RC:-?}${failed:+; failed sections: $failed}. Plots below say what is missing."
		echo
	fi
	[ -n "${GUEST_SECONDS:-}" ] && echo "Guest run: $((GUEST_SECONDS / 60)) min $((GUEST_SECONDS % 60)) s." && echo
	if [ -n "$EVAL_SUMMARY" ]; then
		echo "## Where the offload holds"
		echo
		echo "Per configuration (resync mode, late-frame recovery, record size, TLS version) and traffic model: the highest fault rate at which the median device share (TLS bytes the NIC decrypted) is still at or above 95 %, 80 % and 50 %, every lower rate included. From section 70-eval ($(sumval eval_grid)); method and limits in docs/evaluation.md."
		echo
		echo "$EVAL_SUMMARY"
		echo
	fi
	echo "## Summary"
	echo
	echo "| key | value |"
	echo "|---|---|"
	awk '{ k = $1; sub(/^[^ ]* ?/, ""); gsub(/\|/, "\\|"); printf "| %s | %s |\n", k, $0 }' "$WORK/sums"
	echo
	echo "## Plots"
	for p in "${PLOTS[@]}"; do echo; echo "$p"; done
	echo
	echo "## Data"
	echo
	for f in "$DATA"/*.csv; do [ -e "$f" ] && echo "- [data/$(basename "$f")](data/$(basename "$f")) ($(( $(wc -l < "$f") - 1 )) rows)"; done
	echo "- [guest.log](guest.log): the guest's whole output"
} > "$OUT/index.md"
echo ">>> report: $OUT/index.md ($(ls "$OUT"/*.png 2>/dev/null | wc -l) plots)${failed:+; failed sections: $failed}"
exit $bad
