//! Clojure's hash of values and the iteration order of its hash sets.
//!
//! `cat-every` over a Clojure *set* sends in the set's iteration order, so
//! an imported specification is the same protocol as Discourje's only if
//! the order is Clojure's. A `PersistentHashSet` is a hash array mapped
//! trie keyed by `hasheq` (Murmur3 for longs): a node indexes its children
//! by 5 bits of the hash, the lowest 5 bits at the root, the next 5 one
//! level down, and iterates its slots in index order. So the order is the
//! order of the hashes compared 5 bits at a time from the least
//! significant end; equal hashes (a collision node) keep insertion order.

const SEED: u32 = 0;
const C1: u32 = 0xcc9e_2d51;
const C2: u32 = 0x1b87_3593;

fn mix_k1(k1: u32) -> u32 {
    k1.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2)
}

fn mix_h1(h1: u32, k1: u32) -> u32 {
    (h1 ^ k1)
        .rotate_left(13)
        .wrapping_mul(5)
        .wrapping_add(0xe654_6b64)
}

fn fmix(mut h1: u32, length: u32) -> u32 {
    h1 ^= length;
    h1 ^= h1 >> 16;
    h1 = h1.wrapping_mul(0x85eb_ca6b);
    h1 ^= h1 >> 13;
    h1 = h1.wrapping_mul(0xc2b2_ae35);
    h1 ^ (h1 >> 16)
}

/// Clojure's `(hash n)` of a long (`Murmur3.hashLong`).
pub fn hash_long(n: i64) -> i32 {
    if n == 0 {
        return 0;
    }
    let low = n as u32;
    let high = ((n as u64) >> 32) as u32;
    let h1 = mix_h1(SEED, mix_k1(low));
    let h1 = mix_h1(h1, mix_k1(high));
    fmix(h1, 8) as i32
}

/// `Murmur3.hashInt`: the hash of an `int` (a string's `hasheq` is this of
/// its Java `hashCode`).
pub fn hash_int(n: i32) -> i32 {
    if n == 0 {
        return 0;
    }
    fmix(mix_h1(SEED, mix_k1(n as u32)), 4) as i32
}

/// `Murmur3.mixCollHash`: a collection's hash from the combination of its
/// elements' hashes and its size.
pub fn mix_coll_hash(hash: i32, count: usize) -> i32 {
    fmix(mix_h1(SEED, mix_k1(hash as u32)), count as u32) as i32
}

/// The hash of an unordered collection (a set): the sum of the elements'
/// hashes, mixed with the size.
pub fn hash_unordered(hashes: impl IntoIterator<Item = i32>) -> i32 {
    let mut sum = 0i32;
    let mut n = 0;
    for h in hashes {
        sum = sum.wrapping_add(h);
        n += 1;
    }
    mix_coll_hash(sum, n)
}

/// The hash of an ordered collection (a vector, list or seq).
pub fn hash_ordered(hashes: impl IntoIterator<Item = i32>) -> i32 {
    let mut h = 1i32;
    let mut n = 0;
    for x in hashes {
        h = h.wrapping_mul(31).wrapping_add(x);
        n += 1;
    }
    mix_coll_hash(h, n)
}

/// `Murmur3.hashUnencodedChars`: the hash of a symbol's or keyword's name
/// (over UTF-16 code units, two at a time).
pub fn hash_unencoded_chars(s: &str) -> i32 {
    let units: Vec<u16> = s.encode_utf16().collect();
    let mut h1 = SEED;
    for pair in units.chunks_exact(2) {
        let k1 = u32::from(pair[0]) | (u32::from(pair[1]) << 16);
        h1 = mix_h1(h1, mix_k1(k1));
    }
    if units.len() % 2 == 1 {
        h1 ^= mix_k1(u32::from(units[units.len() - 1]));
    }
    fmix(h1, 2 * units.len() as u32) as i32
}

/// Clojure's `(hash :ns/name)`: the symbol's hash (its name's hash
/// combined with its namespace's `hashCode`) plus the golden ratio.
pub fn hash_keyword(qualified: &str) -> i32 {
    let (ns, name) = match qualified.split_once('/') {
        Some((ns, name)) if !name.is_empty() => (Some(ns), name),
        _ => (None, qualified),
    };
    let seed = hash_unencoded_chars(name);
    let ns_hash = ns.map_or(0, java_string_hash);
    // Util.hashCombine, in Java's int arithmetic.
    let combined = seed
        ^ ns_hash
            .wrapping_add(0x9e37_79b9_u32 as i32)
            .wrapping_add(seed << 6)
            .wrapping_add(seed >> 2);
    combined.wrapping_add(0x9e37_79b9_u32 as i32)
}

/// Java's `Double.hashCode`, which Clojure uses for doubles.
pub fn hash_double(x: f64) -> i32 {
    let bits = x.to_bits();
    (bits ^ (bits >> 32)) as i32
}

/// Java's `String.hashCode` (over UTF-16 code units).
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(c as i32))
}

/// The key by which a hash trie orders a hash: its 5-bit groups from the
/// least significant end, first group most significant in the key.
pub fn trie_key(hash: u32) -> u64 {
    let mut key = 0u64;
    for level in 0..7 {
        key = (key << 5) | u64::from((hash >> (5 * level)) & 0x1f);
    }
    key
}

/// Sorts `items` into the iteration order of a Clojure hash set holding
/// them (`hash` gives each item's `hasheq` as bits). The sort is stable, so
/// items with equal hashes keep their order (as a collision node keeps
/// insertion order). The sets keep this order by [`trie_key`] as they are
/// built; the tests state it directly with this.
#[cfg(test)]
pub fn sort_like_clojure_set<T>(items: &mut [T], hash: impl Fn(&T) -> u32) {
    items.sort_by_key(|x| trie_key(hash(x)));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Orders derived by hand from Clojure's source: the hashes of the
    /// longs, then their 5-bit groups from the low end.
    #[test]
    fn hashes_of_small_longs_match_clojure() {
        // (hash 1) and (hash 2) as Clojure prints them.
        assert_eq!(hash_long(1), 1_392_991_556);
        assert_eq!(hash_long(2), -971_005_196);
        assert_eq!(hash_long(-1), 1_651_860_712);
    }

    fn order(range: std::ops::Range<i64>) -> Vec<i64> {
        let mut v: Vec<i64> = range.collect();
        sort_like_clojure_set(&mut v, |&x| hash_long(x) as u32);
        v
    }

    #[test]
    fn set_of_range_iterates_in_clojure_order() {
        assert_eq!(order(0..4), [0, 1, 3, 2]);
        assert_eq!(order(0..3), [0, 1, 2]);
    }
}

#[cfg(test)]
mod trie_tests {
    use super::*;

    /// A model of Clojure's `PersistentHashMap` trie, built by inserting
    /// keys one by one as `BitmapIndexedNode.assoc` does (a slot holds a
    /// key, or a sub-node when two keys share the slot's 5 bits; equal
    /// hashes make a collision node), then walked in slot order. It shares
    /// nothing with [`sort_like_clojure_set`] but the hash.
    enum Node {
        Leaf(u32, Vec<i64>),
        Branch(Box<[Option<Node>; 32]>),
    }

    fn empty() -> Box<[Option<Node>; 32]> {
        Box::new(std::array::from_fn(|_| None))
    }

    fn insert(slots: &mut [Option<Node>; 32], shift: u32, h: u32, key: i64) {
        let i = ((h >> shift) & 31) as usize;
        match slots[i].take() {
            None => slots[i] = Some(Node::Leaf(h, vec![key])),
            Some(Node::Leaf(h2, mut keys)) if h2 == h => {
                if !keys.contains(&key) {
                    keys.push(key);
                }
                slots[i] = Some(Node::Leaf(h2, keys));
            }
            Some(Node::Leaf(h2, keys)) => {
                let mut sub = empty();
                for k in keys {
                    insert(&mut sub, shift + 5, h2, k);
                }
                insert(&mut sub, shift + 5, h, key);
                slots[i] = Some(Node::Branch(sub));
            }
            Some(Node::Branch(mut sub)) => {
                insert(&mut sub, shift + 5, h, key);
                slots[i] = Some(Node::Branch(sub));
            }
        }
    }

    fn walk(slots: &[Option<Node>; 32], out: &mut Vec<i64>) {
        for s in slots.iter().flatten() {
            match s {
                Node::Leaf(_, keys) => out.extend(keys),
                Node::Branch(sub) => walk(sub, out),
            }
        }
    }

    fn trie_order(keys: impl IntoIterator<Item = i64>) -> Vec<i64> {
        let mut root = empty();
        for k in keys {
            insert(&mut root, 0, hash_long(k) as u32, k);
        }
        let mut out = Vec::new();
        walk(&root, &mut out);
        out
    }

    fn sorted(keys: impl IntoIterator<Item = i64>) -> Vec<i64> {
        let mut v: Vec<i64> = keys.into_iter().collect();
        v.dedup();
        sort_like_clojure_set(&mut v, |&x| hash_long(x) as u32);
        v
    }

    #[test]
    fn order_of_ten_is_the_one_clojure_prints() {
        // (set (range 10)) prints #{0 7 1 4 6 3 2 9 5 8} in Clojure.
        assert_eq!(sorted(0..10), [0, 7, 1, 4, 6, 3, 2, 9, 5, 8]);
        assert_eq!(trie_order(0..10), [0, 7, 1, 4, 6, 3, 2, 9, 5, 8]);
    }

    #[test]
    fn order_matches_the_trie_for_many_sizes() {
        for n in [1, 2, 5, 8, 9, 16, 17, 31, 32, 33, 40, 64, 100, 1000] {
            assert_eq!(sorted(0..n), trie_order(0..n), "size {n}");
        }
        // Insertion order does not matter (the trie is canonical).
        assert_eq!(trie_order((0..50).rev()), sorted(0..50));
        assert_eq!(
            sorted([-3, 7, 1 << 40, -1]),
            trie_order([-3, 7, 1 << 40, -1])
        );
    }
}

/// The module's example of use: a unit test, since the module is private.
#[cfg(test)]
#[test]
fn example() {
    use crate::hash_order::{hash_long, sort_like_clojure_set};
    assert_eq!(hash_long(0), 0);
    let mut v: Vec<i64> = (0..4).collect();
    sort_like_clojure_set(&mut v, |&x| hash_long(x) as u32);
    assert_eq!(v, [0, 1, 3, 2]); // (seq (set (range 4)))
}
