//! The store handle: open, read (latest state or a snapshot), write, maintain.

use crate::catalog::{Catalog, EdgeType, EdgeTypeOptions};
use crate::check::{check, CheckReport};
use crate::config::{AccessMode, Config};
use crate::engine::memory::MemEngine;
use crate::engine::rocks::RocksEngine;
use crate::engine::{Cf, Engine, KvRead, Op, StorageStats};
use crate::error::{corrupt_rec, Error, Result};
use crate::graph_read::{ReadTxn, ViewGuard};
use crate::key_index::KeyIndex;
use crate::model::{EdgeInput, NodeInput, WriteMode};
use crate::read::View;
use crate::records::*;
use crate::state::{Inner, WriterState};
use crate::value::{NodeKey, Props};
use crate::write::WriteTxn;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// The on-disk format this build writes (decision 0005). It also reads format 1, whose
/// stores differ only in key entries without labels (decision 0037): a writable open
/// upgrades them in place by recording the new version.
pub const FORMAT_VERSION: u32 = 2;

/// A property graph store. Cheap to clone (clones share the store) and safe to use from many
/// threads: readers never block; writers take turns.
///
/// ```
/// use hopdb_core::{Direction, Graph, GraphRead, props, Value, WriteMode};
/// let dir = tempfile::tempdir().unwrap();
/// let g = Graph::open(dir.path()).unwrap();
/// g.upsert_node("ada", &["Person"], props([("born", Value::Int(1815))]), WriteMode::Merge).unwrap();
/// g.upsert_edge("ada", "WROTE_TO", "charles", None, Default::default(), WriteMode::Merge).unwrap();
/// let out = g.edges(&"ada".into(), Direction::Out, None, None).unwrap();
/// assert_eq!(out[0].dst, "charles".into());
/// assert_eq!(g.degree(&"charles".into(), Direction::In, None).unwrap().count, 1);
/// ```
#[derive(Clone)]
pub struct Graph {
    inner: Arc<Inner>,
    /// The background key-index warm-up started by the open: shared by the handle's clones,
    /// stopped and joined when the last of them drops, so the store closes with them.
    warm: Option<Arc<crate::warm::WarmUp>>,
}

/// What [`Graph::backup`] copied.
#[derive(Debug, Clone, Default)]
pub struct BackupReport {
    /// Records copied (key-value pairs, all column families).
    pub records: u64,
    /// Bytes of those records' keys and values (before compression).
    pub bytes: u64,
    /// Wall-clock time of the whole backup, from the emptiness check to the final rename.
    pub seconds: f64,
}

impl BackupReport {
    /// Copy throughput: records over seconds (a zero duration counts as one nanosecond).
    pub fn records_per_second(&self) -> f64 {
        self.records as f64 / self.seconds.max(1e-9)
    }
}

/// Storage-level facts for `hopdb stats`.
#[derive(Debug, Clone)]
pub struct Stats {
    /// The store directory, or None for an in-memory store.
    pub path: Option<PathBuf>,
    /// The on-disk format version: [`FORMAT_VERSION`], or 1 for a format 1 store opened
    /// read-only (a writable open upgrades it).
    pub format_version: u32,
    /// Live nodes, from the maintained counter.
    pub nodes: u64,
    /// Live edges (every parallel edge counts), from the maintained counter.
    pub edges: u64,
    /// Labels carried by at least one node, with their node counts, sorted by name.
    pub labels: Vec<(String, u64)>,
    /// Every declared edge type with its edge count (zero included), sorted by name.
    pub edge_types: Vec<(EdgeType, u64)>,
    /// The storage engine's sizes and cache use (all zero for an in-memory store).
    pub storage: StorageStats,
}

/// What an open store holds in memory, by part: the bounded caches and what grows with the
/// data (see [`Graph::memory_usage`]).
#[derive(Debug, Clone, Default)]
pub struct MemoryUsage {
    /// The storage engine's caches, memtables and table readers (all zero in memory).
    pub storage: StorageStats,
    /// Keys in the in-memory key index (decision 0014).
    pub key_index_keys: u64,
    /// The bytes the key index holds.
    pub key_index_bytes: u64,
}

fn meta_u64(kv: &dyn KvRead, key: &[u8]) -> Result<Option<u64>> {
    match kv.get(Cf::Meta, key)? {
        None => Ok(None),
        Some(v) => Ok(Some(u64::from_le_bytes(
            v.as_slice().try_into().map_err(|_| corrupt_rec("meta counter"))?,
        ))),
    }
}

fn meta_u32(kv: &dyn KvRead, key: &[u8]) -> Result<Option<u32>> {
    match kv.get(Cf::Meta, key)? {
        None => Ok(None),
        Some(v) => Ok(Some(u32::from_le_bytes(
            v.as_slice().try_into().map_err(|_| corrupt_rec("format version"))?,
        ))),
    }
}

impl Graph {
    /// Opens the store in `path` for writing, creating it if the directory is absent or empty.
    pub fn open(path: impl AsRef<Path>) -> Result<Graph> {
        Self::open_with(path, Config::default())
    }

    /// Opens the store in `path` with explicit configuration.
    pub fn open_with(path: impl AsRef<Path>, cfg: Config) -> Result<Graph> {
        let path = path.as_ref();
        let started = Instant::now();
        if cfg.access == AccessMode::ReadWrite && crate::engine::rocks::is_vacant(path)? {
            Self::create(path, &cfg)?;
        }
        let (engine, fresh) = RocksEngine::open(path, &cfg)?;
        if cfg.access == AccessMode::ReadWrite {
            crate::bulk::remove_stale_scratch(path);
        }
        let mut g = Self::init(Box::new(engine), Some(path.to_owned()), cfg, fresh)?;
        tracing::info!(path = %path.display(), ms = started.elapsed().as_millis() as u64, "store ready");
        if g.inner.cfg.warm_key_index && !fresh && g.inner.cfg.id_cache_bytes > 0 {
            g.warm = crate::warm::start(&g.inner);
        }
        Ok(g)
    }

    /// Creates a store atomically: built and initialised in a hidden sibling directory, then
    /// renamed into place, so a crash during creation never leaves a half-made store at
    /// `path`, only a hidden `.NAME.hopdb-creating-PID` directory beside it.
    fn create(path: &Path, cfg: &Config) -> Result<()> {
        let io = |p: &Path| {
            let p = p.to_owned();
            move |source| Error::io(p, source)
        };
        let name = path
            .file_name()
            .ok_or_else(|| Error::invalid("store path", format!("{} has no directory name", path.display())))?;
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(io(&parent))?;
        // Per process, so two processes creating the same store never share a scratch dir.
        let tmp = parent.join(format!(
            ".{}.hopdb-creating-{}",
            name.to_string_lossy(),
            std::process::id()
        ));
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
        }
        {
            let (engine, _) = RocksEngine::open(&tmp, cfg)?;
            Self::init(Box::new(engine), Some(tmp.clone()), cfg.clone(), true)?;
        }
        // rename(2) replaces an empty directory, so an empty target is fine. If another
        // process created the store first, ours is dropped and theirs is opened.
        if let Err(e) = std::fs::rename(&tmp, path) {
            let _ = std::fs::remove_dir_all(&tmp);
            if path.join("CURRENT").is_file() {
                return Ok(());
            }
            return Err(io(path)(e));
        }
        std::fs::File::open(&parent)
            .and_then(|d| d.sync_all())
            .map_err(io(&parent))?;
        tracing::info!(path = %path.display(), "created a new store");
        Ok(())
    }

    /// A new, empty in-memory store with the default configuration.
    pub fn in_memory() -> Graph {
        Self::in_memory_with(Config::default())
    }

    /// A new, empty in-memory store (same semantics as on disk; gone when dropped).
    pub fn in_memory_with(cfg: Config) -> Graph {
        // `init` on a fresh MemEngine only reads an empty map and writes puts, none of which
        // can fail, so the public constructor stays infallible.
        #[allow(clippy::expect_used)]
        Self::init(Box::new(MemEngine::new()), None, cfg, true)
            .expect("initialising an empty in-memory store cannot fail")
    }

    fn init(engine: Box<dyn Engine>, path: Option<PathBuf>, cfg: Config, fresh: bool) -> Result<Graph> {
        let shown = path.clone().unwrap_or_else(|| PathBuf::from(":memory:"));
        let version = engine.get(Cf::Meta, META_FORMAT)?;
        match version {
            None => {
                // A writer that crashed between creating the files and writing the header
                // leaves an empty store: initialise it like a fresh one.
                let mut empty = true;
                for cf in [Cf::Meta, Cf::Nodes, Cf::Keys] {
                    engine.scan(cf, &[], &[], &mut |_, _| {
                        empty = false;
                        false
                    })?;
                }
                if !(fresh || empty) {
                    return Err(Error::NotAStore {
                        path: shown,
                        reason: "no HopDB format version in its metadata".into(),
                    });
                }
                if cfg.access != AccessMode::ReadWrite {
                    return Err(Error::NotAStore {
                        path: shown,
                        reason: "the store was never initialised".into(),
                    });
                }
                engine.write(
                    vec![
                        Op::Put(Cf::Meta, META_FORMAT.to_vec(), FORMAT_VERSION.to_le_bytes().to_vec()),
                        Op::Put(Cf::Meta, META_NEXT_NODE.to_vec(), 1u64.to_le_bytes().to_vec()),
                        Op::Put(Cf::Meta, META_NEXT_EDGE.to_vec(), 1u64.to_le_bytes().to_vec()),
                    ],
                    crate::config::Durability::Sync,
                )?;
            }
            Some(v) => {
                let found = <[u8; 4]>::try_from(v.as_slice())
                    .map(u32::from_le_bytes)
                    .map_err(|_| Error::corrupt(&shown, "malformed format version"))?;
                if found == 1 && cfg.access == AccessMode::ReadWrite {
                    // Format 1's data is valid format 2 data: only the marker changes.
                    engine.write(
                        vec![Op::Put(
                            Cf::Meta,
                            META_FORMAT.to_vec(),
                            FORMAT_VERSION.to_le_bytes().to_vec(),
                        )],
                        crate::config::Durability::Sync,
                    )?;
                    tracing::info!(path = %shown.display(), "upgraded the store from format 1 to {FORMAT_VERSION} in place");
                } else if found != FORMAT_VERSION && found != 1 {
                    let hint = if found > FORMAT_VERSION {
                        " (written by a newer HopDB: upgrade HopDB)"
                    } else {
                        " (written by an older HopDB: no upgrade path exists for it)"
                    };
                    return Err(Error::UnsupportedFormat {
                        path: shown,
                        found,
                        supported: FORMAT_VERSION,
                        hint,
                    });
                }
            }
        }
        let catalog = Catalog::load(&*engine)?;
        let next_node = meta_u64(&*engine, META_NEXT_NODE)?.unwrap_or(1);
        let next_edge = meta_u64(&*engine, META_NEXT_EDGE)?.unwrap_or(1);
        let ids = KeyIndex::new(cfg.id_cache_bytes);
        // A bitmap of at most a sixteenth of the key index's budget, outside it: 1.5 MiB, ids
        // below 12.6 million, by default.
        let live = crate::state::LiveIds::new(cfg.id_cache_bytes / 16);
        // A byte per id, the same sixteenth: ids below 1.5 million by default.
        let labels = crate::state::NodeLabels::new(cfg.id_cache_bytes / 16);
        Ok(Graph {
            warm: None,
            inner: Arc::new(Inner::new(
                engine,
                path,
                cfg,
                catalog,
                ids,
                WriterState {
                    next_node,
                    next_edge,
                    live,
                    labels,
                },
            )),
        })
    }

    /// The store directory, or None for an in-memory store.
    pub fn path(&self) -> Option<&Path> {
        self.inner.path.as_deref()
    }

    /// The configuration the store was opened with.
    pub fn config(&self) -> &Config {
        &self.inner.cfg
    }

    /// Starts a write transaction, waiting for the one writer slot.
    pub fn write(&self) -> Result<WriteTxn<'_>> {
        if self.inner.cfg.access != AccessMode::ReadWrite {
            return Err(Error::ReadOnly { op: "writing" });
        }
        let state = self.inner.writer.lock();
        self.writer_from(state)
    }

    /// Like [`Graph::write`], but waits at most `wait` for the writer slot another write
    /// transaction holds; `Ok(None)` when it is still taken then (a server bounds how long
    /// one client's open transaction can stall the others).
    pub fn write_within(&self, wait: std::time::Duration) -> Result<Option<WriteTxn<'_>>> {
        if self.inner.cfg.access != AccessMode::ReadWrite {
            return Err(Error::ReadOnly { op: "writing" });
        }
        match self.inner.writer.try_lock_for(wait) {
            Some(state) => self.writer_from(state).map(Some),
            None => Ok(None),
        }
    }

    fn writer_from<'g>(
        &'g self,
        state: parking_lot::MutexGuard<'g, crate::state::WriterState>,
    ) -> Result<WriteTxn<'g>> {
        if self.inner.bulk_failed() {
            return Err(Error::BulkInterrupted {
                reason: "an earlier bulk load on this handle".into(),
            });
        }
        Ok(WriteTxn::new(&self.inner, state))
    }

    /// A counter that moves whenever a commit or bulk load lands through this handle (or a
    /// clone of it). Snapshots carry the version they were taken at ([`ReadTxn::version`]);
    /// derived data such as an algorithm projection compares the two to know it is stale.
    /// Writes by another process (a read-only open watching a writer) do not move it.
    pub fn version(&self) -> u64 {
        self.inner.versions.version.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Starts recording the structural changes (nodes and edges created or removed) of every
    /// later commit through this handle, keeping the last `capacity` changes, so derived data
    /// can catch up with [`Graph::changes_between`] instead of rebuilding. Cheap when off.
    pub fn track_changes(&self, capacity: usize) {
        self.inner.versions.track(capacity);
    }

    /// The recorded change sets of versions `after + 1 ..= upto`, in order, or why they
    /// cannot all be given (tracking off, trimmed, or a bulk load in the range).
    pub fn changes_between(
        &self,
        after: u64,
        upto: u64,
    ) -> std::result::Result<Vec<Arc<crate::changes::ChangeSet>>, crate::changes::ChangesUnavailable> {
        self.inner.versions.between(after, upto)
    }

    pub(crate) fn inner(&self) -> &Inner {
        &self.inner
    }

    /// A consistent read snapshot: later writes are invisible to it.
    pub fn read(&self) -> ReadTxn {
        // The version is read before the snapshot is taken, so the snapshot holds at least
        // every commit up to it: a projection tagged with it can look stale, never fresh
        // while missing a commit. If no commit was announced meanwhile, it holds exactly those.
        let version = self.version();
        let kv = self.inner.engine.snapshot();
        let exact = self.inner.versions.started.load(std::sync::atomic::Ordering::SeqCst) == version;
        ReadTxn {
            version,
            exact,
            kv,
            cat: self.inner.catalog(),
            g: self.inner.clone(),
        }
    }

    // ---- writes, each its own atomic transaction ----

    /// Inserts or updates one node (labels and properties merged or replaced per `mode`).
    pub fn upsert_node(&self, key: impl Into<NodeKey>, labels: &[&str], props: Props, mode: WriteMode) -> Result<()> {
        let mut tx = self.write()?;
        tx.upsert_node(key, labels, props, mode)?;
        tx.commit()
    }

    /// Upserts many nodes atomically: all or none (errors name the failing item's index).
    pub fn upsert_nodes(&self, nodes: &[NodeInput], mode: WriteMode) -> Result<()> {
        let mut tx = self.write()?;
        tx.upsert_nodes(nodes, mode)?;
        tx.commit()
    }

    /// Deletes a node and every edge touching it. Fails with `NodeNotFound` if absent.
    pub fn delete_node(&self, key: impl Into<NodeKey>) -> Result<()> {
        let mut tx = self.write()?;
        tx.delete_node(key)?;
        tx.commit()
    }

    /// Inserts or updates the edge `src -[ty]-> dst` of a simple (non-multi) type; missing
    /// endpoints are created or rejected per [`crate::MissingEndpoints`].
    pub fn upsert_edge(
        &self,
        src: impl Into<NodeKey>,
        ty: &str,
        dst: impl Into<NodeKey>,
        weight: Option<f64>,
        props: Props,
        mode: WriteMode,
    ) -> Result<()> {
        let mut tx = self.write()?;
        tx.upsert_edge(src, ty, dst, weight, props, mode)?;
        tx.commit()
    }

    /// Upserts many edges atomically (the UnumDB suite's 500-edge batches).
    pub fn upsert_edges(&self, edges: &[EdgeInput], mode: WriteMode) -> Result<()> {
        let mut tx = self.write()?;
        tx.upsert_edges(edges, mode)?;
        tx.commit()
    }

    /// Deletes the edge `src -[ty]-> dst` (every parallel one, for a multi-edge type). Fails
    /// with `EdgeNotFound` if absent.
    pub fn delete_edge(&self, src: impl Into<NodeKey>, ty: &str, dst: impl Into<NodeKey>) -> Result<()> {
        let mut tx = self.write()?;
        tx.delete_edge(src, ty, dst)?;
        tx.commit()
    }

    /// Deletes many edges atomically; every one must exist, else nothing is deleted.
    pub fn delete_edges(&self, edges: &[(NodeKey, String, NodeKey)]) -> Result<()> {
        let mut tx = self.write()?;
        for (i, (s, t, d)) in edges.iter().enumerate() {
            tx.delete_edge(s.clone(), t, d.clone()).map_err(|e| e.at(i))?;
        }
        tx.commit()
    }

    /// Declares an edge type (undirected and/or multi-edge) before its first use.
    pub fn define_edge_type(&self, name: &str, options: EdgeTypeOptions) -> Result<EdgeType> {
        let mut tx = self.write()?;
        let t = tx.define_edge_type(name, options)?;
        tx.commit()?;
        Ok(t)
    }

    // ---- maintenance ----

    /// Verifies the store's invariants (see [`CheckReport`]) on a snapshot.
    pub fn check(&self) -> Result<CheckReport> {
        let snap = self.inner.engine.snapshot();
        let cat = self.inner.catalog();
        let next = meta_u64(&*snap, META_NEXT_NODE)?.unwrap_or(1);
        let next_edge = meta_u64(&*snap, META_NEXT_EDGE)?.unwrap_or(1);
        check(
            &View {
                kv: &*snap,
                cat: &cat,
                ids: None,
                learn: false,
                fresh: None,
            },
            next,
            next_edge,
        )
    }

    /// Node, edge, label and edge-type counts plus storage sizes, for `hopdb stats`.
    pub fn stats(&self) -> Result<Stats> {
        let g = self.view();
        let v = g.v();
        Ok(Stats {
            path: self.inner.path.clone(),
            format_version: meta_u32(&*self.inner.engine, META_FORMAT)?.unwrap_or(FORMAT_VERSION),
            nodes: v.count(COUNT_NODES)?,
            edges: v.count(COUNT_EDGES)?,
            labels: v.labels()?,
            edge_types: v.edge_types()?,
            storage: self.inner.engine.stats(),
        })
    }

    /// The store's memory by part, without reading any data: for diagnostics, the soak's
    /// samples and `/metrics`.
    pub fn memory_usage(&self) -> MemoryUsage {
        let (keys, bytes) = self.inner.ids.stats();
        MemoryUsage {
            storage: self.inner.engine.stats(),
            key_index_keys: keys as u64,
            key_index_bytes: bytes as u64,
        }
    }

    /// Makes everything written so far durable on disk (needed only with `Durability::None`).
    pub fn flush(&self) -> Result<()> {
        self.inner.engine.flush()
    }

    /// Fills the in-memory key index (decision 0014) from one scan of the key family, until
    /// every key is in or the index's budget is spent; returns how many keys it indexed.
    /// Reads by key then skip a RocksDB lookup from their first call. Safe at any time, from
    /// any thread: a key's id never changes.
    pub fn warm_key_index(&self) -> Result<u64> {
        crate::warm::warm_key_index(&self.inner, &std::sync::atomic::AtomicBool::new(false))
    }

    /// Compacts every column family (reclaims space after large deletes).
    pub fn compact(&self) -> Result<()> {
        self.inner.engine.compact()
    }

    /// Writes a consistent copy of the store into the new directory `dir` (an online
    /// RocksDB checkpoint: hard links, so it is fast and readers and writers keep running).
    pub fn checkpoint(&self, dir: impl AsRef<Path>) -> Result<()> {
        self.inner.engine.checkpoint(dir.as_ref())
    }

    /// Copies one consistent snapshot of the store into a new store at `dest` (absent or an
    /// empty directory), record by record through sorted runs (decision 0009): works while
    /// readers and writers run, from a secondary (read-only) open too, and from an in-memory
    /// store (which saves it to disk). The copy appears at `dest` only once complete.
    pub fn backup(&self, dest: impl AsRef<Path>) -> Result<BackupReport> {
        let started = Instant::now();
        let dest = dest.as_ref();
        if !crate::engine::rocks::is_vacant(dest)? {
            return Err(Error::invalid(
                "backup target",
                format!("{} exists and is not empty", dest.display()),
            ));
        }
        let name = dest
            .file_name()
            .ok_or_else(|| Error::invalid("backup target", format!("{} has no directory name", dest.display())))?;
        let parent = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
            _ => PathBuf::from("."),
        };
        let tmp = parent.join(format!(
            ".{}.hopdb-backup-{}",
            name.to_string_lossy(),
            std::process::id()
        ));
        let io = |p: &Path| {
            let p = p.to_owned();
            move |source| Error::io(p, source)
        };
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
        }
        let snap = self.inner.engine.snapshot();
        let mut report = BackupReport::default();
        {
            let cfg = Config::default();
            let (target, _) = RocksEngine::open(&tmp, &cfg)?;
            let scratch = tmp.join("hopdb-backup-runs");
            std::fs::create_dir_all(&scratch).map_err(io(&scratch))?;
            for cf in Cf::ALL {
                let mut run = target.bulk_file(cf, &scratch, cf.name())?;
                let mut failed = None;
                snap.scan(cf, &[], &[], &mut |k, v| match run.put(k, v) {
                    Ok(()) => {
                        report.records += 1;
                        report.bytes += (k.len() + v.len()) as u64;
                        true
                    }
                    Err(e) => {
                        failed = Some(e);
                        false
                    }
                })?;
                if let Some(e) = failed {
                    return Err(e);
                }
                target.ingest(run.finish()?.into_iter().collect())?;
            }
            target.flush()?;
            std::fs::remove_dir_all(&scratch).map_err(io(&scratch))?;
        }
        std::fs::rename(&tmp, dest).map_err(io(dest))?;
        std::fs::File::open(&parent)
            .and_then(|d| d.sync_all())
            .map_err(io(&parent))?;
        report.seconds = started.elapsed().as_secs_f64();
        tracing::info!(dest = %dest.display(), records = report.records, seconds = report.seconds, "backup written");
        Ok(report)
    }

    /// Fault injection for tests: the next `n` commits that have something to write fail with
    /// a storage error, as if the disk had refused the write (a commit with nothing to write
    /// succeeds without using one up). Nothing of a failed commit may become visible.
    #[doc(hidden)]
    pub fn inject_commit_failures(&self, n: u32) {
        self.inner.commit_faults.arm(n);
    }

    pub(crate) fn view(&self) -> ViewGuard<'_> {
        ViewGuard::latest(&self.inner)
    }

    // ---- property indexes and constraints, each its own transaction ----

    /// Creates the index on (`label`, `property`) and fills it from the existing nodes (see
    /// [`WriteTxn::create_index`]). False if it already exists.
    pub fn create_index(&self, label: &str, property: &str) -> Result<bool> {
        let mut tx = self.write()?;
        let made = tx.create_index(label, property)?;
        tx.commit()?;
        Ok(made)
    }

    /// Drops the index on (`label`, `property`) (see [`WriteTxn::drop_index`]). False if
    /// there is none.
    pub fn drop_index(&self, label: &str, property: &str) -> Result<bool> {
        let mut tx = self.write()?;
        let dropped = tx.drop_index(label, property)?;
        tx.commit()?;
        Ok(dropped)
    }

    /// Makes `property` unique among the nodes with `label` (see
    /// [`WriteTxn::create_unique_constraint`]). False if it already is.
    pub fn create_unique_constraint(&self, label: &str, property: &str) -> Result<bool> {
        let mut tx = self.write()?;
        let made = tx.create_unique_constraint(label, property)?;
        tx.commit()?;
        Ok(made)
    }

    /// Drops the uniqueness constraint on (`label`, `property`) (see
    /// [`WriteTxn::drop_unique_constraint`]). False if there is none.
    pub fn drop_unique_constraint(&self, label: &str, property: &str) -> Result<bool> {
        let mut tx = self.write()?;
        let dropped = tx.drop_unique_constraint(label, property)?;
        tx.commit()?;
        Ok(dropped)
    }
}
