//! One freed payload allocation per thread, kept for the next message
//! made on the thread. A typed send boxes its value in a message (the
//! engine's `Message` holds a `Box<dyn Payload>`) and the typed receive
//! that takes it frees the box: on an async round trip the allocation
//! and the free were the largest single cost left. The receive keeps the
//! freed block here instead, and the next send of a type of the same
//! size and alignment (on any end of the thread) writes its value into
//! it. A block of another layout is freed as before, and so is one
//! larger than `MOST` bytes (a thread keeps no large block).

use std::alloc::{dealloc, Layout};
use std::cell::Cell;
use std::ptr::NonNull;

/// The largest block kept (the payloads of a typed send are mostly a few
/// words).
const MOST: usize = 64;

/// The thread's spare block and its layout; freed with the thread.
struct Spare(Cell<Option<(NonNull<u8>, Layout)>>);

impl Drop for Spare {
    fn drop(&mut self) {
        if let Some((block, layout)) = self.0.take() {
            // SAFETY: the block was allocated by the global allocator with
            // `layout` (see `unbox`) and is owned by nobody else.
            unsafe { dealloc(block.as_ptr(), layout) }
        }
    }
}

thread_local! {
    static SPARE: Spare = const { Spare(Cell::new(None)) };
}

/// `value`, boxed in the thread's spare block if it has `T`'s layout.
#[inline]
pub(crate) fn boxed<T>(value: T) -> Box<T> {
    let layout = Layout::new::<T>();
    if layout.size() != 0 && layout.size() <= MOST {
        let taken = SPARE.try_with(|s| match s.0.get() {
            Some((block, l)) if l == layout => {
                s.0.set(None);
                Some(block)
            }
            _ => None,
        });
        if let Ok(Some(block)) = taken {
            let p = block.as_ptr().cast::<T>();
            // SAFETY: the block was allocated by the global allocator with
            // `Layout::new::<T>()` (the same size and alignment as the type
            // it was first allocated for), holds no value (`unbox` moved it
            // out) and was taken out of the spare: this box owns it alone.
            unsafe {
                p.write(value);
                return Box::from_raw(p);
            }
        }
    }
    Box::new(value)
}

/// The value out of `b`, whose block becomes the thread's spare (the
/// spare before it is freed).
#[inline]
pub(crate) fn unbox<T>(b: Box<T>) -> T {
    let layout = Layout::new::<T>();
    if layout.size() == 0 || layout.size() > MOST {
        return *b;
    }
    let p = Box::into_raw(b);
    // SAFETY: `p` comes from a box of a `T`: valid, and the value is read
    // once; from here the block is raw memory that this function owns.
    let value = unsafe { p.read() };
    // SAFETY: a box of a non-zero-sized type is never null.
    let block = unsafe { NonNull::new_unchecked(p.cast::<u8>()) };
    match SPARE.try_with(|s| s.0.replace(Some((block, layout)))) {
        Ok(None) => {}
        // SAFETY: each block was allocated by the global allocator with
        // the layout kept beside it, and is owned here alone.
        Ok(Some((old, l))) => unsafe { dealloc(old.as_ptr(), l) },
        // The thread is ending (its spare is gone): freed at once.
        Err(_) => unsafe { dealloc(block.as_ptr(), layout) },
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_freed_block_is_reused_for_a_value_of_the_same_layout() {
        let a = boxed(1u64);
        let first = &*a as *const u64 as usize;
        assert_eq!(unbox(a), 1);
        // Another type of the same size and alignment gets the block.
        let b = boxed(2i64);
        assert_eq!(&*b as *const i64 as usize, first);
        assert_eq!(unbox(b), 2);
        // Another layout does not, and frees it when it is given back.
        let c = boxed([3u8; 3]);
        assert_eq!(unbox(c), [3u8; 3]);
        let d = boxed(String::from("kept"));
        assert_eq!(unbox(d), "kept");
        assert_eq!(*boxed(()), ());
        // A large value is boxed and freed as usual.
        let e = boxed([5u8; 1000]);
        assert_eq!(unbox(e)[999], 5);
    }
}
