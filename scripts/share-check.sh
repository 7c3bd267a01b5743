#!/usr/bin/env bash
# Runs one `prust check` split over N shares (`--share I/N`, I = 1..N) and
# combines their exit statuses: 0 when every share holds (the property
# holds), 1 when some share found a violation (its report is a whole run),
# 2 when some share hit a limit and none found a violation, 3 on an error
# (the largest status, as for several formulas).
#
#   scripts/share-check.sh 4 npb-cg-concurrent:8 'G !"DEADLOCK"'
#       four local processes (one a core: give each its own machine for
#       real gains)
#   HOSTS="m1 m2 m3 m4" scripts/share-check.sh 4 npb-cg-concurrent:8 'G !"DEADLOCK"'
#       share I on the I-th host over ssh (each host needs the same prust
#       on its PATH; PROTOCOL files must be at the same path there)
#
# Other options go in PRUST_* variables (exported to local runs; over ssh
# put them in ARGS, e.g. ARGS="--max-memory 16G --share-level 12").
# Each share's report goes to share-I-of-N.txt in the current folder; the
# split digests in them must all be equal (this script checks).
set -uo pipefail
if (( $# < 3 )); then
    echo "usage: $0 N PROTOCOL FORMULA... (HOSTS=\"h1 … hN\" for ssh)" >&2
    exit 3
fi
n=$1; shift
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "N must be a positive whole number, not $n" >&2; exit 3; }
read -r -a hosts <<< "${HOSTS:-}"
if (( ${#hosts[@]} )) && (( ${#hosts[@]} != n )); then
    echo "HOSTS names ${#hosts[@]} hosts for $n shares" >&2; exit 3
fi
read -r -a extra <<< "${ARGS:-}"
pids=()
for ((i = 1; i <= n; i++)); do
    out="share-$i-of-$n.txt"
    if (( ${#hosts[@]} )); then
        # Quoted for the remote shell: formulas hold spaces and quotes.
        ssh "${hosts[i-1]}" "prust check --share $i/$n ${extra[*]:-} $(printf '%q ' "$@")" > "$out" 2>&1 &
    else
        prust check --share "$i/$n" "${extra[@]}" "$@" > "$out" 2>&1 &
    fi
    pids+=($!)
done
status=0
for ((i = 1; i <= n; i++)); do
    wait "${pids[i-1]}"; code=$?
    # An exit status outside the table (ssh failed, the process was killed)
    # decides nothing: an error.
    (( code > 3 )) && code=3
    echo "share $i/$n: exit $code (share-$i-of-$n.txt)" >&2
    (( code > status )) && status=$code
done
digests=$(grep -ho 'split digest [0-9a-f]*' share-*-of-"$n".txt | sort -u | wc -l)
if (( status < 3 )) && (( digests > 1 )); then
    echo "the shares split different state spaces (different split digests): no verdict" >&2
    status=3
fi
case $status in
    0) echo "holds: every share of $n holds" ;;
    1) echo "violated: see the share whose exit status was 1" ;;
    2) echo "inconclusive: some share reached a limit, none found a violation" ;;
    *) echo "error: see the shares' reports" ;;
esac
exit "$status"
