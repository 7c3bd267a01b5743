//! The one window of an async poll that a test from outside cannot reach:
//! a wake that comes after the poll's last try and before its
//! registration. A hook run there (in test builds only) lets a peer step
//! inside it, on the same thread, deterministically.

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use engine::Message;

use crate::session::{AsyncOp, Done, SplitSession};
use crate::spec::{msg, Spec};
use crate::Liberal;

thread_local! {
    static BEFORE_REGISTER: RefCell<Option<Box<dyn FnOnce()>>> = const { RefCell::new(None) };
}

/// Runs (once) what the test put there, between a refused poll's last try
/// and its registration.
pub(super) fn before_register() {
    if let Some(f) = BEFORE_REGISTER.with(|h| h.borrow_mut().take()) {
        f();
    }
}

struct Count(AtomicUsize);

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn a_wake_between_the_last_try_and_the_registration_is_not_lost() {
    let lts = Spec::new("job", msg("Job", "a", "b")).compile().unwrap();
    let [a, mut b]: [_; 2] = SplitSession::new(Liberal::new(lts))
        .into_endpoints()
        .try_into()
        .ok()
        .unwrap();
    let woken = Arc::new(Count(AtomicUsize::new(0)));
    let waker = Waker::from(Arc::clone(&woken));
    // The send comes after b's receive was refused and announced, and
    // before b registers: its wake finds no registration to wake. (`a`
    // stays alive: a role that ended would have the deadlock decision
    // wake b's stale registration, and hide a lost wake.)
    let a = Arc::new(Mutex::new(a));
    let sender = Arc::clone(&a);
    BEFORE_REGISTER.with(|h| {
        *h.borrow_mut() = Some(Box::new(move || {
            let mut a = sender.lock().unwrap();
            a.send(1, Message::named("Job", ())).unwrap();
        }))
    });
    let mut recv = AsyncOp::recv_from(0);
    let polled = b.poll_op(&mut Context::from_waker(&waker), &mut recv);
    // Kept, the wake makes the registration try again, and the message is
    // there. Lost, the poll would be pending with nobody left to wake it.
    assert!(
        matches!(polled, Poll::Ready(Ok(Done::Received(0, ref m))) if m.type_name() == "Job"),
        "{polled:?}, woken {} times",
        woken.0.load(Ordering::SeqCst)
    );
    drop(a);
}
