//! The answers of the JSON API: the view of a path (`/api/state`) and a
//! check from the initial state (`/api/check`).

use std::sync::{Mutex, TryLockError};
use std::time::Duration;

use engine::html::{self, Page, Tone};
use engine::{Checker, Ending, Protocol, Trail, Verdict};

use super::http::encode;
use super::walk::{in_transit, Walk};
use crate::cli::json::{array, string, Object};

/// What the server serves: one protocol object, and how it checks.
pub struct App {
    /// The protocol's name as given on the command line (the trails'
    /// `protocol` header, the replay command shown).
    pub protocol: String,
    /// The object and its walk, cloned by each request (a message's
    /// payload need not be `Sync`, so requests share no object).
    pub walk: Mutex<Walk>,
    /// The formulas given on the command line, offered on the page.
    pub formulas: Vec<String>,
    /// The checker `/api/check` runs.
    pub checker: Checker,
    /// One check at a time: a second click waits rather than taking
    /// another core and as much memory again.
    pub checking: Mutex<()>,
}

/// A request the API refuses: the status and the message.
#[derive(Debug)]
pub struct Refusal {
    /// 400 for a bad request.
    pub status: u16,
    /// What is wrong, for the page to show.
    pub message: String,
}

fn bad(message: impl Into<String>) -> Refusal {
    Refusal {
        status: 400,
        message: message.into(),
    }
}

/// The longest formula `/api/check` takes, in bytes: longer is surely not
/// typed into a search box, and the translation's cost grows with it.
const MAX_FORMULA: usize = 4096;

/// The parameters of a view: the path (a trail's text; none is the
/// initial state) and the step shown (the end if none).
pub fn parse_view(
    path: Option<&str>,
    step: Option<&str>,
) -> Result<(Trail, Option<usize>), Refusal> {
    let trail = match path {
        None | Some("") => Trail::default(),
        Some(text) => {
            Trail::parse(text).map_err(|e| bad(format!("the path is not a trail: {e}")))?
        }
    };
    let step = match step {
        None => None,
        Some(s) => Some(s.parse::<usize>().map_err(|_| {
            bad(format!(
                "`step` must be a step number, not `{}`",
                s.escape_debug()
            ))
        })?),
    };
    Ok((trail, step))
}

/// The query of a view of `trail` at `step` (the end if `None`).
pub fn view_query(trail: &Trail, step: Option<usize>) -> String {
    let mut q = format!("path={}", encode(&trail.to_string()));
    if let Some(k) = step {
        q.push_str(&format!("&step={k}"));
    }
    q
}

impl App {
    /// The app of `walk`.
    pub fn new(protocol: String, walk: Walk, formulas: Vec<String>, checker: Checker) -> App {
        App {
            protocol,
            walk: Mutex::new(walk),
            formulas,
            checker,
            checking: Mutex::new(()),
        }
    }

    /// A walk of this request's own.
    fn walk(&self) -> Walk {
        self.walk.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The view of `trail` at `step`, as JSON.
    pub fn state(&self, mut trail: Trail, step: Option<usize>) -> Result<String, Refusal> {
        // An empty path has no ending to replay.
        let empty = trail.prefix.is_empty() && trail.cycle.is_empty();
        if empty && trail.ending.is_none() {
            trail.ending = Some(Ending::AnyContinuation);
        }
        let walk = self.walk();
        let followed = walk
            .follow(&trail)
            .map_err(|e| bad(format!("the object does not follow this path: {e}")))?;
        let steps: Vec<_> = trail.steps().cloned().collect();
        let n = steps.len();
        let at = step.unwrap_or(n);
        if at > n {
            return Err(bad(format!("step {at} is past the path's end ({n} steps)")));
        }
        let last = &followed.states[n];
        let last_moves = walk.moves(last);
        // A path walked by hand (no formula) ends where it stops: a dead
        // end is named as such, anything else may go on ("end violated":
        // nothing to check at the end, so `prust replay` just follows it).
        if trail.formula.is_none() && trail.cycle.is_empty() {
            trail.ending =
                Some(Walk::dead_end(last, &last_moves).unwrap_or(Ending::AnyContinuation));
        }
        trail.protocol = Some(self.protocol.clone());
        let state = &followed.states[at];
        let moves = if at == n {
            last_moves
        } else {
            walk.moves(state)
        };

        let mut o = Object::new();
        o.str("protocol", &self.protocol)
            .str("path", &trail.to_string())
            .str("query", &view_query(&trail, step))
            .str("start_query", &view_query(&trail, Some(0)))
            .u64("step", at as u64)
            .u64("length", n as u64)
            .opt_str("formula", trail.formula.as_deref())
            .strs("roles", walk.roles.iter().map(String::as_str));
        match trail.cycle.is_empty() {
            true => o.raw("cycle_start", "null"),
            false => o.u64("cycle_start", trail.prefix.len() as u64),
        };
        let ending = trail.ending.as_ref().map(|e| match e {
            Ending::Terminated => "terminated",
            Ending::Deadlock { .. } => "deadlock",
            Ending::AnyContinuation => "any continuation",
        });
        o.opt_str("ending", ending);
        o.raw(
            "steps",
            &array(steps.iter().enumerate().map(|(i, s)| {
                let mut so = Object::new();
                so.str("text", &s.to_string())
                    .str("query", &view_query(&trail, Some(i + 1)));
                so.finish()
            })),
        );
        o.str("state", &format!("{state:?}"))
            .bool("terminated", state.is_terminated());
        let prefix: Vec<_> = steps[..at].to_vec();
        let roles = walk.roles.iter().enumerate().map(|(r, name)| {
            let mut ro = Object::new();
            ro.str("name", name).bool("finished", state.is_finished(r));
            ro.raw(
                "moves",
                &array(moves.iter().filter(|m| m.role == r).map(|m| {
                    let mut next = Trail {
                        protocol: Some(self.protocol.clone()),
                        prefix: prefix.clone(),
                        ..Trail::default()
                    };
                    next.prefix.push(m.step.clone());
                    next.ending = Some(Ending::AnyContinuation);
                    let mut mo = Object::new();
                    mo.str("text", &m.step.to_string())
                        .str("query", &view_query(&next, None));
                    mo.finish()
                })),
            );
            ro.finish()
        });
        o.raw("role_views", &array(roles));
        o.raw(
            "channels",
            &array(in_transit(&prefix).into_iter().map(|((from, to), ms)| {
                let mut co = Object::new();
                co.str("from", &from)
                    .str("to", &to)
                    .strs("messages", ms.iter().map(String::as_str));
                co.finish()
            })),
        );
        o.str("chart", &self.chart(&trail, &followed.run, &walk));
        o.str(
            "replay",
            &format!("prust replay {} FILE", shell_word(&self.protocol)),
        );
        Ok(o.finish())
    }

    /// The path's sequence chart: the page of the HTML reports, with the
    /// object's state beside each step.
    fn chart(&self, trail: &Trail, run: &engine::Counterexample, walk: &Walk) -> String {
        let mut run = run.clone();
        // A path walked by hand did not violate anything: no end mark.
        if trail.formula.is_none() && run.ending == Some(Ending::AnyContinuation) {
            run.ending = None;
        }
        let mut chart = run.html_chart(trail.formula.as_deref(), false, "the path");
        // A trail keeps no automaton states, and a path walked by hand has
        // no formula: columns that would say "not available" on every row
        // are left out.
        let drop: Vec<usize> = (0..chart.columns.len())
            .filter(|&i| {
                let name = chart.columns[i].name.as_str();
                name == "automaton" || (trail.formula.is_none() && name == "subformulas")
            })
            .collect();
        for &i in drop.iter().rev() {
            chart.columns.remove(i);
            for st in &mut chart.steps {
                if i < st.cells.len() {
                    st.cells.remove(i);
                }
            }
        }
        chart.add_column(
            "object state",
            "the object's state (Debug) after the step",
            run.object_states(walk.initial.clone()),
        );
        html::render(&Page {
            title: format!("prust serve {}", self.protocol),
            verdict: format!("{} step(s)", run.prefix.len() + run.cycle.len()),
            tone: Tone::Neutral,
            formula: trail.formula.clone(),
            notes: Vec::new(),
            charts: vec![chart],
        })
    }

    /// Checks `formula` from the initial state; the report as JSON, with
    /// the counterexample's path to open. A check waits for the one
    /// running; it is dropped if `gone` says its client left meanwhile, so
    /// that a browser closed mid-check leaves no queue of checks behind.
    pub fn check(&self, formula: &str, gone: &dyn Fn() -> bool) -> Result<String, Refusal> {
        if formula.trim().is_empty() {
            return Err(bad("no formula to check"));
        }
        if formula.len() > MAX_FORMULA {
            return Err(bad(format!(
                "the formula is longer than {MAX_FORMULA} bytes"
            )));
        }
        let walk = self.walk();
        let report = {
            let _one = loop {
                if gone() {
                    return Err(bad("the client left before its check started"));
                }
                match self.checking.try_lock() {
                    Ok(one) => break one,
                    Err(TryLockError::Poisoned(p)) => break p.into_inner(),
                    Err(TryLockError::WouldBlock) => std::thread::sleep(Duration::from_millis(20)),
                }
            };
            self.checker
                .check(formula, walk.initial, walk.dummies)
                .map_err(|e| bad(e.to_string()))?
        };
        let text = report.to_string();
        let tone = match report.verdict {
            Verdict::Holds => "good",
            Verdict::Violated(_) => "bad",
            _ => "neutral",
        };
        let mut o = Object::new();
        o.str("formula", formula)
            .str("verdict", text.lines().next().unwrap_or_default())
            .str("tone", tone)
            .str("report", &text);
        match report.trail() {
            Some(mut t) => {
                t.protocol = Some(self.protocol.clone());
                o.str("path", &t.to_string())
                    .str("query", &view_query(&t, None));
            }
            None => {
                o.raw("path", "null").raw("query", "null");
            }
        }
        Ok(o.finish())
    }

    /// The formulas of the command line, as a JSON array.
    pub fn formulas_json(&self) -> String {
        array(self.formulas.iter().map(|f| string(f)))
    }
}

/// `s` as one shell word (quoted when it needs to be).
fn shell_word(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.:/,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}
