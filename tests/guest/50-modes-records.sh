# Receiver modes and record sizes through the NIC: manual kTLS (the app sets
# TLS_RX itself) and OpenSSL's own kTLS take the device path; plain
# userspace OpenSSL is the baseline (no kTLS). Tiny, maximal and random
# record sizes, IPv4 and IPv6; every byte verified each time.
setup_pair
snap o1
tls_run $IP4_B "--rx-mode openssl --bytes 4M" "--tx-mode ktls --bytes 4M"
expect_intact 4194304; expect_path device
[ "$(jr .ktls)" = true ] || die "OpenSSL did not enable kTLS RX"
log "OpenSSL kTLS receiver: device share $(device_share o1)/10000"
[ "$(device_share o1)" -ge 9000 ] || die "OpenSSL kTLS: NIC decrypted $(device_share o1)/10000"
snap o2
tls_run $IP6_B "--rx-mode openssl --cipher aes256gcm --bytes 4M" "--tx-mode user --cipher aes256gcm --bytes 4M"
expect_intact 4194304; expect_path device
log "OpenSSL kTLS receiver, IPv6 AES-256, OpenSSL sender: device share $(device_share o2)/10000"
[ "$(device_share o2)" -ge 9000 ] || die "OpenSSL kTLS v6/256: NIC decrypted $(device_share o2)/10000"
tls_run $IP4_B "--rx-mode user --bytes 4M" "--tx-mode ktls --bytes 4M"
expect_intact 4194304
[ "$(jr .tls_stat.TlsRxDevice)" = 0 ] && [ "$(jr .tls_stat.TlsRxSw)" = 0 ] || die "userspace receiver used kTLS"
for rs in 1 100 16384 random random:1-2000; do
	case $rs in 1) b=32k ;; 100) b=512k ;; *) b=4M ;; esac
	snap rs
	tls_run $IP6_B "--rx-mode manual --bytes $b --seed 9" "--tx-mode ktls --bytes $b --record-size $rs --seed 9"
	expect_intact $(jr .bytes)
	expect_path device
	log "record size $rs: $(jr .records) records, NIC decrypted $(delta rs rx_tls_records_decrypted)"
	expect_delta rs rx_tls_records_decrypted -ge $(( $(jr .records) * 9 / 10 )) "record size $rs: NIC decrypted under 90 % of records"
done
