//! Predicates over the results of an exploration, as Déjà Fu's: whether
//! the result depends on the schedule, and what it may be. A universally
//! quantified predicate never holds on an exploration cut short.

use std::fmt;

use super::report::Returned;
use super::report::{Exploration, Failure, Outcome};

/// Whether a predicate over the results holds.
///
/// ```
/// use prust::explore::{Explorer, Status};
/// // Cut short after one execution: "always" is not known.
/// let ex = Explorer::new()
///     .max_executions(1)
///     .explore(prust::protocols::chess::strict(), |r| {
///         r.spawn("white", |_| {});
///     });
/// assert_ne!(ex.always(|_| true).status, Status::Holds);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// It holds: over every schedule (the exploration was complete), or,
    /// for an existential predicate, on a witness.
    Holds,
    /// It fails, on the results (and failing executions) listed.
    Fails,
    /// Not known: the exploration was cut short (a bound, a timeout, a
    /// replay) before a counterexample or witness was found.
    Inconclusive,
}

/// The answer of a predicate over an exploration's results
/// ([`Exploration::always_same`] and the others): holds, fails (with the
/// results that break it, each with a schedule that replays to it), or
/// inconclusive.
///
/// ```
/// use prust::explore::{explore, Status};
/// let ex = explore(prust::protocols::two_buyer::strict(), |_| {});
/// // Nothing spawned: the one execution ends unfinished, no result.
/// let v = ex.always_same();
/// assert_eq!(v.status, Status::Fails);
/// assert_eq!(v.failures.len(), 1);
/// assert!(v.to_string().starts_with("always_same: FAILS"), "{v}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict<T> {
    /// The predicate, as called (`always_same`, `gives`, …).
    pub predicate: String,
    /// Whether it holds.
    pub status: Status,
    /// Where it fails: the results that break it. Where an existential
    /// predicate holds: its witnesses.
    pub results: Vec<Returned<T>>,
    /// Failing executions that break a universal predicate: they give no
    /// result at all. (A failure of a bound, `max_steps`, is none: it
    /// only makes the exploration incomplete.)
    pub failures: Vec<Failure>,
    /// For [`gives`](Exploration::gives): the expected results that no
    /// execution gave.
    pub missing: Vec<T>,
    /// Why it fails or is inconclusive, in words.
    pub reason: Option<String>,
}

impl<T> Verdict<T> {
    /// Whether it holds (never on an exploration cut short, for a
    /// universal predicate).
    ///
    /// ```
    /// use prust::explore::Explorer;
    /// let ex = Explorer::new()
    ///     .max_executions(1)
    ///     .explore(prust::protocols::two_buyer::strict(), |_| {});
    /// assert!(!ex.always(|_| true).holds());
    /// ```
    pub fn holds(&self) -> bool {
        self.status == Status::Holds
    }

    /// Whether it fails (on a counterexample, which is certain even on an
    /// exploration cut short).
    ///
    /// ```
    /// use prust::explore::explore;
    /// let ex = explore(prust::protocols::two_buyer::strict(), |_| {});
    /// assert!(ex.always(|_| true).fails()); // the execution failed
    /// ```
    pub fn fails(&self) -> bool {
        self.status == Status::Fails
    }

    /// Whether it is not known (the exploration was cut short).
    ///
    /// ```
    /// use prust::explore::Explorer;
    /// let ex = Explorer::new()
    ///     .replay(&"".parse().unwrap())
    ///     .explore(prust::protocols::two_buyer::strict(), |_| {});
    /// assert!(ex.somewhere(|_| false).is_inconclusive());
    /// ```
    pub fn is_inconclusive(&self) -> bool {
        self.status == Status::Inconclusive
    }
}

impl<T: fmt::Debug> Verdict<T> {
    /// The lines under the verdict's head: each result, failure and
    /// missing value, indented by `indent`.
    pub(crate) fn details(&self, f: &mut fmt::Formatter<'_>, indent: &str) -> fmt::Result {
        if let (Some(why), Status::Fails) = (&self.reason, self.status) {
            writeln!(f, "{indent}{why}")?;
        }
        for r in &self.results {
            writeln!(f, "{indent}{r}")?;
        }
        for fail in &self.failures {
            // As a failure's report: some outcomes' text already begins
            // with their kind.
            let (kind, text) = (fail.outcome.kind(), fail.outcome.to_string());
            let text = if text.starts_with(kind) {
                text
            } else {
                format!("{kind}: {text}")
            };
            for line in text.lines() {
                writeln!(f, "{indent}{line}")?;
            }
            writeln!(f, "{indent}  schedule: {}", fail.schedule)?;
        }
        for m in &self.missing {
            writeln!(f, "{indent}{m:?}  (expected; no execution gave it)")?;
        }
        Ok(())
    }
}

impl<T: fmt::Debug> fmt::Display for Verdict<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.status {
            Status::Holds => writeln!(f, "{}: holds", self.predicate)?,
            Status::Fails => writeln!(f, "{}: FAILS", self.predicate)?,
            Status::Inconclusive => writeln!(
                f,
                "{}: inconclusive ({})",
                self.predicate,
                self.reason
                    .as_deref()
                    .unwrap_or("the exploration was cut short")
            )?,
        }
        self.details(f, "  ")?;
        if let Some(s) = self
            .results
            .iter()
            .map(|r| &r.schedule)
            .chain(self.failures.iter().map(|f| &f.schedule))
            .find(|s| !s.is_empty())
        {
            write!(
                f,
                "replay a schedule with PRUST_SCHEDULE=\"{s}\" \
                 (or Explorer::new().replay(&\"{s}\".parse()?))"
            )?;
        }
        Ok(())
    }
}

/// The failing executions that break a universal predicate: every
/// failure but a bound's (which only makes the exploration incomplete).
fn breaking(failures: &[Failure]) -> Vec<Failure> {
    failures
        .iter()
        .filter(|f| !matches!(f.outcome, Outcome::Aborted { .. }))
        .cloned()
        .collect()
}

impl<T: PartialEq + Clone> Exploration<T> {
    fn verdict(&self, predicate: &str, status: Status) -> Verdict<T> {
        Verdict {
            predicate: predicate.to_string(),
            status,
            results: Vec::new(),
            failures: Vec::new(),
            missing: Vec::new(),
            reason: None,
        }
    }

    /// Inconclusive because the exploration was cut short, or because no
    /// execution completed (never a vacuous "holds").
    fn unknown(&self, predicate: &str) -> Verdict<T> {
        let mut v = self.verdict(predicate, Status::Inconclusive);
        v.reason = Some(
            self.no_proof()
                .unwrap_or_else(|| "no execution completed".to_string()),
        );
        v
    }

    /// A universal predicate: fails on `broken` results or on failing
    /// executions; holds only on a complete exploration with results.
    fn universal(&self, predicate: &str, broken: Vec<Returned<T>>, why: String) -> Verdict<T> {
        let failures = breaking(self.failures());
        if !broken.is_empty() || !failures.is_empty() {
            let mut v = self.verdict(predicate, Status::Fails);
            v.reason = Some(if broken.is_empty() {
                "some executions fail, and give no result".to_string()
            } else {
                why
            });
            v.results = broken;
            v.failures = failures;
            return v;
        }
        if self.is_complete() && !self.results().is_empty() {
            return self.verdict(predicate, Status::Holds);
        }
        self.unknown(predicate)
    }

    /// An existential predicate: holds on `witnesses`; fails only on a
    /// complete exploration.
    fn existential(&self, predicate: &str, witnesses: Vec<Returned<T>>, why: &str) -> Verdict<T> {
        if !witnesses.is_empty() {
            let mut v = self.verdict(predicate, Status::Holds);
            v.results = witnesses;
            return v;
        }
        if !self.is_complete() {
            return self.unknown(predicate);
        }
        let mut v = self.verdict(predicate, Status::Fails);
        v.reason = Some(why.to_string());
        v.results = self.results().to_vec();
        v
    }

    /// Every execution gives the same result (Déjà Fu's `alwaysSame`):
    /// fails with every distinct result (each with a schedule) if there
    /// are two or more, or with the failing executions (they give none).
    /// Inconclusive if the exploration was cut short.
    ///
    /// ```
    /// use prust::explore::explore;
    /// use prust::session::BlockingEndpoint;
    /// #[derive(Clone, Debug)] struct Move;
    /// let ex = explore(prust::protocols::chess::strict(), |r| {
    ///     r.spawn("white", |mut ep| {
    ///         ep.send("black", Move).unwrap();
    ///         ep.recv_from("black").unwrap();
    ///     });
    ///     r.spawn("black", |mut ep| {
    ///         ep.recv_from("white").unwrap();
    ///         ep.send("white", Move).unwrap();
    ///         42
    ///     })
    /// });
    /// assert!(ex.always_same().holds(), "{}", ex.always_same());
    /// ```
    pub fn always_same(&self) -> Verdict<T> {
        let results = self.results();
        let broken = if results.len() > 1 {
            results.to_vec()
        } else {
            Vec::new()
        };
        let why = format!("{} distinct results", results.len());
        self.universal("always_same", broken, why)
    }

    /// Two executions give different results (Déjà Fu's
    /// `notAlwaysSame`): holds on two witnesses (even on an exploration
    /// cut short); fails, on a complete exploration, with the one result.
    /// A failing execution gives no result, so it is no witness.
    ///
    /// ```
    /// use prust::explore::explore;
    /// use prust::session::BlockingEndpoint;
    /// #[derive(Clone, Debug)] struct Move;
    /// let ex = explore(prust::protocols::chess::strict(), |r| {
    ///     r.spawn("white", |mut ep| {
    ///         ep.send("black", Move).unwrap();
    ///         ep.recv_from("black").unwrap();
    ///     });
    ///     r.spawn("black", |mut ep| {
    ///         ep.recv_from("white").unwrap();
    ///         ep.send("white", Move).unwrap();
    ///     });
    /// });
    /// assert!(ex.not_always_same().fails());
    /// ```
    pub fn not_always_same(&self) -> Verdict<T> {
        let results = self.results();
        let witnesses = if results.len() > 1 {
            results.to_vec()
        } else {
            Vec::new()
        };
        self.existential(
            "not_always_same",
            witnesses,
            "every complete execution gives the same result",
        )
    }

    /// Every execution gives a result that satisfies `p` (Déjà Fu's
    /// `alwaysTrue`): fails with the results that do not (and with the
    /// failing executions); inconclusive if the exploration was cut
    /// short.
    ///
    /// ```
    /// use prust::explore::explore;
    /// use prust::session::BlockingEndpoint;
    /// #[derive(Clone, Debug)] struct Move;
    /// let ex = explore(prust::protocols::chess::strict(), |r| {
    ///     r.spawn("white", |mut ep| {
    ///         ep.send("black", Move).unwrap();
    ///         ep.recv_from("black").unwrap();
    ///     });
    ///     r.spawn("black", |mut ep| {
    ///         ep.recv_from("white").unwrap();
    ///         ep.send("white", Move).unwrap();
    ///         7
    ///     })
    /// });
    /// assert!(ex.always(|&n| n > 0).holds());
    /// assert!(ex.always(|&n| n > 10).fails());
    /// ```
    pub fn always(&self, p: impl Fn(&T) -> bool) -> Verdict<T> {
        let broken: Vec<_> = self
            .results()
            .iter()
            .filter(|r| !p(&r.value))
            .cloned()
            .collect();
        let why = format!("{} result(s) do not satisfy the predicate", broken.len());
        self.universal("always", broken, why)
    }

    /// Some execution gives a result that satisfies `p` (Déjà Fu's
    /// `somewhereTrue`): holds on the witnesses (even on an exploration
    /// cut short); fails, on a complete exploration, with every result.
    ///
    /// ```
    /// use prust::explore::explore;
    /// use prust::session::BlockingEndpoint;
    /// #[derive(Clone, Debug)] struct Move;
    /// let ex = explore(prust::protocols::chess::strict(), |r| {
    ///     r.spawn("white", |mut ep| {
    ///         ep.send("black", Move).unwrap();
    ///         ep.recv_from("black").unwrap();
    ///     });
    ///     r.spawn("black", |mut ep| {
    ///         ep.recv_from("white").unwrap();
    ///         ep.send("white", Move).unwrap();
    ///         7
    ///     })
    /// });
    /// assert!(ex.somewhere(|&n| n == 7).holds());
    /// assert!(ex.somewhere(|&n| n == 8).fails());
    /// ```
    pub fn somewhere(&self, p: impl Fn(&T) -> bool) -> Verdict<T> {
        let witnesses: Vec<_> = self
            .results()
            .iter()
            .filter(|r| p(&r.value))
            .cloned()
            .collect();
        self.existential("somewhere", witnesses, "no result satisfies the predicate")
    }

    /// The executions give exactly these results, and every one of them
    /// (Déjà Fu's `gives`): fails with the results not expected (and the
    /// failing executions), or, on a complete exploration, with the
    /// expected results no execution gave ([`Verdict::missing`]);
    /// inconclusive if the exploration was cut short before either.
    ///
    /// ```
    /// use prust::explore::explore;
    /// use prust::session::BlockingEndpoint;
    /// #[derive(Clone, Debug)] struct Move;
    /// let ex = explore(prust::protocols::chess::strict(), |r| {
    ///     r.spawn("white", |mut ep| {
    ///         ep.send("black", Move).unwrap();
    ///         ep.recv_from("black").unwrap();
    ///     });
    ///     r.spawn("black", |mut ep| {
    ///         ep.recv_from("white").unwrap();
    ///         ep.send("white", Move).unwrap();
    ///         7
    ///     })
    /// });
    /// assert!(ex.gives(&[7]).holds());
    /// let v = ex.gives(&[7, 8]);
    /// assert!(v.fails() && v.missing == [8]);
    /// ```
    pub fn gives(&self, expected: &[T]) -> Verdict<T> {
        let unexpected: Vec<_> = self
            .results()
            .iter()
            .filter(|r| !expected.contains(&r.value))
            .cloned()
            .collect();
        let why = format!("{} result(s) not expected", unexpected.len());
        let mut v = self.universal("gives", unexpected, why);
        let mut missing: Vec<T> = Vec::new();
        for e in expected {
            if !self.results().iter().any(|r| r.value == *e) && !missing.contains(e) {
                missing.push(e.clone());
            }
        }
        if v.status == Status::Holds && !missing.is_empty() {
            v.status = Status::Fails;
            v.reason = Some(format!(
                "{} expected result(s) given by no execution",
                missing.len()
            ));
        }
        if v.status != Status::Holds {
            v.missing = missing;
        }
        v
    }
}
