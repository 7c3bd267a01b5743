//! The integers that name things in an LTS, each its own type (see the
//! crate docs, "States, roles and types"; the types are re-exported at the
//! root).

use std::fmt;

/// Defines a `u32` newtype id with the same small API for each.
macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(transparent)]
        pub struct $name(u32);

        impl $name {
            /// The id numbered `n`.
            #[inline]
            pub const fn new(n: u32) -> Self {
                $name(n)
            }

            /// The id of index `i`; `i` must fit in a `u32` (every table
            /// that numbers these is bounded below that).
            #[inline]
            pub fn from_index(i: usize) -> Self {
                debug_assert!(i <= u32::MAX as usize);
                $name(i as u32)
            }

            /// The id as a number (for packing and hashing).
            #[inline]
            pub const fn raw(self) -> u32 {
                self.0
            }

            /// The id as an index into its table.
            #[inline]
            pub const fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

id! {
    /// A state of an [`Lts`](crate::Lts): an index into its states, the
    /// initial one [`Lts::initial`](crate::Lts::initial).
    StateId
}

id! {
    /// A role of an [`Lts`](crate::Lts): an index into
    /// [`Lts::roles`](crate::Lts::roles), a [`Label`](crate::Label)'s
    /// `from` and `to`.
    RoleIndex
}

id! {
    /// A message type of an [`Lts`](crate::Lts): an index into
    /// [`Lts::type_names`](crate::Lts::type_names), a
    /// [`Label`](crate::Label)'s `ty` ([`TypeIndex::NONE`] for a close).
    TypeIndex
}

impl StateId {
    /// No state: the `to` of the last step of a `realizable` lint witness
    /// ([`Check::Realizable`](crate::lint::Check::Realizable)), a step the
    /// strict object refuses, so that it reaches no state of the LTS.
    pub const NONE: StateId = StateId(u32::MAX);
}

impl TypeIndex {
    /// The `ty` of a close label, which carries no message.
    pub const NONE: TypeIndex = TypeIndex(u32::MAX);
}
