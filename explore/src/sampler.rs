//! [`Sampler`]: the chooser of a sampled search, which runs random
//! schedules instead of enumerating them: the uniform random walk, or
//! PCT (Burckhardt, Kothari, Musuvathi and Nagarakatte, "A randomized
//! scheduler with probabilistic guarantees of finding bugs", ASPLOS
//! 2010).

use std::fmt;

use engine::RoleId;

use super::chooser::{Chooser, Decision};
use super::rng::Rng;
use super::step::Alt;

/// How a sampled search picks each step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Strategy {
    /// A random enabled role at every scheduling point, then a random
    /// choice of that role.
    Random,
    /// PCT with bugs of this depth in view (at least 1).
    Pct { depth: usize },
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::Random => f.write_str("random"),
            Strategy::Pct { depth } => write!(f, "PCT (depth {depth})"),
        }
    }
}

/// The chooser of a sampled search; one for the whole search (its random
/// stream and PCT's estimate of the steps carry over between executions).
pub(crate) struct Sampler {
    strategy: Strategy,
    rng: Rng,
    /// PCT: each role's priority (higher runs first). The initial ones
    /// are `c..c + n` in a random order, `c` the execution's number of
    /// change points; a change point lowers a role to a value below `c`,
    /// under every initial priority.
    priorities: Vec<usize>,
    /// PCT: the counted steps (see `counted`) after which the role that
    /// took the step drops to priority `i`, `i` the point's index: the
    /// paper's d - 1 change points, in a random order.
    change_points: Vec<usize>,
    /// PCT: the steps of this execution counted for the change points:
    /// only scheduling points where two or more roles are enabled. A
    /// change point where one role could run changes nothing (the
    /// paper's "identifying sequential execution").
    counted: usize,
    /// PCT: the estimate of k, the counted steps of an execution: the
    /// most any execution so far had. The first execution has no change
    /// points (it measures).
    longest: usize,
}

impl Sampler {
    pub(crate) fn new(strategy: Strategy, seed: u64, roles: usize) -> Sampler {
        Sampler {
            strategy,
            rng: Rng::new(seed),
            priorities: (0..roles).collect(),
            change_points: Vec::new(),
            counted: 0,
            longest: 0,
        }
    }

    /// Draws what PCT fixes for one execution: the roles' priorities and
    /// the change points among the counted steps of the longest
    /// execution so far.
    pub(crate) fn start_execution(&mut self) {
        let Strategy::Pct { depth } = self.strategy else {
            return;
        };
        self.longest = self.longest.max(self.counted);
        self.counted = 0;
        // d - 1 distinct steps among the k known (fewer if k is smaller).
        let k = self.longest;
        let points = (depth - 1).min(k);
        // The initial priorities lie above the `points` values a change
        // point gives (its index), as the paper's `d + rank` do; counted
        // from `points`, not `d`, they cannot overflow for any depth (a
        // depth of `usize::MAX`, "as deep as it gets", overflowed).
        let n = self.priorities.len();
        let mut order: Vec<usize> = (0..n).collect();
        self.rng.shuffle(&mut order);
        for (role, rank) in order.into_iter().enumerate() {
            self.priorities[role] = points + rank;
        }
        let mut steps: Vec<usize> = (0..k).collect();
        for i in 0..points {
            let j = i + self.rng.below(k - i);
            steps.swap(i, j);
        }
        steps.truncate(points);
        self.change_points = steps;
    }

    /// A role uniformly among those with a choice (in the order of their
    /// first choice), then one of its choices uniformly. Counted in
    /// place, not collected: two vectors a step were a tenth of a sampled
    /// execution's work. (The same draws as when they were collected, so
    /// a seed picks the same schedule.)
    fn random(&mut self, alts: &[Alt]) -> usize {
        let first_of_role = |i: &usize| !alts[..*i].iter().any(|a| a.role == alts[*i].role);
        let roles = (0..alts.len()).filter(first_of_role).count();
        let k = self.rng.below(roles);
        let role = (0..alts.len())
            .filter(first_of_role)
            .nth(k)
            .map(|i| alts[i].role)
            .expect("k is below the number of roles");
        let mine = (0..alts.len()).filter(|&i| alts[i].role == role);
        let j = self.rng.below(mine.clone().count());
        mine.clone().nth(j).expect("j is below the role's choices")
    }

    fn pct(&mut self, alts: &[Alt]) -> usize {
        let top = alts
            .iter()
            .map(|a| a.role)
            .max_by_key(|&r| self.priorities[r])
            .expect("a scheduling point has an enabled choice");
        let mine: Vec<usize> = (0..alts.len()).filter(|&i| alts[i].role == top).collect();
        // A receive from anyone takes the message of the highest-priority
        // sender that has one waiting: a delivery is ordered as its
        // sender's steps are. Other choices of one role (the values of a
        // `choose`) are data, not scheduling: random.
        let i = if mine.iter().all(|&i| alts[i].from.is_some()) {
            *mine
                .iter()
                .max_by_key(|&&i| alts[i].from.map(|f| self.priorities[f]))
                .expect("the top role has a choice")
        } else {
            mine[self.rng.below(mine.len())]
        };
        if alts.iter().any(|a| a.role != top) {
            if let Some(k) = self.change_points.iter().position(|&p| p == self.counted) {
                self.priorities[top] = k;
            }
            self.counted += 1;
        }
        i
    }
}

impl Chooser for Sampler {
    fn choose(
        &mut self,
        _step: usize,
        alts: &[Alt],
        _prev: Option<RoleId>,
        _independent: &dyn Fn(usize, usize) -> bool,
    ) -> Decision {
        Decision::Take(match self.strategy {
            Strategy::Random => self.random(alts),
            Strategy::Pct { .. } => self.pct(alts),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alt(role: RoleId, from: Option<RoleId>) -> Alt {
        Alt {
            role,
            from,
            pick: None,
        }
    }

    fn never(_: usize, _: usize) -> bool {
        false
    }

    fn take(s: &mut Sampler, alts: &[Alt]) -> usize {
        match s.choose(0, alts, None, &never) {
            Decision::Take(i) => i,
            _ => unreachable!("a sampler always takes a choice"),
        }
    }

    /// The random walk as first written (the roles and the role's
    /// choices collected): the counted one must make the same picks from
    /// the same draws, so that a printed seed keeps its schedule.
    fn collected(rng: &mut Rng, alts: &[Alt]) -> usize {
        let mut roles: Vec<RoleId> = Vec::new();
        for a in alts {
            if !roles.contains(&a.role) {
                roles.push(a.role);
            }
        }
        let role = roles[rng.below(roles.len())];
        let mine: Vec<usize> = (0..alts.len()).filter(|&i| alts[i].role == role).collect();
        mine[rng.below(mine.len())]
    }

    #[test]
    fn the_random_walk_picks_as_the_collected_one_did() {
        let mut shapes = Rng::new(7);
        for seed in 0..200 {
            let mut s = Sampler::new(Strategy::Random, seed, 5);
            let mut reference = Rng::new(seed);
            for _ in 0..50 {
                // Up to 6 choices of up to 4 roles, in any order, some
                // with senders.
                let n = 1 + shapes.below(6);
                let alts: Vec<Alt> = (0..n)
                    .map(|_| alt(shapes.below(4), Some(shapes.below(3))))
                    .collect();
                assert_eq!(
                    take(&mut s, &alts),
                    collected(&mut reference, &alts),
                    "{alts:?}"
                );
            }
        }
    }

    #[test]
    fn the_random_walk_picks_roles_uniformly_whatever_their_choices() {
        // Role 0 has three choices (senders), role 1 one: each role
        // still runs about half of the time.
        let alts = [
            alt(0, Some(2)),
            alt(0, Some(3)),
            alt(0, Some(4)),
            alt(1, None),
        ];
        let mut s = Sampler::new(Strategy::Random, 1, 5);
        let ones = (0..2000).filter(|_| take(&mut s, &alts) == 3).count();
        assert!((850..1150).contains(&ones), "{ones}");
    }

    #[test]
    fn pct_runs_the_highest_priority_role_and_lowers_it_at_a_change_point() {
        let mut s = Sampler::new(Strategy::Pct { depth: 2 }, 3, 3);
        s.start_execution();
        let alts = [alt(0, None), alt(1, None), alt(2, None)];
        let top = alts[take(&mut s, &alts)].role;
        // No change point in the first execution: priorities 0..3.
        assert_eq!(s.priorities[top], 2, "{:?}", s.priorities);
        // Three counted steps known: one change point among them.
        s.counted = 3;
        s.start_execution();
        assert_eq!(s.longest, 3);
        assert_eq!(s.change_points.len(), 1);
        let at = s.change_points[0];
        let mut ran = Vec::new();
        for _ in 0..3 {
            ran.push(alts[take(&mut s, &alts)].role);
        }
        // The role that took the change-point step runs no more while
        // the others are enabled.
        let lowered = ran[at];
        assert!(ran[at + 1..].iter().all(|&r| r != lowered), "{ran:?} {at}");
        assert!(ran[..=at].iter().all(|&r| r == lowered), "{ran:?} {at}");
    }

    #[test]
    fn pct_receives_from_the_highest_priority_sender() {
        let mut s = Sampler::new(Strategy::Pct { depth: 1 }, 5, 4);
        s.start_execution();
        let alts = [alt(3, Some(0)), alt(3, Some(1)), alt(3, Some(2))];
        let from = alts[take(&mut s, &alts)].from.unwrap();
        assert!((0..3).all(|r| s.priorities[r] <= s.priorities[from]));
    }
}
