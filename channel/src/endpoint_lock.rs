//! The lock over a role's erased endpoint that every typed end of the role
//! shares. One state word says whether the endpoint is free, held by a
//! blocking operation (which may hold it for long: another thread is told
//! [`Busy`](crate::Error::Busy) at once) or by a poll (which holds it for
//! one try: another poll waits for it). Taking it is one compare-and-swap
//! and giving it back one store: a typed operation pays no more than
//! that for sharing the endpoint (a `Mutex` and a separate holder mark
//! cost two atomic read-modify-writes, two stores and the poison
//! bookkeeping an operation).

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{
    AtomicU8,
    Ordering::{Acquire, Relaxed, Release},
};
use std::time::Duration;

use crate::raw::Raw;

const FREE: u8 = 0;
/// Held by a blocking operation.
const BLOCKING: u8 = 1;
/// Held by a poll of an async operation (or to give one up).
const POLLING: u8 = 2;

pub(crate) struct EndpointLock {
    state: AtomicU8,
    endpoint: UnsafeCell<Box<dyn Raw>>,
}

// SAFETY: the endpoint is reached only through a `Held`, and a `Held`
// exists only between a successful swap of `state` from `FREE` (Acquire)
// and its drop, which stores `FREE` (Release): at most one `Held` at a
// time, so its `&mut` is unique, and the endpoint moves between threads
// only as a `Mutex<Box<dyn Raw>>` would move it (`Raw: Send`).
unsafe impl Sync for EndpointLock {}

/// Who holds the lock, when taking it failed.
pub(crate) enum Taken {
    /// A blocking operation (on another thread: it may hold it for long).
    Blocking,
    /// A poll (for one try).
    Polling,
}

impl EndpointLock {
    pub(crate) fn new(endpoint: Box<dyn Raw>) -> EndpointLock {
        EndpointLock {
            state: AtomicU8::new(FREE),
            endpoint: UnsafeCell::new(endpoint),
        }
    }

    /// The endpoint for a blocking operation (`blocking`) or a poll, if
    /// free; otherwise who holds it.
    #[inline]
    pub(crate) fn try_take(&self, blocking: bool) -> Result<Held<'_>, Taken> {
        let to = if blocking { BLOCKING } else { POLLING };
        match self.state.compare_exchange(FREE, to, Acquire, Relaxed) {
            Ok(_) => Ok(Held { lock: self }),
            Err(BLOCKING) => Err(Taken::Blocking),
            Err(_) => Err(Taken::Polling),
        }
    }

    /// The endpoint, waiting for whoever holds it (rare: a dropped
    /// sender's close, a dropped future's give-up). It yields, then
    /// naps a little longer each time, up to a millisecond.
    pub(crate) fn take(&self, blocking: bool) -> Held<'_> {
        let mut nap = Duration::from_micros(5);
        let mut tries = 0u32;
        loop {
            if let Ok(held) = self.try_take(blocking) {
                return held;
            }
            tries += 1;
            if tries < 16 {
                std::thread::yield_now();
            } else {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(1));
            }
        }
    }
}

/// The endpoint, held; given back when dropped (also while unwinding: a
/// panic in the session poisons the session itself, whose next answer
/// says so).
pub(crate) struct Held<'a> {
    lock: &'a EndpointLock,
}

impl Deref for Held<'_> {
    type Target = dyn Raw;
    #[inline]
    fn deref(&self) -> &(dyn Raw + 'static) {
        // SAFETY: this `Held` is the only one (see `EndpointLock`'s `Sync`).
        unsafe { &**self.lock.endpoint.get() }
    }
}

impl DerefMut for Held<'_> {
    #[inline]
    fn deref_mut(&mut self) -> &mut (dyn Raw + 'static) {
        // SAFETY: as in `deref`, and `&mut self` makes this borrow unique.
        unsafe { &mut **self.lock.endpoint.get() }
    }
}

impl Drop for Held<'_> {
    #[inline]
    fn drop(&mut self) {
        self.lock.state.store(FREE, Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocols::session::Session;
    use protocols::spec::{msg, Spec};

    fn lock() -> EndpointLock {
        let object =
            protocols::Strict::from_spec(&Spec::new("ping", msg("Ping", "a", "b"))).unwrap();
        EndpointLock::new(Box::new(Session::new(object).endpoint("a").unwrap()))
    }

    #[test]
    fn a_holder_is_told_apart_and_the_lock_is_free_again_after_it() {
        let l = lock();
        let held = l.try_take(true).ok().unwrap();
        assert!(matches!(l.try_take(false), Err(Taken::Blocking)));
        assert!(matches!(l.try_take(true), Err(Taken::Blocking)));
        drop(held);
        let held = l.try_take(false).ok().unwrap();
        assert_eq!(held.channel_types(0, 1), Some(vec!["Ping".to_string()]));
        assert!(matches!(l.try_take(true), Err(Taken::Polling)));
        drop(held);
        assert!(l.try_take(true).is_ok());
    }

    #[test]
    fn a_waiting_take_gets_the_endpoint_once_the_other_thread_lets_go() {
        let l = std::sync::Arc::new(lock());
        let held = l.try_take(true).ok().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let t = {
            let l = std::sync::Arc::clone(&l);
            std::thread::spawn(move || {
                let held = l.take(true);
                tx.send(()).unwrap();
                held.channel_types(0, 1)
            })
        };
        // Still held here: the other thread waits.
        assert!(rx.recv_timeout(Duration::from_millis(20)).is_err());
        drop(held);
        assert_eq!(t.join().unwrap(), Some(vec!["Ping".to_string()]));
        assert!(l.try_take(false).is_ok());
    }
}
