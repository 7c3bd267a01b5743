//! Spec position: a session body, the branches of `cat`/`alt`/`par`, the
//! bodies of `*`, `if`, `let`, `loop`... are Discourje's operators (with
//! or without the `s/` prefix), turned into [`Term`]s.

use std::rc::Rc;

use super::unfold::{LoopScope, Loops, Pending};
use super::{Ctx, Env, MAX_COLLECTION, MAX_DEPTH, R};
use crate::read::{Form, FormKind};
use crate::value::Value;
use crate::Span;
use protocols::spec::{self, Term};

const SPEC_NAMESPACES: [&str; 4] = ["s", "spec", "discourje.core.spec", "dcj"];

/// The operator name of a symbol in spec position: `s/cat` and `cat` are
/// `cat`; a symbol of another namespace is no operator.
pub(super) fn spec_op(sym: &str) -> Option<&str> {
    match sym.split_once('/') {
        Some((ns, name)) if !name.is_empty() && SPEC_NAMESPACES.contains(&ns) => Some(name),
        Some((_, "")) | None => Some(sym),
        Some(_) => None,
    }
}

impl Ctx<'_> {
    pub(super) fn spec_seq(&mut self, forms: &[Form], env: &Env, loops: &Loops) -> R<Term> {
        let mut v = Vec::with_capacity(forms.len());
        for f in forms {
            v.push(self.spec(f, env, loops)?);
        }
        Ok(multiary(v, Term::Seq))
    }

    pub(super) fn spec(&mut self, f: &Form, env: &Env, loops: &Loops) -> R<Term> {
        self.tick(f.span)?;
        let too_deep = || {
            (
                format!("specification nested more than {MAX_DEPTH} deep"),
                None,
            )
        };
        self.deeper(f.span, too_deep, |cx| cx.spec_inner(f, env, loops))
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

    pub(super) fn arity(&self, f: &Form, op: &str, args: &[Form], ok: &[usize]) -> R<()> {
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

    /// A communication or close between a role and itself is an error of
    /// the specification: said here, where its form's line and column
    /// are known (the compiler, which refuses it too, knows neither).
    fn two_roles(&self, f: &Form, p: &str, q: &str) -> R<()> {
        if p != q {
            return Ok(());
        }
        Err(self.error(
            f.span,
            format!("role `{p}` cannot communicate with itself"),
            Some(
                "the two roles of a communication or close must differ; an index \
                 expression may give both the same index (such as (mod (inc i) n) \
                 with n = 1)"
                    .into(),
            ),
        ))
    }

    pub(super) fn spec_op(
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
                self.two_roles(f, &p, &q)?;
                self.spec_grew(
                    std::mem::size_of::<Term>() + ty.len() + p.len() + q.len(),
                    f.span,
                )?;
                if op == "-->" {
                    spec::sync(&ty, p, q)
                } else {
                    spec::msg(&ty, p, q)
                }
            }
            "close" => {
                self.arity(f, op, args, &[2])?;
                let (p, q) = (self.role(&args[0], env)?, self.role(&args[1], env)?);
                self.two_roles(f, &p, &q)?;
                spec::close(p, q)
            }
            "skip" | "end" => spec::end(),
            "cat" | "do" => self.spec_seq(args, env, loops)?,
            "alt" | "par" => {
                self.spec_grew(args.len() * std::mem::size_of::<Term>(), f.span)?;
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
                let key = format!("omega@{}|{}", f.span.start, self.snapshot(env, f.span)?);
                let (line, _) = crate::line_col(self.text, f.span.start);
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
                self.spec_grew(envs.len() * std::mem::size_of::<Term>(), f.span)?;
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
        let items = self.coll_ref(&coll, bindings[1].span).map_err(|_| {
            self.error(
                bindings[1].span,
                format!("cannot iterate over {} `{}`", coll.kind(), coll.brief()),
                Some("iterate over a range, set, list or vector".into()),
            )
        })?;
        for x in items.iter() {
            if out.len() >= MAX_COLLECTION {
                return Err(self.error(span, format!("more than {MAX_COLLECTION} branches"), None));
            }
            // An environment per branch.
            self.charge(1, span)?;
            let x = x.clone();
            self.every_envs(&bindings[2..], &env.bind(var, x), out, span)?;
        }
        Ok(())
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

fn loop_name(f: &Form) -> String {
    match &f.kind {
        FormKind::Keyword { name, .. } => name.clone(),
        _ => f.to_string(),
    }
}
