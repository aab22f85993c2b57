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
#   ngeB     the same bursty loss from tc netem's "loss gemodel" on the
#            sender's port, for comparison (netem is not seeded on these
#            kernels: its seed option came later)
#   tail     loss placed at record ends (tail=PPM): the frames that end a
#            record, as many as the rate's share of all frames would be
#            (record-end probability = rate x frames per record, at most 1)
#   dup      duplication: each frame sent twice with probability PPM (dup=PPM)
#   stall    the rate's share of the data frames stops the direction for
#            1 s, past the sender's RTO: TCP sends its window again, so
#            the receiver gets it twice (stall=PPM stallms=1000); no loss
# REPORT_EVAL=full runs the whole grid (all models, rates 0.1-10 %, every
# resync mode, late-frame recovery on and off, 1 KiB and 16 KiB records,
# TLS 1.3 where the kernel offloads it); the default grid takes about
# 20 minutes of guest time on two cores (netem's 5 % points 7 of them:
# its bursts hold a sender in RTO backoff). Any grid axis can be set:
# REPORT_EVAL_MODELS, _RATES, _MODES, _RECOVERY, _RSIZES, _TLS, _SEEDS,
# _BYTES.
# Writes eval.csv: model,param,rate,mode,recovery,rsize,tls,seed,
#   device_share,nic_share,records,decrypted,events,sync_lost,resync_req,
#   followed,cpu_ns_per_byte,ok
# (shares per 10000; events: frames dropped, bursts (cable), packets
# dropped (netem), record ends lost, stalls, or frames reordered,
# as the sender's cable counted them; cpu: the receiver's user + system
# time per byte, in ns, comparable only within this run).
if [ "${REPORT_EVAL:-}" = full ]; then
	d_models="bern ge4 ge16 ge32 nge4 nge16 tail reo1 reo3 reo10 dup stall" d_rates="0.1 0.5 1 2 5 10"
	d_modes="driver_req core_next_hint driver_req_async" d_recovery="1 0"
	d_rsizes="16384 1024" d_tls="1.2 1.3" d_seeds=5 d_bytes=4M
else
	d_models="bern ge8 nge8 tail reo3" d_rates="0.5 2 5"
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
# netem acts on what its qdisc is given: one frame per skb, as the cable
# sees them, for every model alike (tests/guest/51-netem.sh)
ip netns exec A ip link set dev innova0 gso_max_segs 1 || die "gso_max_segs 1 on innova0"
sum eval_grid "${REPORT_EVAL:-default}: models $MODELS; rates $RATES %; modes $MODES; recovery $RECOVERY; records $RSIZES B; TLS $TLSV; $SEEDS seeds a point; $BYTES bytes a transfer"
csv eval.csv model param rate mode recovery rsize tls seed device_share nic_share records decrypted events sync_lost resync_req followed cpu_ns_per_byte ok
bad=0 stalled=0 npts=0 t_start=$(date +%s)
# cable MODEL RATE SEED: the sender's cable set for one point
cable() {
	_ppm=$(awk -v p="$2" 'BEGIN { printf "%d", p * 10000 }')
	set_cable drop=0 burst=0 reorder=0 tail=0 stall=0 dup=0 seed=$3
	case $1 in
	clean) ;;
	bern) set_cable drop=$_ppm ;;
	ge*) set_cable burst=$_ppm burstlen=${1#ge} ;;
	nge*) _nm=$(/innova/tests/faults/netem.sh A innova0 "gemodel:$2:${1#nge}") || die "netem: $_nm" ;;
	tail) set_cable tail=$(awk -v p="$2" -v rs="$4" -v t="$5" 'BEGIN {
		f = (rs + (t == "1.3" ? 22 : 29)) / 1448; v = p * 10000 * f
		printf "%d", (v > 1000000 ? 1000000 : v) }') ;;
	stall) set_cable stall=$_ppm stallms=1000 ;;
	dup) set_cable dup=$_ppm ;;
	reo*) set_cable reorder=$_ppm gap=${1#reo} ;;
	*) die "unknown traffic model $1" ;;
	esac
}
# netem's drop count on the sender's port
qdisc_dropped() {
	ip netns exec A tc -s qdisc show dev innova0 | awk '/dropped/ { sub(/,/, "", $7); print $7; exit }'
}
# point MODEL RATE MODE RECOVERY RSIZE TLS SEED: one transfer, one row
point() {
	cable "$1" "$2" "$7" "$5" "$6"
	snap ev; snap ev.A A innova0
	_v=; [ "$6" = 1.3 ] && _v=--tls13
	# TCP's backoff after a burst can stall a TCG transfer for minutes;
	# netem's, whose bursts outlast a silent link, is given 3 (a stalled
	# point, below)
	_to=600
	case $1 in nge*) _to=180 ;; esac
	tls_run $IP4_B "--rx-mode manual --bytes $BYTES --timeout $_to $_v" "--tx-mode ktls --bytes $BYTES --record-size $5 --timeout $_to $_v"
	case $1 in
	nge*) _qd=$(qdisc_dropped); /innova/tests/faults/netem.sh A innova0 clear > /dev/null || die "netem clear" ;;
	esac
	if ( expect_intact $BYTES ) && [ "$(jr .tls_stat.TlsRxDevice)" = 1 ]; then
		_ok=1 _dev=$(device_share ev) _nic=$(nic_share ev)
	else
		_ok=0 _dev=0 _nic=0
		# netem's chain is clocked by packets: a sender in RTO backoff
		# can meet one burst for minutes (docs/evaluation.md). A
		# transfer that ran out of time with no wrong byte is a stalled
		# point, not a failure; anything else is.
		case $1 in
		nge*) if [ "$(jr .bad_offset)" = null ] && [ "$(jr .tls_stat.TlsDecryptError)" = 0 ]; then
			stalled=$((stalled + 1))
		else
			bad=$((bad + 1))
		fi ;;
		*) bad=$((bad + 1)) ;;
		esac
	fi
	case $1 in
	bern) _ev=$(delta ev.A tx_cable_dropped) ;;
	ge*) _ev=$(delta ev.A tx_cable_loss_bursts) ;;
	nge*) _ev=${_qd:-0} ;;
	tail) _ev=$(delta ev.A tx_cable_tail_lost) ;;
	stall) _ev=$(delta ev.A tx_cable_stalls) ;;
	dup) _ev=$(delta ev.A tx_cable_duplicated) ;;
	reo*) _ev=$(delta ev.A tx_cable_reordered) ;;
	*) _ev=0 ;;
	esac
	_cpu=$(awk -v u="$(jr .cpu_user)" -v s="$(jr .cpu_sys)" -v b="$(jr .bytes)" \
		'BEGIN { if (b > 0) printf "%.1f", (u + s) * 1e9 / b; else print 0 }')
	_par=0
	case $1 in ge*) _par=${1#ge} ;; nge*) _par=${1#nge} ;; reo*) _par=${1#reo} ;; esac
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
set_cable drop=0 burst=0 reorder=0 tail=0 stall=0 dup=0
ip netns exec A ip link set dev innova0 gso_max_segs 65535
sum eval_points "$npts transfers in $(( $(date +%s) - t_start )) s, $bad without an intact transfer on the device path, $stalled netem transfers out of time (no wrong byte)"
[ $bad = 0 ] || die "$bad point(s) without an intact transfer on the device path"
