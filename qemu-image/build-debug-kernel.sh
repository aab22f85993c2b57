#!/bin/bash
# Build the debug kernel for `make test-debug` (KASAN, lockdep, kmemleak,
# failslab, UBSAN) from Debian's linux-source package of the guest kernel's
# version, with x86_64_defconfig + qemu-image/debug-kernel.config.
#
#   build-debug-kernel.sh KVER LINK
#
# The build is cached by its inputs (source package version, config
# fragment, compiler, the recipe's version below) under
#   ${INNOVA_CACHE:-${XDG_CACHE_HOME:-~/.cache}/innova}/debug-kernel-<key>/
# outside the checkout, so a second clean clone on the same machine reuses
# it. LINK becomes a symlink to that directory, which holds:
#   obj/                     the kernel build tree (the module builds against it)
#   bzImage                  the kernel the guest boots
#   modules.cpio             /lib/modules/<release>/ for the guest (modules.builtin)
#   release                  the kernel release string
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"
KVER=${1:?usage: build-debug-kernel.sh KVER LINK}
LINK=${2:?usage: build-debug-kernel.sh KVER LINK}
HERE=$(cd "$(dirname "$0")" && pwd)
FRAG=$HERE/debug-kernel.config

# The source package whose version matches the guest kernel's image.
series=$(echo "$KVER" | cut -d. -f1-2)
srcpkg=linux-source-$series
tarball=/usr/src/$srcpkg.tar.xz
"$HERE/deps.sh" "$KVER" "$srcpkg" flex bison bc libelf-dev
srcver=$(dpkg-query -W -f='${Version}' "$srcpkg")
imgver=$(dpkg-deb -f "$(dirname "$LINK")/kernel-$KVER/deb/linux-image-$KVER"_*.deb Version 2>/dev/null || echo "$srcver")
if [ "$srcver" != "$imgver" ]; then
	echo "!!! $srcpkg is $srcver but the guest kernel is $imgver: apt-get upgrade $srcpkg (or set KVER)" >&2
	exit 1
fi

# Bump RECIPE when a change below alters what gets built (not for messages).
RECIPE=1
key=$( (echo "$srcver recipe $RECIPE"; cat "$FRAG"; gcc --version | sed -n 1p) | sha256sum | cut -c1-16)
cache=${INNOVA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/innova}
dir=$cache/debug-kernel-$key
mkdir -p "$(dirname "$LINK")"

# The guest's /lib/modules/<release>: modules.builtin lets modprobe accept
# the built-in tls, veth, sch_netem; any module built =m goes along. Only
# lib/modules/<release>/ is in the archive, not lib/ itself: the rootfs is
# merged-/usr (lib -> usr/lib), and an archive entry for lib would replace
# that link with a directory, losing the dynamic loader. Cheap, so it is
# redone on every call rather than cached.
modules_cpio() {
	local mods release
	release=$(cat "$dir/obj/include/config/kernel.release")
	mods=$(mktemp -d)
	make -s -C "$(echo "$dir"/linux-source-*)" O="$dir/obj" INSTALL_MOD_PATH="$mods" \
		INSTALL_MOD_STRIP=1 DEPMOD=true modules_install
	rm -f "$mods/lib/modules/$release"/{build,source}
	( cd "$mods" && find "lib/modules/$release" -print0 |
		cpio --null -o -H newc --quiet -R 0:0 ) > "$dir/modules.cpio"
	rm -rf "$mods"
}

if [ -f "$dir/.complete" ]; then
	modules_cpio
	ln -sfn "$dir" "$LINK"
	echo ">>> debug kernel $(cat "$dir/release"): cached in $dir (built in $(cat "$dir/build-seconds") s)"
	exit 0
fi

start=$(date +%s)
mkdir -p "$cache"
# a build that never completed (any key) is only disk space
for d in "$cache"/debug-kernel-*; do
	[ -e "$d/.complete" ] || rm -rf "$d"
done
rm -rf "$dir"
mkdir -p "$dir/obj"
echo ">>> debug kernel: unpacking $srcpkg $srcver into $dir"
tar -C "$dir" -xaf "$tarball"
src=$(echo "$dir"/linux-source-*)
[ -f "$src/Makefile" ] || { echo "!!! no kernel tree in $tarball" >&2; exit 1; }

echo ">>> debug kernel: x86_64_defconfig + $(basename "$FRAG")"
make -s -C "$src" O="$dir/obj" x86_64_defconfig
"$src/scripts/kconfig/merge_config.sh" -m -O "$dir/obj" "$dir/obj/.config" "$FRAG" > "$dir/merge.log"
make -s -C "$src" O="$dir/obj" olddefconfig
# Every line of the fragment must have survived olddefconfig: a symbol
# dropped for a missing dependency would silently weaken the lane.
missing=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF "$line" "$dir/obj/.config" ||
			{ echo "!!! wanted $line, got: $(grep -E "^(# )?${line%%=*}[= ]" "$dir/obj/.config" || echo absent)" >&2; missing=1; } ;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }; sym=${sym%% *}
		! grep -qE "^$sym=[ym]" "$dir/obj/.config" ||
			{ echo "!!! wanted $sym off, got: $(grep -E "^$sym=" "$dir/obj/.config")" >&2; missing=1; } ;;
	esac
done < "$FRAG"
[ $missing = 0 ] || { echo "!!! the debug config lost symbols (above)" >&2; exit 1; }

jobs=$(nproc)
echo ">>> debug kernel: building with $jobs jobs (tens of minutes on two cores; progress every 500 files)"
# Progress: count the files Kbuild reports, print every 500.
set +e
make -C "$src" O="$dir/obj" -j"$jobs" bzImage modules 2>&1 |
	tee "$dir/build.log" |
	awk -v t0="$start" '/^  (CC|AS|LD|AR)/ { n++; if (n % 500 == 0) { printf "    ... %d files, %d s\n", n, systime() - t0; fflush() } }
	     /error:|Error [0-9]/ { print "    " $0; fflush() }'
rc=${PIPESTATUS[0]}
set -e
[ "$rc" = 0 ] || { echo "!!! debug kernel build failed; see $dir/build.log" >&2; exit 1; }

release=$(cat "$dir/obj/include/config/kernel.release")
echo "$release" > "$dir/release"
cp "$dir/obj/arch/x86/boot/bzImage" "$dir/bzImage"
modules_cpio
# The objects stay: the module's M= build reads Module.symvers, scripts/
# and include/ from obj/, and a changed fragment rebuilds incrementally
# only from a kept tree (a new key starts clean).
end=$(date +%s)
echo $((end - start)) > "$dir/build-seconds"
touch "$dir/.complete"
ln -sfn "$dir" "$LINK"
echo ">>> debug kernel $release built in $((end - start)) s: $dir ($(du -sh "$dir" | cut -f1))"
