//! Test material for the unit tests that pin two code paths to each other
//! (`successors::tests`, `search::tests`): a protocol object drawn at
//! random, as an explicit transition table, so that the tests can run the
//! engine's crate-private walks on many different objects. The proptest
//! helpers of the integration tests cannot reach those walks, and the
//! protocols crate's random specs are not available inside the engine.

use std::sync::Arc;

use crate::alphabet::{resolve_dummies, Alphabet};
use crate::protocol::{Message, Protocol, Refused, RoleId};
use crate::ActionKind;

/// A small deterministic generator (xorshift64*): the tests draw many
/// objects from fixed seeds, so a failure names its seed.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A number in `0..n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }

    /// `true` with probability `num / den`.
    pub(crate) fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }
}

/// One transition: `role` does `kind` with `peer` (type `ty` for sends and
/// receives) and the object goes to state `to`.
#[derive(Clone, Copy, Debug)]
struct Move {
    role: usize,
    kind: ActionKind,
    peer: usize,
    ty: usize,
    to: usize,
}

/// The transition table of a [`RandomObject`].
#[derive(Debug)]
struct Table {
    roles: usize,
    types: usize,
    moves: Vec<Vec<Move>>,
    terminal: Vec<bool>,
    /// Declare the topology (`peers`) from the moves.
    topology: bool,
    /// List the enabled actions ([`Protocol::enabled`]).
    lists: bool,
}

/// A protocol object whose behaviour is a random, deterministic
/// transition table: at most one move per probe (send: role, peer, type;
/// receive and close: role, peer), so it keeps the `Protocol` contract,
/// and `try_recv(role, None)` takes the first receive of the role.
#[derive(Clone, Debug)]
pub(crate) struct RandomObject {
    table: Arc<Table>,
    state: usize,
}

impl PartialEq for RandomObject {
    fn eq(&self, other: &Self) -> bool {
        self.state == other.state
    }
}

impl Eq for RandomObject {}

impl std::hash::Hash for RandomObject {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.state.hash(h)
    }
}

fn type_name(ty: usize) -> String {
    format!("T{ty}")
}

impl RandomObject {
    /// An object of 2–4 roles, 1–3 types and up to 12 states, drawn from
    /// `rng`: dense enough that most states enable several actions of
    /// every kind, with some terminal states and some deadlocks.
    pub(crate) fn draw(rng: &mut Rng) -> RandomObject {
        let roles = 2 + rng.below(3);
        let types = 1 + rng.below(3);
        let states = 1 + rng.below(12);
        let mut moves = Vec::new();
        for _ in 0..states {
            let mut out: Vec<Move> = Vec::new();
            for _ in 0..rng.below(7) {
                let role = rng.below(roles);
                let peer = (role + 1 + rng.below(roles - 1)) % roles;
                let kind = [ActionKind::Send, ActionKind::Recv, ActionKind::Close][rng.below(3)];
                let ty = rng.below(types);
                let m = Move {
                    role,
                    kind,
                    peer,
                    ty,
                    to: rng.below(states),
                };
                let same_probe = |o: &Move| {
                    o.role == m.role
                        && o.kind == m.kind
                        && o.peer == m.peer
                        && (m.kind != ActionKind::Send || o.ty == m.ty)
                };
                if !out.iter().any(same_probe) {
                    out.push(m);
                }
            }
            moves.push(out);
        }
        let terminal = (0..states).map(|_| rng.chance(1, 4)).collect();
        RandomObject {
            table: Arc::new(Table {
                roles,
                types,
                moves,
                terminal,
                topology: rng.chance(1, 2),
                lists: false,
            }),
            state: 0,
        }
    }

    /// The same object, listing its enabled actions (`lists`) or not.
    pub(crate) fn listing(&self, lists: bool) -> RandomObject {
        let t = &self.table;
        RandomObject {
            table: Arc::new(Table {
                roles: t.roles,
                types: t.types,
                moves: t.moves.clone(),
                terminal: t.terminal.clone(),
                topology: t.topology,
                lists,
            }),
            state: self.state,
        }
    }

    /// One dummy per type.
    pub(crate) fn dummies(&self) -> Vec<Message> {
        (0..self.table.types)
            .map(|t| Message::named(type_name(t), ()))
            .collect()
    }

    /// The alphabet a check of this object uses (as `Checker::session`
    /// builds it).
    pub(crate) fn alphabet(&self) -> Alphabet {
        let declared = self.type_names();
        let none = declared.is_empty() && self.declares_types();
        let dummies = resolve_dummies(&declared, none, self.dummies()).expect("one dummy per type");
        Alphabet::with_topology(
            self.roles(),
            dummies,
            declared,
            |r| self.peers(r),
            |r| self.sends_to(r),
        )
        .expect("a test object's alphabet fits 32-bit letter ids")
    }

    fn take(&mut self, f: impl Fn(&Move) -> bool) -> Option<Move> {
        let m = self.table.moves[self.state].iter().copied().find(f)?;
        self.state = m.to;
        Some(m)
    }
}

impl Protocol for RandomObject {
    fn roles(&self) -> Vec<String> {
        (0..self.table.roles).map(|r| format!("r{r}")).collect()
    }

    fn type_names(&self) -> Vec<String> {
        (0..self.table.types).map(type_name).collect()
    }

    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        let name = msg.type_name().to_string();
        match self.take(|m| {
            m.kind == ActionKind::Send && m.role == role && m.peer == to && type_name(m.ty) == name
        }) {
            Some(_) => Ok(()),
            None => Err(Refused(msg)),
        }
    }

    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        match self.take(|m| {
            m.kind == ActionKind::Recv && m.role == role && from.is_none_or(|f| f == m.peer)
        }) {
            Some(m) => Ok((m.peer, Message::named(type_name(m.ty), ()))),
            None => Err(Refused(())),
        }
    }

    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        match self.take(|m| m.kind == ActionKind::Close && m.role == role && m.peer == to) {
            Some(_) => Ok(()),
            None => Err(Refused(())),
        }
    }

    fn is_terminated(&self) -> bool {
        self.table.terminal[self.state]
    }

    fn enabled(&self, out: &mut Vec<crate::Enabled>) -> bool {
        use crate::Enabled;
        if !self.table.lists {
            return false;
        }
        // In reverse order: the engine must not rely on the order.
        for m in self.table.moves[self.state].iter().rev() {
            out.push(match m.kind {
                ActionKind::Send => Enabled::Send {
                    role: m.role,
                    to: m.peer,
                    ty: m.ty,
                },
                ActionKind::Recv => Enabled::Recv {
                    role: m.role,
                    from: m.peer,
                },
                ActionKind::Close => Enabled::Close {
                    role: m.role,
                    to: m.peer,
                },
            });
        }
        true
    }

    fn peers(&self, role: RoleId) -> Option<Vec<RoleId>> {
        self.table.topology.then(|| {
            let mut v: Vec<RoleId> = self
                .table
                .moves
                .iter()
                .flatten()
                .filter(|m| m.role == role)
                .map(|m| m.peer)
                .collect();
            v.sort();
            v.dedup();
            v
        })
    }
}
