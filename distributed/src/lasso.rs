//! The accepting cycle that [`crate::owcty`] proved to exist, found and
//! told to every worker.
//!
//! In the states OWCTY kept, a source component (one no other kept state
//! has an edge into) holds an accepting cycle. A state `x` is in one
//! exactly when every kept state that reaches `x` is also reached from
//! it. So: from any kept `x`, the states that reach it (`B`, backwards,
//! over predecessor lists made once) and, among those, the states it
//! reaches (`C`, its component); if `B` has more, `x` moves to one of
//! `B`'s states outside `C` (the farthest back), whose `B` is smaller,
//! and again. Then the cycle, inside `C`: breadth first from `x` to an
//! edge of each acceptance set not yet taken, and back to `x`. Its prefix
//! is the breadth-first search's path to `x`.

use std::collections::HashMap;

use engine::Protocol;

use crate::message::{StateRef, Step};
use crate::owcty::members;
use crate::pass::{Arrival, Stopped, Walker};
use crate::Error;

/// An accepting cycle: the state it starts and ends at, and its steps.
pub(crate) struct Lasso {
    pub anchor: StateRef,
    pub cycle: Vec<Step>,
}

/// Finds an accepting cycle among the states `kept` (OWCTY's fixpoint, not
/// empty). `bound` is the product's states. Every worker calls it together.
///
/// # Errors
/// A lost process, or a worker that could not tell its part.
pub(crate) fn find<P: Protocol>(
    w: &mut Walker<'_, '_, P>,
    kept: &[bool],
    bound: u64,
) -> Result<Result<Lasso, Stopped>, Error> {
    let me = w.me();
    let n = w.len();
    // Predecessors inside `kept`, by target.
    let mut pairs: Vec<(u32, StateRef)> = Vec::new();
    let from = members(kept);
    let problem = w.spread(
        &from,
        |_| true,
        |a| {
            if kept[a.target as usize] {
                pairs.push((a.target, a.from));
            }
        },
    )?;
    pairs.sort_unstable_by_key(|&(t, f)| (t, f.worker, f.index));
    let mut starts = vec![0usize; n + 1];
    for &(t, _) in &pairs {
        starts[t as usize + 1] += 1;
    }
    for i in 0..n {
        starts[i + 1] += starts[i];
    }
    let preds = |t: u32| &pairs[starts[t as usize]..starts[t as usize + 1]];
    let first = from.first().map(|&i| {
        (
            0,
            StateRef {
                worker: me,
                index: i,
            },
        )
    });
    let mut x = match w.tally(0, first, problem)? {
        Err(stop) => return Ok(Err(stop)),
        Ok(a) => match a.pick {
            Some(x) => x,
            None => return Err(no_part(me, "no state was kept")),
        },
    };
    let component = loop {
        // Backwards from `x`, inside `kept`: each state's distance.
        let mut depth = vec![u32::MAX; n];
        let mut frontier = Vec::new();
        if x.worker == me {
            depth[x.index as usize] = 0;
            frontier.push(x.index);
        }
        let mut level = 0;
        loop {
            match w.tally(frontier.len() as u64, None, None)? {
                Err(stop) => return Ok(Err(stop)),
                Ok(a) if a.sum == 0 => break,
                Ok(_) => {}
            }
            level += 1;
            let back: Vec<StateRef> = frontier
                .iter()
                .flat_map(|&t| preds(t).iter().map(|&(_, f)| f))
                .collect();
            frontier.clear();
            for i in w.reach_back(&back)? {
                if depth[i as usize] == u32::MAX {
                    depth[i as usize] = level;
                    frontier.push(i);
                }
            }
        }
        // Forwards from `x`, inside what reaches it: its component.
        let mut within = vec![false; n];
        let mut frontier = Vec::new();
        if x.worker == me {
            within[x.index as usize] = true;
            frontier.push(x.index);
        }
        let flooded = w.flood(&mut frontier, None, |a, next| {
            let t = a.target as usize;
            if depth[t] != u32::MAX && !within[t] {
                within[t] = true;
                next.push(a.target);
            }
        })?;
        if let Err(stop) = flooded {
            return Ok(Err(stop));
        }
        // A state that reaches `x` and that `x` does not reach: the
        // farthest back of them.
        let outside = (0..n)
            .filter(|&i| depth[i] != u32::MAX && !within[i])
            .max_by_key(|&i| (depth[i], std::cmp::Reverse(i)));
        let count = (0..n)
            .filter(|&i| depth[i] != u32::MAX && !within[i])
            .count();
        let pick = outside.map(|i| {
            (
                u64::from(depth[i]),
                StateRef {
                    worker: me,
                    index: i as u32,
                },
            )
        });
        match w.tally(count as u64, pick, None)? {
            Err(stop) => return Ok(Err(stop)),
            Ok(a) if a.sum == 0 => break within,
            Ok(a) => match a.pick {
                Some(y) => x = y,
                None => return Err(no_part(me, "no state outside the component was named")),
            },
        }
    };
    // The cycle, inside the component.
    let marks = w.graph.all_marks();
    let mut cycle: Vec<Step> = Vec::new();
    let mut at = x;
    let mut taken = 0u32;
    for bit in (0..32).map(|b| 1u32 << b).filter(|b| marks & b != 0) {
        if taken & bit != 0 {
            continue;
        }
        match walk(w, &component, at, bound, |a| a.marks & bit != 0)? {
            Err(stop) => return Ok(Err(stop)),
            Ok((steps, end)) => {
                taken |= steps.iter().fold(0, |m, s| m | s.marks);
                cycle.extend(steps);
                at = end;
            }
        }
    }
    if cycle.is_empty() || at != x {
        let home = |a: &Arrival| x.worker == me && a.target == x.index;
        match walk(w, &component, at, bound, home)? {
            Err(stop) => return Ok(Err(stop)),
            Ok((steps, _)) => cycle.extend(steps),
        }
    }
    Ok(Ok(Lasso { anchor: x, cycle }))
}

/// Breadth first inside `within` from `start`, up to the first edge that
/// `goal` accepts (at least one step): the steps, and the state the last
/// one reaches.
fn walk<P: Protocol>(
    w: &mut Walker<'_, '_, P>,
    within: &[bool],
    start: StateRef,
    bound: u64,
    goal: impl Fn(&Arrival) -> bool,
) -> Result<Result<(Vec<Step>, StateRef), Stopped>, Error> {
    let me = w.me();
    let n = w.len();
    // Only the component's states get a step back: kept by number, not
    // in a vector over every stored state.
    let mut back: HashMap<u32, Step> = HashMap::new();
    let mut seen = vec![false; n];
    let mut frontier = Vec::new();
    if start.worker == me {
        seen[start.index as usize] = true;
        frontier.push(start.index);
    }
    let mut found: Option<(u32, Step)> = None;
    let mut problem = None;
    let target = loop {
        let pick = found.map(|(t, _)| {
            (
                0,
                StateRef {
                    worker: me,
                    index: t,
                },
            )
        });
        match w.tally(frontier.len() as u64, pick, problem.take())? {
            Err(stop) => return Ok(Err(stop)),
            Ok(a) => match a.pick {
                Some(t) => break t,
                None if a.sum == 0 => {
                    return Err(no_part(
                        me,
                        "a cycle's step inside its component was not found",
                    ))
                }
                None => {}
            },
        }
        let level = std::mem::take(&mut frontier);
        problem = w.spread(
            &level,
            |_| true,
            |a| {
                let t = a.target as usize;
                if !within[t] {
                    return;
                }
                let step = Step {
                    letter: a.letter,
                    q: a.q,
                    marks: a.marks,
                    parent: Some(a.from),
                };
                if found.is_none() && goal(&a) {
                    found = Some((a.target, step));
                }
                if !seen[t] {
                    seen[t] = true;
                    back.insert(a.target, step);
                    frontier.push(a.target);
                }
            },
        )?;
    };
    let last = w.told(target, || {
        found
            .map(|(_, s)| s)
            .expect("the owner of the pick found it")
    })?;
    let root = Step {
        letter: 0,
        q: 0,
        marks: 0,
        parent: None,
    };
    let Some(before) = last.parent else {
        return Err(no_part(me, "the last step of a cycle's part has no source"));
    };
    let mut steps = w.trace(before, bound, |i| back.get(&i).copied().unwrap_or(root))?;
    steps.push(last);
    Ok(Ok((steps, target)))
}

fn no_part(worker: u32, what: &str) -> Error {
    crate::lost::lost().unwrap_or(Error::Search {
        worker,
        message: format!("the search for an accepting cycle went wrong: {what}"),
    })
}
