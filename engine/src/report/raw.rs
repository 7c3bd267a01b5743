//! From the search's raw lasso (letters and stored states) to the report's
//! readable steps, and the re-execution that checks it first.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::alphabet::LetterId;
use crate::ids::{ProtoId, Successor};
use crate::protocol::ActionKind;
use crate::protocol::Protocol;
use crate::successors::Successors;
use crate::Error;

use super::{CounterexampleStep, Ending};

/// A lasso in the product, before it is turned into readable steps.
#[derive(Clone)]
pub(crate) struct RawLasso {
    /// The steps (letter, then the protocol and automaton state reached)
    /// from the initial state to the cycle anchor.
    pub prefix: Vec<Successor>,
    /// The cycle, ending back at the anchor; empty for a bad prefix.
    pub cycle: Vec<Successor>,
}

impl RawLasso {
    /// Its length in the product as the shortest counterexample counts it
    /// (see [`Checker::shortest`](crate::Checker::shortest)): (actions,
    /// steps), a stutter step no action.
    pub(crate) fn product_length(&self, is_stutter: impl Fn(LetterId) -> bool) -> (u64, u64) {
        let all = self.prefix.iter().chain(&self.cycle);
        all.fold((0, 0), |(a, s), t| {
            let (da, ds) = crate::shortest_lasso::step_length(is_stutter(t.letter));
            (a + u64::from(da), s + u64::from(ds))
        })
    }

    /// The same run of the object as a lasso with fewer steps, where the
    /// run repeats itself: a cycle that is a shorter cycle taken several
    /// times is shown once, and while the prefix ends with the step that
    /// ends the cycle, taken from the same object state, that step joins
    /// the cycle (the cycle then starts one step earlier). The run, and
    /// so the word the property reads, is the same; only the product's
    /// cycle is gone: the automaton may need the object's cycle taken
    /// more than once before it settles (a transient state), which is
    /// why the shortest lasso of the product can be longer than the run
    /// needs. Objects are compared by id; the replay before a lasso is
    /// shown compares the objects themselves. Finite runs (a stutter
    /// step) and bad prefixes (no cycle) are left as they are.
    pub(crate) fn folded(
        mut self,
        initial: ProtoId,
        is_stutter: impl Fn(LetterId) -> bool,
    ) -> Self {
        if self.cycle.is_empty()
            || self
                .prefix
                .iter()
                .chain(&self.cycle)
                .any(|s| is_stutter(s.letter))
        {
            return self;
        }
        let same = |a: &Successor, b: &Successor| a.letter == b.letter && a.proto == b.proto;
        let m = self.cycle.len();
        if let Some(d) = (1..m).find(|&d| {
            m.is_multiple_of(d) && (d..m).all(|i| same(&self.cycle[i], &self.cycle[i - d]))
        }) {
            self.cycle.truncate(d);
        }
        while let Some(last) = self.prefix.last() {
            let n = self.prefix.len();
            let m = self.cycle.len();
            let from_p = if n >= 2 {
                self.prefix[n - 2].proto
            } else {
                initial
            };
            // The cycle's last step starts where its second to last ends,
            // or at the anchor for a cycle of one step.
            let from_c = if m >= 2 {
                self.cycle[m - 2].proto
            } else {
                last.proto
            };
            if !same(last, &self.cycle[m - 1]) || from_p != from_c {
                break;
            }
            self.prefix.pop();
            self.cycle.rotate_right(1);
        }
        self
    }
}

/// Determinism check on a counterexample: re-executes `raw` on a fresh
/// clone of the initial object, one action after the other on that one
/// object, as a run would (the search only ever probed clones of stored
/// states). Every step must go through, receive the message of the step
/// and give an object equal to the state the search stored; the cycle
/// then closes on an equal object, and an ending (END, DEADLOCK) must hold
/// on the object reached. Otherwise the violation cannot be reproduced:
/// [`Error::Nondeterminism`] naming the step, rather than a counterexample
/// that `replay` would reject. Catches behaviour that changes after the
/// search's probes (a global counter, the number of clones).
pub(crate) fn reexecute<P: Protocol>(
    ex: &Successors<P>,
    initial: ProtoId,
    raw: &RawLasso,
) -> Result<(), Error> {
    let a = &ex.alphabet;
    let mut trace = Vec::new();
    let mut at = "(the start)".to_string();
    let r = catch_unwind(AssertUnwindSafe(|| {
        let mut obj = ex.store.get(initial).clone();
        // The object where the cycle starts: the cycle must close on an
        // object equal (`Eq`) to it. Under hash compaction the store knows
        // the states only by fingerprint, so this comparison, not the
        // store's, is what makes the cycle certain.
        let mut anchor = raw.prefix.is_empty().then(|| obj.clone());
        let steps = raw.prefix.iter().chain(&raw.cycle).enumerate();
        for (i, s) in steps {
            let (letter, p) = (s.letter, s.proto);
            let n = i + 1;
            if letter == a.end() || letter == a.deadlock() {
                at = a.describe(letter);
                if letter == a.end() && !obj.is_terminated() {
                    return Err(format!(
                        "step {n} did not hold: is_terminated() is false on the object reached"
                    ));
                }
                if let Some(l) = ex.first_enabled_on(&obj) {
                    return Err(format!(
                        "step {n} did not hold: `{}` is enabled on the object reached",
                        a.describe_probe(l)
                    ));
                }
                return Ok(());
            }
            at = a.describe(letter);
            ex.step_on(&mut obj, letter)
                .map_err(|why| format!("step {n} could not be replayed ({why})"))?;
            let closes = i + 1 == raw.prefix.len() + raw.cycle.len() && !raw.cycle.is_empty();
            if !ex.store.matches(p, &obj) || (closes && anchor.as_ref().is_some_and(|a| a != &obj))
            {
                return Err(format!(
                    "step {n} gave an object unequal to the one the search stored{}",
                    if closes {
                        " (the cycle does not close)"
                    } else {
                        ""
                    }
                ));
            }
            if i + 1 == raw.prefix.len() {
                anchor = Some(obj.clone());
            }
            trace.push(at.clone());
        }
        Ok(())
    }));
    match r {
        Ok(Ok(())) => Ok(()),
        Ok(Err(detail)) => Err(Error::Nondeterminism {
            action: at,
            detail: format!(
                "behaved differently when the counterexample was re-executed on a fresh clone of \
                 the initial object: {detail}; the violation found cannot be reproduced{}",
                if ex.store.is_compacted() {
                    " (under hash compaction a fingerprint shared by two states can also cause \
                     this, though the chance is tiny: rerun without hash compaction to tell)"
                } else {
                    ""
                }
            ),
            trace,
        }),
        Err(payload) => Err(Error::ProtocolPanic {
            action: at,
            message: crate::panic_message(payload.as_ref()),
            trace,
        }),
    }
}

/// Turns a raw lasso into readable steps; a lasso that reaches a stutter
/// step is a finite run followed by its ending.
pub(crate) fn steps_of<P: Protocol>(
    ex: &Successors<P>,
    raw: &RawLasso,
) -> (
    Vec<CounterexampleStep>,
    Vec<CounterexampleStep>,
    Option<Ending>,
) {
    let a = &ex.alphabet;
    let is_stutter = |l: LetterId| l == a.end() || l == a.deadlock();
    let step = |s: &Successor| {
        let (letter, q) = (s.letter, s.state);
        let l = a.letter(letter);
        let close = l.kind == ActionKind::Close;
        CounterexampleStep {
            role: l.role,
            role_name: a.roles[l.role].clone(),
            kind: l.kind,
            type_name: (!close).then(|| a.types[l.ty].short().to_string()),
            peer: l.peer,
            peer_name: a.roles[l.peer].clone(),
            automaton_state: q.index(),
            message: (l.kind == ActionKind::Send)
                .then(|| a.types[l.ty].dummy.clone())
                .flatten(),
        }
    };
    let all = raw.prefix.iter().chain(&raw.cycle);
    if let Some(&Successor {
        letter, proto: p, ..
    }) = all.clone().find(|s| is_stutter(s.letter))
    {
        let steps = all
            .take_while(|s| !is_stutter(s.letter))
            .map(step)
            .collect();
        let ending = if letter == a.end() {
            Ending::Terminated
        } else {
            let obj = ex.store.get(p);
            let waiting = (0..a.roles.len())
                .filter(|&r| !obj.is_finished(r))
                .map(|r| a.roles[r].clone())
                .collect();
            Ending::Deadlock { waiting }
        };
        return (steps, Vec::new(), Some(ending));
    }
    let ending = raw.cycle.is_empty().then_some(Ending::AnyContinuation);
    (
        raw.prefix.iter().map(step).collect(),
        raw.cycle.iter().map(step).collect(),
        ending,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::AutState;

    /// A step by letter `l` to object `p`, the automaton in state `q`.
    fn step(l: LetterId, p: usize, q: usize) -> Successor {
        Successor {
            letter: l,
            proto: ProtoId::new(p),
            state: AutState::new(q),
            acc: 0,
        }
    }

    /// Letters and object indices of a lasso's steps.
    type Steps = Vec<(LetterId, usize)>;

    fn shape(raw: &RawLasso) -> (Steps, Steps) {
        let of = |s: &[Successor]| s.iter().map(|s| (s.letter, s.proto.index())).collect();
        (of(&raw.prefix), of(&raw.cycle))
    }

    const STUTTER: LetterId = 99;

    fn fold(prefix: Vec<Successor>, cycle: Vec<Successor>) -> RawLasso {
        RawLasso { prefix, cycle }.folded(ProtoId::new(0), |l| l == STUTTER)
    }

    #[test]
    fn a_prefix_that_repeats_the_cycle_joins_it() {
        // 0 -a-> 1 -b-> 0 -a-> 1, then the cycle b, a back to 1: the run
        // is (a b) forever from the start.
        let raw = fold(
            vec![step(1, 1, 1), step(2, 0, 2), step(1, 1, 3)],
            vec![step(2, 0, 3), step(1, 1, 3)],
        );
        assert_eq!(shape(&raw), (vec![], vec![(1, 1), (2, 0)]));
    }

    #[test]
    fn a_cycle_taken_twice_is_shown_once() {
        let raw = fold(
            vec![step(3, 5, 1)],
            vec![step(1, 6, 1), step(2, 5, 2), step(1, 6, 2), step(2, 5, 1)],
        );
        assert_eq!(shape(&raw), (vec![(3, 5)], vec![(1, 6), (2, 5)]));
    }

    #[test]
    fn a_step_from_another_state_stays_in_the_prefix() {
        // The prefix ends with the cycle's letter into the anchor, but
        // from object 2, where the cycle's last step starts at object 1.
        let raw = fold(vec![step(1, 2, 1), step(3, 1, 1)], vec![step(3, 1, 1)]);
        assert_eq!(shape(&raw), (vec![(1, 2), (3, 1)], vec![(3, 1)]));
        let raw = fold(
            vec![step(1, 2, 1), step(2, 3, 1)],
            vec![step(4, 1, 1), step(2, 3, 1)],
        );
        // Same letter into the anchor, from 2 before the prefix's step and
        // from 1 before the cycle's: a different transition.
        assert_eq!(shape(&raw), (vec![(1, 2), (2, 3)], vec![(4, 1), (2, 3)]));
    }

    #[test]
    fn finite_runs_and_bad_prefixes_are_left_as_they_are() {
        let ended = fold(vec![step(1, 0, 1)], vec![step(STUTTER, 0, 1)]);
        assert_eq!(shape(&ended), (vec![(1, 0)], vec![(STUTTER, 0)]));
        let bad = fold(vec![step(1, 0, 1), step(1, 0, 1)], vec![]);
        assert_eq!(shape(&bad), (vec![(1, 0), (1, 0)], vec![]));
    }
}
