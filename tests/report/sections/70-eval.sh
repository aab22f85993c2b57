# The evaluation of offload under loss and reorder traffic models
# (docs/evaluation.md): every point is REPORT_EVAL_SEEDS cable seeds
# (default 5), each one verified kTLS transfer, so the report can draw the
# median and interquartile range and the summary can say up to which rate
# the share holds. Traffic models, all on the cable, all seeded:
#   bern     independent loss (drop=PPM)
#   geB      bursty loss, Gilbert-Elliott, mean burst B frames (burst=PPM
#            burstlen=B): the same mean loss rate, fewer and longer events
#   reoG     reorder: a frame held with probability PPM and released after
#            G frames (reorder=PPM gap=G)
# REPORT_EVAL=full runs the whole grid (all models, rates 0.1-10 %, every
# resync mode, late-frame recovery on and off, 1 KiB and 16 KiB records,
# TLS 1.3 where the kernel offloads it); the default grid is sized for
# about 15 minutes of guest time on two cores. Any grid axis can be set:
# REPORT_EVAL_MODELS, _RATES, _MODES, _RECOVERY, _RSIZES, _TLS, _SEEDS,
# _BYTES.
# Writes eval.csv: model,param,rate,mode,recovery,rsize,tls,seed,
#   device_share,nic_share,records,decrypted,events,sync_lost,resync_req,
#   followed,cpu_ns_per_byte,ok
# (shares per 10000; events: frames dropped, bursts, or frames reordered,
# as the sender's cable counted them; cpu: the receiver's user + system
# time per byte, in ns, comparable only within this run).
if [ "${REPORT_EVAL:-}" = full ]; then
	d_models="bern ge4 ge16 reo1 reo3 reo10" d_rates="0.1 0.5 1 2 5 10"
	d_modes="driver_req core_next_hint driver_req_async" d_recovery="1 0"
	d_rsizes="16384 1024" d_tls="1.2 1.3" d_seeds=5 d_bytes=4M
else
	d_models="bern ge8 reo3" d_rates="0.5 2 5"
	d_modes="driver_req" d_recovery="1" d_rsizes="16384" d_tls="1.2"
	d_seeds=5 d_bytes=2M
fi
MODELS=${REPORT_EVAL_MODELS:-$d_models}
RATES=${REPORT_EVAL_RATES:-$d_rates}
MODES=${REPORT_EVAL_MODES:-$d_modes}
RECOVERY=${REPORT_EVAL_RECOVERY:-$d_recovery}
RSIZES=${REPORT_EVAL_RSIZES:-$d_rsizes}
TLSV=${REPORT_EVAL_TLS:-$d_tls}
SEEDS=${REPORT_EVAL_SEEDS:-$d_seeds}
BYTES=${REPORT_EVAL_BYTES:-$d_bytes}
case $BYTES in
*M) BYTES=$(( ${BYTES%M} * 1048576 )) ;;
*K) BYTES=$(( ${BYTES%K} * 1024 )) ;;
esac
[ "$SEEDS" -ge 1 ] 2>/dev/null || die "REPORT_EVAL_SEEDS=$SEEDS"
grep -qw tls13_rx /sys/kernel/debug/innova/caps || TLSV=$(echo $TLSV | tr ' ' '\n' | grep -vx 1.3 | tr '\n' ' ')
setup_pair
sum eval_grid "${REPORT_EVAL:-default}: models $MODELS; rates $RATES %; modes $MODES; recovery $RECOVERY; records $RSIZES B; TLS $TLSV; $SEEDS seeds a point; $BYTES bytes a transfer"
csv eval.csv model param rate mode recovery rsize tls seed device_share nic_share records decrypted events sync_lost resync_req followed cpu_ns_per_byte ok
bad=0 npts=0 t_start=$(date +%s)
# cable MODEL RATE SEED: the sender's cable set for one point
cable() {
	_ppm=$(awk -v p="$2" 'BEGIN { printf "%d", p * 10000 }')
	case $1 in
	clean) set_cable drop=0 burst=0 reorder=0 seed=$3 ;;
	bern) set_cable drop=$_ppm burst=0 reorder=0 seed=$3 ;;
	ge*) set_cable drop=0 burst=$_ppm burstlen=${1#ge} reorder=0 seed=$3 ;;
	reo*) set_cable drop=0 burst=0 reorder=$_ppm gap=${1#reo} seed=$3 ;;
	*) die "unknown traffic model $1" ;;
	esac
}
# point MODEL RATE MODE RECOVERY RSIZE TLS SEED: one transfer, one row
point() {
	cable "$1" "$2" "$7"
	snap ev; snap ev.A A innova0
	_v=; [ "$6" = 1.3 ] && _v=--tls13
	# TCP's backoff after a burst can stall a TCG transfer for minutes
	tls_run $IP4_B "--rx-mode manual --bytes $BYTES --timeout 600 $_v" "--tx-mode ktls --bytes $BYTES --record-size $5 --timeout 600 $_v"
	if ( expect_intact $BYTES ) && [ "$(jr .tls_stat.TlsRxDevice)" = 1 ]; then
		_ok=1 _dev=$(device_share ev) _nic=$(nic_share ev)
	else
		_ok=0 _dev=0 _nic=0 bad=$((bad + 1))
	fi
	case $1 in
	bern) _ev=$(delta ev.A tx_cable_dropped) ;;
	ge*) _ev=$(delta ev.A tx_cable_loss_bursts) ;;
	reo*) _ev=$(delta ev.A tx_cable_reordered) ;;
	*) _ev=0 ;;
	esac
	_cpu=$(awk -v u="$(jr .cpu_user)" -v s="$(jr .cpu_sys)" -v b="$(jr .bytes)" \
		'BEGIN { if (b > 0) printf "%.1f", (u + s) * 1e9 / b; else print 0 }')
	_par=0
	case $1 in ge*) _par=${1#ge} ;; reo*) _par=${1#reo} ;; esac
	csv eval.csv "${1%%[0-9]*}" $_par $2 $3 $4 $5 $6 $7 $_dev $_nic "$(jr .records)" \
		"$(delta ev rx_tls_records_decrypted)" $_ev "$(delta ev rx_tls_sync_lost)" \
		"$(delta ev rx_tls_resync_req_start)" "$(delta ev rx_tls_records_followed)" $_cpu $_ok
	npts=$((npts + 1))
	log "eval: $1 $2 % $3 recovery=$4 ${5}B TLS $6 seed $7: device $(per10k $_dev) %, NIC $(per10k $_nic) %, events $_ev, sync lost $(delta ev rx_tls_sync_lost), ok=$_ok ($npts points, $(( $(date +%s) - t_start ))s)"
}
for tv in $TLSV; do
	for rs in $RSIZES; do
		for rec in $RECOVERY; do
			echo "$rec" > "$PORT_B/tls_reorder_recovery" || die "tls_reorder_recovery $rec"
			for mode in $MODES; do
				echo $mode > "$PORT_B/tls_resync_mode" || die "resync mode $mode"
				s=1
				while [ $s -le "$SEEDS" ]; do
					point clean 0 $mode $rec $rs $tv $((4000 + s))
					s=$((s + 1))
				done
				for m in $MODELS; do
					for r in $RATES; do
						s=1
						while [ $s -le "$SEEDS" ]; do
							point $m $r $mode $rec $rs $tv $((4000 + s))
							s=$((s + 1))
						done
					done
				done
			done
		done
	done
done
set_cable drop=0 burst=0 reorder=0
sum eval_points "$npts transfers in $(( $(date +%s) - t_start )) s, $bad without an intact transfer on the device path"
[ $bad = 0 ] || die "$bad point(s) without an intact transfer on the device path"
