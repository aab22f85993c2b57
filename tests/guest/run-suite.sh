# Guest test runner: runs each tests/guest/NN-*.sh in its own shell, prints
# one TAP line per test, and fails a test whose kernel log window shows a
# WARN/BUG/Oops/Call Trace/KASAN, even if the test itself passed.
cd /innova/tests/guest || exit 1
SPLAT='WARNING:|BUG:|Oops|Call Trace|KASAN|UBSAN|general protection|RCU stall|hung_task'
pattern=${GUEST_TESTS:-*}
# Non-zero lines of innova/objects once namespaces are gone (netns cleanup
# and RCU frees are asynchronous: wait up to 10 s); empty when clean.
objects_left() {
	f=/sys/kernel/debug/innova/objects
	[ -r $f ] || return 0
	i=0
	while [ $i -lt 100 ]; do
		left=$(awk '$2 != 0 { printf "%s=%s ", $1, $2 }' $f)
		[ -z "$left" ] && return 0
		sleep 0.1; i=$((i + 1))
	done
	echo "$left"
}
n=0 bad=0
for t in [0-9][0-9]-*.sh; do
	case "$t" in $pattern) ;; *) continue ;; esac
	n=$((n + 1))
	name=${t%.sh}
	before=$(dmesg | wc -l)
	start=$(date +%s)
	sh -c ". ./lib.sh; . ./$t" > /tmp/test.out 2>&1
	rc=$?
	dur=$(( $(date +%s) - start ))
	sed 's/^\([^#]\)/#   \1/' /tmp/test.out
	# Each test leaves the guest as it found it: no namespace, no port,
	# and the module's objects (debugfs innova/objects) back to zero.
	ip netns del A 2>/dev/null; ip netns del B 2>/dev/null
	ip link del innova0 2>/dev/null; ip link del innova1 2>/dev/null
	leak=$(objects_left)
	splat=$(dmesg | tail -n +$((before + 1)) | grep -E "$SPLAT" | head -5)
	if [ -n "$splat" ]; then
		echo "$splat" | sed 's/^/# dmesg: /'
		dmesg | tail -n +$((before + 1)) | head -60 | sed 's/^/#   /'
		echo "not ok $n - $name (kernel splat) [${dur}s]"; bad=$((bad + 1))
	elif [ $rc -ne 0 ]; then
		echo "not ok $n - $name [${dur}s]"; bad=$((bad + 1))
	elif [ -n "$leak" ]; then
		echo "# objects left after the test: $leak"
		echo "not ok $n - $name (objects leaked) [${dur}s]"; bad=$((bad + 1))
	else
		echo "ok $n - $name [${dur}s]"
	fi
done
[ $n -gt 0 ] || { echo "not ok 1 - no guest test matched '$pattern'"; exit 1; }
[ $bad -eq 0 ]
