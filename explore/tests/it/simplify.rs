//! Failure simplification: fewer context switches, the same outcome.

use prust::explore::{Explorer, Outcome, Roles, Schedule};
use prust::session::BlockingEndpoint;
use prust::spec::{msg, par, seq, Spec};
use prust::{Liberal, Message};

/// `a` sends two messages to `c` while `b` sends one (the liberal object
/// lets `a` send both before `c` receives); `c` takes them in
/// whatever order they come and then fails, whatever the schedule.
fn object() -> Liberal {
    let spec = Spec::new(
        "fan-in",
        par([
            seq([msg("M", "a", "c"), msg("M", "a", "c")]),
            msg("N", "b", "c"),
        ]),
    )
    .roles(["a", "b", "c"])
    .types(["M", "N"]);
    Liberal::from_spec(&spec).unwrap()
}

fn program(r: &mut Roles<'_, Liberal>) {
    r.spawn("a", |mut ep| {
        ep.send("c", Message::named("M", 1)).unwrap();
        ep.send("c", Message::named("M", 2)).unwrap();
    });
    r.spawn("b", |mut ep| ep.send("c", Message::named("N", 3)).unwrap());
    r.spawn("c", |mut ep| {
        for _ in 0..3 {
            ep.recv().unwrap();
        }
        panic!("c always fails");
    });
}

#[test]
fn a_noisy_failing_schedule_is_simplified_and_confirmed() {
    let noisy: Schedule = "a b a c<-a c<-a c<-b".parse().unwrap();
    assert_eq!(noisy.context_switches(), 3);
    let kept = Explorer::new()
        .simplify(false)
        .replay(&noisy)
        .explore(object(), program);
    assert_eq!(kept.failures()[0].schedule, noisy, "{kept}");
    let ex = Explorer::new().replay(&noisy).explore(object(), program);
    let f = &ex.failures()[0];
    assert!(matches!(f.outcome, Outcome::Panicked { .. }), "{ex}");
    assert_eq!(f.schedule.to_string(), "a a b c<-a c<-a c<-b", "{ex}");
    assert_eq!(f.schedule.context_switches(), 2);
    // The trace is the simplified execution's.
    assert_eq!(f.trace[1].to_string(), "a sends <M> to c");
    // And it replays to the same failure.
    let again = Explorer::new()
        .simplify(false)
        .replay(&f.schedule)
        .explore(object(), program);
    assert_eq!(again.failures(), ex.failures());
}
