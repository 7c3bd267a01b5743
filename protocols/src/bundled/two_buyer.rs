//! Two buyers: roles `buyer1`, `buyer2`, `seller`; types `Title`, `Quote`,
//! `Contribution`, `Decision`. buyer1 → seller `Title`; then interleaved:
//! (seller → buyer1 `Quote`; buyer1 → buyer2 `Contribution`) and seller →
//! buyer2 `Quote`; then buyer2 → seller `Decision`.
//!
//! ```
//! let lts = protocols::two_buyer::spec().compile().unwrap();
//! assert!(lts.num_states() > 8);
//! ```

use crate::spec::{msg, par, seq, Spec};

/// The specification.
pub fn spec() -> Spec {
    Spec::new(
        "two-buyer",
        seq([
            msg("Title", "buyer1", "seller"),
            par([
                seq([
                    msg("Quote", "seller", "buyer1"),
                    msg("Contribution", "buyer1", "buyer2"),
                ]),
                msg("Quote", "seller", "buyer2"),
            ]),
            msg("Decision", "buyer2", "seller"),
        ]),
    )
    .roles(["buyer1", "buyer2", "seller"])
    .types(["Title", "Quote", "Contribution", "Decision"])
}

/// The strict object of [`spec`], compiled with the default limits (the
/// shorthand of `spec().strict().unwrap()`; see [`Spec::strict`]).
pub fn strict() -> crate::Strict {
    super::strict_of(spec())
}
