//! What every worked example's test asks of `prust::explore`: the planted
//! bug is found, with a schedule that prints, parses back and replays to
//! the same kind of outcome; the fix passes a complete exploration.

use prust::explore::{Exploration, Explorer, Outcome, Roles, Schedule};
use prust::Protocol;

/// Asserts that `bug` failed with an outcome of `kind` (a name of
/// [`Outcome::kind`]), prints the failure, replays its schedule (printed
/// and parsed back) with `program` on `object` and asserts that the replay
/// ends the same way. Returns the failure's outcome.
pub fn found_and_replayed<P, O, F>(
    bug: &Exploration<O>,
    kind: &str,
    object: P,
    program: F,
) -> Outcome
where
    P: Protocol,
    F: Fn(&mut Roles<'_, P>) + Sync,
{
    assert!(
        !bug.is_successful(),
        "the planted bug was not found:\n{bug}"
    );
    let failure = bug
        .failures()
        .iter()
        .find(|f| f.outcome.kind() == kind)
        .unwrap_or_else(|| panic!("no {kind} among the failures:\n{bug}"));
    println!("{failure}");
    let text = failure.schedule.to_string();
    assert!(!text.is_empty());
    let schedule: Schedule = text.parse().expect("a printed schedule parses back");
    assert_eq!(schedule, failure.schedule);
    let replay = Explorer::new().replay(&schedule).explore(object, program);
    assert!(replay.is_replay());
    let again = &replay.failures()[0];
    assert_eq!(
        again.outcome, failure.outcome,
        "the replay ends otherwise:\n{replay}"
    );
    assert_eq!(again.trace, failure.trace);
    failure.outcome.clone()
}

/// Asserts that `fixed` ran every schedule and none failed.
pub fn passes_complete<O>(fixed: &Exploration<O>) {
    assert!(fixed.is_successful(), "the fix fails:\n{fixed}");
    assert!(fixed.is_complete(), "cut short:\n{fixed}");
}
