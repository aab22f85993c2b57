#!/bin/bash
# Kernel style gates for the module sources, as TAP:
#   checkpatch.pl --strict (taken from Debian's linux-source of KVER's line,
#   6.1 or 6.12) and sparse (make C=2 rebuilds every file through sparse).
# Usage: KVER=<abi> check-style.sh KDIR KMOD_BUILD_DIR
set -uo pipefail
KDIR=${1:?}; KMOD=${2:?}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
line=$(echo "${KVER:-6.1}" | cut -d. -f1-2)
CP=$ROOT/build/checkpatch-$line
if [ ! -x "$CP/scripts/checkpatch.pl" ]; then
	tarball=$(ls /usr/src/linux-source-"$line".tar.* 2>/dev/null | sed -n 1p)
	[ -n "$tarball" ] || { echo "not ok - checkpatch: linux-source-$line not installed"; exit 1; }
	mkdir -p "$CP"
	tar xf "$tarball" -C "$CP" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
fi
rc=0
files=$(cd "$ROOT" && ls module/*.c module/*.h module/hw/*.c module/hw/*.h include/innova/*.h 2>/dev/null)
out=$(cd "$ROOT" && "$CP/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
	--ignore FILE_PATH_CHANGES -f $files 2>&1 | grep -E ': (ERROR|WARNING|CHECK):')
if [ -z "$out" ]; then
	echo "ok - checkpatch.pl --strict ($line) clean ($(echo $files | wc -w) files)"
else
	echo "$out" | sed -n 1,40p | sed 's/^/# /'
	echo "not ok - checkpatch.pl --strict: $(echo "$out" | wc -l) findings"
	rc=1
fi
# sparse: missing, or a build that fails, is a failure, never "clean"
if ! command -v sparse >/dev/null 2>&1; then
	echo "not ok - sparse: not installed (qemu-image/deps.sh installs it)"
	exit 1
fi
out=$(make -s -C "$KDIR" M="$KMOD" C=2 modules 2>&1)
mrc=$?
warn=$(echo "$out" | grep -E 'warning:|error:')
if [ $mrc -ne 0 ]; then
	echo "$out" | tail -20 | sed 's/^/# /'
	echo "not ok - sparse: make C=2 exited $mrc"
	rc=1
elif [ -z "$warn" ]; then
	echo "ok - sparse (make C=2) clean"
else
	echo "$warn" | sed -n 1,40p | sed 's/^/# /'
	echo "not ok - sparse: $(echo "$warn" | wc -l) findings"
	rc=1
fi
exit $rc
