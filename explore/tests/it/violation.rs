//! A protocol violation is reported as soon as it is certain: a
//! send or close that no action of the other roles can make acceptable
//! ends the execution as `Outcome::Violation` (role and operation), even
//! while the other roles could still go on. (That an operation the others
//! can still enable is no violation is shown by every program of
//! tests/explore.rs that is complete and successful: the two-buyer
//! seller's second quote is refused until buyer1 has taken the first.)

use prust::explore::{explore, Explorer, Outcome, Reduction, Roles};
use prust::protocols;
use prust::session::BlockingEndpoint;
use prust::Strict;

#[derive(Clone, Debug)]
struct Move(#[allow(dead_code)] u32);

/// BUG: black moves first. In chess, black's first move comes only after
/// it has received white's, which black itself must do: nothing white
/// does can let black's send through, so the violation is certain at the
/// first scheduling point, before white has even moved.
fn black_moves_first(r: &mut Roles<'_, Strict>) {
    r.spawn("white", |mut e| {
        for i in 0..3 {
            if e.send("black", Move(i)).is_err() || e.recv_from("black").is_err() {
                return;
            }
        }
    });
    r.spawn("black", |mut e| {
        if e.send("white", Move(0)).is_err() {
            return;
        }
        let _ = e.recv_from("white");
    });
}

#[test]
fn a_send_the_protocol_can_never_accept_is_a_violation_at_once() {
    let ex = explore(protocols::chess::strict(), black_moves_first);
    println!("{ex}");
    assert!(ex.is_complete() && !ex.is_successful(), "{ex}");
    assert_eq!(ex.failures().len(), 1, "{ex}");
    let f = &ex.failures()[0];
    let Outcome::Violation { role, operation } = &f.outcome else {
        panic!("expected a violation: {ex}");
    };
    assert_eq!(
        (role.as_str(), operation.to_string().as_str()),
        ("black", "send <Move> to white")
    );
    // Found before any step: white could still have moved.
    assert!(f.trace.is_empty(), "{ex}");
    assert!(f.outcome.to_string().contains("can never accept"), "{ex}");
    // The failure's header names its kind once.
    let header = f.to_string();
    assert!(
        header.starts_with("protocol violation: black waits to send"),
        "{header}"
    );
    assert!(
        !ex.to_string().contains("violation: protocol violation"),
        "{ex}"
    );
}

/// The same, with the plain depth-first search: the same outcomes.
#[test]
fn the_early_violation_is_the_same_with_every_reduction() {
    for reduction in [Reduction::None, Reduction::SleepSets, Reduction::Dpor] {
        let ex = Explorer::new()
            .reduction(reduction)
            .explore(protocols::chess::strict(), black_moves_first);
        let kinds: Vec<&str> = ex.failures().iter().map(|f| f.outcome.kind()).collect();
        assert_eq!(kinds, ["protocol violation"], "{reduction}: {ex}");
    }
}
