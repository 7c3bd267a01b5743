//! The distributed search against the one-machine search.

mod agree;
mod fairness;
mod liveness;
mod owcty;
mod random;
mod shortest;

/// The bundled specification's object of `runtime`: its compiled strict
/// object, or its liberal one.
pub(crate) fn object(spec: &protocols::Spec, runtime: &str) -> protocols::Object {
    if runtime == "strict" {
        spec.strict().unwrap().into()
    } else {
        spec.liberal().unwrap().into()
    }
}
