//! The compiled LTS against a direct, independent reading of the
//! definitions: on random small specifications, the label sequences of
//! length ≤ 6 of the compiled LTS are exactly the words of the reference
//! (sequence = concatenation, choice = union, interleaving = shuffle,
//! repetition = iterated concatenation, calls = the body, unfolded), cut to
//! prefixes, filtered by FIFO channels and by "a synchronous send is
//! immediately followed by its receive". Also the words after which the
//! protocol may end agree.

use crate::common;

use std::collections::HashMap;

use proptest::prelude::*;
use protocols::spec::{Spec, Term};

const N: usize = 6;

/// An event of the reference: its visible label and, for both halves of a
/// synchronous communication, the identity of that communication.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Ev {
    label: String,
    sync: Option<usize>,
    kind: char,
    chan: (String, String),
    ty: String,
}

/// Word → "a complete word" (the protocol may end after it).
type Lang = HashMap<Vec<Ev>, bool>;

fn insert(l: &mut Lang, w: Vec<Ev>, complete: bool) {
    *l.entry(w).or_insert(false) |= complete;
}

fn concat(a: &Lang, b: &Lang, n: usize) -> Lang {
    let mut out = Lang::new();
    for (u, &cu) in a {
        insert(&mut out, u.clone(), false);
        if cu {
            for (v, &cv) in b {
                if u.len() + v.len() <= n {
                    let mut w = u.clone();
                    w.extend(v.iter().cloned());
                    insert(&mut out, w, cv);
                }
            }
        }
    }
    out
}

fn shuffles(u: &[Ev], v: &[Ev], out: &mut Vec<Vec<Ev>>, acc: &mut Vec<Ev>) {
    if u.is_empty() && v.is_empty() {
        out.push(acc.clone());
        return;
    }
    if let Some((x, rest)) = u.split_first() {
        acc.push(x.clone());
        shuffles(rest, v, out, acc);
        acc.pop();
    }
    if let Some((x, rest)) = v.split_first() {
        acc.push(x.clone());
        shuffles(u, rest, out, acc);
        acc.pop();
    }
}

fn comm_events(ty: &str, p: &str, q: &str, sync: Option<usize>) -> (Ev, Ev) {
    let chan = (p.to_string(), q.to_string());
    let s = Ev {
        label: format!("!({ty},{p},{q})"),
        sync,
        kind: '!',
        chan: chan.clone(),
        ty: ty.into(),
    };
    let r = Ev {
        label: format!("?({ty},{p},{q})"),
        sync,
        kind: '?',
        chan,
        ty: ty.into(),
    };
    (s, r)
}

/// Prefixes (length ≤ n) of the words of `t`, marked complete if the word
/// itself is one of `t`.
fn lang(t: &Term, spec: &Spec, n: usize) -> Lang {
    let mut out = Lang::new();
    match t {
        Term::End => insert(&mut out, vec![], true),
        Term::Comm { ty, from, to, sync } => {
            let id = sync.then_some(t as *const Term as usize);
            let (s, r) = comm_events(ty, from.name(), to.name(), id);
            insert(&mut out, vec![], false);
            if n >= 1 {
                insert(&mut out, vec![s.clone()], false);
            }
            if n >= 2 {
                insert(&mut out, vec![s, r], true);
            }
        }
        Term::Close { from, to } => {
            insert(&mut out, vec![], false);
            if n >= 1 {
                let c = Ev {
                    label: format!("C({from},{to})"),
                    sync: None,
                    kind: 'C',
                    chan: (from.name().into(), to.name().into()),
                    ty: String::new(),
                };
                insert(&mut out, vec![c], true);
            }
        }
        Term::Seq(v) => {
            out = lang(&Term::End, spec, n);
            for x in v {
                let shortest = out.iter().filter(|(_, &c)| c).map(|(w, _)| w.len()).min();
                let Some(shortest) = shortest else { break };
                let lx = lang(x, spec, n - shortest);
                out = concat(&out, &lx, n);
            }
        }
        Term::Alt(v) => {
            insert(&mut out, vec![], false);
            for x in v {
                for (w, c) in lang(x, spec, n) {
                    insert(&mut out, w, c);
                }
            }
        }
        Term::Par(v) => {
            out = lang(&Term::End, spec, n);
            for x in v {
                let lx = lang(x, spec, n);
                let mut next = Lang::new();
                for (u, &cu) in &out {
                    for (w, &cw) in &lx {
                        if u.len() + w.len() <= n {
                            let mut all = Vec::new();
                            shuffles(u, w, &mut all, &mut Vec::new());
                            for s in all {
                                insert(&mut next, s, cu && cw);
                            }
                        }
                    }
                }
                out = next;
            }
        }
        Term::Star(a) => {
            let la = lang(a, spec, n);
            insert(&mut out, vec![], true);
            loop {
                let before = out.clone();
                let next = concat(&before, &la, n);
                for (w, c) in next {
                    insert(&mut out, w, c);
                }
                if out == before {
                    break;
                }
            }
        }
        Term::Call(name, args) => {
            let body = spec.definition(name).expect("defined").body(args);
            out = lang(&body, spec, n);
        }
    }
    out
}

/// FIFO per channel, and a synchronous send immediately followed by its
/// receive.
fn valid(w: &[Ev]) -> bool {
    let mut chans: HashMap<(String, String), std::collections::VecDeque<String>> = HashMap::new();
    for (i, e) in w.iter().enumerate() {
        match e.kind {
            '!' => {
                chans
                    .entry(e.chan.clone())
                    .or_default()
                    .push_back(e.ty.clone());
                if let (Some(id), Some(next)) = (e.sync, w.get(i + 1)) {
                    if !(next.kind == '?' && next.sync == Some(id) && next.chan == e.chan) {
                        return false;
                    }
                }
            }
            '?' if chans.entry(e.chan.clone()).or_default().pop_front() != Some(e.ty.clone()) => {
                return false
            }
            _ => {}
        }
    }
    true
}

fn reference(spec: &Spec) -> HashMap<Vec<String>, bool> {
    let mut out = HashMap::new();
    for (w, c) in lang(spec.main(), spec, N) {
        if valid(&w) {
            let v: Vec<String> = w.into_iter().map(|e| e.label).collect();
            *out.entry(v).or_insert(false) |= c;
        }
    }
    out
}

use common::gen::spec;

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn compiled_traces_equal_the_reference(spec in spec()) {
        let lts = common::gen::compile_or_skip(&spec)?;
        let got = common::lts_traces(&lts, N);
        let want = reference(&spec);
        let mut missing: Vec<_> = want.keys().filter(|w| !got.contains_key(*w)).collect();
        let mut extra: Vec<_> = got.keys().filter(|w| !want.contains_key(*w)).collect();
        missing.sort();
        extra.sort();
        prop_assert!(missing.is_empty() && extra.is_empty(),
            "spec {:?}\nmissing from the LTS: {:?}\nextra in the LTS: {:?}", spec.main(), missing, extra);
        for (w, c) in &want {
            prop_assert_eq!(got[w], *c, "may the protocol end after {:?}? spec {:?}", w, spec.main());
        }
    }
}
