//! The methods that both blocking endpoints ([`Endpoint`](super::Endpoint)
//! and [`SplitEndpoint`](super::SplitEndpoint)) have alike: their role and
//! its peers' names, and the calls that only name a peer before they run
//! an operation (send, close). Written once as a macro, so that the two
//! sessions cannot drift apart in what these mean or how they are
//! documented; each endpoint keeps its own `run` (the blocking loop) and
//! its own receives.

/// Expands, inside an endpoint's `impl` block, to `role`, `name`, `roles`,
/// `peer`, `send`, `close`, `share_use`, `has_registered_ops` and
/// `panic_guard`. The endpoint must have the fields `role: RoleId`,
/// `async_ops: usize`, `shared_use: bool` and `shared: Arc<…>` (whose
/// `names` are the session's role names, whose `uses` are its roles' use
/// words, and which is a [`PanicSink`](super::panic::PanicSink)),
/// and a method `run(&mut self, Op) -> Result<_, Error>`.
macro_rules! endpoint_methods {
    () => {
        /// This endpoint's role.
        pub fn role(&self) -> engine::RoleId {
            self.role
        }

        /// This endpoint's role name.
        pub fn name(&self) -> &str {
            &self.shared.names[self.role]
        }

        /// The role names of the session, indexed by [`RoleId`](engine::RoleId).
        pub fn roles(&self) -> &[String] {
            &self.shared.names
        }

        /// The message types (short names) that `from` may ever send to
        /// `to`, if the object says
        /// ([`Protocol::channel_types`](engine::Protocol::channel_types)).
        pub fn channel_types(
            &self,
            from: engine::RoleId,
            to: engine::RoleId,
        ) -> Option<Vec<String>> {
            self.shared.channels.types(from, to)
        }

        /// Whether `from` may ever close its channel to `to`, if the
        /// object says ([`Protocol::may_close`](engine::Protocol::may_close)).
        pub fn may_close(&self, from: engine::RoleId, to: engine::RoleId) -> Option<bool> {
            self.shared.channels.may_close(from, to)
        }

        /// Resolves a peer's name once, for hot loops.
        pub fn peer(
            &self,
            role: impl $crate::session::ToRole,
        ) -> Result<engine::RoleId, $crate::session::Error> {
            role.to_role(&self.shared.names)
        }

        /// Sends `value` (any payload, or a ready [`Message`](engine::Message))
        /// to `to`, waiting until the protocol allows it.
        pub fn send<T: engine::Payload>(
            &mut self,
            to: impl $crate::session::ToRole,
            value: T,
        ) -> Result<(), $crate::session::Error> {
            let to = to.to_peer(self.role, &self.shared.names, "send to")?;
            self.run($crate::session::op::Op::Send {
                to,
                msg: engine::Message::new(value),
            })
            .map(|_| ())
        }

        /// Closes this role's channel to `to`. A close is final: a later
        /// send to `to` fails with
        /// [`Error::SendAfterClose`](crate::session::Error::SendAfterClose),
        /// and `to`'s receives from this role fail with
        /// [`Error::Closed`](crate::session::Error::Closed) once the
        /// messages sent before are taken.
        pub fn close(
            &mut self,
            to: impl $crate::session::ToRole,
        ) -> Result<(), $crate::session::Error> {
            let to = to.to_peer(self.role, &self.shared.names, "close its channel to")?;
            self.run($crate::session::op::Op::Close { to }).map(|_| ())
        }

        /// Hands this role's use word to a layer that shares the endpoint
        /// between threads (see [`RoleUse`](crate::session::RoleUse)):
        /// from now on the endpoint's operations and polls leave the word
        /// alone, and the holder begins and ends each of them on it (see
        /// [`BlockingEndpoint::share_use`](crate::session::BlockingEndpoint::share_use)
        /// for what an operation not begun there misses).
        pub fn share_use(&mut self) -> $crate::session::RoleUse {
            self.shared_use = true;
            $crate::session::RoleUse::new(&self.shared.uses, self.role)
        }

        /// Whether async operations of this endpoint are registered
        /// (futures between polls): what a
        /// [`RoleUse`](crate::session::RoleUse) holder ends a poll with.
        pub fn has_registered_ops(&self) -> bool {
            self.async_ops > 0
        }

        /// A guard that declares this role panicked if it is dropped while
        /// its thread unwinds from a panic; see
        /// [`PanicGuard`](crate::session::PanicGuard). Needed only when
        /// the endpoint may outlive the thread (kept in an `Arc`, say): an
        /// endpoint dropped while its thread unwinds declares the role
        /// panicked by itself.
        pub fn panic_guard(&self) -> $crate::session::PanicGuard {
            $crate::session::PanicGuard {
                session: self.shared.clone(),
                role: self.role,
            }
        }
    };
}

pub(super) use endpoint_methods;
