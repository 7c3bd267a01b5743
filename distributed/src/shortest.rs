//! The shortest accepting lasso, as the engine's own shortening finds it
//! ([`engine::Checker::shortest`]): of least length, prefix and cycle
//! together, counting actions, then steps.
//!
//! Every state on an accepting cycle is among those [`crate::owcty`] kept,
//! with its whole strongly connected component (its states are on
//! accepting cycles too). So the states kept and the edges between them
//! are gathered on the first worker, with each state's distance from the
//! initial state (the levels of the breadth-first search are in that
//! order, see [`crate::level`]), and [`engine::shortest_lasso`] runs on
//! them there: the same search the one-machine shortening runs on the
//! whole product, so both show lassos of one length. Components of the
//! kept graph are those of the product for the states of an accepting
//! one, which are the only ones it keeps as anchors.
//!
//! The kept states can be most of the product (a formula whose negation
//! accepts nearly every run): they are gathered only up to an allowance,
//! as the engine shortens only up to one, and otherwise the lasso
//! [`crate::lasso`] finds is shown, saying why it is not a shortest one.

use std::collections::HashMap;

use engine::shortest_lasso::{shortest_lasso, step_length, LassoGraph, Len};
use engine::Protocol;

use crate::lasso::Lasso;
use crate::level::Dist;
use crate::message::{Gathered, GatheredEdge, LimitHit, Msg, Problem, Shortest, StateRef, Step};
use crate::owcty::members;
use crate::pass::{Stopped, Walker};
use crate::Error;

/// How to ask for a shortest counterexample whatever it costs.
const ASK: &str = "ask for a shortest one with --shortest (Checker::shortest(true)), up to the \
                   state limit";

/// How many pairs the first worker visits between two looks at the clock
/// and the memory.
const TICK_EVERY: u64 = 1024;

/// What the search for the shortest lasso ended with, the same on every
/// worker.
pub(crate) enum Shortened {
    /// A shortest lasso.
    Found(Lasso),
    /// Not searched: why (its cost, over `allowance`).
    Skipped(String),
}

/// Finds a shortest accepting lasso among the states `kept` (`total` of
/// them over every worker, not none), whose distances are `dist`, if
/// gathering them and searching their pairs costs at most `allowance`
/// states and pairs; or `bad`, the first bad state met, if no lasso is
/// shorter (its lasso has no cycle). Every worker calls it together.
///
/// # Errors
/// A lost process.
pub(crate) fn find<P: Protocol>(
    w: &mut Walker<'_, '_, P>,
    kept: &[bool],
    total: u64,
    dist: &[Dist],
    bad: Option<StateRef>,
    allowance: u64,
) -> Result<Result<Shortened, Stopped>, Error> {
    if total > allowance {
        return Ok(Ok(Shortened::Skipped(format!(
            "finding a shortest one would gather the {total} states that can lie on an \
             accepting cycle on one worker, more than the {allowance} allowed; {ASK}"
        ))));
    }
    let me = w.me();
    let from = members(kept);
    let mut part = Gathered {
        worker: me,
        states: from
            .iter()
            .map(|&i| (i, dist[i as usize].0, dist[i as usize].1))
            .collect(),
        edges: Vec::new(),
        bad: bad
            .filter(|b| b.worker == me)
            .map(|b| (b.index, dist[b.index as usize].0, dist[b.index as usize].1)),
    };
    let problem = w.spread(
        &from,
        |_| true,
        |a| {
            if kept[a.target as usize] {
                part.edges.push(GatheredEdge {
                    from: a.from,
                    to: a.target,
                    letter: a.letter,
                    q: a.q,
                    marks: a.marks,
                });
            }
        },
    )?;
    if let Err(stop) = w.tally(0, None, problem)? {
        return Ok(Err(stop));
    }
    let mut parts = Vec::new();
    if me == 0 {
        parts.push(part);
    } else {
        w.counts.bytes_sent += part_size(&part);
        w.rounds.send(0, Msg::Gather(part));
    }
    for msg in w.rounds.finish()? {
        if let Msg::Gather(p) = msg {
            w.counts.bytes_received += part_size(&p);
            parts.push(p);
        }
    }
    if me == 0 {
        let found = search(w, parts, total, allowance);
        w.rounds.broadcast(Msg::Shortest(found));
    }
    let told = w.rounds.finish()?.into_iter().find_map(|msg| match msg {
        Msg::Shortest(s) => Some(s),
        _ => None,
    });
    Ok(match told {
        Some(Shortest::Found { anchor, cycle }) => Ok(Shortened::Found(Lasso { anchor, cycle })),
        Some(Shortest::Skipped(why)) => Ok(Shortened::Skipped(why)),
        Some(Shortest::Stopped(Problem::Limit(hit))) => Err(Stopped::Limit(hit)),
        Some(Shortest::Stopped(Problem::Error(e))) => Err(Stopped::Failed(0, e)),
        None => {
            return Err(crate::lost::lost().unwrap_or(Error::Search {
                worker: 0,
                message: "the first worker did not tell the shortest lasso".to_string(),
            }))
        }
    })
}

/// The first worker's part: the graph of the gathered `parts`, and its
/// shortest lasso.
fn search<P: Protocol>(
    w: &mut Walker<'_, '_, P>,
    parts: Vec<Gathered>,
    total: u64,
    allowance: u64,
) -> Shortest {
    let mut ids: HashMap<StateRef, u32> = HashMap::new();
    let mut refs: Vec<StateRef> = Vec::new();
    let mut dist: Vec<Len> = Vec::new();
    // The bad state, if any, is a state of its own without edges: an end.
    let mut bad = None;
    for p in &parts {
        if let Some((index, actions, steps)) = p.bad {
            bad = Some(refs.len() as u32);
            refs.push(StateRef {
                worker: p.worker,
                index,
            });
            dist.push((actions, steps));
        }
    }
    for p in &parts {
        for &(index, actions, steps) in &p.states {
            let r = StateRef {
                worker: p.worker,
                index,
            };
            ids.insert(r, refs.len() as u32);
            refs.push(r);
            dist.push((actions, steps));
        }
    }
    let mut out: Vec<Vec<(u32, GatheredEdge)>> = vec![Vec::new(); refs.len()];
    for p in &parts {
        for e in &p.edges {
            let to = StateRef {
                worker: p.worker,
                index: e.to,
            };
            match (ids.get(&e.from), ids.get(&to)) {
                (Some(&x), Some(&y)) => out[x as usize].push((y, *e)),
                _ => {
                    return Shortest::Stopped(Problem::Error(
                        "an edge between kept states names a state not gathered".to_string(),
                    ))
                }
            }
        }
    }
    drop(parts);
    // The same order of edges whatever the order the parts arrived in: the
    // same lasso every run.
    for edges in &mut out {
        edges.sort_unstable_by_key(|(y, e)| {
            (
                refs[*y as usize].worker,
                refs[*y as usize].index,
                e.letter,
                e.q,
                e.marks,
            )
        });
    }
    let stutter = w.graph.stutter_letters();
    let weight = move |e: &GatheredEdge| step_length(stutter.contains(&e.letter));
    let g = LassoGraph {
        out: &out,
        dist: &dist,
        dead_end: &|x| Some(x) == bad,
        weight: &weight,
        marks: &|e: &GatheredEdge| e.marks,
    };
    let limits = w.limits;
    // The gathered graph is what takes the memory: dropped, the violation
    // is still shown (the lasso found without it); out of time, nothing is.
    let stopped = |hit| match hit {
        LimitHit::Memory(_) => Shortest::Skipped(
            "finding a shortest one reached the memory limit on the first worker, which \
             holds every state that can lie on an accepting cycle"
                .to_string(),
        ),
        hit => Shortest::Stopped(Problem::Limit(hit)),
    };
    let found = shortest_lasso(
        &g,
        w.graph.all_marks(),
        |pairs| {
            if total + pairs > allowance {
                return Err(Shortest::Skipped(format!(
                    "finding a shortest one would visit more than {allowance} states and \
                     (state, marks) pairs, the allowance; {ASK}"
                )));
            }
            if pairs % TICK_EVERY != 0 {
                return Ok(());
            }
            limits.reached().map_or(Ok(()), |hit| Err(stopped(hit)))
        },
        || limits.reached().map_or(Ok(()), |hit| Err(stopped(hit))),
    );
    match found {
        Ok(Some(l)) => Shortest::Found {
            anchor: refs[l.anchor as usize],
            cycle: l
                .cycle
                .iter()
                .map(|e| Step {
                    letter: e.letter,
                    q: e.q,
                    marks: e.marks,
                    parent: Some(e.from),
                })
                .collect(),
        },
        // OWCTY kept states only where an accepting cycle is: none found
        // among them is a fault, not a verdict.
        Ok(None) => Shortest::Stopped(Problem::Error(
            "no accepting cycle was found among the states kept for one".to_string(),
        )),
        Err(stop) => stop,
    }
}

/// The bytes a gathered part takes on the wire, about.
fn part_size(p: &Gathered) -> u64 {
    (p.states.len() * 12 + p.edges.len() * std::mem::size_of::<GatheredEdge>()) as u64
}
