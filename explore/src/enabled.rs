//! The enabled choices among the pending operations, and performing one
//! on the object.

use engine::{Enabled, Message, MessageType, Protocol, RoleId};

use super::ending::waits_for;
use super::op::{Op, Reply};
use super::step::{Act, ActKind, Alt};

/// The object's own list of its enabled actions ([`Protocol::enabled`]),
/// where it gives one: read instead of probing each pending operation on
/// a clone of the object. Why: the clones were most of what an execution
/// cost (two thirds of its instructions on a mailbox of `VecDeque`s),
/// and the objects built from specifications list their actions anyway.
///
/// The list is trusted as the engine trusts it (an action left out is
/// never explored), so debug builds (every `cargo test`) also probe and
/// compare, and a difference ends the execution as nondeterminism naming
/// the operation (see [`enabled`]).
pub(crate) struct Listing {
    /// The declared types' interned short names, by index into
    /// [`Protocol::type_names`]; asked once per exploration.
    types: Option<Vec<MessageType>>,
    /// The list of the current point (kept for its allocation).
    list: Vec<Enabled>,
}

impl Listing {
    pub(crate) fn new() -> Self {
        Listing {
            types: None,
            list: Vec::new(),
        }
    }

    /// Whether the object's list says that `op` of `role` (from `from`,
    /// for a receive from anyone) is enabled; `None` where the list does
    /// not say (a message of a type the object does not declare, a
    /// select, whose alternatives depend on the type the object would
    /// hand out).
    fn says(&self, role: RoleId, op: &Op, from: Option<RoleId>) -> Option<bool> {
        let has = |e: Enabled| self.list.contains(&e);
        match op {
            Op::Send { to, msg } => {
                let short = msg.message_type().short();
                let types = self.types.as_ref()?;
                let mut declared = types.iter().enumerate().filter(|(_, t)| **t == short);
                let (ty, _) = declared.next()?;
                Some(
                    has(Enabled::Send { role, to: *to, ty })
                        || declared.any(|(ty, _)| has(Enabled::Send { role, to: *to, ty })),
                )
            }
            Op::Recv { from: asked } => {
                let from = from.or(*asked)?;
                Some(has(Enabled::Recv { role, from }))
            }
            Op::Close { to } => Some(has(Enabled::Close { role, to: *to })),
            Op::Choose { .. } | Op::Select { .. } => None,
        }
    }
}

/// Whether the choice (`op` of `role`, from `from` for a receive from
/// anyone) is enabled on `obj`: from the object's list where it has one,
/// else (or, in debug builds, also) probed on a clone. `Err` names an
/// operation on which the list and the probe differ.
fn accepts<P: Protocol>(
    obj: &P,
    listed: Option<&Listing>,
    (role, names): (RoleId, &[String]),
    op: &Op,
    from: Option<RoleId>,
    probe: impl FnOnce(P) -> bool,
) -> Result<bool, String> {
    let said = listed.and_then(|l| l.says(role, op, from));
    match said {
        Some(said) if !cfg!(debug_assertions) => Ok(said),
        _ => {
            let probed = probe(obj.clone());
            match said {
                Some(said) if said != probed => {
                    // A receive from anyone is judged one sender at a time.
                    let one = match (op, from) {
                        (Op::Recv { .. }, Some(f)) => Op::Recv { from: Some(f) },
                        _ => op.clone(),
                    };
                    Err(format!(
                        "{} waits to {}, which the object's `enabled` list {} but its \
                         try-operation {} (see Protocol::enabled: the list must be exact)",
                        names[role],
                        waits_for(&one, names),
                        if said { "allows" } else { "leaves out" },
                        if probed { "accepts" } else { "refuses" },
                    ))
                }
                _ => Ok(probed),
            }
        }
    }
}

/// The enabled choices among the pending operations, probed on clones of
/// `obj` (or read from its own list, see [`Listing`]): `prev`'s first (so
/// that the first choice never preempts), then by role; a receive from
/// anyone gives one choice per possible sender. `pending` is by role;
/// the choices go into `alts` (empty: given for its allocation). `Err`:
/// the object's list and its try-operations disagree (debug builds
/// only).
pub(crate) fn enabled<P: Protocol>(
    obj: &P,
    pending: &[(RoleId, &Op)],
    prev: Option<RoleId>,
    names: &[String],
    listing: &mut Listing,
    mut alts: Vec<Alt>,
) -> Result<Vec<Alt>, String> {
    debug_assert!(alts.is_empty());
    listing.list.clear();
    let listed = if obj.enabled(&mut listing.list) {
        if listing.types.is_none() {
            let names = obj.type_names();
            listing.types = Some(names.iter().map(|n| MessageType::of(n).short()).collect());
        }
        Some(&*listing)
    } else {
        None
    };
    debug_assert!(pending.windows(2).all(|w| w[0].0 < w[1].0), "by role");
    let first = pending.iter().filter(|(r, _)| Some(*r) == prev);
    for (role, op) in first.chain(pending.iter().filter(|(r, _)| Some(*r) != prev)) {
        let role = *role;
        match op {
            Op::Send { to, msg } => {
                if accepts(obj, listed, (role, names), op, None, |mut o| {
                    o.try_send(role, *to, msg.clone()).is_ok()
                })? {
                    alts.push(Alt {
                        role,
                        from: None,
                        pick: None,
                    });
                }
            }
            Op::Recv { from: Some(f) } => {
                if accepts(obj, listed, (role, names), op, None, |mut o| {
                    o.try_recv(role, Some(*f)).is_ok()
                })? {
                    alts.push(Alt {
                        role,
                        from: None,
                        pick: None,
                    });
                }
            }
            Op::Recv { from: None } => {
                for f in (0..names.len()).filter(|&f| f != role) {
                    if accepts(obj, listed, (role, names), op, Some(f), |mut o| {
                        o.try_recv(role, Some(f)).is_ok()
                    })? {
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
                if accepts(obj, listed, (role, names), op, None, |mut o| {
                    o.try_close(role, *to).is_ok()
                })? {
                    alts.push(Alt {
                        role,
                        from: None,
                        pick: None,
                    });
                }
            }
        }
    }
    Ok(alts)
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
            let ty = msg.message_type();
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
            ty: msg.message_type(),
        },
    }
}
