# Teardown under traffic, 20 rounds: sender killed mid-record, receiving
# port set down, receiving port deleted, receiver's netns deleted. Never a
# splat (the runner scans dmesg), every flow is deleted again, and rmmod
# works at the end.
ROUNDS=${ROUNDS:-20}
# no_flows_left: no port's engine holds a flow (their count in $n)
no_flows_left() { n=$(cat "$DBG"/port*/tls_flows 2>/dev/null | grep -vc "^#"); [ "$n" = 0 ]; }
load_module
r=0
while [ $r -lt $ROUNDS ]; do
	r=$((r + 1))
	setup_pair
	tls_start $IP4_B "--rx-mode manual --timeout 20" "--tx-mode ktls --bytes 64M --timeout 20"
	wait_flow > /dev/null || { log "recv: $(cat /tmp/recv.json /tmp/recv.err | head -c 600)"; log "send: $(head -c 600 /tmp/send.err)"; ip netns exec B cat /proc/net/tls_stat | tr "\n" " "; die "round $r: no flow installed"; }
	sleep 0.$((r % 5 + 3))
	case $((r % 4)) in
	0) what="sender killed mid-record"; kill -9 $TLS_SPID ;;
	1) what="receiving port down"; ip -n B link set innova1 down ;;
	2) what="receiving port deleted"; ip -n B link del innova1 ;;
	3) what="receiver netns deleted"; ip netns del B ;;
	esac
	sleep 0.5
	kill -9 $TLS_SPID $TLS_RPID 2>/dev/null
	wait $TLS_SPID $TLS_RPID 2>/dev/null
	fault_alloc off	# on since tls_start in an allocation-failure run
	# while the port still exists (the first two cases): its flows are gone
	if [ $((r % 4)) -lt 2 ]; then
		wait_until 5 no_flows_b || die "round $r ($what): flows left on the live port"
	fi
	teardown_pair
	wait_until 2 no_flows_left || die "round $r ($what): $n flows left installed"
	passed "round $r: $what; flows back to 0"
done
unload_module || die "rmmod innova after teardown rounds"
