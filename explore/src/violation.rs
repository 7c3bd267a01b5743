//! A protocol violation detected as soon as it is certain: a role waits to
//! send (or close) something the object can never accept.
//!
//! A role whose pending operation is refused can do nothing else until it
//! is accepted, so every state the object can still reach before then is
//! reached by the *other* roles' actions. If none of those states accepts
//! the operation, it never will be: the role attempts an action the
//! protocol does not have, and the execution ends in
//! [`Outcome::Violation`](super::Outcome::Violation) at once, however
//! long the other roles could still go on.
//!
//! What is checked, and why it is sound and cheap:
//!
//! - Only sends and closes: they are actions the role *takes*. A receive
//!   that can never be enabled waits for a message the protocol will not
//!   deliver; nothing illegal is done, and it ends as a deadlock (or an
//!   unfinished run) as before.
//! - The states reachable by the other roles' actions are searched
//!   breadth-first on clones of the object, every send probed with one
//!   dummy per message type the object declares
//!   ([`engine::declared_dummies`]). An object that declares no types
//!   cannot be searched (its other sends are unknown), and a search that
//!   exceeds [`STATE_BUDGET`] states is given up: in both cases nothing is
//!   reported early (the run goes on, and ends as it would have).
//! - The answer depends only on the object's state, the role and the
//!   operation (its receiver and message type), so it is kept across the
//!   executions of one exploration: each distinct question is searched
//!   once.

use std::collections::{HashMap, HashSet, VecDeque};

use engine::{Message, Protocol, RoleId};

use super::op::Op;

/// How many object states one search may visit before it gives up (and
/// reports nothing).
pub(crate) const STATE_BUDGET: usize = 10_000;

/// A pending send or close, as the question is asked.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Send { to: RoleId, ty: String },
    Close { to: RoleId },
}

/// The answers found so far in one exploration.
pub(crate) struct Never<P> {
    answers: HashMap<(P, RoleId, Key), bool>,
    /// One message per declared type; `None` until first needed.
    dummies: Option<Vec<Message>>,
}

impl<P: Protocol> Never<P> {
    pub(crate) fn new() -> Self {
        Never {
            answers: HashMap::new(),
            dummies: None,
        }
    }

    /// Whether `role`'s pending `op` (refused in `obj`) can never be
    /// accepted, for certain.
    pub(crate) fn never_accepted(&mut self, obj: &P, role: RoleId, op: &Op) -> bool {
        let key = match op {
            Op::Send { to, msg } => Key::Send {
                to: *to,
                ty: msg.type_name().to_string(),
            },
            Op::Close { to } => Key::Close { to: *to },
            Op::Recv { .. } | Op::Select { .. } | Op::Choose { .. } => return false,
        };
        let question = (obj.clone(), role, key);
        if let Some(&answer) = self.answers.get(&question) {
            return answer;
        }
        let dummies = self
            .dummies
            .get_or_insert_with(|| engine::declared_dummies(obj));
        let answer = !dummies.is_empty() && search(obj, role, op, dummies);
        self.answers.insert(question, answer);
        answer
    }
}

/// Whether no state reachable from `obj` by the actions of roles other
/// than `role` accepts `op`; `false` if the search gives up.
fn search<P: Protocol>(obj: &P, role: RoleId, op: &Op, dummies: &[Message]) -> bool {
    let n = obj.roles().len();
    let accepts = |s: &P| match op {
        Op::Send { to, msg } => s.clone().try_send(role, *to, msg.clone()).is_ok(),
        Op::Close { to } => s.clone().try_close(role, *to).is_ok(),
        _ => true,
    };
    let others: Vec<(RoleId, Vec<RoleId>)> = (0..n)
        .filter(|&r| r != role)
        .map(|r| {
            let to = obj
                .sends_to(r)
                .unwrap_or_else(|| (0..n).filter(|&t| t != r).collect());
            (r, to)
        })
        .collect();
    let mut seen: HashSet<P> = HashSet::new();
    let mut queue = VecDeque::new();
    seen.insert(obj.clone());
    queue.push_back(obj.clone());
    while let Some(s) = queue.pop_front() {
        if accepts(&s) {
            return false;
        }
        let mut next = Vec::new();
        for (r, to) in &others {
            let r = *r;
            for &t in to {
                for d in dummies {
                    let mut x = s.clone();
                    if x.try_send(r, t, d.clone()).is_ok() {
                        next.push(x);
                    }
                }
                let mut x = s.clone();
                if x.try_close(r, t).is_ok() {
                    next.push(x);
                }
            }
            for f in (0..n).filter(|&f| f != r) {
                let mut x = s.clone();
                if x.try_recv(r, Some(f)).is_ok() {
                    next.push(x);
                }
            }
        }
        for x in next {
            if seen.insert(x.clone()) {
                if seen.len() > STATE_BUDGET {
                    return false;
                }
                queue.push_back(x);
            }
        }
    }
    true
}
