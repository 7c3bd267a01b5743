//! The `Checker` builder, sessions and the check pipeline:
//! formula → atoms → automaton of the negation → product search → report.

use std::time::Duration;

use crate::fairness::Fairness;
use crate::hint::Audience;
use crate::limits::Limits;
use crate::semantics::Semantics;
#[cfg(doc)]
use crate::{error::Error, report::Counterexample, report::Report, report::Verdict, Protocol};

mod env;
mod graph;
mod run;
mod session;
mod shorten;
mod threads;

pub use crate::share::Share;
pub use graph::{ProductEdge, ProductGraph};
pub(crate) use run::object_op;
pub use run::{check, check_violated, try_check};
pub use session::CheckSession;

/// A configurable check. Every option defaults from its environment
/// variable (`max_states` from `PRUST_MAX_STATES`, `timeout` from
/// `PRUST_TIMEOUT`, …; the [table](mod@crate::env) says what each takes and
/// its default), so a failing test can be rerun with other limits without
/// changing its code.
///
/// Every limit that stops a search makes it [`Verdict::Inconclusive`] with
/// its own [`Limit`](crate::Limit), never [`Verdict::Holds`]. The time and
/// memory limits are checked as the search runs (the clock every 16 steps,
/// the memory every few milliseconds), so they overshoot by a few steps of
/// the object, not by a fixed number of states.
///
/// [`Checker::from_env`] reports a variable that does not parse as
/// [`Error::Config`]; [`Checker::new`] panics with the same message.
///
/// ```
/// use engine::{Checker, Semantics};
/// let checker = Checker::new().max_states(1_000_000).semantics(Semantics::Stutter);
/// # let _ = checker;
/// ```
#[derive(Debug, Clone)]
pub struct Checker {
    /// What the check may spend; the defaults are applied when a session
    /// starts (see [`Checker::limits`]).
    limits: Limits,
    /// Show the progress line (`None`: when stderr is a terminal).
    progress: Option<bool>,
    /// When the first progress line may show.
    progress_after: Duration,
    semantics: Semantics,
    /// Which runs may refute a liveness property.
    fairness: Fairness,
    determinism: bool,
    cache_limit: usize,
    /// Where [`assert_holds`](Self::assert_holds) saves counterexamples.
    trail_dir: Option<std::path::PathBuf>,
    /// Use partial-order reduction where it applies.
    por: bool,
    /// Shorten counterexamples: always (`Some(true)`, within the limits),
    /// never, or (`None`) where it costs at most one and a half times the
    /// search.
    shortest: Option<bool>,
    /// Store 64-bit fingerprints instead of states.
    hash_compaction: bool,
    /// Bitstate hashing: the bits of the array.
    bitstate: Option<u64>,
    /// Store the bytes of objects that encode themselves.
    /// `None`: as the object prefers ([`Protocol::prefers_bytes`]).
    collapse: Option<bool>,

    /// Threads of the breadth-first search (at least 1).
    threads: usize,
    /// Whether `threads` was asked for ([`threads`](Self::threads),
    /// `PRUST_THREADS`) rather than taken from the machine: only then are
    /// objects stored whole that hold heap allocations searched on several
    /// threads (see [`threads`](Self::threads)).
    threads_chosen: bool,
    /// Levels of fewer states are searched by the calling thread alone.
    parallel_level: usize,

    /// Search only this share of the state space (several machines).
    share: Option<Share>,
    /// The breadth-first level whose states are dealt out to the shares;
    /// `None`: the first with `SHARE_STATES` states a share.
    share_level: Option<u64>,

    /// Who the reports' hints are worded for.
    audience: Audience,
}

impl Default for Checker {
    fn default() -> Self {
        Self::new()
    }
}

impl Checker {
    /// A checker with the defaults, overridden by the `PRUST_*`
    /// environment variables (see the table above).
    ///
    /// # Panics
    /// If one of the variables is set to something that does not parse,
    /// with the message of the [`Error::Config`] that
    /// [`from_env`](Self::from_env) returns.
    pub fn new() -> Checker {
        Self::from_env().unwrap_or_else(|e| panic!("prust: {e}"))
    }
    /// Stop (inconclusive) after this many product states.
    pub fn max_states(mut self, n: u64) -> Self {
        self.limits.max_states = Some(n);
        self
    }

    /// Do not explore states more than `n` steps from the initial one (the
    /// verdict is then at best inconclusive).
    pub fn max_depth(mut self, n: u64) -> Self {
        self.limits.max_depth = Some(n);
        self
    }

    /// Stop (inconclusive, [`Limit::Time`](crate::Limit::Time)) after this
    /// much wall-clock time. The clock starts anew for every formula, at its
    /// text: the translation, the atoms and the reduction's analysis count,
    /// not only the search. In a [`CheckSession`] each
    /// [`check`](CheckSession::check) has the whole timeout. Any `Duration`
    /// is accepted (`Duration::MAX` never runs out). The default is 60 s,
    /// sized for a test ([`DefaultBudgets::Test`](crate::DefaultBudgets)).
    pub fn timeout(mut self, t: Duration) -> Self {
        self.limits.timeout = Some(t);
        self
    }

    /// Stop (inconclusive, [`Limit::Memory`](crate::Limit::Memory)) once
    /// the process's resident memory passes `bytes`. `u64::MAX` turns the
    /// limit off.
    ///
    /// On by default, at [`default_max_memory`](crate::default_max_memory)
    /// when a session starts: half the memory available (Linux
    /// `MemAvailable`) or half the cgroup's `memory.max`, whichever is
    /// smaller, and at most a quarter of the address space that
    /// `RLIMIT_AS` leaves; 4 GiB where that is unknown; and at most 2 GiB
    /// (sized for a test: [`DefaultBudgets::Test`](crate::DefaultBudgets);
    /// the `prust` CLI takes all of it). The translation of the formula
    /// counts against it too. The resident size is the whole process's (Linux `VmRSS`),
    /// read every few milliseconds and every 8,192 steps, so it counts
    /// everything the search holds (stored states, their successors, the
    /// search stack) and a single state that grows huge; it also counts what
    /// the rest of the process holds. Where the platform does not report it
    /// (not Linux) this limit is not enforced.
    ///
    /// ```
    /// use engine::Checker;
    /// let checker = Checker::new().max_memory(512 << 20); // 512 MiB
    /// # let _ = checker;
    /// ```
    pub fn max_memory(mut self, bytes: u64) -> Self {
        self.limits.max_memory = Some(bytes);
        self
    }

    /// What this checker's checks may spend, as set (by the variables and
    /// the builder methods), the defaults not yet applied: the value a
    /// front end hands to the build of the object it checks, so that the
    /// build and the search are bounded by one [`Limits`] (see its table
    /// for what each field means to each).
    ///
    /// ```
    /// use engine::{Checker, Limits};
    /// let checker = Checker::new().max_states(1_000);
    /// let limits: Limits = checker.limits();
    /// assert_eq!(limits.max_states, Some(1_000));
    /// ```
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The limits of a search by this checker, defaults applied.
    pub(crate) fn bounds(&self) -> crate::budget::Bounds {
        crate::budget::Bounds::resolve(
            &self.limits,
            self.progress,
            self.progress_after,
            self.semantics,
        )
    }

    /// Sets every limit at once (the builder methods above set one each).
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Who reads the reports and errors of this checker: their hints name
    /// the settings as `audience` sets them (see [`crate::hint`]). The
    /// default, [`Audience::Library`], names the methods of `Checker`; the
    /// `prust` command line asks for [`Audience::CommandLine`], which names
    /// its options.
    ///
    /// ```
    /// use engine::hint::Audience;
    /// use engine::{Checker, Limit, Verdict};
    /// # use engine::{Protocol, RoleId, Message, Refused, dummies};
    /// # #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    /// # struct Ping;
    /// # #[derive(Clone, PartialEq, Eq, Hash)]
    /// # struct Chatty(u8);
    /// # impl Protocol for Chatty {
    /// #     fn roles(&self) -> Vec<String> { vec!["a".into(), "b".into()] }
    /// #     fn try_send(&mut self, _: RoleId, _: RoleId, m: Message) -> Result<(), Refused<Message>> { self.0 = self.0.wrapping_add(1); Ok(()) }
    /// #     fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> { Err(Refused(())) }
    /// # }
    /// let r = Checker::new()
    ///     .max_states(3)
    ///     .audience(Audience::CommandLine)
    ///     .check(r#"G !"DEADLOCK""#, Chatty(0), dummies![Ping])
    ///     .unwrap();
    /// assert!(matches!(r.verdict, Verdict::Inconclusive { limit: Limit::States(3), .. }));
    /// assert!(r.to_string().contains("raise it with --max-states or PRUST_MAX_STATES"), "{r}");
    /// ```
    pub fn audience(mut self, audience: Audience) -> Self {
        self.audience = audience;
        self
    }

    /// The meaning of finite runs.
    pub fn semantics(mut self, s: Semantics) -> Self {
        self.semantics = s;
        self
    }

    /// Which runs may refute a property (default: [`Fairness::None`],
    /// every run; `PRUST_FAIRNESS` sets it). Under [`Fairness::Weak`] a
    /// liveness property is violated only by a weakly fair run — no role
    /// stays enabled from some point on without ever moving — and the
    /// counterexample's cycle is itself fair; safety properties are decided
    /// as without it (every finite run extends to a fair one). Why the
    /// search decides it exactly is in [`Fairness`].
    ///
    /// What it costs and leaves out: every state of the liveness search is
    /// probed in full (a role's enabledness needs all its actions);
    /// partial-order reduction decides only where that is exact: its search
    /// without fairness runs first and decides when the property holds for
    /// every run or its counterexample starves no role; otherwise the full
    /// search decides (an ample set may postpone the moves of the role
    /// fairness is about; the report's
    /// [`Stats::reduction`](crate::Stats::reduction) says so, and
    /// [`crate::por`] why this is exact). The
    /// liveness search runs on one thread (the report says why), a share of
    /// a split check is refused ([`Error::Fairness`]), and so is an object
    /// with more roles than the acceptance marks left by the formula's
    /// automaton (32 in all).
    ///
    /// ```
    /// use engine::{Checker, Fairness};
    /// let fair = Checker::new().fairness(Fairness::Weak);
    /// assert_eq!(fair.current_fairness(), Fairness::Weak);
    /// ```
    pub fn fairness(mut self, f: Fairness) -> Self {
        self.fairness = f;
        self
    }

    /// The fairness the checks use ([`fairness`](Self::fairness)).
    pub fn current_fairness(&self) -> Fairness {
        self.fairness
    }

    /// Run every probe on two clones and report differing results as
    /// [`Error::Nondeterminism`]; also check that refusals leave the object
    /// unchanged and that the topology hints (`peers`, `sends_to`,
    /// `may_recv`) tell the truth ([`Error::Contract`]). Doubles the
    /// probing cost.
    ///
    /// What it catches: an operation whose outcome differs between two
    /// equal objects probed one after the other (a result that flips with
    /// a global counter, a random choice, the clock), a refusal that
    /// changes the object, a hint that hides an enabled action.
    ///
    /// Two further checks, run only with this one:
    /// - *revisits*: the first time the search reaches an object equal
    ///   (`Eq`) to a stored state, both are probed in every slot and must
    ///   agree (same outcomes, equal successors); this catches `Eq`/`Hash`
    ///   that ignore a field the behaviour depends on, at the cost of one
    ///   extra walk per stored state that is reached twice;
    /// - *the counterexample*: before a violation is reported, its steps
    ///   are performed one after the other on a single fresh clone of the
    ///   initial object, as a run would; a step refused, another message
    ///   received, an object unequal to the stored one or an ending that
    ///   does not hold is [`Error::Nondeterminism`] naming the step. This
    ///   catches behaviour that changed after the search's probes (a
    ///   result that changes after the first few calls, one that depends
    ///   on how often the object was cloned).
    ///
    /// What it still cannot catch: behaviour that agrees on every probe
    /// the search and these checks make but differs elsewhere (a counter
    /// of period above two that no counterexample runs into, state shared
    /// by all clones through an `Arc`, an `Eq` that ignores a field whose
    /// effect shows only on a revisit after the first one), and anything
    /// on a run that holds: a `Holds` verdict is never re-executed.
    ///
    /// Whether it is on or off, the counterexample is rebuilt by probing
    /// the stored states again; if the object then answers differently so
    /// that the violation found cannot be reached again, the check returns
    /// [`Error::Nondeterminism`] rather than a counterexample it cannot
    /// show (and [`Counterexample::replay`] re-checks every step).
    pub fn determinism_check(mut self, on: bool) -> Self {
        self.determinism = on;
        self
    }

    /// Show a progress line on stderr once a check runs longer than a
    /// second (`false`: never; default: when stderr is a terminal): product
    /// states, states per second, depth, and the share used of each limit
    /// (states, memory, time). It is written straight to the process's
    /// stderr, so it shows while `cargo test` captures the test's output.
    /// On a terminal one line is redrawn; elsewhere (`PRUST_PROGRESS=1` in
    /// a log) a line is printed every second.
    pub fn progress(mut self, on: bool) -> Self {
        self.progress = Some(on);
        self
    }

    /// How many successor entries (8 bytes each) the protocol-successor
    /// cache may hold before it is flushed. Default 1 Mi (8 MiB).
    pub fn cache_limit(mut self, entries: usize) -> Self {
        self.cache_limit = entries;
        self
    }

    /// Save the counterexample of every failing
    /// [`assert_holds`](Self::assert_holds) (and so of every failing
    /// [`check`]) as a trail file in `dir`, and name the file in the panic
    /// message (default: `PRUST_TRAIL_DIR`, unset: no file). The file name
    /// is unique per failure: see [`Trail`](crate::Trail) for the format
    /// and [`Trail::read`](crate::Trail::read) to load it again. Only
    /// counterexamples are saved; the verdict is never affected.
    ///
    /// ```
    /// // In a test: keep the counterexamples of failing checks in
    /// // target/trails (tests run in parallel: set the directory per
    /// // checker rather than with the process-wide variable).
    /// let checker = engine::Checker::new().trail_dir("target/trails");
    /// # let _ = checker;
    /// ```
    pub fn trail_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.trail_dir = Some(dir.into());
        self
    }

    /// Use partial-order reduction where it applies (default: on;
    /// `PRUST_POR=0` turns it off): for objects that declare their
    /// independence ([`Protocol::independence`]) and formulas whose truth
    /// does not depend on where the steps their atoms cannot see fall (no
    /// `X`; see [`crate::por`] for the exact conditions). It never changes
    /// a verdict, only how many states the search stores; a report says
    /// whether it was used ([`Stats::reduction`](crate::Stats::reduction)).
    ///
    /// ```
    /// let full_search = engine::Checker::new().partial_order(false);
    /// # let _ = full_search;
    /// ```
    pub fn partial_order(mut self, on: bool) -> Self {
        self.por = on;
        self
    }

    /// Show a shortest counterexample: `true` always (within the check's
    /// limits), `false` the one the search found. By default
    /// (`PRUST_SHORTEST` unset) it is shortened where that costs at most
    /// one and a half times the search: where the shortening visits at
    /// most 1.5 × the search's product states (or 4,096, whichever is
    /// more: a few milliseconds); the counterexample then says it is
    /// not shown to be a shortest one, and how to ask for it. Never changes
    /// a verdict.
    ///
    /// *Shortest* means: counting the object's actions (the stutter steps
    /// of a finite run cost none), no violation has fewer in all, prefix
    /// and cycle together, and none with as many has a shorter prefix. A
    /// violation is a path from the initial state to a state that a bad
    /// prefix ends in (no cycle) or that lies on an accepting cycle (a
    /// fair one under [`Fairness::Weak`]), and a cycle from there through
    /// every acceptance set (the automaton's, and each role's under weak
    /// fairness). Lengths are those of the product of the object with the
    /// automaton of the negated property. Where that automaton needs the
    /// object's cycle taken more than once before it settles (a transient
    /// state), the product's shortest lasso is longer than the run needs:
    /// the lasso shown is then folded to the same run in fewer steps (a
    /// cycle that repeats a shorter one is shown once; the prefix's last
    /// steps, where they repeat the cycle's, join it), and is never longer
    /// than the product's. The search for it is
    /// exact, not iterative: it explores
    /// the whole product (for a safety property, up to the first
    /// violation), finds its strongly connected components, and from each
    /// such state, nearest first, searches (state, marks seen) pairs back
    /// to it, no farther than the shortest violation so far: up to
    /// `component × 2^k` pairs for `k` acceptance marks. It counts against the check's
    /// limits (states, depth, time, memory); one that would pass them
    /// leaves the counterexample found, saying so
    /// ([`Counterexample::shortness`]). A shortened counterexample is
    /// replayed on a fresh clone of the initial object before it is
    /// shown; if that fails the one found is shown, with the reason.
    ///
    /// ```
    /// let exact = engine::Checker::new().shortest(true);
    /// # let _ = exact;
    /// ```
    pub fn shortest(mut self, on: bool) -> Self {
        self.shortest = Some(on);
        self
    }

    /// Store each protocol state as a 64-bit fingerprint instead of the
    /// object (Holzmann's hash compaction; default: off,
    /// `PRUST_HASH_COMPACTION=1` turns it on): the search keeps whole
    /// objects only for the states it is working on (the depth-first
    /// stack, the breadth-first frontier), and a stored state costs the
    /// same whatever the object holds. In the breadth-first search of a
    /// safety property (without partial-order reduction) that is about 8
    /// bytes a product state: its 64-bit fingerprint in an ordered
    /// open-addressed table filled to between 0.84 and 0.92 (the top byte
    /// picks one of 256 segments, so a slot keeps the other 7), and
    /// nothing else (the objects being worked on get ids of their own,
    /// dropped with them). The frontier holds its states' objects, as the
    /// bytes they write ([`Protocol::encode`]) where the object prefers
    /// bytes ([`Protocol::prefers_bytes`], or [`collapse`](Self::collapse)
    /// when set); the whole search of 2.7 million states took under 10
    /// bytes a state (`BENCHMARKS.md`). The search stays breadth-first, so
    /// a violation's counterexample is still a shortest one.
    /// The depth-first search of a liveness property, and the reduced
    /// breadth-first one, keep a number per state (Couvreur's algorithm
    /// compares the numbers of states on its stack; the reduction's
    /// proviso, their levels), so there a protocol state costs its
    /// fingerprint, an id, its numbers and a table slot: about 30 bytes.
    ///
    /// The price: two states with one fingerprint are taken for one, and
    /// what lies behind the second is never explored. So a property that
    /// holds under it is never reported as [`Verdict::Holds`] but as
    /// [`Verdict::HoldsProbabilistic`], "holds (probabilistic: hash
    /// compaction)", with the bound `n² / 2⁶⁵` on the probability that a
    /// state was missed (`n` states; about 3·10⁻⁶ for ten million) and, as
    /// SPIN prints it, the expected number of hash collisions
    /// `n(n−1)/2⁶⁵`. A
    /// violation is as certain as without it: its run is re-executed on a
    /// fresh clone of the initial object, step by step, and the cycle must
    /// close on an equal (`Eq`) object, before it is reported. Limits stay
    /// limits: a search cut short is [`Verdict::Inconclusive`].
    ///
    /// The successor cache is not used under it (it names states by id,
    /// whose objects are gone): a state reached with several automaton
    /// states is probed once for each.
    ///
    /// ```
    /// let compact = engine::Checker::new().hash_compaction(true);
    /// # let _ = compact;
    /// ```
    pub fn hash_compaction(mut self, on: bool) -> Self {
        self.hash_compaction = on;
        self
    }

    /// Bitstate hashing (Holzmann's supertrace; default: off,
    /// `PRUST_BITSTATE=<bits>` turns it on, e.g. 1073741824 (2³⁰)): for state spaces
    /// that do not fit even as fingerprints. The breadth-first search of a
    /// safety property then stores each state as
    /// [`BITSTATE_HASHES`](Self::BITSTATE_HASHES) bits of one array of
    /// `bits` bits (rounded up to a power of two; 2³⁰ bits are 128 MiB),
    /// set from two hashes of its fingerprint, and takes a state whose bits
    /// are all set already for one it has seen. Implies
    /// [`hash_compaction`](Self::hash_compaction), which the other searches
    /// use (the depth-first search of liveness properties keeps a number per
    /// state, which bits cannot hold).
    ///
    /// Far more states are missed than under hash compaction: a property
    /// that holds is [`Verdict::HoldsProbabilistic`], "holds
    /// (probabilistic: bitstate hashing)", with SPIN's hash factor (bits per
    /// state stored; best above 100) and the expected number of states
    /// missed; [`Stats::bitstate`](crate::Stats::bitstate) says it was
    /// used. A violation is re-executed on the object, so it is certain.
    ///
    /// ```
    /// let supertrace = engine::Checker::new().bitstate(Some(1 << 30));
    /// assert!(supertrace.uses_hash_compaction());
    /// ```
    ///
    /// The array has [`bitstate_array_bits`](Self::bitstate_array_bits)
    /// bits; one larger than the memory limit
    /// ([`max_memory`](Self::max_memory)) ends the search inconclusive at
    /// once rather than be allocated. `bits` is 0: the smallest array (the
    /// command line and `PRUST_BITSTATE` refuse 0).
    pub fn bitstate(mut self, bits: Option<u64>) -> Self {
        self.bitstate = bits;
        self
    }

    /// The bits of the array that [`bitstate`](Self::bitstate) uses for a
    /// request of `bits`: rounded up to a power of two, at least 64, as
    /// the report states; `Err` for 0 (the command line and
    /// `PRUST_BITSTATE` refuse it) and above 2⁶³ (no power of two of 64
    /// bits is that large).
    ///
    /// ```
    /// use engine::Checker;
    /// assert_eq!(Checker::bitstate_array_bits(1000), Ok(1024));
    /// assert_eq!(Checker::bitstate_array_bits(1), Ok(64));
    /// assert!(Checker::bitstate_array_bits(0).is_err());
    /// assert!(Checker::bitstate_array_bits(u64::MAX).is_err());
    /// ```
    pub fn bitstate_array_bits(bits: u64) -> Result<u64, String> {
        if bits == 0 {
            return Err(
                "0 bits: bitstate hashing needs an array of at least one bit \
                        (it is rounded up to a power of two, at least 64)"
                    .into(),
            );
        }
        bits.checked_next_power_of_two()
            .map(|b| b.max(64))
            .ok_or_else(|| format!("more than 2^63 bits (rounded up to a power of two, {bits} has none of 64 bits)"))
    }

    /// Bits set per state under [`bitstate`](Self::bitstate) (SPIN's
    /// default for its `-k` option is 3).
    pub const BITSTATE_HASHES: u32 = 3;

    /// Whether this checker stores fingerprints
    /// ([`hash_compaction`](Self::hash_compaction), or
    /// `PRUST_HASH_COMPACTION=1`): for a caller that sums up several
    /// reports and must not call a probabilistic verdict a plain "holds".
    ///
    /// ```
    /// let c = engine::Checker::new().hash_compaction(true);
    /// assert!(c.uses_hash_compaction());
    /// assert!(!c.hash_compaction(false).uses_hash_compaction());
    /// ```
    pub fn uses_hash_compaction(&self) -> bool {
        self.hash_compaction || self.bitstate.is_some()
    }

    /// Whether this checker uses bitstate hashing
    /// ([`bitstate`](Self::bitstate), or `PRUST_BITSTATE`): for a caller
    /// that sums up several reports and must name the approximation that
    /// makes a verdict probabilistic.
    ///
    /// ```
    /// let supertrace = engine::Checker::new().bitstate(Some(1 << 20));
    /// assert!(supertrace.uses_bitstate() && supertrace.uses_hash_compaction());
    /// assert!(!engine::Checker::new().hash_compaction(true).uses_bitstate());
    /// ```
    pub fn uses_bitstate(&self) -> bool {
        self.bitstate.is_some()
    }

    /// Store the states of an object that writes itself as bytes
    /// ([`Protocol::encode`]) as those bytes, in one arena, instead of as
    /// objects (default: on for an object that
    /// [prefers it](crate::Protocol::prefers_bytes), as every object does
    /// unless it says otherwise; `PRUST_COLLAPSE=1`/`0` or this call decide
    /// for every object). Exact: it
    /// changes what a stored state costs, never a verdict or a count. As
    /// under [`hash_compaction`](Self::hash_compaction) (which wins when
    /// both are on), only the states the search is working on are kept as
    /// objects, and the successor cache is not used. Objects that do not
    /// encode themselves (the default) are stored as ever.
    ///
    /// ```
    /// let whole_objects = engine::Checker::new().collapse(false);
    /// # let _ = whole_objects;
    /// ```
    pub fn collapse(mut self, on: bool) -> Self {
        self.collapse = Some(on);
        self
    }
}

#[cfg(test)]
mod tests;
