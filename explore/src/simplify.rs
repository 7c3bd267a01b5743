//! Failure simplification, as Déjà Fu does it: move steps next to the
//! steps of the role that ran just before, when that cuts context
//! switches, and keep a change only if re-running the new schedule gives
//! the same outcome.

use super::schedule::{Choice, Schedule};

/// Simplifies `schedule` with `confirm`, which re-runs a candidate and
/// returns the schedule it actually followed if the execution ended in
/// the same outcome (`None` otherwise). At most `budget` re-runs.
///
/// Each candidate moves one step `j` to position `i`, where `i` starts a
/// switch away from the role of step `i - 1` and `j` is that role's next
/// step: the steps in between are the other roles' steps that the move
/// hops over, which is only possible if they are independent of it, and
/// the re-run is what says whether they are.
pub(crate) fn simplify(
    schedule: &Schedule,
    budget: usize,
    mut confirm: impl FnMut(&Schedule) -> Option<Schedule>,
) -> Schedule {
    let mut best = schedule.clone();
    let mut runs = 0;
    let mut improved = true;
    while improved && runs < budget {
        improved = false;
        let choices = best.choices().to_vec();
        for i in 1..choices.len() {
            if choices[i].role == choices[i - 1].role {
                continue;
            }
            let role = &choices[i - 1].role;
            let Some(j) = (i + 1..choices.len()).find(|&j| choices[j].role == *role) else {
                continue;
            };
            let mut moved: Vec<Choice> = choices.clone();
            let step = moved.remove(j);
            moved.insert(i, step);
            let candidate = Schedule::new(moved);
            if candidate.context_switches() >= best.context_switches() {
                continue;
            }
            if runs >= budget {
                break;
            }
            runs += 1;
            if let Some(followed) = confirm(&candidate) {
                if followed.context_switches() < best.context_switches() {
                    best = followed;
                    improved = true;
                    break;
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_steps_together_when_the_rerun_agrees() {
        let s: Schedule = "a b a c a".parse().unwrap();
        // Every reordering "works": the result has one run per role.
        let out = simplify(&s, 100, |c| Some(c.clone()));
        assert_eq!(out.to_string(), "a a a b c");
        // No reordering confirmed: unchanged.
        assert_eq!(simplify(&s, 100, |_| None), s);
    }
}
