//! [`Replay`]: the chooser that follows a printed schedule.

use std::sync::Arc;

use engine::RoleId;

use super::chooser::{Chooser, Decision};
use super::found::{describe, to_choice};
use super::schedule::Schedule;
use super::scheduler::Search;
use super::step::Alt;

/// Follows a printed schedule.
/// Owns what it follows: it moves into the execution, whose decisions
/// are made on the role threads (see `scheduler.rs`).
pub(crate) struct Replay {
    pub(crate) schedule: Schedule,
    pub(crate) names: Arc<[String]>,
}

impl Chooser for Replay {
    fn choose(
        &mut self,
        step: usize,
        alts: &[Alt],
        _prev: Option<RoleId>,
        _independent: &dyn Fn(usize, usize) -> bool,
    ) -> Decision {
        let Some(want) = self.schedule.choices().get(step) else {
            return Decision::Take(0);
        };
        match alts.iter().position(|a| to_choice(&self.names, a) == *want) {
            Some(i) => Decision::Take(i),
            None => Decision::Diverged {
                expected: format!("the choice {want}"),
                found: format!("the enabled choices {}", describe(&self.names, alts)),
            },
        }
    }
}

/// A replay is one execution: run as a batch of one.
impl Search for Replay {
    fn begin(&mut self) {}
    fn next(&mut self) -> bool {
        false
    }
}
