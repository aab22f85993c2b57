# Offload coverage under seeded cable faults: the share of TLS bytes the
# NIC decrypted (device_share) and of the records it could act on
# (nic_share, which leaves out the wait for the kernel's resync answer:
# see lib.sh) vs loss % and vs reorder %, for each resync mode. Late-frame
# recovery is off (as in guest test 46), so every lost sync goes through
# the core and the resync mode is what the curves compare; REPORT_RECOVERY=1
# measures the default NIC instead. One verified kTLS transfer per point,
# 16 KiB records, the same cable seed at every point; the 0 % point is
# measured once per mode and is the first point of both curves.
# Writes share.csv: fault,percent,mode,device_share,nic_share,records,ok
# (shares per 10000; ok 1 = every byte arrived intact).
BYTES=${REPORT_BYTES:-8M}
case $BYTES in
*M) BYTES=$(( ${BYTES%M} * 1048576 )) ;;
*K) BYTES=$(( ${BYTES%K} * 1024 )) ;;
esac
MODES=${REPORT_MODES-driver_req core_next_hint driver_req_async}
LOSS=${REPORT_LOSS-0.5 1 2 5}
REORDER=${REPORT_REORDER-1 2 5}
SEED=${REPORT_SEED:-4242}
setup_pair
echo "${REPORT_RECOVERY:-0}" > "$PORT_B/tls_reorder_recovery" || die "tls_reorder_recovery"
sum share_bytes_per_point "$BYTES (16 KiB records, cable seed $SEED, late-frame recovery ${REPORT_RECOVERY:-0})"
csv share.csv fault percent mode device_share nic_share records ok
bad=0
# point FAULT PERCENT MODE: one transfer under the cable fault, one CSV row
# (two for the clean point)
point() {
	ppm=$(awk -v p="$2" 'BEGIN { printf "%d", p * 10000 }')
	case $1 in
	clean) set_cable drop=0 reorder=0 seed=$SEED ;;
	loss) set_cable drop="$ppm" reorder=0 seed=$SEED ;;
	reorder) set_cable drop=0 reorder="$ppm" gap=3 seed=$SEED ;;
	esac
	snap pt
	t0=$(date +%s)
	tls_run $IP4_B "--rx-mode manual --bytes $BYTES" "--tx-mode ktls --bytes $BYTES --record-size 16384"
	# expect_intact dies on any failure: in a subshell it only says so
	if ( expect_intact $BYTES ) && [ "$(jr .tls_stat.TlsRxDevice)" = 1 ]; then
		ok=1 dev=$(device_share pt) nic=$(nic_share pt)
	else
		ok=0 dev=0 nic=0 bad=$((bad + 1))
	fi
	log "share: $3 $1 $2 %: device $(per10k $dev) %, NIC $(per10k $nic) %, records $(jr .records), sync lost $(delta pt rx_tls_sync_lost), core resyncs $(jr .tls_stat.TlsRxDeviceResync), ok=$ok ($(( $(date +%s) - t0 ))s)"
	if [ $1 = clean ]; then
		csv share.csv loss 0 $3 $dev $nic "$(jr .records)" $ok
		csv share.csv reorder 0 $3 $dev $nic "$(jr .records)" $ok
	else
		csv share.csv $1 $2 $3 $dev $nic "$(jr .records)" $ok
	fi
}
for mode in $MODES; do
	echo $mode > "$PORT_B/tls_resync_mode" || die "set resync mode $mode"
	point clean 0 $mode
	for p in $LOSS; do point loss $p $mode; done
	for p in $REORDER; do point reorder $p $mode; done
done
set_cable drop=0 reorder=0
[ $bad = 0 ] || die "$bad point(s) without an intact transfer on the device path"
