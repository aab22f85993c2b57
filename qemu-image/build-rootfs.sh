#!/bin/bash
# Build the guest's base initramfs: debootstrap bookworm (minbase + the
# packages in guest-packages.txt) plus the guest kernel's modules trimmed to
# what the tests need. The result is cached by its inputs (KVER, package
# list, this script), so rebuilding the module never reruns debootstrap.
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"
KVER=${1:?usage: build-rootfs.sh KVER KERNEL_ROOT OUT_CPIO}
KROOT=${2:?}
OUT=${3:?}
HERE=$(cd "$(dirname "$0")" && pwd)

pkgs=$(grep -v '^#' "$HERE/guest-packages.txt" | xargs | tr ' ' ',')
key=$( (echo "$KVER"; echo "$pkgs"; cat "$0") | sha256sum | cut -c1-16)
cache="$(dirname "$OUT")/rootfs-$key.cpio"

if [ -f "$cache" ]; then
	ln -sf "$(basename "$cache")" "$OUT"
	exit 0
fi

mirror=${MIRROR:-}
if [ -z "$mirror" ]; then
	mirror=$(grep -hoE '(URIs:|deb)[[:space:]]+https?://[^ ]*/debian/?( |$)' \
		/etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null |
		awk '{print $2}' | head -1 || true)
	mirror=${mirror:-http://deb.debian.org/debian}
fi

work="$(dirname "$OUT")/rootfs-$key"
rm -rf "$(dirname "$OUT")"/rootfs-*/ "$work"
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

# Guest kernel modules: networking, crypto and libraries, plus a few
# virtual NICs for comparisons. Drivers for real hardware are left out.
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
chroot "$work" /sbin/depmod "$KVER"

echo ">>> packing base initramfs"
( cd "$work" && find . -print0 | cpio --null -o -H newc --quiet ) > "$cache.tmp"
mv "$cache.tmp" "$cache"
# Drop rootfs archives of older inputs.
find "$(dirname "$OUT")" -maxdepth 1 -name 'rootfs-*.cpio' -type f ! -name "$(basename "$cache")" -delete
rm -rf "$(dirname "$OUT")"/rootfs-*/ "$work"
ln -sf "$(basename "$cache")" "$OUT"
echo ">>> rootfs: $cache ($(du -h "$cache" | cut -f1))"
