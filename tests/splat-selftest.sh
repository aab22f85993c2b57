#!/bin/sh
# The kernel-log scan (tests/guest/splat.sh) finds each kind of report the
# debug kernel prints, and lets the call trace of an injected page
# allocation failure or forced failure through. TAP.
here=$(cd "$(dirname "$0")" && pwd)
n=0 bad=0
check() {	# check WANT(found|clean) NAME LOG-LINES...
	want=$1 name=$2; shift 2
	n=$((n + 1))
	if printf '%s\n' "$@" | sh "$here/guest/splat.sh" > /dev/null; then got=found; else got=clean; fi
	if [ "$got" = "$want" ]; then echo "ok $n - splat scan: $name"; else echo "not ok $n - splat scan: $name ($got)"; bad=$((bad + 1)); fi
}
check found "KASAN use-after-free" "[ 1.0] BUG: KASAN: use-after-free in innova_tls_rx+0x1c/0x90 [innova]"
check found "lockdep inversion" "[ 1.0] WARNING: possible circular locking dependency detected"
check found "sleeping in atomic" "[ 1.0] BUG: sleeping function called from invalid context at mm/slab.h:712"
check found "debugobjects" "[ 1.0] ODEBUG: free active (active state 0) object type: work_struct hint: innova_tls_async_work"
check found "list corruption" "[ 1.0] list_add corruption. prev->next should be next (ffff8880), but was 0000000000000000"
check found "UBSAN" "[ 1.0] UBSAN: array-index-out-of-bounds in module/hw/engine.c:100:5"
check found "WARN with trace" "[ 1.0] WARNING: CPU: 0 PID: 1 at net/tls/tls_device.c:1 x" "[ 1.0] Call Trace:"
check clean "injected page allocation failure" \
	"[ 1.0] innova-tls: page allocation failure: order:0, mode:0x820(GFP_ATOMIC), nodemask=(null)" \
	"[ 1.0] CPU: 1 PID: 99 Comm: innova-tls Not tainted 6.1.192-innova-debug #1" \
	"[ 1.0] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996)" \
	"[ 1.0] Call Trace:" "[ 1.0]  <IRQ>" "[ 1.0]  dump_stack_lvl+0x4c/0x63"
check found "a real trace after an allocation failure" \
	"[ 1.0] x: page allocation failure: order:0" "[ 1.0] Call Trace:" \
	"[ 2.0] a" "[ 2.0] b" "[ 2.0] c" "[ 2.0] d" "[ 2.0] e" "[ 2.0] f" "[ 2.0] Call Trace:"
check clean "two forced failures, their stacks one after the other" \
	"[ 1.0] FAULT_INJECTION: forcing a failure." "[ 1.0] name failslab, interval 2" \
	"[ 1.0] CPU: 1 PID: 19 Comm: ksoftirqd/1" "[ 1.0] Call Trace:" "[ 1.0]  <TASK>" \
	"[ 1.1] FAULT_INJECTION: forcing a failure." "[ 1.1] name failslab, interval 2" \
	"[ 1.0]  a" "[ 1.0]  b" "[ 1.0]  c" "[ 1.0]  d" "[ 1.0]  e" "[ 1.0]  f" "[ 1.0]  </TASK>" \
	"[ 1.2] CPU: 0 PID: 330 Comm: innova-tls" "[ 1.2] Call Trace:" "[ 1.2]  <TASK>"
check found "a trace more than the forced failures owe" \
	"[ 1.0] FAULT_INJECTION: forcing a failure." "[ 1.0] Call Trace:" "[ 2.0] Call Trace:"
check clean "a forced failure in the host's coloured copy" \
	"$(printf '\033[32m[ 1.0] \033[0m\033[33mFAULT_INJECTION: \033[0m\033[1mforcing a failure.\033[0m')" \
	"$(printf '\033[32m[ 1.0] \033[0m\033[1mCall Trace:\033[0m')"
check clean "a quiet boot" "[ 0.0] Linux version 6.1.192" "[ 0.1] kmemleak: Kernel memory leak detector initialized"
echo "# $n checks, $bad failed"
[ $bad -eq 0 ]
