# TLS 1.3 key updates through the NIC (the patched-kernel lane only:
# KVER=6.12-tls13, where innova/caps says tls13_rx and /proc/net/tls_stat
# counts TlsRxRekeyOk): the NIC's share of the TLS bytes against the
# KeyUpdate interval, clean and under seeded 1 % cable loss. The sender
# rekeys kTLS TX after each KeyUpdate; the receiver installs the next key
# (the kernel replaces the NIC's context: tls_dev_del, tls_dev_add). One
# verified transfer per point, AES-GCM-128.
# Writes rekey.csv: interval,fault,record_size,updates,records,nic_records,
#   device_share,sw_per_update,auth_fail,sync_lost,before_key_per_update,
#   unmarked_per_update,nic_share_keyed
# (nic_records counts every record the NIC decrypted, the KeyUpdates'
# handshake records included, so sw_per_update = (records - nic_records)
# / updates is a lower bound of the data records left to software per
# update, the first key's install included; before_key_per_update is the
# driver's exact count of the next key's records that passed the NIC
# before it had the key (rx_tls_rekey_sw_records), unmarked_per_update the
# records it decrypted at a key change but could not mark
# (rx_tls_records_unmarked), nic_share_keyed the share of the records it
# had the key for: records on the wire less those before their key and
# those verified in shadow)
setup_pair
if ! grep -qw tls13_rx "$DBG/caps" || ! ip netns exec B grep -q '^TlsRxRekeyOk' /proc/net/tls_stat; then
	sum rekey_skipped "$(uname -r) has no TLS 1.3 device offload with KeyUpdate (make report KVER=6.12-tls13)"
	exit 0
fi
summary=
csv rekey.csv interval fault record_size updates records nic_records device_share sw_per_update auth_fail sync_lost before_key_per_update unmarked_per_update nic_share_keyed
# interval:record size:bytes (about the same number of updates per point)
for point in 1:4096:262144 10:16384:1048576 100:16384:6553600 1000:1024:2252800; do
	n=${point%%:*} rest=${point#*:}
	rs=${rest%%:*} bytes=${rest#*:}
	for fault in clean loss1; do
		if [ $fault = loss1 ]; then set_cable drop=10000 seed=${REPORT_SEED:-4242}; else set_cable drop=0; fi
		name=ku$n-$fault
		snap $name
		tls_run $IP4_B "--tls13 --rx-mode manual --bytes $bytes --timeout 300" \
			"--tls13 --tx-mode ktls --bytes $bytes --record-size $rs --key-update $n --timeout 300"
		expect_intact $bytes
		u=$(js .key_updates_sent) r=$(jr .records) d=$(delta $name rx_tls_records_decrypted)
		[ "$(jr .tls_stat.TlsRxRekeyOk)" = "$u" ] || die "$name: TlsRxRekeyOk +$(jr .tls_stat.TlsRxRekeyOk) for $u KeyUpdates"
		sw=$(awk -v r="$r" -v d="$d" -v u="$u" 'BEGIN { s = r - d; if (s < 0) s = 0; printf "%.1f", u ? s / u : s }')
		bk=$(delta $name rx_tls_rekey_sw_records) um=$(delta $name rx_tls_records_unmarked)
		kr=$(( r + u + 1 - bk - $(delta $name rx_tls_shadow_ok) ))
		csv rekey.csv $n $fault $rs $u $r $d "$(per10k "$(device_share $name)")" $sw \
			$(delta $name rx_tls_auth_fail) $(delta $name rx_tls_sync_lost) \
			"$(awk -v b="$bk" -v u="$u" 'BEGIN { printf "%.1f", u ? b / u : 0 }')" \
			"$(awk -v b="$um" -v u="$u" 'BEGIN { printf "%.2f", u ? b / u : 0 }')" \
			"$(awk -v d="$d" -v k="$kr" 'BEGIN { printf "%.1f", k > 0 ? 100 * d / k : 0 }')"
		summary="$summary${summary:+; }every $n $fault $(per10k "$(device_share $name)") %"
		log "$name: $u updates, $r records, NIC $d, device share $(device_share $name)/10000, $sw records in software per update"
	done
done
set_cable drop=0
sum rekey_device_share "$summary"
