#!/usr/bin/env bash
# explore's rate against shuttle's, side by side: fan-in k = 3 sampled by
# prust's random walk (explore/benches/explore_rate.rs --random) and by
# shuttle's random scheduler (bench/peers/shuttle), 100,000 executions
# each, alternating, ROUNDS times (default 3). Each prints three rounds of
# executions per CPU-second.
#
#   bench/peers/shuttle/run.sh
#   ROUNDS=5 bench/peers/shuttle/run.sh
#
# Needs cargo and network access for the shuttle crate.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
cargo build --release -q --manifest-path bench/peers/shuttle/Cargo.toml
prust=$(cargo bench -p prust-explore --bench explore_rate --no-run 2>&1 |
    sed -n 's/.*(\(.*explore_rate-[0-9a-f]*\)).*/\1/p' | tail -1)
shuttle=${CARGO_TARGET_DIR:-bench/peers/shuttle/target}/release/prust-peer-shuttle
for _ in $(seq "${ROUNDS:-3}"); do
    "$shuttle"
    "$prust" --random
done
