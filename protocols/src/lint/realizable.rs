//! `realizable`: does the liberal (projected) object run only what the
//! strict object runs?
//!
//! The strict object follows the deterministic global LTS; the liberal one
//! lets every role act on its own knowledge (see [`crate::liberal`]). Both
//! are deterministic in their labels (a liberal role has at most one own
//! step per label, and takes only the first message of each sender), so a
//! liberal run is a word of labels and the question is trace inclusion:
//! a breadth-first search of the product of the liberal object's reachable
//! states (local states and inboxes) with the strict LTS's state, which
//! stops at the first liberal step that the strict state refuses. Breadth
//! first, so the witness is a shortest such run.
//!
//! The witness alone says *what* goes wrong; the summary also says *where
//! the runs part*: the last state of the strict run from which the role
//! that took the refused step could still have reached a state in which it
//! may take it (by the other roles' steps alone, which it cannot see), and
//! the step the strict run took there instead. That is the choice that no
//! one told the role about; if the runs part only in the last state, the
//! role did not wait for a step that the protocol puts first.
//!
//! Unlike the other checks this is not linear in the global LTS: the
//! projection is a subset construction per role and the product adds the
//! inboxes, which are unbounded when a role may send again before anything
//! it must wait for (`msg(T, a, b).star()`), so the product of such a
//! protocol is infinite. The search therefore runs within [`engine::Limits`] and a
//! limit makes it inconclusive, never clean; and it is not in the default
//! set (it would make the lint of every such protocol inconclusive).

use std::collections::VecDeque;

use hashbrown::HashMap;

use crate::ids::StateId;
use crate::limits::{self, Bounds, Budget};
use crate::lts::{Action, Label, Lts};
use crate::{Error, Projection};

use super::finding::{describe, Finding, Step};
use super::{search, Check};

/// [`Error::StateBound`]'s `what` for the product search.
pub(crate) const PRODUCT: crate::Built = crate::Built::RealizableProduct;

/// The `to` of the last step of a `realizable` witness: the strict object
/// has no such transition, so the step reaches no state of its LTS.
const REFUSED: StateId = StateId::NONE;

/// A message in an inbox: the label of its send and its tag.
type Envelope = (Label, u32);

/// A node of the product: the strict state, each role's local state, each
/// role's inbox in arrival order.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Node {
    strict: StateId,
    locals: Box<[u32]>,
    inboxes: Box<[Box<[Envelope]>]>,
}

impl Node {
    /// The 4-byte words a node takes, for the memory estimate.
    fn size(&self) -> usize {
        let envelope = std::mem::size_of::<Envelope>() / 4;
        1 + self.locals.len()
            + self
                .inboxes
                .iter()
                .map(|i| 1 + envelope * i.len())
                .sum::<usize>()
    }
}

/// The liberal steps from `node`: `(label, next node)` with the strict state
/// left as it is (the caller steps it).
fn liberal_steps(proj: &Projection, node: &Node) -> Vec<(Label, Node)> {
    let mut out = Vec::new();
    for (r, &local) in node.locals.iter().enumerate() {
        for &(label, next, tag) in proj.own_steps(r, local) {
            let mut n = node.clone();
            n.locals[r] = next;
            if label.action == Action::Send {
                let q = label.to.index();
                let mut inbox = n.inboxes[q].to_vec();
                inbox.push((label, tag));
                n.inboxes[q] = inbox.into();
            }
            out.push((label, n));
        }
        // only the first message of each sender is a candidate (FIFO
        // channels), as in `Projection::recv`
        let inbox = &node.inboxes[r];
        for (i, &(send, tag)) in inbox.iter().enumerate() {
            if inbox[..i].iter().any(|(s, _)| s.from == send.from) {
                continue;
            }
            // the receive of a send, as the projection pairs them
            let label = send.receive();
            if let Some(next) = proj.receive_step(r, local, label, tag) {
                let mut n = node.clone();
                n.locals[r] = next;
                let mut rest = inbox.to_vec();
                rest.remove(i);
                n.inboxes[r] = rest.into();
                out.push((label, n));
            }
        }
    }
    out
}

/// The successor of `state` by `label` in the deterministic `lts`.
fn strict_next(lts: &Lts, state: StateId, label: Label) -> Option<StateId> {
    let edges = lts.transitions(state);
    edges
        .binary_search_by(|(l, _)| l.cmp(&label))
        .ok()
        .map(|i| edges[i].1)
}

/// The `realizable` check of `lts` within `limits`: `Ok(None)` if every
/// run of the liberal object is a run of the strict one, `Ok(Some(f))`
/// with a shortest run that is not (its last step is refused by the strict
/// object and reaches [`StateId::NONE`]), or the limit that stopped the
/// determinisation, the projection or the search.
pub(crate) fn realizable(lts: &Lts, limits: &Bounds) -> Result<Option<Finding>, Error> {
    let proj = Projection::new_within(std::sync::Arc::new(lts.clone()), limits)?;
    let dlts = proj.lts().clone();
    let n = dlts.roles().len();
    let mut budget = Budget::new(limits, PRODUCT);
    let start = Node {
        strict: dlts.initial(),
        locals: (0..n).map(|r| proj.initial(r)).collect(),
        inboxes: vec![Box::<[Envelope]>::default(); n].into(),
    };
    let mut index: HashMap<Node, u32> = HashMap::new();
    // per node: its parent and the step from it (none for the start), and
    // the node itself
    let mut parent: Vec<Option<(u32, Label)>> = Vec::new();
    let mut nodes: Vec<Node> = Vec::new();
    budget.add_state(limits::indexed::<u32>(start.size()))?;
    index.insert(start.clone(), 0);
    parent.push(None);
    nodes.push(start);
    let mut queue = VecDeque::from([0u32]);
    while let Some(id) = queue.pop_front() {
        let node = nodes[id as usize].clone();
        for (label, mut next) in liberal_steps(&proj, &node) {
            budget.tick()?;
            let Some(t) = strict_next(&dlts, node.strict, label) else {
                return Ok(Some(finding(&proj, &nodes, &parent, id, label)));
            };
            next.strict = t;
            if index.contains_key(&next) {
                continue;
            }
            budget.add_state(limits::indexed::<u32>(next.size()))?;
            let nid = nodes.len() as u32;
            index.insert(next.clone(), nid);
            parent.push(Some((id, label)));
            nodes.push(next);
            queue.push_back(nid);
        }
    }
    Ok(None)
}

/// The finding for the liberal step `label` from node `at`, which the
/// strict object refuses: the run to `at`, the refused step, and where the
/// runs part.
fn finding(
    proj: &Projection,
    nodes: &[Node],
    parent: &[Option<(u32, Label)>],
    at: u32,
    label: Label,
) -> Finding {
    let lts = proj.lts();
    let mut witness = Vec::new();
    let mut id = at;
    while let Some((p, l)) = parent[id as usize] {
        witness.push(Step::new(
            lts,
            nodes[p as usize].strict,
            l,
            nodes[id as usize].strict,
        ));
        id = p;
    }
    witness.reverse();
    let node = &nodes[at as usize];
    witness.push(Step::new(lts, node.strict, label, REFUSED));
    let summary = parting(proj, &witness, node, label);
    Finding {
        check: Check::Realizable,
        channel: None,
        witness,
        cycle_start: None,
        witness_omitted: false,
        summary,
    }
}

/// Where the runs part, in words (see the module docs): the last strict
/// state of the witness from which the actor of the refused step `label`
/// could reach, by the other roles' steps, a state it considers possible
/// in which it may take `label`.
fn parting(proj: &Projection, witness: &[Step], node: &Node, label: Label) -> String {
    let lts = proj.lts();
    let actor = label.actor();
    let role = &lts.roles()[actor.index()];
    let k = witness.len() - 1;
    let refused = format!(
        "the liberal object may take step {} (`{}`), which the strict object refuses",
        k + 1,
        describe(lts, &label)
    );
    let mut target = vec![false; lts.num_states()];
    for &g in proj.global_states(actor.index(), node.locals[actor.index()]) {
        if strict_next(lts, g, label).is_some() {
            target[g.index()] = true;
        }
    }
    let others = |l: &Label| l.actor() != actor;
    let can_reach = search::backward(lts, &target, others);
    // strict states of the run: before step i is witness[i].from
    let Some(i) = (0..=k).rev().find(|&i| can_reach[witness[i].from.index()]) else {
        return format!("{refused}: {role} acts on a state the strict run never reaches");
    };
    let s = witness[i].from;
    let path = search::path_to(lts, s, |_| true, others, |g| target[g.index()])
        .map(|f| f.steps)
        .unwrap_or_default();
    let Some(instead) = path.first().map(|step| step.text.clone()) else {
        // `label` was possible in `s`; the step the strict run took there
        // ruled it out
        return format!(
            "{refused}: the runs part at the choice in strict state {s} (before step {}): the \
             strict run takes `{}`, which rules the refused step out, but {role}, not told, \
             takes it anyway",
            i + 1,
            witness[i].text
        );
    };
    if i == k {
        format!(
            "{refused}: {role} does not wait for `{instead}`, which the protocol puts first \
             (strict state {s}), and no message tells it to"
        )
    } else {
        format!(
            "{refused}: the runs part at the choice in strict state {s} (before step {}): the \
             strict run takes `{}`, but {role}, not told, acts as if `{instead}` had been taken",
            i + 1,
            witness[i].text
        )
    }
}
