//! Test support: explore a protocol object by probing its try-operations,
//! the way the engine does, and collect its traces.
#![allow(dead_code)]

pub mod formula;
pub mod gen;

use std::collections::{BTreeSet, HashMap, HashSet};

use engine::{Message, Protocol};
use protocols::Lts;
use protocols::{RoleIndex, StateId};

/// `"name"` or `"name:k"` of a bundled protocol, with its parameter (if
/// any) at its default but at most `max`: instances small enough to
/// explore whole.
pub fn small_instance(p: &protocols::bundled::BundledInfo, max: usize) -> String {
    match &p.param {
        Some(q) => format!("{}:{}", p.name, q.default.min(max)),
        None => p.name.to_string(),
    }
}

/// One dummy message per type name, as a check uses (what `dummies![]`
/// means for these objects).
pub fn dummies<P: Protocol>(p: &P) -> Vec<Message> {
    engine::declared_dummies(p)
}

/// Every enabled action of `p` with its successor, labelled in `.aut`
/// notation. Probes sends with each dummy to each other role, receives from
/// each other role, closes to each other role.
pub fn successors<P: Protocol>(p: &P, dummies: &[Message]) -> Vec<(String, P)> {
    let roles = p.roles();
    let mut out = Vec::new();
    for r in 0..roles.len() {
        for q in 0..roles.len() {
            if q == r {
                continue;
            }
            for d in dummies {
                let mut c = p.clone();
                if c.try_send(r, q, d.clone()).is_ok() {
                    out.push((format!("!({},{},{})", d.type_name(), roles[r], roles[q]), c));
                } else {
                    assert!(&c == p, "a refused send changed the object");
                }
            }
            let mut c = p.clone();
            match c.try_recv(r, Some(q)) {
                Ok((from, m)) => {
                    assert_eq!(from, q);
                    assert!(
                        p.may_recv(r, Some(q)) && p.may_recv(r, None),
                        "may_recv promised a refusal, but the receive succeeded"
                    );
                    out.push((format!("?({},{},{})", m.type_name(), roles[q], roles[r]), c));
                }
                Err(_) => assert!(&c == p, "a refused receive changed the object"),
            }
            let mut c = p.clone();
            if c.try_close(r, q).is_ok() {
                out.push((format!("C({},{})", roles[r], roles[q]), c));
            } else {
                assert!(&c == p, "a refused close changed the object");
            }
        }
    }
    out
}

/// All traces of length ≤ `n` (prefix closed). A trace that reaches a
/// state without successors before `n` ends with `END` or `DEADLOCK`.
pub fn traces<P: Protocol>(p: &P, n: usize) -> BTreeSet<Vec<String>> {
    let d = dummies(p);
    let mut out = BTreeSet::new();
    let mut memo: HashMap<(P, usize), BTreeSet<Vec<String>>> = HashMap::new();
    for t in suffixes(p, n, &d, &mut memo) {
        out.insert(t);
    }
    out
}

fn suffixes<P: Protocol>(
    p: &P,
    n: usize,
    d: &[Message],
    memo: &mut HashMap<(P, usize), BTreeSet<Vec<String>>>,
) -> BTreeSet<Vec<String>> {
    if let Some(s) = memo.get(&(p.clone(), n)) {
        return s.clone();
    }
    let mut out = BTreeSet::new();
    out.insert(Vec::new());
    if n > 0 {
        let succ = successors(p, d);
        if succ.is_empty() {
            out.insert(vec![
                if p.is_terminated() { "END" } else { "DEADLOCK" }.to_string()
            ]);
        }
        for (l, q) in succ {
            for mut t in suffixes(&q, n - 1, d, memo) {
                t.insert(0, l.clone());
                out.insert(t);
            }
        }
    }
    memo.insert((p.clone(), n), out.clone());
    out
}

/// The reachable states of `p` (at most `limit`), and one without
/// successors that is not terminated (a deadlock), if any.
pub fn reachable<P: Protocol>(p: &P, limit: usize) -> (usize, Option<P>) {
    let (n, deadlock, _) = explore(p, limit);
    (n, deadlock)
}

/// Whether a state without successors that is terminated is reachable.
pub fn can_end<P: Protocol>(p: &P, limit: usize) -> bool {
    explore(p, limit).2
}

fn explore<P: Protocol>(p: &P, limit: usize) -> (usize, Option<P>, bool) {
    let d = dummies(p);
    let mut seen: HashSet<P> = HashSet::new();
    let mut stack = vec![p.clone()];
    seen.insert(p.clone());
    let mut deadlock = None;
    let mut end = false;
    while let Some(s) = stack.pop() {
        let succ = successors(&s, &d);
        if succ.is_empty() && !s.is_terminated() && deadlock.is_none() {
            deadlock = Some(s.clone());
        }
        end |= succ.is_empty() && s.is_terminated();
        for (_, q) in succ {
            if seen.len() < limit && seen.insert(q.clone()) {
                stack.push(q);
            }
        }
    }
    (seen.len(), deadlock, end)
}

/// All label sequences of length ≤ `n` from the initial state of `lts`
/// (prefix closed), with whether some path with that label sequence ends
/// in a final state. Labels as the runtimes see them: a handshake's send
/// is written as a send (`!`, not `‽`; see `Label::asynchronous`).
pub fn lts_traces(lts: &Lts, n: usize) -> HashMap<Vec<String>, bool> {
    let mut out: HashMap<Vec<String>, bool> = HashMap::new();
    let mut frontier: Vec<(Vec<String>, StateId)> = vec![(Vec::new(), lts.initial())];
    while let Some((w, s)) = frontier.pop() {
        let e = out.entry(w.clone()).or_insert(false);
        *e |= lts.is_final(s);
        if w.len() < n {
            for (l, t) in lts.transitions(s) {
                let mut w2 = w.clone();
                w2.push(lts.label_text(&l.asynchronous()));
                frontier.push((w2, *t));
            }
        }
    }
    out
}

/// Checks that `b` can follow every run of `a` action by action (trace
/// inclusion: the objects are deterministic per action), exploring at most
/// `limit` pairs of states. Returns the number of pairs explored, or a
/// trace of `a` that `b` cannot follow.
pub fn followed_by<A: Protocol, B: Protocol>(
    a: &A,
    b: &B,
    limit: usize,
) -> Result<usize, Vec<String>> {
    let (da, db) = (dummies(a), dummies(b));
    let mut seen: HashSet<(A, B)> = HashSet::new();
    let mut queue = std::collections::VecDeque::from([(a.clone(), b.clone(), Vec::new())]);
    seen.insert((a.clone(), b.clone()));
    while let Some((x, y, trace)) = queue.pop_front() {
        let ys = successors(&y, &db);
        for (l, x2) in successors(&x, &da) {
            let mut t: Vec<String> = trace.clone();
            t.push(l.clone());
            let Some((_, y2)) = ys.iter().find(|(m, _)| *m == l) else {
                return Err(t);
            };
            if seen.len() < limit && seen.insert((x2.clone(), y2.clone())) {
                queue.push_back((x2, y2.clone(), t));
            }
        }
    }
    Ok(seen.len())
}

/// The role performing a labelled action, and the channel `(from, to)`.
pub fn actor_of(label: &str) -> (String, (String, String)) {
    let args: Vec<&str> = label[2..label.len() - 1].split(',').collect();
    let (actor, chan) = match &label[..1] {
        "C" => (args[0], (args[0], args[1])),
        "!" => (args[1], (args[1], args[2])),
        _ => (args[2], (args[1], args[2])),
    };
    (actor.to_string(), (chan.0.to_string(), chan.1.to_string()))
}

fn local_closure(lts: &Lts, role: RoleIndex, mut set: BTreeSet<StateId>) -> BTreeSet<StateId> {
    let mut stack: Vec<StateId> = set.iter().copied().collect();
    while let Some(s) = stack.pop() {
        for (l, t) in lts.transitions(s) {
            if l.actor() != role && set.insert(*t) {
                stack.push(*t);
            }
        }
    }
    set
}

/// Checks, on every run of `p` (at most `limit` product states), that each
/// role's own actions form a local behaviour of `lts` (a path of `lts` when
/// the other roles' actions are silent: a naive subset simulation of the
/// global LTS, independent of the liberal runtime's projection), and that
/// every receive takes the oldest message in transit on its channel.
pub fn locally_faithful<P: Protocol>(p: &P, lts: &Lts, limit: usize) -> Result<usize, Vec<String>> {
    type Chans = std::collections::BTreeMap<(String, String), std::collections::VecDeque<String>>;
    let d = dummies(p);
    let roles = p.roles();
    let sims: Vec<BTreeSet<StateId>> = (0..roles.len())
        .map(|r| {
            local_closure(
                lts,
                RoleIndex::from_index(r),
                BTreeSet::from([lts.initial()]),
            )
        })
        .collect();
    let mut seen: HashSet<(P, Vec<BTreeSet<StateId>>, Chans)> = HashSet::new();
    let start = (p.clone(), sims, Chans::new());
    seen.insert(start.clone());
    let mut queue = std::collections::VecDeque::from([(start, Vec::new())]);
    while let Some(((x, sims, chans), trace)) = queue.pop_front() {
        for (l, x2) in successors(&x, &d) {
            let mut t: Vec<String> = trace.clone();
            t.push(l.clone());
            let (who, chan) = actor_of(&l);
            let r = lts.role_id(&who).unwrap();
            let next: BTreeSet<StateId> = sims[r.index()]
                .iter()
                .flat_map(|&s| {
                    lts.transitions(s)
                        .iter()
                        .filter(|(m, _)| lts.label_text(&m.asynchronous()) == l)
                        .map(|&(_, t)| t)
                })
                .collect();
            if next.is_empty() {
                return Err(t);
            }
            let mut sims2 = sims.clone();
            sims2[r.index()] = local_closure(lts, r, next);
            let mut chans2 = chans.clone();
            let ty = l[2..].split(',').next().unwrap().to_string();
            match &l[..1] {
                "!" => chans2.entry(chan).or_default().push_back(ty),
                "?" if chans2.entry(chan).or_default().pop_front() != Some(ty) => return Err(t),
                _ => {}
            }
            let key = (x2, sims2, chans2);
            if seen.len() < limit && seen.insert(key.clone()) {
                queue.push_back((key, t));
            }
        }
    }
    Ok(seen.len())
}
