//! [`choose`]: the program's own nondeterministic choice, explored
//! exhaustively under [`explore`](super::explore) and random when run for
//! real.

use std::cell::RefCell;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;

use engine::RoleId;

use super::endpoint::Shared;
use super::op::{Op, Reply};

thread_local! {
    /// The execution and role of this thread, if it runs a role body
    /// under exploration.
    static CURRENT: RefCell<Option<(Arc<Shared>, RoleId)>> = const { RefCell::new(None) };
}

/// Marks this thread as running `role` of the execution `shared` until
/// the guard is dropped.
pub(crate) fn enter(shared: Arc<Shared>, role: RoleId) -> Entered {
    CURRENT.with(|c| *c.borrow_mut() = Some((shared, role)));
    Entered
}

/// Clears the thread's role when dropped (also while unwinding).
pub(crate) struct Entered;

impl Drop for Entered {
    fn drop(&mut self) {
        CURRENT.with(|c| *c.borrow_mut() = None);
    }
}

/// A number in `0..n`, chosen by the program: under [`explore`](super::explore)
/// every value is explored (the call is a scheduling point that branches
/// over the `n` values, printed `role#k` in schedules); run for real, a
/// random one. For a program's own decisions (which server gets a
/// request, whether to retry), so that the exploration covers them: the
/// roles must not use other sources of randomness.
///
/// # Panics
/// If `n` is 0 (there is nothing to choose from), and in an async role
/// ([`Roles::spawn_async`](super::Roles::spawn_async)): a choice waits
/// for the scheduler, which a task cannot do.
///
/// ```
/// use prust::explore::{choose, explore, Outcome};
/// use prust::session::BlockingEndpoint;
/// #[derive(Clone, Debug)]
/// struct Move(usize);
/// let ex = explore(prust::protocols::chess::strict(), |r| {
///     r.spawn("white", |mut ep| {
///         let m = choose(3);
///         ep.send("black", Move(m)).unwrap();
///         ep.recv_from("black").unwrap();
///     });
///     r.spawn("black", |mut ep| {
///         let Move(m) = ep.recv_from("white").unwrap().downcast().unwrap();
///         assert!(m < 2, "black cannot answer move {m}");
///         ep.send("white", Move(m)).unwrap();
///     });
/// });
/// let f = &ex.failures()[0];
/// assert!(matches!(f.outcome, Outcome::Panicked { .. }));
/// assert!(f.schedule.to_string().starts_with("white#2"));
/// // Outside an exploration: a random value.
/// assert!(choose(4) < 4);
/// ```
pub fn choose(n: usize) -> usize {
    assert!(n > 0, "choose(0): there is nothing to choose from");
    if n == 1 {
        return 0;
    }
    let current = CURRENT.with(|c| c.borrow().clone());
    match current {
        // An execution being stopped has no choice left to explore: any
        // value will do, the thread is only unwinding to its end.
        Some((shared, role)) => match shared.op(role, Op::Choose { n }) {
            Ok(Reply::Chose(k)) => k,
            // A choice is a blocking call: an async role's task cannot
            // wait for it (its `0` would silently explore one value).
            Err(e @ protocols::session::Error::Unsupported { .. }) => {
                panic!("choose({n}) in an async role is not supported: {e}")
            }
            _ => 0,
        },
        None => {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos() as u64),
            );
            (h.finish() % n as u64) as usize
        }
    }
}
