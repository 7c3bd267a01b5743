//! What a check answers: verdict, statistics and counterexamples.

use std::fmt;
use std::time::Duration;

use crate::hint::{Audience, Setting};
use crate::{Fairness, Semantics};

mod counterexample;
mod dot;
mod raw;
mod replay;
mod starved;

pub use counterexample::{Counterexample, CounterexampleStep, Ending, Shortness};
pub(crate) use raw::{reexecute, steps_of, RawLasso};
pub use replay::ReplayError;
pub(crate) use starved::{starved_mask, starved_roles};

/// The outcome of a check.
#[derive(Debug, Clone)]
pub struct Report {
    /// The formula as given.
    pub formula: String,
    /// The semantics of finite runs used.
    pub semantics: Semantics,
    /// The fairness asked for ([`Checker::fairness`](crate::Checker::fairness)):
    /// under [`Fairness::Weak`] only weakly fair runs refute a liveness
    /// property.
    pub fairness: Fairness,
    /// The answer.
    pub verdict: Verdict,
    /// What the search did.
    pub stats: Stats,
    /// Who the report's hints are worded for: the checker's
    /// [`Checker::audience`](crate::Checker::audience).
    pub audience: Audience,
}

/// The answer of a check.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// Every run of the object satisfies the formula: the search was
    /// exhaustive.
    Holds,
    /// No run the search saw violates the formula, and the search was
    /// exhaustive, but under hash compaction
    /// ([`Checker::hash_compaction`](crate::Checker::hash_compaction)): it
    /// stored 64-bit fingerprints of states, not the states, so two states
    /// with one fingerprint were taken for one, and the states behind the
    /// second were never explored. Not a proof: the property holds with
    /// probability at least `1 − omission_bound`. A variant of its own, so
    /// that code matching [`Verdict::Holds`] (and [`Report::holds`]) never
    /// takes it for a proof.
    ///
    /// ```
    /// use engine::{Checker, Verdict};
    /// # use engine::{Protocol, RoleId, Message, Refused, dummies};
    /// # #[derive(Clone, Debug)]
    /// # struct Ping;
    /// # #[derive(Clone, PartialEq, Eq, Hash)]
    /// # struct Idle;
    /// # impl Protocol for Idle {
    /// #     fn roles(&self) -> Vec<String> { vec!["a".into()] }
    /// #     fn try_send(&mut self, _: RoleId, _: RoleId, m: Message) -> Result<(), Refused<Message>> { Err(Refused(m)) }
    /// #     fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> { Err(Refused(())) }
    /// # }
    /// let r = Checker::new()
    ///     .hash_compaction(true)
    ///     .check(r#"G !"a SEND *""#, Idle, dummies![Ping])
    ///     .unwrap();
    /// assert!(matches!(r.verdict, Verdict::HoldsProbabilistic { .. }));
    /// assert!(!r.holds() && r.holds_probabilistically());
    /// assert!(r.to_string().contains("holds (probabilistic: hash compaction"));
    /// ```
    HoldsProbabilistic {
        /// States stored as fingerprints: the product states of the
        /// breadth-first search (safety), the protocol states of the
        /// depth-first one; under bitstate hashing ([`Stats::bitstate`])
        /// the states stored in the bit array.
        fingerprints: u64,
        /// Upper bound on the probability that a state was missed:
        /// `fingerprints² / 2⁶⁵` (any two of them equal), at most 1. Under
        /// bitstate hashing an estimate: the expected number of states
        /// missed ([`Bitstate::expected_misses`]), at most 1.
        omission_bound: f64,
    },
    /// One share of a split check ([`Checker::share`](crate::Checker::share))
    /// searched its part of the state space to the end and found no
    /// violation. Not a verdict on the property: the property holds when
    /// every one of the `count` shares holds (each run once, with the same
    /// program, object, formula and options). A variant of its own, so that
    /// code matching [`Verdict::Holds`] (and [`Report::holds`]) never takes
    /// one share for the whole. Under hash compaction
    /// ([`Stats::hash_compaction`]) it is probabilistic as well.
    HoldsOnShare {
        /// Which share (from 1).
        index: u32,
        /// Of how many.
        count: u32,
    },
    /// Some run violates the formula; here is one.
    Violated(Counterexample),
    /// The search hit a limit before it could decide. Never a proof.
    Inconclusive {
        /// Which limit.
        limit: Limit,
        /// Product states explored when it stopped.
        explored: u64,
    },
}

/// A limit of the search (see [`Checker`](crate::Checker)). Each one that
/// stops a search ends it in [`Verdict::Inconclusive`], never in `Holds`.
/// Its `Display` names the limit, its value and how to raise it, e.g.
/// "the memory limit (64 MiB resident; raise it with Checker::max_memory or
/// PRUST_MAX_MEMORY — an object ... never fits: bound it)"; the command line
/// names its options instead ([`Limit::explained`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// The number of product states reached the maximum.
    States(u64),
    /// Some run was longer than the maximum depth; the states beyond it were
    /// not explored.
    Depth(u64),
    /// The wall-clock budget ran out.
    Time(Duration),
    /// The process's resident memory passed this many bytes (see
    /// [`Checker::max_memory`](crate::Checker::max_memory)).
    Memory(u64),
    /// The bitstate array asked for ([`Checker::bitstate`](crate::Checker::bitstate),
    /// `bits` as asked) is larger than the memory limit of `max_memory`
    /// bytes, or than any power of two of 64 bits: it was not allocated,
    /// and no state was searched.
    Bitstate {
        /// The bits asked for.
        bits: u64,
        /// The memory limit, in bytes.
        max_memory: u64,
    },
}

impl Limit {
    /// The limit, its value and how `audience` raises it: what the
    /// report of a search that stopped at it says.
    ///
    /// ```
    /// use engine::hint::Audience;
    /// use engine::Limit;
    /// let t = Limit::Time(std::time::Duration::from_secs(2));
    /// assert!(t.explained(Audience::CommandLine).contains("raise it with --timeout or PRUST_TIMEOUT"));
    /// assert!(t.explained(Audience::Library).contains("raise it with Checker::timeout or PRUST_TIMEOUT"));
    /// ```
    pub fn explained(&self, audience: Audience) -> String {
        let raise = |s: Setting| s.named(audience);
        match self {
            Limit::States(n) => format!(
                "the state limit ({n} product states; raise it with {})",
                raise(Setting::MaxStates)
            ),
            Limit::Depth(n) => format!(
                "the depth limit ({n} steps; raise it with {})",
                raise(Setting::MaxDepth)
            ),
            Limit::Time(d) => format!(
                "the time limit ({:.1} s per formula; raise it with {})",
                d.as_secs_f64(),
                raise(Setting::Timeout)
            ),
            Limit::Memory(b) => format!(
                "the memory limit ({:.0} MiB resident; raise it with {} — an object whose \
                 states grow forever, such as an unbounded channel or counter, never fits: \
                 bound it)",
                *b as f64 / (1024.0 * 1024.0),
                raise(Setting::MaxMemory)
            ),
            Limit::Bitstate { bits, max_memory } => format!(
                "the memory limit ({:.0} MiB): the bitstate array of {bits} bits ({}) does \
                 not fit in it (ask for fewer bits with {}, or raise the limit with {})",
                *max_memory as f64 / (1024.0 * 1024.0),
                array_size(*bits),
                raise(Setting::Bitstate),
                raise(Setting::MaxMemory)
            ),
        }
    }
}

/// The bytes of a bitstate array of `bits` bits (rounded up to a power
/// of two, as it would be), in the largest binary unit that keeps it at
/// least 1: "512 PiB".
fn array_size(bits: u64) -> String {
    // Past 2⁶³ no power of two fits 64 bits: 2⁶⁴ bits are 2 EiB.
    let bytes = bits
        .max(64)
        .checked_next_power_of_two()
        .map_or(1u128 << 61, |b| u128::from(b) / 8);
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let k = (0..units.len())
        .rev()
        .find(|&k| bytes >> (10 * k) > 0)
        .unwrap_or(0);
    format!("{} {}", bytes >> (10 * k), units[k])
}

/// Worded for the library ([`Audience::Library`]); see [`Limit::explained`].
impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.explained(Audience::Library))
    }
}

/// The expected number of pairs of equal fingerprints among `n` uniform
/// 64-bit fingerprints, `n(n−1)/2 · 2⁻⁶⁴` (SPIN's "expected collisions").
fn expected_collisions(n: u64) -> f64 {
    let n = n as f64;
    n * (n - 1.0).max(0.0) / 2f64.powi(65)
}

/// The bit array of bitstate hashing (see [`Stats::bitstate`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bitstate {
    /// Bits in the array (a power of two).
    pub bits: u64,
    /// Bits set per state (hash functions).
    pub hash_functions: u32,
}

impl Bitstate {
    /// SPIN's hash factor: bits per state stored. Above 100 or so few
    /// states are likely missed; near 1 most are.
    pub fn hash_factor(&self, states: u64) -> f64 {
        self.bits as f64 / states.max(1) as f64
    }

    /// The expected number of states taken for one seen before (all their
    /// bits set by others), after `states` were stored: the sum over the
    /// stores of the chance `(1 − e^(−k·i/m))^k` that the `i`-th new state's
    /// `k` bits of `m` were all set (the Bloom filter's false-positive
    /// rate). An estimate, not a bound: it assumes uniform hashes.
    pub fn expected_misses(&self, states: u64) -> f64 {
        let (k, m) = (self.hash_functions as f64, self.bits as f64);
        let rate = |i: f64| (1.0 - (-k * i / m).exp()).powf(k);
        // The integral of the rate over 0..states, in 1,000 steps.
        let n = states as f64;
        let steps = 1000.0;
        let h = n / steps;
        (0..1000).map(|j| rate((j as f64 + 0.5) * h) * h).sum()
    }
}

/// Statistics of one search.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Distinct product states (protocol state × automaton state) visited.
    pub product_states: u64,
    /// Product transitions followed.
    pub transitions: u64,
    /// Distinct protocol objects stored (in a session: so far, over all
    /// formulas checked).
    pub protocol_states: u64,
    /// States of the automaton of the negated formula.
    pub automaton_states: u64,
    /// Deepest point of the search: the longest path on the depth-first
    /// search's stack, or for safety properties (searched breadth-first)
    /// the distance of the farthest state from the initial one.
    pub max_depth: u64,
    /// Wall-clock time of the search, translation included.
    pub time: Duration,
    /// Whether partial-order reduction was used, and if not, why (see
    /// [`crate::por`]).
    pub reduction: crate::ReductionStatus,
    /// Whether the states were stored as 64-bit fingerprints (hash
    /// compaction, [`Checker::hash_compaction`](crate::Checker::hash_compaction)):
    /// then a verdict that holds is [`Verdict::HoldsProbabilistic`].
    pub hash_compaction: bool,
    /// Bitstate hashing ([`Checker::bitstate`](crate::Checker::bitstate)):
    /// the breadth-first search stored a few bits per state in one array,
    /// not fingerprints (`hash_compaction` is then set too).
    pub bitstate: Option<Bitstate>,

    /// Threads the search ran on ([`Checker::threads`](crate::Checker::threads)):
    /// for the breadth-first search of safety properties, the threads that
    /// shared its levels; for the depth-first search of liveness, the
    /// threads that expanded the object's states for it.
    pub threads: u32,
    /// Why the search ran on one thread although more were asked for (a
    /// check decided before it was worth starting them, partial-order
    /// reduction, the determinism check); `None` if it used what was
    /// asked.
    pub single_thread: Option<String>,

    /// The split of a check over several machines, when this report is one
    /// share's ([`Checker::share`](crate::Checker::share)); `None` for a
    /// whole check.
    pub share: Option<ShareStats>,
}

/// How one share of a split check ([`Checker::share`](crate::Checker::share))
/// split the state space, and what it searched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShareStats {
    /// Which share (from 1).
    pub index: u32,
    /// Of how many.
    pub count: u32,
    /// The split level: the states at this distance from the initial one
    /// were dealt out to the shares. When the search ran out of states
    /// before it, every share searched the whole space.
    pub level: u64,
    /// States at the split level (the frontier), of all shares.
    pub frontier: u64,
    /// Frontier states of this share: its search starts from them.
    pub own: u64,
    /// Product states at distance below the split level: every share
    /// searches them (the price of splitting without talking).
    pub above: u64,
    /// A hash of the split (the level and its states, in order): equal in
    /// every share of one split check. Shares whose digests differ did not
    /// split the same space (another object, formula or option), and their
    /// verdicts must not be combined.
    pub digest: u64,
}

impl Report {
    /// Whether the property is proven: [`Verdict::Holds`] only, never the
    /// probabilistic verdict of hash compaction (see
    /// [`holds_probabilistically`](Self::holds_probabilistically)).
    pub fn holds(&self) -> bool {
        matches!(self.verdict, Verdict::Holds)
    }

    /// Whether the property holds or, under hash compaction, holds up to
    /// the omission probability ([`Verdict::HoldsProbabilistic`]).
    pub fn holds_probabilistically(&self) -> bool {
        matches!(
            self.verdict,
            Verdict::Holds | Verdict::HoldsProbabilistic { .. }
        )
    }

    /// The counterexample, if the property is violated.
    pub fn counterexample(&self) -> Option<&Counterexample> {
        match &self.verdict {
            Verdict::Violated(c) => Some(c),
            _ => None,
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sem = match (self.semantics, self.fairness) {
            (Semantics::Stutter, Fairness::None) => "",
            (Semantics::InfiniteRunsOnly, Fairness::None) => " (infinite runs only)",
            (Semantics::Stutter, Fairness::Weak) => " (weak fairness)",
            (Semantics::InfiniteRunsOnly, Fairness::Weak) => " (infinite runs only, weak fairness)",
        };
        match &self.verdict {
            Verdict::Holds => writeln!(f, "property holds{sem}: {}", self.formula)?,
            Verdict::HoldsProbabilistic {
                fingerprints,
                omission_bound,
            } if self.stats.bitstate.is_some() => {
                let b = self.stats.bitstate.expect("checked");
                writeln!(
                    f,
                    "property holds (probabilistic: bitstate hashing){sem}: {}",
                    self.formula
                )?;
                writeln!(
                    f,
                    "  not a proof: {fingerprints} states were stored as {} bits each in an \
                     array of {} bits, hash factor {:.1} (best if > 100), and a state whose \
                     bits were all set already was never explored; expected states missed \
                     {:.1e}, probability of a missed state estimated at most \
                     {omission_bound:.1e}; rerun with more bits or without bitstate hashing",
                    b.hash_functions,
                    b.bits,
                    b.hash_factor(*fingerprints),
                    b.expected_misses(*fingerprints),
                )?;
            }
            Verdict::HoldsProbabilistic {
                fingerprints,
                omission_bound,
            } => {
                writeln!(
                    f,
                    "property holds (probabilistic: hash compaction){sem}: {}",
                    self.formula
                )?;
                writeln!(
                    f,
                    "  not a proof: {fingerprints} states were stored as 64-bit \
                     fingerprints, and a state whose fingerprint equals another's was never \
                     explored; expected hash collisions {:.1e} (n(n−1)/2^65), probability of a \
                     missed state at most {omission_bound:.1e} (n²/2^65); rerun without hash \
                     compaction for a proof",
                    expected_collisions(*fingerprints)
                )?;
            }
            Verdict::HoldsOnShare { index, count } => {
                writeln!(
                    f,
                    "holds on share {index}/{count}{sem} (the property holds when every share \
                     holds): {}",
                    self.formula
                )?;
                writeln!(
                    f,
                    "  not a verdict on the property: this share's part of the state space has no \
                     violation; run every share 1/{count} to {count}/{count}"
                )?;
                if self.stats.hash_compaction {
                    writeln!(
                        f,
                        "  probabilistic (hash compaction): a state whose fingerprint equals \
                         another's was never explored"
                    )?;
                }
            }
            Verdict::Violated(c) => {
                writeln!(f, "property violated{sem}: {}", self.formula)?;
                write!(f, "{c}")?;
            }
            Verdict::Inconclusive {
                limit: limit @ Limit::Bitstate { .. },
                ..
            } => {
                writeln!(f, "inconclusive{sem}: {}", self.formula)?;
                writeln!(
                    f,
                    "  the check stopped before its search began, at {}, so it could not \
                     prove or refute the property",
                    limit.explained(self.audience)
                )?;
            }
            Verdict::Inconclusive { limit, explored: 0 } => {
                // Stopped before the search stored a state: the limit was
                // reached while the formula was translated and prepared.
                writeln!(f, "inconclusive{sem}: {}", self.formula)?;
                writeln!(
                    f,
                    "  the check stopped at {} before its search began (while the formula \
                     was translated and prepared), so it could not prove or refute the \
                     property; raise the limit to decide",
                    limit.explained(self.audience)
                )?;
            }
            Verdict::Inconclusive { limit, explored } => {
                writeln!(f, "inconclusive{sem}: {}", self.formula)?;
                writeln!(
                    f,
                    "  the search stopped at {} after {explored} product states, before it \
                     could prove or refute the property; raise the limit to decide",
                    limit.explained(self.audience)
                )?;
            }
        }
        let s = &self.stats;
        write!(
            f,
            "  {} product states, {} transitions, {} protocol states, {} automaton states, \
             depth {}, {:.3} s",
            s.product_states,
            s.transitions,
            s.protocol_states,
            s.automaton_states,
            s.max_depth,
            s.time.as_secs_f64()
        )?;
        if s.hash_compaction && !matches!(self.verdict, Verdict::HoldsProbabilistic { .. }) {
            write!(
                f,
                "\n  hash compaction: states stored as 64-bit fingerprints (a violation is \
                 re-executed on the object, so it is certain)"
            )?;
        }
        // Said only for objects that declare independence: for the others
        // nothing changed.
        if s.reduction != crate::ReductionStatus::NotDeclared {
            write!(f, "\n  {}", s.reduction)?;
        }
        if s.threads > 1 {
            write!(f, "\n  searched on {} threads", s.threads)?;
        }
        if let Some(why) = &s.single_thread {
            write!(f, "\n  searched on one thread: {why}")?;
        }
        if let Some(sh) = s.share.as_ref().filter(|sh| sh.frontier == 0) {
            write!(
                f,
                "\n  share {}/{}: no split (the state space ended above level {}, before a level \
                 of {} states a share was reached): every share searched all {} states, split \
                 digest {:016x}",
                sh.index,
                sh.count,
                sh.level,
                crate::Checker::SHARE_STATES,
                sh.above,
                sh.digest
            )?;
        } else if let Some(sh) = &s.share {
            write!(
                f,
                "\n  share {}/{}: split at level {} ({} states, {} of them this share's; {} states \
                 above it searched by every share), split digest {:016x}",
                sh.index, sh.count, sh.level, sh.frontier, sh.own, sh.above, sh.digest
            )?;
        }
        Ok(())
    }
}
