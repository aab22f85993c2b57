#!/bin/sh
# Callgrind instruction counts (engine vs OpenSSL one-shot) and wall ratio.
set -eu
B=${1:?bench binary}
bytes=$($B bytes)
count() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		--toggle-collect="$2" "$B" "$1" 2>&1 |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}
e=$(count engine bench_engine)
o=$(count openssl bench_openssl)
echo "callgrind: $bytes TLS bytes (128 x 16 KiB records, 1448-byte frames)"
awk -v e="$e" -v o="$o" -v b="$bytes" 'BEGIN {
	printf "  engine : %d instr, %.3f instr/byte\n", e, e / b;
	printf "  openssl: %d instr, %.3f instr/byte (one-shot EVP aes-128-gcm)\n", o, o / b;
	printf "  ratio  : %.2fx (goal <= 1.1x)\n", e / o }'
$B wall
# per-byte cost against the number of flows installed and receiving
$B flows
# the same per flow count in callgrind instructions (one pass each; the
# wall-time growth above at 10000 flows is cache misses on flow state and
# keys, which the instruction count does not see)
for n in 1 100 1000 10000; do
	b=$($B flows $n)
	i=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		--toggle-collect=flows_rx "$B" flows $n 2>&1 |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
	awk -v n=$n -v i="$i" -v b="$b" 'BEGIN { printf "  %5d flows: %.3f instr/byte (callgrind)\n", n, i / b }'
done
