//! A counterexample: the steps of a run that violates the property, and
//! how the run ends; printed one action per line.

use std::fmt;

use crate::hint::Audience;
use crate::protocol::ActionKind;
use crate::protocol::{Message, RoleId};

/// One step of a counterexample: one action of one role.
#[derive(Debug, Clone)]
pub struct CounterexampleStep {
    /// The acting role.
    pub role: RoleId,
    /// Its name.
    pub role_name: String,
    /// What it did.
    pub kind: ActionKind,
    /// Short type name of the message sent or received (`None` for closes).
    pub type_name: Option<String>,
    /// The receiver of a send or close, the sender of a receive.
    pub peer: RoleId,
    /// Its name.
    pub peer_name: String,
    /// The automaton state after the step.
    pub automaton_state: usize,
    /// The dummy sent (sends only), so that the step can be replayed.
    pub(crate) message: Option<Message>,
}

impl fmt::Display for CounterexampleStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.kind, &self.type_name) {
            (ActionKind::Send, Some(t)) => {
                write!(f, "{} SEND <{t}> TO {}", self.role_name, self.peer_name)
            }
            (ActionKind::Recv, Some(t)) => {
                write!(f, "{} RECV <{t}> FROM {}", self.role_name, self.peer_name)
            }
            _ => write!(f, "{} {} TO {}", self.role_name, self.kind, self.peer_name),
        }
    }
}

/// How a finite run ends: it is extended by stutter steps forever, so that
/// LTL, which speaks of infinite runs, applies to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// No action is enabled and the object reports `is_terminated()`.
    Terminated,
    /// No action is enabled and the object is not terminated.
    Deadlock {
        /// The roles that have not finished (all roles unless the object
        /// implements [`Protocol::is_finished`](crate::Protocol::is_finished)).
        waiting: Vec<String>,
    },
    /// The steps so far already violate the property, whatever the object
    /// does next (a *bad prefix*, as for safety properties; found under the
    /// stutter convention, where every run goes on forever).
    AnyContinuation,
}

/// A run that violates the property: a lasso `prefix · cycle^ω`, or for a
/// finite run `prefix` followed by stutter steps forever (`ending`).
#[derive(Debug, Clone)]
pub struct Counterexample {
    /// The steps from the initial object to the cycle (or to the end).
    pub prefix: Vec<CounterexampleStep>,
    /// The steps repeated forever; empty iff `ending` is set.
    pub cycle: Vec<CounterexampleStep>,
    /// For a finite run, how it ends.
    pub ending: Option<Ending>,
    /// The roles the cycle starves, by name: each is enabled in every
    /// state of the cycle and moves in none of its steps. Such a cycle is
    /// not weakly fair, so under [`Fairness::Weak`](crate::Fairness::Weak)
    /// it is not a counterexample (and this is always empty there). Empty
    /// for a finite run and a bad prefix.
    pub starved: Vec<String>,
    /// Who the starvation note is worded for.
    pub(crate) audience: Audience,
    pub(crate) dummies: Vec<Message>,
    /// All the object's roles, so that a chart shows the idle ones too.
    pub(crate) roles: Vec<String>,
    /// Whether this is a shortest counterexample of the check
    /// ([`Checker::shortest`](crate::Checker::shortest)).
    pub shortness: Shortness,
    /// Where the check searched for a shortest counterexample and found
    /// it: the length of the shortest lasso of the product, (actions,
    /// steps), a stutter step no action. The run shown is that lasso, or
    /// one as long or shorter once a run that repeats itself is shown with
    /// its repetition once (the product may need a cycle of the object
    /// more than once before the automaton settles). `None` otherwise.
    pub product_length: Option<(u64, u64)>,
}

/// Whether a counterexample is a shortest one: no violation has a shorter
/// prefix, nor one as short a shorter cycle, counting actions (see
/// [`Checker::shortest`](crate::Checker::shortest) for the exact terms).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Shortness {
    /// A shortest counterexample: the check searched the whole product
    /// for one (it may be the one its search found).
    Shortest,
    /// Not known: shortening was switched off, or the counterexample did
    /// not come from a check (a trail read back).
    Unknown,
    /// Not shown to be a shortest one: why (a limit, the cost, a shorter
    /// one that did not replay), and how to ask for it. Printed under the
    /// steps.
    NotShown(String),
}

impl Counterexample {
    /// What the report says under a cycle that starves a role (see
    /// [`starved`](Self::starved)): who, and that under weak fairness the
    /// run is not a counterexample. `None` if the cycle starves nobody.
    pub fn starvation_note(&self) -> Option<String> {
        let (who, each, moves) = match self.starved.as_slice() {
            [] => return None,
            [one] => (one.clone(), "", "never moves"),
            many => (many.join(", "), "each ", "none moves"),
        };
        let fair = match self.audience {
            Audience::Library => "Checker::fairness(Fairness::Weak)",
            Audience::CommandLine => "--fairness weak",
        };
        Some(format!(
            "this cycle starves {who} ({each}enabled at every step of the cycle, {moves}); \
             with {fair} it is not a counterexample"
        ))
    }

    /// All steps, prefix then one turn of the cycle.
    pub fn steps(&self) -> impl Iterator<Item = &CounterexampleStep> {
        self.prefix.iter().chain(&self.cycle)
    }
}

pub(super) fn ending_line(e: &Ending) -> String {
    match e {
        Ending::Terminated => "then the protocol has terminated".into(),
        // Every role finished, yet the object is not at an end (a liberal
        // object whose roles each ended in a state the protocol does not
        // end in): no role to name as waiting.
        Ending::Deadlock { waiting } if waiting.is_empty() => {
            "then nothing can happen: deadlock (every role has finished, but the protocol \
             does not end here)"
                .into()
        }
        Ending::Deadlock { waiting } => {
            format!(
                "then nothing can happen: deadlock (waiting: {})",
                waiting.join(", ")
            )
        }
        Ending::AnyContinuation => {
            "then, whatever happens next, the property is already violated".into()
        }
    }
}

impl fmt::Display for Counterexample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "counterexample:")?;
        for (i, step) in self.steps().enumerate() {
            if i == self.prefix.len() {
                writeln!(f, "  -- cycle starts here --")?;
            }
            writeln!(f, "  {:>4}. {step}", i + 1)?;
        }
        if !self.cycle.is_empty() {
            writeln!(f, "  (back to step {}, forever)", self.prefix.len() + 1)?;
        }
        if let Some(note) = self.starvation_note() {
            writeln!(f, "  {note}")?;
        }
        if let Some(e) = &self.ending {
            if self.prefix.is_empty() {
                writeln!(f, "  (in the initial state)")?;
            }
            writeln!(f, "  {}", ending_line(e))?;
        }
        if let Shortness::NotShown(why) = &self.shortness {
            writeln!(f, "  not shown to be a shortest counterexample: {why}")?;
        }
        Ok(())
    }
}
