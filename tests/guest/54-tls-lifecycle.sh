# Offloaded connections across the NIC's lifecycle events:
#  (a) link down -> up mid-transfer: the open connection goes on in
#      software (the core drops device state on NETDEV_DOWN) byte-exact,
#      and a new connection is offloaded again;
#  (b) rmmod with a live offloaded flow and traffic: the ports go away,
#      rmmod succeeds (nothing pinned), and after modprobe + new ports with
#      the same addresses the TCP connection resumes in software and
#      finishes byte-exact.
setup_pair

snap down
tls_start $IP4_B "--rx-mode manual --bytes 16M" "--tx-mode ktls --bytes 16M"
wait_decrypted down 1000000
ip -n B link set innova1 down || die "link down"
wait_until 5 no_flows_b || die "flow still installed on a down port"
sleep 1
ip -n B link set innova1 up || die "link up"
tls_wait
expect_intact 16777216
log "link down/up: ctx +$(delta down rx_tls_ctx) del +$(delta down rx_tls_del), NIC decrypted $(delta down rx_tls_decrypted_bytes) bytes before the link went down"
expect_delta down rx_tls_del -eq 1 "flow not deleted on link down"
snap up
tls_run $IP4_B "--rx-mode manual --bytes 4M" "--tx-mode ktls --bytes 4M"
expect_intact 4194304
expect_path device
share=$(device_share up)
log "new connection after link up: device share $share/10000"
[ "$share" -ge 9000 ] || die "new connection not offloaded after link up: $share/10000"

snap rm
tls_start $IP4_B "--rx-mode manual --bytes 8M --timeout 240" "--tx-mode ktls --bytes 8M --timeout 240"
wait_decrypted rm 1000000
unload_module || die "rmmod with a live offloaded flow"
ip -n B link show innova1 > /dev/null 2>&1 && die "port survived rmmod"
log "rmmod with a live flow: ports gone"
sleep 1
# new ports, same addresses: TCP retransmits into them
modprobe innova || die "modprobe again"
ip link add innova0 type innova || die "recreate innova0"
ip link add innova1 link innova0 type innova || die "recreate innova1"
PORT_A=$(port_dir innova0); PORT_B=$(port_dir innova1)
ip link set innova0 netns A; ip link set innova1 netns B
ip -n A addr add $IP4_A/24 dev innova0; ip -n B addr add $IP4_B/24 dev innova1
ip -n A link set innova0 up; ip -n B link set innova1 up
tls_wait
expect_intact 8388608
log "connection resumed across rmmod/modprobe, byte-exact"
[ "$(ethtool_stat B innova1 rx_tls_flows)" = 0 ] || die "the old connection re-installed a flow"
