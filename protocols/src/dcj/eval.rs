//! The evaluator: collects a file's declarations and unfolds a session
//! eagerly into a [`Spec`].
//!
//! Operators are resolved by *position*. In spec position (a session body,
//! the branches of `cat`/`alt`/`par`, the body of `*`, `if`, `let`, ...)
//! `*`, `+`, `?`, `if`, `let`, `loop`, `do` are Discourje's spec operators,
//! with or without the `s/` prefix; in expression position (arguments of
//! sessions and roles, `let` bindings, tests of `if`) they are Clojure's
//! (`*` multiplies). Expressions are evaluated when the session is
//! unfolded, with the session's arguments bound, as Discourje does.
//!
//! Unfolding works off a queue, not by recursion, so that a long chain of
//! session instances cannot overflow the stack; a session with more than
//! [`MAX_INSTANCES`] instances is an error naming the instance where it
//! stopped ("runaway unfolding"), as is an evaluation deeper than
//! [`MAX_DEPTH`] or longer than [`MAX_STEPS`].
//!
//! This file holds the evaluation context (`Ctx`), its limits and
//! [`import`]; each part of the work has its own file, each adding methods
//! to `Ctx`:
//!
//! - `env.rs`: local bindings ([`Env`]);
//! - `declare.rs`: the first pass, collecting the file's declarations;
//! - `unfold.rs`: instances of sessions, loops and omegas, and their queue;
//! - `spec.rs`: spec position (Discourje's operators into terms);
//! - `roles.rs`: role expressions and message predicates of communications;
//! - `expr.rs`: expression position (Clojure forms into values);
//! - `builtins.rs`: the core library that expressions call;
//! - `num.rs`: numbers and arithmetic.

mod builtins;
mod declare;
mod env;
mod expr;
mod num;
mod roles;
mod spec;
mod unfold;

pub use env::Env;

use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;

use super::names::local_name;
use super::read::{Form, Read};
use super::value::Value;
use super::{DcjError, Import, Span, Warning};
use crate::spec::{Spec, Term};
use declare::SessionDef;
use unfold::Pending;

/// Stack of the importer's thread: room for [`MAX_DEPTH`] nested calls.
pub const STACK_BYTES: usize = 256 << 20;
/// Most instances (distinct argument values) of one session, loop or omega.
pub const MAX_INSTANCES: usize = 10_000;
/// Deepest nesting of evaluation (forms and user function calls).
pub const MAX_DEPTH: usize = 4_000;
/// Most evaluation steps in one import (a guard against loops that
/// create nothing, such as `(defn f [x] (f x))` within the depth).
pub const MAX_STEPS: u64 = 20_000_000;
/// Largest collection an expression may build (`(range 1e9)` is an
/// error, not an allocation abort).
pub const MAX_COLLECTION: usize = 1_000_000;

/// An evaluation failure: an import error, or a Clojure exception that a
/// `try` in the file may catch (a bad number to `Long/parseLong`, ...).
enum Fail {
    Error(DcjError),
    Thrown(DcjError),
}

type R<T> = Result<T, Fail>;

struct Ctx<'t> {
    text: &'t str,
    ns: String,
    roles: HashMap<String, String>,
    sessions: Vec<SessionDef>,
    fns: HashMap<String, Value>,
    defs: HashMap<String, Form>,
    def_values: HashMap<String, Value>,
    warnings: Vec<Warning>,
    warned: HashSet<String>,
    instances: HashMap<String, String>,
    used_names: HashSet<String>,
    per_origin: HashMap<String, usize>,
    queue: VecDeque<Pending>,
    definitions: Vec<(String, Term)>,
    depth: usize,
    steps: u64,
    bare: Vec<Form>,
}

impl<'t> Ctx<'t> {
    fn error(&self, span: Span, message: String, hint: Option<String>) -> Fail {
        Fail::Error(DcjError::at(self.text, span, message, hint))
    }

    fn thrown(&self, span: Span, message: String) -> Fail {
        Fail::Thrown(DcjError::at(
            self.text,
            span,
            message,
            Some("Clojure would throw here; a surrounding (try ... (catch Exception e ...)) can catch it".into()),
        ))
    }

    fn warn(&mut self, key: String, span: Span, message: String) {
        if self.warned.insert(key) {
            self.warnings.push(Warning { span, message });
        }
    }

    /// A qualified keyword as the file would write it (`::worker` for the
    /// file's own namespace).
    fn shown(&self, full: &str) -> String {
        match full.strip_prefix(&format!("{}/", self.ns)) {
            Some(local) => format!("::{local}"),
            None => format!(":{full}"),
        }
    }

    fn keyword(&self, auto: bool, name: &str) -> String {
        if auto {
            if name.contains('/') {
                name.to_string()
            } else {
                format!("{}/{name}", self.ns)
            }
        } else {
            name.to_string()
        }
    }

    fn tick(&mut self, span: Span) -> R<()> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(self.error(
                span,
                format!("evaluation took more than {MAX_STEPS} steps"),
                Some("does a function recurse without end?".into()),
            ));
        }
        Ok(())
    }
}

fn names_in(t: &Term, roles: &mut Vec<String>, types: &mut Vec<String>) {
    let add = |v: &mut Vec<String>, x: &str| {
        if !v.iter().any(|y| y == x) {
            v.push(x.to_string());
        }
    };
    match t {
        Term::Comm { ty, from, to, .. } => {
            add(types, ty);
            add(roles, from.name());
            add(roles, to.name());
        }
        Term::Close { from, to } => {
            add(roles, from.name());
            add(roles, to.name());
        }
        Term::Seq(v) | Term::Alt(v) | Term::Par(v) => {
            v.iter().for_each(|x| names_in(x, roles, types))
        }
        Term::Star(b) => names_in(b, roles, types),
        Term::End | Term::Call(..) => {}
    }
}

/// Imports `session` (or the default one) of a read file with integer
/// arguments: the work behind [`super::import_str`].
pub fn import(
    text: &str,
    read: Read,
    stem: Option<&str>,
    session: Option<&str>,
    args: &[i64],
) -> Result<Import, DcjError> {
    let mut ctx = Ctx {
        text,
        ns: "user".into(),
        roles: HashMap::new(),
        sessions: Vec::new(),
        fns: HashMap::new(),
        defs: HashMap::new(),
        def_values: HashMap::new(),
        warnings: read.warnings,
        warned: HashSet::new(),
        instances: HashMap::new(),
        used_names: HashSet::new(),
        per_origin: HashMap::new(),
        queue: VecDeque::new(),
        definitions: Vec::new(),
        depth: 0,
        steps: 0,
        bare: Vec::new(),
    };
    ctx.collect(&read.forms)?;
    if let Some(bare) = ctx.bare.first() {
        // A bare specification is a session named like the file, chosen
        // when no session of that name is defined.
        let name = stem.unwrap_or("main").to_string();
        if ctx.find_sessions(&name).is_empty() {
            ctx.sessions.push(SessionDef {
                full: name,
                params: Vec::new(),
                defaults: Vec::new(),
                body: Rc::new(vec![bare.clone()]),
            });
        }
    }
    if ctx.sessions.is_empty() {
        return Err(DcjError::plain(
            "the file defines no session".into(),
            Some(
                "a .dcj file defines its protocol with (s/defsession ::name [params] body)".into(),
            ),
        ));
    }
    let chosen = match session {
        Some(s) => s.to_string(),
        None => stem
            .and_then(|st| ctx.sessions.iter().find(|s| local_name(&s.full) == st))
            .unwrap_or(&ctx.sessions[0])
            .full
            .clone(),
    };
    let found = ctx.find_sessions(&chosen);
    let known: Vec<String> = ctx
        .sessions
        .iter()
        .map(|s| format!("{}[{}]", local_name(&s.full), s.params.join(" ")))
        .collect();
    if found.is_empty() {
        let close = engine::names::closest(
            local_name(chosen.trim_start_matches(':')),
            ctx.sessions.iter().map(|s| local_name(&s.full)),
        );
        return Err(DcjError::plain(
            format!(
                "unknown session `{chosen}`{}",
                close.map_or(String::new(), |c| format!("; did you mean `{c}`?"))
            ),
            Some(format!("the file defines: {}", known.join(", "))),
        ));
    }
    if args.is_empty() {
        // A session whose parameters are all literals ([1]) runs on them.
        if let Some(s) = found
            .iter()
            .find(|s| !s.params.is_empty() && s.defaults.iter().all(Option::is_some))
        {
            let vals: Vec<Value> = s.defaults.iter().flatten().cloned().collect();
            let full = s.full.clone();
            return finish(ctx, &full, vals, &[]);
        }
    }
    if !found.iter().any(|s| s.params.len() == args.len()) {
        let s = found[0];
        return Err(DcjError::plain(
            format!(
                "session `{}` takes {} argument(s) [{}], not {}",
                local_name(&s.full),
                s.params.len(),
                s.params.join(" "),
                args.len()
            ),
            Some(format!(
                "give them as FILE.dcj:{}:{}",
                local_name(&s.full),
                s.params
                    .iter()
                    .map(|p| p.to_uppercase())
                    .collect::<Vec<_>>()
                    .join(",")
            )),
        ));
    }
    let full = found[0].full.clone();
    let vals: Vec<Value> = args.iter().map(|&a| Value::Int(a)).collect();
    finish(ctx, &full, vals, args)
}

fn finish(
    mut ctx: Ctx<'_>,
    full: &str,
    vals: Vec<Value>,
    args: &[i64],
) -> Result<Import, DcjError> {
    let unwrap = |f: Fail| match f {
        Fail::Error(e) => e,
        Fail::Thrown(mut e) => {
            e.hint = Some("the expression throws an exception in Clojure too".into());
            e
        }
    };
    let main = ctx
        .session_call(full, vals, Span::default())
        .map_err(unwrap)?;
    ctx.drain().map_err(unwrap)?;
    let local = local_name(full).to_string();
    let name = if args.is_empty() {
        local
    } else {
        format!(
            "{local}:{}",
            args.iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(",")
        )
    };
    // Declare roles and types in the order of first use in the unfolding
    // (definitions in the order they were reached, each term left to
    // right, sender before receiver), so that role and type numbers follow
    // the text as Prut4j's do, whatever order the compiler walks in.
    let (mut roles, mut types) = (Vec::new(), Vec::new());
    for (_, t) in &ctx.definitions {
        names_in(t, &mut roles, &mut types);
    }
    let mut spec = Spec::new(name, main.clone()).roles(roles).types(types);
    for (n, t) in &ctx.definitions {
        let t = t.clone();
        spec = spec.define(n, 0, move |_| t.clone());
    }
    Ok(Import {
        spec,
        main,
        definitions: ctx.definitions,
        warnings: ctx.warnings,
        warning_texts: Vec::new(),
    })
}
