//! Which dummy messages a check sends: the caller's, matched one to one
//! against the types the object declares, or the object's own.

use crate::error::{DummiesError, Error};
use crate::protocol::Message;

/// The dummies a check uses: `dummies` itself for an object that declares
/// no types (an error if that leaves no type at all); for one that does,
/// the object's own (one `Message::named(type, ())` per declared type) for
/// an empty list, and otherwise `dummies` if they match the declared types
/// one to one, or an [`Error::Dummies`] that says how not.
///
/// A dummy stands for the declared type that equals its full path or its
/// short name (a `chess::Move` dummy for a declared `Move`). Dummies with
/// one type path are one type (the first is kept); dummies with different
/// paths for one declared name are ambiguous, because the object tells
/// messages apart by short name.
///
/// An object that declares that it has no types at all
/// ([`Protocol::declares_types`](crate::Protocol::declares_types) with an
/// empty list: its only actions are closes) takes no dummies.
pub(crate) fn resolve_dummies(
    declared: &[String],
    declares_none: bool,
    dummies: Vec<Message>,
) -> Result<Vec<Message>, Error> {
    let mut names: Vec<&str> = Vec::new();
    for d in declared {
        if !names.contains(&d.as_str()) {
            names.push(d);
        }
    }
    if declares_none {
        if dummies.is_empty() {
            return Ok(dummies);
        }
        return Err(Error::Dummies(Box::new(DummiesError {
            missing: Vec::new(),
            unknown: dummies.iter().map(|d| d.type_path().to_string()).collect(),
            ambiguous: Vec::new(),
            suggestions: Vec::new(),
            declared: Vec::new(),
            given: dummies.iter().map(|d| d.type_path().to_string()).collect(),
            hint: "the object sends no message (its only actions are closes): pass no \
                   dummies (dummies![] or vec![])"
                .into(),
        })));
    }
    if names.is_empty() && dummies.is_empty() {
        // No type at all: nothing could be sent, and an empty list cannot
        // mean "the object's own" for an object that declares none.
        return Err(Error::Dummies(Box::new(DummiesError {
            missing: Vec::new(),
            unknown: Vec::new(),
            ambiguous: Vec::new(),
            suggestions: Vec::new(),
            declared: Vec::new(),
            given: Vec::new(),
            hint: "the object declares no message types (Protocol::type_names), so an empty \
                   list cannot mean its own: give one dummy per message type (dummies![..]), \
                   or declare the types"
                .into(),
        })));
    }
    if names.is_empty() {
        return Ok(dummies);
    }
    if dummies.is_empty() {
        // The object's own dummies, with interned paths (see
        // `declared_dummies`).
        return Ok(names.iter().map(|t| Message::interned(t)).collect());
    }
    // Per declared name, the distinct dummy paths that stand for it.
    let mut standing: Vec<Vec<&str>> = vec![Vec::new(); names.len()];
    let mut unknown: Vec<String> = Vec::new();
    for d in &dummies {
        let path = d.type_path();
        // The full path first: a declared `a::Move` beside `Move` is meant
        // by an `a::Move` dummy.
        let hit = names
            .iter()
            .position(|&n| n == path)
            .or_else(|| names.iter().position(|&n| n == d.type_name()));
        match hit {
            Some(i) if !standing[i].contains(&path) => standing[i].push(path),
            Some(_) => {}
            None if !unknown.iter().any(|u| u == path) => unknown.push(path.to_string()),
            None => {}
        }
    }
    let missing: Vec<String> = (names.iter().zip(&standing))
        .filter(|(_, s)| s.is_empty())
        .map(|(n, _)| n.to_string())
        .collect();
    let ambiguous: Vec<(String, Vec<String>)> = (names.iter().zip(&standing))
        .filter(|(_, s)| s.len() > 1)
        .map(|(n, s)| (n.to_string(), s.iter().map(|p| p.to_string()).collect()))
        .collect();
    if missing.is_empty() && unknown.is_empty() && ambiguous.is_empty() {
        return Ok(dummies);
    }
    let suggestions: Vec<(String, String)> = unknown
        .iter()
        .filter_map(|u| {
            let short = u.rsplit("::").next().unwrap_or(u);
            // A typo most likely means a type that has no dummy yet.
            let close = crate::names::closest(short, missing.iter().map(String::as_str))
                .or_else(|| crate::names::closest(short, names.iter().copied()))?;
            Some((u.clone(), close.to_string()))
        })
        .collect();
    let mut hint = String::from(
        "pass no dummies (dummies![] or vec![]) to use the object's own, one \
         Message::named(type, ()) per declared type",
    );
    if !missing.is_empty() {
        hint.push_str(&format!("; or add dummies of {}", missing.join(", ")));
    }
    if !unknown.is_empty() {
        hint.push_str("; or rename or remove the dummies the object does not declare");
    }
    if !ambiguous.is_empty() {
        hint.push_str("; or keep one dummy per declared type");
    }
    Err(Error::Dummies(Box::new(DummiesError {
        missing,
        unknown,
        ambiguous,
        suggestions,
        declared: names.iter().map(|n| n.to_string()).collect(),
        given: dummies.iter().map(|d| d.type_path().to_string()).collect(),
        hint,
    })))
}
