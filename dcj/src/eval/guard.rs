//! Unguarded recursion, found at import: a definition that can reach a
//! call of itself before any action. The compiler of the protocols crate
//! finds it too, but only once the specification is compiled, and it can
//! name the instance but not the line; here every call site is known, so
//! the error points at the call that closes the cycle.
//!
//! The rules are the compiler's (`protocols::compile`): a call is reached
//! before any action if it is in an `alt` or `par` branch, a `*` body, or
//! a `cat` part after parts that may all end without acting (`skip`,
//! `s/?`, `s/*`, a call of such a definition). A part that can neither act
//! nor end (an `alt` of nothing) hides what follows it, as in the compiler,
//! so a file is never refused here that compiles.

use std::collections::HashMap;

use super::{Ctx, R};
use crate::Span;
use protocols::spec::Term;

/// Deepest chain of definitions each reached before any action from the
/// one before: past it the check gives up (the compiler still finds an
/// unguarded recursion, without a position) rather than risk the stack.
const MAX_CHAIN: usize = 100_000;

#[derive(Clone, Copy)]
enum Mark {
    /// Being walked: meeting it again closes an unguarded cycle.
    Open,
    /// Walked: whether it may end without acting.
    Done(bool),
}

struct Walk<'a> {
    bodies: HashMap<&'a str, &'a Term>,
    marks: HashMap<&'a str, Mark>,
    /// The definitions being walked, outermost first.
    path: Vec<&'a str>,
}

/// Why a walk stopped early.
enum Stop {
    /// `path[from..]` and then back to `path[from]`: an unguarded cycle.
    Cycle(usize),
    TooDeep,
}

impl<'a> Walk<'a> {
    /// Whether `t` may end without acting; every call it reaches before
    /// any action is walked on the way.
    fn term(&mut self, t: &'a Term) -> Result<bool, Stop> {
        Ok(match t {
            Term::End => true,
            Term::Comm { .. } | Term::Close { .. } => false,
            Term::Seq(v) => {
                for x in v {
                    if !self.term(x)? {
                        return Ok(false);
                    }
                }
                true
            }
            Term::Alt(v) => {
                let mut any = false;
                for x in v {
                    any |= self.term(x)?;
                }
                any
            }
            Term::Par(v) => {
                let mut all = true;
                for x in v {
                    all &= self.term(x)?;
                }
                all
            }
            Term::Star(b) => {
                self.term(b)?;
                true
            }
            Term::Call(name, _) => self.call(name)?,
        })
    }

    fn call(&mut self, name: &'a str) -> Result<bool, Stop> {
        match self.marks.get(name) {
            Some(Mark::Done(n)) => return Ok(*n),
            Some(Mark::Open) => {
                let from = self.path.iter().rposition(|&p| p == name).unwrap_or(0);
                return Err(Stop::Cycle(from));
            }
            None => {}
        }
        // A call of no definition is the compiler's error to report.
        let Some(&body) = self.bodies.get(name) else {
            return Ok(false);
        };
        if self.path.len() >= MAX_CHAIN {
            return Err(Stop::TooDeep);
        }
        self.marks.insert(name, Mark::Open);
        self.path.push(name);
        let n = self.term(body)?;
        self.path.pop();
        self.marks.insert(name, Mark::Done(n));
        Ok(n)
    }
}

impl Ctx<'_> {
    /// An error at the call that closes an unguarded cycle among the
    /// definitions unfolded, if there is one.
    pub(super) fn check_guarded(&self) -> R<()> {
        let mut walk = Walk {
            bodies: self
                .definitions
                .iter()
                .map(|(n, t)| (n.as_str(), t))
                .collect(),
            marks: HashMap::new(),
            path: Vec::new(),
        };
        for (name, _) in &self.definitions {
            match walk.call(name) {
                Ok(_) => {}
                Err(Stop::TooDeep) => return Ok(()),
                Err(Stop::Cycle(from)) => {
                    let cycle = &walk.path[from..];
                    let (caller, callee) = (cycle[cycle.len() - 1], cycle[0]);
                    let span = self.call_span(caller, callee);
                    let mut shown: Vec<String> = cycle.iter().map(|n| format!("`{n}`")).collect();
                    shown.push(format!("`{callee}`"));
                    return Err(self.error(
                        span,
                        format!(
                            "unguarded recursion: `{}` can reach a call of itself before any \
                             action ({})",
                            cycle[0],
                            shown.join(" → ")
                        ),
                        Some(
                            "a recursive call must be guarded: every way to it must first \
                             communicate, as in (s/cat (s/-->> T ::a ::b) (::x)); a call that \
                             starts a cat, is a branch of an alt or par, or follows a part that \
                             may do nothing (s/?, s/*, skip) is not guarded"
                                .into(),
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Where `caller`'s body calls `callee` (first such call), else where
    /// `callee` was first called (an omega's own repetition has no call
    /// written in the file: its `s/omega` form).
    fn call_span(&self, caller: &str, callee: &str) -> Span {
        self.call_sites
            .get(&(caller.to_string(), callee.to_string()))
            .or_else(|| self.instance_spans.get(callee))
            .copied()
            .unwrap_or_default()
    }
}
