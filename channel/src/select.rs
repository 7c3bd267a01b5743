//! `select!`: wait for the first of several receivers of one role, in
//! crossbeam-channel's macro shape, over the session's own
//! [`select`](protocols::session::BlockingEndpoint::select).

use std::sync::Arc;

use engine::Message;
use protocols::session::Alternative;

use crate::ends::Shared;
use crate::{Error, RecvError};

/// Receives from the first of several [`Receiver`](crate::Receiver)s of one
/// role that the protocol allows, and runs that arm with the result
/// (crossbeam-channel's `select!`, `recv` arms only):
///
/// ```
/// use channel::{select, Ends, RecvError};
/// use protocols::session::Session;
/// use protocols::spec::{msg, par, Spec};
/// #[derive(Clone, Debug, PartialEq)]
/// struct Job(u32);
/// #[derive(Clone, Debug, PartialEq)]
/// struct Stop;
///
/// let spec = Spec::new("two", par([msg("Job", "boss", "hand"), msg("Stop", "clock", "hand")]));
/// let object = protocols::Strict::from_spec(&spec).unwrap();
/// let [boss, hand, clock] = Session::new(object).into_endpoints().try_into().unwrap();
/// let (boss, hand, clock) = (Ends::new(boss), Ends::new(hand), Ends::new(clock));
/// clock.sender::<Stop>("hand").unwrap().send(Stop).unwrap();
/// let (jobs, stop) = (hand.receiver::<Job>("boss").unwrap(), hand.receiver::<Stop>("clock").unwrap());
/// let got = select! {
///     recv(jobs) -> job => format!("{job:?}"),
///     recv(stop) -> s => format!("{s:?}"),
/// };
/// assert_eq!(got, "Ok(Stop)");
/// # drop(boss);
/// ```
///
/// Each arm is `recv(receiver) -> pattern => body`; a body that is a block
/// needs no comma after it. Each receiver expression is evaluated once.
/// When several arms can receive, a real session takes the first in
/// order; `prust::explore` explores each. An arm whose peer has closed is
/// not taken while another may still receive; once every one has closed
/// (with nothing left), or the select fails (a deadlock, a failed
/// session), the *first* arm runs with the error. Every receiver must
/// belong to one role's [`Ends`](crate::Ends) (else the first arm gets
/// [`Error::MixedRoles`]).
#[macro_export]
macro_rules! select {
    ($($tokens:tt)*) => {
        $crate::__select!(@bind [] [$($tokens)*])
    };
}

/// The machinery of [`select!`]: binds each receiver once (hygienic names,
/// one per expansion), then selects, then runs the arm taken.
#[doc(hidden)]
#[macro_export]
macro_rules! __select {
    (@bind [$($done:tt)*] [recv($rx:expr) -> $res:pat => $body:block $(,)? $($rest:tt)*]) => {{
        let rx = &$rx;
        $crate::__select!(@bind [$($done)* (rx, $res, $body)] [$($rest)*])
    }};
    (@bind [$($done:tt)*] [recv($rx:expr) -> $res:pat => $body:expr, $($rest:tt)*]) => {{
        let rx = &$rx;
        $crate::__select!(@bind [$($done)* (rx, $res, { $body })] [$($rest)*])
    }};
    (@bind [$($done:tt)*] [recv($rx:expr) -> $res:pat => $body:expr]) => {{
        let rx = &$rx;
        $crate::__select!(@bind [$($done)* (rx, $res, { $body })] [])
    }};
    (@bind [$(($rx:ident, $res:pat, $body:tt))+] []) => {{
        let (taken, got) = $crate::__select(&[$($rx.__select_parts()),+]);
        $crate::__select!(@arms taken got 0usize; $(($rx, $res, $body))+)
    }};
    (@arms $taken:ident $got:ident $k:expr; ($rx:ident, $res:pat, $body:tt)) => {{
        let $res = $crate::__finish($rx, $got);
        $body
    }};
    (@arms $taken:ident $got:ident $k:expr; ($rx:ident, $res:pat, $body:tt) $($rest:tt)+) => {
        if $taken == $k {
            let $res = $crate::__finish($rx, $got);
            $body
        } else {
            $crate::__select!(@arms $taken $got $k + 1; $($rest)+)
        }
    };
}

/// The select of [`select!`]: the index of the arm taken, and its message
/// or the error (for the first arm).
#[doc(hidden)]
pub fn __select(arms: &[(&Arc<Shared>, Vec<Alternative>)]) -> (usize, Result<Message, RecvError>) {
    let Some(((shared, _), rest)) = arms.split_first() else {
        unreachable!("select! has at least one arm");
    };
    if rest.iter().any(|(s, _)| !Arc::ptr_eq(s, shared)) {
        return (0, Err(RecvError::Failed(Error::MixedRoles)));
    }
    // One arm may stand for several alternatives (a receiver of a message
    // enum has one per variant): the arm of each, in order.
    let (alts, arm_of): (Vec<Alternative>, Vec<usize>) = arms
        .iter()
        .enumerate()
        .flat_map(|(k, (_, alts))| alts.iter().map(move |a| (a.clone(), k)))
        .unzip();
    let got = shared
        .endpoint()
        .and_then(|mut ep| ep.select(&alts).map_err(Error::from));
    match got {
        Ok((i, msg)) => (arm_of[i], Ok(msg)),
        Err(e) => (0, Err(RecvError::of(e))),
    }
}
