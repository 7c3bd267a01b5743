//! `select` on both sessions: it takes whichever alternative
//! can be received, looks at the type before receiving (a typed
//! alternative never takes another type's message), and fails with
//! `Error::Closed` once every alternative's sender has closed. Every test
//! runs under a watchdog.

use crate::session_support;

use std::time::Duration;

use engine::Message;
use protocols::session::{Alternative, BlockingEndpoint, Error, Session, SplitSession};
use protocols::spec::{close, msg, par, seq, Spec};
use protocols::{Liberal, Strict};
use session_support::watchdog;

const LIMIT: Duration = Duration::from_secs(10);

/// `p` sends an `A` to `r` and closes, `q` a `B` and closes.
fn two_streams() -> Spec {
    Spec::new(
        "two-streams",
        par([
            seq([msg("A", "p", "r"), close("p", "r")]),
            seq([msg("B", "q", "r"), close("q", "r")]),
        ]),
    )
    .roles(["p", "q", "r"])
}

/// `r` selects until both have closed: it gets each message once, by the
/// right alternative, then `Closed` with no sender named. The
/// alternatives name their senders by index, or by name (`by_name`).
fn select_until_closed<E: BlockingEndpoint + 'static>(
    mut eps: Vec<E>,
    by_name: bool,
) -> Vec<(usize, String)> {
    let mut r = eps.pop().unwrap();
    let mut q = eps.pop().unwrap();
    let mut p = eps.pop().unwrap();
    let alts = if by_name {
        [
            Alternative::sender("p").of_type("A"),
            Alternative::sender(String::from("q")).of_type("B"),
        ]
    } else {
        [
            Alternative::sender(p.role()).of_type("A"),
            Alternative::sender(q.role()).of_type("B"),
        ]
    };
    let t = std::thread::spawn(move || {
        let mut got = Vec::new();
        loop {
            match r.select(&alts) {
                Ok((i, m)) => got.push((i, m.type_name().to_string())),
                Err(Error::Closed { from: None, .. }) => return got,
                Err(other) => panic!("r: {other}"),
            }
        }
    });
    q.send("r", Message::named("B", ())).unwrap();
    q.close("r").unwrap();
    p.send("r", Message::named("A", ())).unwrap();
    p.close("r").unwrap();
    let mut got = t.join().unwrap();
    got.sort();
    got
}

#[test]
fn select_takes_every_alternative_and_ends_when_all_senders_closed() {
    let want = vec![(0, "A".to_string()), (1, "B".to_string())];
    for by_name in [false, true] {
        let locked = watchdog("locked", LIMIT, move || {
            select_until_closed(
                Session::new(Strict::from_spec(&two_streams()).unwrap()).into_endpoints(),
                by_name,
            )
        });
        assert_eq!(locked, want);
        let split = watchdog("split", LIMIT, move || {
            select_until_closed(
                SplitSession::new(Liberal::from_spec(&two_streams()).unwrap()).into_endpoints(),
                by_name,
            )
        });
        assert_eq!(split, want);
    }
}

/// A sender named by a name the protocol does not have, or by the
/// selecting role's own, is an error at once (no wait), on both sessions
/// and without waiting or not; the report names roles, not numbers.
fn bad_names<E: BlockingEndpoint + 'static>(mut eps: Vec<E>) {
    let mut r = eps.pop().unwrap();
    let unknown = [
        Alternative::sender("p"),
        Alternative::sender("x").of_type("A"),
    ];
    let e = r.select(&unknown).unwrap_err();
    assert_eq!(e.to_string(), "unknown role `x`; the protocol has: p, q, r");
    assert_eq!(r.try_select(&unknown).unwrap_err(), e);
    let itself = [Alternative::sender("r")];
    assert!(matches!(r.select(&itself), Err(Error::ToSelf { ref role, .. }) if role == "r"));
    assert!(matches!(r.try_select(&itself), Err(Error::ToSelf { .. })));
}

#[test]
fn an_alternative_by_an_unknown_name_or_its_own_is_an_error() {
    bad_names(Session::new(Strict::from_spec(&two_streams()).unwrap()).into_endpoints());
    bad_names(SplitSession::new(Liberal::from_spec(&two_streams()).unwrap()).into_endpoints());
}

/// `p` sends a `B` then an `A`; `q` sends a `C`. A select for an `A` from
/// `p` or anything from `q` must take `q`'s `C`, even when `p`'s `B`
/// arrived first (it is not an `A`), and leave the `B` for a later
/// receive.
fn typed<E: BlockingEndpoint + 'static>(mut eps: Vec<E>) -> (usize, String, String) {
    let mut r = eps.pop().unwrap();
    let mut q = eps.pop().unwrap();
    let mut p = eps.pop().unwrap();
    let alts = [
        Alternative::sender(p.role()).of_type("A"),
        Alternative::sender(q.role()),
    ];
    // p's B is in the channel before r selects.
    p.send("r", Message::named("B", ())).unwrap();
    let t = std::thread::spawn(move || {
        let (i, m) = r.select(&alts).unwrap();
        let next = r.recv_from("p").unwrap();
        (i, m.type_name().to_string(), next.type_name().to_string())
    });
    std::thread::sleep(Duration::from_millis(10));
    q.send("r", Message::named("C", ())).unwrap();
    t.join().unwrap()
}

#[test]
fn a_typed_alternative_never_takes_another_type() {
    let spec = || {
        Spec::new(
            "typed",
            par([
                seq([msg("B", "p", "r"), msg("A", "p", "r")]),
                msg("C", "q", "r"),
            ]),
        )
        .roles(["p", "q", "r"])
    };
    let want = (1, "C".to_string(), "B".to_string());
    let locked = watchdog("locked", LIMIT, move || {
        typed(Session::new(Strict::from_spec(&spec()).unwrap()).into_endpoints())
    });
    assert_eq!(locked, want);
    let split = watchdog("split", LIMIT, move || {
        typed(SplitSession::new(Liberal::from_spec(&spec()).unwrap()).into_endpoints())
    });
    assert_eq!(split, want);
}
