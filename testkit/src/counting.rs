//! A global allocator that counts the bytes the program holds and the
//! peak since the last [`reset_peak`]: the heap a computation takes, as
//! dhat would report it, without a profiler (and without the allocator's
//! slack or the pages the kernel has not touched, which a resident-set
//! size would mix in). Shared by `protocols/tests/compile_memory.rs` and
//! `protocols/benches/compile_memory.rs`; install it with
//! `#[global_allocator] static A: Counting = Counting;`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, counting.
pub struct Counting;

fn grew(by: usize) {
    let live = LIVE.fetch_add(by, Relaxed) + by;
    PEAK.fetch_max(live, Relaxed);
}

// SAFETY: every call is passed on to the system allocator unchanged; the
// counters are only read.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // counted as the old block given back, then the new one taken
            // (as dhat counts it): a large block grows in place
            LIVE.fetch_sub(layout.size(), Relaxed);
            grew(new_size);
        }
        p
    }
}

/// The bytes held now.
pub fn live() -> usize {
    LIVE.load(Relaxed)
}

/// Starts a new peak at what is held now.
pub fn reset_peak() {
    PEAK.store(live(), Relaxed);
}

/// The most bytes held at once since the last [`reset_peak`].
pub fn peak() -> usize {
    PEAK.load(Relaxed)
}

/// The peak heap that `f` took beyond what was held before it, and its
/// result (which is still held when the peak is read, so it is counted).
pub fn peak_of<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let before = live();
    reset_peak();
    let r = f();
    (peak() - before, r)
}
