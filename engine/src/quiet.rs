//! Re-runs of object code that already panicked once, kept quiet.
//!
//! Some error paths run the protocol object's code a second time on
//! purpose: to tell whether a failed probe's panic came from the object's
//! `Clone` (see `successors::probe`), or to rebuild the trace to a state
//! whose probe panicked (`search::lasso`). The first panic was already
//! printed by the panic hook and becomes the check's error; printing the
//! same message again for each re-run only makes the user read it twice.
//! So those re-runs run under [`quietly`], and the hook installed here
//! skips panics on a thread while it is quiet. Every other panic goes to
//! the hook that was in place before, as if this one were not there.

use std::cell::Cell;
use std::sync::Once;

thread_local! {
    /// Set while this thread re-runs code whose panic was already printed.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with this thread's panics not printed by the panic hook (the
/// caller catches them, and the same panic was printed once already).
/// Nests: the previous setting is restored afterwards, also when `f`
/// unwinds.
pub(crate) fn quietly<T>(f: impl FnOnce() -> T) -> T {
    install_hook();
    /// Restores the thread's setting on the way out, unwinding or not.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            QUIET.with(|q| q.set(self.0));
        }
    }
    let _restore = Restore(QUIET.with(|q| q.replace(true)));
    f()
}

/// Installs (once per process) the hook that keeps quiet threads' panics
/// unprinted and hands every other panic to the previous hook.
fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info)
            }
        }));
    });
}
