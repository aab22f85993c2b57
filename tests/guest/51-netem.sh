# tc netem on the sending port (stock qdisc on the innova port): loss,
# reorder with delay, duplicates, jitter, corruption. Each transfer is byte
# exact on the device path; nothing is ever delivered wrong.
# Floors: records the NIC decrypted, per profile, from what a working NIC
# does here (measured: loss/dup/corrupt 123-128 of 128, reorder25 101,
# jitter 10: netem's jitter reorders nearly every frame), so a NIC that
# decrypts nothing fails every profile.
setup_pair
for pf in loss0.5:100 loss1:100 loss5:80 reorder5:100 reorder25:50 dup5:100 jitter:1 corrupt0.1:100; do
	prof=${pf%%:*} floor=${pf#*:}
	out=$(/innova/tests/faults/netem.sh A innova0 "$prof") || die "netem $prof did not apply: $out"
	log "$out"
	snap "$prof"
	tls_run $IP4_B "--rx-mode manual --bytes 2M" "--tx-mode ktls --bytes 2M"
	/innova/tests/faults/netem.sh A innova0 clear > /dev/null || die "netem clear"
	expect_intact 2097152
	expect_path device
	log "$prof: NIC decrypted $(delta "$prof" rx_tls_records_decrypted) of $(jr .records) records (floor $floor), resync req/conf $(delta "$prof" rx_tls_resync_req_start)/$(delta "$prof" rx_tls_resync_res_ok)"
	[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die "$prof: TlsDecryptError"
	expect_delta "$prof" rx_tls_records_decrypted -ge "$floor" "$prof: NIC decrypted too few records"
done
