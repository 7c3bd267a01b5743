//! Replaying a counterexample on a fresh object, as a transcript of the
//! object's states, or the step where the object behaves differently.

use std::fmt::{self, Write as _};

use crate::protocol::ActionKind;
use crate::protocol::Protocol;

use super::counterexample::ending_line;
use super::{Counterexample, Ending};

impl Counterexample {
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
        self.replay_showing(fresh, |o| format!("{o:?}"))
    }

    /// [`try_replay`](Self::try_replay) for an object that need not be
    /// `Debug`: `show` writes its state in the transcript (the check
    /// replays a shortened counterexample with it before showing it).
    pub(crate) fn replay_showing<P: Protocol>(
        &self,
        fresh: P,
        show: impl Fn(&P) -> String,
    ) -> Result<String, ReplayError> {
        let mut obj = fresh;
        let mut out = String::new();
        let _ = writeln!(out, "initial: {}", show(&obj));
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
            let _ = writeln!(out, "{:>4}. {step}\n      {}", i + 1, show(&obj));
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
