#!/bin/bash
# The test command: host tests once, then per kernel: build, kernel style,
# the guest suite booted in QEMU and the kernel's TLS selftests. Every test
# prints one TAP line; the run ends with "N passed, N failed" and exits
# non-zero on any failure (a step that breaks without reporting counts as a
# failed test, never as a silent pass).
#   KVERS='6.1 6.12 6.12-tls13'  the kernels (lines, ABIs or patched-kernel
#                     lanes: qemu-image/kver.sh; make test sets these three
#                     unless KVER names one); TAP names carry "[line]"
#                     ("[6.12-tls13]") with several
#   GUEST_TESTS='2* 41-*'  run only guest tests whose file name matches one
#   SKIP_GUEST=1      host tests only
#   SKIP_KSELFTEST=1  no kernel TLS selftest run (tests/kselftest)
#   BUILD=DIR         build outputs there instead of build/
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
TOP_LOGS=$BUILD/test-logs
LOGS=$TOP_LOGS
mkdir -p "$LOGS"
cd "$ROOT"
. "$ROOT/tests/tap.sh"

KVERS=${KVERS:-${KVER:-6.1}}
kvers=()
for k in $KVERS; do
	v=$(KVER=$k qemu-image/kver.sh) || { fail_step "kernel $k: no such Debian kernel"; finish; }
	kvers+=("$v")
done

# lane_kernel KVER: for a patched-kernel lane, its kernel first
# (kernel/build-kernel.sh: seconds when cached, a kernel build when cold,
# progress shown); nothing for a stock kernel.
lane_kernel() {
	local lane kt0 dir
	lane=$(KVER=$1 qemu-image/kver.sh --lane)
	[ -n "$lane" ] || return 0
	echo "# patched kernel: linux-source + kernel/patches + kernel/$lane-kernel.config (cached by its inputs)"
	kt0=$(date +%s)
	if make -s BUILD="$BUILD" KVER="$1" lane-kernel 2>&1 | tee "$LOGS/kernel.log" | grep -E '^(>>>|!!!|    )'; then
		dir=$BUILD/$lane-kernel
		pass_step "kernel $(cat "$dir/release") ready in $(( $(date +%s) - kt0 )) s (its build took $(cat "$dir/build-seconds") s, $(cat "$dir/build-cpu-seconds" 2>/dev/null || echo ?) s of CPU)"
		return 0
	fi
	tail -5 "$LOGS/kernel.log" | sed 's/^/# /'
	fail_step "kernel: the $lane lane's kernel (see $LOGS/kernel.log)"
	return 1
}

# build KVER: module against KVER's headers (a lane's kernel tree), userspace
build() {
	lane_kernel "$1" || return 1
	echo "# build (module against $(make -s --no-print-directory BUILD="$BUILD" KVER="$1" print-kdir), userspace)"
	if make -s BUILD="$BUILD" KVER="$1" all > "$LOGS/build.log" 2>&1; then
		pass_step "build: module (-Werror) and userspace (-Wall -Wextra -Werror)"
		return 0
	fi
	tail -30 "$LOGS/build.log" | sed 's/^/# /'
	fail_step "build: module and userspace"
	return 1
}

# Host-side tests do not depend on the kernel: once, with the first one's build.
build "${kvers[0]}" || finish
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
bash tests/lint-pipefail.sh > "$LOGS/lint-pipefail.log" 2>&1
tally "$LOGS/lint-pipefail.log"
grep '^#   ' "$LOGS/lint-pipefail.log" || true

# kernel_steps KVER: everything that runs against one kernel. The module's
# build tree, stage and guest output folders are shared by the kernels
# (one at a time); logs go to test-logs/<line>/.
kernel_steps() {
	local kver=$1 line lane
	line=$(echo "$kver" | cut -d. -f1-2)
	lane=$(KVER=$kver qemu-image/kver.sh --lane)
	[ -z "$lane" ] || line=$line-$lane
	LOGS=$TOP_LOGS/$line
	mkdir -p "$LOGS"
	[ ${#kvers[@]} -gt 1 ] && TAP_TAG="[$line] "
	echo "# ---- kernel $kver ----"
	if ! qemu-image/deps.sh "$kver" > "$LOGS/deps.log" 2>&1; then
		tail -20 "$LOGS/deps.log" | sed 's/^/# /'
		fail_step "host packages for $kver"
		return
	fi
	[ "$kver" = "${kvers[0]}" ] || build "$kver" || return

	echo "# kernel style (checkpatch --strict, sparse)"
	KVER=$kver tests/check-style.sh "$(make -s --no-print-directory BUILD="$BUILD" KVER="$kver" print-kdir)" "$BUILD/kmod" \
		> "$LOGS/style.log" 2>&1
	grep -m 20 '^# ' "$LOGS/style.log"
	tally "$LOGS/style.log"

	if [ "${SKIP_GUEST:-0}" = 1 ]; then
		skip_step "guest suite (QEMU TCG)" "SKIP_GUEST=1"
		skip_step "kernel TLS selftests across the NIC" "SKIP_GUEST=1"
		return
	fi
	echo "# guest image (cached after the first run)"
	if ! make -s BUILD="$BUILD" KVER="$kver" image stage > "$LOGS/image.log" 2>&1; then
		tail -30 "$LOGS/image.log" | sed 's/^/# /'
		fail_step "guest image"
		return
	fi

	echo "# guest suite (QEMU TCG)"
	guest_suite guest "$BUILD/kernel-$kver/root/boot/vmlinuz-$kver" "$BUILD/rootfs-$kver.cpio" \
		"$BUILD/stage" "$BUILD/guest-out" "GUEST_TESTS='${GUEST_TESTS:-*}' sh /innova/tests/guest/run-suite.sh"

	# The kernel's own TLS selftests across the NIC (tests/kselftest): one
	# more guest boot, veth baseline vs Innova, clean and with faults.
	if [ "${SKIP_KSELFTEST:-0}" != 1 ]; then
		echo "# kernel TLS selftests across the NIC (tests/kselftest, QEMU TCG)"
		BUILD=$BUILD KVER=$kver LOGS=$LOGS tests/kselftest/run.sh > "$LOGS/kselftest.log" 2>&1
		rc=$?
		grep -E '^# ' "$LOGS/kselftest.log" | grep -v '^#   ' | sed -n 1,40p
		tally "$LOGS/kselftest.log"
		[ $rc -eq 0 ] || grep -q '^not ok' "$LOGS/kselftest.log" || fail_step "kselftest exited $rc"
	else
		skip_step "kernel TLS selftests across the NIC" "SKIP_KSELFTEST=1"
	fi
}

for kver in "${kvers[@]}"; do
	kernel_steps "$kver"
done
TAP_TAG= LOGS=$TOP_LOGS
finish
