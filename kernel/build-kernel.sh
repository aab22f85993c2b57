#!/bin/bash
# Build a guest kernel from Debian's linux-source package of a kernel line:
# x86_64_defconfig + a config fragment, optionally with a quilt-style patch
# series applied first. Used by both kernel lanes:
#   make test-debug    debug   kernel/debug-kernel.config, no series
#   KVER=6.12-tls13    tls13   kernel/tls13-kernel.config,
#                              kernel/patches/6.12/series
#
#   build-kernel.sh KVER NAME FRAGMENT SERIES LINK
#
# KVER is the stock ABI whose line gives the source (6.12.118+deb12-amd64 ->
# linux-source-6.12). SERIES is a file listing patch files of its own
# directory, one a line (# comments, blank lines; quilt's format without
# options); a missing or empty series, or "-", means no patches. Each patch
# is applied with patch -p1 --fuzz=0 on the unpacked tree; one that does not
# apply stops the build with its name and patch's output.
#
# The build is cached by its inputs (source package version, fragment,
# compiler, the recipe's version below, and, when there are patches, the
# series file and every patch's content) under
#   ${INNOVA_CACHE:-${XDG_CACHE_HOME:-~/.cache}/innova}/NAME-kernel-<key>/
# outside the checkout, so a second clean clone on the same machine reuses
# it. LINK becomes a symlink to that directory, which holds:
#   src/                     the (patched) source tree
#   obj/ -> src/obj          the kernel build tree (the module builds against
#                            it); inside src/, so Kbuild writes relative
#                            paths only and a copy of the directory builds on

#   bzImage                  the kernel the guest boots
#   modules.cpio             /lib/modules/<release>/ for the guest (modules.builtin)
#   release                  the kernel release string
#   build-seconds            how long the build took (wall clock)
#   build-cpu-seconds        the CPU time it took (user + system, all jobs;
#                            on a shared machine the wall clock is not the
#                            build's: this divided by the cores is an idle
#                            machine's time)
#   patches/                 the series and patches it was built with
# A new key whose only change is the patch series starts from the newest
# complete build of the same NAME (its tree copied, its patches reversed,
# the new ones applied: make then rebuilds what they touch), not cold.
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"
# Called from make (make lane-kernel): its flags (-s would hide the
# progress) and command-line variables are not the kernel build's.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
usage="usage: build-kernel.sh KVER NAME FRAGMENT SERIES LINK"
KVER=${1:?$usage}
NAME=${2:?$usage}
FRAG=${3:?$usage}
SERIES=${4:?$usage}
LINK=${5:?$usage}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
FRAG=$(cd "$(dirname "$FRAG")" && pwd)/$(basename "$FRAG")
[ -f "$FRAG" ] || { echo "!!! $NAME kernel: no config fragment $FRAG" >&2; exit 1; }

# The patches, in order ("-", a missing or an empty series: none).
patches=()
if [ "$SERIES" != - ] && [ -f "$SERIES" ]; then
	SERIES=$(cd "$(dirname "$SERIES")" && pwd)/$(basename "$SERIES")
	while read -r p _; do
		case $p in ''|'#'*) continue ;; esac
		[ -f "$(dirname "$SERIES")/$p" ] ||
			{ echo "!!! $NAME kernel: $SERIES lists $p, which is not there" >&2; exit 1; }
		patches+=("$(dirname "$SERIES")/$p")
	done < "$SERIES"
fi

# The source package whose version matches the guest kernel's image.
line=$(echo "$KVER" | cut -d. -f1-2)
srcpkg=linux-source-$line
tarball=/usr/src/$srcpkg.tar.xz
"$ROOT/qemu-image/deps.sh" "$KVER" "$srcpkg" flex bison bc libelf-dev patch
srcver=$(dpkg-query -W -f='${Version}' "$srcpkg")
imgver=$(dpkg-deb -f "$(dirname "$LINK")/kernel-$KVER/deb/linux-image-$KVER"_*.deb Version 2>/dev/null || echo "$srcver")
if [ "$srcver" != "$imgver" ]; then
	echo "!!! $srcpkg is $srcver but the guest kernel is $imgver: apt-get upgrade $srcpkg (or set KVER)" >&2
	exit 1
fi

# Bump RECIPE when a change below alters what gets built (not for messages).
# base: everything but the patches (a tree to start from when only they
# changed); key: base + the series (left out when empty, so a lane without
# patches keeps the key it had before series existed).
RECIPE=2
base=$( (echo "$srcver recipe $RECIPE"; cat "$FRAG"; gcc --version | sed -n 1p) | sha256sum | cut -c1-16)
key=$base
if [ ${#patches[@]} -gt 0 ]; then
	key=$( (echo "$base"; cat "$SERIES"; sha256sum "${patches[@]}" | cut -d' ' -f1) | sha256sum | cut -c1-16)
fi
cache=${INNOVA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/innova}
dir=$cache/$NAME-kernel-$key
mkdir -p "$(dirname "$LINK")" "$cache"

# The guest's /lib/modules/<release>: modules.builtin lets modprobe accept
# the built-in tls, veth, sch_netem; any module built =m goes along. Only
# lib/modules/<release>/ is in the archive, not lib/ itself: the rootfs is
# merged-/usr (lib -> usr/lib), and an archive entry for lib would replace
# that link with a directory, losing the dynamic loader. Cheap, so it is
# redone on every call rather than cached; replaced only when it changed,
# so what is built from it is not redone.
modules_cpio() {
	local mods release
	release=$(cat "$dir/obj/include/config/kernel.release")
	mods=$(mktemp -d)
	make -s -C "$dir/src" O=obj INSTALL_MOD_PATH="$mods" \
		INSTALL_MOD_STRIP=1 DEPMOD=true modules_install
	rm -f "$mods/lib/modules/$release"/{build,source}
	( cd "$mods" && find "lib/modules/$release" -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --quiet -R 0:0 ) > "$dir/modules.cpio.tmp"
	rm -rf "$mods"
	if cmp -s "$dir/modules.cpio.tmp" "$dir/modules.cpio"; then
		rm -f "$dir/modules.cpio.tmp"
	else
		mv "$dir/modules.cpio.tmp" "$dir/modules.cpio"
	fi
}

cached() {
	modules_cpio
	ln -sfn "$dir" "$LINK"
	echo ">>> $NAME kernel $(cat "$dir/release"): cached in $dir (built in $(cat "$dir/build-seconds") s, $(cat "$dir/build-cpu-seconds" 2>/dev/null || echo ?) s of CPU)"
	exit 0
}
[ -f "$dir/.complete" ] && cached

# One build per NAME at a time in a cache (two clones or lanes may ask at
# once); the second waits, then finds the first's result.
exec 9> "$cache/$NAME-kernel.lock"
if ! flock -n 9; then
	echo ">>> $NAME kernel: another build of it is running in $cache; waiting for it"
	flock 9
fi
[ -f "$dir/.complete" ] && cached

start=$(date +%s)
# a build that never completed (any key) is only disk space
for d in "$cache/$NAME-kernel-"*; do
	[ -d "$d" ] && [ ! -e "$d/.complete" ] && rm -rf "$d"
done
# Only the patches changed: start from the newest complete build of this
# NAME with the same base (source, fragment, compiler, recipe).
from=
for d in $(ls -1dt "$cache/$NAME-kernel-"* 2>/dev/null); do
	[ "$d" != "$dir" ] && [ -f "$d/.complete" ] && [ "$(cat "$d/base" 2>/dev/null)" = "$base" ] &&
		{ from=$d; break; }
done

# series_list DIR: the patch names of DIR/series, one per line
series_list() {
	local p
	while read -r p _; do
		case $p in ''|'#'*) continue ;; esac
		echo "$p"
	done < "$1/series"
}
# same_change A B: two patch files change the tree alike (their diffs are
# equal; the mail headers, subject numbering included, may differ)
same_change() {
	cmp -s <(sed -n '/^diff --git /,$p' "$1") <(sed -n '/^diff --git /,$p' "$2")
}
# apply_series DIR SRC [-R [SKIP]]: the patches of DIR/series onto SRC, in
# order (reversed, last first, with -R), all but the first SKIP; stops at
# the first that does not apply.
apply_series() {
	local pdir=$1 src=$2 rev=${3:-} skip=${4:-0} list=() p out i
	mapfile -t list < <(series_list "$pdir")
	list=("${list[@]:$skip}")
	[ ${#list[@]} -gt 0 ] || return 0
	for ((i = 0; i < ${#list[@]}; i++)); do
		p=${list[$i]}
		[ -n "$rev" ] && p=${list[$(( ${#list[@]} - 1 - i ))]}
		if ! out=$(patch -d "$src" -p1 --fuzz=0 --batch --forward $rev --no-backup-if-mismatch \
			-r - < "$pdir/$p" 2>&1); then
			echo "!!! $NAME kernel: $p does not apply${rev:+ in reverse} to $srcpkg $srcver:" >&2
			sed 's/^/!!!   /' <<<"$out" >&2
			return 1
		fi
		echo "    ${rev:+un}applied $p"
	done
}

rm -rf "$dir"
# keep: how many leading patches the old tree already has, unchanged (a
# patch reversed and applied again would touch its files, and make would
# rebuild all that includes them: with a uapi header, most of the kernel)
keep=0
if [ -n "$from" ]; then
	echo ">>> $NAME kernel: only the patches changed; starting from $from"
	cp -a "$from" "$dir.tmp"
	rm -f "$dir.tmp/.complete"
	mv "$dir.tmp" "$dir"
	mapfile -t old_list < <(series_list "$dir/patches")
	for ((keep = 0; keep < ${#old_list[@]} && keep < ${#patches[@]}; keep++)); do
		same_change "$dir/patches/${old_list[$keep]}" "${patches[$keep]}" || break
	done
	echo ">>> $NAME kernel: the first $keep patches are unchanged; the rest of the old series is undone"
	apply_series "$dir/patches" "$dir/src" -R "$keep" || { rm -rf "$dir"; exit 1; }
	rm -rf "$dir/patches"
else
	mkdir -p "$dir"
	echo ">>> $NAME kernel: unpacking $srcpkg $srcver into $dir"
	tar -C "$dir" -xaf "$tarball"
	mv "$dir/$srcpkg" "$dir/src"
	[ -f "$dir/src/Makefile" ] || { echo "!!! no kernel tree in $tarball" >&2; exit 1; }
	mkdir -p "$dir/src/obj"
	ln -s src/obj "$dir/obj"
fi
echo "$base" > "$dir/base"
mkdir -p "$dir/patches"
if [ ${#patches[@]} -gt 0 ]; then
	cp "$SERIES" "${patches[@]}" "$dir/patches/"
	echo ">>> $NAME kernel: applying ${#patches[@]} patches of $SERIES"
else
	: > "$dir/patches/series"
	echo ">>> $NAME kernel: no patches${SERIES:+ ($SERIES: missing or empty)}"
fi
apply_series "$dir/patches" "$dir/src" "" "$keep" || { rm -rf "$dir"; exit 1; }

src=$dir/src
echo ">>> $NAME kernel: x86_64_defconfig + $(basename "$FRAG")"
make -s -C "$src" O=obj x86_64_defconfig
"$src/scripts/kconfig/merge_config.sh" -m -O "$src/obj" "$src/obj/.config" "$FRAG" > "$dir/merge.log"
make -s -C "$src" O=obj olddefconfig
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
[ $missing = 0 ] || { echo "!!! the $NAME config lost symbols (above)" >&2; rm -rf "$dir"; exit 1; }

jobs=$(nproc)
echo ">>> $NAME kernel: building with $jobs jobs at nice 10 (minutes to tens of minutes on two cores; progress every 500 files)"
# Progress: count the files Kbuild reports, print every 500.
set +e
nice -n 10 make -C "$src" O=obj -j"$jobs" bzImage modules 2>&1 |
	tee "$dir/build.log" |
	awk -v t0="$start" '/^  (CC|AS|LD|AR)/ { n++; if (n % 500 == 0) { printf "    ... %d files, %d s\n", n, systime() - t0; fflush() } }
	     /error:|Error [0-9]/ { print "    " $0; fflush() }
	     END { printf "    ... %d files, %d s\n", n, systime() - t0 }'
rc=${PIPESTATUS[0]}
set -e
[ "$rc" = 0 ] || { echo "!!! $NAME kernel build failed; see $dir/build.log" >&2; exit 1; }

release=$(cat "$dir/obj/include/config/kernel.release")
echo "$release" > "$dir/release"
cp "$dir/obj/arch/x86/boot/bzImage" "$dir/bzImage"
modules_cpio
# The objects stay: the module's M= build reads Module.symvers, scripts/
# and include/ from obj/, and a new patch series rebuilds incrementally
# from a kept tree (see above).
end=$(date +%s)
echo $((end - start)) > "$dir/build-seconds"
# the children's CPU time (times' second line): from this shell, not a
# subshell, whose own count starts at zero
times > "$dir/times"
awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); n += t[1] * 60 + t[2] } printf "%d\n", n }' \
	"$dir/times" > "$dir/build-cpu-seconds"
rm -f "$dir/times"
touch "$dir/.complete"
ln -sfn "$dir" "$LINK"
# Older complete builds of this NAME: the newest other one stays (another
# clone may be at another commit), the rest is only disk space.
n=0
for d in $(ls -1dt "$cache/$NAME-kernel-"* 2>/dev/null); do
	[ -f "$d/.complete" ] && [ "$d" != "$dir" ] || continue
	n=$((n + 1))
	[ $n -gt 1 ] && rm -rf "$d"
done
echo ">>> $NAME kernel $release built in $((end - start)) s, $(cat "$dir/build-cpu-seconds") s of CPU${from:+ (from $(basename "$from"))}: $dir ($(du -sh "$dir" | cut -f1))"
