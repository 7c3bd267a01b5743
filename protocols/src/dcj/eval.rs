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

use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;

use super::names::{local_name, role_name, type_name};
use super::read::{Form, FormKind, Read};
use super::value::{Closure, Value};
use super::{DcjError, Import, Span, Warning};
use crate::spec::{self, Spec, Term};

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

/// Local bindings: a persistent list, innermost first.
#[derive(Clone, Debug, Default)]
pub struct Env(Option<Rc<EnvNode>>);

#[derive(Debug)]
struct EnvNode {
    name: Rc<str>,
    value: Value,
    next: Env,
}

impl Env {
    /// The value bound to `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        let mut e = self;
        while let Some(n) = &e.0 {
            if &*n.name == name {
                return Some(&n.value);
            }
            e = &n.next;
        }
        None
    }

    /// `self` with `name` bound to `value`.
    pub fn bind(&self, name: &str, value: Value) -> Env {
        Env(Some(Rc::new(EnvNode {
            name: Rc::from(name),
            value,
            next: self.clone(),
        })))
    }

    /// The visible bindings as text, sorted by name: a key for instances.
    fn snapshot(&self) -> String {
        let mut seen = HashSet::new();
        let mut v = Vec::new();
        let mut e = self;
        while let Some(n) = &e.0 {
            if seen.insert(n.name.clone()) {
                v.push(format!("{}={}", n.name, n.value));
            }
            e = &n.next;
        }
        v.sort();
        v.join(" ")
    }

    fn names(&self) -> Vec<String> {
        let mut v = Vec::new();
        let mut e = self;
        while let Some(n) = &e.0 {
            v.push(n.name.to_string());
            e = &n.next;
        }
        v
    }
}

/// An evaluation failure: an import error, or a Clojure exception that a
/// `try` in the file may catch (a bad number to `Long/parseLong`, ...).
enum Fail {
    Error(DcjError),
    Thrown(DcjError),
}

type R<T> = Result<T, Fail>;

#[derive(Clone, Debug)]
struct SessionDef {
    full: String,
    params: Vec<String>,
    /// A literal written in place of a parameter (`[1]`, as some of
    /// Prut4j's generated files have): the value used when the session is
    /// imported without arguments.
    defaults: Vec<Option<Value>>,
    body: Rc<Vec<Form>>,
}

/// Operators that make a top-level form a bare specification (files with
/// no `s/defsession`, as Prut4j's generated NPB files are).
const BARE_SPEC_OPS: [&str; 16] = [
    "cat",
    "alt",
    "par",
    "*",
    "+",
    "?",
    "-->>",
    "-->",
    "close",
    "cat-every",
    "alt-every",
    "par-every",
    "omega",
    "ω",
    "loop",
    "async",
];

/// An enclosing `s/loop`, for `s/recur`.
#[derive(Clone, Debug)]
struct LoopScope {
    name: String,
    id: usize,
    vars: Vec<String>,
    outer: Env,
    body: Rc<Vec<Form>>,
    outer_loops: Loops,
}

/// The enclosing loops, innermost first.
#[derive(Clone, Debug, Default)]
struct LoopList(Option<Rc<(LoopScope, LoopList)>>);

type Loops = LoopList;

enum Pending {
    Body {
        name: String,
        env: Env,
        loops: Loops,
        body: Rc<Vec<Form>>,
        omega: bool,
    },
}

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

const SPEC_NAMESPACES: [&str; 4] = ["s", "spec", "discourje.core.spec", "dcj"];
const CORE_NAMESPACES: [&str; 7] = [
    "clojure.core",
    "s",
    "spec",
    "discourje.core.spec",
    "clojure.set",
    "set",
    "dcj",
];

/// The operator name of a symbol in spec position: `s/cat` and `cat` are
/// `cat`; a symbol of another namespace is no operator.
fn spec_op(sym: &str) -> Option<&str> {
    match sym.split_once('/') {
        Some((ns, name)) if !name.is_empty() && SPEC_NAMESPACES.contains(&ns) => Some(name),
        Some((_, "")) | None => Some(sym),
        Some(_) => None,
    }
}

/// The function name of a symbol in expression position: `clojure.core/inc`,
/// `s/count` and `count` are `count`; `Math/sqrt` stays.
fn core_name(sym: &str) -> &str {
    match sym.split_once('/') {
        Some((ns, name)) if !name.is_empty() && CORE_NAMESPACES.contains(&ns) => name,
        _ => sym,
    }
}

const BUILTINS: &[&str] = &[
    "+",
    "-",
    "*",
    "/",
    "inc",
    "dec",
    "mod",
    "rem",
    "quot",
    "max",
    "min",
    "abs",
    "=",
    "not=",
    "==",
    "<",
    ">",
    "<=",
    ">=",
    "not",
    "zero?",
    "pos?",
    "neg?",
    "even?",
    "odd?",
    "identity",
    "range",
    "set",
    "hash-set",
    "list",
    "vector",
    "vec",
    "seq",
    "count",
    "empty?",
    "first",
    "second",
    "last",
    "rest",
    "next",
    "nth",
    "cons",
    "conj",
    "disj",
    "contains?",
    "remove",
    "filter",
    "map",
    "into",
    "concat",
    "reverse",
    "sort",
    "distinct",
    "union",
    "difference",
    "intersection",
    "power-set",
    "get",
    "reduce",
    "every?",
    "some",
    "str",
    "subs",
    "long",
    "int",
    "double",
    "name",
    "keyword",
    "nil?",
    "some?",
    "Math/ceil",
    "Math/floor",
    "Math/sqrt",
    "Math/pow",
    "Math/abs",
    "Math/round",
    "Long/parseLong",
    "Integer/parseInt",
    "Long/toBinaryString",
    "Integer/toBinaryString",
    ".replaceFirst",
    "empty-set",
];

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

    // ---------------------------------------------------------------
    // Declarations
    // ---------------------------------------------------------------

    fn collect(&mut self, forms: &[Form]) -> Result<(), DcjError> {
        let unwrap = |r: R<()>| {
            r.map_err(|f| match f {
                Fail::Error(e) | Fail::Thrown(e) => e,
            })
        };
        for f in forms {
            let FormKind::List(items) = &f.kind else {
                continue;
            };
            let Some(Form {
                kind: FormKind::Symbol(head),
                ..
            }) = items.first()
            else {
                continue;
            };
            let op = spec_op(head).unwrap_or("");
            match (head.as_str(), op) {
                ("ns", _) | ("in-ns", _) => {
                    if let Some(name) = items.get(1).and_then(symbol_in) {
                        self.ns = name;
                    }
                }
                (_, "defrole") => unwrap(self.defrole(f, items))?,
                (_, "defroles") => {
                    for x in &items[1..] {
                        let keys: Vec<&Form> = match &x.kind {
                            FormKind::Vector(v) | FormKind::List(v) | FormKind::Set(v) => {
                                v.iter().collect()
                            }
                            _ => vec![x],
                        };
                        for k in keys {
                            unwrap(self.defrole(f, &[items[0].clone(), k.clone()]))?;
                        }
                    }
                }
                (_, "defsession") => unwrap(self.defsession(f, items))?,
                ("defn" | "defn-" | "clojure.core/defn", _) => {
                    if let Some(Form {
                        kind: FormKind::Symbol(name),
                        ..
                    }) = items.get(1)
                    {
                        let closure = self.closure(name, &items[2..], &Env::default(), f.span);
                        match closure {
                            Ok(c) => {
                                self.fns.insert(name.clone(), c);
                            }
                            // A function the file defines but cannot be
                            // read as one (program code): an error only
                            // if a specification calls it.
                            Err(_) => continue,
                        }
                    }
                }
                ("def" | "clojure.core/def", _) => {
                    if let (
                        Some(Form {
                            kind: FormKind::Symbol(name),
                            ..
                        }),
                        Some(value),
                    ) = (items.get(1), items.last().filter(|_| items.len() >= 3))
                    {
                        self.defs.insert(name.clone(), value.clone());
                    }
                }
                (_, op) if BARE_SPEC_OPS.contains(&op) => self.bare.push(f.clone()),
                _ => {}
            }
        }
        Ok(())
    }

    fn defrole(&mut self, f: &Form, items: &[Form]) -> R<()> {
        if let Some(Form {
            kind: FormKind::Str(_),
            ..
        }) = items.get(1)
        {
            // (s/defrole "master"): string roles need no declaration.
            return Ok(());
        }
        let Some(Form {
            kind: FormKind::Keyword { auto, name },
            ..
        }) = items.get(1)
        else {
            return Err(self.error(
                f.span,
                "s/defrole needs a keyword".into(),
                Some("write (s/defrole ::worker)".into()),
            ));
        };
        let full = self.keyword(*auto, name);
        let shown = match items.get(2) {
            Some(Form {
                kind: FormKind::Str(s),
                ..
            }) => s.clone(),
            _ => local_name(&full).to_string(),
        };
        self.roles.insert(full, shown);
        Ok(())
    }

    fn defsession(&mut self, f: &Form, items: &[Form]) -> R<()> {
        let Some(Form {
            kind: FormKind::Keyword { auto, name },
            ..
        }) = items.get(1)
        else {
            return Err(self.error(
                items.get(1).map_or(f.span, |x| x.span),
                "s/defsession needs a keyword name".into(),
                Some("write (s/defsession ::name [params] body)".into()),
            ));
        };
        let Some(Form {
            kind: FormKind::Vector(params),
            span,
        }) = items.get(2)
        else {
            return Err(self.error(
                items.get(2).map_or(f.span, |x| x.span),
                "s/defsession needs a parameter vector after the name".into(),
                Some("write (s/defsession ::name [k i] body); [] for none".into()),
            ));
        };
        let mut names = Vec::new();
        let mut defaults = Vec::new();
        for (n, p) in params.iter().enumerate() {
            match &p.kind {
                FormKind::Symbol(s) => {
                    names.push(s.clone());
                    defaults.push(None);
                }
                FormKind::Int(_) | FormKind::Str(_) | FormKind::Keyword { .. } => {
                    names.push(format!("%literal{n}"));
                    defaults.push(Some(quoted(p)));
                }
                _ => {
                    return Err(self.error(
                        p.span,
                        "a session parameter must be a symbol".into(),
                        Some("destructuring is not supported in session parameters".into()),
                    ))
                }
            }
        }
        let _ = span;
        let full = self.keyword(*auto, name);
        self.sessions
            .retain(|s| !(s.full == full && s.params.len() == names.len()));
        self.sessions.push(SessionDef {
            full,
            params: names,
            defaults,
            body: Rc::new(items[3..].to_vec()),
        });
        Ok(())
    }

    /// A function value from `defn`/`fn` parts: `[params] body...` or
    /// `([params] body...)+`, after an optional name and docstring.
    fn closure(&self, name: &str, parts: &[Form], env: &Env, span: Span) -> R<Value> {
        let mut parts = parts;
        while let Some(Form {
            kind: FormKind::Str(_) | FormKind::Map(_),
            ..
        }) = parts.first()
        {
            parts = &parts[1..];
        }
        let mut arities = Vec::new();
        let parse_params = |v: &[Form]| -> R<(Vec<String>, Option<String>)> {
            let mut names = Vec::new();
            let mut rest = None;
            let mut it = v.iter();
            while let Some(p) = it.next() {
                match &p.kind {
                    FormKind::Symbol(s) if s == "&" => {
                        if let Some(Form {
                            kind: FormKind::Symbol(r),
                            ..
                        }) = it.next()
                        {
                            rest = Some(r.clone());
                        }
                    }
                    FormKind::Symbol(s) => names.push(s.clone()),
                    _ => {
                        return Err(self.error(
                            p.span,
                            "destructuring parameters are not supported".into(),
                            Some("name each parameter with a symbol".into()),
                        ))
                    }
                }
            }
            Ok((names, rest))
        };
        match parts.first().map(|f| &f.kind) {
            Some(FormKind::Vector(v)) => {
                let (p, rest) = parse_params(v)?;
                arities.push((p, rest, parts[1..].to_vec()));
            }
            Some(FormKind::List(_)) => {
                for a in parts {
                    let FormKind::List(items) = &a.kind else {
                        continue;
                    };
                    if let Some(Form {
                        kind: FormKind::Vector(v),
                        ..
                    }) = items.first()
                    {
                        let (p, rest) = parse_params(v)?;
                        arities.push((p, rest, items[1..].to_vec()));
                    }
                }
            }
            _ => {}
        }
        if arities.is_empty() {
            return Err(self.error(
                span,
                format!("`{name}` has no parameter vector"),
                Some("write (defn name [params] body)".into()),
            ));
        }
        Ok(Value::Fn(Rc::new(Closure {
            name: name.to_string(),
            arities,
            env: env.clone(),
        })))
    }

    // ---------------------------------------------------------------
    // Sessions and definitions
    // ---------------------------------------------------------------

    fn find_sessions(&self, wanted: &str) -> Vec<&SessionDef> {
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
        let mut name = base.clone();
        let mut n = 2;
        while !self.used_names.insert(name.clone()) {
            name = format!("{base}#{n}");
            n += 1;
        }
        name
    }

    /// The call of an instance, queued for unfolding if it is new.
    fn instance(
        &mut self,
        origin: &str,
        key: String,
        base: String,
        span: Span,
        make: impl FnOnce(String) -> Pending,
    ) -> R<Term> {
        if let Some(name) = self.instances.get(&key) {
            return Ok(spec::call(name, []));
        }
        let count = self.per_origin.entry(origin.to_string()).or_insert(0);
        *count += 1;
        if *count > MAX_INSTANCES {
            return Err(self.error(span,
                format!("runaway unfolding: {origin} has more than {MAX_INSTANCES} instances; stopped at `{base}`"),
                Some("an argument of the recursion grows without end: bound it (for example with mod or an s/if)".into())));
        }
        let name = self.fresh_name(base);
        self.instances.insert(key, name.clone());
        self.queue.push_back(make(name.clone()));
        Ok(spec::call(&name, []))
    }

    fn session_call(&mut self, wanted: &str, args: Vec<Value>, span: Span) -> R<Term> {
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
        let shown: Vec<String> = args.iter().map(Value::to_string).collect();
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

    fn drain(&mut self) -> R<()> {
        while let Some(Pending::Body {
            name,
            env,
            loops,
            body,
            omega,
        }) = self.queue.pop_front()
        {
            let mut t = self.spec_seq(&body, &env, &loops)?;
            if omega {
                t = t.then(spec::call(&name, []));
            }
            self.definitions.push((name, t));
        }
        Ok(())
    }

    // ---------------------------------------------------------------
    // Spec position
    // ---------------------------------------------------------------

    fn spec_seq(&mut self, forms: &[Form], env: &Env, loops: &Loops) -> R<Term> {
        let mut v = Vec::with_capacity(forms.len());
        for f in forms {
            v.push(self.spec(f, env, loops)?);
        }
        Ok(multiary(v, Term::Seq))
    }

    fn spec(&mut self, f: &Form, env: &Env, loops: &Loops) -> R<Term> {
        self.tick(f.span)?;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            return Err(self.error(
                f.span,
                format!("specification nested more than {MAX_DEPTH} deep"),
                None,
            ));
        }
        let r = self.spec_inner(f, env, loops);
        self.depth -= 1;
        r
    }

    fn spec_inner(&mut self, f: &Form, env: &Env, loops: &Loops) -> R<Term> {
        let items = match &f.kind {
            FormKind::Vector(v) => return self.spec_seq(v, env, loops),
            FormKind::List(items) if !items.is_empty() => items,
            FormKind::Keyword { auto, name } => {
                let k = self.keyword(*auto, name);
                return self.session_call(&k, Vec::new(), f.span);
            }
            _ => {
                return Err(self.error(
                    f.span,
                    format!("expected a specification, found `{f}`"),
                    Some(
                        "a specification is (s/-->> T p q), (s/cat ...), (::session args), ..."
                            .into(),
                    ),
                ))
            }
        };
        let args = &items[1..];
        let head = &items[0];
        match &head.kind {
            FormKind::Keyword { auto, name } => {
                let k = self.keyword(*auto, name);
                let vals = self.exprs(args, env)?;
                self.session_call(&k, vals, f.span)
            }
            FormKind::Symbol(sym) => {
                if let Some(op) = spec_op(sym) {
                    if env.get(sym).is_none() {
                        if let Some(t) = self.spec_op(op, f, args, env, loops)? {
                            return Ok(t);
                        }
                    }
                }
                // A session called by its interned function name.
                if !sym.contains('/')
                    && env.get(sym).is_none()
                    && !self.find_sessions(sym).is_empty()
                {
                    let vals = self.exprs(args, env)?;
                    return self.session_call(sym, vals, f.span);
                }
                Err(self.error(head.span, format!("unsupported form `{sym}` in spec position"),
                    Some("supported: -->> --> close skip cat alt par * + ? omega cat-every alt-every \
                          par-every if let do loop recur session, and (::session args)".into())))
            }
            _ => Err(self.error(
                head.span,
                format!("expected a specification, found `{f}`"),
                None,
            )),
        }
    }

    fn arity(&self, f: &Form, op: &str, args: &[Form], ok: &[usize]) -> R<()> {
        if ok.contains(&args.len()) {
            Ok(())
        } else {
            let want: Vec<String> = ok.iter().map(usize::to_string).collect();
            Err(self.error(
                f.span,
                format!(
                    "`{op}` takes {} argument(s), not {}",
                    want.join(" or "),
                    args.len()
                ),
                None,
            ))
        }
    }

    fn spec_op(
        &mut self,
        op: &str,
        f: &Form,
        args: &[Form],
        env: &Env,
        loops: &Loops,
    ) -> R<Option<Term>> {
        let t = match op {
            "-->>" | "-->" => {
                self.arity(f, op, args, &[2, 3])?;
                let (ty, from, to) = if args.len() == 2 {
                    ("Object".to_string(), &args[0], &args[1])
                } else {
                    (self.predicate(&args[0], env)?, &args[1], &args[2])
                };
                let (p, q) = (self.role(from, env)?, self.role(to, env)?);
                if op == "-->" {
                    spec::sync(&ty, p, q)
                } else {
                    spec::msg(&ty, p, q)
                }
            }
            "close" => {
                self.arity(f, op, args, &[2])?;
                spec::close(self.role(&args[0], env)?, self.role(&args[1], env)?)
            }
            "skip" | "end" => spec::end(),
            "cat" | "do" => self.spec_seq(args, env, loops)?,
            "alt" | "par" => {
                let mut v = Vec::new();
                for a in args {
                    v.push(self.spec(a, env, loops)?);
                }
                multiary(v, if op == "alt" { Term::Alt } else { Term::Par })
            }
            "async" => {
                self.arity(f, op, args, &[1])?;
                self.spec(&args[0], env, loops)?
            }
            "*" | "+" => {
                self.arity(f, op, args, &[1, 2])?;
                let body = self.spec(&args[0], env, loops)?;
                let mut v = if op == "+" {
                    vec![body.clone(), body.star()]
                } else {
                    vec![body.star()]
                };
                if let Some(c) = args.get(1) {
                    v.push(self.spec(c, env, loops)?);
                }
                multiary(v, Term::Seq)
            }
            "?" => {
                self.arity(f, op, args, &[1])?;
                self.spec(&args[0], env, loops)?.opt()
            }
            "omega" | "ω" => {
                self.arity(f, op, args, &[1])?;
                let key = format!("omega@{}|{}", f.span.start, env.snapshot());
                let (line, _) = super::line_col(self.text, f.span.start);
                let base = format!("omega@{line}");
                let (env, loops, body) = (env.clone(), loops.clone(), Rc::new(args.to_vec()));
                let origin = format!("the omega at line {line}");
                self.instance(&origin, key, base, f.span, |name| Pending::Body {
                    name,
                    env,
                    loops,
                    body,
                    omega: true,
                })?
            }
            "cat-every" | "alt-every" | "par-every" => {
                self.arity(f, op, args, &[2])?;
                let FormKind::Vector(bindings) = &args[0].kind else {
                    return Err(self.error(
                        args[0].span,
                        format!("`{op}` needs a binding vector"),
                        Some(format!("write ({op} [i (range k)] body)")),
                    ));
                };
                let mut envs = Vec::new();
                self.every_envs(bindings, env, &mut envs, args[0].span)?;
                let mut v = Vec::with_capacity(envs.len());
                for e in &envs {
                    v.push(self.spec(&args[1], e, loops)?);
                }
                match op {
                    "cat-every" => Term::Seq(v),
                    "par-every" => Term::Par(v),
                    _ => Term::Alt(v),
                }
            }
            "if" | "if-not" => {
                self.arity(f, op, args, &[2, 3])?;
                let test = self.expr(&args[0], env)?.truthy() != (op == "if-not");
                match (test, args.get(2)) {
                    (true, _) => self.spec(&args[1], env, loops)?,
                    (false, Some(e)) => self.spec(e, env, loops)?,
                    (false, None) => spec::end(),
                }
            }
            "when" => {
                if args.is_empty() {
                    return Err(self.error(f.span, "`when` needs a test".into(), None));
                }
                if self.expr(&args[0], env)?.truthy() {
                    self.spec_seq(&args[1..], env, loops)?
                } else {
                    spec::end()
                }
            }
            "let" => {
                let Some(Form {
                    kind: FormKind::Vector(b),
                    ..
                }) = args.first()
                else {
                    return Err(self.error(
                        f.span,
                        "`let` needs a binding vector".into(),
                        Some("write (s/let [x expr] body)".into()),
                    ));
                };
                let env = self.let_bindings(b, env, f.span)?;
                self.spec_seq(&args[1..], &env, loops)?
            }
            "loop" => {
                let (
                    Some(name),
                    Some(Form {
                        kind: FormKind::Vector(b),
                        ..
                    }),
                ) = (args.first(), args.get(1))
                else {
                    return Err(self.error(
                        f.span,
                        "`loop` needs a name and a binding vector".into(),
                        Some("write (s/loop name [x 0] body ... (s/recur name (inc x)))".into()),
                    ));
                };
                if !b.len().is_multiple_of(2) {
                    return Err(self.error(
                        args[1].span,
                        "a binding vector needs pairs".into(),
                        None,
                    ));
                }
                let mut vars = Vec::new();
                let mut vals = Vec::new();
                let mut inner = env.clone();
                for pair in b.chunks(2) {
                    let FormKind::Symbol(v) = &pair[0].kind else {
                        return Err(self.error(
                            pair[0].span,
                            "a loop variable must be a symbol".into(),
                            None,
                        ));
                    };
                    let val = self.expr(&pair[1], &inner)?;
                    inner = inner.bind(v, val.clone());
                    vars.push(v.clone());
                    vals.push(val);
                }
                let scope = LoopScope {
                    name: loop_name(name),
                    id: f.span.start,
                    vars,
                    outer: env.clone(),
                    body: Rc::new(args[2..].to_vec()),
                    outer_loops: loops.clone(),
                };
                self.loop_instance(&scope, vals, f.span)?
            }
            "recur" => {
                let Some(name) = args.first() else {
                    return Err(self.error(f.span, "`recur` needs the loop's name".into(), None));
                };
                let wanted = loop_name(name);
                let mut l = loops.clone();
                let scope = loop {
                    match l.0 {
                        Some(node) if node.0.name == wanted => break node.0.clone(),
                        Some(node) => l = node.1.clone(),
                        None => {
                            return Err(self.error(
                                name.span,
                                format!("`recur` to `{wanted}` outside a loop of that name"),
                                Some("recur names an enclosing (s/loop name [...] ...)".into()),
                            ))
                        }
                    }
                };
                if args.len() - 1 > scope.vars.len() {
                    return Err(self.error(
                        f.span,
                        format!(
                            "loop `{wanted}` has {} variable(s), recur gives {}",
                            scope.vars.len(),
                            args.len() - 1
                        ),
                        None,
                    ));
                }
                let mut vals = self.exprs(&args[1..], env)?;
                if vals.len() < scope.vars.len() {
                    // Prut4j's chess recurs without the loop's variable;
                    // Discourje then keeps the variable as it is.
                    self.warn(format!("recur {}", f.span.start), f.span, format!(
                        "`recur` gives {} of the {} values of loop `{wanted}`; the others keep their current values",
                        vals.len(), scope.vars.len()));
                    for v in &scope.vars[vals.len()..] {
                        vals.push(env.get(v).cloned().unwrap_or(Value::Nil));
                    }
                }
                self.loop_instance(&scope, vals, f.span)?
            }
            "session" => {
                self.arity(f, op, args, &[1, 2])?;
                let key = match self.expr(&args[0], env)? {
                    Value::Keyword(k) => k.to_string(),
                    other => {
                        return Err(self.error(
                            args[0].span,
                            format!("a session name must be a keyword, not {}", other.kind()),
                            None,
                        ))
                    }
                };
                let vals = match args.get(1) {
                    None => Vec::new(),
                    Some(a) => self.expr(a, env)?.items().ok_or_else(|| {
                        self.error(a.span, "session arguments must be a vector".into(), None)
                    })?,
                };
                self.session_call(&key, vals, f.span)?
            }
            _ => return Ok(None),
        };
        Ok(Some(t))
    }

    fn loop_instance(&mut self, scope: &LoopScope, vals: Vec<Value>, span: Span) -> R<Term> {
        let shown: Vec<String> = vals.iter().map(Value::to_string).collect();
        let key = format!(
            "loop@{}|{}|{}",
            scope.id,
            scope.outer.snapshot(),
            shown.join(" ")
        );
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

    /// The environments of a `*-every` binding vector: nested like `for`.
    fn every_envs(
        &mut self,
        bindings: &[Form],
        env: &Env,
        out: &mut Vec<Env>,
        span: Span,
    ) -> R<()> {
        if bindings.is_empty() {
            out.push(env.clone());
            return Ok(());
        }
        if !bindings.len().is_multiple_of(2) {
            return Err(self.error(
                span,
                "a binding vector needs pairs".into(),
                Some("write [i (range k)]".into()),
            ));
        }
        let FormKind::Symbol(var) = &bindings[0].kind else {
            return Err(self.error(
                bindings[0].span,
                "a binding name must be a symbol".into(),
                None,
            ));
        };
        let coll = self.expr(&bindings[1], env)?;
        let items = coll.items().ok_or_else(|| {
            self.error(
                bindings[1].span,
                format!("cannot iterate over {} `{coll}`", coll.kind()),
                Some("iterate over a range, set, list or vector".into()),
            )
        })?;
        for x in items {
            if out.len() > MAX_COLLECTION {
                return Err(self.error(span, format!("more than {MAX_COLLECTION} branches"), None));
            }
            self.every_envs(&bindings[2..], &env.bind(var, x), out, span)?;
        }
        Ok(())
    }

    fn predicate(&mut self, f: &Form, env: &Env) -> R<String> {
        match &f.kind {
            FormKind::Symbol(s) => match env.get(s) {
                Some(Value::Symbol(c)) | Some(Value::Str(c)) => Ok(type_name(c)),
                Some(other) => Err(self.error(f.span, format!("a message type must be a class name, but `{s}` is {}", other.kind()), None)),
                None => Ok(type_name(s)),
            },
            FormKind::Str(s) => Ok(type_name(s)),
            FormKind::List(items) if matches!(items.first(), Some(Form { kind: FormKind::Symbol(q), .. }) if q == "quote") => {
                match items.get(1).map(|x| &x.kind) {
                    Some(FormKind::Symbol(s)) => Ok(type_name(s)),
                    _ => Err(self.error(f.span, "a quoted message type must be a symbol".into(), None)),
                }
            }
            _ => Err(self.error(f.span, format!("unsupported message predicate `{f}`"),
                Some("only class names are supported as message types (e.g. discourje.examples.chess.Move or Boolean); \
                      predicate functions cannot be checked by prust".into()))),
        }
    }

    fn role_of_keyword(&mut self, full: &str, indices: &[Value], span: Span) -> String {
        let base = match self.roles.get(full) {
            Some(n) => n.clone(),
            None => {
                let local = local_name(full).to_string();
                let other = self
                    .roles
                    .iter()
                    .find(|(k, _)| local_name(k) == local)
                    .map(|(_, v)| v.clone());
                match other {
                    Some(n) => n,
                    None => {
                        let shown = self.shown(full);
                        self.warn(format!("role {full}"), span,
                            format!("role `{shown}` is not declared with s/defrole; using its bare name `{local}`"));
                        local
                    }
                }
            }
        };
        role_name(&base, indices)
    }

    fn role(&mut self, f: &Form, env: &Env) -> R<String> {
        match &f.kind {
            FormKind::Keyword { auto, name } => {
                let k = self.keyword(*auto, name);
                Ok(self.role_of_keyword(&k, &[], f.span))
            }
            FormKind::Str(s) => Ok(s.clone()),
            FormKind::Symbol(s) => match env.get(s).cloned() {
                Some(v) => self.role_value(v, f),
                None => Ok(s.clone()),
            },
            FormKind::List(items) if !items.is_empty() => {
                let base = match &items[0].kind {
                    FormKind::Str(name) => {
                        // ("worker" i): a role named by a string needs no
                        // declaration.
                        let idx = self.exprs(&items[1..], env)?;
                        return Ok(role_name(name, &idx));
                    }
                    FormKind::Keyword { auto, name } => self.keyword(*auto, name),
                    FormKind::Symbol(s) if env.get(s).is_some() => match env.get(s) {
                        Some(Value::Keyword(k)) => k.to_string(),
                        Some(Value::Str(k)) => k.to_string(),
                        _ => {
                            return Err(self.error(
                                items[0].span,
                                format!("`{s}` is not a role name"),
                                None,
                            ))
                        }
                    },
                    FormKind::Symbol(s) if self.roles.keys().any(|k| local_name(k) == s) => self
                        .roles
                        .keys()
                        .find(|k| local_name(k) == s)
                        .cloned()
                        .unwrap_or_default(),
                    _ => {
                        let v = self.expr(f, env)?;
                        return self.role_value(v, f);
                    }
                };
                let idx = self.exprs(&items[1..], env)?;
                Ok(self.role_of_keyword(&base, &idx, f.span))
            }
            _ => Err(self.error(
                f.span,
                format!("expected a role, found `{f}`"),
                Some("a role is ::name or (::name index ...)".into()),
            )),
        }
    }

    fn role_value(&mut self, v: Value, f: &Form) -> R<String> {
        match v {
            Value::Keyword(k) => Ok(self.role_of_keyword(&k, &[], f.span)),
            Value::Role(k, idx) => Ok(self.role_of_keyword(&k, &idx, f.span)),
            Value::Str(s) | Value::Symbol(s) => Ok(s.to_string()),
            other => Err(self.error(
                f.span,
                format!("expected a role, found {} `{other}`", other.kind()),
                None,
            )),
        }
    }

    // ---------------------------------------------------------------
    // Expression position
    // ---------------------------------------------------------------

    fn exprs(&mut self, forms: &[Form], env: &Env) -> R<Vec<Value>> {
        forms.iter().map(|f| self.expr(f, env)).collect()
    }

    fn let_bindings(&mut self, b: &[Form], env: &Env, span: Span) -> R<Env> {
        if !b.len().is_multiple_of(2) {
            return Err(self.error(
                span,
                "a binding vector needs pairs".into(),
                Some("write [x expr y expr]".into()),
            ));
        }
        let mut env = env.clone();
        for pair in b.chunks(2) {
            let FormKind::Symbol(v) = &pair[0].kind else {
                return Err(self.error(
                    pair[0].span,
                    "destructuring bindings are not supported".into(),
                    Some("bind a symbol".into()),
                ));
            };
            let val = self.expr(&pair[1], &env)?;
            env = env.bind(v, val);
        }
        Ok(env)
    }

    fn expr(&mut self, f: &Form, env: &Env) -> R<Value> {
        self.tick(f.span)?;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            return Err(self.error(
                f.span,
                format!("evaluation nested more than {MAX_DEPTH} deep"),
                Some("does a function recurse without end?".into()),
            ));
        }
        let r = self.expr_inner(f, env);
        self.depth -= 1;
        r
    }

    fn expr_inner(&mut self, f: &Form, env: &Env) -> R<Value> {
        Ok(match &f.kind {
            FormKind::Nil => Value::Nil,
            FormKind::Bool(b) => Value::Bool(*b),
            FormKind::Int(n) => Value::Int(*n),
            FormKind::Float(x) => Value::Float(*x),
            FormKind::Str(s) | FormKind::Regex(s) => Value::Str(Rc::from(s.as_str())),
            FormKind::Char(c) => Value::Str(Rc::from(c.to_string())),
            FormKind::Keyword { auto, name } => Value::Keyword(Rc::from(self.keyword(*auto, name))),
            FormKind::Symbol(s) => self.symbol(s, env, f.span)?,
            FormKind::Vector(v) => Value::list(self.exprs(v, env)?),
            FormKind::Set(v) => Value::set(self.exprs(v, env)?),
            FormKind::Map(v) => {
                let vals = self.exprs(v, env)?;
                Value::Map(Rc::new(
                    vals.chunks(2)
                        .map(|p| (p[0].clone(), p[1].clone()))
                        .collect(),
                ))
            }
            FormKind::List(items) if items.is_empty() => Value::list(Vec::new()),
            FormKind::List(items) => return self.call_form(f, items, env),
        })
    }

    fn symbol(&mut self, s: &str, env: &Env, span: Span) -> R<Value> {
        if let Some(v) = env.get(s) {
            return Ok(v.clone());
        }
        let core = core_name(s);
        if core == "empty-set" {
            return Ok(Value::set(Vec::new()));
        }
        if let Some(v) = self.fns.get(s) {
            return Ok(v.clone());
        }
        if let Some(v) = self.def_values.get(s) {
            return Ok(v.clone());
        }
        if let Some(form) = self.defs.remove(s) {
            let v = self.expr(&form, &Env::default())?;
            self.def_values.insert(s.to_string(), v.clone());
            return Ok(v);
        }
        if BUILTINS.contains(&core) {
            return Ok(Value::Symbol(Rc::from(core)));
        }
        let last = s.rsplit(['.', '/']).next().unwrap_or(s);
        if s.contains('.') || last.starts_with(|c: char| c.is_uppercase()) {
            // A class name (Boolean, discourje.examples.chess.Move).
            return Ok(Value::Symbol(Rc::from(s)));
        }
        let mut known = env.names();
        known.extend(self.fns.keys().cloned());
        let close = engine::names::closest(s, known.iter().map(String::as_str));
        Err(self.error(span, format!("unknown symbol `{s}`{}", close.map_or(String::new(), |c| format!("; did you mean `{c}`?"))),
            Some("bind it with a session parameter, let, or defn; see the README for the supported functions".into())))
    }

    fn call_form(&mut self, f: &Form, items: &[Form], env: &Env) -> R<Value> {
        let head = &items[0];
        let args = &items[1..];
        if let FormKind::Symbol(sym) = &head.kind {
            if env.get(sym).is_none() {
                if let Some(v) = self.special(sym, f, args, env)? {
                    return Ok(v);
                }
            }
        }
        if let FormKind::Keyword { auto, name } = &head.kind {
            // `(::worker i)` in expression position: a role value.
            let k = self.keyword(*auto, name);
            if self.roles.contains_key(&k) || self.find_sessions(&k).is_empty() {
                let idx = self.exprs(args, env)?;
                return Ok(Value::Role(Rc::from(k), Rc::new(idx)));
            }
        }
        let callee = self.expr(head, env)?;
        let vals = self.exprs(args, env)?;
        self.apply(callee, vals, f.span)
    }

    fn special(&mut self, sym: &str, f: &Form, args: &[Form], env: &Env) -> R<Option<Value>> {
        let name = core_name(sym);
        let v = match name {
            "quote" => match args.first() {
                Some(x) => quoted(x),
                None => Value::Nil,
            },
            "if" | "if-not" => {
                if !(2..=3).contains(&args.len()) {
                    return Err(self.error(f.span, "`if` takes a test, a then and an optional else".into(), None));
                }
                let t = self.expr(&args[0], env)?.truthy() != (name == "if-not");
                match (t, args.get(2)) {
                    (true, _) => self.expr(&args[1], env)?,
                    (false, Some(e)) => self.expr(e, env)?,
                    (false, None) => Value::Nil,
                }
            }
            "when" | "when-not" => {
                let Some(test) = args.first() else { return Err(self.error(f.span, "`when` needs a test".into(), None)) };
                if self.expr(test, env)?.truthy() != (name == "when-not") { self.body(&args[1..], env)? } else { Value::Nil }
            }
            "cond" => {
                for pair in args.chunks(2) {
                    let test = match &pair[0].kind {
                        FormKind::Keyword { .. } => true,
                        _ => self.expr(&pair[0], env)?.truthy(),
                    };
                    if test {
                        return Ok(Some(match pair.get(1) { Some(x) => self.expr(x, env)?, None => Value::Nil }));
                    }
                }
                Value::Nil
            }
            "and" => {
                let mut last = Value::Bool(true);
                for a in args {
                    last = self.expr(a, env)?;
                    if !last.truthy() {
                        break;
                    }
                }
                last
            }
            "or" => {
                let mut last = Value::Nil;
                for a in args {
                    last = self.expr(a, env)?;
                    if last.truthy() {
                        break;
                    }
                }
                last
            }
            "do" => self.body(args, env)?,
            "let" | "let*" => {
                let Some(Form { kind: FormKind::Vector(b), .. }) = args.first() else {
                    return Err(self.error(f.span, "`let` needs a binding vector".into(), None));
                };
                let env = self.let_bindings(b, env, f.span)?;
                self.body(&args[1..], &env)?
            }
            "fn" | "fn*" => {
                let (fname, parts) = match args.first() {
                    Some(Form { kind: FormKind::Symbol(n), .. }) => (n.as_str(), &args[1..]),
                    _ => ("fn", args),
                };
                self.closure(fname, parts, env, f.span)?
            }
            "fn-literal" => {
                let n = max_percent(args);
                let params: Vec<String> = (1..=n).map(|i| format!("%{i}")).collect();
                let body = Form { kind: FormKind::List(args.to_vec()), span: f.span };
                Value::Fn(Rc::new(Closure { name: "#()".into(), arities: vec![(params, None, vec![body])], env: env.clone() }))
            }
            "try" => {
                let (body, catches): (Vec<&Form>, Vec<&Form>) = args.iter().partition(|a| !is_catch(a));
                let body: Vec<Form> = body.into_iter().cloned().collect();
                match self.body(&body, env) {
                    Err(Fail::Thrown(e)) => {
                        let Some(c) = catches.iter().find(|c| !is_finally(c)) else { return Err(Fail::Thrown(e)) };
                        let FormKind::List(parts) = &c.kind else { unreachable!("is_catch checked") };
                        let env = match parts.get(2) {
                            Some(Form { kind: FormKind::Symbol(v), .. }) => env.bind(v, Value::Str(Rc::from(e.message.as_str()))),
                            _ => env.clone(),
                        };
                        self.body(parts.get(3..).unwrap_or(&[]), &env)?
                    }
                    other => other?,
                }
            }
            "throw" => return Err(self.thrown(f.span, "the file throws an exception here".into())),
            "defn" | "def" | "loop" | "recur" | "for" | "doseq" | "dotimes" | "while" => {
                return Err(self.error(f.span, format!("`{sym}` is not supported in expressions"),
                    Some("use the collection functions (range, map, filter, remove, reduce) or a recursive defn".into())))
            }
            _ => return Ok(None),
        };
        Ok(Some(v))
    }

    fn body(&mut self, forms: &[Form], env: &Env) -> R<Value> {
        let mut last = Value::Nil;
        for f in forms {
            last = self.expr(f, env)?;
        }
        Ok(last)
    }

    fn apply(&mut self, callee: Value, args: Vec<Value>, span: Span) -> R<Value> {
        match callee {
            Value::Fn(c) => {
                let Some((params, rest, body)) = c.arities.iter().find(|(p, r, _)| {
                    p.len() == args.len() || (r.is_some() && args.len() >= p.len())
                }) else {
                    return Err(self.error(
                        span,
                        format!("`{}` does not take {} argument(s)", c.name, args.len()),
                        None,
                    ));
                };
                let mut env = c.env.clone();
                if c.name == "#()" {
                    if let Some(first) = args.first() {
                        env = env.bind("%", first.clone());
                    }
                }
                let mut it = args.into_iter();
                for p in params {
                    env = env.bind(p, it.next().expect("arity checked"));
                }
                if let Some(r) = rest {
                    env = env.bind(r, Value::list(it.collect()));
                }
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    self.depth -= 1;
                    return Err(self.error(
                        span,
                        format!("calls of `{}` nested more than {MAX_DEPTH} deep", c.name),
                        Some("does the function recurse without end?".into()),
                    ));
                }
                let r = self.body(body, &env);
                self.depth -= 1;
                r
            }
            Value::Set(items) => {
                let [x] = args.as_slice() else {
                    return Err(self.error(
                        span,
                        "a set called as a function takes one argument".into(),
                        None,
                    ));
                };
                Ok(items
                    .iter()
                    .find(|y| *y == x)
                    .cloned()
                    .unwrap_or(Value::Nil))
            }
            Value::Map(m) => Ok(m
                .iter()
                .find(|(k, _)| Some(k) == args.first())
                .map_or(Value::Nil, |(_, v)| v.clone())),
            Value::Keyword(k) if self.find_sessions(&k).is_empty() => {
                Ok(Value::Role(k, Rc::new(args)))
            }
            Value::Symbol(s) if BUILTINS.contains(&&*s) => self.builtin(&s, args, span),
            other => Err(self.error(
                span,
                format!("cannot call {} `{other}`", other.kind()),
                Some("see the README for the supported functions".into()),
            )),
        }
    }

    fn num(&self, v: &Value, span: Span) -> R<Num> {
        match v {
            Value::Int(n) => Ok(Num::Exact(i128::from(*n), 1)),
            Value::Ratio(n, d) => Ok(Num::Exact(i128::from(*n), i128::from(*d))),
            Value::Float(x) => Ok(Num::Float(*x)),
            other => Err(self.thrown(
                span,
                format!("expected a number, found {} `{other}`", other.kind()),
            )),
        }
    }

    fn int(&self, v: &Value, span: Span) -> R<i64> {
        match v {
            Value::Int(n) => Ok(*n),
            other => Err(self.thrown(
                span,
                format!("expected a long, found {} `{other}`", other.kind()),
            )),
        }
    }

    fn coll(&self, v: &Value, span: Span) -> R<Vec<Value>> {
        v.items().ok_or_else(|| {
            self.thrown(
                span,
                format!("expected a collection, found {} `{v}`", v.kind()),
            )
        })
    }

    fn value_of_num(&self, n: Num, span: Span) -> R<Value> {
        match n {
            Num::Float(x) => Ok(Value::Float(x)),
            Num::Exact(n, d) => {
                let g = gcd(n.abs(), d.abs()).max(1);
                let (mut n, mut d) = (n / g, d / g);
                if d < 0 {
                    n = -n;
                    d = -d;
                }
                match (i64::try_from(n), i64::try_from(d)) {
                    (Ok(n), Ok(1)) => Ok(Value::Int(n)),
                    (Ok(n), Ok(d)) => Ok(Value::Ratio(n, d)),
                    _ => Err(self.thrown(span, "integer overflow".into())),
                }
            }
        }
    }

    fn arith(&self, op: &str, args: &[Value], span: Span) -> R<Value> {
        let mut nums = Vec::with_capacity(args.len());
        for a in args {
            nums.push(self.num(a, span)?);
        }
        let (unit, first) = match op {
            "+" | "-" => (Num::Exact(0, 1), 0),
            _ => (Num::Exact(1, 1), 0),
        };
        let _ = first;
        let mut it = nums.into_iter();
        let mut acc = match (op, args.len()) {
            ("-" | "/", 0) => return Err(self.thrown(span, format!("`{op}` needs an argument"))),
            ("-" | "/", 1) => unit,
            _ => it.next().unwrap_or(unit),
        };
        for x in it {
            acc = match (acc, x) {
                (Num::Exact(a, b), Num::Exact(c, d)) => {
                    let r = match op {
                        "+" => a
                            .checked_mul(d)
                            .zip(c.checked_mul(b))
                            .and_then(|(x, y)| x.checked_add(y))
                            .zip(b.checked_mul(d)),
                        "-" => a
                            .checked_mul(d)
                            .zip(c.checked_mul(b))
                            .and_then(|(x, y)| x.checked_sub(y))
                            .zip(b.checked_mul(d)),
                        "*" => a.checked_mul(c).zip(b.checked_mul(d)),
                        _ => {
                            if c == 0 {
                                return Err(self.thrown(span, "divide by zero".into()));
                            }
                            a.checked_mul(d).zip(b.checked_mul(c))
                        }
                    };
                    let (n, dd) = r.ok_or_else(|| self.thrown(span, "integer overflow".into()))?;
                    let g = gcd(n.abs(), dd.abs()).max(1);
                    let v = Num::Exact(n / g, dd / g);
                    // Clojure's long arithmetic overflows past 64 bits.
                    if let Num::Exact(n, d) = v {
                        if i64::try_from(n).is_err() || i64::try_from(d).is_err() {
                            return Err(self.thrown(span, "integer overflow".into()));
                        }
                    }
                    v
                }
                (a, b) => {
                    let (x, y) = (a.float(), b.float());
                    Num::Float(match op {
                        "+" => x + y,
                        "-" => x - y,
                        "*" => x * y,
                        _ => x / y,
                    })
                }
            };
        }
        self.value_of_num(acc, span)
    }

    fn compare(&self, a: &Value, b: &Value, span: Span) -> R<std::cmp::Ordering> {
        let (x, y) = (self.num(a, span)?, self.num(b, span)?);
        Ok(match (x, y) {
            (Num::Exact(a, b), Num::Exact(c, d)) => {
                (a * d * b.signum() * d.signum()).cmp(&(c * b * b.signum() * d.signum()))
            }
            (x, y) => x
                .float()
                .partial_cmp(&y.float())
                .unwrap_or(std::cmp::Ordering::Equal),
        })
    }

    fn bounded(&self, n: i128, span: Span) -> R<()> {
        if n > MAX_COLLECTION as i128 {
            Err(self.error(
                span,
                format!("a collection of {n} elements (more than {MAX_COLLECTION})"),
                Some("use a smaller argument".into()),
            ))
        } else {
            Ok(())
        }
    }

    fn builtin(&mut self, name: &str, args: Vec<Value>, span: Span) -> R<Value> {
        let n = args.len();
        let need = |ok: bool| -> R<()> {
            if ok {
                Ok(())
            } else {
                Err(self.thrown(span, format!("wrong number of arguments ({n}) to `{name}`")))
            }
        };
        use std::cmp::Ordering::*;
        Ok(match name {
            "+" | "-" | "*" | "/" => self.arith(name, &args, span)?,
            "inc" | "dec" => {
                need(n == 1)?;
                self.arith(
                    if name == "inc" { "+" } else { "-" },
                    &[args[0].clone(), Value::Int(1)],
                    span,
                )?
            }
            "mod" | "rem" | "quot" => {
                need(n == 2)?;
                let (a, b) = (self.int(&args[0], span)?, self.int(&args[1], span)?);
                if b == 0 {
                    return Err(self.thrown(span, "divide by zero".into()));
                }
                Value::Int(match name {
                    "mod" => a
                        .checked_rem_euclid(b)
                        .map(|r| if r != 0 && b < 0 { r + b } else { r })
                        .unwrap_or(0),
                    "rem" => a.checked_rem(b).unwrap_or(0),
                    _ => a
                        .checked_div(b)
                        .ok_or_else(|| self.thrown(span, "integer overflow".into()))?,
                })
            }
            "max" | "min" => {
                need(n >= 1)?;
                let mut best = args[0].clone();
                for x in &args[1..] {
                    let o = self.compare(x, &best, span)?;
                    if (name == "max" && o == Greater) || (name == "min" && o == Less) {
                        best = x.clone();
                    }
                }
                best
            }
            "abs" | "Math/abs" => {
                need(n == 1)?;
                match &args[0] {
                    Value::Int(x) => Value::Int(
                        x.checked_abs()
                            .ok_or_else(|| self.thrown(span, "integer overflow".into()))?,
                    ),
                    Value::Float(x) => Value::Float(x.abs()),
                    other => {
                        return Err(self.thrown(span, format!("expected a number, found `{other}`")))
                    }
                }
            }
            "=" => Value::Bool(args.windows(2).all(|w| w[0] == w[1])),
            "not=" => Value::Bool(!args.windows(2).all(|w| w[0] == w[1])),
            "==" | "<" | ">" | "<=" | ">=" => {
                let mut ok = true;
                for w in args.windows(2) {
                    let o = self.compare(&w[0], &w[1], span)?;
                    ok &= match name {
                        "==" => o == Equal,
                        "<" => o == Less,
                        ">" => o == Greater,
                        "<=" => o != Greater,
                        _ => o != Less,
                    };
                }
                Value::Bool(ok)
            }
            "not" => {
                need(n == 1)?;
                Value::Bool(!args[0].truthy())
            }
            "nil?" => {
                need(n == 1)?;
                Value::Bool(matches!(args[0], Value::Nil))
            }
            "some?" => {
                need(n == 1)?;
                Value::Bool(!matches!(args[0], Value::Nil))
            }
            "zero?" | "pos?" | "neg?" => {
                need(n == 1)?;
                let o = self.compare(&args[0], &Value::Int(0), span)?;
                Value::Bool(match name {
                    "zero?" => o == Equal,
                    "pos?" => o == Greater,
                    _ => o == Less,
                })
            }
            "even?" | "odd?" => {
                need(n == 1)?;
                Value::Bool((self.int(&args[0], span)? % 2 == 0) == (name == "even?"))
            }
            "identity" => {
                need(n == 1)?;
                args[0].clone()
            }
            "range" => {
                need((1..=3).contains(&n))?;
                let ints: Vec<i64> = args.iter().map(|a| self.int(a, span)).collect::<R<_>>()?;
                let (start, end, step) = match ints.as_slice() {
                    [e] => (0, *e, 1),
                    [s, e] => (*s, *e, 1),
                    [s, e, st] => (*s, *e, *st),
                    _ => unreachable!("checked"),
                };
                if step == 0 {
                    return Err(self.error(span, "(range a b 0) is infinite".into(), None));
                }
                let len = if (step > 0 && end > start) || (step < 0 && end < start) {
                    (i128::from(end) - i128::from(start) + i128::from(step)
                        - i128::from(step.signum()))
                        / i128::from(step)
                } else {
                    0
                };
                self.bounded(len, span)?;
                Value::list(
                    (0..len as i64)
                        .map(|i| Value::Int(start + i * step))
                        .collect(),
                )
            }
            "set" | "into-set" => {
                need(n == 1)?;
                Value::set(self.coll(&args[0], span)?)
            }
            "hash-set" => Value::set(args),
            "list" | "vector" => Value::list(args),
            "vec" => {
                need(n == 1)?;
                Value::list(self.coll(&args[0], span)?)
            }
            "seq" => {
                need(n == 1)?;
                let v = self.coll(&args[0], span)?;
                if v.is_empty() {
                    Value::Nil
                } else {
                    Value::list(v)
                }
            }
            "count" => {
                need(n == 1)?;
                Value::Int(self.coll(&args[0], span)?.len() as i64)
            }
            "empty?" => {
                need(n == 1)?;
                Value::Bool(self.coll(&args[0], span)?.is_empty())
            }
            "first" | "second" | "last" => {
                need(n == 1)?;
                let v = self.coll(&args[0], span)?;
                let x = match name {
                    "first" => v.first(),
                    "second" => v.get(1),
                    _ => v.last(),
                };
                x.cloned().unwrap_or(Value::Nil)
            }
            "rest" | "next" => {
                need(n == 1)?;
                let v = self.coll(&args[0], span)?;
                let r: Vec<Value> = v.into_iter().skip(1).collect();
                if r.is_empty() && name == "next" {
                    Value::Nil
                } else {
                    Value::list(r)
                }
            }
            "nth" => {
                need(n == 2 || n == 3)?;
                let v = self.coll(&args[0], span)?;
                let i = self.int(&args[1], span)?;
                match usize::try_from(i).ok().and_then(|i| v.get(i)) {
                    Some(x) => x.clone(),
                    None if n == 3 => args[2].clone(),
                    None => return Err(self.thrown(span, format!("index {i} out of bounds"))),
                }
            }
            "cons" => {
                need(n == 2)?;
                let mut v = vec![args[0].clone()];
                v.extend(self.coll(&args[1], span)?);
                Value::list(v)
            }
            "conj" | "disj" => {
                need(n >= 1)?;
                let is_set = matches!(args[0], Value::Set(_)) || name == "disj";
                let mut v = self.coll(&args[0], span)?;
                if name == "conj" {
                    v.extend(args[1..].iter().cloned());
                } else {
                    v.retain(|x| !args[1..].contains(x));
                }
                if is_set {
                    Value::set(v)
                } else {
                    Value::list(v)
                }
            }
            "contains?" => {
                need(n == 2)?;
                match &args[0] {
                    Value::Map(m) => Value::Bool(m.iter().any(|(k, _)| *k == args[1])),
                    Value::List(v) => Value::Bool(
                        matches!(args[1], Value::Int(i) if i >= 0 && (i as usize) < v.len()),
                    ),
                    other => Value::Bool(self.coll(other, span)?.contains(&args[1])),
                }
            }
            "remove" | "filter" | "map" | "every?" | "some" => {
                need(n == 2)?;
                let f = args[0].clone();
                let v = self.coll(&args[1], span)?;
                let mut out = Vec::new();
                for x in v {
                    let r = self.apply(f.clone(), vec![x.clone()], span)?;
                    match name {
                        "map" => out.push(r),
                        "filter" if r.truthy() => out.push(x),
                        "remove" if !r.truthy() => out.push(x),
                        "every?" if !r.truthy() => return Ok(Value::Bool(false)),
                        "some" if r.truthy() => return Ok(r),
                        _ => {}
                    }
                }
                match name {
                    "every?" => Value::Bool(true),
                    "some" => Value::Nil,
                    _ => Value::list(out),
                }
            }
            "reduce" => {
                need(n == 2 || n == 3)?;
                let f = args[0].clone();
                let mut v = self.coll(&args[n - 1], span)?.into_iter();
                let mut acc = if n == 3 {
                    args[1].clone()
                } else {
                    match v.next() {
                        Some(x) => x,
                        None => return self.apply(f, vec![], span),
                    }
                };
                for x in v {
                    acc = self.apply(f.clone(), vec![acc, x], span)?;
                }
                acc
            }
            "into" => {
                need(n == 2)?;
                let mut v = self.coll(&args[0], span)?;
                v.extend(self.coll(&args[1], span)?);
                if matches!(args[0], Value::Set(_)) {
                    Value::set(v)
                } else {
                    Value::list(v)
                }
            }
            "concat" => {
                let mut v = Vec::new();
                for a in &args {
                    v.extend(self.coll(a, span)?);
                }
                Value::list(v)
            }
            "reverse" => {
                need(n == 1)?;
                let mut v = self.coll(&args[0], span)?;
                v.reverse();
                Value::list(v)
            }
            "sort" => {
                need(n == 1)?;
                let mut v = self.coll(&args[0], span)?;
                let mut bad = None;
                v.sort_by(|a, b| {
                    self.compare(a, b, span).unwrap_or_else(|_| {
                        bad = Some(());
                        Equal
                    })
                });
                if bad.is_some() {
                    return Err(self.thrown(span, "sort compares numbers only".into()));
                }
                Value::list(v)
            }
            "distinct" => {
                need(n == 1)?;
                let mut out: Vec<Value> = Vec::new();
                for x in self.coll(&args[0], span)? {
                    if !out.contains(&x) {
                        out.push(x);
                    }
                }
                Value::list(out)
            }
            "union" | "difference" | "intersection" => {
                need(n >= 1)?;
                let mut v = self.coll(&args[0], span)?;
                for a in &args[1..] {
                    let other = self.coll(a, span)?;
                    match name {
                        "union" => v.extend(other),
                        "difference" => v.retain(|x| !other.contains(x)),
                        _ => v.retain(|x| other.contains(x)),
                    }
                }
                Value::set(v)
            }
            "power-set" => {
                need(n == 1)?;
                let v = match &args[0] {
                    Value::Set(_) => self.coll(&args[0], span)?,
                    other => match Value::set(self.coll(other, span)?) {
                        Value::Set(s) => s.as_ref().clone(),
                        _ => unreachable!("set"),
                    },
                };
                if v.len() > 20 {
                    return Err(self.error(
                        span,
                        format!("the power set of {} elements is too large", v.len()),
                        None,
                    ));
                }
                let subsets = (0..1u32 << v.len())
                    .map(|bits| {
                        Value::set(
                            v.iter()
                                .enumerate()
                                .filter(|(i, _)| bits & (1 << i) != 0)
                                .map(|(_, x)| x.clone())
                                .collect(),
                        )
                    })
                    .collect();
                Value::set(subsets)
            }
            "get" => {
                need(n == 2 || n == 3)?;
                let dflt = args.get(2).cloned().unwrap_or(Value::Nil);
                match &args[0] {
                    Value::Map(m) => m
                        .iter()
                        .find(|(k, _)| *k == args[1])
                        .map_or(dflt, |(_, v)| v.clone()),
                    Value::Set(s) => s.iter().find(|x| **x == args[1]).cloned().unwrap_or(dflt),
                    Value::List(v) => match &args[1] {
                        Value::Int(i) if *i >= 0 => v.get(*i as usize).cloned().unwrap_or(dflt),
                        _ => dflt,
                    },
                    _ => dflt,
                }
            }
            "str" => {
                let mut s = String::new();
                for a in &args {
                    match a {
                        Value::Nil => {}
                        Value::Str(x) => s.push_str(x),
                        other => s.push_str(&other.to_string()),
                    }
                }
                Value::Str(Rc::from(s))
            }
            "subs" => {
                need(n == 2 || n == 3)?;
                let Value::Str(s) = &args[0] else {
                    return Err(self.thrown(span, "subs takes a string".into()));
                };
                let chars: Vec<char> = s.chars().collect();
                let a = self.int(&args[1], span)?;
                let b = if n == 3 {
                    self.int(&args[2], span)?
                } else {
                    chars.len() as i64
                };
                if a < 0 || b < a || b as usize > chars.len() {
                    return Err(self.thrown(span, "string index out of range".into()));
                }
                Value::Str(Rc::from(
                    chars[a as usize..b as usize].iter().collect::<String>(),
                ))
            }
            "name" => {
                need(n == 1)?;
                match &args[0] {
                    Value::Keyword(k) | Value::Symbol(k) => Value::Str(Rc::from(local_name(k))),
                    Value::Str(s) => Value::Str(s.clone()),
                    other => return Err(self.thrown(span, format!("name of {}", other.kind()))),
                }
            }
            "keyword" => {
                need(n == 1)?;
                match &args[0] {
                    Value::Str(s) | Value::Symbol(s) => Value::Keyword(s.clone()),
                    Value::Keyword(k) => Value::Keyword(k.clone()),
                    _ => Value::Nil,
                }
            }
            "long" | "int" | "Math/round" => {
                need(n == 1)?;
                match self.num(&args[0], span)? {
                    Num::Exact(a, b) => Value::Int((a / b) as i64),
                    Num::Float(x) if x.is_finite() && x.abs() < 9.2e18 => {
                        Value::Int(if name == "Math/round" {
                            x.round()
                        } else {
                            x.trunc()
                        } as i64)
                    }
                    Num::Float(x) => {
                        return Err(self.thrown(span, format!("{x} does not fit a long")))
                    }
                }
            }
            "double" => {
                need(n == 1)?;
                Value::Float(self.num(&args[0], span)?.float())
            }
            "Math/ceil" | "Math/floor" | "Math/sqrt" => {
                need(n == 1)?;
                let x = self.num(&args[0], span)?.float();
                Value::Float(match name {
                    "Math/ceil" => x.ceil(),
                    "Math/floor" => x.floor(),
                    _ => x.sqrt(),
                })
            }
            "Math/pow" => {
                need(n == 2)?;
                Value::Float(
                    self.num(&args[0], span)?
                        .float()
                        .powf(self.num(&args[1], span)?.float()),
                )
            }
            "Long/parseLong" | "Integer/parseInt" => {
                need(n == 1 || n == 2)?;
                let Value::Str(s) = &args[0] else {
                    return Err(self.thrown(span, format!("`{name}` takes a string")));
                };
                let radix = if n == 2 {
                    self.int(&args[1], span)?
                } else {
                    10
                };
                if !(2..=36).contains(&radix) {
                    return Err(self.thrown(span, format!("radix {radix} out of range")));
                }
                let parsed = i64::from_str_radix(s, radix as u32)
                    .ok()
                    .filter(|v| name == "Long/parseLong" || i32::try_from(*v).is_ok());
                match parsed {
                    Some(v) => Value::Int(v),
                    None => {
                        return Err(self.thrown(
                            span,
                            format!("NumberFormatException: For input string: \"{s}\""),
                        ))
                    }
                }
            }
            "Long/toBinaryString" | "Integer/toBinaryString" => {
                need(n == 1)?;
                let v = self.int(&args[0], span)?;
                Value::Str(Rc::from(if name == "Long/toBinaryString" {
                    format!("{:b}", v as u64)
                } else {
                    format!("{:b}", v as u32)
                }))
            }
            ".replaceFirst" => {
                need(n == 3)?;
                let (Value::Str(s), Value::Str(pat), Value::Str(rep)) =
                    (&args[0], &args[1], &args[2])
                else {
                    return Err(self.thrown(span, ".replaceFirst takes three strings".into()));
                };
                let Some(m) = simple_regex_find(pat, s) else {
                    return match simple_regex_supported(pat) {
                        true => Ok(Value::Str(s.clone())),
                        false => Err(self.error(
                            span,
                            format!("regular expression `{pat}` is not supported"),
                            Some("supported: literal characters, `.`, `^` and `$`".into()),
                        )),
                    };
                };
                Value::Str(Rc::from(format!("{}{rep}{}", &s[..m.0], &s[m.1..])))
            }
            "empty-set" => Value::set(Vec::new()),
            _ => return Err(self.error(span, format!("unsupported function `{name}`"), None)),
        })
    }
}

#[derive(Clone, Copy)]
enum Num {
    Exact(i128, i128),
    Float(f64),
}

impl Num {
    fn float(self) -> f64 {
        match self {
            Num::Exact(a, b) => a as f64 / b as f64,
            Num::Float(x) => x,
        }
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
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

/// Discourje's multiary operators: none is `skip`, one is itself.
fn multiary(mut v: Vec<Term>, make: fn(Vec<Term>) -> Term) -> Term {
    match v.len() {
        0 => Term::End,
        1 => v.pop().expect("one"),
        _ => make(v),
    }
}

fn symbol_in(f: &Form) -> Option<String> {
    match &f.kind {
        FormKind::Symbol(s) => Some(s.clone()),
        FormKind::List(items) => items.get(1).and_then(symbol_in),
        _ => None,
    }
}

fn loop_name(f: &Form) -> String {
    match &f.kind {
        FormKind::Keyword { name, .. } => name.clone(),
        _ => f.to_string(),
    }
}

fn quoted(f: &Form) -> Value {
    match &f.kind {
        FormKind::Nil => Value::Nil,
        FormKind::Bool(b) => Value::Bool(*b),
        FormKind::Int(n) => Value::Int(*n),
        FormKind::Float(x) => Value::Float(*x),
        FormKind::Str(s) | FormKind::Regex(s) => Value::Str(Rc::from(s.as_str())),
        FormKind::Char(c) => Value::Str(Rc::from(c.to_string())),
        FormKind::Symbol(s) => Value::Symbol(Rc::from(s.as_str())),
        FormKind::Keyword { name, .. } => Value::Keyword(Rc::from(name.as_str())),
        FormKind::List(v) | FormKind::Vector(v) => Value::list(v.iter().map(quoted).collect()),
        FormKind::Set(v) => Value::set(v.iter().map(quoted).collect()),
        FormKind::Map(v) => Value::Map(Rc::new(
            v.chunks(2)
                .map(|p| (quoted(&p[0]), quoted(&p[1])))
                .collect(),
        )),
    }
}

fn is_catch(f: &Form) -> bool {
    matches!(&f.kind, FormKind::List(items) if matches!(items.first(), Some(Form { kind: FormKind::Symbol(s), .. }) if s == "catch" || s == "finally"))
}

fn is_finally(f: &Form) -> bool {
    matches!(&f.kind, FormKind::List(items) if matches!(items.first(), Some(Form { kind: FormKind::Symbol(s), .. }) if s == "finally"))
}

fn max_percent(forms: &[Form]) -> usize {
    let mut n = 0;
    for f in forms {
        match &f.kind {
            FormKind::Symbol(s) if s == "%" => n = n.max(1),
            FormKind::Symbol(s) if s.starts_with('%') => n = n.max(s[1..].parse().unwrap_or(0)),
            FormKind::List(v) | FormKind::Vector(v) | FormKind::Set(v) | FormKind::Map(v) => {
                n = n.max(max_percent(v))
            }
            _ => {}
        }
    }
    n
}

fn simple_regex_supported(pat: &str) -> bool {
    !pat.chars().any(|c| "*+?()[]{}|\\".contains(c))
}

/// The first match of a regular expression made of literal characters,
/// `.` (any character), `^` and `$`: byte range in `s`.
fn simple_regex_find(pat: &str, s: &str) -> Option<(usize, usize)> {
    if !simple_regex_supported(pat) {
        return None;
    }
    let anchored_start = pat.starts_with('^');
    let anchored_end = pat.ends_with('$');
    let core: Vec<char> = pat
        .trim_start_matches('^')
        .trim_end_matches('$')
        .chars()
        .collect();
    let idx: Vec<(usize, char)> = s.char_indices().collect();
    let starts: Vec<usize> = if anchored_start {
        vec![0]
    } else {
        (0..=idx.len()).collect()
    };
    for st in starts {
        if st + core.len() > idx.len() {
            continue;
        }
        let ok = core
            .iter()
            .enumerate()
            .all(|(k, pc)| *pc == '.' || idx[st + k].1 == *pc);
        let end = st + core.len();
        if ok && (!anchored_end || end == idx.len()) {
            let b0 = idx.get(st).map_or(s.len(), |x| x.0);
            let b1 = idx.get(end).map_or(s.len(), |x| x.0);
            return Some((b0, b1));
        }
    }
    None
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
