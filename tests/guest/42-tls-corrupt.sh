# Cable corruption of TLS payload bytes.
# (a) TCP checksum left wrong: the NIC validates it first and never marks
#     the frame, TCP drops it, the retransmission completes byte-exact.
# (b) Checksum fixed up (a broken middlebox): the GCM tag catches it. The
#     application gets EBADMSG and never a wrong byte.
setup_pair
echo 7 > "$PORT_A/seed"
echo 5000 > "$PORT_A/corrupt_ppm"
echo 0 > "$PORT_A/corrupt_fix_csum"
snap_b bad
tls_run $IP4_B "--rx-mode manual --bytes 8M" "--tx-mode ktls --bytes 8M"
expect_intact 8388608
expect_path device
bad=$(delta_b bad rx_tls_bad_csum)
log "corrupted on the cable: $(cat "$PORT_A/corrupted"); engine saw $bad bad checksums; device share $(device_share bad)/10000"
[ "$(cat "$PORT_A/corrupted")" -gt 0 ] || die "the cable corrupted nothing"
[ "$bad" -gt 0 ] || die "engine counted no bad checksum"
[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die "TlsDecryptError with checksum-caught corruption"
# measured 9812/10000: the retransmission fills a hole inside a record
[ "$(device_share bad)" -ge 9000 ] || die "NIC decrypted $(device_share bad)/10000 with checksum-caught corruption"

echo 1 > "$PORT_A/corrupt_fix_csum"
echo 20000 > "$PORT_A/corrupt_ppm"
snap_b fixed
tls_run $IP4_B "--rx-mode manual --bytes 8M" "--tx-mode ktls --bytes 8M"
[ "$RRC" != 0 ] || die "receiver accepted a stream with corrupted records"
[ "$(jr .bad_offset)" = null ] || die "receiver saw a WRONG BYTE at $(jr .bad_offset)"
err=$(jr .error)
auth=$(delta_b fixed rx_tls_auth_fail)
derr=$(jr .tls_stat.TlsDecryptError)
log "receiver error: $err; rx_tls_auth_fail +$auth; TlsDecryptError +$derr"
case "$err" in *EBADMSG*) ;; *) die "expected EBADMSG, got: $err" ;; esac
[ "$auth" -gt 0 ] || [ "$derr" -gt 0 ] || die "neither the NIC nor software counted an authentication failure"
