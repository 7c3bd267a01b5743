//! The distinct failures of an exploration, and turning an execution's
//! role indices into the names of its report.

use std::collections::HashMap;
use std::time::Duration;

use super::end::End;
use super::error::ExploreError;
use super::property::Property;
use super::report::{Action, Failure, Outcome, TraceStep};
use super::schedule::{Choice, Schedule};
use super::scheduler::Run;
use super::step::{Act, ActKind, Alt};

/// The distinct failures found so far.
#[derive(Default)]
pub(crate) struct Found {
    pub(crate) failures: Vec<Failure>,
    pub(crate) counts: Vec<usize>,
    index: HashMap<String, usize>,
    /// Whether the last execution [`add`](Self::add)ed was a failure
    /// (then it gives no result).
    pub(crate) last_failed: bool,
}

impl Found {
    fn push(&mut self, failure: Failure) {
        let key = failure.outcome.to_string();
        match self.index.get(&key) {
            Some(&i) => self.counts[i] += 1,
            None => {
                self.index.insert(key, self.failures.len());
                self.failures.push(failure);
                self.counts.push(1);
            }
        }
    }

    /// Records how `run` ended; returns why the exploration is incomplete
    /// if this execution was cut short.
    pub(crate) fn add(
        &mut self,
        names: &[String],
        run: Run,
        property: Option<&mut Property>,
    ) -> Result<Option<String>, ExploreError> {
        let mut cut = None;
        self.last_failed = !run.left_behind.is_empty();
        // Roles whose threads did not return after the execution was
        // stopped for another reason: stuck outside the session too.
        let also_stuck: Vec<_> = run
            .left_behind
            .iter()
            .filter(|&&r| !matches!(run.end, End::Stuck { role, .. } if role == r))
            .map(|&r| names[r].clone())
            .collect();
        let outcome = match run.end {
            End::Success => match property {
                None => None,
                Some(p) => match p
                    .check_trace(&run.trace, run.terminated)
                    .map_err(ExploreError::Property)?
                {
                    Some(true) => None,
                    Some(false) => Some(Outcome::PropertyViolated {
                        formula: p.formula().to_string(),
                    }),
                    None => {
                        let reason = format!(
                            "checking an execution's trace against {} hit a limit of the engine",
                            p.formula()
                        );
                        cut = Some(reason.clone());
                        Some(Outcome::Aborted { reason })
                    }
                },
            },
            End::Deadlock(deadlock) => Some(Outcome::Deadlock { deadlock }),
            End::Violation { role, op } => Some(Outcome::Violation {
                role: names[role].clone(),
                operation: op,
            }),
            End::Panicked {
                role,
                message,
                location,
            } => Some(Outcome::Panicked {
                role: names[role].clone(),
                message,
                location,
            }),
            End::Unfinished { not_finished } => Some(Outcome::Unfinished {
                not_finished: not_finished.iter().map(|&r| names[r].clone()).collect(),
            }),
            End::Steps(n) => {
                let reason = format!(
                    "an execution reached max_steps = {n} (raise it with Explorer::max_steps \
                     or PRUST_MAX_STEPS)"
                );
                cut = Some(reason.clone());
                Some(Outcome::Aborted { reason })
            }
            // A bound of the exploration, not a failure of the program:
            // the exploration is only incomplete.
            End::Time => {
                cut = Some(
                    "the time ran out (raise it with Explorer::timeout or PRUST_TIMEOUT)"
                        .to_string(),
                );
                None
            }
            End::Stuck { role, waited } => {
                cut = Some(format!(
                    "role {} was stuck outside the session",
                    names[role]
                ));
                Some(Outcome::Stuck {
                    role: names[role].clone(),
                    waited,
                })
            }
            // Not a thread left running: the task is dropped, and the
            // exploration goes on.
            End::Awaiting { role } => Some(Outcome::Stuck {
                role: names[role].clone(),
                waited: Duration::ZERO,
            }),
            End::Diverged {
                step,
                expected,
                found,
            } => {
                cut = Some("the program is not deterministic".to_string());
                Some(Outcome::Nondeterministic {
                    step,
                    expected,
                    found,
                })
            }
            End::Program(e) => return Err(ExploreError::Program(e)),
            End::Redundant => None,
        };
        if outcome.is_none() && also_stuck.is_empty() {
            // Most executions: nothing to report, so no schedule or trace
            // by role names to build (a tenth of an execution's work).
            return Ok(cut);
        }
        let schedule = to_schedule(names, &run.schedule);
        let trace: Vec<TraceStep> = run.trace.iter().map(|a| to_step(names, a)).collect();
        if let Some(outcome) = outcome {
            self.last_failed = true;
            self.push(Failure {
                outcome,
                schedule: schedule.clone(),
                trace: trace.clone(),
            });
        }
        for role in also_stuck {
            cut.get_or_insert_with(|| {
                format!("role {role} was stuck outside the session after the execution was stopped")
            });
            self.push(Failure {
                outcome: Outcome::Stuck {
                    role,
                    waited: run.role_timeout,
                },
                schedule: schedule.clone(),
                trace: trace.clone(),
            });
        }
        Ok(cut)
    }
}

/// A choice by role names, as a schedule prints it.
pub(crate) fn to_choice(names: &[String], alt: &Alt) -> Choice {
    Choice {
        role: names[alt.role].clone(),
        from: alt.from.map(|f| names[f].clone()),
        pick: alt.pick,
    }
}

/// The schedule of an execution, by role names.
pub(crate) fn to_schedule(names: &[String], alts: &[Alt]) -> Schedule {
    Schedule::new(alts.iter().map(|a| to_choice(names, a)).collect())
}

/// A trace step by role names.
pub(crate) fn to_step(names: &[String], act: &Act) -> TraceStep {
    TraceStep {
        role: names[act.role].clone(),
        action: match &act.kind {
            ActKind::Send { to, ty } => Action::Send {
                to: names[*to].clone(),
                type_name: ty.name().to_string(),
            },
            ActKind::Recv { from, ty } => Action::Recv {
                from: names[*from].clone(),
                type_name: ty.name().to_string(),
            },
            ActKind::Close { to } => Action::Close {
                to: names[*to].clone(),
            },
            ActKind::Choose { pick, n } => Action::Choose {
                value: *pick,
                of: *n,
            },
        },
    }
}

/// The enabled choices, as a divergence report shows them.
pub(crate) fn describe(names: &[String], alts: &[Alt]) -> String {
    if alts.is_empty() {
        return "no choice".into();
    }
    let s: Vec<String> = alts
        .iter()
        .map(|a| to_choice(names, a).to_string())
        .collect();
    format!("[{}]", s.join(" "))
}
