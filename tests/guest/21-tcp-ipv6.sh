# Ordinary IPv6 TCP across the cable between two network namespaces.
setup_pair
ip netns exec A ping -6 -c1 -W2 $IP6_B >/dev/null || die "IPv6 ping"
tcp_transfer A B $IP6_B 4000000
tcp_transfer B A $IP6_A 1000000 5002
