//! Spare protocol objects, kept to be overwritten instead of freed: most
//! successors the search makes are states it has seen before, dropped
//! right after they are interned, and the next successor is a fresh clone
//! of the state being expanded. Made with [`Clone::clone_from`] into a
//! spare, an object whose `clone_from` reuses its buffers (as
//! `Vec::clone_from` does) allocates and frees nothing for such a
//! successor; the default `clone_from` (`*self = source.clone()`) costs
//! what a clone costs, so any object is correct either way.

/// At most this many spares are kept: a state's successors are few, and
/// each spare holds its heap blocks (an object of a large state would
/// otherwise pin a large amount of memory for nothing).
const MAX_SPARES: usize = 32;

/// A small pool of objects whose only use is to be overwritten by
/// [`Spares::copy_of`].
pub(crate) struct Spares<P> {
    objects: Vec<P>,
}

impl<P: Clone> Spares<P> {
    pub(crate) fn new() -> Self {
        Spares {
            objects: Vec::new(),
        }
    }

    /// Keeps `p` to be overwritten later, or drops it if the pool is full.
    #[inline]
    pub(crate) fn put(&mut self, p: P) {
        if self.objects.len() < MAX_SPARES {
            self.objects.push(p);
        }
    }

    /// A spare object, if there is one: its state is meaningless, only
    /// its allocations are worth anything.
    #[inline]
    pub(crate) fn take(&mut self) -> Option<P> {
        self.objects.pop()
    }

    /// An object equal to `original` (if its `Clone` is faithful): a spare
    /// overwritten by `clone_from`, or a fresh clone when there is none.
    #[inline]
    pub(crate) fn copy_of(&mut self, original: &P) -> P {
        match self.objects.pop() {
            Some(mut spare) => {
                spare.clone_from(original);
                spare
            }
            None => original.clone(),
        }
    }

    /// The number of spares kept (for tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.objects.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pool holds at most `MAX_SPARES` objects, and a copy made from a
    /// spare is equal to the original whatever the spare held.
    #[test]
    fn copies_equal_the_original_and_the_pool_is_bounded() {
        let mut s: Spares<Vec<u32>> = Spares::new();
        assert_eq!(s.copy_of(&vec![1, 2]), vec![1, 2], "no spare: a clone");
        for i in 0..2 * MAX_SPARES as u32 {
            s.put(vec![i; i as usize]);
        }
        assert_eq!(s.len(), MAX_SPARES);
        let spare_cap = {
            let mut t = s.take().expect("kept");
            t.reserve(100);
            let cap = t.capacity();
            s.put(t);
            cap
        };
        let c = s.copy_of(&vec![7, 8, 9]);
        assert_eq!(c, vec![7, 8, 9]);
        assert_eq!(c.capacity(), spare_cap, "the spare's buffer, reused");
    }
}
