# The nfp-style resync mode, chosen per port through debugfs
# (tls_resync_mode = core_next_hint): the NIC never asks for a resync, the
# core resyncs on its own after consecutive undecrypted records
# (TLS_OFFLOAD_SYNC_TYPE_CORE_NEXT_HINT), and the engine takes the hint.
# Under 5 % seeded loss every byte arrives on the device path and the
# driver issues no request.
setup_pair
[ "$(cat "$PORT_B/tls_resync_mode")" = driver_req ] || die "default mode is not driver_req"
echo core_next_hint > "$PORT_B/tls_resync_mode" || die "set resync mode"
[ "$(cat "$PORT_B/tls_resync_mode")" = core_next_hint ] || die "mode not set"
echo bogus > "$PORT_B/tls_resync_mode" 2>/dev/null && die "bogus mode accepted"
/innova/tests/faults/cable.sh innova0 seed=99 drop=50000 | sed 's/^/# /'
snap_b nh
tls_run $IP4_B "--rx-mode manual --bytes 8M" "--tx-mode ktls --bytes 8M"
expect_intact 8388608
expect_path device
req=$(delta_b nh rx_tls_resync_req_start)
log "core_next_hint: core resyncs $(jr .tls_stat.TlsRxDeviceResync), applied $(delta_b nh rx_tls_resync_res_ok), skipped $(delta_b nh rx_tls_resync_res_skip), driver requests $req, sync lost $(delta_b nh rx_tls_sync_lost), recovered from late frames $(delta_b nh rx_tls_reorder_recovered), device share $(device_share nh)/10000"
[ "$req" = 0 ] || die "driver issued resync requests in core_next_hint mode"
[ "$(delta_b nh rx_tls_resync_req_pkt)" = 0 ] || die "resync request packets counted in core_next_hint mode"
[ "$(delta_b nh rx_tls_sync_lost)" -gt 0 ] || die "loss never cost sync (test too weak)"
[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die "TlsDecryptError"
[ "$(device_share nh)" -ge ${MIN_SHARE:-5000} ] || die "device share too low"
