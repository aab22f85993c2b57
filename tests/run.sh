#!/bin/bash
# The test command: build, host tests, then the guest suite booted in QEMU.
# Every test prints one TAP line; the run ends with "N passed, N failed" and
# exits non-zero on any failure (a step that breaks without reporting counts
# as a failed test, never as a silent pass).
#   GUEST_TESTS='2*'  run only guest tests whose file name matches
#   SKIP_GUEST=1      host tests only
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
LOGS=$BUILD/test-logs
mkdir -p "$LOGS"
cd "$ROOT"
passed=0 failed=0 skipped=0 n=0
t0=$(date +%s)

# Echo TAP lines from a log, renumbered into one stream, and count them.
tally() {
	local line rest re='^(not )?ok( [0-9]+)?(.*)$'
	while IFS= read -r line; do
		[[ $line =~ $re ]] || continue
		rest=${BASH_REMATCH[3]}
		n=$((n + 1))
		if [ -n "${BASH_REMATCH[1]}" ]; then
			failed=$((failed + 1)); echo "not ok $n$rest"
		elif [[ $rest == *"# SKIP"* ]]; then
			skipped=$((skipped + 1)); echo "ok $n$rest"
		else
			passed=$((passed + 1)); echo "ok $n$rest"
		fi
	done < "$1"
}
fail_step() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
pass_step() { n=$((n + 1)); passed=$((passed + 1)); echo "ok $n - $1"; }
finish() {
	echo "# wall time $(( $(date +%s) - t0 ))s; logs in $LOGS"
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ] || exit 1
	exit 0
}

echo "# build (module against linux-headers-$(qemu-image/kver.sh), userspace)"
if make -s all > "$LOGS/build.log" 2>&1; then
	pass_step "build: module (-Werror) and userspace (-Wall -Wextra -Werror)"
else
	tail -30 "$LOGS/build.log" | sed 's/^/# /'
	fail_step "build: module and userspace"
	finish
fi

echo "# kernel style (checkpatch --strict, sparse)"
KVER=$(qemu-image/kver.sh)
tests/check-style.sh "/usr/src/linux-headers-$KVER" "$BUILD/kmod" > "$LOGS/style.log" 2>&1
grep '^# ' "$LOGS/style.log" | head -20
tally "$LOGS/style.log"

echo "# host tests"
if [ -f tests/host/Makefile ]; then
	make -s -C tests/host test BUILD="$BUILD" > "$LOGS/host.log" 2>&1
	rc=$?
	grep -E '^# (coverage|fuzz|bench)' "$LOGS/host.log" || true
	tally "$LOGS/host.log"
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$LOGS/host.log"; then
		tail -20 "$LOGS/host.log" | sed 's/^/# /'
		fail_step "host tests exited $rc"
	fi
fi
if [ -x userspace/selftest.sh ] && [ -x "$BUILD/userspace/innova-tls" ]; then
	userspace/selftest.sh "$BUILD/userspace/innova-tls" > "$LOGS/userspace.log" 2>&1
	rc=$?
	tally "$LOGS/userspace.log"
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$LOGS/userspace.log"; then
		tail -20 "$LOGS/userspace.log" | sed 's/^/# /'
		fail_step "userspace selftest exited $rc"
	fi
fi

[ "${SKIP_GUEST:-0}" = 1 ] && finish

echo "# guest image (cached after the first run)"
if ! make -s image stage > "$LOGS/image.log" 2>&1; then
	tail -30 "$LOGS/image.log" | sed 's/^/# /'
	fail_step "guest image"
	finish
fi

echo "# guest suite (QEMU TCG)"
KVER=$(qemu-image/kver.sh)
qemu-image/run-guest.sh --timeout "${GUEST_TIMEOUT:-2400}" --outdir "$BUILD/guest-out" \
	"$BUILD/kernel-$KVER/root/boot/vmlinuz-$KVER" "$BUILD/rootfs-$KVER.cpio" "$BUILD/stage" \
	"GUEST_TESTS='${GUEST_TESTS:-*}' sh /innova/tests/guest/run-suite.sh" > "$LOGS/guest.log" 2>&1
rc=$?
grep -v -E '^(ok|not ok) ' "$LOGS/guest.log" | grep -E '^(#|>>>|!!!)' | grep -v '^#   ' | head -200 || true
tally "$LOGS/guest.log"
if [ $rc -ne 0 ] && ! grep -q '^not ok' "$LOGS/guest.log"; then
	tail -40 "$LOGS/guest.log" | sed 's/^/# /'
	fail_step "guest suite exited $rc without reporting a failed test"
fi
# The whole boot's kernel log, not just each test's window.
if [ ! -s "$BUILD/guest-out/dmesg.log" ]; then
	fail_step "guest dmesg captured at power-off"
elif grep -E -q 'WARNING:|BUG:|Oops|Call Trace|KASAN|UBSAN|general protection' "$BUILD/guest-out/dmesg.log" 2>/dev/null; then
	grep -E -B2 -A8 'WARNING:|BUG:|Oops|Call Trace|KASAN|UBSAN|general protection' "$BUILD/guest-out/dmesg.log" | head -60 | sed 's/^/# /'
	fail_step "guest dmesg clean for the whole run"
else
	pass_step "guest dmesg clean for the whole run (no WARN/BUG/Oops/Call Trace)"
fi
finish
