//! Which actions a property can see: those whose letter satisfies one of
//! the formula's action atoms.
//!
//! Why it matters: a property is checked on the word of atom valuations
//! of an execution's actions. Two adjacent actions that satisfy no action
//! atom both have the same valuation (every action atom false; `True`,
//! `False`, `END` and `DEADLOCK` are the same on every action), so
//! swapping them leaves the word, and every LTL formula's verdict on it,
//! unchanged: no stutter invariance is needed. Under a property the
//! reductions therefore call two choices independent only if, besides
//! commuting, both are invisible in both orders (see `independence`);
//! that is a sub-relation of the one they are sound for without a
//! property, so they stay sound and prune only orders no atom sees.
//!
//! "Visible" is decided by the engine itself, not by a copy of its atom
//! matching: the formula's atoms are those its parser gives (as a check
//! takes them), and an action is invisible only if the engine, checking
//! `!"DEADLOCK" & !(a1 | … | an)` on the one-action run of that action,
//! says it holds. Any doubt (an error, an inconclusive check, a run the
//! trace object could not replay, which ends in `DEADLOCK` at once) makes
//! the action visible.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use engine::{Checker, Verdict};
use owl_lite::Ltl;

use super::property::check_run;
use super::step::{Act, ActKind};

/// Which actions a property sees (see the module docs); answers are kept
/// per action, of which an exploration has few distinct ones.
pub(crate) struct Visibility {
    /// `None` if the formula has no action atom: no action is visible.
    oracle: Option<Mutex<Oracle>>,
}

struct Oracle {
    /// `!"DEADLOCK" & !(a1 | … | an)` over the action atoms `ai`: holds on
    /// the one-action run of an invisible action.
    invisible: String,
    checker: Checker,
    roles: Arc<Vec<String>>,
    types: Arc<Vec<String>>,
    known: HashMap<Act, bool>,
}

impl Visibility {
    /// The visibility of the actions under `formula` (already accepted by
    /// a check), checked with `checker` on objects of these roles and
    /// types, as the property itself is.
    pub(crate) fn new(
        formula: &str,
        checker: Checker,
        roles: Arc<Vec<String>>,
        types: Arc<Vec<String>>,
    ) -> Visibility {
        let invisible = match owl_lite::parse(formula) {
            Ok(ltl) => {
                let atoms: Vec<Ltl> = ltl
                    .atoms()
                    .into_iter()
                    .filter(|t| is_action_atom(t))
                    .map(Ltl::atom)
                    .collect();
                if atoms.is_empty() {
                    return Visibility { oracle: None };
                }
                Ltl::and([Ltl::atom("DEADLOCK").not(), Ltl::or(atoms).not()]).to_string()
            }
            // Not reached (the property parsed it): every action visible.
            Err(_) => Ltl::ff().to_string(),
        };
        Visibility {
            oracle: Some(Mutex::new(Oracle {
                invisible,
                checker,
                roles,
                types,
                known: HashMap::new(),
            })),
        }
    }

    /// Whether the property can see `act` (a `choose` never: it is no
    /// action of the protocol and is left out of the checked run).
    pub(crate) fn is_visible(&self, act: &Act) -> bool {
        if matches!(act.kind, ActKind::Choose { .. }) {
            return false;
        }
        let Some(oracle) = &self.oracle else {
            return false;
        };
        let mut o = oracle.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&seen) = o.known.get(act) {
            return seen;
        }
        let holds = check_run(
            &o.checker,
            &o.invisible,
            (&o.roles, &o.types),
            std::slice::from_ref(act),
            true,
        )
        .is_ok_and(|r| matches!(r.verdict, Verdict::Holds));
        o.known.insert(act.clone(), !holds);
        !holds
    }
}

/// Whether an atom's text is an action pattern: a constant atom (`True`,
/// `False`, `END`, `DEADLOCK`) is one word, and every one-word atom that
/// a check accepts is one of those four (`engine`'s atom grammar), so an
/// atom of several words is an action pattern. Constants are the same on
/// every action, so they see none.
fn is_action_atom(text: &str) -> bool {
    text.split_whitespace().nth(1).is_some()
}

#[cfg(test)]
mod tests {
    use super::super::property::Property;
    use super::*;

    fn visibility(formula: &str) -> Visibility {
        let names = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect();
        Property::new(formula, names(&["a", "b", "c"]), names(&["T", "U"]))
            .expect("a valid property")
            .visibility()
    }

    fn send(role: usize, to: usize, ty: &'static str) -> Act {
        Act {
            role,
            kind: ActKind::Send {
                to,
                ty: engine::MessageType::of(ty),
            },
        }
    }

    fn recv(role: usize, from: usize, ty: &'static str) -> Act {
        Act {
            role,
            kind: ActKind::Recv {
                from,
                ty: engine::MessageType::of(ty),
            },
        }
    }

    #[test]
    fn an_action_is_visible_where_an_atom_matches_it() {
        let v = visibility(r#"G ("a SEND <T> TO b" -> F "c RECV * FROM *")"#);
        assert!(v.is_visible(&send(0, 1, "T")));
        assert!(!v.is_visible(&send(0, 1, "U")), "another type");
        assert!(!v.is_visible(&send(0, 2, "T")), "another peer");
        assert!(!v.is_visible(&send(1, 0, "T")), "another role");
        assert!(v.is_visible(&recv(2, 0, "U")));
        assert!(!v.is_visible(&recv(1, 2, "U")));
        let close = Act {
            role: 0,
            kind: ActKind::Close { to: 1 },
        };
        assert!(!v.is_visible(&close));
        let choose = Act {
            role: 0,
            kind: ActKind::Choose { pick: 0, n: 2 },
        };
        assert!(!v.is_visible(&choose), "a choose is no action");
        // Asked again: the same answer, from the cache.
        assert!(v.is_visible(&send(0, 1, "T")));
    }

    #[test]
    fn wildcards_and_closes_are_matched_as_a_check_matches_them() {
        let v = visibility(r#"F ("* CLOSE TO c" | "b * <U>")"#);
        let close = |role, to| Act {
            role,
            kind: ActKind::Close { to },
        };
        assert!(v.is_visible(&close(0, 2)));
        assert!(!v.is_visible(&close(2, 0)));
        assert!(v.is_visible(&send(1, 0, "U")));
        assert!(v.is_visible(&recv(1, 2, "U")));
        assert!(!v.is_visible(&recv(1, 2, "T")));
    }

    #[test]
    fn constant_atoms_see_no_action() {
        let v = visibility(r#"G !"DEADLOCK" & F "END" & G "True" & !F "False""#);
        assert!(v.oracle.is_none());
        assert!(!v.is_visible(&send(0, 1, "T")));
    }

    #[test]
    fn an_action_the_trace_object_cannot_replay_is_visible() {
        // A type the object does not declare: the one-action run stops
        // at once (DEADLOCK), which must not read as "no atom holds".
        let v = visibility(r#"F "b SEND *""#);
        assert!(v.is_visible(&send(0, 1, "Unknown")));
        assert!(!v.is_visible(&send(0, 1, "T")));
    }
}
