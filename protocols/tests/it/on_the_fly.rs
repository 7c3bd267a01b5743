//! `Strict::on_the_fly`: the strict object whose LTS is computed on demand
//! must be indistinguishable from the compiled one (`Strict::from_spec`):
//! bisimilar on every bundled protocol and on random specifications, the
//! same errors for bad specifications, and usable where compiling is not
//! (many workers in parallel), both by the model checker and by real
//! threads.

use crate::common;

use std::collections::{BTreeSet, HashSet, VecDeque};

use engine::Limits;
use engine::{Checker, Limit, Message, Protocol, Verdict};
use proptest::prelude::*;
use protocols::session::Session;
use protocols::spec::{alt, call, msg, par, par_every, seq, Role, Spec};
use protocols::{bundled, npb, Error, Strict};

/// Explores `a` and `b` side by side, by the same probes, up to `limit`
/// pairs of states: at every pair both must enable the same actions, agree
/// on termination and on which roles are finished, and go on in step.
/// Returns the number of pairs, or the trace to the first difference.
fn bisimilar<A: Protocol, B: Protocol>(a: &A, b: &B, limit: usize) -> Result<usize, String> {
    if a.roles() != b.roles() || a.type_names() != b.type_names() {
        return Err(format!(
            "names differ: {:?} {:?} / {:?} {:?}",
            a.roles(),
            a.type_names(),
            b.roles(),
            b.type_names()
        ));
    }
    let dummies = common::dummies(a);
    let mut seen: HashSet<(A, B)> = HashSet::from([(a.clone(), b.clone())]);
    let mut queue = VecDeque::from([(a.clone(), b.clone(), Vec::<String>::new())]);
    while let Some((x, y, trace)) = queue.pop_front() {
        let at = |what: String| format!("after {trace:?}: {what}");
        if x.is_terminated() != y.is_terminated() {
            return Err(at(format!(
                "terminated {} / {}",
                x.is_terminated(),
                y.is_terminated()
            )));
        }
        for r in 0..x.roles().len() {
            if x.is_finished(r) != y.is_finished(r) {
                return Err(at(format!(
                    "role {r} finished {} / {}",
                    x.is_finished(r),
                    y.is_finished(r)
                )));
            }
        }
        let (xs, ys) = (
            common::successors(&x, &dummies),
            common::successors(&y, &dummies),
        );
        let xl: BTreeSet<&String> = xs.iter().map(|(l, _)| l).collect();
        let yl: BTreeSet<&String> = ys.iter().map(|(l, _)| l).collect();
        if xl != yl {
            return Err(at(format!("enabled {xl:?} / {yl:?}")));
        }
        for (l, x2) in xs {
            let y2 = ys
                .iter()
                .find(|(m, _)| *m == l)
                .map(|(_, y2)| y2.clone())
                .unwrap();
            if seen.len() < limit && seen.insert((x2.clone(), y2.clone())) {
                let mut t = trace.clone();
                t.push(l);
                queue.push_back((x2, y2, t));
            }
        }
    }
    Ok(seen.len())
}

/// The directed topology of the object built on the fly may name more
/// channels than the compiled LTS uses (it reads them off the
/// specification), never fewer: the engine relies on it to probe.
fn topology_covers(on_the_fly: &Strict, compiled: &Strict) -> Result<(), String> {
    for r in 0..compiled.roles().len() {
        let (wide, exact) = (
            on_the_fly.sends_to(r).unwrap(),
            compiled.sends_to(r).unwrap(),
        );
        if !exact.iter().all(|q| wide.contains(q)) {
            return Err(format!(
                "role {r}: sends_to {wide:?} misses some of {exact:?}"
            ));
        }
    }
    Ok(())
}

#[test]
fn every_bundled_protocol_is_the_same_on_the_fly() {
    for info in bundled::list() {
        let name = common::small_instance(&info, 3);
        let spec = bundled::spec_by_name(&name).unwrap();
        let compiled = Strict::from_spec(&spec).unwrap();
        let lazy = Strict::on_the_fly(&spec).unwrap();
        assert_eq!(
            lazy.num_states(),
            1,
            "{name}: nothing is computed before it is asked for"
        );
        let pairs = bisimilar(&compiled, &lazy, 100_000).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            pairs < 100_000,
            "{name}: explored only part ({pairs} pairs)"
        );
        assert_eq!(
            lazy.num_states(),
            compiled.num_states(),
            "{name}: every state was reached"
        );
        topology_covers(&lazy, &compiled).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn bad_specifications_give_the_same_errors() {
    let body = |name: &'static str| move |_: &[usize]| call(name, [0]);
    let specs = [
        ("undefined call", Spec::new("s", call("Nope", [1]))),
        (
            "wrong number of arguments",
            Spec::new("s", call("X", [1, 2])).define("X", 1, |_| msg("T", "a", "b")),
        ),
        (
            "unguarded recursion",
            Spec::new("s", msg("T", "a", "b").then(call("X", [0]))).define("X", 1, body("X")),
        ),
        (
            "a role talking to itself",
            Spec::new("s", msg("T", "a", "a")),
        ),
    ];
    for (what, spec) in specs {
        let compiled = spec.compile().map(|_| ()).expect_err(what);
        let lazy = Strict::on_the_fly(&spec).map(|_| ()).expect_err(what);
        assert_eq!(lazy, compiled, "{what}");
        assert!(matches!(lazy, Error::Spec(_)), "{what}: {lazy:?}");
    }
}

/// A recursion whose argument grows without end has infinitely many term
/// instances: an error when the object is built, not a hang.
#[test]
fn runaway_recursion_is_an_error() {
    let spec = Spec::new("count", call("C", [0]))
        .define("C", 1, |a| msg("T", "a", "b").then(call("C", [a[0] + 1])));
    match Strict::on_the_fly(&spec) {
        Err(e @ Error::StateBound { .. }) => {
            assert!(
                e.to_string()
                    .contains("recursion's argument grows without end"),
                "{e}"
            );
            // An error of the specification, whatever bound caught it: no
            // caller may take it for a limit (inconclusive) by its text.
            assert_eq!(e.kind(), protocols::ErrorKind::Spec);
            assert!(!e.is_limit());
        }
        other => panic!("expected a state bound, got {:?}", other.map(|_| ())),
    }
}

/// A call reached along 2^40 paths of the term graph (each `X(i)` is two
/// copies of `X(i + 1)` in parallel: 2^40 messages in all): a step must
/// take time linear in the nesting, not exponential.
#[test]
fn shared_calls_are_stepped_once() {
    let spec = Spec::new("shared", call("X", [0])).define("X", 1, |a| match a[0] {
        40 => msg("T", "a", "b"),
        i => par([call("X", [i + 1]), call("X", [i + 1])]),
    });
    assert!(matches!(
        spec.compile_bounded(10_000),
        Err(Error::StateBound { .. })
    ));
    let mut p = Strict::on_the_fly(&spec).unwrap();
    for _ in 0..3 {
        p.try_send(0, 1, Message::named("T", ())).unwrap();
        p.try_recv(1, Some(0)).unwrap();
    }
    assert!(!p.is_terminated(), "2^40 - 3 messages to go");
}

/// A choice whose branches both start with `B`, met after a few states:
/// the state after `B` is the set of both branches (the first set of the
/// subset construction on the fly), and the states met before it keep
/// their numbers and their steps (state `i` is global state `i` until a
/// set is met; then the numbers are kept apart).
#[test]
fn a_choice_met_midway_keeps_the_states_before_it() {
    let ab = |t: &str| msg(t, "a", "b");
    let spec = Spec::new(
        "late-choice",
        seq([
            ab("A"),
            alt([seq([ab("B"), ab("C")]), seq([ab("B"), ab("D")])]),
            ab("E"),
        ]),
    );
    let lazy = Strict::on_the_fly(&spec).unwrap();
    let send = |p: &mut Strict, t: &str| p.try_send(0, 1, Message::named(t, ())).unwrap();
    let (start, mut p) = (lazy.clone(), lazy.clone());
    send(&mut p, "A");
    p.try_recv(1, None).unwrap();
    let after_a = p.clone();
    send(&mut p, "B");
    p.try_recv(1, None).unwrap();
    let after_b = p.clone();
    assert!(p.can_send(0, 1, "C") && p.can_send(0, 1, "D"));
    // again from the start, after the set: the same states
    let mut q = start.clone();
    send(&mut q, "A");
    q.try_recv(1, None).unwrap();
    assert_eq!(q, after_a);
    send(&mut q, "B");
    q.try_recv(1, None).unwrap();
    assert_eq!(q, after_b);
    let compiled = Strict::from_spec(&spec).unwrap();
    bisimilar(&compiled, &start, 1_000).unwrap();
    assert_eq!(lazy.num_states(), compiled.num_states());
}

/// Every worker in parallel, each one exchange: 5^k global states.
fn fan_out(k: usize) -> Spec {
    let exchange = |i| {
        let w = Role::indexed("worker", i);
        seq([msg("Job", "boss", w.clone()), msg("Done", w, "boss")])
    };
    Spec::new("fan-out", par_every(0..k, exchange).plus())
}

#[test]
fn too_large_to_compile_but_fine_on_the_fly() {
    let spec = fan_out(12); // 5^12 = 244 million states per round
    match spec.compile_bounded(100_000) {
        Err(e @ Error::StateBound { .. }) => {
            // The library's reader is told the method, the command line's
            // user the option.
            assert!(e.to_string().contains("(Strict::on_the_fly)"), "{e}");
            let cli = e
                .for_audience(engine::hint::Audience::CommandLine)
                .to_string();
            assert!(cli.contains("--runtime on-the-fly"), "{cli}")
        }
        other => panic!("expected a state bound, got {:?}", other.map(|_| ())),
    }
    let mut p = Strict::on_the_fly(&spec).unwrap();
    let role = |name: String| p.roles().iter().position(|r| *r == name).unwrap();
    let boss = role("boss".into());
    let workers: Vec<_> = (0..12).map(|i| role(format!("worker_{i}_"))).collect();
    let dummy = |t| Message::named(t, ());
    // Serve the workers last to first, twice: any order is allowed.
    for _ in 0..2 {
        for &w in workers.iter().rev() {
            p.try_send(boss, w, dummy("Job")).unwrap();
            assert!(
                p.try_send(boss, w, dummy("Job")).is_err(),
                "one job a round"
            );
        }
        for &w in &workers {
            p.try_recv(w, None).unwrap();
            p.try_send(w, boss, dummy("Done")).unwrap();
        }
        for &w in workers.iter().rev() {
            assert_eq!(p.try_recv(boss, Some(w)).unwrap().0, w);
        }
        assert!(p.is_terminated());
    }
    assert!(p.num_states() < 200, "{} states computed", p.num_states());
}

/// The model checker on an object built on the fly: the same verdicts as
/// on the compiled object where both exist, and an honest "inconclusive"
/// where the state space is too large for the limits.
#[test]
fn the_checker_gives_the_same_verdicts() {
    let formulas = [
        r#"G !"DEADLOCK""#,
        r#"G ("worker_1_ RECV <RankMessage>" -> F "worker_1_ SEND <DoneMessage>")"#,
        r#"!"worker_1_ SEND <DoneMessage>" U "worker_0_ SEND <DoneMessage>""#,
        r#"F "END""#,
    ];
    let spec = npb::is_concurrent(3);
    let dummies = || {
        ["RankMessage", "DoneMessage", "ExitMessage"]
            .map(|t| Message::named(t, ()))
            .to_vec()
    };
    for f in formulas {
        let compiled = Checker::new().check(f, Strict::from_spec(&spec).unwrap(), dummies());
        // The same search on both (the compiled object declares no
        // independence; the reduced search's verdicts are compared in
        // tests/por.rs): equal counterexamples too.
        let lazy = Checker::new().partial_order(false).check(
            f,
            Strict::on_the_fly(&spec).unwrap(),
            dummies(),
        );
        let verdict = |r: &engine::Report| match &r.verdict {
            Verdict::Holds => "holds".to_string(),
            Verdict::HoldsProbabilistic { .. } => "holds-probabilistic".to_string(),
            Verdict::HoldsOnShare { .. } => "holds-on-share".to_string(),
            Verdict::Violated(c) => format!("violated: {c}"),
            Verdict::Inconclusive { .. } => "inconclusive".to_string(),
        };
        assert_eq!(verdict(&lazy.unwrap()), verdict(&compiled.unwrap()), "{f}");
    }
    let big = Checker::new()
        .partial_order(false)
        .max_states(20_000)
        .check(
            formulas[0],
            Strict::on_the_fly(&npb::is_concurrent(12)).unwrap(),
            dummies(),
        )
        .unwrap();
    assert!(
        matches!(
            big.verdict,
            Verdict::Inconclusive {
                limit: Limit::States(_),
                ..
            }
        ),
        "{big}"
    );
}

/// Real threads on the concurrent NPB protocol with 16 workers, whose LTS
/// could not be compiled: every round each worker replies when it is ready.
#[test]
fn sixteen_workers_run_on_the_fly() {
    let (k, rounds) = (16, 30);
    let session = Session::new(Strict::on_the_fly(&npb::is_concurrent(k)).unwrap());
    let mut endpoints = session.into_endpoints().into_iter();
    let mut master = endpoints.next().unwrap();
    std::thread::scope(|s| {
        for (i, mut ep) in endpoints.enumerate() {
            s.spawn(move || {
                for _ in 0..=rounds {
                    let m = ep.recv_from("master").unwrap();
                    ep.send(
                        "master",
                        Message::named("DoneMessage", m.type_name() == "RankMessage"),
                    )
                    .unwrap();
                }
                ep.close("master").unwrap();
                i
            });
        }
        let workers: Vec<_> = (0..k).map(|i| format!("worker_{i}_")).collect();
        let mut replies = 0;
        for _ in 0..rounds {
            for w in &workers {
                master
                    .send(w.as_str(), Message::named("RankMessage", ()))
                    .unwrap();
            }
            for w in workers.iter().rev() {
                let done = master.recv_from(w.as_str()).unwrap();
                replies += usize::from(*done.downcast_ref::<bool>().unwrap());
            }
        }
        for w in &workers {
            master
                .send(w.as_str(), Message::named("ExitMessage", ()))
                .unwrap();
            master.recv_from(w.as_str()).unwrap();
        }
        for w in &workers {
            master.close(w.as_str()).unwrap();
        }
        assert_eq!(replies, k * rounds);
    });
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// On random specifications (every construct, recursion): the object
    /// built on the fly is bisimilar to the compiled one; where the spec has
    /// too many states to compile, it is still built.
    #[test]
    fn random_specs_are_the_same_on_the_fly(spec in common::gen::spec()) {
        let lazy = Strict::on_the_fly(&spec);
        match spec.compile_bounded(5_000) {
            Ok(lts) => {
                // A compiled LTS of a few thousand states may still have
                // exponentially many subsets to determinise (a drawn spec
                // took 700 s to reach a million): such specs are skipped,
                // as those too large to compile are.
                let compiled = Strict::try_new_with(lts, &Limits::default().max_states(20_000));
                prop_assume!(!matches!(compiled, Err(Error::StateBound { .. })));
                let compiled = compiled.map_err(|e| TestCaseError::fail(format!("{e}")))?;
                let lazy = lazy.map_err(|e| TestCaseError::fail(format!("{e}")))?;
                let r = bisimilar(&compiled, &lazy, 5_000);
                prop_assert!(r.is_ok(), "{:?}: {}", spec.main(), r.unwrap_err());
                prop_assert!(topology_covers(&lazy, &compiled).is_ok());
            }
            Err(Error::StateBound { .. }) => prop_assert!(lazy.is_ok(), "{:?}", spec.main()),
            Err(e) => prop_assert_eq!(lazy.map(|_| ()).unwrap_err(), e),
        }
    }
}
