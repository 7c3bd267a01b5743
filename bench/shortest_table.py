#!/usr/bin/env python3
"""Counterexample lengths of the bundled .owl suites' violations, with the
search's own trace (PRUST_SHORTEST=0, the trace of every release before the
shortest counterexample), the default, and --shortest: each test formula on
each protocol, runtime and semantics of its suite.
Usage, from the repository root: bench/shortest_table.py target/release/prust [OLD]
OLD, another prust binary (without --shortest), replaces PRUST_SHORTEST=0
when given. Prints a Markdown table: per suite, the violations and the
median, mean and maximum number of steps (prefix + cycle) each way, and how
many the default left unshortened; checks not decided go to stderr."""
import glob, os, re, statistics, subprocess, sys
prust = sys.argv[1]
old = sys.argv[2] if len(sys.argv) > 2 else None

def steps(args, env_extra, binary=prust):
    env = dict(os.environ, **env_extra)
    r = subprocess.run([binary, 'check'] + args, capture_output=True, text=True, env=env)
    if r.returncode != 1:
        return None, False
    n = len(re.findall(r'^\s+\d+\. ', r.stdout, re.M))
    return n, 'not shown to be a shortest counterexample' in r.stdout

rows = {}
for path in sorted(glob.glob('tests/owl/**/*.owl', recursive=True)):
    text = open(path).read()
    protos = [l.split()[1] for l in text.splitlines() if l.startswith('protocol ')]
    rts = re.search(r'^runtime\s+(.*)$', text, re.M)
    sems = re.search(r'^semantics\s+(.*)$', text, re.M)
    rts = rts.group(1).split() if rts else ['strict']
    sems = sems.group(1).split() if sems else ['stutter']
    lets = dict(re.findall(r'^let\s+(\w+)\s*=\s*(".*")\s*$', text, re.M))
    suite = path[len('tests/owl/'):].split('/')[0]
    for m in re.finditer(r'^test\s+(\S+)[^\n]*\n((?:[ \t]+\S[^\n]*\n?)+)', text, re.M):
        formula = ' '.join(m.group(2).split())
        for k, v in lets.items():
            formula = re.sub(r'\b%s\b' % k, v, formula)
        for proto in protos:
            if proto.endswith('.aut'):
                proto = os.path.join(os.path.dirname(path), proto)
            for rt in rts:
                for sem in sems:
                    args = [proto, formula, '--runtime', rt, '--semantics', sem, '--timeout', '20']
                    if old:
                        before, _ = steps(args, {}, old)
                    else:
                        before, _ = steps(args, {'PRUST_SHORTEST': '0'})
                    default, not_shown = steps(args, {})
                    exact, _ = steps(args + ['--shortest'], {})
                    if None in (before, default, exact):
                        if not (before is None and default is None and exact is None):
                            print('not decided alike:', path, proto, rt, sem, formula, file=sys.stderr)
                        continue
                    rows.setdefault(suite, []).append((before, default, exact, not_shown))

def stats(xs):
    return f'{statistics.median(xs):g} / {statistics.mean(xs):.1f} / {max(xs)}'

print('| suites | violations | steps before (median / mean / max) | default | --shortest | '
      'shorter by default | left unshortened by default |')
print('|---|---|---|---|---|---|---|')
everything = []
for suite in sorted(rows) + ['all']:
    rs = everything if suite == 'all' else rows[suite]
    if suite != 'all':
        everything.extend(rs)
    b, d, e, n = zip(*rs)
    shorter = sum(1 for x, y in zip(b, d) if y < x)
    print(f'| {suite} | {len(rs)} | {stats(b)} | {stats(d)} | {stats(e)} | {shorter} | {sum(n)} |')
