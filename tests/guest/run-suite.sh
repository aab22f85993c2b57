# Guest test runner: runs each tests/guest/NN-*.sh in its own shell, prints
# one TAP line per test, and fails a test whose kernel log window shows a
# kernel error (splat-patterns: WARN/BUG/Oops, KASAN, UBSAN, lockdep, ...),
# leaves module objects behind, or (on a kmemleak kernel) leaks memory on
# the module's, TLS's or the crypto API's paths, even if the test passed.
#   GUEST_TESTS='41-* 4[35]-*'   only the tests matching one of the patterns
#   FAULT_ALLOC=1                 allocation-failure run (lib.sh fault_alloc):
#                                 slab and page allocations fail during every
#                                 transfer; the TAP names say so. Each test
#                                 must see failures forced on the NIC's,
#                                 kTLS's or NAPI's paths (their stacks name
#                                 them), and the pass one intact transfer
#   GUEST_TEST_TIMEOUT=S          seconds one test may take (default 900;
#                                 3600 on a debug kernel, in an allocation-
#                                 failure run or a soak with BYTES/ROUNDS):
#                                 a test that hangs is killed with its
#                                 processes and named, and the rest still run
# A test passes only if it exits 0 having counted at least one assertion
# (lib.sh asserted: check, expect_*, tcp_transfer, passed), and if it
# unloaded the module, said so (lib.sh unload_module) and the module's
# exit check ran for each unload.
cd /innova/tests/guest || exit 1
patterns=${GUEST_TESTS:-*}
suffix=
[ "${FAULT_ALLOC:-0}" = 1 ] && suffix=" (allocation failures)"
KMEMLEAK=/sys/kernel/debug/kmemleak
[ -w $KMEMLEAK ] || KMEMLEAK=
OBJECTS=/sys/kernel/debug/innova/objects
if [ -n "${GUEST_TEST_TIMEOUT:-}" ]; then
	tmo=$GUEST_TEST_TIMEOUT
elif [ -n "$KMEMLEAK" ] || [ "${FAULT_ALLOC:-0}" = 1 ] || [ -n "${BYTES:-}${ROUNDS:-}" ]; then
	tmo=3600
else
	tmo=900
fi
# Non-zero lines of innova/objects once namespaces are gone (netns cleanup
# and RCU frees are asynchronous: wait up to 10 s); empty when clean or
# when the module is not loaded (then the runner requires its exit check).
objects_left() {
	f=$OBJECTS
	[ -r $f ] || return 0
	i=0
	while [ $i -lt 100 ]; do
		left=$(awk '$2 != 0 { printf "%s=%s ", $1, $2 }' $f)
		[ -z "$left" ] && return 0
		sleep 0.1; i=$((i + 1))
	done
	echo "$left"
}
# kmemleak reports since the last call that name the module, kTLS or the
# crypto API anywhere in the object's allocation trace. Two scans: an
# object is reported only once it stayed unreferenced across a scan.
# Reports elsewhere are the kernel's own and only logged.
leaks_ours() {
	[ -n "$KMEMLEAK" ] || return 0
	echo scan > $KMEMLEAK; echo scan > $KMEMLEAK
	cat $KMEMLEAK > /tmp/kmemleak.txt
	echo clear > $KMEMLEAK
	[ -s /tmp/kmemleak.txt ] || return 0
	awk 'BEGIN { RS = "unreferenced object" } NR > 1 { n++; if ($0 ~ /innova|tls_|crypto|aead|skcipher|ghash|gcm|aes/) { ours++; print "unreferenced object" $0 } }
	     END { if (n > ours) printf "# kmemleak: %d report(s) outside innova/tls/crypto (ignored)\n", n - ours > "/dev/stderr" }' \
		/tmp/kmemleak.txt
}
matches() {
	set -f
	for p in $patterns; do
		case "$1" in $p) set +f; return 0 ;; esac
	done
	set +f
	return 1
}
if [ -n "$KMEMLEAK" ]; then
	# what boot left behind is not any test's
	echo scan > $KMEMLEAK; echo clear > $KMEMLEAK
fi
n=0 bad=0 injected_total=0 ours_total=0 o_intact=0 o_error=0 o_stopped=0
# ours_injected FILE: forced failures whose stack (lib.sh fault_alloc,
# verbose=2) runs through the module, kTLS, NAPI or GRO: each stack ends at
# </TASK> or </IRQ> closing its outermost frame, or at the next failure
ours_injected() {
	awk '/FAULT_INJECTION: forcing a failure/ { n += hit; blk = 1; hit = 0; next }
		blk && /\[innova\]| tls_| napi_|net_rx_action|gro_/ { hit = 1 }
		blk && /<\/TASK>/ { n += hit; blk = 0; hit = 0 }
		END { print n + hit }' "$1"
}
for t in [0-9][0-9]-*.sh; do
	matches "$t" || continue
	n=$((n + 1))
	name=${t%.sh}$suffix
	rm -f /tmp/fault.outcomes /tmp/test.asserts /tmp/test.unloads
	had_objects=0; [ -r $OBJECTS ] && had_objects=1
	before=$(dmesg | wc -l)
	start=$(date +%s)
	# timeout runs the test in a process group of its own and kills the
	# whole group (receivers, senders, nc) when time is up
	timeout -k 10 "$tmo" sh -c ". ./lib.sh; . ./$t" > /tmp/test.out 2>&1
	rc=$?
	# whatever way the test ended, the checks below run without injection
	[ "${FAULT_ALLOC:-0}" = 1 ] && ( . ./lib.sh; fault_alloc off )
	dur=$(( $(date +%s) - start ))
	sed 's/^\([^#]\)/#   \1/' /tmp/test.out
	# Each test leaves the guest as it found it: no namespace, no port,
	# and the module's objects (debugfs innova/objects) back to zero.
	# A test that stopped early (an allocation-failure run's die) may
	# leave a sender or receiver running in its namespace, which keeps
	# the namespace and its port alive past the objects check.
	pkill -KILL -x innova-tls 2>/dev/null; pkill -KILL -x innova-inject 2>/dev/null
	ip netns del A 2>/dev/null; ip netns del B 2>/dev/null
	ip link del innova0 2>/dev/null; ip link del innova1 2>/dev/null
	leak=$(objects_left)
	memleak=$(leaks_ours 2>/tmp/kmemleak.note)
	sed 's/^/#   /' /tmp/kmemleak.note
	dmesg | tail -n +$((before + 1)) > /tmp/test.dmesg
	splat=$(sh ./splat.sh /tmp/test.dmesg | head -5)
	# Unloads: each one the test declared must show the module's exit
	# check (its WARN on live objects is a splat above); a module gone
	# without one declared left its objects unchecked.
	unloads=$(grep -c . /tmp/test.unloads 2>/dev/null); unloads=${unloads:-0}
	exits=$(grep -c 'innova: exit check:' /tmp/test.dmesg)
	unload=
	if [ $had_objects = 1 ] && [ ! -r $OBJECTS ] && [ "$unloads" = 0 ]; then
		unload="module unloaded without unload_module: objects not checked"
	elif [ "$exits" != "$unloads" ]; then
		unload="$unloads unload(s) declared, $exits exit check(s) in the kernel log"
	fi
	asserts=$(grep -c . /tmp/test.asserts 2>/dev/null); asserts=${asserts:-0}
	if [ "${FAULT_ALLOC:-0}" = 1 ]; then
		inj=$(grep -c 'FAULT_INJECTION: forcing a failure' /tmp/test.dmesg)
		ours=$(ours_injected /tmp/test.dmesg)
		injected_total=$((injected_total + inj))
		ours_total=$((ours_total + ours))
		for o in intact error stopped; do
			c=$(grep -cx $o /tmp/fault.outcomes 2>/dev/null)
			eval "o_$o=\$((o_$o + ${c:-0}))"
		done
		echo "# $name: $inj allocations failed on purpose, $ours of them on the NIC's, kTLS's or NAPI's paths; transfers intact $(grep -cx intact /tmp/fault.outcomes 2>/dev/null), ended in an errno $(grep -cx error /tmp/fault.outcomes 2>/dev/null), checks stopped $(grep -cx stopped /tmp/fault.outcomes 2>/dev/null)"
	fi
	if [ -n "$splat" ]; then
		echo "$splat" | sed 's/^/# dmesg: /'
		grep -v 'FAULT_INJECTION\|name fail' /tmp/test.dmesg | head -80 | sed 's/^/#   /'
		echo "not ok $n - $name (kernel splat) [${dur}s]"; bad=$((bad + 1))
	elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		echo "# killed after ${tmo}s (GUEST_TEST_TIMEOUT)"
		echo "not ok $n - $name (timed out) [${dur}s]"; bad=$((bad + 1))
	elif [ $rc -ne 0 ]; then
		echo "not ok $n - $name [${dur}s]"; bad=$((bad + 1))
	elif [ -n "$unload" ]; then
		grep 'innova: exit check:' /tmp/test.dmesg | sed 's/^/#   /'
		echo "# $unload"
		echo "not ok $n - $name (unload unchecked) [${dur}s]"; bad=$((bad + 1))
	elif [ "$asserts" = 0 ] && ! [ -s /tmp/fault.outcomes ]; then
		echo "# the test exited 0 without one assertion (lib.sh asserted)"
		echo "not ok $n - $name (no assertion) [${dur}s]"; bad=$((bad + 1))
	elif [ "${FAULT_ALLOC:-0}" = 1 ] && [ "$ours" = 0 ]; then
		echo "# no allocation failed on the NIC's, kTLS's or NAPI's paths: the test exercised nothing of ours under failures"
		echo "not ok $n - $name (no failure on our paths) [${dur}s]"; bad=$((bad + 1))
	elif [ -n "$leak" ]; then
		echo "# objects left after the test: $leak"
		echo "not ok $n - $name (objects leaked) [${dur}s]"; bad=$((bad + 1))
	elif [ -n "$memleak" ]; then
		echo "$memleak" | head -40 | sed 's/^/# kmemleak: /'
		echo "not ok $n - $name (kmemleak) [${dur}s]"; bad=$((bad + 1))
	else
		echo "ok $n - $name [${dur}s]"
	fi
done
[ $n -gt 0 ] || { echo "not ok 1 - no guest test matched '$patterns'"; exit 1; }
if [ "${FAULT_ALLOC:-0}" = 1 ]; then
	# A run in which nothing failed, or no transfer completed while
	# allocations were failing, proved nothing.
	n=$((n + 1))
	what="allocation failures injected: $injected_total, on the NIC's, kTLS's or NAPI's paths: $ours_total; transfers intact under them: $o_intact, ended in an errno: $o_error, tests stopped early: $o_stopped"
	if [ $ours_total -gt 0 ] && [ $o_intact -gt 0 ]; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what (needs failures injected and an intact transfer)"
		bad=$((bad + 1))
	fi
fi
[ $bad -eq 0 ]
