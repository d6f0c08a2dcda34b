//! Bulk loading: many nodes and edges added as one atomic unit, at the speed of sorting
//! (decision 0009).
//!
//! New nodes, and edges whose endpoints are both new, skip the write path: the loader numbers
//! the nodes as they arrive, keeps keys in one arena, sorts adjacency entries, and writes each
//! column family's records as one sorted run (an SST file on RocksDB) that is then ingested.
//! Rows that touch nodes the store already had (property merges, edges to old nodes) are
//! replayed through the loader's write transaction after the ingestion, so they get exactly
//! the semantics of ordinary upserts. A checkpoint taken before the first change makes the
//! whole load atomic against crashes: until the load finishes, the next writable open rolls
//! the store back to it. The loader holds the writer lock from start to finish.
//!
//! Property indexes (decision 0017) are maintained, not rebuilt: the entries of new nodes go
//! into one more sorted run, and replayed rows keep them through the write path. Uniqueness
//! constraints are checked as each node row is added, against the store as it was before the
//! load and the rows added before it, so a violating row fails alone (`add_node` returns
//! [`Error::ConstraintViolation`] and keeps nothing of it) and the load can go on.

use crate::catalog::{EdgeType, EdgeTypeOptions};
use crate::config::MissingEndpoints;
use crate::counters::{Deg, DegSet};
use crate::engine::faults::crash_point;
use crate::engine::{BulkFile, BulkPart, Cf, Engine};
use crate::error::{corrupt_rec, Error, Result};
use crate::graph::Graph;
use crate::index::{holders, IndexSpec, Probe};
use crate::key_index::Indexed;
use crate::model::WriteMode;
use crate::records::*;
use crate::state::Inner;
use crate::value::{decode_props, encode_props, put_len_prefixed, validate_props, KeyRef, NodeKey, Props, Reader};
use crate::write::WriteTxn;
use rustc_hash::{FxHashMap, FxHashSet};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::time::Instant;

mod keys;
mod runs;
use keys::KeyArena;
use runs::*;

/// How a bulk load treats what its input does not say.
#[derive(Debug, Clone, Default)]
pub struct BulkOptions {
    /// An edge whose endpoint is neither loaded nor in the store: create a bare node (edge
    /// lists) or fail with [`Error::NodeNotFound`] (imports with node files).
    pub missing_endpoints: MissingEndpoints,
    /// Options of the edge types this load creates, by name; others get `default_type`.
    pub type_options: FxHashMap<String, EdgeTypeOptions>,
    /// Options of every other edge type this load creates (default: directed, simple).
    pub default_type: EdgeTypeOptions,
    /// Bytes of adjacency entries held in memory before a sorted run is spilled to disk
    /// (0: the default, 64 MiB). Bounds an import's memory whatever its size.
    pub memory_budget: usize,
}

const DEFAULT_BUDGET: usize = 64 << 20;
/// Counter sums travel to the degree writer in batches of this many.
const SUM_BATCH: usize = 8192;

/// What a finished load did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BulkSummary {
    /// Nodes the store did not have (including endpoints created for edges).
    pub nodes_created: u64,
    /// Node rows merged into nodes the store already had.
    pub nodes_merged: u64,
    /// Endpoints created because an edge named them and no node row did.
    pub implicit_nodes: u64,
    /// Edge rows added (rows repeating a simple edge are merged into it and counted once).
    pub edges_created: u64,
    /// Edge rows that touched nodes the store already had (applied as upserts).
    pub edges_replayed: u64,
    /// Bytes of sorted runs written and ingested.
    pub run_bytes: u64,
}

const NO_WEIGHT: u64 = u64::MAX; // a NaN pattern; weights are checked finite

/// One adjacency record to write, 16 bytes: sorted by (node, type, neighbour, edge). Nodes
/// are positions in the key arena (`id - base`); `edge` numbers the load's edge rows in order,
/// so among rows repeating a simple edge the later sorts last, and a multi edge's id is
/// `first_eid + edge`. Weights and properties live once per edge, beside.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Adj {
    node: u32,
    /// `type << 1 | 1` for an undirected type, `type << 1` for a directed one.
    kind: u32,
    nbr: u32,
    edge: u32,
}

/// The bulk path numbers nodes and edges of one load with u32 (compact sort entries).
const MAX_PER_LOAD: u64 = u32::MAX as u64;

/// Each new node's labels, in the order its record lists them (the order they were added),
/// as offsets by node and the labels end to end: what its key entry carries (state 2,
/// decision 0037), so a replace upsert after an import need not read the record.
fn labels_by_node(labels: &[(TypeId, u32)], nodes: u32) -> (Vec<u32>, Vec<TypeId>) {
    let mut at = vec![0u32; nodes as usize + 1];
    for &(_, n) in labels {
        at[n as usize + 1] += 1;
    }
    for i in 0..nodes as usize {
        at[i + 1] += at[i];
    }
    let mut next = at.clone();
    let mut ids = vec![0; labels.len()];
    for &(l, n) in labels {
        ids[next[n as usize] as usize] = l;
        next[n as usize] += 1;
    }
    (at, ids)
}

/// A row replayed through the write transaction after ingestion.
enum Replay {
    Node(NodeKey, Vec<String>, Props),
    Edge(NodeKey, EdgeType, NodeKey, Option<f64>, Props),
}

static SCRATCH_SEQ: AtomicU64 = AtomicU64::new(0);
/// A bulk load's scratch directory inside the store: `hopdb-bulk-PID-SEQ`.
const SCRATCH_PREFIX: &str = "hopdb-bulk-";

/// Removes the scratch directories of bulk loads whose process died (killed mid-import):
/// called by the writable open, which holds the store's lock, so no live load owns one.
/// Best effort: what cannot be removed is logged and left.
pub(crate) fn remove_stale_scratch(store: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(store) else { return };
    for e in entries.flatten() {
        if !e.file_name().to_string_lossy().starts_with(SCRATCH_PREFIX) {
            continue;
        }
        match std::fs::remove_dir_all(e.path()) {
            Ok(()) => {
                tracing::info!(dir = %e.path().display(), "removed the scratch space of an interrupted bulk load")
            }
            Err(err) => {
                tracing::warn!(dir = %e.path().display(), %err, "cannot remove the scratch space of an interrupted bulk load")
            }
        }
    }
}

/// Loads many nodes and edges at once. Obtain one with [`Graph::bulk_load`]; add node rows
/// before the edge rows that name them, then call [`BulkLoader::finish`]. Nothing is visible
/// or durable before `finish` returns; dropping the loader discards everything.
///
/// ```
/// use hopdb_core::{BulkOptions, Graph, GraphRead, Props};
/// let g = Graph::in_memory();
/// let mut load = g.bulk_load(BulkOptions::default()).unwrap();
/// load.add_node("ada".into(), &["Person"], Props::new()).unwrap();
/// load.add_edge("ada".into(), "KNOWS", "bob".into(), Some(2.0), Props::new()).unwrap();
/// let summary = load.finish().unwrap();
/// assert_eq!((summary.nodes_created, summary.edges_created), (2, 1));
/// assert!(g.has_edge(&"ada".into(), &"bob".into(), Some("KNOWS"), false).unwrap());
/// ```
pub struct BulkLoader<'g> {
    g: &'g Inner,
    tx: WriteTxn<'g>,
    opts: BulkOptions,
    scratch: Option<PathBuf>,
    /// The store had no keys at all: no lookups needed.
    store_empty: bool,
    base: NodeId,
    keys: KeyArena,
    /// Node records of new nodes, in id order (written as they arrive).
    nodes_run: Option<Box<dyn BulkFile + 'g>>,
    /// Edge id entries of new multi edges, in id order.
    edge_ids_run: Option<Box<dyn BulkFile + 'g>>,
    /// (label, arena position) of the new nodes.
    labels: Vec<(TypeId, u32)>,
    label_counts: FxHashMap<TypeId, i64>,
    /// Adjacency entries of the `out` column family (undirected types included) and of `in`.
    adj_out: Vec<Adj>,
    adj_in: Vec<Adj>,
    /// Per edge row: weight bits and 1 + offset of encoded properties in `props` (0: none).
    /// Both stay empty until some row has one (most bulk loads have neither).
    weights: Vec<u64>,
    props_at: Vec<u64>,
    props: Vec<u8>,
    /// Edge rows on the bulk path, and the edge id of row 0 (multi edges: `first_eid + row`).
    edges: u32,
    first_eid: u64,
    /// Sorted runs of adjacency entries written out when `memory_budget` was reached.
    spilled: Spilled,
    budget: usize,
    /// Keys the store already has, looked up once: live or not.
    existing: FxHashMap<Vec<u8>, bool>,
    /// Keys of node rows replayed (the store had them): a second row is a duplicate.
    replayed_keys: FxHashSet<Vec<u8>>,
    replay: Vec<Replay>,
    types: FxHashMap<String, EdgeType>,
    last_endpoint: [Option<(NodeKey, Option<NodeId>)>; 2],
    /// Reused for encoding endpoint keys.
    enc_buf: Vec<u8>,
    rows: u64,
    summary: BulkSummary,
    /// Property index entries of the new nodes, and their number per index.
    index_entries: Vec<Vec<u8>>,
    index_counts: FxHashMap<u32, i64>,
    /// Values of unique indexes given by this load's rows so far: entry prefix -> (node key,
    /// the whole value for a hashed one).
    unique_seen: FxHashMap<Vec<u8>, Vec<SeenValue>>,
    /// Unique indexes with entries in the store when the load began: only their values need
    /// a look in the store (an initial import into empty indexes needs none).
    unique_in_store: FxHashSet<u32>,
}

/// A unique value a bulk load's row gave: the row's key, and the whole value if hashed.
type SeenValue = (NodeKey, Option<Vec<u8>>);

impl Graph {
    /// Starts a bulk load (see [`BulkLoader`]). It holds the writer lock until finished or
    /// dropped: other writers wait, readers go on.
    pub fn bulk_load(&self, opts: BulkOptions) -> Result<BulkLoader<'_>> {
        let tx = self.write()?;
        BulkLoader::new(self.inner(), tx, opts)
    }
}

impl<'g> BulkLoader<'g> {
    fn new(g: &'g Inner, tx: WriteTxn<'g>, opts: BulkOptions) -> Result<Self> {
        let scratch = match &g.path {
            Some(p) => {
                let dir = p.join(format!(
                    "{SCRATCH_PREFIX}{}-{}",
                    std::process::id(),
                    SCRATCH_SEQ.fetch_add(1, Ordering::Relaxed)
                ));
                std::fs::create_dir_all(&dir).map_err(|source| Error::io(&dir, source))?;
                Some(dir)
            }
            // In-memory stores spill (if ever) to the system's temporary directory.
            None => Some(std::env::temp_dir().join(format!(
                "{SCRATCH_PREFIX}{}-{}",
                std::process::id(),
                SCRATCH_SEQ.fetch_add(1, Ordering::Relaxed)
            ))),
        };
        if let Some(dir) = &scratch {
            std::fs::create_dir_all(dir).map_err(|source| Error::io(dir, source))?;
        }
        let dir = scratch.clone().unwrap_or_default();
        let mut store_empty = true;
        g.engine.scan(Cf::Keys, &[], &[], &mut |_, _| {
            store_empty = false;
            false
        })?;
        let (base, first_eid) = (tx.next_node, tx.next_edge);
        let budget = if opts.memory_budget == 0 {
            DEFAULT_BUDGET
        } else {
            opts.memory_budget
        };
        let engine: &'g dyn Engine = &*g.engine;
        let mut unique_in_store = FxHashSet::default();
        for spec in tx.catalog_now().all_indexes().filter(|s| s.unique) {
            let p = spec.id.to_be_bytes();
            engine.scan(Cf::PropIndex, &p, &p, &mut |_, _| {
                unique_in_store.insert(spec.id);
                false
            })?;
        }
        Ok(BulkLoader {
            g,
            opts,
            store_empty,
            base,
            keys: KeyArena::default(),
            nodes_run: Some(engine.bulk_file(Cf::Nodes, &dir, "nodes")?),
            edge_ids_run: Some(engine.bulk_file(Cf::EdgeIds, &dir, "edge_ids")?),
            scratch,
            tx,
            labels: Vec::new(),
            label_counts: FxHashMap::default(),
            adj_out: Vec::new(),
            adj_in: Vec::new(),
            props: Vec::new(),
            existing: FxHashMap::default(),
            replayed_keys: FxHashSet::default(),
            replay: Vec::new(),
            weights: Vec::new(),
            props_at: Vec::new(),
            edges: 0,
            first_eid,
            spilled: Spilled::default(),
            budget,
            types: FxHashMap::default(),
            last_endpoint: [None, None],
            enc_buf: Vec::new(),
            rows: 0,
            summary: BulkSummary::default(),
            index_entries: Vec::new(),
            index_counts: FxHashMap::default(),
            unique_seen: FxHashMap::default(),
            unique_in_store,
        })
    }

    fn run<'a>(run: &'a mut Option<Box<dyn BulkFile + 'g>>) -> Result<&'a mut Box<dyn BulkFile + 'g>> {
        run.as_mut()
            .ok_or_else(|| Error::invalid("bulk load", "rows added after finish"))
    }

    /// Whether the store has `enc` (looked up once per key): Some(live) or None.
    fn stored(&mut self, enc: &[u8]) -> Result<Option<bool>> {
        if self.store_empty {
            return Ok(None);
        }
        if let Some(&live) = self.existing.get(enc) {
            return Ok(Some(live));
        }
        match self.g.engine.get(Cf::Keys, enc)? {
            None => Ok(None),
            Some(v) => {
                let (_, live) = parse_key_value(&v).ok_or_else(|| corrupt_rec("key entry"))?;
                self.existing.insert(enc.to_vec(), live);
                Ok(Some(live))
            }
        }
    }

    /// A hint from a reader that knows the endpoints of edge rows ahead (columns do): loads
    /// what resolving `key` will read, so that the row's lookup finds it in cache. Call it
    /// twice per key: first with `near` false some 16 rows ahead, then with `near` true some
    /// 8 rows ahead (the second step reads what the first loaded). Only speed depends on it.
    pub fn prefetch_endpoint(&self, key: KeyRef<'_>, near: bool) {
        if near {
            self.keys.prefetch_entry(key);
        } else {
            self.keys.prefetch_slot(key);
        }
    }

    /// Adds a node. A key added twice to one load is [`Error::DuplicateNode`] (and nothing
    /// of the second row is kept); a key the store already has is merged into it (labels
    /// added, properties overwritten by name), as [`WriteMode::Merge`] upserts do.
    pub fn add_node(&mut self, key: NodeKey, labels: &[&str], props: Props) -> Result<()> {
        key.validate()?;
        validate_props(&props)?;
        let mut label_ids = Vec::with_capacity(labels.len());
        for l in labels {
            let id = self.tx.label_id(l)?;
            if !label_ids.contains(&id) {
                label_ids.push(id);
            }
        }
        let enc = key.encode();
        if self.keys.find(&enc).is_some() || self.replayed_keys.contains(&enc) {
            return Err(Error::DuplicateNode { key: key.to_string() });
        }
        let indexed = self.tx.catalog_now().has_indexes();
        if self.stored(&enc)?.is_some() {
            if indexed {
                self.check_replayed_row(&key, &enc, &label_ids, &props)?;
            }
            self.replayed_keys.insert(enc);
            self.summary.nodes_merged += 1;
            let labels = labels.iter().map(|l| l.to_string()).collect();
            self.replay.push(Replay::Node(key, labels, props));
            self.rows += 1;
            return Ok(());
        }
        let probes = if indexed {
            let probes = self.probes(&label_ids, &props);
            self.check_unique(&key, None, &probes)?;
            probes
        } else {
            Vec::new()
        };
        let id = self.create(key.clone(), &enc, label_ids, props)?;
        for (spec, probe) in &probes {
            self.index_entries
                .push(crate::index::entry_key(spec.id, &probe.part, id));
            *self.index_counts.entry(spec.id).or_default() += 1;
        }
        self.remember_unique(&key, &probes);
        self.rows += 1;
        Ok(())
    }

    /// The index entries (index, value) a node with these labels and properties has.
    fn probes(&self, labels: &[TypeId], props: &Props) -> Vec<(IndexSpec, Probe)> {
        let cat = self.tx.catalog_now();
        let mut out = Vec::new();
        for &l in labels {
            for spec in cat.indexes_on(l) {
                if let Some(p) = props.get(&*spec.property).and_then(Probe::of) {
                    out.push((spec.clone(), p));
                }
            }
        }
        out
    }

    /// Fails if a value of a unique index among `probes` is held by a node of the store
    /// (other than `own`) or given by an earlier row of this load.
    fn check_unique(&self, key: &NodeKey, own: Option<NodeId>, probes: &[(IndexSpec, Probe)]) -> Result<()> {
        for (spec, probe) in probes.iter().filter(|(s, _)| s.unique) {
            let violation = |existing: String| {
                let cat = self.tx.catalog_now();
                Error::ConstraintViolation {
                    label: cat.label_name(spec.label).map_or_else(String::new, |n| n.to_string()),
                    property: spec.property.to_string(),
                    value: Box::new(probe_value(probe, spec)),
                    node: key.to_string(),
                    existing,
                }
            };
            let prefix = crate::index::entry_prefix(spec.id, &probe.part);
            if let Some((other, _)) = self
                .unique_seen
                .get(&prefix)
                .and_then(|seen| seen.iter().find(|(k, canon)| k != key && *canon == probe.canon))
            {
                return Err(violation(other.to_string()));
            }
            if !self.unique_in_store.contains(&spec.id) {
                continue;
            }
            let engine: &dyn crate::engine::KvRead = &*self.g.engine;
            if let Some(other) = holders(engine, spec, probe, 2)?.into_iter().find(|&n| Some(n) != own) {
                let existing = match engine.get(Cf::Nodes, &id_bytes(other))? {
                    Some(v) => NodeRec::decode_key(&v)?.to_string(),
                    None => format!("with id {other}"),
                };
                return Err(violation(existing));
            }
        }
        Ok(())
    }

    /// Notes the unique values a row gave, for the rows after it.
    fn remember_unique(&mut self, key: &NodeKey, probes: &[(IndexSpec, Probe)]) {
        for (spec, probe) in probes.iter().filter(|(s, _)| s.unique) {
            self.unique_seen
                .entry(crate::index::entry_prefix(spec.id, &probe.part))
                .or_default()
                .push((key.clone(), probe.canon.clone()));
        }
    }

    /// Checks a row merged into a node the store has against the uniqueness constraints,
    /// as the node will be after the merge (its labels and properties plus the row's).
    fn check_replayed_row(&mut self, key: &NodeKey, enc: &[u8], labels: &[TypeId], props: &Props) -> Result<()> {
        let engine: &dyn crate::engine::KvRead = &*self.g.engine;
        let own = match engine.get(Cf::Keys, enc)? {
            Some(v) => Some(parse_key_value(&v).ok_or_else(|| corrupt_rec("key entry"))?.0),
            None => None,
        };
        let old = match own {
            Some(id) => engine
                .get(Cf::Nodes, &id_bytes(id))?
                .map(|v| NodeRec::decode(&v))
                .transpose()?,
            None => None,
        };
        let (mut all_labels, mut all_props) = old.map(|r| (r.labels, r.props)).unwrap_or_default();
        all_labels.extend(labels.iter().filter(|l| !all_labels.contains(l)).collect::<Vec<_>>());
        all_props.extend(props.iter().map(|(k, v)| (k.clone(), v.clone())));
        let probes = self.probes(&all_labels, &all_props);
        self.check_unique(key, own, &probes)?;
        self.remember_unique(key, &probes);
        Ok(())
    }

    fn create(&mut self, key: NodeKey, enc: &[u8], labels: Vec<TypeId>, props: Props) -> Result<NodeId> {
        if u64::from(self.keys.len()) >= MAX_PER_LOAD {
            return Err(Error::invalid(
                "bulk load",
                format!("more than {MAX_PER_LOAD} new nodes in one load"),
            ));
        }
        let id = self.base + u64::from(self.keys.push(enc));
        for &l in &labels {
            self.labels.push((l, (id - self.base) as u32));
            *self.label_counts.entry(l).or_default() += 1;
        }
        let rec = NodeRec { key, labels, props }.encode()?;
        Self::run(&mut self.nodes_run)?.put(&id_bytes(id), &rec)?;
        self.summary.nodes_created += 1;
        Ok(id)
    }

    /// [`Self::endpoint`] with a one-entry cache per side: edge files are often sorted by one
    /// endpoint, so the same key repeats on consecutive rows.
    fn cached_endpoint(&mut self, key: &NodeKey, side: usize) -> Result<Option<NodeId>> {
        if let Some((k, id)) = &self.last_endpoint[side] {
            if k == key {
                return Ok(*id);
            }
        }
        let mut enc = std::mem::take(&mut self.enc_buf);
        enc.clear();
        key.encode_into(&mut enc);
        let id = self.endpoint(key, &enc);
        self.enc_buf = enc;
        let id = id?;
        self.last_endpoint[side] = Some((key.clone(), id));
        Ok(id)
    }

    /// The id of an endpoint if it is new in this load; `Ok(None)` if the store has it live.
    fn endpoint(&mut self, key: &NodeKey, enc: &[u8]) -> Result<Option<NodeId>> {
        if let Some(i) = self.keys.find(enc) {
            return Ok(Some(self.base + u64::from(i)));
        }
        match self.stored(enc)? {
            Some(true) => Ok(None),
            _ if self.opts.missing_endpoints == MissingEndpoints::Reject => {
                Err(Error::NodeNotFound { key: key.to_string() })
            }
            // A key the store once had (deleted) is revived by the replay, with its old id.
            Some(false) => Ok(None),
            None => {
                self.summary.implicit_nodes += 1;
                self.create(key.clone(), enc, Vec::new(), Props::new()).map(Some)
            }
        }
    }

    /// Adds an edge: a new parallel edge for a multi-edge type, otherwise an upsert (rows
    /// repeating `src -[ty]-> dst` merge into one edge, later properties winning).
    pub fn add_edge(&mut self, src: NodeKey, ty: &str, dst: NodeKey, weight: Option<f64>, props: Props) -> Result<()> {
        src.validate()?;
        dst.validate()?;
        validate_props(&props)?;
        if let Some(w) = weight {
            if !w.is_finite() {
                return Err(Error::invalid("edge weight", format!("{w} is not a finite number")));
            }
        }
        let t = self.typed(ty)?;
        let s = self.cached_endpoint(&src, 0)?;
        let d = self.cached_endpoint(&dst, 1)?;
        let (Some(s), Some(d)) = (s, d) else {
            self.summary.edges_replayed += 1;
            self.replay.push(Replay::Edge(src, t, dst, weight, props));
            self.rows += 1;
            return Ok(());
        };
        if u64::from(self.edges) >= MAX_PER_LOAD {
            return Err(Error::invalid(
                "bulk load",
                format!("more than {MAX_PER_LOAD} edges in one load"),
            ));
        }
        let edge = self.edges;
        self.edges += 1;
        if t.options.multi {
            let eid = self.first_eid + u64::from(edge);
            Self::run(&mut self.edge_ids_run)?.put(&id_bytes(eid), &edge_id_value(s, t.id, d))?;
        }
        if let Some(w) = weight {
            self.weights.resize(edge as usize, NO_WEIGHT);
            self.weights.push(w.to_bits());
        }
        if !props.is_empty() {
            self.props_at.resize(edge as usize, 0);
            self.props_at.push(self.props.len() as u64 + 1);
            encode_props(&mut self.props, &props)?;
        }
        let (s, d) = ((s - self.base) as u32, (d - self.base) as u32);
        let kind = t.id << 1 | u32::from(t.options.undirected);
        self.adj_out.push(Adj {
            node: s,
            kind,
            nbr: d,
            edge,
        });
        if !(t.options.undirected && s == d) {
            let back = Adj {
                node: d,
                kind,
                nbr: s,
                edge,
            };
            if t.options.undirected {
                self.adj_out.push(back);
            } else {
                self.adj_in.push(back);
            }
        }
        self.rows += 1;
        if (self.adj_out.len() + self.adj_in.len()) * std::mem::size_of::<Adj>() >= self.budget {
            self.spill()?;
        }
        Ok(())
    }

    /// Sorts the adjacency entries held in memory and writes them out as one run per
    /// direction, so memory stays within the budget whatever the size of the load.
    fn spill(&mut self) -> Result<()> {
        let dir = self.scratch.clone().unwrap_or_default();
        let nodes = self.keys.len();
        let n = self.spilled.out.len();
        for (adj, runs, name) in [
            (&mut self.adj_out, &mut self.spilled.out, "out"),
            (&mut self.adj_in, &mut self.spilled.inn, "in"),
        ] {
            Source::sort(adj, nodes);
            let path = dir.join(format!("adj-{name}-{n}.run"));
            write_run(&path, adj)?;
            runs.push(path);
            adj.clear();
        }
        tracing::debug!(runs = n + 1, "bulk load: adjacency spilled to disk");
        Ok(())
    }

    /// The edge type named `ty`; a new one gets this load's options for it.
    fn typed(&mut self, ty: &str) -> Result<EdgeType> {
        if let Some(t) = self.types.get(ty) {
            return Ok(t.clone());
        }
        let declare = match self.opts.type_options.get(ty) {
            Some(o) => Some(*o),
            None if self.tx.type_named(ty).is_some() => None,
            None => Some(self.opts.default_type),
        };
        let t = self.tx.edge_type(ty, declare)?;
        self.types.insert(ty.to_string(), t.clone());
        Ok(t)
    }

    /// Node rows and edge rows accepted so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Writes, ingests and commits everything added, atomically.
    pub fn finish(mut self) -> Result<BulkSummary> {
        let started = Instant::now();
        let dir = self.scratch.clone().unwrap_or_default();
        let engine: &'g dyn Engine = &*self.g.engine;
        let mut parts = Vec::new();
        for run in [self.nodes_run.take(), self.edge_ids_run.take()].into_iter().flatten() {
            parts.extend(run.finish()?);
        }

        // Keys, labels and the adjacency of each direction are independent sorted runs:
        // built on parallel threads (sorting and compression dominate).
        let mut keys_run = engine.bulk_file(Cf::Keys, &dir, "keys")?;
        let mut labels_run = engine.bulk_file(Cf::Labels, &dir, "labels")?;
        let mut out_run = engine.bulk_file(Cf::Out, &dir, "out")?;
        let mut in_run = engine.bulk_file(Cf::In, &dir, "in")?;
        let mut labels = std::mem::take(&mut self.labels);
        let nodes = self.keys.len();
        let (label_at, label_ids) = labels_by_node(&labels, nodes);
        let (mut adj_out, mut adj_in) = (std::mem::take(&mut self.adj_out), std::mem::take(&mut self.adj_in));
        let src = Source {
            keys: &self.keys,
            weights: &self.weights,
            props_at: &self.props_at,
            props: &self.props,
            base: self.base,
            first_eid: self.first_eid,
            cat: self.tx.catalog_now(),
            label_at: &label_at,
            label_ids: &label_ids,
        };
        let spilled = std::mem::take(&mut self.spilled);
        let (out_tx, out_rx) = sync_channel(4);
        let (in_tx, in_rx) = sync_channel(4);
        let mut deg_run = engine.bulk_file(Cf::Deg, &dir, "deg")?;
        // Two threads write the `out` and `in` runs (then keys and labels); this one writes the
        // counters from the sums they stream.
        let mut index_entries = std::mem::take(&mut self.index_entries);
        let mut index_run = match index_entries.is_empty() {
            true => None,
            false => Some(engine.bulk_file(Cf::PropIndex, &dir, "prop_index")?),
        };
        let (out_side, in_side, index_side, degrees) = std::thread::scope(|sc| {
            let src = &src;
            let spilled = &spilled;
            // Property index entries (decision 0017): their own sorted run, beside the others.
            let index = sc.spawn(move || -> Result<Vec<BulkPart>> {
                let Some(mut run) = index_run.take() else {
                    return Ok(Vec::new());
                };
                index_entries.sort_unstable();
                for e in &index_entries {
                    run.put(e, &[])?;
                }
                Ok(run.finish()?.into_iter().collect())
            });
            let other = sc.spawn(move || -> Result<Vec<BulkPart>> {
                let mut parts = Vec::new();
                direction(src, &spilled.inn, &mut adj_in, nodes, &mut *in_run, Lane::In, in_tx)?;
                parts.extend(in_run.finish()?);
                labels.sort_unstable();
                for &(l, n) in &labels {
                    labels_run.put(&label_key(l, src.base + u64::from(n)), &[])?;
                }
                parts.extend(labels_run.finish()?);
                Ok(parts)
            });
            let mine = sc.spawn(move || -> Result<Vec<BulkPart>> {
                let mut parts = Vec::new();
                direction(src, &spilled.out, &mut adj_out, nodes, &mut *out_run, Lane::Out, out_tx)?;
                parts.extend(out_run.finish()?);
                src.keys_run(&mut *keys_run)?;
                parts.extend(keys_run.finish()?);
                Ok(parts)
            });
            let degrees = write_degrees(out_rx, in_rx, src, &mut *deg_run);
            let join = |h: std::thread::ScopedJoinHandle<'_, Result<Vec<BulkPart>>>| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::invalid("bulk load", "a run-writing thread panicked")))
            };
            (join(mine), join(other), join(index), degrees)
        });
        parts.extend(out_side?);
        parts.extend(in_side?);
        parts.extend(index_side?);
        let edges = degrees?;
        parts.extend(deg_run.finish()?);
        for f in spilled.out.iter().chain(&spilled.inn) {
            let _ = std::fs::remove_file(f);
        }
        tracing::info!(
            ms = started.elapsed().as_millis() as u64,
            "bulk load: sorted runs written"
        );
        self.summary.run_bytes = parts
            .iter()
            .map(|p| match p {
                BulkPart::Sst { path, .. } => std::fs::metadata(path).map_or(0, |m| m.len()),
                BulkPart::Ops(_) => 0,
            })
            .sum();

        // Counters, the catalog and the id counters commit first, then the runs are ingested,
        // then the rows touching older nodes are replayed: all inside the rollback window.
        let new_nodes = u64::from(self.keys.len());
        self.tx.next_node = self.base + new_nodes;
        // Edge ids of the rows on the bulk path (used by the multi edges among them).
        self.tx.next_edge = self.first_eid + u64::from(self.edges);
        self.tx.count(COUNT_NODES, new_nodes as i64);
        for (&l, &c) in &self.label_counts {
            self.tx.count(&count_label_key(l), c);
        }
        self.tx.count(COUNT_EDGES, edges.iter().map(|(_, c)| c).sum());
        for &(t, c) in &edges {
            self.tx.count(&count_type_key(t), c);
        }
        for (&i, &c) in &self.index_counts {
            self.tx.count(&count_index_key(i), c);
        }
        self.summary.edges_created = edges.iter().map(|(_, c)| *c as u64).sum();
        engine.begin_bulk()?;
        crash_point("after-checkpoint");
        let committed = self.commit_all(engine, parts);
        if let Err(e) = committed {
            self.g.fail_after_bulk();
            // A full disk keeps its own error: it says what to do (free space, reopen).
            return Err(match e {
                Error::NoSpace { .. } => e,
                e => Error::BulkInterrupted { reason: e.to_string() },
            });
        }
        self.index_new_keys();
        tracing::info!(
            nodes = self.summary.nodes_created,
            edges = self.summary.edges_created,
            ms = started.elapsed().as_millis() as u64,
            "bulk load committed"
        );
        Ok(self.summary.clone())
    }

    /// Puts the new keys, already in memory, into the store's key index (committed mappings
    /// never change: decision 0002), until it is full, so the reads after an import do not
    /// each start with a read of the key family.
    fn index_new_keys(&self) {
        for i in 0..self.keys.len() {
            if let Indexed::Full = self
                .g
                .ids
                .insert_encoded(self.keys.key(i), self.base + u64::from(i), false)
            {
                break;
            }
        }
    }

    fn commit_all(&mut self, engine: &dyn Engine, mut parts: Vec<BulkPart>) -> Result<()> {
        self.tx.commit_keeping_lock()?;
        crash_point("after-header-commit");
        let rest = parts.split_off(parts.len().min(1));
        // Ingested runs are not recorded change by change: the change log marks the version
        // unrecorded, and derived data rebuilds.
        self.g.versions.begin();
        let ingested = engine.ingest(parts).and_then(|()| {
            crash_point("mid-ingest");
            engine.ingest(rest)
        });
        self.g.versions.end(None);
        ingested?;
        crash_point("after-ingest");
        const REPLAY_CHUNK: usize = 50_000;
        for (i, r) in std::mem::take(&mut self.replay).into_iter().enumerate() {
            match r {
                Replay::Node(key, labels, props) => {
                    let l: Vec<&str> = labels.iter().map(String::as_str).collect();
                    self.tx.upsert_node(key, &l, props, WriteMode::Merge)?;
                }
                Replay::Edge(s, t, d, w, p) if t.options.multi => {
                    self.tx.add_edge(s, &t.name, d, w, p)?;
                }
                Replay::Edge(s, t, d, w, p) => self.tx.upsert_edge(s, &t.name, d, w, p, WriteMode::Merge)?,
            }
            if (i + 1) % REPLAY_CHUNK == 0 {
                self.tx.commit_keeping_lock()?;
            }
        }
        self.tx.commit_keeping_lock()?;
        crash_point("after-replay");
        engine.end_bulk()
    }
}

/// The value behind a probe, for messages: the value of a short one decoded from its
/// canonical encoding, or a note for a hashed one.
fn probe_value(probe: &Probe, spec: &IndexSpec) -> crate::value::Value {
    let bytes = probe.canon.as_deref().unwrap_or(&probe.part);
    // A canonical encoding is a value encoding, so it decodes as a one-entry property map.
    let mut one = vec![1u8];
    put_len_prefixed(&mut one, spec.property.as_bytes());
    one.extend_from_slice(bytes);
    decode_props(&mut Reader::new(&one))
        .ok()
        .and_then(|mut p| p.remove(&*spec.property))
        .unwrap_or(crate::value::Value::Null)
}

impl Drop for BulkLoader<'_> {
    fn drop(&mut self) {
        if let Some(dir) = &self.scratch {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::graph_read::GraphRead;

    #[test]
    fn a_bulk_load_indexes_its_new_keys() {
        let g = Graph::in_memory();
        g.upsert_node("old", &[], Props::new(), WriteMode::Merge).unwrap();
        let mut b = g.bulk_load(BulkOptions::default()).unwrap();
        for i in 0..1000i64 {
            b.add_node(NodeKey::Int(i), &["N"], Props::new()).unwrap();
        }
        b.add_edge(NodeKey::Int(0), "R", NodeKey::from("old"), None, Props::new())
            .unwrap();
        b.finish().unwrap();
        let ids = &g.inner().ids;
        // The loader's keys are indexed with the ids the store gave them (consecutive, in
        // arrival order), and reads through the index find what was loaded.
        let first = ids.get(&NodeKey::Int(0)).unwrap();
        for i in 0..1000i64 {
            assert_eq!(ids.get(&NodeKey::Int(i)), Some(first + i as u64), "key {i}");
        }
        assert!(g.edge(&NodeKey::Int(0), "R", &NodeKey::from("old")).unwrap().is_some());
        assert_eq!(g.node_count().unwrap(), 1001);
    }

    /// New nodes' key entries carry their labels in the record's order (state 2), so a
    /// replace after the import knows them without reading the record; `check` agrees.
    #[test]
    fn a_bulk_load_writes_labelled_key_entries() {
        let dir = tempfile::tempdir().unwrap();
        let g = Graph::open(dir.path()).unwrap();
        let mut b = g.bulk_load(BulkOptions::default()).unwrap();
        let labels: [&[&str]; 4] = [&["A", "B"], &[], &["B", "A", "C"], &["C"]];
        for i in 0..400i64 {
            b.add_node(NodeKey::Int(i), labels[i as usize % 4], Props::new())
                .unwrap();
        }
        // An endpoint no node row names: created without labels.
        b.add_edge(NodeKey::Int(0), "R", NodeKey::from("implicit"), None, Props::new())
            .unwrap();
        b.finish().unwrap();
        let inner = g.inner();
        let cat = inner.catalog();
        for i in 0..400i64 {
            let want: Vec<TypeId> = labels[i as usize % 4]
                .iter()
                .map(|l| cat.label_id(l).unwrap())
                .collect();
            let v = inner.engine.get(Cf::Keys, &NodeKey::Int(i).encode()).unwrap().unwrap();
            assert_eq!(v[8], 2, "key {i}: state");
            assert_eq!(key_labels(&v), Some(want), "key {i}");
        }
        let v = inner
            .engine
            .get(Cf::Keys, &NodeKey::from("implicit").encode())
            .unwrap()
            .unwrap();
        assert_eq!((v[8], key_labels(&v)), (2, Some(Vec::new())));
        let report = g.check().unwrap();
        assert!(report.problems.is_empty(), "{:?}", report.problems);
        assert_eq!(report.nodes, 401);
    }

    proptest::proptest! {
        /// The loader's radix sort agrees with a comparison sort, for node counts from one
        /// bucket to many and for entries both dense and sparse over the nodes.
        #[test]
        fn the_adjacency_sort_agrees_with_sort_unstable(
            nodes in 1u32..20_000,
            raw in proptest::collection::vec((0u32..u32::MAX, 0u32..4, 0u32..50, 0u32..1000), 0..30_000),
        ) {
            let mut adj: Vec<Adj> = raw
                .into_iter()
                .map(|(n, kind, nbr, edge)| Adj { node: n % nodes, kind, nbr, edge })
                .collect();
            let mut want = adj.clone();
            want.sort_unstable();
            runs::Source::sort(&mut adj, nodes);
            proptest::prop_assert!(adj == want);
        }
    }
}
