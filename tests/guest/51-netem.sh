# tc netem on the sending port (stock qdisc on the innova port): loss,
# reorder with delay, duplicates, jitter, corruption. Each transfer is byte
# exact on the device path; nothing is ever delivered wrong.
# The profiles must show netem acted, where a qdisc that does nothing
# fails: loss in netem's own drop count (tc -s qdisc) and the sender's
# retransmissions (TcpRetransSegs), reorder25 and jitter in the receiver's
# out-of-order queue (TcpExtTCPOFOQueue), duplicates in its D-SACKs for old
# data (TcpExtTCPDSACKOldSent). Measured on 6.1 (two runs, ~1490 frames):
# loss1 dropped 5 / 2, retransmitted 48 / 12; loss5 31 / 10, 102 / 90;
# reorder25 out-of-order 16 / 23; dup5 D-SACKs 10 / 4; jitter
# out-of-order 95 / 378. Not asserted, because nothing showed them act:
# loss0.5 (0 drops both times: netem's drop count runs at about a
# seventh of the nominal rate here), reorder5 (no out-of-order segment,
# retransmission or D-SACK), corrupt0.1 (0 in 2 MiB, 2 in 16 MiB).
# Floors: records the NIC decrypted, per profile, from what a working NIC
# does here (measured: loss/dup/corrupt 123-128 of 128, reorder25 101,
# jitter 10: netem's jitter reorders nearly every frame), so a NIC that
# decrypts nothing fails every profile.
setup_pair
# netem acts on what the qdisc is given: with GSO on, one TCP super-packet
# of up to ~45 frames, so "loss 1%" dropped a seventh as many skbs as
# nominal, each taking a burst of frames (and a run could see no drop at
# all). A per-frame fault model needs per-frame skbs: GSO off on the
# sending port, as netem's documentation advises.
ip netns exec A ethtool -K innova0 gso off || die "ethtool -K innova0 gso off"
ip netns exec A ethtool -k innova0 | grep -q '^generic-segmentation-offload: off' || die "GSO still on"
# qdisc_dropped: netem's drop count on the sender's port
qdisc_dropped() {
	ip netns exec A tc -s qdisc show dev innova0 | awk '/dropped/ { sub(/,/, "", $7); print $7; exit }'
}
for pf in loss0.5:100 loss1:100 loss5:80 reorder5:100 reorder25:50 dup5:100 jitter:1 corrupt0.1:100; do
	prof=${pf%%:*} floor=${pf#*:}
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
	log "$prof: NIC decrypted $(delta "$prof" rx_tls_records_decrypted) of $(jr .records) records (floor $floor), resync req/conf $(delta "$prof" rx_tls_resync_req_start)/$(delta "$prof" rx_tls_resync_res_ok); port sent $sent frames, netem dropped $qd, sender retransmitted $retx, receiver out-of-order $ofo, D-SACKs $dsack, checksum errors $csum; qdisc: $qline"
	[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die "$prof: TlsDecryptError"
	expect_delta "$prof" rx_tls_records_decrypted -ge "$floor" "$prof: NIC decrypted too few records"
	# netem acted (see the top)
	case $prof in
	loss1|loss5)
		[ "${qd:-0}" -ge 1 ] && [ "$retx" -ge 1 ] ||
			die "$prof: netem dropped ${qd:-?}, sender retransmitted $retx: the loss never happened" ;;
	reorder25|jitter)
		[ "$ofo" -ge 1 ] || die "$prof: no segment reached the receiver out of order" ;;
	dup5)
		[ "$dsack" -ge 1 ] || die "$prof: the receiver saw no duplicate (no D-SACK)" ;;
	esac
	asserted
done
