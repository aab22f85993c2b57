# The module loads (pulling in tls.ko), creates a cabled pair with stock
# iproute2, and unloads cleanly, twice, with the ports removed by rmmod.
for round in 1 2; do
	modprobe innova || die "modprobe innova (round $round)"
	lsmod | grep -q '^innova ' || die "innova not in lsmod"
	# (a kernel with kTLS built in, like make test-debug's, has no tls.ko)
	grep -q '/tls\.ko$' /lib/modules/$(uname -r)/modules.builtin ||
		lsmod | awk '$1 == "tls" { print $4 }' | grep -q innova || die "innova does not depend on tls"
	ip link add innova0 type innova || die "create innova0"
	ip link add innova1 link innova0 type innova || die "create innova1 cabled to innova0"
	ip -d link show innova1 | grep -q innova || die "innova1 is not of kind innova"
	ethtool -i innova0 | grep -q 'driver: innova' || die "ethtool -i driver name"
	ethtool -k innova0 | grep -q 'tls-hw-rx-offload: on' || die "tls-hw-rx-offload not advertised"
	unload_module || die "rmmod innova (round $round)"
	ip link show innova0 >/dev/null 2>&1 && die "innova0 still exists after rmmod"
	passed "round $round: load, create pair, unload"
done
# A port cannot be cabled to something that is not an innova port.
modprobe innova
ip link add innova0 type innova
ip link add innova2 link lo type innova 2>/dev/null && die "cabling to lo was accepted"
ip link add innova1 link innova0 type innova
ip link add innova3 link innova0 type innova 2>/dev/null && die "second cable to innova0 accepted"
ip link del innova0
ip link del innova1
unload_module || die "final rmmod"
