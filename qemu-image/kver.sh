#!/bin/bash
# Print the one kernel ABI (e.g. 6.1.0-57-amd64) used both for the headers
# the module builds against and for the kernel the guest boots.
#   KVER=<full ABI>   used as given (6.1.0-57-amd64, 6.12.118+deb12-amd64)
#   KVER=6.12         a kernel line: the ABI Debian's linux-headers-6.12-amd64
#                     meta-package points at today (bookworm-security)
#   KVER unset        the default line: the ABI of linux-headers-amd64 (6.1)
#   KVER=6.12-tls13   a patched-kernel lane (LANES below): Debian's
#                     linux-source of the line + kernel/patches/<line>/series
#                     + kernel/<lane>-kernel.config (kernel/build-kernel.sh);
#                     prints the line's ABI with -<lane> appended
#                     (6.12.118+deb12-amd64-tls13), which is also taken as given
# Lines resolve through the meta-packages, never a pinned version: Debian's
# mirrors drop superseded ABIs of a security-updated line.
#   kver.sh --lane    prints the lane of KVER (tls13), nothing for a stock kernel
set -euo pipefail
LANES="tls13"

lane=
case "${KVER:-}" in
*-*) for l in $LANES; do
	case $KVER in *-"$l") lane=$l ;; esac
done ;;
esac
if [ "${1:-}" = --lane ]; then
	[ -z "$lane" ] || echo "$lane"
	exit 0
fi
if [ -n "$lane" ]; then
	abi=$(KVER=${KVER%-"$lane"} "$0")
	echo "$abi-$lane"
	exit 0
fi

# the first linux-headers-<ABI> a meta-package depends on (not its own name)
abi_from() {
	grep -o 'linux-headers-[0-9][^ ,]*-amd64' | grep -vx "$meta" | sed -n 1p |
		sed 's/^linux-headers-//'
}

meta=linux-headers-amd64
case "${KVER:-}" in
'') ;;
*-*) echo "$KVER"; exit 0 ;;
[0-9]*.[0-9]*)
	# bookworm's own line (6.1) has no versioned meta-package
	meta=linux-headers-$KVER-amd64
	apt-cache show "$meta" >/dev/null 2>&1 || meta=linux-headers-amd64
	line=$KVER ;;
*) echo "kver.sh: KVER=$KVER is neither an ABI (6.1.0-57-amd64) nor a line (6.12)" >&2; exit 1 ;;
esac

# The installed meta-package wins (it is what the host's headers follow).
if v=$(dpkg-query -W -f='${Depends}' "$meta" 2>/dev/null | abi_from) && [ -n "$v" ]; then
	echo "$v"; exit 0
fi
v=$(apt-cache depends "$meta" 2>/dev/null | abi_from || true)
if [ -z "$v" ]; then
	SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -qq >&2
	v=$(apt-cache depends "$meta" | abi_from)
fi
[ -n "$v" ] || { echo "kver.sh: cannot determine the kernel ABI of $meta; set KVER=" >&2; exit 1; }
case "$v" in
"${line:-$v}".*|"${line:-$v}") ;;
*) echo "kver.sh: no Debian kernel line $line here ($meta is $v)" >&2; exit 1 ;;
esac
echo "$v"
