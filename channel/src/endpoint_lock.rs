//! The lock over a role's erased endpoint that every typed end of the role
//! shares. It is the role's use word in the session
//! ([`RoleUse`](protocols::session::RoleUse)), which says whether the
//! endpoint is free, held by a blocking operation (which may hold it for
//! long: another thread is told [`Busy`](crate::Error::Busy) at once) or
//! by a poll (which holds it for one try: another poll waits for it).
//! Taking it is one compare-and-swap and giving it back one store, and
//! the session then begins and ends nothing of its own: an operation
//! pays one locked instruction for the typed layer's exclusion and the
//! session's mark of a role in use together. (With a lock of its own
//! beside the session's word, an operation paid two, which cost the
//! typed layer 10% of the CPU time of a bare send and receive.) An
//! endpoint with no word to share gets one of its own.

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};
use std::time::Duration;

use protocols::session::{Began, Refusal, RoleUse};

use crate::raw::Raw;

pub(crate) struct EndpointLock {
    word: RoleUse,
    endpoint: UnsafeCell<Box<dyn Raw>>,
}

// SAFETY: the endpoint is reached only through a `Held`, and a `Held`
// exists only while it owns a `Began` of the word (from a `SeqCst`
// compare-and-swap out of a state that no holder has: idle, or async
// operations registered between polls), which its drop ends with a
// `Release` store. Only a `Began` moves the word out of a held state:
// `Began` is neither `Clone` nor made outside `RoleUse`'s begins, the
// session's panic guard declares a role panicked only from idle, the
// endpoint, told by `share_use`, leaves the word to its holders, and
// whoever else holds a copy of the word can only begin from a state no
// holder has. So there is at most one `Held` at a time and its `&mut` is
// unique; the endpoint moves between threads only as a
// `Mutex<Box<dyn Raw>>` would move it (`Raw: Send`).
unsafe impl Sync for EndpointLock {}

impl EndpointLock {
    pub(crate) fn new(mut endpoint: Box<dyn Raw>) -> EndpointLock {
        let word = endpoint.share_use().unwrap_or_else(RoleUse::standalone);
        EndpointLock {
            word,
            endpoint: UnsafeCell::new(endpoint),
        }
    }

    /// The endpoint for a blocking operation or (`poll`) a poll or a look
    /// at it, if free; otherwise why not.
    #[inline]
    pub(crate) fn try_take(&self, poll: bool) -> Result<Held<'_>, Refusal> {
        let began = if poll {
            self.word.try_begin_poll()?
        } else {
            self.word.try_begin()?
        };
        Ok(Held {
            lock: self,
            began: Some(began),
            poll,
        })
    }

    /// The endpoint, waiting for whoever holds it (rare: a dropped
    /// sender's close, a dropped future's give-up); an error only where
    /// waiting would not help (async operations registered, for a blocking
    /// operation; the role panicked). It yields, then naps a little longer
    /// each time, up to a millisecond.
    pub(crate) fn take(&self, poll: bool) -> Result<Held<'_>, Refusal> {
        let mut nap = Duration::from_micros(5);
        let mut tries = 0u32;
        loop {
            match self.try_take(poll) {
                Err(Refusal::Busy | Refusal::Polling) => {}
                taken => return taken,
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
    /// The use of the word this holds (taken only by the drop).
    began: Option<Began<'a>>,
    /// Held for a poll: it ends with the role's registrations as they are
    /// then (a blocking operation neither begins with any nor makes one).
    poll: bool,
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
        let registered = self.poll && self.has_registered_ops();
        if let Some(began) = self.began.take() {
            began.end(registered);
        }
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
        let held = l.try_take(false).ok().unwrap();
        assert_eq!(l.try_take(true).err(), Some(Refusal::Busy));
        assert_eq!(l.try_take(false).err(), Some(Refusal::Busy));
        drop(held);
        let held = l.try_take(true).ok().unwrap();
        assert_eq!(held.channel_types(0, 1), Some(vec!["Ping".to_string()]));
        assert_eq!(l.try_take(false).err(), Some(Refusal::Polling));
        drop(held);
        assert!(l.try_take(false).is_ok());
    }

    #[test]
    fn a_waiting_take_gets_the_endpoint_once_the_other_thread_lets_go() {
        let l = std::sync::Arc::new(lock());
        let held = l.try_take(false).ok().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let t = {
            let l = std::sync::Arc::clone(&l);
            std::thread::spawn(move || {
                let held = l.take(false).ok().unwrap();
                tx.send(()).unwrap();
                held.channel_types(0, 1)
            })
        };
        // Still held here: the other thread waits.
        assert!(rx.recv_timeout(Duration::from_millis(20)).is_err());
        drop(held);
        assert_eq!(t.join().unwrap(), Some(vec!["Ping".to_string()]));
        assert!(l.try_take(true).is_ok());
    }
}
