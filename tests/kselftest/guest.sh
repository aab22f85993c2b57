# The kernel's own TLS selftests (tools/testing/selftests/net/tls.c, built
# by tests/kselftest/build.sh) across the Innova NIC, in the guest (POSIX
# sh). One binary, four runs, same netns layout each time: the binary runs
# in netns B (the listener, so every accepted, receiving socket is B's) and
# netns-shim.so (LD_PRELOAD) creates every connecting socket in netns A,
# connected to B's address on the link: no pair uses loopback.
#   veth         veth pair, clean: the software kTLS baseline
#   veth_faults  veth pair, tc netem on both ends (FAULTS below)
#   innova       Innova pair, clean: TLS RX offloaded by the NIC
#   innova_faults  Innova pair, seeded cable faults at the same rates, both
#                directions
# Both links: no TSO (the Innova port has none) and no GSO, so netem, like
# the cable, sees wire-sized frames; GRO on, so veth receives through NAPI
# and GRO as the Innova port does (napi_gro_receive). Default TCP receive
# buffer 8 MB in both netns: sendmsg_large writes 2 MB before reading any,
# which fits loopback's 64 KB frames but not 1500-byte frames in the
# default 128 KB: it blocks until the harness's timeout on either link.
# Rules (one TAP line each, per pass):
#  - sanity: every connection crossed the link (TCP active opens: none in
#    B, in A as many as the connects the shim redirected), every test of
#    the plan reported;
#  - no test may fail over Innova that passed over veth under the same
#    conditions. Tests that fail over both are reported only. A test that
#    failed only over Innova is run KSFT_RERUNS (8) more times alone
#    (KSFT_ONLY, harness-select.h) over each link, in the same pass (clean
#    or faults: veth's results in the other pass excuse nothing). Every
#    such test is reported with its counts on both links, and it fails the
#    run when Innova's failure rate in the reruns is clearly above veth's:
#    a one-sided Fisher exact test at p < KSFT_ALPHA (0.05; with 8 reruns
#    each: 4 of 8 against 0 of 8 fails, 3 against 0 does not, 8 against 2
#    does). Timing-sensitive tests (e.g. nonblocking, which expects the
#    sender to see EAGAIN at least once: with GRO the ACKs sometimes come
#    back fast enough that it never does, over veth as well as over
#    Innova with its offload off) fail about as often on both links;
#  - veth, the baseline, passes at least KSFT_VETH_MIN per mille of the
#    plan in each pass (measured; a baseline that broke judges nothing);
#  - device path: TlsRxDevice in B rises by the number of RX keys the same
#    tests installed in B over veth (TlsRxSw there), give or take one per
#    test that did not pass on either link (each test installs at most one
#    RX key in B, and a failing one may stop before it, on either link);
#    innova1's rx_tls_decrypted_bytes is at least KSFT_DEV_MIN per mille
#    of the bytes innova1 received in the run (frames, headers and non-TLS
#    tests included: measured);
#  - the faults took effect: in the faults pass each cable counter that
#    has a rate (dropped, duplicated, reordered) rose on both Innova
#    ports, and netem dropped frames on both veth ends.
# Environment: KSFT_FAULTS="drop=PPM reorder=PPM dup=PPM" (default 1 % loss,
# 5 % reorder, 1 % duplicates), KSFT_SEED (cable seed), KSFT_TIMEOUT (s per
# binary run), KSFT_RERUNS, KSFT_PASSES="clean faults" (which passes run),
# KSFT_OFFLOAD=off (tls-hw-rx-offload off on both Innova ports: the
# deliberately broken device run, which must fail).
. /innova/tests/guest/lib.sh
KS=/innova/kselftest
OUT=/tmp/kselftest
FAULTS=${KSFT_FAULTS:-drop=10000 reorder=50000 dup=10000}
SEED=${KSFT_SEED:-4242}
TMO=${KSFT_TIMEOUT:-900}
RERUNS=${KSFT_RERUNS:-8}
ALPHA=${KSFT_ALPHA:-0.05}
# measured on 6.1: veth passed 109 of 111 in both passes (982/1000); the
# NIC decrypted 948/1000 of innova1's received bytes clean (the faults
# pass of that run had no fault applied: 945); 700 leaves room for the
# faults' holes and resyncs
VETH_MIN=${KSFT_VETH_MIN:-900}
DEV_MIN=${KSFT_DEV_MIN:-700}
PASSES=${KSFT_PASSES:-clean faults}
mkdir -p $OUT
n=0 bad=0
ks_tap() {
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"; bad=$((bad + 1))
	fi
}
faults() { case " $PASSES " in *" faults "*) return 0 ;; esac; return 1; }
ks_knob() { for kv in $FAULTS; do case $kv in "$1"=*) echo "${kv#*=}"; return ;; esac; done; echo 0; }
# ppm -> netem percent (10000 -> 1)
pct() { awk -v p="$1" 'BEGIN { printf "%g", p / 10000 }'; }
# netem reorders by sending some packets at once and delaying the rest:
# "reorder 95%" with a delay sends 5 % ahead of their predecessors
NETEM_ARGS="loss random $(pct "$(ks_knob drop)")% duplicate $(pct "$(ks_knob dup)")% delay 5ms reorder $(pct $((1000000 - $(ks_knob reorder))))%"
CABLE_KNOBS="seed=$SEED tcp_only=0 drop_ppm=$(ks_knob drop) dup_ppm=$(ks_knob dup) reorder_ppm=$(ks_knob reorder) reorder_gap=3"

# ks_link_setup IFA IFB: what both links get (see the top)
ks_link_setup() {
	ip netns exec A ethtool -K "$1" tso off gso off gro on 2>/dev/null
	ip netns exec B ethtool -K "$2" tso off gso off gro on 2>/dev/null
	for ns in A B; do
		ip netns exec $ns sysctl -qw net.ipv4.tcp_rmem="4096 8388608 16777216" ||
			die "tcp_rmem in $ns"
	done
}
# The veth pair in the layout of lib.sh's setup_pair: A holds veth0
# (10.77.0.1, fd00:77::1), B holds veth1 (10.77.0.2, fd00:77::2).
setup_veth() {
	PORT_A='' PORT_B=''
	modprobe veth || die "modprobe veth"
	ip netns add A || die "netns A"
	ip netns add B || die "netns B"
	ip link add veth0 netns A type veth peer name veth1 netns B || die "veth pair"
	address_pair veth0 veth1
	ks_link_setup veth0 veth1
	wait_ping "over veth"
}
ks_netem() {
	for p in "A veth0" "B veth1"; do
		set -- $p
		# shellcheck disable=SC2086
		ip netns exec $1 tc qdisc replace dev $2 root netem $NETEM_ARGS || die "netem on $2"
	done
}
ks_cable() {
	for p in "$PORT_A" "$PORT_B"; do
		for kv in $CABLE_KNOBS; do set_knob "$p/${kv%%=*}" "${kv#*=}" || die "cable knob $kv"; done
	done
}
ks_cable_clear() {
	for p in "$PORT_A" "$PORT_B"; do
		for k in drop_ppm dup_ppm reorder_ppm; do echo 0 > "$p/$k"; done
	done
}

# ks_snmp NETNS FIELD: TCP counter of /proc/net/snmp in that netns
ks_snmp() {
	ip netns exec "$1" awk -v k="$2" '$1 == "Tcp:" { if (!h) { for (i = 2; i <= NF; i++) c[$i] = i; h = 1 } else print $c[k] }' /proc/net/snmp
}
# ks_counters NAME: what a run is judged on, into $OUT/NAME.cnt ("key value")
ks_counters() {
	{
		for k in TlsRxDevice TlsRxSw TlsDecryptError TlsRxDeviceResync; do
			echo "B.$k $(tls_stat B $k)"; echo "A.$k $(tls_stat A $k)"
		done
		echo "B.ActiveOpens $(ks_snmp B ActiveOpens)"
		echo "A.ActiveOpens $(ks_snmp A ActiveOpens)"
		if [ -n "$PORT_B" ]; then
			echo "B.rx_tls_decrypted_bytes $(ethtool_stat B innova1 rx_tls_decrypted_bytes)"
			echo "B.rx_bytes $(ethtool_stat B innova1 rx_bytes)"
			echo "A.rx_tls_decrypted_bytes $(ethtool_stat A innova0 rx_tls_decrypted_bytes)"
		fi
	} > "$OUT/$1.cnt"
}
# ks_d RUN KEY: the counter's rise during RUN
ks_d() {
	awk -v k="$2" '$1 == k { v[FILENAME] = $2 } END { print v[a] - v[b] }' \
		a="$OUT/$1.after.cnt" b="$OUT/$1.before.cnt" "$OUT/$1.before.cnt" "$OUT/$1.after.cnt"
}

# ks_exec LOG [TEST]: the selftest (only TEST if given) over the current
# pair; LOG gets its output, each line prefixed with the uptime it came at
# (the harness flushes at every test's start, so a test's result line
# carries the time it ended), and "exit RC" last.
ks_exec() {
	{
		ip netns exec B env LD_PRELOAD=$KS/netns-shim.so KSFT_CLIENT_NETNS=/run/netns/A \
			KSFT_SERVER_ADDR4=$IP4_B KSFT_SERVER_ADDR6=$IP6_B KSFT_SHIM_LOG="$1.shim" \
			KSFT_ONLY="${2:-}" timeout $TMO $KS/tls 2>&1
		echo "exit $?"
	} | mawk -W interactive '{ getline up < "/proc/uptime"; close("/proc/uptime"); split(up, u, " ")
		   print u[1], $0; fflush() }' > "$1"
}
# ks_results LOG: one "fixture.variant.test pass|fail|skip SECONDS" per test
ks_results() {
	awk '$2 == "#" && $3 == "RUN" { name = $4; t = $1 }
	     $2 == "ok" { print name, (/# SKIP/ ? "skip" : "pass"), $1 - t; name = "?" }
	     $2 == "not" && $3 == "ok" { print name, "fail", $1 - t; name = "?" }' "$1"
}
# ks_failures LOG: what the harness said about each failed test
ks_failures() {
	awk '$2 == "#" && $3 == "RUN" { buf = ""; keep = 1 }
	     keep { $1 = ""; buf = buf "#   " substr($0, 2) "\n" }
	     $2 == "not" && $3 == "ok" { printf "%s", buf; keep = 0 }
	     $2 == "ok" { keep = 0 }' "$1" | head -200
}
# ks_run NAME: the whole selftest; $OUT/NAME.{log,res,shim,*.cnt}
ks_run() {
	ks_counters "$1.before"
	: > "$OUT/$1.log.shim"
	t0=$(date +%s)
	ks_exec "$OUT/$1.log"
	eval "secs_$1=$(( $(date +%s) - t0 ))"
	ks_counters "$1.after"
	ks_results "$OUT/$1.log" > "$OUT/$1.res"
	rc=$(awk '$2 == "exit" { print $3 }' "$OUT/$1.log")
	plan=$(awk '$2 ~ /^1\.\.[0-9]+$/ { sub(/^1\.\./, "", $2); print $2; exit }' "$OUT/$1.log")
	eval "rc_$1=${rc:-255} plan_$1=${plan:-0}"
	p=$(grep -c ' pass ' "$OUT/$1.res") f=$(grep -c ' fail ' "$OUT/$1.res") s=$(grep -c ' skip ' "$OUT/$1.res")
	eval "pass_$1=$p fail_$1=$f skip_$1=$s"
	log "$1: $p passed, $f failed, $s skipped of ${plan:-?} (exit $rc, $(eval echo \$secs_$1) s; connects redirected to $IP4_B/$IP6_B: $(grep -c ': ok$' "$OUT/$1.log.shim"), failed: $(grep -vc ': ok$' "$OUT/$1.log.shim"))"
	log "$1: slowest: $(sort -k3 -n -r "$OUT/$1.res" | head -5 | awk '{ printf "%s %ss, ", $1, $3 }')"
	[ "$f" -eq 0 ] && return 0
	log "$1 failed: $(awk '$2 == "fail" { printf "%s ", $1 }' "$OUT/$1.res")"
	ks_failures "$OUT/$1.log"
}
# ks_rerun PASS LINK TESTS: each test RERUNS times alone; results appended
# to $OUT/rr_PASS_LINK.res
ks_rerun() {
	t0=$(date +%s)
	for t in $3; do
		i=0
		while [ $i -lt "$RERUNS" ]; do
			ks_exec "$OUT/rr.log" "$t"
			ks_results "$OUT/rr.log" >> "$OUT/rr_$1_$2.res"
			i=$((i + 1))
		done
		log "$1 rerun over $2: $t failed $(ks_count "$t" fail "$OUT/rr_$1_$2.res") of $RERUNS"
	done
	log "$1 reruns over $2: $(( $(date +%s) - t0 )) s"
}
# ks_count TEST RESULT RESFILES...: how many times TEST had RESULT there
ks_count() {
	_t=$1 _r=$2; shift 2
	cat "$@" 2>/dev/null | awk -v t="$_t" -v r="$_r" '$1 == t && $2 == r { c++ } END { print c + 0 }'
}

# ks_fisher K1 N1 K2 N2: one-sided Fisher exact p-value that a rate of
# K1/N1 is above K2/N2 (the hypergeometric tail P(X >= K1))
ks_fisher() {
	awk -v k1="$1" -v n1="$2" -v k2="$3" -v n2="$4" '
		function lc(n, k,   i, r) { r = 0; for (i = 1; i <= k; i++) r += log(n - k + i) - log(i); return r }
		BEGIN { K = k1 + k2; N = n1 + n2; p = 0
			for (x = k1; x <= (K < n1 ? K : n1); x++)
				if (K - x <= n2) p += exp(lc(n1, x) + lc(n2, K - x) - lc(N, K))
			printf "%.4f\n", p }'
}
# ks_sane NAME: "" if the binary reported every test of its plan and every
# TCP connection was one the shim made from A (none opened in B, so none on
# loopback), else why not. (Passive opens in B may be one short: the
# non_established test closes its listener without accept(), and over a
# NIC the handshake's last ACK may arrive after that.)
ks_sane() {
	r=$(wc -l < "$OUT/$1.res") plan=$(eval echo \$plan_$1) rc=$(eval echo \$rc_$1)
	aa=$(ks_d "$1" A.ActiveOpens) ba=$(ks_d "$1" B.ActiveOpens)
	shim=$(grep -c ': ok$' "$OUT/$1.log.shim")
	why=
	[ "$plan" -gt 0 ] && [ "$r" -eq "$plan" ] || why="$why $1: reported $r of plan $plan (exit $rc);"
	[ "$rc" -le 1 ] || why="$why $1: exit $rc;"
	[ "$ba" -eq 0 ] || why="$why $1: $ba TCP connection(s) opened inside B (not across the link);"
	[ "$aa" -gt 0 ] && [ "$aa" -eq "$shim" ] || why="$why $1: TCP active opens in A $aa vs connects the shim redirected $shim;"
	grep -v ': ok$' "$OUT/$1.log.shim" | sed 's/^/# shim: /' >&2
	echo "$why"
}
# ks_only_innova VETH INNOVA: tests that passed over VETH and failed over INNOVA
ks_only_innova() {
	awk 'FNR == NR { v[$1] = $2; next } $2 == "fail" && v[$1] == "pass" { print $1 }' \
		"$OUT/$1.res" "$OUT/$2.res"
}
# ks_judge PASS VETH INNOVA WHAT SUSPECTS: the comparison's TAP line
ks_judge() {
	pass=$1 v=$2 i=$3 what=$4 suspects=$5
	both=$(awk 'FNR == NR { v[$1] = $2; next } $2 == "fail" && v[$1] == "fail" { printf "%s ", $1 }' \
		"$OUT/$v.res" "$OUT/$i.res")
	[ -z "$both" ] || log "$pass: failed over both links (not the NIC's doing): $both"
	why="$(ks_sane "$v")$(ks_sane "$i")"
	confirmed='' timing=''
	for t in $suspects; do
		# this pass only: its reruns on both links
		ni=$(ks_count "$t" fail "$OUT/rr_${pass}_innova.res")
		nv=$(ks_count "$t" fail "$OUT/rr_${pass}_veth.res")
		ri=$(( $(ks_count "$t" fail "$OUT/rr_${pass}_innova.res") + $(ks_count "$t" pass "$OUT/rr_${pass}_innova.res") ))
		rv=$(( $(ks_count "$t" fail "$OUT/rr_${pass}_veth.res") + $(ks_count "$t" pass "$OUT/rr_${pass}_veth.res") ))
		p=$(ks_fisher "$ni" "$ri" "$nv" "$rv")
		what_t="$t (reruns: innova failed $ni of $ri, veth $nv of $rv; p=$p)"
		log "$pass: failed only over innova at first: $what_t"
		if [ "$ri" -eq 0 ] || [ "$rv" -eq 0 ] || awk -v p="$p" -v a="$ALPHA" 'BEGIN { exit !(p < a) }'; then
			confirmed="$confirmed $what_t"
		else
			timing="$timing $what_t"
		fi
	done
	[ -z "$timing" ] || log "$pass: no rate clearly above veth's (p >= $ALPHA), timing-sensitive:$timing"
	summary="veth $(eval echo \$pass_$v)/$(eval echo \$plan_$v) passed, innova $(eval echo \$pass_$i)/$(eval echo \$plan_$i) passed"
	vp=$(eval echo \$pass_$v) vplan=$(eval echo \$plan_$v)
	[ "$vplan" -gt 0 ] && [ $((vp * 1000)) -ge $((vplan * VETH_MIN)) ] ||
		why="$why veth (the baseline) passed $vp of $vplan, under $VETH_MIN/1000;"
	if [ -n "$why" ]; then
		ks_tap fail "kselftest tls $what: $summary;$why"
	elif [ -n "$confirmed" ]; then
		ks_tap fail "kselftest tls $what: $summary; failed over innova clearly more often than over veth (or no rerun completed):$confirmed"
	else
		ks_tap ok "kselftest tls $what: $summary, none failed only over innova${timing:+ (timing-sensitive, see above: $(echo $suspects))}"
	fi
}
# ks_device VETH INNOVA WHAT: the device-path TAP line
ks_device() {
	v=$1 i=$2 what=$3
	want=$(ks_d "$v" B.TlsRxSw) dev=$(ks_d "$i" B.TlsRxDevice) sw=$(ks_d "$i" B.TlsRxSw)
	tol=$(( $(eval echo \$fail_$v) + $(eval echo \$skip_$v) + $(eval echo \$fail_$i) + $(eval echo \$skip_$i) ))
	bytes=$(ks_d "$i" B.rx_tls_decrypted_bytes) rxb=$(ks_d "$i" B.rx_bytes)
	log "$what: receiving netns B: TlsRxDevice +$dev TlsRxSw +$sw TlsDecryptError +$(ks_d "$i" B.TlsDecryptError) TlsRxDeviceResync +$(ks_d "$i" B.TlsRxDeviceResync) (veth: TlsRxSw +$want TlsDecryptError +$(ks_d "$v" B.TlsDecryptError)); innova1 rx_tls_decrypted_bytes +$bytes"
	log "$what: connecting netns A (bidir, tls_v6ops): TlsRxDevice +$(ks_d "$i" A.TlsRxDevice) TlsRxSw +$(ks_d "$i" A.TlsRxSw); innova0 rx_tls_decrypted_bytes +$(ks_d "$i" A.rx_tls_decrypted_bytes)"
	line="device path $what: TlsRxDevice +$dev in B for $want RX keys over veth (tolerance $tol: tests not passing), TlsRxSw +$sw, innova1 rx_tls_decrypted_bytes +$bytes of rx_bytes +$rxb ($((bytes * 1000 / (rxb > 0 ? rxb : 1)))/1000, floor $DEV_MIN)"
	if [ "$want" -gt 0 ] && [ "$dev" -ge $((want - tol)) ] && [ "$dev" -le $((want + tol)) ] &&
		[ "$rxb" -gt 0 ] && [ $((bytes * 1000)) -ge $((rxb * DEV_MIN)) ]; then
		ks_tap ok "$line"
	else
		ks_tap fail "$line"
	fi
}

t_start=$(date +%s)
[ -x $KS/tls ] && [ -f $KS/netns-shim.so ] || { echo "not ok 1 - kselftest binaries missing in $KS"; exit 1; }
log "faults: cable $CABLE_KNOBS; netem $NETEM_ARGS"
load_module	# innova pulls in tls.ko: /proc/net/tls_stat exists from the start

setup_veth
ks_run veth
if faults; then
	ks_netem
	ks_run veth_faults
	# netem's drop count on each end (tc -s: "Sent B bytes P pkt (dropped D, ...")
	netem_dropped=$(for e in "A veth0" "B veth1"; do
		set -- $e
		ip netns exec $1 tc -s qdisc show dev $2 | awk -v d=$2 '/dropped/ { sub(/,/, "", $7); printf "%s %s ", d, $7; exit }'
	done)
fi
teardown_pair

setup_pair
ks_link_setup innova0 innova1
if [ "${KSFT_OFFLOAD:-on}" = off ]; then
	log "KSFT_OFFLOAD=off: TLS RX offload disabled on both Innova ports (this run must fail)"
	ip netns exec A ethtool -K innova0 tls-hw-rx-offload off
	ip netns exec B ethtool -K innova1 tls-hw-rx-offload off
fi
ks_run innova
sus_clean=$(ks_only_innova veth innova)
[ -z "$sus_clean" ] || ks_rerun clean innova "$sus_clean"
sus_faults=
if faults; then
	ks_cable
	ks_run innova_faults
	sus_faults=$(ks_only_innova veth_faults innova_faults)
	[ -z "$sus_faults" ] || ks_rerun faults innova "$sus_faults"
	ks_cable_clear
	cable_counts=$(for p in "$PORT_A" "$PORT_B"; do printf '%s dropped %s duplicated %s reordered %s ' \
		"$(cat "$p/ifname")" "$(cat "$p/dropped")" "$(cat "$p/duplicated")" "$(cat "$p/reordered")"; done)
	log "cable: $cable_counts"
fi
teardown_pair
if [ -n "$sus_clean$sus_faults" ]; then
	setup_veth
	[ -z "$sus_clean" ] || ks_rerun clean veth "$sus_clean"
	if [ -n "$sus_faults" ]; then
		ks_netem
		ks_rerun faults veth "$sus_faults"
	fi
	teardown_pair
fi

ks_judge clean veth innova "clean" "$sus_clean"
ks_device veth innova "clean"
if faults; then
	ks_judge faults veth_faults innova_faults "with faults (cable: $CABLE_KNOBS; veth: netem $NETEM_ARGS)" "$sus_faults"
	ks_device veth_faults innova_faults "with faults"
	# the faults took effect: every rate set shows in the counters
	nofault=
	set -- $cable_counts
	while [ $# -ge 7 ]; do
		[ "$(ks_knob drop)" = 0 ] || [ "$3" -gt 0 ] || nofault="$nofault $1 dropped nothing;"
		[ "$(ks_knob dup)" = 0 ] || [ "$5" -gt 0 ] || nofault="$nofault $1 duplicated nothing;"
		[ "$(ks_knob reorder)" = 0 ] || [ "$7" -gt 0 ] || nofault="$nofault $1 reordered nothing;"
		shift 7
	done
	set -- $netem_dropped
	[ $# -eq 4 ] || nofault="$nofault no netem drop counts ($netem_dropped);"
	while [ $# -ge 2 ]; do
		[ "$(ks_knob drop)" = 0 ] || [ "$2" -gt 0 ] || nofault="$nofault netem on $1 dropped nothing;"
		shift 2
	done
	if [ -z "$nofault" ]; then
		ks_tap ok "faults took effect: cable $cable_counts; netem dropped on $netem_dropped"
	else
		ks_tap fail "faults took effect:$nofault (cable $cable_counts; netem $netem_dropped)"
	fi
fi
log "kselftest guest run: $(( $(date +%s) - t_start )) s"
[ $bad -eq 0 ]
