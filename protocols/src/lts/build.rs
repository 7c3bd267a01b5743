//! How an [`Lts`] is made: state by state, its role and type names
//! interned as they come (compiler, `.aut` reader, determinisation and
//! projection all build through [`LtsBuilder`]), and the per-role
//! channels and interned type paths computed once when it is finished.

use hashbrown::{HashMap, HashSet};

use super::{Action, Label, Lts};
use crate::ids::{RoleIndex, StateId, TypeIndex};

/// Builds an [`Lts`] state by state, in state order.
#[derive(Debug)]
pub(crate) struct LtsBuilder {
    pub(crate) roles: Vec<String>,
    pub(crate) types: Vec<String>,
    /// The numbers of `roles` and `types` by name: a specification with
    /// many roles names each several times, and a scan of the list per
    /// name made building one of 50,000 roles take minutes.
    role_ids: HashMap<String, u32>,
    type_ids: HashMap<String, u32>,
    offsets: Vec<u32>,
    edges: Vec<(Label, StateId)>,
    finals: Vec<bool>,
}

impl LtsBuilder {
    pub(crate) fn new(roles: Vec<String>, types: Vec<String>) -> Self {
        LtsBuilder {
            role_ids: numbered(&roles),
            type_ids: numbered(&types),
            roles,
            types,
            offsets: vec![0],
            edges: Vec::new(),
            finals: Vec::new(),
        }
    }

    pub(crate) fn role(&mut self, name: &str) -> RoleIndex {
        RoleIndex::new(intern(&mut self.roles, &mut self.role_ids, name))
    }

    pub(crate) fn ty(&mut self, name: &str) -> TypeIndex {
        TypeIndex::new(intern(&mut self.types, &mut self.type_ids, name))
    }

    /// Whether `name` is one of the roles so far.
    pub(crate) fn has_role(&self, name: &str) -> bool {
        self.role_ids.contains_key(name)
    }

    /// Whether `name` is one of the types so far.
    pub(crate) fn has_type(&self, name: &str) -> bool {
        self.type_ids.contains_key(name)
    }

    /// Adds the next state with its transitions (any order, duplicates
    /// removed).
    pub(crate) fn add_state(&mut self, is_final: bool, mut edges: Vec<(Label, StateId)>) {
        edges.sort_unstable();
        edges.dedup();
        self.edges.extend(edges);
        self.offsets.push(self.edges.len() as u32);
        self.finals.push(is_final);
    }

    /// The LTS of the builder's names with states made elsewhere:
    /// `edges[offsets[s]..offsets[s + 1]]` are the transitions of state `s`
    /// (sorted by label then target, without duplicates), `finals[s]`
    /// whether it is final. The builder must have no states of its own.
    pub(crate) fn finish_parts(
        self,
        initial: StateId,
        offsets: Vec<u32>,
        edges: Vec<(Label, StateId)>,
        finals: Vec<bool>,
    ) -> Lts {
        debug_assert!(self.finals.is_empty(), "a builder with states of its own");
        debug_assert_eq!(offsets.len(), finals.len() + 1);
        LtsBuilder {
            offsets,
            edges,
            finals,
            ..self
        }
        .finish(initial)
    }

    pub(crate) fn finish(mut self, initial: StateId) -> Lts {
        // the arrays grew by doubling: give back the slack (a large
        // allocation shrinks in place)
        self.offsets.shrink_to_fit();
        self.edges.shrink_to_fit();
        self.finals.shrink_to_fit();
        let channels = channels(self.roles.len(), &self.edges);
        let uses = channel_uses(&self.edges);
        Lts {
            channels,
            uses,
            roles: self.roles,
            type_paths: interned(&self.types),
            types: self.types,
            initial,
            offsets: self.offsets,
            edges: self.edges,
            finals: self.finals,
        }
    }
}

/// The interned types of `types` (see [`Lts::type_of`]); `None` for a
/// type whose name has a `::`, which no message has as its short name.
pub(crate) fn interned(types: &[String]) -> Vec<Option<engine::MessageType>> {
    types
        .iter()
        .map(|t| (!t.contains("::")).then(|| engine::MessageType::of(t)))
        .collect()
}

/// The number of the type of `msg` among `types` (with `paths` their
/// interned types): by pointer for a message of an interned short name
/// (the engine's own dummies, `Message::named("Move", ..)`: every message
/// of a check), by short name otherwise (`chess::Move`) — also by pointer:
/// a short name with no `::` is interned in `paths`, and a message's type
/// keeps its short name's interned type; a type name of `types` with a
/// `::` (no entry in `paths`) is never a message's short name.
#[inline]
pub(crate) fn type_of(
    paths: &[Option<engine::MessageType>],
    types: &[String],
    msg: &engine::Message,
) -> Option<TypeIndex> {
    debug_assert_eq!(paths.len(), types.len());
    let ty = msg.message_type();
    let short = ty.short();
    paths
        .iter()
        .position(|&p| p == Some(ty))
        .or_else(|| {
            (short != ty)
                .then(|| paths.iter().position(|&p| p == Some(short)))
                .flatten()
        })
        .map(TypeIndex::from_index)
}

/// For each of `roles` roles, the roles that `edges` send or close to from
/// it, or receive at from it: sorted, without repeats.
fn channels(roles: usize, edges: &[(Label, StateId)]) -> Vec<Vec<RoleIndex>> {
    let mut to = vec![Vec::new(); roles];
    for (l, _) in edges {
        if let Some(list) = to.get_mut(l.from.index()) {
            list.push(l.to);
        }
    }
    for list in &mut to {
        list.sort_unstable();
        list.dedup();
    }
    to
}

/// Every `(sender, receiver, type)` that `edges` send, and every
/// `(sender, receiver, NONE)` that they close: sorted, without repeats.
fn channel_uses(edges: &[(Label, StateId)]) -> Vec<(RoleIndex, RoleIndex, TypeIndex)> {
    // A set first: an LTS has few distinct uses but a send edge per state
    // that takes it, and sorting all of them cost a compilation several
    // per cent.
    let distinct: HashSet<_> = edges
        .iter()
        .filter(|(l, _)| matches!(l.action, Action::Send | Action::Close))
        .map(|(l, _)| (l.from, l.to, l.ty))
        .collect();
    let mut uses: Vec<_> = distinct.into_iter().collect();
    uses.sort_unstable();
    uses
}

/// The number of each name of `names`, the first one where a name repeats
/// (as a scan of the list would find it).
fn numbered(names: &[String]) -> HashMap<String, u32> {
    let mut ids = HashMap::with_capacity(names.len());
    for (i, n) in names.iter().enumerate() {
        ids.entry(n.clone()).or_insert(i as u32);
    }
    ids
}

fn intern(names: &mut Vec<String>, ids: &mut HashMap<String, u32>, name: &str) -> u32 {
    if let Some(&i) = ids.get(name) {
        return i;
    }
    names.push(name.to_string());
    let i = (names.len() - 1) as u32;
    ids.insert(name.to_string(), i);
    i
}

#[cfg(test)]
mod tests {
    use super::{interned, type_of};
    use engine::Message;

    /// By full interned path first, then by short name, never by a type
    /// name with `::` (which no message's short name is): what a compare
    /// of the strings gave, now by pointers.
    #[test]
    fn a_message_type_is_found_by_path_then_by_short_name() {
        let types: Vec<String> = ["Job", "a::Done", "Done", "Ping"]
            .map(String::from)
            .to_vec();
        let paths = interned(&types);
        let of = |m: Message| type_of(&paths, &types, &m).map(|t| t.index());
        #[derive(Clone, Debug)]
        struct Job;
        assert_eq!(of(Message::new(Job)), Some(0));
        assert_eq!(of(Message::named("Job", 1)), Some(0));
        assert_eq!(of(Message::named("x::y::Job", ())), Some(0));
        assert_eq!(of(Message::named("a::Done", ())), Some(2));
        assert_eq!(of(Message::named("b::Done", ())), Some(2));
        assert_eq!(of(Message::named("Done", ())), Some(2));
        assert_eq!(of(Message::named("Ping", ())), Some(3));
        assert_eq!(of(Message::named("q::Pong", ())), None);
        assert_eq!(of(Message::named("Jo", ())), None);
        assert_eq!(of(Message::named("Job::", ())), None);
    }
}
