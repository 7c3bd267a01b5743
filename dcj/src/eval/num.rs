//! Numbers as Clojure has them: exact ratios and doubles ([`Num`]),
//! arithmetic and comparison, and the bound that keeps a result from
//! building an oversized collection.

use super::{Ctx, MAX_COLLECTION, R};
use crate::value::Value;
use crate::Span;

#[derive(Clone, Copy)]
pub(super) enum Num {
    Exact(i128, i128),
    Float(f64),
}

impl Num {
    pub(super) fn float(self) -> f64 {
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

impl Ctx<'_> {
    pub(super) fn num(&self, v: &Value, span: Span) -> R<Num> {
        match v {
            Value::Int(n) => Ok(Num::Exact(i128::from(*n), 1)),
            Value::Ratio(n, d) => Ok(Num::Exact(i128::from(*n), i128::from(*d))),
            Value::Float(x) => Ok(Num::Float(*x)),
            other => Err(self.thrown(
                span,
                format!(
                    "expected a number, found {} `{}`",
                    other.kind(),
                    other.brief()
                ),
            )),
        }
    }

    pub(super) fn int(&self, v: &Value, span: Span) -> R<i64> {
        match v {
            Value::Int(n) => Ok(*n),
            other => Err(self.thrown(
                span,
                format!(
                    "expected a long, found {} `{}`",
                    other.kind(),
                    other.brief()
                ),
            )),
        }
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

    pub(super) fn arith(&self, op: &str, args: &[Value], span: Span) -> R<Value> {
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

    pub(super) fn compare(&self, a: &Value, b: &Value, span: Span) -> R<std::cmp::Ordering> {
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

    pub(super) fn bounded(&self, n: i128, span: Span) -> R<()> {
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
}
