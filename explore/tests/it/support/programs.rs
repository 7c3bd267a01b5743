//! Programs written as one list of operations a role.

use prust::explore::{ExploreEndpoint, Handle, Roles};
use prust::Protocol;

/// The program in which role `r{i}` runs `run` on `ops[i]`; its result
/// is what each role's `run` gave back.
pub fn each_role<'o, P, Op, G>(
    ops: &'o [Vec<Op>],
    run: fn(&mut ExploreEndpoint<P>, &[Op]) -> G,
) -> impl Fn(&mut Roles<'_, P>) -> Vec<Handle<G>> + Sync + 'o
where
    P: Protocol,
    Op: Clone + Send + Sync + 'static,
    G: Send + 'static,
{
    move |r| {
        ops.iter()
            .enumerate()
            .map(|(i, ops)| {
                let ops = ops.clone();
                r.spawn(format!("r{i}").as_str(), move |mut ep| run(&mut ep, &ops))
            })
            .collect()
    }
}
