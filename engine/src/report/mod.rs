//! What a check answers: verdict, statistics and counterexamples.

use std::fmt::{self, Write as _};
use std::time::Duration;

use crate::alphabet::ActionKind;
use crate::protocol::{Message, Protocol, RoleId};
use crate::Semantics;

mod raw;

pub(crate) use raw::{reexecute, steps_of, RawLasso};

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

/// How a finite run ends: it is extended by stutter steps forever, so that
/// LTL, which speaks of infinite runs, applies to it.
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
    /// All the object's roles, so that a chart shows the idle ones too.
    pub(crate) roles: Vec<String>,
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
            line: None,
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
                            let roles = obj.roles();
                            let from = roles
                                .get(from)
                                .map_or(format!("role #{from}"), |r| r.clone());
                            Err(format!(
                                "received <{}> from {from} instead of <{}> from {}",
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
                // Say what the object would do instead: the usual fix of
                // a hand-edited trail, and the first clue when an object
                // changed since its counterexample was saved.
                let enabled = self.enabled_actions(&obj, 8);
                let hint = if enabled.is_empty() {
                    "; nothing is enabled here".to_string()
                } else {
                    format!("; enabled here: {}", enabled.join(", "))
                };
                return Err(fail(
                    &out,
                    i + 1,
                    format!("step {} `{step}`: {e}{hint}", i + 1),
                ));
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
            let said = match ending {
                Ending::Terminated => "terminates",
                _ => "deadlocks",
            };
            if let Some(action) = self.enabled_actions(&obj, 1).pop() {
                return Err(fail(
                    &out,
                    self.prefix.len(),
                    format!("the run should end here (it {said}), but `{action}` is enabled"),
                ));
            }
            let terminated = obj.is_terminated();
            if terminated != (*ending == Ending::Terminated) {
                let is = if terminated {
                    "terminated"
                } else {
                    "deadlocked"
                };
                return Err(fail(
                    &out,
                    self.prefix.len(),
                    format!(
                        "the run should end here and it {said}, but the object has {is} \
                         (is_terminated() = {terminated})"
                    ),
                ));
            }
            let ending = match ending {
                // The waiting roles as the object says them now; a list
                // that was given (an empty one is "not stated", as in a
                // trail's plain `end deadlock`) must agree.
                Ending::Deadlock { waiting } => {
                    let roles = obj.roles();
                    let now: Vec<String> = (0..roles.len())
                        .filter(|&r| !obj.is_finished(r))
                        .map(|r| roles[r].clone())
                        .collect();
                    if !waiting.is_empty() && *waiting != now {
                        return Err(fail(
                            &out,
                            self.prefix.len(),
                            format!(
                                "the run deadlocks, but the roles still waiting are [{}], not [{}]",
                                now.join(", "),
                                waiting.join(", ")
                            ),
                        ));
                    }
                    Ending::Deadlock { waiting: now }
                }
                e => e.clone(),
            };
            let _ = writeln!(out, "{}", ending_line(&ending));
        }
        Ok(out)
    }

    /// Up to `max` actions enabled in `obj`, probing the whole alphabet on
    /// clones.
    fn enabled_actions<P: Protocol>(&self, obj: &P, max: usize) -> Vec<String> {
        let roles = obj.roles();
        let mut found = Vec::new();
        for r in 0..roles.len() {
            for p in (0..roles.len()).filter(|&p| p != r) {
                for d in &self.dummies {
                    if obj.clone().try_send(r, p, d.clone()).is_ok() {
                        found.push(format!(
                            "{} SEND <{}> TO {}",
                            roles[r],
                            d.type_name(),
                            roles[p]
                        ));
                    }
                }
                if let Ok((_, m)) = obj.clone().try_recv(r, Some(p)) {
                    found.push(format!(
                        "{} RECV <{}> FROM {}",
                        roles[r],
                        m.type_name(),
                        roles[p]
                    ));
                }
                if obj.clone().try_close(r, p).is_ok() {
                    found.push(format!("{} CLOSE TO {}", roles[r], roles[p]));
                }
                if found.len() >= max {
                    found.truncate(max);
                    return found;
                }
            }
        }
        found
    }

    /// The run as a Graphviz **message sequence chart**: one lifeline per
    /// role (columns, in role order), time downwards (one row per step,
    /// numbered on the left), an arrow from each send to the receive that
    /// takes the message, closes as boxes on the closing role's lifeline,
    /// the repeated cycle in a dashed box with a back edge to its first
    /// step, and the ending (deadlock: the waiting roles marked; terminated;
    /// violated whatever comes next) in the last row. Render it with plain
    /// `dot -Tsvg`.
    ///
    /// Sends are paired with receives first-in first-out per channel
    /// (sender, receiver), preferring a message of the received type, so
    /// the pairing is exact for FIFO channels. In a lasso, a message sent
    /// in the cycle and received only in its next turn points to the foot
    /// of the receiver's lifeline with the step that receives it; a message
    /// that is never received says "in transit".
    pub fn to_dot(&self) -> String {
        let steps: Vec<&Step> = self.steps().collect();
        let n = steps.len();
        let p = self.prefix.len();
        let lasso = !self.cycle.is_empty();

        // Columns: the object's roles in role order (their index is the
        // role id), then any role named only by a deadlock's waiting list.
        let mut cols: Vec<(usize, String)> = self.roles.iter().cloned().enumerate().collect();
        for st in &steps {
            for (id, name) in [(st.role, &st.role_name), (st.peer, &st.peer_name)] {
                if !cols.iter().any(|(i, _)| *i == id) {
                    cols.push((id, name.clone()));
                }
            }
        }
        cols.sort();
        if let Some(Ending::Deadlock { waiting }) = &self.ending {
            for w in waiting {
                if !cols.iter().any(|(_, name)| name == w) {
                    cols.push((usize::MAX - cols.len(), w.clone()));
                }
            }
        }
        let col_of = |id: usize| cols.iter().position(|(i, _)| *i == id).unwrap_or(0);

        // Pair sends with receives, FIFO per channel.
        let mut pending: Vec<((usize, usize), usize)> = Vec::new(); // (channel, send index)
        let mut recv_of: Vec<Option<usize>> = vec![None; n];
        let mut send_of: Vec<Option<usize>> = vec![None; n];
        for (i, st) in steps.iter().enumerate() {
            match st.kind {
                ActionKind::Send => pending.push(((st.role, st.peer), i)),
                ActionKind::Recv => {
                    let channel = (st.peer, st.role);
                    let on_channel: Vec<usize> = (0..pending.len())
                        .filter(|&at| pending[at].0 == channel)
                        .collect();
                    let same_type = on_channel
                        .iter()
                        .copied()
                        .find(|&at| steps[pending[at].1].type_name == st.type_name);
                    if let Some(at) = same_type.or(on_channel.first().copied()) {
                        let (_, j) = pending.remove(at);
                        recv_of[j] = Some(i);
                        send_of[i] = Some(j);
                    }
                }
                ActionKind::Close => {}
            }
        }
        // In a lasso, the messages in transit when the cycle starts are
        // received in the cycle; in the next turn, the cycle's own unmatched
        // sends take their place, in the same order.
        let mut next_turn: Vec<Option<usize>> = vec![None; n];
        if lasso {
            let mut channels: Vec<(usize, usize)> = pending.iter().map(|e| e.0).collect();
            channels.sort_unstable();
            channels.dedup();
            for c in channels {
                let from_before: Vec<usize> = (p..n)
                    .filter(|&i| {
                        steps[i].kind == ActionKind::Recv
                            && (steps[i].peer, steps[i].role) == c
                            && send_of[i].is_some_and(|j| j < p)
                    })
                    .collect();
                let unmatched = pending.iter().filter(|e| e.0 == c && e.1 >= p).map(|e| e.1);
                for (j, r) in unmatched.zip(from_before) {
                    next_turn[j] = Some(r);
                }
            }
        }

        let mut s = String::from("digraph counterexample {\n");
        s.push_str(
            "  graph [rankdir=TB, newrank=true, splines=line, nodesep=0.5, ranksep=0.22, fontname=\"Helvetica\", \
             fontsize=10];\n  node [fontname=\"Helvetica\", fontsize=10];\n  \
             edge [fontname=\"Helvetica\", fontsize=9];\n",
        );
        let row = |s: &mut String, r: usize, nodes: &[String]| {
            let _ = writeln!(s, "  {{ rank=same; {} }}", nodes.join(" "));
            // Invisible edges within a rank fix the order of the columns.
            let ids: Vec<String> = lasso
                .then(|| format!("l{r}"))
                .into_iter()
                .chain(std::iter::once(format!("t{r}")))
                .chain((0..cols.len()).map(|c| format!("c{c}_{r}")))
                .collect();
            let _ = writeln!(s, "  {} [style=invis];", ids.join(" -> "));
        };
        // Row 0: the role names.
        // A lasso has a column left of the step numbers for its back edge.
        let loop_node = |r: usize| {
            lasso.then(|| {
                format!("l{r} [group=gl, shape=point, width=0.01, height=0.01, style=invis];")
            })
        };
        let mut nodes: Vec<String> = loop_node(0).into_iter().collect();
        nodes.push("t0 [shape=plaintext, label=\"step\"];".to_string());
        for (c, (_, name)) in cols.iter().enumerate() {
            nodes.push(format!(
                "c{c}_0 [group=g{c}, shape=box, style=\"rounded,filled\", fillcolor=\"#e8eef8\", label=\"{}\"];",
                esc(name)
            ));
        }
        row(&mut s, 0, &nodes);
        // Rows 1..=n: the steps. The cycle's rows sit in a dashed cluster.
        for (i, st) in steps.iter().enumerate() {
            let r = i + 1;
            if lasso && i == p {
                let _ = writeln!(
                    s,
                    "  subgraph cluster_cycle {{\n  style=dashed; color=\"#3060c0\"; fontcolor=\"#3060c0\"; \
                     labeljust=r; label=\"cycle: steps {}-{n} repeat forever\";",
                    p + 1
                );
            }
            let mut nodes: Vec<String> = loop_node(r).into_iter().collect();
            nodes.push(format!(
                "t{r} [shape=plaintext, height=0.25, label=\"{r}\", tooltip=\"{}\"];",
                esc(&st.to_string())
            ));
            let actor = col_of(st.role);
            for c in 0..cols.len() {
                let node = if c != actor {
                    format!("c{c}_{r} [group=g{c}, shape=point, width=0.01, height=0.01, color=gray60];")
                } else if st.kind == ActionKind::Close {
                    format!(
                        "c{c}_{r} [group=g{c}, shape=box, style=filled, fillcolor=\"#fff0c0\", fontsize=9, \
                         height=0.2, label=\"CLOSE to {}\"];",
                        esc(&st.peer_name)
                    )
                } else {
                    format!("c{c}_{r} [group=g{c}, shape=point, width=0.08, height=0.08];")
                };
                nodes.push(node);
            }
            row(&mut s, r, &nodes);
            if lasso && i + 1 == n {
                s.push_str("  }\n");
            }
        }
        // Row n+1: the ending.
        let foot = n + 1;
        let waiting: &[String] = match &self.ending {
            Some(Ending::Deadlock { waiting }) => waiting,
            _ => &[],
        };
        let (foot_label, foot_attr) = match &self.ending {
            None => (format!("back to {}", p + 1), ", fontcolor=\"#3060c0\""),
            Some(Ending::Deadlock { .. }) => ("deadlock".to_string(), ", fontcolor=\"#c03030\""),
            Some(Ending::Terminated) => ("terminated".to_string(), ""),
            Some(Ending::AnyContinuation) => (
                "violated,\nwhatever\nhappens next".to_string(),
                ", fontcolor=\"#c03030\"",
            ),
        };
        let mut nodes: Vec<String> = loop_node(foot).into_iter().collect();
        nodes.push(format!(
            "t{foot} [shape=plaintext, label=\"{}\"{foot_attr}];",
            esc(&foot_label)
        ));
        for (c, (_, name)) in cols.iter().enumerate() {
            let node = match &self.ending {
                Some(Ending::Deadlock { .. }) if waiting.contains(name) => format!(
                    "c{c}_{foot} [group=g{c}, shape=box, style=filled, fillcolor=\"#f8d0d0\", color=\"#c03030\", \
                     fontsize=9, height=0.2, label=\"blocked\"];"
                ),
                Some(Ending::Deadlock { .. }) => format!(
                    "c{c}_{foot} [group=g{c}, shape=box, fontsize=9, height=0.2, label=\"finished\"];"
                ),
                Some(Ending::Terminated) => format!(
                    "c{c}_{foot} [group=g{c}, shape=box, style=filled, fillcolor=black, label=\"\", \
                     width=0.3, height=0.06];"
                ),
                _ => format!("c{c}_{foot} [group=g{c}, shape=point, width=0.01, height=0.01, color=gray60];"),
            };
            nodes.push(node);
        }
        row(&mut s, foot, &nodes);
        // Lifelines and the time axis; heavy weights keep them straight.
        for c in 0..cols.len() {
            for r in 0..foot {
                let style = if r + 1 == foot && self.ending.is_none() {
                    "style=dashed, "
                } else {
                    ""
                };
                let _ = writeln!(
                    s,
                    "  c{c}_{r} -> c{c}_{} [{style}arrowhead=none, weight=100, color=gray50];",
                    r + 1
                );
            }
        }
        for r in 0..foot {
            let _ = writeln!(s, "  t{r} -> t{} [style=invis, weight=100];", r + 1);
            if lasso {
                let _ = writeln!(s, "  l{r} -> l{} [style=invis, weight=100];", r + 1);
            }
        }
        // Messages.
        for (i, st) in steps.iter().enumerate() {
            if st.kind != ActionKind::Send {
                continue;
            }
            let (from, to) = (col_of(st.role), col_of(st.peer));
            let ty = esc(st.type_name.as_deref().unwrap_or("?"));
            let tip = esc(&format!("{}. {st}", i + 1));
            match (recv_of[i], next_turn[i]) {
                (Some(j), _) => {
                    let _ = writeln!(
                        s,
                        "  c{from}_{} -> c{to}_{} [xlabel=\"<{ty}>\", tooltip=\"{tip}\", \
                         constraint=false, color=\"#204080\"];",
                        i + 1,
                        j + 1
                    );
                }
                (None, Some(j)) => {
                    let _ = writeln!(
                        s,
                        "  c{from}_{} -> c{to}_{foot} [xlabel=\"<{ty}>, received\\nin step {} of\\nthe next turn\", \
                         tooltip=\"{tip}\", constraint=false, style=dashed, color=\"#204080\"];",
                        i + 1,
                        j + 1
                    );
                }
                (None, None) => {
                    let _ = writeln!(
                        s,
                        "  c{from}_{} -> c{to}_{foot} [xlabel=\"<{ty}>, in transit\", tooltip=\"{tip}\", \
                         constraint=false, style=dotted, color=\"#c03030\"];",
                        i + 1
                    );
                }
            }
        }
        for (i, st) in steps.iter().enumerate() {
            if st.kind == ActionKind::Recv && send_of[i].is_none() {
                // A receive whose send is not in the run shown (in a lasso:
                // sent in the previous turn, which the dashed arrows show).
                let _ = writeln!(
                    s,
                    "  c{}_{} [xlabel=\"<{}> from {}\"];",
                    col_of(st.role),
                    i + 1,
                    esc(st.type_name.as_deref().unwrap_or("?")),
                    esc(&st.peer_name)
                );
            }
        }
        if lasso {
            let _ = writeln!(
                s,
                "  l{foot} -> l{} [constraint=false, style=dashed, color=\"#3060c0\", \
                 fontcolor=\"#3060c0\", xlabel=\"forever\"];",
                p + 1
            );
        }
        s.push_str("}\n");
        s
    }
}

/// Escapes a string for a double-quoted DOT label.
fn esc(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
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
    /// 1-based step at which the object diverged (for a divergence at the
    /// end of the run: its last step, 0 if it has none).
    pub step: usize,
    /// The line of the step in the trail file, when a
    /// [`Trail`](crate::Trail) was replayed.
    pub line: Option<usize>,
    /// How it diverged.
    pub message: String,
    /// What was replayed up to there.
    pub transcript: String,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "replay diverged from the counterexample")?;
        if let Some(line) = self.line {
            write!(f, " (trail line {line})")?;
        }
        write!(
            f,
            ": {}\nreplayed so far:\n{}",
            self.message, self.transcript
        )
    }
}

impl std::error::Error for ReplayError {}
