//! Checking an execution's trace against an LTL property with the public
//! engine: the trace becomes a tiny protocol object whose only run is the
//! trace, with the original object's roles and message types, so atoms
//! and names are checked exactly as `engine::check` checks them.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use engine::{Checker, Fairness, Message, Protocol, Refused, RoleId, Semantics, Verdict};

use super::step::{Act, ActKind};
use super::visible::Visibility;

/// A protocol object whose only run is one recorded trace, ending
/// terminated (`END`) or not (`DEADLOCK`) as the execution did.
#[derive(Debug, Clone)]
struct TraceObject {
    roles: Arc<Vec<String>>,
    types: Arc<Vec<String>>,
    steps: Arc<Vec<Act>>,
    terminated: bool,
    pos: usize,
}

impl PartialEq for TraceObject {
    // One object per check: the state is the position alone.
    fn eq(&self, other: &Self) -> bool {
        self.pos == other.pos
    }
}

impl Eq for TraceObject {}

impl Hash for TraceObject {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.pos.hash(state)
    }
}

impl TraceObject {
    fn next(&self) -> Option<&Act> {
        self.steps.get(self.pos)
    }
}

impl Protocol for TraceObject {
    fn roles(&self) -> Vec<String> {
        self.roles.to_vec()
    }

    fn type_names(&self) -> Vec<String> {
        self.types.to_vec()
    }

    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        match self.next() {
            Some(Act {
                role: r,
                kind: ActKind::Send { to: t, ty },
            }) if *r == role && *t == to && ty.name() == msg.type_name() => {
                self.pos += 1;
                Ok(())
            }
            _ => Err(Refused(msg)),
        }
    }

    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        match self.next() {
            Some(Act {
                role: r,
                kind: ActKind::Recv { from: f, ty },
            }) if *r == role && from.is_none_or(|x| x == *f) => {
                let reply = (*f, Message::named(ty.name(), ()));
                self.pos += 1;
                Ok(reply)
            }
            _ => Err(Refused(())),
        }
    }

    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        match self.next() {
            Some(Act {
                role: r,
                kind: ActKind::Close { to: t },
            }) if *r == role && *t == to => {
                self.pos += 1;
                Ok(())
            }
            _ => Err(Refused(())),
        }
    }

    fn is_terminated(&self) -> bool {
        self.terminated && self.pos == self.steps.len()
    }
    /// The object's own list when it has one; an empty one is complete
    /// when the trace carries no message (a protocol of closes only), else
    /// the trace's message types come as dummies (see [`check_run`]).
    fn declares_types(&self) -> bool {
        !self.types.is_empty()
            || !self
                .steps
                .iter()
                .any(|a| matches!(a.kind, ActKind::Send { .. } | ActKind::Recv { .. }))
    }
}

/// A property checked on every execution's trace; results are cached per
/// distinct trace, since many schedules give the same sequence of actions.
pub(crate) struct Property {
    formula: String,
    checker: Checker,
    roles: Arc<Vec<String>>,
    types: Arc<Vec<String>>,
    cache: HashMap<(Vec<Act>, bool), bool>,
}

impl Property {
    /// Prepares `formula` for objects with these roles and message types;
    /// an error (a syntax error, an unknown role or type) is reported
    /// now, before anything runs, exactly as `engine::check` reports it.
    pub(crate) fn new(
        formula: &str,
        roles: Vec<String>,
        types: Vec<String>,
    ) -> Result<Property, engine::Error> {
        let checker = Checker::from_env()?
            .semantics(Semantics::Stutter)
            // A trace's one run stops and stutters with no role enabled:
            // weakly fair, so fairness cannot change its verdict, and
            // PRUST_FAIRNESS must not make a trace of more roles than
            // fairness marks an error (see `Explorer::fairness`).
            .fairness(Fairness::None)
            .determinism_check(false)
            // A single trace is tiny: its verdict must be exact.
            .hash_compaction(false)
            .progress(false);
        // Every trace is checked by a session of its own, whose setup was
        // much of a check's cost: a successor cache sized for a trace's
        // few states (the default's slot table is 4 MiB, zeroed at every
        // session), and the default memory budget worked out once here
        // (it reads /proc) rather than at every session.
        let limits = checker.limits();
        let max_memory = limits
            .max_memory
            .unwrap_or_else(|| limits.defaults.max_memory());
        let checker = checker.cache_limit(1 << 10).max_memory(max_memory);
        let mut p = Property {
            formula: formula.to_string(),
            checker,
            roles: Arc::new(roles),
            types: Arc::new(types),
            cache: HashMap::new(),
        };
        // Checking the empty run parses the formula and resolves its atoms.
        p.check_trace(&[], false)?;
        p.cache.clear();
        Ok(p)
    }

    /// The formula as given.
    pub(crate) fn formula(&self) -> &str {
        &self.formula
    }

    /// Which actions this property sees (see [`Visibility`]), checked
    /// with this property's checker, roles and types.
    pub(crate) fn visibility(&self) -> Visibility {
        Visibility::new(
            &self.formula,
            self.checker.clone(),
            Arc::clone(&self.roles),
            Arc::clone(&self.types),
        )
    }

    /// Whether the finite run `trace` (ending terminated or not) satisfies
    /// the property under the stutter semantics; `None` if the check was
    /// inconclusive (a limit of the engine), which is never a pass.
    pub(crate) fn check_trace(
        &mut self,
        trace: &[Act],
        terminated: bool,
    ) -> Result<Option<bool>, engine::Error> {
        // The program's own choices are not actions of the protocol.
        let trace: Vec<Act> = trace
            .iter()
            .filter(|a| !matches!(a.kind, ActKind::Choose { .. }))
            .cloned()
            .collect();
        let trace = &trace[..];
        let key = (trace.to_vec(), terminated);
        if let Some(&holds) = self.cache.get(&key) {
            return Ok(Some(holds));
        }
        let report = check_run(
            &self.checker,
            &self.formula,
            (&self.roles, &self.types),
            trace,
            terminated,
        )?;
        let holds = match report.verdict {
            Verdict::Holds => true,
            Verdict::Violated(_) => false,
            // Never asked for (hash compaction is off above).
            Verdict::HoldsProbabilistic { .. } => return Ok(None),
            // Only under PRUST_SHARE: one share decides nothing.
            Verdict::HoldsOnShare { .. } => return Ok(None),
            Verdict::Inconclusive { .. } => return Ok(None),
        };
        self.cache.insert(key, holds);
        Ok(Some(holds))
    }
}

/// Checks `formula` on the finite run `trace` (ending terminated or not)
/// of an object with these roles and types, as [`Property::check_trace`]
/// does (the trace holds no `choose`).
pub(crate) fn check_run(
    checker: &Checker,
    formula: &str,
    (roles, types): (&Arc<Vec<String>>, &Arc<Vec<String>>),
    trace: &[Act],
    terminated: bool,
) -> Result<engine::Report, engine::Error> {
    // A trace of types the object does not declare (an object that
    // declares none) is checked with its own types as dummies: those
    // sent, and those received (the same, in a whole execution's trace;
    // not in a trace of one receive, see `Visibility`).
    let mut dummies: Vec<Message> = Vec::new();
    if types.is_empty() {
        let mut seen = std::collections::HashSet::new();
        for a in trace {
            if let ActKind::Send { ty, .. } | ActKind::Recv { ty, .. } = &a.kind {
                // By short name, as the property's atoms and the dummies
                // name types: `a::M` and `b::M` are one dummy `M`.
                if seen.insert(ty.name()) {
                    dummies.push(Message::named(ty.name(), ()));
                }
            }
        }
    }
    let object = TraceObject {
        roles: Arc::clone(roles),
        types: Arc::clone(types),
        steps: Arc::new(trace.to_vec()),
        terminated,
        pos: 0,
    };
    checker.check(formula, object, dummies)
}
