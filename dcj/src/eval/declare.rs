//! Declaration collection: the first pass over a file's top-level forms
//! (`ns`, `s/defrole(s)`, `s/defsession`, `def`, `defn`, bare
//! specifications), and the function values that `defn` and `fn` make.

use std::rc::Rc;

use super::expr::quoted;
use super::spec::spec_op;
use super::unfold::SessionDef;
use super::{Ctx, Env, Fail, R};
use crate::names::local_name;
use crate::read::{Form, FormKind};
use crate::value::{Closure, Value};
use crate::{DcjError, Span};

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

impl Ctx<'_> {
    pub(super) fn collect(&mut self, forms: &[Form]) -> Result<(), DcjError> {
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

    pub(super) fn defrole(&mut self, f: &Form, items: &[Form]) -> R<()> {
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
        self.roles_by_local
            .entry(local_name(&full).to_string())
            .or_insert_with(|| full.clone());
        self.roles.insert(full, shown);
        Ok(())
    }

    pub(super) fn defsession(&mut self, f: &Form, items: &[Form]) -> R<()> {
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
    pub(super) fn closure(&self, name: &str, parts: &[Form], env: &Env, span: Span) -> R<Value> {
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
}

fn symbol_in(f: &Form) -> Option<String> {
    match &f.kind {
        FormKind::Symbol(s) => Some(s.clone()),
        FormKind::List(items) => items.get(1).and_then(symbol_in),
        _ => None,
    }
}
