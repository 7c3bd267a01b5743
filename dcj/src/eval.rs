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
//! [`MAX_DEPTH`] or longer than [`MAX_STEPS`], a collection of more than
//! [`MAX_COLLECTION`] elements, or a value heavier than [`MAX_WEIGHT`] or
//! nested deeper than [`MAX_VALUE_DEPTH`].
//!
//! Steps count work, not forms: a builtin counts the elements it makes,
//! copies, hashes, compares or visits and the characters it makes, before
//! it makes them, in units of about one form's evaluation (see
//! `builtins.rs`), so that no builtin can run long or allocate much
//! between two checks. The same checks look at the
//! [`Bounds`]' deadline and memory bound (the bytes of the values alive and
//! of the specification made so far); reaching those is a [`DcjError`]
//! with [`limit`](DcjError::limit) set.
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
mod expr;
mod guard;
mod num;
mod roles;
mod spec;
mod unfold;

pub(crate) use super::value::Env;

use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;

use super::names::local_name;
use super::read::{Form, Read};
use super::value::{self, Value};
use super::{DcjError, DcjLimit, Import, Span, Warning};
use engine::hint::Audience;
use protocols::spec::{Spec, Term};
use unfold::Pending;
use unfold::SessionDef;

/// The [`engine::Limits`] of one import, resolved when it starts.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// When to give up; `None`: never.
    pub deadline: Option<std::time::Instant>,
    /// The most bytes of values and specification; `None`: unbounded.
    pub max_memory: Option<usize>,
}

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
/// Heaviest value an expression may make (its weight: elements and
/// characters, shared parts counted each time they occur). Printing,
/// hashing or comparing a value costs about its weight, so this bounds
/// those walks; `(conj v v)` or `(str s s)` in a loop reaches it after a
/// few dozen rounds.
pub const MAX_WEIGHT: u64 = 10_000_000;
/// Deepest nesting of collections in one value (the walks over a value
/// recurse on it).
pub const MAX_VALUE_DEPTH: u32 = 10_000;
/// Steps between two looks at the clock and the memory in use.
const CHECK_EVERY: u64 = 4096;

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
    /// A declared role's full keyword by its local name (the first one
    /// declared), for roles written without their namespace.
    roles_by_local: HashMap<String, String>,
    sessions: Vec<SessionDef>,
    fns: HashMap<String, Value>,
    defs: HashMap<String, Form>,
    def_values: HashMap<String, Value>,
    warnings: Vec<Warning>,
    warned: HashSet<String>,
    instances: HashMap<String, String>,
    used_names: HashSet<String>,
    next_suffix: HashMap<String, usize>,
    per_origin: HashMap<String, usize>,
    queue: VecDeque<Pending>,
    definitions: Vec<(String, Term)>,
    /// The definition being unfolded (none: the main call).
    current: Option<String>,
    /// Where a definition first calls another (caller, callee), and where
    /// each instance was first called: the positions of the unguarded
    /// recursion error.
    call_sites: HashMap<(String, String), Span>,
    instance_spans: HashMap<String, Span>,
    depth: usize,
    steps: u64,
    /// `steps` at the next look at the clock and the memory.
    next_check: u64,
    limits: Bounds,
    /// Bytes of the specification made so far (terms, names, keys); the
    /// values' bytes are [`value::live_bytes`].
    spec_bytes: usize,
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
        self.charge(1, span)
    }

    /// Runs `inner` one level deeper. Past [`MAX_DEPTH`] levels it fails
    /// instead, with the message and hint that `too_deep` gives (what was
    /// nested, and why that may be), so that a recursion without end stops
    /// with an error rather than overflow the importer's stack.
    fn deeper<T>(
        &mut self,
        span: Span,
        too_deep: impl FnOnce() -> (String, Option<String>),
        inner: impl FnOnce(&mut Self) -> R<T>,
    ) -> R<T> {
        if self.depth >= MAX_DEPTH {
            let (message, hint) = too_deep();
            return Err(self.error(span, message, hint));
        }
        self.depth += 1;
        let r = inner(self);
        self.depth -= 1;
        r
    }

    /// Counts `n` steps of work about to be done at `span`: an error past
    /// [`MAX_STEPS`]; every [`CHECK_EVERY`] steps, a limit error past the
    /// deadline or the memory bound.
    fn charge(&mut self, n: u64, span: Span) -> R<()> {
        self.steps = self.steps.saturating_add(n);
        if self.steps > MAX_STEPS {
            return Err(self.error(
                span,
                format!("evaluation took more than {MAX_STEPS} steps"),
                Some("a function that recurses without end, or work on very large collections? (builtins count the elements they make, copy or compare)".into()),
            ));
        }
        if self.steps >= self.next_check {
            self.next_check = self.steps.saturating_add(CHECK_EVERY);
            self.check_limits(span)?;
        }
        Ok(())
    }

    /// Bytes the evaluation holds now: its values' element buffers and the
    /// specification made so far.
    fn bytes_in_use(&self) -> usize {
        value::live_bytes().saturating_add(self.spec_bytes)
    }

    /// A limit error at `span` if the deadline has passed or more memory
    /// than the limits allow is in use, or would be with `more` bytes.
    fn check_limits_with(&self, more: usize, span: Span) -> R<()> {
        if let Some(max) = self.limits.max_memory {
            if self.bytes_in_use().saturating_add(more) > max {
                let mut e = DcjError::at(
                    self.text,
                    span,
                    format!("evaluating the .dcj file stopped at the memory limit ({max} bytes of values and specification)"),
                    Some(super::limit_hint(DcjLimit::Memory(max), Audience::Library)),
                );
                e.limit = Some(DcjLimit::Memory(max));
                return Err(Fail::Error(e));
            }
        }
        if self
            .limits
            .deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
        {
            let mut e = DcjError::at(
                self.text,
                span,
                "evaluating the .dcj file stopped at the time limit".into(),
                Some(super::limit_hint(DcjLimit::Time, Audience::Library)),
            );
            e.limit = Some(DcjLimit::Time);
            return Err(Fail::Error(e));
        }
        Ok(())
    }

    fn check_limits(&self, span: Span) -> R<()> {
        self.check_limits_with(0, span)
    }

    /// Room for a new collection of `n` elements of `elem_bytes` each,
    /// about to be made at `span`: counts `n` steps, and is an error past
    /// [`MAX_COLLECTION`] or a limit past the memory bound, before
    /// anything is allocated.
    fn room(&mut self, n: u64, elem_bytes: usize, span: Span) -> R<()> {
        self.bounded(i128::from(n), span)?;
        self.charge(builtins::copy_work(n), span)?;
        let bytes = usize::try_from(n)
            .unwrap_or(usize::MAX)
            .saturating_mul(elem_bytes);
        self.check_limits_with(bytes, span)
    }

    /// Room for a new collection of `n` values (see [`room`](Self::room)).
    fn room_values(&mut self, n: usize, span: Span) -> R<()> {
        self.room(n as u64, std::mem::size_of::<Value>(), span)
    }

    /// Counts `bytes` more of specification (terms, names, keys).
    fn spec_grew(&mut self, bytes: usize, span: Span) -> R<()> {
        self.spec_bytes = self.spec_bytes.saturating_add(bytes);
        self.charge((bytes / 64) as u64, span)?;
        if self.limits.max_memory.is_some_and(|m| self.spec_bytes > m) {
            return self.check_limits(span);
        }
        Ok(())
    }

    /// `v` if it is within [`MAX_WEIGHT`] and [`MAX_VALUE_DEPTH`], else the
    /// error at `span`: every value an expression makes passes here.
    fn sized(&self, v: Value, span: Span) -> R<Value> {
        if v.weight() > MAX_WEIGHT {
            return Err(self.error(
                span,
                format!(
                    "a value of more than {MAX_WEIGHT} elements and characters (nested ones counted each time they occur)"
                ),
                Some("does a loop double a string or collection, as (str x x) or (conj v v) do?".into()),
            ));
        }
        if v.depth() > MAX_VALUE_DEPTH {
            return Err(self.error(
                span,
                format!("a value with collections nested more than {MAX_VALUE_DEPTH} deep"),
                Some("does a loop wrap a collection in another one each round?".into()),
            ));
        }
        Ok(v)
    }

    /// Counts the work of printing, hashing or comparing `v` (its weight).
    fn walk(&mut self, v: &Value, span: Span) -> R<()> {
        self.charge(builtins::walk_work(v.weight()), span)
    }

    /// `v` printed (for a key, a name or `str`), its work counted first;
    /// an error if that takes more than [`MAX_WEIGHT`] characters.
    fn printed(&mut self, v: &Value, span: Span) -> R<String> {
        self.walk(v, span)?;
        let max = MAX_WEIGHT as usize;
        let s = v.printed_within(max).ok_or_else(|| {
            self.error(
                span,
                format!("a value that prints to more than {max} characters"),
                Some("does a loop double a collection, as (conj v v) does?".into()),
            )
        })?;
        Ok(s)
    }

    /// The visible bindings of `env` as text, sorted by name: the key that
    /// tells instances apart, its work counted.
    fn snapshot(&mut self, env: &Env, span: Span) -> R<String> {
        let mut parts = Vec::new();
        for (name, v) in env.visible() {
            let shown = self.printed(&v, span)?;
            parts.push(format!("{name}={shown}"));
        }
        parts.sort();
        let key = parts.join(" ");
        self.spec_grew(key.len(), span)?;
        Ok(key)
    }
}

/// Names in order of first use, each once: a vector and the set of what
/// it holds (a `par-every` over a million roles declares a million).
#[derive(Default)]
struct FirstUse {
    order: Vec<String>,
    seen: HashSet<String>,
}

impl FirstUse {
    fn add(&mut self, x: &str) {
        if !self.seen.contains(x) {
            self.seen.insert(x.to_string());
            self.order.push(x.to_string());
        }
    }
}

fn names_in(t: &Term, roles: &mut FirstUse, types: &mut FirstUse) {
    let add = |v: &mut FirstUse, x: &str| v.add(x);
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
    limits: &Bounds,
) -> Result<Import, DcjError> {
    let mut ctx = Ctx {
        text,
        ns: "user".into(),
        roles: HashMap::new(),
        roles_by_local: HashMap::new(),
        sessions: Vec::new(),
        fns: HashMap::new(),
        defs: HashMap::new(),
        def_values: HashMap::new(),
        warnings: read.warnings,
        warned: HashSet::new(),
        instances: HashMap::new(),
        used_names: HashSet::new(),
        next_suffix: HashMap::new(),
        per_origin: HashMap::new(),
        queue: VecDeque::new(),
        definitions: Vec::new(),
        current: None,
        call_sites: HashMap::new(),
        instance_spans: HashMap::new(),
        depth: 0,
        steps: 0,
        // the first step looks: a deadline already passed stops at once
        next_check: 1,
        limits: *limits,
        spec_bytes: 0,
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
    ctx.check_guarded().map_err(unwrap)?;
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
    let (mut roles, mut types) = (FirstUse::default(), FirstUse::default());
    for (_, t) in &ctx.definitions {
        names_in(t, &mut roles, &mut types);
    }
    // A million roles take a while to collect: look at the clock again.
    if ctx
        .limits
        .deadline
        .is_some_and(|d| std::time::Instant::now() >= d)
    {
        let mut e = DcjError::plain(
            "evaluating the .dcj file stopped at the time limit (collecting the roles)".into(),
            Some("raise it with --timeout or PRUST_TIMEOUT, or use a smaller instance".into()),
        );
        e.limit = Some(DcjLimit::Time);
        return Err(e);
    }
    let mut spec = Spec::new(name, main.clone())
        .roles(roles.order)
        .types(types.order);
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
        steps: ctx.steps,
    })
}
