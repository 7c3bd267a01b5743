//! [`Signal`]: a condition variable that makes no wake-up call when no
//! thread waits on it.
//!
//! Why: the standard library's condition variable makes a system call
//! (a futex wake) on every notification, whether a thread waits or not.
//! An execution of coroutine roles, which never wait on one, still
//! notified seven at its end, each a trip into the kernel: a fifth of a
//! sampled execution's CPU time.
//!
//! Sound where every waiter waits in a loop on a condition of the state
//! behind the mutex, and every notifier changes that state under the
//! mutex before it notifies (as the explorer's do). A waiter counts
//! itself while it holds the mutex, before `wait` releases it: a
//! notifier that takes the mutex after that release sees the count (the
//! release and the acquire order them) and notifies; one that changed
//! the state before the waiter took the mutex did so before the waiter
//! looked, and the waiter does not wait. A count that is one too high
//! (a waiter about to leave) costs one needless wake-up, never a lost one.
//! The orderings come from the mutex (the waiter's count before its
//! release, the notifier's acquire before its load), not from the
//! atomic's: a notifier that changed an atomic without the mutex could
//! lose a wake-up here.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, MutexGuard, PoisonError};
use std::time::Duration;

/// A condition variable that knows how many threads wait on it.
#[derive(Debug, Default)]
pub(crate) struct Signal {
    cv: Condvar,
    waiters: AtomicUsize,
}

impl Signal {
    /// Waits until notified (or woken spuriously), `guard`'s mutex
    /// released meanwhile; a poisoned mutex is taken anyway.
    pub(crate) fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        self.waiters.fetch_add(1, Ordering::SeqCst);
        let guard = self.cv.wait(guard).unwrap_or_else(PoisonError::into_inner);
        self.waiters.fetch_sub(1, Ordering::SeqCst);
        guard
    }

    /// As [`wait`](Self::wait), for at most `timeout`.
    pub(crate) fn wait_timeout<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        timeout: Duration,
    ) -> MutexGuard<'a, T> {
        self.waiters.fetch_add(1, Ordering::SeqCst);
        let (guard, _) = self
            .cv
            .wait_timeout(guard, timeout)
            .unwrap_or_else(PoisonError::into_inner);
        self.waiters.fetch_sub(1, Ordering::SeqCst);
        guard
    }

    /// Wakes one waiting thread, if any.
    pub(crate) fn notify_one(&self) {
        if self.waiters.load(Ordering::SeqCst) > 0 {
            self.cv.notify_one();
        }
    }

    /// Wakes every waiting thread, if any.
    pub(crate) fn notify_all(&self) {
        if self.waiters.load(Ordering::SeqCst) > 0 {
            self.cv.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use std::thread;

    /// A flag set under the mutex and notified after it is released is
    /// never missed, however the two threads interleave (run many times:
    /// a lost wake-up would hang this test). In every other round the
    /// flag is set only once the waiter is counted, so that the counted
    /// path is taken for certain, not only when the race falls that way.
    #[test]
    fn a_notification_after_a_change_under_the_mutex_is_never_lost() {
        for round in 0..2_000 {
            let shared = Arc::new((Mutex::new(false), Signal::default()));
            let waiter = {
                let shared = Arc::clone(&shared);
                thread::spawn(move || {
                    let (flag, signal) = &*shared;
                    let mut set = flag.lock().unwrap();
                    while !*set {
                        set = signal.wait(set);
                    }
                })
            };
            let (flag, signal) = &*shared;
            if round % 2 == 1 {
                while signal.waiters.load(Ordering::SeqCst) == 0 {
                    thread::yield_now();
                }
            }
            *flag.lock().unwrap() = true;
            if round % 4 < 2 {
                signal.notify_all();
            } else {
                signal.notify_one();
            }
            waiter.join().unwrap();
        }
    }

    /// With nobody waiting, a notification is no wake-up at all (the
    /// count is what decides), and a waiter that timed out is no longer
    /// counted.
    #[test]
    fn only_waiting_threads_are_counted() {
        let m = Mutex::new(());
        let s = Signal::default();
        assert_eq!(s.waiters.load(Ordering::SeqCst), 0);
        drop(s.wait_timeout(m.lock().unwrap(), Duration::from_millis(1)));
        assert_eq!(s.waiters.load(Ordering::SeqCst), 0);
        s.notify_one();
        s.notify_all();
    }
}
