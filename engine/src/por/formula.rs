//! Which formulas the reduction may decide: those whose truth does not
//! change when a step on which no atom holds is inserted into a run or
//! removed from it (see the [module docs](super)).

use owl_lite::{Kind, Ltl};

/// How a subformula behaves at an *unseen* position (every atom false)
/// compared with the position after it.
#[derive(Clone, Copy)]
struct Shape {
    /// True at the unseen position implies true at the next.
    up: bool,
    /// True at the next position implies true at the unseen one.
    down: bool,
    /// Its value at an unseen position, if that is a constant.
    constant: Option<bool>,
}

impl Shape {
    const ABSORBING: Shape = Shape {
        up: true,
        down: true,
        constant: None,
    };

    fn constant(v: bool) -> Shape {
        // A constant `false` implies anything, a constant `true` follows
        // from anything.
        Shape {
            up: !v,
            down: v,
            constant: Some(v),
        }
    }

    fn not(self) -> Shape {
        Shape {
            up: self.down,
            down: self.up,
            constant: self.constant.map(|v| !v),
        }
    }
}

/// Whether partial-order reduction may decide `formula` (given with its
/// `"True"`/`"False"` atoms already replaced by constants): `Ok(())`, or the
/// reason it may not, as the report says it ("formula uses X").
///
/// The condition is syntactic and sufficient: on the negation normal form,
/// every subformula gets a *shape* — how its value at a position where no
/// atom holds relates to its value at the next position — and the
/// temporal operators accept only arguments whose shape makes the inserted
/// position irrelevant (`F f` needs `f` true there only if next, `G f` the
/// converse, `a U b` both of `b` and the converse of `a`, …). The whole
/// formula must have the same value at an unseen position as at the next.
///
/// ```
/// use engine::por::applicability;
/// let ok = |f: &str| applicability(&owl_lite::parse(f).unwrap()).is_ok();
/// assert!(ok(r#"G !"DEADLOCK""#));
/// assert!(ok(r#"G ("a SEND *" -> F "b RECV *")"#));
/// assert!(!ok(r#"G ("a SEND *" -> X "b RECV *")"#));
/// // "The first step is not a's send": an unseen first step changes it.
/// assert!(!ok(r#"!"a SEND *""#));
/// ```
pub fn applicability(formula: &Ltl) -> Result<(), String> {
    Analysis::default().applicability(formula)
}

/// One analysis of a formula, with a memo per node: [`Ltl`] values are
/// shared subformulas (a DAG), and `<->`/`^` in negation normal form use
/// each operand twice, so a chain of `n` of them is a DAG of `O(n)` nodes
/// but a tree of `2^n`. Walking the tree made a 500-byte formula take
/// seconds before the search started; each node is now looked at once.
#[derive(Default)]
struct Analysis {
    next: hashbrown::HashMap<Ltl, bool>,
    shapes: hashbrown::HashMap<Ltl, Option<Shape>>,
    /// Nodes analysed (each at most once per question), for the tests.
    visits: u64,
}

impl Analysis {
    fn applicability(&mut self, formula: &Ltl) -> Result<(), String> {
        let nnf = formula.nnf();
        if self.uses_next(&nnf) {
            return Err("formula uses X".into());
        }
        match self.shape(&nnf) {
            Some(s) if s.up && s.down => Ok(()),
            _ => Err(
                "formula is not stutter-invariant over the steps its atoms cannot see \
                  (it depends on where such steps fall, e.g. on the first step)"
                    .into(),
            ),
        }
    }

    fn uses_next(&mut self, f: &Ltl) -> bool {
        if let Some(&r) = self.next.get(f) {
            return r;
        }
        self.visits += 1;
        let r = matches!(f.kind(), Kind::Next(_)) || f.children().iter().any(|c| self.uses_next(c));
        self.next.insert(f.clone(), r);
        r
    }

    /// The shape of an NNF subformula, `None` if an inserted unseen step
    /// may change its value at the positions of the original run.
    fn shape(&mut self, f: &Ltl) -> Option<Shape> {
        if let Some(&r) = self.shapes.get(f) {
            return r;
        }
        self.visits += 1;
        let r = self.shape_of(f);
        self.shapes.insert(f.clone(), r);
        r
    }

    fn shape_of(&mut self, f: &Ltl) -> Option<Shape> {
        Some(match f.kind() {
            Kind::True => Shape::constant(true),
            Kind::False => Shape::constant(false),
            // Every atom is false at an unseen position.
            Kind::Atom(_) => Shape::constant(false),
            Kind::Not(g) => match g.kind() {
                Kind::Atom(_) => Shape::constant(true),
                _ => self.shape(g)?.not(),
            },
            Kind::And(ops) | Kind::Or(ops) => {
                let shapes = ops
                    .iter()
                    .map(|g| self.shape(g))
                    .collect::<Option<Vec<_>>>()?;
                let and = matches!(f.kind(), Kind::And(_));
                let constant = shapes
                    .iter()
                    .map(|s| s.constant)
                    .collect::<Option<Vec<bool>>>()
                    .map(|v| {
                        if and {
                            v.iter().all(|&b| b)
                        } else {
                            v.iter().any(|&b| b)
                        }
                    });
                Shape {
                    up: shapes.iter().all(|s| s.up),
                    down: shapes.iter().all(|s| s.down),
                    constant,
                }
            }
            // `F f` = `true U f`, `G f` = `false R f`.
            Kind::Finally(g) => until(Shape::constant(true), self.shape(g)?)?,
            Kind::Globally(g) => until(Shape::constant(true), self.shape(g)?.not())?.not(),
            Kind::Until(a, b) | Kind::WeakUntil(a, b) => until(self.shape(a)?, self.shape(b)?)?,
            // `a R b` = `!(!a U !b)`, `a M b` = `!(!a W !b)`.
            Kind::Release(a, b) | Kind::StrongRelease(a, b) => {
                until(self.shape(a)?.not(), self.shape(b)?.not())?.not()
            }
            // Not in negation normal form (or `X`, refused before): refuse.
            _ => return None,
        })
    }
}

/// `a U b` (or `a W b`) at an inserted unseen position `i`:
/// `U(i) = b(i) | (a(i) & U(i+1))`. The original positions keep their
/// values if a witness `b` cannot appear only at `i` (`b` up), a run of
/// `a` is not broken at `i` (`a` down), and a witness right after `i` is
/// covered at `i` (`b` down, or `a` true at every unseen position). Then
/// `U(i) = U(i+1)`.
fn until(a: Shape, b: Shape) -> Option<Shape> {
    (a.down && b.up && (b.down || a.constant == Some(true))).then_some(Shape::ABSORBING)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(f: &str) -> bool {
        applicability(&owl_lite::parse(f).expect("valid formula")).is_ok()
    }

    #[test]
    fn formulas_that_do_not_see_unseen_steps_are_reduced() {
        for f in [
            r#"G !"DEADLOCK""#,
            r#"G !"worker_15_ RECV *""#,
            r#"G ("a SEND *" -> F "b RECV *")"#,
            r#"G F "b RECV *""#,
            r#"F "END""#,
            r#"F G !"a SEND *""#,
            r#"!"a SEND *" U "b RECV *""#,
            r#"!"a SEND *" W "b RECV *""#,
            r#"G (!"a SEND *" | F "b RECV *") & F "END""#,
            r#""b RECV *" R !"a SEND *""#,
        ] {
            assert!(ok(f), "{f}");
        }
    }

    /// The distinct nodes of `f` (its size as a DAG).
    fn dag_size(f: &Ltl) -> u64 {
        let mut seen = hashbrown::HashSet::new();
        let mut stack = vec![f.clone()];
        while let Some(g) = stack.pop() {
            if seen.insert(g.clone()) {
                stack.extend(g.children());
            }
        }
        seen.len() as u64
    }

    #[test]
    fn chains_of_equivalences_are_analysed_once_per_node() {
        // In negation normal form each `<->` or `^` uses both operands
        // twice: 40 of them are a tree of 2^40 nodes, which the analysis
        // walked (500 bytes of formula took seconds, 30 terms for ever).
        for op in [" <-> ", " ^ "] {
            // Each term, and its negation, is blind to unseen steps.
            let terms = [
                r#"F "a SEND *""#,
                r#"G F "b RECV *""#,
                r#"(!"a SEND *" U "b SEND *")"#,
            ];
            let mut text: Vec<&str> = (0..40).map(|i| terms[i % 3]).collect();
            for (last, reduced) in [(None, true), (Some(r#""a SEND *""#), false)] {
                text.extend(last);
                let f = owl_lite::parse(&text.join(op)).unwrap();
                let mut analysis = Analysis::default();
                let verdict = analysis.applicability(&f);
                assert_eq!(verdict.is_ok(), reduced, "{op} {last:?}: {verdict:?}");
                let nodes = dag_size(&f.nnf());
                assert!(nodes < 1000, "{nodes}");
                // One visit per node for each of the two questions (X?
                // shape?), at most.
                assert!(
                    analysis.visits <= 2 * nodes,
                    "{op}: {} visits for {nodes} nodes",
                    analysis.visits
                );
            }
        }
    }

    #[test]
    fn formulas_that_see_where_unseen_steps_fall_are_searched_in_full() {
        for f in [
            r#"X "a SEND *""#,
            r#"G ("a SEND *" -> X "b RECV *")"#,
            r#""a SEND *""#,
            r#"!"a SEND *""#,
            r#""a SEND *" U "b RECV *""#,
            r#"G "a SEND *""#,
            r#"F !"a SEND *""#,
            r#""a SEND *" -> F "b RECV *""#,
        ] {
            assert!(!ok(f), "{f}");
        }
        let e = applicability(&owl_lite::parse(r#"G ("a" -> X "b")"#).unwrap()).unwrap_err();
        assert_eq!(e, "formula uses X");
    }
}
