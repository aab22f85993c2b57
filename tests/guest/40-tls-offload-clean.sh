# Clean transfers through the NIC: AES-128-GCM and AES-256-GCM, IPv4 and
# IPv6. The receiver's socket takes the device path, the engine decrypts
# (all but the one shadow-verified record), nothing is decrypted in
# software by error, and every byte is verified by the receiver.
setup_pair
BYTES=${BYTES:-24M}
# the flow's start: how many records went up before it existed
echo > $TRACE/trace
echo 1 > "$TRACE/events/innova/innova_tls_flow_add/enable" || die "no tracepoint innova_tls_flow_add"
for addr in $IP4_B $IP6_B; do
	for c in aes128gcm aes256gcm; do
		snap clean
		tls_run $addr "--rx-mode manual --cipher $c --bytes $BYTES" "--tx-mode ktls --cipher $c --bytes $BYTES"
		expect_intact $(jr .bytes)
		[ "$(jr .bytes)" -gt 0 ] || die "no bytes"
		expect_path device
		[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die "TlsDecryptError=$(jr .tls_stat.TlsDecryptError)"
		add=$(grep 'innova_tls_flow_add:' $TRACE/trace | tail -1)
		echo > $TRACE/trace
		rn=$(echo "$add" | sed -n 's/.* start_rn=\([0-9]*\).*/\1/p')
		[ -n "$rn" ] || die "no flow install traced"
		recs=$(jr .records) dec=$(delta clean rx_tls_records_decrypted)
		# Records 1..rn-1 passed the NIC, wholly or in part, before the
		# flow existed (they sat in the receive queue or the socket's
		# backlog while setsockopt(TLS_RX) held the socket): nobody
		# could decrypt them there. The NIC share is over the rest.
		share=$(device_share clean) nic=$(( dec * 10000 / (recs - rn + 1) ))
		log "$addr $c: device decrypted $(delta clean rx_tls_decrypted_bytes) TLS bytes (${share}/10000), $dec of $recs records, $((rn - 1)) before the flow, NIC share $nic/10000; XOFF sent $(delta clean tx_pause_ctrl_phy), sync lost $(delta clean rx_tls_sync_lost), resync requests $(delta clean rx_tls_resync_req_start); install: ${add#*innova_tls_flow_add: }"
		# flow control keeps a clean link lossless, however slow the guest
		expect_delta clean rx_ring_drops -eq 0 "frames dropped at the RX ring on a clean link"
		# The flow starts in sync at the first record the NIC sees
		# whole, whatever passed before it: the driver walks the
		# records through the receive queue and the backlog at
		# install. (When it ignored the backlog, a loaded machine lost
		# sync at the install: 4 records followed while the kernel
		# answered a resync, 9961/10000 of the bytes.)
		[ "$nic" -ge ${MIN_SHARE:-9990} ] || die "NIC share $nic/10000 < ${MIN_SHARE:-9990}"
		# every record from rn on but the shadow-verified one
		[ "$dec" -ge $((recs - rn)) ] || die "NIC decrypted $dec of $recs records, $((rn - 1)) before the flow: want >= $((recs - rn))"
		expect_delta clean rx_tls_sync_lost -eq 0 "sync lost on a clean link"
		# the install waited for any frame still on its way up
		expect_delta clean rx_tls_add_in_flight -eq 0 "installed with data still on its way up"
		# nothing waits for the kernel on a clean link: no record is
		# followed undecrypted (nic_share in lib.sh leaves those out)
		expect_delta clean rx_tls_records_followed -eq 0 "records followed awaiting the kernel on a clean link"
		# and the bytes the host got decrypted (rx_tls_decrypted_bytes,
		# the driver's count, where rx_tls_records_decrypted is the
		# engine's): the device share of the whole transfer, records
		# before the flow included. Measured 9993 (24 MiB: 1536 records,
		# 0 before the flow, the shadow-verified one) on IPv4 and IPv6
		# with both ciphers; 9900 leaves room for 14 records the NIC
		# could not take, where a NIC that stops handing decrypted
		# frames up after its 11000th gives 6182.
		[ "$share" -ge ${MIN_DEVICE_SHARE:-9900} ] || die "device share $share/10000 < ${MIN_DEVICE_SHARE:-9900}"
		expect_delta clean rx_tls_resync_req_start -eq 0 "resync requests on a clean link"
		# device time: accounted for the engine's work, per CPU in debugfs
		expect_delta clean rx_tls_device_ns -gt 0 "no device time accounted"
		# (read between two ethtool reads: a late ACK may add to both)
		e1=$(ethtool_stat B innova1 rx_tls_device_ns)
		pcpu=$(awk '{ s += $2 } END { printf "%.0f\n", s }' "$PORT_B/tls_device_ns")
		e2=$(ethtool_stat B innova1 rx_tls_device_ns)
		[ "$pcpu" -ge "$e1" ] && [ "$pcpu" -le "$e2" ] ||
			die "tls_device_ns per CPU sums to $pcpu, ethtool says $e1 then $e2"
	done
done
echo 0 > "$TRACE/events/innova/innova_tls_flow_add/enable"
[ "$(ethtool_stat B innova1 rx_tls_auth_fail)" = 0 ] || die "auth failures on a clean link"
