# Issue 20 D: a first frame far ahead at install must not anchor the flow.
# The receiver installs TLS_RX (the NIC flow) before any record arrives
# (--seed-keys: it writes a ready byte only after TLS_RX, and the sender
# waits for it); the receiver's frames to the sender are delayed 10 s on the
# cable meanwhile, so the stream cannot start before the injector sends two
# segments with a plausible TLS header: 8 MiB ahead (beyond max_ahead,
# tcp_rmem[2] = 6 MiB, so beyond any window) and 1 GiB ahead. They are the
# first frames of the flow the NIC sees. An engine that anchored an
# unsynced flow at its first frame followed the stray position and marked
# nothing for the whole transfer; the flow must stay at the socket's
# stream position: both counted far, never followed, sync never lost, and
# the transfer NIC-decrypted. The injected ACK (1) is arbitrary: the
# NIC's ACK test (test 56) would drop them before the far check half of
# the time, so it is off here (tls_ack_check 0), and so is its window test
# (tls_window_check 0, test 48), which would drop both before the far check.
setup_pair
INJ=innova-inject
BYTES=${BYTES:-8388608}
[ "$(ip netns exec B sysctl -n net.ipv4.tcp_rmem | awk '{ print $3 }')" -lt 8388608 ] ||
	die "tcp_rmem[2] reaches 8 MiB: the 8 MiB frame would be in reach of the window"
set_knob "$PORT_B/tls_ack_check" 0
set_knob "$PORT_B/tls_window_check" 0
CABLE_B=$(/innova/tests/faults/cable.sh -n B innova1 delay=10000 2>&1) || die "cable.sh -n B: $CABLE_B"
snap far; snap far.A A innova0
tls_start $IP4_B "--rx-mode manual --seed-keys 7 --bytes $BYTES" "--seed-keys 7 --bytes $BYTES"
h=$(wait_flow) || die "no flow installed on innova1"
tuple=$(flow_field "$h" 2) exp=$(flow_field "$h" 6) st=$(flow_field "$h" 5)
sport=${tuple##*:}
log "flow $h installed: $tuple, $st, expected_seq $exp"
[ "$(delta far rx_tls_decrypted_packets)" = 0 ] || die "records flowed before the injection (the cable delay did not hold the sender)"
for ahead in 8388608 1073741824; do
	out=$(ip netns exec A $INJ send --dev innova0 --src $tuple --dst $IP4_B:$TLS_PORT \
		--seq $(( (exp + ahead) % 4294967296 )) --ack 1 --flags PA --forged-header --pad 1448) ||
		die "innova-inject send failed: $out"
	log "injected $ahead ahead: $out"
done
sleep 0.3
far_now=$(delta far rx_tls_far_frames) dec_now=$(delta far rx_tls_decrypted_packets)
/innova/tests/faults/cable.sh -n B innova1 delay=0 > /dev/null || die "cable.sh -n B delay=0"
log "after the injection: far frames +$far_now, decrypted packets +$dec_now, flow: $(flows_b | head -1)"
[ "$dec_now" = 0 ] || die "records flowed before the far frames (the test needs them first)"
tls_wait
expect_intact "$BYTES"
expect_path device
[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die_unsafe "TlsDecryptError +$(jr .tls_stat.TlsDecryptError)"
nic=$(nic_share far) share=$(device_share far)
log "records $(jr .records), decrypted $(delta far rx_tls_records_decrypted), far frames +$(delta far rx_tls_far_frames), far re-anchors +$(delta far rx_tls_far_reanchor), sync lost +$(delta far rx_tls_sync_lost), unanchored +$(delta far rx_tls_unanchored); device share $share/10000, NIC share $nic/10000"
expect_delta far rx_tls_far_frames -eq 2 "the two far frames were not both recognised as far"
expect_delta far rx_tls_far_reanchor -eq 0 "two stray frames re-anchored the flow"
expect_delta far rx_tls_sync_lost -eq 0 "the far frames cost sync"
# Seeded flows start in sync with no backlog (test 53: every record
# NIC-decrypted, the first one at most verified in shadow at install); a
# flow anchored at a far frame decrypts none.
expect_clean_start far "after far frames at install"
[ "$share" -ge 9900 ] || die "device share $share/10000 after far frames at install"
echo 1 > "$PORT_B/tls_ack_check"
echo 1 > "$PORT_B/tls_window_check"
