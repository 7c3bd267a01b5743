#!/bin/sh
# Wall time of the case-study suites (tests/owl), whole and per protocol
# family, with the release profile. Usage: bench/suites.sh [RUNS]
# Prints one line per family: name, tests, median wall time over RUNS runs.
set -eu
runs=${1:-5}
cd "$(dirname "$0")/.."
bin=$(cargo test --release -p prust --test owl --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | grep "/deps/owl-" | tail -n 1)
[ -n "$bin" ] || { echo "could not build the owl test binary" >&2; exit 1; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
family() {
    name=$1; filter=$2
    tests=$("$bin" --list $filter 2>/dev/null | grep -c ': test$' || true)
    t=$(for _ in $(seq "$runs"); do
        start=$(date +%s.%N)
        "$bin" -q $filter >/dev/null 2>&1 || { echo "FAILED: $name" >&2; exit 1; }
        end=$(date +%s.%N)
        echo "$end - $start" | bc
    done | median)
    printf '%-22s %5s tests  %8.3f s\n' "$name" "$tests" "$t"
}
family "whole suite"          ""
family "topologies"           "topologies"
family "chess"                "games::chess"
family "tic-tac-toe"          "games::tic-tac-toe"
family "rock-paper-scissors"  "games::rock-paper-scissors"
family "go-fish"              "games::go-fish"
family "npb CG"               "npb::cg"
family "npb IS"               "npb::is"
family "npb FT"               "npb::ft"
family "npb MG"               "npb::mg"
family "two-buyer, load-bal." "sessions"
family "beyond"               "beyond"
