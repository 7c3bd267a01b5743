//! Where each state's bytes lie in a collapse store's arena.

use crate::ids::ProtoId;

use super::chunked::Chunked;

/// The mark on a collapse arena's listed end of a state kept as its
/// object (whose bytes are none): no arena reaches 2⁶³ bytes.
const AS_OBJECT: u64 = 1 << 63;

/// Where each id's bytes lie in a collapse arena.
pub(super) enum Ends {
    /// Every key so far is `width` bytes long (`None`: no key yet), id
    /// `i`'s at `arena[i * width..]`: no record per id while an object's
    /// encoding has one width, as a fixed-layout state vector has. That is
    /// 8 bytes a state less, and one cache miss less for each lookup of a
    /// state seen before (most of a search's lookups): the miss on the
    /// record was a tenth of a search's time (`ring` n = 11).
    Uniform { width: Option<usize>, count: usize },
    /// Keys of several widths, or states kept as objects: id `i`'s end
    /// offset at `[i]` (marked with [`AS_OBJECT`] for a state kept as its
    /// object), its start at `[i - 1]`.
    Listed(Chunked<u64>),
}

impl Ends {
    pub(super) fn new() -> Self {
        Ends::Uniform {
            width: None,
            count: 0,
        }
    }

    /// The number of ids recorded.
    pub(super) fn len(&self) -> usize {
        match self {
            Ends::Uniform { count, .. } => *count,
            Ends::Listed(ends) => ends.len(),
        }
    }

    /// The arena range of id `i` (empty for a state kept as its object).
    #[inline]
    pub(super) fn range(&self, i: ProtoId) -> std::ops::Range<usize> {
        match self {
            Ends::Uniform { width, .. } => {
                let w = width.unwrap_or(0);
                i.index() * w..(i.index() + 1) * w
            }
            Ends::Listed(ends) => {
                let end = (ends[i.index()] & !AS_OBJECT) as usize;
                let start = i
                    .index()
                    .checked_sub(1)
                    .map_or(0, |j| (ends[j] & !AS_OBJECT) as usize);
                start..end
            }
        }
    }

    /// Whether id `i` is a state kept as its object.
    #[inline]
    pub(super) fn is_object(&self, i: ProtoId) -> bool {
        matches!(self, Ends::Listed(ends) if ends[i.index()] & AS_OBJECT != 0)
    }

    /// The listed form, made from the uniform one if need be.
    fn listed(&mut self) -> &mut Chunked<u64> {
        if let Ends::Uniform { width, count } = *self {
            let w = width.unwrap_or(0);
            let mut listed = Chunked::new();
            for i in 1..=count {
                listed.push((i * w) as u64);
            }
            *self = Ends::Listed(listed);
        }
        match self {
            Ends::Listed(ends) => ends,
            Ends::Uniform { .. } => unreachable!("made listed above"),
        }
    }

    /// Records a new id's key of `len` bytes, the arena now `arena_len`
    /// long. A key of another width than those before turns the uniform
    /// layout into the listed one.
    pub(super) fn push(&mut self, len: usize, arena_len: usize) {
        match self {
            Ends::Uniform { width: None, count } => {
                *self = Ends::Uniform {
                    width: Some(len),
                    count: *count + 1,
                }
            }
            Ends::Uniform {
                width: Some(w),
                count,
            } if *w == len => *count += 1,
            _ => self.listed().push(arena_len as u64),
        }
    }

    /// Records a new id kept as its object (no bytes), the arena
    /// `arena_len` long.
    pub(super) fn push_object(&mut self, arena_len: usize) {
        self.listed().push(arena_len as u64 | AS_OBJECT);
    }
}

/// Id `i`'s bytes in a collapse arena.
#[inline]
pub(super) fn slice<'a>(arena: &'a [u8], ends: &Ends, i: ProtoId) -> &'a [u8] {
    &arena[ends.range(i)]
}
