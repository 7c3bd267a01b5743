//! An exploration as a self-contained HTML page: per failure, the trace as
//! a sequence chart ([`engine::html`]), what went wrong marked under it,
//! the schedule and whether it is a shortest one, each thread's own steps
//! and how to replay it.

use std::io;
use std::path::Path;

use engine::html::{self, Cell, Chart, Column, EndMark, Page, Section, Step, StepKind, Tone};

use super::report::{Action, Exploration, Failure, Outcome, Shortness};

impl<T> Exploration<T> {
    /// The exploration as one self-contained HTML page (see
    /// [`write_html`](Self::write_html)).
    pub fn to_html(&self) -> String {
        html::render(&self.page())
    }

    /// Writes the exploration as one self-contained HTML page to `path`:
    /// the verdict, then for each distinct failure its trace as a sequence
    /// chart (a lifeline per role, an arrow from each send to its receive,
    /// closes, choices, and what went wrong marked under the last step:
    /// the deadlocked or panicking role), beside each step the thread's own
    /// step number and the messages in transit, and under the chart the
    /// schedule with the report's line on whether it is a shortest one
    /// (and if not, why, and how to ask for it), each thread's own steps
    /// and the replay command. No
    /// network, script or font is fetched: the file opens from disk and
    /// prints. The same exploration gives the same bytes.
    ///
    /// ```
    /// use prust::explore::explore;
    /// use prust::session::BlockingEndpoint;
    /// #[derive(Clone, Debug)] struct Move;
    /// let ex = explore(prust::protocols::chess::strict(), |r| {
    ///     r.spawn("white", |mut ep| {
    ///         ep.send("black", Move).unwrap();
    ///         panic!("white gives up");
    ///     });
    ///     r.spawn("black", |mut ep| { let _ = ep.recv_from("white"); });
    /// });
    /// let path = std::env::temp_dir().join("prust-doc-exploration.html");
    /// ex.write_html(&path).unwrap();
    /// let page = std::fs::read_to_string(&path).unwrap();
    /// assert!(page.contains("white gives up"));
    /// assert!(page.contains("PRUST_SCHEDULE="));
    /// # std::fs::remove_file(&path).ok();
    /// ```
    pub fn write_html(&self, path: impl AsRef<Path>) -> io::Result<()> {
        std::fs::write(path, self.to_html())
    }

    fn page(&self) -> Page {
        let text = self.to_string();
        let verdict = text.lines().next().unwrap_or_default().to_string();
        let tone = if !self.failures.is_empty() {
            Tone::Bad
        } else if self.is_successful() {
            Tone::Good
        } else {
            Tone::Neutral
        };
        let mut notes = Vec::new();
        if let Some(why) = &self.reduction_off {
            notes.push(format!("reduction: {why}"));
        }
        if self.failures.is_empty() {
            notes.extend(text.lines().skip(1).map(str::to_string));
        }
        Page {
            title: format!(
                "prust explore: {}",
                if self.failures.is_empty() {
                    "no failure".to_string()
                } else {
                    format!("{} distinct failure(s)", self.failures.len())
                }
            ),
            verdict,
            tone,
            formula: None,
            notes,
            charts: self
                .failures
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let shortness = self.shortness.get(i).and_then(Shortness::note);
                    chart(
                        f,
                        i + 1,
                        self.counts.get(i).copied().unwrap_or(0),
                        shortness,
                    )
                })
                .collect(),
        }
    }
}

/// One failure as a chart; `shortness` is what the text report says of
/// whether its schedule is a shortest one.
fn chart(f: &Failure, number: usize, count: usize, shortness: Option<String>) -> Chart {
    // The roles in the order they first act or are named by the outcome.
    let mut roles: Vec<String> = Vec::new();
    let mut add = |r: &str| {
        if !roles.iter().any(|x| x == r) {
            roles.push(r.to_string());
        }
    };
    for st in &f.trace {
        add(&st.role);
        match &st.action {
            Action::Send { to, .. } | Action::Close { to } => add(to),
            Action::Recv { from, .. } => add(from),
            Action::Choose { .. } => {}
        }
    }
    let marked: Vec<String> = match &f.outcome {
        Outcome::Deadlock { deadlock } => deadlock.blocked.iter().map(|b| b.role.clone()).collect(),
        Outcome::Violation { role, .. }
        | Outcome::Panicked { role, .. }
        | Outcome::Stuck { role, .. } => vec![role.clone()],
        Outcome::Unfinished { not_finished } => not_finished.clone(),
        _ => Vec::new(),
    };
    for r in &marked {
        add(r);
    }
    let at = |r: &str| roles.iter().position(|x| x == r).unwrap_or(0);
    let mut own = vec![0usize; roles.len()];
    let mut steps = Vec::new();
    for st in &f.trace {
        let role = at(&st.role);
        own[role] += 1;
        let kind = match &st.action {
            Action::Send { to, type_name } => StepKind::Send {
                to: at(to),
                message: type_name.clone(),
            },
            Action::Recv { from, type_name } => StepKind::Recv {
                from: at(from),
                message: type_name.clone(),
            },
            Action::Close { to } => StepKind::Close { to: at(to) },
            Action::Choose { value, of } => StepKind::Local {
                label: format!("choose {value}/{of}"),
            },
        };
        steps.push(Step {
            role,
            kind,
            text: st.to_string(),
            cells: vec![Cell::text(format!("{} #{}", st.role, own[role]))],
        });
    }
    let outcome = f.outcome.to_string();
    let mut chart = Chart {
        title: format!(
            "failure {number}: {} (in {count} execution{})",
            f.outcome.kind(),
            if count == 1 { "" } else { "s" }
        ),
        notes: vec![outcome.clone()],
        ending: Some(EndMark {
            label: outcome,
            roles: marked.iter().map(|r| at(r)).collect(),
            tone: Tone::Bad,
        }),
        columns: vec![Column {
            name: "thread step".into(),
            about: "the acting thread, and which of its own steps this is".into(),
        }],
        steps,
        ..Chart::default()
    };
    chart.add_in_transit_column();
    let schedule = f.schedule.to_string();
    chart.sections.push(Section {
        title: "schedule".into(),
        lines: std::iter::once(if schedule.is_empty() {
            "(none: a bound stopped the exploration)".into()
        } else {
            schedule.clone()
        })
        .chain(shortness)
        .collect(),
    });
    chart.sections.push(Section {
        title: "each thread's own steps".into(),
        lines: chart
            .roles
            .iter()
            .enumerate()
            .map(|(r, name)| {
                let mine: Vec<String> = f
                    .trace
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| at(&s.role) == r)
                    .map(|(i, s)| format!("{}. {s}", i + 1))
                    .collect();
                if mine.is_empty() {
                    format!("{name}: (no step)")
                } else {
                    format!("{name}: {}", mine.join("; "))
                }
            })
            .collect(),
    });
    if !schedule.is_empty() {
        chart.sections.push(Section {
            title: "replay".into(),
            lines: vec![
                format!("run the same test with PRUST_SCHEDULE=\"{schedule}\""),
                format!("or in code: Explorer::new().replay(&\"{schedule}\".parse()?)"),
            ],
        });
    }
    chart
}
