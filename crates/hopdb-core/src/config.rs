//! Open-time configuration. The defaults serve a 1.25M-edge graph inside 256 MB of RSS
//! (measured in BENCHMARKS.md); every knob is one the RocksDB-backed graph study tuned.

/// How far an acknowledged write is guaranteed to survive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// The write is in the write-ahead log before the call returns: it survives a crash or
    /// `kill -9` of the process (like SQLite's WAL with synchronous=NORMAL), not a power loss.
    #[default]
    Process,
    /// The WAL is fsynced before the call returns: the write survives power loss.
    Sync,
    /// No WAL (bulk loading): writes become durable at the next flush or clean close; a crash
    /// loses the unflushed tail but leaves a consistent earlier state (atomic flush).
    None,
}

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
    /// Uncompressed blocks: no decompression on reads, the largest files.
    None,
    /// LZ4 everywhere (the default): cheap to decompress on the random reads that key
    /// resolution and edge checks do once the data outgrows the block cache.
    #[default]
    Lz4,
    /// LZ4 on every level but the last, Zstandard (smaller, slower to read) on the last.
    Lz4Zstd,
    /// Zstandard on every level: the smallest files, the costliest blocks to decompress.
    Zstd,
}

/// Configuration for [`crate::Graph::open`].
#[derive(Debug, Clone)]
pub struct Config {
    /// Read-write (the one writer) or a read-only secondary. Default read-write.
    pub access: AccessMode,
    /// How far a committed write is guaranteed to survive. Default [`Durability::Process`].
    pub durability: Durability,
    /// What an edge write does when an endpoint is missing. Default [`MissingEndpoints::Create`].
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
    /// Block compression of the on-disk tables. Default [`Compression::Lz4`].
    pub compression: Compression,
    /// Budget of the in-memory key -> node id index (decision 0014): about 20 bytes a key of
    /// ten characters, so the default indexes about a million keys. Default 24 MiB.
    pub id_cache_bytes: u64,
    /// Fill the key index from the key family on a background thread when a store on disk is
    /// opened (until the index is full), so reads by key are fast without a call to
    /// [`crate::Graph::warm_key_index`]. Default true.
    pub warm_key_index: bool,
    /// Peak bytes an in-memory adjacency projection may take when it is built without being
    /// asked: a `hopdb_database::Database` builds one on a background thread when reads
    /// could use it and none is fresh (decision 0034), if its estimated build fits; 0 never
    /// builds unasked. About 88 bytes a node and 48 an edge at the build's peak, 70-80% of
    /// that once built. Default 512 MiB (a graph of about 8M edges).
    pub auto_projection_bytes: u64,
    /// Count block-cache and row-cache hits and misses (RocksDB statistics, tickers only, no
    /// timers), reported in [`crate::StorageStats`] and a server's `/metrics`. Default false:
    /// it costs 3-7% of a sub-microsecond read (degree, find edge) embedded; `hopdb serve`
    /// turns it on (decision 0052).
    pub cache_statistics: bool,
}

impl Config {
    /// The caches and memtables sized to fit `bytes` together: block cache and memtables 5/16
    /// each, the key index 6/16, no row cache. Under a budget every MiB goes where a random
    /// read gains most: a key found in the index saves a whole RocksDB lookup, while the row
    /// cache only pays off on rows read again, and costs a copy and an eviction on every miss
    /// (decision 0014). Smaller budgets trade cache hits for resident memory: an embedding
    /// process with its own large footprint (LightRAG's server) can keep HopDB in 64 MiB.
    /// The budget also bounds an unasked projection's build to `bytes` at its peak, on top.
    pub fn with_memory_budget(mut self, bytes: usize) -> Config {
        let part = |sixteenths: usize| bytes / 16 * sixteenths;
        self.block_cache_bytes = part(5).max(1 << 20);
        self.row_cache_bytes = 0;
        self.total_write_buffer_bytes = part(5).max(2 << 20);
        // Each column family's memtable: a third of the total, at most the default 16 MiB.
        self.write_buffer_bytes = (self.total_write_buffer_bytes / 3).clamp(1 << 20, 16 << 20);
        self.id_cache_bytes = part(6) as u64;
        self.auto_projection_bytes = bytes as u64;
        self
    }
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
            compression: Compression::Lz4,
            id_cache_bytes: 24 << 20,
            warm_key_index: true,
            auto_projection_bytes: 512 << 20,
            cache_statistics: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_budget_is_spent_in_full_and_bounds_memtables() {
        let d = Config::default();
        let b = Config::default().with_memory_budget(152 << 20);
        let total = |c: &Config| {
            c.block_cache_bytes + c.row_cache_bytes + c.total_write_buffer_bytes + c.id_cache_bytes as usize
        };
        assert_eq!(total(&b), total(&d));
        assert!((15 << 20..=16 << 20).contains(&b.write_buffer_bytes));
        let small = Config::default().with_memory_budget(64 << 20);
        assert_eq!(total(&small), 64 << 20);
        assert!(small.write_buffer_bytes * 3 <= small.total_write_buffer_bytes);
    }
}
