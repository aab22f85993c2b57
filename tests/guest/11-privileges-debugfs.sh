# Ports are hardware: only the initial namespace's admin creates them.
# debugfs: knobs 0600, read-only files 0400; garbage, out-of-range and
# unknown-handle writes fail with EINVAL/ENOENT and change nothing.
load_module
if [ -e /proc/self/ns/user ]; then
	out=$(unshare -Urn sh -c 'ip link add x0 type innova' 2>&1) && die "a user namespace created a port"
	log "user namespace: $out"
	case "$out" in *"Operation not permitted"*|*CAP_NET_ADMIN*) ;; *) die "unexpected error: $out" ;; esac
else
	log "user namespace: this kernel has none (CONFIG_USER_NS off); nothing to check"
fi
setup_pair
for f in tls_flows ifname netns peer counters dropped injected loss_bursts tail_lost stalls forged; do
	[ "$(stat -c %a "$PORT_B/$f")" = 400 ] || die "$f mode $(stat -c %a "$PORT_B/$f"), want 400"
done
for f in seed drop_ppm dup_ppm reorder_ppm reorder_gap hold_ms corrupt_ppm corrupt_fix_csum delay_ms tcp_only dup_mangle inject_ahead burst_loss_ppm burst_len tail_loss_ppm stall_ppm stall_ms forge_ppm tls_fail_next_add tls_add_delay_ms tls_rx_up_delay_us tls_add_wait_max tls_crypto_fail_next tls_resync_mode tls_reorder_recovery; do
	[ "$(stat -c %a "$PORT_B/$f")" = 600 ] || die "$f mode $(stat -c %a "$PORT_B/$f"), want 600"
done
[ "$(stat -c %a "$DBG/objects")" = 400 ] || die "objects mode"
# write_fails FILE VALUE ERRNO-TEXT: the write fails with that error and
# the file reads the same afterwards
write_fails() {
	before=$(cat "$1")
	out=$( (/usr/bin/printf '%s' "$2" > "$1") 2>&1) && die "$(basename "$1") accepted '$2'"
	case "$out" in *"$3"*) ;; *) die "$(basename "$1") '$2': $out (want $3)" ;; esac
	[ "$(cat "$1")" = "$before" ] || die "$(basename "$1") changed by a rejected write"
}
for k in drop_ppm dup_ppm reorder_ppm corrupt_ppm tail_loss_ppm stall_ppm forge_ppm; do
	write_fails "$PORT_A/$k" garbage "Invalid argument"
	write_fails "$PORT_A/$k" 1000001 "Invalid argument"
	write_fails "$PORT_A/$k" -1 "Invalid argument"
done
write_fails "$PORT_A/reorder_gap" 1001 "Invalid argument"
write_fails "$PORT_A/hold_ms" 10001 "Invalid argument"
write_fails "$PORT_A/delay_ms" 99999999999 "Invalid argument"
write_fails "$PORT_A/corrupt_fix_csum" 2 "Invalid argument"
write_fails "$PORT_A/tcp_only" 2 "Invalid argument"
write_fails "$PORT_A/dup_mangle" 3 "Invalid argument"
write_fails "$PORT_A/inject_ahead" 2147483648 "Invalid argument"
write_fails "$PORT_A/seed" xyz "Invalid argument"
write_fails "$PORT_A/burst_loss_ppm" 1000000 "Invalid argument"
write_fails "$PORT_A/burst_len" 1001 "Invalid argument"
write_fails "$PORT_A/stall_ms" 10001 "Invalid argument"
write_fails "$PORT_A/tls_add_delay_ms" 10001 "Invalid argument"
write_fails "$PORT_B/tls_rx_up_delay_us" 2001 "Invalid argument"
write_fails "$PORT_B/tls_add_wait_max" 101 "Invalid argument"
write_fails "$PORT_B/tls_add_wait_max" -1 "Invalid argument"
write_fails "$PORT_B/tls_fail_next_add" 2147483648 "Invalid argument"
write_fails "$PORT_B/tls_crypto_fail_next" 4294967296 "Invalid argument"
write_fails "$PORT_B/tls_crypto_fail_next" nope "Invalid argument"
write_fails "$PORT_B/tls_reorder_recovery" 2 "Invalid argument"
write_fails "$PORT_B/tls_resync_mode" bogus "Invalid argument"
for bad in "x" "1" "1 2" "1 2 maybe" "1 2 good extra-long-garbage-that-overflows-the-kind-field"; do
	out=$( (/usr/bin/printf '%s' "$bad" > "$PORT_B/tls_key_update") 2>&1) && die "tls_key_update accepted '$bad'"
	case "$out" in *"Invalid argument"*|*"No such file"*) ;; *) die "tls_key_update '$bad': $out" ;; esac
done
out=$( (/usr/bin/printf '4242 5 good' > "$PORT_B/tls_key_update") 2>&1) && die "key update for an unknown handle accepted"
case "$out" in *"No such file"*) ;; *) die "unknown handle: $out (want ENOENT)" ;; esac
# and good writes still work
echo 250 > "$PORT_A/drop_ppm" && [ "$(cat "$PORT_A/drop_ppm")" = 250 ] || die "valid write"
echo 0 > "$PORT_A/drop_ppm"
echo core_next_hint > "$PORT_B/tls_resync_mode" && [ "$(cat "$PORT_B/tls_resync_mode")" = core_next_hint ] || die "mode write"
passed "privileges, modes and rejected writes as expected"
