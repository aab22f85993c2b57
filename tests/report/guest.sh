#!/bin/sh
# make report, guest side: runs every tests/report/sections/NN-*.sh in
# order, each in its own shell (so a section's die/exit ends only that
# section), and prints what tests/report/run.sh turns into the report:
#   # ...                progress (shown on the host terminal)
#   @@csv NAME.csv ROW   a row of data/NAME.csv (the first row is its header)
#   @@sum KEY VALUE      a row of the summary table
#   REPORT_SECTIONS='10-* 50-*'   only the sections matching a pattern
#   REPORT_SECTION_TIMEOUT=SEC    per section (default 2400: the default
#                                 evaluation grid takes about 20 minutes
#                                 on a shared machine): one hung
#                                 section must not eat the whole run
. /innova/tests/guest/lib.sh
cd /innova/tests/report/sections || exit 1
patterns=${REPORT_SECTIONS:-*}
matches() {
	set -f
	for p in $patterns; do
		case "$1" in $p|$p.sh|$p-*) set +f; return 0 ;; esac
	done
	set +f
	return 1
}
load_module
# The parameters every section starts from: a section may reload the
# module with its own (report_module in report-lib.sh); the next one must
# not inherit them.
params() { grep -H . /sys/module/innova/parameters/* 2>/dev/null; }
defaults=$(params)
echo "@@sum kernel $(uname -r)"
echo "@@sum guest_cpu $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo) ($(nproc) vCPUs)"
echo "@@sum innova_params $(params | sed 's|.*/||' | tr '\n' ' ')"
n=0 bad=0
for s in [0-9][0-9]-*.sh; do
	[ -f "$s" ] && matches "$s" || continue
	name=${s%.sh} n=$((n + 1))
	echo "# report: section $name start"
	start=$(date +%s)
	timeout -k 10 "${REPORT_SECTION_TIMEOUT:-2400}" \
		sh -c ". /innova/tests/guest/lib.sh; . /innova/tests/report/report-lib.sh; . ./$s" 2>&1
	rc=$?
	dur=$(( $(date +%s) - start ))
	[ $rc = 124 ] && echo "# FAIL: $name timed out after ${REPORT_SECTION_TIMEOUT:-2400}s"
	# whatever the section left behind
	pkill -x innova-tls 2>/dev/null
	teardown_pair
	if [ "$(params)" != "$defaults" ]; then
		rmmod innova 2>/dev/null; modprobe innova || echo "# report: modprobe innova failed"
	fi
	if [ $rc = 0 ]; then
		echo "@@sum section_$name ok"
	else
		echo "@@sum section_$name failed"; bad=$((bad + 1))
	fi
	echo "# report: section $name done (${dur}s, rc=$rc)"
done
[ $n -gt 0 ] || { echo "# report: no section matched '$patterns'"; exit 1; }
[ $bad = 0 ]
