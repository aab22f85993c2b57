#!/bin/sh
# Seeded, reproducible faults on the Innova cable (in the guest, e.g. in
# `make shell`). Faults apply to frames the given port transmits.
#   cable.sh IFNAME [seed=N] [drop=PPM] [dup=PPM] [reorder=PPM] [gap=N]
#            [corrupt=PPM] [fixcsum=0|1] [delay=MS] [hold=MS]
#   cable.sh IFNAME clear        all faults off
#   cable.sh IFNAME show         knobs and counters
# PPM = parts per million (10000 = 1 %). The port may live in any netns.
set -e
dev=${1:?usage: cable.sh IFNAME [knob=value ...] | clear | show}; shift
dir=
for d in /sys/kernel/debug/innova/port*; do
	[ "$(cat "$d/ifname")" = "$dev" ] && dir=$d && break
done
[ -n "$dir" ] || { echo "cable.sh: no innova port named $dev" >&2; exit 1; }
show() {
	for k in seed drop_ppm dup_ppm reorder_ppm reorder_gap hold_ms corrupt_ppm corrupt_fix_csum delay_ms tcp_only; do
		printf '%s=%s ' "$k" "$(cat "$dir/$k")"
	done
	echo
	printf 'counters: dropped=%s duplicated=%s reordered=%s corrupted=%s delayed=%s\n' \
		"$(cat "$dir/dropped")" "$(cat "$dir/duplicated")" "$(cat "$dir/reordered")" \
		"$(cat "$dir/corrupted")" "$(cat "$dir/delayed")"
}
[ $# -gt 0 ] || { show; exit 0; }
for kv in "$@"; do
	case "$kv" in
	show) show; exit 0 ;;
	clear) for k in drop_ppm dup_ppm reorder_ppm corrupt_ppm corrupt_fix_csum delay_ms; do echo 0 > "$dir/$k"; done ;;
	seed=*) echo "${kv#*=}" > "$dir/seed" ;;
	drop=*) echo "${kv#*=}" > "$dir/drop_ppm" ;;
	dup=*) echo "${kv#*=}" > "$dir/dup_ppm" ;;
	reorder=*) echo "${kv#*=}" > "$dir/reorder_ppm" ;;
	gap=*) echo "${kv#*=}" > "$dir/reorder_gap" ;;
	hold=*) echo "${kv#*=}" > "$dir/hold_ms" ;;
	corrupt=*) echo "${kv#*=}" > "$dir/corrupt_ppm" ;;
	fixcsum=*) echo "${kv#*=}" > "$dir/corrupt_fix_csum" ;;
	delay=*) echo "${kv#*=}" > "$dir/delay_ms" ;;
	*) echo "cable.sh: unknown knob '$kv'" >&2; exit 2 ;;
	esac
done
echo "cable $dev ($(basename "$dir")): $(show | head -1)"
