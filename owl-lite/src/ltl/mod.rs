//! LTL formulas as hash-consed DAGs.
//!
//! Every [`Ltl`] value is interned in a global, thread-safe table: two
//! structurally equal formulas are the same allocation, so equality is a
//! pointer comparison, hashing is O(1) and equal subformulas are shared.
//! Entries of dropped formulas are purged from the table lazily.

use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock, Weak};

mod display;

/// The shape of a formula node. Children are themselves [`Ltl`] values.
///
/// The parser builds formulas exactly as written (so `a -> b` stays an
/// [`Kind::Implies`]); [`Ltl::nnf`] and [`Ltl::simplify`] rewrite them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// `true` (also `tt`, `1`).
    True,
    /// `false` (also `ff`, `0`).
    False,
    /// An atomic proposition; its text exactly as written, without quotes.
    Atom(String),
    /// `!f`
    Not(Ltl),
    /// `f1 & f2 & ...` (at least two operands, none of them an `And`).
    And(Vec<Ltl>),
    /// `f1 | f2 | ...` (at least two operands, none of them an `Or`).
    Or(Vec<Ltl>),
    /// `a -> b`
    Implies(Ltl, Ltl),
    /// `a <-> b`
    Equiv(Ltl, Ltl),
    /// `a ^ b` (exclusive or)
    Xor(Ltl, Ltl),
    /// `X f`: `f` holds at the next position.
    Next(Ltl),
    /// `F f`: `f` holds now or at some later position.
    Finally(Ltl),
    /// `G f`: `f` holds now and at every later position.
    Globally(Ltl),
    /// `a U b`: `b` eventually holds, and `a` holds until then.
    Until(Ltl, Ltl),
    /// `a W b`: `a U b` or `G a` (weak until).
    WeakUntil(Ltl, Ltl),
    /// `a R b`: `b` holds until and including the position where `a`
    /// holds, or forever (release).
    Release(Ltl, Ltl),
    /// `a M b`: `a R b` and `a` eventually holds (strong release).
    StrongRelease(Ltl, Ltl),
}

struct Node {
    kind: Kind,
    hash: u64,
    height: u32,
}

/// An LTL formula: an immutable, cheaply clonable, hash-consed DAG.
///
/// ```
/// use owl_lite::Ltl;
/// let a = Ltl::atom("a");
/// let f = Ltl::until(a.not(), Ltl::atom("b"));
/// assert_eq!(f.to_string(), "!a U b");
/// assert_eq!(f, owl_lite::parse("!a U b").unwrap());
/// ```
#[derive(Clone)]
pub struct Ltl(Arc<Node>);

impl PartialEq for Ltl {
    fn eq(&self, other: &Self) -> bool {
        // Interning makes structural equality pointer equality.
        Arc::ptr_eq(&self.0, &other.0)
    }
}
impl Eq for Ltl {}

impl Hash for Ltl {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0.hash)
    }
}

impl PartialOrd for Ltl {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A deterministic total order (by height, then structural hash, then
/// structure), used to sort the operands of `&` and `|` in simplified
/// formulas so that results do not depend on memory addresses.
impl Ord for Ltl {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        if self == other {
            return std::cmp::Ordering::Equal;
        }
        (self.0.height, self.0.hash)
            .cmp(&(other.0.height, other.0.hash))
            .then_with(|| structural_cmp(self, other))
    }
}

fn tag(k: &Kind) -> u8 {
    match k {
        Kind::True => 0,
        Kind::False => 1,
        Kind::Atom(_) => 2,
        Kind::Not(_) => 3,
        Kind::And(_) => 4,
        Kind::Or(_) => 5,
        Kind::Implies(..) => 6,
        Kind::Equiv(..) => 7,
        Kind::Xor(..) => 8,
        Kind::Next(_) => 9,
        Kind::Finally(_) => 10,
        Kind::Globally(_) => 11,
        Kind::Until(..) => 12,
        Kind::WeakUntil(..) => 13,
        Kind::Release(..) => 14,
        Kind::StrongRelease(..) => 15,
    }
}

// Only reached on a 64-bit hash collision between formulas of equal height.
fn structural_cmp(a: &Ltl, b: &Ltl) -> std::cmp::Ordering {
    let (ka, kb) = (a.kind(), b.kind());
    tag(ka).cmp(&tag(kb)).then_with(|| match (ka, kb) {
        (Kind::Atom(x), Kind::Atom(y)) => x.cmp(y),
        _ => a.children().cmp(&b.children()),
    })
}

type Table = hashbrown::HashMap<u64, Vec<Weak<Node>>>;

struct Interner {
    table: Table,
    entries: usize,
    purge_at: usize,
}

fn interner() -> &'static Mutex<Interner> {
    static INTERNER: OnceLock<Mutex<Interner>> = OnceLock::new();
    INTERNER.get_or_init(|| {
        Mutex::new(Interner {
            table: Table::new(),
            entries: 0,
            purge_at: 4096,
        })
    })
}

fn structural_hash(kind: &Kind) -> u64 {
    // A fixed-key hasher: hashes (and so the operand order of simplified
    // formulas) are the same in every run.
    let mut h = std::hash::DefaultHasher::new();
    tag(kind).hash(&mut h);
    match kind {
        Kind::True | Kind::False => {}
        Kind::Atom(s) => s.hash(&mut h),
        Kind::Not(a) | Kind::Next(a) | Kind::Finally(a) | Kind::Globally(a) => {
            h.write_u64(a.0.hash)
        }
        Kind::And(v) | Kind::Or(v) => {
            for c in v {
                h.write_u64(c.0.hash);
            }
        }
        Kind::Implies(a, b)
        | Kind::Equiv(a, b)
        | Kind::Xor(a, b)
        | Kind::Until(a, b)
        | Kind::WeakUntil(a, b)
        | Kind::Release(a, b)
        | Kind::StrongRelease(a, b) => {
            h.write_u64(a.0.hash);
            h.write_u64(b.0.hash);
        }
    }
    h.finish()
}

impl Ltl {
    /// Interns a node: returns the existing allocation for an equal node.
    pub(crate) fn mk(kind: Kind) -> Ltl {
        let hash = structural_hash(&kind);
        let height = 1 + match &kind {
            Kind::True | Kind::False | Kind::Atom(_) => 0,
            Kind::Not(a) | Kind::Next(a) | Kind::Finally(a) | Kind::Globally(a) => a.0.height,
            Kind::And(v) | Kind::Or(v) => v.iter().map(|c| c.0.height).max().unwrap_or(0),
            Kind::Implies(a, b)
            | Kind::Equiv(a, b)
            | Kind::Xor(a, b)
            | Kind::Until(a, b)
            | Kind::WeakUntil(a, b)
            | Kind::Release(a, b)
            | Kind::StrongRelease(a, b) => a.0.height.max(b.0.height),
        };
        let mut guard = interner().lock().unwrap_or_else(|e| e.into_inner());
        let int = &mut *guard;
        if let Some(bucket) = int.table.get(&hash) {
            for w in bucket {
                if let Some(n) = w.upgrade() {
                    if n.kind == kind {
                        return Ltl(n);
                    }
                }
            }
        }
        if int.entries >= int.purge_at {
            int.table.retain(|_, bucket| {
                bucket.retain(|w| w.strong_count() > 0);
                !bucket.is_empty()
            });
            int.entries = int.table.values().map(Vec::len).sum();
            int.purge_at = (2 * int.entries).max(4096);
        }
        let node = Arc::new(Node { kind, hash, height });
        int.table
            .entry(hash)
            .or_default()
            .push(Arc::downgrade(&node));
        int.entries += 1;
        Ltl(node)
    }

    /// The node's shape.
    pub fn kind(&self) -> &Kind {
        &self.0.kind
    }

    /// The height of the formula tree (an atom or constant has height 1).
    pub fn height(&self) -> usize {
        self.0.height as usize
    }

    /// The direct subformulas, left to right.
    pub fn children(&self) -> Vec<Ltl> {
        match self.kind() {
            Kind::True | Kind::False | Kind::Atom(_) => vec![],
            Kind::Not(a) | Kind::Next(a) | Kind::Finally(a) | Kind::Globally(a) => {
                vec![a.clone()]
            }
            Kind::And(v) | Kind::Or(v) => v.clone(),
            Kind::Implies(a, b)
            | Kind::Equiv(a, b)
            | Kind::Xor(a, b)
            | Kind::Until(a, b)
            | Kind::WeakUntil(a, b)
            | Kind::Release(a, b)
            | Kind::StrongRelease(a, b) => vec![a.clone(), b.clone()],
        }
    }

    /// The constant `true`.
    pub fn tt() -> Ltl {
        Ltl::mk(Kind::True)
    }

    /// The constant `false`.
    pub fn ff() -> Ltl {
        Ltl::mk(Kind::False)
    }

    /// An atomic proposition with the given text (stored verbatim).
    pub fn atom(text: impl Into<String>) -> Ltl {
        Ltl::mk(Kind::Atom(text.into()))
    }

    /// Whether this is the constant `true`.
    pub fn is_true(&self) -> bool {
        matches!(self.kind(), Kind::True)
    }

    /// Whether this is the constant `false`.
    pub fn is_false(&self) -> bool {
        matches!(self.kind(), Kind::False)
    }

    /// The negation `!self`. Folds constants and double negation
    /// (`!!a` is `a`); use [`Ltl::negate`] for the negation in negation
    /// normal form.
    #[allow(clippy::should_implement_trait)]
    pub fn not(&self) -> Ltl {
        match self.kind() {
            Kind::True => Ltl::ff(),
            Kind::False => Ltl::tt(),
            Kind::Not(a) => a.clone(),
            _ => Ltl::mk(Kind::Not(self.clone())),
        }
    }

    /// The conjunction of the operands (flattening nested conjunctions);
    /// `true` if there are none.
    pub fn and(operands: impl IntoIterator<Item = Ltl>) -> Ltl {
        Ltl::nary(operands, true)
    }

    /// The disjunction of the operands (flattening nested disjunctions);
    /// `false` if there are none.
    pub fn or(operands: impl IntoIterator<Item = Ltl>) -> Ltl {
        Ltl::nary(operands, false)
    }

    fn nary(operands: impl IntoIterator<Item = Ltl>, and: bool) -> Ltl {
        let mut v = Vec::new();
        for f in operands {
            match (f.kind(), and) {
                (Kind::And(xs), true) | (Kind::Or(xs), false) => v.extend(xs.iter().cloned()),
                _ => v.push(f),
            }
        }
        match v.len() {
            0 if and => Ltl::tt(),
            0 => Ltl::ff(),
            1 => v.pop().expect("one operand"),
            _ if and => Ltl::mk(Kind::And(v)),
            _ => Ltl::mk(Kind::Or(v)),
        }
    }

    /// `a -> b`
    pub fn implies(a: Ltl, b: Ltl) -> Ltl {
        Ltl::mk(Kind::Implies(a, b))
    }
    /// `a <-> b`
    pub fn equiv(a: Ltl, b: Ltl) -> Ltl {
        Ltl::mk(Kind::Equiv(a, b))
    }
    /// `a ^ b`
    pub fn xor(a: Ltl, b: Ltl) -> Ltl {
        Ltl::mk(Kind::Xor(a, b))
    }
    /// `X f`
    pub fn next(f: Ltl) -> Ltl {
        Ltl::mk(Kind::Next(f))
    }
    /// `F f`
    pub fn finally(f: Ltl) -> Ltl {
        Ltl::mk(Kind::Finally(f))
    }
    /// `G f`
    pub fn globally(f: Ltl) -> Ltl {
        Ltl::mk(Kind::Globally(f))
    }
    /// `a U b`
    pub fn until(a: Ltl, b: Ltl) -> Ltl {
        Ltl::mk(Kind::Until(a, b))
    }
    /// `a W b`
    pub fn weak_until(a: Ltl, b: Ltl) -> Ltl {
        Ltl::mk(Kind::WeakUntil(a, b))
    }
    /// `a R b`
    pub fn release(a: Ltl, b: Ltl) -> Ltl {
        Ltl::mk(Kind::Release(a, b))
    }
    /// `a M b`
    pub fn strong_release(a: Ltl, b: Ltl) -> Ltl {
        Ltl::mk(Kind::StrongRelease(a, b))
    }

    /// The distinct atom texts, in order of first occurrence (left to
    /// right).
    ///
    /// ```
    /// let f = owl_lite::parse(r#"G (b -> F "a SEND *") & b"#).unwrap();
    /// assert_eq!(f.atoms(), vec!["b".to_string(), "a SEND *".to_string()]);
    /// ```
    pub fn atoms(&self) -> Vec<String> {
        let mut seen = hashbrown::HashSet::new();
        let mut out = Vec::new();
        let mut visited = hashbrown::HashSet::new();
        // Explicit stack: children pushed in reverse to visit left to right.
        let mut stack = vec![self.clone()];
        while let Some(f) = stack.pop() {
            if !visited.insert(f.clone()) {
                continue;
            }
            if let Kind::Atom(s) = f.kind() {
                if seen.insert(s.clone()) {
                    out.push(s.clone());
                }
            }
            let cs = f.children();
            stack.extend(cs.into_iter().rev());
        }
        out
    }

    /// Replaces atoms: every atom for which `f` returns `Some(g)` becomes
    /// `g`; the rest of the formula keeps its structure.
    ///
    /// ```
    /// use owl_lite::Ltl;
    /// let f = owl_lite::parse(r#"G ("True" -> F a)"#).unwrap();
    /// let g = f.map_atoms(|a| (a == "True").then(Ltl::tt));
    /// assert_eq!(g.to_string(), "G (true -> F a)");
    /// ```
    pub fn map_atoms(&self, mut f: impl FnMut(&str) -> Option<Ltl>) -> Ltl {
        let mut memo = hashbrown::HashMap::new();
        self.map_rec(&mut f, &mut memo)
    }

    fn map_rec(
        &self,
        f: &mut dyn FnMut(&str) -> Option<Ltl>,
        memo: &mut hashbrown::HashMap<Ltl, Ltl>,
    ) -> Ltl {
        if let Some(r) = memo.get(self) {
            return r.clone();
        }
        let r = match self.kind() {
            Kind::Atom(s) => f(s).unwrap_or_else(|| self.clone()),
            Kind::True | Kind::False => self.clone(),
            _ => {
                let cs: Vec<Ltl> = self.children().iter().map(|c| c.map_rec(f, memo)).collect();
                self.with_children(cs)
            }
        };
        memo.insert(self.clone(), r.clone());
        r
    }

    /// The same operator applied to new children (same number as
    /// [`Ltl::children`]). `And`/`Or` are re-flattened.
    pub(crate) fn with_children(&self, mut cs: Vec<Ltl>) -> Ltl {
        let binary: fn(Ltl, Ltl) -> Ltl = match self.kind() {
            Kind::True | Kind::False | Kind::Atom(_) => return self.clone(),
            Kind::Not(_) => return Ltl::mk(Kind::Not(cs.pop().expect("unary"))),
            Kind::Next(_) => return Ltl::next(cs.pop().expect("unary")),
            Kind::Finally(_) => return Ltl::finally(cs.pop().expect("unary")),
            Kind::Globally(_) => return Ltl::globally(cs.pop().expect("unary")),
            Kind::And(_) => return Ltl::and(cs),
            Kind::Or(_) => return Ltl::or(cs),
            Kind::Implies(..) => Ltl::implies,
            Kind::Equiv(..) => Ltl::equiv,
            Kind::Xor(..) => Ltl::xor,
            Kind::Until(..) => Ltl::until,
            Kind::WeakUntil(..) => Ltl::weak_until,
            Kind::Release(..) => Ltl::release,
            Kind::StrongRelease(..) => Ltl::strong_release,
        };
        let b = cs.pop().expect("binary");
        let a = cs.pop().expect("binary");
        binary(a, b)
    }

    /// Negation normal form: only `true false`, atoms, negated atoms,
    /// `& | X F G U W R M`; `->`, `<->`, `^` are expanded.
    pub fn nnf(&self) -> Ltl {
        let mut memo = hashbrown::HashMap::new();
        nnf_rec(self, false, &mut memo)
    }

    /// The negation of the formula, in negation normal form.
    ///
    /// ```
    /// let f = owl_lite::parse("G (a -> F b)").unwrap();
    /// assert_eq!(f.negate().to_string(), "F (a & G !b)");
    /// ```
    pub fn negate(&self) -> Ltl {
        let mut memo = hashbrown::HashMap::new();
        nnf_rec(self, true, &mut memo)
    }
}

fn nnf_rec(f: &Ltl, neg: bool, memo: &mut hashbrown::HashMap<(Ltl, bool), Ltl>) -> Ltl {
    if let Some(r) = memo.get(&(f.clone(), neg)) {
        return r.clone();
    }
    let mut go = |g: &Ltl, n: bool| nnf_rec(g, n, memo);
    let r = match (f.kind(), neg) {
        (Kind::True, false) | (Kind::False, true) => Ltl::tt(),
        (Kind::True, true) | (Kind::False, false) => Ltl::ff(),
        (Kind::Atom(_), false) => f.clone(),
        (Kind::Atom(_), true) => Ltl::mk(Kind::Not(f.clone())),
        (Kind::Not(a), n) => go(a, !n),
        (Kind::And(v), false) | (Kind::Or(v), true) => Ltl::and(v.iter().map(|c| go(c, neg))),
        (Kind::Or(v), false) | (Kind::And(v), true) => Ltl::or(v.iter().map(|c| go(c, neg))),
        (Kind::Implies(a, b), false) => Ltl::or([go(a, true), go(b, false)]),
        (Kind::Implies(a, b), true) => Ltl::and([go(a, false), go(b, true)]),
        (Kind::Equiv(a, b), false) | (Kind::Xor(a, b), true) => Ltl::or([
            Ltl::and([go(a, false), go(b, false)]),
            Ltl::and([go(a, true), go(b, true)]),
        ]),
        (Kind::Equiv(a, b), true) | (Kind::Xor(a, b), false) => Ltl::or([
            Ltl::and([go(a, false), go(b, true)]),
            Ltl::and([go(a, true), go(b, false)]),
        ]),
        (Kind::Next(a), n) => Ltl::next(go(a, n)),
        (Kind::Finally(a), false) | (Kind::Globally(a), true) => Ltl::finally(go(a, neg)),
        (Kind::Globally(a), false) | (Kind::Finally(a), true) => Ltl::globally(go(a, neg)),
        (Kind::Until(a, b), false) => Ltl::until(go(a, false), go(b, false)),
        (Kind::Until(a, b), true) => Ltl::release(go(a, true), go(b, true)),
        (Kind::Release(a, b), false) => Ltl::release(go(a, false), go(b, false)),
        (Kind::Release(a, b), true) => Ltl::until(go(a, true), go(b, true)),
        (Kind::WeakUntil(a, b), false) => Ltl::weak_until(go(a, false), go(b, false)),
        (Kind::WeakUntil(a, b), true) => Ltl::strong_release(go(a, true), go(b, true)),
        (Kind::StrongRelease(a, b), false) => Ltl::strong_release(go(a, false), go(b, false)),
        (Kind::StrongRelease(a, b), true) => Ltl::weak_until(go(a, true), go(b, true)),
    };
    memo.insert((f.clone(), neg), r.clone());
    r
}

impl std::ops::Not for Ltl {
    type Output = Ltl;
    fn not(self) -> Ltl {
        Ltl::not(&self)
    }
}

impl std::ops::Not for &Ltl {
    type Output = Ltl;
    fn not(self) -> Ltl {
        Ltl::not(self)
    }
}

/// The operands of a conjunction, ready for an n-ary `&`: nested
/// conjunctions spliced in, `true` dropped, sorted and deduplicated.
/// `None` if some operand is `false` (the conjunction is `false`).
pub(crate) fn conjuncts(operands: Vec<Ltl>) -> Option<Vec<Ltl>> {
    junction_operands(operands, true)
}

/// The dual of [`conjuncts`]: operands of a disjunction, `false` dropped;
/// `None` if some operand is `true`.
pub(crate) fn disjuncts(operands: Vec<Ltl>) -> Option<Vec<Ltl>> {
    junction_operands(operands, false)
}

fn junction_operands(operands: Vec<Ltl>, conjunction: bool) -> Option<Vec<Ltl>> {
    let mut v: Vec<Ltl> = Vec::with_capacity(operands.len());
    for f in operands {
        match (f.kind(), conjunction) {
            (Kind::True, true) | (Kind::False, false) => {}
            (Kind::False, true) | (Kind::True, false) => return None,
            (Kind::And(xs), true) | (Kind::Or(xs), false) => v.extend(xs.iter().cloned()),
            _ => v.push(f),
        }
    }
    v.sort();
    v.dedup();
    Some(v)
}
