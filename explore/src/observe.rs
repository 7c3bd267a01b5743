//! What a program observes of its roles: a [`Handle`] to each role's
//! value, and the values a program returns ([`Observe`]), which are the
//! result of each execution. Apart from the results' bookkeeping
//! (`results.rs`), so that the roles and the program side import nothing
//! of the scheduler.

use std::fmt;
use std::sync::{Arc, Mutex};

/// What a role spawned with [`Roles::spawn`](super::Roles::spawn) will
/// return: a program returns handles to make their values the result of
/// each execution (as a main thread joins its threads; the roles have not
/// run yet when the program returns).
///
/// ```
/// use prust::explore::explore;
/// use prust::session::BlockingEndpoint;
/// #[derive(Clone, Debug)] struct Move;
/// let ex = explore(prust::protocols::chess::strict(), |r| {
///     let white = r.spawn("white", |mut ep| {
///         ep.send("black", Move).unwrap();
///         ep.recv_from("black").unwrap();
///         "white done"
///     });
///     let black = r.spawn("black", |mut ep| {
///         ep.recv_from("white").unwrap();
///         ep.send("white", Move).unwrap();
///         "black done"
///     });
///     (white, black)
/// });
/// assert_eq!(ex.results()[0].value, ("white done", "black done"));
/// ```
pub struct Handle<T> {
    slot: Arc<Mutex<Option<T>>>,
}

impl<T> Handle<T> {
    pub(crate) fn new() -> Self {
        Handle {
            slot: Arc::new(Mutex::new(None)),
        }
    }

    /// The role's body calls this with what it returned.
    pub(crate) fn set(&self, value: T) {
        *self.slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(value);
    }

    /// The value the role returned, taken out of the handle; `None` if it
    /// has not returned (it panicked, waited for ever, or was never run).
    ///
    /// ```
    /// use prust::explore::{explore, Handle, Observe};
    /// // A program's own result type: implement `Observe` with `take`.
    /// struct Both(Handle<u8>, Handle<u8>);
    /// impl Observe for Both {
    ///     type Value = u16;
    ///     fn observe(self) -> Option<u16> {
    ///         Some(u16::from(self.0.take()?) + u16::from(self.1.take()?))
    ///     }
    /// }
    /// let ex = explore(prust::protocols::two_buyer::strict(), |r| {
    ///     Both(r.spawn("buyer1", |_| 1), r.spawn("buyer2", |_| 2))
    /// });
    /// // No execution completes: the roles return before the protocol ends.
    /// assert!(ex.results().is_empty() && !ex.failures().is_empty());
    /// ```
    pub fn take(&self) -> Option<T> {
        self.slot.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        Handle {
            slot: Arc::clone(&self.slot),
        }
    }
}

impl<T> fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle").finish_non_exhaustive()
    }
}

/// What a program returns, turned into the result of an execution once
/// every role has returned: `()` (the result is `()`), a [`Handle`] (the
/// role's value), or a tuple, array, `Vec` or `Option` of observables.
/// Implement it for a struct of handles to name the parts of a result.
///
/// It is `Send` and `'static`: the program is called on the thread that
/// runs its roles, and what it returns goes to the explorer's thread.
///
/// ```
/// use prust::explore::Observe;
/// // A program that observes nothing has the one result `()`.
/// assert_eq!(().observe(), Some(()));
/// ```
pub trait Observe: Send + 'static {
    /// The result of one execution (read on the thread that ran it).
    type Value: Send + 'static;
    /// The result, read once every role has returned; `None` if a part
    /// is missing (then the execution gives no result).
    fn observe(self) -> Option<Self::Value>;
}

impl Observe for () {
    type Value = ();
    fn observe(self) -> Option<()> {
        Some(())
    }
}

impl<T: Send + 'static> Observe for Handle<T> {
    type Value = T;
    fn observe(self) -> Option<T> {
        self.take()
    }
}

impl<O: Observe> Observe for Vec<O> {
    type Value = Vec<O::Value>;
    fn observe(self) -> Option<Self::Value> {
        self.into_iter().map(Observe::observe).collect()
    }
}

impl<O: Observe, const N: usize> Observe for [O; N] {
    type Value = [O::Value; N];
    fn observe(self) -> Option<Self::Value> {
        let values: Vec<O::Value> = self
            .into_iter()
            .map(Observe::observe)
            .collect::<Option<_>>()?;
        values.try_into().ok()
    }
}

impl<O: Observe> Observe for Option<O> {
    type Value = Option<O::Value>;
    fn observe(self) -> Option<Self::Value> {
        match self {
            None => Some(None),
            Some(o) => o.observe().map(Some),
        }
    }
}

macro_rules! tuples {
    ($(($($t:ident $v:ident),+))*) => {$(
        impl<$($t: Observe),+> Observe for ($($t,)+) {
            type Value = ($($t::Value,)+);
            fn observe(self) -> Option<Self::Value> {
                let ($($v,)+) = self;
                Some(($($v.observe()?,)+))
            }
        }
    )*};
}

tuples! {
    (A a)
    (A a, B b)
    (A a, B b, C c)
    (A a, B b, C c, D d)
    (A a, B b, C c, D d, E e)
    (A a, B b, C c, D d, E e, F f)
    (A a, B b, C c, D d, E e, F f, G g)
    (A a, B b, C c, D d, E e, F f, G g, H h)
}
