# The NIC never marks what it did not decrypt, and nothing a stray frame
# does turns offload off. Each fault is injected mid-transfer and must
# show in its own counter (a fault that did nothing fails the test):
#  (a) crypto backend errors (debugfs tls_crypto_fail_next): the frames
#      they hit are not marked (rx_tls_err, rx_tls_crypto_err), the flow
#      resyncs and the stream stays byte-exact with no software auth error;
#  (b) a copy of a segment 1 GiB ahead (beyond any receive window, TCP
#      drops it): ignored (rx_tls_far_frames), sync never lost;
#  (c) a copy 4 MiB ahead (inside the window; TCP drops it for its ACK):
#      the old data that keeps coming takes the position back
#      (rx_tls_rearmed) and offload resumes within a few records;
#  (d) duplicates addressed to another host, or VLAN-tagged, sent before
#      the real frame: the NIC leaves them alone (the real frame is never
#      "old"), so the device share stays as on a clean link.
setup_pair
BYTES=${BYTES:-16M}
# mid_transfer NAME KNOB VALUE: start a transfer, once the NIC has
# decrypted 2 MB write VALUE to the knob (a path under debugfs), finish.
mid_transfer() {
	name=$1 knob=$2 val=$3
	snap_b "$name"
	tls_start $IP4_B "--rx-mode manual --bytes $BYTES" "--tx-mode ktls --bytes $BYTES"
	wait_decrypted "$name" 2000000
	echo "$val" > "$knob" || die "$name: cannot write $knob"
	tls_wait
	expect_intact $(jr .bytes)
	expect_path device
	[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die "$name: TlsDecryptError"
	share=$(device_share "$name")
}

mid_transfer crypto "$PORT_B/tls_crypto_fail_next" 3
err=$(delta_b crypto rx_tls_err) cerr=$(delta_b crypto rx_tls_crypto_err)
log "crypto errors: rx_tls_err +$err rx_tls_crypto_err +$cerr sync lost +$(delta_b crypto rx_tls_sync_lost) resync applied +$(delta_b crypto rx_tls_resync_res_ok); device share $share/10000"
[ "$(cat "$PORT_B/tls_crypto_fail_next")" = 0 ] || die "injected failures not all consumed"
[ "$cerr" = 3 ] || die "engine counted $cerr crypto errors, injected 3"
[ "$err" = 3 ] || die "rx_tls_err +$err, want 3"
[ "$(delta_b crypto rx_tls_sync_lost)" -ge 1 ] || die "a crypto error did not stop decryption"
[ "$share" -ge 8000 ] || die "offload did not recover after crypto errors: $share/10000"

echo 1 > "$PORT_A/reset_counters"
mid_transfer far "$PORT_A/inject_ahead" 1073741824
log "1 GiB ahead: injected $(cat "$PORT_A/injected"), far frames +$(delta_b far rx_tls_far_frames), sync lost +$(delta_b far rx_tls_sync_lost); device share $share/10000"
[ "$(cat "$PORT_A/injected")" = 1 ] || die "the cable injected nothing"
[ "$(delta_b far rx_tls_far_frames)" = 1 ] || die "far segment not recognised"
[ "$(delta_b far rx_tls_sync_lost)" = 0 ] || die "far segment cost sync"
[ "$share" -ge 9500 ] || die "device share $share/10000 after a far segment"

echo 1 > "$PORT_A/reset_counters"
mid_transfer ahead "$PORT_A/inject_ahead" 4194304
log "4 MiB ahead: injected $(cat "$PORT_A/injected"), rearmed +$(delta_b ahead rx_tls_rearmed), old frames +$(delta_b ahead rx_tls_old_frames); device share $share/10000"
[ "$(cat "$PORT_A/injected")" = 1 ] || die "the cable injected nothing"
[ "$(delta_b ahead rx_tls_rearmed)" = 1 ] || die "stream position not taken back"
# without the rearm, 4 MiB of the 16 MiB would pass the NIC untouched
[ "$share" -ge 9000 ] || die "device share $share/10000 after a segment 4 MiB ahead"

for mangle in 1 2; do
	echo 1 > "$PORT_A/reset_counters"
	echo 100000 > "$PORT_A/dup_ppm"; echo $mangle > "$PORT_A/dup_mangle"
	snap_b "m$mangle"
	tls_run $IP4_B "--rx-mode manual --bytes 8M" "--tx-mode ktls --bytes 8M"
	echo 0 > "$PORT_A/dup_ppm"; echo 0 > "$PORT_A/dup_mangle"
	expect_intact 8388608
	expect_path device
	share=$(device_share "m$mangle")
	log "dup_mangle=$mangle: duplicated $(cat "$PORT_A/duplicated"), engine old frames +$(delta_b m$mangle rx_tls_old_frames), device share $share/10000"
	[ "$(cat "$PORT_A/duplicated")" -gt 20 ] || die "the cable duplicated almost nothing"
	[ "$(delta_b m$mangle rx_tls_old_frames)" -lt 10 ] || die "mangled copies reached the engine"
	[ "$share" -ge 9500 ] || die "dup_mangle=$mangle: device share $share/10000"
done
