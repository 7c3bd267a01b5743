//! Thread roles on OS threads of their own (`Explorer::role_threads`,
//! kept to measure coroutines against): each waits on its condition
//! variable for its turn, runs the body, and makes the next decision.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use engine::RoleId;

use super::super::endpoint::{Shared, Slot, Wake};
use super::super::panics::panic_message;

/// Whether `role` runs on a thread of its own (not on the executor's).
pub(super) fn gates_of_threads(shared: &Shared, role: RoleId) -> bool {
    let ctl = shared.lock();
    ctl.tasks[role].is_none() && !ctl.coroutines[role]
}

/// A role thread: waits to be started, runs the body, records how it
/// ended, and makes the next decision.
pub(super) fn role_thread(
    role: RoleId,
    body: Box<dyn FnOnce(RoleId, Arc<Shared>) + Send + '_>,
    shared: Arc<Shared>,
) {
    // The role's panics are part of the report (with their place), not
    // for the panic hook to print.
    engine::quiet::set_quiet(true);
    {
        let mut ctl = shared.lock();
        while matches!(ctl.slots[role], Slot::NotStarted) {
            ctl = shared.role_cvs[role].wait(ctl);
        }
        if !matches!(ctl.slots[role], Slot::Running) {
            // Stopped before it started: the body never runs.
            return;
        }
    }
    let _entered = super::super::choose::enter(Arc::clone(&shared), role);
    // A place noted before the body runs is not the body's.
    let _ = engine::quiet::take_location();
    let body_shared = Arc::clone(&shared);
    let result = catch_unwind(AssertUnwindSafe(move || body(role, body_shared)));
    let mut ctl = shared.lock();
    ctl.slots[role] = match result {
        Ok(()) => Slot::Done,
        Err(p) => Slot::Panicked(panic_message(&*p)),
    };
    if let Some(at) = engine::quiet::take_location() {
        if let Slot::Panicked(m) = &mut ctl.slots[role] {
            m.push_str(&format!("\u{0}{at}"));
        }
    }
    // Once the execution has ended, the explorer waits for every thread
    // to return: `advance` then only says to wake it.
    let wake = shared.advance(&mut ctl, None);
    if matches!(wake, Wake::Task) {
        ctl.handovers += 1;
    }
    drop(ctl);
    shared.wake(wake);
}
