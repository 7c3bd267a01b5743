//! Message enums: a Rust enum whose variants are protocol message types,
//! and the registry that lets generic code (`T: Payload`) name a value of
//! one by its variant.
//!
//! Why a registry and not only a trait: every `Payload` is named by its
//! type unless it is a message enum, and a generic function cannot ask
//! whether its `T` implements a trait (stable Rust has no
//! specialization; a blanket "default" impl would conflict with the
//! derive's). So the derive also registers the enum (with `inventory`,
//! before `main`), and [`MessageType::of_value`] and
//! [`MessageType::types_of`] look a type up by its `TypeId`.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::OnceLock;

use super::message::Payload;
use super::message_type::MessageType;

/// A message enum: each variant is one protocol message type, named by the
/// variant, whatever its fields (`Cmd::Job(3)` is a message of type
/// `Job`, `Cmd::Stop` one of type `Stop`). Implement it with
/// `#[derive(prust::Message)]`, which also registers the enum so that
/// [`Message::new`](crate::Message::new), [`dummies!`](crate::dummies!)
/// and typed channel ends name its values by their variants.
///
/// A message's type path is the enum's path and the variant
/// (`app::Cmd::Job`); its short name, the one formulas and specifications
/// use (`<Job>`), is the variant's.
///
/// ```
/// use engine::{Message, MessageEnum, MessageType};
///
/// #[derive(Clone, Debug, PartialEq, prust_derive::Message)]
/// # #[message(crate = "engine")]
/// enum Cmd {
///     Job(u32),
///     Stop,
/// }
/// assert_eq!(Cmd::VARIANTS, ["Job", "Stop"]);
/// assert_eq!(Cmd::Stop.variant_index(), 1);
/// let m = Message::new(Cmd::Job(3));
/// assert_eq!(m.type_name(), "Job");
/// assert_eq!(m.downcast::<Cmd>().unwrap(), Cmd::Job(3));
/// let names: Vec<_> = MessageType::types_of::<Cmd>().unwrap().iter().map(|t| t.name()).collect();
/// assert_eq!(names, ["Job", "Stop"]);
/// ```
///
/// For a check, give the dummies as values, one per variant
/// (`dummies![Cmd::Job(0), Cmd::Stop]`); an object that declares its types
/// (the strict and liberal objects do) needs none (`dummies![]`).
pub trait MessageEnum: Payload {
    /// The variants' names, in declaration order.
    const VARIANTS: &'static [&'static str];
    /// The index in [`VARIANTS`](Self::VARIANTS) of this value's variant.
    fn variant_index(&self) -> usize;
}

/// One registered message enum, as the derive submits it.
#[doc(hidden)]
pub struct EnumEntry {
    type_id: fn() -> TypeId,
    path: fn() -> &'static str,
    variants: &'static [&'static str],
    variant: fn(&dyn Any) -> Option<usize>,
}

impl EnumEntry {
    /// The entry of `T`, in a `const` (what `inventory::submit!` needs).
    pub const fn new<T: MessageEnum>() -> EnumEntry {
        EnumEntry {
            type_id: TypeId::of::<T>,
            path: std::any::type_name::<T>,
            variants: T::VARIANTS,
            variant: variant_of::<T>,
        }
    }
}

fn variant_of<T: MessageEnum>(value: &dyn Any) -> Option<usize> {
    value.downcast_ref::<T>().map(T::variant_index)
}

inventory::collect!(EnumEntry);

/// A registered enum: the interned type of each variant.
struct Registered {
    types: Vec<MessageType>,
    variant: fn(&dyn Any) -> Option<usize>,
}

/// The registry, built on first use from every entry submitted (all of
/// them are, before `main`).
fn registry() -> &'static HashMap<TypeId, Registered> {
    static REGISTRY: OnceLock<HashMap<TypeId, Registered>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        inventory::iter::<EnumEntry>
            .into_iter()
            .map(|e| {
                let path = (e.path)();
                let path = path.split('<').next().unwrap_or(path);
                let types = e
                    .variants
                    .iter()
                    .map(|v| MessageType::of(&format!("{path}::{v}")))
                    .collect();
                let registered = Registered {
                    types,
                    variant: e.variant,
                };
                ((e.type_id)(), registered)
            })
            .collect()
    })
}

/// `T`'s path without generic arguments, interned: the type of a value of
/// a type that is not a message enum.
fn by_type_name<T: ?Sized>() -> MessageType {
    let full = std::any::type_name::<T>();
    MessageType::of(full.split('<').next().unwrap_or(full))
}

impl MessageType {
    /// The protocol type of `value` as [`Message::new`](crate::Message::new)
    /// names it: its variant's for a [`MessageEnum`], otherwise its Rust
    /// type's path without generic arguments (`alloc::vec::Vec`, short
    /// name `Vec`).
    ///
    /// ```
    /// use engine::MessageType;
    /// #[derive(Clone, Debug)]
    /// struct Move(u8);
    /// assert_eq!(MessageType::of_value(&Move(3)).name(), "Move");
    /// ```
    pub fn of_value<T: Payload>(value: &T) -> MessageType {
        let registry = registry();
        if !registry.is_empty() {
            if let Some(r) = registry.get(&TypeId::of::<T>()) {
                if let Some(&t) = (r.variant)(value).and_then(|i| r.types.get(i)) {
                    return t;
                }
            }
        }
        by_type_name::<T>()
    }

    /// The protocol types a value of `T` may have: one per variant of a
    /// [`MessageEnum`], in declaration order; otherwise the one type that
    /// [`of_value`](Self::of_value) gives every value. `None` for
    /// [`Message`](crate::Message), which carries any type.
    ///
    /// ```
    /// use engine::{Message, MessageType};
    /// #[derive(Clone, Debug)]
    /// struct Move;
    /// assert_eq!(MessageType::types_of::<Move>().unwrap()[0].name(), "Move");
    /// assert!(MessageType::types_of::<Message>().is_none());
    /// ```
    pub fn types_of<T: Payload>() -> Option<Vec<MessageType>> {
        if TypeId::of::<T>() == TypeId::of::<crate::Message>() {
            return None;
        }
        Some(match registry().get(&TypeId::of::<T>()) {
            Some(r) => r.types.clone(),
            None => vec![by_type_name::<T>()],
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::{dummies, Message, MessageEnum, MessageType};

    #[derive(Clone, Debug, PartialEq, prust_derive::Message)]
    #[message(crate = "crate")]
    enum Cmd {
        Job(u32),
        Stop,
        Resize { width: u16, height: u16 },
    }

    /// An enum defined in a function body registers too (doc examples and
    /// tests define theirs there).
    #[test]
    fn every_variant_is_its_own_message_type() {
        #[derive(Clone, Debug, prust_derive::Message)]
        #[message(crate = "crate")]
        enum Local {
            Ping,
        }
        let made = [
            Message::new(Cmd::Job(3)),
            Message::new(Cmd::Stop),
            Message::new(Cmd::Resize {
                width: 1,
                height: 2,
            }),
            Message::new(Local::Ping),
        ];
        let names: Vec<_> = made.iter().map(Message::type_name).collect();
        assert_eq!(names, ["Job", "Stop", "Resize", "Ping"]);
        assert!(
            made[0].type_path().ends_with("::Cmd::Job"),
            "{}",
            made[0].type_path()
        );
        assert_ne!(made[0], made[1]);
        assert_eq!(made[0], Message::new(Cmd::Job(9)));
        assert_eq!(
            made[2].downcast_ref::<Cmd>(),
            Some(&Cmd::Resize {
                width: 1,
                height: 2
            })
        );
        let d = dummies![Cmd::Job(0), Cmd::Stop];
        assert_eq!(d[1].type_name(), "Stop");
        let types: Vec<_> = MessageType::types_of::<Cmd>()
            .unwrap()
            .iter()
            .map(|t| t.name())
            .collect();
        assert_eq!(types, Cmd::VARIANTS);
        assert_eq!(
            MessageType::of_value(&Cmd::Resize {
                width: 0,
                height: 0
            }),
            made[2].message_type()
        );
    }

    /// A type that is not a message enum keeps its type's name.
    #[test]
    fn other_types_keep_their_rust_name() {
        #[derive(Clone, Debug)]
        enum Plain {
            A,
        }
        assert_eq!(Message::new(Plain::A).type_name(), "Plain");
        assert_eq!(
            MessageType::types_of::<Option<u8>>().unwrap()[0].name(),
            "Option"
        );
    }
}
