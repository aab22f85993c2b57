# The engine against the kernel's own gcm(aes) over the same records
# (module/bench.c, debugfs innova/bench): ns per plaintext byte of each and
# their ratio, 1448-byte frames, 16 KiB and 1 KiB records, with the
# generic AES both use by default (as make bench-guest's first pass). Then
# the NIC's memory per flow that bench prints.
# Writes engine.csv: record_bytes,engine_ns_per_byte,gcm_ns_per_byte,ratio
B=/sys/kernel/debug/innova/bench
ratios=
[ -e $B ] || die "module has no debugfs bench"
csv engine.csv record_bytes engine_ns_per_byte gcm_ns_per_byte ratio
for c in "64 16384" "256 1024"; do
	set -- $c
	echo "records=$1 size=$2 frame=1448" > $B || die "bench records=$1 size=$2 failed: $(cat $B | head -1)"
	cat $B > /tmp/bench.out
	sed 's/^/# bench: /' /tmp/bench.out
	e=$(awk '$1 == "engine:" { print $2 }' /tmp/bench.out)
	g=$(awk '$1 == "gcm(aes):" { print $2 }' /tmp/bench.out)
	r=$(awk '/^ratio engine\/gcm\(aes\):/ { print $3 }' /tmp/bench.out)
	[ -n "$e" ] && [ -n "$g" ] && [ -n "$r" ] || die "bench printed no engine/gcm(aes)/ratio line"
	csv engine.csv $2 $e $g $r
	ratios="${ratios:+$ratios, }$r at $2-byte records"
	[ $2 = 16384 ] && sum gcm_aes_driver "$(sed -n 's/^gcm(aes) driver: \([^;]*\);.*/\1/p' /tmp/bench.out)"
done
sum engine_gcm_ratio "$ratios (engine / gcm(aes) per byte, 1448-byte frames; goal <= 1.2)"
# "mem per installed flow (...): A B asked, K B in kmalloc buckets, + the engine slot S B preallocated"
set -- $(sed -n 's/^mem per installed flow[^:]*: \([0-9]*\) B asked, \([0-9]*\) B in kmalloc buckets, + the engine slot \([0-9]*\) B.*/\1 \2 \3/p' /tmp/bench.out)
[ $# = 3 ] || die "bench printed no per-flow memory line"
sum nic_bytes_per_flow "$(( $2 + $3 )) (kmalloc'd $2 + engine slot $3)"
sum flow_bytes_asked $1
sum flow_kmalloc_bytes $2
sum engine_slot_bytes $3
sum hw_flow_bytes "$(sed -n 's/^mem engine: struct hw_flow \([0-9]*\) B.*/\1/p' /tmp/bench.out)"
sum engine_bytes_per_port "$(sed -n 's/.*hw_engine_mem_size([0-9]*) = \([0-9]*\) B per port.*max_flows=\([0-9]*\).*/\1 (max_flows=\2)/p' /tmp/bench.out)"
