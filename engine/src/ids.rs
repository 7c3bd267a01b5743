//! The integers that name things in the search, each its own type.
//!
//! A product state is a pair of small integers — an interned protocol
//! object and an automaton state — and the search keeps a DFS number per
//! product state. As bare `u32`s the three (and the letters) were easy to
//! swap without the compiler noticing; as newtypes they cannot be. Each is
//! `#[repr(transparent)]` over a `u32`, so no stored state grows.

/// Index of a letter of the alphabet. The two stutter letters come after
/// all actions. A plain alias: letters are computed and compared as
/// numbers everywhere (probe slots, bitsets), and they are never mixed up
/// with the ids below, which are newtypes.
pub(crate) type LetterId = u32;

/// An index newtype over `u32`: `new(i)` from an index, `index()` back,
/// `raw()` as the number packed into keys. One definition for each such
/// id, so the two cannot drift apart.
macro_rules! index_id {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(transparent)]
        pub(crate) struct $name(u32);

        impl $name {
            #[doc = concat!("The `i`-th ", $what, ".")]
            #[inline]
            pub(crate) fn new(i: usize) -> $name {
                debug_assert!(i <= u32::MAX as usize);
                $name(i as u32)
            }

            #[doc = concat!("The ", $what, " as an index into its table.")]
            #[inline]
            pub(crate) fn index(self) -> usize {
                self.0 as usize
            }

            #[doc = concat!("The ", $what, " as a number (for hashing and packing into keys).")]
            #[inline]
            pub(crate) fn raw(self) -> u32 {
                self.0
            }
        }
    };
}

index_id!(
    /// Index of an interned protocol object (see `successors::Store`).
    ProtoId,
    "stored object"
);

index_id!(
    /// A state of the automaton of the negated property (`product::Prepared`).
    AutState,
    "automaton state"
);

/// The search's number for a visited product state: its depth-first
/// discovery order (Couvreur's algorithm compares them to find SCC roots),
/// or one of the two marks [`UNSEEN`](Self::UNSEEN) and
/// [`DEAD`](Self::DEAD). The breadth-first search marks every state it
/// stores [`FIRST`](Self::FIRST): it needs only "seen".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(transparent)]
pub(crate) struct DfsNum(u32);

impl DfsNum {
    /// Never seen: the default of every visited store (zeroed memory).
    pub(crate) const UNSEEN: DfsNum = DfsNum(0);
    /// The number of the first state found.
    pub(crate) const FIRST: DfsNum = DfsNum(1);
    /// Its SCC is complete and has no accepting cycle: never to be
    /// entered again. Above every number, as the largest `u32`.
    pub(crate) const DEAD: DfsNum = DfsNum(u32::MAX);

    /// The `n`-th state found (`n ≥ 1`).
    #[inline]
    pub(crate) fn nth(n: u32) -> DfsNum {
        debug_assert!(n != 0 && n != u32::MAX);
        DfsNum(n)
    }

    /// Seen, and not dead: on the stack of live states.
    #[inline]
    pub(crate) fn is_live(self) -> bool {
        self != DfsNum::UNSEEN && self != DfsNum::DEAD
    }
}

/// One transition of the product: the `letter` the object took to the
/// interned object `proto`, and the automaton edge taken with it to
/// `state`, with its acceptance marks `acc` (bit `i` = set `i`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Successor {
    pub letter: LetterId,
    pub proto: ProtoId,
    pub state: AutState,
    pub acc: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The point of `repr(transparent)`: naming the integers costs no
    /// memory in the visited stores and the stack frames.
    #[test]
    fn the_named_integers_are_as_small_as_the_integers() {
        assert_eq!(std::mem::size_of::<ProtoId>(), 4);
        assert_eq!(std::mem::size_of::<AutState>(), 4);
        assert_eq!(std::mem::size_of::<DfsNum>(), 4);
        assert_eq!(std::mem::size_of::<Successor>(), 16);
        assert!(DfsNum::UNSEEN < DfsNum::FIRST && DfsNum::nth(7) < DfsNum::DEAD);
    }
}
