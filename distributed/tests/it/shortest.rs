//! The shortest counterexample's length, the distributed search's and the
//! one-machine check's, against a plain search: every
//! product state made with [`engine::ProductGraph`], then for each
//! possible anchor, nearest first, a shortest path back to it through
//! every acceptance set (no components, no gathering, no levels). Lengths
//! are (actions, steps) as the engine's shortening counts them: stutter
//! steps cost no action.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use engine::testing::{Label, Lts, LtsProtocol};
use engine::{ActionKind, Checker, ProductGraph, Protocol, Semantics, Shortness, Verdict};
use prust_distributed::{check, Cluster};

type Len = (u64, u64);

/// The length of a shortest violation of the product of `g`, `Some(None)`
/// if there is none, `None` if it has more than `max` states.
pub(crate) fn plain_shortest<P: Protocol>(
    g: &mut ProductGraph<'_, P>,
    max: usize,
) -> Option<Option<Len>> {
    let stutter = g.stutter_letters();
    let all = g.all_marks();
    let (p0, q0) = g.initial();
    let mut states: Vec<(P, u32)> = vec![(p0.clone(), q0)];
    let mut index: HashMap<(P, u32), usize> = HashMap::from([((p0, q0), 0)]);
    let mut out: Vec<Vec<(usize, Len, u32)>> = Vec::new();
    let mut edges = Vec::new();
    let mut next = 0;
    while next < states.len() {
        let (p, q) = states[next].clone();
        next += 1;
        let mut mine = Vec::new();
        if !g.is_bad(q) {
            g.successors(&p, q, &mut edges)
                .expect("the object's successors");
            for e in edges.drain(..) {
                let w = if stutter.contains(&e.letter) {
                    (0, 1)
                } else {
                    (1, 1)
                };
                let key = (e.object, e.state);
                let y = match index.get(&key) {
                    Some(&y) => y,
                    None => {
                        if states.len() >= max {
                            return None;
                        }
                        index.insert(key.clone(), states.len());
                        states.push(key);
                        states.len() - 1
                    }
                };
                mine.push((y, w, e.marks));
            }
        }
        out.push(mine);
    }
    let bad: Vec<bool> = states.iter().map(|s| g.is_bad(s.1)).collect();
    // Distances from the initial state.
    let mut dist = vec![(u64::MAX, u64::MAX); states.len()];
    dist[0] = (0, 0);
    let mut heap = BinaryHeap::from([Reverse(((0, 0), 0usize))]);
    while let Some(Reverse((d, x))) = heap.pop() {
        if d > dist[x] {
            continue;
        }
        for &(y, w, _) in &out[x] {
            let nd = (d.0 + w.0, d.1 + w.1);
            if nd < dist[y] {
                dist[y] = nd;
                heap.push(Reverse((nd, y)));
            }
        }
    }
    let mut order: Vec<usize> = (0..states.len()).collect();
    order.sort_by_key(|&x| dist[x]);
    let mut best: Option<Len> = None;
    for t in order {
        if best.is_some_and(|b| dist[t] >= b) {
            break;
        }
        if bad[t] {
            best = Some(dist[t]);
            continue;
        }
        // Back to `t` through every mark, lengths counted from its
        // distance: (state, marks seen).
        let mut seen: HashMap<(usize, u32), Len> = HashMap::from([((t, 0), dist[t])]);
        let mut heap = BinaryHeap::from([Reverse((dist[t], t, 0u32))]);
        while let Some(Reverse((d, x, m))) = heap.pop() {
            if best.is_some_and(|b| d >= b) {
                break;
            }
            if seen[&(x, m)] < d {
                continue;
            }
            for &(y, w, marks) in &out[x] {
                let nd = (d.0 + w.0, d.1 + w.1);
                let nm = m | (marks & all);
                if y == t && nm == all {
                    if best.is_none_or(|b| nd < b) {
                        best = Some(nd);
                    }
                } else if !bad[y] && seen.get(&(y, nm)).is_none_or(|&k| nd < k) {
                    seen.insert((y, nm), nd);
                    heap.push(Reverse((nd, y, nm)));
                }
            }
        }
    }
    Some(best)
}

/// A shortest violation's length in the product, as its report says
/// (`None` for a property that holds; a violation not shown to be a
/// shortest one fails).
pub(crate) fn length(r: &engine::Report) -> Option<Len> {
    match &r.verdict {
        Verdict::Violated(c) => {
            assert_eq!(c.shortness, Shortness::Shortest, "{r}");
            Some(c.product_length.expect("a shortest violation's length"))
        }
        _ => None,
    }
}

/// Formulas whose shortest lasso is not the first one met: response and
/// eventual ending, where a long prefix to a short cycle competes with a
/// short prefix to a long one, and two acceptance sets.
fn formulas(roles: &[String]) -> Vec<String> {
    let mut f = vec![r#"F "END""#.to_string()];
    if let [a, b, ..] = roles {
        f.push(format!(r#"G ("{a} SEND *" -> F "{b} RECV *")"#));
        f.push(format!(r#"!(G F "{a} SEND *" & G F "{b} SEND *")"#));
        f.push(format!(r#"G F "{a} RECV *" -> G F "{b} SEND *""#));
        f.push(format!(r#"G ("{a} SEND *" -> X X !"END")"#));
    }
    f
}

#[test]
fn bundled_counterexamples_are_as_short_as_a_plain_search_finds() {
    let mut compared = 0;
    for info in protocols::bundled::list() {
        let spec = protocols::bundled::spec_by_name(info.name).unwrap();
        for (runtime, semantics) in [
            ("liberal", Semantics::Stutter),
            ("strict", Semantics::Stutter),
            ("liberal", Semantics::InfiniteRunsOnly),
        ] {
            let make = {
                let spec = spec.clone();
                move || -> Result<engine::CheckSession<protocols::Object>, engine::Error> {
                    let obj = crate::object(&spec, runtime);
                    // A shortest one whatever it costs (within the state
                    // limit), as by default only when it is cheap.
                    Checker::new()
                        .shortest(true)
                        .max_states(1_000_000)
                        .partial_order(false)
                        .semantics(semantics)
                        .session(obj, Vec::new())
                }
            };
            for formula in formulas(&info.roles) {
                let mut s = make().unwrap();
                let mut g = s.product_graph(&formula).unwrap();
                let Some(want) = plain_shortest(&mut g, 4_000) else {
                    continue;
                };
                // The one-machine check's shortest is as long.
                let one = make().unwrap().check(&formula).unwrap();
                assert_eq!(length(&one), want, "{} {formula}\n{one}", info.name);
                for threads in [1, 3] {
                    let ctx = format!(
                        "{} {runtime} {} `{formula}` on {threads} workers",
                        info.name,
                        semantics.name()
                    );
                    let o = check(&Cluster::threads(threads), &formula, make.clone())
                        .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                    assert_eq!(length(&o.report), want, "{ctx}\n{}", o.report);
                    compared += usize::from(want.is_some());
                }
            }
        }
    }
    assert!(compared > 60, "{compared} compared");
}

/// `role` sending a `T0` to `peer`.
fn send(role: usize, peer: usize) -> Label {
    Label {
        role,
        kind: ActionKind::Send,
        ty: 0,
        peer,
    }
}

/// An object of roles `r0`, `r1` and one type over `trans`, written as
/// bytes as the distributed search needs.
fn two_roles(trans: Vec<Vec<(Label, usize)>>, terminal: Vec<bool>) -> LtsProtocol {
    let mut obj = LtsProtocol::new(Lts {
        roles: 2,
        types: 1,
        trans,
        terminal,
    });
    obj.bytes = true;
    obj
}

/// A finite run's stutter steps cost no action: `r0` sending and the run
/// ending three steps later (one action, four steps) is shorter than `r1`
/// sending twice (two actions, two steps), though a search by steps alone
/// meets the second first.
#[test]
fn a_run_that_ends_is_shorter_by_its_actions() {
    let obj = two_roles(
        vec![
            vec![(send(0, 1), 1), (send(1, 0), 2)],
            vec![],
            vec![(send(1, 0), 3)],
            vec![],
        ],
        vec![false, true, false, true],
    );
    let formula = r#"G ("r0 SEND *" -> X X X !"END") & G !("r1 SEND *" & X "r1 SEND *")"#;
    let session = move || Checker::new().session(obj.clone(), obj.lts.dummies());
    let want = plain_shortest(&mut session().unwrap().product_graph(formula).unwrap(), 100);
    assert_eq!(want, Some(Some((1, 4))));
    let one = session().unwrap().check(formula).unwrap();
    for threads in [1, 2] {
        let o = check(&Cluster::threads(threads), formula, session.clone()).unwrap();
        assert_eq!(length(&o.report), Some((1, 4)), "{}", o.report);
        assert_eq!(length(&one), Some((1, 4)), "{one}");
        let (Verdict::Violated(c), Verdict::Violated(e)) = (&o.report.verdict, &one.verdict) else {
            panic!("{}\n---\n{one}", o.report)
        };
        assert_eq!(c.shortness, Shortness::Shortest);
        assert_eq!(c.prefix.len(), 1, "{}", o.report);
        assert_eq!(e.prefix.len(), 1, "the one-machine check:\n{one}");
    }
}

/// Past its allowance the search for a shortest lasso stops, and the
/// lasso found without it is shown, saying why it is not a shortest one:
/// the verdict stands.
#[test]
fn past_the_allowance_a_lasso_is_shown_and_said_not_shortest() {
    let spec = protocols::bundled::spec_by_name("go-fish").unwrap();
    let formula = r#"!(G F "dealer SEND *" & G F "player_0_ SEND *")"#;
    let make = move || Checker::new().session(spec.liberal().unwrap(), Vec::new());
    for threads in [1, 2] {
        let o = check(&Cluster::threads(threads), formula, make.clone()).unwrap();
        let Verdict::Violated(c) = &o.report.verdict else {
            panic!("{}", o.report)
        };
        match &c.shortness {
            Shortness::NotShown(why) => assert!(why.contains("allowance"), "{why}"),
            other => panic!("{other:?}\n{}", o.report),
        }
        assert_eq!(c.product_length, None);
        // The lasso OWCTY's source component gave, replayed.
        assert!(!c.cycle.is_empty(), "{}", o.report);
    }
}

/// A state that an action of the next level stores first and a stutter
/// step of this level reaches later is this level's, also when that
/// stutter step comes with the store full (a state limit of exactly the
/// product's 9 states): `r1 r1` reaches the bad state in two actions,
/// `r0 END END END` in one, and the second is the shortest.
#[test]
fn a_stutter_step_moves_a_state_back_with_the_store_full() {
    let obj = two_roles(
        vec![
            vec![(send(0, 1), 1), (send(1, 0), 2)],
            vec![],
            vec![(send(1, 0), 1)],
        ],
        vec![false, true, false],
    );
    let formula = r#"G ("r0 SEND *" -> X X X !"END") & G !("r1 SEND *" & X "r1 SEND *")"#;
    let make = |max: u64| {
        let obj = obj.clone();
        move || {
            Checker::new()
                .max_states(max)
                .session(obj.clone(), obj.lts.dummies())
        }
    };
    let want = plain_shortest(
        &mut make(100)().unwrap().product_graph(formula).unwrap(),
        100,
    );
    assert_eq!(want, Some(Some((1, 4))));
    for max in 1..=12 {
        let o = check(&Cluster::threads(1), formula, make(max)).unwrap();
        if let Verdict::Violated(c) = &o.report.verdict {
            if c.shortness == Shortness::Shortest {
                assert_eq!(
                    c.product_length,
                    Some((1, 4)),
                    "max_states {max}\n{}",
                    o.report
                );
            }
        }
    }
}

/// Asked for a shortest violation, the search goes on past a bad prefix;
/// a limit on the way ends it with that violation, not inconclusive.
#[test]
fn a_limit_past_a_bad_prefix_keeps_the_violation() {
    // 0 -r1-> 1 (ends); 0 -r0-> 2 -r0-> … -r0-> 61 -r0-> 61.
    let mut trans = vec![vec![(send(1, 0), 1), (send(0, 1), 2)], vec![]];
    for s in 2..62 {
        trans.push(vec![(send(0, 1), (s + 1).min(61))]);
    }
    let mut terminal = vec![false; 62];
    terminal[1] = true;
    let obj = two_roles(trans, terminal);
    let formula = r#"G !"r1 SEND *" & F "END""#;
    for threads in [1, 2] {
        let obj = obj.clone();
        let o = check(&Cluster::threads(threads), formula, move || {
            Checker::new()
                .shortest(true)
                .max_states(20)
                .session(obj.clone(), obj.lts.dummies())
        })
        .unwrap();
        let Verdict::Violated(c) = &o.report.verdict else {
            panic!("{}", o.report)
        };
        assert_eq!(c.prefix.len(), 1, "{}", o.report);
        match &c.shortness {
            Shortness::NotShown(why) => assert!(why.contains("stopped at"), "{why}"),
            other => panic!("{other:?}\n{}", o.report),
        }
    }
}
