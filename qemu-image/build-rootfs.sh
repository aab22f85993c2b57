#!/bin/bash
# Build the guest's initramfs for kernel ABI KVER as two cached layers:
#   base     debootstrap bookworm (minbase + guest-packages.txt), the same
#            for every kernel; cached by its inputs (package list, this
#            script) in ${INNOVA_CACHE:-~/.cache/innova}, so a second clone
#            or build folder on this machine and the other kernel reuse it;
#   modules  the guest kernel's modules trimmed to what the tests need
#            (networking, crypto, libraries, a few virtual NICs), under
#            lib/modules/KVER, with its own depmod; cheap, rebuilt per KVER.
# OUT_CPIO is the two concatenated: the kernel unpacks cpio archives in
# order. Rebuilding the module never reruns debootstrap.
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"
KVER=${1:?usage: build-rootfs.sh KVER KERNEL_ROOT OUT_CPIO}
KROOT=${2:?}
OUT=${3:?}
HERE=$(cd "$(dirname "$0")" && pwd)

pkgs=$(grep -v '^#' "$HERE/guest-packages.txt" | xargs | tr ' ' ',')
key=$( (echo "$pkgs"; cat "$0") | sha256sum | cut -c1-16)
CACHE=${INNOVA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/innova}
base=$CACHE/rootfs-base-$key.cpio
mkdir -p "$CACHE"

build_base() {
	local mirror work start
	mirror=${MIRROR:-}
	if [ -z "$mirror" ]; then
		mirror=$(grep -hoE '(URIs:|deb)[[:space:]]+https?://[^ ]*/debian/?( |$)' \
			/etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null |
			awk 'NR == 1 { print $2 }' || true)
		mirror=${mirror:-http://deb.debian.org/debian}
	fi
	work=$CACHE/rootfs-base-$key.d
	rm -rf "$work"
	echo ">>> debootstrap bookworm minbase + [$pkgs] from $mirror (a few minutes)"
	start=$(date +%s)
	debootstrap --variant=minbase --include="$pkgs" bookworm "$work" "$mirror" 2>&1 |
		awk '/^I: (Retrieving|Validating|Extracting|Installing|Configuring|Unpacking)/ { n++; if (n % 40 == 0) { printf "    ... %s\n", $0; fflush() } next }
		     /^(E|W):/ { print "    " $0; fflush() }'
	[ -x "$work/usr/bin/openssl" ] || { echo "debootstrap failed" >&2; exit 1; }
	echo ">>> debootstrap done in $(( $(date +%s) - start ))s; trimming"
	# Trim what a test guest never reads.
	rm -rf "$work"/usr/share/{doc,man,info,locale,lintian,bash-completion} \
		"$work"/var/cache/apt/* "$work"/var/lib/apt/lists/* "$work"/var/log/*
	mkdir -p "$work"/{proc,sys,dev,tmp,run,mnt}
	# kernel layers (this one's, the debug kernel's) unpack into it
	mkdir -p "$work"/usr/lib/modules
	( cd "$work" && find . -print0 | cpio --null -o -H newc --quiet ) > "$base.tmp"
	mv "$base.tmp" "$base"
	rm -rf "$work"
	# Drop base archives of older inputs.
	find "$CACHE" -maxdepth 1 -name 'rootfs-base-*.cpio' ! -name "$(basename "$base")" -delete
	echo ">>> base rootfs: $base ($(du -h "$base" | cut -f1))"
}

# One debootstrap at a time per cache (two build folders may ask at once).
exec 9> "$CACHE/rootfs-base.lock"
flock 9
[ -f "$base" ] || build_base
flock -u 9

# The kernel's layer: its modules, trimmed, with modules.dep for modprobe.
mods=$(dirname "$OUT")/modules-$KVER.cpio
if [ ! -f "$mods" ] || [ "$0" -nt "$mods" ]; then
	work=$(mktemp -d "$(dirname "$OUT")/modules-XXXXXX")
	src="$KROOT/lib/modules/$KVER"
	dst="$work/lib/modules/$KVER"
	mkdir -p "$dst/kernel/drivers/net"
	cp -a "$src"/modules.{order,builtin,builtin.modinfo} "$dst"/ 2>/dev/null || true
	for d in net crypto lib arch mm; do
		[ -d "$src/kernel/$d" ] && cp -a "$src/kernel/$d" "$dst/kernel/"
	done
	rm -rf "$dst"/kernel/net/{wireless,mac80211,bluetooth,nfc,wimax,ieee802154,6lowpan,mac802154}
	for m in veth dummy ifb; do
		cp -a "$src/kernel/drivers/net/$m.ko"* "$dst/kernel/drivers/net/" 2>/dev/null || true
	done
	depmod -b "$work" "$KVER"
	# lib/modules/KVER only: the base's /lib -> usr/lib symlink must stay
	( cd "$work" && find lib/modules/"$KVER" -print0 |
		cpio --null -o -H newc --quiet -R 0:0 ) > "$mods.tmp"
	mv "$mods.tmp" "$mods"
	rm -rf "$work"
fi

if [ ! -f "$OUT" ] || [ -L "$OUT" ] || [ "$base" -nt "$OUT" ] || [ "$mods" -nt "$OUT" ]; then
	rm -f "$OUT"
	cat "$base" "$mods" > "$OUT.tmp"
	mv "$OUT.tmp" "$OUT"
	echo ">>> rootfs for $KVER: $OUT ($(du -h "$OUT" | cut -f1))"
fi
