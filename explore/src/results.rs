//! The results of complete executions: what a program observes of its
//! roles ([`Handle`], [`Observe`]) and the distinct values found, each with
//! one schedule that produces it ([`Returned`]).

use std::fmt;
use std::sync::{Arc, Mutex};

use super::end::End;
use super::found::{to_schedule, to_step, Found};
use super::report::TraceStep;
use super::schedule::Schedule;
use super::scheduler::Run;

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
/// ```
/// use prust::explore::Observe;
/// // A program that observes nothing has the one result `()`.
/// assert_eq!(().observe(), Some(()));
/// ```
pub trait Observe {
    /// The result of one execution.
    type Value;
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

impl<T> Observe for Handle<T> {
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

/// One distinct result of the complete executions (every role returned,
/// the protocol terminated, no failure), with the first schedule found
/// that produces it: replay it with
/// [`Explorer::replay`](super::Explorer::replay) or `PRUST_SCHEDULE`.
///
/// ```
/// use prust::explore::explore;
/// let ex = explore(prust::protocols::two_buyer::strict(), |_| {});
/// // Nothing spawned: one execution, which is no complete run of the
/// // protocol (it has not terminated), so it gives no result.
/// assert!(ex.results().is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Returned<T> {
    /// The result.
    pub value: T,
    /// A schedule that produces it.
    pub schedule: Schedule,
    /// The actions of that schedule's execution, in order.
    pub trace: Vec<TraceStep>,
    /// How many executions produced it (with a reduction, one schedule
    /// stands for several equivalent ones: counts differ between
    /// reductions, the set of values does not).
    pub count: usize,
}

impl<T: fmt::Debug> fmt::Display for Returned<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}  schedule: {}", self.value, self.schedule)
    }
}

/// Adds `value` to the distinct results (compared with `==`: results need
/// no hash or order).
pub(crate) fn record<T: PartialEq>(
    results: &mut Vec<Returned<T>>,
    value: T,
    schedule: impl FnOnce() -> (Schedule, Vec<TraceStep>),
) {
    match results.iter_mut().find(|r| r.value == value) {
        Some(r) => r.count += 1,
        None => {
            let (schedule, trace) = schedule();
            results.push(Returned {
                value,
                schedule,
                trace,
                count: 1,
            });
        }
    }
}

/// The result of one execution, read before its failures are recorded
/// and kept only if there was none (a complete execution).
pub(crate) struct Observed<T> {
    value: Option<T>,
    /// The schedule and trace, where the value is new.
    fresh: Option<(Schedule, Vec<TraceStep>)>,
}

impl<T: PartialEq> Observed<T> {
    pub(crate) fn new<O: Observe<Value = T>>(
        names: &[String],
        run: &Run,
        observed: O,
        results: &[Returned<T>],
    ) -> Self {
        // Only an execution that ran to its end has a result: one stopped
        // by a failure or a bound has roles that did not return.
        let value = (matches!(run.end, End::Success) && run.left_behind.is_empty())
            .then(|| observed.observe())
            .flatten();
        let fresh = value
            .as_ref()
            .filter(|v| !results.iter().any(|r| r.value == **v))
            .map(|_| {
                (
                    to_schedule(names, &run.schedule),
                    run.trace.iter().map(|a| to_step(names, a)).collect(),
                )
            });
        Observed { value, fresh }
    }

    /// Records the value unless the execution failed (a property it
    /// violates, a role stuck after it).
    pub(crate) fn record(self, found: &Found, results: &mut Vec<Returned<T>>) {
        let (Some(value), false) = (self.value, found.last_failed) else {
            return;
        };
        let mut fresh = self.fresh;
        record(results, value, || {
            fresh.take().expect("a new value's schedule was kept")
        });
    }
}
