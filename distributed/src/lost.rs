//! Telling that a process stopped taking part. Timely's connection
//! threads (`timely:recv-N`, `timely:send-N`, N the remote process) panic
//! when a peer's connection breaks, and the workers would then wait for
//! that peer's progress for ever. A panic hook notes which process was
//! lost; the workers look at the note while they wait, and end with
//! [`Error::Lost`] naming it.

use std::sync::{Mutex, Once, PoisonError};

use crate::Error;

/// The first process lost, and what its connection said.
static LOST: Mutex<Option<(usize, String)>> = Mutex::new(None);

/// Installs the hook, once a process; other panics go to the hook that
/// was there before.
pub(crate) fn watch() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let remote = std::thread::current()
                .name()
                .and_then(|n| {
                    n.strip_prefix("timely:recv-")
                        .or_else(|| n.strip_prefix("timely:send-"))
                })
                .and_then(|i| i.parse::<usize>().ok());
            let message = engine::panic_message(info.payload());
            let mut lost = LOST.lock().unwrap_or_else(PoisonError::into_inner);
            match remote {
                Some(process) => {
                    lost.get_or_insert((process, message));
                }
                // A worker's next step after a connection broke: the
                // loss is the error, said once.
                None if lost.is_some() && message.contains("MergeQueue poisoned") => {}
                None => {
                    drop(lost);
                    before(info)
                }
            }
        }));
    });
}

/// Forgets a loss of an earlier check of this process: each check has
/// its own connections.
pub(crate) fn reset() {
    *LOST.lock().unwrap_or_else(PoisonError::into_inner) = None;
}

/// The process lost, if one was.
pub(crate) fn lost() -> Option<Error> {
    let lost = LOST.lock().unwrap_or_else(PoisonError::into_inner);
    lost.as_ref().map(|(process, detail)| Error::Lost {
        process: *process,
        detail: detail.clone(),
    })
}
