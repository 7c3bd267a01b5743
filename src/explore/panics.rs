//! Role threads' panics: kept quiet (they are part of the report) and
//! located.

use std::cell::{Cell, RefCell};
use std::sync::Once;

thread_local! {
    /// Set on role threads: their panics are part of the report, not
    /// printed by the panic hook.
    pub(crate) static QUIET: Cell<bool> = const { Cell::new(false) };
    /// Where the last quiet panic of this thread happened.
    pub(crate) static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs (once) a panic hook that keeps role threads' panics quiet and
/// records their location; other threads' panics go to the previous hook.
pub(crate) fn install_panic_hook() {
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

/// The message of a panic payload (a `&str` or a `String`).
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic payload that is not a string)".to_string()
    }
}
