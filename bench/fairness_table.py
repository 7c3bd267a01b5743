#!/usr/bin/env python3
"""Which liveness properties (F or U) of the bundled .owl suites change verdict
with --fairness weak: each on its protocols, both runtimes, both semantics.
Usage, from the repository root: bench/fairness_table.py target/release/prust
Prints a Markdown table of the checks whose verdict changes; checks that are
errors or inconclusive either way go to stderr."""
import glob, os, re, subprocess, sys
prust = sys.argv[1]
rows = []
for path in sorted(glob.glob('tests/owl/**/*.owl', recursive=True)):
    text = open(path).read()
    protos = [l.split()[1] for l in text.splitlines() if l.startswith('protocol ')]
    lets = dict(re.findall(r'^let\s+(\w+)\s*=\s*(".*")\s*$', text, re.M))
    for m in re.finditer(r'^test\s+(\S+)[^\n]*\n((?:[ \t]+\S[^\n]*\n?)+)', text, re.M):
        name, formula = m.group(1), ' '.join(m.group(2).split())
        for k, v in lets.items():
            formula = re.sub(r'\b%s\b' % k, v, formula)
        if not re.search(r'\b(F|U)\b|\bG\s*F\b', formula):
            continue
        for proto in protos:
            if proto.endswith('.aut'):
                proto = os.path.join(os.path.dirname(path), proto)
            for rt in ['strict', 'liberal']:
                for sem in ['stutter', 'omega']:
                    v = {}
                    for fa in ['none', 'weak']:
                        r = subprocess.run([prust, 'check', proto, formula, '--runtime', rt,
                                            '--semantics', sem, '--fairness', fa, '--timeout', '20'],
                                           capture_output=True, text=True)
                        v[fa] = {0: 'holds', 1: 'violated', 2: 'inconclusive'}.get(r.returncode, 'error')
                        if fa == 'none':
                            starved = re.search(r'this cycle starves ([^(]*)\(', r.stdout)
                    rows.append((path[len('tests/owl/'):], name, proto.split('/')[-1], rt, sem, v['none'], v['weak'],
                                 starved.group(1).strip() if starved else ''))
changed = [r for r in rows if r[5] != r[6]]
print(f'{len(rows)} checks of liveness properties ({len(set(r[:3] for r in rows))} property × protocol), '
      f'{len(changed)} change verdict with --fairness weak')
print('| suite | test | protocol | runtime | semantics | none | weak | the unfair cycle starves |')
print('|---|---|---|---|---|---|---|---|')
for r in changed:
    print('| ' + ' | '.join(r) + ' |')
errs = [r for r in rows if 'error' in r[5:7] or 'inconclusive' in r[5:7]]
for r in errs:
    print('not decided:', r, file=sys.stderr)
