//! A counterexample as a Graphviz message sequence chart.

use std::fmt::Write as _;

use crate::protocol::ActionKind;

use super::{Counterexample, CounterexampleStep, Ending};

impl Counterexample {
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
        let steps: Vec<&CounterexampleStep> = self.steps().collect();
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
