# TLS 1.2 AES-CCM and ChaCha20-Poly1305: the NIC refuses them in tls_dev_add,
# the core silently uses software kTLS, and every byte is still right.
# TLS 1.3 (AES-GCM-128/256, ChaCha20): a stock core never offers it to a
# device (tls_set_device_offload_rx refuses anything but TLS 1.2 before it
# calls the driver), so software kTLS RX, and the driver's tls_dev_add is
# never called: a kprobe on it counts the calls, a TLS 1.2 AES-GCM run shows
# the probe sees them. On a kernel with the project's TLS 1.3 series
# (kernel/patches; debugfs innova/caps says tls13_rx) AES-GCM goes to the
# NIC instead: one tls_dev_add, every record NIC-decrypted but the one at
# install, every byte verified; ChaCha20 still goes to software.
setup_pair
TLS13_RX=
grep -qw tls13_rx /sys/kernel/debug/innova/caps && TLS13_RX=1
echo 1 > "$TRACE/events/innova/innova_tls_flow_add/enable" || die "no tracepoint innova_tls_flow_add"
log "innova caps: $(cat /sys/kernel/debug/innova/caps)"
case "$(uname -r)" in
*tls13*) [ -n "$TLS13_RX" ] || die "kernel $(uname -r) has the TLS 1.3 series but the module was built without it" ;;
esac
for c in aes128ccm chacha20; do
	tls_run $IP4_B "--rx-mode manual --cipher $c --bytes 1M" "--tx-mode ktls --cipher $c --bytes 1M"
	expect_intact 1048576
	expect_path software
	[ "$(jr .cipher)" = "$c" ] || die "cipher reported $(jr .cipher)"
done

# kprobe on the driver's tls_dev_add (tracefs kprobe_events); absent on a
# kernel without CONFIG_KPROBE_EVENTS: the counter checks below still run.
KP_EVENT=innova31_dev_add
kp_hits() { awk -v e="$KP_EVENT" '$1 == e || $1 == "kprobes/" e { print $2 }' $TRACE/kprobe_profile; }
kp_off() {
	echo 0 > "$TRACE/events/kprobes/$KP_EVENT/enable" 2>/dev/null
	echo "-:kprobes/$KP_EVENT" >> $TRACE/kprobe_events 2>/dev/null
	true
}
KP=
if [ -w $TRACE/kprobe_events ]; then
	echo "p:kprobes/$KP_EVENT innova_tls_dev_add" >> $TRACE/kprobe_events ||
		die "cannot place a kprobe on innova_tls_dev_add"
	trap kp_off EXIT
	echo 1 > "$TRACE/events/kprobes/$KP_EVENT/enable" || die "cannot enable the kprobe"
	KP=1
else
	log "no $TRACE/kprobe_events: tls_dev_add calls not counted, counters only"
fi

# Positive control: TLS 1.2 AES-GCM is offloaded, so the probe must see one call.
if [ -n "$KP" ]; then
	k0=$(kp_hits)
	tls_run $IP4_B "--rx-mode manual --bytes 256k" "--tx-mode ktls --bytes 256k"
	expect_intact 262144
	expect_path device
	k1=$(kp_hits)
	log "TLS 1.2 aes128gcm: tls_dev_add called $((k1 - k0)) time(s)"
	[ $((k1 - k0)) -eq 1 ] || die "kprobe saw $((k1 - k0)) tls_dev_add calls for one offloaded TLS 1.2 flow, want 1"
fi

for c in aes128gcm aes256gcm chacha20; do
	snap t13
	echo > $TRACE/trace
	[ -n "$KP" ] && k0=$(kp_hits)
	tls_run $IP4_B "--tls13 --rx-mode manual --cipher $c --bytes 1M" "--tls13 --tx-mode ktls --cipher $c --bytes 1M"
	expect_intact 1048576
	[ "$(jr .cipher)" = "$c" ] || die "TLS 1.3 $c: cipher reported $(jr .cipher)"
	[ "$(jr .tls_version)" = 1.3 ] && [ "$(js .tls_version)" = 1.3 ] ||
		die "TLS 1.3 $c: version reported recv $(jr .tls_version) send $(js .tls_version)"
	[ "$(jr .ktls)" = true ] && [ "$(js .ktls)" = true ] || die "TLS 1.3 $c: kTLS did not carry the data"
	# 1M in 16 KiB records; the kernel's rec_seq counted them (none before TLS_RX, no tickets)
	[ "$(jr .records)" = 64 ] || die "TLS 1.3 $c: $(jr .records) records, want 64"
	[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die "TLS 1.3 $c: TlsDecryptError $(jr .tls_stat.TlsDecryptError)"
	expect_delta t13 rx_tls_err -eq 0 "TLS 1.3 $c: driver error"
	[ -n "$KP" ] && k1=$(kp_hits)
	if [ -n "$TLS13_RX" ] && [ "$c" != chacha20 ]; then
		expect_path device
		expect_delta t13 rx_tls_ctx -eq 1 "TLS 1.3 $c: no flow installed in the NIC"
		expect_delta t13 rx_tls_add_fail -eq 0 "TLS 1.3 $c: install failed"
		expect_delta t13 rx_tls13_records_decrypted -ge 1 "TLS 1.3 $c: no TLS 1.3 record decrypted"
		# The client may send right after its Finished: records that
		# sat in the socket before the flow existed went to software
		# (the driver walked them at install: start_rn is the first
		# record the NIC sees; TLS 1.3 numbers application data from
		# 0). Every record from there on but the shadow-verified one.
		add=$(grep 'innova_tls_flow_add:' $TRACE/trace | tail -1)
		rn=$(echo "$add" | sed -n 's/.* start_rn=\([0-9]*\).*/\1/p')
		[ -n "$rn" ] || die "TLS 1.3 $c: no flow install traced"
		# Unlike TLS 1.2, the client sends data right behind its
		# Finished, so frames arrive while the flow is installed: one
		# the engine passed just before (no flow yet) may still be on
		# its way to the socket when the driver reads the queue, a gap
		# the NIC never sees filled (touched by a hole), and if a
		# header sat in it, one lost sync and the wait for the core
		# (followed). Those records are not the NIC's to decrypt; all
		# the others but the shadow-verified one must be, and at least
		# half of those after the install.
		dec=$(delta t13 rx_tls_records_decrypted)
		hole=$(delta t13 rx_tls_records_unauth) fol=$(delta t13 rx_tls_records_followed)
		want=$((64 - rn - hole - fol - 1))
		[ "$want" -ge $(((64 - rn) / 2)) ] || want=$(((64 - rn) / 2))
		[ "$dec" -ge "$want" ] ||
			die "TLS 1.3 $c: NIC decrypted $dec of 64 records, $rn before the flow, $hole touched by a hole, $fol followed awaiting the kernel: want >= $want"
		expect_delta t13 rx_tls_sync_lost -le 1 "TLS 1.3 $c: sync lost on a clean link"
		if [ -n "$KP" ]; then
			[ $((k1 - k0)) -eq 1 ] || die "TLS 1.3 $c: tls_dev_add called $((k1 - k0)) time(s), want 1"
		fi
		log "TLS 1.3 $c: intact, device path, records NIC-decrypted $dec of 64 ($rn before the flow, $hole touched by a hole, $fol followed; install: ${add#*innova_tls_flow_add: }) (TLS 1.3 $(delta t13 rx_tls13_records_decrypted)), NIC share $(nic_share t13)/10000"
		continue
	fi
	expect_path software
	expect_delta t13 rx_tls_ctx -eq 0 "TLS 1.3 $c: a flow was installed in the NIC"
	expect_delta t13 rx_tls_add_fail -eq 0 "TLS 1.3 $c: the engine saw an install attempt"
	expect_delta t13 rx_tls_decrypted_bytes -eq 0 "TLS 1.3 $c: the NIC marked bytes decrypted"
	if [ -n "$KP" ]; then
		[ $((k1 - k0)) -eq 0 ] || die "TLS 1.3 $c: tls_dev_add called $((k1 - k0)) time(s), want never"
	fi
	log "TLS 1.3 $c: intact, software path, rx_tls_ctx +0, rx_tls_add_fail +0${KP:+, tls_dev_add calls +0}"
done
kp_off
trap - EXIT
echo 0 > "$TRACE/events/innova/innova_tls_flow_add/enable"
