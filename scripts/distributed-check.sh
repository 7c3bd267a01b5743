#!/usr/bin/env bash
# Runs one `prust check --distributed` over N local processes (one state
# space, each product state owned by one process; see the README's "Beyond
# one machine"), prints process 0's report and exits with its status:
# 0 holds, 1 violated, 2 inconclusive, 3 error.
#
#   scripts/distributed-check.sh 4 ring-buffered:12 'G !"DEADLOCK"'
#   scripts/distributed-check.sh 2 npb-cg-concurrent:8 'G !"DEADLOCK"' -w 2 --max-memory 4G
#
# Options after the formulas go to every process (limits apply per
# process). PRUST names the prust to run (default: `prust` on the PATH);
# PORT the first port (default 2101: process I listens on PORT+I). The
# other processes' output goes to distributed-I-of-N.txt in the current
# folder. On several machines, run `prust check … --distributed -n N -p I
# --hostfile FILE` on each instead (the README says how).
set -uo pipefail
if (( $# < 3 )); then
    echo "usage: $0 N PROTOCOL FORMULA... [OPTIONS...]" >&2
    exit 3
fi
n=$1; shift
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "N must be a positive whole number, not $n" >&2; exit 3; }
prust=${PRUST:-prust}
port=${PORT:-2101}
pids=()
for ((i = 1; i < n; i++)); do
    "$prust" check "$@" --distributed -n "$n" -p "$i" --port "$port" \
        > "distributed-$i-of-$n.txt" 2>&1 &
    pids+=($!)
done
"$prust" check "$@" --distributed -n "$n" -p 0 --port "$port"
status=$?
for ((i = 1; i < n; i++)); do
    wait "${pids[i-1]}"; code=$?
    # A process that ended otherwise than process 0 says why in its file.
    if (( code != status )); then
        echo "process $i/$n: exit $code (distributed-$i-of-$n.txt)" >&2
    fi
done
(( status > 3 )) && status=3
exit "$status"
