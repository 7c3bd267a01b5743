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
//! (a close), and `‽(Type,sender,receiver)`, the send of a handshake
//! ([`Label::is_sync`], as Discourje writes it). Blank lines are ignored. A state without outgoing transitions
//! is a normal end ([`Lts::is_final`]). A state of the header that no
//! transition mentions (and is not the initial state) is unreachable and
//! left out, the others keeping their order: a file that numbers its
//! states without gaps reads with the same numbers. The LTS is returned as written,
//! deterministic or not; the runtimes determinise it
//! ([`Lts::determinise`]).
//!
//! Roles and types are numbered in order of first appearance.
//!
//! A handshake is two steps in prust (the send, then at once its receive:
//! [`Lts::to_aut`] writes `‽(T,p,q)` and then `?(T,p,q)`), but one step in
//! Discourje's LTS, which writes `‽(T,p,q)` with no receive. A file is read
//! the first way when every `‽` leads to a state whose only transition is
//! its receive; otherwise (a file of Discourje's) each `‽` gets its receive
//! added after it, through a new state numbered after the file's, so both
//! read as the same protocol:
//!
//! ```
//! use protocols::Lts;
//! let discourje = Lts::from_aut("des (0, 1, 2)\n(0,\"‽(Ping,a,b)\",1)\n").unwrap();
//! let prust = Lts::from_aut("des (0, 2, 3)\n(0,\"‽(Ping,a,b)\",2)\n(2,\"?(Ping,a,b)\",1)\n").unwrap();
//! assert_eq!(discourje.num_transitions(), 2);
//! assert!(discourje.bisimilar(&prust).is_ok());
//! assert_eq!(prust.to_aut(), "des (0, 2, 3)\n(0,\"‽(Ping,a,b)\",2)\n(2,\"?(Ping,a,b)\",1)\n");
//! ```
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
///
/// Memory follows the file, not its header: the header's counts are only
/// checked against what the file holds, so a 30-byte file announcing
/// 10^18 states or transitions is read (or refused) at once.
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
    let mut transitions: Vec<(u64, Label, u64)> = Vec::new();
    for (n, line) in lines {
        if line.is_empty() {
            continue;
        }
        let (from, label, to) = split_transition(n, line)?;
        let from = parse_state(n, from, nstates)?;
        let to = parse_state(n, to, nstates)?;
        let label = parse_label(n, label, &mut b)?;
        transitions.push((from, label, to));
        // Fail on the line that exceeds the header, not after reading the
        // rest of a huge file.
        if transitions.len() as u64 > ntrans {
            return Err(err(
                n,
                format!(
                    "the header (line {hline}) announces {ntrans} transitions but the file has more"
                ),
            ));
        }
    }
    let count = transitions.len() as u64;
    if count != ntrans {
        return Err(err(
            hline,
            format!("the header announces {ntrans} transitions but the file has {count}"),
        ));
    }
    // The states are those the transitions mention, and the initial one:
    // any other state of the header has no transition in or out, so no run
    // reaches it, and it is not stored (a header may announce far more
    // states than memory holds). The states kept are renumbered in order,
    // which leaves the numbers of a file without such gaps unchanged.
    let mut states: Vec<u64> = Vec::with_capacity(2 * transitions.len() + 1);
    states.push(initial);
    for (from, _, to) in &transitions {
        states.push(*from);
        states.push(*to);
    }
    states.sort_unstable();
    states.dedup();
    // (a handshake may need a state of its own: see add_handshake_receives)
    let handshakes = transitions.iter().filter(|(_, l, _)| l.is_sync()).count();
    if states.len() + handshakes > u32::MAX as usize {
        return Err(err(
            hline,
            format!(
                "{} states are more than this reader can number",
                states.len() + handshakes
            ),
        ));
    }
    let id = |s: u64| states.binary_search(&s).expect("every state is listed") as u32;
    let mut out: Vec<Vec<(Label, u32)>> = vec![Vec::new(); states.len()];
    for (from, label, to) in transitions {
        out[id(from) as usize].push((label, id(to)));
    }
    add_handshake_receives(&mut out);
    let initial = id(initial);
    for edges in out {
        let is_final = edges.is_empty();
        b.add_state(is_final, edges);
    }
    Ok(b.finish(initial))
}

/// Discourje's one-step handshakes: unless every `‽` already leads to a
/// state whose only transitions are its receive (prust's two steps), puts
/// the receive after each `‽`, through a new state. See the
/// [module docs](self).
fn add_handshake_receives(out: &mut Vec<Vec<(Label, u32)>>) {
    let two_steps = out
        .iter()
        .flatten()
        .filter(|(l, _)| l.is_sync())
        .all(|&(l, t)| {
            let next = &out[t as usize];
            !next.is_empty() && next.iter().all(|&(m, _)| m == l.receive())
        });
    if two_steps {
        return;
    }
    for s in 0..out.len() {
        for i in 0..out[s].len() {
            let (l, t) = out[s][i];
            if l.is_sync() {
                let between = out.len() as u32;
                out.push(vec![(l.receive(), t)]);
                out[s][i].1 = between;
            }
        }
    }
}

fn parse_header(n: usize, line: &str) -> Result<(u64, u64, u64), AutError> {
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
    let num = |s: &str| number(s).map_err(|m| err(n, format!("{m}; {hint}")));
    Ok((num(nums[0])?, num(nums[1])?, num(nums[2])?))
}

/// A decimal number, or why it is not one (too large is not "not a number").
fn number(s: &str) -> Result<u64, String> {
    s.parse::<u64>().map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => {
            format!("`{s}` is too large (at most {})", u64::MAX)
        }
        _ => format!("`{s}` is not a number"),
    })
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

fn parse_state(n: usize, s: &str, nstates: u64) -> Result<u64, AutError> {
    let v = number(s).map_err(|m| err(n, format!("{m}: expected a state number")))?;
    if v >= nstates {
        return Err(err(
            n,
            format!("state {v} is not below the state count {nstates} of the header"),
        ));
    }
    Ok(v)
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
    let hint = "labels are `!(Type,sender,receiver)`, `‽(Type,sender,receiver)` (a handshake), \
                `?(Type,sender,receiver)` or `C(sender,receiver)`";
    let (action, sync, args) = if let Some(r) = s.strip_prefix('!') {
        (Action::Send, false, r)
    } else if let Some(r) = s.strip_prefix('‽') {
        (Action::Send, true, r)
    } else if let Some(r) = s.strip_prefix('?') {
        (Action::Recv, false, r)
    } else if let Some(r) = s.strip_prefix('C') {
        (Action::Close, false, r)
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
    Ok(Label::new(action, ty, from, to, sync))
}
