//! The chess example's claims, in the test suite: two real threads play a
//! game through the bundled chess object on both sessions. (That the object
//! enforces turn-taking is checked by the tests in `examples/chess.rs`, which
//! `cargo test` runs.)

use crate::session_support;

use std::time::Duration;

use protocols::session::{BlockingEndpoint, Error, Session, SplitSession};
use session_support::watchdog;

#[derive(Clone, Debug, PartialEq)]
struct Move(&'static str);

/// White plays its moves, black answers each; returns what white saw.
fn game(
    mut w: impl BlockingEndpoint,
    mut b: impl BlockingEndpoint,
) -> Result<Vec<&'static str>, Error> {
    std::thread::scope(|s| {
        let black = s.spawn(move || -> Result<(), Error> {
            for reply in ["e5", "Qh4#"] {
                b.recv_from("white")?.downcast::<Move>().unwrap();
                b.send("white", Move(reply))?;
            }
            Ok(())
        });
        let mut seen = Vec::new();
        for mv in ["f3", "g4"] {
            w.send("black", Move(mv))?;
            seen.push(w.recv_from("black")?.downcast::<Move>().unwrap().0);
        }
        black.join().unwrap()?;
        Ok(seen)
    })
}

#[test]
fn two_threads_play_through_both_runtimes() {
    let seen = watchdog("chess", Duration::from_secs(30), || {
        let s = Session::new(protocols::chess::strict());
        let strict = game(s.endpoint("white").unwrap(), s.endpoint("black").unwrap());
        let s = SplitSession::new(protocols::chess::spec().liberal().unwrap());
        let liberal = game(s.endpoint("white").unwrap(), s.endpoint("black").unwrap());
        (strict, liberal)
    });
    assert_eq!(seen.0.unwrap(), ["e5", "Qh4#"]);
    assert_eq!(seen.1.unwrap(), ["e5", "Qh4#"]);
}

/// Black moving twice in a row is refused by the object; once white's
/// thread has finished, black's wait is reported as a deadlock, not a hang.
#[test]
fn moving_out_of_turn_is_reported() {
    let result = watchdog("out of turn", Duration::from_secs(30), || {
        let s = Session::new(protocols::chess::strict());
        let (mut w, mut b) = (s.endpoint("white").unwrap(), s.endpoint("black").unwrap());
        drop(s);
        std::thread::scope(|sc| {
            sc.spawn(move || w.send("black", Move("e4")));
            sc.spawn(move || -> Result<(), Error> {
                b.recv_from("white")?;
                b.send("white", Move("e5"))?;
                b.send("white", Move("d5")) // out of turn
            })
            .join()
            .unwrap()
        })
    });
    match result {
        Err(Error::Deadlock(d)) => {
            assert_eq!(d.blocked.len(), 1);
            assert_eq!(d.blocked[0].role, "black");
            assert_eq!(d.finished, ["white"]);
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
}
