//! A check split over several machines (`Checker::share`): on random
//! objects and formulas, every share holding is the one-machine check
//! holding, and every share's violation is a real run that violates the
//! formula (it replays, and the formula is false on its lasso).

use crate::common;

use common::{eval_lasso, lasso_letters, reference_violated, Lts, LtsProtocol};
use engine::{Checker, Message, Protocol, Refused, RoleId, Semantics, Share, Verdict};
use proptest::prelude::*;

fn atom(roles: usize, types: usize) -> BoxedStrategy<String> {
    let role = prop_oneof![Just("*".to_string()), (0..roles).prop_map(Lts::role_name)];
    let ty = prop_oneof![
        Just("*".to_string()),
        (0..types).prop_map(|t| format!("<{}>", Lts::type_name(t)))
    ];
    let action = (role, 0..3u8, ty).prop_map(|(role, k, ty)| match k {
        0 => format!("\"{role} SEND {ty}\""),
        1 => format!("\"{role} RECV {ty}\""),
        _ => format!("\"{role} CLOSE *\""),
    });
    prop_oneof![
        5 => action,
        1 => Just("\"END\"".to_string()),
        1 => Just("\"DEADLOCK\"".to_string()),
    ]
    .boxed()
}

/// Safety formulas (searched breadth-first) and liveness ones (searched
/// depth-first) alike, and nested ones of either kind.
fn formula(roles: usize, types: usize) -> impl Strategy<Value = String> {
    let a = atom(roles, types);
    let templates = (a.clone(), a.clone(), 0..9u8).prop_map(|(x, y, t)| match t {
        0 => format!("G !{x}"),
        1 => format!("G ({x} -> X !{y})"),
        2 => format!("!{x} W {y}"),
        3 => format!("F {x}"),
        4 => format!("G F {x}"),
        5 => format!("G ({x} -> F {y})"),
        6 => format!("F G !{x}"),
        7 => format!("{x} U {y}"),
        _ => format!("G ({x} -> ({x} U {y}))"),
    });
    templates.prop_recursive(1, 4, 2, |inner| {
        (inner.clone(), inner, 0..2u8).prop_map(|(a, b, op)| {
            let op = ["&", "|"][op as usize];
            format!("({a}) {op} ({b})")
        })
    })
}

fn case() -> impl Strategy<Value = (Lts, String)> {
    common::lts_strategy(40).prop_flat_map(|lts| {
        let f = formula(lts.roles, lts.types);
        (Just(lts), f)
    })
}

/// The object, with `tweak` choosing how it is stored: bit 0 as bytes (the
/// collapse store), bit 1 under hash compaction (objects dropped but for
/// the states a search holds).
fn object(lts: &Lts, tweak: u8) -> LtsProtocol {
    let mut proto = LtsProtocol::new(lts.clone());
    proto.bytes = tweak & 1 != 0;
    proto
}

/// Checks every share of `count` and the whole, and holds them to each
/// other and to the reference.
fn shares_agree(
    lts: &Lts,
    f: &str,
    semantics: Semantics,
    count: u32,
    level: Option<u64>,
    tweak: u8,
) -> Result<(), TestCaseError> {
    let base = Checker::new()
        .semantics(semantics)
        .hash_compaction(tweak & 2 != 0)
        .determinism_check(tweak & 4 == 0)
        .progress(false);
    let whole = base
        .clone()
        .check(f, object(lts, tweak), lts.dummies())
        .map_err(|e| TestCaseError::fail(format!("whole check: {e}")))?;
    let whole_holds = whole.holds_probabilistically();
    let expected = reference_violated(lts, f, semantics == Semantics::Stutter);
    prop_assert_eq!(
        whole_holds,
        !expected,
        "the whole check is wrong\n{}",
        whole
    );
    let mut all_hold = true;
    let mut digests = Vec::new();
    for index in 1..=count {
        let mut checker = base.clone().share(index, count);
        if let Some(k) = level {
            checker = checker.share_level(k);
        }
        let r = checker
            .check(f, object(lts, tweak), lts.dummies())
            .map_err(|e| TestCaseError::fail(format!("share {index}/{count}: {e}")))?;
        let split = r.stats.share.expect("a share's report says how it split");
        prop_assert_eq!((split.index, split.count), (index, count));
        digests.push((split.level, split.frontier, split.digest));
        // Each share's verdict is its own, never the property's.
        prop_assert!(!r.holds(), "a share reported holds\n{}", r);
        match &r.verdict {
            Verdict::HoldsOnShare { index: i, count: n } => {
                prop_assert_eq!((*i, *n), (index, count));
            }
            Verdict::Violated(c) => {
                all_hold = false;
                prop_assert!(
                    expected,
                    "share {index}/{count} violated, reference holds\n{r}"
                );
                if let Err(e) = c.try_replay(object(lts, tweak)) {
                    return Err(TestCaseError::fail(format!(
                        "share {index}/{count}: the counterexample does not replay: {e}\n{r}"
                    )));
                }
                let (prefix, cycle) = lasso_letters(lts, c);
                let parsed = owl_lite::parse(f).unwrap();
                prop_assert!(
                    !eval_lasso(&parsed, &prefix, &cycle),
                    "share {index}/{count}: the counterexample satisfies the formula\n{r}"
                );
            }
            _ => return Err(TestCaseError::fail(format!("share {index}/{count}: {r}"))),
        }
    }
    prop_assert_eq!(
        all_hold,
        whole_holds,
        "every share holds: {}, the whole check: {}",
        all_hold,
        whole
    );
    // One split, seen alike by every share.
    prop_assert!(digests.windows(2).all(|w| w[0] == w[1]), "{:?}", digests);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// "Every share holds" is "the property holds", for 1, 2 and 3 shares,
    /// split at a given level (0 to 4: the random objects are too small
    /// to reach the default split size) or at the default one.
    #[test]
    fn every_share_holds_iff_the_whole_check_holds(
        (lts, f) in case(),
        count in 1..=3u32,
        level in prop::option::weighted(0.8, 0..5u64),
        tweak in 0..8u8,
        omega in any::<bool>(),
    ) {
        let semantics = if omega { Semantics::InfiniteRunsOnly } else { Semantics::Stutter };
        shares_agree(&lts, &f, semantics, count, level, tweak)?;
    }
}

/// Safety formulas alone, on objects of 20 to 40 states split at levels
/// 1 to 4: wide frontiers, where each share owns several states and a
/// violation lies behind one of them.
fn safety_case() -> impl Strategy<Value = (Lts, String)> {
    common::lts_strategy(40)
        .prop_filter("20 states or more", |l| l.trans.len() >= 20)
        .prop_flat_map(|lts| {
            let f = atom(lts.roles, lts.types).prop_map(|a| format!("G !{a}"));
            (Just(lts), f)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn every_share_holds_iff_a_safety_property_holds(
        (lts, f) in safety_case(),
        count in 1..=3u32,
        level in 1..5u64,
        tweak in 0..8u8,
    ) {
        shares_agree(&lts, &f, Semantics::Stutter, count, Some(level), tweak)?;
    }
}

/// A counter that `a` bumps by sending to `b`, in one of two ways, up to
/// `max`: a level `n` has `n + 1` states, so the default split is reached.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct Bump {
    big: u32,
    small: u32,
    max: u32,
}

impl Protocol for Bump {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, role: RoleId, _to: RoleId, m: Message) -> Result<(), Refused<Message>> {
        if role != 0 || self.big + self.small >= self.max {
            return Err(Refused(m));
        }
        match m.type_name() {
            "Big" => self.big += 1,
            _ => self.small += 1,
        }
        Ok(())
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
    fn is_terminated(&self) -> bool {
        self.big + self.small >= self.max
    }
}

fn two_types() -> Vec<Message> {
    vec![Message::named("Big", ()), Message::named("Small", ())]
}

fn bump(max: u32) -> Bump {
    Bump {
        big: 0,
        small: 0,
        max,
    }
}

/// The default split: the first level with 32 states a share; the report
/// says it, and one share's holding reads as that share's, not the
/// property's.
#[test]
fn the_default_split_is_the_first_level_of_32_states_a_share() {
    let f = r#"G !"DEADLOCK""#;
    for index in 1..=2 {
        let r = Checker::new()
            .share(index, 2)
            .check(f, bump(80), two_types())
            .unwrap();
        let s = r.stats.share.unwrap();
        // Level n of the product has n + 1 states: 64 first at level 63.
        assert_eq!(
            (s.level, s.frontier, s.own, s.above),
            (63, 64, 32, 2016),
            "{r}"
        );
        assert!(matches!(r.verdict, Verdict::HoldsOnShare { index: i, count: 2 } if i == index));
        assert!(!r.holds() && !r.holds_probabilistically());
        let text = r.to_string();
        assert!(
            text.starts_with(&format!(
                "holds on share {index}/2 (the property holds when every share holds)"
            )),
            "{text}"
        );
    }
}

/// A violation beyond the split is found by the share that owns the way to
/// it, and its run starts at the initial state.
#[test]
fn a_violation_past_the_split_is_a_whole_run() {
    // Safety: every frontier state can still end with a `Big`, so both
    // shares find a shortest such run (breadth-first from their states).
    let f = r#"G !("a SEND <Big>" & X "END")"#;
    for index in 1..=2 {
        let r = Checker::new()
            .share(index, 2)
            .check(f, bump(70), two_types())
            .unwrap();
        let Verdict::Violated(c) = &r.verdict else {
            panic!("share {index}: {r}")
        };
        assert_eq!(c.prefix.len(), 70, "{r}");
        c.replay(bump(70));
    }
    // Liveness (searched depth-first from the share's states): a last
    // `Big` is never followed by a `Small`. Every frontier state leads to
    // such an end, and each share shows a whole run, from the initial
    // state through its own frontier state.
    let f = r#"G ("a SEND <Big>" -> F "a SEND <Small>")"#;
    for index in 1..=2 {
        let r = Checker::new()
            .share(index, 2)
            .check(f, bump(70), two_types())
            .unwrap();
        let s = r.stats.share.unwrap();
        assert!(s.level > 0 && s.own > 0, "{r}");
        let Verdict::Violated(c) = &r.verdict else {
            panic!("share {index}: {r}")
        };
        assert!(c.prefix.len() as u64 >= s.level, "{r}");
        c.replay(bump(70));
    }
}

#[test]
fn bad_shares_are_errors_with_the_expected_form() {
    for (bad, says) in [
        ("0/4", "between 1 and 4"),
        ("5/4", "between 1 and 4"),
        ("1/0", "at least one share"),
        ("junk", "not a share"),
        ("", "not a share"),
        ("1/", "not a whole number"),
        ("a/4", "not a whole number"),
        ("-1/4", "not a whole number"),
        ("1/99999999999", "too large"),
        ("1/100000", "at most 65536 shares"),
    ] {
        let e = bad.parse::<Share>().unwrap_err();
        assert!(e.contains(says), "{bad:?}: {e}");
        assert!(e.contains("expected I/N"), "{bad:?}: {e}");
    }
    assert_eq!(" 2 / 3 ".parse::<Share>(), Share::new(2, 3));
}

#[test]
#[should_panic(expected = "Checker::share: 3/2")]
fn the_builder_rejects_a_share_past_the_count() {
    let _ = Checker::new().share(3, 2);
}

/// An accepting cycle through two frontier states dealt to different
/// shares: a share that stopped at the other share's frontier state would
/// miss it, and so would the other; each share searches on past them.
#[test]
fn a_cycle_through_two_shares_frontier_states_is_found() {
    use common::Label;
    use engine::ActionKind;
    let send = |role, peer| Label {
        role,
        kind: ActionKind::Send,
        ty: 0,
        peer,
    };
    // 0 goes to 1 or 2 (the frontier at level 1); 1 and 2 alternate
    // forever, never ending.
    let lts = Lts {
        roles: 2,
        types: 1,
        trans: vec![
            vec![(send(0, 1), 1), (send(1, 0), 2)],
            vec![(send(1, 0), 2)],
            vec![(send(0, 1), 1)],
        ],
        terminal: vec![false; 3],
    };
    let f = r#"F "END""#;
    let whole = Checker::new()
        .check(f, LtsProtocol::new(lts.clone()), lts.dummies())
        .unwrap();
    assert!(whole.counterexample().is_some(), "{whole}");
    for index in 1..=2 {
        let r = Checker::new()
            .share(index, 2)
            .share_level(1)
            .check(f, LtsProtocol::new(lts.clone()), lts.dummies())
            .unwrap();
        let split = r.stats.share.unwrap();
        assert_eq!((split.frontier, split.own), (2, 1), "{r}");
        let c = r
            .counterexample()
            .unwrap_or_else(|| panic!("share {index} missed the cycle\n{r}"));
        assert!(!c.cycle.is_empty(), "{r}");
        c.replay(LtsProtocol::new(lts.clone()));
    }
}
