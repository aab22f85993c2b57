#!/bin/sh
# Seeded, reproducible faults on the Innova cable (in the guest, e.g. in
# `make shell`). Faults apply to frames the given port transmits.
#   cable.sh IFNAME [seed=N] [drop=PPM] [dup=PPM] [reorder=PPM] [gap=N]
#            [corrupt=PPM] [fixcsum=0|1] [delay=MS] [hold=MS]
#            [mangle=0|1|2] (duplicates for another host / VLAN-tagged, sent first)
#            [ahead=BYTES] (one copy of the next data segment BYTES ahead)
#            [burst=PPM] [burstlen=N] (bursty loss, Gilbert-Elliott: PPM of
#            the frames lost on average, in bursts of N frames on average)
#            [tail=PPM] (lose frames that end a TLS record, with this
#            probability; connections opened after it is set)
#            [stall=PPM] [stallms=MS] (a data frame stops the direction
#            for MS ms with this probability; past the sender's RTO, TCP
#            sends the window again)
#            [forge=PPM] (a data frame is preceded by a forged copy the
#            receiving TCP drops: ACK of unsent data, no ACK flag, 16 MiB
#            old or 2^30 ahead; a TLS header and random bytes from a
#            random offset)
#   cable.sh IFNAME clear        all faults off
#   cable.sh IFNAME show         knobs and counters
# PPM = parts per million (10000 = 1 %). The port may live in any netns.
#   cable.sh -n NETNS IFNAME ...   the port named IFNAME in netns NETNS
#                                  (needed when several ports share a name)
set -e
ns=
if [ "${1:-}" = -n ]; then ns=${2:?-n needs a netns name}; shift 2; fi
dev=${1:?usage: cable.sh [-n NETNS] IFNAME [knob=value ...] | clear | show}; shift
want=
if [ -n "$ns" ]; then
	want=$(ip netns exec "$ns" readlink /proc/self/ns/net | tr -dc 0-9) ||
		{ echo "cable.sh: no netns $ns" >&2; exit 1; }
fi
dir= n=0
for d in /sys/kernel/debug/innova/port*; do
	[ "$(cat "$d/ifname" 2>/dev/null)" = "$dev" ] || continue
	[ -z "$want" ] || [ "$(cat "$d/netns")" = "$want" ] || continue
	dir=$d n=$((n + 1))
done
[ $n -gt 0 ] || { echo "cable.sh: no innova port named $dev${ns:+ in netns $ns}" >&2; exit 1; }
[ $n -eq 1 ] || { echo "cable.sh: $n ports named $dev; say which with -n NETNS" >&2; exit 1; }
show() {
	for k in seed drop_ppm dup_ppm reorder_ppm reorder_gap hold_ms corrupt_ppm corrupt_fix_csum delay_ms tcp_only dup_mangle inject_ahead burst_loss_ppm burst_len tail_loss_ppm stall_ppm stall_ms forge_ppm; do
		printf '%s=%s ' "$k" "$(cat "$dir/$k")"
	done
	echo
	printf 'counters: dropped=%s duplicated=%s reordered=%s corrupted=%s delayed=%s injected=%s loss_bursts=%s tail_lost=%s stalls=%s forged=%s\n' \
		"$(cat "$dir/dropped")" "$(cat "$dir/duplicated")" "$(cat "$dir/reordered")" \
		"$(cat "$dir/corrupted")" "$(cat "$dir/delayed")" "$(cat "$dir/injected")" "$(cat "$dir/loss_bursts")" \
		"$(cat "$dir/tail_lost")" "$(cat "$dir/stalls")" "$(cat "$dir/forged")"
}
[ $# -gt 0 ] || { show; exit 0; }
for kv in "$@"; do
	case "$kv" in
	show) show; exit 0 ;;
	clear) for k in drop_ppm dup_ppm reorder_ppm corrupt_ppm corrupt_fix_csum delay_ms dup_mangle inject_ahead burst_loss_ppm burst_len tail_loss_ppm stall_ppm stall_ms forge_ppm; do echo 0 > "$dir/$k"; done ;;
	seed=*) echo "${kv#*=}" > "$dir/seed" ;;
	drop=*) echo "${kv#*=}" > "$dir/drop_ppm" ;;
	dup=*) echo "${kv#*=}" > "$dir/dup_ppm" ;;
	reorder=*) echo "${kv#*=}" > "$dir/reorder_ppm" ;;
	gap=*) echo "${kv#*=}" > "$dir/reorder_gap" ;;
	hold=*) echo "${kv#*=}" > "$dir/hold_ms" ;;
	corrupt=*) echo "${kv#*=}" > "$dir/corrupt_ppm" ;;
	fixcsum=*) echo "${kv#*=}" > "$dir/corrupt_fix_csum" ;;
	delay=*) echo "${kv#*=}" > "$dir/delay_ms" ;;
	mangle=*) echo "${kv#*=}" > "$dir/dup_mangle" ;;
	ahead=*) echo "${kv#*=}" > "$dir/inject_ahead" ;;
	burst=*) echo "${kv#*=}" > "$dir/burst_loss_ppm" ;;
	burstlen=*) echo "${kv#*=}" > "$dir/burst_len" ;;
	tail=*) echo "${kv#*=}" > "$dir/tail_loss_ppm" ;;
	stall=*) echo "${kv#*=}" > "$dir/stall_ppm" ;;
	stallms=*) echo "${kv#*=}" > "$dir/stall_ms" ;;
	forge=*) echo "${kv#*=}" > "$dir/forge_ppm" ;;
	*) echo "cable.sh: unknown knob '$kv'" >&2; exit 2 ;;
	esac
done
echo "cable $dev ($(basename "$dir")): $(show | head -1)"
