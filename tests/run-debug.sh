#!/bin/bash
# make test-debug: the guest suite on a debug build of the guest kernel's
# own Debian source (KASAN, lockdep, kmemleak, failslab, UBSAN: see
# kernel/debug-kernel.config; kernel/build-kernel.sh builds it), then the
# fault-prone tests again with allocations failing. Ends with "N passed, N failed, N skipped".
#   GUEST_TESTS='41-*'         the first pass: only these tests (default all)
#   FAULT_TESTS='41-* 52-*'    the allocation-failure pass (default: loss and
#                              reorder, rekey, teardown, many flows; set
#                              empty to skip it)
#   INNOVA_CACHE=DIR           where the debug kernel is cached
#   KVER=6.12-tls13            a patched-kernel lane: its series and config
#                              fragment with the debug fragment on top
#                              (another cold kernel build, cached apart)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
cd "$ROOT"
. "$ROOT/tests/tap.sh"
KVER=$(qemu-image/kver.sh)
lane=$(qemu-image/kver.sh --lane)
if [ -n "$lane" ]; then
	# the lane's kernel (its patches, its fragment) with the debug options
	stock=${KVER%-"$lane"}
	name=debug-$lane
	frag=$BUILD/$name-kernel.config
	mkdir -p "$BUILD"
	series=kernel/patches/$(echo "$stock" | cut -d. -f1-2)/series
	# (6.8 dropped UBSAN_SANITIZE_ALL: UBSAN instruments all code when on)
	{ grep -hvE '^CONFIG_(LOCALVERSION|UBSAN_SANITIZE_ALL)=' \
		"kernel/$lane-kernel.config" kernel/debug-kernel.config
	  echo "CONFIG_LOCALVERSION=\"-innova-$lane-debug\""; } > "$frag"
else
	stock=$KVER
	name=debug
	frag=kernel/debug-kernel.config
	series=-
fi
DBG=$BUILD/$name-kernel
sfx=${lane:+-$lane}
LOGS=$BUILD/test-logs/debug$sfx
mkdir -p "$LOGS"
# KASAN, lockdep and kmemleak scans make the guest several times slower
export GUEST_TIMEOUT=${GUEST_TIMEOUT:-7200}

echo "# guest image and userspace (as make test)"
if ! make -s image userspace > "$LOGS/image.log" 2>&1; then
	tail -30 "$LOGS/image.log" | sed 's/^/# /'
	fail_step "guest image"
	finish
fi

echo "# debug kernel (cached by source version, config fragment and compiler)"
kt0=$(date +%s)
if kernel/build-kernel.sh "$stock" "$name" "$frag" "$series" "$DBG" 2>&1 | tee "$LOGS/kernel.log" | grep -E '^(>>>|!!!|    )'; then
	pass_step "debug kernel $(cat "$DBG/release") ready in $(( $(date +%s) - kt0 )) s (cold build took $(cat "$DBG/build-seconds") s)"
else
	fail_step "debug kernel build (see $LOGS/kernel.log)"
	finish
fi

echo "# module against the debug kernel's build tree"
mk=(KDIR="$DBG/obj" KMOD="$BUILD/kmod-debug$sfx" STAGE="$BUILD/stage-debug$sfx")
if make -s "${mk[@]}" stage > "$LOGS/build.log" 2>&1; then
	pass_step "build: module against $(cat "$DBG/release") (vermagic $(modinfo -F vermagic "$BUILD/kmod-debug$sfx/innova.ko" | cut -d' ' -f1))"
else
	tail -30 "$LOGS/build.log" | sed 's/^/# /'
	fail_step "build: module against the debug kernel"
	finish
fi
# Same rootfs, plus the debug kernel's /lib/modules (modules.builtin).
cat "$BUILD/rootfs-$stock.cpio" "$DBG/modules.cpio" > "$BUILD/rootfs-debug$sfx.cpio"

echo "# guest suite on the debug kernel, then allocation-failure runs (QEMU TCG)"
faults=${FAULT_TESTS-41-* 43-* 45-* 52-*}
cmd="GUEST_TESTS='${GUEST_TESTS:-*}' sh /innova/tests/guest/run-suite.sh"
[ -z "$faults" ] ||
	cmd="$cmd; r=\$?; FAULT_ALLOC=1 GUEST_TESTS='$faults' sh /innova/tests/guest/run-suite.sh && exit \$r"
guest_suite "debug$sfx-guest" "$DBG/bzImage" "$BUILD/rootfs-debug$sfx.cpio" "$BUILD/stage-debug$sfx" \
	"$BUILD/guest-out-debug$sfx" "$cmd"
finish
