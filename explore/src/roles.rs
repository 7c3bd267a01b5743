//! [`Roles`]: what a program under exploration is given to start its
//! role threads.

use engine::{Protocol, RoleId};

use super::endpoint::ExploreEndpoint;
use super::observe::Handle;

/// A role body, boxed until the execution starts it.
pub(crate) type Body<'a, P> = Box<dyn FnOnce(ExploreEndpoint<P>) + Send + 'a>;

/// The roles of one execution: the program calls [`spawn`](Self::spawn)
/// once for each role it runs.
///
/// A role that is not spawned never acts (as a role whose endpoint was
/// never taken from a session that is gone). Spawning a role the object
/// does not have, or the same role twice, is an error of the program,
/// reported by [`Explorer::try_explore`](super::Explorer::try_explore).
pub struct Roles<'a, P: Protocol> {
    pub(crate) names: Vec<String>,
    pub(crate) bodies: Vec<(RoleId, Body<'a, P>)>,
    pub(crate) error: Option<String>,
}

impl<'a, P: Protocol> Roles<'a, P> {
    pub(crate) fn new(names: Vec<String>) -> Self {
        Roles {
            names,
            bodies: Vec::new(),
            error: None,
        }
    }

    /// Runs `body` as `role`, on its own OS thread, with an endpoint that
    /// implements the same `protocols::session::BlockingEndpoint` trait as
    /// real sessions' endpoints, so the same
    /// `fn buyer2(e: &mut impl BlockingEndpoint)` runs in production and
    /// under exploration.
    ///
    /// The body runs only when the explorer lets it, one thread at a time;
    /// it must share nothing with the other roles but the session.
    ///
    /// The body may return a value: the returned [`Handle`] stands for it.
    /// A program that returns handles (or a tuple, array or `Vec` of them,
    /// see [`Observe`](super::Observe)) makes their values the result of
    /// each complete execution ([`Exploration::results`](super::Exploration::results));
    /// a program that returns nothing has the result `()`.
    ///
    /// ```
    /// use prust::explore::explore;
    /// use prust::session::BlockingEndpoint;
    /// #[derive(Clone, Debug)] struct Move(u32);
    /// let ex = explore(prust::protocols::chess::strict(), |r| {
    ///     r.spawn("white", |mut ep| {
    ///         ep.send("black", Move(1)).unwrap();
    ///         ep.recv_from("black").unwrap();
    ///     });
    ///     r.spawn("black", |mut ep| {
    ///         let Move(m) = ep.recv_from("white").unwrap().downcast().unwrap();
    ///         ep.send("white", Move(m + 1)).unwrap();
    ///         m
    ///     })
    /// });
    /// // The result of each complete execution: what black's body returned.
    /// assert_eq!(ex.results().len(), 1);
    /// assert_eq!(ex.results()[0].value, 1);
    /// ```
    pub fn spawn<R: Send + 'static>(
        &mut self,
        role: &str,
        body: impl FnOnce(ExploreEndpoint<P>) -> R + Send + 'a,
    ) -> Handle<R> {
        let handle = Handle::new();
        let slot = handle.clone();
        let body = move |ep| slot.set(body(ep));
        let Some(id) = self.names.iter().position(|n| n == role) else {
            self.error.get_or_insert_with(|| {
                let hint = engine::names::closest(role, self.names.iter().map(String::as_str))
                    .map(|c| format!("did you mean `{c}`? "))
                    .unwrap_or_default();
                format!(
                    "spawn(\"{role}\"): the protocol has no role `{role}`; {hint}its roles: {}",
                    self.names.join(", ")
                )
            });
            return handle;
        };
        if self.bodies.iter().any(|(r, _)| *r == id) {
            self.error.get_or_insert_with(|| {
                format!("spawn(\"{role}\"): the role is spawned twice (one thread per role)")
            });
            return handle;
        }
        self.bodies.push((id, Box::new(body)));
        handle
    }
}

impl<P: Protocol> std::fmt::Debug for Roles<'_, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Roles")
            .field("names", &self.names)
            .field("spawned", &self.bodies.len())
            .finish_non_exhaustive()
    }
}
