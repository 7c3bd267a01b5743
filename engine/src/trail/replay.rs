//! Replaying a trail on a fresh object, and turning it back into a
//! counterexample.

use std::fmt;

use crate::protocol::ActionKind;
use crate::protocol::{Message, Protocol};
use crate::report::{Counterexample, CounterexampleStep, ReplayError};

use super::Trail;

impl Trail {
    /// Re-executes the trail on a fresh object and returns the transcript,
    /// exactly as [`Counterexample::replay`] prints it: the object's state
    /// (`Debug`) after each step, then the check of the cycle (the object
    /// is back where the cycle started) or of the ending.
    ///
    /// Roles are found by name in [`Protocol::roles`]. A send sends the
    /// dummy of its type from `dummies` (by short name or full path) or,
    /// without one, `Message::named(type, ())` — enough for objects that
    /// look only at the type name. The dummies are also what the replay
    /// probes to confirm that nothing is enabled at an `end` (plus a
    /// `()`-payload stand-in for every type the trail sends without a
    /// dummy), so pass the ones the check used.
    ///
    /// # Errors
    /// A [`ReplayError`] naming the step (and its line in the file) where
    /// the object does not follow the trail: a role or type the object does
    /// not have, an action the object refuses (with what it would do
    /// instead), a receive that gets another message, a cycle that does not
    /// lead back to its start, an ending that is not one.
    pub fn replay<P: Protocol + fmt::Debug>(
        &self,
        fresh: P,
        dummies: Vec<Message>,
    ) -> Result<String, ReplayError> {
        let c = self.to_counterexample(&fresh, dummies)?;
        c.try_replay(fresh).map_err(|mut e| {
            let lines: Vec<usize> = self.steps().map(|s| s.line).collect();
            e.line = e
                .step
                .checked_sub(1)
                .and_then(|i| lines.get(i))
                .copied()
                .filter(|&l| l > 0);
            e
        })
    }

    /// The trail as a [`Counterexample`] of `proto` (whose roles and
    /// declared types name the steps) with these dummies, without running
    /// it: to draw it ([`Counterexample::to_dot`]) or print it. Names are
    /// resolved as [`replay`](Self::replay) does; the steps' automaton
    /// states, which a trail does not keep, are 0.
    ///
    /// # Errors
    /// A [`ReplayError`] for the first step that names a role or type the
    /// object does not have.
    pub fn to_counterexample<P: Protocol>(
        &self,
        proto: &P,
        mut dummies: Vec<Message>,
    ) -> Result<Counterexample, ReplayError> {
        let roles = proto.roles();
        let declared = proto.type_names();
        let has_dummy = |t: &str, dummies: &[Message]| {
            dummies
                .iter()
                .any(|d| d.type_name() == t || d.type_path() == t)
        };
        // The types the object has: its declared ones and the dummies'.
        // With neither, it says nothing about types, and every type is
        // taken at its word (the object itself accepts or refuses it).
        let known_types = {
            let mut v: Vec<String> = dummies.iter().map(|d| d.type_name().to_string()).collect();
            v.extend(declared.iter().cloned());
            v.sort();
            v.dedup();
            v
        };
        let paths: Vec<String> = dummies.iter().map(|d| d.type_path().to_string()).collect();
        let known = |t: &str| {
            known_types.is_empty()
                || known_types.iter().any(|k| k == t)
                || paths.iter().any(|p| p == t)
        };
        // Stand-ins for the types the trail sends without a dummy: the
        // engine only ever sent types it had a dummy for, so these are
        // what the original check probed.
        for s in self.steps() {
            if let (ActionKind::Send, Some(t)) = (s.kind, &s.type_name) {
                if known(t) && !has_dummy(t, &dummies) {
                    dummies.push(Message::named(t, ()));
                }
            }
        }
        let n_prefix = self.prefix.len();
        let mut steps = Vec::new();
        for (i, s) in self.steps().enumerate() {
            let fail = |what: String| ReplayError {
                step: i + 1,
                line: Some(s.line).filter(|&l| l > 0),
                message: format!("step {} `{s}`: {what}", i + 1),
                transcript: String::new(),
            };
            let role_id = |r: &str| {
                roles.iter().position(|x| x == r).ok_or_else(|| {
                    let hint = crate::names::closest(r, roles.iter().map(String::as_str))
                        .map(|c| format!("; did you mean `{c}`?"))
                        .unwrap_or_default();
                    fail(format!(
                        "the object has no role `{r}`{hint} (its roles: {})",
                        roles.join(", ")
                    ))
                })
            };
            let role = role_id(&s.role)?;
            let peer = role_id(&s.peer)?;
            if let Some(t) = &s.type_name {
                if !known(t) {
                    let hint = crate::names::closest(t, known_types.iter().map(String::as_str))
                        .map(|c| format!("; did you mean <{c}>?"))
                        .unwrap_or_default();
                    return Err(fail(format!(
                        "the object has no message type <{t}>{hint} (its types: {})",
                        known_types.join(", ")
                    )));
                }
            }
            let message = match (s.kind, &s.type_name) {
                (ActionKind::Send, Some(t)) => dummies
                    .iter()
                    .find(|d| d.type_name() == t || d.type_path() == t)
                    .cloned(),
                _ => None,
            };
            steps.push(CounterexampleStep {
                role,
                role_name: roles[role].clone(),
                kind: s.kind,
                type_name: s.type_name.clone(),
                peer,
                peer_name: roles[peer].clone(),
                automaton_state: 0,
                message,
            });
        }
        let cycle = steps.split_off(n_prefix);
        Ok(Counterexample {
            prefix: steps,
            cycle,
            ending: self.ending.clone(),
            // Replaying follows the steps; whom the cycle starves is the
            // check's finding, not the trail's.
            starved: Vec::new(),
            audience: Default::default(),
            dummies,
            roles,
            shortness: crate::report::Shortness::Unknown,
            product_length: None,
        })
    }
}
