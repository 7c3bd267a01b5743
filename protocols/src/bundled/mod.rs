//! The bundled protocols, by name.
//!
//! Role and type names are exactly those of the published Prut4j and
//! Discourje case studies, so that published formulas run unchanged. Every
//! protocol has a module with its typed [`Spec`] constructor (`spec`, or
//! one per variant, e.g. [`npb::cg`]) and, where there is one `spec`, the
//! shorthand `strict` for its strict object; every other object comes from
//! the specification ([`Spec::compile`], [`Spec::strict`],
//! [`Spec::liberal`]). Each also has a registry entry usable by name:
//!
//! ```
//! let lts = protocols::bundled::by_name("token-star:4").unwrap();
//! assert_eq!(lts.roles(), ["worker_0_", "worker_1_", "worker_2_", "worker_3_"]);
//! let err = protocols::bundled::by_name("token-stra").unwrap_err();
//! assert!(err.to_string().contains("token-star"));
//! assert!(protocols::bundled::list().iter().any(|p| p.name == "chess"));
//! ```

use crate::spec::{Role, Spec};
use crate::{Error, Lts};

pub mod chess;
pub mod go_fish;
pub mod load_balancer;
pub mod micro;
pub mod npb;
pub mod rock_paper_scissors;
pub mod tic_tac_toe;
pub mod token;
pub mod two_buyer;

/// The parameter of a parametrised bundled protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// What it means.
    pub description: &'static str,
    /// Used when the name has no `:k`.
    pub default: usize,
    /// Smallest allowed value.
    pub min: usize,
    /// Largest allowed value: what the specification can be built with
    /// (rock-paper-scissors numbers its players' sets by the bits of one
    /// word), or a bound far beyond any instance a check can finish, so
    /// that a mistyped parameter (`token-star:99999999999`) is an error
    /// rather than an allocation the machine cannot make.
    pub max: usize,
}

/// What `prust list` shows about a bundled protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BundledInfo {
    /// Name, as given to [`by_name`].
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// The parameter, if any.
    pub param: Option<Param>,
    /// Roles (for the default parameter).
    pub roles: Vec<String>,
    /// Message types.
    pub types: Vec<String>,
}

type Make = fn(usize) -> Spec;

struct Entry {
    name: &'static str,
    description: &'static str,
    param: Option<Param>,
    make: Make,
}

/// The largest parameter of a bundled family (roles or players). Every
/// family takes a few terms a role, so from about this size on its
/// specification is past the compiler's bound of a million terms anyway
/// (an error after seconds); building the specification of a larger one
/// would only allocate, and `token-star:99999999999` used to abort the
/// process asking for 1.6 TB. At this size a family builds in a few
/// seconds and under 600 MB.
pub(crate) const MAX_ROLES: usize = 100_000;

/// The registry's parameter: `what` it means, its `default` and its `min`;
/// at most [`MAX_ROLES`].
fn param(description: &'static str, default: usize, min: usize) -> Option<Param> {
    Some(Param {
        description,
        default,
        min,
        max: MAX_ROLES,
    })
}

fn entries() -> Vec<Entry> {
    use token::Topology::*;
    let k = "number of workers";
    let e = |name, description, param, make| Entry {
        name,
        description,
        param,
        make,
    };
    vec![
        e(
            "token-directed-ring",
            "a token passed around a directed ring",
            param(k, 4, 2),
            |k| token::spec(DirectedRing, k),
        ),
        e(
            "token-undirected-ring",
            "a token passed either way around a ring",
            param(k, 4, 2),
            |k| token::spec(UndirectedRing, k),
        ),
        e(
            "token-star",
            "a token passed between a centre and leaves",
            param(k, 4, 2),
            |k| token::spec(Star, k),
        ),
        e(
            "token-binary-tree",
            "a token passed along a binary tree",
            param(k, 4, 2),
            |k| token::spec(BinaryTree, k),
        ),
        e(
            "token-full-mesh",
            "a token passed to anyone",
            param(k, 4, 2),
            |k| token::spec(FullMesh, k),
        ),
        e(
            "token-2d-mesh",
            "a token passed along a square grid",
            param(k, 4, 2),
            |k| token::spec(Mesh2d, k),
        ),
        e("chess", "white and black take turns", None, |_| {
            chess::spec()
        }),
        e(
            "tic-tac-toe",
            "either player begins, then they alternate",
            None,
            |_| tic_tac_toe::spec(),
        ),
        e(
            "rock-paper-scissors",
            "rounds of rock-paper-scissors until one winner",
            Some(Param {
                description: "number of players",
                default: 3,
                min: 2,
                max: rock_paper_scissors::MAX_PLAYERS,
            }),
            rock_paper_scissors::spec,
        ),
        e(
            "go-fish",
            "a dealer and players asking each other for cards",
            param("number of players", 3, 2),
            go_fish::spec,
        ),
        e(
            "npb-cg",
            "NAS conjugate gradient: master and workers",
            param(k, 2, 1),
            npb::cg,
        ),
        e(
            "npb-is",
            "NAS integer sort: master and workers",
            param(k, 2, 1),
            npb::is,
        ),
        e(
            "npb-cg-concurrent",
            "NAS conjugate gradient, the workers concurrent within a round",
            param(k, 2, 1),
            npb::cg_concurrent,
        ),
        e(
            "npb-is-concurrent",
            "NAS integer sort, the workers concurrent within a round",
            param(k, 2, 1),
            npb::is_concurrent,
        ),
        e(
            "npb-ft",
            "NAS Fourier transform: master, evolve and fft workers",
            param("workers per kind", 2, 1),
            npb::ft,
        ),
        e(
            "npb-mg",
            "NAS multigrid: master, interp, psinv, rprj and resid workers",
            param("workers per kind", 1, 1),
            npb::mg,
        ),
        e(
            "two-buyer",
            "two buyers share the price of a book",
            None,
            |_| two_buyer::spec(),
        ),
        e(
            "load-balancer",
            "a balancer forwards a request to one of two servers",
            None,
            |_| load_balancer::spec(),
        ),
        e(
            "ring-buffered",
            "microbenchmark: asynchronous messages around a ring",
            param(k, 4, 2),
            |k| micro::ring(k, true),
        ),
        e(
            "ring-unbuffered",
            "microbenchmark: synchronous messages around a ring",
            param(k, 4, 2),
            |k| micro::ring(k, false),
        ),
        e(
            "star-buffered",
            "microbenchmark: asynchronous master to workers and back",
            param(k, 4, 1),
            |k| micro::star(k, true),
        ),
        e(
            "star-unbuffered",
            "microbenchmark: synchronous master to workers and back",
            param(k, 4, 1),
            |k| micro::star(k, false),
        ),
    ]
}

/// All bundled protocols, in a stable order.
pub fn list() -> Vec<BundledInfo> {
    entries()
        .into_iter()
        .map(|e| {
            let spec = (e.make)(e.param.as_ref().map_or(0, |p| p.default));
            BundledInfo {
                name: e.name,
                description: e.description,
                param: e.param,
                roles: spec.declared_roles().to_vec(),
                types: spec.declared_types().to_vec(),
            }
        })
        .collect()
}

/// The names of all bundled protocols.
fn names() -> Vec<&'static str> {
    entries().iter().map(|e| e.name).collect()
}

/// The specification of `"name"` or `"name:k"`.
pub fn spec_by_name(name: &str) -> Result<Spec, Error> {
    let (base, arg) = match name.split_once(':') {
        Some((b, a)) => (b.trim(), Some(a.trim())),
        None => (name.trim(), None),
    };
    let entries = entries();
    let Some(e) = entries.iter().find(|e| e.name == base) else {
        return Err(Error::UnknownProtocol {
            name: name.to_string(),
            known: names().iter().map(|s| s.to_string()).collect(),
        });
    };
    let k = match (&e.param, arg) {
        (None, None) => 0,
        (None, Some(_)) => {
            return Err(Error::BadParameter {
                protocol: e.name.into(),
                message: "takes no parameter; write it without `:k`".into(),
            })
        }
        (Some(p), None) => p.default,
        (Some(p), Some(a)) => {
            let (what, min) = (p.description, p.min);
            let too_large = || Error::BadParameter {
                protocol: e.name.into(),
                message: format!("the {what} must be at most {}, not {a}", p.max),
            };
            let k: usize = match a.parse() {
                Ok(k) => k,
                // All digits but no `usize`: too large, not malformed.
                Err(_) if !a.is_empty() && a.bytes().all(|b| b.is_ascii_digit()) => {
                    return Err(too_large())
                }
                Err(_) => {
                    return Err(Error::BadParameter {
                        protocol: e.name.into(),
                        message: format!(
                            "`{a}` is not a number; the parameter is the {what}, e.g. `{}:{min}`",
                            e.name
                        ),
                    })
                }
            };
            if k < min {
                return Err(Error::BadParameter {
                    protocol: e.name.into(),
                    message: format!("the {what} must be at least {min}, not {k}"),
                });
            }
            if k > p.max {
                return Err(too_large());
            }
            k
        }
    };
    Ok((e.make)(k))
}

/// The compiled global LTS of `"name"` or `"name:k"` (default limits;
/// within others: `spec_by_name(name)?.compile_with(&limits)`).
pub fn by_name(name: &str) -> Result<Lts, Error> {
    spec_by_name(name)?.compile()
}

/// The strict object of a bundled spec, which is known to be well-formed,
/// compiled with the default limits; panics with the error (state bound)
/// otherwise. What each module's `strict()` returns.
pub(crate) fn strict_of(spec: Spec) -> crate::Strict {
    spec.strict()
        .unwrap_or_else(|e| panic!("{}: {e}", spec.name()))
}

pub(crate) fn indexed(base: &str, k: usize) -> Vec<Role> {
    (0..k).map(|i| Role::indexed(base, i)).collect()
}
