# Malformed records through the NIC, and a reconnect on the same 4-tuple.
#  - A record with the wrong version, one longer than 2^14 + 256, one of
#    content type 0 (sealed, so its tag is valid) and a header split across
#    frames with a bad length: the application gets the kernel's error
#    exactly at the malformed record 40 (innova-tls --expect-error checks
#    the errno, and with --bytes that the 39 records before it, 39 x 16384
#    bytes, arrived and verified: an error the NIC caused earlier fails),
#    the NIC stops at the bad header (rx_tls_sync_lost) and never marks a
#    frame software authentication then rejects (TlsDecryptError: the
#    kernel's decryption failed, per kind below).
#  - Close an offloaded connection and reconnect from the same source
#    port: the new flow is offloaded with its new keys, nothing of the old.
setup_pair
BEFORE=$((39 * 16384))
for ke in version:EINVAL oversize:EMSGSIZE type0:EBADMSG split-badlen:EBADMSG; do
	kind=${ke%%:*} err=${ke#*:}
	snap "$kind"
	tls_run $IP4_B "--rx-mode manual --expect-error $err --bytes $BEFORE" "--tx-mode sim --malformed $kind@40 --bytes 2M"
	[ "$RRC" = 0 ] || die "$kind: receiver rc=$RRC: $(jr .error)"
	[ "$(jr .ok)" = true ] || die "$kind: receiver not ok"
	[ "$(jr .error_errno)" = "$err" ] || die "$kind: errno $(jr .error_errno), want $err"
	[ "$(jr .bad_offset)" = null ] || die "$kind: WRONG BYTE at $(jr .bad_offset)"
	[ "$(jr .bytes)" = $BEFORE ] || die "$kind: $err after $(jr .bytes) bytes, want it at record 40 ($BEFORE bytes)"
	expect_path device
	log "$kind: $(jr .bytes) bytes verified, then $err; NIC decrypted $(delta "$kind" rx_tls_records_decrypted) records, sync lost +$(delta "$kind" rx_tls_sync_lost), auth fail +$(delta "$kind" rx_tls_auth_fail), TlsDecryptError +$(jr .tls_stat.TlsDecryptError)"
	# every kind fails in the kernel's header checks or, type0, after a
	# decryption that succeeded (tls_record_content_type): a failed
	# decryption (measured +0 for each kind) is a record the NIC spoiled
	[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die_unsafe "$kind: TlsDecryptError +$(jr .tls_stat.TlsDecryptError)"
	asserted
	# A sync lost at install (frames still in GRO when the flow was
	# added, as test 31 notes) costs the records the NIC follows until
	# the core confirms a header: counted, at most 16 of them (once on
	# 6.12: 26 decrypted, sync lost +2, 3 reruns 38 and +1).
	dec=$(delta "$kind" rx_tls_records_decrypted) fol=$(delta "$kind" rx_tls_records_followed)
	[ "$fol" -le 16 ] || fol=16
	[ $((dec + fol)) -ge 30 ] || die "$kind: NIC decrypted too few of the 39 good records: $dec decrypted, $fol followed awaiting the kernel"
	case $kind in
	type0) ;;	# a valid record to the NIC; the kernel rejects the type
	*) expect_delta "$kind" rx_tls_sync_lost -ge 1 "$kind: the NIC did not stop at the bad header" ;;
	esac
done

# Same 4-tuple twice: the sender keeps source port 40001 (TIME_WAIT reuse
# on, as a client reconnecting to a server would), the receiver its port.
ip netns exec A sysctl -qw net.ipv4.tcp_tw_reuse=1
for round in 1 2; do
	snap "re$round"
	[ $round = 2 ] && TLS_PORT=$((TLS_PORT - 1))	# same server port
	tls_run $IP4_B "--rx-mode manual --bytes 4M --seed $round" "--tx-mode ktls --bytes 4M --seed $round --sport 40001"
	expect_intact 4194304
	expect_path device
	share=$(device_share "re$round")
	log "connection $round from port 40001 to $TLS_PORT: ctx +$(delta re$round rx_tls_ctx) del +$(delta re$round rx_tls_del), device share $share/10000"
	expect_delta re$round rx_tls_ctx -eq 1 "round $round: no new flow installed"
	[ "$share" -ge 9000 ] || die "round $round: device share $share/10000"
	wait_until 5 no_flows_b || die "round $round: flow left after close"
done
