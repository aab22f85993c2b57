# Issue 20 F: priority-tagged frames (802.1Q tag, VID 0) belong to the
# untagged flow. The receiving stack delivers a VID-0 frame as untagged
# (__netif_receive_skb_core clears a VID-0 tag nobody claimed), so the
# socket, and its NIC flow, are the untagged ones; a NIC that keyed VID 0 as
# a VLAN of its own never found the flow and decrypted nothing. The
# sender's every frame is tagged on the way out (tc egress: vlan push id 0,
# priority 5); the receiver's packet tap sees the tag arrive (auxdata), and
# the NIC must decrypt the stream as on a clean untagged link.
setup_pair
INJ=innova-inject
BYTES=${BYTES:-8388608}
ip netns exec A tc qdisc add dev innova0 clsact || die "tc clsact on innova0"
ip netns exec A tc filter add dev innova0 egress matchall action vlan push id 0 priority 5 ||
	die "tc vlan push id 0"
wait_ping "with priority tags"
snap v0
# the first data frames as the receiver's stack gets them
ip netns exec B $INJ peek --dev innova1 --src $IP4_A --data --count 50 --timeout 60 > /tmp/peek.out &
ppid=$!
sleep 0.3
tls_run $IP4_B "--rx-mode manual --bytes $BYTES" "--tx-mode ktls --bytes $BYTES"
wait $ppid || die "no data frame seen on innova1"
eval "$(cat /tmp/peek.out)"
pushed=$(ip netns exec A tc -s filter show dev innova0 egress | awk '/Sent/ { print $4; exit }')
log "tagged on the wire: $tagged of $frames data frames seen by innova1 carried a tag (last VID $vlan); tc pushed $pushed tags"
[ "$frames" -gt 0 ] && [ "$tagged" = "$frames" ] && [ "$vlan" = 0 ] ||
	die "the sender's frames did not arrive priority-tagged ($tagged of $frames tagged, VID $vlan)"
expect_intact "$BYTES"
expect_path device
[ "$(jr .tls_stat.TlsDecryptError)" = 0 ] || die_unsafe "TlsDecryptError +$(jr .tls_stat.TlsDecryptError)"
nic=$(nic_share v0) share=$(device_share v0)
log "records $(jr .records), decrypted $(delta v0 rx_tls_records_decrypted), packets +$(delta v0 rx_tls_decrypted_packets), sync lost +$(delta v0 rx_tls_sync_lost); device share $share/10000, NIC share $nic/10000"
expect_delta v0 rx_tls_decrypted_packets -gt 0 "the NIC decrypted nothing of the priority-tagged flow"
# as on a clean untagged link (one shadow record of 512 is 20 per 10000)
expect_clean_start v0 "on priority-tagged frames"
expect_delta v0 rx_tls_sync_lost -le 1 "sync lost on a clean priority-tagged link"
