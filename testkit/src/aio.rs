//! Async session operations on any endpoint, without `prust::channel`:
//! what the async versions of the test programs await (on real sessions
//! under any runtime, and under `prust::explore`'s `spawn_async`).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use engine::{Message, Payload, RoleId};
use protocols::session::{AsyncOp, BlockingEndpoint, Done, Error, ToRole};

/// One async operation on `ep`, given up (`cancel_op`) if dropped before
/// it is ready, as `prust::channel`'s futures are.
pub struct Op<'a, E: BlockingEndpoint> {
    ep: &'a mut E,
    op: AsyncOp,
}

impl<'a, E: BlockingEndpoint> Op<'a, E> {
    /// `op` on `ep`.
    pub fn new(ep: &'a mut E, op: AsyncOp) -> Self {
        Op { ep, op }
    }
}

impl<E: BlockingEndpoint> Future for Op<'_, E> {
    type Output = Result<Done, Error>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        this.ep.poll_op(cx, &mut this.op)
    }
}

impl<E: BlockingEndpoint> Drop for Op<'_, E> {
    fn drop(&mut self) {
        if self.op.is_registered() {
            self.ep.cancel_op(&mut self.op);
        }
    }
}

/// Sends `value` to `to`.
pub async fn send<E: BlockingEndpoint, T: Payload>(
    ep: &mut E,
    to: impl ToRole,
    value: T,
) -> Result<(), Error> {
    let to = ep.peer(to)?;
    Op::new(ep, AsyncOp::send(to, value)).await.map(|_| ())
}

/// Receives from `from`.
pub async fn recv_from<E: BlockingEndpoint>(
    ep: &mut E,
    from: impl ToRole,
) -> Result<Message, Error> {
    let from = ep.peer(from)?;
    match Op::new(ep, AsyncOp::recv_from(from)).await? {
        Done::Received(_, m) | Done::Selected(_, m) => Ok(m),
        other => unreachable!("a receive gives a message: {other:?}"),
    }
}

/// Receives from anyone.
pub async fn recv<E: BlockingEndpoint>(ep: &mut E) -> Result<(RoleId, Message), Error> {
    match Op::new(ep, AsyncOp::recv_from(None)).await? {
        Done::Received(f, m) => Ok((f, m)),
        other => unreachable!("a receive gives a message: {other:?}"),
    }
}

/// Closes the channel to `to`.
pub async fn close<E: BlockingEndpoint>(ep: &mut E, to: impl ToRole) -> Result<(), Error> {
    let to = ep.peer(to)?;
    Op::new(ep, AsyncOp::close(to)).await.map(|_| ())
}
