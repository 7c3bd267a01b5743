//! Reading and writing Aldebaran `.aut` files: the format is described
//! at [`Lts::from_aut`].

use crate::ids::StateId;
use crate::lts::{Action, Label, Lts, LtsBuilder, NO_TYPE};

mod error;

#[doc(hidden)]
pub use error::caret_lines;
pub use error::AutError;

/// The hint of every header error.
const HEADER_HINT: &str =
    "an .aut file starts with the header `des (initial, transitions, states)`, \
     such as `des (0, 2, 3)`";
/// The hint of every transition syntax error.
const TRANSITION_HINT: &str =
    "each line after the header is one transition `(from,\"label\",to)`, such as \
     `(0,\"!(Move,white,black)\",1)`";
/// The hint of every label error.
const LABEL_HINT: &str = "labels are `!(Type,sender,receiver)`, `‽(Type,sender,receiver)` (a \
     handshake), `?(Type,sender,receiver)` or `C(sender,receiver)`";

/// The hint of every error about a name in a label.
const NAME_HINT: &str = "a type is letters, digits and `_` (such as `Move`); a role is one word without white space, quotes, `*`, `(`, `)` or `,` \
     (such as `white` or `worker_1_`): names a formula's atoms can name";

/// One line of the file, to locate errors in: the parts parsed are slices
/// of `text`, so where a part starts is where it lies in `text`.
#[derive(Clone, Copy)]
struct Line<'a> {
    /// 1-based line number.
    n: usize,
    /// The line as in the file (without its line break).
    text: &'a str,
}

impl<'a> Line<'a> {
    /// An error at the start of `part`, a slice of this line.
    fn err(&self, part: &str, message: impl Into<String>, hint: impl Into<String>) -> AutError {
        let offset = (part.as_ptr() as usize)
            .checked_sub(self.text.as_ptr() as usize)
            .filter(|&o| o <= self.text.len())
            .unwrap_or(0);
        self.err_at(offset, message, hint)
    }

    /// An error just after the end of `part`, a slice of this line (where
    /// something is missing).
    fn err_after(
        &self,
        part: &str,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> AutError {
        self.err(&part[part.len()..], message, hint)
    }

    /// An error at byte `offset` of this line.
    fn err_at(
        &self,
        offset: usize,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> AutError {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        AutError {
            line: self.n,
            column: self.text[..offset].chars().count() + 1,
            message: message.into(),
            hint: hint.into(),
            source_line: self.text.to_string(),
        }
    }
}

/// Parses `.aut` text; see the [module docs](self).
///
/// Memory follows the file, not its header: the header's counts are only
/// checked against what the file holds, so a 30-byte file announcing
/// 10^18 states or transitions is read (or refused) at once.
pub(crate) fn parse(text: &str) -> Result<Lts, AutError> {
    // `lines` also takes the `\r` of a CRLF line break off.
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| Line { n: i + 1, text: l });
    let header = lines
        .by_ref()
        .find(|l| !l.text.trim().is_empty())
        .ok_or_else(|| AutError {
            line: 1,
            column: 1,
            message: "empty file: no header".into(),
            hint: HEADER_HINT.into(),
            source_line: String::new(),
        })?;
    let hline = header.n;
    let (initial, ntrans, nstates) = parse_header(header)?;
    if nstates.value == 0 {
        return Err(header.err(
            nstates.text,
            "an LTS needs at least one state",
            "the header's third number counts the states, numbered from 0",
        ));
    }
    if initial.value >= nstates.value {
        return Err(header.err(
            initial.text,
            format!(
                "initial state {} is not below the state count {}",
                initial.value, nstates.value
            ),
            "states are numbered from 0 to the state count (the header's third number) minus 1",
        ));
    }
    let states_at = nstates.text;
    let (initial, nstates) = (initial.value, nstates.value);
    let mut b = LtsBuilder::new(Vec::new(), Vec::new());
    let mut transitions: Vec<(u64, Label, u64)> = Vec::new();
    for line in lines {
        if line.text.trim().is_empty() {
            continue;
        }
        let (from, label, to) = split_transition(line)?;
        let from = parse_state(line, from, nstates, hline)?;
        let to = parse_state(line, to, nstates, hline)?;
        let label = parse_label(line, label, &mut b)?;
        transitions.push((from, label, to));
        // Fail on the line that exceeds the header, not after reading the
        // rest of a huge file.
        if transitions.len() as u64 > ntrans.value {
            return Err(line.err(
                line.text.trim_start(),
                format!(
                    "the header (line {hline}) announces {} transitions but the file has more",
                    ntrans.value
                ),
                "the header's second number counts the transitions: make it the number of \
                 transition lines, or remove the extra lines",
            ));
        }
    }
    let count = transitions.len() as u64;
    if count != ntrans.value {
        return Err(header.err(
            ntrans.text,
            format!(
                "the header announces {} transitions but the file has {count}",
                ntrans.value
            ),
            "the header's second number counts the transition lines that follow it",
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
        return Err(header.err(
            states_at,
            format!(
                "{} states are more than this reader can number",
                states.len() + handshakes
            ),
            format!("an LTS read from .aut has at most {} states", u32::MAX),
        ));
    }
    let id = |s: u64| StateId::from_index(states.binary_search(&s).expect("every state is listed"));
    let mut out: Vec<Vec<(Label, StateId)>> = vec![Vec::new(); states.len()];
    for (from, label, to) in transitions {
        out[id(from).index()].push((label, id(to)));
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
fn add_handshake_receives(out: &mut Vec<Vec<(Label, StateId)>>) {
    let two_steps = out
        .iter()
        .flatten()
        .filter(|(l, _)| l.is_sync())
        .all(|&(l, t)| {
            let next = &out[t.index()];
            !next.is_empty() && next.iter().all(|&(m, _)| m == l.receive())
        });
    if two_steps {
        return;
    }
    for s in 0..out.len() {
        for i in 0..out[s].len() {
            let (l, t) = out[s][i];
            if l.is_sync() {
                let between = StateId::from_index(out.len());
                out.push(vec![(l.receive(), t)]);
                out[s][i].1 = between;
            }
        }
    }
}

/// A number of the file, and where it stands (for errors about it).
#[derive(Clone, Copy)]
struct Number<'a> {
    value: u64,
    text: &'a str,
}

fn parse_header<'a>(line: Line<'a>) -> Result<(Number<'a>, Number<'a>, Number<'a>), AutError> {
    let trimmed = line.text.trim();
    let Some(rest) = trimmed.strip_prefix("des") else {
        return Err(line.err(trimmed, "expected the header `des (...)`", HEADER_HINT));
    };
    let rest = rest.trim_start();
    let Some(after_open) = rest.strip_prefix('(') else {
        return Err(line.err(rest, "expected `(` after `des`", HEADER_HINT));
    };
    let Some(close) = after_open.find(')') else {
        return Err(line.err_after(trimmed, "missing `)` at the end of the header", HEADER_HINT));
    };
    let inner = &after_open[..close];
    let junk = after_open[close + 1..].trim_start();
    if !junk.is_empty() {
        return Err(line.err(junk, "unexpected text after the header", HEADER_HINT));
    }
    let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
    if parts.len() != 3 {
        return Err(line.err(
            rest,
            format!("the header has {} numbers, not 3", parts.len()),
            HEADER_HINT,
        ));
    }
    let num = |s: &'a str| -> Result<Number<'a>, AutError> {
        let value = number(s).map_err(|m| line.err(s, m, HEADER_HINT))?;
        Ok(Number { value, text: s })
    };
    Ok((num(parts[0])?, num(parts[1])?, num(parts[2])?))
}

/// A decimal number, or why it is not one (too large is not "not a number").
fn number(s: &str) -> Result<u64, String> {
    if s.is_empty() {
        return Err("a number is missing".into());
    }
    s.parse::<u64>().map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => {
            format!("`{}` is too large (at most {})", shorten(s), u64::MAX)
        }
        _ => format!("`{}` is not a number", shorten(s)),
    })
}

/// `s` with its control characters escaped (a terminal would act on them).
fn visible(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// `s`, cut to a length that fits an error message.
fn shorten(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let mut short: String = s.chars().take(MAX).collect();
        short.push('…');
        short
    }
}

fn split_transition(line: Line<'_>) -> Result<(&str, &str, &str), AutError> {
    let trimmed = line.text.trim();
    let Some(after_open) = trimmed.strip_prefix('(') else {
        return Err(line.err(
            trimmed,
            "expected `(` to start a transition",
            TRANSITION_HINT,
        ));
    };
    // The label may hold parentheses, commas and quotes (`"!(A,p,q)"`):
    // `from` ends at the first comma, `to` starts after the last one and
    // ends at the `)` after it.
    let three = "a transition needs three parts separated by commas";
    let Some(last) = after_open.rfind(',') else {
        return Err(line.err(after_open, three, TRANSITION_HINT));
    };
    let to = &after_open[last + 1..];
    let Some(close) = to.find(')') else {
        return Err(line.err_after(
            trimmed,
            "missing `)` at the end of the transition",
            TRANSITION_HINT,
        ));
    };
    let junk = to[close + 1..].trim_start();
    if !junk.is_empty() {
        return Err(line.err(
            junk,
            "unexpected text after the transition",
            TRANSITION_HINT,
        ));
    }
    let before = &after_open[..last];
    let Some(first) = before.find(',') else {
        return Err(line.err(
            &after_open[last..],
            format!("{three}, this one has two"),
            TRANSITION_HINT,
        ));
    };
    Ok((
        before[..first].trim(),
        before[first + 1..].trim(),
        to[..close].trim(),
    ))
}

/// `s` as a state of a file whose header (line `hline`) announces
/// `nstates` states.
fn parse_state(line: Line<'_>, s: &str, nstates: u64, hline: usize) -> Result<u64, AutError> {
    let hint =
        format!("states are numbered from 0 to the header's state count minus 1 (its third number, line {hline})");
    let v = number(s).map_err(|m| line.err(s, format!("{m}: expected a state number"), &hint))?;
    if v >= nstates {
        return Err(line.err(
            s,
            format!("state {v} is not below the state count {nstates} of the header"),
            hint,
        ));
    }
    Ok(v)
}

fn parse_label(line: Line<'_>, raw: &str, b: &mut LtsBuilder) -> Result<Label, AutError> {
    let s = match raw.strip_prefix('"') {
        Some(r) => r.strip_suffix('"').ok_or_else(|| {
            line.err(
                raw,
                "unterminated quote in the label",
                "a quoted label ends with `\"` before the comma of the target state",
            )
        })?,
        None => raw,
    }
    .trim();
    let (action, sync, args) = if let Some(r) = s.strip_prefix('!') {
        (Action::Send, false, r)
    } else if let Some(r) = s.strip_prefix('‽') {
        (Action::Send, true, r)
    } else if let Some(r) = s.strip_prefix('?') {
        (Action::Recv, false, r)
    } else if let Some(r) = s.strip_prefix('C') {
        (Action::Close, false, r)
    } else {
        return Err(line.err(s, format!("unknown label `{}`", shorten(s)), LABEL_HINT));
    };
    let parenthesised = args.trim();
    let Some(args) = parenthesised
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
    else {
        return Err(line.err(
            parenthesised,
            format!(
                "malformed label `{}`: expected its arguments in parentheses",
                shorten(s)
            ),
            LABEL_HINT,
        ));
    };
    let parts: Vec<&str> = args.split(',').map(str::trim).collect();
    let want = if action == Action::Close { 2 } else { 3 };
    if parts.len() != want || parts.iter().any(|p| p.is_empty()) {
        return Err(line.err(
            parenthesised,
            format!("label `{}` needs {want} non-empty arguments", shorten(s)),
            LABEL_HINT,
        ));
    }
    // Names a formula could not name (an atom is `"ROLE SEND <Type> TO
    // PEER"`) are refused here, where the line and column are known.
    let roles_at = if action == Action::Close { 0 } else { 1 };
    for (k, part) in parts.iter().enumerate() {
        let problem = if k < roles_at {
            engine::names::type_name_error(part)
        } else {
            engine::names::role_name_error(part)
        };
        if let Some(problem) = problem {
            return Err(line.err(
                part,
                format!("label `{}`: {problem}", visible(&shorten(s))),
                NAME_HINT,
            ));
        }
    }
    let (ty, from, to) = match action {
        Action::Close => (NO_TYPE, b.role(parts[0]), b.role(parts[1])),
        _ => {
            let ty = b.ty(parts[0]);
            (ty, b.role(parts[1]), b.role(parts[2]))
        }
    };
    if from == to {
        return Err(line.err(
            parts[want - 1],
            format!("label `{}`: a role cannot talk to itself", shorten(s)),
            "the sender and the receiver of a label are two different roles",
        ));
    }
    Ok(Label::new(action, ty, from, to, sync))
}

// Here rather than in `lts.rs`, so that the LTS module does not import
// its reader (which builds LTSs).
impl Lts {
    /// Reads an Aldebaran `.aut` file: the LTS format of CADP, mCRL2 and
    /// Discourje:
    ///
    /// ```text
    /// des (0, 2, 3)
    /// (0,"!(Move,white,black)",1)
    /// (1,"?(Move,white,black)",2)
    /// ```
    /// The header gives the initial state, the number of transitions and the
    /// number of states (states are `0..n`). Each further line is one transition
    /// `(from, label, to)`; labels may be quoted. Labels are `!(Type,sender,receiver)`
    /// (a send), `?(Type,sender,receiver)` (its receive) and `C(sender,receiver)`
    /// (a close), and `‽(Type,sender,receiver)`, the send of a handshake
    /// ([`Label::is_sync`], as Discourje writes it). Blank lines are ignored. A state without outgoing transitions
    /// is a normal end ([`Lts::is_final`]). A state of the header that no
    /// transition mentions (and is not the initial state) is unreachable and
    /// left out, the others keeping their order: a file that numbers its
    /// states without gaps reads with the same numbers. The LTS is returned as written,
    /// deterministic or not; the runtimes determinise it
    /// ([`Lts::determinise`]).
    ///
    /// Roles and types are numbered in order of first appearance.
    ///
    /// A handshake is two steps in prust (the send, then at once its receive:
    /// [`Lts::to_aut`] writes `‽(T,p,q)` and then `?(T,p,q)`), but one step in
    /// Discourje's LTS, which writes `‽(T,p,q)` with no receive. A file is read
    /// the first way when every `‽` leads to a state whose only transition is
    /// its receive; otherwise (a file of Discourje's) each `‽` gets its receive
    /// added after it, through a new state numbered after the file's, so both
    /// read as the same protocol:
    ///
    /// ```
    /// use protocols::Lts;
    /// let discourje = Lts::from_aut("des (0, 1, 2)\n(0,\"‽(Ping,a,b)\",1)\n").unwrap();
    /// let prust = Lts::from_aut("des (0, 2, 3)\n(0,\"‽(Ping,a,b)\",2)\n(2,\"?(Ping,a,b)\",1)\n").unwrap();
    /// assert_eq!(discourje.num_transitions(), 2);
    /// assert!(discourje.bisimilar(&prust).is_ok());
    /// assert_eq!(prust.to_aut(), "des (0, 2, 3)\n(0,\"‽(Ping,a,b)\",2)\n(2,\"?(Ping,a,b)\",1)\n");
    /// ```
    ///
    /// ```
    /// let err = protocols::Lts::from_aut("des (0, 1, 2)\n(0,\"hello\",1)\n").unwrap_err();
    /// assert_eq!(err.line, 2);
    /// assert!(err.to_string().contains("line 2"));
    /// ```
    pub fn from_aut(text: &str) -> Result<Lts, AutError> {
        parse(text)
    }
}
