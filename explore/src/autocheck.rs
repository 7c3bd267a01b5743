//! [`autocheck`]: Déjà Fu's first question about a concurrent program —
//! does it deadlock, does it panic, does its result depend on the
//! schedule?

use std::fmt;

use engine::Protocol;

use super::explorer::Explorer;
use super::observe::Observe;
use super::report::{Exploration, Failure, Outcome};
use super::roles::Roles;
use super::verdict::{Status, Verdict};

/// What [`autocheck`] answers: three verdicts over one exploration.
/// Its `Display` is Déjà Fu's three lines (`[pass] Never Deadlocks`, …),
/// with the results or failures, each with its schedule, under a fail.
///
/// ```
/// use prust::explore::Explorer;
/// let check = Explorer::new().autocheck(prust::protocols::two_buyer::strict(), |_| {});
/// assert!(!check.passed()); // nothing spawned: the protocol is unfinished
/// assert!(check.never_deadlocks.holds() && check.no_exceptions.holds());
/// assert!(check.consistent_result.fails());
/// ```
#[derive(Debug, Clone)]
pub struct Autocheck<T> {
    /// No execution deadlocks.
    pub never_deadlocks: Verdict<T>,
    /// No role panics in any execution.
    pub no_exceptions: Verdict<T>,
    /// Every execution completes with the same result
    /// ([`Exploration::always_same`]: any other failure breaks it too).
    pub consistent_result: Verdict<T>,
    /// The exploration the verdicts are about.
    pub exploration: Exploration<T>,
}

impl<T> Autocheck<T> {
    /// Whether all three verdicts hold (never on an exploration cut
    /// short).
    ///
    /// ```
    /// use prust::explore::Explorer;
    /// let check = Explorer::new()
    ///     .max_executions(1)
    ///     .autocheck(prust::protocols::two_buyer::strict(), |_| {});
    /// assert!(!check.passed());
    /// ```
    pub fn passed(&self) -> bool {
        [
            &self.never_deadlocks,
            &self.no_exceptions,
            &self.consistent_result,
        ]
        .iter()
        .all(|v| v.holds())
    }
}

impl<T: fmt::Debug> fmt::Display for Autocheck<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, v) in [
            ("Never Deadlocks", &self.never_deadlocks),
            ("No Exceptions", &self.no_exceptions),
            ("Consistent Result", &self.consistent_result),
        ] {
            match v.status {
                Status::Holds => writeln!(f, "[pass] {name}")?,
                Status::Fails => {
                    writeln!(f, "[fail] {name}")?;
                    v.details(f, "    ")?;
                }
                Status::Inconclusive => writeln!(
                    f,
                    "[inconclusive] {name} ({})",
                    v.reason
                        .as_deref()
                        .unwrap_or("the exploration was cut short")
                )?,
            }
        }
        Ok(())
    }
}

/// A verdict that no execution ends in a failure `is`: fails on those,
/// holds only on a complete exploration.
fn never<T>(ex: &Exploration<T>, predicate: &str, is: impl Fn(&Outcome) -> bool) -> Verdict<T> {
    let failures: Vec<Failure> = ex
        .failures()
        .iter()
        .filter(|f| is(&f.outcome))
        .cloned()
        .collect();
    let (status, reason) = if !failures.is_empty() {
        (Status::Fails, None)
    } else if let Some(why) = ex.no_proof() {
        (Status::Inconclusive, Some(why))
    } else {
        (Status::Holds, None)
    };
    Verdict {
        predicate: predicate.to_string(),
        status,
        results: Vec::new(),
        failures,
        missing: Vec::new(),
        reason,
    }
}

impl Explorer {
    /// Explores `program` and answers Déjà Fu's three questions: it never
    /// deadlocks, never panics, and every execution gives the same result
    /// (see [`autocheck`], which also prints them).
    ///
    /// ```
    /// use prust::explore::Explorer;
    /// let check = Explorer::new()
    ///     .max_executions(10)
    ///     .autocheck(prust::protocols::two_buyer::strict(), |_| {});
    /// println!("{check}");
    /// ```
    #[track_caller]
    pub fn autocheck<P, F, O>(&self, object: P, program: F) -> Autocheck<O::Value>
    where
        P: Protocol,
        F: Fn(&mut Roles<'_, P>) -> O + Sync,
        O: Observe,
        O::Value: PartialEq + Clone,
    {
        let exploration = self.explore(object, program);
        Autocheck {
            never_deadlocks: never(&exploration, "never deadlocks", |o| {
                matches!(o, Outcome::Deadlock { .. })
            }),
            no_exceptions: never(&exploration, "no exceptions", |o| {
                matches!(o, Outcome::Panicked { .. })
            }),
            consistent_result: exploration.always_same(),
            exploration,
        }
    }
}

/// Explores `program`'s schedules on `object` ([`Explorer::new`]'s
/// options) and checks Déjà Fu's three properties — never deadlocks, no
/// exceptions (panics), consistent result — printing one line each
/// (`[pass] Never Deadlocks`, `[fail] Consistent Result` with each result
/// and a schedule that gives it, `[inconclusive] …` when the exploration
/// was cut short) to standard output. Assert on
/// [`Autocheck::passed`].
///
/// Other failures (a protocol violation, an unfinished protocol) give no
/// result, so they break the consistent result.
///
/// ```
/// use prust::explore::autocheck;
/// use prust::session::BlockingEndpoint;
/// #[derive(Clone, Debug)] struct Move;
/// let check = autocheck(prust::protocols::chess::strict(), |r| {
///     r.spawn("white", |mut ep| {
///         ep.send("black", Move).unwrap();
///         ep.recv_from("black").unwrap();
///     });
///     r.spawn("black", |mut ep| {
///         ep.recv_from("white").unwrap();
///         ep.send("white", Move).unwrap();
///     });
/// });
/// assert!(check.passed(), "{check}");
/// assert_eq!(
///     check.to_string(),
///     "[pass] Never Deadlocks\n[pass] No Exceptions\n[pass] Consistent Result\n"
/// );
/// ```
///
/// # Panics
/// As [`Explorer::explore`].
#[track_caller]
pub fn autocheck<P, O>(
    object: P,
    program: impl Fn(&mut Roles<'_, P>) -> O + Sync,
) -> Autocheck<O::Value>
where
    P: Protocol,
    O: Observe,
    O::Value: PartialEq + Clone + fmt::Debug,
{
    let check = Explorer::new().autocheck(object, program);
    print!("{check}");
    check
}
