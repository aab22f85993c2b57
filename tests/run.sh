#!/bin/bash
# The test command: build, host tests, then the guest suite booted in QEMU.
# Every test prints one TAP line; the run ends with "N passed, N failed" and
# exits non-zero on any failure (a step that breaks without reporting counts
# as a failed test, never as a silent pass).
#   GUEST_TESTS='2* 41-*'  run only guest tests whose file name matches one
#   SKIP_GUEST=1      host tests only
#   SKIP_KSELFTEST=1  no kernel TLS selftest run (tests/kselftest)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
LOGS=$BUILD/test-logs
mkdir -p "$LOGS"
cd "$ROOT"
. "$ROOT/tests/tap.sh"

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
KVER=$KVER tests/check-style.sh "$(qemu-image/headers.sh "$KVER" "$BUILD")" "$BUILD/kmod" \
	> "$LOGS/style.log" 2>&1
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

sh tests/splat-selftest.sh > "$LOGS/splat-selftest.log" 2>&1
tally "$LOGS/splat-selftest.log"

[ "${SKIP_GUEST:-0}" = 1 ] && finish

echo "# guest image (cached after the first run)"
if ! make -s image stage > "$LOGS/image.log" 2>&1; then
	tail -30 "$LOGS/image.log" | sed 's/^/# /'
	fail_step "guest image"
	finish
fi

echo "# guest suite (QEMU TCG)"
KVER=$(qemu-image/kver.sh)
guest_suite guest "$BUILD/kernel-$KVER/root/boot/vmlinuz-$KVER" "$BUILD/rootfs-$KVER.cpio" \
	"$BUILD/stage" "$BUILD/guest-out" "GUEST_TESTS='${GUEST_TESTS:-*}' sh /innova/tests/guest/run-suite.sh"

# The kernel's own TLS selftests across the NIC (tests/kselftest): one more
# guest boot, veth baseline vs Innova, clean and with faults.
if [ "${SKIP_KSELFTEST:-0}" != 1 ]; then
	echo "# kernel TLS selftests across the NIC (tests/kselftest, QEMU TCG)"
	BUILD=$BUILD KVER=$KVER tests/kselftest/run.sh > "$LOGS/kselftest.log" 2>&1
	rc=$?
	grep -E '^# ' "$LOGS/kselftest.log" | grep -v '^#   ' | head -40
	tally "$LOGS/kselftest.log"
	[ $rc -eq 0 ] || grep -q '^not ok' "$LOGS/kselftest.log" || fail_step "kselftest exited $rc"
fi
finish
