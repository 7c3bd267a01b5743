//! What each channel of a session carries: asked of the object once, when
//! the session is made, because a split session gives its object away and
//! a typed channel end (`prust::channel`) asks when it is created.

use std::collections::HashMap;

use engine::{Protocol, RoleId};

/// Per channel `(from, to)` that the object's
/// [`sends_to`](Protocol::sends_to) lists: its message types and whether
/// it may be closed, each `None` where the object does not say.
#[derive(Debug, Default)]
pub(super) struct Channels {
    /// Whether the object listed every role's channels: a channel it did
    /// not list carries nothing and is never closed.
    listed: bool,
    uses: HashMap<(RoleId, RoleId), Uses>,
}

/// One channel's message types and whether it may be closed, each `None`
/// where the object does not say.
type Uses = (Option<Vec<String>>, Option<bool>);

impl Channels {
    pub(super) fn new<P: Protocol>(object: &P) -> Channels {
        let n = object.roles().len();
        let mut channels = Channels {
            listed: true,
            uses: HashMap::new(),
        };
        for from in 0..n {
            let Some(to) = object.sends_to(from) else {
                return Channels::default();
            };
            for to in to {
                let uses = (object.channel_types(from, to), object.may_close(from, to));
                channels.uses.insert((from, to), uses);
            }
        }
        channels
    }

    /// The message types `from` may send to `to`, if known.
    pub(super) fn types(&self, from: RoleId, to: RoleId) -> Option<Vec<String>> {
        match self.uses.get(&(from, to)) {
            Some((types, _)) => types.clone(),
            None => self.listed.then(Vec::new),
        }
    }

    /// Whether `from` may close its channel to `to`, if known.
    pub(super) fn may_close(&self, from: RoleId, to: RoleId) -> Option<bool> {
        match self.uses.get(&(from, to)) {
            Some((_, close)) => *close,
            None => self.listed.then_some(false),
        }
    }
}
