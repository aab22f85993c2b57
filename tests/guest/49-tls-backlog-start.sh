# Issue 20 G and D: frames that pass the NIC while setsockopt(TLS_RX) holds
# the socket sit in its backlog, not yet TCP-processed; the flow must still
# start in sync. tls_add_delay_ms makes tls_dev_add take 150 ms with the
# socket owned, so the sender's first flight piles up in the backlog and
# its window runs out mid-record (under TCP's 200 ms minimum RTO: a
# retransmission of the first segment would hand the engine the first
# header after all). At install the driver walks the record
# headers through the receive queue and the backlog's in-order run: the
# engine is anchored at the end of that data and starts in sync at the
# next record boundary, which lies ahead of it when a record straddles
# the end (the engine follows the stream there). Before the backlog was
# accounted for, the engine started at rcv_nxt, met its first frame far
# beyond it, lost sync and asked the kernel for a resync.
setup_pair
echo 150 > "$PORT_B/tls_add_delay_ms" || die "tls_add_delay_ms"
trace_on innova/innova_tls_flow_add
snap bl
tls_run $IP4_B "--rx-mode manual --bytes 8M" "--tx-mode ktls --bytes 8M"
trace_off
echo 0 > "$PORT_B/tls_add_delay_ms"
expect_intact 8388608
expect_path device
line=$(grep -m1 'innova_tls_flow_add:' /tmp/trace)
field() { echo "$line" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }
rn=$(field start_rn) backlog=$(field backlog) ahead=$(field ahead)
recs=$(jr .records) dec=$(delta bl rx_tls_records_decrypted)
log "flow add: ${line#*innova_tls_flow_add: }"
log "records: $recs, before the flow: $((rn - 1)), decrypted by the NIC: $dec, sync lost $(delta bl rx_tls_sync_lost), resync requests $(delta bl rx_tls_resync_req_start), core resyncs $(jr .tls_stat.TlsRxDeviceResync)"
[ "${backlog:-0}" -gt 0 ] || die "nothing sat in the backlog at install (test too weak)"
echo "$line" | grep -q 'synced=1' || die "flow did not start in sync"
[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die "TlsDecryptError"
expect_delta bl rx_tls_sync_lost -eq 0 "the flow lost sync at its start"
expect_delta bl rx_tls_resync_req_start -eq 0 "the engine asked for a resync"
# a clean link: no record only followed, no hole inside one
expect_delta bl rx_tls_records_followed -eq 0 "records followed, not decrypted"
expect_delta bl rx_tls_holes -eq 0 "a hole at the flow's start"
[ "$(jr .tls_stat.TlsRxDeviceResync)" = 0 ] || die "the flow needed a core resync"
# records 1..rn-1 went up before the flow; rn is shadow-verified
[ "$dec" -ge $((recs - rn)) ] || die "NIC decrypted $dec of $recs records, want >= $((recs - rn))"
log "start $ahead bytes beyond the data already passed"

# A frame the engine passed just before the install may still be on its
# way up (GRO, the stack) when the driver reads the socket: in neither the
# data read nor the NIC's sight again, and if a record starts in it the
# flow starts out of sync (a clean link in CI once lost 2 records of 1536
# so). The engine remembers how far a connection without a flow went; the
# driver waits (tls_add_wait_max times 1-2 ms) until the socket holds it.
# tls_rx_up_delay_us stretches each frame's way up to 2 ms and
# tls_add_delay_ms holds the install 2-5 ms into the sender's first
# flight, so installs meet frames in flight: with no waiting the driver
# must see them (rx_tls_add_in_flight), with waiting every start is clean.
echo 2000 > "$PORT_B/tls_rx_up_delay_us" || die "tls_rx_up_delay_us"
wait_max=$(cat "$PORT_B/tls_add_wait_max")
[ "$wait_max" -gt 0 ] || die "tls_add_wait_max is $wait_max by default"
seen=0 waited=0 unclean=0 runs_a=0 runs_b=0
# A: no waiting, until an install met data in flight (3 to 8 runs);
# B: waiting, at least 4 runs and until one waited (at most 8)
for wd in 0:2 0:3 0:5 0:1 0:4 0:2 0:3 0:5 \
	$wait_max:2 $wait_max:3 $wait_max:4 $wait_max:5 $wait_max:1 $wait_max:2 $wait_max:3 $wait_max:4; do
	w=${wd%:*}
	if [ "$w" = 0 ]; then
		[ $runs_a -ge 3 ] && [ $seen -gt 0 ] && continue
		runs_a=$((runs_a + 1))
	else
		[ $runs_b -ge 4 ] && [ $waited -gt 0 ] && continue
		runs_b=$((runs_b + 1))
	fi
	echo $w > "$PORT_B/tls_add_wait_max" || die "tls_add_wait_max $w"
	echo ${wd#*:} > "$PORT_B/tls_add_delay_ms" || die "tls_add_delay_ms"
	snap up
	trace_on innova/innova_tls_flow_add
	tls_run $IP4_B "--rx-mode manual --bytes 512K" "--tx-mode ktls --bytes 512K"
	trace_off
	expect_intact 524288
	expect_path device
	[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die "TlsDecryptError"
	line=$(grep -m1 'innova_tls_flow_add:' /tmp/trace)
	rn=$(field start_rn)
	[ -n "$rn" ] || die "no flow install traced"
	recs=$(jr .records) dec=$(delta up rx_tls_records_decrypted)
	inf=$(delta up rx_tls_add_in_flight) wt=$(delta up rx_tls_add_wait)
	log "up delay 2 ms, add delay ${wd#*:} ms, waits up to $w: add waited $wt, installed with data in flight $inf; records $recs, before the flow $((rn - 1)), NIC-decrypted $dec, sync lost $(delta up rx_tls_sync_lost); install: ${line#*innova_tls_flow_add: }"
	if [ "$w" = 0 ]; then
		seen=$((seen + inf))
		[ "$dec" -ge $((recs - rn)) ] || unclean=$((unclean + 1))
		continue
	fi
	waited=$((waited + wt))
	expect_delta up rx_tls_add_in_flight -eq 0 "installed with data still on its way up"
	expect_delta up rx_tls_sync_lost -eq 0 "the flow lost sync at its start"
	[ "$dec" -ge $((recs - rn)) ] || die "NIC decrypted $dec of $recs records, want >= $((recs - rn))"
done
echo 0 > "$PORT_B/tls_rx_up_delay_us"
echo 0 > "$PORT_B/tls_add_delay_ms"
echo $wait_max > "$PORT_B/tls_add_wait_max"
log "without waiting: $seen of $runs_a installs met data in flight, $unclean started out of sync; waiting: $waited of $runs_b installs waited, all started in sync"
[ "$seen" -gt 0 ] || die "no install without waiting met data on its way up (the driver does not see it, or the test is too weak)"
[ "$waited" -gt 0 ] || die "no install waited for data on its way up (test too weak)"
