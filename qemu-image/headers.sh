#!/bin/bash
# Print the kernel build tree (KDIR) the module builds against for ABI KVER,
# fetching it first if needed.
#   - Installed Debian headers (/usr/src/linux-headers-KVER) are used as
#     they are: deps.sh installs them when that is harmless (6.1's headers
#     depend on no kernel image).
#   - Otherwise (6.12's headers package depends on its kernel image, and
#     installing it would add a boot kernel to this machine) the headers,
#     their common tree and kbuild are fetched with apt-get download and
#     unpacked under BUILD/headers-KVER, with the one absolute path Debian
#     writes into them (the arch tree's Makefile including the common
#     tree's) pointed at the unpacked copy. Relative symlinks (scripts,
#     tools -> ../../lib/linux-kbuild-*) resolve inside the unpacked tree.
# Progress goes to stderr; stdout is only the path.
set -euo pipefail
KVER=${1:?usage: headers.sh KVER BUILD_DIR}
BUILD=${2:?usage: headers.sh KVER BUILD_DIR}

if [ -f "/usr/src/linux-headers-$KVER/Makefile" ]; then
	echo "/usr/src/linux-headers-$KVER"
	exit 0
fi

out=$BUILD/headers-$KVER
kdir=$out/usr/src/linux-headers-$KVER
if [ -f "$out/.complete" ]; then
	echo "$kdir"
	exit 0
fi

# linux-headers-6.12.118+deb12-amd64 -> -common and linux-kbuild-6.12.118+deb12
deps=$(apt-cache depends "linux-headers-$KVER" 2>/dev/null || true)
if [ -z "$deps" ]; then
	SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -qq >&2
	deps=$(apt-cache depends "linux-headers-$KVER")
fi
common=$(echo "$deps" | grep -o 'linux-headers-[^ ]*-common' | sed -n 1p)
kbuild=$(echo "$deps" | grep -o 'linux-kbuild-[^ ]*' | sed -n 1p)
[ -n "$common" ] && [ -n "$kbuild" ] || {
	echo "headers.sh: cannot find the common headers and kbuild of linux-headers-$KVER" >&2
	exit 1
}

echo ">>> fetching linux-headers-$KVER, $common, $kbuild (unpacked under $out, not installed)" >&2
rm -rf "$out"
mkdir -p "$out/deb"
( cd "$out/deb" && apt-get download -q "linux-headers-$KVER" "$common" "$kbuild" ) >&2
for d in "$out"/deb/*.deb; do
	dpkg-deb -x "$d" "$out"
done
rm -rf "$out/deb"
echo "include $out/usr/src/$common/Makefile" > "$kdir/Makefile"
test -f "$kdir/.config" && test -e "$kdir/scripts/Makefile.build" || {
	echo "headers.sh: unpacked headers at $kdir are incomplete" >&2
	exit 1
}
touch "$out/.complete"
echo "$kdir"
