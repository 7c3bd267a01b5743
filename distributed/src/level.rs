//! The levels of the breadth-first search, in the order of the engine's
//! shortest counterexample: fewest actions first, then fewest steps.
//!
//! A counterexample's length counts the object's actions; a stutter step
//! (END or DEADLOCK: a finite run going on for ever) costs none (see
//! [`engine::Checker::shortest`]). A path in steps alone can be the
//! shorter one while it has more actions: `a` then three stutter steps
//! against two actions `b c`. So a level is the states first reached with
//! the same number of actions, `a`, and is searched in rounds: the
//! states reached by an action step (all actions: `a` steps), then those
//! reached from them by stutter steps, a step a round, until none is new.
//! The states an action step of the level reaches belong to the next one;
//! they are stored at once, and one that a stutter step of this level
//! reaches later is this level's after all (it moves, with its parent).
//! Stutter steps only leave states of a run that ended, so the rounds after
//! the first of a level expand only those.
//!
//! Every state's parent is then the last step of a path to it of fewest
//! actions, of those of fewest steps; the first bad state met is a
//! shortest violation's end; and each state's distance, (actions,
//! steps), is known when it is stored (kept for the search for accepting
//! cycles, which needs it for the shortest lasso).

use std::collections::HashSet;

use engine::shortest_lasso::{step_length, then};

use crate::exchange::Rounds;
use crate::message::{Batch, Counts, LimitHit, Msg, StateRef, Summary};
use crate::search::{batch_size, state_hash, WorkerLimits};
use crate::store::Owned;

/// How big a batch grows before it is sent, during the expansion: large
/// enough that a batch's costs (a message, a serialisation) are spread
/// over thousands of states, small enough that a level's successors are
/// not all held by their maker.
pub(crate) const BATCH_BYTES: u64 = 64 << 10;

/// A distance: (actions, steps), as the engine measures a shortest
/// counterexample.
pub(crate) type Dist = engine::shortest_lasso::Len;

/// Stores the successors of a round as they come, and keeps the levels
/// apart (see the module docs).
pub(crate) struct Settle<'a> {
    me: u32,
    limits: &'a WorkerLimits,
    /// Per automaton state: whether reaching it violates the formula.
    bad: &'a [bool],
    /// The two stutter letters.
    stutter: [u32; 2],
    /// The distance of the states this round expands.
    pub at: Dist,
    /// Stored in this round by a stutter step: the next round's.
    pub by_stutter: Vec<u32>,
    /// Stored in this level by an action step: the next level, in
    /// ascending numbers (as stored).
    by_action: Vec<u32>,
    /// Of `by_action`, those that a stutter step reached since: this
    /// level's after all.
    moved: HashSet<u32>,
    /// Of `by_action`, the bad ones.
    bad_next: Vec<u32>,
    /// Per state, its distance, if asked for.
    pub dist: Option<Vec<Dist>>,
}

impl<'a> Settle<'a> {
    /// The levels of a search from the initial state, stored already
    /// as state 0 of this worker if `initial_here`; `keep_dist`: keep
    /// every state's distance.
    pub(crate) fn new(
        me: u32,
        limits: &'a WorkerLimits,
        bad: &'a [bool],
        stutter: [u32; 2],
        keep_dist: bool,
        initial_here: bool,
    ) -> Self {
        let dist = keep_dist.then(|| {
            if initial_here {
                vec![(0, 0)]
            } else {
                Vec::new()
            }
        });
        Settle {
            me,
            limits,
            bad,
            stutter,
            at: (0, 0),
            by_stutter: Vec::new(),
            by_action: Vec::new(),
            moved: HashSet::new(),
            bad_next: Vec::new(),
            dist,
        }
    }

    /// A batch for worker `to`: stored here at once if `to` is this
    /// worker, else sent.
    pub(crate) fn hand_over(
        &mut self,
        rounds: &mut Rounds,
        to: usize,
        batch: Batch,
        owned: &mut Owned,
        summary: &mut Summary,
        counts: &mut Counts,
    ) {
        if to == self.me as usize {
            self.store(&batch, owned, summary);
        } else {
            counts.bytes_sent += batch_size(&batch);
            rounds.send(to, Msg::States(batch));
        }
    }

    /// A message of the round: a batch is stored.
    pub(crate) fn message(
        &mut self,
        msg: Msg,
        owned: &mut Owned,
        summary: &mut Summary,
        counts: &mut Counts,
    ) {
        if let Msg::States(batch) = msg {
            counts.bytes_received += batch_size(&batch);
            self.store(&batch, owned, summary);
        }
    }

    /// Notes, at the end of a round, what the next level holds so far:
    /// its size and a bad state of it.
    pub(crate) fn sum_up(&self, summary: &mut Summary) {
        summary.next_level = (self.by_action.len() - self.moved.len()) as u64;
        summary.bad_next = self
            .bad_next
            .iter()
            .find(|i| !self.moved.contains(i))
            .map(|&index| StateRef {
                worker: self.me,
                index,
            });
    }

    /// The next level's states, once no stutter step of this level is
    /// left (every worker's round stored none by one).
    pub(crate) fn next_level(&mut self) -> Vec<u32> {
        let mut next = std::mem::take(&mut self.by_action);
        if !self.moved.is_empty() {
            next.retain(|i| !self.moved.contains(i));
        }
        self.moved.clear();
        self.bad_next.clear();
        // Actions reach the next level only from states of runs that go
        // on, which no stutter step has reached: as many steps as actions.
        self.at = then((self.at.0, self.at.0), step_length(false));
        next
    }

    /// Stores the batch's states that are new (each in this level or the
    /// next, by the step that reached it), moves to this level a state of
    /// the next that a stutter step reached, notes the first bad state of
    /// this level, and the state limit when one would pass it.
    fn store(&mut self, batch: &Batch, owned: &mut Owned, summary: &mut Summary) {
        let mut start = 0;
        for item in &batch.items {
            let bytes = &batch.bytes[start..item.end as usize];
            start = item.end as usize;
            // Hashed again rather than sent: 8 bytes less a successor in
            // flight, where a level's successors are most of a process's
            // memory beyond its own states.
            let hash = state_hash(bytes, item.q);
            let stutter = self.stutter.contains(&item.letter);
            let parent = Some(item.parent);
            // Full, a state is only looked up: one not stored yet is one
            // too many, but one stored may still have to move.
            let full = owned.len() >= self.limits.max_states;
            let stored = if full {
                None
            } else {
                owned.insert(bytes, item.q, hash, item.letter, parent)
            };
            let here = if let Some(i) = stored {
                summary.new_states += 1;
                if !stutter {
                    // Only states of a run that goes on have action
                    // steps, and those are reached by actions alone.
                    debug_assert_eq!(self.at.0, self.at.1);
                    self.by_action.push(i);
                    if let Some(d) = &mut self.dist {
                        d.push(then(self.at, step_length(false)));
                    }
                    if self.bad[item.q as usize] {
                        self.bad_next.push(i);
                    }
                    continue;
                }
                if let Some(d) = &mut self.dist {
                    d.push(then(self.at, step_length(true)));
                }
                i
            } else if !stutter && !full {
                continue;
            } else {
                let Some(i) = owned.find(bytes, item.q, hash) else {
                    summary.limit = Some(LimitHit::States(self.limits.max_states));
                    continue;
                };
                // Stored already: by an action of this level, it is
                // reached with fewer actions here.
                if !stutter || self.by_action.binary_search(&i).is_err() || !self.moved.insert(i) {
                    continue;
                }
                owned.set_parent(i, item.letter, item.parent);
                if let Some(d) = &mut self.dist {
                    d[i as usize] = then(self.at, step_length(true));
                }
                i
            };
            self.by_stutter.push(here);
            summary.new_stutter += 1;
            if summary.bad.is_none() && self.bad[item.q as usize] {
                summary.bad = Some(StateRef {
                    worker: self.me,
                    index: here,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Item;

    const END: u32 = 90;
    const DEADLOCK: u32 = 91;

    fn batch(items: &[(&[u8], u32, u32)]) -> Batch {
        let mut b = Batch::default();
        for &(bytes, q, letter) in items {
            b.bytes.extend_from_slice(bytes);
            b.items.push(Item {
                end: b.bytes.len() as u32,
                q,
                letter,
                parent: StateRef {
                    worker: 0,
                    index: letter,
                },
            });
        }
        b
    }

    #[test]
    fn a_state_of_the_next_level_that_a_stutter_step_reaches_moves_to_this_one() {
        let limits = WorkerLimits {
            max_states: 100,
            deadline: None,
            max_memory: u64::MAX,
        };
        let bad = [false, false, true];
        let mut owned = Owned::default();
        let init = owned.insert(b"i", 0, state_hash(b"i", 0), 0, None);
        assert_eq!(init, Some(0));
        let mut s = Settle::new(0, &limits, &bad, [END, DEADLOCK], true, true);
        let mut summary = Summary::default();
        // Level 0: an action reaches `a` and `b`; a stutter step reaches
        // `c`, and then `a` again.
        s.store(
            &batch(&[(b"a", 1, 5), (b"b", 2, 6), (b"c", 1, END), (b"a", 1, END)]),
            &mut owned,
            &mut summary,
        );
        assert_eq!(summary.new_states, 3);
        assert_eq!(summary.new_stutter, 2);
        assert_eq!(s.by_stutter, vec![3, 1]);
        // `a` was reached by END from state END: its parent now.
        assert_eq!(owned.reached_by(1).0, END);
        assert_eq!(owned.reached_by(1).2.map(|p| p.index), Some(END));
        let dist = s.dist.as_ref().unwrap();
        assert_eq!((dist[1], dist[2], dist[3]), ((0, 1), (1, 1), (0, 1)));
        s.sum_up(&mut summary);
        // Only `b` is left for the next level, and it is bad.
        assert_eq!(summary.next_level, 1);
        assert_eq!(summary.bad_next.map(|r| r.index), Some(2));
        // A second stutter step to `a` changes nothing.
        let mut again = Summary::default();
        s.store(&batch(&[(b"a", 1, DEADLOCK)]), &mut owned, &mut again);
        assert_eq!((again.new_states, again.new_stutter), (0, 0));
        assert_eq!(s.next_level(), vec![2]);
        assert_eq!(s.at, (1, 1));
    }
}
