//! The narrow storage interface the graph layer stands on (decision 0001): point reads,
//! prefix scans, atomic write batches and snapshots. RocksDB is the durable engine; the
//! in-memory engine gives the same semantics for tests and ephemeral graphs.

pub(crate) mod faults;
pub(crate) mod memory;
pub(crate) mod rocks;

pub(crate) use crate::config::Durability;
use crate::error::Result;
use std::path::Path;
use std::sync::Arc;

/// The record kinds, one column family each (key layouts in `records.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Cf {
    /// Format version, id counters, the edge-type and label dictionaries.
    Meta = 0,
    /// Encoded user key -> internal node id. Permanent: a key keeps its id after deletion.
    Keys = 1,
    /// Node id -> node record (key, labels, properties).
    Nodes = 2,
    /// (src, type, dst, edge id) -> edge record, listed from the source.
    Out = 3,
    /// (dst, type, src, edge id) -> edge record, listed from the target (directed types only).
    In = 4,
    /// node -> degree and weight-sum counters per type and direction, maintained by a merge
    /// operator (decision 0004; layout in docs/format.md).
    Deg = 5,
    /// Global counters (nodes, edges, per label, per type), maintained by a merge operator.
    Counts = 6,
    /// (label, node) -> empty: the label index.
    Labels = 7,
    /// Edge id -> (src, type, dst) for the edges of multi-edge types.
    EdgeIds = 8,
    /// (index, value, node) -> empty: the property indexes (decision 0017). The one family
    /// a store may lack: stores made before it get it at their first writable open.
    PropIndex = 9,
}

impl Cf {
    pub(crate) const ALL: [Cf; 10] = [
        Cf::Meta,
        Cf::Keys,
        Cf::Nodes,
        Cf::Out,
        Cf::In,
        Cf::Deg,
        Cf::Counts,
        Cf::Labels,
        Cf::EdgeIds,
        Cf::PropIndex,
    ];

    /// Whether a store must have this family to be opened. `prop_index` came after format 1's
    /// first stores: a writable open creates it, a read-only open reads it as empty.
    pub(crate) fn required(self) -> bool {
        self != Cf::PropIndex
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Cf::Meta => "meta",
            Cf::Keys => "keys",
            Cf::Nodes => "nodes",
            Cf::Out => "out",
            Cf::In => "in",
            Cf::Deg => "deg",
            Cf::Counts => "counts",
            Cf::Labels => "labels",
            Cf::EdgeIds => "edge_ids",
            Cf::PropIndex => "prop_index",
        }
    }
}

/// One mutation of an atomic batch.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    Put(Cf, Vec<u8>, Vec<u8>),
    Delete(Cf, Vec<u8>),
    /// Adds the operand to the counters stored under the key (see `counters.rs`).
    Merge(Cf, Vec<u8>, Vec<u8>),
}

/// What [`KvRead::scan_prefixes`] calls per entry: (prefix index, key, value); false ends
/// that prefix's scan.
pub(crate) type PrefixVisit<'a> = dyn FnMut(usize, &[u8], &[u8]) -> bool + 'a;

/// Read access to one consistent or latest state.
pub(crate) trait KvRead: Send + Sync {
    fn get(&self, cf: Cf, key: &[u8]) -> Result<Option<Vec<u8>>>;

    /// Many point reads at once; `keys` sorted ascending lets RocksDB batch its lookups.
    fn multi_get(&self, cf: Cf, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>> {
        keys.iter().map(|k| self.get(cf, k)).collect()
    }

    /// Visits, in key order, the entries whose key starts with `prefix` and is `>= start`
    /// (pass `prefix` as `start` to begin at the prefix), until `f` returns false.
    fn scan(&self, cf: Cf, prefix: &[u8], start: &[u8], f: &mut dyn FnMut(&[u8], &[u8]) -> bool) -> Result<()>;

    /// [`KvRead::scan`] of many prefixes, in the order given: `f` gets the prefix's index and
    /// returns false to end that prefix's scan. Ascending prefixes let RocksDB reuse one
    /// iterator, whose seeks then move forward through the blocks it already holds.
    fn scan_prefixes(&self, cf: Cf, prefixes: &[&[u8]], f: &mut PrefixVisit<'_>) -> Result<()> {
        for (i, p) in prefixes.iter().enumerate() {
            self.scan(cf, p, p, &mut |k, v| f(i, k, v))?;
        }
        Ok(())
    }
}

/// Storage figures for `hopdb stats`.
#[derive(Debug, Clone, Default)]
pub struct StorageStats {
    /// Total size of the SST files, all column families (RocksDB's `total-sst-files-size`).
    pub sst_bytes: u64,
    /// RocksDB's estimate of the live data in them; the rest is space compaction can reclaim.
    pub live_data_bytes: u64,
    /// Bytes held by the memtables (active and immutable), all column families.
    pub memtable_bytes: u64,
    /// Bytes in use in the shared block cache.
    pub block_cache_bytes: u64,
    /// Number of SST files over all levels and column families.
    pub sst_files: u64,
    /// Size of the write-ahead log files (`*.log`) in the store directory.
    pub wal_bytes: u64,
    /// Of `block_cache_bytes`, what is pinned (in use by readers or pinned index partitions).
    pub block_cache_pinned_bytes: u64,
    /// Bytes in use in the row cache (0 without one).
    pub row_cache_bytes: u64,
    /// Memory the open SST files' readers hold outside the block cache
    /// (RocksDB's `estimate-table-readers-mem`); it grows with the number of files.
    pub table_readers_bytes: u64,
    /// Compactions running now (RocksDB's `num-running-compactions`).
    pub compactions_running: u64,
    /// Bytes RocksDB estimates compaction must rewrite to bring every level within its
    /// target (`estimate-pending-compaction-bytes`, all column families).
    pub compaction_pending_bytes: u64,
    /// Memtable flushes running now (`num-running-flushes`).
    pub flushes_running: u64,
    /// Full memtables waiting to be flushed (`num-immutable-mem-table`, all column families).
    pub immutable_memtables: u64,
    /// Block-cache lookups that found the block since the store was opened (`None` when
    /// [`crate::Config::cache_statistics`] is off or the engine has no cache).
    pub block_cache_hits: Option<u64>,
    /// Block-cache lookups that had to read the block from a file (`None` as for hits).
    pub block_cache_misses: Option<u64>,
    /// Point reads the row cache answered (`None` also when there is no row cache).
    pub row_cache_hits: Option<u64>,
    /// Point reads the row cache could not answer (`None` as for hits).
    pub row_cache_misses: Option<u64>,
}

/// A sorted run of records for one column family, built beside the engine and added to it
/// whole by [`Engine::ingest`] (bulk loading: decision 0009). Keys must be strictly ascending.
pub(crate) trait BulkFile: Send {
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()>;
    /// Closes the run; `None` when nothing was written.
    fn finish(self: Box<Self>) -> Result<Option<BulkPart>>;
}

/// A finished run, ready to ingest.
pub(crate) enum BulkPart {
    /// An SST file (RocksDB), moved into the store on ingestion.
    Sst { cf: Cf, path: std::path::PathBuf },
    /// Buffered operations (in-memory engine).
    Ops(Vec<Op>),
}

pub(crate) trait Engine: KvRead {
    fn snapshot(&self) -> Arc<dyn KvRead>;
    fn write(&self, ops: Vec<Op>, durability: Durability) -> Result<()>;
    /// Persists memtables (makes `Durability::None` writes durable).
    fn flush(&self) -> Result<()>;
    fn compact(&self) -> Result<()>;
    fn stats(&self) -> StorageStats;
    /// A consistent copy of the store in `dir` (hard links where possible).
    fn checkpoint(&self, dir: &Path) -> Result<()>;

    /// A new run for `cf`; files go to `scratch` (a directory on the store's filesystem).
    fn bulk_file<'e>(&'e self, cf: Cf, scratch: &Path, name: &str) -> Result<Box<dyn BulkFile + 'e>>;
    /// Marks the state to return to if the process dies before [`Engine::end_bulk`]: the next
    /// writable open rolls the store back to it.
    fn begin_bulk(&self) -> Result<()>;
    /// Adds finished runs (between `begin_bulk` and `end_bulk`).
    fn ingest(&self, parts: Vec<BulkPart>) -> Result<()>;
    /// Makes everything since `begin_bulk` permanent.
    fn end_bulk(&self) -> Result<()>;
}
