# make coverage: offload coverage curves in one guest run (not part of make
# test). For each NIC configuration (resync mode, late-frame recovery) and
# each seeded cable fault level, one kTLS transfer with every byte verified;
# printed: share of TLS bytes the NIC decrypted, lost syncs, resyncs through
# the core, late-frame recoveries. Then flow-count scaling on a clean link.
# All numbers are shares and counts from this run; no speed is claimed.
. /innova/tests/guest/lib.sh
BYTES=${BYTES:-4M}
SEED=${SEED:-7}
log() { :; }
setup_pair
echo "Innova offload coverage: kernel $(uname -r), $BYTES per point, 16 KiB records, cable seed $SEED"
echo "cell: device-decrypted share of TLS bytes % (lost syncs / core resyncs / late-frame recoveries)"
echo

configs="driver_req:1 driver_req:0 driver_req_async:0 core_next_hint:0"
faults="clean:0:0 loss0.5:5000:0 loss1:10000:0 loss2:20000:0 loss5:50000:0 reorder1:0:10000 reorder5:0:50000 reorder10:0:100000"
bad=0
printf '%-12s' fault
for c in $configs; do
	m=${c%%:*}; r=${c#*:}
	printf ' %-26s' "$m$( [ "$r" = 1 ] && echo '+recovery')"
done
echo
for f in $faults; do
	name=${f%%:*} rest=${f#*:}
	drop=${rest%%:*} reorder=${rest#*:}
	printf '%-12s' "$name"
	for c in $configs; do
		echo "${c%%:*}" > "$PORT_B/tls_resync_mode"
		echo "${c#*:}" > "$PORT_B/tls_reorder_recovery"
		set_cable drop="$drop" reorder="$reorder" gap=3 seed="$SEED"
		snap pt
		tls_run $IP4_B "--rx-mode manual --bytes $BYTES" "--tx-mode ktls --bytes $BYTES --record-size 16384"
		if [ "$RRC" != 0 ] || [ "$(jr .ok)" != true ]; then
			cell="FAILED: $(jr .error)"; bad=$((bad + 1))
		else
			cell=$(awk -v s="$(device_share pt)" 'BEGIN { printf "%.1f", s / 100 }')
			cell="$cell ($(delta pt rx_tls_sync_lost)/$(delta pt rx_tls_resync_res_ok)/$(delta pt rx_tls_reorder_recovered))"
		fi
		printf ' %-26s' "$cell"
	done
	echo
done
set_cable drop=0 reorder=0
echo driver_req > "$PORT_B/tls_resync_mode"; echo 1 > "$PORT_B/tls_reorder_recovery"

echo
echo "flow scaling (clean link, default NIC, 1 MiB per flow):"
printf '%-6s %-10s %-10s %s\n' flows device% TlsRxDev "all verified"
for n in 1 4 16 64; do
	snap fl
	tls_run $IP4_B "--rx-mode manual --flows $n --bytes 1M" "--tx-mode ktls --flows $n --bytes 1M"
	ok=$(jr .ok); [ "$RRC" = 0 ] && [ "$ok" = true ] || { ok=false; bad=$((bad + 1)); }
	printf '%-6s %-10s %-10s %s\n' $n "$(awk -v s="$(device_share fl)" 'BEGIN { printf "%.1f", s / 100 }')" \
		"$(jr .tls_stat.TlsRxDevice)" "$ok"
done
echo
[ $bad = 0 ] && echo "RESULT: every byte arrived intact at every point." ||
	{ echo "RESULT: $bad point(s) failed."; exit 1; }
