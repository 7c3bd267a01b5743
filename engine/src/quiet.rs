//! Panics the caller reports itself, kept out of the panic hook's output:
//! the one panic hook of prust (the engine's and the explorer's).
//!
//! Some error paths run the protocol object's code a second time on
//! purpose: to tell whether a failed probe's panic came from the object's
//! `Clone` (see `successors::probe`), or to rebuild the trace to a state
//! whose probe panicked (`search::lasso`). The first panic was already
//! printed by the panic hook and becomes the check's error; printing the
//! same message again for each re-run only makes the user read it twice.
//! So those re-runs run under [`quietly`]. The explorer (`prust::explore`)
//! keeps its role threads quiet the same way ([`set_quiet`]): a role's
//! panic is part of its report, with the place it happened
//! ([`take_location`]).
//!
//! The hook installed here skips panics on a thread while it is quiet,
//! noting where they happened. Every other panic goes to the hook that was
//! in place before, as if this one were not there. One hook, not one per
//! user: two hooks each chaining to the previous one would both have to
//! agree that a thread is quiet, and the order they were installed in
//! would decide which threads print.

use std::cell::{Cell, RefCell};
use std::sync::Once;

thread_local! {
    /// Set while this thread runs code whose panics its caller reports.
    static QUIET: Cell<bool> = const { Cell::new(false) };
    /// Where the last quiet panic of this thread happened
    /// (`file:line:column`).
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's panics not printed by the panic hook (the
/// caller catches them, and the same panic was printed once already, or is
/// part of what the caller reports). Nests: the previous setting is
/// restored afterwards, also when `f` unwinds.
///
/// ```
/// let caught = engine::quiet::quietly(|| std::panic::catch_unwind(|| panic!("not printed")));
/// assert!(caught.is_err());
/// assert!(engine::quiet::take_location().is_some());
/// ```
pub fn quietly<T>(f: impl FnOnce() -> T) -> T {
    /// Restores the thread's setting on the way out, unwinding or not.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            QUIET.with(|q| q.set(self.0));
        }
    }
    let _restore = Restore(set_quiet(true));
    f()
}

/// Makes this thread's panics quiet (`true`: not printed by the panic
/// hook, their place kept for [`take_location`]) or printed again
/// (`false`), and returns the previous setting. For a thread that is quiet
/// for its whole life (the explorer's role threads), or code on it that
/// must be heard again (the scheduler's own code on a role thread);
/// [`quietly`] is the scoped form.
///
/// ```
/// let before = engine::quiet::set_quiet(true);
/// assert!(!before);
/// assert!(engine::quiet::set_quiet(before));
/// ```
pub fn set_quiet(quiet: bool) -> bool {
    install_hook();
    QUIET.with(|q| q.replace(quiet))
}

/// Where the last panic of this thread while it was quiet happened
/// (`file:line:column`), and forgets it; `None` if there was none since
/// the last call.
///
/// ```
/// assert_eq!(engine::quiet::take_location(), None);
/// ```
pub fn take_location() -> Option<String> {
    LOCATION.with(|l| l.borrow_mut().take())
}

/// Installs (once per process) the hook that keeps quiet threads' panics
/// unprinted, noting where they happened, and hands every other panic to
/// the previous hook.
fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) {
                let at = info
                    .location()
                    .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
                LOCATION.with(|l| *l.borrow_mut() = at);
            } else {
                previous(info)
            }
        }));
    });
}
