//! Stopping a translation from outside: the caller's [`Interrupt`] (a
//! deadline, a memory budget) is asked every [`POLL_EVERY`] units of work,
//! wherever the work is (construction, pruning, reductions, the WDBA step).
//!
//! The interrupt lives in a thread-local for the duration of one outermost
//! [`crate::translate`] call, so the deep loops of the reductions can poll it
//! without an error path through every helper: a loop that sees [`poll`]
//! say "stop" just ends early (its partial result is consistent, only not
//! reduced), and `translate` turns the sticky flag into
//! [`TranslateError::Interrupted`](crate::TranslateError::Interrupted)
//! before anything is returned. Nested translations (the constants and
//! WDBA checks translate subformulas) share the outer interrupt.

use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;

use crate::error::TranslateError;

/// Units of work (a state expanded, a pruning pass over one term, an
/// edge compared…; each microseconds at most) between two calls of the
/// interrupt: the caller's check (a clock read, sometimes `/proc`) stays
/// well under one per cent of the work, and a limit is overshot by a
/// millisecond or so.
const POLL_EVERY: u32 = 256;

/// A caller's test "stop now?" (see [`TranslateOptions::interrupt`](crate::TranslateOptions::interrupt)).
#[derive(Clone)]
pub(crate) struct Interrupt(pub(crate) Arc<dyn Fn() -> bool + Send + Sync>);

impl fmt::Debug for Interrupt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Interrupt")
    }
}

struct State {
    interrupt: Interrupt,
    countdown: u32,
    stopped: bool,
}

thread_local! {
    static CURRENT: RefCell<Option<State>> = const { RefCell::new(None) };
}

/// Installs `interrupt` for this thread until the guard drops, unless a
/// translation further out installed one (then that one stays).
pub(crate) fn install(interrupt: Option<&Interrupt>) -> Guard {
    let installed = CURRENT.with_borrow_mut(|c| match (c.as_ref(), interrupt) {
        (None, Some(i)) => {
            *c = Some(State {
                interrupt: i.clone(),
                countdown: 1,
                stopped: false,
            });
            true
        }
        _ => false,
    });
    Guard { installed }
}

/// Removes the interrupt it installed, if any.
pub(crate) struct Guard {
    installed: bool,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if self.installed {
            CURRENT.with_borrow_mut(|c| *c = None);
        }
    }
}

/// One unit of work done: `true` when the translation must stop (then
/// always `true` until the outermost translation returns).
pub(crate) fn poll() -> bool {
    CURRENT.with_borrow_mut(|c| {
        let Some(s) = c else { return false };
        if s.stopped {
            return true;
        }
        s.countdown -= 1;
        if s.countdown == 0 {
            s.countdown = POLL_EVERY;
            s.stopped = (s.interrupt.0)();
        }
        s.stopped
    })
}

/// Drops `tables` of a translation that was interrupted on a thread of
/// its own: a large tableau is millions of small allocations, and freeing
/// them took 0.4 s after `--timeout 3` had fired (eight fairness
/// conjuncts). The caller gets its error at once; the memory is returned
/// shortly after (or with the process, if it ends first).
pub(crate) fn discard<T: Send + 'static>(tables: T) {
    // If no thread can be started, the closure and `tables` with it are
    // dropped here: slower, not wrong.
    let _ = std::thread::Builder::new()
        .name("owl-lite-discard".into())
        .spawn(move || drop(tables));
}

/// [`poll`] as an error, for the loops that have an error path.
pub(crate) fn check() -> Result<(), TranslateError> {
    if poll() {
        Err(TranslateError::Interrupted)
    } else {
        Ok(())
    }
}

/// Whether the translation of this thread was stopped (without counting a
/// unit of work).
pub(crate) fn stopped() -> bool {
    CURRENT.with_borrow(|c| c.as_ref().is_some_and(|s| s.stopped))
}
