//! Where a message came from: a thread-local recorder, off by default,
//! that a caller turns on for a short window to tell whether two messages
//! made in that window are copies of one message that existed before it.
//!
//! Messages compare by type only, so two objects equal by `==` may hold
//! different payloads, and two messages of one type may carry different
//! data. What the recorder adds is identity: while a window is open,
//! every boxed payload with data that a [`Message`] gets is noted by the
//! address of its box, as made anew by a constructor
//! ([`Message::with_type`], [`Message::with_boxed`], and so
//! [`Message::new`] and [`Message::named`]) or as a clone of another
//! message. A clone's origin is its source's origin, and a message the
//! window did not see made (one alive before it opened) is its own.
//!
//! Why an address is a sound identity: a message alive when the window
//! opens keeps its address while it lives, so no message made in the
//! window can take it; every message made in the window overwrites the
//! entry of its own address, so the entry read for a live message is the
//! one written when that message was made. Two messages of one
//! [`Origin::Of`] are therefore clones, through any chain of clones, of
//! one message that lived when they were made: the same payload, if the
//! payload's `Clone` is honest. The caller must keep the messages it
//! started from alive until it has compared.
//!
//! ```
//! use engine::origin::{Origin, Origins};
//! use engine::Message;
//!
//! let real = Message::named("Job", 7u64);
//! let window = Origins::record();
//! let copy = real.clone().clone();
//! let rebuilt = Message::named("Job", 7u64);
//! assert_eq!(window.of(&copy), window.of(&real));
//! assert!(matches!(window.of(&copy), Origin::Of(_)));
//! assert_eq!(window.of(&rebuilt), Origin::Fresh);
//! assert_eq!(window.of(&Message::named("Ping", ())), Origin::Unit);
//! ```

use std::any::{Any, TypeId};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::marker::PhantomData;

use super::message::{Message, Payload};

/// What is known of where a message's payload came from (see the module
/// docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// The payload is `()`: the message is all type.
    Unit,
    /// A payload of no size, of this Rust type: the type is all of it.
    ZeroSized(TypeId),
    /// A copy (or the very message) of the message whose payload was at
    /// this address when the window opened.
    Of(usize),
    /// Made in the window by a constructor: its payload may be anything.
    Fresh,
}

thread_local! {
    /// Whether a window is open on this thread: the only thing a message
    /// with data reads when it is made outside one.
    static ON: Cell<bool> = const { Cell::new(false) };
    /// The payload address of each message made in the window: `None`
    /// made fresh, `Some(a)` a copy of the message that was at `a`.
    static SEEN: RefCell<HashMap<usize, Option<usize>>> = RefCell::new(HashMap::new());
    /// Whether a boxed payload was looked into in the window.
    static LOOKED: Cell<bool> = const { Cell::new(false) };
    /// How many messages with data were made in the window, fresh or as
    /// copies: counted apart from `SEEN`, whose entries a reused address
    /// overwrites.
    static MADE: Cell<u64> = const { Cell::new(0) };
    /// Whether messages compare by origin too ([`Origins::strictly`]).
    static STRICT: Cell<bool> = const { Cell::new(false) };
}

/// An open recording window on the current thread (see the module docs);
/// closed, and its records cleared, when dropped. Opening one inside
/// another leaves the outer one open and its records kept.
#[must_use = "the window closes when the guard is dropped"]
pub struct Origins {
    /// Whether this guard opened the window (and so closes it).
    opened: bool,
    /// Thread-local: the guard must be dropped on the thread it was made.
    _here: PhantomData<*const ()>,
}

impl Origins {
    /// Opens a window on the current thread.
    pub fn record() -> Origins {
        let opened = !ON.with(|on| on.replace(true));
        Origins {
            opened,
            _here: PhantomData,
        }
    }

    /// Whether, in the window, a boxed payload was looked into
    /// ([`Message::downcast_ref`], or its `Debug`): whoever did may have
    /// chosen by its value, or changed it through a shared reference (a
    /// `Cell` in it), which no origin shows.
    pub fn looked_into(&self) -> bool {
        LOOKED.with(Cell::get)
    }

    /// How many messages with data have been made in the window so far,
    /// fresh or as copies (of the window an outer guard opened, if this
    /// one is nested): a caller that compares the count before and after
    /// a call tells whether the call made any.
    ///
    /// ```
    /// use engine::origin::Origins;
    /// use engine::Message;
    ///
    /// let real = Message::named("Job", 7u64);
    /// let window = Origins::record();
    /// let before = window.made();
    /// let moved = real;
    /// assert_eq!(window.made(), before);
    /// let _copy = moved.clone();
    /// assert_eq!(window.made(), before + 1);
    /// ```
    pub fn made(&self) -> u64 {
        MADE.with(Cell::get)
    }

    /// Runs `f` with messages compared by type *and* origin (`==` on
    /// [`Message`]): two messages with data are then equal only if they
    /// are one box, or copies of one message that lived before the window
    /// (the same [`Origin::Of`]); a fresh message equals only itself.
    /// Payloads of no size still compare by their Rust type. For a caller
    /// that compares two objects made in the window by their own `==`,
    /// which sees messages by type: an object that compares the messages
    /// it holds (a derived `==` over them) is then equal only if it holds
    /// the same payloads in the same places. Not a full equivalence (a
    /// fresh message equals no copy of it): use it for that compare only.
    ///
    /// ```
    /// use engine::origin::Origins;
    /// use engine::Message;
    ///
    /// let (x, y) = (Message::named("M", 1u32), Message::named("M", 2u32));
    /// let window = Origins::record();
    /// let (a, b) = (vec![x.clone(), y.clone()], vec![y.clone(), x.clone()]);
    /// assert!(a == b);
    /// assert!(!window.strictly(|| a == b));
    /// assert!(window.strictly(|| a == vec![x.clone(), y.clone()]));
    /// ```
    pub fn strictly<R>(&self, f: impl FnOnce() -> R) -> R {
        /// Sets the flag back, also if `f` panics.
        struct Back(bool);
        impl Drop for Back {
            fn drop(&mut self) {
                STRICT.with(|s| s.set(self.0));
            }
        }
        let _back = Back(STRICT.with(|s| s.replace(true)));
        f()
    }

    /// Whether `a` and `b` are one message as far as this window knows:
    /// of one type, and copies of one message that lived before the
    /// window (or both all type: units, payloads of one Rust type of no
    /// size). A message made in the window may carry anything, and is
    /// the same as none.
    ///
    /// ```
    /// use engine::origin::Origins;
    /// use engine::Message;
    ///
    /// let real = Message::named("Job", 7u64);
    /// let window = Origins::record();
    /// let rebuilt = Message::named("Job", 7u64);
    /// assert!(window.same_message(&real.clone(), &real.clone()));
    /// assert!(!window.same_message(&rebuilt, &rebuilt));
    /// ```
    pub fn same_message(&self, a: &Message, b: &Message) -> bool {
        let origin = self.of(a);
        a.message_type() == b.message_type() && origin != Origin::Fresh && origin == self.of(b)
    }

    /// Where `msg` came from, as far as this window knows.
    pub fn of(&self, msg: &Message) -> Origin {
        let Some(payload) = msg.boxed_payload() else {
            return Origin::Unit;
        };
        if std::mem::size_of_val(payload) == 0 {
            return Origin::ZeroSized(Any::type_id(payload as &dyn Any));
        }
        let at = address(payload);
        match SEEN.with(|s| s.borrow().get(&at).copied()) {
            Some(Some(from)) => Origin::Of(from),
            Some(None) => Origin::Fresh,
            None => Origin::Of(at),
        }
    }
}

impl Drop for Origins {
    fn drop(&mut self) {
        if self.opened {
            ON.with(|on| on.set(false));
            LOOKED.with(|l| l.set(false));
            MADE.with(|m| m.set(0));
            STRICT.with(|m| m.set(false));
            SEEN.with(|s| s.borrow_mut().clear());
        }
    }
}

/// The address of a payload's data.
fn address(payload: &dyn Payload) -> usize {
    payload as *const dyn Payload as *const () as usize
}

/// Whether a window is open on this thread.
#[inline]
fn on() -> bool {
    ON.with(Cell::get)
}

/// Whether two messages of one type, at least one of them with a boxed
/// payload, are equal: always, but under [`Origins::strictly`], where
/// they must be one box or of one known origin.
#[inline]
pub(crate) fn same(a: &Message, b: &Message) -> bool {
    if !STRICT.with(Cell::get) {
        return true;
    }
    match (a.boxed_payload(), b.boxed_payload()) {
        // One box (a payload of no size has no box of its own).
        (Some(x), Some(y)) if address(x) == address(y) && std::mem::size_of_val(x) != 0 => true,
        _ => {
            // A guard that opened nothing: dropping it closes nothing.
            let window = Origins {
                opened: false,
                _here: PhantomData,
            };
            window.same_message(a, b)
        }
    }
}

/// A boxed payload was looked into (see [`Origins::looked_into`]).
#[inline]
pub(crate) fn looked() {
    if on() {
        LOOKED.with(|l| l.set(true));
    }
}

/// A message was made with this payload by a constructor.
#[inline]
pub(crate) fn made(payload: &dyn Payload) {
    if on() && std::mem::size_of_val(payload) != 0 {
        MADE.with(|m| m.set(m.get() + 1));
        let at = address(payload);
        SEEN.with(|s| s.borrow_mut().insert(at, None));
    }
}

/// `copy` was made as a clone of `source` (both boxed).
#[inline]
pub(crate) fn cloned(source: &dyn Payload, copy: &dyn Payload) {
    if on() && std::mem::size_of_val(copy) != 0 {
        MADE.with(|m| m.set(m.get() + 1));
        let (from, at) = (address(source), address(copy));
        SEEN.with(|s| {
            let mut s = s.borrow_mut();
            let origin = match s.get(&from) {
                Some(o) => *o,
                None => Some(from),
            };
            s.insert(at, origin);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MessageType;

    #[derive(Clone, Debug)]
    struct Token;

    #[test]
    fn clones_of_clones_keep_the_origin_of_the_message_before_the_window() {
        let real = Message::named("M", 1u32);
        let other = Message::named("M", 1u32);
        let w = Origins::record();
        let a = real.clone();
        let b = a.clone().clone();
        let mut c = Message::named("M", 5u64);
        c.clone_from(&b);
        let d = other.clone();
        assert_eq!(
            w.of(&real),
            Origin::Of(address(real.boxed_payload().unwrap()))
        );
        for m in [&a, &b, &c] {
            assert_eq!(w.of(m), w.of(&real));
        }
        // Equal payloads, another message: another origin.
        assert_ne!(w.of(&d), w.of(&a));
        // A clone of a fresh message is fresh too.
        let fresh = Message::named("M", 1u32);
        assert_eq!(w.of(&fresh), Origin::Fresh);
        assert_eq!(w.of(&fresh.clone()), Origin::Fresh);
        let mut into = real.clone();
        into.clone_from(&fresh);
        assert_eq!(w.of(&into), Origin::Fresh);
    }

    #[test]
    fn a_payload_boxed_again_is_fresh_even_at_the_same_address() {
        let real = Message::named("M", 1u32);
        let w = Origins::record();
        let copy = real.clone();
        assert_eq!(w.of(&copy), w.of(&real));
        let before = address(copy.boxed_payload().unwrap());
        let mut b = copy.downcast_box::<u32>().unwrap();
        *b = 2;
        let again = Message::with_boxed(MessageType::of("M"), b);
        assert_eq!(address(again.boxed_payload().unwrap()), before);
        assert_eq!(w.of(&again), Origin::Fresh);
        // A failed downcast gives the same message back: same origin.
        let copy = real.clone();
        let back = copy.downcast::<u64>().unwrap_err();
        assert_eq!(w.of(&back), w.of(&real));
        let back = back.downcast_box::<u8>().unwrap_err();
        assert_eq!(w.of(&back), w.of(&real));
    }

    #[test]
    fn unit_and_zero_sized_payloads_are_told_by_their_type() {
        let w = Origins::record();
        let unit = Message::named("M", ());
        assert_eq!(w.of(&unit), Origin::Unit);
        assert_eq!(w.of(&unit.clone()), Origin::Unit);
        let t = Message::named("M", Token);
        assert_eq!(w.of(&t), Origin::ZeroSized(TypeId::of::<Token>()));
        assert_eq!(w.of(&t.clone()), w.of(&Message::named("N", Token)));
        assert_ne!(w.of(&t), w.of(&Message::named("M", [0u8; 0])));
        let boxed = Message::with_boxed(MessageType::of("M"), Box::new(()));
        assert_eq!(w.of(&boxed), Origin::Unit);
    }

    #[test]
    fn nothing_is_recorded_outside_a_window() {
        let made_before = Message::named("M", 1u32);
        let copy_before = made_before.clone();
        assert!(!on());
        assert!(SEEN.with(|s| s.borrow().is_empty()));
        {
            let w = Origins::record();
            // Made before the window: each is its own origin.
            assert_ne!(w.of(&copy_before), w.of(&made_before));
            let inner = Origins::record();
            let fresh = Message::named("M", 2u32);
            drop(inner);
            // The inner guard left the outer window open, records kept.
            assert!(on());
            assert_eq!(w.of(&fresh), Origin::Fresh);
        }
        assert!(!on());
        assert!(SEEN.with(|s| s.borrow().is_empty()));
        let after = Message::named("M", 3u32).clone();
        assert!(SEEN.with(|s| s.borrow().is_empty()));
        drop(after);
    }

    #[test]
    fn a_payload_looked_into_in_the_window_is_told() {
        let real = Message::named("M", std::cell::Cell::new(1u32));
        let _ = real.downcast_ref::<std::cell::Cell<u32>>();
        let _ = format!("{real:?}");
        let w = Origins::record();
        assert!(!w.looked_into());
        let _ = Message::named("M", ()).downcast_ref::<()>();
        assert!(!w.looked_into());
        if let Some(c) = real.clone().downcast_ref::<std::cell::Cell<u32>>() {
            c.set(2);
        }
        assert!(w.looked_into());
        drop(w);
        let w = Origins::record();
        assert!(!w.looked_into());
        let _ = format!("{real:?}");
        assert!(w.looked_into());
    }

    #[test]
    fn windows_are_per_thread() {
        let _w = Origins::record();
        std::thread::spawn(|| {
            assert!(!on());
            let _m = Message::named("M", 1u32).clone();
            assert!(SEEN.with(|s| s.borrow().is_empty()));
        })
        .join()
        .unwrap();
        assert!(on());
    }
}
