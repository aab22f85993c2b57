#!/bin/bash
# make kselftest (and a step of make test): the kernel's TLS selftests
# across the Innova NIC. Builds tls.c and the netns shim (build.sh), stages
# them next to the project's guest artifacts, boots the guest once to run
# guest.sh (veth baseline vs Innova, clean and with faults) and tallies its
# TAP lines like the guest suite (plus the whole boot's dmesg scan); ends
# with "N passed, N failed, N skipped".
#   BUILD=DIR KVER=ABI tests/kselftest/run.sh    (after make image stage)
# KSFT_* variables are passed on to the guest (see guest.sh), e.g.
# KSFT_OFFLOAD=off: the Innova runs without TLS RX offload, which must fail.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
BUILD=${BUILD:-$ROOT/build}
KVER=${KVER:-$(qemu-image/kver.sh)}
LOGS=${LOGS:-$BUILD/test-logs}
mkdir -p "$LOGS"
. "$ROOT/tests/tap.sh"

# A patched lane's tls.c comes from its own tree (the series may change
# the selftest: patch 7 lets its rekey tests build)
lane=$(KVER=$KVER qemu-image/kver.sh --lane 2>/dev/null)
if [ -n "$lane" ] && [ -z "${KSELFTEST_SRC:-}" ] && [ -d "$BUILD/$lane-kernel/src/tools/testing/selftests" ]; then
	export KSELFTEST_SRC=$BUILD/$lane-kernel/src
fi
if ! tests/kselftest/build.sh "$KVER" "$BUILD/kselftest" > "$LOGS/kselftest-build.log" 2>&1; then
	tail -20 "$LOGS/kselftest-build.log" | sed 's/^/# /'
	fail_step "kselftest: build tls.c and the netns shim"
	finish
fi
grep '^>>>' "$LOGS/kselftest-build.log" | sed 's/^>>> /# /'

stage=$BUILD/stage-kselftest
[ -f "$BUILD/stage/innova.ko" ] || { fail_step "kselftest: $BUILD/stage missing (make stage)"; finish; }
rm -rf "$stage" && cp -a "$BUILD/stage" "$stage" && mkdir -p "$stage/kselftest"
cp "$BUILD/kselftest/tls" "$BUILD/kselftest/netns-shim.so" tests/kselftest/guest.sh "$stage/kselftest/"

cmd=
for v in $(compgen -v KSFT_); do cmd="$cmd$v='${!v}' "; done
GUEST_TIMEOUT=${GUEST_TIMEOUT:-1800} guest_suite kselftest-guest \
	"$BUILD/kernel-$KVER/root/boot/vmlinuz-$KVER" "$BUILD/rootfs-$KVER.cpio" \
	"$stage" "$BUILD/guest-out-kselftest" "${cmd}sh /innova/kselftest/guest.sh"
finish
