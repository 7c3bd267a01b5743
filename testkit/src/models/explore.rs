//! The reference explorer: counts a model's states through its
//! try-operations alone, independent of the engine, with the prunings and
//! set layouts it measures. Its own file: it reads models, it is none.

use std::collections::{HashSet, VecDeque};
use std::hash::BuildHasher;

use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashTable};

use engine::{Message, Protocol, Refused, RoleId};

/// What [`explore`] found.
pub struct Explored {
    /// States reached.
    pub states: u64,
    /// Transitions taken.
    pub transitions: u64,
    /// States in which no action is enabled.
    pub stuck: u64,
}

/// Probe pruning for [`explore`], to measure what each would save an
/// engine. Neither is in the engine; both are sound only under an
/// assumption stated with the field.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pruning {
    /// Probe only along the channels that [`Protocol::sends_to`] (or else
    /// [`Protocol::peers`]) declares (the object's static communication
    /// topology), as the engine does.
    pub peers: bool,
    /// Probe `try_recv(role, None)` first and skip the role's per-sender
    /// receive probes when it is refused (sound if `None` means "from any
    /// sender", as the trait's documentation says).
    pub recv_any: bool,
    /// Not a pruning: take states last-in first-out (a depth-first order
    /// of expansion) instead of breadth-first, to see what the order does
    /// to the cache behaviour of the visited set.
    pub lifo: bool,
}

/// How [`explore`] stores the states it has seen, to measure what the
/// layout of a visited set costs with everything else equal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Store {
    /// `std::collections::HashSet<P>` (SipHash), objects inline.
    #[default]
    Std,
    /// `hashbrown::HashSet<P>` (foldhash), objects inline.
    Inline,
    /// Objects in a `Vec<P>`, a `hashbrown::HashTable<u32>` of their
    /// indices (foldhash): the engine's interning layout, where a lookup
    /// that finds the state reads the table and then the `Vec`.
    Interned,
}

/// A set of seen states behind one of the [`Store`] layouts.
enum Seen<P> {
    Std(HashSet<P>),
    Inline(hashbrown::HashSet<P>),
    Interned {
        table: HashTable<u32>,
        objects: Vec<P>,
        hasher: DefaultHashBuilder,
    },
}

impl<P: Protocol> Seen<P> {
    fn new(store: Store) -> Self {
        match store {
            Store::Std => Seen::Std(HashSet::new()),
            Store::Inline => Seen::Inline(hashbrown::HashSet::new()),
            Store::Interned => Seen::Interned {
                table: HashTable::new(),
                objects: Vec::new(),
                hasher: DefaultHashBuilder::default(),
            },
        }
    }

    /// Whether `p` is new; stores a clone of it if so.
    fn insert(&mut self, p: &P) -> bool {
        match self {
            Seen::Std(s) => !s.contains(p) && s.insert(p.clone()),
            Seen::Inline(s) => !s.contains(p) && s.insert(p.clone()),
            Seen::Interned {
                table,
                objects,
                hasher,
            } => {
                let entry = table.entry(
                    hasher.hash_one(p),
                    |&i| objects[i as usize] == *p,
                    |&i| hasher.hash_one(&objects[i as usize]),
                );
                match entry {
                    Entry::Occupied(_) => false,
                    Entry::Vacant(v) => {
                        v.insert(objects.len() as u32);
                        objects.push(p.clone());
                        true
                    }
                }
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            Seen::Std(s) => s.len(),
            Seen::Inline(s) => s.len(),
            Seen::Interned { objects, .. } => objects.len(),
        }
    }
}

/// Reference explorer, independent of the engine: breadth-first search over
/// the object's states through its try-operations alone, probing every
/// action of the full alphabet (sends with each dummy to every other role,
/// receives from every other role, closes to every other role), less what
/// `pruning` skips.
///
/// It probes in place on one working copy and clones only when a probe
/// succeeds: the trait's contract says a refused operation leaves the
/// object unchanged. Unpruned, this is the floor for any try-op based
/// search that probes the whole alphabet in every state.
pub fn explore<P: Protocol>(
    init: P,
    dummies: &[Message],
    pruning: Pruning,
    store: Store,
) -> Explored {
    let roles = init.roles().len();
    // The channels out of each role (`sends_to`, else `peers`, else every
    // other role), and into it.
    let outgoing: Vec<Vec<RoleId>> = (0..roles)
        .map(|r| {
            let all = || (0..roles).filter(|&p| p != r).collect();
            if pruning.peers {
                init.sends_to(r)
                    .or_else(|| init.peers(r))
                    .unwrap_or_else(all)
            } else {
                all()
            }
        })
        .collect();
    let incoming: Vec<Vec<RoleId>> = (0..roles)
        .map(|r| (0..roles).filter(|&f| outgoing[f].contains(&r)).collect())
        .collect();
    let mut seen = Seen::new(store);
    let mut queue = VecDeque::new();
    seen.insert(&init);
    queue.push_back(init);
    let (mut transitions, mut stuck) = (0, 0);
    let mut spare: Vec<Option<Message>> = vec![None; dummies.len()];
    while let Some(state) = if pruning.lifo {
        queue.pop_back()
    } else {
        queue.pop_front()
    } {
        let mut work = state.clone();
        let mut enabled = 0;
        let mut found = |succ: &mut P, enabled: &mut u64| {
            *enabled += 1;
            let next = std::mem::replace(succ, state.clone());
            if seen.insert(&next) {
                queue.push_back(next);
            }
        };
        for role in 0..roles {
            for &peer in &outgoing[role] {
                for (ty, dummy) in dummies.iter().enumerate() {
                    // A refusal gives the message back for the next probe.
                    let msg = spare[ty].take().unwrap_or_else(|| dummy.clone());
                    match work.try_send(role, peer, msg) {
                        Ok(()) => found(&mut work, &mut enabled),
                        Err(Refused(msg)) => spare[ty] = Some(msg),
                    }
                }
            }
            // The receive probe with `None` succeeds iff one with some
            // sender does; on success, undo it by starting afresh.
            let may_recv = !pruning.recv_any || {
                let ok = work.try_recv(role, None).is_ok();
                if ok {
                    work = state.clone();
                }
                ok
            };
            if may_recv {
                for &from in &incoming[role] {
                    if work.try_recv(role, Some(from)).is_ok() {
                        found(&mut work, &mut enabled);
                    }
                }
            }
            for &peer in &outgoing[role] {
                if work.try_close(role, peer).is_ok() {
                    found(&mut work, &mut enabled);
                }
            }
        }
        transitions += enabled;
        stuck += u64::from(enabled == 0);
    }
    Explored {
        states: seen.len() as u64,
        transitions,
        stuck,
    }
}
