# Ordinary IPv4 TCP across the cable between two network namespaces.
setup_pair
tcp_transfer A B $IP4_B 4000000
tcp_transfer B A $IP4_A 1000000 5002
rx=$(ip netns exec B cat /sys/class/net/innova1/statistics/rx_packets)
[ "${rx:-0}" -gt 2000 ] || die "innova1 rx_packets=$rx, expected > 2000"
log "innova1 rx_packets=$rx"
