//! The finite alphabet of concrete actions of one protocol object.
//!
//! Roles × {send: dummy types × receivers, recv: senders × types, close:
//! peers}, plus two stutter letters (END and DEADLOCK) for the steps that
//! extend a finite run (finite runs stutter; see [`crate::Ending`]). Letters are dense indices so that the
//! search can test "does this edge allow this action" with one bit.

use std::fmt;

use crate::error::{DummiesError, Error};
use crate::protocol::{Message, RoleId};

/// What a role does in one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActionKind {
    /// The role sent a message.
    Send,
    /// The role received a message.
    Recv,
    /// The role closed its channel to the peer.
    Close,
}

impl fmt::Display for ActionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ActionKind::Send => "SEND",
            ActionKind::Recv => "RECV",
            ActionKind::Close => "CLOSE",
        })
    }
}

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
pub(crate) fn resolve_dummies(
    declared: &[String],
    dummies: Vec<Message>,
) -> Result<Vec<Message>, Error> {
    let mut names: Vec<&str> = Vec::new();
    for d in declared {
        if !names.contains(&d.as_str()) {
            names.push(d);
        }
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
        return Ok(names.iter().map(|t| Message::named(t, ())).collect());
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

/// A concrete action: one letter of the alphabet, computed from its
/// [`LetterId`] by [`Alphabet::letter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Letter {
    pub role: RoleId,
    pub kind: ActionKind,
    /// Index into [`Alphabet::types`]; meaningless for closes.
    pub ty: usize,
    /// Receiver of a send or close, sender of a receive.
    pub peer: RoleId,
}

pub(crate) use crate::ids::LetterId;

/// A message type known to the check: a dummy, or a name the protocol
/// declares without a dummy (`dummy` is then `None`).
#[derive(Debug, Clone)]
pub(crate) struct MsgType {
    /// Full path as the message gives it (`chess::Move`), or the short name.
    pub path: String,
    pub dummy: Option<Message>,
    /// The object declares it ([`Protocol::type_names`](crate::Protocol::type_names)).
    pub declared: bool,
}

impl MsgType {
    pub fn short(&self) -> &str {
        self.path.rsplit("::").next().unwrap_or(&self.path)
    }
}

/// The alphabet of one protocol object and its dummies.
#[derive(Debug, Clone)]
pub(crate) struct Alphabet {
    pub roles: Vec<String>,
    pub types: Vec<MsgType>,
    /// The object declares its types: a message of a type it does not
    /// declare is a contract violation, and types match by short name.
    pub declares: bool,
    /// Number of types that have a dummy; they come first in `types`.
    pub sendable: usize,
    /// Letters per role: `2 · roles · types + roles` (sends, receives,
    /// closes). The letters are not stored: with K roles there are
    /// K · (2K · types + K) of them, and a table of them (32 bytes each)
    /// was most of the memory of a check with a few thousand roles,
    /// whatever its state limit; [`letter`](Self::letter) computes one.
    block: u32,
    /// Number of action letters.
    num_actions: u32,
    recv_base: Vec<u32>,
    /// `channel[from * n + to]`: `from` may send or close to `to`, and `to`
    /// may receive from `from` (from [`Protocol::sends_to`] and
    /// [`Protocol::peers`]).
    pub channel: Vec<bool>,
}

impl Alphabet {
    /// Builds the alphabet. Types with dummies come first (in the order of
    /// the dummies, duplicates dropped), then the declared types that have
    /// no dummy (they can still be *received* in principle, and naming them
    /// in a formula gets a dedicated error).
    pub fn new(roles: Vec<String>, dummies: Vec<Message>, declared: Vec<String>) -> Alphabet {
        let is_declared =
            |path: &str, short: &str| declared.iter().any(|n| n == path || n == short);
        let mut types: Vec<MsgType> = Vec::new();
        for d in dummies {
            if !types.iter().any(|t| t.path == d.type_path()) {
                types.push(MsgType {
                    path: d.type_path().to_string(),
                    declared: is_declared(d.type_path(), d.type_name()),
                    dummy: Some(d),
                });
            }
        }
        let sendable = types.len();
        let declares = !declared.is_empty();
        for name in declared {
            if !types.iter().any(|t| t.short() == name || t.path == name) {
                types.push(MsgType {
                    path: name,
                    dummy: None,
                    declared: true,
                });
            }
        }
        let n = roles.len();
        let nt = types.len();
        let block = 2 * n * nt + n;
        let num_actions = u32::try_from(n * block)
            .ok()
            .filter(|&x| x < u32::MAX - 2)
            .expect("the alphabet (roles² × types) fits 32-bit letter ids");
        let recv_base = (0..n).map(|role| (role * block + n * nt) as u32).collect();
        let channel = vec![true; n * n];
        Alphabet {
            roles,
            types,
            declares,
            sendable,
            block: block as u32,
            num_actions,
            recv_base,
            channel,
        }
    }

    /// Restricts probing to the channels the object declares: `peers`
    /// gives both directions of a pair (if either side lists the other),
    /// `sends_to` one direction and takes precedence for its role.
    pub fn set_topology(
        &mut self,
        peers: impl Fn(RoleId) -> Option<Vec<RoleId>>,
        sends_to: impl Fn(RoleId) -> Option<Vec<RoleId>>,
    ) {
        let n = self.roles.len();
        let row = |list: Vec<RoleId>| {
            let mut r = vec![false; n];
            list.into_iter()
                .filter(|&p| p < n)
                .for_each(|p| r[p] = true);
            r
        };
        let listed: Vec<Option<Vec<bool>>> = (0..n).map(|r| peers(r).map(row)).collect();
        for a in 0..n {
            for b in 0..n {
                // A channel has two ends: if either side lists the other,
                // probe both directions.
                let says = |x: usize, y: usize| listed[x].as_ref().is_none_or(|r| r[y]);
                self.channel[a * n + b] = says(a, b) || says(b, a);
            }
        }
        for a in 0..n {
            if let Some(r) = sends_to(a).map(row) {
                self.channel[a * n..(a + 1) * n].copy_from_slice(&r);
            }
        }
    }

    /// The action letter `l` (`l < num_actions()`): per role, first its
    /// sends (by receiver, then type), then its receives (by sender, then
    /// type), then its closes (by peer).
    #[inline]
    pub fn letter(&self, l: LetterId) -> Letter {
        debug_assert!(l < self.num_actions);
        let nt = self.types.len() as u32;
        let n_nt = self.roles.len() as u32 * nt;
        let role = (l / self.block) as RoleId;
        let r = l % self.block;
        // nt > 0 whenever r < n_nt, so the divisions below are defined.
        let (kind, peer, ty) = if r < n_nt {
            (ActionKind::Send, r / nt, r % nt)
        } else if r < 2 * n_nt {
            (ActionKind::Recv, (r - n_nt) / nt, (r - n_nt) % nt)
        } else {
            (ActionKind::Close, r - 2 * n_nt, 0)
        };
        Letter {
            role,
            kind,
            ty: ty as usize,
            peer: peer as RoleId,
        }
    }

    /// Whether the topology allows the letter: a send or close along a
    /// declared channel, a receive against one.
    pub fn allowed(&self, letter: LetterId) -> bool {
        let n = self.roles.len();
        let l = self.letter(letter);
        match l.kind {
            ActionKind::Recv => self.channel[l.peer * n + l.role],
            ActionKind::Send | ActionKind::Close => self.channel[l.role * n + l.peer],
        }
    }

    /// Number of action letters (the stutter letters excluded).
    pub fn num_actions(&self) -> usize {
        self.num_actions as usize
    }

    /// The stutter letter of a terminated state.
    pub fn end(&self) -> LetterId {
        self.num_actions
    }

    /// The stutter letter of a deadlocked state.
    pub fn deadlock(&self) -> LetterId {
        self.num_actions + 1
    }

    /// Number of letters, stutter letters included.
    pub fn len(&self) -> usize {
        self.num_actions as usize + 2
    }

    #[cfg(test)]
    pub fn send(&self, role: RoleId, to: RoleId, ty: usize) -> LetterId {
        let n = self.roles.len();
        (role * (2 * n * self.types.len() + n) + to * self.types.len() + ty) as u32
    }

    pub fn recv(&self, role: RoleId, from: RoleId, ty: usize) -> LetterId {
        self.recv_base[role] + (from * self.types.len() + ty) as u32
    }

    #[cfg(test)]
    pub fn close(&self, role: RoleId, to: RoleId) -> LetterId {
        let n = self.roles.len();
        self.recv_base[role] + (n * self.types.len() + to) as u32
    }

    /// The type index of a received message, by its type path.
    pub fn type_of(&self, msg: &Message) -> Option<usize> {
        // A message cloned from a dummy shares its path: no string compare.
        let shared = self.types[..self.sendable]
            .iter()
            .position(|t| t.dummy.as_ref().is_some_and(|d| d.shares_path(msg)));
        if shared.is_some() {
            return shared;
        }
        let path = msg.type_path();
        self.types.iter().position(|t| t.path == path).or_else(|| {
            // An object that declares its types goes by short names (the
            // dummies were checked to give one type per short name), so a
            // `Move` it builds is the type of a `chess::Move` dummy.
            let short = msg.type_name();
            self.types.iter().position(|t| {
                (t.dummy.is_none() && t.path == short)
                    || (self.declares && t.declared && t.short() == short)
            })
        })
    }

    /// A probe as people read it; receives are probed before their type is
    /// known, so they are named without one.
    pub fn describe_probe(&self, letter: LetterId) -> String {
        if letter == self.end() {
            // Asked of a state where nothing is enabled (END or DEADLOCK).
            return "is_terminated()".to_string();
        }
        let l = self.letter(letter);
        if l.kind == ActionKind::Recv {
            format!("{} RECV FROM {}", self.roles[l.role], self.roles[l.peer])
        } else {
            self.describe(letter)
        }
    }

    /// The letter as people read it: `white SEND <Move> TO black`.
    pub fn describe(&self, letter: LetterId) -> String {
        if letter == self.end() {
            return "(the protocol has terminated)".into();
        }
        if letter == self.deadlock() {
            return "(deadlock)".into();
        }
        let l = self.letter(letter);
        let role = &self.roles[l.role];
        let peer = &self.roles[l.peer];
        match l.kind {
            ActionKind::Send => format!("{role} SEND <{}> TO {peer}", self.types[l.ty].short()),
            ActionKind::Recv => format!("{role} RECV <{}> FROM {peer}", self.types[l.ty].short()),
            ActionKind::Close => format!("{role} CLOSE TO {peer}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug)]
    struct Move;

    #[test]
    fn letters_are_dense_and_consistent() {
        let a = Alphabet::new(
            vec!["white".into(), "black".into(), "judge".into()],
            vec![Message::new(Move), Message::named("Boolean", true)],
            vec!["Move".into(), "Resign".into()],
        );
        assert_eq!(
            a.types.len(),
            3,
            "Move deduplicated against its dummy, Resign added"
        );
        assert_eq!(a.sendable, 2);
        assert_eq!(a.num_actions(), 3 * (2 * 3 * 3 + 3));
        for (i, l) in (0..a.num_actions() as LetterId).map(|i| (i, a.letter(i))) {
            let id = match l.kind {
                ActionKind::Send => a.send(l.role, l.peer, l.ty),
                ActionKind::Recv => a.recv(l.role, l.peer, l.ty),
                ActionKind::Close if l.ty == 0 => a.close(l.role, l.peer),
                ActionKind::Close => continue,
            };
            assert_eq!(id, i);
        }
        assert_eq!(a.describe(a.send(0, 1, 0)), "white SEND <Move> TO black");
        assert_eq!(
            a.describe(a.recv(1, 0, 1)),
            "black RECV <Boolean> FROM white"
        );
        assert_eq!(a.describe(a.close(2, 0)), "judge CLOSE TO white");
        assert_eq!(a.type_of(&Message::named("Boolean", false)), Some(1));
    }
}
