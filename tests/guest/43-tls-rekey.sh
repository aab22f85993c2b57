# Rekey on the NIC side. 6.1's kTLS never changes a socket's key, but the
# NIC's key update command is real: the sender marks a key change with a
# ChangeCipherSpec-typed record (content type 20, the last record under the
# old key) before data record K, so the new key takes effect at record
# N = K + 1; the test issues the key update through debugfs
# (tls_key_update: "HANDLE N good|wrong").
setup_pair
col_rn=8	# tls_flows column of the current record number
# at_record N: flow $h is at record N or beyond (its record number in $rn)
at_record() { rn=$(flow_field "$h" $col_rn); [ "${rn:-0}" -ge "$1" ]; }

# On time: the command arrives long before record N.
snap ontime
tls_start $IP4_B "--rx-mode manual --bytes 16M" "--tx-mode ktls --bytes 16M --ccs-at 600"
h=$(wait_flow) || die "no flow installed"
echo "$h 601 good" > "$PORT_B/tls_key_update" || die "key update command refused"
tls_wait
expect_intact 16777216
expect_path device
[ "$(jr .rekey_markers)" = 1 ] || die "receiver saw $(jr .rekey_markers) rekey markers"
log "on time: key_update +$(delta ontime rx_tls_key_update) late +$(delta ontime rx_tls_key_late) nokey records +$(delta ontime rx_tls_records_nokey) auth_fail +$(delta ontime rx_tls_auth_fail) share $(device_share ontime)/10000"
expect_delta ontime rx_tls_key_update -eq 1 "key update not counted"
expect_delta ontime rx_tls_key_late -eq 0 "on-time update counted late"
expect_delta ontime rx_tls_auth_fail -eq 0 "auth failure on an on-time rekey"
expect_delta ontime rx_tls_records_nokey -le 1 "records passed without a key on an on-time rekey"
[ "$(device_share ontime)" -ge 9800 ] || die "offload did not continue across the rekey"

# Late: records under the new key arrive before the command. They go up
# untouched (software decrypts them), then offload resumes.
snap late
tls_start $IP4_B "--rx-mode manual --bytes 32M" "--tx-mode ktls --bytes 32M --ccs-at 100"
h=$(wait_flow) || die "no flow installed"
wait_until 30 at_record 160 || die "flow never reached record 160 (at ${rn:-?})"
echo "$h 101 good" > "$PORT_B/tls_key_update" || die "late key update refused"
log "late command issued at record $rn"
tls_wait
expect_intact 33554432
log "late: key_late +$(delta late rx_tls_key_late) nokey records +$(delta late rx_tls_records_nokey) decrypted records +$(delta late rx_tls_records_decrypted) of $(jr .records) share $(device_share late)/10000"
expect_delta late rx_tls_key_late -eq 1 "late update not counted late"
expect_delta late rx_tls_records_nokey -ge 50 "records after the key change were not passed untouched"
expect_delta late rx_tls_records_decrypted -ge $((100 + 1000)) "offload did not resume after the late key"

# Wrong key: shadow verification fails, nothing is marked, auth_fail is
# counted, the driver refreshes the key it got from the core, offload resumes.
snap wrong
tls_start $IP4_B "--rx-mode manual --bytes 16M" "--tx-mode ktls --bytes 16M --ccs-at 300"
h=$(wait_flow) || die "no flow installed"
echo "$h 301 wrong" > "$PORT_B/tls_key_update" || die "wrong-key command refused"
tls_wait
expect_intact 16777216
log "wrong: shadow_fail +$(delta wrong rx_tls_shadow_fail) auth_fail +$(delta wrong rx_tls_auth_fail) key_refresh +$(delta wrong rx_tls_key_refresh) decrypted records +$(delta wrong rx_tls_records_decrypted) of $(jr .records)"
expect_delta wrong rx_tls_auth_fail -ge 1 "wrong key not caught"
expect_delta wrong rx_tls_key_refresh -ge 1 "no key refresh"
[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die "software saw a decrypt error: something was wrongly marked"
expect_delta wrong rx_tls_records_decrypted -ge 700 "offload did not recover after the wrong key"
