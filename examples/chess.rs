//! Two real threads play a game of chess through the bundled `chess`
//! protocol object: white and black take turns, each move a message.
//!
//! ```text
//! cargo run --example chess              # strict object, locked session
//! cargo run --example chess -- --liberal # liberal object, split session
//! cargo test --example chess             # the same object's turn-taking, checked
//! ```
//!
//! The moves are the fool's mate (four plies, black mates). The protocol
//! (`((-->> Move white black) (-->> Move black white))+`) is what makes the
//! threads take turns: a thread that tried to move out of turn would wait,
//! and if the other thread could never let it go on, it would get a
//! deadlock error instead of hanging. The test below proves, with the model
//! checker, that the object itself enforces the turns.

use std::error::Error;

use prust::protocols;
use prust::session::{BlockingEndpoint, Session, SplitSession};

/// A move in algebraic notation (the message type `Move` of the protocol).
#[derive(Clone, Debug, PartialEq)]
struct Move(&'static str);

const WHITE_MOVES: [&str; 2] = ["f3", "g4"];
const BLACK_MOVES: [&str; 2] = ["e5", "Qh4#"];

fn white(mut ep: impl BlockingEndpoint) -> Result<Vec<String>, protocols::session::Error> {
    let black = ep.peer("black")?;
    let mut log = Vec::new();
    for mv in WHITE_MOVES {
        ep.send(black, Move(mv))?;
        log.push(format!("white plays {mv}"));
        let reply = ep.recv_from(black)?;
        let Move(reply) = reply.downcast::<Move>().expect("black sends moves");
        log.push(format!("white sees {reply}"));
    }
    Ok(log)
}

fn black(mut ep: impl BlockingEndpoint) -> Result<Vec<String>, protocols::session::Error> {
    let white = ep.peer("white")?;
    let mut log = Vec::new();
    for mv in BLACK_MOVES {
        let Move(seen) = ep
            .recv_from(white)?
            .downcast::<Move>()
            .expect("white sends moves");
        log.push(format!("black sees {seen}"));
        ep.send(white, Move(mv))?;
        log.push(format!("black plays {mv}"));
    }
    Ok(log)
}

/// Plays the game on two threads; returns both players' logs.
fn play<W, B>(w: W, b: B) -> Result<(Vec<String>, Vec<String>), Box<dyn Error>>
where
    W: BlockingEndpoint,
    B: BlockingEndpoint,
{
    std::thread::scope(|s| {
        let w = s.spawn(move || white(w));
        let b = s.spawn(move || black(b));
        let (w, b) = (
            w.join().expect("white panicked"),
            b.join().expect("black panicked"),
        );
        Ok((w?, b?))
    })
}

fn main() -> Result<(), Box<dyn Error>> {
    let liberal = std::env::args().any(|a| a == "--liberal");
    let (w, b) = if liberal {
        println!("chess on the liberal object (split session: no lock shared by the players)");
        let session = SplitSession::new(protocols::chess::spec().liberal()?);
        let (w, b) = (session.endpoint("white")?, session.endpoint("black")?);
        drop(session);
        play(w, b)?
    } else {
        println!("chess on the strict object (one lock, one global state)");
        let session = Session::new(protocols::chess::strict());
        let (w, b) = (session.endpoint("white")?, session.endpoint("black")?);
        drop(session);
        play(w, b)?
    };
    for line in w {
        println!("  {line}");
    }
    for line in b {
        println!("  {line}");
    }
    println!("checkmate: black wins");
    Ok(())
}

#[cfg(test)]
mod tests {
    use prust::{check, check_violated, dummies, protocols};

    /// Black never moves before it has seen a move of white's, and after
    /// each move of white's, white waits for black's reply: on both objects.
    #[test]
    fn the_protocol_object_enforces_turns() {
        let black_waits = r#"!"black SEND <Move>" U "black RECV <Move>""#;
        let white_waits = r#"G("white SEND <Move>" -> X(!"white SEND *" U "white RECV <Move>"))"#;
        // `dummies![]`: the objects declare their message type (`Move`),
        // so the checker probes sends with their own sample of it.
        for formula in [black_waits, white_waits] {
            check(formula, protocols::chess::strict(), dummies![]);
            check(
                formula,
                protocols::chess::spec().liberal().unwrap(),
                dummies![],
            );
        }
        // ... and the check can fail: white does not wait for black.
        let white_first = r#"!"white SEND <Move>" U "white RECV <Move>""#;
        check_violated(white_first, protocols::chess::strict(), dummies![]);
        check_violated(
            white_first,
            protocols::chess::spec().liberal().unwrap(),
            dummies![],
        );
    }

    #[test]
    fn the_game_runs_on_both_runtimes() {
        use prust::session::{Session, SplitSession};
        let s = Session::new(protocols::chess::strict());
        let (w, b) = (s.endpoint("white").unwrap(), s.endpoint("black").unwrap());
        let (wl, bl) = super::play(w, b).unwrap();
        assert_eq!(wl.last().unwrap(), "white sees Qh4#");
        assert_eq!(bl.len(), 4);
        let s = SplitSession::new(protocols::chess::spec().liberal().unwrap());
        let (w, b) = (s.endpoint("white").unwrap(), s.endpoint("black").unwrap());
        let (wl, _) = super::play(w, b).unwrap();
        assert_eq!(
            wl,
            [
                "white plays f3",
                "white sees e5",
                "white plays g4",
                "white sees Qh4#"
            ]
        );
    }
}
