#!/bin/bash
# make fresh-check: rehearse the README's first command on a fresh Debian 12
# machine (issue 21). CI machines already hold every package, so a green CI
# says nothing about a new user's first `make demo`; this does.
#   1. base: debootstrap --variant=minbase bookworm plus `make` (the one thing
#      a new user must install to type `make demo`; everything else is
#      deps.sh's job), apt lists emptied as on a machine never updated.
#      Cached under $FRESH_DIR/base-KEY, KEY from its inputs (the mirror,
#      the host's apt sources, the recipe), so a second run reuses it.
#   2. a fresh copy of the base as $FRESH_DIR/root, the host's apt sources
#      and resolv.conf copied in, and a clean clone of the repository at
#      FRESH_REF (default: the current HEAD; committed work only, never the
#      dirty work tree) bind-mounted at /root/innova.
#   3. in a private mount and PID namespace (every mount and process is
#      gone when it ends, however it ends; an EXIT trap unmounts as well),
#      /proc, /sys, /dev, /dev/pts mounted, then as root in the chroot:
#      make demo, make host-test, one short guest test (FRESH_GUEST_TEST,
#      default 10-*). CAP_SYS_MODULE is dropped from the bounding set:
#      nothing may load a module into this machine's kernel (the guest runs
#      under QEMU TCG, as everywhere in the project), and /proc/modules is
#      compared before and after.
# Exit status: 0 when every step passed. Log: $FRESH_DIR/run/log.
# Never touches this machine's /boot, kernels or packages.
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${FRESH_DIR:-$ROOT/build/fresh}
SUITE=bookworm
BASE_RECIPE="v1 debootstrap --variant=minbase --include=make $SUITE; lists emptied"

die() { echo "fresh-check: $*" >&2; exit 1; }

# ---------------------------------------------------------------- inside
# Run as: fresh-check.sh --inside ROOTDIR SRCDIR GUEST_TEST, as PID 1's
# child of a new mount + PID namespace (see the end of this script).
if [ "${1:-}" = --inside ]; then
	R=$2 SRC=$3 GTEST=$4
	mounted=()
	cleanup() {
		local i
		for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
			umount -l "${mounted[$i]}" 2>/dev/null || true
		done
	}
	trap cleanup EXIT
	mnt() {	# mnt TARGET mount-args...
		local t=$1; shift
		mkdir -p "$t"
		mount "$@" "$t"
		mounted+=("$t")
	}
	mount --make-rprivate /
	mnt "$R/proc" -t proc proc
	mnt "$R/sys" -t sysfs -o ro sysfs
	mnt "$R/dev" --bind /dev
	mnt "$R/dev/pts" --bind /dev/pts
	mnt "$R/root/innova" --bind "$SRC"
	# The steps a new user types, as root, in the clone.
	steps=(
		"make demo"
		"make host-test"
		"make guest CMD='GUEST_TESTS=\"$GTEST\" sh /innova/tests/guest/run-suite.sh'"
	)
	rc=0
	for s in "${steps[@]}"; do
		echo ">>> fresh-check: [$s]"
		t0=$(date +%s)
		set +e
		setpriv --bounding-set -sys_module \
			chroot "$R" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			/bin/bash -c "cd /root/innova && $s"
		rc=$?
		set -e
		echo ">>> fresh-check: [$s] exit $rc after $(( $(date +%s) - t0 ))s"
		[ $rc -eq 0 ] || break
	done
	exit $rc
fi

# ---------------------------------------------------------------- outside
[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, chroot, mounts)"
for c in debootstrap unshare setpriv chroot git; do
	command -v "$c" >/dev/null || die "needs $c on this machine"
done
REF=${FRESH_REF:-$(git -C "$ROOT" rev-parse HEAD)}
GTEST=${FRESH_GUEST_TEST:-10-*}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# Nothing may be mounted below OUT before anything there is removed.
check_unmounted() {
	local m
	m=$(awk -v d="$OUT/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo)
	[ -z "$m" ] || die "still mounted under $OUT: $m"
}
check_unmounted

# The host's apt sources, the files apt reads (*.list, *.sources), to
# copy into the root: the same mirror as this machine.
srcfiles=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -s "$f" ] && srcfiles+=("$f")
done
[ ${#srcfiles[@]} -gt 0 ] || die "no apt sources on this machine"
mirror=${MIRROR:-}
if [ -z "$mirror" ]; then
	mirror=$(grep -hoE '(URIs:|deb)[[:space:]]+https?://[^ ]*/debian/?( |$)' "${srcfiles[@]}" |
		awk 'NR == 1 { print $2 }' || true)
	mirror=${mirror:-http://deb.debian.org/debian}
fi
key=$( (echo "$BASE_RECIPE $mirror $(dpkg --print-architecture)"; cat "${srcfiles[@]}") |
	sha256sum | cut -c1-16)
base=$OUT/base-$key
log=$OUT/run/log
t_start=$(date +%s)

build_base() {
	local work=$OUT/base-$key.tmp t0
	rm -rf --one-file-system "$work"
	echo ">>> fresh-check: debootstrap $SUITE minbase + make from $mirror into $base"
	t0=$(date +%s)
	debootstrap --variant=minbase --include=make "$SUITE" "$work" "$mirror" > "$OUT/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$OUT/debootstrap.log" >&2; die "debootstrap failed (log: $OUT/debootstrap.log)"; }
	# A machine whose apt never ran update: deps.sh and kver.sh must cope.
	rm -rf "$work"/var/lib/apt/lists/* "$work"/var/cache/apt/archives/*.deb
	mkdir -p "$work"/var/lib/apt/lists/partial "$work/root/innova"
	mv "$work" "$base"
	echo ">>> fresh-check: base built in $(( $(date +%s) - t0 ))s"
	# Drop bases of older inputs.
	find "$OUT" -maxdepth 1 -name 'base-*' ! -name "base-$key" -exec rm -rf --one-file-system {} +
}

exec 9> "$OUT/.lock"
flock -n 9 || die "another fresh-check runs on $OUT"
base_state=cached
if [ ! -d "$base" ]; then
	base_state=built
	build_base
else
	echo ">>> fresh-check: base $base (cached)"
fi
t_base=$(date +%s)

# A fresh machine: a copy of the base, the host's sources, a clean clone.
R=$OUT/root
SRC=$OUT/run/src
check_unmounted
rm -rf --one-file-system "$R" "$OUT/run"
mkdir -p "$OUT/run"
cp -a "$base" "$R"
rm -f "$R"/etc/apt/sources.list "$R"/etc/apt/sources.list.d/*
for f in "${srcfiles[@]}"; do
	cp "$f" "$R$f"
done
cp -L /etc/resolv.conf "$R/etc/resolv.conf"
git clone -q --no-hardlinks "$ROOT" "$SRC"
git -C "$SRC" -c advice.detachedHead=false checkout -q --detach "$REF"
echo ">>> fresh-check: clone of $ROOT at $(git -C "$SRC" log -1 --format='%h %s' | cut -c1-72)"

# (A kernel built without module support has no /proc/modules.)
modules() { [ ! -r /proc/modules ] || awk '{ print $1 }' /proc/modules | sort; }
mods_before=$(modules)
# A new mount and PID namespace: its mounts and processes end with it
# (--kill-child: when unshare dies, so does the namespace's first process
# and with it every other). unshare blocks SIGINT and SIGTERM while it
# waits, so a signal to this script ends it with SIGKILL.
set +e
unshare --mount --pid --fork --kill-child "$0" --inside "$R" "$SRC" "$GTEST" > >(tee "$log") 2>&1 &
upid=$!
stopped=
trap 'stopped=1; kill -KILL "$upid" 2>/dev/null' INT TERM HUP
wait "$upid"
rc=$?
while kill -0 "$upid" 2>/dev/null; do
	wait "$upid"
	rc=$?
done
trap - INT TERM HUP
set -e
[ -z "$stopped" ] || { rc=130; echo ">>> fresh-check: stopped by a signal"; }
check_unmounted
mods_after=$(modules)
new_mods=$(comm -13 <(echo "$mods_before") <(echo "$mods_after"))
if [ -n "$new_mods" ]; then
	echo ">>> fresh-check: WARNING: modules appeared in this machine's kernel during the run" \
		"(this machine is shared; another job may have loaded them): $new_mods"
fi
t_end=$(date +%s)
echo ">>> fresh-check: ref $REF, base $base_state ($(( t_base - t_start ))s)," \
	"steps $(( t_end - t_base ))s, total $(( t_end - t_start ))s: $([ "$rc" -eq 0 ] && echo PASS || echo "FAIL (exit $rc)")"
exit "$rc"
