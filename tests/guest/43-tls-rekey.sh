# Rekey on the NIC side. 6.1's kTLS never changes a socket's key, but the
# NIC's key update command is real: the sender marks a key change with a
# ChangeCipherSpec-typed record (content type 20, the last record under the
# old key) before data record K, so the new key takes effect at record
# N = K + 1; the test issues the key update through debugfs
# (tls_key_update: "HANDLE N good|wrong").
setup_pair
col_rn=8	# tls_flows column of the current record number

# On time: the command arrives long before record N.
snap_b ontime
tls_start $IP4_B "--rx-mode manual --bytes 16M" "--tx-mode ktls --bytes 16M --ccs-at 600"
h=$(wait_flow) || die "no flow installed"
echo "$h 601 good" > "$PORT_B/tls_key_update" || die "key update command refused"
tls_wait
expect_intact 16777216
expect_path device
[ "$(jr .rekey_markers)" = 1 ] || die "receiver saw $(jr .rekey_markers) rekey markers"
log "on time: key_update +$(delta_b ontime rx_tls_key_update) late +$(delta_b ontime rx_tls_key_late) nokey records +$(delta_b ontime rx_tls_records_nokey) auth_fail +$(delta_b ontime rx_tls_auth_fail) share $(device_share ontime)/10000"
[ "$(delta_b ontime rx_tls_key_update)" = 1 ] || die "key update not counted"
[ "$(delta_b ontime rx_tls_key_late)" = 0 ] || die "on-time update counted late"
[ "$(delta_b ontime rx_tls_auth_fail)" = 0 ] || die "auth failure on an on-time rekey"
[ "$(delta_b ontime rx_tls_records_nokey)" -le 1 ] || die "records passed without a key on an on-time rekey"
[ "$(device_share ontime)" -ge 9800 ] || die "offload did not continue across the rekey"

# Late: records under the new key arrive before the command. They go up
# untouched (software decrypts them), then offload resumes.
snap_b late
tls_start $IP4_B "--rx-mode manual --bytes 32M" "--tx-mode ktls --bytes 32M --ccs-at 100"
h=$(wait_flow) || die "no flow installed"
i=0
while rn=$(flow_field "$h" $col_rn); [ "${rn:-0}" -lt 160 ]; do
	i=$((i + 1)); [ $i -lt 600 ] || die "flow never reached record 160 (at ${rn:-?})"
	sleep 0.05
done
echo "$h 101 good" > "$PORT_B/tls_key_update" || die "late key update refused"
log "late command issued at record $rn"
tls_wait
expect_intact 33554432
dec=$(delta_b late rx_tls_records_decrypted)
nokey=$(delta_b late rx_tls_records_nokey)
log "late: key_late +$(delta_b late rx_tls_key_late) nokey records +$nokey decrypted records +$dec of $(jr .records) share $(device_share late)/10000"
[ "$(delta_b late rx_tls_key_late)" = 1 ] || die "late update not counted late"
[ "$nokey" -ge 50 ] || die "records after the key change were not passed untouched ($nokey)"
[ "$dec" -ge $((100 + 1000)) ] || die "offload did not resume after the late key ($dec decrypted)"

# Wrong key: shadow verification fails, nothing is marked, auth_fail is
# counted, the driver refreshes the key it got from the core, offload resumes.
snap_b wrong
tls_start $IP4_B "--rx-mode manual --bytes 16M" "--tx-mode ktls --bytes 16M --ccs-at 300"
h=$(wait_flow) || die "no flow installed"
echo "$h 301 wrong" > "$PORT_B/tls_key_update" || die "wrong-key command refused"
tls_wait
expect_intact 16777216
dec=$(delta_b wrong rx_tls_records_decrypted)
log "wrong: shadow_fail +$(delta_b wrong rx_tls_shadow_fail) auth_fail +$(delta_b wrong rx_tls_auth_fail) key_refresh +$(delta_b wrong rx_tls_key_refresh) decrypted records +$dec of $(jr .records)"
[ "$(delta_b wrong rx_tls_auth_fail)" -ge 1 ] || die "wrong key not caught"
[ "$(delta_b wrong rx_tls_key_refresh)" -ge 1 ] || die "no key refresh"
[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die "software saw a decrypt error: something was wrongly marked"
[ "$dec" -ge 700 ] || die "offload did not recover after the wrong key ($dec decrypted)"
