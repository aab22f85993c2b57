# 64 concurrent TLS flows through the NIC under 1 % seeded cable loss: each
# flow is verified, each is device-offloaded, all flows are deleted after.
setup_pair
out=$(/innova/tests/faults/cable.sh -n A innova0 seed=64 drop=10000) || die "cable.sh: $out"
log "$out"
snap_b many
tls_run $IP4_B "--rx-mode manual --flows 64 --bytes 256k --timeout 300" "--tx-mode ktls --flows 64 --bytes 256k --timeout 300"
[ "$RRC" = 0 ] && [ "$SRC" = 0 ] && [ "$(jr .ok)" = true ] || die "transfer failed: $(jr .error)"
[ "$(jr .flows)" = 64 ] || die "receiver verified $(jr .flows) flows"
[ "$(jr .bytes)" = $((64 * 262144)) ] || die "receiver got $(jr .bytes) bytes"
[ "$(jr .tls_stat.TlsRxDevice)" = 64 ] || die "TlsRxDevice=$(jr .tls_stat.TlsRxDevice), want 64"
log "64 flows: NIC decrypted $(delta_b many rx_tls_records_decrypted) of $(jr .records) records; ctx +$(delta_b many rx_tls_ctx) del +$(delta_b many rx_tls_del); cable dropped $(cat "$PORT_A/dropped")"
[ "$(delta_b many rx_tls_ctx)" = 64 ] || die "rx_tls_ctx"
# measured 887 of 1024 under 1 % loss with 64 flows sharing the NIC
[ "$(delta_b many rx_tls_records_decrypted)" -ge 700 ] || die "NIC decrypted under 70 % of the records"
wait_until 5 no_flows_b || die "flows left installed"
