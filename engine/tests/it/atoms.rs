//! Atomic propositions: the pattern syntax, and name checking so that a
//! typo can never make a property hold vacuously.

use crate::common;

use common::small::{Chess, Move};
use engine::{check, dummies, try_check, AtomError, Error, Message, NameKind};

fn atom_error(formula: &str) -> (AtomError, String) {
    match try_check(formula, Chess::new(), dummies![Move]) {
        Err(e @ Error::Atom { .. }) => {
            let text = e.to_string();
            let Error::Atom { error, .. } = e else {
                unreachable!()
            };
            (*error, text)
        }
        other => panic!("expected an atom error for {formula}, got {other:?}"),
    }
}

#[test]
fn a_misspelt_role_is_an_error_with_a_suggestion() {
    let (e, text) = atom_error(r#"G ("white SEND <Move>" -> F "blak RECV <Move>")"#);
    match e {
        AtomError::UnknownName {
            kind,
            name,
            known,
            suggestion,
            ..
        } => {
            assert_eq!(kind, NameKind::Role);
            assert_eq!(name, "blak");
            assert_eq!(known, vec!["white", "black"]);
            assert_eq!(suggestion.as_deref(), Some("black"));
        }
        other => panic!("{other:?}"),
    }
    assert!(text.contains("did you mean `black`?"), "{text}");
    assert!(
        text.contains("the roles that exist are: white, black"),
        "{text}"
    );
    // The caret points at the atom in the formula.
    assert!(text.contains("column 29"), "{text}");
    assert!(text.contains("^~~~"), "{text}");
}

#[test]
fn a_misspelt_type_or_peer_is_an_error() {
    let (e, text) = atom_error(r#"F "white SEND <Mvoe>""#);
    assert!(
        matches!(
            e,
            AtomError::UnknownName {
                kind: NameKind::Type,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(text.contains("did you mean `<Move>`?"), "{text}");
    let (e, _) = atom_error(r#"F "white SEND <Move> TO blakc""#);
    assert!(
        matches!(e, AtomError::UnknownName { kind: NameKind::Peer, ref suggestion, .. } if suggestion.as_deref() == Some("black"))
    );
    let (e, _) = atom_error(r#"F "w* SEND * TO z*""#);
    assert!(
        matches!(
            e,
            AtomError::UnknownName {
                kind: NameKind::Peer,
                ..
            }
        ),
        "a glob must match some name: {e:?}"
    );
}

#[test]
fn malformed_atoms_and_formulas_are_errors() {
    let (e, text) = atom_error(r#"F "white SNED <Move>""#);
    assert!(matches!(e, AtomError::Syntax { .. }), "{e:?}");
    assert!(text.contains("expected SEND, RECV, CLOSE or *"), "{text}");
    let (e, _) = atom_error(r#"F "black RECV <Move> TO white""#);
    assert!(matches!(e, AtomError::Syntax { .. }), "{e:?}");
    match try_check("G (\"white SEND *\" U", Chess::new(), dummies![Move]) {
        Err(Error::Parse {
            line,
            column,
            message,
            ..
        }) => {
            assert_eq!((line, column), (1, 20), "just after the last character");
            assert!(message.contains('^'), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn keywords_are_case_insensitive_and_whitespace_is_free() {
    let f = "G (\"white  send\t<Move>   to black\" -> F \"black Recv * FROM white\")";
    check(f, Chess::new(), dummies![Move]);
}

#[test]
fn wildcards_globs_and_paths() {
    check(
        r#"G ("* SEND *" -> X "* RECV *")"#,
        Chess::new(),
        dummies![Move],
    );
    check(r#"G F "wh* * <M*>""#, Chess::new(), dummies![Move]);
    // A type path matches a `::`-suffix of the message's full type path.
    check(
        r#"G F "black SEND common::small::Move""#,
        Chess::new(),
        dummies![Move],
    );
    check(
        r#"G F "black SEND small::Move TO white""#,
        Chess::new(),
        dummies![Move],
    );
    let r = try_check(
        r#"F "black SEND other::Move""#,
        Chess::new(),
        dummies![Move],
    );
    assert!(matches!(r, Err(Error::Atom { .. })), "{r:?}");
}

#[test]
fn explicitly_named_dummies_and_constants() {
    let d = vec![Message::named("Move", 0u8)];
    check(
        r#"G ("True" & !"False") & "white SEND <Move>""#,
        Chess::new(),
        d,
    );
}

#[test]
fn white_moves_first() {
    check(
        r#"!"black SEND <Move>" U "white SEND <Move>""#,
        Chess::new(),
        dummies![Move],
    );
}
