# How long each resync takes, in records, per resync mode: under a seeded
# 2 % loss with late-frame recovery off (every lost sync goes through the
# core, as in guest test 46), the port's resync_latency histogram
# (debugfs, the engine's hw_engine_resync_hist: records followed from the
# first intact header after losing sync to the next decrypted one; lines
# "<records> <count>", the last "<N>+ <count>", counted
# since "0" was written to it) after one verified transfer per mode.
# Writes latency.csv: mode,records,count
BYTES=${REPORT_BYTES:-8M}
case $BYTES in
*M) BYTES=$(( ${BYTES%M} * 1048576 )) ;;
*K) BYTES=$(( ${BYTES%K} * 1024 )) ;;
esac
setup_pair
# no fake data: without the module's histogram this section has nothing
[ -e "$PORT_B/resync_latency" ] || die "module has no resync_latency ($PORT_B/resync_latency)"
echo 0 > "$PORT_B/tls_reorder_recovery" || die "tls_reorder_recovery"
csv latency.csv mode records count
for mode in ${REPORT_MODES-driver_req core_next_hint driver_req_async}; do
	echo $mode > "$PORT_B/tls_resync_mode" || die "set resync mode $mode"
	set_cable drop=20000 reorder=0 seed=${REPORT_SEED:-4242}
	echo 0 > "$PORT_B/resync_latency" || die "cannot reset resync_latency"
	tls_run $IP4_B "--rx-mode manual --bytes $BYTES" "--tx-mode ktls --bytes $BYTES --record-size 16384"
	expect_intact $BYTES
	expect_path device
	cat "$PORT_B/resync_latency" > /tmp/lat.txt || die "cannot read resync_latency"
	# one progress line: the non-empty buckets
	log "resync_latency $mode (records: count): $(awk '$2 != 0 { printf "%s: %s  ", $1, $2 }' /tmp/lat.txt)"
	n=0
	while read -r rec cnt; do
		case "$rec" in ''|\#*) continue ;; esac
		csv latency.csv $mode "$rec" "$cnt"
		n=$((n + cnt))
	done < /tmp/lat.txt
	sum resyncs_$mode "$n (records $(jr .records), core resyncs $(jr .tls_stat.TlsRxDeviceResync))"
done
set_cable drop=0
