//! Dummies and declared message types: an object that declares its types
//! gets its dummies checked (a missing, unknown or ambiguous dummy is an
//! error, never a verdict) and an empty list means its own; an object that
//! declares nothing is checked with the dummies as given, as before. (The
//! two-phase-commit case, on objects built from a specification, is in
//! `protocols/tests/dummies.rs`.)

use crate::common;

use common::small::{Chess, Move};
use engine::{
    check, check_violated, declared_dummies, dummies, try_check, Checker, DummiesError, Error,
    Message, Protocol, Refused, RoleId,
};

/// A game in which the player to move sends a `Move` or resigns with a
/// `Resign`, which ends the game. Roles: white (0), black (1).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Game {
    turn: RoleId,
    /// The type in transit to `1 - turn`.
    in_transit: Option<&'static str>,
    over: bool,
    /// Whether the object declares its types.
    declares: bool,
}

impl Game {
    fn new(declares: bool) -> Game {
        Game {
            turn: 0,
            in_transit: None,
            over: false,
            declares,
        }
    }
}

impl Protocol for Game {
    fn roles(&self) -> Vec<String> {
        vec!["white".into(), "black".into()]
    }
    fn type_names(&self) -> Vec<String> {
        if self.declares {
            vec!["Move".into(), "Resign".into()]
        } else {
            vec![]
        }
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        let ty = match msg.type_name() {
            "Move" => "Move",
            "Resign" => "Resign",
            _ => return Err(Refused(msg)),
        };
        if self.over || role != self.turn || to != 1 - role || self.in_transit.is_some() {
            return Err(Refused(msg));
        }
        self.in_transit = Some(ty);
        Ok(())
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        let sender = self.turn;
        match self.in_transit {
            Some(ty) if role != sender && from.is_none_or(|f| f == sender) => {
                self.in_transit = None;
                self.turn = role;
                self.over = ty == "Resign";
                Ok((sender, Message::named(ty, ())))
            }
            _ => Err(Refused(())),
        }
    }
    fn is_terminated(&self) -> bool {
        self.over
    }
}

/// False: a player may resign.
const NOBODY_RESIGNS: &str = r#"G !"* SEND <Resign>""#;

#[test]
fn a_declaring_object_with_a_missing_dummy_is_an_error() {
    let e = try_check(NOBODY_RESIGNS, Game::new(true), dummies![Move]).unwrap_err();
    let Error::Dummies(d) = &e else {
        panic!("expected a dummies error, got {e:?}")
    };
    let DummiesError {
        missing,
        unknown,
        ambiguous,
        declared,
        given,
        hint,
        ..
    } = &**d;
    assert_eq!(missing, &["Resign"]);
    assert!(unknown.is_empty() && ambiguous.is_empty());
    assert_eq!(declared, &["Move", "Resign"]);
    assert_eq!(given, &["it::common::small::Move"]);
    assert!(hint.contains("add dummies of Resign"), "{hint}");
    // Also from a session, before any formula.
    assert!(matches!(
        Checker::new().session(Game::new(true), dummies![Move]),
        Err(Error::Dummies(_))
    ));
}

#[test]
#[should_panic(expected = "no dummy for: Resign")]
fn check_panics_with_the_dummies_error() {
    check(r#"G "True""#, Game::new(true), dummies![Move]);
}

#[test]
fn an_undeclared_dummy_is_an_error_with_a_suggestion() {
    let d = vec![
        Message::named("Move", ()),
        Message::named("Resing", ()),
        Message::named("Draw", ()),
    ];
    let e = try_check(NOBODY_RESIGNS, Game::new(true), d).unwrap_err();
    let Error::Dummies(d) = &e else {
        panic!("expected a dummies error, got {e:?}")
    };
    let DummiesError {
        missing,
        unknown,
        suggestions,
        ..
    } = &**d;
    assert_eq!(missing, &["Resign"]);
    assert_eq!(unknown, &["Resing", "Draw"]);
    assert_eq!(suggestions, &[("Resing".to_string(), "Resign".to_string())]);
    let text = e.to_string();
    assert!(
        text.contains("not declared: Resing; did you mean `Resign`?"),
        "{text}"
    );
    assert!(text.contains("not declared: Draw\n"), "{text}");
}

#[test]
fn one_short_name_from_two_paths_is_ambiguous() {
    let d = vec![
        Message::named("white::Move", ()),
        Message::named("black::Move", ()),
        Message::named("Resign", ()),
    ];
    let e = try_check(NOBODY_RESIGNS, Game::new(true), d).unwrap_err();
    let Error::Dummies(d) = &e else {
        panic!("expected a dummies error, got {e:?}")
    };
    let DummiesError {
        missing,
        unknown,
        ambiguous,
        ..
    } = &**d;
    assert!(missing.is_empty() && unknown.is_empty());
    assert_eq!(
        ambiguous,
        &[(
            "Move".to_string(),
            vec!["white::Move".to_string(), "black::Move".to_string()]
        )]
    );
    assert!(
        e.to_string().contains(
            "dummies of white::Move and black::Move all stand for the declared type Move"
        ),
        "{e}"
    );
}

#[test]
fn a_path_dummy_stands_for_its_short_name_and_repeats_are_one_type() {
    // `chess::Move` for the declared `Move`, given twice: one type.
    let d = vec![
        Message::named("chess::Move", ()),
        Message::named("chess::Move", 1u8),
        Message::named("Resign", ()),
    ];
    let run = check_violated(NOBODY_RESIGNS, Game::new(true), d);
    assert!(run.to_string().contains("SEND <Resign>"), "{run}");
    // The object builds its own `Move` on receive: the declared type of
    // the `chess::Move` dummy, not an unknown one.
    check(
        r#"G ("white SEND <Move>" -> F "black RECV <Move>")"#,
        Game::new(true),
        vec![
            Message::named("chess::Move", ()),
            Message::named("Resign", ()),
        ],
    );
}

#[test]
fn empty_dummies_are_a_declaring_objects_own() {
    assert_eq!(
        declared_dummies(&Game::new(true)),
        vec![Message::named("Move", ()), Message::named("Resign", ())]
    );
    assert!(declared_dummies(&Game::new(false)).is_empty());
    let run = check_violated(NOBODY_RESIGNS, Game::new(true), dummies![]);
    assert!(
        run.to_string().contains("white SEND <Resign> TO black"),
        "{run}"
    );
    run.replay(Game::new(true));
    // The small chess object declares only `Move`: the old dummies fit.
    check(r#"G F "black RECV <Move>""#, Chess::new(), dummies![Move]);
    check(r#"G F "black RECV <Move>""#, Chess::new(), dummies![]);
}

#[test]
fn an_object_that_declares_nothing_is_checked_with_the_dummies_given() {
    // Today's behaviour, documented: without a `Resign` dummy nobody ever
    // resigns, so a property that fails only when someone does "holds" on
    // the runs explored.
    let moves = || vec![Message::named("Move", ())];
    let r = check(r#"G F "black RECV *""#, Game::new(false), moves());
    assert!(r.holds(), "only moves, forever: {r}");
    // With every type it is violated (white resigns, the game ends), as on
    // the declaring object, where the partial set is an error.
    let all = || vec![Message::named("Move", ()), Message::named("Resign", ())];
    check_violated(r#"G F "black RECV *""#, Game::new(false), all());
    check_violated(r#"G F "black RECV *""#, Game::new(true), all());
    assert!(matches!(
        try_check(r#"G F "black RECV *""#, Game::new(true), moves()),
        Err(Error::Dummies(_))
    ));
    // No dummies at all cannot mean the object's own: an error (it was a
    // debug assertion in the probing before).
    match try_check(r#"G "True""#, Game::new(false), dummies![]) {
        Err(e @ Error::Dummies(_)) => {
            assert!(e.to_string().contains("declares no message types"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    // A name the dummies do not have is still an atom error.
    assert!(matches!(
        try_check(NOBODY_RESIGNS, Game::new(false), moves()),
        Err(Error::Atom { .. })
    ));
}
