//! The endpoint behind a set of typed ends, with its type erased:
//! [`BlockingEndpoint`] has generic methods (so it is no trait object), and
//! `Sender<T>` / `Receiver<T>` must not be generic over the endpoint (one
//! role function then takes them whatever session runs it, and an async
//! endpoint can later stand behind the same ends).

use std::task::{Context, Poll};

use engine::{Message, RoleId};
use protocols::session::{Alternative, AsyncOp, BlockingEndpoint, Done, Error, RoleUse};

/// The operations the typed ends use, object-safe, peers by [`RoleId`].
pub(crate) trait Raw: Send {
    fn channel_types(&self, from: RoleId, to: RoleId) -> Option<Vec<String>>;
    fn may_close(&self, from: RoleId, to: RoleId) -> Option<bool>;
    fn send_back(&mut self, to: RoleId, msg: Message) -> Result<(), (Error, Message)>;
    fn recv_from(&mut self, from: RoleId) -> Result<Message, Error>;
    fn close(&mut self, to: RoleId) -> Result<(), Error>;
    fn select(&mut self, alternatives: &[Alternative]) -> Result<(usize, Message), Error>;
    fn try_select(
        &mut self,
        alternatives: &[Alternative],
    ) -> Result<Option<(usize, Message)>, Error>;
    fn poll_op(&mut self, cx: &mut Context<'_>, op: &mut AsyncOp) -> Poll<Result<Done, Error>>;
    fn cancel_op(&mut self, op: &mut AsyncOp);
    fn share_use(&mut self) -> Option<RoleUse>;
    fn has_registered_ops(&self) -> bool;
}

impl<E: BlockingEndpoint> Raw for E {
    fn channel_types(&self, from: RoleId, to: RoleId) -> Option<Vec<String>> {
        BlockingEndpoint::channel_types(self, from, to)
    }
    fn may_close(&self, from: RoleId, to: RoleId) -> Option<bool> {
        BlockingEndpoint::may_close(self, from, to)
    }
    #[inline]
    fn send_back(&mut self, to: RoleId, msg: Message) -> Result<(), (Error, Message)> {
        BlockingEndpoint::send_back(self, to, msg)
    }
    #[inline]
    fn recv_from(&mut self, from: RoleId) -> Result<Message, Error> {
        BlockingEndpoint::recv_from(self, from)
    }
    fn close(&mut self, to: RoleId) -> Result<(), Error> {
        BlockingEndpoint::close(self, to)
    }
    fn select(&mut self, alternatives: &[Alternative]) -> Result<(usize, Message), Error> {
        BlockingEndpoint::select(self, alternatives)
    }
    fn try_select(
        &mut self,
        alternatives: &[Alternative],
    ) -> Result<Option<(usize, Message)>, Error> {
        BlockingEndpoint::try_select(self, alternatives)
    }
    fn poll_op(&mut self, cx: &mut Context<'_>, op: &mut AsyncOp) -> Poll<Result<Done, Error>> {
        BlockingEndpoint::poll_op(self, cx, op)
    }
    fn cancel_op(&mut self, op: &mut AsyncOp) {
        BlockingEndpoint::cancel_op(self, op)
    }
    fn share_use(&mut self) -> Option<RoleUse> {
        BlockingEndpoint::share_use(self)
    }
    #[inline]
    fn has_registered_ops(&self) -> bool {
        BlockingEndpoint::has_registered_ops(self)
    }
}
