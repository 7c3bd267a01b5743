//! Atomic propositions as action patterns.
//!
//! ```text
//! "ROLE ACTION [TYPE] [TO|FROM PEER]"   ACTION ::= SEND | RECV | CLOSE | *
//! "True"  "False"  "END"  "DEADLOCK"
//! ```
//! Keywords are case-insensitive, names case-sensitive, tokens separated by
//! any whitespace. Every name may contain `*` wildcards. A type is a short
//! name (`<Move>`, `Move`) that matches the last segment of a message's type
//! path, or a path (`chess::Move`) that matches a suffix of it on `::`
//! boundaries. `TO` names the receiver of a send or close, `FROM` the sender
//! of a receive.

use crate::alphabet::Alphabet;
#[cfg(test)]
use crate::alphabet::Letter;
use crate::error::{AtomError, NameKind};
use crate::names::{closest, glob_match};
use crate::protocol::ActionKind;

/// A parsed atomic proposition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Atom {
    True,
    False,
    /// Holds on the stutter steps of a run that terminated normally.
    End,
    /// Holds on the stutter steps of a run that got stuck.
    Deadlock,
    Action(ActionPattern),
}

/// `ROLE ACTION TYPE [TO|FROM PEER]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ActionPattern {
    pub role: String,
    /// `None` for `*`.
    pub kind: Option<ActionKind>,
    /// `"*"` when omitted.
    pub ty: String,
    /// The peer and whether it was introduced by `TO` (true) or `FROM`.
    pub peer: Option<(bool, String)>,
}

fn keyword(token: &str) -> Option<ActionKind> {
    match token.to_ascii_uppercase().as_str() {
        "SEND" => Some(ActionKind::Send),
        "RECV" | "RECEIVE" => Some(ActionKind::Recv),
        "CLOSE" => Some(ActionKind::Close),
        _ => None,
    }
}

/// Parses an atom's text (without the quotes).
pub(crate) fn parse_atom(text: &str) -> Result<Atom, AtomError> {
    let err = |msg: String, hint: &str| AtomError::Syntax {
        atom: text.to_string(),
        message: msg,
        hint: hint.to_string(),
    };
    const SHAPE: &str = "an atom is \"ROLE SEND|RECV|CLOSE TYPE [TO|FROM PEER]\" \
                         (any part may be *), \"True\", \"False\", \"END\" or \"DEADLOCK\"";
    let tokens: Vec<&str> = text.split_whitespace().collect();
    if tokens.len() == 1 {
        match tokens[0].to_ascii_uppercase().as_str() {
            "TRUE" => return Ok(Atom::True),
            "FALSE" => return Ok(Atom::False),
            "END" => return Ok(Atom::End),
            "DEADLOCK" => return Ok(Atom::Deadlock),
            _ => {}
        }
    }
    if tokens.len() < 2 {
        let msg = if tokens.is_empty() {
            "empty atom".to_string()
        } else {
            format!("`{}` is not an atom", tokens[0])
        };
        return Err(err(msg, SHAPE));
    }
    let role = tokens[0].to_string();
    let kind = if tokens[1] == "*" {
        None
    } else {
        match keyword(tokens[1]) {
            Some(k) => Some(k),
            None => {
                return Err(err(
                    format!(
                        "expected SEND, RECV, CLOSE or * after the role, found `{}`",
                        tokens[1]
                    ),
                    SHAPE,
                ))
            }
        }
    };
    let mut rest = &tokens[2..];
    let is_dir = |t: &str| t.eq_ignore_ascii_case("TO") || t.eq_ignore_ascii_case("FROM");
    let mut ty = "*".to_string();
    if let Some(&t) = rest.first() {
        if !is_dir(t) {
            ty = normalise_type(t).ok_or_else(|| {
                err(
                    format!("`{t}` is not a type name"),
                    "write a type as <Short> or a::b::Path",
                )
            })?;
            rest = &rest[1..];
        }
    }
    if kind == Some(ActionKind::Close) && ty != "*" {
        return Err(err(
            format!("CLOSE carries no message, but the atom names the type `{ty}`"),
            "write \"ROLE CLOSE TO PEER\"",
        ));
    }
    let mut peer = None;
    match rest {
        [] => {}
        [dir, name] if is_dir(dir) => {
            let to = dir.eq_ignore_ascii_case("TO");
            match (kind, to) {
                (Some(ActionKind::Recv), true) => {
                    return Err(err(
                        "a receive names its sender with FROM, not TO".into(),
                        "write \"ROLE RECV TYPE FROM PEER\"",
                    ))
                }
                (Some(ActionKind::Send | ActionKind::Close), false) => {
                    return Err(err(
                        format!("a {} names its receiver with TO, not FROM", kind.unwrap()),
                        "write \"ROLE SEND TYPE TO PEER\"",
                    ))
                }
                _ => {}
            }
            peer = Some((to, name.to_string()));
        }
        [dir] if is_dir(dir) => {
            return Err(err(
                format!("`{dir}` must be followed by a role name"),
                SHAPE,
            ));
        }
        _ => {
            return Err(err(
                format!("unexpected `{}`", rest.join(" ")),
                "after the type only TO PEER or FROM PEER may follow",
            ))
        }
    }
    Ok(Atom::Action(ActionPattern {
        role,
        kind,
        ty,
        peer,
    }))
}

/// `<Move>` → `Move`, `a::b::C` → itself, `<*>` → `*`; `None` if malformed.
fn normalise_type(t: &str) -> Option<String> {
    let inner = match (t.strip_prefix('<'), t.ends_with('>')) {
        (Some(rest), true) => &rest[..rest.len() - 1],
        (None, false) => t,
        _ => return None,
    };
    let ok = !inner.is_empty()
        && inner.split("::").all(|seg| {
            !seg.is_empty()
                && seg
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '*')
        });
    ok.then(|| inner.to_string())
}

/// Whether a type pattern matches a type path: a pattern without `::`
/// matches the last segment; a path pattern matches a `::`-suffix.
pub(crate) fn type_matches(pattern: &str, path: &str) -> bool {
    let p_segs: Vec<&str> = pattern.split("::").collect();
    let t_segs: Vec<&str> = path.split("::").collect();
    if p_segs.len() > t_segs.len() {
        return false;
    }
    let tail = &t_segs[t_segs.len() - p_segs.len()..];
    p_segs.iter().zip(tail).all(|(p, t)| glob_match(p, t))
}

impl ActionPattern {
    /// Checks that every name in the pattern exists: a role for the role
    /// and peer, a type that some dummy or the protocol's declaration has,
    /// and that a named type can actually be sent (has a dummy).
    pub fn check_names(&self, atom: &str, alphabet: &Alphabet) -> Result<(), AtomError> {
        let roles = || alphabet.roles.iter().map(String::as_str);
        let unknown = |kind: NameKind, name: &str, known: Vec<String>| {
            let suggestion = closest(name, known.iter().map(String::as_str)).map(str::to_string);
            AtomError::UnknownName {
                atom: atom.to_string(),
                kind,
                name: name.to_string(),
                known,
                suggestion,
            }
        };
        if !roles().any(|r| glob_match(&self.role, r)) {
            return Err(unknown(NameKind::Role, &self.role, alphabet.roles.clone()));
        }
        if let Some((_, peer)) = &self.peer {
            if !roles().any(|r| glob_match(peer, r)) {
                return Err(unknown(NameKind::Peer, peer, alphabet.roles.clone()));
            }
        }
        if self.ty != "*" {
            let matching: Vec<_> = alphabet
                .types
                .iter()
                .filter(|t| type_matches(&self.ty, &t.path))
                .collect();
            if matching.is_empty() {
                let known = alphabet
                    .types
                    .iter()
                    .map(|t| format!("<{}>", t.short()))
                    .collect();
                return Err(unknown(NameKind::Type, &format!("<{}>", self.ty), known));
            }
            if matching.iter().all(|t| t.dummy.is_none()) {
                return Err(AtomError::MissingDummy {
                    atom: atom.to_string(),
                    type_name: matching[0].short().to_string(),
                });
            }
        }
        Ok(())
    }

    /// Whether the concrete action matches the pattern (the reference for
    /// [`Valuation`]).
    #[cfg(test)]
    pub fn matches(&self, l: &Letter, alphabet: &Alphabet) -> bool {
        if let Some(k) = self.kind {
            if k != l.kind {
                return false;
            }
        }
        if !glob_match(&self.role, &alphabet.roles[l.role]) {
            return false;
        }
        if self.ty != "*"
            && (l.kind == ActionKind::Close || !type_matches(&self.ty, &alphabet.types[l.ty].path))
        {
            return false;
        }
        match &self.peer {
            None => true,
            Some((to, peer)) => {
                (*to == (l.kind != ActionKind::Recv)) && glob_match(peer, &alphabet.roles[l.peer])
            }
        }
    }
}

/// The atoms (bit `i` = `atoms[i]`) that hold on letter `l`, by matching
/// every pattern against the letter: the reference that [`Valuation`]'s
/// tables are tested against.
#[cfg(test)]
pub(crate) fn valuation(a: &Alphabet, atoms: &[Atom], l: usize) -> u64 {
    let mut v = 0u64;
    for (i, atom) in atoms.iter().enumerate() {
        let holds = match atom {
            Atom::True => true,
            Atom::False => false,
            Atom::End => l == a.end() as usize,
            Atom::Deadlock => l == a.deadlock() as usize,
            Atom::Action(pat) => l < a.num_actions() && pat.matches(&a.letter(l as u32), a),
        };
        if holds {
            v |= 1 << i;
        }
    }
    v
}

/// The atoms' valuation of every letter, from tables per role, per type
/// and per kind instead of matching every pattern against every letter.
///
/// A letter is a class of actions described by four features (role, kind,
/// type, peer), and an action atom holds on it iff each feature matches its
/// part of the pattern. So each pattern is matched once per role and once
/// per type (`glob_match` on names, the expensive part), and the valuation
/// of a letter is four table lookups ANDed: setup grows with roles + types
/// + letters, not with letters × the cost of matching names.
pub(crate) struct Valuation {
    /// Atoms that hold on every letter (`True`).
    always: u64,
    end: u64,
    deadlock: u64,
    /// Per role: the action atoms whose role part matches it.
    role: Vec<u64>,
    /// Per role: the action atoms with no peer part, or a `TO` part that
    /// matches it (sends and closes) ...
    to: Vec<u64>,
    /// ... or a `FROM` part that matches it (receives).
    from: Vec<u64>,
    /// Per kind (send, receive, close): the action atoms whose action part
    /// matches it.
    kind: [u64; 3],
    /// Per type: the action atoms whose type part matches it; closes carry
    /// no type, so only `*` matches them (`close_ty`).
    ty: Vec<u64>,
    close_ty: u64,
}

fn kind_index(k: ActionKind) -> usize {
    match k {
        ActionKind::Send => 0,
        ActionKind::Recv => 1,
        ActionKind::Close => 2,
    }
}

impl Valuation {
    /// The tables of `atoms` (at most 64) over `a`.
    pub(crate) fn new(a: &Alphabet, atoms: &[Atom]) -> Valuation {
        let n = a.roles.len();
        let mut v = Valuation {
            always: 0,
            end: 0,
            deadlock: 0,
            role: vec![0; n],
            to: vec![0; n],
            from: vec![0; n],
            kind: [0; 3],
            ty: vec![0; a.types.len()],
            close_ty: 0,
        };
        for (i, atom) in atoms.iter().enumerate() {
            let bit = 1u64 << i;
            let pat = match atom {
                Atom::True => {
                    v.always |= bit;
                    continue;
                }
                Atom::False => continue,
                Atom::End => {
                    v.end |= bit;
                    continue;
                }
                Atom::Deadlock => {
                    v.deadlock |= bit;
                    continue;
                }
                Atom::Action(pat) => pat,
            };
            for (r, name) in a.roles.iter().enumerate() {
                if glob_match(&pat.role, name) {
                    v.role[r] |= bit;
                }
                match &pat.peer {
                    None => {
                        v.to[r] |= bit;
                        v.from[r] |= bit;
                    }
                    Some((true, peer)) if glob_match(peer, name) => v.to[r] |= bit,
                    Some((false, peer)) if glob_match(peer, name) => v.from[r] |= bit,
                    Some(_) => {}
                }
            }
            for k in [ActionKind::Send, ActionKind::Recv, ActionKind::Close] {
                if pat.kind.is_none_or(|p| p == k) {
                    v.kind[kind_index(k)] |= bit;
                }
            }
            for (t, ty) in a.types.iter().enumerate() {
                if pat.ty == "*" || type_matches(&pat.ty, &ty.path) {
                    v.ty[t] |= bit;
                }
            }
            if pat.ty == "*" {
                v.close_ty |= bit;
            }
        }
        v
    }

    /// The atoms (bit `i` = atom `i`) that hold on letter `l` of `a` (the
    /// alphabet the tables were made for): what [`valuation`] computes.
    #[inline]
    pub(crate) fn of(&self, a: &Alphabet, l: usize) -> u64 {
        if l == a.end() as usize {
            return self.always | self.end;
        }
        if l == a.deadlock() as usize {
            return self.always | self.deadlock;
        }
        let letter = a.letter(l as u32);
        let (ty, peer) = match letter.kind {
            ActionKind::Send => (self.ty[letter.ty], self.to[letter.peer]),
            ActionKind::Recv => (self.ty[letter.ty], self.from[letter.peer]),
            ActionKind::Close => (self.close_ty, self.to[letter.peer]),
        };
        self.always | (self.role[letter.role] & self.kind[kind_index(letter.kind)] & ty & peer)
    }
}

/// Parses and name-checks every atom text.
pub(crate) fn resolve_atoms(texts: &[String], alphabet: &Alphabet) -> Result<Vec<Atom>, AtomError> {
    texts
        .iter()
        .map(|t| {
            let atom = parse_atom(t)?;
            if let Atom::Action(p) = &atom {
                p.check_names(t, alphabet)?;
            }
            Ok(atom)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn action(role: &str, kind: Option<ActionKind>, ty: &str, peer: Option<(bool, &str)>) -> Atom {
        Atom::Action(ActionPattern {
            role: role.into(),
            kind,
            ty: ty.into(),
            peer: peer.map(|(t, p)| (t, p.into())),
        })
    }

    #[test]
    fn parses_the_forms() {
        use ActionKind::*;
        assert_eq!(parse_atom("True"), Ok(Atom::True));
        assert_eq!(parse_atom("  false "), Ok(Atom::False));
        assert_eq!(parse_atom("END"), Ok(Atom::End));
        assert_eq!(parse_atom("deadlock"), Ok(Atom::Deadlock));
        assert_eq!(
            parse_atom("black SEND <Move> TO white"),
            Ok(action("black", Some(Send), "Move", Some((true, "white"))))
        );
        assert_eq!(
            parse_atom("worker_1_ recv *"),
            Ok(action("worker_1_", Some(Recv), "*", None))
        );
        assert_eq!(
            parse_atom("* * * TO *"),
            Ok(action("*", None, "*", Some((true, "*"))))
        );
        assert_eq!(
            parse_atom("a\tReceive\n chess::Move  from b"),
            Ok(action("a", Some(Recv), "chess::Move", Some((false, "b"))))
        );
        assert_eq!(
            parse_atom("a CLOSE TO b"),
            Ok(action("a", Some(Close), "*", Some((true, "b"))))
        );
        assert_eq!(parse_atom("a SEND"), Ok(action("a", Some(Send), "*", None)));
    }

    #[test]
    fn rejects_malformed_atoms() {
        for bad in [
            "",
            "a",
            "a SNED <M>",
            "a SEND <M",
            "a SEND <M> TO",
            "a RECV <M> TO b",
            "a SEND <M> FROM b",
            "a CLOSE <M> TO b",
            "a SEND <M> TO b c",
            "a SEND <> TO b",
        ] {
            assert!(parse_atom(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    /// The tables give every letter the valuation that matching each
    /// pattern against it gives.
    #[test]
    fn the_valuation_tables_agree_with_matching_each_letter() {
        let mut a = Alphabet::new(
            vec!["white".into(), "black".into(), "judge".into(), "w2".into()],
            vec![
                crate::Message::named("chess::Move", ()),
                crate::Message::named("Boolean", ()),
            ],
            vec![],
        );
        a.set_topology(|r| (r != 3).then(|| vec![(r + 1) % 3]), |_| None)
            .unwrap();
        let texts = [
            "True",
            "False",
            "END",
            "DEADLOCK",
            "white SEND *",
            "* RECV <Move> FROM black",
            "w* * * TO judge",
            "* CLOSE",
            "* * chess::Move",
            "black * * FROM *",
            "* SEND <Bool*> TO w*",
            "* * *",
        ];
        let atoms: Vec<Atom> = texts.iter().map(|t| parse_atom(t).unwrap()).collect();
        let table = Valuation::new(&a, &atoms);
        let mut seen = 0u64;
        for l in 0..a.len() {
            let v = valuation(&a, &atoms, l);
            assert_eq!(table.of(&a, l), v, "letter {l}: {}", a.describe(l as u32));
            seen |= v;
        }
        assert_eq!(
            seen,
            (1 << texts.len()) - 1 - 2,
            "every atom but False holds on some letter: {seen:b}"
        );
    }

    #[test]
    fn type_matching() {
        assert!(type_matches("Move", "chess::Move"));
        assert!(type_matches("chess::Move", "game::chess::Move"));
        assert!(!type_matches("chess::Move", "checkers::Move"));
        assert!(!type_matches("Mov", "chess::Move"));
        assert!(type_matches("M*", "chess::Move"));
    }
}
