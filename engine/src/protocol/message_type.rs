//! Interned message type paths: compared by pointer, hashed by a number
//! computed once.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A message type path, interned: one shared record per distinct path in
/// the process, so that a type is compared by pointer and hashed by a
/// number computed once, never by its string. [`Message::message_type`](crate::Message::message_type)
/// gives a message's; objects resolve the types they know to these once,
/// when they are set up, and then look a message's type up by it.
///
/// Every distinct path ever given to [`MessageType::of`] (and so to
/// [`Message::new`](crate::Message::new), [`Message::named`](crate::Message::named)) stays in memory for the life of
/// the process, as string interning in a compiler does: a program has few
/// message types. The pointer never moves, so copies are free to share
/// between threads.
///
/// ```
/// use engine::{Message, MessageType};
/// let a = MessageType::of("chess::Move");
/// assert_eq!(a, MessageType::of("chess::Move"));
/// assert_ne!(a, MessageType::of("Move"));
/// assert_eq!((a.path(), a.name()), ("chess::Move", "Move"));
/// assert_eq!(Message::named("chess::Move", ()).message_type(), a);
/// ```
#[derive(Clone, Copy)]
pub struct MessageType(pub(super) &'static TypeEntry);

/// What [`MessageType`] points to.
pub(super) struct TypeEntry {
    /// The path, as an `Arc` so that [`interned_type_path`](crate::interned_type_path) can hand out
    /// clones of it.
    pub(super) path: Arc<str>,
    /// Where the short name starts in `path`.
    short: usize,
    /// The interned type of the short name (`None`: the path is its own
    /// short name), so that a runtime that knows its types by short name
    /// finds a message's by pointer, not by comparing strings.
    short_type: Option<&'static TypeEntry>,
    /// FNV-1a of the path: fixed across runs (a `Hash` of an object does
    /// not depend on where the record was allocated).
    pub(super) hash: u64,
}

impl MessageType {
    /// The interned type of the path `path` (a short name or a `::` path).
    ///
    /// Looked up in a per-thread cache first (a hash of the string, no
    /// lock), then in the process-wide table under a lock.
    pub fn of(path: &str) -> MessageType {
        use std::cell::RefCell;
        thread_local! {
            static LOCAL: RefCell<hashbrown::HashMap<&'static str, MessageType>> =
                RefCell::new(hashbrown::HashMap::new());
        }
        // `try_with`: a message built while the thread's locals are torn
        // down (in a destructor) goes to the shared table directly.
        if let Ok(Some(t)) = LOCAL.try_with(|m| m.borrow().get(path).copied()) {
            return t;
        }
        let t = MessageType::of_shared(path);
        let _ = LOCAL.try_with(|m| m.borrow_mut().insert(t.path(), t));
        t
    }

    fn of_shared(path: &str) -> MessageType {
        use std::sync::{Mutex, OnceLock};
        let short = short_name(path);
        // Interned first, outside the lock below (the short name of a short
        // name is itself: this recurses once at most).
        let short_type = (short.len() != path.len()).then(|| MessageType::of_shared(short).0);
        static TYPES: OnceLock<Mutex<hashbrown::HashMap<&'static str, MessageType>>> =
            OnceLock::new();
        let mut types = TYPES
            .get_or_init(Default::default)
            .lock()
            // The table is never left half-changed: a panic elsewhere
            // cannot have broken it.
            .unwrap_or_else(|e| e.into_inner());
        if let Some(&t) = types.get(path) {
            return t;
        }
        let hash = path.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        let entry: &'static TypeEntry = Box::leak(Box::new(TypeEntry {
            path: Arc::from(path),
            short: path.len() - short.len(),
            short_type,
            hash,
        }));
        let t = MessageType(entry);
        types.insert(t.path(), t);
        t
    }

    /// The full type path.
    pub fn path(self) -> &'static str {
        &self.0.path
    }

    /// The short name: the last `::` segment of the path.
    pub fn name(self) -> &'static str {
        &self.0.path[self.0.short..]
    }

    /// The interned type of the short name: `MessageType::of(self.name())`
    /// without the lookup (kept since interning).
    ///
    /// ```
    /// use engine::MessageType;
    /// let m = MessageType::of("chess::Move");
    /// assert_eq!(m.short(), MessageType::of("Move"));
    /// assert_eq!(m.short().short(), m.short());
    /// ```
    pub fn short(self) -> MessageType {
        MessageType(self.0.short_type.unwrap_or(self.0))
    }
}

impl PartialEq for MessageType {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}
impl Eq for MessageType {}
impl Hash for MessageType {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0.hash);
    }
}
impl fmt::Debug for MessageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{}>", self.path())
    }
}

/// The last `::` segment of a path: `path.rsplit("::").next()`, without
/// the substring searcher that `rsplit` sets up on every call (computed
/// once per type, when it is interned).
fn short_name(path: &str) -> &str {
    let b = path.as_bytes();
    let mut i = b.len();
    while i >= 2 {
        if b[i - 1] == b':' && b[i - 2] == b':' {
            // Both bytes are ASCII, so `i` is a char boundary.
            return &path[i..];
        }
        i -= 1;
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Message;

    #[test]
    fn short_name_is_the_last_path_segment_like_rsplit() {
        for path in [
            "",
            "Move",
            "chess::Move",
            "a::b::C",
            "::X",
            "X::",
            "a:b",
            "a:::b",
            "a::::b",
            ":",
            "::",
            ":::",
            "ü::ß",
            "a:b::c:d",
        ] {
            let expected = path.rsplit("::").next().unwrap_or(path);
            assert_eq!(short_name(path), expected, "path {path:?}");
            assert_eq!(Message::named(path, ()).type_name(), expected);
            let ty = MessageType::of(path);
            assert_eq!(ty.short(), MessageType::of(expected), "path {path:?}");
            assert_eq!(ty.short().path(), expected);
        }
    }
}
