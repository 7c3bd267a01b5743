//! The shortest failing schedule: an exact search, for a failure found by
//! exploring, of a schedule that fails the same way with the fewest
//! steps and, among those, the fewest context switches.
//!
//! How: iterative deepening over schedule prefixes. Level `L` runs every
//! schedule of at most `L` steps (a depth-first search over every enabled
//! choice, no reduction: two orders that a reduction calls equivalent
//! still differ in length where the failure stops them), stopping each
//! execution at its `L`th step. A failing execution stops where it fails,
//! so the first level with a failure of the same outcome is the fewest
//! steps; that level is then run to its end, skipping every prefix with
//! as many switches as the best failure so far (switches only grow along
//! a prefix), which leaves the fewest switches among the shortest.
//!
//! The levels cost the schedules of each length up to the shortest; past
//! a budget of executions the search stops, and the caller keeps the
//! heuristic result (`simplify`), not shown to be a shortest one.

use engine::RoleId;

use super::chooser::{Chooser, Decision};
use super::step::Alt;

/// A scheduling point of the level being run.
struct Node {
    alts: Vec<Alt>,
    taken: usize,
    /// The role of the step before this point (`None` at the first).
    prev: Option<RoleId>,
    /// Context switches on the prefix before this point.
    switches: usize,
}

impl Node {
    /// The switches of the prefix once `alts[i]` is taken here.
    fn after(&self, i: usize) -> usize {
        self.switches + usize::from(self.prev.is_some_and(|p| p != self.alts[i].role))
    }
}

/// The chooser of one level: every schedule of at most `limit` steps whose
/// prefixes keep under `below` switches, depth first.
pub(crate) struct Bounded {
    stack: Vec<Node>,
    depth: usize,
    limit: usize,
    below: usize,
}

impl Bounded {
    fn new(limit: usize, below: usize) -> Self {
        Bounded {
            stack: Vec::new(),
            depth: 0,
            limit,
            below,
        }
    }

    /// Moves to the next schedule of the level; `false` when every one
    /// was run.
    fn backtrack(&mut self) -> bool {
        self.stack.truncate(self.depth);
        self.depth = 0;
        while let Some(top) = self.stack.last_mut() {
            let below = self.below;
            if let Some(next) = (top.taken + 1..top.alts.len()).find(|&i| top.after(i) < below) {
                top.taken = next;
                return true;
            }
            self.stack.pop();
        }
        false
    }
}

impl Chooser for Bounded {
    fn choose(
        &mut self,
        _step: usize,
        alts: &[Alt],
        _prev: Option<RoleId>,
        _independent: &dyn Fn(usize, usize) -> bool,
    ) -> Decision {
        let d = self.depth;
        if let Some(node) = self.stack.get(d) {
            self.depth += 1;
            if node.alts.as_slice() != alts {
                return Decision::Diverged {
                    expected: "the enabled choices of an earlier execution".into(),
                    found: "others".into(),
                };
            }
            return Decision::Take(node.taken);
        }
        // The level's last step was taken: what follows is a longer
        // schedule, another level's. (`Redundant` stops the execution
        // without a failure.)
        if d >= self.limit {
            return Decision::Redundant;
        }
        let (prev, switches) = match self.stack.last() {
            None => (None, 0),
            Some(p) => (Some(p.alts[p.taken].role), p.after(p.taken)),
        };
        let node = Node {
            alts: alts.to_vec(),
            taken: 0,
            prev,
            switches,
        };
        let Some(first) = (0..alts.len()).find(|&i| node.after(i) < self.below) else {
            return Decision::Redundant;
        };
        self.stack.push(Node {
            taken: first,
            ..node
        });
        self.depth += 1;
        Decision::Take(first)
    }
}

/// How one execution of the search ended.
pub(crate) enum Probe {
    /// It failed with the outcome sought, along these choices.
    Fails(Vec<Alt>),
    /// Anything else: success, another outcome, or stopped at the level's
    /// end.
    Other,
    /// The search cannot go on (a thread left behind, nondeterminism, the
    /// time): why.
    Stop(String),
}

/// What the search found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Shortest {
    /// A failing schedule with the fewest steps, and with the fewest
    /// switches among those.
    Exact(Vec<Alt>),
    /// The search stopped before it could tell: why.
    Stopped(String),
}

/// Searches for the shortest failing schedule, up to `longest` steps (the
/// length of a failing schedule known already), running at most `budget`
/// executions through `run`, which runs the program with the chooser it is
/// given and hands it back with how the execution ended.
pub(crate) fn shortest(
    longest: usize,
    budget: usize,
    mut run: impl FnMut(Bounded) -> (Bounded, Probe),
) -> (Shortest, usize) {
    let mut runs = 0;
    for limit in 0..=longest {
        let mut best: Option<Vec<Alt>> = None;
        let mut chooser = Bounded::new(limit, usize::MAX);
        loop {
            if runs >= budget {
                let why = format!("shortening it would run more than {budget} executions");
                return (Shortest::Stopped(why), runs);
            }
            runs += 1;
            let (back, probe) = run(chooser);
            chooser = back;
            match probe {
                Probe::Fails(alts) => {
                    let switches = alts.windows(2).filter(|w| w[0].role != w[1].role).count();
                    chooser.below = switches;
                    best = Some(alts);
                }
                Probe::Other => {}
                Probe::Stop(why) => return (Shortest::Stopped(why), runs),
            }
            if !chooser.backtrack() {
                break;
            }
        }
        if let Some(alts) = best {
            return (Shortest::Exact(alts), runs);
        }
    }
    // A failing schedule of `longest` steps was known: only a program
    // that fails otherwise on the same schedule gets here.
    (
        Shortest::Stopped("the failing schedule did not fail again the same way".into()),
        runs,
    )
}

/// The executions the search may run at least, whatever the exploration
/// ran: a few thousand executions are worth a shortest schedule even
/// after an exploration that failed at once.
pub(crate) const FLOOR: usize = 2_000;

#[cfg(test)]
mod tests {
    use super::*;

    fn alt(role: RoleId) -> Alt {
        Alt {
            role,
            from: None,
            pick: None,
        }
    }

    /// Runs `chooser` on a model program: `roles[r]` steps for role `r`,
    /// every role enabled until its steps are done; the execution fails
    /// where `fails` says of the roles taken so far.
    fn model(
        roles: &[usize],
        fails: &dyn Fn(&[RoleId]) -> bool,
        mut chooser: Bounded,
    ) -> (Bounded, Probe) {
        let mut left = roles.to_vec();
        let mut taken: Vec<Alt> = Vec::new();
        loop {
            let rs: Vec<RoleId> = taken.iter().map(|a| a.role).collect();
            if fails(&rs) {
                return (chooser, Probe::Fails(taken));
            }
            let alts: Vec<Alt> = (0..left.len()).filter(|&r| left[r] > 0).map(alt).collect();
            if alts.is_empty() {
                return (chooser, Probe::Other);
            }
            match chooser.choose(taken.len(), &alts, None, &|_, _| false) {
                Decision::Take(i) => {
                    left[alts[i].role] -= 1;
                    taken.push(alts[i]);
                }
                _ => return (chooser, Probe::Other),
            }
        }
    }

    #[test]
    fn finds_the_fewest_steps_then_the_fewest_switches() {
        // Fails once role 1 has run twice: `1 1`, two steps and no switch.
        let fails = |rs: &[RoleId]| rs.iter().filter(|&&r| r == 1).count() == 2;
        let (found, runs) = shortest(6, 1_000, |c| model(&[3, 3], &fails, c));
        let Shortest::Exact(alts) = found else {
            panic!("{found:?}")
        };
        assert_eq!(alts.iter().map(|a| a.role).collect::<Vec<_>>(), [1, 1]);
        assert!(runs < 20, "{runs}");
        // Fails once both roles have run and role 0 twice: three steps,
        // and `0 0 1` or `1 0 0` has one switch where `0 1 0` has two.
        let fails = |rs: &[RoleId]| rs.iter().filter(|&&r| r == 0).count() == 2 && rs.contains(&1);
        let (found, _) = shortest(6, 1_000, |c| model(&[3, 3], &fails, c));
        let Shortest::Exact(alts) = found else {
            panic!("{found:?}")
        };
        let rs: Vec<RoleId> = alts.iter().map(|a| a.role).collect();
        assert_eq!(rs.len(), 3);
        assert_eq!(rs.windows(2).filter(|w| w[0] != w[1]).count(), 1, "{rs:?}");
    }

    #[test]
    fn stops_at_the_budget() {
        // The failure needs every step of four roles: more schedules than
        // the budget.
        let fails = |rs: &[RoleId]| rs.len() == 8;
        let (found, runs) = shortest(8, 50, |c| model(&[2, 2, 2, 2], &fails, c));
        assert!(matches!(found, Shortest::Stopped(_)), "{found:?}");
        assert_eq!(runs, 50);
        // With the budget, the same search is exact.
        let (found, _) = shortest(8, 100_000, |c| model(&[2, 2, 2, 2], &fails, c));
        let Shortest::Exact(alts) = found else {
            panic!("{found:?}")
        };
        let rs: Vec<RoleId> = alts.iter().map(|a| a.role).collect();
        assert_eq!(rs, [0, 0, 1, 1, 2, 2, 3, 3]);
    }
}
