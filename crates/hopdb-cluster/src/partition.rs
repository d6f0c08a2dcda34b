//! Which partition holds a node: XXH3-64 of the key's stored encoding, modulo the partition
//! count. The count is fixed when the cluster is created; the partition is the unit of
//! storage, metadata, caching and movement.

use hopdb_core::NodeKey;

/// The partition count a new cluster gets unless its configuration says otherwise.
pub const DEFAULT_PARTITIONS: u32 = 1024;

/// The most partitions a cluster may have (partition ids are four decimal digits in object keys).
pub const MAX_PARTITIONS: u32 = 9999;

/// The partition of the node with this key, in `0..partitions`.
pub fn partition_of(key: &NodeKey, partitions: u32) -> u32 {
    partition_of_encoded(&hopdb_core::codec::encode_key(key), partitions)
}

/// [`partition_of`] from the key's stored encoding ([`hopdb_core::codec::encode_key`]).
pub fn partition_of_encoded(encoded: &[u8], partitions: u32) -> u32 {
    (xxhash_rust::xxh3::xxh3_64(encoded) % u64::from(partitions.max(1))) as u32
}
