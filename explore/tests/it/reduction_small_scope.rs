//! Bounded DPOR against bounded plain search on every program of a small
//! scope over the test mailbox, rather than on random ones: random
//! sampling can miss a small corner case that an exhaustive check of all
//! small programs cannot.
//!
//! The scope: 2 and 3 roles, each role a sequence of up to
//! `SMALL_SCOPE_OPS` operations (and all roles together up to
//! `SMALL_SCOPE_TOTAL`), each drawn from `Send(to)`, `RecvFrom(from)`,
//! `RecvAnyNot(self)` (a receive from anyone that asserts nothing) and
//! `Close(to)`, on channels of capacity 1 and 2, under preemption bounds
//! 0, 1, 2 and none. DPOR must find exactly the failures' outcomes and
//! the distinct results ([`found`]) of plain search under the same bound.
//!
//! `cargo test --release -p prust-explore --test it -- --exact
//! reduction_small_scope::every_small_program --include-ignored
//! --nocapture`; the variables below grow or shrink the scope.

use std::time::Instant;

use prust::explore::{Explorer, Reduction};
use testkit::mailbox::{observing_program, Mailbox, Step};

use super::support::agree::found;

/// The role names `observing_program` spawns, for `Mailbox::named`.
static NAMES: [&str; 4] = ["r0", "r1", "r2", "r3"];

/// The preemption bounds compared (`None`: unbounded).
const BOUNDS: [Option<usize>; 4] = [Some(0), Some(1), Some(2), None];

/// A number from the environment, or `default`.
fn var(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .map(|v| v.parse().unwrap_or_else(|_| panic!("{name}={v}")))
        .unwrap_or(default)
}

/// A list of numbers from the environment (`2,3`), or `default`.
fn list(name: &str, default: &[usize]) -> Vec<usize> {
    match std::env::var(name) {
        Err(_) => default.to_vec(),
        Ok(v) => v
            .split(',')
            .map(|x| x.trim().parse().unwrap_or_else(|_| panic!("{name}={v}")))
            .collect(),
    }
}

/// One operation as (kind, role), to compare and rename programs:
/// 0 send, 1 receive from, 2 receive from anyone, 3 close.
type Op = (u8, usize);

/// The operations of `kinds` that role `me` of `n` may run.
fn alphabet(n: usize, me: usize, kinds: &[usize]) -> Vec<Op> {
    let others: Vec<usize> = (0..n).filter(|&o| o != me).collect();
    let mut ops = Vec::new();
    for &kind in kinds {
        match kind {
            2 => ops.push((2, me)),
            _ => ops.extend(others.iter().map(|&o| (kind as u8, o))),
        }
    }
    ops
}

fn step((kind, role): Op) -> Step {
    match kind {
        0 => Step::Send(role),
        1 => Step::RecvFrom(role),
        2 => Step::RecvAnyNot(role),
        _ => Step::Close(role),
    }
}

/// Every sequence of at most `max` operations of `alphabet`.
fn sequences(alphabet: &[Op], max: usize) -> Vec<Vec<Op>> {
    let mut all = vec![Vec::new()];
    let mut last = vec![Vec::new()];
    for _ in 0..max {
        let mut next = Vec::new();
        for s in &last {
            for &op in alphabet {
                let mut longer: Vec<Op> = s.clone();
                longer.push(op);
                next.push(longer);
            }
        }
        all.extend(next.iter().cloned());
        last = next;
    }
    all
}

/// Every permutation of `0..n`.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for at in 0..=p.len() {
            let mut q = p.clone();
            q.insert(at, n - 1);
            out.push(q);
        }
    }
    out
}

/// `program` with role `i` renamed `perm[i]`.
fn renamed(program: &[Vec<Op>], perm: &[usize]) -> Vec<Vec<Op>> {
    let mut out = vec![Vec::new(); program.len()];
    for (i, ops) in program.iter().enumerate() {
        out[perm[i]] = ops.iter().map(|&(k, r)| (k, perm[r])).collect();
    }
    out
}

/// Every program of `n` roles, each of at most `max` operations, at most
/// `total` in all; with `symmetry`, only the least of each class of
/// programs that differ by a renaming of roles.
fn programs(
    n: usize,
    kinds: &[usize],
    max: usize,
    total: usize,
    symmetry: bool,
) -> Vec<Vec<Vec<Op>>> {
    let per_role: Vec<Vec<Vec<Op>>> = (0..n)
        .map(|me| sequences(&alphabet(n, me, kinds), max))
        .collect();
    let mut out = Vec::new();
    let mut current: Vec<Vec<Op>> = Vec::new();
    fn product(
        per_role: &[Vec<Vec<Op>>],
        left: usize,
        current: &mut Vec<Vec<Op>>,
        out: &mut Vec<Vec<Vec<Op>>>,
    ) {
        let Some((first, rest)) = per_role.split_first() else {
            out.push(current.clone());
            return;
        };
        for s in first.iter().filter(|s| s.len() <= left) {
            current.push(s.clone());
            product(rest, left - s.len(), current, out);
            current.pop();
        }
    }
    product(&per_role, total, &mut current, &mut out);
    if symmetry {
        let perms = permutations(n);
        out.retain(|p| perms.iter().all(|perm| *p <= renamed(p, perm)));
    }
    out
}

/// What became of one program under one capacity and bound.
enum Verdict {
    Agree,
    /// Plain search did not finish within its cap.
    Skipped,
    Differ(String),
}

/// DPOR against plain search on `program` with channels of `capacity`
/// under `bound`; plain search stops after `max` executions, DPOR after
/// `100 * max`.
fn compare(program: &[Vec<Step>], capacity: usize, bound: Option<usize>, max: usize) -> Verdict {
    let object = Mailbox::named(&NAMES[..program.len()], Some(capacity));
    let explore = |reduction, max| {
        Explorer::new()
            .preemption_bound(bound)
            .reduction(reduction)
            .max_executions(max)
            .shortest(false)
            .explore(object.clone(), observing_program(program))
    };
    let plain = explore(Reduction::None, max);
    // Under a bound no search is complete; the limit is what counts.
    if plain.executions() >= max || (bound.is_none() && !plain.is_complete()) {
        return Verdict::Skipped;
    }
    let want = found(&plain);
    let dpor = explore(Reduction::Dpor, 100 * max);
    let seen = found(&dpor);
    let cut = dpor.executions() >= 100 * max;
    if cut || (bound.is_none() && !dpor.is_complete()) || seen != want {
        Verdict::Differ(format!(
            "capacity {capacity} bound {bound:?} program {program:?}:\n\
             dpor:  {seen:?}\nplain: {want:?}\n{dpor}\nplain: {plain}"
        ))
    } else {
        Verdict::Agree
    }
}

/// Every program of the scope (see the module): bounded DPOR finds what
/// bounded plain search finds. Variables: `SMALL_SCOPE_ROLES` (`2,3`),
/// `SMALL_SCOPE_OPS` (most operations a role, a number per role count:
/// `3,2`), `SMALL_SCOPE_TOTAL` (most operations in all, per role count:
/// `6,4`), `SMALL_SCOPE_KINDS` (the operations: 0 send, 1 receive from,
/// 2 receive from anyone, 3 close; `0,1,2,3`), `SMALL_SCOPE_CAPACITIES`
/// (`1,2`), `SMALL_SCOPE_SYMMETRY` (1:
/// one program per renaming of roles; 0, the default, checks them all,
/// since the searches try roles in order and a renamed program may take
/// DPOR another way), `SMALL_SCOPE_MAX` (plain search's executions, 2000).
///
/// Run on main at 745461b (release, one thread, 2-core machine shared
/// with other work; programs × 2 capacities × 4 bounds compared, none
/// skipped, none differed):
///
/// | roles | kinds   | a role | in all | symmetry | programs | time  |
/// |-------|---------|--------|--------|----------|----------|-------|
/// | 2     | 0,1,2,3 | 3      | 6      | no       | 7 225    | 72 s  |
/// | 3     | 0,1,2,3 | 2      | 4      | no       | 17 123   | 211 s |
/// | 3     | 0,1,2,3 | 3      | 5      | yes      | 39 108   | 457 s |
/// | 2     | 0,1,2,3 | 4      | 7      | no       | 50 745   | 479 s |
/// | 3     | 0,1,2   | 3      | 6      | yes      | 33 900   | 412 s |
/// | 4     | 0,1,2,3 | 2      | 4      | yes      | 8 955    | 93 s  |
/// | 2     | 0,1,3   | 5      | 9      | yes      | 36 784   | 329 s |
/// | 3     | 0,1     | 3      | 7      | yes      | 25 945   | 288 s |
/// | 2     | 0,1,2,3 | 4      | 8      | yes      | 58 311   | 627 s |
#[test]
#[ignore]
fn every_small_program() {
    let roles = list("SMALL_SCOPE_ROLES", &[2, 3]);
    let ops = list("SMALL_SCOPE_OPS", &[3, 2]);
    let totals = list("SMALL_SCOPE_TOTAL", &[6, 4]);
    let kinds = list("SMALL_SCOPE_KINDS", &[0, 1, 2, 3]);
    let capacities = list("SMALL_SCOPE_CAPACITIES", &[1, 2]);
    let symmetry = var("SMALL_SCOPE_SYMMETRY", 0) != 0;
    let max = var("SMALL_SCOPE_MAX", 2000);
    let start = Instant::now();
    let mut misses: Vec<(usize, String)> = Vec::new();
    for (i, &n) in roles.iter().enumerate() {
        let (most, total) = (ops[i.min(ops.len() - 1)], totals[i.min(totals.len() - 1)]);
        let all = programs(n, &kinds, most, total, symmetry);
        let began = Instant::now();
        let (mut checked, mut skipped, mut differ) = (0usize, 0usize, 0usize);
        for (k, p) in all.iter().enumerate() {
            let steps: Vec<Vec<Step>> = p
                .iter()
                .map(|ops| ops.iter().map(|&op| step(op)).collect())
                .collect();
            let size: usize = p.iter().map(Vec::len).sum();
            for &capacity in &capacities {
                for bound in BOUNDS {
                    match compare(&steps, capacity, bound, max) {
                        Verdict::Agree => checked += 1,
                        Verdict::Skipped => skipped += 1,
                        Verdict::Differ(d) => {
                            differ += 1;
                            if misses.len() < 20 {
                                eprintln!("MISS ({size} ops): {d}\n");
                            }
                            misses.push((size, d));
                        }
                    }
                }
            }
            if (k + 1) % 2000 == 0 {
                eprintln!(
                    "  {n} roles: {} of {} programs, {:.0?}",
                    k + 1,
                    all.len(),
                    began.elapsed()
                );
            }
        }
        eprintln!(
            "small scope: {n} roles, up to {most} ops a role and {total} in all, \
             kinds {kinds:?}, capacities {capacities:?}, bounds {BOUNDS:?}, symmetry {symmetry}: \
             {} programs, {checked} (program, capacity, bound) agree, {skipped} skipped \
             (plain search over {max} executions), {differ} differ; {:.1?}",
            all.len(),
            began.elapsed()
        );
    }
    eprintln!("small scope: all in {:.1?}", start.elapsed());
    misses.sort_by_key(|(size, _)| *size);
    assert!(
        misses.is_empty(),
        "{} misses; the smallest:\n{}",
        misses.len(),
        misses[0].1
    );
}
