# The NIC never marks what it did not decrypt, and nothing a stray frame
# does turns offload off. Each fault is injected mid-transfer and must
# show in its own counter (a fault that did nothing fails the test):
#  (a) crypto backend errors (debugfs tls_crypto_fail_next): the frames
#      they hit are not marked (rx_tls_err, rx_tls_crypto_err), the flow
#      resyncs and the stream stays byte-exact with no software auth error;
#  (b) a copy of a segment 1 GiB ahead (beyond any receive window, TCP
#      drops it): ignored (rx_tls_far_frames), sync never lost;
#  (c) a copy 4 MiB ahead (inside max_ahead, beyond the window the
#      receiver advertised): the NIC's window test drops it before the
#      framing (rx_tls_out_of_window), nothing else moves; with that test
#      off, the old data that keeps coming takes the position back
#      (rx_tls_rearmed) and offload resumes within a few records;
#  (d) duplicates addressed to another host, or VLAN-tagged, sent before
#      the real frame: the NIC leaves them alone (the real frame is never
#      "old"), so the device share stays as on a clean link;
#  (e) forged copies TCP drops (cable forge_ppm), 2 % of data frames: with
#      the ACK test on none reaches the framing (sync never lost); with it
#      off they do, and cost offload, never a byte.
setup_pair
BYTES=${BYTES:-16M}
# mid_transfer NAME CMD...: start a transfer, once the NIC has decrypted
# 2 MB run CMD (the fault), finish. Snapshots NAME (innova1), NAME.A
# (innova0) before the transfer and NAME.fault (innova1) just before CMD:
# what the fault did is counted from NAME.fault. Before it, a flow may
# already have lost and regained sync once at its start: frames that reach
# the socket while setsockopt(TLS_RX) holds it (the backlog) have passed
# the NIC before the flow existed, so the first frame the engine sees lies
# beyond the start the kernel gave it. Under a loaded TCG guest that window
# is long enough to be hit (a CI run's far case: a gap on the flow's first
# frame, not at the fault).
mid_transfer() {
	name=$1; shift
	snap "$name"; snap "$name.A" A innova0
	tls_start $IP4_B "--rx-mode manual --bytes $BYTES" "--tx-mode ktls --bytes $BYTES"
	wait_decrypted "$name" 2000000
	snap "$name.fault"
	"$@"
	tls_wait
	expect_intact $(jr .bytes)
	expect_path device
	[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die "$name: TlsDecryptError"
	share=$(device_share "$name")
}

# fail_crypto N: the engine's next N whole-block CTR calls fail
fail_crypto() { echo "$1" > "$PORT_B/tls_crypto_fail_next" || die "cannot write tls_crypto_fail_next"; }
mid_transfer crypto fail_crypto 3
nic=$(nic_share crypto) lost=$(delta crypto rx_tls_sync_lost)
log "crypto errors: rx_tls_err +$(delta crypto rx_tls_err) rx_tls_crypto_err +$(delta crypto rx_tls_crypto_err) sync lost +$lost resync applied +$(delta crypto rx_tls_resync_res_ok), followed awaiting the kernel +$(delta crypto rx_tls_records_followed); device share $share/10000, NIC share $nic/10000"
[ "$(cat "$PORT_B/tls_crypto_fail_next")" = 0 ] || die "injected failures not all consumed"
expect_delta crypto rx_tls_crypto_err -eq 3 "engine did not count the 3 injected crypto errors"
expect_delta crypto rx_tls_err -eq 3 "rx_tls_err did not count the 3 injected crypto errors"
expect_delta crypto.fault rx_tls_sync_lost -ge 1 "a crypto error did not stop decryption"
# Every lost sync came back through the core, and once back the NIC
# decrypted what it could act on. How many records pass while the NIC
# waits for the core's confirmation is the application's read pace (a
# loaded run followed 256 of 1024 records for 3 resyncs: device share
# 7471, under its old floor of 8000, NIC share 9973), so the floor is on
# the NIC share, as for the 4 MiB-ahead case below.
expect_delta crypto rx_tls_resync_res_ok -ge "$lost" "a lost sync never came back"
[ "$nic" -ge 9500 ] || die "offload did not recover after crypto errors: NIC share $nic/10000"

# The cable's ahead copies acknowledge data the receiver never sent, so the
# NIC's ACK test (test 56) would drop them before the far and rearm logic
# these cases are about: it is off for them.
set_knob "$PORT_B/tls_ack_check" 0
# TCP's window test in the NIC (rcv_wup + rcv_wnd at install, then every
# window the receiver transmits): 4 MiB is beyond any window it advertised
# (tcp_rmem[2] 6 MiB, at most half of it a window), so the copy never
# reaches the framing: no far frame, no jump, no rearm, no lost sync.
mid_transfer window set_cable ahead=4194304
nic=$(nic_share window)
log "4 MiB ahead, window test on: injected $(delta window.A tx_cable_injected), out of window +$(delta window.fault rx_tls_out_of_window), far +$(delta window.fault rx_tls_far_frames), rearmed +$(delta window rx_tls_rearmed), sync lost +$(delta window.fault rx_tls_sync_lost) from the fault on; device share $share/10000, NIC share $nic/10000"
expect_delta window.A tx_cable_injected -eq 1 "the cable injected nothing"
expect_delta window.fault rx_tls_out_of_window -eq 1 "the window test did not drop the copy 4 MiB ahead"
expect_delta window rx_tls_rearmed -eq 0 "a frame beyond the window moved the stream position"
expect_delta window.fault rx_tls_sync_lost -eq 0 "a frame beyond the window cost sync"
[ "$nic" -ge 9900 ] || die "NIC share $nic/10000 after a frame beyond the window"
# the far check and the rearm are what stands behind the window test when
# the receiver's transmissions do not pass the NIC: switch it off for them
set_knob "$PORT_B/tls_window_check" 0
mid_transfer far set_cable ahead=1073741824
log "1 GiB ahead: injected $(delta far.A tx_cable_injected), far frames +$(delta far rx_tls_far_frames), sync lost +$(delta far.fault rx_tls_sync_lost) from the fault on (+$(delta far rx_tls_sync_lost) in the transfer); device share $share/10000"
expect_delta far.A tx_cable_injected -eq 1 "the cable injected nothing"
expect_delta far.fault rx_tls_far_frames -eq 1 "far segment not recognised"
expect_delta far.fault rx_tls_sync_lost -eq 0 "far segment cost sync"
[ "$share" -ge 9500 ] || die "device share $share/10000 after a far segment"

mid_transfer ahead set_cable ahead=4194304
nic=$(nic_share ahead)
log "4 MiB ahead: injected $(delta ahead.A tx_cable_injected), rearmed +$(delta ahead rx_tls_rearmed), old frames +$(delta ahead rx_tls_old_frames), followed awaiting the kernel +$(delta ahead rx_tls_records_followed); device share $share/10000, NIC share $nic/10000"
expect_delta ahead.A tx_cable_injected -eq 1 "the cable injected nothing"
expect_delta ahead rx_tls_rearmed -eq 1 "stream position not taken back"
# Without the rearm, 4 MiB of the 16 MiB would pass the NIC untouched as
# "old" data (NIC share about 7500). After it, the records the NIC follows
# until the kernel confirms a header are the application's pace (device
# share 8960 in one CI run, under its old floor of 9000), so the floor is
# on the records the NIC could act on.
[ "$nic" -ge 9500 ] || die "NIC share $nic/10000 after a segment 4 MiB ahead"
set_knob "$PORT_B/tls_window_check" 1

for mangle in 1 2; do
	snap "m$mangle"; snap "m$mangle.A" A innova0
	set_cable dup=100000 mangle=$mangle
	tls_run $IP4_B "--rx-mode manual --bytes 8M" "--tx-mode ktls --bytes 8M"
	set_cable dup=0 mangle=0
	expect_intact 8388608
	expect_path device
	share=$(device_share "m$mangle")
	log "dup_mangle=$mangle: duplicated $(delta m$mangle.A tx_cable_duplicated), engine old frames +$(delta m$mangle rx_tls_old_frames), device share $share/10000"
	expect_delta m$mangle.A tx_cable_duplicated -gt 20 "the cable duplicated almost nothing"
	expect_delta m$mangle rx_tls_old_frames -lt 10 "mangled copies reached the engine"
	[ "$share" -ge 9500 ] || die "dup_mangle=$mangle: device share $share/10000"
done

# (e) forged copies at random (cable forge_ppm: 2 % of data frames get one,
# sent before the real frame), each of a kind TCP drops whatever its
# payload: an ACK of data the receiver never sent, no ACK flag, 16 MiB
# old, 2^30 ahead; from a random offset a TLS header and random bytes.
# With the NIC's ACK and window tests on, every copy stops before the
# framing (bad ACK, no ACK, old, out of window): sync is never lost, nothing else
# moves. The handshake's and the close's data frames may get a copy with
# no flow to count it: a few.
set_knob "$PORT_B/tls_ack_check" 1
mid_transfer forge set_cable forge=20000 seed=4848
set_cable forge=0
nic=$(nic_share forge)
rejected=$(( $(delta forge.fault rx_tls_bad_ack) + $(delta forge.fault rx_tls_no_ack) + $(delta forge.fault rx_tls_old_frames) + $(delta forge.fault rx_tls_out_of_window) + $(delta forge.fault rx_tls_far_frames) ))
forged=$(delta forge.A tx_cable_forged)
log "forged copies, ACK test on: forged $forged; from the fault on bad ACK +$(delta forge.fault rx_tls_bad_ack) no ACK +$(delta forge.fault rx_tls_no_ack) old +$(delta forge.fault rx_tls_old_frames) out of window +$(delta forge.fault rx_tls_out_of_window) far +$(delta forge.fault rx_tls_far_frames), sync lost +$(delta forge.fault rx_tls_sync_lost), auth failures +$(delta forge.fault rx_tls_auth_fail); device share $share/10000, NIC share $nic/10000"
[ "$forged" -ge 20 ] || die "the cable forged $forged copies, want at least 20"
[ "$rejected" -ge $((forged - 4)) ] || die "the NIC rejected $rejected of $forged forged copies before its framing"
asserted
expect_delta forge.fault rx_tls_sync_lost -eq 0 "a forged copy cost sync with the ACK test on"
expect_delta forge.fault rx_tls_auth_fail -eq 0 "a forged copy reached the decryption with the ACK test on"
[ "$nic" -ge 9900 ] || die "NIC share $nic/10000 with forged copies rejected"
# The ACK test off: the copies that acknowledge unsent data reach the
# framing at the real frame's position, before it. The NIC decrypts the
# forged bytes, finds the tag or the header wrong, never marks them, takes
# the real frame as old and resyncs: offload lost for a while, never a
# wrong byte (TCP keeps only the real frames).
set_knob "$PORT_B/tls_ack_check" 0
mid_transfer forgeoff set_cable forge=20000 seed=4949
set_cable forge=0
nic=$(nic_share forgeoff)
log "forged copies, ACK test off: forged $(delta forgeoff.A tx_cable_forged); from the fault on bad ACK +$(delta forgeoff.fault rx_tls_bad_ack) no ACK +$(delta forgeoff.fault rx_tls_no_ack), sync lost +$(delta forgeoff.fault rx_tls_sync_lost), auth failures +$(delta forgeoff.fault rx_tls_auth_fail), header conflicts +$(delta forgeoff.fault rx_tls_hdr_conflict), copy mismatches +$(delta forgeoff.fault rx_tls_copy_mismatch), resync applied +$(delta forgeoff.fault rx_tls_resync_res_ok), reorder recovered +$(delta forgeoff.fault rx_tls_reorder_recovered); device share $share/10000, NIC share $nic/10000"
expect_delta forgeoff.fault rx_tls_bad_ack -eq 0 "the ACK test is off, yet it dropped frames"
expect_delta forgeoff.fault rx_tls_sync_lost -ge 1 "no forged copy reached the framing"
# every lost sync came back (through the core, or from the late frames),
# but perhaps one in the transfer's last records; each copy that reached
# the framing cost about the record it fell in (lane: 32 of 137 copies
# lost sync, NIC share 9373/10000): the floor allows three times that
lost=$(delta forgeoff.fault rx_tls_sync_lost)
back=$(( $(delta forgeoff.fault rx_tls_resync_res_ok) + $(delta forgeoff.fault rx_tls_reorder_recovered) ))
[ "$back" -ge $((lost - 1)) ] || die "$back of $lost syncs lost to forged copies came back"
asserted
[ "$nic" -ge 8000 ] || die "NIC share $nic/10000 with forged copies reaching the framing"
set_knob "$PORT_B/tls_ack_check" 1
