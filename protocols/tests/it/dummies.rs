//! Dummies cannot change a verdict silently: for an object built from a
//! specification (which declares its message types), a dummy set that
//! misses a type or names one the object does not have is an error, never a
//! verdict, and an empty set means the object's own.
//!
//! The example is two-phase commit: the coordinator `c` asks both
//! participants to prepare, each votes `Yes` or `No`, and `c` sends
//! `Commit` to both if both voted `Yes`, else `Abort`; both acknowledge.

use engine::{
    check, check_violated, dummies, try_check, DummiesError, Error, Message, Protocol, Refused,
    RoleId,
};
use protocols::spec::{alt, msg, seq, Spec, Term};
use protocols::{Liberal, Strict};

const TYPES: [&str; 6] = ["Prepare", "Yes", "No", "Commit", "Abort", "Ack"];

/// `c` sends `decision` to both participants, who acknowledge it.
fn decide(decision: &str) -> Term {
    seq([
        msg(decision, "c", "p1"),
        msg(decision, "c", "p2"),
        msg("Ack", "p1", "c"),
        msg("Ack", "p2", "c"),
    ])
}

fn two_phase_commit() -> Spec {
    let votes = |v1: &str, v2: &str| seq([msg(v1, "p1", "c"), msg(v2, "p2", "c")]);
    Spec::new(
        "two-phase-commit",
        seq([
            msg("Prepare", "c", "p1"),
            msg("Prepare", "c", "p2"),
            alt([
                votes("Yes", "Yes").then(decide("Commit")),
                votes("Yes", "No").then(decide("Abort")),
                votes("No", "Yes").then(decide("Abort")),
                votes("No", "No").then(decide("Abort")),
            ]),
        ]),
    )
    .roles(["c", "p1", "p2"])
    .types(TYPES)
}

fn named(types: &[&str]) -> Vec<Message> {
    types.iter().map(|t| Message::named(t, ())).collect()
}

/// The strict object with its message types hidden: an object that
/// declares nothing, checked with the dummies as given (as every object
/// was before declared types were enforced).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Undeclared(Strict);

impl Protocol for Undeclared {
    fn roles(&self) -> Vec<String> {
        self.0.roles()
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        self.0.try_send(role, to, msg)
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        self.0.try_recv(role, from)
    }
    fn is_terminated(&self) -> bool {
        self.0.is_terminated()
    }
}

/// False: `c` aborts whenever a participant votes `No`.
const NEVER_ABORTS: &str = r#"G !"c SEND <Abort>""#;

fn strict() -> Strict {
    Strict::from_spec(&two_phase_commit()).unwrap()
}

#[test]
fn the_object_declares_every_type_of_the_spec() {
    assert_eq!(strict().type_names(), TYPES);
    assert_eq!(strict().dummies(), named(&TYPES));
    let liberal = Liberal::from_spec(&two_phase_commit()).unwrap();
    assert_eq!(liberal.dummies(), named(&TYPES));
    assert_eq!(engine::declared_dummies(&liberal), named(&TYPES));
}

#[test]
fn dummies_without_no_are_an_error_listing_both_sets() {
    let partial = named(&["Prepare", "Yes", "Commit", "Abort", "Ack"]);
    // Without `No` nobody votes No, and the false property holds: what
    // happens to an object that does not declare its types.
    let r = try_check(NEVER_ABORTS, Undeclared(strict()), partial.clone()).unwrap();
    assert!(r.holds(), "{r}");
    // The strict object declares them: an error, not a verdict.
    let e = try_check(NEVER_ABORTS, strict(), partial.clone()).unwrap_err();
    let Error::Dummies(d) = &e else {
        panic!("expected a dummies error, got {e:?}")
    };
    let DummiesError {
        missing,
        unknown,
        declared,
        given,
        ..
    } = &**d;
    assert_eq!(missing, &["No"]);
    assert!(unknown.is_empty(), "{unknown:?}");
    assert_eq!(declared, &TYPES);
    assert_eq!(given, &["Prepare", "Yes", "Commit", "Abort", "Ack"]);
    let text = e.to_string();
    assert!(text.contains("no dummy for: No"), "{text}");
    assert!(
        text.contains("declared: Prepare, Yes, No, Commit, Abort, Ack"),
        "{text}"
    );
    assert!(
        text.contains("given:    Prepare, Yes, Commit, Abort, Ack"),
        "{text}"
    );
    assert!(text.contains("dummies![]"), "the hint says how: {text}");
    // The same from the other entry points and runtimes.
    let checker = engine::Checker::new();
    assert!(matches!(
        checker.session(strict(), partial.clone()),
        Err(Error::Dummies(_))
    ));
    let otf = Strict::on_the_fly(&two_phase_commit()).unwrap();
    assert!(matches!(
        checker.check(NEVER_ABORTS, otf, partial.clone()),
        Err(Error::Dummies(_))
    ));
    let liberal = Liberal::from_spec(&two_phase_commit()).unwrap();
    assert!(matches!(
        checker.check(NEVER_ABORTS, liberal, partial),
        Err(Error::Dummies(_))
    ));
}

#[test]
#[should_panic(expected = "no dummy for: No")]
fn check_panics_with_the_dummies_error() {
    check(
        NEVER_ABORTS,
        strict(),
        named(&["Prepare", "Yes", "Commit", "Abort", "Ack"]),
    );
}

#[test]
fn a_misspelt_dummy_is_an_error_suggesting_the_declared_name() {
    // With `Comit`, `c` can never send a Commit: spurious deadlocks, on an
    // object that does not declare its types.
    let typo = named(&["Prepare", "Yes", "No", "Comit", "Abort", "Ack"]);
    let r = try_check(r#"G !"DEADLOCK""#, Undeclared(strict()), typo.clone()).unwrap();
    assert!(r.counterexample().is_some(), "{r}");
    check(r#"G !"DEADLOCK""#, Undeclared(strict()), named(&TYPES));
    let e = try_check(r#"G !"DEADLOCK""#, strict(), typo).unwrap_err();
    let Error::Dummies(d) = &e else {
        panic!("expected a dummies error, got {e:?}")
    };
    let DummiesError {
        missing,
        unknown,
        suggestions,
        ..
    } = &**d;
    assert_eq!(missing, &["Commit"]);
    assert_eq!(unknown, &["Comit"]);
    assert_eq!(suggestions, &[("Comit".to_string(), "Commit".to_string())]);
    let text = e.to_string();
    assert!(
        text.contains("not declared: Comit; did you mean `Commit`?"),
        "{text}"
    );
}

#[test]
fn empty_dummies_are_the_objects_own_and_find_the_abort() {
    let run = check_violated(NEVER_ABORTS, strict(), dummies![]);
    let text = run.to_string();
    assert!(text.contains("SEND <No>"), "a No vote leads there: {text}");
    assert!(text.contains("c SEND <Abort>"), "{text}");
    // The run replays on a fresh object with the dummies the check used.
    run.replay(strict());
    check(r#"G !"DEADLOCK""#, strict(), vec![]);
    // Every runtime.
    let otf = Strict::on_the_fly(&two_phase_commit()).unwrap();
    check_violated(NEVER_ABORTS, otf, dummies![]);
    let liberal = Liberal::from_spec(&two_phase_commit()).unwrap();
    check_violated(NEVER_ABORTS, liberal, dummies![]);
    // The full set given by hand is as good as none.
    check_violated(NEVER_ABORTS, strict(), named(&TYPES));
}

/// A specification of closes alone declares no message type and takes no
/// dummy: `dummies![]` checks it (it was an [`Error::Dummies`] with
/// nothing declared and nothing given), and a dummy is one it does not
/// declare.
#[test]
fn a_specification_of_closes_only_takes_no_dummies() {
    use protocols::spec::close;
    let spec = Spec::new("closes", seq([close("a", "b"), close("b", "a")]));
    let strict = Strict::from_spec(&spec).unwrap();
    assert!(strict.type_names().is_empty() && strict.declares_types());
    check(r#"F "END""#, strict.clone(), dummies![]);
    check(r#"F "END""#, Liberal::from_spec(&spec).unwrap(), dummies![]);
    check(r#"F "END""#, Strict::on_the_fly(&spec).unwrap(), dummies![]);
    check_violated(r#"X "a CLOSE TO b""#, strict.clone(), dummies![]);
    #[derive(Clone, Debug)]
    struct Stray;
    let e = try_check(r#"F "END""#, strict, dummies![Stray]).unwrap_err();
    assert!(
        matches!(&e, Error::Dummies(d) if d.unknown.len() == 1),
        "{e}"
    );
}
