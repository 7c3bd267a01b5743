#!/usr/bin/env bash
# The engine benchmark's models in SPIN: writes the Promela model,
# then `spin -a`, `gcc -O2`, `./pan` (exhaustive DFS, deadlock = invalid end
# state, the counterpart of prust's `G !"DEADLOCK"`), and prints one line
# with pan's own figures. Needs spin and gcc (apt-get install -y spin).
#
#   bench/peers/spin/run.sh ring 12     # directed ring, C(2n, n) states
#   bench/peers/spin/run.sh star 12     # star with n leaves, n * 2^n states
#   KEEP=1 ...                          # keep the work directory and pan's output
#   SPIN_CORES=2 ...                    # pan's multi-core search (-DNCORE=2,
#                                       # worker processes on shared memory)
#
# Figures: pan's own (states stored, elapsed time, "total actual memory
# usage") and, from /usr/bin/time around ./pan alone (compilation not
# included), its wall-clock and CPU (user + system) time and peak RSS.
set -euo pipefail

model=${1:?usage: run.sh ring|star N}
n=${2:?usage: run.sh ring|star N}
[[ $n =~ ^[0-9]+$ ]] && (( n >= 2 && n <= 30 )) || { echo "N must be in 2..30" >&2; exit 2; }
command -v spin >/dev/null || { echo "spin not found: apt-get install -y spin" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/prust-spin-$model-$n.XXXX")
[[ -n ${KEEP:-} ]] || trap 'rm -rf "$work"' EXIT
cd "$work"

# Both models mirror prust's bench objects (testkit/src/models.rs): one
# control location per role step, 1-capacity channels. Role i of the ring
# sends on c[i] (to i+1) and receives on c[i-1]; the star's hub loop is
# unrolled so that its control location *is* the next leaf, as in prust.
case $model in
ring)
    cat > model.pml <<PML
#define N $n
chan c[N] = [1] of { bit };
active [N] proctype Role() {
    do
    :: c[_pid] ! 0; c[(_pid + N - 1) % N] ? _
    od
}
PML
    expected=1   # C(2n, n) = prod_{i=1..n} (n + i) / i, exact at every step
    for ((i = 1; i <= n; i++)); do expected=$(( expected * (n + i) / i )); done
    ;;
star)
    {
        echo "#define N $n"
        echo "chan c[N] = [1] of { bit };"
        echo "active proctype Hub() {"
        echo "    do"
        printf '    ::'
        for ((l = 0; l < n; l++)); do printf ' c[%d] ! 0;' "$l"; done
        echo
        echo "    od"
        echo "}"
        echo "active [N] proctype Leaf() {"
        echo "    do"
        echo "    :: c[_pid - 1] ? _"
        echo "    od"
        echo "}"
    } > model.pml
    expected=$(( n << n ))
    ;;
*) echo "unknown model $model (ring|star)" >&2; exit 2 ;;
esac

spin -a model.pml > spin.out
# -DSAFETY: no cycle detection, as for any safety property (deadlock).
# -DNOREDUCE: no partial-order reduction, since prust and Stateright have
# none (on these models SPIN's reduction removes nothing anyway).
# -DMEMLIM: pan's memory cap in MB (default 2 GB); the machine has 24 GiB.
# -DNCORE: SPIN_CORES worker processes (pan's multi-core DFS, which hands
# states over at a depth); they reserve MEMLIM as shared memory up front,
# so the cap is lower there (the ring n = 12 needs a few hundred MB).
cores=${SPIN_CORES:-1}
if (( cores > 1 )); then
    gcc -O2 -DSAFETY -DNOREDUCE -DNCORE="$cores" -DMEMLIM=4000 -o pan pan.c
else
    gcc -O2 -DSAFETY -DNOREDUCE -DMEMLIM=16000 -o pan pan.c
fi
# -m: the DFS stack must hold the deepest path, and the ring's DFS paths are
# nearly as long as the state count: size it by the state count (pan
# preallocates it). -w: 2^w hash slots, the first power of two >= 2x states.
w=1; while (( (1 << w) < 2 * expected )); do w=$((w + 1)); done
/usr/bin/time -f "%e %U %S %M" -o time.out ./pan -m$((expected + 1000)) -w$w > pan.out || true

if ! grep -q "errors: 0" pan.out || grep -q "max search depth too small" pan.out; then
    cat pan.out; echo "pan reported errors or a truncated search" >&2; exit 1
fi
states=$(awk '/states, stored/ { print $1; exit }' pan.out)
# (Multi-core: "cpu0: elapsed time", the first worker's.)
secs=$(awk '/(pan|cpu0): elapsed time/ { print $4; exit }' pan.out)
mem=$(awk '/total actual memory usage/ { print $1; exit }' pan.out)
depth=$(sed -n 's/.*depth reached \([0-9]*\),.*/\1/p' pan.out)
read -r wall user sys rss < <(tail -n 1 time.out)
cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
ok=ok; [[ $states == "$expected" ]] || ok=MISMATCH
echo "spin $model n=$n cores=$cores states=$states expected=$expected $ok depth=$depth" \
     "pan_time=${secs}s time=${wall}s cpu=${cpu}s pan_mem=${mem}MB rss=${rss}kB"
[[ $ok == ok ]]
