# Report section: flow-count scaling. innova-tls --seed-keys (keys derived
# from a seed and the client port on both ends, no handshake) opens FLOWS
# TLS 1.2 connections at once through the NIC and sends BYTES per flow
# round-robin; per point: how many records the NIC decrypted, the path every
# flow took, wall and connection-setup time. Runs in the guest with lib.sh
# sourced by the framework; prints "# " progress, "@@csv flows.csv" rows
# (header first) and "@@sum" lines. Each point gets a fresh port pair on a
# module loaded with max_flows=16384 (the default, 256, is restored after).
#   FLOW_POINTS="1 100 1000 10000" FLOW_BYTES=4096 FLOW_REC=1024
FLOW_POINTS=${FLOW_POINTS:-1 100 1000 10000}
FLOW_BYTES=${FLOW_BYTES:-4096}
FLOW_REC=${FLOW_REC:-1024}
FLOW_MAXF=16384

flows_reload() {
	teardown_pair
	# ports of what ran before may take a moment to go: retry rmmod
	lsmod | grep -q '^innova ' && wait_until 30 rmmod innova 2>/dev/null
	modprobe innova "$@"
}

# rates="add N PER_S del N PER_S" since cmd0; true once N adds and deletes
flows_cmds_done() {
	_fc_n=$1
	rates=$(printf '%s\n%s\n' "$cmd0" "$(cat "$PORT_B/tls_cmd_time")" | awk '
		NR <= 2 { n0[$1] = $2; t0[$1] = $3; next }
		{ n = $2 - n0[$1]; t = $3 - t0[$1]
		  printf "%s %d %.0f ", $1, n, (t > 0 ? n * 1e9 / t : 0) }')
	set -- $rates
	[ "${2:-}" = "$_fc_n" ] && [ "${5:-}" = "$_fc_n" ]
}
echo "@@csv flows.csv flows,bytes,records,nic_decrypted_records,share,seconds,connect_seconds,device_ns_per_byte,nic_bytes_per_flow,key_bytes_per_flow,adds_per_s,dels_per_s,ok"
flows_reload max_flows=$FLOW_MAXF || echo "# modprobe innova max_flows=$FLOW_MAXF failed"
flows_max_ok=0 flows_10000_share= flows_mem= flows_rates=
# Warm-up, not reported: the first TLS_RX after boot instantiates the kernel's
# gcm(aes) (with its self-tests), about 5 s under TCG, which would
# otherwise land in the first point's connect time.
setup_pair
tls_run $IP4_B "--seed-keys 30 --rx-mode manual --bytes 1k --timeout 300" "--seed-keys 30 --bytes 1k --timeout 300"
echo "# flows: warm-up (1 flow, not reported): recv rc=$RRC, $(jr .connect_seconds) s to connect"
for n in $FLOW_POINTS; do
	echo "# flows: $n flows x $FLOW_BYTES B (records of $FLOW_REC B), seeded keys, rx-mode manual, tx-mode ktls"
	teardown_pair
	setup_pair
	snap flows
	cmd0=$(cat "$PORT_B/tls_cmd_time")
	tls_start $IP4_B "--seed-keys 30 --rx-mode manual --flows $n --bytes $FLOW_BYTES --timeout 900" \
		"--seed-keys 30 --tx-mode ktls --flows $n --bytes $FLOW_BYTES --record-size $FLOW_REC --timeout 900"
	# NIC memory while the flows are installed: the module's own
	# accounting (debugfs innova/objects), sampled until the receiver
	# ends; the sample with the most keys is kept
	peak="0 0 0 0 0" polls=0
	while kill -0 "$TLS_RPID" 2>/dev/null; do
		cur=$(awk '{ v[$1] = $2 } END { printf "%d %d %d %d %d\n", v["keys"], v["key_bytes"], v["flows"], v["flow_bytes"], v["engine_bytes"] / (v["ports"] > 0 ? v["ports"] : 1) }' \
			/sys/kernel/debug/innova/objects)
		[ "${cur%% *}" -gt "${peak%% *}" ] && peak=$cur
		# often at first (a few flows are gone within a second), then
		# rarely (the sampler's own CPU would slow the transfer)
		polls=$((polls + 1))
		if [ $polls -lt 40 ]; then sleep 0.02; else sleep 0.5; fi
	done
	tls_wait
	recs=$(jr '.records // 0') dec=$(delta flows rx_tls_records_decrypted)
	dns=$(delta flows rx_tls_device_ns)
	devpb=$(awk -v d="$dns" -v b=$((n * FLOW_BYTES)) 'BEGIN { printf "%.2f", d / b }')
	# per flow: key objects + driver flow object (kmalloc buckets) + the
	# engine slot (the port's preallocated table / max_flows)
	set -- $peak
	nicpf=NA keypf=NA
	if [ "$1" -gt 0 ] && [ "$3" -gt 0 ]; then
		keypf=$(( $2 / $1 ))
		nicpf=$(( keypf + $4 / $3 + $5 / FLOW_MAXF ))
	fi
	echo "# flows: $n: peak $1 keys ($2 B), $3 driver flows ($4 B), engine $5 B per port for $FLOW_MAXF slots: $nicpf B of NIC state per flow ($keypf B of it the key); device time $dns ns, $devpb ns/B"
	dev=$(jr '.tls_stat.TlsRxDevice // 0')
	ok=0
	[ "$RRC" = 0 ] && [ "$SRC" = 0 ] && [ "$(jr .ok)" = true ] && [ "$(jr .flows)" = "$n" ] &&
		[ "$(jr .bytes)" = $((n * FLOW_BYTES)) ] && [ "$dev" = "$n" ] && ok=1
	share=$(awk -v d="$dec" -v r="$recs" 'BEGIN { printf "%.4f", (r > 0 ? d / r : 0) }')
	echo "# flows: $n: ok=$ok, NIC decrypted $dec of $recs records, TlsRxDevice +$dev, $(jr .seconds) s (connect $(jr .connect_seconds) s)"
	[ "$ok" = 1 ] || echo "# flows: $n failed: recv rc=$RRC send rc=$SRC: $(jr .error) / $(js .error 2>/dev/null)"
	wait_until 120 no_flows_b || echo "# flows: $n: flows still installed 120 s after the run: $(flows_b | wc -l)"
	# flow command rates (debugfs tls_cmd_time: tls_dev_add with its key
	# setup, tls_dev_del with its teardown, per second of command time); a
	# delete is counted just after the engine lets go of the flow
	wait_until 10 flows_cmds_done "$n" || echo "# flows: $n: tls_cmd_time counted $rates"
	set -- $rates
	addps=${3:-NA} delps=${6:-NA}
	echo "# flows: $n: $2 adds at $addps/s, $5 deletes at $delps/s of command time"
	echo "@@csv flows.csv $n,$((n * FLOW_BYTES)),$recs,$dec,$share,$(jr '.seconds // 0'),$(jr '.connect_seconds // 0'),$devpb,$nicpf,$keypf,$addps,$delps,$ok"
	[ "$ok" = 1 ] && [ "$n" -gt "$flows_max_ok" ] && flows_max_ok=$n
	[ "$n" = 10000 ] && flows_10000_share=$share
	[ "$n" = "$flows_max_ok" ] && [ "$nicpf" != NA ] && flows_mem="$nicpf B at $n flows (key $keypf B; driver flow and engine slot the rest)"
	[ "$n" = "$flows_max_ok" ] && flows_rates="$addps adds/s, $delps deletes/s at $n flows (of command time)"
done
teardown_pair
flows_reload || echo "# modprobe innova (default max_flows) failed"
echo "@@sum flows_max_ok $flows_max_ok"
echo "@@sum flows_10000_share ${flows_10000_share:-NA}"
echo "@@sum nic_bytes_per_flow_measured ${flows_mem:-NA}"
echo "@@sum flow_command_rates ${flows_rates:-NA}"
