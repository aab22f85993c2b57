# Clean fallbacks to software kTLS: an injected "firmware" failure of
# tls_dev_add, and a full flow table (max_flows=1 with two connections).
setup_pair
echo 1 > "$PORT_B/tls_fail_next_add"
snap inj
tls_run $IP4_B "--rx-mode manual --bytes 2M" "--tx-mode ktls --bytes 2M"
expect_intact 2097152
expect_path software
expect_delta inj rx_tls_err -eq 1 "injected failure not counted"
[ "$(cat "$PORT_B/tls_fail_next_add")" = 0 ] || die "fail_next_add not consumed"
# The next connection is offloaded again.
snap again
tls_run $IP4_B "--rx-mode manual --bytes 2M" "--tx-mode ktls --bytes 2M"
expect_intact 2097152
expect_path device
[ "$(device_share again)" -ge 9000 ] || die "offloaded again, but the NIC decrypted $(device_share again)/10000"

teardown_pair
unload_module || die "rmmod"
modprobe innova max_flows=1 || die "modprobe max_flows=1"
setup_pair
snap full
tls_run $IP4_B "--rx-mode manual --flows 2 --bytes 2M" "--tx-mode ktls --flows 2 --bytes 2M"
[ "$RRC" = 0 ] && [ "$SRC" = 0 ] || die "transfer failed"
[ "$(jr .ok)" = true ] || die "receiver not ok"
dev=$(jr .tls_stat.TlsRxDevice) sw=$(jr .tls_stat.TlsRxSw)
log "two flows, one table entry: TlsRxDevice=$dev TlsRxSw=$sw add_fail +$(delta full rx_tls_add_fail)"
[ "$dev" = 1 ] && [ "$sw" = 1 ] || die "expected one device and one software flow"
expect_delta full rx_tls_add_fail -eq 1 "table-full add not counted"
# the flow that got the entry is decrypted by the NIC: half the TLS bytes
log "one of two flows on the NIC: $(delta full rx_tls_decrypted_bytes) bytes decrypted"
expect_delta full rx_tls_decrypted_bytes -ge $((2097152 * 9 / 10)) "the installed flow was not decrypted by the NIC"
teardown_pair
unload_module || die "rmmod max_flows=1"
