# tc netem on the sending port (stock qdisc on the innova port): loss,
# reorder with delay, duplicates, jitter, corruption. Each transfer is byte
# exact on the device path; nothing is ever delivered wrong.
# netem runs per frame (gso_max_segs 1 below). The profiles must show
# netem acted, where a qdisc that does nothing fails: loss in netem's own
# drop count (tc -s qdisc) and the sender's retransmissions
# (TcpRetransSegs), reorder25 and jitter in the receiver's out-of-order
# queue (TcpExtTCPOFOQueue), duplicates in its D-SACKs for old data
# (TcpExtTCPDSACKOldSent). Measured on 6.1 (two runs, ~1500 frames):
# loss0.5 dropped 6 / 6, loss1 14 / 17, loss5 73 / 89 (each retransmitted
# once); reorder25 out-of-order 230 / 361; dup5 D-SACKs 77 / 70; jitter
# out-of-order 628 / 630. Not asserted: reorder5 (no out-of-order segment,
# retransmission or D-SACK in four runs, GSO on or off: unexplained) and
# corrupt0.1 (1 and 0 checksum errors: 1.5 expected).
# Ceilings: the records the NIC missed by its own doing (nic_missed,
# lib.sh: not touched by a hole, not waiting for the kernel's resync
# answer, not decrypted), per 10000, from what a working NIC does here
# (four runs: 6.1 twice, 6.12, the TLS 1.3 lane; 128 records each, so one
# record is 78): loss0.5 78-390, loss1 234-703, loss5 859-1484, reorder25
# 1718-1953, dup5 and reorder5 0, corrupt0.1 0-78. A NIC that stops
# decrypting at its first fault misses thousands. jitter has none: netem's
# per-frame jitter reorders almost every frame, the NIC decrypted 0 of 128
# records (as a working NIC must: no record arrives whole and in order)
# and the core was asked to resync at most twice.
setup_pair
# netem acts on what the qdisc is given: TCP hands it GSO super-packets of
# up to ~45 frames (GSO off on the port changes nothing: TCP builds them
# anyway and segments after the qdisc), so "loss 1%" dropped about a
# seventh as many times as nominal, each a burst of frames, and a run could
# see no drop at all. A per-frame fault model needs per-frame skbs: one
# segment per GSO packet on the sending port.
ip netns exec A ip link set dev innova0 gso_max_segs 1 || die "ip link set innova0 gso_max_segs 1"
ip netns exec A ip -d link show dev innova0 | grep -q 'gso_max_segs 1 ' || die "gso_max_segs did not take"
# qdisc_dropped: netem's drop count on the sender's port
qdisc_dropped() {
	ip netns exec A tc -s qdisc show dev innova0 | awk '/dropped/ { sub(/,/, "", $7); print $7; exit }'
}
for pf in loss0.5:800 loss1:1200 loss5:2500 reorder5:500 reorder25:3000 dup5:500 jitter:- corrupt0.1:500; do
	prof=${pf%%:*} ceiling=${pf#*:}
	out=$(/innova/tests/faults/netem.sh A innova0 "$prof") || die "netem $prof did not apply: $out"
	log "$out"
	bytes=2M
	snap "$prof"; snap "$prof.A" A innova0; mib_snap "$prof" A; mib_snap "$prof" B
	tls_run $IP4_B "--rx-mode manual --bytes $bytes" "--tx-mode ktls --bytes $bytes"
	qd=$(qdisc_dropped) qline=$(ip netns exec A tc -s qdisc show dev innova0 | tr -s ' \n' ' ')
	/innova/tests/faults/netem.sh A innova0 clear > /dev/null || die "netem clear"
	expect_intact $(jr .bytes)
	expect_path device
	sent=$(delta "$prof.A" tx_packets) retx=$(mib_delta "$prof" A TcpRetransSegs)
	ofo=$(mib_delta "$prof" B TcpExtTCPOFOQueue) dsack=$(mib_delta "$prof" B TcpExtTCPDSACKOldSent)
	csum=$(mib_delta "$prof" B TcpInCsumErrors)
	log "$prof: NIC decrypted $(delta "$prof" rx_tls_records_decrypted) of $(jr .records) records, touched by a hole $(delta "$prof" rx_tls_records_unauth), followed awaiting the kernel $(delta "$prof" rx_tls_records_followed), NIC share $(nic_share "$prof")/10000, missed by the NIC $(nic_missed "$prof")/10000 (ceiling $ceiling), resync req/conf $(delta "$prof" rx_tls_resync_req_start)/$(delta "$prof" rx_tls_resync_res_ok); port sent $sent frames, netem dropped $qd, sender retransmitted $retx, receiver out-of-order $ofo, D-SACKs $dsack, checksum errors $csum; qdisc: $qline"
	[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die "$prof: TlsDecryptError"
	if [ "$ceiling" != - ]; then
		missed=$(nic_missed "$prof")
		[ "$missed" -le "$ceiling" ] || die "$prof: the NIC missed $missed/10000 records > $ceiling"
	fi
	# netem acted (see the top)
	case $prof in
	loss0.5|loss1|loss5)
		[ "${qd:-0}" -ge 1 ] && [ "$retx" -ge 1 ] ||
			die "$prof: netem dropped ${qd:-?}, sender retransmitted $retx: the loss never happened" ;;
	reorder25|jitter)
		[ "$ofo" -ge 1 ] || die "$prof: no segment reached the receiver out of order" ;;
	dup5)
		[ "$dsack" -ge 1 ] || die "$prof: the receiver saw no duplicate (no D-SACK)" ;;
	esac
	asserted
done
