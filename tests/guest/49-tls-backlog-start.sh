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
