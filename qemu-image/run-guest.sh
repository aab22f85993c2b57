#!/bin/bash
# Boot the Innova test guest under QEMU (TCG by default: KVM hangs on our
# machines; KVM=1 opts in) and run one command in it.
#   run-guest.sh [--shell] [--timeout SEC] [--outdir DIR] KERNEL BASE_CPIO STAGE_DIR [CMD...]
# STAGE_DIR holds the project's artifacts; it becomes /innova in the guest.
# The command's output streams to stdout, the guest's dmesg is saved to
# OUTDIR/dmesg.log, and the exit status is the command's (124 on timeout).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
shell=0 timeout=1200 outdir=
while [ $# -gt 0 ]; do
	case "$1" in
	--shell) shell=1; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--outdir) outdir=$2; shift 2 ;;
	*) break ;;
	esac
done
KERNEL=${1:?kernel}; BASE=${2:?base cpio}; STAGE=${3:?stage dir}; shift 3
CMD="$*"
outdir=${outdir:-$(dirname "$BASE")/guest-out}
mkdir -p "$outdir"
rm -f "$outdir"/{console,result,dmesg}.log

# The overlay archive: /init and /innova/ (the project's artifacts). The
# kernel unpacks concatenated cpio archives in order, so the cached base
# rootfs is reused untouched.
ov=$(mktemp -d)
trap 'rm -rf "$ov"' EXIT
mkdir -p "$ov/innova"
cp -a "$STAGE"/. "$ov/innova/"
install -m 0755 "$HERE/guest-init" "$ov/init"
printf '%s\n' "$CMD" > "$ov/innova/cmd.sh"
( cd "$ov" && find . -print0 | cpio --null -o -H newc --quiet -R 0:0 ) > "$outdir/overlay.cpio"
cat "$BASE" "$outdir/overlay.cpio" > "$outdir/initrd.cpio"

accel="-accel tcg"
[ "${KVM:-0}" = 1 ] && accel="-accel kvm -cpu host"
[ "${KVM:-0}" = 1 ] || accel="$accel -cpu max"
append="console=ttyS0 rdinit=/init panic=-1 loglevel=4 quiet log_buf_len=8M"
qemu=(qemu-system-x86_64 $accel -smp 2 -m 2048 -nographic -no-reboot
	-kernel "$KERNEL" -initrd "$outdir/initrd.cpio" -nic none)

if [ $shell = 1 ]; then
	exec "${qemu[@]}" -append "$append innovaguest=shell" -serial mon:stdio
fi

# A boot whose kernel dies before /init runs (seen with 6.12 under TCG: an
# int3 Oops in the kernel's own text patching while it boots, no module
# loaded) is booted again, at most twice, and said so; once /init has
# written its line to the console, whatever happens counts.
for attempt in 1 2 3; do
	echo ">>> booting guest ($(basename "$KERNEL"), TCG, 2 vCPUs, timeout ${timeout}s)"
	: > "$outdir/result.log"
	tail -n +1 -F "$outdir/result.log" 2>/dev/null | grep --line-buffered -v '^INNOVA_EXIT=' &
	tailpid=$!
	set +e
	timeout -k 10 "$timeout" "${qemu[@]}" -append "$append innovaguest=run" \
		-monitor none -serial "file:$outdir/console.log" \
		-serial "file:$outdir/result.log" -serial "file:$outdir/dmesg.log" </dev/null
	qrc=$?
	set -e
	sleep 0.3
	kill $tailpid 2>/dev/null || true
	wait $tailpid 2>/dev/null || true
	# retried only if nothing of ours ran: no line from /init, no output
	[ -s "$outdir/result.log" ] && break
	[ $qrc = 124 ] && break		# a hang is not booted again
	grep -aqF 'innova-guest: init started' "$outdir/console.log" && break
	[ $attempt = 3 ] && break
	cp "$outdir/console.log" "$outdir/console-boot$attempt.log"
	echo "!!! guest kernel died before /init ran (boot $attempt of 3, qemu rc=$qrc; no project code had run): booting again; it said:" >&2
	grep -a -m 3 -E 'Oops|BUG:|Kernel panic|RIP:' "$outdir/console.log" | tr -d '\r' | sed 's/^/!!!   /' >&2 || true
done

rc=$(tr -d '\r' < "$outdir/result.log" | sed -n 's/^INNOVA_EXIT=\([0-9]*\)$/\1/p' | tail -1)
if [ -z "$rc" ]; then
	if [ $qrc = 124 ]; then
		echo "!!! guest timed out after ${timeout}s; console tail:" >&2
	else
		echo "!!! guest ended without reporting (qemu rc=$qrc); console tail:" >&2
	fi
	tail -n 40 "$outdir/console.log" >&2 || true
	exit 124
fi
exit "$rc"
