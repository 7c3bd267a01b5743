//! The protocol side of the search: interning protocol objects and probing
//! their actions, with a bounded successor cache.
//!
//! Every distinct protocol object is stored once, in `protos`, and named by
//! its index everywhere else; a product state is then two small integers.
//!
//! Probing is *resumable*: the search asks for "the first enabled action at
//! or after letter `l` that the automaton state wants", so a search frame
//! needs only a letter cursor, never a copy of its successor list. The
//! probes run on one scratch clone (a refused operation leaves the object
//! unchanged, so the scratch is reused until a probe succeeds). Complete
//! successor lists are cached in a fixed-size, direct-mapped cache so that
//! the same protocol state paired with other automaton states — or checked
//! against other formulas of a session — is not probed again; an evicted
//! entry costs only re-probing, never correctness.

use std::hash::BuildHasher;
use std::panic::{catch_unwind, AssertUnwindSafe};

use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashTable};

use crate::alphabet::{ActionKind, Alphabet, LetterId};
use crate::error::ProbeError;
use crate::protocol::{Message, Protocol, Refused};

/// Index of an interned protocol object.
pub(crate) type ProtoId = u32;

/// Final avalanche (MurmurHash3's fmix64). The fast default hasher leaves
/// the high bits of small, similar protocol states (a few integers that
/// differ in one bit) poorly mixed, and the table uses the high bits as
/// tags: without this, lookups degrade into long probe sequences.
#[inline]
fn mix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// One direct-mapped cache slot `[proto, start, len, epoch]`: the
/// successors of `proto` are `arena[start..start + len]`, valid if `epoch`
/// is current. Plain arrays so that the slot table is allocated zeroed
/// (pages never touched cost no memory).
type Slot = [u32; 4];

/// The letters an automaton state can use, as a bitset over probe slots
/// (for receives, the slot of type 0 stands for every type).
pub(crate) type Wanted<'a> = &'a [u64];

#[inline]
fn bit(set: &[u64], l: LetterId) -> bool {
    set[l as usize >> 6] >> (l & 63) & 1 != 0
}

/// An interned protocol object with the search's marks for it (see
/// [`Explorer::mark`]).
struct Stored<P> {
    p: P,
    marks: [u32; 2],
}

pub(crate) struct Explorer<P> {
    pub alphabet: Alphabet,
    protos: Vec<Stored<P>>,
    table: HashTable<ProtoId>,
    hasher: DefaultHashBuilder,
    slots: Vec<Slot>,
    slot_shift: u32,
    /// Successors `(letter, target)` of the cached states, in letter order.
    arena: Vec<(LetterId, ProtoId)>,
    arena_limit: usize,
    epoch: u32,
    /// A clone of `protos[scratch_of]`, kept between probes.
    scratch: Option<(ProtoId, P)>,
    /// One reusable message per sendable type (given back by refusals).
    msgs: Vec<Option<Message>>,
    determinism: bool,
    /// The probe slots to walk, in slot order (see [`probe_slots`]).
    probes: Vec<ProbeSlot>,
    /// `role_probes[r]..role_probes[r + 1]`: the probes of role `r` (the
    /// slots of a role are contiguous). A probe is found from a letter by a
    /// binary search within its role's few probes; a table indexed by
    /// letter (the alphabet grows with roles²) cost 4 bytes a letter.
    role_probes: Vec<u32>,
    /// The letter being probed, for the report if protocol code panics.
    current: LetterId,
    /// Bit per protocol state: it has been expanded before.
    expanded: Vec<u64>,
    /// Successor objects of one walk, before they are interned.
    batch: Vec<(LetterId, P)>,
    /// Bit per protocol state: a revisit of it has been re-probed (see
    /// [`Explorer::check_revisit`]); only the first revisit is, to bound
    /// the cost to one extra walk per stored state.
    revisited: Vec<u64>,
}

impl<P: Protocol> Explorer<P> {
    /// `cache_limit`: successor entries (8 bytes each) the cache may hold.
    pub fn new(alphabet: Alphabet, cache_limit: usize, determinism: bool) -> Self {
        let msgs = vec![None; alphabet.sendable];
        let arena_limit = cache_limit.clamp(alphabet.len(), u32::MAX as usize / 2);
        // About one slot per four entries, a power of two.
        let slot_bits = (arena_limit / 4).max(2).ilog2().clamp(8, 24);
        let probes = probe_slots(&alphabet, determinism);
        let n = alphabet.roles.len();
        let role_probes = (0..=n)
            .map(|r| probes.partition_point(|s| (s.role as usize) < r) as u32)
            .collect();
        Explorer {
            alphabet,
            protos: Vec::new(),
            table: HashTable::new(),
            hasher: DefaultHashBuilder::default(),
            slots: vec![[0u32; 4]; 1 << slot_bits],
            slot_shift: 32 - slot_bits,
            arena: Vec::new(),
            arena_limit,
            epoch: 1,
            scratch: None,
            msgs,
            determinism,
            probes,
            role_probes,
            current: 0,
            expanded: Vec::new(),
            batch: Vec::new(),
            revisited: Vec::new(),
        }
    }

    /// Records that `p` is being expanded; returns whether it had been
    /// before. A state expanded once is probed lazily (it may never be
    /// needed again); a state expanded again — with another automaton state
    /// or for another formula — is worth caching.
    pub fn mark_expanded(&mut self, p: ProtoId) -> bool {
        let (w, b) = (p as usize / 64, p % 64);
        if w >= self.expanded.len() {
            self.expanded
                .resize((w + 1).max(self.expanded.len() * 2), 0);
        }
        let before = self.expanded[w] >> b & 1 != 0;
        self.expanded[w] |= 1 << b;
        before
    }

    /// The search's number for the product state `(id, q)`, `q < 2`.
    ///
    /// Kept next to the object because the search looks it up right after
    /// [`intern`](Self::intern) has compared the object: the cache line is
    /// already loaded, where a separate array would cost a miss per
    /// transition.
    #[inline]
    pub fn mark(&self, id: ProtoId, q: u32) -> u32 {
        self.protos[id as usize].marks[q as usize]
    }

    #[inline]
    pub fn set_mark(&mut self, id: ProtoId, q: u32, n: u32) {
        self.protos[id as usize].marks[q as usize] = n;
    }

    /// Resets every mark to 0, for a new search.
    pub fn clear_marks(&mut self) {
        self.protos.iter_mut().for_each(|s| s.marks = [0; 2]);
    }

    pub fn num_protos(&self) -> usize {
        self.protos.len()
    }

    pub fn proto(&self, id: ProtoId) -> &P {
        &self.protos[id as usize].p
    }

    /// The index of `p`, storing it if it is new.
    pub fn intern(&mut self, p: P) -> ProtoId {
        match self.intern_or_give_back(p) {
            Ok(id) | Err((id, _)) => id,
        }
    }

    /// The index of `p`: `Ok` if `p` was new and is now stored, `Err` with
    /// `p` given back if an equal object was stored already (the revisit
    /// check compares the two).
    fn intern_or_give_back(&mut self, p: P) -> Result<ProtoId, (ProtoId, P)> {
        if self.table.len() == self.table.capacity() {
            self.grow_table();
        }
        let hash = mix(self.hasher.hash_one(&p));
        let protos = &self.protos;
        let hasher = &self.hasher;
        match self.table.entry(
            hash,
            |&i| protos[i as usize].p == p,
            |&i| mix(hasher.hash_one(&protos[i as usize].p)),
        ) {
            Entry::Occupied(e) => Err((*e.get(), p)),
            Entry::Vacant(v) => {
                let id = protos.len() as ProtoId;
                v.insert(id);
                self.protos.push(Stored { p, marks: [0; 2] });
                Ok(id)
            }
        }
    }

    /// Doubles the table, re-inserting the objects in id order.
    ///
    /// hashbrown would grow the table by itself, but it rehashes in table
    /// order, so every rehash reads a random object: a cache miss per
    /// stored state at each doubling (7 % of a large search). Reading
    /// `protos` front to back streams instead.
    #[cold]
    fn grow_table(&mut self) {
        let capacity = (2 * self.table.capacity()).max(64);
        let mut table = HashTable::with_capacity(capacity);
        let hasher = &self.hasher;
        let hash = |p: &P| mix(hasher.hash_one(p));
        for (id, s) in self.protos.iter().enumerate() {
            // Never grows: the capacity is reserved.
            table.insert_unique(hash(&s.p), id as ProtoId, |&i| {
                hash(&self.protos[i as usize].p)
            });
        }
        self.table = table;
    }

    #[inline]
    fn slot_of(&self, p: ProtoId) -> usize {
        (p.wrapping_mul(0x9E37_79B1) >> self.slot_shift) as usize
    }

    /// The cached successors of `p`, if present.
    #[inline]
    fn cached(&self, p: ProtoId) -> Option<&[(LetterId, ProtoId)]> {
        let [proto, start, len, epoch] = self.slots[self.slot_of(p)];
        (epoch == self.epoch && proto == p)
            .then(|| &self.arena[start as usize..(start + len) as usize])
    }

    pub fn is_cached(&self, p: ProtoId) -> bool {
        self.cached(p).is_some()
    }

    /// Probes the whole alphabet on `p` and caches the successors.
    pub fn fill(&mut self, p: ProtoId) -> Result<(), ProbeError> {
        if self.arena.len() + self.alphabet.len() > self.arena_limit {
            self.arena.clear();
            self.epoch = self.epoch.wrapping_add(1).max(1);
        }
        let start = self.arena.len();
        let mut arena = std::mem::take(&mut self.arena);
        let walked = self.probe_all(p, None, &mut arena);
        self.arena = arena;
        if let Err(e) = walked {
            self.arena.truncate(start);
            return Err(e);
        }
        let i = self.slot_of(p);
        self.slots[i] = [
            p,
            start as u32,
            (self.arena.len() - start) as u32,
            self.epoch,
        ];
        Ok(())
    }

    /// The first enabled action of `p` at or after letter `*cursor` that
    /// `wanted` contains (all, if `None`), with its target; `*cursor` is
    /// left at that letter's probe slot.
    #[inline]
    pub fn next_enabled(
        &mut self,
        p: ProtoId,
        cursor: &mut LetterId,
        wanted: Option<Wanted>,
        use_cache: bool,
    ) -> Result<Option<(LetterId, ProtoId)>, ProbeError> {
        if let Some(list) = use_cache.then(|| self.cached(p)).flatten() {
            let from = list.partition_point(|&(l, _)| l < *cursor);
            let a = &self.alphabet;
            let found = list[from..]
                .iter()
                .copied()
                .find(|&(l, _)| wanted.is_none_or(|w| bit(w, probe_slot(a, l))));
            if let Some((l, _)) = found {
                *cursor = probe_slot(a, l);
            }
            return Ok(found);
        }
        self.probe_from(p, cursor, wanted)
    }

    /// Appends every enabled action of `p` that `wanted` contains (all, if
    /// `None`), with its interned target, to `out`, in letter order.
    ///
    /// The same successors as repeated [`next_enabled`](Self::next_enabled)
    /// calls, but the alphabet is walked in one pass under one
    /// `catch_unwind`: a breadth-first search needs all successors at once,
    /// and the per-call bookkeeping (cursor, scratch hand-over, unwinding
    /// guard) was a fifth of its time.
    pub fn successors(
        &mut self,
        p: ProtoId,
        wanted: Option<Wanted>,
        use_cache: bool,
        out: &mut Vec<(LetterId, ProtoId)>,
    ) -> Result<(), ProbeError> {
        if let Some(list) = use_cache.then(|| self.cached(p)).flatten() {
            let a = &self.alphabet;
            out.extend(
                list.iter()
                    .filter(|&&(l, _)| wanted.is_none_or(|w| bit(w, probe_slot(a, l)))),
            );
            return Ok(());
        }
        let start = out.len();
        self.probe_all(p, wanted, out)
            .inspect_err(|_| out.truncate(start))
    }

    /// `p.is_terminated()`, with a panic in it reported like one in a
    /// probe (as the probe of the END letter) instead of escaping the check.
    pub fn is_terminated(&mut self, p: ProtoId) -> Result<bool, ProbeError> {
        self.current = self.alphabet.end();
        let obj = self.proto(p);
        let r = catch_unwind(AssertUnwindSafe(|| Ok(obj.is_terminated())));
        self.unwound(r)
    }

    /// Whether some action at all is enabled in `p`.
    pub fn any_enabled(&mut self, p: ProtoId) -> Result<bool, ProbeError> {
        let mut cursor = 0;
        Ok(self.next_enabled(p, &mut cursor, None, true)?.is_some())
    }

    /// Index in `probes` of the first probe whose slot is at or after
    /// letter `l`.
    #[inline]
    fn first_probe_at(&self, l: LetterId) -> usize {
        if l as usize >= self.alphabet.num_actions() {
            return self.probes.len();
        }
        let role = self.alphabet.letter(l).role;
        let (lo, hi) = (
            self.role_probes[role] as usize,
            self.role_probes[role + 1] as usize,
        );
        lo + self.probes[lo..hi].partition_point(|s| s.slot < l)
    }

    /// Probes slots from `*cursor` on, under `catch_unwind`.
    fn probe_from(
        &mut self,
        p: ProtoId,
        cursor: &mut LetterId,
        wanted: Option<Wanted>,
    ) -> Result<Option<(LetterId, ProtoId)>, ProbeError> {
        let r = catch_unwind(AssertUnwindSafe(|| {
            self.probe_loop(p, cursor, wanted, None)
        }));
        self.unwound(r)
    }

    /// Probes every slot, collecting the successors into `out`, under one
    /// `catch_unwind`.
    fn probe_all(
        &mut self,
        p: ProtoId,
        wanted: Option<Wanted>,
        out: &mut Vec<(LetterId, ProtoId)>,
    ) -> Result<(), ProbeError> {
        let mut cursor = 0;
        let r = catch_unwind(AssertUnwindSafe(|| {
            if wanted.is_none() && !self.determinism {
                self.probe_every_slot(p, out)
            } else {
                self.probe_loop(p, &mut cursor, wanted, Some(out))
                    .map(|_| ())
            }
        }));
        self.unwound(r)
    }

    /// The hot path of [`probe_all`](Self::probe_all): every slot wanted, no
    /// determinism check (release builds, breadth-first search). The same
    /// probes in the same order as [`probe_loop`](Self::probe_loop), as a
    /// plain loop: the successors are collected as objects first and
    /// interned after the walk, so the walk borrows the original object
    /// instead of looking it up again for every fresh scratch clone.
    fn probe_every_slot(
        &mut self,
        p: ProtoId,
        out: &mut Vec<(LetterId, ProtoId)>,
    ) -> Result<(), ProbeError> {
        let mut batch = std::mem::take(&mut self.batch);
        batch.clear();
        let original = &self.protos[p as usize].p;
        let (probes, msgs, alphabet) = (&self.probes, &mut self.msgs, &self.alphabet);
        let mut scratch = original.clone();
        let mut i = 0;
        while let Some(&s) = probes.get(i) {
            self.current = s.slot;
            let (role, peer) = (s.role as usize, s.peer as usize);
            match s.kind {
                ActionKind::Send => {
                    let ty = s.ty as usize;
                    let msg = msgs[ty].take().unwrap_or_else(|| {
                        alphabet.types[ty]
                            .dummy
                            .clone()
                            .expect("sendable types have a dummy")
                    });
                    match scratch.try_send(role, peer, msg) {
                        Ok(()) => {
                            batch.push((s.slot, std::mem::replace(&mut scratch, original.clone())))
                        }
                        Err(Refused(m)) => msgs[ty] = Some(m),
                    }
                }
                ActionKind::Recv => {
                    // As in `probe_loop`: one probe with `from: None` first.
                    let end = s.recv_end as usize;
                    if scratch.try_recv(role, None).is_ok() {
                        scratch = original.clone();
                        for r in &probes[i..end] {
                            self.current = r.slot;
                            let from = r.peer as usize;
                            if let Ok((sender, msg)) = scratch.try_recv(role, Some(from)) {
                                let letter =
                                    recv_letter(alphabet, r.slot, role, from, sender, &msg)?;
                                batch.push((
                                    letter,
                                    std::mem::replace(&mut scratch, original.clone()),
                                ));
                            }
                        }
                    }
                    i = end;
                    continue;
                }
                ActionKind::Close => {
                    if scratch.try_close(role, peer).is_ok() {
                        batch.push((s.slot, std::mem::replace(&mut scratch, original.clone())));
                    }
                }
            }
            i += 1;
        }
        out.extend(
            batch
                .drain(..)
                .map(|(letter, successor)| (letter, self.intern(successor))),
        );
        self.batch = batch;
        Ok(())
    }

    /// The result of a probe run under `catch_unwind`, a panic turned into
    /// [`ProbeError::Panic`].
    fn unwound<T>(
        &mut self,
        r: std::thread::Result<Result<T, ProbeError>>,
    ) -> Result<T, ProbeError> {
        match r {
            Ok(r) => r,
            Err(payload) => {
                // The unwound closure may have lost the scratch and a
                // reusable message; start the next probe afresh.
                self.scratch = None;
                self.msgs.iter_mut().for_each(|m| *m = None);
                let message = if let Some(s) = payload.downcast_ref::<&str>() {
                    s.to_string()
                } else if let Some(s) = payload.downcast_ref::<String>() {
                    s.clone()
                } else {
                    "(non-string panic payload)".to_string()
                };
                Err(ProbeError::Panic {
                    letter: self.current,
                    message,
                })
            }
        }
    }

    fn take_scratch(&mut self, p: ProtoId) -> P {
        match self.scratch.take() {
            Some((q, s)) if q == p => s,
            _ => self.protos[p as usize].p.clone(),
        }
    }

    /// Walks the probe slots from `*cursor` on in alphabet order (per role:
    /// sends by receiver and type, receives by sender, closes by peer) and
    /// stops at the first enabled one that `wanted` contains; or, with
    /// `all`, collects every such one there and walks on. Only the slots of
    /// [`probe_slots`] are walked: pairs outside the topology cost nothing.
    fn probe_loop(
        &mut self,
        p: ProtoId,
        cursor: &mut LetterId,
        wanted: Option<Wanted>,
        mut all: Option<&mut Vec<(LetterId, ProtoId)>>,
    ) -> Result<Option<(LetterId, ProtoId)>, ProbeError> {
        // The scratch clone is made when a probe needs it: after a success
        // in `all` mode the next one may never come.
        let mut scratch = Some(self.take_scratch(p));
        macro_rules! scratch {
            () => {
                scratch.get_or_insert_with(|| self.protos[p as usize].p.clone())
            };
        }
        // A probe succeeded: the scratch is the successor. Stop there, or
        // collect it and walk on.
        macro_rules! found {
            ($slot:expr, $letter:expr) => {{
                let successor = scratch.take().expect("the probe ran on the scratch");
                let s = self.found(successor, $letter)?;
                match all.as_deref_mut() {
                    Some(out) => out.push(s),
                    None => {
                        *cursor = $slot;
                        return Ok(Some(s));
                    }
                }
            }};
        }
        let want =
            |slot: LetterId| wanted.is_none_or(|w| w[slot as usize >> 6] >> (slot & 63) & 1 != 0);
        let mut i = self.first_probe_at(*cursor);
        while let Some(&s) = self.probes.get(i) {
            let (role, peer) = (s.role as usize, s.peer as usize);
            match s.kind {
                ActionKind::Send => {
                    if want(s.slot) && {
                        let sc = scratch!();
                        self.probe_send(p, sc, role, peer, s.ty as usize, s.slot)?
                    } {
                        found!(s.slot, s.slot);
                    }
                }
                ActionKind::Recv => {
                    // The role's receive slots from here on, one per sender.
                    let end = s.recv_end as usize;
                    let any_wanted = self.probes[i..end].iter().any(|r| want(r.slot));
                    // One probe with `from: None` tells whether any sender is
                    // possible at all (contract of `try_recv`); the
                    // determinism check verifies that instead of relying on it.
                    let none_refused = any_wanted && !self.determinism && {
                        self.current = s.slot;
                        match scratch!().try_recv(role, None) {
                            Err(_) => true,
                            Ok(_) => {
                                scratch = None;
                                false
                            }
                        }
                    };
                    if any_wanted && !none_refused {
                        for j in i..end {
                            let r = self.probes[j];
                            if want(r.slot) {
                                let sc = scratch!();
                                if let Some(letter) =
                                    self.probe_recv(p, sc, role, r.peer as usize, r.slot)?
                                {
                                    found!(r.slot, letter);
                                }
                            }
                        }
                    }
                    i = end;
                    continue;
                }
                ActionKind::Close => {
                    if want(s.slot) && {
                        let sc = scratch!();
                        self.probe_close(p, sc, role, peer, s.slot)?
                    } {
                        found!(s.slot, s.slot);
                    }
                }
            }
            i += 1;
        }
        *cursor = self.alphabet.num_actions() as LetterId;
        if let Some(sc) = scratch {
            self.scratch = Some((p, sc));
        }
        Ok(None)
    }

    /// A probe of `letter` succeeded: checks it against the topology and
    /// interns the successor.
    #[inline]
    fn found(&mut self, successor: P, letter: LetterId) -> Result<(LetterId, ProtoId), ProbeError> {
        // Without the determinism check only the declared channels are
        // probed (see `probe_slots`), so only with it can a probe succeed
        // outside the declared topology.
        if self.determinism && !self.alphabet.allowed(letter) {
            let l = self.alphabet.letter(letter);
            let (from, to) = match l.kind {
                ActionKind::Recv => (l.peer, l.role),
                ActionKind::Send | ActionKind::Close => (l.role, l.peer),
            };
            return Err(ProbeError::Contract {
                letter,
                detail: format!(
                    "it succeeded, but the object's topology (peers() or sends_to()) has no \
                     channel from {} to {}",
                    self.alphabet.roles[from], self.alphabet.roles[to]
                ),
            });
        }
        if !self.determinism {
            return Ok((letter, self.intern(successor)));
        }
        match self.intern_or_give_back(successor) {
            Ok(id) => Ok((letter, id)),
            Err((id, successor)) => {
                let (w, b) = (id as usize / 64, id % 64);
                if w >= self.revisited.len() {
                    self.revisited
                        .resize((w + 1).max(self.revisited.len() * 2), 0);
                }
                if self.revisited[w] >> b & 1 == 0 {
                    self.revisited[w] |= 1 << b;
                    // A panic in protocol code during this extra check is
                    // left to the search, which reports it with the trace
                    // to the state where it happens when it probes there
                    // (the stored state, equal to this one); reported from
                    // here it would name the wrong state, and an error
                    // that is being reported (whose trace is rebuilt by
                    // re-probing) would lose its trace.
                    let checked = catch_unwind(AssertUnwindSafe(|| {
                        self.check_revisit(id, &successor, letter)
                    }));
                    if let Ok(r) = checked {
                        r?;
                    }
                }
                Ok((letter, id))
            }
        }
    }

    /// Determinism check on a revisit: `again`, reached by `letter`, is
    /// equal (`Eq`) to the stored state `id`, so the search will take the
    /// stored state's successors for it; it must then behave the same. Both
    /// are probed in every probe slot the explorer walks and must agree on
    /// every outcome and give equal successors. Two equal objects that
    /// behave differently mean that `Eq` (or `Hash`) ignores something that
    /// decides what the object can do — which the two-probe check cannot
    /// see, as it only ever probes clones of one object.
    fn check_revisit(
        &mut self,
        id: ProtoId,
        again: &P,
        letter: LetterId,
    ) -> Result<(), ProbeError> {
        let stored = &self.protos[id as usize].p;
        let differ = |what: String| ProbeError::Nondeterminism {
            letter,
            detail: format!(
                "(here: the one this action led to and the equal stored protocol state #{id}) \
                 behaved differently: {what}; their Eq/Hash must ignore something that decides \
                 what the object can do"
            ),
        };
        if stored.is_terminated() != again.is_terminated() {
            return Err(differ(format!(
                "is_terminated() was {} on the stored object and {} on the new one",
                stored.is_terminated(),
                again.is_terminated()
            )));
        }
        let (a, b) = (self.walk(stored), self.walk(again));
        let outcome = |r: Option<&(LetterId, String, P)>, slot: LetterId| match r {
            Some((s, got, _)) if *s == slot => format!("succeeded{got}"),
            _ => "was refused".to_string(),
        };
        for i in 0..a.len().max(b.len()) {
            let (x, y) = (a.get(i), b.get(i));
            let same = match (x, y) {
                (Some((s, g, p)), Some((t, h, q))) if s == t && g == h => {
                    if p != q {
                        return Err(differ(format!(
                            "`{}` succeeded on both but left two different objects",
                            describe_slot(&self.alphabet, *s)
                        )));
                    }
                    true
                }
                _ => false,
            };
            if !same {
                // The first slot where they part: the earlier of the two.
                let slot = [x, y].into_iter().flatten().map(|e| e.0).min().unwrap_or(0);
                return Err(differ(format!(
                    "`{}` {} on the stored object and {} on the new one",
                    describe_slot(&self.alphabet, slot),
                    outcome(x, slot),
                    outcome(y, slot)
                )));
            }
        }
        Ok(())
    }

    /// The enabled actions of `obj`: `(probe slot, what came out, the
    /// successor)` for every probe slot that succeeds, in slot order. One
    /// scratch clone serves until a probe succeeds, as in the search (a
    /// refusal leaves the object unchanged), so the walk costs a clone per
    /// enabled action rather than per slot.
    fn walk(&self, obj: &P) -> Vec<(LetterId, String, P)> {
        let mut out = Vec::new();
        let mut scratch = obj.clone();
        for s in &self.probes {
            let (role, peer) = (s.role as usize, s.peer as usize);
            let got = match s.kind {
                ActionKind::Send => scratch
                    .try_send(role, peer, self.dummy(s.ty as usize))
                    .is_ok()
                    .then(String::new),
                ActionKind::Recv => scratch
                    .try_recv(role, Some(peer))
                    .ok()
                    .map(|(from, m)| format!(" with `{}` from role #{from}", m.type_path())),
                ActionKind::Close => scratch.try_close(role, peer).is_ok().then(String::new),
            };
            if let Some(got) = got {
                out.push((s.slot, got, std::mem::replace(&mut scratch, obj.clone())));
            }
        }
        out
    }

    /// Performs the action `letter` on `obj` itself (no probing, no clone),
    /// as a run of the protocol would: the re-execution of a counterexample
    /// under the determinism check. `Err` says how the object did not
    /// follow.
    pub fn step_on(&self, obj: &mut P, letter: LetterId) -> Result<(), String> {
        let l = self.alphabet.letter(letter);
        match l.kind {
            ActionKind::Send => obj
                .try_send(l.role, l.peer, self.dummy(l.ty))
                .map_err(|_| "it was refused".to_string()),
            ActionKind::Close => obj
                .try_close(l.role, l.peer)
                .map_err(|_| "it was refused".to_string()),
            ActionKind::Recv => match obj.try_recv(l.role, Some(l.peer)) {
                Err(_) => Err("it was refused".to_string()),
                Ok((from, m)) if from == l.peer && self.alphabet.type_of(&m) == Some(l.ty) => {
                    Ok(())
                }
                Ok((from, m)) => Err(format!(
                    "it received `{}` from role #{from} instead",
                    m.type_path()
                )),
            },
        }
    }

    /// The first action enabled in `obj`, probed on fresh clones in the
    /// explorer's probe slots (so in the same places the search looks).
    pub fn first_enabled_on(&self, obj: &P) -> Option<LetterId> {
        self.probes.iter().find_map(|s| {
            let mut o = obj.clone();
            let (role, peer) = (s.role as usize, s.peer as usize);
            let ok = match s.kind {
                ActionKind::Send => o.try_send(role, peer, self.dummy(s.ty as usize)).is_ok(),
                ActionKind::Recv => o.try_recv(role, Some(peer)).is_ok(),
                ActionKind::Close => o.try_close(role, peer).is_ok(),
            };
            ok.then_some(s.slot)
        })
    }

    fn probe_send(
        &mut self,
        p: ProtoId,
        scratch: &mut P,
        role: usize,
        to: usize,
        ty: usize,
        l: LetterId,
    ) -> Result<bool, ProbeError> {
        self.current = l;
        let msg = match self.msgs[ty].take() {
            Some(m) => m,
            None => self.dummy(ty),
        };
        match scratch.try_send(role, to, msg) {
            Err(Refused(m)) => {
                self.msgs[ty] = Some(m);
                if self.determinism {
                    self.check_refusal(p, scratch, l, |o, d| {
                        o.try_send(role, to, d.unwrap()).is_err()
                    })?;
                }
                Ok(false)
            }
            Ok(()) => {
                if self.determinism {
                    let d = self.dummy(ty);
                    self.check_success(p, scratch, l, move |o| o.try_send(role, to, d).is_ok())?;
                }
                Ok(true)
            }
        }
    }

    fn probe_close(
        &mut self,
        p: ProtoId,
        scratch: &mut P,
        role: usize,
        to: usize,
        l: LetterId,
    ) -> Result<bool, ProbeError> {
        self.current = l;
        match scratch.try_close(role, to) {
            Err(Refused(())) => {
                if self.determinism {
                    self.check_refusal(p, scratch, l, |o, _| o.try_close(role, to).is_err())?;
                }
                Ok(false)
            }
            Ok(()) => {
                if self.determinism {
                    self.check_success(p, scratch, l, move |o| o.try_close(role, to).is_ok())?;
                }
                Ok(true)
            }
        }
    }

    /// Probes a receive from `from`; the letter depends on the type that
    /// comes out.
    fn probe_recv(
        &mut self,
        p: ProtoId,
        scratch: &mut P,
        role: usize,
        from: usize,
        l: LetterId,
    ) -> Result<Option<LetterId>, ProbeError> {
        self.current = l;
        match scratch.try_recv(role, Some(from)) {
            Err(Refused(())) => {
                if self.determinism {
                    self.check_refusal(p, scratch, l, |o, _| {
                        o.try_recv(role, Some(from)).is_err()
                    })?;
                }
                Ok(None)
            }
            Ok((sender, msg)) => {
                let letter = recv_letter(&self.alphabet, l, role, from, sender, &msg)?;
                if self.determinism {
                    let original = &self.protos[p as usize].p;
                    if original.clone().try_recv(role, None).is_err() {
                        return Err(ProbeError::Contract {
                            letter: l,
                            detail: "try_recv(from: None) was refused, but naming this sender succeeded \
                                     (None must mean \"from any sender\")"
                                .into(),
                        });
                    }
                    if !(original.may_recv(role, Some(from)) && original.may_recv(role, None)) {
                        return Err(ProbeError::Contract {
                            letter: l,
                            detail: "it succeeded, but the object's may_recv() said that it \
                                     would be refused"
                                .into(),
                        });
                    }
                    let path = msg.type_path().to_string();
                    self.check_success(p, scratch, l, move |o| {
                        matches!(o.try_recv(role, Some(from)), Ok((s, m)) if s == from && m.type_path() == path)
                    })?;
                }
                Ok(Some(letter))
            }
        }
    }

    fn dummy(&self, ty: usize) -> Message {
        self.alphabet.types[ty]
            .dummy
            .clone()
            .expect("sendable types have a dummy")
    }

    /// Determinism check for a refusal: the object must be unchanged, and
    /// the same probe on another clone must be refused too.
    fn check_refusal(
        &self,
        p: ProtoId,
        scratch: &P,
        letter: LetterId,
        probe: impl FnOnce(&mut P, Option<Message>) -> bool,
    ) -> Result<(), ProbeError> {
        let original = &self.protos[p as usize].p;
        if scratch != original {
            return Err(ProbeError::Contract {
                letter,
                detail: "it was refused but changed the object (a refusal must leave no trace)"
                    .into(),
            });
        }
        let mut twin = original.clone();
        let l = &self.alphabet.letter(letter);
        let msg = (l.kind == ActionKind::Send).then(|| self.dummy(l.ty));
        if !probe(&mut twin, msg) {
            return Err(ProbeError::Nondeterminism {
                letter,
                detail: "was refused on one and succeeded on the other".into(),
            });
        }
        Ok(())
    }

    /// Determinism check for a success: the same probe on another clone
    /// must succeed the same way and give an equal object.
    fn check_success(
        &self,
        p: ProtoId,
        scratch: &P,
        letter: LetterId,
        probe: impl FnOnce(&mut P) -> bool,
    ) -> Result<(), ProbeError> {
        let mut twin = self.protos[p as usize].p.clone();
        if !probe(&mut twin) {
            return Err(ProbeError::Nondeterminism {
                letter,
                detail: "succeeded on one and was refused (or gave another message) on the other"
                    .into(),
            });
        }
        if &twin != scratch {
            return Err(ProbeError::Nondeterminism {
                letter,
                detail: "succeeded on both but left two different objects".into(),
            });
        }
        Ok(())
    }
}

/// The letter of a receive probed in slot `l` as `try_recv(role,
/// Some(from))`, which gave `msg` from `sender`; a contract error if the
/// object answered for another sender or with a type nobody declared.
#[inline]
fn recv_letter(
    alphabet: &Alphabet,
    l: LetterId,
    role: usize,
    from: usize,
    sender: usize,
    msg: &Message,
) -> Result<LetterId, ProbeError> {
    let Some(ty) = alphabet.type_of(msg) else {
        return Err(ProbeError::Contract {
            letter: l,
            detail: format!(
                "it received a message of type `{}`, which is neither a dummy's type nor one of the \
                 protocol's type_names()",
                msg.type_path()
            ),
        });
    };
    if alphabet.declares && !alphabet.types[ty].declared {
        // A dummy's type, but not one the object declares: its
        // type_names() are wrong, and with them the check of the dummies.
        return Err(ProbeError::Contract {
            letter: l,
            detail: format!(
                "it received a message of type `{}`, which is not one of the protocol's \
                 type_names() ({})",
                msg.type_path(),
                alphabet
                    .types
                    .iter()
                    .filter(|t| t.declared)
                    .map(|t| t.short())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
    }
    if sender != from {
        return Err(ProbeError::Contract {
            letter: l,
            detail: format!("try_recv(from: Some({from})) returned a message from role #{sender}"),
        });
    }
    Ok(alphabet.recv(role, from, ty))
}

/// One probe slot to walk: a send of one type to one peer, the receive
/// from one sender (whatever type comes out), or a close to one peer.
#[derive(Clone, Copy, Debug)]
struct ProbeSlot {
    slot: LetterId,
    kind: ActionKind,
    role: u32,
    peer: u32,
    ty: u32,
    /// Receives: index in the list one past the role's last receive slot.
    recv_end: u32,
}

/// The slots worth probing, in slot order: sends and closes along the
/// channels of [`Alphabet::channel`], receives against them (every pair
/// under the determinism check, which probes them all to verify the
/// topology hints), sends only of the types that have a dummy.
fn probe_slots(a: &Alphabet, determinism: bool) -> Vec<ProbeSlot> {
    let (n, nt) = (a.roles.len(), a.types.len());
    // `from` may send or close to `to` (and `to` receive from `from`).
    let channel = |from: usize, to: usize| from != to && (determinism || a.channel[from * n + to]);
    let mut out = Vec::new();
    let push =
        |out: &mut Vec<ProbeSlot>, slot: usize, kind, role: usize, peer: usize, ty: usize| {
            out.push(ProbeSlot {
                slot: slot as LetterId,
                kind,
                role: role as u32,
                peer: peer as u32,
                ty: ty as u32,
                recv_end: 0,
            })
        };
    for role in 0..n {
        let base = role * (2 * n * nt + n);
        for to in (0..n).filter(|&to| channel(role, to)) {
            for ty in 0..a.sendable {
                push(
                    &mut out,
                    base + to * nt + ty,
                    ActionKind::Send,
                    role,
                    to,
                    ty,
                );
            }
        }
        let first = out.len();
        for from in (0..n).filter(|&from| channel(from, role)) {
            let slot = a.recv(role, from, 0) as usize;
            push(&mut out, slot, ActionKind::Recv, role, from, 0);
        }
        let end = out.len() as u32;
        out[first..].iter_mut().for_each(|s| s.recv_end = end);
        for to in (0..n).filter(|&to| channel(role, to)) {
            push(
                &mut out,
                base + 2 * n * nt + to,
                ActionKind::Close,
                role,
                to,
                0,
            );
        }
    }
    debug_assert!(out.windows(2).all(|w| w[0].slot < w[1].slot));
    debug_assert!(out.iter().all(|s| a.letter(s.slot).kind == s.kind));
    out
}

/// A probe slot as people read it (receives without a type: it is the
/// object that picks one).
fn describe_slot(a: &Alphabet, slot: LetterId) -> String {
    let l = a.letter(slot);
    if l.kind == ActionKind::Recv {
        format!("{} RECV FROM {}", a.roles[l.role], a.roles[l.peer])
    } else {
        a.describe(slot)
    }
}

/// The probe slot of a letter: receives are probed once per sender, in the
/// slot of type 0, whatever type comes out.
#[inline]
pub(crate) fn probe_slot(a: &Alphabet, l: LetterId) -> LetterId {
    let letter = a.letter(l);
    if letter.kind == ActionKind::Recv {
        a.recv(letter.role, letter.peer, 0)
    } else {
        l
    }
}

/// The probe slot after the one of letter `l`.
#[inline]
pub(crate) fn next_slot(a: &Alphabet, l: LetterId) -> LetterId {
    let letter = a.letter(l);
    if letter.kind == ActionKind::Recv {
        a.recv(letter.role, letter.peer, 0) + a.types.len() as LetterId
    } else {
        l + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checking the dummies keeps a declaring object's alphabet to its
    /// declared types; should an undeclared dummy type get in all the same,
    /// a receive of it is still a contract violation, not a new type.
    #[test]
    fn a_declaring_objects_receive_of_an_undeclared_dummy_type_is_a_contract_error() {
        let a = Alphabet::new(
            vec!["a".into(), "b".into()],
            vec![Message::named("Ping", ()), Message::named("Extra", ())],
            vec!["Ping".into()],
        );
        let l = a.recv(1, 0, 0);
        let ok = recv_letter(&a, l, 1, 0, 0, &Message::named("Ping", ()));
        assert_eq!(ok.unwrap(), a.recv(1, 0, 0));
        match recv_letter(&a, l, 1, 0, 0, &Message::named("Extra", ())) {
            Err(ProbeError::Contract { detail, .. }) => {
                assert!(
                    detail.contains("not one of the protocol's type_names() (Ping)"),
                    "{detail}"
                )
            }
            other => panic!("{other:?}"),
        }
        // A declared short name under another path is that declared type.
        let ok = recv_letter(&a, l, 1, 0, 0, &Message::named("x::Ping", ()));
        assert_eq!(ok.unwrap(), a.recv(1, 0, 0));
        // An object that declares nothing: the dummies are its types.
        let a = Alphabet::new(
            vec!["a".into(), "b".into()],
            vec![Message::named("Extra", ())],
            vec![],
        );
        let extra = recv_letter(&a, l, 1, 0, 0, &Message::named("Extra", ()));
        assert_eq!(extra.unwrap(), a.recv(1, 0, 0));
    }
}
