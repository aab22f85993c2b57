#!/bin/bash
# Fetch Debian's linux-image-$KVER (the same ABI the module is built against)
# and unpack it under $OUT. Nothing is installed into the host's /boot.
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"
KVER=${1:?usage: fetch-kernel.sh KVER OUTDIR}
OUT=${2:?usage: fetch-kernel.sh KVER OUTDIR}

if [ -f "$OUT/.complete" ]; then exit 0; fi
rm -rf "$OUT"; mkdir -p "$OUT/deb"
echo ">>> fetching linux-image-$KVER (guest kernel)"
( cd "$OUT/deb" && apt-get download "linux-image-$KVER" 2>&1 | tail -1 ) || {
	SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	( cd "$OUT/deb" && apt-get download "linux-image-$KVER" )
}
dpkg-deb -x "$OUT"/deb/linux-image-*.deb "$OUT/root"
test -f "$OUT/root/boot/vmlinuz-$KVER"
test -d "$OUT/root/lib/modules/$KVER"
touch "$OUT/.complete"
echo ">>> guest kernel: $OUT/root/boot/vmlinuz-$KVER"
