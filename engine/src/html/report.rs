//! A check's [`Report`] as a page: the verdict, the formula, and the
//! counterexample's chart with, beside each step, the automaton state, the
//! atoms that hold and the truth of every subformula.

use std::fmt;
use std::io;
use std::path::Path;

use owl_lite::{Kind, Ltl};

use crate::names::glob_match;
use crate::pattern::{parse_atom, type_matches, Atom};
use crate::protocol::{ActionKind, Protocol};
use crate::report::{Counterexample, CounterexampleStep, Ending, Report, Verdict};

use super::page::{pair, Cell, Chart, Column, EndMark, Page, Step, StepKind, Tone};
use super::truth::{evaluate, Truth, Word};

/// At most this many subformulas get a column each (the largest first
/// are the formula's own parts); the rest would not fit beside a chart.
const MAX_SUBFORMULA_COLUMNS: usize = 12;

impl Report {
    /// The report as one self-contained HTML page (see
    /// [`write_html`](Self::write_html)).
    pub fn to_html(&self) -> String {
        super::render(&self.to_page())
    }

    /// Writes the report as one self-contained HTML page to `path`: the
    /// verdict and the formula, and for a violation the counterexample as
    /// a sequence chart (a lifeline per role, an arrow from each send to
    /// its receive, closes, the cycle bracketed, the deadlock or end
    /// marked) with, beside each step, the automaton state after it, the
    /// atoms of the formula that hold on it, the truth of each subformula
    /// from that step on (`T`, `F`, or `?` where it depends on what a bad
    /// prefix leaves open), the messages in transit, and the roles an
    /// unfair cycle starves. No network, script or font is fetched: the
    /// file opens from disk and prints. The same report gives the same
    /// bytes.
    ///
    /// ```
    /// use engine::{Checker, Protocol, RoleId, Message, Refused, dummies};
    /// # #[derive(Clone, Debug)]
    /// # struct Ping;
    /// // A role that sends forever: `F "END"` is violated by a cycle.
    /// #[derive(Clone, PartialEq, Eq, Hash)]
    /// struct Chatter;
    /// impl Protocol for Chatter {
    ///     fn roles(&self) -> Vec<String> { vec!["a".into(), "b".into()] }
    ///     fn try_send(&mut self, _: RoleId, _: RoleId, _: Message) -> Result<(), Refused<Message>> { Ok(()) }
    ///     fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> { Err(Refused(())) }
    /// }
    /// let report = Checker::new().check(r#"F "END""#, Chatter, dummies![Ping]).unwrap();
    /// let path = std::env::temp_dir().join("prust-doc-report.html");
    /// report.write_html(&path).unwrap();
    /// let page = std::fs::read_to_string(&path).unwrap();
    /// assert!(page.contains("property violated"));
    /// assert!(page.contains("class=\"cycle\""));
    /// # std::fs::remove_file(&path).ok();
    /// ```
    pub fn write_html(&self, path: impl AsRef<Path>) -> io::Result<()> {
        std::fs::write(path, self.to_html())
    }

    /// Like [`to_html`](Self::to_html), with one more column: the state
    /// of the object (`Debug`) after each step, from re-executing the
    /// counterexample on `fresh` (equal to the object checked). Where the
    /// object does not follow the counterexample the column says "not
    /// available" from there on.
    pub fn to_html_with_object<P: Protocol + fmt::Debug>(&self, fresh: P) -> String {
        let mut page = self.to_page();
        if let (Some(c), Some(chart)) = (self.counterexample(), page.charts.first_mut()) {
            chart.add_column(
                "object state",
                "the object's state (Debug) after the step, re-executed on a fresh object",
                c.object_states(fresh),
            );
        }
        super::render(&page)
    }

    /// The page model of this report.
    pub(crate) fn to_page(&self) -> Page {
        let text = self.to_string();
        let (tone, chart) = match &self.verdict {
            Verdict::Holds => (Tone::Good, None),
            Verdict::HoldsProbabilistic { .. } | Verdict::HoldsOnShare { .. } => {
                (Tone::Neutral, None)
            }
            Verdict::Violated(c) => (Tone::Bad, Some(c)),
            Verdict::Inconclusive { .. } => (Tone::Neutral, None),
        };
        // The text report's lines, without the counterexample (the chart
        // shows it).
        let body = match chart {
            Some(c) => text.replacen(&c.to_string(), "", 1),
            None => text,
        };
        let mut lines = body.lines();
        let verdict = lines.next().unwrap_or_default().to_string();
        Page {
            title: format!(
                "prust: {}",
                match &self.verdict {
                    Verdict::Holds => "property holds",
                    Verdict::HoldsProbabilistic { .. } => "property holds (probabilistic)",
                    Verdict::HoldsOnShare { .. } => "holds on a share",
                    Verdict::Violated(_) => "property violated",
                    Verdict::Inconclusive { .. } => "inconclusive",
                }
            ),
            verdict,
            tone,
            formula: Some(self.formula.clone()),
            notes: lines
                .map(|l| l.trim().to_string())
                .filter(|l| !l.is_empty())
                .collect(),
            charts: chart
                .map(|c| c.chart(&self.formula, true, "counterexample"))
                .into_iter()
                .collect(),
        }
    }
}

impl Counterexample {
    /// The counterexample as a chart of a page ([`crate::html`]): with the
    /// per-step columns of `formula` (the one it violates: the atoms that
    /// hold, the truth of each subformula; "not available" without it),
    /// and the messages in transit. With `automaton`, the automaton state
    /// after each step (a check's counterexample has them; one made from a
    /// trail has none, and its column says "not available").
    pub fn html_chart(&self, formula: Option<&str>, automaton: bool, title: &str) -> Chart {
        self.chart(formula.unwrap_or(""), automaton, title)
    }

    /// The object's state (`Debug`) after each step, re-executing the
    /// counterexample on `fresh`; "not available" from the step where the
    /// object no longer follows it.
    pub fn object_states<P: Protocol + fmt::Debug>(&self, fresh: P) -> Vec<String> {
        let transcript = match self.try_replay(fresh) {
            Ok(t) => t,
            Err(e) => e.transcript,
        };
        let lines: Vec<&str> = transcript.lines().collect();
        self.steps()
            .enumerate()
            .map(|(i, st)| {
                let head = format!("{:>4}. {st}", i + 1);
                lines
                    .iter()
                    .position(|l| *l == head)
                    .and_then(|at| lines.get(at + 1))
                    .map_or_else(|| "not available".to_string(), |l| l.trim().to_string())
            })
            .collect()
    }

    /// The counterexample as a chart, with the per-step columns of
    /// `formula` (the one it violates).
    pub(crate) fn chart(&self, formula: &str, automaton: bool, title: &str) -> Chart {
        let all: Vec<&CounterexampleStep> = self.steps().collect();
        let mut roles = self.roles.clone();
        for st in &all {
            for (id, name) in [(st.role, &st.role_name), (st.peer, &st.peer_name)] {
                while roles.len() <= id {
                    roles.push(String::new());
                }
                if roles[id].is_empty() {
                    roles[id] = name.clone();
                }
            }
        }
        let index = |name: &str| roles.iter().position(|r| r == name);
        let steps: Vec<Step> = all
            .iter()
            .map(|st| Step {
                role: st.role,
                kind: match (st.kind, &st.type_name) {
                    (ActionKind::Send, t) => StepKind::Send {
                        to: st.peer,
                        message: t.clone().unwrap_or_default(),
                    },
                    (ActionKind::Recv, t) => StepKind::Recv {
                        from: st.peer,
                        message: t.clone().unwrap_or_default(),
                    },
                    (ActionKind::Close, _) => StepKind::Close { to: st.peer },
                },
                text: st.to_string(),
                cells: Vec::new(),
            })
            .collect();
        let mut notes = Vec::new();
        if let Some(note) = self.starvation_note() {
            notes.push(note);
        }
        let ending = self.ending.as_ref().map(|e| match e {
            Ending::Terminated => EndMark {
                label: "then the protocol has terminated (and stays so forever)".into(),
                roles: Vec::new(),
                tone: Tone::Good,
            },
            Ending::Deadlock { waiting } => EndMark {
                label: if waiting.is_empty() {
                    "then nothing can happen: deadlock (every role has finished, but the \
                     protocol does not end here)"
                        .into()
                } else {
                    format!(
                        "then nothing can happen: deadlock (waiting: {})",
                        waiting.join(", ")
                    )
                },
                roles: waiting.iter().filter_map(|w| index(w)).collect(),
                tone: Tone::Bad,
            },
            Ending::AnyContinuation => EndMark {
                label: "then, whatever happens next, the property is already violated".into(),
                roles: Vec::new(),
                tone: Tone::Bad,
            },
        });
        let mut chart = Chart {
            title: title.to_string(),
            notes,
            cycle_start: (!self.cycle.is_empty()).then_some(self.prefix.len()),
            starved: self.starved.iter().filter_map(|s| index(s)).collect(),
            ending,
            roles,
            steps,
            ..Chart::default()
        };
        chart.columns.push(Column {
            name: "automaton".into(),
            about: "the state of the automaton of the negated formula after the step".into(),
        });
        for (st, raw) in chart.steps.iter_mut().zip(&all) {
            st.cells.push(if automaton {
                Cell::text(format!("q{}", raw.automaton_state))
            } else {
                Cell::text("not available")
            });
        }
        self.truth_columns(&mut chart, &all, formula);
        chart.add_in_transit_column();
        chart
    }

    /// The columns "atoms that hold" and one per subformula (its truth
    /// from the step on), or one column saying why they are not available.
    fn truth_columns(&self, chart: &mut Chart, all: &[&CounterexampleStep], formula: &str) {
        let Ok(f) = owl_lite::parse(formula).map_err(drop).and_then(|f| {
            // A trail without its formula has nothing to evaluate.
            if formula.trim().is_empty() {
                Err(())
            } else {
                Ok(f)
            }
        }) else {
            chart.columns.push(Column {
                name: "subformulas".into(),
                about: "no formula to evaluate (a trail without one, or one that does not parse)"
                    .into(),
            });
            for st in &mut chart.steps {
                st.cells.push(Cell::text("not available"));
            }
            return;
        };
        let n = all.len();
        let stutter = matches!(
            self.ending,
            Some(Ending::Terminated | Ending::Deadlock { .. })
        );
        let word = Word {
            len: n + usize::from(stutter),
            loop_to: if !self.cycle.is_empty() {
                Some(self.prefix.len())
            } else if stutter {
                Some(n)
            } else {
                None
            },
        };
        // A receive's type path is its send's (the step keeps only the
        // short name).
        let pairing = pair(&chart.steps);
        let path_of = |i: usize| -> Option<String> {
            let j = if all[i].kind == ActionKind::Recv {
                pairing.send_of[i]?
            } else {
                i
            };
            all[j].message.as_ref().map(|m| m.type_path().to_string())
        };
        let atom_at = |text: &str, i: usize| -> Truth {
            let Ok(atom) = parse_atom(text) else {
                return Truth::Unknown;
            };
            if i >= n {
                return Truth::of(match atom {
                    Atom::True => true,
                    Atom::End => self.ending == Some(Ending::Terminated),
                    Atom::Deadlock => matches!(self.ending, Some(Ending::Deadlock { .. })),
                    Atom::False | Atom::Action(_) => false,
                });
            }
            let st = all[i];
            let pat = match atom {
                Atom::True => return Truth::True,
                Atom::False | Atom::End | Atom::Deadlock => return Truth::False,
                Atom::Action(p) => p,
            };
            let fixed = pat.kind.is_none_or(|k| k == st.kind)
                && glob_match(&pat.role, &st.role_name)
                && pat.peer.as_ref().is_none_or(|(to, peer)| {
                    *to == (st.kind != ActionKind::Recv) && glob_match(peer, &st.peer_name)
                });
            if !fixed {
                return Truth::False;
            }
            if pat.ty == "*" {
                return Truth::True;
            }
            if st.kind == ActionKind::Close {
                return Truth::False;
            }
            match (pat.ty.contains("::"), path_of(i)) {
                (_, Some(path)) => Truth::of(type_matches(&pat.ty, &path)),
                (false, None) => {
                    Truth::of(type_matches(&pat.ty, st.type_name.as_deref().unwrap_or("")))
                }
                // A path pattern where only the short name is known.
                (true, None) => Truth::Unknown,
            }
        };
        let values = evaluate(&f, word, &atom_at);
        let atoms = f.atoms();
        chart.columns.push(Column {
            name: "atoms that hold".into(),
            about: "the atoms of the formula that hold on the step".into(),
        });
        for (i, st) in chart.steps.iter_mut().enumerate() {
            let holding: Vec<String> = atoms
                .iter()
                .filter(|a| atom_at(a, i) == Truth::True)
                .map(|a| format!("\"{a}\""))
                .collect();
            let unknown: Vec<String> = atoms
                .iter()
                .filter(|a| atom_at(a, i) == Truth::Unknown)
                .map(|a| format!("\"{a}\" (not available: only the short type name is known)"))
                .collect();
            let text = if holding.is_empty() {
                "—".to_string()
            } else {
                holding.join(", ")
            };
            let mut hover = text.clone();
            if !unknown.is_empty() {
                hover.push_str("; unknown: ");
                hover.push_str(&unknown.join(", "));
            }
            st.cells.push(Cell {
                text,
                hover: Some(hover),
                tone: None,
            });
        }
        // The subformulas, the formula first, each once, then the atoms
        // last (their column is the one above).
        let mut subs: Vec<Ltl> = Vec::new();
        let mut todo = vec![f.clone()];
        while let Some(g) = todo.pop() {
            if subs.contains(&g) || matches!(g.kind(), Kind::Atom(_) | Kind::True | Kind::False) {
                continue;
            }
            todo.extend(g.children().into_iter().rev());
            subs.push(g);
        }
        subs.truncate(MAX_SUBFORMULA_COLUMNS);
        for (k, g) in subs.iter().enumerate() {
            let name = format!("φ{}", k + 1);
            chart.legend.push((name.clone(), g.to_string()));
            chart.columns.push(Column {
                name,
                about: format!("{g}: holds from this step on (T), not (F), unknown (?)"),
            });
            let v = &values[g];
            for (i, st) in chart.steps.iter_mut().enumerate() {
                let t = v[i];
                st.cells.push(Cell {
                    text: t.symbol().into(),
                    hover: Some(format!(
                        "{g} from step {}: {}",
                        i + 1,
                        match t {
                            Truth::True => "true",
                            Truth::False => "false",
                            Truth::Unknown =>
                                "unknown (it depends on what comes after a bad prefix, or on a \
                                 type path the step does not carry)",
                        }
                    )),
                    tone: Some(match t {
                        Truth::True => Tone::Good,
                        Truth::False => Tone::Bad,
                        Truth::Unknown => Tone::Neutral,
                    }),
                });
            }
        }
    }
}
