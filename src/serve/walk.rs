//! The state space walked step by step: the object after a path, the
//! actions each role may take there, and the messages in transit. A path
//! is a [`Trail`], the format of `prust replay`, so that what the page
//! shows and what the command line replays are one thing.

use engine::{ActionKind, Counterexample, Enabled, Ending, Message, Protocol, Trail, TrailStep};
use protocols::Object;

/// One protocol object and what walking it needs.
#[derive(Clone)]
pub struct Walk {
    /// The object in its initial state.
    pub initial: Object,
    /// The role names, by id.
    pub roles: Vec<String>,
    /// The dummies sends send (the object's declared types), as `prust
    /// check` and `prust replay` use them.
    pub dummies: Vec<Message>,
}

/// An action enabled in a state.
pub struct Move {
    /// The step, by names (a trail's step line).
    pub step: TrailStep,
    /// The acting role's id.
    pub role: usize,
}

/// A path followed on the object.
pub struct Followed {
    /// The path as a counterexample of the object (names resolved).
    pub run: Counterexample,
    /// The object after each step: `states[0]` initial, `states[k]` after
    /// `k` steps.
    pub states: Vec<Object>,
}

impl Walk {
    /// The walk of `initial`.
    pub fn new(initial: Object) -> Walk {
        Walk {
            roles: initial.roles(),
            dummies: engine::declared_dummies(&initial),
            initial,
        }
    }

    /// Follows `trail` from the initial state: `Err` says where the object
    /// does not follow it, as `prust replay` would (the same replay: a
    /// path the server accepts is one `prust replay` accepts).
    pub fn follow(&self, trail: &Trail) -> Result<Followed, String> {
        let run = trail
            .to_counterexample(&self.initial, self.dummies.clone())
            .map_err(|e| e.message)?;
        run.try_replay(self.initial.clone())
            .map_err(|e| e.message)?;
        let mut states = vec![self.initial.clone()];
        let mut obj = self.initial.clone();
        for st in run.steps() {
            let done = match st.kind {
                ActionKind::Send => {
                    let msg = st.type_name.as_deref().map(|t| self.dummy(t));
                    msg.is_some_and(|m| obj.try_send(st.role, st.peer, m).is_ok())
                }
                ActionKind::Recv => obj.try_recv(st.role, Some(st.peer)).is_ok(),
                ActionKind::Close => obj.try_close(st.role, st.peer).is_ok(),
            };
            if !done {
                // The replay above took the step: an object that refuses it
                // now is not deterministic.
                return Err(format!("the object refused `{st}` on a second run"));
            }
            states.push(obj.clone());
        }
        Ok(Followed { run, states })
    }

    /// The actions enabled in `state`, in role order, each performed on a
    /// clone so that only what the object takes is listed (and a receive
    /// is named by the type it gives).
    pub fn moves(&self, state: &Object) -> Vec<Move> {
        let mut listed = Vec::new();
        // The object's own listing when it has one (every object this
        // crate builds does), else every action probed.
        let candidates = if state.enabled(&mut listed) {
            listed
        } else {
            self.probe_candidates(state)
        };
        self.moves_among(state, candidates)
    }

    /// The `candidates` that `state` takes, each performed on a clone.
    pub(crate) fn moves_among(&self, state: &Object, candidates: Vec<Enabled>) -> Vec<Move> {
        let types = state.type_names();
        let mut moves: Vec<Move> = Vec::new();
        for e in candidates {
            let mut next = state.clone();
            let step = match e {
                Enabled::Send { role, to, ty } => {
                    let Some(name) = types.get(ty) else { continue };
                    let msg = self.dummy(name);
                    if next.try_send(role, to, msg).is_err() {
                        continue;
                    }
                    self.step(role, ActionKind::Send, Some(name.clone()), to)
                }
                Enabled::Recv { role, from } => match next.try_recv(role, Some(from)) {
                    Ok((from, m)) => self.step(
                        role,
                        ActionKind::Recv,
                        Some(m.type_name().to_string()),
                        from,
                    ),
                    Err(_) => continue,
                },
                Enabled::Close { role, to } => {
                    if next.try_close(role, to).is_err() {
                        continue;
                    }
                    self.step(role, ActionKind::Close, None, to)
                }
            };
            let role = match e {
                Enabled::Send { role, .. }
                | Enabled::Recv { role, .. }
                | Enabled::Close { role, .. } => role,
            };
            if !moves.iter().any(|m| m.step == step) {
                moves.push(Move { step, role });
            }
        }
        moves.sort_by_key(|m| m.role);
        moves
    }

    /// The message a send of type `t` sends: its dummy (by short name or
    /// path), else a stand-in of that name, as a trail's replay sends.
    fn dummy(&self, t: &str) -> Message {
        self.dummies
            .iter()
            .find(|d| d.type_name() == t || d.type_path() == t)
            .cloned()
            .unwrap_or_else(|| Message::named(t, ()))
    }

    /// Every action the try-operations might take, for an object that does
    /// not list its enabled actions: each channel, each declared type.
    pub(crate) fn probe_candidates(&self, state: &Object) -> Vec<Enabled> {
        let n = self.roles.len();
        let types = state.type_names();
        let mut out = Vec::new();
        for role in 0..n {
            let peers = state
                .peers(role)
                .unwrap_or_else(|| (0..n).filter(|&q| q != role).collect());
            let sends = state.sends_to(role).unwrap_or_else(|| peers.clone());
            for &to in &sends {
                out.extend((0..types.len()).map(|ty| Enabled::Send { role, to, ty }));
                out.push(Enabled::Close { role, to });
            }
            out.extend(peers.iter().map(|&from| Enabled::Recv { role, from }));
        }
        out
    }

    fn step(
        &self,
        role: usize,
        kind: ActionKind,
        type_name: Option<String>,
        peer: usize,
    ) -> TrailStep {
        TrailStep {
            role: self.roles[role].clone(),
            kind,
            type_name,
            peer: self.roles[peer].clone(),
            line: 0,
        }
    }

    /// How a path that stops in `state` ends, when nothing is enabled
    /// there: terminated or deadlocked (the waiting roles left unstated).
    pub fn dead_end(state: &Object, moves: &[Move]) -> Option<Ending> {
        if !moves.is_empty() {
            return None;
        }
        Some(if state.is_terminated() {
            Ending::Terminated
        } else {
            Ending::Deadlock {
                waiting: Vec::new(),
            }
        })
    }
}

/// The messages in transit after `steps`, per channel (sender, receiver),
/// read off the path: sends paired with receives first-in first-out per
/// channel, a receive taking the oldest message of its type.
pub fn in_transit(steps: &[TrailStep]) -> Vec<((String, String), Vec<String>)> {
    let mut channels: Vec<((String, String), Vec<String>)> = Vec::new();
    for st in steps {
        let Some(ty) = &st.type_name else { continue };
        match st.kind {
            ActionKind::Send => {
                let key = (st.role.clone(), st.peer.clone());
                match channels.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, q)) => q.push(ty.clone()),
                    None => channels.push((key, vec![ty.clone()])),
                }
            }
            ActionKind::Recv => {
                let key = (st.peer.clone(), st.role.clone());
                if let Some((_, q)) = channels.iter_mut().find(|(k, _)| *k == key) {
                    let at = q.iter().position(|m| m == ty).unwrap_or(0);
                    if at < q.len() {
                        q.remove(at);
                    }
                }
            }
            ActionKind::Close => {}
        }
    }
    channels.retain(|(_, q)| !q.is_empty());
    channels
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The listing and the probes agree in every state along a few walks:
    /// the fallback for an object that lists nothing finds the same moves.
    #[test]
    fn probing_finds_what_the_listing_lists() {
        for (name, runtime) in [
            ("chess", crate::Runtime::Strict),
            ("token-star:3", crate::Runtime::Liberal),
            ("ring-buffered:2", crate::Runtime::Strict),
        ] {
            let limits = engine::Limits::default().defaults(engine::DefaultBudgets::Machine);
            let object = crate::load::object(
                name,
                std::path::Path::new(""),
                runtime,
                &limits,
                engine::hint::Audience::CommandLine,
            )
            .unwrap();
            let walk = Walk::new(object);
            let mut state = walk.initial.clone();
            let texts = |ms: Vec<Move>| {
                let mut t: Vec<String> = ms.iter().map(|m| m.step.to_string()).collect();
                t.sort();
                t
            };
            for k in 0..12 {
                let mut listed = Vec::new();
                assert!(state.enabled(&mut listed), "{name} lists its actions");
                let by_listing = texts(walk.moves_among(&state, listed));
                let by_probing = texts(walk.moves_among(&state, walk.probe_candidates(&state)));
                assert_eq!(by_listing, by_probing, "{name}, step {k}");
                // On along the last move (a different one each step).
                let moves = walk.moves(&state);
                let Some(m) = moves.get(k % moves.len().max(1)) else {
                    break;
                };
                let trail = Trail {
                    prefix: vec![m.step.clone()],
                    ending: Some(Ending::AnyContinuation),
                    ..Trail::default()
                };
                let fresh = Walk {
                    initial: state.clone(),
                    ..walk.clone()
                };
                state = fresh.follow(&trail).unwrap().states.pop().unwrap();
            }
        }
    }
}
