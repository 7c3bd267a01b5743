//! The synchronous bit of LTS labels: `sync` marks the send of a
//! handshake, `.aut` writes it `‽` (as Discourje does) and reads it back,
//! `.aut` files without it read as before, and the runtimes — so the model
//! checker — treat a handshake's send as the send it is.

use engine::Protocol;
use protocols::spec::{alt, msg, par, seq, sync, Spec};
use protocols::{Liberal, Lts, Strict};

#[test]
fn a_handshake_is_marked_and_written_with_an_interrobang_and_reads_back() {
    let lts = Spec::new("hs", sync("M", "a", "b").then(msg("N", "b", "a")))
        .compile()
        .unwrap();
    let (send, between) = lts.transitions(lts.initial())[0];
    assert!(send.is_sync());
    let (recv, _) = lts.transitions(between)[0];
    assert_eq!(recv, send.receive());
    assert!(!recv.is_sync());
    assert!(lts.has_sync());
    let aut = lts.to_aut();
    assert_eq!(
        aut,
        "des (0, 4, 5)\n(0,\"‽(M,a,b)\",1)\n(1,\"?(M,a,b)\",2)\n(2,\"!(N,b,a)\",3)\n(3,\"?(N,b,a)\",4)\n"
    );
    let back = Lts::from_aut(&aut).unwrap();
    assert_eq!(back.to_aut(), aut);
    assert!(back.transitions(back.initial())[0].0.is_sync());
    assert!(back.bisimilar(&lts).is_ok());
}

#[test]
fn aut_files_without_the_mark_read_as_before() {
    for file in ["stuck-at-once.aut", "load-balancer-bug.aut"] {
        let path = format!("{}/../tests/owl/beyond/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let lts = Lts::from_aut(&text).unwrap();
        assert!(!lts.has_sync(), "{file}");
        assert_eq!(lts.asynchronous(), lts, "{file}");
        // every line of the file is a transition written back unchanged
        let written = lts.to_aut();
        for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
            assert!(written.contains(line.trim()), "{file}: {line}");
        }
    }
    // a mark that is not a label is still an error, with the labels listed
    let e = Lts::from_aut("des (0, 1, 2)\n(0,\"‽A,p,q\",1)\n").unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.hint.contains("‽(Type,sender,receiver)"), "{e}");
}

#[test]
fn discourjes_one_step_handshakes_read_as_prusts_two() {
    // Discourje: a handshake a→b, then one b→a, then an ordinary message
    let discourje = "des (0, 4, 5)\n(0,\"‽(A,a,b)\",1)\n(1,\"‽(B,b,a)\",2)\n\
                     (2,\"!(C,a,b)\",3)\n(3,\"?(C,a,b)\",4)\n";
    let lts = Lts::from_aut(discourje).unwrap();
    assert_eq!((lts.num_states(), lts.num_transitions()), (7, 6));
    let spec = Spec::new(
        "same",
        seq([sync("A", "a", "b"), sync("B", "b", "a"), msg("C", "a", "b")]),
    )
    .compile()
    .unwrap();
    assert!(lts.bisimilar(&spec).is_ok(), "{lts}");
}

/// Which of `formulas` hold for `object`.
fn verdicts<P: Protocol>(object: P, formulas: &[&str]) -> Vec<bool> {
    let dummies = engine::declared_dummies(&object);
    let mut session = engine::Checker::new().session(object, dummies).unwrap();
    formulas
        .iter()
        .map(|f| session.check(f).unwrap().holds())
        .collect()
}

/// A state with a handshake and an ordinary send of the same type on the
/// same channel: two labels in the LTS, one choice for the runtimes (a
/// program cannot tell them apart when it sends), so both continuations
/// stay possible, as before the bit existed.
#[test]
fn the_model_checker_sees_a_handshake_as_the_send_it_is() {
    let spec = Spec::new(
        "either",
        alt([
            seq([msg("T", "p", "q"), msg("A", "r", "s")]),
            seq([
                sync("T", "p", "q"),
                par([msg("B", "r", "s"), msg("U", "p", "q")]),
            ]),
        ]),
    );
    let lts = spec.compile().unwrap();
    let first: Vec<_> = lts.transitions(lts.initial()).iter().map(|t| t.0).collect();
    assert_eq!(first.len(), 2);
    assert_eq!(first[0].asynchronous(), first[1].asynchronous());
    assert_ne!(first[0].is_sync(), first[1].is_sync());
    let formulas = [
        "G !\"r SEND <A> TO s\"",
        "G !\"r SEND <B> TO s\"",
        // on both branches q's receive comes right after p's send
        "G (\"p SEND <T> TO q\" -> X \"q RECV <T> FROM p\")",
        "F \"q RECV <T> FROM p\"",
    ];
    let expected = [false, false, true, true];
    assert_eq!(verdicts(Strict::new(lts.clone()), &formulas), expected);
    assert_eq!(
        verdicts(Strict::on_the_fly(&spec).unwrap(), &formulas),
        expected
    );
    // exactly the LTS without the bit
    assert_eq!(
        verdicts(Strict::new(lts.asynchronous()), &formulas),
        expected
    );
    // The liberal object lets r send before p does (r cannot see which
    // branch p takes: a realizability gap, not the bit's doing); it too
    // runs the LTS without the bit.
    let liberal = verdicts(Liberal::new(lts.clone()), &formulas);
    assert_eq!(liberal, [false, false, false, true]);
    assert_eq!(
        verdicts(Liberal::new(lts.asynchronous()), &formulas),
        liberal
    );
}

/// What causality and the `.aut` reader rely on: in every bundled
/// protocol, the send of a handshake leads to a state whose only step is
/// its receive, and only `sync` sets the mark (protocols without it have
/// none).
#[test]
fn a_handshakes_send_is_followed_by_its_receive_alone_in_every_bundled_protocol() {
    let mut marked = 0;
    for info in protocols::bundled::list() {
        let lts = protocols::bundled::by_name(info.name).unwrap();
        for s in lts.states() {
            for &(l, t) in lts.transitions(s) {
                if l.is_sync() {
                    marked += 1;
                    let next = lts.transitions(t);
                    assert!(
                        !next.is_empty() && next.iter().all(|&(r, _)| r == l.receive()),
                        "{}: state {s}",
                        info.name
                    );
                }
            }
        }
    }
    // ring-unbuffered, star-unbuffered and load-balancer have handshakes
    assert!(marked > 0);
}
