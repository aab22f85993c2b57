# Receiver host CPU per byte, NIC offload vs software kTLS, the same
# verified transfer (seeded bytes, 16 KiB records, no faults) once each way
# in this one boot.
#
# The receiver runs pinned to CPU 1 and the sender to CPU 0. The receiving
# CPU's kernel time (/proc/stat cpu1: system, irq, softirq) over the
# transfer, less the device time the engine spent on CPU 1 (debugfs
# tls_device_ns: on real hardware that work is the NIC's), is the
# receiver's host CPU. User time is left out: it is the application's own
# (innova-tls checks every byte it reads, which under TCG costs more than
# the decryption) and the same in both modes. The cable schedules the
# receiving port's NAPI from the sender's transmit, so the TCP receive
# softirq mostly runs on CPU 0 and is counted for neither mode; what CPU 1
# does in the kernel is recvmsg: kTLS's software decryption, or with the
# NIC only the copy out. The whole guest's busy time (both CPUs, user time
# and the sender's encryption included) less all device time is printed
# too: the same two runs with everything counted.
# Writes cpu.csv: mode,bytes,receiver_cpu_ns,device_ns,cpu_ns_per_byte,
# all_cpu_ns,all_device_ns,all_ns_per_byte,nic_records,records.
BYTES=${REPORT_CPU_BYTES:-16M}
case $BYTES in
*M) BYTES=$(( ${BYTES%M} * 1048576 )) ;;
*K) BYTES=$(( ${BYTES%K} * 1024 )) ;;
esac
[ "$(nproc)" -ge 2 ] || die "needs 2 vCPUs"
command -v taskset >/dev/null || die "no taskset in the guest"

# kernel CPU ticks of cpuN (system, irq, softirq) from /proc/stat, USER_HZ
kern() { awk -v c="$1" '$1 == c { print $4 + $7 + $8 }' /proc/stat; }
# busy ticks of all CPUs (user, nice, system, irq, softirq, steal)
busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
dev_ns() { awk -v c="$1" '$1 == c { print $2 }' "$PORT_B/tls_device_ns"; }
dev_all() { awk '{ s += $2 } END { printf "%.0f\n", s }' "$PORT_B/tls_device_ns"; }
HZ=$(getconf CLK_TCK)

csv cpu.csv mode bytes receiver_cpu_ns device_ns cpu_ns_per_byte all_cpu_ns all_device_ns all_ns_per_byte nic_records records
sum cpu_transfer "$BYTES bytes per mode, 16 KiB records, receiver on CPU 1, sender on CPU 0"
for mode in offload software; do
	setup_pair
	if [ $mode = software ]; then
		ip netns exec B ethtool -K innova1 tls-hw-rx-offload off ||
			die "tls-hw-rx-offload off"
	fi
	snap cpu
	d1=$(dev_ns cpu1) da=$(dev_all)
	b1=$(kern cpu1) ba=$(busy)
	TLS_PORT=$((TLS_PORT + 1))
	ip netns exec B taskset -c 1 innova-tls recv --listen "$IP4_B:$TLS_PORT" --quiet \
		--rx-mode manual --bytes "$BYTES" --timeout 600 > /tmp/recv.json 2> /tmp/recv.err &
	rpid=$!
	ip netns exec A taskset -c 0 innova-tls send --connect "$IP4_B:$TLS_PORT" --quiet \
		--tx-mode ktls --bytes "$BYTES" --timeout 600 > /tmp/send.json 2> /tmp/send.err
	SRC=$?
	wait $rpid; RRC=$?
	b1=$(( $(kern cpu1) - b1 )) ba=$(( $(busy) - ba ))
	d1=$(( $(dev_ns cpu1) - d1 )) da=$(( $(dev_all) - da ))
	expect_intact "$BYTES"
	if [ $mode = offload ]; then
		expect_path device
	else
		expect_path software
	fi
	recs=$(jr .records) nic=$(delta cpu rx_tls_records_decrypted)
	c1=$(( b1 * 1000000000 / HZ )) ca=$(( ba * 1000000000 / HZ ))
	per=$(awk -v c="$c1" -v d="$d1" -v b="$BYTES" 'BEGIN { printf "%.3f", (c - d) / b }')
	all=$(awk -v c="$ca" -v d="$da" -v b="$BYTES" 'BEGIN { printf "%.3f", (c - d) / b }')
	log "cpu: $mode: CPU 1 kernel ${c1} ns, device time on it ${d1} ns -> $per ns/B; all CPUs ${ca} ns, all device time ${da} ns -> $all ns/B; NIC decrypted $nic of $recs records"
	csv cpu.csv $mode "$BYTES" "$c1" "$d1" "$per" "$ca" "$da" "$all" "$nic" "$recs"
	eval "per_$mode=$per all_$mode=$all dev_$mode=$da"
	if [ $mode = offload ]; then
		# a mislabelled run (NIC idle, or software path) would fake the ratio
		[ "$nic" -gt 0 ] && [ "$nic" -ge $((recs * 9 / 10)) ] ||
			die "offload run: NIC decrypted $nic of $recs records"
		[ "$da" -gt 0 ] || die "offload run: no device time accounted"
	else
		[ "$nic" = 0 ] || die "software run: NIC decrypted $nic records"
	fi
	teardown_pair
done
# the gcm(aes) implementation kTLS used (the fastest one loaded)
gcm=$(awk -F': ' '$1 ~ /^name/ { n = $2 } $1 ~ /^driver/ && n == "gcm(aes)" { print $2; exit }' /proc/crypto)
sum cpu_kernel_gcm "${gcm:-unknown}"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "NA" }'; }
sum cpu_receiver_ns_per_byte "offload $per_offload, software $per_software"
sum cpu_ratio_receiver "$(ratio "$per_offload" "$per_software") (offload / software, receiving CPU kernel time less device time; goal <= 0.4)"
sum cpu_ratio_all_cpus "$(ratio "$all_offload" "$all_software") (both CPUs, sender's encryption included, less device time)"
sum device_ns_per_byte "$(awk -v d="$dev_offload" -v b="$BYTES" 'BEGIN { printf "%.3f", d / b }') (the engine, offload run, all CPUs)"
sum sw_decrypt_ns_per_byte "$(awk -v s="$per_software" -v o="$per_offload" 'BEGIN { printf "%.3f", s - o }') (receiving CPU per byte, software less offload: kTLS's decryption)"
