# make demo: the main job. Two netns joined by the Innova cable; OpenSSL
# TLS 1.2 handshakes, the receiver hands its keys to kTLS (TLS_RX) and the
# emulated NIC decrypts the records inline. Runs a clean transfer, a
# faulted one (seeded cable loss + reorder) and, for comparison in the same
# guest, the same clean transfer with the offload switched off.
. /innova/tests/guest/lib.sh
BYTES=${BYTES:-16M}
die() { echo "demo: $*"; exit 1; }
log() { :; }
setup_pair
echo "Innova demo: kernel $(uname -r), innova0 (netns A, sender) <-> cable <-> innova1 (netns B, receiver)"
echo "innova-tls: TLS 1.2 ECDHE-ECDSA-AES128-GCM-SHA256, receiver sets TLS_RX itself, $BYTES per run, every byte verified"
echo

rows=""
intact=yes
run() {
	name=$1; shift
	echo "$name" | grep -q faulted && set_cable seed=2026 drop=10000 reorder=20000
	snap "$name"
	start=$(date +%s.%N)
	busy0=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat)
	tls_run $IP4_B "--rx-mode manual --bytes $BYTES" "--tx-mode ktls --bytes $BYTES"
	busy=$(( $(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat) - busy0 ))
	el=$(echo "$(date +%s.%N) $start" | awk '{ printf "%.1f", $1 - $2 }')
	set_cable drop=0 reorder=0
	ok=$(jr .ok)
	[ "$ok" = true ] && [ "$RRC" = 0 ] || intact=no
	recs=$(jr .records)
	dev=$(delta "$name" rx_tls_records_decrypted)
	path=software; [ "$(jr .tls_stat.TlsRxDevice)" = 1 ] && path=device
	share=$(awk -v d="$dev" -v r="$recs" 'BEGIN { printf "%.1f%%", r ? 100 * d / r : 0 }')
	cpu=$(echo $busy | awk '{ printf "%.2f", $1 / 100 }')
	bshare=$(awk -v s="$(device_share "$name")" 'BEGIN { printf "%.1f%%", s / 100 }')
	rows="$rows$(printf '%-16s %-8s %9s %7s %13s %8s/%-8s %5s %8s %7ss %6s %s' "$name" "$path" "$(jr .bytes)" "$recs" "$share/$bshare" \
		"$(delta "$name" rx_tls_resync_req_start)" "$(delta "$name" rx_tls_resync_res_ok)" \
		"$(delta "$name" rx_tls_auth_fail)" "$((recs - dev))" "$el" "$cpu" "$ok")
"
	eval "cpu_$(echo "$name" | tr -c 'a-z0-9\n' '_')=$cpu"
}
run offload-clean
run offload-faulted
ip netns exec B ethtool -K innova1 tls-hw-rx-offload off
run software-clean
ip netns exec B ethtool -K innova1 tls-hw-rx-offload on

printf '%-16s %-8s %9s %7s %13s %17s %5s %8s %8s %6s %s\n' run path bytes records "dev-dec rec/bytes" "resync req/conf" auth "sw-recs" elapsed "cpu-s" intact
printf '%s' "$rows"
echo
echo "dev-dec: share of records / TLS bytes decrypted by the NIC (a record counts when the NIC decrypted"
echo "its last frame); sw-recs: records software kTLS decrypted in full (touched by a loss, passed while out"
echo "of sync); the shadow-verified record after each (re)sync goes up mostly encrypted; cpu-s: busy"
echo "CPU seconds of the whole guest (NIC emulation included). Faulted: cable drop 1 %, reorder 2 %, seed 2026."
awk -v a="$cpu_offload_clean" -v b="$cpu_software_clean" 'BEGIN {
	if (a > 0) printf "whole-guest CPU, clean runs, same guest: software kTLS / emulated offload = %.2fx\n", b / a }'
echo "(the emulated NIC's own AES-GCM runs on the same guest CPUs under TCG: a ratio, not absolute"
echo " speed, and not an estimate of what real offload hardware saves)"
echo "/proc/net/tls_stat (netns B):"
ip netns exec B grep -E 'TlsRxDevice|TlsRxSw|TlsDecryptError|TlsRxDeviceResync' /proc/net/tls_stat | awk '{ printf "  %s %s\n", $1, $2 }'
if [ $intact = yes ]; then
	echo "RESULT: every byte arrived intact in every run."
else
	echo "RESULT: FAILURE - a run did not deliver every byte intact (see above)."
	exit 1
fi
