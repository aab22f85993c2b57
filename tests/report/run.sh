#!/bin/bash
# make report, host side: boot the guest once running tests/report/guest.sh
# (every section in tests/report/sections/), stream its progress, save its
# output to $BUILD/report/guest.log, then render.sh turns that log into
# data/*.csv, PNG plots and index.md under $BUILD/report.
#   run.sh VMLINUZ BASE_CPIO STAGE_DIR
#   REPORT_TIMEOUT=SEC     whole guest run (default 3600)
#   REPORT_*               passed on to the guest (REPORT_SECTIONS='10-* 20-*',
#                          REPORT_BYTES=8M, ...; see the sections' headers)
# Exit status: non-zero if the guest run or any section failed; what was
# produced is written anyway.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
KERNEL=${1:?vmlinuz}; BASE=${2:?base cpio}; STAGE=${3:?stage dir}
BUILD=${BUILD:-$ROOT/build}
OUT=$BUILD/report
mkdir -p "$OUT"
rm -rf "$OUT/data" "$OUT"/*.png "$OUT/index.md"

# The guest command: guest.sh with every REPORT_* variable (except the
# host's own timeout), single-quoted for the guest's sh.
cmd=
while IFS='=' read -r k v; do
	case $k in REPORT_TIMEOUT) continue ;; esac
	cmd+="$k='${v//\'/\'\\\'\'}' "
done < <(env | grep '^REPORT_[A-Z_]*=' || true)
cmd+="sh /innova/tests/report/guest.sh"

start=$(date +%s)
echo ">>> report: guest run started $(date -u '+%Y-%m-%d %H:%M:%S UTC') (timeout ${REPORT_TIMEOUT:-3600}s): $cmd"
# Progress ("# " lines) with the elapsed time; @@ data lines only go to
# the log; anything else (a command's own error) is shown as it is.
"$ROOT/qemu-image/run-guest.sh" --timeout "${REPORT_TIMEOUT:-3600}" --outdir "$OUT/guest-out" \
	"$KERNEL" "$BASE" "$STAGE" "$cmd" 2>&1 |
	sed -u 's/\r$//' | tee "$OUT/guest.log" |
	while IFS= read -r line; do
		case $line in
		@@*|'# recv rc=0: '*) ;;	# data, and a passing transfer's JSON
		'# '*|'>>> '*) e=$(( $(date +%s) - start ))
			printf '[%02d:%02d] %s\n' $((e / 60)) $((e % 60)) "$line" ;;
		*) printf '%s\n' "$line" ;;
		esac
	done
rc=${PIPESTATUS[0]}
e=$(( $(date +%s) - start ))
echo ">>> report: guest run ended after $((e / 60))m$((e % 60))s (rc=$rc)"
GUEST_RC=$rc GUEST_SECONDS=$e "$HERE/render.sh" "$OUT/guest.log" "$OUT"
rrc=$?
[ $rc = 0 ] && [ $rrc = 0 ]
