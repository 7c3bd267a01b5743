//! The reductions under a property: DPOR and sleep sets, with the steps
//! whose actions the formula's atoms see made dependent on every other,
//! find exactly the failures (property violations included) and final
//! states of the plain search with the same property, on random programs
//! over random specifications (`reduction_programs`) and random mailbox
//! programs that close and select (`reduction_close_select`), each with
//! random formulas over its roles and types; and they still prune.

use std::collections::BTreeSet;

use proptest::prelude::*;
use prust::explore::{Exploration, Explorer, Reduction, Roles};
use prust::{Protocol, Strict};
use testkit::mailbox::{self, Mailbox, Step};

use super::reduction_close_select;
use super::reduction_programs::{case, program, Case};

/// A random LTL formula, with its atoms' names as indices (resolved
/// against an object's roles and types by [`render`]; an index past the
/// end is `*`).
#[derive(Debug, Clone)]
enum Ltl {
    /// Role, kind (SEND, RECV, CLOSE, `*`), type, peer.
    Atom(usize, usize, usize, Option<usize>),
    End,
    Deadlock,
    Not(Box<Ltl>),
    And(Box<Ltl>, Box<Ltl>),
    Or(Box<Ltl>, Box<Ltl>),
    Next(Box<Ltl>),
    Finally(Box<Ltl>),
    Globally(Box<Ltl>),
    Until(Box<Ltl>, Box<Ltl>),
}

fn ltl() -> impl Strategy<Value = Ltl> {
    let leaf = prop_oneof![
        8 => (0..5usize, 0..4usize, 0..3usize, prop::option::of(0..5usize))
            .prop_map(|(r, k, t, p)| Ltl::Atom(r, k, t, p)),
        1 => Just(Ltl::End),
        1 => Just(Ltl::Deadlock),
    ];
    leaf.prop_recursive(3, 10, 2, |f| {
        let b = |f: Ltl| Box::new(f);
        prop_oneof![
            2 => f.clone().prop_map(move |x| Ltl::Not(b(x))),
            1 => (f.clone(), f.clone()).prop_map(move |(x, y)| Ltl::And(b(x), b(y))),
            1 => (f.clone(), f.clone()).prop_map(move |(x, y)| Ltl::Or(b(x), b(y))),
            2 => f.clone().prop_map(move |x| Ltl::Next(b(x))),
            2 => f.clone().prop_map(move |x| Ltl::Finally(b(x))),
            2 => f.clone().prop_map(move |x| Ltl::Globally(b(x))),
            3 => (f.clone(), f).prop_map(move |(x, y)| Ltl::Until(b(x), b(y))),
        ]
    })
}

/// The formula's text over these roles and message types.
fn render(f: &Ltl, roles: &[String], types: &[String]) -> String {
    let name = |i: usize| roles.get(i).map_or("*", String::as_str);
    let r = |f: &Ltl| render(f, roles, types);
    match f {
        Ltl::Atom(role, kind, ty, peer) => {
            let ty = types.get(*ty).map_or("*".to_string(), |t| format!("<{t}>"));
            let peer = |dir: &str| peer.map_or(String::new(), |p| format!(" {dir} {}", name(p)));
            let action = match kind {
                0 => format!("SEND {ty}{}", peer("TO")),
                1 => format!("RECV {ty}{}", peer("FROM")),
                2 => format!("CLOSE{}", peer("TO")),
                _ => "*".to_string(),
            };
            format!("\"{} {action}\"", name(*role))
        }
        Ltl::End => "\"END\"".into(),
        Ltl::Deadlock => "\"DEADLOCK\"".into(),
        Ltl::Not(x) => format!("!({})", r(x)),
        Ltl::And(x, y) => format!("({}) & ({})", r(x), r(y)),
        Ltl::Or(x, y) => format!("({}) | ({})", r(x), r(y)),
        Ltl::Next(x) => format!("X ({})", r(x)),
        Ltl::Finally(x) => format!("F ({})", r(x)),
        Ltl::Globally(x) => format!("G ({})", r(x)),
        Ltl::Until(x, y) => format!("({}) U ({})", r(x), r(y)),
    }
}

/// The failures found, as text (a property violation is one text per
/// formula, whichever trace showed it).
fn outcomes<T>(ex: &Exploration<T>) -> BTreeSet<String> {
    mailbox::outcomes(ex)
}

/// Plain search under `formula` (at most `max` executions), then each
/// reduction under it: the same failures and final states, in no more
/// full executions. Returns whether the plain search finished (else
/// nothing was compared).
fn agree<P, F, O>(object: &P, program: F, formula: &str, max: usize) -> Result<bool, TestCaseError>
where
    P: Protocol,
    F: Fn(&mut Roles<'_, P>) -> O + Sync + Copy,
    O: prust::explore::Observe,
    O::Value: PartialEq,
{
    let explore = |reduction: Reduction, max: usize| {
        Explorer::new()
            .preemption_bound(None)
            .reduction(reduction)
            .max_executions(max)
            .property(formula)
            .try_explore(object.clone(), program)
    };
    let plain = match explore(Reduction::None, max) {
        Ok(ex) => ex,
        // The formula names something the object lacks (a type): not
        // what this test is about.
        Err(_) => return Ok(false),
    };
    if !plain.is_complete() {
        return Ok(false);
    }
    for reduction in [Reduction::SleepSets, Reduction::Dpor] {
        let reduced = explore(reduction, 8 * plain.executions() + 100).expect("as plain");
        prop_assert_eq!(reduced.reduction(), reduction);
        prop_assert_eq!(reduced.reduction_off(), None);
        prop_assert!(reduced.is_complete(), "{}: {}", reduction, reduced);
        prop_assert!(
            reduced.executions() - reduced.redundant() <= plain.executions(),
            "{} ran more full executions than plain search: {}\nplain: {}",
            reduction,
            reduced,
            plain
        );
        prop_assert_eq!(
            outcomes(&plain),
            outcomes(&reduced),
            "{} under {}: plain:\n{}\nreduced:\n{}",
            reduction,
            formula,
            plain,
            reduced
        );
        prop_assert_eq!(
            plain.final_states(),
            reduced.final_states(),
            "{} under {}: final states differ; plain:\n{}\nreduced:\n{}",
            reduction,
            formula,
            plain,
            reduced
        );
    }
    Ok(true)
}

/// [`agree`] on a random case of `reduction_programs` (its strict object)
/// for each formula.
fn agree_on_case(case: &Case, formulas: &[Ltl]) -> Result<(), TestCaseError> {
    let object = Strict::from_spec(&case.spec).expect("compiled before");
    let names = object.roles();
    let types = object.type_names();
    let program = program(case, &names);
    let mut compared = false;
    for f in formulas {
        compared |= agree(&object, &program, &render(f, &names, &types), 300)?;
    }
    prop_assume!(compared, "too many executions");
    Ok(())
}

/// [`agree`] on a random mailbox program that closes and selects.
fn agree_on_mailbox(steps: &[Vec<Step>], formulas: &[Ltl]) -> Result<(), TestCaseError> {
    let object = Mailbox::new(steps.len());
    let names = object.roles();
    let types = object.type_names();
    let program = mailbox::observing_program(steps);
    let mut compared = false;
    for f in formulas {
        compared |= agree(&object, &program, &render(f, &names, &types), 300)?;
    }
    prop_assume!(compared, "too many executions");
    Ok(())
}

proptest! {
    // 4 formulas a program: 600 program-formula pairs each, in about
    // 10 s each on a loaded 2-core machine (the plain search under a
    // property checks each distinct trace with the engine).
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn reductions_under_a_property_find_the_failures_of_plain_search(
        case in case(),
        formulas in prop::collection::vec(ltl(), 4),
    ) {
        agree_on_case(&case, &formulas)?;
    }

    #[test]
    fn reductions_under_a_property_agree_on_closes_and_selects(
        steps in reduction_close_select::programs(),
        formulas in prop::collection::vec(ltl(), 4),
    ) {
        agree_on_mailbox(&steps, &formulas)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// The same, longer: `cd explore && $BIN soak_reductions_under --ignored`.
    #[test]
    #[ignore]
    fn soak_reductions_under_a_property_find_the_failures_of_plain_search(
        case in case(),
        formulas in prop::collection::vec(ltl(), 4),
    ) {
        agree_on_case(&case, &formulas)?;
    }

    #[test]
    #[ignore]
    fn soak_reductions_under_a_property_agree_on_closes_and_selects(
        steps in reduction_close_select::programs(),
        formulas in prop::collection::vec(ltl(), 4),
    ) {
        agree_on_mailbox(&steps, &formulas)?;
    }
}

/// Three roles each send one message to a fourth, which receives them in
/// a fixed order: the sends commute (different channels).
fn three_senders() -> Vec<Vec<Step>> {
    vec![
        vec![Step::Send(3)],
        vec![Step::Send(3)],
        vec![Step::Send(3)],
        vec![Step::RecvFrom(0), Step::RecvFrom(1), Step::RecvFrom(2)],
    ]
}

fn explore_three(reduction: Reduction, formula: &str) -> Exploration {
    let steps = three_senders();
    Explorer::new()
        .preemption_bound(None)
        .reduction(reduction)
        .property(formula)
        .explore(Mailbox::new(4), mailbox::program(&steps))
}

#[test]
fn the_reductions_prune_the_orders_a_property_cannot_see() {
    // The atoms see only r3's receives: the three sends are invisible and
    // commute, so their 6 orders are one to the formula.
    let formula = r#"F "r3 RECV * FROM r2""#;
    let plain = explore_three(Reduction::None, formula);
    assert!(plain.is_successful(), "{plain}");
    for reduction in [Reduction::SleepSets, Reduction::Dpor] {
        let reduced = explore_three(reduction, formula);
        assert!(reduced.is_successful(), "{reduced}");
        assert_eq!(reduced.reduction(), reduction);
        assert_eq!(reduced.reduction_off(), None, "{reduced}");
        assert!(
            reduced.executions() - reduced.redundant() < plain.executions(),
            "{reduction}: {reduced}\nplain: {plain}"
        );
    }
    // DPOR runs a single full execution, as without a property.
    let dpor = explore_three(Reduction::Dpor, formula);
    assert_eq!(dpor.executions() - dpor.redundant(), 1, "{dpor}");
}

#[test]
fn the_reductions_run_every_order_of_the_steps_a_property_sees() {
    // "r0 sends before r1": violated only where r1's send goes first. The
    // sends commute on the object (different channels), so a reduction
    // that ignored the formula would run one order of them (r0's first)
    // and report success.
    let formula = r#"!"r1 SEND *" U "r0 SEND *""#;
    let plain = explore_three(Reduction::None, formula);
    assert_eq!(
        outcomes(&plain),
        BTreeSet::from([format!("the trace violates the property {formula}")]),
        "{plain}"
    );
    for reduction in [Reduction::SleepSets, Reduction::Dpor] {
        let reduced = explore_three(reduction, formula);
        assert_eq!(
            outcomes(&reduced),
            outcomes(&plain),
            "{reduction}: {reduced}"
        );
        // r2's send is still pruned: fewer executions than plain search.
        assert!(
            reduced.executions() - reduced.redundant() < plain.executions(),
            "{reduction}: {reduced}\nplain: {plain}"
        );
    }
}
