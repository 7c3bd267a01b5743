//! The shortest failing schedule against a brute force, on random small
//! programs (the generator of `reduction_programs`): for each failure an
//! exploration shows, its schedule replays to the same failure, no
//! schedule fails that way in fewer steps than the brute force's fewest,
//! and where the exploration says the schedule is a shortest one it has
//! exactly the fewest steps and, among those, the fewest context
//! switches.
//!
//! The brute force is plain on purpose: every schedule, one step longer
//! at a time, each choice tried by a replay (no reduction, nothing shared
//! with the search it checks but the replay).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use proptest::prelude::*;
use prust::explore::{Explorer, Schedule};
use prust::{Protocol, Strict};

use crate::reduction_programs::{case, program, Case, Op};

/// What running a schedule showed of one node of the tree of schedules.
#[derive(Clone, Debug, PartialEq)]
enum Node {
    /// The choice is not enabled there.
    Invalid,
    /// The execution goes on past it.
    Inner,
    /// The execution ends there: failing with this outcome, or not.
    End(Option<String>),
}

/// Whether `ops` (or a branch of a `choose` in them) receive from anyone,
/// and whether they choose.
fn forms(ops: &[Op]) -> (bool, bool) {
    ops.iter()
        .fold((false, false), |(any, choose), op| match op {
            Op::Recv | Op::RecvAssert(_) => (true, choose),
            Op::Choose(x, y) => {
                let (ax, _) = forms(x);
                let (ay, _) = forms(y);
                (any || ax || ay, true)
            }
            _ => (any, choose),
        })
}

/// Every choice a step of `case` may be: each role, each role receiving
/// from anyone from each other role, each role's `choose(2)` values.
fn candidates(case: &Case, names: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (r, name) in names.iter().enumerate() {
        out.push(name.clone());
        let ops = case
            .programs
            .iter()
            .find(|(n, _)| *n == name.as_str())
            .map_or(&[][..], |(_, ops)| ops.as_slice());
        let (any, choose) = forms(ops);
        if any {
            for (s, from) in names.iter().enumerate() {
                if s != r {
                    out.push(format!("{name}<-{from}"));
                }
            }
        }
        if choose {
            out.extend((0..2).map(|k| format!("{name}#{k}")));
        }
    }
    out
}

/// The fewest steps of a schedule failing with each of `wanted`, and the
/// fewest context switches among those, by brute force (up to `longest`
/// steps); `None` past `max_replays` replays.
fn reference(
    case: &Case,
    object: &Strict,
    wanted: &BTreeSet<String>,
    longest: usize,
    max_replays: usize,
) -> Option<BTreeMap<String, (usize, usize)>> {
    let names = object.roles();
    let candidates = candidates(case, &names);
    let mut seen: HashMap<String, Node> = HashMap::new();
    let mut replays = 0;
    let mut best: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    // Runs `text` and notes every node the execution went through;
    // `false` past `max_replays`.
    let mut visit = |text: &str, seen: &mut HashMap<String, Node>| -> bool {
        replays += 1;
        if replays > max_replays {
            return false;
        }
        let want: Schedule = text.parse().unwrap();
        let ex = Explorer::new()
            .simplify(false)
            .replay(&want)
            .explore(object.clone(), program(case, &names));
        let (followed, outcome) = match ex.failures().first() {
            Some(f) => (f.schedule.clone(), Some(f.outcome.to_string())),
            None => (ex.results()[0].schedule.clone(), None),
        };
        let choices = followed.choices();
        if choices.get(..want.len()) != Some(want.choices()) {
            seen.insert(text.to_string(), Node::Invalid);
            return true;
        }
        for k in want.len()..=choices.len() {
            let node = if k == choices.len() {
                Node::End(outcome.clone())
            } else {
                Node::Inner
            };
            seen.insert(Schedule::new(choices[..k].to_vec()).to_string(), node);
        }
        true
    };
    let note = |text: &str, node: &Node, best: &mut BTreeMap<String, (usize, usize)>| {
        if let Node::End(Some(outcome)) = node {
            let s: Schedule = text.parse().unwrap();
            let m = (s.len(), s.context_switches());
            let b = best.entry(outcome.clone()).or_insert(m);
            *b = (*b).min(m);
        }
    };
    // The empty schedule: a program may fail before any step.
    if !visit("", &mut seen) {
        return None;
    }
    note("", &seen[""], &mut best);
    let mut level: Vec<String> = match seen[""] {
        Node::Inner => vec![String::new()],
        _ => vec![],
    };
    for _ in 0..longest {
        if wanted.iter().all(|o| best.contains_key(o)) {
            break;
        }
        let mut next = Vec::new();
        for prefix in &level {
            for c in &candidates {
                let text = if prefix.is_empty() {
                    c.clone()
                } else {
                    format!("{prefix} {c}")
                };
                if !seen.contains_key(&text) && !visit(&text, &mut seen) {
                    return None;
                }
                let node = &seen[&text];
                note(&text, node, &mut best);
                if *node == Node::Inner {
                    next.push(text);
                }
            }
        }
        // A level is finished before it is judged: its failures all count.
        level = next;
    }
    Some(best)
}

/// Checks the failures of `case`'s exploration against the brute force;
/// how many were shown to be shortest, of how many checked.
fn agree(case: &Case) -> Result<(usize, usize), TestCaseError> {
    let object = Strict::from_spec(&case.spec).expect("compiled before");
    let names = object.roles();
    let ex = Explorer::new()
        .preemption_bound(None)
        .max_executions(300)
        .explore(object.clone(), program(case, &names));
    prop_assume!(ex.is_complete(), "too many executions");
    // Outcomes that depend on more than the schedule are not shortened.
    let checked: Vec<usize> = (0..ex.failures().len())
        .filter(|&i| {
            !matches!(
                ex.failures()[i].outcome.kind(),
                "aborted" | "role stuck outside the session" | "nondeterminism"
            )
        })
        .collect();
    if checked.is_empty() {
        return Ok((0, 0));
    }
    let wanted: BTreeSet<String> = checked
        .iter()
        .map(|&i| ex.failures()[i].outcome.to_string())
        .collect();
    let longest = checked
        .iter()
        .map(|&i| ex.failures()[i].schedule.len())
        .max()
        .unwrap();
    let best = reference(case, &object, &wanted, longest, 1_500);
    prop_assume!(best.is_some(), "too many schedules for the brute force");
    let best = best.unwrap();
    let mut shortest = 0;
    for &i in &checked {
        let f = &ex.failures()[i];
        let outcome = f.outcome.to_string();
        // (a) The schedule shown replays to the failure shown.
        let again = Explorer::new()
            .simplify(false)
            .replay(&f.schedule)
            .explore(object.clone(), program(case, &names));
        prop_assert_eq!(again.failures(), std::slice::from_ref(f), "{}", ex);
        // (b) No schedule fails this way in fewer steps than the brute
        // force's fewest (it found this outcome within the shown length).
        let Some(&(steps, switches)) = best.get(&outcome) else {
            return Err(TestCaseError::fail(format!(
                "the brute force found no schedule failing with {outcome}: {ex}"
            )));
        };
        prop_assert!(steps <= f.schedule.len(), "{}", ex);
        // (c) Said shortest: the fewest steps, then the fewest switches.
        if ex.is_shortest(i) {
            shortest += 1;
            prop_assert_eq!(
                (f.schedule.len(), f.schedule.context_switches()),
                (steps, switches),
                "{} is not the shortest failing schedule: {}",
                f.schedule,
                ex
            );
        } else {
            // Small programs: only the budget may keep it from being shown.
            prop_assert!(
                ex.to_string().contains("PRUST_SHORTEST=1"),
                "failure {} not shown shortest but not for the budget: {}",
                i + 1,
                ex
            );
        }
    }
    Ok((shortest, checked.len()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn the_schedule_shown_is_as_short_as_the_brute_force_finds(case in case()) {
        agree(&case)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// The same, longer: `cargo test -p prust-explore --test it
    /// shortest_random -- --ignored`.
    #[test]
    #[ignore]
    fn soak_the_schedule_shown_is_as_short_as_the_brute_force_finds(case in case()) {
        agree(&case)?;
    }
}
