# Seeded cable faults on the sender's side of the cable: 1 % loss, then 5 %
# reorder. Every byte still arrives; the NIC loses sync, asks the core for
# resync (DRIVER_REQ), gets confirmations, and keeps most bytes on the
# device path.
setup_pair
T=/sys/kernel/tracing
echo > $T/trace
echo 1 > $T/events/innova/enable || die "no innova tracepoints"
echo 1 > $T/events/tls/tls_device_rx_resync_send/enable
BYTES=${BYTES:-16M}
run_faulted() {
	name=$1; shift
	echo 0 > "$PORT_A/drop_ppm"; echo 0 > "$PORT_A/reorder_ppm"
	for kv in "$@"; do echo "${kv#*=}" > "$PORT_A/${kv%%=*}"; done
	echo 4242 > "$PORT_A/seed"
	snap_b $name
	tls_run $IP4_B "--rx-mode manual --bytes $BYTES" "--tx-mode ktls --bytes $BYTES --record-size 16384"
	expect_intact $(jr .bytes)
	expect_path device
	req=$(delta_b $name rx_tls_resync_req_start)
	ok=$(delta_b $name rx_tls_resync_res_ok)
	share=$(device_share $name)
	log "$name: device share ${share}/10000, resync requests $req, confirmations $ok, holes $(delta_b $name rx_tls_holes), recovered from late frames $(delta_b $name rx_tls_reorder_recovered), sync lost $(delta_b $name rx_tls_sync_lost), cable: dropped $(cat "$PORT_A/dropped") reordered $(cat "$PORT_A/reordered")"
	rec=$(delta_b $name rx_tls_reorder_recovered)
	# Sync comes back through the core (request + confirmation) or, for a
	# reordered frame, from the late frame itself (no round trip needed).
	if [ "$rec" -eq 0 ]; then
		[ "$req" -gt 0 ] || die "$name: no resync requests"
		[ "$ok" -gt 0 ] || die "$name: no resync confirmations"
	fi
	[ "$(delta_b $name rx_tls_sync_lost)" -gt 0 ] || die "$name: the faults never cost sync (test too weak)"
	[ "$share" -ge ${MIN_SHARE:-9000} ] || die "$name: device share $share/10000 < ${MIN_SHARE:-9000}"
}
run_faulted loss1 drop_ppm=10000
run_faulted reorder5 reorder_ppm=50000 reorder_gap=3

echo 0 > $T/events/innova/enable
echo 0 > $T/events/tls/tls_device_rx_resync_send/enable
for ev in innova_tls_flow_add innova_tls_flow_del innova_tls_resync_req innova_tls_resync_confirm tls_device_rx_resync_send; do
	n=$(grep -c " $ev:" $T/trace)
	log "tracepoint $ev: $n events"
	[ "$n" -gt 0 ] || die "no $ev events traced"
done
grep -q 'innova_tls_frame_event:.*sync_lost' $T/trace || die "no sync_lost frame event traced"
echo > $T/trace
