//! Partial-order reduction: ample sets for the product search.
//!
//! Most states of a protocol with concurrent roles are orders of steps that
//! do not interfere: a worker that computes while another one replies. A
//! search that tries every order explores each combination; an *ample set*
//! search (Peled 1994; Clarke, Grumberg and Peled, *Model Checking*, ch. 10)
//! expands, in a state where that is safe, only the enabled actions of one
//! *component* of the object, and still decides every property this module
//! lets it decide.
//!
//! # What the object declares
//!
//! Only objects that opt in are reduced: [`Protocol::independence`] gives,
//! per state, a list of components ([`Independence`]), each a set of
//! [`ActionRef`]s (role, kind, peer: an action up to its message type). The
//! **assumption** the engine makes about a component `C` declared in state
//! `s`, and the only one:
//!
//! > On every run from `s` on which no action of `C` has happened yet, every
//! > step is *independent* of every action of `C` enabled in `s` — both
//! > orders are possible and end in equal objects, neither disables the
//! > other — and no step enables or disables an action of `C`.
//!
//! That is condition C1 of ample sets for `ample(s) = enabled(s) ∩ C`. A
//! role of an object with its own local state and a private inbox, or a
//! branch of a parallel composition that shares no channel with the other
//! branches, is such a component. An object that declares nothing (the
//! default) is searched in full.
//!
//! A declared topology ([`Protocol::peers`], [`Protocol::sends_to`]) is
//! *not* taken for independence, although it gives each role's channel
//! footprint: it says which actions to probe, not that the roles share no
//! other state. A black-box object whose every send bumps one shared
//! counter has a ring's topology, yet its sends neither commute nor leave
//! each other enabled, and reducing it would drop runs — silently, in a
//! release build, where the declaration is not verified. So the footprint
//! becomes a declaration only where the object vouches for it: the strict
//! object built on the fly from its specification's parallel branches,
//! the liberal object from its roles (each with its own local state and
//! inbox, a component only in states where no other role can still change
//! what it may do), a hand-written object by writing
//! [`Protocol::independence`] (e.g. each group of roles that talk only to
//! one another and share nothing else as one component).
//!
//! # When the engine uses an ample set
//!
//! In a state `s` the engine takes the first declared component `C` with
//! the fewest enabled actions such that
//! - C0: `enabled(s) ∩ C` is not empty (and not all of `enabled(s)`, which
//!   would reduce nothing);
//! - C2: none of those actions is *visible*: no atom of the formula holds on
//!   it (with `"* SEND *"` every send is visible);
//! - C3, the cycle proviso: the breadth-first search (safety properties)
//!   uses the ample set only if every product successor it gives is new or
//!   already on the next level (so an edge out of a reduced state always
//!   leads one level deeper, and every cycle of the reduced graph passes a
//!   fully expanded state); the depth-first search (Couvreur's) only if no
//!   successor is on its stack.
//!
//! Where the object lists its enabled actions ([`Protocol::enabled`]) and
//! the determinism check is off, the ample set is chosen from that list, by
//! the same conditions, before any successor exists, and only its successors
//! are built (C3 needs them); the other enabled actions' successors are built
//! only where no component qualifies or the proviso refuses the one chosen.
//! A state's successors are otherwise built, interned and kept (they count
//! as protocol states) whether the search takes them or not. Where the list
//! cannot tell an action's visibility (a receive whose types the formula's
//! atoms tell apart: the object picks the type), the successors are built
//! first, as for an object that does not list.
//!
//! (The breadth-first proviso is kept with the visited numbers: a state of
//! level `d` is stored as `d + 1`, `level_number` in `search/ample.rs`;
//! the depth-first one with a set of the states on the stack. In a
//! depth-first search every cycle has an edge to a state on the stack,
//! whose source the proviso expanded in full.)
//!
//! The reduced search runs on one thread (the parallel safety and liveness
//! searches are not used; the report says so), stores states as the
//! one-thread search does, hash compaction included (its counterexamples
//! are re-executed on clones, as every one under hash compaction), and is
//! off for a share of a split check
//! ([`Checker::share`](crate::Checker::share)); the report says so.
//!
//! Otherwise the state is expanded in full. States without any enabled
//! action are the same in both searches (an ample set is never empty where
//! something is enabled), so every deadlock and every termination of the
//! full search is found, and `"DEADLOCK"`/`"END"` keep their meaning.
//!
//! # Which formulas
//!
//! Reordering invisible steps changes *where* in a run the steps that no
//! atom sees fall, so the reduction is sound only for formulas whose truth
//! does not depend on that: inserting or removing a step on which every
//! atom is false must not change the verdict. Every formula with `X` can
//! depend on it; so can some without (`!"a SEND *"`, "the first step is not
//! a's send", is violated by `a SEND` first and satisfied once an unseen
//! step comes first). [`applicability`] decides a sufficient syntactic
//! condition; `G !"DEADLOCK"`, `G (p -> F q)`, `G F p`, `F "END"`, `!p U q`
//! pass it. A formula that fails is checked in full and the report says
//! why.
//!
//! # Under weak fairness
//!
//! Ample sets keep, for every run, a run of the reduced graph with the same
//! verdict (equal up to inserting or removing steps on which every atom of
//! the formula is false), but not one that
//! is *fair for the same roles* ([`Fairness`](crate::Fairness)). No cycle
//! proviso repairs that, because the loss happens before any cycle. Take
//! roles `t`, `u`, `r` where `t` acts in two parallel branches: in one a
//! single step `t1` after which `r`'s action `x` stays enabled, in the
//! other a loop `t2`. In `r`'s branch, `u` loops `u1 u2`; `x` is enabled
//! exactly after `u2` or once `t1` has happened. The run `(t2 u1 u2)^ω` is
//! weakly fair: `t` and `u` move, `r` is disabled at every third state.
//! Yet `{t1}` satisfies C0–C3 in the initial state (invisible, independent
//! of every other step, its successor is new), and after `t1` the action
//! `x` is enabled for ever: every fair run of the reduced graph moves `r`.
//! If that run is the only violation, the reduced search with the roles'
//! marks says "holds" where the property is violated. Excluding it needs
//! ample actions that never change another role's enabledness on any
//! postponed run, which declarations do not say (a liberal send enables
//! its receiver) and no test in one state can check.
//!
//! So under weak fairness the check uses the reduction only where its
//! answer is exact by construction, in this order
//! (`CheckSession::fair_search`):
//! 1. The reduced search *without* the roles' marks, with C0–C3 as above.
//!    If it finds no accepting cycle, no run at all violates the property
//!    (the reduction's guarantee without fairness), so no fair run does:
//!    the property holds under weak fairness. A limit it reaches is its
//!    verdict (inconclusive, never "holds").
//! 2. If it finds a violation, the counterexample is re-executed on a
//!    fresh clone of the initial object and every role's enabledness is
//!    probed in every state of the cycle, all probe slots (the object's
//!    real enabledness, not the ample set). If no role is enabled in every
//!    state of the cycle while never moving in it, the lasso repeated for
//!    ever is a weakly fair run of the object that violates the property:
//!    violated under weak fairness, with that counterexample. A finite run
//!    (its stutter steps leave nobody enabled) and a bad prefix (it extends
//!    to a fair run) count as fair.
//! 3. Otherwise (the cycle starves a role, or the re-execution failed: a
//!    step refused, an object unequal to the one the search stored, a
//!    cycle that does not close, or a probe panicked, which counts as "not
//!    known to be fair"), the full search with
//!    the roles' marks decides, exactly as with the reduction off, and
//!    [`Stats::reduction`](crate::Stats::reduction) says why
//!    (`ReductionStatus::Off`, naming the starved roles).
//!
//! Neither step invents a verdict: "holds" comes from a search that holds
//! for every run, "violated" from a run that was shown to be fair or from
//! the full search. The reduction pays off when the property holds
//! (the common case for a liveness property worth checking under fairness)
//! or is violated by a fair run the reduced graph keeps; a property that
//! only unfair runs of the reduced graph violate costs the reduced search
//! and then the full one. Both run on one thread (the first because it is
//! reduced, the second because of fairness), under hash compaction as
//! without fairness; a share of a split check is refused under fairness.
//!
//! # Verification
//!
//! Under the determinism check every state with an ample set has its
//! declaration tested: for each ample action `a` and each other enabled
//! action `b`, both orders are applied on clones and must succeed and end
//! in equal objects, and the enabled actions of `C` after `b` must be those
//! before it. A declaration that fails is reported as [`Error::Contract`]
//! naming the actions, never as a verdict.
//!
//! Counterexamples are built from the states the reduced search stored and
//! the object's real successors between them, so they are runs of the
//! object (replayed under the determinism check like any other).
//!
//! [`Protocol::independence`]: crate::Protocol::independence
//! [`Protocol::enabled`]: crate::Protocol::enabled
//! [`Protocol::peers`]: crate::Protocol::peers
//! [`Protocol::sends_to`]: crate::Protocol::sends_to
//! [`Error::Contract`]: crate::Error::Contract

mod ample;
mod formula;

pub(crate) use ample::verify_ample;
pub use formula::applicability;

pub use crate::protocol::{ActionRef, Independence};

/// Whether a check used partial-order reduction, and if not, why
/// ([`Stats::reduction`](crate::Stats::reduction)).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ReductionStatus {
    /// The object declares no independence
    /// ([`Protocol::independence`](crate::Protocol::independence)): full
    /// search, nothing to report.
    #[default]
    NotDeclared,
    /// The search used ample sets where the conditions allowed.
    On {
        /// Product states expanded by an ample set instead of in full.
        ample_states: u64,
    },
    /// The object declares independence but the search was full, for the
    /// reason given (the formula uses `X`, reduction switched off, …).
    Off(String),
}

impl std::fmt::Display for ReductionStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // How to get it, where someone prints it: the object opts in.
            ReductionStatus::NotDeclared => f.write_str(
                "partial-order reduction: not used (the object declares no independence; \
                 Protocol::independence opts in)",
            ),
            ReductionStatus::On { ample_states } => write!(
                f,
                "partial-order reduction on ({ample_states} states expanded by an ample set)"
            ),
            ReductionStatus::Off(why) => write!(f, "partial-order reduction off: {why}"),
        }
    }
}
