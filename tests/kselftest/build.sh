#!/bin/bash
# Build the kernel's TLS selftest (tools/testing/selftests/net/tls.c) for
# the Innova guest, plus the LD_PRELOAD shim that moves its sockets onto
# the link under test (netns-shim.c).
#   build.sh KVER OUTDIR   -> OUTDIR/tls, OUTDIR/netns-shim.so, OUTDIR/filter.log
# Sources come from Debian's linux-source-<major.minor> tarball matching
# KVER (6.1.0-57-amd64 -> /usr/src/linux-source-6.1.tar.xz, 6.12.x ->
# linux-source-6.12.tar.xz): only tls.c, the harness headers
# (kselftest_harness.h, kselftest.h) and the kernel's uapi linux/tls.h are
# extracted, under OUTDIR/src (cached until the tarball changes). Nothing
# of it enters the repository. KSELFTEST_SRC=DIR uses an unpacked tree
# instead (DIR/tools/testing/selftests/..., DIR/include/uapi optional).
# tls.c is cut down at build time by filter-tls.awk (only TLS 1.2
# AES-GCM-128/256 variants, no TLS 1.3 / rekey tests; see there why; on
# the patched lane TLS 1.3 AES-GCM too and, from the lane's own tree, the
# rekey tests), and
# the mutliproc tests' volume is sized for TCG (below).
# uapi: the selftest is meant to build against its own kernel's uapi
# headers (KHDR_INCLUDES). Of those only linux/tls.h matters here (cipher
# and option constants; it includes nothing but linux/types.h), so it is
# the one header taken from the tarball, in a directory of its own ahead
# of /usr/include; everything else is the host's (= the guest's: both are
# Debian bookworm), and the binary links dynamically against that libc.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
KVER=${1:?usage: build.sh KVER OUTDIR}
OUT=${2:?usage: build.sh KVER OUTDIR}
line=$(echo "$KVER" | cut -d. -f1-2)	# 6.12.118+deb12-amd64 -> 6.12
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
CC=${CC:-gcc}
sel=tools/testing/selftests

if [ -n "${KSELFTEST_SRC:-}" ]; then
	src=$(cd "$KSELFTEST_SRC" && pwd)
	what="$src"
else
	tarball=/usr/src/linux-source-$line.tar.xz
	[ -f "$tarball" ] || { echo "build.sh: $tarball missing (make deps installs linux-source-$line)" >&2; exit 1; }
	src=$OUT/src/linux-source-$line
	stamp="$tarball $(stat -c '%s %Y' "$tarball")"
	if [ "$(cat "$src.stamp" 2>/dev/null)" != "$stamp" ]; then
		echo ">>> kselftest: extracting tls.c and the harness from $tarball"
		rm -rf "$src" "$src.stamp"
		mkdir -p "$OUT/src"
		tar -xJf "$tarball" -C "$OUT/src" \
			"linux-source-$line/$sel/net/tls.c" \
			"linux-source-$line/$sel/kselftest_harness.h" \
			"linux-source-$line/$sel/kselftest.h" \
			"linux-source-$line/include/uapi/linux/tls.h"
		echo "$stamp" > "$src.stamp"
	fi
	what="$tarball"
fi
for f in "$sel/net/tls.c" "$sel/kselftest_harness.h" "$sel/kselftest.h"; do
	[ -f "$src/$f" ] || { echo "build.sh: $src/$f missing" >&2; exit 1; }
done
uapi=()
if [ -f "$src/include/uapi/linux/tls.h" ]; then
	mkdir -p "$OUT/uapi/linux"
	cp "$src/include/uapi/linux/tls.h" "$OUT/uapi/linux/tls.h"
	uapi=(-I "$OUT/uapi")
fi

# The filtered copy sits next to tls.c so its "../kselftest_harness.h"
# include resolves.
# The patched lane's kernel offloads TLS 1.3 AES-GCM: its variants stay.
tls13=0
case $KVER in *tls13*) tls13=1 ;; esac
# ... and with the series' patch 7 in its tree (KSELFTEST_SRC: run.sh
# passes the lane's), the rekey tests of its tls.c build: they run there
rekey=0
if [ $tls13 = 1 ]; then
	sig=$(sed -n '/^static void tls_crypto_info_init(/,/)/p' "$src/$sel/net/tls.c")
	case $sig in *'char key)'*) rekey=1 ;; esac
fi
awk -v TLS13=$tls13 -v REKEY=$rekey -f "$HERE/filter-tls.awk" "$src/$sel/net/tls.c" > "$src/$sel/net/tls_innova.c" 2> "$OUT/filter.log"
# TCG sizing: test_mutliproc (the six mutliproc_* tests, per variant) moves
# 6 MB per child, up to 72 MB per test; under TCG that takes 20-30 s over
# veth and times out (the harness's 30 s) over Innova, about 4 of the 6
# minutes a run takes. A tenth (KSFT_MULTIPROC_BYTES) keeps every child and
# dozens of full records each.
mp=${KSFT_MULTIPROC_BYTES:-600000}
sed -i "s|const size_t data = 6 \* 1000 \* 1000;|const size_t data = $mp; /* TCG sizing (tests/kselftest/build.sh), upstream 6 * 1000 * 1000 */|" \
	"$src/$sel/net/tls_innova.c"
grep -q "const size_t data = $mp;" "$src/$sel/net/tls_innova.c" &&
	echo "build.sh: test_mutliproc data per child 6 * 1000 * 1000 -> $mp bytes (TCG sizing)" >> "$OUT/filter.log" ||
	echo "build.sh: WARNING: test_mutliproc's data size not found, left as is" | tee -a "$OUT/filter.log" >&2
# KSFT_ONLY=fixture.variant.test runs one test (harness-select.h): the
# harness's main, TEST_HARNESS_MAIN on tls.c's last line, is wrapped.
sed -i 's|^TEST_HARNESS_MAIN$|#include "harness-select.h"\nTEST_HARNESS_MAIN\n#undef main\nKSFT_SELECT_MAIN|' \
	"$src/$sel/net/tls_innova.c"
grep -q '^KSFT_SELECT_MAIN$' "$src/$sel/net/tls_innova.c" ||
	{ echo "build.sh: no TEST_HARNESS_MAIN line in tls.c" >&2; exit 1; }
# Flags of selftests/net/Makefile (-Wall -O2 -g): upstream code, not ours,
# so no -Werror; the shim is ours and builds with -Wextra -Werror.
$CC -Wall -Wl,--no-as-needed -O2 -g "${uapi[@]}" -I "$HERE" \
	-o "$OUT/tls" "$src/$sel/net/tls_innova.c"
$CC -shared -fPIC -O2 -g -Wall -Wextra -Werror \
	-o "$OUT/netns-shim.so" "$HERE/netns-shim.c" -ldl
tests=$(grep -cE '^TEST(_F)?\(' "$src/$sel/net/tls_innova.c")
variants=$(grep -E '^FIXTURE_VARIANT_ADD\(' "$src/$sel/net/tls_innova.c" | tr -d ' ' | sed 's/FIXTURE_VARIANT_ADD(\(.*\))/\1/' | tr '\n' ' ')
echo ">>> kselftest: $OUT/tls from $what ($tests tests kept; variants: $variants; dropped: $(grep -c dropped "$OUT/filter.log"), see $OUT/filter.log)"
