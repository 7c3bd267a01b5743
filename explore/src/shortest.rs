//! The shortest failing schedule: an exact search, for a failure found by
//! exploring, of a schedule that fails the same way with the fewest
//! steps and, among those, the fewest context switches.
//!
//! How: iterative deepening over schedule prefixes. Level `L` runs the
//! schedules of at most `L` steps (a depth-first search over the enabled
//! choices), stopping each execution at its `L`th step. A failing
//! execution stops where it fails, so the first level with a failure of
//! the same outcome is the fewest steps.
//!
//! Each level first runs with sleep sets (of the independence relation
//! DPOR uses), up to its first failure: of the schedules that only
//! reorder independent steps, one is run. Reordered schedules have the
//! same length and end in the same state, so a level without a failure
//! is told from one order each; but they differ in context switches. So
//! the first level with a failure is run again in every order, skipping
//! every prefix with as many switches as the best failure so far
//! (switches only grow along a prefix), which leaves the fewest switches
//! among the shortest; a failure without a switch needs no second run.
//!
//! Past a budget of executions the search stops, and the caller keeps
//! the heuristic result (`simplify`), not shown to be a shortest one.

use engine::RoleId;

use super::chooser::{Chooser, Decision};
use super::scheduler::Search;
use super::step::Alt;

/// A scheduling point of the level being run.
struct Node {
    alts: Vec<Alt>,
    taken: usize,
    /// The role of the step before this point (`None` at the first).
    prev: Option<RoleId>,
    /// Context switches on the prefix before this point.
    switches: usize,
    /// `sleep[i]`: `alts[i]` need not be run here (sleep sets): its
    /// schedules reorder steps of ones run already.
    sleep: Vec<bool>,
    /// `done[i]`: the schedules after `alts[i]` were run.
    done: Vec<bool>,
    /// `cut[i]`: an execution after `alts[i]` was stopped by another
    /// failure (which stops every role), so those schedules do not stand
    /// for every order of the steps after it: it puts nothing to sleep.
    cut: Vec<bool>,
    /// `indep[i]`: `alts[i]` commutes here with the choice taken (probed
    /// for the choices asleep or done only).
    indep: Vec<bool>,
}

impl Node {
    /// The switches of the prefix once `alts[i]` is taken here.
    fn after(&self, i: usize) -> usize {
        self.switches + usize::from(self.prev.is_some_and(|p| p != self.alts[i].role))
    }

    /// Fills `indep` for the choice taken now.
    fn probe(&mut self, independent: &dyn Fn(usize, usize) -> bool) {
        let n = self.alts.len();
        self.indep = (0..n)
            .map(|x| {
                x != self.taken && (self.sleep[x] || self.done[x]) && independent(x, self.taken)
            })
            .collect();
    }
}

/// The chooser of one level: every schedule of at most `limit` steps whose
/// prefixes keep under `below` switches, depth first; with sleep sets, one
/// order at least of the independent steps of each of those.
pub(crate) struct Bounded {
    stack: Vec<Node>,
    depth: usize,
    limit: usize,
    below: usize,
    sleep_sets: bool,
}

impl Bounded {
    fn new(limit: usize, below: usize, sleep_sets: bool) -> Self {
        Bounded {
            stack: Vec::new(),
            depth: 0,
            limit,
            below,
            sleep_sets,
        }
    }

    /// Notes that the execution just run was stopped by a failure other
    /// than the one sought (see [`Node::cut`]).
    fn cut_short(&mut self) {
        let depth = self.depth.min(self.stack.len());
        for node in &mut self.stack[..depth] {
            node.cut[node.taken] = true;
        }
    }

    /// Moves to the next schedule of the level; `false` when every one
    /// was run.
    fn backtrack(&mut self) -> bool {
        self.stack.truncate(self.depth);
        self.depth = 0;
        while let Some(top) = self.stack.last_mut() {
            top.done[top.taken] = true;
            let below = self.below;
            if let Some(next) =
                (top.taken + 1..top.alts.len()).find(|&i| !top.sleep[i] && top.after(i) < below)
            {
                top.taken = next;
                return true;
            }
            self.stack.pop();
        }
        false
    }
}

/// Each probe is one execution, run as a batch of one: the search for a
/// shortest schedule moves on between probes itself (`backtrack`).
impl Search for Bounded {
    fn begin(&mut self) {}
    fn next(&mut self) -> bool {
        false
    }
}

impl Chooser for Bounded {
    fn choose(
        &mut self,
        _step: usize,
        alts: &[Alt],
        _prev: Option<RoleId>,
        independent: &dyn Fn(usize, usize) -> bool,
    ) -> Decision {
        let d = self.depth;
        if let Some(node) = self.stack.get_mut(d) {
            self.depth += 1;
            if node.alts.as_slice() != alts {
                return Decision::Diverged {
                    expected: "the enabled choices of an earlier execution".into(),
                    found: "others".into(),
                };
            }
            if self.sleep_sets {
                node.probe(independent);
            }
            return Decision::Take(node.taken);
        }
        // The level's last step was taken: what follows is a longer
        // schedule, another level's. (`Redundant` stops the execution
        // without a failure.)
        if d >= self.limit {
            return Decision::Redundant;
        }
        let n = alts.len();
        let (prev, switches) = match self.stack.last() {
            None => (None, 0),
            Some(p) => (Some(p.alts[p.taken].role), p.after(p.taken)),
        };
        // Sleep sets (Godefroid): what slept at the parent or was run
        // there before the step taken, and commutes with that step,
        // sleeps here. Every order of a schedule has its length, so the
        // level's bound keeps or cuts all of them alike.
        let mut sleep = vec![false; n];
        if let Some(p) = self.stack.last().filter(|_| self.sleep_sets) {
            for x in 0..p.alts.len() {
                if x != p.taken && (p.sleep[x] || (p.done[x] && !p.cut[x])) && p.indep[x] {
                    if let Some(i) = alts.iter().position(|a| *a == p.alts[x]) {
                        sleep[i] = true;
                    }
                }
            }
        }
        let mut node = Node {
            alts: alts.to_vec(),
            taken: 0,
            prev,
            switches,
            sleep,
            done: vec![false; n],
            cut: vec![false; n],
            indep: Vec::new(),
        };
        let Some(first) = (0..n).find(|&i| !node.sleep[i] && node.after(i) < self.below) else {
            return Decision::Redundant;
        };
        node.taken = first;
        if self.sleep_sets {
            node.probe(independent);
        }
        self.stack.push(node);
        self.depth += 1;
        Decision::Take(first)
    }
}

/// How one execution of the search ended.
pub(crate) enum Probe {
    /// It failed with the outcome sought, along these choices.
    Fails(Vec<Alt>),
    /// It failed otherwise, which stopped every role where it was.
    Cut,
    /// Anything else: success, or stopped at the level's end or by the
    /// sleep sets.
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
    /// The search would run more executions than its budget: why.
    OverBudget(String),
}

fn switches(alts: &[Alt]) -> usize {
    alts.windows(2).filter(|w| w[0].role != w[1].role).count()
}

/// Searches for the shortest failing schedule, up to `longest` steps (the
/// length of a failing schedule known already), running at most `budget`
/// executions through `run`, which runs the program with the chooser it is
/// given and hands it back with how the execution ended.
///
/// Each level is first run with sleep sets, up to its first failure: a
/// level without one is thus run in one order of each set of independent
/// steps only. The first level with a failure is the fewest steps; it is
/// then run again in every order, keeping under the switches of the best
/// failure so far (a sleep set may have skipped the order with the fewest
/// switches), unless that failure switches not at all.
pub(crate) fn shortest(
    longest: usize,
    budget: usize,
    mut run: impl FnMut(Bounded) -> (Bounded, Probe),
) -> (Shortest, usize) {
    let mut runs = 0;
    for limit in 0..=longest {
        let sleeping = Bounded::new(limit, usize::MAX, true);
        let found = match level(sleeping, true, budget, &mut runs, &mut run) {
            Err(stopped) => return (stopped, runs),
            Ok(None) => continue,
            Ok(Some(alts)) => alts,
        };
        let fewest = switches(&found);
        if fewest == 0 {
            return (Shortest::Exact(found), runs);
        }
        let every_order = Bounded::new(limit, fewest, false);
        return match level(every_order, false, budget, &mut runs, &mut run) {
            Err(stopped) => (stopped, runs),
            Ok(fewer) => (Shortest::Exact(fewer.unwrap_or(found)), runs),
        };
    }
    // A failing schedule of `longest` steps was known: only a program
    // that fails otherwise on the same schedule gets here.
    (
        Shortest::Stopped("the failing schedule did not fail again the same way".into()),
        runs,
    )
}

/// Runs the level of `chooser` to its end, or to its first failure if
/// `first`: the failure with the fewest switches found.
fn level(
    mut chooser: Bounded,
    first: bool,
    budget: usize,
    runs: &mut usize,
    run: &mut impl FnMut(Bounded) -> (Bounded, Probe),
) -> Result<Option<Vec<Alt>>, Shortest> {
    let mut best: Option<Vec<Alt>> = None;
    loop {
        if *runs >= budget {
            let why = format!("shortening it would run more than {budget} executions");
            return Err(Shortest::OverBudget(why));
        }
        *runs += 1;
        let (back, probe) = run(chooser);
        chooser = back;
        match probe {
            Probe::Fails(alts) => {
                chooser.below = switches(&alts);
                best = Some(alts);
                if first {
                    return Ok(best);
                }
            }
            Probe::Cut => chooser.cut_short(),
            Probe::Other => {}
            Probe::Stop(why) => return Err(Shortest::Stopped(why)),
        }
        if !chooser.backtrack() {
            return Ok(best);
        }
    }
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
        chooser: Bounded,
    ) -> (Bounded, Probe) {
        model_with(roles, fails, false, chooser)
    }

    /// [`model`], where steps of different roles are independent if
    /// `commute` (then `fails` must depend on how many steps each role
    /// took, not on their order).
    fn model_with(
        roles: &[usize],
        fails: &dyn Fn(&[RoleId]) -> bool,
        commute: bool,
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
            let independent = |i: usize, j: usize| commute && alts[i].role != alts[j].role;
            match chooser.choose(taken.len(), &alts, None, &independent) {
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
        assert!(matches!(found, Shortest::OverBudget(_)), "{found:?}");
        assert_eq!(runs, 50);
        // With the budget, the same search is exact.
        let (found, _) = shortest(8, 100_000, |c| model(&[2, 2, 2, 2], &fails, c));
        let Shortest::Exact(alts) = found else {
            panic!("{found:?}")
        };
        let rs: Vec<RoleId> = alts.iter().map(|a| a.role).collect();
        assert_eq!(rs, [0, 0, 1, 1, 2, 2, 3, 3]);
    }

    #[test]
    fn sleep_sets_run_fewer_schedules_for_the_same_shortest() {
        // Fails once roles 1 and 2 have each run twice: four steps, one
        // switch at least (`1 1 2 2`), found after every shorter schedule.
        let fails = |rs: &[RoleId]| {
            let n = |r: RoleId| rs.iter().filter(|&&x| x == r).count();
            n(1) >= 2 && n(2) >= 2
        };
        let mut found = Vec::new();
        for commute in [false, true] {
            let (result, runs) =
                shortest(9, 100_000, |c| model_with(&[3, 3, 3], &fails, commute, c));
            let Shortest::Exact(alts) = result else {
                panic!("{result:?}")
            };
            found.push((alts.len(), switches(&alts), runs));
        }
        let (plain, sleeping) = (found[0], found[1]);
        assert_eq!((plain.0, plain.1), (4, 1), "{found:?}");
        assert_eq!((sleeping.0, sleeping.1), (plain.0, plain.1), "{found:?}");
        assert!(sleeping.2 < plain.2, "{found:?}");
    }
}
