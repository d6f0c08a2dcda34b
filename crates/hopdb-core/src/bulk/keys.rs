//! The bulk loader's new keys: every key once, in one byte arena, found by an open-addressing
//! table built for this one job.
//!
//! Resolving an edge's endpoints is a lookup per endpoint into a table of every key the load
//! created, at random: on a 1M-node load the table and arena are far larger than the CPU's
//! caches, so each lookup costs its cache misses. A general hash map of positions costs four
//! (control bytes, slot, the key's end offsets, the key's bytes). Here a slot holds the key's
//! arena offset and 24 more bits of its hash, and the arena holds the key's position and
//! length beside its bytes: a lookup touches one slot and one arena entry (decision 0039).

use crate::value::KeyRef;
use rustc_hash::FxHasher;
use std::hash::Hasher;

/// Largest share of slots in use before the table doubles: linear probing stays short (about
/// 2.5 probes for a hit at 3/4, mostly in the same cache line).
const MAX_LOAD_NUM: usize = 3;
const MAX_LOAD_DEN: usize = 4;
/// A slot: bits 0..40 the arena offset of the entry plus one (0 is an empty slot), bits
/// 40..64 the fingerprint (24 bits of the hash the position does not use).
const OFFSET_BITS: u32 = 40;
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;
/// An arena entry: the key's position (u32, little-endian), its length (u16), its bytes.
const HEAD: usize = 6;

#[derive(Default)]
pub(super) struct KeyArena {
    bytes: Vec<u8>,
    /// Arena offset of each key's entry, by position.
    at: Vec<u64>,
    slots: Vec<u64>,
    /// 64 - log2(slots.len()): the position is the hash's top bits.
    shift: u32,
}

/// The table's hash of an encoded key, from its tag and payload (so a borrowed key hashes
/// without being encoded into a buffer first).
fn hash(tag: u8, payload: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write_u8(tag);
    h.write(payload);
    h.finish()
}

fn hash_key(key: KeyRef<'_>) -> u64 {
    key.encoded_parts(hash)
}

fn hash_encoded(enc: &[u8]) -> u64 {
    match enc.split_first() {
        Some((&tag, payload)) => hash(tag, payload),
        None => hash(0, &[]),
    }
}

impl KeyArena {
    /// The encoded key at position `i` (a position [`push`](Self::push) returned).
    pub(super) fn key(&self, i: u32) -> &[u8] {
        self.entry(self.at[i as usize] as usize).1
    }

    pub(super) fn len(&self) -> u32 {
        self.at.len() as u32
    }

    /// The position of `enc`, if this load added it.
    pub(super) fn find(&self, enc: &[u8]) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let h = hash_encoded(enc);
        let fp = fingerprint(h);
        let mask = self.slots.len() - 1;
        let mut pos = (h >> self.shift) as usize;
        loop {
            let s = self.slots[pos];
            if s == 0 {
                return None;
            }
            if s >> OFFSET_BITS == fp {
                let (i, k) = self.entry(((s & OFFSET_MASK) - 1) as usize);
                if k == enc {
                    return Some(i);
                }
            }
            pos = (pos + 1) & mask;
        }
    }

    /// Adds a key known to be absent (at most [`crate::value::MAX_KEY_BYTES`] long) and
    /// returns its position.
    pub(super) fn push(&mut self, enc: &[u8]) -> u32 {
        debug_assert!(enc.len() <= usize::from(u16::MAX));
        if (self.at.len() + 1) * MAX_LOAD_DEN > self.slots.len() * MAX_LOAD_NUM {
            self.grow();
        }
        let i = self.at.len() as u32;
        let off = self.bytes.len();
        self.bytes.extend_from_slice(&i.to_le_bytes());
        self.bytes.extend_from_slice(&(enc.len() as u16).to_le_bytes());
        self.bytes.extend_from_slice(enc);
        self.at.push(off as u64);
        self.place(hash_encoded(enc), off);
        i
    }

    /// The first of two hints for a key looked up soon (rows ahead): loads its slot's cache
    /// line. Lookups are cache misses at random; issued ahead, they overlap (decision 0039).
    pub(super) fn prefetch_slot(&self, key: KeyRef<'_>) {
        if !self.slots.is_empty() {
            prefetch(&self.slots[(hash_key(key) >> self.shift) as usize]);
        }
    }

    /// The second hint, some rows after [`prefetch_slot`](Self::prefetch_slot): reads the
    /// slot (in cache by now) and loads the arena entry it points to, if its fingerprint
    /// matches.
    pub(super) fn prefetch_entry(&self, key: KeyRef<'_>) {
        if self.slots.is_empty() {
            return;
        }
        let h = hash_key(key);
        let s = self.slots[(h >> self.shift) as usize];
        if s != 0 && s >> OFFSET_BITS == fingerprint(h) {
            prefetch(&self.bytes[((s & OFFSET_MASK) - 1) as usize]);
        }
    }

    /// The same two hints for [`key`](Self::key) at position `i`: its arena offset's line
    /// (`near` false), then the entry itself.
    pub(super) fn prefetch_position(&self, i: u32, near: bool) {
        let Some(at) = self.at.get(i as usize) else { return };
        if near {
            if let Some(b) = self.bytes.get(*at as usize) {
                prefetch(b);
            }
        } else {
            prefetch(at);
        }
    }

    /// (position, key) of the entry at arena offset `off`.
    fn entry(&self, off: usize) -> (u32, &[u8]) {
        let head = &self.bytes[off..off + HEAD];
        let i = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        let len = usize::from(u16::from_le_bytes([head[4], head[5]]));
        (i, &self.bytes[off + HEAD..off + HEAD + len])
    }

    fn place(&mut self, h: u64, off: usize) {
        let mask = self.slots.len() - 1;
        let mut pos = (h >> self.shift) as usize;
        while self.slots[pos] != 0 {
            pos = (pos + 1) & mask;
        }
        self.slots[pos] = fingerprint(h) << OFFSET_BITS | (off as u64 + 1);
    }

    /// Doubles the table and re-places every key (hashes are recomputed from the arena).
    fn grow(&mut self) {
        let cap = (self.slots.len() * 2).max(1024);
        self.slots = vec![0; cap];
        self.shift = 64 - cap.trailing_zeros();
        for i in 0..self.at.len() {
            let off = self.at[i] as usize;
            let h = hash_encoded(self.entry(off).1);
            self.place(h, off);
        }
    }
}

/// Starts loading the cache line holding `x` without waiting for it.
#[inline]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it cannot fault or change memory, and `x` is a valid
    // reference anyway.
    #[allow(unsafe_code)]
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

fn fingerprint(h: u64) -> u64 {
    // Bits 8..32: the position uses the top bits, at most 33 of them (u32 positions at 3/4).
    (h >> 8) & 0xFF_FFFF
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    #[test]
    fn finds_what_it_holds_across_growth() {
        let mut a = KeyArena::default();
        assert_eq!(a.find(b"x"), None);
        let keys: Vec<Vec<u8>> = (0..50_000u64).map(|i| format!("k{i}").into_bytes()).collect();
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(a.push(k), i as u32);
        }
        assert_eq!(a.len(), 50_000);
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(a.find(k), Some(i as u32), "key {i}");
            assert_eq!(a.key(i as u32), &k[..]);
        }
        assert_eq!(a.find(b"k50000"), None);
        assert_eq!(a.find(b""), None);
    }

    #[test]
    fn borrowed_keys_hash_as_their_encoding() {
        use crate::value::NodeKey;
        for (k, r) in [
            (NodeKey::Int(-5), KeyRef::Int(-5)),
            (NodeKey::Int(1 << 40), KeyRef::Int(1 << 40)),
            (NodeKey::from("Ebenezer Scrooge"), KeyRef::Str("Ebenezer Scrooge")),
        ] {
            assert_eq!(hash_key(r), hash_encoded(&k.encode()));
        }
    }

    #[test]
    fn keys_of_the_largest_size_round_trip() {
        let mut a = KeyArena::default();
        let long = vec![7u8; crate::value::MAX_KEY_BYTES + 1];
        let i = a.push(&long);
        assert_eq!(a.key(i), &long[..]);
        assert_eq!(a.find(&long), Some(i));
        assert_eq!(a.find(&long[1..]), None);
    }

    proptest! {
        /// Against a HashMap: every pushed key is found at its position, every other key is not.
        #[test]
        fn agrees_with_a_hash_map(keys in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..12), 0..3000),
                                  probes in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..12), 0..300)) {
            let mut a = KeyArena::default();
            let mut m: HashMap<Vec<u8>, u32> = HashMap::new();
            for k in keys {
                if let std::collections::hash_map::Entry::Vacant(e) = m.entry(k) {
                    let i = a.push(e.key());
                    e.insert(i);
                }
            }
            prop_assert_eq!(a.len() as usize, m.len());
            for (k, &i) in &m {
                prop_assert_eq!(a.find(k), Some(i));
                prop_assert_eq!(a.key(i), &k[..]);
            }
            for p in probes {
                prop_assert_eq!(a.find(&p), m.get(&p).copied());
            }
        }
    }
}
