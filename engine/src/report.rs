//! What a check answers: verdict, statistics and counterexamples.

use std::fmt::{self, Write as _};
use std::time::Duration;

use crate::alphabet::ActionKind;
use crate::protocol::{Message, Protocol, RoleId};
use crate::Semantics;

/// The outcome of a check.
#[derive(Debug, Clone)]
pub struct Report {
    /// The formula as given.
    pub formula: String,
    /// The semantics of finite runs used.
    pub semantics: Semantics,
    /// The answer.
    pub verdict: Verdict,
    /// What the search did.
    pub stats: Stats,
}

/// The answer of a check.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// Every run of the object satisfies the formula: the search was
    /// exhaustive.
    Holds,
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
/// "the memory limit (64 MiB resident; raise it with PRUST_MAX_MEMORY or
/// Checker::max_memory — an object that grows forever never fits: bound it)".
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
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::States(n) => write!(
                f,
                "the state limit ({n} product states; raise it with PRUST_MAX_STATES or \
                 Checker::max_states)"
            ),
            Limit::Depth(n) => write!(
                f,
                "the depth limit ({n} steps; raise it with PRUST_MAX_DEPTH or Checker::max_depth)"
            ),
            Limit::Time(d) => write!(
                f,
                "the time limit ({:.1} s per formula; raise it with PRUST_TIMEOUT or \
                 Checker::timeout)",
                d.as_secs_f64()
            ),
            Limit::Memory(b) => write!(
                f,
                "the memory limit ({:.0} MiB resident; raise it with PRUST_MAX_MEMORY or \
                 Checker::max_memory — an object whose states grow forever, such as an \
                 unbounded channel or counter, never fits: bound it)",
                *b as f64 / (1024.0 * 1024.0)
            ),
        }
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
}

impl Report {
    /// Whether the property holds.
    pub fn holds(&self) -> bool {
        matches!(self.verdict, Verdict::Holds)
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
        let sem = match self.semantics {
            Semantics::Stutter => "",
            Semantics::InfiniteRunsOnly => " (infinite runs only)",
        };
        match &self.verdict {
            Verdict::Holds => writeln!(f, "property holds{sem}: {}", self.formula)?,
            Verdict::Violated(c) => {
                writeln!(f, "property violated{sem}: {}", self.formula)?;
                write!(f, "{c}")?;
            }
            Verdict::Inconclusive { limit, explored } => {
                writeln!(f, "inconclusive{sem}: {}", self.formula)?;
                writeln!(
                    f,
                    "  the search stopped at {limit} after {explored} product states, before it \
                     could prove or refute the property; raise the limit to decide"
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
        )
    }
}

/// One step of a counterexample: one action of one role.
#[derive(Debug, Clone)]
pub struct Step {
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

impl fmt::Display for Step {
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

/// How a finite run ends: it is extended by stutter steps forever (design
/// §3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// No action is enabled and the object reports `is_terminated()`.
    Terminated,
    /// No action is enabled and the object is not terminated.
    Deadlock {
        /// The roles that have not finished (all roles unless the object
        /// implements [`Protocol::is_finished`]).
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
    pub prefix: Vec<Step>,
    /// The steps repeated forever; empty iff `ending` is set.
    pub cycle: Vec<Step>,
    /// For a finite run, how it ends.
    pub ending: Option<Ending>,
    pub(crate) dummies: Vec<Message>,
}

impl Counterexample {
    /// All steps, prefix then one turn of the cycle.
    pub fn steps(&self) -> impl Iterator<Item = &Step> {
        self.prefix.iter().chain(&self.cycle)
    }

    /// Re-executes the counterexample on a fresh object (equal to the one
    /// checked) and returns a transcript with the object's state (`Debug`)
    /// after each step.
    ///
    /// # Panics
    /// Panics loudly, with the transcript so far, if the object behaves
    /// differently than during the search (an operation refused, a
    /// different message, a cycle that does not close, an ending that is
    /// not one).
    pub fn replay<P: Protocol + fmt::Debug>(&self, fresh: P) -> String {
        match self.try_replay(fresh) {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        }
    }

    /// Like [`replay`](Self::replay), but returns the divergence as an error.
    pub fn try_replay<P: Protocol + fmt::Debug>(&self, fresh: P) -> Result<String, ReplayError> {
        let mut obj = fresh;
        let mut out = String::new();
        let _ = writeln!(out, "initial: {obj:?}");
        let fail = |out: &String, step: usize, what: String| ReplayError {
            step,
            message: what,
            transcript: out.clone(),
        };
        let mut cycle_start = None;
        for (i, step) in self.steps().enumerate() {
            if i == self.prefix.len() {
                cycle_start = Some(obj.clone());
                let _ = writeln!(out, "-- cycle starts here --");
            }
            let result = match step.kind {
                ActionKind::Send => {
                    let msg = step.message.clone().expect("sends keep their dummy");
                    obj.try_send(step.role, step.peer, msg)
                        .map_err(|_| "the send was refused".to_string())
                }
                ActionKind::Recv => match obj.try_recv(step.role, Some(step.peer)) {
                    Err(_) => Err("the receive was refused".to_string()),
                    Ok((from, m)) => {
                        if from != step.peer || Some(m.type_name()) != step.type_name.as_deref() {
                            Err(format!(
                                "received <{}> from role #{from} instead of <{}> from {}",
                                m.type_name(),
                                step.type_name.as_deref().unwrap_or("?"),
                                step.peer_name
                            ))
                        } else {
                            Ok(())
                        }
                    }
                },
                ActionKind::Close => obj
                    .try_close(step.role, step.peer)
                    .map_err(|_| "the close was refused".to_string()),
            };
            if let Err(e) = result {
                return Err(fail(&out, i + 1, format!("step {} `{step}`: {e}", i + 1)));
            }
            let _ = writeln!(out, "{:>4}. {step}\n      {obj:?}", i + 1);
        }
        if let Some(start) = cycle_start {
            if start != obj {
                return Err(fail(
                    &out,
                    self.prefix.len() + self.cycle.len(),
                    "after one turn of the cycle the object is not in the state where the cycle started".into(),
                ));
            }
            let _ = writeln!(out, "(back to step {}, forever)", self.prefix.len() + 1);
        }
        if let Some(ending) = self
            .ending
            .as_ref()
            .filter(|e| **e != Ending::AnyContinuation)
        {
            if let Some(action) = self.enabled_action(&obj) {
                return Err(fail(
                    &out,
                    self.prefix.len(),
                    format!("the run should have ended, but `{action}` is enabled"),
                ));
            }
            let terminated = obj.is_terminated();
            if terminated != (*ending == Ending::Terminated) {
                return Err(fail(
                    &out,
                    self.prefix.len(),
                    format!(
                        "the object says is_terminated() = {terminated}, unlike during the search"
                    ),
                ));
            }
            let _ = writeln!(out, "{}", ending_line(ending));
        }
        Ok(out)
    }

    /// Some action enabled in `obj`, probing the whole alphabet on clones.
    fn enabled_action<P: Protocol>(&self, obj: &P) -> Option<String> {
        let roles = obj.roles();
        for r in 0..roles.len() {
            for p in (0..roles.len()).filter(|&p| p != r) {
                for d in &self.dummies {
                    if obj.clone().try_send(r, p, d.clone()).is_ok() {
                        return Some(format!(
                            "{} SEND <{}> TO {}",
                            roles[r],
                            d.type_name(),
                            roles[p]
                        ));
                    }
                }
                if let Ok((_, m)) = obj.clone().try_recv(r, Some(p)) {
                    return Some(format!(
                        "{} RECV <{}> FROM {}",
                        roles[r],
                        m.type_name(),
                        roles[p]
                    ));
                }
                if obj.clone().try_close(r, p).is_ok() {
                    return Some(format!("{} CLOSE TO {}", roles[r], roles[p]));
                }
            }
        }
        None
    }

    /// The lasso as a Graphviz digraph: one node per state, the cycle's
    /// back edge dashed, a final stutter as a self-loop.
    pub fn to_dot(&self) -> String {
        let mut s =
            String::from("digraph counterexample {\n  rankdir=LR;\n  node [shape=circle];\n");
        let n = self.prefix.len() + self.cycle.len();
        let _ = writeln!(s, "  init [shape=point];\n  init -> s0;");
        for i in 0..=n {
            if i == n && !self.cycle.is_empty() {
                break;
            }
            let shape = if !self.cycle.is_empty() && i == self.prefix.len() {
                ", shape=doublecircle"
            } else {
                ""
            };
            let _ = writeln!(s, "  s{i} [label=\"{i}\"{shape}];");
        }
        for (i, step) in self.steps().enumerate() {
            let label = format!("{}. {step}", i + 1).replace('"', "\\\"");
            if i + 1 == n && !self.cycle.is_empty() {
                let _ = writeln!(
                    s,
                    "  s{i} -> s{} [label=\"{label}\", style=dashed];",
                    self.prefix.len()
                );
            } else {
                let _ = writeln!(s, "  s{i} -> s{} [label=\"{label}\"];", i + 1);
            }
        }
        match &self.ending {
            Some(Ending::Terminated) => {
                let _ = writeln!(s, "  s{n} -> s{n} [label=\"END\"];");
            }
            Some(Ending::Deadlock { .. }) => {
                let _ = writeln!(s, "  s{n} -> s{n} [label=\"DEADLOCK\"];");
            }
            Some(Ending::AnyContinuation) => {
                let _ = writeln!(s, "  s{n} [shape=doublecircle, label=\"{n}: violated\"];");
            }
            None => {}
        }
        s.push_str("}\n");
        s
    }
}

fn ending_line(e: &Ending) -> String {
    match e {
        Ending::Terminated => "then the protocol has terminated".into(),
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
        if let Some(e) = &self.ending {
            if self.prefix.is_empty() {
                writeln!(f, "  (in the initial state)")?;
            }
            writeln!(f, "  {}", ending_line(e))?;
        }
        Ok(())
    }
}

/// A counterexample that the object does not reproduce.
#[derive(Debug, Clone)]
pub struct ReplayError {
    /// 1-based step at which the object diverged.
    pub step: usize,
    /// How it diverged.
    pub message: String,
    /// What was replayed up to there.
    pub transcript: String,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "replay diverged from the counterexample: {}\nreplayed so far:\n{}",
            self.message, self.transcript
        )
    }
}

impl std::error::Error for ReplayError {}
