#!/bin/sh
# tc netem profiles on a sending port (in the guest). Prints what it applied.
#   netem.sh NETNS IFNAME PROFILE     apply (replaces any root qdisc)
#   netem.sh NETNS IFNAME clear       remove
# Profiles: loss0.5 loss1 loss5 reorder5 reorder25 dup5 jitter corrupt0.1 rate
#   gemodel:PCT:B   bursty loss, Gilbert-Elliott as netem's "loss gemodel":
#                   PCT % of the packets lost on average, in bursts of B
#                   packets on average (the cable's burst=/burstlen= model)
# (reorder needs a delay: netem reorders by sending some packets early.)
set -e
ns=${1:?usage: netem.sh NETNS IFNAME PROFILE|clear}; dev=${2:?}; prof=${3:?}
case "$prof" in
clear) ip netns exec "$ns" tc qdisc del dev "$dev" root 2>/dev/null || true; echo "netem: cleared on $ns/$dev"; exit 0 ;;
loss0.5) args="loss random 0.5%" ;;
loss1) args="loss random 1%" ;;
loss5) args="loss random 5%" ;;
reorder5) args="delay 5ms reorder 95% 50%" ;;
reorder25) args="delay 5ms reorder 75% 50%" ;;
dup5) args="duplicate 5%" ;;
jitter) args="delay 3ms 2ms distribution normal" ;;
corrupt0.1) args="corrupt 0.1%" ;;
rate) args="rate 200mbit" ;;
gemodel:*:*)
	# good->bad p, bad->good r = 1/B; the bad state loses all, the good
	# none: p / (p + r) of the packets are lost
	args=$(echo "$prof" | awk -F: '{ L = $2 / 100; r = 1 / $3; if (L <= 0 || L >= 1 || $3 < 1) exit 1
		printf "loss gemodel %.6f%% %.6f%% 100%% 0%%", 100 * r * L / (1 - L), 100 * r }') ||
		{ echo "netem.sh: bad profile '$prof' (gemodel:PCT:B, 0 < PCT < 100, B >= 1)" >&2; exit 2; } ;;
*) echo "netem.sh: unknown profile '$prof'" >&2; exit 2 ;;
esac
ip netns exec "$ns" tc qdisc replace dev "$dev" root netem $args
echo "netem: $ns/$dev root netem $args"
