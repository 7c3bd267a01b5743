//! Wrappers that hide what an object declares ([`AllPeers`]: its
//! topology; [`Probed`]: its enabled actions), to measure what the engine
//! gains from each declaration. Its own file: they wrap any model.

use engine::{Message, Protocol, Refused, RoleId};

/// `P` with its topology hidden: [`Protocol::peers`] keeps the default
/// ("every other role"), as for an object that does not declare it, so the
/// engine probes every pair of roles.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AllPeers<P>(pub P);

impl<P: Protocol> Protocol for AllPeers<P> {
    fn roles(&self) -> Vec<String> {
        self.0.roles()
    }

    fn type_names(&self) -> Vec<String> {
        self.0.type_names()
    }

    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        self.0.try_send(role, to, msg)
    }

    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        self.0.try_recv(role, from)
    }

    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        self.0.try_close(role, to)
    }

    fn is_terminated(&self) -> bool {
        self.0.is_terminated()
    }

    fn is_finished(&self, role: RoleId) -> bool {
        self.0.is_finished(role)
    }
}

/// `P` probed: [`Protocol::enabled`] keeps the default (lists nothing), as
/// for an object that does not list its actions, so the engine finds them
/// by probing every channel. Everything else, the codec included, is
/// `P`'s.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Probed<P>(pub P);

impl<P: Protocol> Protocol for Probed<P> {
    fn roles(&self) -> Vec<String> {
        self.0.roles()
    }

    fn type_names(&self) -> Vec<String> {
        self.0.type_names()
    }

    fn peers(&self, role: RoleId) -> Option<Vec<RoleId>> {
        self.0.peers(role)
    }

    fn sends_to(&self, role: RoleId) -> Option<Vec<RoleId>> {
        self.0.sends_to(role)
    }

    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        self.0.try_send(role, to, msg)
    }

    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        self.0.try_recv(role, from)
    }

    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        self.0.try_close(role, to)
    }

    fn is_terminated(&self) -> bool {
        self.0.is_terminated()
    }

    fn is_finished(&self, role: RoleId) -> bool {
        self.0.is_finished(role)
    }

    fn encode(&self, out: &mut Vec<u8>) -> bool {
        self.0.encode(out)
    }

    fn decode(&self, bytes: &[u8]) -> Option<Self> {
        self.0.decode(bytes).map(Probed)
    }
}
