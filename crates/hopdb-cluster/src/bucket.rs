//! Buckets: the slices of several small nodes of a promoted partition packed into one Redis
//! value (decision 0050). Promoting a partition node by node made Redis insert one key per
//! node, and its dictionary work was a fifth of the machine's CPU during a promotion (11k);
//! a bucket of about [`NODES_PER_BUCKET`] nodes is one key. A node's bucket is a hash of its
//! encoded key modulo the partition's bucket count, which the metadata records with the
//! promotion (`hot_buckets`), so a reader finds it without asking Redis first.
//!
//! Slices larger than [`SMALL_SLICE`] (hubs) keep a key of their own, so reading a small node
//! never drags a hub's adjacency along; their bucket holds a marker (an empty slice) that
//! sends the reader there. Nodes promoted one at a time (on a miss) have their own keys too:
//! a reader whose bucket is gone (evicted by Redis) looks there.
//!
//! The value: a version byte, then for each node its encoded key and its slice (empty: under
//! its own key), each length-prefixed (LEB128), in no particular order.

use bytes::Bytes;

use crate::error::{ClusterError, Result};
use crate::slice::{put_bytes, Reader};

const VERSION: u8 = 1;

/// The nodes a bucket holds on average: a hot read of one node fetches its bucket (a few KB
/// for small nodes), so this trades the keys a promotion writes against a read's bytes.
pub(crate) const NODES_PER_BUCKET: usize = 16;

/// Larger slices are written under the node's own key.
pub(crate) const SMALL_SLICE: usize = 2048;

/// A bucket stops taking slices at this size (the rest of its nodes get keys of their own),
/// so a skewed hash cannot make one read fetch a large value.
const MAX_BUCKET: usize = 64 << 10;

/// The bucket count for a partition of `nodes` nodes (at least 1).
pub(crate) fn count_for(nodes: usize) -> u64 {
    nodes.div_ceil(NODES_PER_BUCKET).max(1) as u64
}

/// The bucket of the node with this encoded key. Seeded apart from the partition hash, whose
/// residue every key of a partition shares.
pub(crate) fn bucket_of(encoded: &[u8], buckets: u64) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(encoded, 0x6275_636b) % buckets.max(1)
}

/// Packs node slices into buckets.
pub(crate) struct Packer {
    buckets: Vec<Vec<u8>>,
}

impl Packer {
    pub fn new(buckets: u64) -> Packer {
        Packer {
            buckets: vec![Vec::new(); buckets as usize],
        }
    }

    pub fn count(&self) -> u64 {
        self.buckets.len() as u64
    }

    /// Adds the node's slice to its bucket; false when it belongs under its own key (too
    /// large, or its bucket is full), which the bucket then records (a marker of a few bytes).
    pub fn add(&mut self, key: &[u8], slice: &[u8]) -> bool {
        let at = bucket_of(key, self.count()) as usize;
        let b = &mut self.buckets[at];
        if b.is_empty() {
            b.push(VERSION);
        }
        let fits = slice.len() <= SMALL_SLICE && b.len() + key.len() + slice.len() + 8 <= MAX_BUCKET;
        put_bytes(b, key);
        put_bytes(b, if fits { slice } else { &[] });
        fits
    }

    /// The non-empty buckets: (bucket, value).
    pub fn finish(self) -> impl Iterator<Item = (u64, Vec<u8>)> {
        self.buckets
            .into_iter()
            .enumerate()
            .filter(|(_, v)| !v.is_empty())
            .map(|(b, v)| (b as u64, v))
    }
}

/// The slice of the node with encoded key `key` in a bucket value (a view of the same
/// bytes): `Some(None)` when the node is under its own key, `None` when the bucket does not
/// hold it; an error when the value is damaged.
pub(crate) fn find(value: &Bytes, key: &[u8], what: &str) -> Result<Option<Option<Bytes>>> {
    let bad = |why: &str| ClusterError::Corrupt {
        object: what.to_string(),
        why: why.to_string(),
    };
    let mut r = Reader::new(value);
    if r.byte() != Some(VERSION) {
        return Err(bad("unknown bucket version"));
    }
    while !r.done() {
        let k = r.take().ok_or_else(|| bad("truncated key"))?;
        let s = r.bytes().ok_or_else(|| bad("truncated slice"))?;
        if k == key {
            return Ok(Some((!s.is_empty()).then(|| value.slice(s))));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_are_found_in_their_buckets_and_large_ones_are_refused() {
        let mut p = Packer::new(count_for(40));
        assert_eq!(p.count(), 3);
        let keys: Vec<Vec<u8>> = (0..40u32).map(|i| i.to_be_bytes().to_vec()).collect();
        for k in &keys {
            assert!(p.add(k, &[k[3]; 5]));
        }
        assert!(!p.add(b"hub", &vec![0; SMALL_SLICE + 1]));
        let buckets: Vec<(u64, Bytes)> = p.finish().map(|(b, v)| (b, Bytes::from(v))).collect();
        assert!(buckets.len() > 1, "the keys spread over the buckets");
        let (_, v) = buckets.iter().find(|(b, _)| *b == bucket_of(b"hub", 3)).unwrap();
        assert_eq!(
            find(v, b"hub", "t").unwrap(),
            Some(None),
            "a marker sends the hub's reader on"
        );
        for k in &keys {
            let (_, v) = buckets.iter().find(|(b, _)| *b == bucket_of(k, 3)).unwrap();
            assert_eq!(find(v, k, "t").unwrap(), Some(Some(Bytes::from(vec![k[3]; 5]))));
            for (b, other) in &buckets {
                if *b != bucket_of(k, 3) {
                    assert_eq!(find(other, k, "t").unwrap(), None);
                }
            }
        }
    }

    #[test]
    fn a_full_bucket_sends_the_rest_to_their_own_keys() {
        let mut p = Packer::new(1);
        let slice = vec![7u8; SMALL_SLICE];
        let taken = (0..100u32).filter(|i| p.add(&i.to_be_bytes(), &slice)).count();
        assert!(taken > 20 && taken < 40, "{taken} slices of 2 KB in a 64 KB bucket");
        let v = Bytes::from(p.finish().next().unwrap().1);
        let marked = (0..100u32)
            .filter(|i| find(&v, &i.to_be_bytes(), "t").unwrap() == Some(None))
            .count();
        assert_eq!(marked, 100 - taken, "every node left out is marked");
    }

    #[test]
    fn damaged_buckets_are_errors_never_answers() {
        let mut p = Packer::new(1);
        p.add(b"a", b"slice-a");
        p.add(b"b", b"slice-b");
        let good = p.finish().next().unwrap().1;
        for cut in 1..good.len() {
            // A cut inside the last entry is damaged; a cut between entries drops a node,
            // which reads as absent from the bucket (a miss, answered by the cold tier).
            let v = Bytes::from(good[..cut].to_vec());
            if let Ok(Some(Some(s))) = find(&v, b"b", "t") {
                panic!("cut at {cut} still answered {s:?}");
            }
        }
        assert!(find(&Bytes::from(vec![9u8, 1, b'a']), b"a", "t").is_err());
        assert!(find(&Bytes::from(vec![VERSION, 5, b'a']), b"a", "t").is_err());
    }
}
