//! The check of a declared component under the determinism check: both
//! orders of an ample action and another enabled action, on clones.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::alphabet::{Alphabet, LetterId};
use crate::error::ProbeError;
use crate::ids::ProtoId;
use crate::protocol::ActionKind;
use crate::protocol::Protocol;
use crate::successors::Successors;

/// Performs `letter` on `obj`; whether it succeeded (a receive must give a
/// message of the letter's type from the letter's sender).
fn apply<P: Protocol>(
    ex: &Successors<P>,
    obj: &mut P,
    letter: LetterId,
) -> Result<bool, ProbeError> {
    let a = &ex.alphabet;
    let l = a.letter(letter);
    let r = catch_unwind(AssertUnwindSafe(|| match l.kind {
        ActionKind::Send => {
            let msg = a.types[l.ty]
                .dummy
                .clone()
                .expect("an enabled send has a dummy");
            obj.try_send(l.role, l.peer, msg).is_ok()
        }
        ActionKind::Recv => matches!(
            obj.try_recv(l.role, Some(l.peer)),
            Ok((from, m)) if from == l.peer && a.type_of(&m) == Some(l.ty)
        ),
        ActionKind::Close => obj.try_close(l.role, l.peer).is_ok(),
    }));
    r.map_err(|payload| ProbeError::Panic {
        letter,
        message: crate::panic_message(payload.as_ref()),
    })
}

/// Verifies the declaration behind an ample set of `p`: `ample` are the
/// enabled actions of the component `in_component` selects, `others` the
/// other enabled actions (each with its successor). For each pair both
/// orders must be possible and end in equal objects, and an outside step
/// must leave the component's enabled actions as they were.
pub(crate) fn verify_ample<P: Protocol>(
    ex: &mut Successors<P>,
    ample: &[(LetterId, ProtoId)],
    others: &[(LetterId, ProtoId)],
    in_component: impl Fn(&Alphabet, LetterId) -> bool,
) -> Result<(), ProbeError> {
    let wrong = |ex: &Successors<P>, a: LetterId, b: LetterId, what: &str| ProbeError::Contract {
        letter: a,
        detail: format!(
            "the object's independence() declares it independent of `{}`, but {what} \
             (partial-order reduction relies on the declaration: fix it, or declare less)",
            ex.alphabet.describe(b)
        ),
    };
    for &(b, after_b) in others {
        for &(a, after_a) in ample {
            let mut ab = ex.store.get(after_a).clone();
            if !apply(ex, &mut ab, b)? {
                return Err(wrong(ex, a, b, "it disables the other"));
            }
            let mut ba = ex.store.get(after_b).clone();
            if !apply(ex, &mut ba, a)? {
                return Err(wrong(ex, a, b, "the other disables it"));
            }
            if ab != ba {
                return Err(wrong(ex, a, b, "the two orders end in different objects"));
            }
        }
        // The component's enabled actions after the outside step `b`.
        let mut after = Vec::new();
        ex.successors(after_b, None, false, &mut after)?;
        let before: Vec<LetterId> = ample.iter().map(|&(l, _)| l).collect();
        let now: Vec<LetterId> = after
            .iter()
            .map(|&(l, _)| l)
            .filter(|&l| in_component(&ex.alphabet, l))
            .collect();
        if before != now {
            let changed = now
                .iter()
                .chain(&before)
                .copied()
                .find(|l| before.contains(l) != now.contains(l))
                .expect("the lists differ");
            return Err(wrong(
                ex,
                changed,
                b,
                if now.contains(&changed) {
                    "the other enables it"
                } else {
                    "the other disables it"
                },
            ));
        }
    }
    Ok(())
}
