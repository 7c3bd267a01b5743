//! The enabled choices among the pending operations, and performing one
//! on the object.

use engine::{Enabled, Message, MessageType, Protocol, RoleId};

use super::ending::waits_for;
use super::op::{Op, Reply};
use super::step::{Act, ActKind, Alt};

/// What the object says of its enabled actions: its answer for one
/// action ([`Protocol::is_enabled`]), else its list of them all
/// ([`Protocol::enabled`]), asked at most once a point and only where an
/// answer is missing; read instead of probing each pending operation on
/// a clone of the object. Why: the clones were most of what an execution
/// cost (two thirds of its instructions on a mailbox of `VecDeque`s),
/// and the objects built from specifications list their actions anyway;
/// then the list of every role's actions was most of what was left of a
/// scheduling point on a mailbox that answers for one at once.
///
/// Both are trusted as the engine trusts the list (an action left out is
/// never explored), so debug builds (every `cargo test`) also probe and
/// compare, and a difference ends the execution as nondeterminism naming
/// the operation (see [`enabled`]).
pub(crate) struct Listing {
    /// The declared types' interned short names, by index into
    /// [`Protocol::type_names`]; asked once per exploration.
    types: Option<Vec<MessageType>>,
    /// The list of the current point (kept for its allocation).
    list: Vec<Enabled>,
    /// Whether `list` holds the current point's list: `None` if it was
    /// not asked for yet at this point, `Some(false)` if the object gives
    /// none.
    listed: Option<bool>,
}

/// Where an answer came from, for the report of one that is wrong.
#[derive(Clone, Copy)]
enum Source {
    Answer,
    List,
}

impl Listing {
    pub(crate) fn new() -> Self {
        Listing {
            types: None,
            list: Vec::new(),
            listed: None,
        }
    }

    /// Whether `action` is enabled on `obj`, by the object's answer or
    /// its list; `None` if it gives neither.
    fn ask<P: Protocol>(&mut self, obj: &P, action: Enabled) -> Option<(bool, Source)> {
        if let Some(answer) = obj.is_enabled(action) {
            return Some((answer, Source::Answer));
        }
        if self.listed.is_none() {
            self.list.clear();
            self.listed = Some(obj.enabled(&mut self.list));
        }
        match self.listed {
            Some(true) => Some((self.list.contains(&action), Source::List)),
            _ => None,
        }
    }

    /// Whether the object says that `op` of `role` (from `from`, for a
    /// receive from anyone) is enabled; `None` where it does not say (a
    /// message of a type the object does not declare, a select, whose
    /// alternatives depend on the type the object would hand out, or an
    /// object that neither answers nor lists).
    fn says<P: Protocol>(
        &mut self,
        obj: &P,
        role: RoleId,
        op: &Op,
        from: Option<RoleId>,
    ) -> Option<(bool, Source)> {
        match op {
            Op::Send { to, msg } => {
                let short = msg.message_type().short();
                let types = self.types.get_or_insert_with(|| {
                    let names = obj.type_names();
                    names.iter().map(|n| MessageType::of(n).short()).collect()
                });
                let declared = types.len();
                let first = types.iter().position(|t| *t == short)?;
                let mut said = self.ask(
                    obj,
                    Enabled::Send {
                        role,
                        to: *to,
                        ty: first,
                    },
                )?;
                // One type name may be declared more than once: any of
                // its indices will do.
                for ty in first + 1..declared {
                    if said.0 {
                        break;
                    }
                    if self.types.as_ref().is_some_and(|t| t[ty] == short) {
                        said = self.ask(obj, Enabled::Send { role, to: *to, ty })?;
                    }
                }
                Some(said)
            }
            Op::Recv { from: asked } => {
                let from = from.or(*asked)?;
                self.ask(obj, Enabled::Recv { role, from })
            }
            Op::Close { to } => self.ask(obj, Enabled::Close { role, to: *to }),
            Op::Choose { .. } | Op::Select { .. } => None,
        }
    }
}

/// Whether the choice (`op` of `role`, from `from` for a receive from
/// anyone) is enabled on `obj`: from the object's answer or list where
/// it gives one, else (or, in debug builds, also) probed on a clone.
/// `Err` names an operation on which the object's word and the probe
/// differ.
fn accepts<P: Protocol>(
    obj: &P,
    listing: &mut Listing,
    (role, names): (RoleId, &[String]),
    op: &Op,
    from: Option<RoleId>,
    probe: impl FnOnce(P) -> bool,
) -> Result<bool, String> {
    let said = listing.says(obj, role, op, from);
    match said {
        Some((said, _)) if !cfg!(debug_assertions) => Ok(said),
        _ => {
            let probed = probe(obj.clone());
            match said {
                Some((said, source)) if said != probed => {
                    // A receive from anyone is judged one sender at a time.
                    let one = match (op, from) {
                        (Op::Recv { .. }, Some(f)) => Op::Recv { from: Some(f) },
                        _ => op.clone(),
                    };
                    let word = match source {
                        Source::Answer => "`is_enabled` answer",
                        Source::List => "`enabled` list",
                    };
                    Err(format!(
                        "{} waits to {}, which the object's {word} {} but its \
                         try-operation {} (see Protocol::{}: {} must be exact)",
                        names[role],
                        waits_for(&one, names),
                        if said { "allows" } else { "leaves out" },
                        if probed { "accepts" } else { "refuses" },
                        match source {
                            Source::Answer => "is_enabled",
                            Source::List => "enabled",
                        },
                        match source {
                            Source::Answer => "the answer",
                            Source::List => "the list",
                        },
                    ))
                }
                _ => Ok(probed),
            }
        }
    }
}

/// The enabled choices among the pending operations, probed on clones of
/// `obj` (or read from its answers or its list, see [`Listing`]):
/// `prev`'s first (so that the first choice never preempts), then by
/// role; a receive from anyone gives one choice per possible sender.
/// `pending` is by role; the choices go into `alts` (empty: given for its
/// allocation). `Err`: the object's answers or list and its
/// try-operations disagree (debug builds only).
pub(crate) fn enabled<P: Protocol>(
    obj: &P,
    pending: &[(RoleId, &Op)],
    prev: Option<RoleId>,
    names: &[String],
    listing: &mut Listing,
    mut alts: Vec<Alt>,
) -> Result<Vec<Alt>, String> {
    debug_assert!(alts.is_empty());
    listing.listed = None;
    debug_assert!(pending.windows(2).all(|w| w[0].0 < w[1].0), "by role");
    let first = pending.iter().filter(|(r, _)| Some(*r) == prev);
    for (role, op) in first.chain(pending.iter().filter(|(r, _)| Some(*r) != prev)) {
        let role = *role;
        match op {
            Op::Send { to, msg } => {
                if accepts(obj, listing, (role, names), op, None, |mut o| {
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
                if accepts(obj, listing, (role, names), op, None, |mut o| {
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
                    if accepts(obj, listing, (role, names), op, Some(f), |mut o| {
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
                if accepts(obj, listing, (role, names), op, None, |mut o| {
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
