//! prust's protocols: global specifications, the strict and liberal
//! runtimes that turn them into protocol objects, the blocking API that real
//! threads use, and the bundled protocols.
//!
//! # The pipeline
//! ```text
//! Spec (spec.rs: Rust combinators)  ──compile──▶  Lts (lts.rs)  ◀──from_aut──  .aut file (aut.rs)
//!                                                   │ determinise
//!                         ┌─────────────────────────┴──────────────────────────┐
//!                         ▼                                                    ▼
//!        Strict (strict.rs): global state + channels            Liberal (liberal.rs): per-role projections
//!                         └──────────── both implement engine::Protocol ────────┘
//! ```
//!
//! ```
//! use engine::{Message, Protocol};
//! let mut chess = protocols::chess::strict();
//! let (white, black) = (0, 1);
//! assert!(chess.try_send(black, white, Message::named("Move", ())).is_err()); // white begins
//! chess.try_send(white, black, Message::named("Move", ())).unwrap();
//! let (from, m) = chess.try_recv(black, None).unwrap();
//! assert_eq!((from, m.type_name()), (white, "Move"));
//! ```
//!
//! The bundled protocols are listed by [`bundled::list`] and built by name
//! with [`bundled::by_name`] (`"token-star:4"`); each also has a module with
//! typed constructors ([`token`], [`chess`], [`tic_tac_toe`],
//! [`rock_paper_scissors`], [`go_fish`], [`npb`], [`two_buyer`],
//! [`load_balancer`], [`micro`]).

use std::fmt;

pub mod aut;
pub mod bundled;
mod compile;
pub mod liberal;
pub mod lts;
pub mod session;
pub mod spec;
pub mod strict;

pub use aut::AutError;
pub use bundled::{
    chess, go_fish, load_balancer, micro, npb, rock_paper_scissors, tic_tac_toe, token, two_buyer,
};
pub use liberal::{Liberal, LocalRole, Projection};
pub use lts::{Action, Label, Lts};
pub use spec::{Role, Spec, Term};
pub use strict::Strict;

/// What can go wrong when building protocols.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The state space exceeds the configured bound.
    StateBound {
        /// The bound.
        limit: usize,
        /// What was being built.
        what: &'static str,
    },
    /// An ill-formed specification (unknown definition, wrong number of
    /// arguments, unguarded recursion, a role talking to itself).
    Spec(String),
    /// A bundled protocol name that does not exist.
    UnknownProtocol {
        /// The name asked for.
        name: String,
        /// The names that exist.
        known: Vec<String>,
    },
    /// A bad parameter for a bundled protocol.
    BadParameter {
        /// The protocol.
        protocol: String,
        /// What is wrong.
        message: String,
    },
    /// A bad `.aut` file.
    Aut(AutError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::StateBound { limit, what } => write!(
                f,
                "the {what} has more than {limit} states; raise the bound (--max-states) or use a smaller instance"
            ),
            Error::Spec(m) => write!(f, "bad specification: {m}"),
            Error::UnknownProtocol { name, known } => {
                write!(f, "unknown protocol `{name}`; the bundled protocols are: {}", known.join(", "))
            }
            Error::BadParameter { protocol, message } => write!(f, "{protocol}: {message}"),
            Error::Aut(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {}

impl From<AutError> for Error {
    fn from(e: AutError) -> Error {
        Error::Aut(e)
    }
}
