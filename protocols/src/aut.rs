//! Reading Aldebaran `.aut` files (the LTS format of CADP, mCRL2 and
//! Discourje).
//!
//! ```text
//! des (0, 2, 3)
//! (0,"!(Move,white,black)",1)
//! (1,"?(Move,white,black)",2)
//! ```
//! The header gives the initial state, the number of transitions and the
//! number of states (states are `0..n`). Each further line is one transition
//! `(from, label, to)`; labels may be quoted. Labels are `!(Type,sender,receiver)`
//! (a send), `?(Type,sender,receiver)` (its receive) and `C(sender,receiver)`
//! (a close). Blank lines are ignored. A state without outgoing transitions
//! is a normal end ([`Lts::is_final`]). The LTS is returned as written,
//! deterministic or not; the runtimes determinise it
//! ([`Lts::determinise`]).
//!
//! Roles and types are numbered in order of first appearance.
//!
//! ```
//! let err = protocols::Lts::from_aut("des (0, 1, 2)\n(0,\"hello\",1)\n").unwrap_err();
//! assert_eq!(err.line, 2);
//! assert!(err.to_string().contains("line 2"));
//! ```

use std::fmt;

use crate::lts::{Action, Label, Lts, LtsBuilder, NO_TYPE};

/// A bad `.aut` file: what is wrong and on which line (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong, with a hint.
    pub message: String,
}

impl fmt::Display for AutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".aut line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for AutError {}

fn err(line: usize, message: impl Into<String>) -> AutError {
    AutError {
        line,
        message: message.into(),
    }
}

/// Parses `.aut` text; see the [module docs](self).
pub fn parse(text: &str) -> Result<Lts, AutError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
    let (hline, header) = lines.by_ref().find(|(_, l)| !l.is_empty()).ok_or_else(|| {
        err(
            1,
            "empty file; expected a header `des (initial, transitions, states)`",
        )
    })?;
    let (initial, ntrans, nstates) = parse_header(hline, header)?;
    if nstates == 0 {
        return Err(err(hline, "an LTS needs at least one state"));
    }
    if initial >= nstates {
        return Err(err(
            hline,
            format!("initial state {initial} is not below the state count {nstates}"),
        ));
    }
    let mut b = LtsBuilder::new(Vec::new(), Vec::new());
    let mut out: Vec<Vec<(Label, u32)>> = vec![Vec::new(); nstates];
    let mut count = 0usize;
    for (n, line) in lines {
        if line.is_empty() {
            continue;
        }
        let (from, label, to) = split_transition(n, line)?;
        let from = parse_state(n, from, nstates)?;
        let to = parse_state(n, to, nstates)?;
        let label = parse_label(n, label, &mut b)?;
        out[from as usize].push((label, to));
        count += 1;
    }
    if count != ntrans {
        return Err(err(
            hline,
            format!("the header announces {ntrans} transitions but the file has {count}"),
        ));
    }
    for edges in out {
        let is_final = edges.is_empty();
        b.add_state(is_final, edges);
    }
    Ok(b.finish(initial as u32))
}

fn parse_header(n: usize, line: &str) -> Result<(usize, usize, usize), AutError> {
    let hint = "expected a header `des (initial, transitions, states)`";
    let rest = line.strip_prefix("des").ok_or_else(|| err(n, hint))?.trim();
    let inner = rest
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| err(n, hint))?;
    let nums: Vec<&str> = inner.split(',').map(str::trim).collect();
    if nums.len() != 3 {
        return Err(err(n, hint));
    }
    let num = |s: &str| {
        s.parse::<usize>()
            .map_err(|_| err(n, format!("`{s}` is not a number; {hint}")))
    };
    Ok((num(nums[0])?, num(nums[1])?, num(nums[2])?))
}

fn split_transition(n: usize, line: &str) -> Result<(&str, &str, &str), AutError> {
    let hint = "expected a transition `(from,\"label\",to)`";
    let inner = line
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| err(n, format!("`{line}`: {hint}")))?;
    let first = inner.find(',').ok_or_else(|| err(n, hint))?;
    let last = inner.rfind(',').ok_or_else(|| err(n, hint))?;
    if first == last {
        return Err(err(n, format!("`{line}`: {hint}")));
    }
    Ok((
        inner[..first].trim(),
        inner[first + 1..last].trim(),
        inner[last + 1..].trim(),
    ))
}

fn parse_state(n: usize, s: &str, nstates: usize) -> Result<u32, AutError> {
    let v: usize = s
        .parse()
        .map_err(|_| err(n, format!("`{s}` is not a state number")))?;
    if v >= nstates {
        return Err(err(
            n,
            format!("state {v} is not below the state count {nstates} of the header"),
        ));
    }
    Ok(v as u32)
}

fn parse_label(n: usize, raw: &str, b: &mut LtsBuilder) -> Result<Label, AutError> {
    let s = raw
        .strip_prefix('"')
        .map(|r| {
            r.strip_suffix('"')
                .ok_or_else(|| err(n, format!("unterminated quote in label {raw}")))
        })
        .transpose()?
        .unwrap_or(raw)
        .trim();
    let hint =
        "labels are `!(Type,sender,receiver)`, `?(Type,sender,receiver)` or `C(sender,receiver)`";
    let (action, args) = if let Some(r) = s.strip_prefix('!') {
        (Action::Send, r)
    } else if let Some(r) = s.strip_prefix('?') {
        (Action::Recv, r)
    } else if let Some(r) = s.strip_prefix('C') {
        (Action::Close, r)
    } else {
        return Err(err(n, format!("unknown label `{s}`; {hint}")));
    };
    let args = args
        .trim()
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| err(n, format!("malformed label `{s}`; {hint}")))?;
    let parts: Vec<&str> = args.split(',').map(str::trim).collect();
    let want = if action == Action::Close { 2 } else { 3 };
    if parts.len() != want || parts.iter().any(|p| p.is_empty()) {
        return Err(err(
            n,
            format!("label `{s}` needs {want} non-empty arguments; {hint}"),
        ));
    }
    let (ty, from, to) = match action {
        Action::Close => (NO_TYPE, b.role(parts[0]), b.role(parts[1])),
        _ => {
            let ty = b.ty(parts[0]);
            (ty, b.role(parts[1]), b.role(parts[2]))
        }
    };
    if from == to {
        return Err(err(n, format!("label `{s}`: a role cannot talk to itself")));
    }
    Ok(Label {
        action,
        ty,
        from,
        to,
    })
}
