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

use crate::alphabet::{ActionKind, Alphabet, Letter};
use crate::error::{AtomError, NameKind};
use crate::names::{closest, glob_match};

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
fn type_matches(pattern: &str, path: &str) -> bool {
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

    /// Whether the concrete action matches the pattern.
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

/// The atoms (bit `i` = `atoms[i]`) that hold on letter `l`.
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

    #[test]
    fn type_matching() {
        assert!(type_matches("Move", "chess::Move"));
        assert!(type_matches("chess::Move", "game::chess::Move"));
        assert!(!type_matches("chess::Move", "checkers::Move"));
        assert!(!type_matches("Mov", "chess::Move"));
        assert!(type_matches("M*", "chess::Move"));
    }
}
