#!/usr/bin/env bash
# The engine benchmark against its peers, side by side: prust (engine/benches/ring_star.rs),
# Stateright (bench/peers/stateright, BFS, one thread) and SPIN
# (bench/peers/spin/run.sh, pan DFS) on the same models and sizes, each
# (model, n) run back to back by all three, one process per run, under
# /usr/bin/time for wall-clock time and peak RSS. Prints a Markdown table.
#
#   bench/peers/run.sh                      # all models, n = 4 6 8 10
#   bench/peers/run.sh 12                   # all models, n = 12
#   MODELS="ring ring-packed" bench/peers/run.sh 10 11 12
#   NO_SPIN=1 ...                           # skip SPIN (not installed)
#   THREADS=2 MODELS=ring 12                # prust and Stateright on 2 threads
#                                           # each (default 1), SPIN's pan on 2
#                                           # cores (-DNCORE=2)
#   RUNS=5 MODELS=ring-packed bench/peers/run.sh 11 12
#                                           # prust and Stateright 5 times each,
#                                           # alternating; the table gives medians
#
# Models: ring, star (objects with Vecs and the messages in transit; the
# Stateright states likewise), ring-packed, star-packed (bitmask states on
# both sides). SPIN has one representation (its state vector), run once per
# model family and shown on both rows. Every run checks its state count
# against the closed form (ring C(2n, n), star n * 2^n) and fails on a
# mismatch. Raw lines go to stderr; the table to stdout.
#
# Needs: cargo, /usr/bin/time (apt-get install -y time), and for SPIN spin
# and gcc (apt-get install -y spin). Set CARGO_TARGET_DIR to share builds.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

sizes=("$@")
(( ${#sizes[@]} )) || sizes=(4 6 8 10)
read -r -a models <<< "${MODELS:-ring star ring-packed star-packed}"
[[ -x /usr/bin/time ]] || { echo "needs /usr/bin/time: apt-get install -y time" >&2; exit 2; }
if [[ -z ${NO_SPIN:-} ]] && ! command -v spin >/dev/null; then
    echo "spin not found (apt-get install -y spin); set NO_SPIN=1 to skip it" >&2; exit 2
fi

echo "building prust bench and Stateright peer (release)..." >&2
prust=$(cargo bench -p prust-engine --bench ring_star --no-run --message-format=json 2>/dev/null \
    | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "ring_star" and m.get("executable"):
        print(m["executable"])')
sr=$(cargo build --release --manifest-path bench/peers/stateright/Cargo.toml --message-format=json 2>/dev/null \
    | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["executable"])')
[[ -x $prust && -x $sr ]] || { echo "build failed" >&2; exit 1; }

# field NAME LINE: the value of NAME=... in a result line.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< " $2"; }

# timed CMD...: runs CMD under /usr/bin/time; sets LINE (last stdout line),
# SECS (wall clock), CPU (user + system seconds) and RSS_MB (peak RSS).
# CPU time is the steadier figure on a shared machine; both are reported.
timed() {
    local tf rss_kb user sys; tf=$(mktemp)
    LINE=$(/usr/bin/time -f "%e %U %S %M" -o "$tf" "$@" | tail -n 1)
    read -r SECS user sys rss_kb < <(tail -n 1 "$tf")
    CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    RSS_MB=$(awk -v k="$rss_kb" 'BEGIN { printf "%.1f", k / 1024 }')
    rm -f "$tf"
    echo "  $LINE  [wall ${SECS}s, cpu ${CPU}s, peak RSS ${RSS_MB} MB]" >&2
}

# median X...: the median of the numbers (the lower middle one of an even count).
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

declare -A spin_done
rows=()
for n in "${sizes[@]}"; do
    for model in "${models[@]}"; do
        # Alternate the two tools so that both see the same machine load.
        p_ss=() p_cpus=() p_mbs=() s_ss=() s_cpus=() s_mbs=()
        for ((run = 0; run < ${RUNS:-1}; run++)); do
            timed "$prust" --threads "${THREADS:-1}" "$model" "$n"
            p_line=$LINE p_ss+=("$SECS") p_cpus+=("$CPU") p_mbs+=("$RSS_MB")
            states=$(field states "$p_line")
            timed "$sr" "$model" "$n" "${THREADS:-1}"
            s_ss+=("$SECS") s_cpus+=("$CPU") s_mbs+=("$RSS_MB")
            [[ $(field states "$LINE") == "$states" ]] || { echo "state counts differ: $model $n" >&2; exit 1; }
        done
        p_s=$(median "${p_ss[@]}") p_cpu=$(median "${p_cpus[@]}") p_mb=$(median "${p_mbs[@]}")
        s_s=$(median "${s_ss[@]}") s_cpu=$(median "${s_cpus[@]}") s_mb=$(median "${s_mbs[@]}")
        base=${model%-packed}
        if [[ -n ${NO_SPIN:-} ]]; then
            spin_done[$base-$n]="— | — | —"
        elif [[ -z ${spin_done[$base-$n]:-} ]]; then
            line=$(SPIN_CORES=${THREADS:-1} bench/peers/spin/run.sh "$base" "$n")
            echo "  $line" >&2
            [[ $(field states "$line") == "$states" ]] || { echo "SPIN's state count differs: $model $n" >&2; exit 1; }
            rss_kb=$(field rss "$line"); rss_kb=${rss_kb%kB}
            spin_done[$base-$n]="$(field time "$line" | tr -d s) | $(field cpu "$line" | tr -d s) | $(awk -v k="$rss_kb" 'BEGIN { printf "%.1f", k / 1024 }')"
        fi
        ratio_t=$(awk -v a="$p_s" -v b="$s_s" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "—" }')
        ratio_c=$(awk -v a="$p_cpu" -v b="$s_cpu" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "—" }')
        ratio_m=$(awk -v a="$p_mb" -v b="$s_mb" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "—" }')
        rows+=("| $model | $n | $states | $(field product "$p_line") | $p_s | $p_cpu | $p_mb | $(field bytes_per_stored "$p_line") | $s_s | $s_cpu | $s_mb | ${spin_done[$base-$n]} | $ratio_t | $ratio_c | $ratio_m |")
    done
done

echo "| model | n | states | prust product states | prust wall s | prust CPU s | prust peak MB | prust B/stored | SR wall s | SR CPU s | SR peak MB | SPIN wall s | SPIN CPU s | SPIN peak MB | prust/SR wall | prust/SR CPU | prust/SR memory |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
