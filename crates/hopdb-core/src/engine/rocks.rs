//! The durable engine: RocksDB, one column family per record kind (decision 0001).

use super::{BulkFile, BulkPart, Cf, Durability, Engine, KvRead, Op, PrefixVisit, StorageStats};
use crate::config::{AccessMode, Compression, Config};
use crate::counters::{merge_count, merge_deg, merge_deg_operands};
use crate::error::{Error, Result};
use rocksdb::{
    checkpoint::Checkpoint, statistics::Ticker, BlockBasedIndexType, BlockBasedOptions, Cache, ColumnFamily,
    ColumnFamilyDescriptor, DBCompressionType, DataBlockIndexType, IngestExternalFileOptions, MergeOperands, Options,
    ReadOptions, SliceTransform, SstFileWriter, WriteBatch, WriteBufferManager, WriteOptions, DB,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Column families whose keys start with an 8-byte node id get a prefix extractor, so a
/// node's adjacency scan uses prefix bloom filters.
fn has_node_prefix(cf: Cf) -> bool {
    matches!(cf, Cf::Out | Cf::In | Cf::Deg)
}

pub(crate) struct RocksEngine {
    db: Arc<DB>,
    /// Shared with every snapshot (for error messages): a snapshot per read transaction
    /// must not copy it.
    path: Arc<Path>,
    cache: Cache,
    /// Kept alive for as long as the DB uses them.
    _wbm: WriteBufferManager,
    row_cache: Option<Cache>,
    secondary_dir: Option<PathBuf>,
    /// Per column family (indexed by `Cf`), the options bulk runs (SST files) are built with.
    bulk_opts: Vec<Options>,
    /// Families this (read-only) open found missing: they read as empty (see `Cf::required`).
    absent: Absent,
    /// The options the DB was opened with, when they carry statistics (tickers are read
    /// through them).
    stats_opts: Option<Options>,
}

/// A set of column families a read-only open did not find, one bit per `Cf`. Only optional
/// families can be in it; reads of them see nothing.
#[derive(Clone, Copy, Default)]
struct Absent(u16);

impl Absent {
    fn has(self, cf: Cf) -> bool {
        self.0 & (1 << cf as u16) != 0
    }
}

/// The checkpoint a bulk load returns to if it dies before finishing (decision 0009). Its
/// presence in a store directory means "roll back on the next writable open".
pub(crate) const ROLLBACK_DIR: &str = "hopdb-rollback";
const ROLLBACK_TMP: &str = "hopdb-rollback.tmp";
const ROLLBACK_DONE: &str = "hopdb-rollback.done";
const RESTORE_LOCK: &str = "hopdb-restore.lock";

impl Drop for RocksEngine {
    fn drop(&mut self) {
        if let Some(d) = &self.secondary_dir {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// Turns a RocksDB error into a typed one that names the store.
fn map_err(path: &Path, context: &'static str, e: rocksdb::Error) -> Error {
    let msg = e.to_string();
    if e.kind() == rocksdb::ErrorKind::Corruption {
        return Error::corrupt(path, msg);
    }
    // RocksDB's IOStatus::NoSpace has no kind of its own in the binding (the C API passes a
    // message only). The text is RocksDB's own fixed subcode message (status.cc), not the
    // C library's localised strerror, so matching it is reliable.
    if msg.contains("No space left on device") {
        return Error::NoSpace {
            path: path.to_owned(),
            detail: msg,
        };
    }
    if msg.contains("lock")
        && (msg.contains("temporarily unavailable")
            || msg.contains("No locks available")
            || msg.contains("already held"))
    {
        return Error::StoreLocked { path: path.to_owned() };
    }
    Error::Storage {
        context,
        detail: format!("{}: {msg}", path.display()),
    }
}

fn cf_options(cfg: &Config, cf: Cf, cache: &Cache, wbm: &WriteBufferManager) -> Options {
    let mut t = BlockBasedOptions::default();
    // A hash index inside data blocks turns a point lookup's in-block binary search into
    // one probe (node reads, edge-exists checks, degree counters).
    t.set_data_block_index_type(DataBlockIndexType::BinaryAndHash);
    t.set_block_cache(cache);
    t.set_format_version(6);
    // Index and filter blocks live in the block cache (so the budget covers them) and are
    // partitioned: a lookup loads one small partition, never a whole file's filter.
    t.set_cache_index_and_filter_blocks(true);
    t.set_cache_index_and_filter_blocks_with_high_priority(true);
    t.set_pin_l0_filter_and_index_blocks_in_cache(true);
    t.set_index_type(BlockBasedIndexType::TwoLevelIndexSearch);
    t.set_partition_filters(true);
    t.set_metadata_block_size(4096);
    t.set_pin_top_level_index_and_filter(true);
    if cfg.bloom_bits_per_key > 0.0 {
        t.set_bloom_filter(cfg.bloom_bits_per_key, false);
    }
    let mut o = Options::default();
    o.set_block_based_table_factory(&t);
    o.set_write_buffer_size(cfg.write_buffer_bytes);
    o.set_write_buffer_manager(wbm);
    o.set_level_compaction_dynamic_level_bytes(true);
    match cfg.compression {
        Compression::None => o.set_compression_type(DBCompressionType::None),
        Compression::Lz4 => o.set_compression_type(DBCompressionType::Lz4),
        Compression::Lz4Zstd => {
            o.set_compression_type(DBCompressionType::Lz4);
            o.set_bottommost_compression_type(DBCompressionType::Zstd);
        }
        Compression::Zstd => o.set_compression_type(DBCompressionType::Zstd),
    }
    if has_node_prefix(cf) {
        o.set_prefix_extractor(SliceTransform::create_fixed_prefix(8));
        o.set_memtable_prefix_bloom_ratio(0.05);
    } else if matches!(cf, Cf::Nodes | Cf::Keys) {
        // Point-read families: a whole-key bloom filter lets a read of a key the memtables do
        // not hold (most, after a write burst) skip their skip-list searches (decision 0014).
        o.set_memtable_whole_key_filtering(true);
        o.set_memtable_prefix_bloom_ratio(0.05);
    }
    match cf {
        Cf::Deg => o.set_merge_operator(
            "hopdb.deg.v1",
            |_k: &[u8], base: Option<&[u8]>, ops: &MergeOperands| merge_deg(base, ops.iter()),
            |_k: &[u8], _base: Option<&[u8]>, ops: &MergeOperands| merge_deg_operands(ops.iter()),
        ),
        Cf::Counts => o.set_merge_operator_associative(
            "hopdb.count.v1",
            |_k: &[u8], base: Option<&[u8]>, ops: &MergeOperands| merge_count(base, ops.iter()),
        ),
        _ => {}
    }
    o
}

/// glibc raises its mmap threshold (up to 32 MiB) each time a mapped block is freed. From then
/// on RocksDB's memtable blocks (about 1 MiB, all freed at each flush) come from the heap,
/// where they leave holes that are reused badly and never returned: in the S=10 soak the C++
/// heap held 57 MiB free after 18 minutes, against 27 MiB with the threshold fixed. Setting
/// it once fixes it at glibc's own starting value (process-wide, as the environment variable
/// would), so large blocks are mapped and unmapped again. A threshold the user set in
/// `MALLOC_MMAP_THRESHOLD_` stands.
fn fix_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            if std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_some() {
                return;
            }
            // SAFETY: mallopt takes two integers and changes only the allocator's parameters;
            // glibc serializes it against concurrent allocations.
            #[allow(unsafe_code)]
            let set = unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10) };
            if set != 1 {
                tracing::debug!("glibc refused a fixed mmap threshold; the C++ heap may fragment");
            }
        });
    }
}

fn db_options(cfg: &Config, row_cache: Option<&Cache>) -> Options {
    let mut o = Options::default();
    if let Some(c) = row_cache {
        o.set_row_cache(c);
    }
    o.create_if_missing(cfg.access == AccessMode::ReadWrite);
    o.create_missing_column_families(cfg.access == AccessMode::ReadWrite);
    o.set_max_background_jobs(cfg.background_jobs.max(1));
    // One batch spans column families; atomic flush keeps them consistent even without a WAL.
    o.set_atomic_flush(true);
    // Bounds the WAL, hence the replay work at reopen (restart time follows the WAL tail).
    o.set_max_total_wal_size((cfg.total_write_buffer_bytes as u64).max(64 << 20) * 2);
    o.set_keep_log_file_num(4);
    o.set_max_open_files(-1);
    if cfg.cache_statistics {
        // Tickers only: per-core counters, no timers or histograms (decision 0052).
        o.enable_statistics();
        o.set_statistics_level(rocksdb::statistics::StatsLevel::ExceptHistogramOrTimers);
    }
    o
}

fn is_empty_dir(p: &Path) -> Result<bool> {
    let mut rd = std::fs::read_dir(p).map_err(|source| Error::io(p, source))?;
    Ok(rd.next().is_none())
}

static SECONDARY_SEQ: AtomicU64 = AtomicU64::new(0);

/// Whether `path` is where a new store would be created: absent, or an empty directory.
pub(crate) fn is_vacant(path: &Path) -> Result<bool> {
    Ok(!path.exists() || (path.is_dir() && is_empty_dir(path)?))
}

impl RocksEngine {
    /// Opens (or, for a writer, creates) the store at `path`. Returns the engine and whether
    /// the store was created just now.
    pub(crate) fn open(path: &Path, cfg: &Config) -> Result<(RocksEngine, bool)> {
        fix_mmap_threshold();
        let writer = cfg.access == AccessMode::ReadWrite;
        if path.join(ROLLBACK_DIR).is_dir() {
            if !writer {
                return Err(Error::NotAStore {
                    path: path.to_owned(),
                    reason: "a bulk import is committing, or was interrupted and awaits rollback by the next \
                             writable open; retry in a moment"
                        .into(),
                });
            }
            roll_back(path)?;
        }
        for stale in [ROLLBACK_TMP, ROLLBACK_DONE] {
            if writer && path.join(stale).exists() {
                std::fs::remove_dir_all(path.join(stale)).map_err(io_err(&path.join(stale)))?;
            }
        }
        if path.exists() && !path.is_dir() {
            return Err(Error::NotAStore {
                path: path.to_owned(),
                reason: "it is a file, not a directory".into(),
            });
        }
        let has_current = path.join("CURRENT").is_file();
        let fresh = !path.exists() || (!has_current && is_empty_dir(path)?);
        if fresh && !writer {
            return Err(Error::NotAStore {
                path: path.to_owned(),
                reason: "no store here (nothing to open read-only)".into(),
            });
        }
        if !fresh && !has_current {
            return Err(Error::NotAStore {
                path: path.to_owned(),
                reason: "the directory holds other files and no RocksDB CURRENT file".into(),
            });
        }
        let mut absent = Absent::default();
        if !fresh {
            let existing =
                DB::list_cf(&Options::default(), path).map_err(|e| map_err(path, "listing column families", e))?;
            let lacks = |c: &Cf| !existing.iter().any(|e| e == c.name());
            let missing: Vec<&str> = Cf::ALL
                .iter()
                .filter(|c| c.required() && lacks(c))
                .map(|c| c.name())
                .collect();
            if !missing.is_empty() {
                return Err(Error::NotAStore {
                    path: path.to_owned(),
                    reason: format!("a RocksDB database without HopDB's column families {missing:?}"),
                });
            }
            // A writer creates missing optional families (`create_missing_column_families`);
            // a read-only open cannot, and reads them as empty.
            if !writer {
                for c in Cf::ALL.iter().filter(|c| lacks(c)) {
                    absent.0 |= 1 << *c as u16;
                }
            }
        }
        if writer {
            std::fs::create_dir_all(path).map_err(|source| Error::io(path, source))?;
        }
        let cache = Cache::new_lru_cache(cfg.block_cache_bytes);
        // Memtables have their own budget: charging them to the block cache would let a
        // write burst evict every cached filter and index block.
        let wbm = WriteBufferManager::new_write_buffer_manager(cfg.total_write_buffer_bytes, false);
        let cfs: Vec<ColumnFamilyDescriptor> = Cf::ALL
            .iter()
            .filter(|&&cf| !absent.has(cf))
            .map(|&cf| ColumnFamilyDescriptor::new(cf.name(), cf_options(cfg, cf, &cache, &wbm)))
            .collect();
        // Bulk runs are compressed with LZ4 whatever the store's setting: zstd cost a third of
        // a full-scale import's time. Compactions recompress them later (decision 0009).
        let bulk_opts = Cf::ALL
            .iter()
            .map(|&cf| {
                let mut o = cf_options(cfg, cf, &cache, &wbm);
                if cfg.compression != Compression::None {
                    o.set_compression_type(DBCompressionType::Lz4);
                    o.set_bottommost_compression_type(DBCompressionType::Lz4);
                }
                o
            })
            .collect();
        // The row cache answers repeated point lookups (nodes, edges, counters) without
        // touching the LSM tree: it halved node-read and degree latency when measured.
        let row_cache = (cfg.row_cache_bytes > 0).then(|| Cache::new_lru_cache(cfg.row_cache_bytes));
        let opts = db_options(cfg, row_cache.as_ref());
        let (db, secondary_dir) = match cfg.access {
            AccessMode::ReadWrite => (
                DB::open_cf_descriptors(&opts, path, cfs).map_err(|e| map_err(path, "opening the store", e))?,
                None,
            ),
            AccessMode::Secondary => {
                let dir = std::env::temp_dir().join(format!(
                    "hopdb-secondary-{}-{}",
                    std::process::id(),
                    SECONDARY_SEQ.fetch_add(1, Ordering::Relaxed)
                ));
                let db = DB::open_cf_descriptors_as_secondary(&opts, path, &dir, cfs)
                    .map_err(|e| map_err(path, "opening the store as a secondary", e))?;
                (db, Some(dir))
            }
        };
        let engine = RocksEngine {
            db: Arc::new(db),
            path: Arc::from(path),
            cache,
            _wbm: wbm,
            row_cache,
            secondary_dir,
            bulk_opts,
            absent,
            stats_opts: cfg.cache_statistics.then_some(opts),
        };
        // Every column family was opened above; a handle missing now fails the open (and the
        // engine's drop removes a secondary's directory).
        for c in Cf::ALL.into_iter().filter(|&c| !absent.has(c)) {
            engine.cf(c)?;
        }
        tracing::info!(path = %path.display(), fresh, access = ?cfg.access, "opened RocksDB store");
        Ok((engine, fresh))
    }

    fn cf(&self, cf: Cf) -> Result<&ColumnFamily> {
        cf_handle(&self.db, &self.path, cf)
    }

    fn ticker(&self, t: Ticker) -> Option<u64> {
        self.stats_opts.as_ref().map(|o| o.get_ticker_count(t))
    }
}

/// The handle of one of HopDB's column families: `DB::cf_handle`'s one map lookup, nothing
/// more. `RocksEngine::open` opens every family and checks each handle, so a miss is an
/// engine failure, reported as a storage error rather than a panic.
#[inline]
fn cf_handle<'d>(db: &'d DB, path: &Path, cf: Cf) -> Result<&'d ColumnFamily> {
    match db.cf_handle(cf.name()) {
        Some(h) => Ok(h),
        None => Err(missing_cf(path, cf)),
    }
}

/// Out of line, so the lookup's hot path stays as small as the `expect` it replaced.
#[cold]
fn missing_cf(path: &Path, cf: Cf) -> Error {
    Error::Storage {
        context: "resolving a column family",
        detail: format!("{}: column family {} is not open", path.display(), cf.name()),
    }
}

fn scan_opts(cf: Cf, prefix: &[u8]) -> ReadOptions {
    let mut ro = ReadOptions::default();
    if has_node_prefix(cf) && prefix.len() >= 8 {
        ro.set_prefix_same_as_start(true);
    } else {
        ro.set_total_order_seek(true);
    }
    if let Some(ub) = prefix_successor(prefix) {
        ro.set_iterate_upper_bound(ub);
    }
    // A whole-family scan (a projection build, an export, a check) reads each block once:
    // caching them would evict the point reads' working set and grow the cache to its bound.
    if prefix.is_empty() {
        ro.fill_cache(false);
    }
    ro
}

/// The smallest key greater than every key starting with `prefix`, if any.
fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut p = prefix.to_vec();
    while let Some(last) = p.pop() {
        if last < 0xff {
            p.push(last + 1);
            return Some(p);
        }
    }
    None
}

fn run_scan(
    mut it: rocksdb::DBRawIteratorWithThreadMode<'_, DB>,
    path: &Path,
    prefix: &[u8],
    start: &[u8],
    f: &mut dyn FnMut(&[u8], &[u8]) -> bool,
) -> Result<()> {
    it.seek(if start > prefix { start } else { prefix });
    // `item` checks validity once and fetches key and value (fewer FFI calls per entry).
    // An empty prefix (a whole-family scan) needs no check per entry.
    let check = !prefix.is_empty();
    while let Some((k, v)) = it.item() {
        if (check && !k.starts_with(prefix)) || !f(k, v) {
            break;
        }
        it.next();
    }
    it.status().map_err(|e| map_err(path, "scanning", e))
}

/// A multi-get at `snap` (None: the latest state), split over two threads when large
/// (`parallel.rs`).
fn multi_get_split(
    db: &DB,
    cf: &ColumnFamily,
    keys: &[Vec<u8>],
    snap: Option<&rocksdb::SnapshotWithThreadMode<'_, DB>>,
    path: &Path,
) -> Result<Vec<Option<Vec<u8>>>> {
    let one = |keys: &[Vec<u8>]| -> Result<Vec<Option<Vec<u8>>>> {
        let sorted = keys.windows(2).all(|w| w[0] <= w[1]);
        let mut ro = ReadOptions::default();
        if let Some(s) = snap {
            ro.set_snapshot(s);
        }
        db.batched_multi_get_cf_opt(cf, keys.iter().map(Vec::as_slice), sorted, &ro)
            .into_iter()
            .map(|r| {
                r.map(|o| o.map(|s| s.to_vec()))
                    .map_err(|e| map_err(path, "reading", e))
            })
            .collect()
    };
    crate::parallel::split_batch(keys, crate::parallel::PARALLEL_BATCH_MIN, one)
}

/// Options for one iterator over many prefixes: no upper bound (each prefix would need its
/// own), prefix seeks where the family has a prefix extractor. A single prefix takes `scan`,
/// whose upper bound keeps the iterator from reading the block after the prefix's last one.
fn scan_many_opts(cf: Cf, prefixes: &[&[u8]]) -> ReadOptions {
    let mut ro = ReadOptions::default();
    if has_node_prefix(cf) && prefixes.iter().all(|p| p.len() >= 8) {
        ro.set_prefix_same_as_start(true);
    } else {
        ro.set_total_order_seek(true);
    }
    ro
}

fn run_scan_many(
    mut it: rocksdb::DBRawIteratorWithThreadMode<'_, DB>,
    path: &Path,
    prefixes: &[&[u8]],
    f: &mut PrefixVisit<'_>,
) -> Result<()> {
    for (i, p) in prefixes.iter().enumerate() {
        it.seek(p);
        while let Some((k, v)) = it.item() {
            if !k.starts_with(p) || !f(i, k, v) {
                break;
            }
            it.next();
        }
        it.status().map_err(|e| map_err(path, "scanning", e))?;
    }
    Ok(())
}

impl KvRead for RocksEngine {
    fn get(&self, cf: Cf, key: &[u8]) -> Result<Option<Vec<u8>>> {
        if self.absent.has(cf) {
            return Ok(None);
        }
        self.db
            .get_pinned_cf(self.cf(cf)?, key)
            .map(|o| o.map(|s| s.to_vec()))
            .map_err(|e| map_err(&self.path, "reading", e))
    }

    fn multi_get(&self, cf: Cf, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>> {
        if self.absent.has(cf) {
            return Ok(vec![None; keys.len()]);
        }
        if crate::parallel::splits(keys.len(), crate::parallel::PARALLEL_BATCH_MIN) && self.secondary_dir.is_none() {
            // Halves read on two threads must see one state: pin it.
            let snap = self.db.snapshot();
            return multi_get_split(&self.db, self.cf(cf)?, keys, Some(&snap), &self.path);
        }
        // A secondary instance is a fixed state already.
        multi_get_split(&self.db, self.cf(cf)?, keys, None, &self.path)
    }

    fn scan(&self, cf: Cf, prefix: &[u8], start: &[u8], f: &mut dyn FnMut(&[u8], &[u8]) -> bool) -> Result<()> {
        if self.absent.has(cf) {
            return Ok(());
        }
        let it = self.db.raw_iterator_cf_opt(self.cf(cf)?, scan_opts(cf, prefix));
        run_scan(it, &self.path, prefix, start, f)
    }

    fn scan_prefixes(&self, cf: Cf, prefixes: &[&[u8]], f: &mut PrefixVisit<'_>) -> Result<()> {
        if self.absent.has(cf) {
            return Ok(());
        }
        if let [p] = prefixes {
            return self.scan(cf, p, p, &mut |k, v| f(0, k, v));
        }
        let it = self.db.raw_iterator_cf_opt(self.cf(cf)?, scan_many_opts(cf, prefixes));
        run_scan_many(it, &self.path, prefixes, f)
    }
}

/// A RocksDB snapshot that owns a reference to its database.
struct RocksSnapshot {
    // Field order matters: the snapshot is released before the DB reference is dropped.
    // None for a secondary instance, which has no snapshots but is itself a fixed state.
    snap: Option<rocksdb::SnapshotWithThreadMode<'static, DB>>,
    db: Arc<DB>,
    path: Arc<Path>,
    absent: Absent,
}

impl RocksSnapshot {
    fn new(db: Arc<DB>, path: Arc<Path>, secondary: bool, absent: Absent) -> Self {
        if secondary {
            return RocksSnapshot {
                snap: None,
                db,
                path,
                absent,
            };
        }
        let snap = db.snapshot();
        // SAFETY: the snapshot borrows the DB, which lives in an `Arc` that this struct owns
        // and drops only after the snapshot (fields drop in declaration order). The 'static
        // lifetime never escapes: the snapshot is private to this struct.
        #[allow(unsafe_code)]
        let snap: rocksdb::SnapshotWithThreadMode<'static, DB> = unsafe { std::mem::transmute(snap) };
        RocksSnapshot {
            snap: Some(snap),
            db,
            path,
            absent,
        }
    }
    fn cf(&self, cf: Cf) -> Result<&ColumnFamily> {
        cf_handle(&self.db, &self.path, cf)
    }
}

impl KvRead for RocksSnapshot {
    fn get(&self, cf: Cf, key: &[u8]) -> Result<Option<Vec<u8>>> {
        if self.absent.has(cf) {
            return Ok(None);
        }
        let Some(snap) = &self.snap else {
            return self
                .db
                .get_pinned_cf(self.cf(cf)?, key)
                .map(|o| o.map(|s| s.to_vec()))
                .map_err(|e| map_err(&self.path, "reading", e));
        };
        snap.get_pinned_cf(self.cf(cf)?, key)
            .map(|o| o.map(|s| s.to_vec()))
            .map_err(|e| map_err(&self.path, "reading a snapshot", e))
    }

    fn multi_get(&self, cf: Cf, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>> {
        if self.absent.has(cf) {
            return Ok(vec![None; keys.len()]);
        }
        multi_get_split(&self.db, self.cf(cf)?, keys, self.snap.as_ref(), &self.path)
    }

    fn scan(&self, cf: Cf, prefix: &[u8], start: &[u8], f: &mut dyn FnMut(&[u8], &[u8]) -> bool) -> Result<()> {
        if self.absent.has(cf) {
            return Ok(());
        }
        let it = match &self.snap {
            Some(snap) => snap.raw_iterator_cf_opt(self.cf(cf)?, scan_opts(cf, prefix)),
            None => self.db.raw_iterator_cf_opt(self.cf(cf)?, scan_opts(cf, prefix)),
        };
        run_scan(it, &self.path, prefix, start, f)
    }

    fn scan_prefixes(&self, cf: Cf, prefixes: &[&[u8]], f: &mut PrefixVisit<'_>) -> Result<()> {
        if self.absent.has(cf) {
            return Ok(());
        }
        if let [p] = prefixes {
            return self.scan(cf, p, p, &mut |k, v| f(0, k, v));
        }
        let ro = scan_many_opts(cf, prefixes);
        let it = match &self.snap {
            Some(snap) => snap.raw_iterator_cf_opt(self.cf(cf)?, ro),
            None => self.db.raw_iterator_cf_opt(self.cf(cf)?, ro),
        };
        run_scan_many(it, &self.path, prefixes, f)
    }
}

impl Engine for RocksEngine {
    fn snapshot(&self) -> Arc<dyn KvRead> {
        Arc::new(RocksSnapshot::new(
            self.db.clone(),
            self.path.clone(),
            self.secondary_dir.is_some(),
            self.absent,
        ))
    }

    fn write(&self, ops: Vec<Op>, durability: Durability) -> Result<()> {
        if self.secondary_dir.is_some() {
            return Err(Error::ReadOnly { op: "writing" });
        }
        let mut b = WriteBatch::default();
        for op in &ops {
            match op {
                Op::Put(cf, k, v) => b.put_cf(self.cf(*cf)?, k, v),
                Op::Delete(cf, k) => b.delete_cf(self.cf(*cf)?, k),
                Op::Merge(cf, k, v) => b.merge_cf(self.cf(*cf)?, k, v),
            }
        }
        let mut wo = WriteOptions::default();
        wo.set_sync(durability == Durability::Sync);
        wo.disable_wal(durability == Durability::None);
        self.db
            .write_opt(b, &wo)
            .map_err(|e| map_err(&self.path, "committing a write batch", e))
    }

    fn flush(&self) -> Result<()> {
        if self.secondary_dir.is_some() {
            return Ok(());
        }
        let handles = Cf::ALL
            .iter()
            .filter(|&&c| !self.absent.has(c))
            .map(|&c| self.cf(c))
            .collect::<Result<Vec<&ColumnFamily>>>()?;
        self.db
            .flush_cfs_opt(&handles, &rocksdb::FlushOptions::default())
            .map_err(|e| map_err(&self.path, "flushing", e))?;
        self.db
            .flush_wal(true)
            .map_err(|e| map_err(&self.path, "syncing the WAL", e))
    }

    fn compact(&self) -> Result<()> {
        for c in Cf::ALL.into_iter().filter(|&c| !self.absent.has(c)) {
            self.db.compact_range_cf(self.cf(c)?, None::<&[u8]>, None::<&[u8]>);
        }
        Ok(())
    }

    fn stats(&self) -> StorageStats {
        let sum = |prop: &str| -> u64 {
            Cf::ALL
                .iter()
                .filter_map(|&c| self.db.property_int_value_cf(self.cf(c).ok()?, prop).ok().flatten())
                .sum()
        };
        let wal_bytes = std::fs::read_dir(&self.path)
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .filter(|e| e.path().extension().is_some_and(|x| x == "log"))
                    .filter_map(|e| e.metadata().ok())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0);
        let db_wide = |prop: &str| self.db.property_int_value(prop).ok().flatten().unwrap_or(0);
        let sst_files = (0..7).map(|l| sum(&format!("rocksdb.num-files-at-level{l}"))).sum();
        StorageStats {
            sst_bytes: sum("rocksdb.total-sst-files-size"),
            live_data_bytes: sum("rocksdb.estimate-live-data-size"),
            memtable_bytes: sum("rocksdb.cur-size-all-mem-tables"),
            block_cache_bytes: self.cache.get_usage() as u64,
            sst_files,
            wal_bytes,
            block_cache_pinned_bytes: self.cache.get_pinned_usage() as u64,
            row_cache_bytes: self.row_cache.as_ref().map_or(0, |c| c.get_usage() as u64),
            table_readers_bytes: sum("rocksdb.estimate-table-readers-mem"),
            compactions_running: db_wide("rocksdb.num-running-compactions"),
            compaction_pending_bytes: sum("rocksdb.estimate-pending-compaction-bytes"),
            flushes_running: db_wide("rocksdb.num-running-flushes"),
            immutable_memtables: sum("rocksdb.num-immutable-mem-table"),
            block_cache_hits: self.ticker(Ticker::BlockCacheHit),
            block_cache_misses: self.ticker(Ticker::BlockCacheMiss),
            row_cache_hits: self.row_cache.as_ref().and(self.ticker(Ticker::RowCacheHit)),
            row_cache_misses: self.row_cache.as_ref().and(self.ticker(Ticker::RowCacheMiss)),
        }
    }

    fn checkpoint(&self, dir: &Path) -> Result<()> {
        let cp = Checkpoint::new(&self.db).map_err(|e| map_err(&self.path, "preparing a checkpoint", e))?;
        cp.create_checkpoint(dir)
            .map_err(|e| map_err(dir, "writing a checkpoint", e))
    }

    fn bulk_file<'e>(&'e self, cf: Cf, scratch: &Path, name: &str) -> Result<Box<dyn BulkFile + 'e>> {
        let path = scratch.join(format!("{name}.sst"));
        let w = SstFileWriter::create(&self.bulk_opts[cf as usize]);
        w.open(&path).map_err(|e| map_err(&path, "creating a bulk file", e))?;
        Ok(Box::new(SstRun {
            cf,
            path,
            w,
            entries: 0,
        }))
    }

    fn begin_bulk(&self) -> Result<()> {
        if self.secondary_dir.is_some() {
            return Err(Error::ReadOnly { op: "bulk loading" });
        }
        let tmp = self.path.join(ROLLBACK_TMP);
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp).map_err(io_err(&tmp))?;
        }
        // Flushed first, so the checkpoint is SST hard links plus a manifest (no WAL copy).
        self.flush()?;
        self.checkpoint(&tmp)?;
        sync_dir(&tmp)?;
        let dir = self.path.join(ROLLBACK_DIR);
        std::fs::rename(&tmp, &dir).map_err(io_err(&dir))?;
        sync_dir(&self.path)
    }

    fn ingest(&self, parts: Vec<BulkPart>) -> Result<()> {
        let mut ingested = Vec::with_capacity(parts.len());
        for part in parts {
            let BulkPart::Sst { cf, path } = part else {
                return Err(Error::invalid(
                    "bulk part",
                    "buffered operations given to the RocksDB engine",
                ));
            };
            // Opened before the move: the hard link in the store is the same file.
            if let Ok(f) = std::fs::File::open(&path) {
                ingested.push(f);
            }
            let mut o = IngestExternalFileOptions::default();
            // Hard-link the file in (same filesystem), and let it land on top of any data the
            // store already has (global sequence number) without blocking readers.
            o.set_move_files(true);
            o.set_allow_global_seqno(true);
            o.set_allow_blocking_flush(true);
            self.db
                .ingest_external_file_cf_opts(self.cf(cf)?, &o, vec![&path])
                .map_err(|e| map_err(&path, "ingesting a bulk file", e))?;
        }
        read_ahead(ingested);
        Ok(())
    }

    fn end_bulk(&self) -> Result<()> {
        // Everything ingested must be on disk before the way back is removed.
        self.flush()?;
        let dir = self.path.join(ROLLBACK_DIR);
        let done = self.path.join(ROLLBACK_DONE);
        std::fs::rename(&dir, &done).map_err(io_err(&dir))?;
        sync_dir(&self.path)?;
        std::fs::remove_dir_all(&done).map_err(io_err(&done))
    }
}

/// Asks the kernel to read freshly ingested files back into the page cache, on a thread of
/// its own. RocksDB's `SstFileWriter` drops each file from the page cache as it writes it
/// (`invalidate_page_cache`, not settable through the C API), so without this the first
/// reads after an import went to the disk: 90% of a NotreDame import's pages were not
/// resident, and random reads ran at a tenth of their warm speed.
fn read_ahead(files: Vec<std::fs::File>) {
    if files.is_empty() {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("hopdb-readahead".into())
        .spawn(move || {
            for f in &files {
                // Advice only: a failure leaves the pages to be read on demand.
                let _ = rustix::fs::fadvise(f, 0, None, rustix::fs::Advice::WillNeed);
            }
        });
    if let Err(e) = spawned {
        tracing::debug!(error = %e, "no read-ahead thread for the ingested files");
    }
}

/// A bulk run of the RocksDB engine: an SST file.
struct SstRun<'e> {
    cf: Cf,
    path: PathBuf,
    w: SstFileWriter<'e>,
    entries: u64,
}

impl BulkFile for SstRun<'_> {
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.entries += 1;
        self.w
            .put(key, value)
            .map_err(|e| map_err(&self.path, "writing a bulk file", e))
    }
    fn finish(mut self: Box<Self>) -> Result<Option<BulkPart>> {
        if self.entries == 0 {
            drop(self.w);
            let _ = std::fs::remove_file(&self.path);
            return Ok(None);
        }
        self.w
            .finish()
            .map_err(|e| map_err(&self.path, "finishing a bulk file", e))?;
        Ok(Some(BulkPart::Sst {
            cf: self.cf,
            path: self.path.clone(),
        }))
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::io(path, source)
}

fn sync_dir(path: &Path) -> Result<()> {
    std::fs::File::open(path)
        .and_then(|d| d.sync_all())
        .map_err(io_err(path))
}

/// Returns a store to the checkpoint an interrupted bulk load left (decision 0009): removes
/// the store's own files, links the checkpoint's in, then drops the checkpoint. Every step is
/// repeatable, so a crash during the rollback just means it runs again at the next open.
fn roll_back(path: &Path) -> Result<()> {
    let lock_path = path.join(RESTORE_LOCK);
    let lock = std::fs::File::create(&lock_path).map_err(io_err(&lock_path))?;
    lock.lock().map_err(io_err(&lock_path))?;
    let cp = path.join(ROLLBACK_DIR);
    if !cp.is_dir() {
        return Ok(()); // another process rolled back while we waited for the lock
    }
    tracing::warn!(path = %path.display(), "an interrupted bulk import is being rolled back");
    let keep = [ROLLBACK_DIR, RESTORE_LOCK, "LOCK"];
    for e in std::fs::read_dir(path).map_err(io_err(path))? {
        let e = e.map_err(io_err(path))?;
        let name = e.file_name();
        let p = e.path();
        if keep.iter().any(|k| name == *k) {
            continue;
        }
        if p.is_dir() {
            std::fs::remove_dir_all(&p).map_err(io_err(&p))?;
        } else {
            std::fs::remove_file(&p).map_err(io_err(&p))?;
        }
    }
    super::faults::crash_point("mid-rollback");
    for e in std::fs::read_dir(&cp).map_err(io_err(&cp))? {
        let e = e.map_err(io_err(&cp))?;
        let to = path.join(e.file_name());
        if std::fs::hard_link(e.path(), &to).is_err() {
            std::fs::copy(e.path(), &to).map_err(io_err(&to))?;
        }
    }
    sync_dir(path)?;
    let done = path.join(ROLLBACK_DONE);
    std::fs::rename(&cp, &done).map_err(io_err(&cp))?;
    sync_dir(path)?;
    std::fs::remove_dir_all(&done).map_err(io_err(&done))?;
    tracing::warn!(path = %path.display(), "rolled back to the state before the interrupted import");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::prefix_successor;

    #[test]
    fn prefix_successor_handles_carries() {
        assert_eq!(prefix_successor(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(prefix_successor(&[1, 0xff]), Some(vec![2]));
        assert_eq!(prefix_successor(&[0xff, 0xff]), None);
        assert_eq!(prefix_successor(b""), None);
    }

    #[test]
    fn cache_statistics_count_lookups_only_when_asked() {
        use crate::{Config, Direction, Graph, GraphRead, NodeKey};
        let dir = tempfile::tempdir().unwrap();
        let fill = |g: &Graph| {
            for i in 0..100 {
                g.upsert_edge(
                    format!("n{i}"),
                    "R",
                    format!("n{}", i + 1),
                    None,
                    Default::default(),
                    Default::default(),
                )
                .unwrap();
            }
            g.flush().unwrap();
        };
        let on = Config {
            cache_statistics: true,
            ..Config::default()
        };
        let g = Graph::open_with(dir.path().join("on"), on).unwrap();
        fill(&g);
        let before = g.memory_usage().storage;
        for i in 0..100 {
            let key = NodeKey::from(format!("n{}", i + 1));
            let edges = g.edges(&key, Direction::Both, None, None).unwrap();
            assert_eq!(edges.len(), if i == 99 { 1 } else { 2 });
        }
        let after = g.memory_usage().storage;
        let lookups = |s: &crate::StorageStats| s.block_cache_hits.unwrap() + s.block_cache_misses.unwrap();
        assert!(lookups(&after) > lookups(&before), "{before:?} -> {after:?}");
        assert!(after.row_cache_hits.is_some() && after.row_cache_misses.is_some());

        let off = Config {
            cache_statistics: false,
            ..Config::default()
        };
        let g = Graph::open_with(dir.path().join("off"), off).unwrap();
        fill(&g);
        let s = g.memory_usage().storage;
        assert_eq!((s.block_cache_hits, s.row_cache_misses), (None, None));
    }
}
