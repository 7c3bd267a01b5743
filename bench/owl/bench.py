#!/usr/bin/env python3
"""Benchmark owl-lite against Spot and SPIN on a formula set, per family,
in one run (same machine, same moment), and print a Markdown table.

    pip install spottl && apt-get install -y spin
    python3 bench/owl/bench.py [--wall] [FILE]    # default: owl-lite/bench/ltl-formulas.txt

Times are CPU time (user + system) unless --wall is given: the machines
are shared, and on a loaded one the wall time of a sub-millisecond
translation is mostly time spent waiting for a core (owl-lite's 13 ms
formulas read 170 ms of wall time at load 13). owl-lite: the thread's CPU
clock (translate_all --cpu); Spot: Python's time.thread_time(); SPIN: the
child process's user + system time (getrusage).

owl-lite: the translate_all example (release build), translation time measured
in-process, median of 11 runs per formula. Spot: spot.translate(f) (default:
TGBA, small, high), in-process from Python, median of 5 runs. SPIN:
`spin -f` (Büchi automaton as a never claim, states = labels), time of the
whole process (so including its start-up), one run, 10 s (wall) time-out; SPIN
has no M operator and no X by default, so formulas are rewritten by Spot
into U/R/!/&&/|| first (formulas with X fail in SPIN: "rejected").
"""
import os
import re
import resource
import statistics
import subprocess
import sys
import time

import spot

SPIN_TIMEOUT = 10  # seconds; spin -f is exponential on some DAC patterns
WALL = "--wall" in sys.argv
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def owl_stats(path):
    out = subprocess.run(
        ["cargo", "run", "-q", "-p", "owl-lite", "--release", "--example",
         "translate_all", "--", "--stats", "--runs", "11"]
        + ([] if WALL else ["--cpu"]) + [path],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        fam, formula, states, edges, sets, med, mx = line.split("\t")
        rows.append((fam, formula, int(states), int(edges), float(med)))
    return rows


def spot_stats(text):
    f = spot.formula(text)
    clock = time.perf_counter if WALL else time.thread_time
    times = []
    for _ in range(5):
        t = clock()
        a = spot.translate(f)
        times.append((clock() - t) * 1e6)
    return a.num_states(), a.num_edges(), statistics.median(times)


def spin_stats(text):
    f = spot.unabbreviate(spot.formula(text), "^ieFGWM")
    s = f.to_str("spin")
    def children_cpu():
        u = resource.getrusage(resource.RUSAGE_CHILDREN)
        return u.ru_utime + u.ru_stime
    t, c = time.perf_counter(), children_cpu()
    try:
        r = subprocess.run(["spin", "-f", s], capture_output=True, text=True,
                           timeout=SPIN_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, None, None
    us = ((time.perf_counter() - t) if WALL else (children_cpu() - c)) * 1e6
    if r.returncode != 0 or "never" not in r.stdout:
        return None, None, us
    labels = set(re.findall(r"^(\w+):", r.stdout, re.M))
    # spin's transitions: one ':: (guard) -> goto X' per line
    edges = len(re.findall(r"^\s*::", r.stdout, re.M))
    return len(labels), edges, us


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    path = args[0] if args else "owl-lite/bench/ltl-formulas.txt"
    rows = owl_stats(path)
    fams = {}
    for fam, text, st, ed, us in rows:
        sst, sed, sus = spot_stats(text)
        pst, ped, pus = spin_stats(text)
        fams.setdefault(fam, []).append((st, ed, us, sst, sed, sus, pst, ped, pus))
    print("| family | n | owl-lite states | edges | median µs | max µs "
          "| Spot states | edges | median µs | max µs | SPIN states | edges | median µs |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    tot = [0] * 6
    all_owl, all_spot, all_spin = [], [], []
    for fam, v in fams.items():
        n = len(v)
        st = sum(x[0] for x in v); ed = sum(x[1] for x in v)
        sst = sum(x[3] for x in v); sed = sum(x[4] for x in v)
        spins = [x for x in v if x[6] is not None]
        pst = sum(x[6] for x in spins); ped = sum(x[7] for x in spins)
        timeouts = sum(1 for x in v if x[8] is None)
        failed = n - len(spins) - timeouts
        miss = "".join([f" ({timeouts} timed out)" if timeouts else "",
                        f" ({failed} rejected)" if failed else ""])
        tot = [a + b for a, b in zip(tot, [st, ed, sst, sed, pst, ped])]
        all_owl += [x[2] for x in v]; all_spot += [x[5] for x in v]
        spin_times = [x[8] for x in v if x[8] is not None]
        all_spin += spin_times
        print(f"| {fam} | {n} | {st} | {ed} | {statistics.median(x[2] for x in v):.0f} "
              f"| {max(x[2] for x in v):.0f} | {sst} | {sed} "
              f"| {statistics.median(x[5] for x in v):.0f} | {max(x[5] for x in v):.0f} "
              f"| {pst}{miss} | {ped} "
              f"| {statistics.median(spin_times) if spin_times else float('nan'):.0f} |")
    print(f"| **total** | {len(rows)} | **{tot[0]}** | {tot[1]} | {statistics.median(all_owl):.0f} "
          f"| {max(all_owl):.0f} | **{tot[2]}** | {tot[3]} | {statistics.median(all_spot):.0f} "
          f"| {max(all_spot):.0f} | {tot[4]} | {tot[5]} | {statistics.median(all_spin):.0f} |")


if __name__ == "__main__":
    main()
