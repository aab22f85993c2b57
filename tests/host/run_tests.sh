#!/bin/sh
# TAP runner for the host tests: engine tests, then a bounded fuzz run.
set -u
OUT=${OUT:?}
FUZZ_RUNS=${FUZZ_RUNS:-20000}
rc=0
TAP_COUNT_FILE=$OUT/.tapcount "$OUT/test_engine" || rc=1
n=$(cat "$OUT/.tapcount" 2>/dev/null || echo 0)
n=$((n + 1))
mkdir -p "$OUT/corpus"
if "$OUT/fuzz_engine" -runs="$FUZZ_RUNS" -max_len=4096 -seed=1 \
	-print_final_stats=1 "$OUT/corpus" >"$OUT/fuzz.log" 2>&1; then
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/fuzz.log")
	echo "ok $n - fuzz: ${execs:-?} executions, no crash/sanitizer report"
else
	echo "not ok $n - fuzz: failure, see $OUT/fuzz.log"
	tail -n 30 "$OUT/fuzz.log" | sed 's/^/#   /'
	rc=1
fi
echo "1..$n"
exit $rc
