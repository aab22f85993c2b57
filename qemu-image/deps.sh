#!/bin/bash
# Install the host packages Innova needs (Debian 12). Idempotent: only
# missing packages are installed; apt-get update runs at most once per call.
# Nothing here touches the host's running kernel: the linux-headers package
# only provides the build tree for the module, which runs inside QEMU.
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"

KVER=${1:?usage: deps.sh KVER [EXTRA_PACKAGE...]}
shift

want=(
	make gcc clang libc6-dev libssl-dev openssl pkg-config
	"linux-headers-$KVER" linux-source-6.1 sparse
	qemu-system-x86 debootstrap cpio xz-utils zstd kmod
	iproute2 ethtool libclang-rt-14-dev valgrind rsync
	"$@"
)

missing=()
for p in "${want[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo ">>> installing host packages: ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
