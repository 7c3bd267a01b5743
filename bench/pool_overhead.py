#!/usr/bin/env python3
"""Pools several runs of the session_overhead bench into one table.

Usage: for i in 1 2 3 4 5 6 7; do <bench binary>; done > runs.txt
       python3 bench/pool_overhead.py runs.txt

Each run's row gives, per version, the minimum over its 11 runs as a ratio
to the hand-written version. Pooled here: per version and cell, the
minimum over all runs (times recovered as ratio x hand), as ratios to the
hand-written minimum; and the median and range of the per-run CPU ratios.
"""
import statistics
import sys

VERSIONS = ["strict", "liberal", "concurrent"]
cells = {}
for line in open(sys.argv[1]):
    f = [x.strip() for x in line.strip().strip("|").split("|")]
    if len(f) != 11 or f[0] not in ("cg", "is"):
        continue
    kernel, k = f[0], int(f[1])
    hw, hc = float(f[3]), float(f[7])
    wall = [float(x) for x in f[4:7]]
    cpu = [float(x) for x in f[8:11]]
    c = cells.setdefault((kernel, k), {"hw": [], "hc": [], "w": [[] for _ in VERSIONS], "c": [[] for _ in VERSIONS], "rc": [[] for _ in VERSIONS]})
    c["hw"].append(hw)
    c["hc"].append(hc)
    for i in range(len(VERSIONS)):
        c["w"][i].append(wall[i] * hw)
        c["c"][i].append(cpu[i] * hc)
        c["rc"][i].append(cpu[i])

runs = max(len(c["hw"]) for c in cells.values())
print(f"pooled over {runs} runs (each the minimum of 11): ratios of pooled minima; CPU ratio per run as median (range)")
print()
head = " | ".join(f"{v} / hand" for v in VERSIONS)
print(f"| kernel | workers | hand wall ms | {head} | hand CPU ms | {head} | " + " | ".join(f"{v} CPU, per run" for v in VERSIONS) + " |")
print("|---|---:|---:|" + "---:|" * 3 + "---:|" + "---:|" * 3 + "---|" * 3)
for (kernel, k), c in sorted(cells.items()):
    hw, hc = min(c["hw"]), min(c["hc"])
    w = " | ".join(f"{min(x) / hw:.3f}" for x in c["w"])
    cp = " | ".join(f"{min(x) / hc:.3f}" for x in c["c"])
    per = " | ".join(f"{statistics.median(x):.2f} ({min(x):.2f}–{max(x):.2f})" for x in c["rc"])
    print(f"| {kernel} | {k} | {hw:.1f} | {w} | {hc:.1f} | {cp} | {per} |")
