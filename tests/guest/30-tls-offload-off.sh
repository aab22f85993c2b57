# With tls-hw-rx-offload off on the receiving port, kTLS takes the software
# path and the bytes still arrive intact.
setup_pair
ip netns exec B ethtool -K innova1 tls-hw-rx-offload off || die "ethtool -K off"
ip netns exec B ethtool -k innova1 | grep -q 'tls-hw-rx-offload: off' || die "feature still on"
tls_run $IP4_B "--rx-mode manual --bytes 2M" "--tx-mode ktls --bytes 2M"
expect_intact 2097152
expect_path software
