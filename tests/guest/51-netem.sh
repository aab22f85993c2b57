# tc netem on the sending port (stock qdisc on the innova port): loss,
# reorder with delay, duplicates, jitter, corruption. Each transfer is byte
# exact on the device path; nothing is ever delivered wrong.
setup_pair
for prof in loss0.5 loss1 loss5 reorder5 reorder25 dup5 jitter corrupt0.1; do
	/innova/tests/faults/netem.sh A innova0 "$prof" | sed 's/^/# /'
	snap_b "$prof"
	tls_run $IP4_B "--rx-mode manual --bytes 2M" "--tx-mode ktls --bytes 2M"
	/innova/tests/faults/netem.sh A innova0 clear > /dev/null
	expect_intact 2097152
	expect_path device
	log "$prof: NIC decrypted $(delta_b "$prof" rx_tls_records_decrypted) of $(jr .records) records, resync req/conf $(delta_b "$prof" rx_tls_resync_req_start)/$(delta_b "$prof" rx_tls_resync_res_ok)"
	[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die "$prof: TlsDecryptError"
done
