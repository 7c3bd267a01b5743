//! The page model: plain data that a report fills and [`render`](super::render)
//! writes. Nothing here knows where the data came from (a check, an
//! exploration, a lint finding), so every front end draws the same chart.

/// One self-contained page: a verdict, then one chart per run shown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Page {
    /// The page's title (the browser tab, the printed header).
    pub title: String,
    /// The verdict in one line ("property violated", "2 distinct failures").
    pub verdict: String,
    /// How the verdict reads: colours the verdict line.
    pub tone: Tone,
    /// The formula checked, if any.
    pub formula: Option<String>,
    /// Lines under the verdict: statistics, notes, limits.
    pub notes: Vec<String>,
    /// The runs shown, each as a sequence chart with its per-step columns.
    pub charts: Vec<Chart>,
}

/// How a verdict, a mark or a cell reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Tone {
    /// Holds, true, no failure.
    Good,
    /// Violated, false, a failure.
    Bad,
    /// Neither: inconclusive, unknown, not available.
    #[default]
    Neutral,
}

/// One run as a message sequence chart: a lifeline per role, a row per
/// step, and beside each row the cells of [`columns`](Self::columns).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chart {
    /// The heading above the chart.
    pub title: String,
    /// Lines under the heading (what went wrong, a starvation note).
    pub notes: Vec<String>,
    /// The lifelines, left to right.
    pub roles: Vec<String>,
    /// The steps, top to bottom.
    pub steps: Vec<Step>,
    /// Where the repeated part of a lasso begins (an index into `steps`):
    /// steps `cycle_start..` repeat forever.
    pub cycle_start: Option<usize>,
    /// The roles (indices into `roles`) the cycle starves: enabled at every
    /// step of the cycle, moving in none.
    pub starved: Vec<usize>,
    /// How a finite run ends, drawn under its last step.
    pub ending: Option<EndMark>,
    /// The headings of the per-step cells ([`Step::cells`]), in order.
    pub columns: Vec<Column>,
    /// Abbreviations used in the column headings (`φ1` → its subformula).
    pub legend: Vec<(String, String)>,
    /// Sections after the chart: the schedule, each thread's own steps,
    /// the replay command.
    pub sections: Vec<Section>,
}

/// The heading of a per-step column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The heading as shown (short).
    pub name: String,
    /// What the column is, shown on hover.
    pub about: String,
}

/// One step of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The acting role (an index into [`Chart::roles`]).
    pub role: usize,
    /// What it did.
    pub kind: StepKind,
    /// The step in words (`white SEND <Move> TO black`).
    pub text: String,
    /// One cell per [`Chart::columns`] entry.
    pub cells: Vec<Cell>,
}

/// What a step did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepKind {
    /// Sent a message of this type to `to`.
    Send {
        /// The receiver.
        to: usize,
        /// The message's type name.
        message: String,
    },
    /// Received a message of this type from `from`.
    Recv {
        /// The sender.
        from: usize,
        /// The message's type name.
        message: String,
    },
    /// Closed its channel to `to`.
    Close {
        /// The peer.
        to: usize,
    },
    /// Something only the role itself saw (a choice, a panic).
    Local {
        /// What it was, in a few words.
        label: String,
    },
}

/// One per-step cell.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cell {
    /// The text shown (cut to the column's width on screen).
    pub text: String,
    /// The whole text or an explanation, on hover.
    pub hover: Option<String>,
    /// Colours the cell (a truth value); `None` for plain text.
    pub tone: Option<Tone>,
}

impl Cell {
    /// A plain cell.
    pub fn text(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            ..Cell::default()
        }
    }
}

/// How a finite run ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndMark {
    /// In words ("deadlock (waiting: a, b)", "terminated").
    pub label: String,
    /// The roles marked at the end (the waiting ones of a deadlock, the
    /// one that panicked).
    pub roles: Vec<usize>,
    /// Good for a normal end, bad for a deadlock or a failure.
    pub tone: Tone,
}

/// A titled block of lines after a chart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// Its heading.
    pub title: String,
    /// Its lines, shown as they are (monospace).
    pub lines: Vec<String>,
}

/// Which send each receive takes, first-in first-out per channel (sender,
/// receiver), preferring a message of the received type (exact for FIFO
/// channels, as the DOT chart pairs them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Pairing {
    /// For each step: the receive that takes its message (sends only).
    pub recv_of: Vec<Option<usize>>,
    /// For each step: the send whose message it takes (receives only).
    pub send_of: Vec<Option<usize>>,
    /// After each step: the sends whose messages are in transit, in order.
    pub in_transit: Vec<Vec<usize>>,
}

pub(crate) fn pair(steps: &[Step]) -> Pairing {
    let n = steps.len();
    let mut p = Pairing {
        recv_of: vec![None; n],
        send_of: vec![None; n],
        in_transit: Vec::with_capacity(n),
    };
    let mut pending: Vec<usize> = Vec::new();
    for (i, st) in steps.iter().enumerate() {
        match &st.kind {
            StepKind::Send { .. } => pending.push(i),
            StepKind::Recv { from, message } => {
                let on_channel = |j: &&usize| {
                    matches!(&steps[**j].kind, StepKind::Send { to, .. }
                        if *to == st.role && steps[**j].role == *from)
                };
                let same_type = pending.iter().filter(on_channel).find(|&&j| {
                    matches!(&steps[j].kind, StepKind::Send { message: m, .. } if m == message)
                });
                let taken = same_type
                    .or_else(|| pending.iter().find(on_channel))
                    .copied();
                if let Some(j) = taken {
                    pending.retain(|&k| k != j);
                    p.recv_of[j] = Some(i);
                    p.send_of[i] = Some(j);
                }
            }
            StepKind::Close { .. } | StepKind::Local { .. } => {}
        }
        p.in_transit.push(pending.clone());
    }
    p
}

impl Chart {
    /// Adds a column `name` (`about` on hover) with one text a step; steps
    /// beyond `texts` get "not available".
    pub fn add_column(&mut self, name: &str, about: &str, texts: Vec<String>) {
        self.columns.push(Column {
            name: name.into(),
            about: about.into(),
        });
        let mut texts = texts.into_iter();
        for st in &mut self.steps {
            let t = texts.next().unwrap_or_else(|| "not available".into());
            st.cells.push(Cell {
                hover: Some(t.clone()),
                text: t,
                tone: None,
            });
        }
    }

    /// Adds a column "in transit": after each step, the messages sent and
    /// not yet received, per channel (`a→b: <Move>, <Move>`). Read off the
    /// trace itself (sends paired with receives first-in first-out per
    /// channel), so it needs nothing of the object; a message received in
    /// a later turn of a cycle stays in transit at the cycle's end.
    pub fn add_in_transit_column(&mut self) {
        let pairing = pair(&self.steps);
        self.columns.push(Column {
            name: "in transit".into(),
            about: "after the step: messages sent and not yet received, per channel \
                    (from the trace, first-in first-out per channel)"
                .into(),
        });
        let texts: Vec<String> = pairing
            .in_transit
            .iter()
            .map(|pending| {
                let mut channels: Vec<((usize, usize), Vec<&str>)> = Vec::new();
                for &j in pending {
                    if let StepKind::Send { to, message } = &self.steps[j].kind {
                        let key = (self.steps[j].role, *to);
                        match channels.iter_mut().find(|(k, _)| *k == key) {
                            Some((_, ms)) => ms.push(message),
                            None => channels.push((key, vec![message])),
                        }
                    }
                }
                let name = |r: usize| self.roles.get(r).map_or("?", String::as_str);
                channels
                    .iter()
                    .map(|((a, b), ms)| {
                        let ms: Vec<String> = ms.iter().map(|m| format!("<{m}>")).collect();
                        format!("{}→{}: {}", name(*a), name(*b), ms.join(" "))
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            })
            .collect();
        for (st, t) in self.steps.iter_mut().zip(texts) {
            let shown = if t.is_empty() { "—".to_string() } else { t };
            st.cells.push(Cell {
                hover: Some(shown.clone()),
                text: shown,
                tone: None,
            });
        }
    }
}
