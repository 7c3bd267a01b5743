//! Spec lint: sanity checks of a protocol's global LTS before any property
//! is written — Discourje's `dcj-lint` checks, plus `deadlock-free`, each
//! an exact linear graph algorithm with a shortest witness run.
//!
//! | check | reports |
//! |---|---|
//! | `deadlock-free` | a reachable stuck state that is not final |
//! | `must-terminate` | a run that never reaches a final state (stuck, or a cycle of non-final states) |
//! | `may-terminate` | a reachable state from which no final state is reachable |
//! | `cant-terminate` | a run that ends (meant to fail; not in the default set) |
//! | `close-after-send` | a channel p→q sent on and, on some run, never closed afterwards |
//! | `send-before-close` | a close of p→q on a run that never sent on p→q |
//! | `no-act-after-close` | a send on p→q or a second close of p→q after its close |
//! | `causality` | a send or close by p (a handshake of p and q) right after a step p (neither p nor q) took part in, unless the two can be swapped |
//! | `realizable` | a shortest run of the liberal (projected) object that the strict object refuses, and the choice where the runs part (not in the default set: see [`Check::Realizable`]) |
//!
//! Runs are maximal, as in the model checker: a run *ends* only in a state
//! without transitions (a normal end if the state is final, a deadlock if
//! not); a final state that may also go on satisfies `must-terminate` and
//! `may-terminate`, and is the end `cant-terminate` looks for, but it does
//! not end a run. Runs that go on forever count too, so `must-terminate`
//! and `close-after-send` report a loop that may repeat for ever (as
//! Discourje's `AF` does: no fairness is assumed).
//!
//! A nondeterministic LTS (an `.aut` file, or a specification whose
//! choices begin with the same action) is determinised first, as the strict
//! and liberal objects do, so that lint judges the runs the protocol
//! objects have ([`lint_with`]).
//!
//! The channel checks search the product of the LTS with one bit per
//! channel (one channel at a time), so they are exact per run. Discourje
//! evaluates the same properties in CTL with past operators, whose "on all
//! backward paths" may turn round a loop for ever and so raise false alarms
//! (`a→b; (c→d)*; close(a,b)` is reported by Discourje's
//! `send-before-close`, not here); see [`Check::SendBeforeClose`].
//!
//! ```
//! use protocols::lint::{lint, Check, Options};
//! use protocols::spec::{close, msg, sync, Spec};
//! // a→b is used and never closed
//! let lts = Spec::new("ping", msg("Ping", "a", "b")).compile().unwrap();
//! let findings = lint(&lts, &Options::default());
//! assert_eq!(findings.len(), 1);
//! assert_eq!(findings[0].check, Check::CloseAfterSend);
//! assert_eq!(findings[0].witness_texts(), ["a SEND <Ping> TO b", "b RECV <Ping> FROM a"]);
//! // closed, but right after b's receive, which a cannot see: causality
//! let lts = Spec::new("ping", msg("Ping", "a", "b").then(close("a", "b"))).compile().unwrap();
//! let findings = lint(&lts, &Options::default());
//! assert_eq!(findings.len(), 1);
//! assert_eq!(findings[0].check, Check::Causality);
//! // a handshake (a takes part in b's receive), then the close: clean
//! let lts = Spec::new("ping", sync("Ping", "a", "b").then(close("a", "b"))).compile().unwrap();
//! assert!(lint(&lts, &Options::default()).is_empty());
//! ```

mod causality;
mod channels;
mod finding;
mod on_the_fly;
mod realizable;
mod report;
mod search;
mod termination;

use std::borrow::Cow;
use std::fmt;

use crate::limits::{Bounds, Budget};
use crate::lts::Lts;
use crate::{Built, Error};
use engine::Limits;

pub use finding::{Finding, Step};
pub use on_the_fly::lint_spec;
pub use report::{Inconclusive, Report};

/// The most findings of one check that get a witness run. A check reports
/// one finding per channel, and a protocol may have a mistake on each of
/// thousands of channels, each witness as long as the LTS is deep: the
/// findings past these are reported without a witness
/// ([`Finding::witness_omitted`]), so that lint's memory is linear in the
/// LTS. The first ones are the first channels in role order (for
/// `causality`, the shortest).
pub const MAX_WITNESSES: usize = 20;

/// One lint check; [`Check::name`] is its name on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Check {
    /// A reachable stuck state that is not final (prust's own).
    DeadlockFree,
    /// Every run reaches a final state (`AF fin`).
    MustTerminate,
    /// From every reachable state a final state is reachable (`AG EF fin`).
    MayTerminate,
    /// No run ends (`AG !fin`): fails for every terminating protocol, so it
    /// is not in the default set.
    CantTerminate,
    /// After a send on p→q every run closes p→q.
    CloseAfterSend,
    /// Every close of p→q comes after a send on p→q on the same run.
    ///
    /// Differs from Discourje on purpose: in `a→b; (c→d)*; close(a,b)`
    /// every run sends before it closes, so nothing is reported, whereas
    /// Discourje's past operator (`AP`, over backward paths that may go
    /// round the `c→d` loop for ever) reports the close.
    SendBeforeClose,
    /// After a close of p→q, no run sends on p→q or closes it again.
    NoActAfterClose,
    /// Every send or close by p comes right after a step p took part in,
    /// or a step it can be swapped with; a handshake of p with q
    /// (`sync`), right after a step that p or q took part in, or one it can
    /// be swapped with. A handshake counts as one step of both roles, as in
    /// Discourje: the LTS marks its send ([`Label::is_sync`](crate::Label::is_sync)).
    ///
    /// In the default set, as in Discourje. A protocol that orders steps of
    /// roles that cannot see each other gets findings: Prut4j's one-order
    /// NPB specs (a worker replies right after the master's receive from
    /// the previous worker), and every protocol whose closes come one after
    /// another by different roles. Such findings are real (the order is
    /// one the roles cannot keep without more messages); exclude the check
    /// (`--exclude causality`) to lint a spec that orders them on purpose.
    Causality,
    /// Every run of the liberal (projected) object is a run of the strict
    /// object; otherwise a shortest run that is not, whose last step the
    /// strict object refuses (it reaches [`StateId::NONE`](crate::StateId::NONE)), and in the summary
    /// the choice where the two runs part: the strict state where the
    /// strict run takes one branch and the role that takes the refused
    /// step, not told, acts on another.
    ///
    /// Not in the default set, because it is not linear in the LTS: the
    /// projection is a subset construction per role, and the product with
    /// the inboxes is infinite for every protocol in which a role may send
    /// again before anything it must wait for (`msg(T, a, b).star()`), so
    /// by default the lint of every such protocol would end inconclusive.
    /// It runs within [`Limits`] ([`lint_with`]); a limit makes it
    /// inconclusive, never clean.
    ///
    /// ```
    /// use protocols::lint::{lint, Check, Options};
    /// use protocols::spec::{alt, msg, Spec};
    /// // either a or b begins: each may, not knowing that the other did
    /// let lts = Spec::new("who begins", alt([msg("X", "a", "b"), msg("Y", "b", "a")]))
    ///     .compile()
    ///     .unwrap();
    /// let f = lint(&lts, &Options::only([Check::Realizable]));
    /// assert_eq!(f[0].witness_texts(), ["a SEND <X> TO b", "b SEND <Y> TO a"]);
    /// assert!(f[0].summary.contains("the runs part at the choice in strict state 0"), "{}", f[0].summary);
    /// ```
    Realizable,
}

impl Check {
    /// Every check, in the order findings are reported.
    pub const ALL: [Check; 9] = [
        Check::DeadlockFree,
        Check::MustTerminate,
        Check::MayTerminate,
        Check::CantTerminate,
        Check::CloseAfterSend,
        Check::SendBeforeClose,
        Check::NoActAfterClose,
        Check::Causality,
        Check::Realizable,
    ];

    /// The check's name (Discourje's key): `close-after-send`, ….
    pub fn name(self) -> &'static str {
        match self {
            Check::DeadlockFree => "deadlock-free",
            Check::MustTerminate => "must-terminate",
            Check::MayTerminate => "may-terminate",
            Check::CantTerminate => "cant-terminate",
            Check::CloseAfterSend => "close-after-send",
            Check::SendBeforeClose => "send-before-close",
            Check::NoActAfterClose => "no-act-after-close",
            Check::Causality => "causality",
            Check::Realizable => "realizable",
        }
    }

    /// The check with this name, if any.
    ///
    /// ```
    /// use protocols::lint::Check;
    /// assert_eq!(Check::from_name("may-terminate"), Some(Check::MayTerminate));
    /// assert_eq!(Check::from_name("may_terminate"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Check> {
        Check::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Whether the check is run by default: all but `cant-terminate`
    /// (meant to fail for a protocol that terminates) and `realizable`
    /// (not linear in the LTS: see [`Check::Realizable`]).
    ///
    /// ```
    /// use protocols::lint::Check;
    /// assert!(Check::Causality.is_default());
    /// assert!(!Check::CantTerminate.is_default());
    /// assert!(!Check::Realizable.is_default());
    /// ```
    pub fn is_default(self) -> bool {
        !matches!(self, Check::CantTerminate | Check::Realizable)
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which checks [`lint`] runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The checks to run; [`Options::default`] has every check but
    /// `cant-terminate` and `realizable` ([`Check::is_default`]).
    pub checks: Vec<Check>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            checks: Check::ALL.into_iter().filter(|c| c.is_default()).collect(),
        }
    }
}

impl Options {
    /// Exactly the `checks` given.
    pub fn only(checks: impl IntoIterator<Item = Check>) -> Options {
        Options {
            checks: checks.into_iter().collect(),
        }
    }
}

/// Runs the checks of `options` on the states of `lts` reachable from its
/// initial state: at most one finding per check and channel, the first
/// [`MAX_WITNESSES`] of each check with a shortest witness (for the
/// channel checks and `must-terminate`, a shortest run to the point where
/// the mistake shows, then a shortest way to an end or round a cycle).
/// Findings come in the order of [`Check::ALL`], channels in role order.
/// Linear in the size of the LTS for each check (the channel checks: times
/// the number of channels that are closed somewhere).
///
/// It runs within [`Limits::default`], and if a limit stops a check
/// (`realizable`'s search, or the memory of the tables and witnesses of
/// the others), the check is returned as a finding without a witness whose
/// summary starts with `inconclusive:` (so the result is never empty,
/// never read as clean). Use [`lint_with`] to choose the limits and tell
/// the two apart.
pub fn lint(lts: &Lts, options: &Options) -> Vec<Finding> {
    let report = lint_with(lts, options, &Limits::default());
    let mut findings = report.findings;
    findings.extend(report.inconclusive.into_iter().map(|i| Finding {
        check: i.check,
        channel: None,
        witness: Vec::new(),
        cycle_start: None,
        summary: format!("inconclusive: {}", i.reason),
        witness_omitted: false,
    }));
    findings
}

/// [`lint`] with `limits`: a check that a limit stopped is
/// [`Report::inconclusive`], never clean. `realizable` searches within
/// them; the other checks are linear in the LTS, and their search tables
/// and findings (witnesses included) count against the memory limit and
/// their steps against the deadline: a limit stops the check under way,
/// and every check after it is inconclusive with the same reason (the
/// findings made before stay). A
/// nondeterministic LTS is determinised first (within `limits`; if they
/// stop it, every check is inconclusive), as the strict and liberal
/// objects do: lint judges the runs the protocol objects have, and the
/// witnesses' state numbers are those of the determinised LTS.
///
/// ```
/// use engine::Limits;
/// use protocols::lint::{lint_with, Check, Options};
/// use protocols::tic_tac_toe;
/// let lts = tic_tac_toe::spec().compile().unwrap();
/// let report = lint_with(&lts, &Options::only([Check::Realizable]), &Limits::default());
/// assert!(report.inconclusive.is_empty());
/// assert_eq!(report.findings[0].check, Check::Realizable);
/// ```
pub fn lint_with(lts: &Lts, options: &Options, limits: &Limits) -> Report {
    lint_within(lts, options, &Bounds::new(limits))
}

/// [`lint_with`] within the bounds of a call under way (one deadline for
/// every check).
pub(crate) fn lint_within(lts: &Lts, options: &Options, limits: &Bounds) -> Report {
    // Both runtimes run the deterministic LTS without the handshake bit
    // (the strict object strips it and determinises, the projection too),
    // so lint does: in a nondeterministic LTS a run may stop in a state
    // that the runtimes merge with one that goes on (`(a→b sync)*; a→b`),
    // and lint would report an end or a deadlock that no run of the
    // protocol object has. Only `causality` reads the bit (a handshake is
    // one step of both roles), so it gets the LTS with the bit,
    // determinised the same way where it must be.
    let stopped = |reason: Error| Report {
        findings: Vec::new(),
        inconclusive: options
            .checks
            .iter()
            .map(|&check| Inconclusive {
                check,
                reason: reason.clone(),
            })
            .collect(),
    };
    let marked = if lts.has_sync() && options.checks.contains(&Check::Causality) {
        match deterministic(Cow::Borrowed(lts), limits) {
            Ok(d) => Some(d),
            Err(reason) => return stopped(reason),
        }
    } else {
        None
    };
    // One subset construction, not two: the runtimes' LTS is stripped
    // from the determinised marked one. The bit is the last field of a
    // label, so where no state offers one send both as a handshake and as
    // an ordinary send, the stripped determinisation is already
    // deterministic and is, state for state, the one the stripped LTS
    // would give. Where one does, stripping merges the two and the
    // determinisation below merges their targets: the same runs (each
    // state set is a union of the marked one's), so the same findings.
    let runtime_lts = match &marked {
        Some(m) => Cow::Owned(m.asynchronous()),
        None if lts.has_sync() => Cow::Owned(lts.asynchronous()),
        None => Cow::Borrowed(lts),
    };
    let determinised = match deterministic(runtime_lts, limits) {
        Ok(d) => d,
        Err(reason) => return stopped(reason),
    };
    let lts: &Lts = &determinised;
    let marked: &Lts = marked.as_deref().unwrap_or(lts);
    let mut findings = Vec::new();
    let mut inconclusive = Vec::new();
    let mut budget = Budget::new(limits, Built::LintSearch).searching(lts.num_states());
    // A check's tables are dropped before the next one builds its own, so
    // the budget holds those of the largest at once (a search's parent
    // array, a Tarjan stack, a reverse graph; the channel lists), and the
    // findings as they come, witnesses included.
    let tables = 48 * lts.num_states() + 32 * lts.num_transitions();
    let mut stop = budget.add_bytes(tables).err();
    let channels = channels::channels(lts);
    for check in Check::ALL {
        if !options.checks.contains(&check) {
            continue;
        }
        // After a limit, no check starts: each is inconclusive with it.
        if let Some(reason) = &stop {
            inconclusive.push(Inconclusive {
                check,
                reason: reason.clone(),
            });
            continue;
        }
        let before = findings.len();
        let one = |f: Option<Finding>, findings: &mut Vec<Finding>| {
            findings.extend(f);
            Ok(())
        };
        let done = match check {
            Check::DeadlockFree => one(termination::deadlock(lts), &mut findings),
            Check::MustTerminate => one(termination::must_terminate(lts), &mut findings),
            Check::MayTerminate => one(termination::may_terminate(lts), &mut findings),
            Check::CantTerminate => one(termination::cant_terminate(lts), &mut findings),
            Check::CloseAfterSend | Check::SendBeforeClose | Check::NoActAfterClose => {
                channels::run(lts, check, &channels, &mut budget, &mut findings)
            }
            Check::Causality => causality::causality(marked, &mut budget, &mut findings),
            Check::Realizable => match realizable::realizable(lts, limits) {
                Ok(f) => one(f, &mut findings),
                // realizable's own limits stop only realizable
                Err(reason) => {
                    inconclusive.push(Inconclusive { check, reason });
                    continue;
                }
            },
        };
        // the one-finding checks' witnesses count too (the others count
        // theirs as they go)
        let done = done.and_then(|()| match check {
            Check::CloseAfterSend
            | Check::SendBeforeClose
            | Check::NoActAfterClose
            | Check::Causality => Ok(()),
            _ => budget.add_bytes(findings[before..].iter().map(Finding::bytes).sum()),
        });
        if let Err(reason) = done {
            inconclusive.push(Inconclusive {
                check,
                reason: reason.clone(),
            });
            stop = Some(reason);
        }
    }
    Report {
        findings,
        inconclusive,
    }
}

/// `lts` itself if it is deterministic, else its subset construction
/// within `limits`.
fn deterministic<'a>(lts: Cow<'a, Lts>, limits: &Bounds) -> Result<Cow<'a, Lts>, Error> {
    if lts.is_deterministic() {
        Ok(lts)
    } else {
        lts.determinise_within(limits).map(Cow::Owned)
    }
}
