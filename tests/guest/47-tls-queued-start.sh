# Records queued before TLS_RX: the receiver waits 3 s after the
# handshake, so the sender's first records reach the socket before the
# flow is installed and pass the NIC untouched (the core decrypts them in
# software). At tls_dev_add the driver walks the queued record headers and
# starts the engine in sync at the first record it will see whole: no
# stream scan, no resync, and every later record decrypted by the NIC.
setup_pair
trace_on innova/innova_tls_flow_add
snap q
tls_run $IP4_B "--rx-mode manual --bytes 8M --rx-delay 3000" "--tx-mode ktls --bytes 8M"
trace_off
expect_intact 8388608
expect_path device
line=$(grep -m1 'innova_tls_flow_add:' /tmp/trace)
rn=$(echo "$line" | sed -n 's/.*start_rn=\([0-9]*\).*/\1/p')
recs=$(jr .records)
log "flow add: ${line#*innova_tls_flow_add: }"
log "records: $recs, queued before TLS_RX: $((rn - 1)), decrypted by the NIC: $(delta q rx_tls_records_decrypted), core resyncs $(jr .tls_stat.TlsRxDeviceResync)"
echo "$line" | grep -q 'synced=1' || die "flow did not start in sync"
[ "${rn:-0}" -gt 2 ] || die "nothing was queued before TLS_RX (start_rn=$rn): test too weak"
[ "$(jr .tls_stat.TlsRxDeviceResync)" = 0 ] || die "the flow needed a core resync"
expect_delta q rx_tls_resync_req_start -eq 0 "the engine asked for a resync"
[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die "TlsDecryptError"
# records 1..rn-1 went up before the flow; rn is shadow-verified
expect_delta q rx_tls_records_decrypted -ge $((recs - rn)) "NIC decrypted too few records"
