//! The finite alphabet of concrete actions of one protocol object.
//!
//! Roles × {send: dummy types × receivers, recv: senders × types, close:
//! peers}, plus two stutter letters (END and DEADLOCK) for the steps that
//! extend a finite run (finite runs stutter; see [`crate::Ending`]). Letters are dense indices so that the
//! search can test "does this edge allow this action" with one bit.

use crate::error::Error;
use crate::protocol::{ActionKind, Message, RoleId};

mod dummies;
pub(crate) use dummies::resolve_dummies;

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
///
/// Letters exist only along the object's channels ([`Protocol::sends_to`],
/// [`Protocol::peers`]; every ordered pair of distinct roles if it declares
/// none): per role, its sends (by receiver, then type), its receives (by
/// sender, then type) and its closes (by receiver). So the alphabet, and
/// every table over it (the automaton's guard bits, the probe slots), grows
/// with the channels, not with roles²: a ring of 4,096 roles has 12,288
/// letters, not 50 million.
///
/// [`Protocol::sends_to`]: crate::Protocol::sends_to
/// [`Protocol::peers`]: crate::Protocol::peers
#[derive(Debug, Clone)]
pub(crate) struct Alphabet {
    pub roles: Vec<String>,
    pub types: Vec<MsgType>,
    /// The object declares its types: a message of a type it does not
    /// declare is a contract violation, and types match by short name.
    pub declares: bool,
    /// Number of types that have a dummy; they come first in `types`.
    pub sendable: usize,
    /// Per declared type (in [`Protocol::type_names`](crate::Protocol::type_names)
    /// order), its index in `types`: how a listed send
    /// ([`Enabled`](crate::Enabled)) names its type without a string.
    pub declared_index: Vec<usize>,
    /// `base[r]`: the first letter of role `r`; `base[n]` is the number of
    /// action letters.
    base: Vec<u32>,
    /// `out[out_at[r]..out_at[r + 1]]`: the roles `r` may send or close to,
    /// ascending.
    out_at: Vec<u32>,
    out: Vec<u32>,
    /// `inn[in_at[r]..in_at[r + 1]]`: the roles `r` may receive from,
    /// ascending.
    in_at: Vec<u32>,
    inn: Vec<u32>,
}

impl Alphabet {
    /// A dummy of sendable type `ty`, to probe or take a send with.
    pub fn dummy(&self, ty: usize) -> Message {
        self.types[ty]
            .dummy
            .clone()
            .expect("sendable types have a dummy")
    }

    /// Builds the alphabet, with a channel between every two distinct
    /// roles (narrow it with [`set_topology`](Self::set_topology)). Types
    /// with dummies come first (in the order of the dummies, duplicates
    /// dropped), then the declared types that have no dummy (they can
    /// still be *received* in principle, and naming them in a formula gets
    /// a dedicated error).
    #[cfg(test)]
    pub fn new(roles: Vec<String>, dummies: Vec<Message>, declared: Vec<String>) -> Alphabet {
        let mut a = Alphabet::without_channels(roles, dummies, declared);
        let n = a.roles.len();
        a.set_channels(|r| (0..n).filter(|&p| p != r).collect())
            .expect("the alphabets of tests fit 32-bit letter ids");
        a
    }

    /// Builds the alphabet along the channels the object declares (see
    /// [`set_topology`](Self::set_topology)), without laying it out over
    /// every pair of roles first: that layout alone is roles² entries
    /// (64 MB for 4,096 roles).
    pub fn with_topology(
        roles: Vec<String>,
        dummies: Vec<Message>,
        declared: Vec<String>,
        peers: impl Fn(RoleId) -> Option<Vec<RoleId>>,
        sends_to: impl Fn(RoleId) -> Option<Vec<RoleId>>,
    ) -> Result<Alphabet, Error> {
        let mut a = Alphabet::without_channels(roles, dummies, declared);
        a.set_topology(peers, sends_to)?;
        Ok(a)
    }

    /// The types and roles, no letters yet.
    fn without_channels(
        roles: Vec<String>,
        dummies: Vec<Message>,
        declared: Vec<String>,
    ) -> Alphabet {
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
        let mut declared_index = Vec::with_capacity(declared.len());
        for name in declared {
            // The full path first, as `resolve_dummies` matches them.
            let at = types
                .iter()
                .position(|t| t.path == name)
                .or_else(|| types.iter().position(|t| t.short() == name));
            let at = at.unwrap_or_else(|| {
                types.push(MsgType {
                    path: name,
                    dummy: None,
                    declared: true,
                });
                types.len() - 1
            });
            declared_index.push(at);
        }
        let n = roles.len();
        Alphabet {
            roles,
            types,
            declares,
            sendable,
            declared_index,
            base: vec![0; n + 1],
            out_at: vec![0; n + 1],
            out: Vec::new(),
            in_at: vec![0; n + 1],
            inn: Vec::new(),
        }
    }

    /// Restricts the alphabet to the channels the object declares: `peers`
    /// gives both directions of a pair (if either side lists the other),
    /// `sends_to` one direction and takes precedence for its role.
    /// Computed from the lists, never from a roles × roles table.
    pub fn set_topology(
        &mut self,
        peers: impl Fn(RoleId) -> Option<Vec<RoleId>>,
        sends_to: impl Fn(RoleId) -> Option<Vec<RoleId>>,
    ) -> Result<(), Error> {
        let n = self.roles.len();
        let clean = |mut list: Vec<RoleId>, r: RoleId| {
            list.retain(|&p| p < n && p != r);
            list.sort_unstable();
            list.dedup();
            list
        };
        let listed: Vec<Option<Vec<RoleId>>> =
            (0..n).map(|r| peers(r).map(|l| clean(l, r))).collect();
        // A channel has two ends: if either side lists the other (a role
        // that lists nothing lists everyone), there is a channel both ways.
        let silent: Vec<RoleId> = (0..n).filter(|&r| listed[r].is_none()).collect();
        let mut listed_by: Vec<Vec<RoleId>> = vec![Vec::new(); n];
        for (r, list) in listed.iter().enumerate() {
            for &p in list.iter().flatten() {
                listed_by[p].push(r);
            }
        }
        let rows: Vec<Vec<RoleId>> = (0..n)
            .map(|a| {
                if let Some(list) = sends_to(a) {
                    return clean(list, a);
                }
                match &listed[a] {
                    None => (0..n).filter(|&p| p != a).collect(),
                    Some(own) => {
                        let mut row: Vec<RoleId> = own.clone();
                        row.extend(&listed_by[a]);
                        row.extend(silent.iter().copied().filter(|&p| p != a));
                        clean(row, a)
                    }
                }
            })
            .collect();
        self.set_channels(|r| rows[r].clone())
    }

    /// Lays the letters out over the channels `out(r)` (the roles each
    /// role `r` sends and closes to, ascending, without `r`).
    fn set_channels(&mut self, out: impl Fn(RoleId) -> Vec<RoleId>) -> Result<(), Error> {
        let n = self.roles.len();
        let nt = self.types.len();
        self.out.clear();
        self.out_at = vec![0];
        let mut senders: Vec<Vec<u32>> = vec![Vec::new(); n];
        for r in 0..n {
            for p in out(r) {
                self.out.push(p as u32);
                senders[p].push(r as u32);
            }
            self.out_at.push(self.out.len() as u32);
        }
        self.inn.clear();
        self.in_at = vec![0];
        for s in senders {
            // Ascending already: senders were visited in role order.
            self.inn.extend(s);
            self.in_at.push(self.inn.len() as u32);
        }
        let mut total: u64 = 0;
        self.base = vec![0];
        for r in 0..n {
            let (o, i) = (self.outs(r).len() as u64, self.ins(r).len() as u64);
            total += (o + i) * nt as u64 + o;
            // Letter ids are 32 bits, and the last two are END and
            // DEADLOCK: an object past that is an error of its own, never
            // a panic (it needs only many roles and types, no bug).
            match u32::try_from(total).ok().filter(|&x| x < u32::MAX - 2) {
                Some(b) => self.base.push(b),
                None => {
                    return Err(Error::TooManyActions {
                        roles: n,
                        channels: self.out.len() as u64,
                        types: nt,
                    })
                }
            }
        }
        Ok(())
    }

    /// The roles `role` may send or close to, ascending.
    #[inline]
    pub fn outs(&self, role: RoleId) -> &[u32] {
        &self.out[self.out_at[role] as usize..self.out_at[role + 1] as usize]
    }

    /// The roles `role` may receive from, ascending.
    #[inline]
    pub fn ins(&self, role: RoleId) -> &[u32] {
        &self.inn[self.in_at[role] as usize..self.in_at[role + 1] as usize]
    }

    /// The action letter `l` (`l < num_actions()`): per role, first its
    /// sends (by receiver, then type), then its receives (by sender, then
    /// type), then its closes (by receiver), along its channels only.
    #[inline]
    pub fn letter(&self, l: LetterId) -> Letter {
        debug_assert!(l < self.num_actions() as LetterId);
        let role = self.base.partition_point(|&b| b <= l) - 1;
        let r = l - self.base[role];
        let nt = self.types.len() as u32;
        let (outs, ins) = (self.outs(role), self.ins(role));
        let (o, i) = (outs.len() as u32, ins.len() as u32);
        // nt > 0 whenever r < (o + i) · nt, so the divisions are defined.
        let (kind, peer, ty) = if r < o * nt {
            (ActionKind::Send, outs[(r / nt) as usize], r % nt)
        } else if r < (o + i) * nt {
            let r = r - o * nt;
            (ActionKind::Recv, ins[(r / nt) as usize], r % nt)
        } else {
            (ActionKind::Close, outs[(r - (o + i) * nt) as usize], 0)
        };
        Letter {
            role,
            kind,
            ty: ty as usize,
            peer: peer as RoleId,
        }
    }

    /// Number of channels (ordered pairs of roles).
    pub fn channels(&self) -> usize {
        self.out.len()
    }

    /// Whether `from` → `to` is a channel.
    #[inline]
    pub fn has_channel(&self, from: RoleId, to: RoleId) -> bool {
        from < self.roles.len() && self.outs(from).binary_search(&(to as u32)).is_ok()
    }

    /// Number of action letters (the stutter letters excluded).
    pub fn num_actions(&self) -> usize {
        *self.base.last().expect("base has n + 1 entries") as usize
    }

    /// The stutter letter of a terminated state.
    pub fn end(&self) -> LetterId {
        self.num_actions() as LetterId
    }

    /// The stutter letter of a deadlocked state.
    pub fn deadlock(&self) -> LetterId {
        self.num_actions() as LetterId + 1
    }

    /// Number of letters, stutter letters included.
    pub fn len(&self) -> usize {
        self.num_actions() + 2
    }

    /// The letter of `role` sending a `ty` to `to`, if that is a channel.
    #[inline]
    pub fn send(&self, role: RoleId, to: RoleId, ty: usize) -> Option<LetterId> {
        let at = self.outs(role).binary_search(&(to as u32)).ok()?;
        Some(self.base[role] + (at * self.types.len() + ty) as u32)
    }

    /// The letter of `role` receiving a `ty` from `from`, if that is a
    /// channel.
    #[inline]
    pub fn recv(&self, role: RoleId, from: RoleId, ty: usize) -> Option<LetterId> {
        let at = self.ins(role).binary_search(&(from as u32)).ok()?;
        let nt = self.types.len();
        Some(self.base[role] + ((self.outs(role).len() + at) * nt + ty) as u32)
    }

    /// The letter of `role` closing its channel to `to`, if that is a
    /// channel.
    #[inline]
    pub fn close(&self, role: RoleId, to: RoleId) -> Option<LetterId> {
        let at = self.outs(role).binary_search(&(to as u32)).ok()?;
        let o = self.outs(role).len();
        let nt = self.types.len();
        Some(self.base[role] + ((o + self.ins(role).len()) * nt + at) as u32)
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

    /// Every letter decodes to the action it is the letter of, in the
    /// documented order, and back.
    fn assert_consistent(a: &Alphabet) {
        let mut last: Option<(RoleId, u8, RoleId, usize)> = None;
        for i in 0..a.num_actions() as LetterId {
            let l = a.letter(i);
            let id = match l.kind {
                ActionKind::Send => a.send(l.role, l.peer, l.ty),
                ActionKind::Recv => a.recv(l.role, l.peer, l.ty),
                ActionKind::Close => a.close(l.role, l.peer),
            };
            assert_eq!(id, Some(i), "{l:?}");
            let rank = match l.kind {
                ActionKind::Send => 0,
                ActionKind::Recv => 1,
                ActionKind::Close => 2,
            };
            let key = (l.role, rank, l.peer, l.ty);
            assert!(last.is_none_or(|k| k < key), "{l:?} out of order");
            last = Some(key);
        }
    }

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
        assert_eq!(a.declared_index, vec![0, 2]);
        // Every ordered pair of distinct roles is a channel.
        assert_eq!(a.num_actions(), 3 * (2 * 2 * 3 + 2));
        assert_consistent(&a);
        assert_eq!(a.send(0, 0, 0), None, "no channel to oneself");
        assert_eq!(
            a.describe(a.send(0, 1, 0).unwrap()),
            "white SEND <Move> TO black"
        );
        assert_eq!(
            a.describe(a.recv(1, 0, 1).unwrap()),
            "black RECV <Boolean> FROM white"
        );
        assert_eq!(a.describe(a.close(2, 0).unwrap()), "judge CLOSE TO white");
        assert_eq!(a.type_of(&Message::named("Boolean", false)), Some(1));
    }

    /// The letters follow the declared channels: a ring of 4,096 roles has
    /// three letters per role (one type), not 3 · 4,096.
    #[test]
    fn letters_exist_only_along_declared_channels() {
        let n = 4096;
        let mut a = Alphabet::new(
            (0..n).map(|i| format!("w{i}")).collect(),
            vec![Message::named("Integer", ())],
            vec!["Integer".into()],
        );
        a.set_topology(|_| None, |r| Some(vec![(r + 1) % n]))
            .unwrap();
        assert_eq!(a.num_actions(), 3 * n);
        assert_consistent(&a);
        assert!(a.has_channel(5, 6) && !a.has_channel(6, 5));
        assert_eq!(a.send(5, 7, 0), None);
        assert!(a.recv(6, 5, 0).is_some() && a.recv(6, 7, 0).is_none());
        // `peers` is symmetric: listed by either end is a channel both ways;
        // a role that lists nothing talks to everyone.
        let mut b = Alphabet::new(
            vec!["a".into(), "b".into(), "c".into(), "d".into()],
            vec![Message::named("M", ())],
            vec![],
        );
        b.set_topology(
            |r| match r {
                0 => Some(vec![1]),
                1 => Some(vec![]),
                2 => Some(vec![1]),
                _ => None,
            },
            |r| (r == 2).then(Vec::new),
        )
        .unwrap();
        let outs = |r| b.outs(r).to_vec();
        assert_eq!(outs(0), vec![1, 3]);
        assert_eq!(outs(1), vec![0, 2, 3]);
        assert_eq!(outs(2), Vec::<u32>::new(), "sends_to takes precedence");
        assert_eq!(outs(3), vec![0, 1, 2]);
        assert_eq!(b.ins(2), &[1, 3]);
        assert_consistent(&b);
    }
}
