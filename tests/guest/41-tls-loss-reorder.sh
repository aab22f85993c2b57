# Seeded cable faults on the sender's side of the cable: 1 % loss and 5 %
# reorder. Every byte still arrives and most bytes stay on the device path.
# Sync comes back two ways, and each is asserted on its own:
#  - through the core (DRIVER_REQ request + confirmation): with the port's
#    late-frame recovery off, every lost sync must take that round trip;
#  - from the late frame itself (default): no round trip needed.
setup_pair
trace_on innova tls/tls_device_rx_resync_send
BYTES=${BYTES:-16M}
# run_faulted NAME RECOVERY MIN_DEVICE_SHARE MIN_NIC_SHARE MIN_LOST set_cable-knob=value...
# (floors per 10000; see lib.sh for device_share and nic_share; MIN_LOST:
# lost syncs per 1000 frames the cable dropped or reordered, expect_sync_lost)
run_faulted() {
	name=$1 recovery=$2 min_share=$3 min_nic=$4 min_lost=$5; shift 5
	set_knob "$PORT_B/tls_reorder_recovery" "$recovery"
	set_cable drop=0 reorder=0 dup=0 burst=0 tail=0 stall=0 "$@" seed=4242
	snap "$name"; snap "$name.A" A innova0
	tls_run ${ADDR:-$IP4_B} "--rx-mode manual --bytes $BYTES ${CIPHER:+--cipher $CIPHER} ${TLS13:+--tls13}" "--tx-mode ktls --bytes $BYTES --record-size 16384 ${CIPHER:+--cipher $CIPHER} ${TLS13:+--tls13}"
	expect_intact $(jr .bytes)
	expect_path device
	req=$(delta "$name" rx_tls_resync_req_start)
	ok=$(delta "$name" rx_tls_resync_res_ok)
	rec=$(delta "$name" rx_tls_reorder_recovered)
	lost=$(delta "$name" rx_tls_sync_lost)
	share=$(device_share "$name") nic=$(nic_share "$name") missed=$(nic_missed "$name")
	log "$name: device share ${share}/10000, NIC share $nic/10000, missed by the NIC $missed/10000 (records $(jr .records), followed awaiting the kernel $(delta "$name" rx_tls_records_followed), touched by a hole $(delta "$name" rx_tls_records_unauth), decrypted $(delta "$name" rx_tls_records_decrypted), withheld as unanchored $(delta "$name" rx_tls_unanchored)), sync lost $lost, resync requests $req, confirmations $ok, recovered from late frames $rec, holes $(delta "$name" rx_tls_holes); cable: frames sent $(delta "$name.A" tx_packets), dropped $(delta "$name.A" tx_cable_dropped) reordered $(delta "$name.A" tx_cable_reordered) duplicated $(delta "$name.A" tx_cable_duplicated)"
	# The cable did what it was set to (expect_cable, lib.sh), and the
	# faults cost sync as often as they do on a working NIC
	# (expect_sync_lost: install alone loses it at most once).
	expect_cable "$name.A" "$@"
	expect_sync_lost "$name" "$name.A" "$min_lost"
	if [ "$recovery" = 0 ]; then
		expect_delta "$name" rx_tls_reorder_recovered -eq 0 "$name: recovered from late frames with recovery off"
		expect_delta "$name" rx_tls_resync_req_start -gt 0 "$name: no resync requests"
		expect_delta "$name" rx_tls_resync_res_ok -gt 0 "$name: no resync confirmations"
		# every lost sync came back through the core (the last may
		# still wait when the transfer ends; measured: equal in ten
		# runs): a NIC that followed records and never resumed would
		# hide them from nic_missed as "followed awaiting the kernel"
		[ "$ok" -ge $((lost - 1)) ] || die "$name: $lost syncs lost, only $ok confirmed by the core"
		asserted
	else
		# the default NIC takes sync back from the late frames themselves
		expect_delta "$name" rx_tls_reorder_recovered -gt 0 "$name: recovery on, but nothing recovered from late frames"
	fi
	[ "$share" -ge "$min_share" ] || die "$name: device share $share/10000 < $min_share"
	if [ -n "${MAX_MISSED:-}" ]; then
		[ "$missed" -le "$MAX_MISSED" ] || die "$name: the NIC missed $missed/10000 records > $MAX_MISSED"
	else
		[ "$nic" -ge "$min_nic" ] || die "$name: NIC share $nic/10000 < $min_nic"
	fi
}
# Through the core: each lost sync costs a scan, a request, the core's
# confirmation and a shadow record. How many records arrive while the NIC
# waits for that confirmation depends on the application's read pace, so
# the whole-transfer device share is only logged. The NIC share (which
# leaves that wait out of its denominator) still fell with a longer wait:
# reorder5-core measured 6349-8127 over seven runs with the kernel's wait
# at 650-130 records, and failed its floor of 7000 on a loaded CI machine
# (and once on the TLS 1.3 lane) with the NIC's own misses unchanged. The
# ceiling is therefore on those misses (nic_missed, lib.sh): measured
# 430-600 per 10000 records for loss, 840-1340 for reorder (eight runs);
# ceilings 1000 and 1800. A NIC that stopped decrypting after its first resync misses
# thousands.
# Lost syncs per 1000 faults, measured on 6.1 (16 MiB, ~120 drops or ~520
# reorders): loss1-core 56, reorder5-core 19, loss1 72, reorder5 91,
# loss1-v6-256 118, reorder5-v6-256 97 (a loss costs sync only where it
# takes a header: about 1 frame in 11 with 16 KiB records). Floors at
# about a third: 20, 8, 25, 40, 25, 40; install alone loses it once.
MAX_MISSED=1000 run_faulted loss1-core 0 0 0 20 drop=10000
MAX_MISSED=1800 run_faulted reorder5-core 0 0 0 8 reorder=50000 gap=3
# The default NIC: late-frame recovery, no kernel round trip to wait for.
# Under reorder the NIC now withholds decryption where an injected segment
# could steer its framing (issue 20, docs/design.md "The NIC sits in front
# of TCP"): a record whose header came in a frame ahead of a gap is only
# verified (rx_tls_unanchored), and a walk whose headers came from frames
# that did not fill a gap exactly resumes in shadow. Measured with those
# rules: device share 8540 (6.1) and 8738 (6.12), NIC share 9036 and 9621,
# where both were above 9000 before; the floors for reorder moved to 8000
# and 8500, loss keeps 9000.
run_faulted loss1 1 9000 9000 25 drop=10000
run_faulted reorder5 1 8000 8500 40 reorder=50000 gap=3
# The same over IPv6 with AES-256, plus 2 % duplicates.
ADDR=$IP6_B CIPHER=aes256gcm run_faulted loss1-v6-256 1 9000 9000 25 drop=10000 dup=20000
expect_delta loss1-v6-256.A tx_cable_duplicated -gt 0 "the cable duplicated nothing"
# Bursty loss (the cable's Gilbert-Elliott model): 1 % of the frames in
# bursts of 8 on average. A burst takes a header more often than a lone
# loss but costs one resync where 8 lone losses could cost several.
# Measured on a loaded 6.1: device share 9672, NIC share 9760, 105 frames
# lost in bursts, sync lost 85 per 1000 of them: loss1's floors.
run_faulted burst1-len8 1 9000 9000 25 burst=10000 burstlen=8
# Tail loss (docs/evaluation.md): the cable loses 1 in 10 of the frames
# that end a record. Such a frame nearly always carries the next record's
# header too, so nearly every loss costs sync, where a uniform loss takes
# a header about 1 time in 11 (loss1: 72 lost syncs per 1000 drops): a
# cable that lost other frames than record ends fails MIN_LOST.
# Measured on 6.1: 107 record ends lost, 104 lost syncs (971 per 1000),
# all 104 recovered from the late frames, device share 8687, NIC share
# 8218 (1 % bursty loss, burst1-len8: 9760): each loss costs two records
# and a resync (docs/evaluation.md).
run_faulted tail10 1 7500 7000 500 tail=100000
# Stalls: 1 data frame in 1000 stops the direction for 1 s, past the
# sender's RTO (200 ms at least; more under TCG, where the measured RTT
# varies: a 400 ms stall made 1 timeout in 15), so TCP times out and sends
# again what it had in flight: the receiver gets that data twice. The NIC
# must leave the second copy alone (old data) and keep its sync: no frame
# is lost.
set_cable drop=0 reorder=0 dup=0 burst=0 tail=0 stall=1000 stallms=1000 seed=4242
snap stall; snap stall.A A innova0; mib_snap stall A
tls_run $IP4_B "--rx-mode manual --bytes 8M" "--tx-mode ktls --bytes 8M --record-size 16384"
set_cable stall=0
expect_intact $(jr .bytes)
expect_path device
expect_cable stall.A stall=1000
st=$(delta stall.A tx_cable_stalls) old=$(delta stall rx_tls_old_frames) share=$(device_share stall)
rto=$(mib_delta stall A TcpExtTCPTimeouts) retx=$(mib_delta stall A TcpRetransSegs)
log "stall: $st stalls of 1 s, sender timeouts $rto, segments sent again $retx, the receiver's NIC saw $old frames of old data, sync lost $(delta stall rx_tls_sync_lost), device share $share/10000, NIC share $(nic_share stall)/10000, records decrypted $(delta stall rx_tls_records_decrypted) of $(jr .records)"
[ "$rto" -ge 1 ] && [ "$old" -ge 1 ] || die "stall: $rto timeouts, $old old frames for $st stalls of 1 s (TCP sent nothing twice)"
expect_delta stall rx_tls_sync_lost -le 1 "stall: sync lost on a link that lost nothing"
[ "$share" -ge 9500 ] || die "stall: device share $share/10000 < 9500"
ADDR=$IP6_B CIPHER=aes256gcm run_faulted reorder5-v6-256 1 8000 8500 40 reorder=50000 gap=3
# TLS 1.3 on the device path (a kernel with the project's series: innova/caps
# says tls13_rx): the same faults, the same floors as TLS 1.2 (the record
# framing and the resync are the same; only the nonce and AAD differ), but
# for reorder with late-frame recovery: in 1.3 a hole in a record whose
# header is not anchored also sends the flow to SHADOW, because that
# unverified length counts the records after it and the count is in their
# keystream (docs/design.md; host adversary seed 50328681): the record
# after each such hole is verified, not decrypted. Measured on the lane:
# 43 such holes in 1024 records, device share 7813, NIC share 8732 (8786-
# 9169 NIC share before the rule). Since issue 23 the record after a
# recovery whose walk passed a whole record (or followed one ahead of the
# gap) is verified too: any of them may have been a KeyUpdate, whose type
# is encrypted (host: 1.3 reorder coverage 0.881 -> 0.832); measured 7119
# and 8142 with it; floors 6000 and 7000 there (7000 and 8000 before).
if grep -qw tls13_rx /sys/kernel/debug/innova/caps; then
	TLS13=1 run_faulted loss1-13 1 9000 9000 25 drop=10000 dup=20000
	expect_delta loss1-13.A tx_cable_duplicated -gt 0 "the cable duplicated nothing (TLS 1.3)"
	TLS13=1 MAX_MISSED=1800 run_faulted reorder5-13-core 0 0 0 8 reorder=50000 gap=3
	TLS13=1 ADDR=$IP6_B CIPHER=aes256gcm run_faulted reorder5-13-v6-256 1 6000 7000 40 reorder=50000 gap=3
	expect_delta reorder5-13-v6-256 rx_tls13_records_decrypted -gt 0 "no TLS 1.3 record decrypted"
fi

trace_off
for ev in innova_tls_flow_add innova_tls_flow_del innova_tls_resync_req innova_tls_resync_confirm tls_device_rx_resync_send; do
	n=$(grep -c " $ev:" /tmp/trace)
	log "tracepoint $ev: $n events"
	[ "$n" -gt 0 ] || die "no $ev events traced"
done
grep -q 'innova_tls_frame_event:.*sync_lost' /tmp/trace || die "no sync_lost frame event traced"
