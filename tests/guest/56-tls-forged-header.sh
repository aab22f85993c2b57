# Issue 20 A: a forged TLS header at the flow's next record boundary, in a
# segment TCP drops, must not steer the NIC. The NIC parses every frame
# before TCP decides; this 13-byte segment (17 03 03 40 18 + an 8-byte
# nonce) carries an ACK of data the receiver never sent (RFC 5961: TCP
# discards it, traced as TCP_ACK_UNSENT_DATA), so the application must see
# exactly what it would see without the NIC: every byte, no error.
# Before the engine kept each record's consumed header and compared the
# genuine copy, it followed the fake 16 KiB record and marked the genuine
# frames after it as decrypted with the wrong keystream: the application
# read the first records, then recv() failed with EMSGSIZE (issue 20: 3 of
# 3 runs on 6.1 and on 6.12).
#
# The NIC drops such a frame before its framing: it carries the host's
# transmissions, so it knows the host's snd_nxt and applies TCP's own ACK
# test (rx_tls_bad_ack). The same injection with that test switched off
# (debugfs tls_ack_check 0) exercises the checks behind it: the genuine
# copy of the prefix differs, the framing is dropped and resynced.
#
# How the boundary is found: the sender holds its stream before a record
# (innova-tls send --pause-at), so once TCP drains, the stream ends at a
# record boundary whatever the segmentation (a window-limited segment
# shifts every later cut off the record grid, which a plug-and-peek at a
# random point could not rule out: CI once saw no whole record at the top
# in 8 tries). innova-inject peek watches the flow until the sender says it
# paused and 5 s pass with no data: its last data segment gives the top,
# ACK and timestamps; debugfs tls_flows must show the engine in sync there
# with a record starting at it (record_seq == expected_seq). Else the next
# pause point is tried. With offload off the same injection is the
# positive control: TCP drops it and software kTLS never sees it.
setup_pair
INJ=innova-inject
# MSS = MTU - 20 (IPv4) - 20 (TCP) - 12 (timestamps); a record's wire size
# is its payload + 29 (5 header, 8 nonce, 16 tag): one record per segment
# while the window allows, so the NIC share counts whole records
MSS=$(( $(ip netns exec A cat /sys/class/net/innova0/mtu) - 52 ))
REC=$((MSS - 29))
# enough records for the NIC share to mean something, and six pause points
BYTES=${BYTES:-16777216}
PAUSES=2M,4M,6M,8M,10M,12M
paused() { [ "$(grep -c 'paused at' /tmp/send.err)" -ge "$1" ]; }

# peek_top N: watch the flow's data segments until the sender paused for
# the N-th time and the stream stayed idle 5 s; /tmp/peek.out then holds
# the last segment seen (the top). Dies if that never happens in 120 s.
peek_top() {
	_pt_end=$(( $(date +%s) + 120 )) _pt_have=
	while [ "$(date +%s)" -lt $_pt_end ]; do
		ip netns exec A $INJ peek --dev innova0 --src $IP4_A --dst $IP4_B:$TLS_PORT --data --idle 1500 --timeout 5 > /tmp/peek.new
		_pt_rc=$?
		case $_pt_rc in
		0) mv /tmp/peek.new /tmp/peek.out; _pt_have=1 ;;
		3) [ -n "$_pt_have" ] && paused "$1" && return 0 ;;
		*) die "innova-inject peek failed ($_pt_rc): $(cat /tmp/peek.new)" ;;
		esac
		kill -0 $TLS_SPID 2>/dev/null || die "the sender exited before its pause $1: $(cat /tmp/send.json)"
	done
	die "pause $1: the sender did not pause and drain within 120 s (pauses seen: $(grep -c 'paused at' /tmp/send.err))"
}

# forge NAME on|off [ACK_CHECK]: one transfer with the forged segment mid-stream
forge() {
	name=$1 offload=$2
	set_knob "$PORT_B/tls_ack_check" "${3:-1}"
	ip netns exec B ethtool -K innova1 tls-hw-rx-offload "$offload" || die "ethtool -K tls-hw-rx-offload $offload"
	snap "$name"
	tls_start $IP4_B "--rx-mode manual --bytes $BYTES --timeout 600" \
		"--tx-mode ktls --bytes $BYTES --record-size $REC --pause-at $PAUSES --timeout 600"
	try=0 found=
	while [ $try -lt 6 ]; do
		try=$((try + 1))
		peek_top $try
		eval "$(cat /tmp/peek.out)"
		log "$name: try $try: $(grep 'paused at' /tmp/send.err | tail -1); last segment $seq+$len, top $max_end"
		# offload off is TCP's control: the segment at the top will do
		if [ "$offload" = off ]; then
			[ "$((seq + len))" = "$max_end" ] && { found=1; break; }
		else
			h=$(flows_b | awk 'NR == 1 { print $1 }')
			st=$(flow_field "$h" 5) exp=$(flow_field "$h" 6) recs=$(flow_field "$h" 7)
			log "$name: try $try: engine $st expected_seq $exp record_seq $recs"
			[ "$st" = sync ] && [ "$exp" = "$max_end" ] && [ "$recs" = "$exp" ] && { found=1; break; }
		fi
		kill -USR1 $TLS_SPID || die "$name: resume the sender"
	done
	[ -n "$found" ] || die "$name: no record boundary with the stream held in $try pauses"
	# an ACK 2^30 beyond what the sender acknowledged: data the receiver
	# never sent; the sender's last timestamps keep PAWS out of it
	fack=$(( (ack + 1073741824) % 4294967296 ))
	ts=; [ "$tsval" != 0 ] && ts="--ts $tsval:$tsecr"
	trace_on skb/kfree_skb
	# shellcheck disable=SC2086
	out=$(ip netns exec A $INJ send --dev innova0 --src $IP4_A:$sport --dst $IP4_B:$TLS_PORT \
		--seq "$max_end" --ack $fack --flags PA $ts --forged-header 5a5a5a5a5a5a5a5a) ||
		die "$name: innova-inject send failed: $out"
	sleep 0.5
	trace_off
	dropped=$(grep -c 'reason: TCP_ACK_UNSENT_DATA' /tmp/trace)
	log "$name: injected at $max_end ($out), ack $fack; TCP dropped $dropped segment(s) for their ACK"
	[ "$offload" = on ] && log "$name: engine after the injection: $(flows_b | head -1)"
	[ "$dropped" -ge 1 ] || die "$name: TCP did not drop the forged segment for its ACK (the test needs a segment TCP rejects)"
	# resume, and no more pauses
	kill -USR2 $TLS_SPID || die "$name: resume the sender"
	tls_wait
	# what software kTLS would give: every byte, verified, no error
	[ "$(jr .error_errno)" = null ] || [ "$(jr .error_errno)" = "" ] ||
		die_unsafe "$name: the application saw $(jr .error_errno) after $(jr .bytes) bytes ($(jr .records) records): $(jr .error)"
	expect_intact "$BYTES"
	[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die_unsafe "$name: TlsDecryptError +$(jr .tls_stat.TlsDecryptError)"
}

forge off off
expect_path software
expect_delta off rx_tls_decrypted_packets -eq 0 "offload off: the NIC decrypted"
log "offload off: intact, $(jr .records) records, no error"

# offload_stats NAME: the engine's side of one transfer, and the share floor
offload_stats() {
	nic=$(nic_share "$1") share=$(device_share "$1")
	log "$1: records $(jr .records), decrypted $(delta "$1" rx_tls_records_decrypted), followed $(delta "$1" rx_tls_records_followed), unauth $(delta "$1" rx_tls_records_unauth); bad_ack +$(delta "$1" rx_tls_bad_ack) hdr_conflict +$(delta "$1" rx_tls_hdr_conflict) copy_mismatch +$(delta "$1" rx_tls_copy_mismatch) overlap +$(delta "$1" rx_tls_overlap_frames) old +$(delta "$1" rx_tls_old_frames) sync lost +$(delta "$1" rx_tls_sync_lost) resync ok +$(delta "$1" rx_tls_resync_res_ok) auth_fail +$(delta "$1" rx_tls_auth_fail); device share $share/10000, NIC share $nic/10000"
	expect_delta "$1" rx_tls_auth_fail -eq 0 "$1: the NIC saw records fail their tag"
}

forge on on
expect_path device
offload_stats on
# TCP's ACK test in the NIC: the forged frame never reached the framing
expect_delta on rx_tls_bad_ack -eq 1 "the NIC did not drop the forged segment for its ACK"
expect_delta on rx_tls_hdr_conflict -eq 0 "the forged prefix reached the framing"
expect_delta on rx_tls_sync_lost -le 1 "the flow lost sync (beyond the install) although the forgery was dropped"
# every record but the one verified in shadow at install, as test 58
[ "$nic" -ge 9900 ] || die "the forged header cost records although the NIC dropped it: NIC share $nic/10000"

forge nocheck on 0
expect_path device
offload_stats nocheck
expect_delta nocheck rx_tls_bad_ack -eq 0 "tls_ack_check 0 still dropped frames for their ACK"
# the genuine copy of the forged prefix arrived and differed: detected
expect_delta nocheck rx_tls_hdr_conflict -ge 1 "the genuine copy of the forged header was not detected"
# One forgery costs the record it hit and the way back to sync (a resync
# through the core: a couple of records of ~2200); the floor is the one of
# test 48's single mid-transfer faults, on the records the NIC could act on.
[ "$nic" -ge 9500 ] || die "offload did not recover after the forged header: NIC share $nic/10000"
set_knob "$PORT_B/tls_ack_check" 1
