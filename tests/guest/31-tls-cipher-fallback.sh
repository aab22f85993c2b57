# TLS 1.2 AES-CCM and ChaCha20-Poly1305: the NIC refuses them in tls_dev_add,
# the core silently uses software kTLS, and every byte is still right.
setup_pair
for c in aes128ccm chacha20; do
	tls_run $IP4_B "--rx-mode manual --cipher $c --bytes 1M" "--tx-mode ktls --cipher $c --bytes 1M"
	expect_intact 1048576
	expect_path software
	[ "$(jr .cipher)" = "$c" ] || die "cipher reported $(jr .cipher)"
done
