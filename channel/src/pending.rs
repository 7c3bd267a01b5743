//! What the futures of [`Sender::send_async`](crate::Sender::send_async)
//! and [`Receiver::recv_async`](crate::Receiver::recv_async) poll: one session
//! operation, polled through the endpoint's
//! [`poll_op`](protocols::session::BlockingEndpoint::poll_op) with the
//! task's waker, and given up by `cancel_op` if the future is dropped
//! before it is ready (a registered operation has done nothing then).

use std::mem::ManuallyDrop;
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
    /// One poll of the operation, its outcome made into the typed future's
    /// own output by `done` or `failed` (after the endpoint is let go):
    /// the output is built once, where a `Result<Done, Error>` in between
    /// (the errors are large) was built and moved at each layer.
    #[inline(always)]
    pub(crate) fn poll_with<R>(
        &mut self,
        cx: &mut Context<'_>,
        done: impl FnOnce(Done) -> R,
        failed: impl FnOnce(Error) -> R,
    ) -> Poll<R> {
        let mut ep = match self.shared.endpoint_for_poll() {
            Ok(ep) => ep,
            Err(e) => return Poll::Ready(failed(e)),
        };
        match ep.poll_op(cx, &mut self.op) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Ok(d)) => {
                drop(ep);
                Poll::Ready(done(d))
            }
            Poll::Ready(Err(e)) => {
                drop(ep);
                Poll::Ready(failed(e.into()))
            }
        }
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
        // A role declared panicked has no registration left to give up.
        if let Ok(mut ep) = self.shared.endpoint_waiting() {
            ep.cancel_op(&mut self.op);
        }
    }
}
