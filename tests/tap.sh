# TAP bookkeeping shared by tests/run.sh and tests/run-debug.sh: every
# test prints one TAP line; the run ends with "N passed, N failed, N
# skipped" and exits non-zero on any failure (a step that breaks without
# reporting counts as a failed test, never as a silent pass).
# The caller sets LOGS and runs from the repository's root; TAP_TAG (e.g.
# "[6.12] ") is put in front of each test's name when several kernels run.
passed=0 failed=0 skipped=0 n=0 TAP_TAG=
# One line per failed test, printed again just above the totals: a CI
# system that keeps only the tail of the output still shows what failed
# and the test's own reason (its last "# FAIL:" line).
failures=()
t0=$(date +%s)

# Echo TAP lines from a log, renumbered into one stream, and count them.
tally() {
	local line rest why= re='^(not )?ok( [0-9]+)?(.*)$'
	while IFS= read -r line; do
		case $line in "# FAIL:"*) why=${line#"# FAIL: "} ;; esac
		[[ $line =~ $re ]] || continue
		rest=${BASH_REMATCH[3]}
		if [ -n "$TAP_TAG" ]; then
			case $rest in
			" - "*) rest=" - $TAP_TAG${rest# - }" ;;
			*) rest=" - $TAP_TAG${rest# }" ;;
			esac
		fi
		n=$((n + 1))
		if [ -n "${BASH_REMATCH[1]}" ]; then
			failed=$((failed + 1)); echo "not ok $n$rest"
			failures+=("not ok $n$rest${why:+ -- $why}")
		elif [[ $rest == *"# SKIP"* ]]; then
			skipped=$((skipped + 1)); echo "ok $n$rest"
		else
			passed=$((passed + 1)); echo "ok $n$rest"
		fi
		why=
	done < "$1"
}
fail_step() {
	n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $TAP_TAG$1"
	failures+=("not ok $n - $TAP_TAG$1")
}
pass_step() { n=$((n + 1)); passed=$((passed + 1)); echo "ok $n - $TAP_TAG$1"; }
# skip_step WHAT WHY: a step left out on purpose still prints its line, so
# totals never shrink silently
skip_step() { n=$((n + 1)); skipped=$((skipped + 1)); echo "ok $n - $TAP_TAG$1 # SKIP $2"; }
finish() {
	local f
	if [ ${#failures[@]} -gt 0 ]; then
		echo '# failed (each with its last "# FAIL:" reason; full logs in test-logs):'
		for f in "${failures[@]}"; do echo "#   $f" | cut -c1-400; done
	fi
	echo "# wall time $(( $(date +%s) - t0 ))s; logs in $LOGS"
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ] || exit 1
	exit 0
}


# guest_suite NAME KERNEL CPIO STAGE OUTDIR CMD: boot the guest on KERNEL,
# run CMD (run-suite.sh invocations) and tally its TAP lines, then scan the
# whole boot's kernel log (tests/guest/splat-patterns), not just each
# test's window.
guest_suite() {
	local name=$1 kernel=$2 cpio=$3 stage=$4 out=$5 cmd=$6 rc
	qemu-image/run-guest.sh --timeout "${GUEST_TIMEOUT:-2400}" --outdir "$out" \
		"$kernel" "$cpio" "$stage" "$cmd" > "$LOGS/$name.log" 2>&1
	rc=$?
	grep -v -E '^(ok|not ok) ' "$LOGS/$name.log" | grep -E '^(#|>>>|!!!)' | grep -v '^#   ' | sed -n 1,200p || true
	tally "$LOGS/$name.log"
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$LOGS/$name.log"; then
		tail -40 "$LOGS/$name.log" | sed 's/^/# /'
		fail_step "$name: guest exited $rc without reporting a failed test"
	fi
	if [ ! -s "$out/dmesg.log" ]; then
		fail_step "$name: guest dmesg captured at power-off"
	elif sh tests/guest/splat.sh "$out/dmesg.log" > "$LOGS/$name-splat.log"; then
		head -20 "$LOGS/$name-splat.log" | sed 's/^/# /'
		fail_step "$name: guest dmesg clean for the whole run"
	else
		pass_step "$name: guest dmesg clean for the whole run (tests/guest/splat-patterns)"
	fi
}
