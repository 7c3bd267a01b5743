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

/// How the values of one Rust type are named: all by one type, or each by
/// its variant (a registered message enum).
#[derive(Clone, Copy)]
enum Naming {
    Type(MessageType),
    Variants(&'static Registered),
}

/// A hasher for `TypeId`s, which are hashes already: the `u64` they write
/// is taken as it is (anything else is folded in, FNV-1a).
#[derive(Default)]
struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }
}

/// How `T`'s values are named, from a per-thread cache by `TypeId`. Why:
/// without it every [`Message::new`](crate::Message::new) hashes the
/// `TypeId` into the registry, then splits `T`'s path and looks it up by
/// string; with it, one lookup of a number. What it caches is exactly
/// what those lookups give (the registry and the interned types never
/// change once made).
fn naming<T: Payload>() -> Naming {
    use std::cell::RefCell;
    type Cache = hashbrown::HashMap<TypeId, Naming, std::hash::BuildHasherDefault<IdHasher>>;
    thread_local! {
        static CACHE: RefCell<Cache> = RefCell::new(Cache::default());
    }
    let id = TypeId::of::<T>();
    // `try_with`: while the thread's locals are torn down, no cache.
    if let Ok(Some(n)) = CACHE.try_with(|c| c.borrow().get(&id).copied()) {
        return n;
    }
    let n = match registry().get(&id) {
        Some(r) => Naming::Variants(r),
        None => Naming::Type(by_type_name::<T>()),
    };
    let _ = CACHE.try_with(|c| c.borrow_mut().insert(id, n));
    n
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
        match naming::<T>() {
            Naming::Type(t) => t,
            Naming::Variants(r) => match (r.variant)(value).and_then(|i| r.types.get(i)) {
                Some(&t) => t,
                None => by_type_name::<T>(),
            },
        }
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

    // Fields only to give the types data: never read.
    #[allow(dead_code)]
    mod one {
        #[derive(Clone, Debug)]
        pub struct Ping;
        #[derive(Clone, Debug, prust_derive::Message)]
        #[message(crate = "crate")]
        pub enum Cmd {
            Go,
            Halt(u8),
        }
    }
    #[allow(dead_code)]
    mod two {
        #[derive(Clone, Debug)]
        pub struct Ping(pub u8);
    }

    /// The per-`TypeId` cache gives the names the uncached lookups give,
    /// however the calls interleave: types of one short name in two
    /// modules, the variants of two enums of one name, one generic type at
    /// two arguments, on a fresh thread (empty cache) and again (cached).
    #[test]
    fn the_cached_naming_is_the_uncached_one() {
        let check = || {
            for _ in 0..3 {
                let paths = [
                    MessageType::of_value(&one::Ping).path(),
                    MessageType::of_value(&two::Ping(1)).path(),
                    MessageType::of_value(&Cmd::Stop).path(),
                    MessageType::of_value(&one::Cmd::Halt(2)).path(),
                    MessageType::of_value(&Cmd::Job(1)).path(),
                    MessageType::of_value(&one::Cmd::Go).path(),
                    MessageType::of_value(&vec![1u8]).path(),
                    MessageType::of_value(&vec![1u16]).path(),
                    Message::new(two::Ping(3)).message_type().path(),
                    Message::new(one::Cmd::Go).message_type().path(),
                ];
                let expected = [
                    std::any::type_name::<one::Ping>().to_string(),
                    std::any::type_name::<two::Ping>().to_string(),
                    format!("{}::Stop", std::any::type_name::<Cmd>()),
                    format!("{}::Halt", std::any::type_name::<one::Cmd>()),
                    format!("{}::Job", std::any::type_name::<Cmd>()),
                    format!("{}::Go", std::any::type_name::<one::Cmd>()),
                    "alloc::vec::Vec".to_string(),
                    "alloc::vec::Vec".to_string(),
                    std::any::type_name::<two::Ping>().to_string(),
                    format!("{}::Go", std::any::type_name::<one::Cmd>()),
                ];
                assert_eq!(paths.map(String::from), expected);
                assert!(paths[0].ends_with("one::Ping") && paths[1].ends_with("two::Ping"));
            }
        };
        check();
        std::thread::spawn(check).join().unwrap();
    }
}
