//! Expression position: Clojure forms evaluated to [`Value`]s (arguments
//! of sessions and roles, `let` bindings, tests of `if`): symbols, the
//! special forms (`if`, `let`, `fn`, `try`, ...), and calls of user
//! functions and builtins.

use std::rc::Rc;

use super::builtins::BUILTINS;
use super::{Ctx, Env, Fail, MAX_DEPTH, R};
use crate::read::{Form, FormKind};
use crate::value::{Closure, Value};
use crate::Span;

const CORE_NAMESPACES: [&str; 7] = [
    "clojure.core",
    "s",
    "spec",
    "discourje.core.spec",
    "clojure.set",
    "set",
    "dcj",
];

/// The function name of a symbol in expression position: `clojure.core/inc`,
/// `s/count` and `count` are `count`; `Math/sqrt` stays.
fn core_name(sym: &str) -> &str {
    match sym.split_once('/') {
        Some((ns, name)) if !name.is_empty() && CORE_NAMESPACES.contains(&ns) => name,
        _ => sym,
    }
}

impl Ctx<'_> {
    pub(super) fn exprs(&mut self, forms: &[Form], env: &Env) -> R<Vec<Value>> {
        forms.iter().map(|f| self.expr(f, env)).collect()
    }

    pub(super) fn let_bindings(&mut self, b: &[Form], env: &Env, span: Span) -> R<Env> {
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

    pub(super) fn expr(&mut self, f: &Form, env: &Env) -> R<Value> {
        self.tick(f.span)?;
        let too_deep = || {
            (
                format!("evaluation nested more than {MAX_DEPTH} deep"),
                Some("does a function recurse without end?".into()),
            )
        };
        let r = self.deeper(f.span, too_deep, |cx| cx.expr_inner(f, env));
        self.sized(r?, f.span)
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
            FormKind::Vector(v) => {
                self.room_values(v.len(), f.span)?;
                Value::list(self.exprs(v, env)?)
            }
            FormKind::Set(v) => {
                let items = self.exprs(v, env)?;
                self.make_set(None, items, f.span)?
            }
            FormKind::Map(v) => {
                self.room_values(v.len(), f.span)?;
                let vals = self.exprs(v, env)?;
                Value::map(
                    vals.chunks(2)
                        .map(|p| (p[0].clone(), p[1].clone()))
                        .collect(),
                )
            }
            FormKind::List(items) if items.is_empty() => Value::list(Vec::new()),
            FormKind::List(items) => return self.call_form(f, items, env),
        })
    }

    pub(super) fn symbol(&mut self, s: &str, env: &Env, span: Span) -> R<Value> {
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
            Some("bind it with a session parameter, let, or defn; the supported functions are listed in the docs of `prust::dcj` (\"The supported subset\")".into())))
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
                return Ok(Value::role(Rc::from(k), idx));
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
                Some(x) => {
                    let v = quoted(x);
                    self.walk(&v, f.span)?;
                    v
                }
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
                let run = |ctx: &mut Self| -> R<Value> {
                    let mut last = Value::Nil;
                    for b in &body {
                        last = ctx.expr(b, env)?;
                    }
                    Ok(last)
                };
                match run(self) {
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

    pub(super) fn body(&mut self, forms: &[Form], env: &Env) -> R<Value> {
        let mut last = Value::Nil;
        for f in forms {
            last = self.expr(f, env)?;
        }
        Ok(last)
    }

    pub(super) fn apply(&mut self, callee: Value, args: Vec<Value>, span: Span) -> R<Value> {
        // A call is a step whoever calls it (a builtin, or `reduce` calling
        // `+` a million times).
        self.tick(span)?;
        let r = self.apply_inner(callee, args, span)?;
        self.sized(r, span)
    }

    fn apply_inner(&mut self, callee: Value, args: Vec<Value>, span: Span) -> R<Value> {
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
                let too_deep = || {
                    (
                        format!("calls of `{}` nested more than {MAX_DEPTH} deep", c.name),
                        Some("does the function recurse without end?".into()),
                    )
                };
                self.deeper(span, too_deep, |cx| cx.body(body, &env))
            }
            Value::Set(items) => {
                let [x] = args.as_slice() else {
                    return Err(self.error(
                        span,
                        "a set called as a function takes one argument".into(),
                        None,
                    ));
                };
                self.walk(x, span)?;
                Ok(Value::set_find(&items, x).cloned().unwrap_or(Value::Nil))
            }
            Value::Map(m) => {
                self.walk(&Value::Map(m.clone()), span)?;
                Ok(m.iter()
                    .find(|(k, _)| Some(k) == args.first())
                    .map_or(Value::Nil, |(_, v)| v.clone()))
            }
            Value::Keyword(k) if self.find_sessions(&k).is_empty() => Ok(Value::role(k, args)),
            Value::Symbol(s) if BUILTINS.contains(&&*s) => self.builtin(&s, args, span),
            other => Err(self.error(
                span,
                format!("cannot call {} `{}`", other.kind(), other.brief()),
                Some("the supported functions are listed in the docs of `prust::dcj` (\"The supported subset\")".into()),
            )),
        }
    }
}

pub(super) fn quoted(f: &Form) -> Value {
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
        FormKind::Map(v) => Value::map(
            v.chunks(2)
                .map(|p| (quoted(&p[0]), quoted(&p[1])))
                .collect(),
        ),
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
