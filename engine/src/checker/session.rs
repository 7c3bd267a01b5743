//! A check session: one protocol object, its interned states and
//! successor cache, and any number of formulas checked on it.

use std::time::Instant;

use crate::budget::{Bounds, Watch};
use crate::error::Error;
use crate::fairness::Fairness;
use crate::ids::ProtoId;
use crate::pattern::Valuation;
use crate::por::ReductionStatus;
use crate::product::Prepared;
use crate::property::Property;
use crate::protocol::Protocol;
use crate::report::{reexecute, starved_mask, Limit, Report, Shortness, Stats, Verdict};
use crate::search::{fair_marks_layout, Parallelism, Search, SearchOptions, SearchOutcome, Split};
use crate::successors::{omission_bound, Successors};
use crate::Semantics;

use super::shorten::Pick;
use super::Checker;

/// Several checks on one protocol object (see [`Checker::session`]).
pub struct CheckSession<P> {
    pub(super) checker: Checker,
    /// The checker's limits with their defaults applied, once a session.
    pub(super) bounds: Bounds,
    pub(super) successors: Successors<P>,
    pub(super) initial: ProtoId,
    /// The error of a check that panicked outside the object's
    /// try-operations: the stored states may be half updated, so every
    /// later check of the session gives that error too.
    pub(super) broken: Option<Error>,
}

impl<P: Protocol> CheckSession<P> {
    /// Checks a formula.
    ///
    /// A panic in the object's try-operations is [`Error::ProtocolPanic`];
    /// one in its Clone, Hash or Eq (which the engine calls on every state
    /// it stores) is [`Error::ObjectPanic`], and the session then gives
    /// that error for every later formula.
    pub fn check(&mut self, formula: &str) -> Result<Report, Error> {
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        let r = super::object_op::<P, _>("Clone, Hash or Eq (outside its try-operations)", || {
            self.check_unguarded(formula)
        });
        match r {
            Ok(r) => r,
            Err(e) => {
                self.broken = Some(e.clone());
                Err(e)
            }
        }
    }

    /// The automaton of the negated `formula` on this object's alphabet,
    /// as a check searches its product with: constant atoms folded, and
    /// atoms that no letter satisfies together translated as exclusive.
    /// Test support: a reference search over the same product (the
    /// shortest counterexample's test) needs the same automaton, since
    /// another automaton of the same language may settle later.
    #[cfg(any(test, feature = "testing"))]
    pub fn negated_automaton(&self, formula: &str) -> Result<owl_lite::Automaton, Error> {
        Property::prepare(formula, &self.successors.alphabet, None).map(|p| p.automaton)
    }

    /// [`check`](Self::check), without the guard against panics that
    /// escape the probes' own.
    fn check_unguarded(&mut self, formula: &str) -> Result<Report, Error> {
        // The check's limits hold from here, not from the first state: a
        // formula whose translation or analysis is slow is as inconclusive
        // at the time limit as a search that is.
        let started = Instant::now();
        let watch = Watch::new(&self.bounds, started);
        let property = match Property::prepare(formula, &self.successors.alphabet, Some(&watch)) {
            Ok(p) => p,
            Err(e) => {
                return match watch.reached() {
                    Some(limit) => Ok(self.cut_short(formula, limit, started)),
                    None => Err(e),
                }
            }
        };
        if watch.stop() {
            let limit = watch.reached().expect("stop() names the limit it reached");
            return Ok(self.cut_short(formula, limit, started));
        }
        self.check_property(&property, started)
    }

    /// The report of a check that a limit stopped before its search.
    fn cut_short(&self, formula: &str, limit: Limit, started: Instant) -> Report {
        Report {
            formula: formula.to_string(),
            semantics: self.bounds.semantics,
            fairness: self.checker.fairness,
            verdict: Verdict::Inconclusive { limit, explored: 0 },
            stats: Stats {
                time: started.elapsed(),
                ..Stats::default()
            },
            audience: self.checker.audience,
        }
    }

    /// Whether weak fairness can be decided exactly for `prepared` on this
    /// object: not on a share of a split check (its searches start from
    /// the split level), and only if every role's mark fits beside the
    /// automaton's.
    fn fairness_fits(&self, prepared: &Prepared) -> Result<(), Error> {
        if let Some(share) = self.checker.share {
            return Err(Error::Fairness {
                message: format!(
                    "a share of a split check (share {share}) cannot decide a liveness \
                     property under weak fairness; check it whole, or without fairness"
                ),
            });
        }
        self.role_marks_fit(prepared).map(|_| ())
    }

    /// Where the roles' fairness marks go beside the automaton's of
    /// `prepared` (see [`fair_marks_layout`]), or the error that they do
    /// not fit; the product graph's searches need them too.
    pub(super) fn role_marks_fit(&self, prepared: &Prepared) -> Result<(u32, u32), Error> {
        let roles = self.successors.alphabet.roles.len();
        fair_marks_layout(prepared.all_acc, roles).ok_or_else(|| Error::Fairness {
            message: format!(
                "the object has {roles} roles and the formula's automaton {} acceptance \
                 sets, more than the 32 marks a transition carries; check fewer roles, \
                 or without fairness",
                prepared.all_acc.count_ones()
            ),
        })
    }

    /// One search of `prepared` on this session's object; a violation it
    /// finds is shortened if `shorten` (see [`Checker::shortest`]), else
    /// shown as found with `unshortened` saying why.
    fn search(
        &mut self,
        prepared: &Prepared,
        started: Instant,
        opts: SearchOptions,
        unshortened: Option<&str>,
    ) -> Done {
        let mut search = Search::new(&mut self.successors, prepared, &self.bounds, started, opts);
        let outcome = match self.checker.share {
            Some(share) => {
                let split = Split {
                    share,
                    level: self.checker.share_level,
                    per_share: Checker::SHARE_STATES,
                };
                search.run_share(self.initial, &split)
            }
            None => search.run(self.initial),
        };
        // The search's stats are its own: the objects the shortening
        // stores are not the search's.
        let stats = search.stats.clone();
        let stored = search.stored_objects();
        let pick = match (&outcome, unshortened) {
            (Ok(SearchOutcome::Violated(found)), None) => Some(super::shorten::shorten(
                &mut search,
                &self.checker,
                self.bounds.max_states,
                self.initial,
                found,
            )),
            (Ok(SearchOutcome::Violated(_)), Some(why)) => {
                Some(Pick::Found(Shortness::NotShown(why.to_string()), None))
            }
            _ => None,
        };
        Done {
            outcome,
            stats,
            stored,
            pick,
            ample_states: search.ample_states,
            declared: search.declared,
            stored_apart: search.stored_apart,
            bitstate_used: search.bitstate_used,
            protocol_count: search.protocol_count,
        }
    }

    /// A liveness check under weak fairness with the reduction allowed:
    /// the reduced search *without* the roles' marks first, which decides
    /// when it finds no accepting cycle at all or one that starves nobody;
    /// else the full search with the marks. Why that is exact is in
    /// [`crate::por`] ("Under weak fairness").
    ///
    /// `marks_fit` says whether the roles' marks fit a transition: where
    /// they do not, only the reduced search can decide (it needs none),
    /// and a violation it cannot show to be fair is the marks' error.
    fn fair_search(
        &mut self,
        prepared: &Prepared,
        started: Instant,
        opts: SearchOptions,
        marks_fit: Result<(), Error>,
    ) -> Done {
        // Its shortening would not see the roles' marks, so a shortest
        // lasso of it could be an unfair one: the full search's sees them.
        let mut reduced = self.search(
            prepared,
            started,
            SearchOptions {
                fair: false,
                ..opts.clone()
            },
            Some(&format!(
                "under weak fairness the reduced search's violation is shown as found (checked \
                 fair, not shortened); a shortest fair one needs the full search: ask for it \
                 with {}",
                crate::hint::Setting::Shortest.named(self.checker.audience)
            )),
        );
        reduced.stats.reduction = reduced.status(None);
        let starved = match &reduced.outcome {
            Ok(SearchOutcome::Violated(raw)) => starved_mask(&self.successors, self.initial, raw),
            // Holds for every run, so for the fair ones; a limit or an
            // error is the reduced search's to report.
            _ => return reduced,
        };
        let names = &self.successors.alphabet.roles;
        let why = match starved {
            Some(mask) if !mask.contains(&true) => return reduced,
            Some(mask) => format!(
                "not used for the verdict under weak fairness: the reduced search ({} product \
                 states) found a violation whose cycle starves {}, and ample sets may \
                 postpone a role's moves, so the full search decided",
                reduced.stats.product_states,
                names
                    .iter()
                    .zip(mask)
                    .filter(|(_, s)| *s)
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => format!(
                "not used for the verdict under weak fairness: the reduced search ({} product \
                 states) found a violation whose cycle is not known to be fair, so the full \
                 search decided",
                reduced.stats.product_states
            ),
        };
        if let Err(e) = marks_fit {
            reduced.outcome = Err(match e {
                Error::Fairness { message } => Error::Fairness {
                    message: format!(
                        "{message} (the reduced search, which needs no marks, found a violation \
                         whose cycle is not known to be fair, so the full search must decide)"
                    ),
                },
                other => other,
            });
            return reduced;
        }
        let mut full = self.search(
            prepared,
            started,
            SearchOptions {
                reduce: false,
                ..opts
            },
            None,
        );
        full.stats.reduction = ReductionStatus::Off(why);
        full
    }

    /// Checks that no run is accepted by the automaton of the *negated*
    /// property.
    pub(crate) fn check_property(
        &mut self,
        property: &Property,
        started: Instant,
    ) -> Result<Report, Error> {
        let formula = property.text.as_str();
        let a = &self.successors.alphabet;
        let table = Valuation::new(a, &property.atoms);
        let prepared = Prepared::new(&property.automaton, a, |l| table.of(a, l));
        let limits = &self.bounds;
        // Partial-order reduction: asked of the object only if the option
        // and the formula allow it; the report says why not otherwise, to
        // objects that declare their independence.
        let declares = || {
            let obj = self.successors.store.get(self.initial);
            // Asked only for the report's wording when the search is full:
            // a panic in the object's declaration must not escape the check
            // (the full search never asks again), so it counts as none.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                obj.independence().is_some()
            }))
            .unwrap_or(false)
        };
        let off = if !self.checker.por {
            Some(format!(
                "switched off (by {})",
                crate::hint::Setting::NoPartialOrder.named(self.checker.audience)
            ))
        } else {
            property
                .reduction_applicability()
                .err()
                // The formula, not an option, decides this: say so, or a user
                // would look for a switch (PRUST_POR=1) that cannot help.
                .map(|why| format!("{why}; no option turns the reduction on for this formula"))
        };
        // An object whose initial state declares nothing is searched as
        // before, with the lazy probes of the full search.
        // A share's searches start from states at the split level, not
        // from the initial state the reduction's provisos are stated for.
        let off = off.or_else(|| {
            self.checker.share.map(|s| {
                format!(
                    "not used by a share of a split check (share {s}): its searches start at \
                     the split level"
                )
            })
        });
        // Weak fairness matters only to the search for cycles: a safety
        // property decided by reachability is decided as without it (see
        // `crate::fairness`).
        let fair = self.checker.fairness == Fairness::Weak
            && prepared.num_states() > 0
            && !(limits.semantics == Semantics::Stutter && prepared.safety);
        let declared = declares();
        let reduce = off.is_none() && declared;
        // The reduced search of a fair check needs no marks: it may still
        // decide where the roles' marks do not fit (see `fair_search`).
        let reduced_first = fair && reduce && self.checker.shortest != Some(true);
        let marks_fit = if fair {
            let fits = self.fairness_fits(&prepared);
            if !reduced_first {
                fits?;
                Ok(())
            } else {
                fits
            }
        } else {
            Ok(())
        };
        let reduction_off = off.filter(|_| declared);
        let parallel = Parallelism {
            threads: self.checker.threads,
            chosen: self.checker.threads_chosen,
            level: self.checker.parallel_level,
        };
        let opts = SearchOptions {
            reduce,
            parallel,
            audience: self.checker.audience,
            fair,
            bitstate: self
                .checker
                .bitstate
                .map(|bits| (bits, Checker::BITSTATE_HASHES)),
        };
        let done = if reduced_first {
            self.fair_search(&prepared, started, opts, marks_fit)
        } else if fair && reduce {
            // A shortest fair lasso is the full search's to find: the
            // reduced one's shortening would not see the roles' marks.
            let full = SearchOptions {
                reduce: false,
                ..opts
            };
            let mut done = self.search(&prepared, started, full, None);
            done.stats.reduction = ReductionStatus::Off(format!(
                "not used under weak fairness when a shortest counterexample is asked for \
                 ({}): the shortest fair lasso is the full search's",
                crate::hint::Setting::Shortest.named(self.checker.audience)
            ));
            done
        } else {
            let mut done = self.search(&prepared, started, opts, None);
            done.stats.reduction = done.status(reduction_off);
            done
        };
        let Done {
            outcome,
            mut stats,
            stored,
            pick,
            stored_apart,
            bitstate_used,
            protocol_count,
            ..
        } = done;
        stats.bitstate = bitstate_used.map(|(bits, k)| crate::Bitstate {
            bits,
            hash_functions: k,
        });
        let fingerprint_count = protocol_count.is_some().then_some(stats.product_states);
        if let Some(n) = protocol_count {
            // The store forgot the states it no longer held: the search
            // counted them.
            stats.protocol_states = n;
        } else if !stored_apart {
            // The parallel search stores its objects apart (and counted
            // them); the one-thread search's are the session's.
            stats.protocol_states = stored;
        }
        stats.time = started.elapsed();
        let compacted = self.successors.store.is_compacted();
        stats.hash_compaction = compacted;
        let outcome = outcome?;
        if let Some(detail) = self.successors.store.codec_error() {
            // A state's bytes did not name it: the search may have merged
            // two states, so no verdict stands.
            return Err(Error::Contract {
                action: "encode/decode".to_string(),
                detail: format!("{detail} (Protocol::encode and Protocol::decode)"),
                trace: Vec::new(),
            });
        }
        let verdict = match outcome {
            SearchOutcome::Holds if compacted && self.checker.share.is_none() => {
                let n = fingerprint_count.unwrap_or(stats.protocol_states);
                Verdict::HoldsProbabilistic {
                    fingerprints: n,
                    // A collision seen is a state missed for sure; the bound is
                    // then no bound.
                    omission_bound: if self.successors.store.collisions_seen() > 0 {
                        1.0
                    } else if let Some(b) = stats.bitstate {
                        b.expected_misses(n).min(1.0)
                    } else {
                        omission_bound(n)
                    },
                }
            }
            SearchOutcome::Holds => match self.checker.share {
                // One share proves nothing on its own: its own verdict.
                Some(s) => Verdict::HoldsOnShare {
                    index: s.index(),
                    count: s.count(),
                },
                None => Verdict::Holds,
            },
            SearchOutcome::Inconclusive(limit) => Verdict::Inconclusive {
                limit,
                explored: stats.product_states,
            },
            SearchOutcome::Violated(found) => {
                let pick = pick.expect("a violation's shortening was decided above");
                let (raw, shortness, product_length) = super::shorten::settle(
                    &self.successors,
                    &self.checker,
                    self.initial,
                    found,
                    pick,
                );
                // Under hash compaction always: the run went through
                // states the store knows only by fingerprint.
                if self.checker.determinism || compacted {
                    reexecute(&self.successors, self.initial, &raw)?;
                }
                Verdict::Violated(super::shorten::counterexample(
                    &self.successors,
                    &self.checker,
                    self.initial,
                    &raw,
                    shortness,
                    product_length,
                ))
            }
        };
        Ok(Report {
            formula: formula.to_string(),
            semantics: self.bounds.semantics,
            fairness: self.checker.fairness,
            verdict,
            stats,
            audience: self.checker.audience,
        })
    }
}

/// What one search gave, with what the report needs of it.
struct Done {
    outcome: Result<SearchOutcome, Error>,
    stats: Stats,
    /// Objects the search stored (before any shortening stored more).
    stored: u64,
    /// What the shortening of a violation decided.
    pick: Option<Pick>,
    ample_states: u64,
    declared: bool,
    stored_apart: bool,
    /// The bitstate array's bits and hash functions, where it was used.
    bitstate_used: Option<(u64, u32)>,
    /// Under hash compaction with the search's own fingerprint set: the
    /// protocol states it counted (the store forgot the others).
    protocol_count: Option<u64>,
}

impl Done {
    /// The reduction's status: `off` (the reason it was not asked for,
    /// where the object declares independence), else on if some state
    /// declared it.
    fn status(&self, off: Option<String>) -> ReductionStatus {
        match off {
            Some(why) => ReductionStatus::Off(why),
            None if self.declared => ReductionStatus::On {
                ample_states: self.ample_states,
            },
            None => ReductionStatus::NotDeclared,
        }
    }
}
