#!/bin/bash
# Install the host packages Innova needs (Debian 12). Idempotent: only
# missing packages are installed; apt-get update runs at most once per call.
# Nothing here touches the host's running kernel or /boot: the
# linux-headers package only provides the module's build tree, and only
# when it depends on no kernel image (6.1); otherwise (6.12) headers.sh
# unpacks the headers under build/ instead of installing them.
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"

KVER=${1:?usage: deps.sh KVER [EXTRA_PACKAGE...]}
shift
line=$(echo "$KVER" | cut -d. -f1-2)	# 6.12.118+deb12-amd64 -> 6.12

# pahole (dwarves): kbuild of 6.12 generates the module's BTF with it.
# gnuplot-nox: make report's plots (pngcairo terminal, no X11).
want=(
	make gcc clang libc6-dev libssl-dev openssl pkg-config
	"linux-source-$line" sparse dwarves
	qemu-system-x86 debootstrap cpio xz-utils zstd kmod
	iproute2 ethtool libclang-rt-14-dev valgrind rsync gnuplot-nox
	"$@"
)
# Fail closed: the headers are installed only for a full kernel ABI
# (6.1.0-57-amd64, never a line like 6.1, which apt-get would take as a
# regular expression matching every kernel package) whose package apt
# knows and which depends on no kernel image.
if [[ $KVER =~ ^[0-9]+\.[0-9]+[.0-9]*[-+][a-z0-9.+-]+$ ]] &&
	deps=$(apt-cache depends "linux-headers-$KVER" 2>/dev/null) &&
	[ -n "$deps" ] && ! grep -q 'Depends: linux-image' <<<"$deps"; then
	want+=("linux-headers-$KVER")
fi

missing=()
for p in "${want[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	if [ "$status" != 'install ok installed' ]; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

# Exact names only: apt-get reads a name it does not know as a pattern.
for p in "${missing[@]}"; do
	case $p in
	*[!a-z0-9.+-]*) echo "deps.sh: bad package name '$p'" >&2; exit 2 ;;
	esac
done

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo ">>> installing host packages: ${missing[*]}"
$SUDO apt-get update -qq
# The whole list is read before it is searched: under pipefail, grep -q
# exiting at its first match would kill apt-cache with SIGPIPE and fail
# the pipeline (linux-source-6.1 also matches linux-source-6.12).
for p in "${missing[@]}"; do
	names=$(apt-cache pkgnames "$p" 2>/dev/null || true)
	grep -qxF -- "$p" <<<"$names" ||
		{ echo "deps.sh: no package named '$p'" >&2; exit 2; }
done
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
