//! [`SessionEnds`]: `session.ends("worker")`, the typed ends of a role
//! straight from a session.
//!
//! The sessions live in `protocols`, which this crate depends on, so they
//! cannot name [`Ends`] themselves: the method comes with this trait,
//! implemented here for both sessions.

use engine::Protocol;
use protocols::session::{self, BlockingEndpoint, Endpoint, Session, Split, SplitEndpoint};
use protocols::session::{SplitSession, ToRole};

use crate::{Ends, Error};

/// Typed ends straight from a session: `session.ends(role)` is
/// [`Ends::new`]`(session.endpoint(role)?)`, for a
/// [`Session`] and a [`SplitSession`] alike.
///
/// ```
/// use channel::SessionEnds; // `prust::channel::SessionEnds` through `prust`
/// use protocols::session::Session;
/// use protocols::spec::{msg, Spec};
/// #[derive(Clone, Debug, PartialEq)]
/// struct Ping(u32);
///
/// let object = protocols::Strict::from_spec(&Spec::new("ping", msg("Ping", "a", "b"))).unwrap();
/// let session = Session::new(object);
/// let (a, b) = (session.ends("a").unwrap(), session.ends("b").unwrap());
/// a.sender::<Ping>("b").unwrap().send(Ping(7)).unwrap();
/// assert_eq!(b.receiver::<Ping>("a").unwrap().recv(), Ok(Ping(7)));
/// // A role that does not exist, or whose endpoint is taken: an error at once.
/// let e = session.ends("bb").unwrap_err();
/// assert_eq!(e.to_string(), "unknown role `bb`; did you mean `b`? the protocol has: a, b");
/// assert!(session.ends("a").unwrap_err().to_string().contains("already taken"));
/// ```
pub trait SessionEnds {
    /// The endpoint type of the session's roles.
    type Endpoint: BlockingEndpoint + 'static;

    /// The typed ends of `role` (by name or index): takes its endpoint.
    /// Fails if the session has no such role (with the closest name), or
    /// the role's endpoint (or ends) was taken already: a role is one
    /// sequential thread of the protocol, with one set of ends.
    fn ends(&self, role: impl ToRole) -> Result<Ends<Self::Endpoint>, Error>;

    /// The typed ends of every role not taken yet, in role order, closing
    /// the session (as `into_endpoints` does).
    ///
    /// ```
    /// use channel::SessionEnds;
    /// use protocols::session::SplitSession;
    /// use protocols::spec::{msg, Spec};
    /// let lts = Spec::new("ping", msg("Ping", "a", "b")).compile().unwrap();
    /// let [a, b] = SplitSession::new(protocols::Liberal::new(lts)).into_ends().try_into().unwrap();
    /// assert_eq!((a.name(), b.name()), ("a", "b"));
    /// ```
    fn into_ends(self) -> Vec<Ends<Self::Endpoint>>;
}

impl<P: Protocol> SessionEnds for Session<P> {
    type Endpoint = Endpoint<P>;

    fn ends(&self, role: impl ToRole) -> Result<Ends<Endpoint<P>>, Error> {
        self.endpoint(role).map(Ends::new).map_err(with_hint)
    }

    fn into_ends(self) -> Vec<Ends<Endpoint<P>>> {
        self.into_endpoints().into_iter().map(Ends::new).collect()
    }
}

impl<P: Split> SessionEnds for SplitSession<P> {
    type Endpoint = SplitEndpoint<P>;

    fn ends(&self, role: impl ToRole) -> Result<Ends<SplitEndpoint<P>>, Error> {
        self.endpoint(role).map(Ends::new).map_err(with_hint)
    }

    fn into_ends(self) -> Vec<Ends<SplitEndpoint<P>>> {
        self.into_endpoints().into_iter().map(Ends::new).collect()
    }
}

/// An unknown role gets the closest name, as [`Ends::peer`] gives it.
fn with_hint(e: session::Error) -> Error {
    match e {
        session::Error::UnknownRole { name, known } => Error::UnknownRole {
            hint: engine::names::closest(&name, known.iter().map(String::as_str))
                .map(str::to_string),
            name,
            known,
        },
        e => Error::Session(e),
    }
}
