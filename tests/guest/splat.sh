# splat.sh [FILE]: print the kernel log lines (stdin or FILE) that show a
# kernel error, one pattern per line of splat-patterns: WARN/BUG/Oops,
# KASAN, UBSAN, lockdep, sleeping in atomic context, debugobjects, list
# corruption. The call trace of a "page allocation failure" report is not a
# splat: allocation-failure runs make the kernel print one for every failed
# page allocation that did not ask for silence, by design; nor is the stack
# fault injection prints with each failure it forces (verbose=2).
# Shared by the guest runner (per test) and the host (whole boot).
here=$(dirname "$0")
# Each such report is one header and, later, one Call Trace: stacks from
# two CPUs print one after the other (dump_stack serializes them), so a
# header's trace may come after another one's; a trace is skipped while
# a header is owed one. A WARN or BUG line still matches on its own.
# (dmesg colours its prefixes on a terminal: the host's copy has escapes
# inside "FAULT_INJECTION: forcing", so they go first)
awk '{ gsub(/\033\[[0-9;]*m/, "") }
	/page allocation failure|FAULT_INJECTION: forcing a failure/ { owed++ }
	/Call Trace/ && owed > 0 { owed--; next } { print }' "$@" |
	grep -E -f "$here/splat-patterns"
