//! The threads a search starts: how many by default, and their stack.
//!
//! The object's `Clone`, `Eq`, `Hash` and drop run on the search's worker
//! threads as on the thread that called the check. Rust's default for a
//! new thread is a 2 MiB stack, less than the 8 MiB of a main thread (and
//! far less than the 1 GiB the `prust` command runs on): an object whose
//! clone recurses deeply (a long linked list, a deep term) then overflowed
//! only on two threads, a crash that depended on the thread count. So the
//! workers get [`WORKER_STACK_BYTES`], at least what any caller's thread
//! is likely to have. Only the pages a thread touches are committed, so a
//! large reservation costs address space, not memory.

/// The stack size of the threads a search starts ([`worker`]): 1 GiB on
/// 64-bit targets (as much as the `prust` command's own thread), 8 MiB on
/// others, where 1 GiB a thread would exhaust the address space.
///
/// ```
/// assert!(engine::stack::WORKER_STACK_BYTES >= 8 << 20);
/// ```
pub const WORKER_STACK_BYTES: usize = if cfg!(target_pointer_width = "64") {
    1 << 30
} else {
    8 << 20
};

/// A thread builder named `name` with a [`WORKER_STACK_BYTES`] stack: every
/// thread that runs the object's code for a search (or an exploration) is
/// started with it, so that how deep that code may recurse does not depend
/// on how many threads run it.
///
/// ```
/// let answer = std::thread::scope(|s| {
///     engine::stack::worker("example".to_string())
///         .spawn_scoped(s, || 6 * 7)
///         .expect("a thread")
///         .join()
///         .unwrap()
/// });
/// assert_eq!(answer, 42);
/// ```
pub fn worker(name: String) -> std::thread::Builder {
    std::thread::Builder::new()
        .name(name)
        .stack_size(WORKER_STACK_BYTES)
}

/// The machine's available parallelism: the default number of threads.
pub(crate) fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
