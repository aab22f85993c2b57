#!/bin/bash
# Shell scripts that set -o pipefail must not end a pipeline with a reader
# that stops early (grep -q, grep -m, head): the writer then dies of
# SIGPIPE and the whole pipeline fails, depending on how fast each side
# runs. deps.sh failed every fresh machine that way. Read the whole
# output first (a variable and <<<, sed -n 1p, awk 'NR == 1').
# Prints one TAP line per script; exits 1 on any finding.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
rc=0 n=0
# an early reader after a pipe: | head, | grep ... -q/-m/--quiet/--max-count
re='(^|[^|])\|[[:space:]]*(head([[:space:]]|$)|grep([[:space:]]+-[^[:space:]|]+)*[[:space:]]+-[a-zA-Z]*[qm]|grep[^|]*--(quiet|silent|max-count))'
for f in $(git ls-files '*.sh' '.ci/*' 'qemu-image/*' | sort -u); do
	[ -f "$f" ] || continue
	grep -q 'pipefail' "$f" || continue
	n=$((n + 1))
	hits=$(grep -nE -- "$re" "$f" | grep -vE '^[0-9]+:[[:space:]]*#' || true)
	if [ -z "$hits" ]; then
		echo "ok $n - pipefail-safe pipelines: $f"
	else
		echo "not ok $n - pipefail-safe pipelines: $f"
		sed "s|^|#   $f:|" <<<"$hits"
		rc=1
	fi
done
echo "1..$n"
exit $rc
