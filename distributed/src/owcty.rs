//! Accepting cycles over the distributed product: OWCTY, "one way to
//! catch them young" (Černá and Pelánek, 2003; Barnat, Brim and Ročkai's
//! distributed form in DiVinE), for the automaton's generalised
//! acceptance on edges.
//!
//! Start from every reachable state, and repeat until nothing changes:
//! for each acceptance set `i`, keep only the states reachable (inside the
//! set kept) from the target of an edge marked `i` (*reset*); then remove,
//! again and again, the states that no kept state has an edge to
//! (*elimination*). What is left is empty exactly when no cycle is
//! accepting.
//!
//! Why a state left means an accepting cycle: in what is left every state
//! has a predecessor left, so a strongly connected component `C` of it
//! that no other component left has an edge into (a source component) has
//! a cycle; and for each `i`, every state of `C` is reachable from the
//! target of an edge marked `i` inside what is left, a target that can
//! only be in `C` (nothing outside reaches `C`), as can the edge's source
//! (it has an edge into `C`). So `C`'s cycles can take an edge of every
//! acceptance set. And no accepting cycle is ever removed: its states
//! reach each other through edges of every set, and each has a
//! predecessor on it. Each step is a few breadth-first passes over what
//! is left, the rounds of [`Walker`]. [`crate::lasso`] finds the cycle.

use crate::pass::{Stopped, Walker};
use crate::Error;
use engine::Protocol;

/// What the search for accepting cycles left: per state of this worker,
/// whether it is kept, and how many states all workers kept (or why a
/// limit or a worker's error stopped it).
pub(crate) type Kept = Result<(Vec<bool>, u64), Stopped>;

/// Runs OWCTY to its fixpoint, from the states `open` holds (per state of
/// this worker). Every worker must call it together.
///
/// # Errors
/// A lost process.
pub(crate) fn fixpoint<P: Protocol>(
    w: &mut Walker<'_, '_, P>,
    open: Vec<bool>,
) -> Result<Kept, Error> {
    let mut kept = open;
    let n = kept.iter().filter(|&&k| k).count();
    let marks = w.graph.all_marks();
    let mut size = match w.tally(n as u64, None, None)? {
        Ok(a) => a.sum,
        Err(stop) => return Ok(Err(stop)),
    };
    loop {
        // The last reset expands every state it keeps, once: the edges
        // it sees are those the elimination counts, so it counts them.
        let mut into = None;
        for bit in (0..32).map(|b| 1u32 << b).filter(|b| marks & b != 0) {
            match reset(w, &mut kept, bit)? {
                Ok(counted) => into = Some(counted),
                Err(stop) => return Ok(Err(stop)),
            }
        }
        if let Err(stop) = eliminate(w, &mut kept, into)? {
            return Ok(Err(stop));
        }
        let left = kept.iter().filter(|&&k| k).count() as u64;
        let now = match w.tally(left, None, None)? {
            Ok(a) => a.sum,
            Err(stop) => return Ok(Err(stop)),
        };
        // Sets only shrink: the same size is a round that changed nothing.
        if now == size || now == 0 {
            return Ok(Ok((kept, now)));
        }
        size = now;
    }
}

/// The numbers of the states `set` holds.
pub(crate) fn members(set: &[bool]) -> Vec<u32> {
    (0..set.len() as u32).filter(|&i| set[i as usize]).collect()
}

/// Keeps only the states reachable inside `kept` from the target of an
/// edge marked `bit` (both ends kept). Every state kept is expanded once
/// on the way: per state, the edges from kept states into it.
fn reset<P: Protocol>(
    w: &mut Walker<'_, '_, P>,
    kept: &mut [bool],
    bit: u32,
) -> Result<Result<Vec<u32>, Stopped>, Error> {
    let mut reached = vec![false; kept.len()];
    let mut into = vec![0u32; kept.len()];
    let mut frontier = Vec::new();
    let from = members(kept);
    let problem = {
        let kept = &*kept;
        w.spread(
            &from,
            |m| m & bit != 0,
            |a| {
                let t = a.target as usize;
                if kept[t] && !reached[t] {
                    reached[t] = true;
                    frontier.push(a.target);
                }
            },
        )?
    };
    let kept_now = &*kept;
    let flooded = w.flood(&mut frontier, problem, |a, next| {
        let t = a.target as usize;
        // Saturating: a count only matters for a state kept, whose
        // predecessors kept are at most its stored edges.
        into[t] = into[t].saturating_add(1);
        if kept_now[t] && !reached[t] {
            reached[t] = true;
            next.push(a.target);
        }
    })?;
    if let Err(stop) = flooded {
        return Ok(Err(stop));
    }
    for (k, r) in kept.iter_mut().zip(&reached) {
        *k &= *r;
    }
    Ok(Ok(into))
}

/// Removes, until none is left, the kept states that no kept state has
/// an edge to. `counted`: per state, the edges from kept states into it,
/// if known (else a pass counts them).
fn eliminate<P: Protocol>(
    w: &mut Walker<'_, '_, P>,
    kept: &mut [bool],
    counted: Option<Vec<u32>>,
) -> Result<Result<(), Stopped>, Error> {
    let from = members(kept);
    let (mut into, problem) = match counted {
        Some(into) => (into, None),
        None => {
            let mut into = vec![0u32; kept.len()];
            let kept = &*kept;
            let problem = w.spread(
                &from,
                |_| true,
                |a| {
                    if kept[a.target as usize] {
                        into[a.target as usize] += 1;
                    }
                },
            )?;
            (into, problem)
        }
    };
    let mut gone: Vec<u32> = from
        .into_iter()
        .filter(|&i| into[i as usize] == 0)
        .collect();
    for &i in &gone {
        kept[i as usize] = false;
    }
    w.flood(&mut gone, problem, |a, next| {
        let t = a.target as usize;
        if kept[t] {
            into[t] -= 1;
            if into[t] == 0 {
                kept[t] = false;
                next.push(a.target);
            }
        }
    })
}
