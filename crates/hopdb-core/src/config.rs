//! Open-time configuration. The defaults serve a 1.25M-edge graph inside 256 MB of RSS
//! (measured in BENCHMARKS.md); every knob is one the RocksDB-backed graph study tuned.

pub use crate::engine::Durability;

/// What an edge write does when an endpoint node does not exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissingEndpoints {
    /// Create the endpoint as a node with no labels and no properties (NetworkX's and
    /// LightRAG's behaviour; the default).
    #[default]
    Create,
    /// Fail the write with [`crate::Error::NodeNotFound`].
    Reject,
}

/// How a store directory is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AccessMode {
    /// The one writer. A second writer (another process or handle) gets
    /// [`crate::Error::StoreLocked`].
    #[default]
    ReadWrite,
    /// A RocksDB secondary instance: reads the files of a store that another process may be
    /// writing, and sees the committed state as of the open (open again to see more). For
    /// `hopdb stats`, `hopdb check`, backups and extra reader processes. (RocksDB's own
    /// catch-up double-counted merge operands in our tests, so HopDB does not offer it.)
    Secondary,
}

/// Block compression of the on-disk tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    None,
    /// LZ4 everywhere (the default): cheap to decompress on the random reads that key
    /// resolution and edge checks do once the data outgrows the block cache.
    #[default]
    Lz4,
    /// LZ4 on every level but the last, Zstandard (smaller, slower to read) on the last.
    Lz4Zstd,
    Zstd,
}

/// Configuration for [`crate::Graph::open`].
#[derive(Debug, Clone)]
pub struct Config {
    pub access: AccessMode,
    pub durability: Durability,
    pub missing_endpoints: MissingEndpoints,
    /// Shared block cache for data, index and filter blocks. Default 48 MiB.
    pub block_cache_bytes: usize,
    /// RocksDB row cache for point lookups (0 turns it off). Default 32 MiB.
    pub row_cache_bytes: usize,
    /// Write buffer (memtable) size per column family. Default 16 MiB.
    pub write_buffer_bytes: usize,
    /// Cap on all memtables together (a RocksDB write-buffer manager). Default 48 MiB.
    pub total_write_buffer_bytes: usize,
    /// RocksDB background flush and compaction threads. Default 2 (this machine's cores).
    pub background_jobs: i32,
    /// Bloom filter bits per key; 0 turns filters off. Default 10 (~1% false positives).
    pub bloom_bits_per_key: f64,
    pub compression: Compression,
    /// Budget of the in-memory key -> node id cache. Default 24 MiB.
    pub id_cache_bytes: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            access: AccessMode::ReadWrite,
            durability: Durability::Process,
            missing_endpoints: MissingEndpoints::Create,
            block_cache_bytes: 48 << 20,
            row_cache_bytes: 32 << 20,
            write_buffer_bytes: 16 << 20,
            total_write_buffer_bytes: 48 << 20,
            background_jobs: 2,
            bloom_bits_per_key: 10.0,
            compression: Compression::Lz4Zstd,
            id_cache_bytes: 24 << 20,
        }
    }
}
