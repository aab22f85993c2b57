# 802.3x flow control on the cable ("ethtool -A"): with pause on (the
# default) a small, filling RX ring pauses the sender instead of dropping;
# with the receiver's tx pause off the same ring overflows and TCP has to
# retransmit. Bytes are compared either way.
setup_pair
pause=$(ip netns exec B ethtool -a innova1)
echo "$pause" | grep -q '^RX:[[:space:]]*on' && echo "$pause" | grep -q '^TX:[[:space:]]*on' ||
	die "pause not on by default: $pause"
ip netns exec B ethtool -A innova1 autoneg on 2>/dev/null && die "pause autoneg accepted"
ip netns exec B ethtool -G innova1 rx 16 || die "ethtool -G rx 16"

snap on; snap on.A A innova0
tcp_transfer A B $IP4_B 8000000
xoff=$(delta on tx_pause_ctrl_phy) honour=$(delta on.A rx_pause_ctrl_phy)
log "pause on, 16-slot ring: XOFF sent $xoff, honoured $honour, ring drops $(delta on rx_ring_drops)"
expect_delta on tx_pause_ctrl_phy -gt 0 "a 16-slot ring never filled (test too weak)"
[ "$honour" = "$xoff" ] || die "XOFF sent $xoff but honoured $honour"
expect_delta on rx_ring_drops -eq 0 "frames dropped with flow control on"
ip netns exec B ethtool --include-statistics -a innova1 2>/dev/null | grep -q 'tx_pause_frames: [1-9]' ||
	die "ethtool pause statistics missing"

ip netns exec B ethtool -A innova1 tx off || die "ethtool -A tx off"
snap off
tcp_transfer A B $IP4_B 8000000
drops=$(delta off rx_ring_drops)
log "pause off: XOFF sent $(delta off tx_pause_ctrl_phy), ring drops $drops (TCP retransmitted them)"
expect_delta off tx_pause_ctrl_phy -eq 0 "XOFF sent with tx pause off"
# A drop needs the sender to outrun NAPI by 16 frames: likely, not certain.
[ "$drops" -gt 0 ] || log "note: no ring overflow without pause this time"
ip netns exec B ethtool -A innova1 tx on
ip netns exec B ethtool -G innova1 rx 1024
