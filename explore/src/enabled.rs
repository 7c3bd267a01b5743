//! The enabled choices among the pending operations, and performing one
//! on the object.

use engine::{Message, Protocol, RoleId};

use super::op::{Op, Reply};
use super::step::{Act, ActKind, Alt};

/// The enabled choices among the pending operations, probed on clones of
/// `obj`: `prev`'s first (so that the first choice never preempts), then
/// by role; a receive from anyone gives one choice per possible sender.
pub(crate) fn enabled<P: Protocol>(
    obj: &P,
    pending: &[(RoleId, Op)],
    prev: Option<RoleId>,
    roles: usize,
) -> Vec<Alt> {
    let mut order: Vec<&(RoleId, Op)> = pending.iter().collect();
    order.sort_by_key(|(r, _)| (Some(*r) != prev, *r));
    let mut alts = Vec::new();
    for (role, op) in order {
        let role = *role;
        match op {
            Op::Send { to, msg } => {
                if obj.clone().try_send(role, *to, msg.clone()).is_ok() {
                    alts.push(Alt {
                        role,
                        from: None,
                        pick: None,
                    });
                }
            }
            Op::Recv { from: Some(f) } => {
                if obj.clone().try_recv(role, Some(*f)).is_ok() {
                    alts.push(Alt {
                        role,
                        from: None,
                        pick: None,
                    });
                }
            }
            Op::Recv { from: None } => {
                for f in (0..roles).filter(|&f| f != role) {
                    if obj.clone().try_recv(role, Some(f)).is_ok() {
                        alts.push(Alt {
                            role,
                            from: Some(f),
                            pick: None,
                        });
                    }
                }
            }
            Op::Choose { n } => {
                alts.extend((0..*n).map(|k| Alt {
                    role,
                    from: None,
                    pick: Some(k),
                }));
            }
            Op::Select { alts: options } => {
                for (k, a) in options.iter().enumerate() {
                    if obj
                        .clone()
                        .try_recv(role, Some(a.from))
                        .is_ok_and(|(_, m)| a.accepts(&m))
                    {
                        alts.push(Alt {
                            role,
                            from: Some(a.from),
                            pick: Some(k),
                        });
                    }
                }
            }
            Op::Close { to } => {
                if obj.clone().try_close(role, *to).is_ok() {
                    alts.push(Alt {
                        role,
                        from: None,
                        pick: None,
                    });
                }
            }
        }
    }
    alts
}

/// Performs `op` of `role` on `obj` (a choice found enabled by
/// [`enabled`]); `None` if the object refuses what its clone accepted.
pub(crate) fn perform<P: Protocol>(obj: &mut P, alt: Alt, op: Op) -> Option<(Act, Reply)> {
    let (role, from) = (alt.role, alt.from);
    match op {
        Op::Choose { n } => {
            let pick = alt.pick?;
            Some((
                Act {
                    role,
                    kind: ActKind::Choose { pick, n },
                },
                Reply::Chose(pick),
            ))
        }
        Op::Send { to, msg } => {
            let ty = msg.message_type().name();
            obj.try_send(role, to, msg).ok()?;
            Some((
                Act {
                    role,
                    kind: ActKind::Send { to, ty },
                },
                Reply::Done,
            ))
        }
        Op::Recv { from: asked } => {
            let (f, msg) = obj.try_recv(role, from.or(asked)).ok()?;
            Some((received(role, f, &msg), Reply::Received(f, msg)))
        }
        Op::Select { alts } => {
            let k = alt.pick?;
            let a = alts.get(k)?;
            if from != Some(a.from) {
                return None;
            }
            // Looked at on a clone first: a receive of the wrong type
            // cannot be undone.
            let mut probe = obj.clone();
            let (f, msg) = probe.try_recv(role, Some(a.from)).ok()?;
            if !a.accepts(&msg) {
                return None;
            }
            *obj = probe;
            Some((received(role, f, &msg), Reply::Selected(k, msg)))
        }
        Op::Close { to } => {
            obj.try_close(role, to).ok()?;
            Some((
                Act {
                    role,
                    kind: ActKind::Close { to },
                },
                Reply::Done,
            ))
        }
    }
}

/// The step of `role` receiving `msg` from `from` (by a receive or a
/// select alike: the trace does not tell them apart).
fn received(role: RoleId, from: RoleId, msg: &Message) -> Act {
    Act {
        role,
        kind: ActKind::Recv {
            from,
            ty: msg.message_type().name(),
        },
    }
}
