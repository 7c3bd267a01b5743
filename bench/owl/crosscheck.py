#!/usr/bin/env python3
"""Cross-check owl-lite against Spot (ltlcross-style): every formula of a
benchmark file is translated by owl-lite (the translate_all example, HOA
output) and by Spot; the two automata must have the same language.

    pip install spottl          # Spot's Python bindings
    python3 bench/owl/crosscheck.py [FILE]   # default: owl-lite/bench/ltl-formulas.txt

Prints one line per mismatch (and per formula whose sizes differ, with -v),
then a summary; exits 1 if any automaton differs in language.
"""
import os
import subprocess
import sys

import spot

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def owl_hoa(path, negate=False):
    """{formula text: HOA text} from owl-lite's translate_all example."""
    out = subprocess.run(
        ["cargo", "run", "-q", "-p", "owl-lite", "--release", "--example",
         "translate_all", "--", "--hoa", "--runs", "1", path],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout
    result = []
    for chunk in out.split("#formula ")[1:]:
        line, hoa = chunk.split("\n", 1)
        result.append((line, hoa))
    return result


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "-v" in sys.argv
    path = args[0] if args else "owl-lite/bench/ltl-formulas.txt"
    mismatches = 0
    ours = spots = 0
    pairs = owl_hoa(path)
    for text, hoa in pairs:
        f = spot.formula(text)
        a = spot.automaton(hoa)
        ref = spot.translate(f)
        ours += a.num_states()
        spots += ref.num_states()
        # Language equivalence: L(a) = L(f) iff a & !f and !a & f are empty.
        ok = spot.are_equivalent(a, ref)
        if not ok:
            mismatches += 1
            print(f"MISMATCH: {text}")
            w = a.exclusive_word(ref)
            print(f"   word in exactly one of them: {w}")
        elif verbose and a.num_states() != ref.num_states():
            print(f"size {a.num_states():3} vs spot {ref.num_states():3}: {text}")
    print(f"{len(pairs)} formulas, {mismatches} language mismatches; "
          f"total states owl-lite {ours}, Spot {spots}")
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
