//! The in-memory key -> node id index that every keyed read starts with (decision 0014).
//!
//! A key's id never changes once committed (decision 0002), so one index serves every reader,
//! snapshot and writer without invalidation: an entry is a fact, and a key absent from the
//! index is simply looked up in RocksDB (and added). Keys live in 64 KiB arena chunks and the
//! hash tables hold 8-byte slots, about 20 bytes a key all told, against about 80 in a general
//! cache of `NodeKey`s: a 745,000-node store fits in 18 MiB, so a random node read costs one
//! RocksDB lookup (its record) instead of two.
//!
//! Bounded: each of the 16 shards owns 1/16 of the budget. A shard that would outgrow it is
//! emptied and refills from the keys read next (the hot ones), which keeps the index useful
//! on stores far larger than the budget without the per-entry bookkeeping of an LRU.

use crate::records::NodeId;
use crate::value::NodeKey;
use hashbrown::{DefaultHashBuilder, HashTable};
use parking_lot::RwLock;
use std::hash::{BuildHasher, Hasher};

const SHARDS: usize = 16;
/// Arena chunks: 64 KiB, or a quarter of a small shard's budget.
const MAX_CHUNK: usize = 64 << 10;
/// A table bucket: its 8-byte slot and hashbrown's control byte.
const BUCKET_BYTES: usize = 9;
/// Arena entries are `[len u8][tag u8][payload]`: longer keys are not indexed (read from
/// RocksDB every time, which is correct, only slower).
const MAX_ENTRY: usize = u8::MAX as usize;

/// Where a key sits in its shard's arena (`chunk number * chunk size + offset`) and its id. Ids above
/// `u32::MAX` are not indexed.
#[derive(Clone, Copy)]
struct Slot {
    at: u32,
    id: u32,
}

#[derive(Default)]
struct Shard {
    table: HashTable<Slot>,
    chunks: Vec<Box<[u8]>>,
    /// Bytes used in the last chunk.
    fill: usize,
}

impl Shard {
    fn entry(&self, at: u32, chunk: usize) -> &[u8] {
        arena_entry(&self.chunks, at, chunk)
    }

    /// Heap bytes after adding an entry of `len` bytes (a new chunk, a grown table).
    fn bytes_after_insert(&self, len: usize, chunk: usize) -> usize {
        let chunks = self.chunks.len() + usize::from(self.chunks.is_empty() || self.fill + len > chunk);
        let cap = self.table.capacity();
        let buckets = if self.table.len() < cap {
            buckets_for(cap)
        } else {
            buckets_for(cap).max(4) * 2
        };
        chunks * chunk + buckets * BUCKET_BYTES
    }
}

/// The key stored at `at` in an arena.
fn arena_entry(chunks: &[Box<[u8]>], at: u32, chunk: usize) -> &[u8] {
    let (c, o) = (at as usize / chunk, at as usize % chunk);
    let chunk = &chunks[c];
    &chunk[o + 1..o + 1 + chunk[o] as usize]
}

/// hashbrown's bucket count for a capacity (7/8 full from 8 buckets up).
fn buckets_for(capacity: usize) -> usize {
    match capacity {
        0 => 0,
        1..4 => capacity.next_power_of_two(),
        _ => (capacity * 8 / 7).next_power_of_two(),
    }
}

/// A key in its stored form, `NodeKey::encode`'s bytes (so a scan of the key family fills the
/// index as it is), made on the stack; empty for keys too long to index.
fn with_encoded<R>(key: &NodeKey, f: impl FnOnce(&[u8]) -> R) -> R {
    key.encoded_parts(|tag, payload| {
        if payload.len() >= MAX_ENTRY {
            return f(&[]);
        }
        let mut buf = [0u8; MAX_ENTRY];
        buf[0] = tag;
        buf[1..=payload.len()].copy_from_slice(payload);
        f(&buf[..=payload.len()])
    })
}

/// What became of an insert.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Indexed {
    /// Now indexed (or already was).
    Yes,
    /// Not indexable (too long a key, too large an id): the store answers for it.
    Skipped,
    /// The key's shard is full.
    Full,
}

pub(crate) struct KeyIndex {
    shards: Box<[RwLock<Shard>]>,
    shard_budget: usize,
    chunk: usize,
    hasher: DefaultHashBuilder,
}

impl KeyIndex {
    /// An index of at most about `budget` bytes (0: nothing is indexed).
    pub(crate) fn new(budget: u64) -> KeyIndex {
        KeyIndex {
            shards: (0..SHARDS).map(|_| RwLock::new(Shard::default())).collect(),
            shard_budget: budget as usize / SHARDS,
            chunk: (budget as usize / SHARDS / 4).clamp(MAX_ENTRY, MAX_CHUNK),
            hasher: DefaultHashBuilder::default(),
        }
    }

    fn hash(&self, enc: &[u8]) -> u64 {
        let mut h = self.hasher.build_hasher();
        h.write(enc);
        h.finish()
    }

    /// Bits 32-35 pick the shard: hashbrown uses the low bits for the bucket and the top
    /// seven for its control byte, so the shard choice takes entropy from neither.
    fn shard(&self, h: u64) -> &RwLock<Shard> {
        &self.shards[(h >> 32) as usize % SHARDS]
    }

    /// The id of `key`, if indexed.
    pub(crate) fn get(&self, key: &NodeKey) -> Option<NodeId> {
        with_encoded(key, |enc| {
            if enc.is_empty() {
                return None;
            }
            let h = self.hash(enc);
            let shard = self.shard(h).read();
            shard
                .table
                .find(h, |s| shard.entry(s.at, self.chunk) == enc)
                .map(|s| s.id as NodeId)
        })
    }

    /// Records that `key` maps to `id` (a committed, hence permanent, mapping); a full shard
    /// is emptied first, so the keys read most recently are the ones indexed.
    pub(crate) fn insert(&self, key: &NodeKey, id: NodeId) {
        with_encoded(key, |enc| self.insert_encoded(enc, id, true));
    }

    /// [`KeyIndex::insert`] of a key in `NodeKey::encode` form; with `evict` false a full
    /// shard is left as it is (a warm-up stops there rather than churn).
    pub(crate) fn insert_encoded(&self, enc: &[u8], id: NodeId, evict: bool) -> Indexed {
        let (len, chunk) = (enc.len() + 1, self.chunk);
        let Ok(id) = u32::try_from(id) else {
            return Indexed::Skipped;
        };
        if enc.is_empty() || enc.len() > MAX_ENTRY || len > chunk {
            return Indexed::Skipped;
        }
        let h = self.hash(enc);
        let mut guard = self.shard(h).write();
        let shard = &mut *guard;
        if shard.table.find(h, |s| shard.entry(s.at, self.chunk) == enc).is_some() {
            return Indexed::Yes;
        }
        if shard.bytes_after_insert(len, chunk) > self.shard_budget {
            if !evict {
                return Indexed::Full;
            }
            *shard = Shard::default();
            if shard.bytes_after_insert(len, chunk) > self.shard_budget {
                return Indexed::Skipped; // a budget too small for even one key
            }
        }
        if shard.chunks.is_empty() || shard.fill + len > chunk {
            shard.chunks.push(vec![0u8; chunk].into_boxed_slice());
            shard.fill = 0;
        }
        let Ok(at) = u32::try_from((shard.chunks.len() - 1) * chunk + shard.fill) else {
            return Indexed::Skipped;
        };
        // Never taken: a chunk was just ensured. Were it, the store would answer for the key.
        let Some(last) = shard.chunks.last_mut() else {
            return Indexed::Skipped;
        };
        last[shard.fill] = enc.len() as u8;
        last[shard.fill + 1..shard.fill + len].copy_from_slice(enc);
        shard.fill += len;
        let Shard { table, chunks, .. } = shard;
        table.insert_unique(h, Slot { at, id }, |s| self.hash(arena_entry(chunks, s.at, chunk)));
        Indexed::Yes
    }

    /// Keys indexed and heap bytes held (tests and [`crate::Graph::memory_usage`]).
    pub(crate) fn stats(&self) -> (usize, usize) {
        self.shards.iter().fold((0, 0), |(n, b), s| {
            let s = s.read();
            (
                n + s.table.len(),
                b + s.chunks.len() * self.chunk + buckets_for(s.table.capacity()) * BUCKET_BYTES,
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_was_inserted_and_nothing_else() {
        let ix = KeyIndex::new(64 << 20);
        for i in 0..50_000u64 {
            ix.insert(&NodeKey::Str(format!("ent-{i}")), i);
            ix.insert(&NodeKey::Int(i as i64 - 25_000), i + 1_000_000);
        }
        for i in 0..50_000u64 {
            assert_eq!(ix.get(&NodeKey::Str(format!("ent-{i}"))), Some(i));
            assert_eq!(ix.get(&NodeKey::Int(i as i64 - 25_000)), Some(i + 1_000_000));
        }
        // Same bytes, other type; prefixes; absent keys.
        assert_eq!(ix.get(&NodeKey::Str("ent-".into())), None);
        assert_eq!(ix.get(&NodeKey::Str("ent-50000".into())), None);
        assert_eq!(ix.get(&NodeKey::Int(25_000)), None);
        let (n, bytes) = ix.stats();
        assert_eq!(n, 100_000);
        assert!(bytes < 4 << 20, "{bytes} bytes for 100,000 keys");
    }

    #[test]
    fn long_keys_and_large_ids_are_left_to_the_store() {
        let ix = KeyIndex::new(1 << 20);
        let long = NodeKey::Str("x".repeat(300));
        ix.insert(&long, 7);
        ix.insert(&NodeKey::Str("big".into()), u64::from(u32::MAX) + 1);
        ix.insert(&NodeKey::Str("é-ü".into()), 9);
        assert_eq!(ix.get(&long), None);
        assert_eq!(ix.get(&NodeKey::Str("big".into())), None);
        assert_eq!(ix.get(&NodeKey::Str("é-ü".into())), Some(9));
        // The encoded form is the same index entry.
        assert_eq!(ix.insert_encoded(&NodeKey::Int(-3).encode(), 11, false), Indexed::Yes);
        assert_eq!(ix.get(&NodeKey::Int(-3)), Some(11));
        assert_eq!(ix.insert_encoded(&long.encode(), 7, false), Indexed::Skipped);
        // A budget too small for one shard's table and chunk indexes nothing, and says so.
        let none = KeyIndex::new(1024);
        assert_eq!(
            none.insert_encoded(&NodeKey::Int(1).encode(), 1, true),
            Indexed::Skipped
        );
        assert_eq!(none.get(&NodeKey::Int(1)), None);
        assert_eq!(none.stats(), (0, 0));
    }

    #[test]
    fn stays_within_its_budget_and_keeps_answering_correctly() {
        let budget = 2 << 20;
        let ix = KeyIndex::new(budget);
        for i in 0..400_000u64 {
            ix.insert(&NodeKey::Str(format!("key-{i}")), i);
            assert!(i % 10_000 != 0 || ix.stats().1 <= budget as usize);
        }
        let (n, bytes) = ix.stats();
        assert!(bytes <= budget as usize && n > 10_000, "{n} keys in {bytes} bytes");
        // Without eviction a full shard refuses instead.
        let full = (0..400_000u64).map(|i| ix.insert_encoded(&NodeKey::Str(format!("new-{i}")).encode(), i, false));
        assert!(full.into_iter().any(|r| r == Indexed::Full));
        // Whatever survived the resets answers with its own id; the rest is absent.
        let mut found = 0;
        for i in 0..400_000u64 {
            if let Some(id) = ix.get(&NodeKey::Str(format!("key-{i}"))) {
                assert_eq!(id, i);
                found += 1;
            }
        }
        assert_eq!(found, n);
    }
}
