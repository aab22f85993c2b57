#!/bin/bash
# Print the one kernel ABI (e.g. 6.1.0-57-amd64) used both for the headers
# the module builds against and for the kernel the guest boots.
# Order: $KVER if set; else the ABI of installed linux-headers-amd64; else
# the ABI Debian's linux-headers-amd64 currently points at.
set -euo pipefail
if [ -n "${KVER:-}" ]; then echo "$KVER"; exit 0; fi

abi_from() { grep -o 'linux-headers-[0-9][^ ,]*-amd64' | head -1 | sed 's/^linux-headers-//'; }

if v=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null | abi_from) && [ -n "$v" ]; then
	echo "$v"; exit 0
fi
v=$(apt-cache depends linux-headers-amd64 2>/dev/null | abi_from || true)
if [ -z "$v" ]; then
	SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -qq >&2
	v=$(apt-cache depends linux-headers-amd64 | abi_from)
fi
[ -n "$v" ] || { echo "kver.sh: cannot determine the kernel ABI; set KVER=" >&2; exit 1; }
echo "$v"
