# Guest test runner: runs each tests/guest/NN-*.sh in its own shell, prints
# one TAP line per test, and fails a test whose kernel log window shows a
# WARN/BUG/Oops/Call Trace/KASAN, even if the test itself passed.
cd /innova/tests/guest || exit 1
SPLAT='WARNING:|BUG:|Oops|Call Trace|KASAN|UBSAN|general protection|RCU stall|hung_task'
pattern=${GUEST_TESTS:-*}
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
	splat=$(dmesg | tail -n +$((before + 1)) | grep -E "$SPLAT" | head -5)
	if [ -n "$splat" ]; then
		echo "$splat" | sed 's/^/# dmesg: /'
		dmesg | tail -n +$((before + 1)) | head -60 | sed 's/^/#   /'
		echo "not ok $n - $name (kernel splat) [${dur}s]"; bad=$((bad + 1))
	elif [ $rc -ne 0 ]; then
		echo "not ok $n - $name [${dur}s]"; bad=$((bad + 1))
	else
		echo "ok $n - $name [${dur}s]"
	fi
	# Each test leaves the guest as it found it.
	ip netns del A 2>/dev/null; ip netns del B 2>/dev/null
done
[ $n -gt 0 ] || { echo "not ok 1 - no guest test matched '$pattern'"; exit 1; }
[ $bad -eq 0 ]
