//! The future behind [`Sender::send_async`](crate::Sender::send_async) and
//! [`Receiver::recv_async`](crate::Receiver::recv_async): one session
//! operation, polled through the endpoint's
//! [`poll_op`](protocols::session::BlockingEndpoint::poll_op) with the
//! task's waker, and given up by `cancel_op` if the future is dropped
//! before it is ready (a registered operation has done nothing then).

use std::future::Future;
use std::mem::ManuallyDrop;
use std::pin::Pin;
use std::task::{Context, Poll};

use protocols::session::{AsyncOp, Done};

use crate::ends::Shared;
use crate::Error;

/// One async operation of a role, on the role's shared endpoint.
pub(crate) struct OpFuture<'a> {
    shared: &'a Shared,
    /// Dropped by hand (see the `Drop`): a ready operation holds nothing,
    /// and a test of that is cheaper than a call of its drop glue.
    op: ManuallyDrop<AsyncOp>,
}

impl<'a> OpFuture<'a> {
    pub(crate) fn new(shared: &'a Shared, op: AsyncOp) -> OpFuture<'a> {
        OpFuture {
            shared,
            op: ManuallyDrop::new(op),
        }
    }
}

impl OpFuture<'_> {
    /// One poll of the operation (the typed futures turn what it is done
    /// with into their own output in the same call, so that the large
    /// error types are not moved through another future).
    #[inline]
    pub(crate) fn poll_done(&mut self, cx: &mut Context<'_>) -> Poll<Result<Done, Error>> {
        let mut ep = match self.shared.endpoint_for_poll() {
            Ok(ep) => ep,
            Err(e) => return Poll::Ready(Err(e)),
        };
        ep.poll_op(cx, &mut self.op).map_err(Error::from)
    }
}

impl Future for OpFuture<'_> {
    type Output = Result<Done, Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.get_mut().poll_done(cx)
    }
}

impl Drop for OpFuture<'_> {
    #[inline]
    fn drop(&mut self) {
        if self.op.is_registered() {
            self.cancel();
        }
        if !self.op.is_done() {
            // SAFETY: dropped once, here, and never used after.
            unsafe { ManuallyDrop::drop(&mut self.op) }
        }
    }
}

impl OpFuture<'_> {
    /// Gives up a registered operation (rare: the future lost a race), out
    /// of line so that the drop of a ready one stays a test.
    #[cold]
    #[inline(never)]
    fn cancel(&mut self) {
        self.shared.endpoint_waiting().cancel_op(&mut self.op);
    }
}
