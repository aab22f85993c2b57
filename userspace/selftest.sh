#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Smoke test of innova-tls over loopback; prints TAP. Usage: selftest.sh PATH/TO/innova-tls
#
# Runs anywhere (host or guest). Where the kernel has kTLS it also runs the
# manual/openssl kTLS modes; where it has none it checks they fail cleanly.
set -u
BIN=${1:?usage: selftest.sh PATH/TO/innova-tls}
[ -x "$BIN" ] || { echo "Bail out! $BIN is not executable"; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# below the ephemeral range (32768 on): a port the kernel handed to an
# earlier test's connecting socket is not free to listen on (EADDRINUSE)
PORT=$((20000 + $$ % 10000))
N=0
FAIL=0

ok()     { N=$((N + 1)); echo "ok $N - $1"; }
not_ok() { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
skip()   { N=$((N + 1)); echo "ok $N - $1 # SKIP $2"; }

# pair NAME "RECV ARGS" "SEND ARGS" WANT_RECV_RC WANT_SEND_RC [REGEX that recv JSON must match
#      [REGEX that send JSON must match]]
# Runs on the next free loopback port on $HOST.
pair() {
	local name=$1 rargs=$2 sargs=$3 want_r=$4 want_s=$5 re=${6:-} sre=${7:-} rr sr rp
	PORT=$((PORT + 1))
	local addr="$HOST:$PORT"
	# shellcheck disable=SC2086
	"$BIN" recv --listen "$addr" --timeout 30 --quiet $rargs >"$TMP/r.json" 2>"$TMP/r.err" &
	rp=$!
	# shellcheck disable=SC2086
	"$BIN" send --connect "$addr" --timeout 30 --quiet $sargs >"$TMP/s.json" 2>"$TMP/s.err"
	sr=$?
	wait "$rp"
	rr=$?
	if [ "$rr" != "$want_r" ] || { [ "$want_s" != any ] && [ "$sr" != "$want_s" ]; }; then
		not_ok "$name" "recv rc=$rr (want $want_r), send rc=$sr (want $want_s)" \
			"recv: $(cat "$TMP/r.json")" "send: $(cat "$TMP/s.json")"
	elif [ "$(wc -l <"$TMP/r.json")" != 1 ]; then
		not_ok "$name" "recv printed $(wc -l <"$TMP/r.json") stdout lines, want exactly 1"
	elif [ -n "$re" ] && ! grep -Eq -- "$re" "$TMP/r.json"; then
		not_ok "$name" "recv JSON does not match /$re/" "recv: $(cat "$TMP/r.json")"
	elif [ -n "$sre" ] && ! grep -Eq -- "$sre" "$TMP/s.json"; then
		not_ok "$name" "send JSON does not match /$sre/" "send: $(cat "$TMP/s.json")"
	else
		ok "$name"
	fi
}

# json_valid NAME: the last pair's recv and send reports parse as JSON.
json_valid() {
	if ! command -v python3 >/dev/null; then
		skip "$1" "no python3"
	elif python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$TMP/r.json" 2>/dev/null &&
	     python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$TMP/s.json" 2>/dev/null
	then ok "$1"; else not_ok "$1" "$(cat "$TMP/r.json")" "$(cat "$TMP/s.json")"; fi
}

# --- argument handling: usage errors exit 2 with usage text ---
usage_case() {
	local name=$1; shift
	"$BIN" "$@" >/dev/null 2>"$TMP/u.err"
	local rc=$?
	if [ $rc = 2 ] && grep -q '^usage:' "$TMP/u.err"; then ok "usage: $name -> exit 2"
	else not_ok "usage: $name -> exit 2" "rc=$rc" "$(head -3 "$TMP/u.err")"; fi
}
usage_case "no role"
usage_case "unknown role" frobnicate
usage_case "recv without --listen" recv
usage_case "bad cipher" send --connect 127.0.0.1:1 --cipher rc4
usage_case "record size 0" send --connect 127.0.0.1:1 --record-size 0
usage_case "record size 16385" send --connect 127.0.0.1:1 --record-size 16385
usage_case "bad random range" send --connect 127.0.0.1:1 --record-size random:9-3
usage_case "bad address" send --connect 127.0.0.1 --bytes 1
usage_case "bad bytes suffix" send --connect 127.0.0.1:1 --bytes 1X
usage_case "--ccs-at with tx-mode user" send --connect 127.0.0.1:1 --ccs-at 3
usage_case "send option on recv" recv --listen 127.0.0.1:1 --record-size 5
usage_case "--rx-delay on send" send --connect 127.0.0.1:1 --rx-delay 5
usage_case "--rx-delay with rx-mode user" recv --listen 127.0.0.1:1 --rx-mode user --rx-delay 5
usage_case "--rx-delay too long" recv --listen 127.0.0.1:1 --rx-delay 60001
usage_case "--malformed with tx-mode user" send --connect 127.0.0.1:1 --malformed version
usage_case "--malformed with tx-mode ktls" send --connect 127.0.0.1:1 --tx-mode ktls --malformed oversize
usage_case "--malformed unknown kind" send --connect 127.0.0.1:1 --tx-mode sim --malformed bogus
usage_case "--malformed K = 0" send --connect 127.0.0.1:1 --tx-mode sim --malformed type0@0
usage_case "--malformed K not a number" send --connect 127.0.0.1:1 --tx-mode sim --malformed type0@x
usage_case "--malformed on recv" recv --listen 127.0.0.1:1 --malformed version
usage_case "--expect-error unknown name" recv --listen 127.0.0.1:1 --expect-error EFOO
usage_case "--expect-error on send" send --connect 127.0.0.1:1 --expect-error EBADMSG
usage_case "--sport 0" send --connect 127.0.0.1:1 --sport 0
usage_case "--sport 65536" send --connect 127.0.0.1:1 --sport 65536
usage_case "--sport with --flows 2" send --connect 127.0.0.1:1 --sport 40000 --flows 2
usage_case "--sport on recv" recv --listen 127.0.0.1:1 --sport 40000
usage_case "--read-delay-us too long" recv --listen 127.0.0.1:1 --read-delay-us 1000001
usage_case "--read-delay-us negative" recv --listen 127.0.0.1:1 --read-delay-us -1
usage_case "--read-delay-us on send" send --connect 127.0.0.1:1 --read-delay-us 0
usage_case "--tls13 with aes128ccm" send --connect 127.0.0.1:1 --tls13 --cipher aes128ccm
usage_case "--tls13 with aes128ccm (recv, cipher first)" recv --listen 127.0.0.1:1 --cipher aes128ccm --tls13
usage_case "--tls13 with --malformed" send --connect 127.0.0.1:1 --tls13 --tx-mode sim --malformed type0
usage_case "--tls13 takes no value" send --connect 127.0.0.1:1 --tls13=1
usage_case "--seed-keys with --tls13" send --connect 127.0.0.1:1 --seed-keys 1 --tls13
usage_case "--seed-keys with --tls13 (recv)" recv --listen 127.0.0.1:1 --tls13 --seed-keys 1 --rx-mode sim
usage_case "--seed-keys with aes128ccm" send --connect 127.0.0.1:1 --seed-keys 1 --cipher aes128ccm
usage_case "--seed-keys with chacha20 (recv)" recv --listen 127.0.0.1:1 --seed-keys 1 --cipher chacha20
usage_case "--seed-keys with rx-mode user" recv --listen 127.0.0.1:1 --seed-keys 1 --rx-mode user
usage_case "--seed-keys with rx-mode openssl" recv --listen 127.0.0.1:1 --rx-mode openssl --seed-keys 1
usage_case "--seed-keys with tx-mode user" send --connect 127.0.0.1:1 --seed-keys 1 --tx-mode user
usage_case "--seed-keys not a number" send --connect 127.0.0.1:1 --seed-keys x1
usage_case "--seed-keys negative" recv --listen 127.0.0.1:1 --seed-keys -1
usage_case "--seed-keys with --ccs-at" send --connect 127.0.0.1:1 --seed-keys 1 --tx-mode sim --ccs-at 2
usage_case "--seed-keys with --expect-error" recv --listen 127.0.0.1:1 --seed-keys 1 --expect-error EBADMSG
usage_case "--key-update without --tls13" send --connect 127.0.0.1:1 --key-update 10
usage_case "--key-update 0" send --connect 127.0.0.1:1 --tls13 --key-update 0
usage_case "--key-update 20001" send --connect 127.0.0.1:1 --tls13 --key-update 20001
usage_case "--key-update random:5-3" send --connect 127.0.0.1:1 --tls13 --key-update random:5-3
usage_case "--key-update random:0-3" send --connect 127.0.0.1:1 --tls13 --key-update random:0-3
usage_case "--key-update random:1-20001" send --connect 127.0.0.1:1 --tls13 --key-update random:1-20001
usage_case "--key-update burst:0/5" send --connect 127.0.0.1:1 --tls13 --key-update burst:0/5
usage_case "--key-update burst:65/5" send --connect 127.0.0.1:1 --tls13 --key-update burst:65/5
usage_case "--key-update burst:3 (no interval)" send --connect 127.0.0.1:1 --tls13 --key-update burst:3
usage_case "--key-update bogus" send --connect 127.0.0.1:1 --tls13 --key-update every
for spec in burst:64/20000 random:1-20000; do
	"$BIN" send --connect 127.0.0.1:1 --tls13 --key-update $spec --timeout 1 --quiet >/dev/null 2>&1
	rc=$?
	if [ $rc != 2 ]; then ok "--key-update $spec is accepted (rc=$rc, no peer)"
	else not_ok "--key-update $spec is accepted" "usage error"; fi
done
usage_case "--key-update on recv" recv --listen 127.0.0.1:1 --tls13 --key-update 10
usage_case "--key-update-wrong-key on send" send --connect 127.0.0.1:1 --tls13 --key-update-wrong-key 1
usage_case "--key-update-wrong-key 0" recv --listen 127.0.0.1:1 --tls13 --key-update-wrong-key 0
usage_case "--key-update-wrong-key without --tls13" recv --listen 127.0.0.1:1 --key-update-wrong-key 1
usage_case "--key-update-wrong-key with rx-mode user" recv --listen 127.0.0.1:1 --tls13 --rx-mode user --key-update-wrong-key 1
usage_case "--key-update-lazy with rx-mode sim" recv --listen 127.0.0.1:1 --tls13 --rx-mode sim --key-update-lazy
usage_case "--key-update-lazy on send" send --connect 127.0.0.1:1 --tls13 --key-update-lazy
usage_case "--flows 1025 without --seed-keys" send --connect 127.0.0.1:1 --flows 1025
usage_case "--flows 16385 with --seed-keys" send --connect 127.0.0.1:1 --seed-keys 1 --flows 16385
if "$BIN" --help | grep -q -- '--seed-keys SEED'; then ok "--help documents --seed-keys"
else not_ok "--help documents --seed-keys"; fi
if "$BIN" --help | grep -q -- '--tls13'; then ok "--help documents --tls13"
else not_ok "--help documents --tls13"; fi
if "$BIN" --help | grep -q -- '--key-update SPEC'; then ok "--help documents --key-update"
else not_ok "--help documents --key-update"; fi
if "$BIN" --help | grep -q 'does NOT verify'; then ok "--help exits 0 and warns about no verification"
else not_ok "--help exits 0 and warns about no verification"; fi

# --- userspace OpenSSL mode over IPv4 and IPv6 ---
for HOST in 127.0.0.1 '[::1]'; do
	for c in aes128gcm aes256gcm; do
		pair "user $HOST $c fixed 16384, 1 flow" "--rx-mode user --cipher $c --bytes 1M" \
			"--cipher $c --bytes 1M" 0 0 '"ok":true,"flows":1,"bytes":1048576,"records":64,'
		pair "user $HOST $c random sizes, 4 flows" "--rx-mode user --cipher $c --bytes 1M --flows 4 --seed 7" \
			"--cipher $c --bytes 1M --flows 4 --record-size random --seed 7" 0 0 \
			'"ok":true,"flows":4,"bytes":4194304,'
	done
done
HOST=127.0.0.1
pair "user small random records 1-64" "--rx-mode user --bytes 100k --seed 3" \
	"--bytes 100k --record-size random:1-64 --seed 3" 0 0 '"ok":true'
pair "recv without --bytes accepts any length" "--rx-mode user" "--bytes 12345" 0 0 '"bytes":12345,'
pair "stream shorter than 8 bytes, 2 flows" "--rx-mode user --flows 2" "--bytes 3 --flows 2" 0 0 '"bytes":6,'

# --- verifier catches damage ---
pair "corrupted byte is reported at its offset" "--rx-mode user --bytes 1M" "--bytes 1M --corrupt-at 123457" \
	1 any '"ok":false.*"bad_offset":123457,.*mismatch at offset 123457'
pair "corruption in the first 8 bytes is reported exactly" "--rx-mode user --bytes 1M" "--bytes 1M --corrupt-at 5" \
	1 any '"bad_offset":5,.*flow 0: payload mismatch at offset 5 '
pair "corruption in the first bytes of one of 4 flows" "--rx-mode user --flows 4 --seed 9" \
	"--flows 4 --seed 9 --bytes 64k --corrupt-at 6" 1 any '"bad_offset":6,'
pair "wrong seed is detected at offset 0" "--rx-mode user --seed 2" "--seed 3 --bytes 64k" \
	1 any '"bad_offset":0,'
pair "short stream is an error" "--rx-mode user --bytes 2M" "--bytes 1M" 1 any 'ended after 1048576 of 2097152'
pair "cipher mismatch fails the handshake" "--rx-mode user --cipher aes256gcm" "--cipher aes128gcm" \
	1 1 'TLS handshake'

# --- key derivation + sequence accounting via the userspace kTLS model ---
for c in aes128gcm aes256gcm aes128ccm chacha20; do
	pair "sim TX -> OpenSSL RX, $c" "--rx-mode user --cipher $c --bytes 300k" \
		"--tx-mode sim --cipher $c --bytes 300k --record-size random" 0 0 '"ok":true'
	pair "OpenSSL TX -> sim RX, $c" "--rx-mode sim --cipher $c --bytes 300k" \
		"--cipher $c --bytes 300k --record-size random:1-2000" 0 0 '"ok":true'
	pair "sim TX -> sim RX with 3 rekey markers, $c" "--rx-mode sim --cipher $c --bytes 100000" \
		"--tx-mode sim --cipher $c --bytes 100000 --record-size 1000 --ccs-at 1,50,100" 0 0 \
		'"records":100,"rekey_markers":3,'
done

# --- TLS 1.3 (--tls13): handshake, HKDF-Expand-Label keys and the 1.3 record layer, proven against
#     OpenSSL through the sim model (kernel kTLS below when the host has it) ---
for c in aes128gcm aes256gcm chacha20; do
	pair "TLS 1.3 user -> user, $c" "--tls13 --rx-mode user --cipher $c --bytes 300k" \
		"--tls13 --cipher $c --bytes 300k --record-size random" 0 0 \
		"\"ok\":true,\"flows\":1,\"bytes\":307200,.*\"cipher\":\"$c\",\"tls_version\":\"1.3\"," \
		"\"ok\":true,.*\"tls_version\":\"1.3\","
	pair "TLS 1.3 sim TX -> OpenSSL RX, $c" "--tls13 --rx-mode user --cipher $c --bytes 300k" \
		"--tls13 --tx-mode sim --cipher $c --bytes 300k --record-size random" 0 0 '"ok":true'
	pair "TLS 1.3 OpenSSL TX -> sim RX, $c" "--tls13 --rx-mode sim --cipher $c --bytes 300k" \
		"--tls13 --cipher $c --bytes 300k --record-size random:1-2000" 0 0 '"ok":true'
done
pair "TLS 1.3 sim -> sim, 4 flows, 100 records + 2 type-20 records each" \
	"--tls13 --rx-mode sim --cipher aes256gcm --flows 4 --bytes 100000" \
	"--tls13 --tx-mode sim --cipher aes256gcm --flows 4 --bytes 100000 --record-size 1000 --ccs-at 1,50" 0 0 \
	'"ok":true,"flows":4,"bytes":400000,"records":400,"rekey_markers":8,.*"tls_version":"1.3"'
pair "TLS 1.3 user RX counts application-data records only" "--tls13 --rx-mode user --bytes 100000" \
	"--tls13 --bytes 100000 --record-size 1000" 0 0 '"ok":true,"flows":1,"bytes":100000,"records":100,'
pair "TLS 1.3 corrupted byte is reported at its offset" "--tls13 --rx-mode sim --bytes 1M" \
	"--tls13 --tx-mode sim --bytes 1M --corrupt-at 77777" 1 any '"ok":false.*"bad_offset":77777,'
pair "--tls13 on recv only: handshake fails" "--tls13 --rx-mode user" "--bytes 1k" 1 1 'TLS handshake'
pair "--tls13 on send only: handshake fails" "--rx-mode user" "--tls13 --bytes 1k" 1 1 'TLS handshake' \
	'"tls_version":"1.3",.*TLS handshake'
pair "TLS 1.2 reports say tls_version 1.2" "--rx-mode user" "--bytes 1k" 0 0 \
	'"cipher":"aes128gcm","tls_version":"1.2","ktls":false,' '"tls_version":"1.2",'
json_valid "TLS 1.3 report lines are valid JSON"

# --- TLS 1.3 KeyUpdate (--key-update, issue 23) ---
# Known answers: RFC 8448 key/iv, "traffic upd" against HMAC, OpenSSL's own SSL_key_update records
# opened with the keys derived here (AES-128/256-GCM, ChaCha20), the sender's schedule.
if "$BIN" selftest-keyupdate >"$TMP/ku.tap" 2>&1 && ! grep -q '^not ok' "$TMP/ku.tap" &&
   [ "$(grep -c '^ok' "$TMP/ku.tap")" = "$(sed -n 's/^1\.\.//p' "$TMP/ku.tap")" ]; then
	ok "selftest-keyupdate ($(grep -c '^ok' "$TMP/ku.tap") known-answer and cross-checks)"
else
	not_ok "selftest-keyupdate" "$(grep -v '^ok' "$TMP/ku.tap" | head -10)"
fi
# ku_counts NAME N: the last pair's sender sent N KeyUpdates (N = - : any, at least one) and the
# receiver read and installed exactly as many
ku_counts() {
	local s r i
	s=$(sed -n 's/.*"key_updates_sent":\([0-9]*\).*/\1/p' "$TMP/s.json")
	r=$(sed -n 's/.*"key_updates_received":\([0-9]*\).*/\1/p' "$TMP/r.json")
	i=$(sed -n 's/.*"rekeys_installed":\([0-9]*\).*/\1/p' "$TMP/r.json")
	if [ -n "$s" ] && [ "$s" = "$r" ] && [ "$r" = "$i" ] && { [ "$2" = - ] && [ "$s" -ge 1 ] || [ "$s" = "$2" ]; }
	then ok "$1: $s KeyUpdates sent, received and installed"
	else not_ok "$1: KeyUpdates sent ${s:-?} (want $2), received ${r:-?}, installed ${i:-?}"; fi
}
# 128 KiB in 2 KiB records = 64 records: every 1 -> 63 updates, every 10 -> 6, burst:4/16 -> 12.
# OpenSSL's KeyUpdates into the harness's derivation (user -> sim) and the other way (sim -> user)
# for every suite; the other intervals once each (this script also runs in the TCG guest: test 15).
for c in aes128gcm aes256gcm chacha20; do
	for p in user:sim sim:user; do
		tx=${p%:*} rx=${p#*:}
		pair "KeyUpdate every record, $tx TX -> $rx RX, $c" "--tls13 --rx-mode $rx --cipher $c --bytes 128k" \
			"--tls13 --tx-mode $tx --cipher $c --bytes 128k --record-size 2048 --key-update 1" 0 0 \
			'"ok":true,"flows":1,"bytes":131072,"records":64,' \
			"\"ok\":true,.*\"key_updates_sent\":63,\"key_update_tx\":\"$tx\",\"key_update_note\":null,"
		ku_counts "KeyUpdate every record, $tx TX -> $rx RX, $c" 63
	done
done
for p in user:user sim:sim; do
	tx=${p%:*} rx=${p#*:}
	pair "KeyUpdate every 10 records, $tx TX -> $rx RX" "--tls13 --rx-mode $rx --bytes 128k" \
		"--tls13 --tx-mode $tx --bytes 128k --record-size 2048 --key-update 10" 0 0 '"ok":true,"flows":1,"bytes":131072,"records":64,'
	ku_counts "KeyUpdate every 10 records, $tx TX -> $rx RX" 6
done
pair "KeyUpdate at random 1-7 records, random sizes, 3 flows, user TX -> sim RX" \
	"--tls13 --rx-mode sim --cipher aes256gcm --flows 3 --seed 11" \
	"--tls13 --tx-mode user --cipher aes256gcm --flows 3 --seed 11 --bytes 100k --record-size random:1-4000 --key-update random:1-7" \
	0 0 '"ok":true,"flows":3,"bytes":307200,'
ku_counts "KeyUpdate at random 1-7 records, user TX -> sim RX" -
pair "KeyUpdate bursts of 4 every 16 records, sim TX -> user RX" "--tls13 --rx-mode user --bytes 128k" \
	"--tls13 --tx-mode sim --bytes 128k --record-size 2048 --key-update burst:4/16" 0 0 '"ok":true,"flows":1,"bytes":131072,"records":64,'
ku_counts "KeyUpdate bursts of 4 every 16 records, sim TX -> user RX" 12
pair "KeyUpdate random: the same --seed gives the same schedule (1/2)" "--tls13 --rx-mode sim --seed 99" \
	"--tls13 --tx-mode sim --bytes 200k --record-size 1000 --key-update random:1-30 --seed 99" 0 0 '"ok":true'
ku1=$(sed -n 's/.*"key_updates_sent":\([0-9]*\).*/\1/p' "$TMP/s.json")
pair "KeyUpdate random: the same --seed gives the same schedule (2/2)" "--tls13 --rx-mode sim --seed 99" \
	"--tls13 --tx-mode sim --bytes 200k --record-size 1000 --key-update random:1-30 --seed 99" 0 0 \
	"\"ok\":true,.*\"key_updates_received\":$ku1,"
pair "--key-update-wrong-key 2: EBADMSG on the first record after the 2nd update, every byte before it verified" \
	"--tls13 --rx-mode sim --key-update-wrong-key 2 --expect-error EBADMSG --bytes 327680" \
	"--tls13 --bytes 1M --key-update 10" 0 any \
	'"ok":true,"flows":1,"bytes":327680,"records":20,.*"bad_offset":null,"expect_error":"EBADMSG","error_errno":"EBADMSG","key_updates_received":2,"rekeys_installed":2,"key_expired_seen":0,"key_update_wrong_key":2,.*deliberately wrong'
pair "--key-update-wrong-key without --expect-error fails the run" "--tls13 --rx-mode sim --key-update-wrong-key 1" \
	"--tls13 --tx-mode sim --bytes 1M --key-update 5" 1 any \
	'"ok":false,"flows":1,"bytes":81920,.*"bad_offset":null,"error_errno":"EBADMSG",.*authentication failed.*deliberately wrong'
pair "--key-update-wrong-key past the last update changes nothing" "--tls13 --rx-mode sim --key-update-wrong-key 7" \
	"--tls13 --tx-mode sim --bytes 128k --record-size 2048 --key-update 10" 0 0 '"ok":true,.*"key_updates_received":6,'
printf 'TlsTxSw\t0\nTlsRxSw\t0\n' >"$TMP/tls_stat_norekey"
INNOVA_TLS_STAT=$TMP/tls_stat_norekey pair "tx-mode ktls without kernel TX rekey falls back to SSL_write, saying so" \
	"--tls13 --rx-mode sim --bytes 1M" "--tls13 --tx-mode ktls --bytes 1M --key-update 10" 0 0 \
	'"ok":true,"flows":1,"bytes":1048576,"records":64,' \
	'"tx_mode":"ktls",.*"ktls":false,.*"key_updates_sent":6,"key_update_tx":"user","key_update_note":"kTLS TX cannot rekey on this kernel'
pair "TLS 1.3 reports without --key-update: receiver counts 0, sender has no key_update keys" \
	"--tls13 --rx-mode sim" "--tls13 --tx-mode sim --bytes 10k" 0 0 \
	'"key_updates_received":0,"rekeys_installed":0,"key_expired_seen":0,"tls_stat":' '"bad_offset":null,"tls_stat":'
json_valid "KeyUpdate report lines are valid JSON"

# --- --seed-keys: no handshake, keys from (seed, client port), many flows in one thread each side ---
pair "seed keys: 200 flows sim -> sim, every byte verified" \
	"--seed-keys 77 --rx-mode sim --flows 200 --bytes 2000 --seed 5" \
	"--seed-keys 77 --tx-mode sim --flows 200 --bytes 2000 --seed 5 --record-size 500" 0 0 \
	'^\{"role":"recv","ok":true,"flows":200,"bytes":400000,"records":800,.*"rx_mode":"sim","cipher":"aes128gcm","tls_version":"1.2","ktls":false,"bad_offset":null,"key_source":"seed","connect_seconds":[0-9.]+,"tls_stat":' \
	'"ok":true,"flows":200,"bytes":400000,"records":800,.*"key_source":"seed","connect_seconds":'
json_valid "seed keys: report lines are valid JSON"
pair "seed keys: aes256gcm, 20 flows, random record sizes" \
	"--seed-keys 18446744073709551615 --rx-mode sim --cipher aes256gcm --flows 20 --bytes 40k" \
	"--seed-keys 18446744073709551615 --tx-mode sim --cipher aes256gcm --flows 20 --bytes 40k --record-size random" \
	0 0 '"ok":true,"flows":20,"bytes":819200,.*"cipher":"aes256gcm",.*"key_source":"seed"'
pair "seed keys: a receiver with another seed fails with EBADMSG, no crash" \
	"--seed-keys 1 --rx-mode sim --flows 10" "--seed-keys 2 --tx-mode sim --flows 10 --bytes 16k" 1 any \
	'"ok":false,"flows":10,"bytes":0,.*"error_errno":"EBADMSG","key_source":"seed",.*authentication failed'
pair "seed keys: cipher mismatch fails with EBADMSG" \
	"--seed-keys 1 --rx-mode sim --cipher aes256gcm" "--seed-keys 1 --tx-mode sim --bytes 16k" 1 any \
	'"ok":false,.*"error_errno":"EBADMSG"'
pair "seed keys: corrupted byte of every flow reported at its offset" \
	"--seed-keys 3 --rx-mode sim --flows 3 --bytes 64k" "--seed-keys 3 --tx-mode sim --flows 3 --bytes 64k --corrupt-at 54321" \
	1 any '"ok":false,.*"bad_offset":54321,.*payload mismatch at offset 54321'
pair "seed keys: short stream is an error" "--seed-keys 3 --rx-mode sim --flows 2 --bytes 128k" \
	"--seed-keys 3 --tx-mode sim --flows 2 --bytes 64k" 1 any 'ended after 65536 of 131072'
pair "handshake reports carry no key_source" "--rx-mode sim" "--tx-mode sim --bytes 1k" 0 0 \
	'"bad_offset":null,"tls_stat":' '"bad_offset":null,"tls_stat":'

# --- malformed records (sim TX) against the sim model of kTLS RX ---
# 100 records of 1000 bytes; record 51 is replaced, so exactly 50000 good bytes come first.
mal_errno() {
	case $1 in version) echo EINVAL ;; oversize) echo EMSGSIZE ;; *) echo EBADMSG ;; esac
}
for k in version oversize type0 split-badlen; do
	e=$(mal_errno $k)
	pair "sim RX: --malformed $k@51 ends in the expected $e" \
		"--rx-mode sim --bytes 50000 --expect-error $e" \
		"--tx-mode sim --bytes 100000 --record-size 1000 --malformed $k@51" 0 0 \
		"\"ok\":true,\"flows\":1,\"bytes\":50000,\"records\":50,.*\"expect_error\":\"$e\",\"error_errno\":\"$e\",.*\"error\":\".+\"" \
		"\"ok\":true,\"flows\":1,\"bytes\":50000,\"records\":50,.*\"malformed\":\"$k\",\"malformed_at\":51,"
done
for k in oversize type0; do
	e=$(mal_errno $k)
	pair "sim RX, chacha20 (no explicit nonce): --malformed $k ends in $e" \
		"--rx-mode sim --cipher chacha20 --expect-error $e" \
		"--tx-mode sim --cipher chacha20 --bytes 1M --malformed $k" 0 0 \
		"\"ok\":true,\"flows\":1,\"bytes\":32768,\"records\":2,.*\"error_errno\":\"$e\""
done
pair "sim RX: --malformed with 4 flows, each ends in EINVAL" "--rx-mode sim --flows 4 --expect-error EINVAL" \
	"--tx-mode sim --flows 4 --bytes 1M --malformed version@2" 0 0 '"ok":true,"flows":4,"bytes":65536,"records":4,'
pair "sim RX: --malformed K = records + 1 replaces the close_notify" "--rx-mode sim --bytes 10000 --expect-error EBADMSG" \
	"--tx-mode sim --bytes 10000 --record-size 1000 --malformed type0@11" 0 0 '"ok":true.*"bytes":10000,"records":10,'
pair "sender fails when the payload ends before --malformed K" "--rx-mode sim" \
	"--tx-mode sim --bytes 10000 --record-size 1000 --malformed type0@12" 0 1 '"ok":true.*"bytes":10000,' \
	'"ok":false.*"malformed":"type0","malformed_at":12,.*payload ended after 10 data records'
pair "sim RX lagging (--read-delay-us 2000) before a split bad header" \
	"--rx-mode sim --read-delay-us 2000 --bytes 64000 --expect-error EBADMSG" \
	"--tx-mode sim --bytes 1M --record-size 4000 --malformed split-badlen@17" 0 0 '"ok":true.*"records":16,'
pair "without --expect-error a malformed record fails the run, errno in the report" "--rx-mode sim" \
	"--tx-mode sim --bytes 1M --malformed oversize" 1 0 '"ok":false.*"error_errno":"EMSGSIZE",.*record too long'

# --- --expect-error: everything else fails ---
pair "--expect-error: another errno fails, naming both" "--rx-mode sim --expect-error EBADMSG" \
	"--tx-mode sim --bytes 1M --malformed version" 1 0 \
	'"ok":false.*"error_errno":"EINVAL",.*expected EBADMSG, got EINVAL: record version'
pair "--expect-error: a clean end fails" "--rx-mode sim --expect-error EBADMSG" "--tx-mode sim --bytes 100k" 1 0 \
	'"ok":false.*"expect_error":"EBADMSG","error_errno":null,.*expected EBADMSG, but the stream ended without an error after 102400'
pair "--expect-error: a clean end fails (rx-mode user)" "--rx-mode user --expect-error ECONNRESET" "--bytes 100k" 1 0 \
	'"ok":false.*stream ended without an error'
pair "--expect-error: corrupted byte before the error still fails at its offset" \
	"--rx-mode sim --expect-error EINVAL" "--tx-mode sim --bytes 1M --corrupt-at 20000 --malformed version" 1 any \
	'"ok":false.*"bad_offset":20000,.*expected EINVAL, got a failure without errno: flow 0: payload mismatch at offset 20000'
pair "--expect-error: fewer bytes than --bytes before the error fails" \
	"--rx-mode sim --bytes 40000 --expect-error EINVAL" "--tx-mode sim --bytes 1M --malformed version" 1 0 \
	'"ok":false.*ended after 32768 of 40000 payload bytes \(before the expected EINVAL'
pair "--expect-error: OpenSSL errors carry no errno (rx-mode user)" "--rx-mode user --expect-error EINVAL" \
	"--tx-mode sim --bytes 1M --malformed version" 1 0 'expected EINVAL, got a failure without errno: SSL_read'
pair "--expect-error is case-insensitive" "--rx-mode sim --expect-error ebadmsg" \
	"--tx-mode sim --bytes 1M --malformed type0@1" 0 0 '"ok":true,"flows":1,"bytes":0,'
json_valid "--malformed/--expect-error report lines are valid JSON"

# --- --read-delay-us: 10 records, one receive call each, >= 10 x 20 ms ---
for m in user sim; do
	pair "--read-delay-us 20000, rx-mode $m" "--rx-mode $m --bytes 10000 --read-delay-us 20000" \
		"--tx-mode sim --bytes 10000 --record-size 1000" 0 0 '"ok":true'
	secs=$(sed -E 's/.*"seconds":([0-9.]+).*/\1/' "$TMP/r.json")
	if awk -v s="$secs" 'BEGIN { exit !(s >= 0.19) }'; then ok "--read-delay-us 20000, rx-mode $m: took ${secs}s (>= 0.19)"
	else not_ok "--read-delay-us 20000, rx-mode $m: took ${secs}s, want >= 0.19"; fi
done

# --- --sport (above the ephemeral range, so no other connection holds it) ---
SP=$((61000 + PORT % 4000))
pair "--sport $SP" "--rx-mode user" "--bytes 10k --sport $SP" 0 0 '"ok":true'
PORT=$((PORT - 1))       # the next pair listens on the same port: the same 4-tuple again
pair "--sport $SP again: reconnect on the same 4-tuple" "--rx-mode user" "--bytes 10k --sport $SP" 0 0 '"ok":true'
if command -v ss >/dev/null; then
	if ss -tan | grep -Eq "[:.]$SP[[:space:]]"; then ok "--sport: port $SP was the connection's source port"
	else not_ok "--sport: port $SP was the connection's source port" "$(ss -tan | head -5)"; fi
else
	skip "--sport: port $SP was the connection's source port" "no ss"
fi
# A port held by a listener cannot be bound: the bind is final, not retried.
HP=$((SP + 1)); PORT=$((PORT + 1))
"$BIN" recv --listen "127.0.0.1:$HP" --timeout 1 --quiet >/dev/null 2>&1 &
hp=$!
sleep 0.3
"$BIN" send --connect "127.0.0.1:$PORT" --sport "$HP" --timeout 5 --quiet >"$TMP/s.json" 2>/dev/null
rc=$?
wait "$hp"
if [ $rc = 1 ] && grep -q "bind --sport $HP: EADDRINUSE" "$TMP/s.json"; then ok "--sport on a port in use fails with EADDRINUSE"
else not_ok "--sport on a port in use fails with EADDRINUSE" "rc=$rc $(cat "$TMP/s.json")"; fi

# --- kernel kTLS modes ---
# setsockopt(TCP_ULP, "tls") makes a kernel without the tls module load it. On a build host that
# must not happen, so these cases run only where the tls ULP is already registered (the guest's test
# 15 modprobes tls first), or with INNOVA_SELFTEST_ULP_PROBE=1 (then, without kTLS, they check that
# every kTLS mode fails cleanly).
if ! grep -qw tls /proc/sys/net/ipv4/tcp_available_ulp 2>/dev/null && [ "${INNOVA_SELFTEST_ULP_PROBE:-0}" != 1 ]; then
	skip "kernel kTLS cases (selftest-errors, rx-mode manual/openssl, tx-mode ktls)" \
		"tls ULP not registered here; not loading tls.ko (INNOVA_SELFTEST_ULP_PROBE=1 probes)"
else
	if "$BIN" selftest-errors >"$TMP/st.tap" 2>&1; then ok "selftest-errors"
	else not_ok "selftest-errors" "$(grep '^not ok' "$TMP/st.tap")"; fi
	if grep -q 'SKIP no kTLS' "$TMP/st.tap"; then
		pair "no kTLS: rx-mode manual fails cleanly" "--rx-mode manual" "--bytes 64k" 1 any \
			'"ok":false.*kTLS not available: setsockopt\(TCP_ULP, \\"tls\\"\): ENOENT'
		pair "no kTLS: --tls13 rx-mode manual fails cleanly" "--tls13 --rx-mode manual" "--tls13 --bytes 64k" 1 any \
			'"ok":false.*"tls_version":"1.3",.*kTLS not available: setsockopt\(TCP_ULP, \\"tls\\"\): ENOENT'
		pair "no kTLS: rx-mode openssl fails cleanly" "--rx-mode openssl" "--bytes 64k" 1 any \
			'"ok":false.*kTLS not available: OpenSSL did not enable kTLS RX'
		HOST=127.0.0.1; PORT=$((PORT + 1))
		"$BIN" send --connect "$HOST:$PORT" --tx-mode ktls --timeout 5 --quiet >"$TMP/s.json" 2>/dev/null &
		sp=$!
		"$BIN" recv --listen "$HOST:$PORT" --rx-mode user --timeout 5 --quiet >/dev/null 2>&1
		wait $sp; rc=$?
		if [ $rc = 1 ] && grep -q 'kTLS not available' "$TMP/s.json"; then ok "no kTLS: tx-mode ktls fails cleanly"
		else not_ok "no kTLS: tx-mode ktls fails cleanly" "rc=$rc $(cat "$TMP/s.json")"; fi
		skip "kTLS manual/openssl data runs" "no kTLS"
	else
		for c in aes128gcm aes256gcm aes128ccm chacha20; do
			pair "kTLS manual RX, $c" "--rx-mode manual --cipher $c --bytes 1M" \
				"--cipher $c --bytes 1M --record-size random" 0 0 '"ok":true.*"ktls":true'
			pair "kTLS TX -> manual RX with markers, $c" "--rx-mode manual --cipher $c --bytes 200000" \
				"--tx-mode ktls --cipher $c --bytes 200000 --record-size 1000 --ccs-at 1,100" 0 0 \
				'"records":200,"rekey_markers":2,'
		done
		for k in version oversize type0 split-badlen; do
			e=$(mal_errno $k)
			pair "kTLS manual RX: --malformed $k@51 ends in $e" \
				"--rx-mode manual --bytes 50000 --expect-error $e --read-delay-us 1000" \
				"--tx-mode sim --bytes 100000 --record-size 1000 --malformed $k@51" 0 0 \
				"\"ok\":true,\"flows\":1,\"bytes\":50000,.*\"ktls\":true,.*\"error_errno\":\"$e\""
		done
		for c in aes128gcm aes256gcm chacha20; do
			pair "TLS 1.3 kTLS TX -> kTLS manual RX, $c" "--tls13 --rx-mode manual --cipher $c --bytes 1M" \
				"--tls13 --tx-mode ktls --cipher $c --bytes 1M --record-size random" 0 0 \
				'"ok":true.*"tls_version":"1.3","ktls":true'
			pair "TLS 1.3 OpenSSL TX -> kTLS manual RX, 1000-byte records, $c" \
				"--tls13 --rx-mode manual --cipher $c --bytes 200000" \
				"--tls13 --cipher $c --bytes 200000 --record-size 1000" 0 0 '"records":200,'
		done
		for c in aes128gcm aes256gcm; do
			pair "seed keys: kTLS TX -> kTLS manual RX, 100 flows, $c" \
				"--seed-keys 9 --rx-mode manual --cipher $c --flows 100 --bytes 5000" \
				"--seed-keys 9 --tx-mode ktls --cipher $c --flows 100 --bytes 5000 --record-size 1500" 0 0 \
				'"ok":true,"flows":100,"bytes":500000,"records":400,.*"ktls":true,.*"key_source":"seed"'
		done
		# TLS 1.3 KeyUpdate into kTLS RX: a second TLS_RX with the next key. Kernels with the
		# 6.14+ uAPI count TlsRxRekeyOk and must carry every byte; others refuse it with EBUSY:
		# the receiver must say so after every byte before the update verified, and not hang.
		if grep -q '^TlsRxRekeyOk' /proc/net/tls_stat 2>/dev/null; then
			pair "TLS 1.3 KeyUpdate every 10 records -> kTLS manual RX (kernel rekey)" \
				"--tls13 --rx-mode manual --bytes 1M" "--tls13 --bytes 1M --key-update 10" 0 0 \
				'"ok":true,"flows":1,"bytes":1048576,"records":64,.*"ktls":true,.*"key_updates_received":6,"rekeys_installed":6,'
		else
			pair "TLS 1.3 KeyUpdate -> kTLS manual RX: rekey unsupported by this kernel (EBUSY), bytes before it intact" \
				"--tls13 --rx-mode manual" "--tls13 --bytes 1M --key-update 10" 1 any \
				'"ok":false,"flows":1,"bytes":163840,.*"ktls":true,"bad_offset":null,"error_errno":"EBUSY","key_updates_received":1,"rekeys_installed":0,.*rekey unsupported by this kernel'
		fi
		for c in aes128gcm aes256gcm; do
			pair "OpenSSL kTLS RX, $c" "--rx-mode openssl --cipher $c --bytes 1M" \
				"--cipher $c --bytes 1M --flows 1" 0 0 '"ok":true.*"ktls":true'
		done
	fi
fi

# --- report format ---
printf 'TlsCurrTxSw                     \t0\nTlsRxDevice                     \t7\nTlsDecryptError                 \t0\n' >"$TMP/tls_stat"
INNOVA_TLS_STAT=$TMP/tls_stat pair "tls_stat delta object from the per-netns file" "--rx-mode user" "--bytes 1k" 0 0 \
	'"tls_stat":\{"TlsCurrTxSw":0,"TlsRxDevice":0,"TlsDecryptError":0\},"error":null\}$'
json_valid "report lines are valid JSON"

# --- --pause-at: the stream stops at a record boundary until SIGUSR1/SIGUSR2 ---
usage_case "--pause-at not ascending" send --connect 127.0.0.1:1 --pause-at 2k,1k
usage_case "--pause-at with --flows 2" send --connect 127.0.0.1:1 --pause-at 1k --flows 2
usage_case "--pause-at on recv" recv --listen 127.0.0.1:1 --pause-at 1k
usage_case "--pause-at with --seed-keys" send --connect 127.0.0.1:1 --seed-keys 1 --pause-at 1k
# pause_pair NAME SIGNALS...: 300k of 1000-byte records, pauses at 100000
# (a record boundary) and 150500 (inside record 151: held at 151000); one
# signal per pause line seen; the receiver verifies every byte
pause_pair() {
	local name=$1 rp sp rr sr lines=0 want t
	shift
	PORT=$((PORT + 1))
	"$BIN" recv --listen "$HOST:$PORT" --timeout 30 --quiet --rx-mode sim --bytes 300000 >"$TMP/r.json" 2>"$TMP/r.err" &
	rp=$!
	"$BIN" send --connect "$HOST:$PORT" --timeout 30 --quiet --tx-mode sim --bytes 300000 --record-size 1000 \
		--pause-at 100000,150500 >"$TMP/s.json" 2>"$TMP/s.err" &
	sp=$!
	for sig in "$@"; do
		want=$((lines + 1)) t=0
		while [ "$(grep -c 'paused at' "$TMP/s.err")" -lt $want ] && [ $t -lt 200 ]; do sleep 0.05; t=$((t + 1)); done
		lines=$(grep -c 'paused at' "$TMP/s.err")
		# held: nothing more arrives while paused (the receiver is idle)
		sleep 0.2
		kill -"$sig" $sp 2>/dev/null
	done
	wait $sp; sr=$?
	wait $rp; rr=$?
	if [ $sr != 0 ] || [ $rr != 0 ] || ! grep -q '"ok":true,"flows":1,"bytes":300000,' "$TMP/r.json"; then
		not_ok "$name" "send rc=$sr recv rc=$rr" "$(cat "$TMP/r.json")" "$(cat "$TMP/s.err")"
	elif [ "$(grep 'paused at' "$TMP/s.err" | tr '\n' '|')" != "$PAUSE_WANT" ]; then
		not_ok "$name" "pause lines: $(grep 'paused at' "$TMP/s.err" | tr '\n' '|') want $PAUSE_WANT"
	else
		ok "$name"
	fi
}
PAUSE_WANT='send: paused at byte 100000 after 100 records; SIGUSR1 resumes|send: paused at byte 151000 after 151 records; SIGUSR1 resumes|'
pause_pair "--pause-at: two pauses at record boundaries, each resumed by SIGUSR1, every byte verified" USR1 USR1
PAUSE_WANT='send: paused at byte 100000 after 100 records; SIGUSR1 resumes|'
pause_pair "--pause-at: SIGUSR2 resumes and skips the later pauses" USR2
# without a signal the run's --timeout ends the pause
PORT=$((PORT + 1))
"$BIN" recv --listen "$HOST:$PORT" --timeout 4 --quiet --rx-mode sim >"$TMP/r.json" 2>/dev/null &
rp=$!
"$BIN" send --connect "$HOST:$PORT" --timeout 2 --quiet --tx-mode sim --bytes 100k --pause-at 10k >"$TMP/s.json" 2>"$TMP/s.err"
sr=$?
wait $rp
if [ $sr = 3 ] && grep -q '"ok":false.*timeout' "$TMP/s.json" && grep -q 'paused at byte 16384 after 1 records' "$TMP/s.err"; then
	ok "--pause-at with no signal: the run's --timeout ends it (exit 3)"
else not_ok "--pause-at with no signal: the run's --timeout ends it (exit 3)" "rc=$sr $(cat "$TMP/s.json") $(cat "$TMP/s.err")"; fi

# --- timeout: nothing connects ---
PORT=$((PORT + 1))
start=$(date +%s)
"$BIN" recv --listen "127.0.0.1:$PORT" --timeout 1 --quiet >"$TMP/t.json" 2>/dev/null
rc=$?
el=$(( $(date +%s) - start ))
if [ $rc = 3 ] && [ $el -le 5 ] && grep -q '"ok":false.*timeout' "$TMP/t.json"; then ok "--timeout 1 with no peer exits 3 promptly"
else not_ok "--timeout 1 with no peer exits 3 promptly" "rc=$rc after ${el}s: $(cat "$TMP/t.json")"; fi

echo "1..$N"
[ $FAIL = 0 ]
