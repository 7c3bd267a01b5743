#!/usr/bin/env bash
# Counts a crate's public surface as its rustdoc shows it: the items that
# `all.html` lists (each at its one documented path) plus the public
# modules (a module page each), and fails if there are more than MAX.
#
#   cargo doc -p prust-protocols --no-deps
#   scripts/surface.sh protocols 100          # count, fail past 100
#   VERBOSE=1 scripts/surface.sh protocols    # list them, no bar
#
# A crate that grows its surface past the bar has to say why, by raising
# it here in CI; methods and associated items are not counted (they live
# on their type's page). It reads rustdoc's HTML, whose format may change
# with the compiler: finding no item at all is an error, not a pass.
set -euo pipefail
crate=${1:?usage: scripts/surface.sh CRATE [MAX]}
max=${2:-}
dir="${CARGO_TARGET_DIR:-target}/doc/$crate"
if [[ ! -f "$dir/all.html" ]]; then
    echo "surface: $dir/all.html is missing; run cargo doc -p <package> --no-deps first" >&2
    exit 2
fi
items=$(grep -oE '<li><a href="[^"]+">' "$dir/all.html" | sed -E 's/.*href="([^"]+)".*/\1/' | sort -u)
# The public modules, walked from the crate root through each module's
# sidebar-items.js (rewritten by every rustdoc run), not by listing the
# folder: a module that was removed keeps its stale pages in a warm
# target/doc.
modules_under() {
    local path=$1 js
    js=$(cat "$dir/$path"sidebar-items*.js 2>/dev/null || true)
    local mods
    mods=$(grep -oE '"mod":\[[^]]*\]' <<<"$js" | grep -oE '"[A-Za-z0-9_]+"' | tr -d '"' | grep -v '^mod$' || true)
    for m in $mods; do
        echo "$path$m"
        modules_under "$path$m/"
    done
}
modules=$(modules_under "" | sort)
n_items=$(grep -c . <<<"$items" || true)
n_modules=$(grep -c . <<<"$modules" || true)
if (( n_items == 0 )); then
    echo "surface: found no item in $dir/all.html: has rustdoc's format changed?" >&2
    exit 2
fi
if [[ -n "${VERBOSE:-}" ]]; then
    printf '%s\n' "$items" "$modules"
fi
total=$((n_items + n_modules))
echo "surface of $crate: $n_items items + $n_modules modules = $total${max:+ (at most $max)}"
if [[ -n "$max" ]] && (( total > max )); then
    echo "surface: $crate exports $total public items, more than $max; make plumbing" \
        "pub(crate), or raise the bar in .ci/run if the new items are API" >&2
    exit 1
fi
