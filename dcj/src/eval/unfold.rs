//! The unfolding machinery: sessions, loops and omegas become named
//! definitions, one per instance (distinct argument values), queued and
//! unfolded one after the other instead of by recursion, with the
//! [`MAX_INSTANCES`](super::MAX_INSTANCES) guard against runaway unfolding.

use std::rc::Rc;

use super::{Ctx, Env, MAX_INSTANCES, R};
use crate::names::local_name;
use crate::read::Form;
use crate::value::Value;
use crate::Span;
use protocols::spec::{self, Term};

/// A session as `s/defsession` declared it (collected by the first pass,
/// unfolded on demand).
#[derive(Clone, Debug)]
pub(super) struct SessionDef {
    pub(super) full: String,
    pub(super) params: Vec<String>,
    /// A literal written in place of a parameter (`[1]`, as some of
    /// Prut4j's generated files have): the value used when the session is
    /// imported without arguments.
    pub(super) defaults: Vec<Option<Value>>,
    pub(super) body: Rc<Vec<Form>>,
}

/// An enclosing `s/loop`, for `s/recur`.
#[derive(Clone, Debug)]
pub(super) struct LoopScope {
    pub(super) name: String,
    pub(super) id: usize,
    pub(super) vars: Vec<String>,
    pub(super) outer: Env,
    pub(super) body: Rc<Vec<Form>>,
    pub(super) outer_loops: Loops,
}

/// The enclosing loops, innermost first.
#[derive(Clone, Debug, Default)]
pub(super) struct LoopList(pub(super) Option<Rc<(LoopScope, LoopList)>>);

pub(super) type Loops = LoopList;

pub(super) enum Pending {
    Body {
        name: String,
        env: Env,
        loops: Loops,
        body: Rc<Vec<Form>>,
        omega: bool,
    },
}

impl Ctx<'_> {
    pub(super) fn find_sessions(&self, wanted: &str) -> Vec<&SessionDef> {
        let w = wanted.trim_start_matches(':');
        let full = if wanted.starts_with("::") {
            self.keyword(true, w)
        } else {
            w.to_string()
        };
        let exact: Vec<&SessionDef> = self.sessions.iter().filter(|s| s.full == full).collect();
        if !exact.is_empty() {
            return exact;
        }
        self.sessions
            .iter()
            .filter(|s| local_name(&s.full) == local_name(w))
            .collect()
    }

    fn fresh_name(&mut self, base: String) -> String {
        // Each base remembers its next number, so names that print alike
        // cost one try each, not one per earlier namesake.
        let mut n = self.next_suffix.get(&base).copied().unwrap_or(2);
        let mut name = base.clone();
        while !self.used_names.insert(name.clone()) {
            name = format!("{base}#{n}");
            n += 1;
        }
        self.next_suffix.insert(base, n);
        name
    }

    /// The call of an instance, queued for unfolding if it is new.
    pub(super) fn instance(
        &mut self,
        origin: &str,
        key: String,
        base: String,
        span: Span,
        make: impl FnOnce(String) -> Pending,
    ) -> R<Term> {
        if let Some(name) = self.instances.get(&key).cloned() {
            self.called(&name, span);
            return Ok(spec::call(&name, []));
        }
        // The key, the name (twice) and the queued instance are kept.
        self.spec_grew(key.len() + 3 * base.len() + 128, span)?;
        let count = self.per_origin.entry(origin.to_string()).or_insert(0);
        *count += 1;
        if *count > MAX_INSTANCES {
            return Err(self.error(span,
                format!("runaway unfolding: {origin} has more than {MAX_INSTANCES} instances; stopped at `{base}`"),
                Some("an argument of the recursion grows without end: bound it (for example with mod or an s/if)".into())));
        }
        let name = self.fresh_name(base);
        self.instances.insert(key, name.clone());
        self.instance_spans.insert(name.clone(), span);
        self.called(&name, span);
        self.queue.push_back(make(name.clone()));
        Ok(spec::call(&name, []))
    }

    /// Notes where the definition being unfolded calls `callee`.
    fn called(&mut self, callee: &str, span: Span) {
        if let Some(caller) = &self.current {
            self.call_sites
                .entry((caller.clone(), callee.to_string()))
                .or_insert(span);
        }
    }

    pub(super) fn session_call(&mut self, wanted: &str, args: Vec<Value>, span: Span) -> R<Term> {
        let found = self.find_sessions(wanted);
        if found.is_empty() {
            let known: Vec<String> = self
                .sessions
                .iter()
                .map(|s| format!("::{}", local_name(&s.full)))
                .collect();
            let close = engine::names::closest(
                local_name(wanted.trim_start_matches(':')),
                self.sessions.iter().map(|s| local_name(&s.full)),
            );
            return Err(self.error(
                span,
                format!(
                    "unknown session `{}`{}",
                    self.shown(wanted),
                    close.map_or(String::new(), |c| format!("; did you mean `::{c}`?"))
                ),
                Some(if known.is_empty() {
                    "the file defines no session (s/defsession)".into()
                } else {
                    format!("the file defines: {}", known.join(", "))
                }),
            ));
        }
        let Some(def) = found
            .iter()
            .find(|s| s.params.len() == args.len())
            .map(|s| (*s).clone())
        else {
            let arities: Vec<String> = found
                .iter()
                .map(|s| format!("[{}]", s.params.join(" ")))
                .collect();
            return Err(self.error(
                span,
                format!(
                    "session `{}` takes {}, not {} argument(s)",
                    local_name(&found[0].full),
                    arities.join(" or "),
                    args.len()
                ),
                None,
            ));
        };
        let local = local_name(&def.full).to_string();
        let mut shown = Vec::with_capacity(args.len());
        for a in &args {
            shown.push(self.printed(a, span)?);
        }
        let base = if args.is_empty() {
            local.clone()
        } else {
            format!("{local}({})", shown.join(", "))
        };
        let key = format!("session {}|{}", def.full, shown.join(" "));
        let mut env = Env::default();
        for (p, a) in def.params.iter().zip(args) {
            env = env.bind(p, a);
        }
        let origin = format!("session `{local}`");
        self.instance(&origin, key, base, span, |name| Pending::Body {
            name,
            env,
            loops: LoopList::default(),
            body: def.body.clone(),
            omega: false,
        })
    }

    pub(super) fn drain(&mut self) -> R<()> {
        while let Some(Pending::Body {
            name,
            env,
            loops,
            body,
            omega,
        }) = self.queue.pop_front()
        {
            self.current = Some(name.clone());
            let mut t = self.spec_seq(&body, &env, &loops)?;
            if omega {
                t = t.then(spec::call(&name, []));
            }
            self.definitions.push((name, t));
        }
        Ok(())
    }

    pub(super) fn loop_instance(
        &mut self,
        scope: &LoopScope,
        vals: Vec<Value>,
        span: Span,
    ) -> R<Term> {
        let mut shown = Vec::with_capacity(vals.len());
        for v in &vals {
            shown.push(self.printed(v, span)?);
        }
        let outer = self.snapshot(&scope.outer, span)?;
        let key = format!("loop@{}|{outer}|{}", scope.id, shown.join(" "));
        let base = format!("{}({})", scope.name, shown.join(", "));
        let mut env = scope.outer.clone();
        for (v, x) in scope.vars.iter().zip(vals) {
            env = env.bind(v, x);
        }
        let loops: Loops = LoopList(Some(Rc::new((scope.clone(), scope.outer_loops.clone()))));
        let body = scope.body.clone();
        let origin = format!("loop `{}`", scope.name);
        self.instance(&origin, key, base, span, |name| Pending::Body {
            name,
            env,
            loops,
            body,
            omega: false,
        })
    }
}
