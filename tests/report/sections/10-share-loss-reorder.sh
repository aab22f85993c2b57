# Offload coverage under seeded cable faults: the share of TLS bytes the
# NIC decrypted (device_share) and of the records it could act on
# (nic_share, which leaves out the wait for the kernel's resync answer:
# see lib.sh) vs loss % and vs reorder %, for each resync mode. Late-frame
# recovery is off (as in guest test 46), so every lost sync goes through
# the core and the resync mode is what the curves compare; REPORT_RECOVERY=1
# measures the default NIC instead. One verified kTLS transfer per point,
# 16 KiB records, the same cable seed at every point; the 0 % point is
# measured once per mode and is the first point of both curves.
# On a kernel with the TLS 1.3 device series (innova/caps says tls13_rx:
# KVER=6.12-tls13) the modes in REPORT_TLS13_MODES (default driver_req) run
# again over TLS 1.3, as mode "<mode>_tls13": the same framing and resync,
# another nonce and AAD, so the curves should lie on each other.
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
TLS13_MODES=
grep -qw tls13_rx /sys/kernel/debug/innova/caps && TLS13_MODES=${REPORT_TLS13_MODES-driver_req}
setup_pair
echo "${REPORT_RECOVERY:-0}" > "$PORT_B/tls_reorder_recovery" || die "tls_reorder_recovery"
sum share_bytes_per_point "$BYTES (16 KiB records, cable seed $SEED, late-frame recovery ${REPORT_RECOVERY:-0})"
csv share.csv fault percent mode device_share nic_share records ok
bad=0
# point FAULT PERCENT MODE: one transfer under the cable fault, one CSV row
# (two for the clean point); MODE ending in _tls13 runs TLS 1.3
point() {
	ppm=$(awk -v p="$2" 'BEGIN { printf "%d", p * 10000 }')
	case $1 in
	clean) set_cable drop=0 reorder=0 seed=$SEED ;;
	loss) set_cable drop="$ppm" reorder=0 seed=$SEED ;;
	reorder) set_cable drop=0 reorder="$ppm" gap=3 seed=$SEED ;;
	esac
	snap pt
	t0=$(date +%s)
	v=
	case $3 in *_tls13) v=--tls13 ;; esac
	tls_run $IP4_B "--rx-mode manual --bytes $BYTES $v" "--tx-mode ktls --bytes $BYTES --record-size 16384 $v"
	# expect_intact dies on any failure: in a subshell it only says so
	if ( expect_intact $BYTES ) && [ "$(jr .tls_stat.TlsRxDevice)" = 1 ] &&
		{ [ -z "$v" ] || [ "$(jr .tls_version)" = 1.3 ]; }; then
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
for mode in $MODES $(for m in $TLS13_MODES; do echo ${m}_tls13; done); do
	echo ${mode%_tls13} > "$PORT_B/tls_resync_mode" || die "set resync mode ${mode%_tls13}"
	point clean 0 $mode
	for p in $LOSS; do point loss $p $mode; done
	for p in $REORDER; do point reorder $p $mode; done
done
set_cable drop=0 reorder=0
[ $bad = 0 ] || die "$bad point(s) without an intact transfer on the device path"
