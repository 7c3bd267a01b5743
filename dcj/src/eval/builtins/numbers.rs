//! The numeric and logical builtins (`+`, `inc`, `mod`, `max`, `=`, `<`,
//! `zero?`, `not`, `long`, `Math/pow`, `Long/parseLong`, ...).

use std::rc::Rc;

use super::super::num::Num;
use super::super::{Ctx, R};
use crate::value::Value;
use crate::Span;

impl Ctx<'_> {
    /// The numeric and logical builtins: arithmetic, equality and order,
    /// predicates (`zero?`, `even?`, `nil?`, ...), conversions and `Math/...`.
    pub(super) fn number_builtin(&mut self, name: &str, args: Vec<Value>, span: Span) -> R<Value> {
        let n = args.len();
        let need = |ok: bool| self.need_args(ok, name, n, span);
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
                        return Err(self.thrown(
                            span,
                            format!("expected a number, found `{}`", other.brief()),
                        ))
                    }
                }
            }
            "=" | "not=" => {
                // Comparing walks at most the lighter of the two values.
                for w in args.windows(2) {
                    self.charge(super::walk_work(w[0].weight().min(w[1].weight())), span)?;
                }
                let same = args.windows(2).all(|w| w[0] == w[1]);
                Value::Bool(same == (name == "="))
            }
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
                self.charge(super::walk_work(s.len() as u64), span)?;
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
                            format!(
                                "NumberFormatException: For input string: {}",
                                args[0].brief()
                            ),
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
            _ => return Err(self.unsupported(name, span)),
        })
    }
}
