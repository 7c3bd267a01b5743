//! The arguments of a communication in spec position: role expressions
//! (`::buyer`, `(::worker i)`, a role value) and message-type predicates.

use super::{Ctx, Env, R};
use crate::names::{local_name, role_name, type_name};
use crate::read::{Form, FormKind};
use crate::value::Value;
use crate::Span;

impl Ctx<'_> {
    pub(super) fn predicate(&mut self, f: &Form, env: &Env) -> R<String> {
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

    fn role_of_keyword(&mut self, full: &str, indices: &[Value], span: Span) -> R<String> {
        // The indices are printed into the name: bound that first.
        for i in indices {
            self.printed(i, span)?;
        }
        let base = match self.roles.get(full) {
            Some(n) => n.clone(),
            None => {
                let local = local_name(full).to_string();
                let other = self
                    .roles_by_local
                    .get(&local)
                    .and_then(|k| self.roles.get(k))
                    .cloned();
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
        let name = role_name(&base, indices);
        self.spec_grew(name.len(), span)?;
        Ok(name)
    }

    pub(super) fn role(&mut self, f: &Form, env: &Env) -> R<String> {
        match &f.kind {
            FormKind::Keyword { auto, name } => {
                let k = self.keyword(*auto, name);
                self.role_of_keyword(&k, &[], f.span)
            }
            FormKind::Str(s) => Ok(s.clone()),
            FormKind::Symbol(s) => match env.get(s).cloned() {
                Some(v) => self.role_value(v, f),
                // A `def` or `defn` name is its value, as in Clojure.
                None if self.fns.contains_key(s)
                    || self.def_values.contains_key(s)
                    || self.defs.contains_key(s) =>
                {
                    let v = self.symbol(s, env, f.span)?;
                    self.role_value(v, f)
                }
                // A declared role's local name, as `(worker i)` is
                // taken for `(::worker i)` below.
                None if self.roles_by_local.contains_key(s) => {
                    let full = self.roles_by_local[s].clone();
                    self.role_of_keyword(&full, &[], f.span)
                }
                None => Err(self.unbound_role(s, env, f.span)),
            },
            FormKind::List(items) if !items.is_empty() => {
                let base = match &items[0].kind {
                    FormKind::Str(name) => {
                        // ("worker" i): a role named by a string needs no
                        // declaration.
                        let idx = self.exprs(&items[1..], env)?;
                        for i in &idx {
                            self.printed(i, f.span)?;
                        }
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
                    FormKind::Symbol(s) if self.roles_by_local.contains_key(s) => {
                        self.roles_by_local[s].clone()
                    }
                    _ => {
                        let v = self.expr(f, env)?;
                        return self.role_value(v, f);
                    }
                };
                let idx = self.exprs(&items[1..], env)?;
                self.role_of_keyword(&base, &idx, f.span)
            }
            _ => Err(self.error(
                f.span,
                format!("expected a role, found `{f}`"),
                Some("a role is ::name or (::name index ...)".into()),
            )),
        }
    }

    /// A symbol in role position that nothing binds. It used to become a
    /// role of that name, so that `(s/-->> M ::a)`, the receiver forgotten,
    /// was a message from a role `M`; Clojure would not resolve it either.
    fn unbound_role(&self, s: &str, env: &Env, span: Span) -> super::Fail {
        let last = s.rsplit(['.', '/']).next().unwrap_or(s);
        let class = s.contains('.') || last.starts_with(|c: char| c.is_uppercase());
        let (close, hint) = if class {
            // No near name: a type where a role belongs is the likelier slip.
            (
                None,
                format!(
                "`{s}` looks like a message type: a communication is (s/-->> {s} sender receiver), \
                 or (s/-->> sender receiver) with the type omitted"
            ),
            )
        } else {
            let mut known: Vec<String> = env.names();
            known.extend(self.roles_by_local.keys().map(|r| format!("::{r}")));
            known.sort();
            let close = engine::names::closest(s, known.iter().map(String::as_str))
                .map(str::to_string)
                .or_else(|| {
                    // `worker` for `::worker`: compare with the local names.
                    let locals = self.roles_by_local.keys().map(String::as_str);
                    engine::names::closest(s, locals).map(|r| format!("::{r}"))
                });
            (
                close,
                "a role is ::name, (::name index ...), a string, or a name bound to one \
             (a session parameter, let, def)"
                    .to_string(),
            )
        };
        self.error(
            span,
            format!(
                "`{s}` in role position is not bound{}",
                close.map_or(String::new(), |c| format!("; did you mean `{c}`?"))
            ),
            Some(hint),
        )
    }

    fn role_value(&mut self, v: Value, f: &Form) -> R<String> {
        match v {
            Value::Keyword(k) => self.role_of_keyword(&k, &[], f.span),
            Value::Role(k, idx) => self.role_of_keyword(&k, &idx, f.span),
            Value::Str(s) | Value::Symbol(s) => Ok(s.to_string()),
            other => Err(self.error(
                f.span,
                format!(
                    "expected a role, found {} `{}`",
                    other.kind(),
                    other.brief()
                ),
                None,
            )),
        }
    }
}
