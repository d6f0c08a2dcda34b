//! The CSR projection of one store snapshot (decision 0010): nodes numbered densely in id
//! order, edges in both directions plus a symmetric view, weights when asked for, and the
//! store version it was built at so nobody uses it once the store has moved on.

use std::hash::BuildHasher;
use std::sync::Arc;
use std::time::Instant;

use hopdb_algo::{Control, Csr};
use hopdb_core::{Direction, NodeId, NodeKey, ReadTxn, TypeFilter};

use crate::error::{AnalyticsError, Result};

/// What to project.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ProjectionSpec {
    /// Edge types to keep (`None`: all).
    pub types: Option<Vec<String>>,
    /// Keep edge weights (an edge without one counts 1.0, as in the degree counters).
    pub weighted: bool,
}

impl ProjectionSpec {
    /// Every edge type, no weights (what whole-graph algorithms project by default).
    pub fn all() -> ProjectionSpec {
        ProjectionSpec::default()
    }
    /// Every edge type, with weights.
    pub fn weighted() -> ProjectionSpec {
        ProjectionSpec {
            types: None,
            weighted: true,
        }
    }
}

/// How a projection was built.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildInfo {
    /// Wall time of the build.
    pub seconds: f64,
    /// Heap bytes held (CSR arrays, keys, id maps).
    pub bytes: usize,
    /// Live nodes in the snapshot.
    pub nodes: u32,
    /// Edges as stored (an undirected edge counts once).
    pub edges: u64,
    /// The store version of the snapshot it was built from.
    pub version: u64,
    /// Built from a snapshot holding exactly the commits up to `version` (so the change log
    /// can bring it forward: see the overlay).
    pub exact: bool,
}

/// A read-only CSR image of a snapshot. Cheap to share (`Arc`) between queries and threads.
pub struct GraphProjection {
    spec: ProjectionSpec,
    info: BuildInfo,
    /// dense index -> node id / key.
    ids: Vec<NodeId>,
    keys: Vec<NodeKey>,
    /// dense index -> its labels as a mask (bit `l`: catalog label id `l`), so a query's label
    /// checks on a fresh projection read no node record; `None` when a label id is 64 or more.
    labels: Option<Vec<u64>>,
    /// node id -> dense index (`u32::MAX`: not a live node when built).
    dense: Vec<u32>,
    /// Edge `i` of the snapshot (in scan order) has id `i` in every view.
    pub(crate) out: Csr,
    pub(crate) inc: Csr,
    /// Both directions in one view (each edge in both rows, one id).
    pub(crate) both: Csr,
    /// Every row of `out` lists its targets in ascending order (one edge type, no undirected
    /// reverse copies), so an edge test binary-searches the row.
    out_sorted: bool,
    /// Edge id -> its type's catalog id, so typed point queries can run on a projection
    /// of every type (4 bytes an edge).
    edge_types: Vec<u32>,
    /// Each node's position in key order (LightRAG's tie-break), computed on first use.
    key_rank: std::sync::OnceLock<Vec<u32>>,
    /// key -> dense index, so a query on a fresh projection resolves its start node without
    /// a store read (a RocksDB block lookup costs more than the whole walk of a LIMIT query).
    key_index: hashbrown::HashTable<u32>,
    hasher: rustc_hash::FxBuildHasher,
}

const ABSENT: u32 = u32::MAX;
/// What a key costs in the projection besides a string key's bytes.
const KEY_BYTES: usize = std::mem::size_of::<NodeKey>();

impl GraphProjection {
    /// Builds from a snapshot: one scan of the node records (keys and labels) and one of the
    /// outgoing adjacency (properties never decoded; weights only when asked for).
    pub fn build(txn: &ReadTxn, spec: &ProjectionSpec, ctrl: &Control) -> Result<GraphProjection> {
        let started = Instant::now();
        let mut ids = Vec::new();
        let mut keys = Vec::new();
        let mut labels = Some(Vec::new());
        let mut dense: Vec<u32> = Vec::new();
        let mut stop = None;
        // Heap bytes of the string keys held so far (the memory bound counts them).
        let mut key_heap = 0usize;
        txn.scan_node_keys_labels(&mut |id, (key, mask)| {
            if ids.len().is_multiple_of(65_536) {
                let held = ids.capacity() * 16 + keys.capacity() * KEY_BYTES + key_heap + dense.capacity() * 4;
                if let Err(e) = ctrl.check().and_then(|()| ctrl.check_memory(held)) {
                    stop = Some(e);
                    return false;
                }
            }
            if let NodeKey::Str(s) = &key {
                key_heap += s.len();
            }
            let Ok(at) = usize::try_from(id) else { return true };
            if dense.len() <= at {
                dense.resize(at + 1, ABSENT);
            }
            dense[at] = ids.len() as u32;
            ids.push(id);
            keys.push(key);
            match (&mut labels, mask) {
                (Some(l), Some(m)) => l.push(m),
                _ => labels = None,
            }
            true
        })?;
        if let Some(e) = stop {
            return Err(e.into());
        }
        if ids.len() >= ABSENT as usize {
            return Err(AnalyticsError::TooLarge(format!(
                "{} nodes; projections hold at most {}",
                ids.len(),
                ABSENT - 1
            )));
        }
        let filter = txn.type_filter(
            spec.types
                .as_ref()
                .map(|t| t.iter().map(String::as_str).collect::<Vec<_>>())
                .as_deref(),
        );
        let undirected: Vec<bool> = {
            let types = txn.edge_type_ids();
            let max = types.iter().map(|t| t.0 as usize + 1).max().unwrap_or(0);
            let mut u = vec![false; max];
            for (id, _, und) in types {
                u[id as usize] = und;
            }
            u
        };
        let keep = |ty: u32| match &filter {
            TypeFilter::All => true,
            TypeFilter::Only(list) => list.contains(&ty),
        };
        let index = |id: NodeId| dense.get(id as usize).copied().filter(|&d| d != ABSENT);
        // Each stored edge once (id = position), and which of them are undirected.
        let mut edges: Vec<(u32, u32)> = Vec::new();
        let mut edge_types: Vec<u32> = Vec::new();
        let mut weights: Vec<f64> = Vec::new();
        let mut undirected_at: Vec<usize> = Vec::new();
        let mut fail = None;
        let nodes_held = ids.len() * 16 + keys.len() * KEY_BYTES + key_heap + dense.len() * 4;
        txn.scan_out_edges(&mut |a| {
            if edges.len().is_multiple_of(65_536) {
                let held = nodes_held
                    + edges.capacity() * 8
                    + edge_types.capacity() * 4
                    + weights.capacity() * 8
                    + undirected_at.capacity() * 8;
                if let Err(e) = ctrl.check().and_then(|()| ctrl.check_memory(held)) {
                    fail = Some(AnalyticsError::from(e));
                    return false;
                }
            }
            // An undirected edge is stored from both ends; take it once, from its lower end.
            let und = undirected.get(a.ty as usize).copied().unwrap_or(false);
            if !keep(a.ty) || (und && a.node > a.nbr) {
                return true;
            }
            let (Some(s), Some(d)) = (index(a.node), index(a.nbr)) else {
                fail = Some(AnalyticsError::Store(hopdb_core::Error::Corruption {
                    path: Default::default(),
                    detail: format!("edge {} -> {} names a node that does not exist", a.node, a.nbr),
                }));
                return false;
            };
            if spec.weighted {
                match a.weight() {
                    Ok(w) => weights.push(w.unwrap_or(1.0)),
                    Err(e) => {
                        fail = Some(e.into());
                        return false;
                    }
                }
            }
            if und && s != d {
                undirected_at.push(edges.len());
            }
            edges.push((s, d));
            edge_types.push(a.ty);
            true
        })?;
        if let Some(e) = fail {
            return Err(e);
        }
        ctrl.check()?;
        let n = ids.len() as u32;
        let stored = edges.len() as u64;
        // Grown by doubling while scanning: up to half of each would be slack for as long as
        // the projection lives.
        ids.shrink_to_fit();
        keys.shrink_to_fit();
        dense.shrink_to_fit();
        edge_types.shrink_to_fit();
        if let Some(l) = labels.as_mut() {
            l.shrink_to_fit();
        }
        // Refuse before allocating the views: the scan's vectors plus the three adjacency
        // views (each entry a 4-byte target, a 4-byte edge id and maybe an 8-byte weight;
        // `both` holds every edge twice, `out` and `inc` the undirected ones twice).
        let entry = 8 + if spec.weighted { 8 } else { 0 };
        let views = (2 * edges.len() + 2 * (edges.len() + undirected_at.len())) * entry + 3 * (ids.len() + 1) * 8;
        let scanned = nodes_held + edges.len() * 8 + edge_types.len() * 4 + weights.len() * 8 + edges.len() * 4;
        ctrl.check_memory(scanned + views)?;
        let Ok(stored_ids) = u32::try_from(stored) else {
            return Err(AnalyticsError::TooLarge(format!(
                "{stored} edges; projections hold at most {}",
                u32::MAX
            )));
        };
        let mut edge_ids: Vec<u32> = (0..stored_ids).collect();
        let w = spec.weighted.then_some(weights.as_slice());
        // The symmetric view: every edge in both rows, one id.
        let both = Csr::from_edges_with_ids(n, &edges, w, &edge_ids)?.undirected();
        // The directed views: an undirected edge can be walked both ways, so `out` (and
        // `inc`) hold its reverse copy too, under the same id.
        for &i in &undirected_at {
            let (s, d) = edges[i];
            edges.push((d, s));
            edge_ids.push(i as u32);
            if spec.weighted {
                weights.push(weights[i]);
            }
        }
        let w = spec.weighted.then_some(weights.as_slice());
        let out = Csr::from_edges_with_ids(n, &edges, w, &edge_ids)?;
        let out_sorted = (0..n).all(|u| out.neighbors(u).is_sorted());
        drop((edges, edge_ids, weights));
        let inc = out.transpose();
        let mut p = GraphProjection {
            spec: spec.clone(),
            info: BuildInfo {
                seconds: 0.0,
                bytes: 0,
                nodes: n,
                edges: stored,
                version: txn.version(),
                exact: txn.is_exact(),
            },
            ids,
            keys,
            labels,
            dense,
            out,
            inc,
            both,
            out_sorted,
            edge_types,
            key_rank: Default::default(),
            key_index: hashbrown::HashTable::new(),
            hasher: rustc_hash::FxBuildHasher,
        };
        p.index_keys();
        p.info.bytes = p.memory_bytes();
        ctrl.check_memory(p.info.bytes)?;
        p.info.seconds = started.elapsed().as_secs_f64();
        tracing::info!(
            nodes = p.info.nodes,
            edges = p.info.edges,
            mib = p.info.bytes >> 20,
            ms = (p.info.seconds * 1e3) as u64,
            version = p.info.version,
            "projection built"
        );
        Ok(p)
    }

    /// What was projected (edge types, weights).
    pub fn spec(&self) -> &ProjectionSpec {
        &self.spec
    }
    /// How and when it was built.
    pub fn info(&self) -> &BuildInfo {
        &self.info
    }
    /// The store version the projection reflects.
    pub fn version(&self) -> u64 {
        self.info.version
    }
    /// Number of nodes; dense indexes are `0..node_count()`.
    pub fn node_count(&self) -> u32 {
        self.ids.len() as u32
    }
    /// The dense index of node `id`, if it was live when built.
    pub fn index_of(&self, id: NodeId) -> Option<u32> {
        self.dense.get(id as usize).copied().filter(|&d| d != ABSENT)
    }
    /// The key of the node at dense `index` (panics when `index >= node_count()`).
    pub fn key(&self, index: u32) -> &NodeKey {
        &self.keys[index as usize]
    }
    /// Whether this projection holds each node's labels as a mask (see [`Self::has_labels`]).
    pub fn has_label_masks(&self) -> bool {
        self.labels.is_some()
    }
    /// Whether the node at dense `index` has every label of catalog ids `ids`
    /// (`ReadTxn::label_id_named`); `None` when this projection holds no label masks (a
    /// label id of 64 or more). Panics when `index >= node_count()`.
    pub fn has_labels(&self, index: u32, ids: &[u32]) -> Option<bool> {
        match ids.iter().try_fold(0u64, |m, &l| (l < 64).then(|| m | 1 << l)) {
            Some(want) => self.has_label_mask(index, want),
            // A label no mask can hold: no node has it.
            None => self.labels.as_ref().map(|_| false),
        }
    }

    /// [`Self::has_labels`] for labels given as a mask (bit `l`: catalog label id `l`), so a
    /// check over many nodes resolves the label names once.
    pub fn has_label_mask(&self, index: u32, want: u64) -> Option<bool> {
        Some(self.labels.as_ref()?[index as usize] & want == want)
    }

    /// The store's node id of the node at dense `index` (panics when `index >= node_count()`).
    pub fn node_id(&self, index: u32) -> NodeId {
        self.ids[index as usize]
    }
    fn index_keys(&mut self) {
        let mut t = hashbrown::HashTable::with_capacity(self.keys.len());
        for (i, k) in self.keys.iter().enumerate() {
            let h = self.hasher.hash_one(k);
            t.insert_unique(h, i as u32, |&j| self.hasher.hash_one(&self.keys[j as usize]));
        }
        self.key_index = t;
    }

    /// The dense index of the node with this key, if the projection holds it.
    pub fn index_of_key(&self, key: &NodeKey) -> Option<u32> {
        let h = self.hasher.hash_one(key);
        self.key_index.find(h, |&i| &self.keys[i as usize] == key).copied()
    }

    /// Keys in dense order: `keys()[i]` is the node whose result sits at index `i` of a
    /// whole-graph algorithm's output.
    pub fn keys(&self) -> &[NodeKey] {
        &self.keys
    }
    /// Outgoing adjacency (an undirected edge appears from both ends).
    pub fn out(&self) -> &Csr {
        &self.out
    }
    /// Incoming adjacency (the transpose of [`GraphProjection::out`]).
    pub fn inc(&self) -> &Csr {
        &self.inc
    }
    /// The symmetric view: every edge in the rows of both its ends, under one edge id.
    pub fn both(&self) -> &Csr {
        &self.both
    }
    /// The view that lists edges along `dir`: `out`, `inc` or `both`.
    pub fn view(&self, dir: Direction) -> &Csr {
        match dir {
            Direction::Out => &self.out,
            Direction::In => &self.inc,
            Direction::Both => &self.both,
        }
    }

    /// Whether an edge (of any type) leads from dense `s` to dense `d`: a scan of a short
    /// row, a binary search of a sorted one; `None` for a long row in no order, which the
    /// store tests faster. Panics when `s >= node_count()`.
    pub fn has_edge(&self, s: u32, d: u32) -> Option<bool> {
        let row = self.out.neighbors(s);
        if row.len() <= 16 {
            Some(row.contains(&d))
        } else {
            self.out_sorted.then(|| row.binary_search(&d).is_ok())
        }
    }

    /// The catalog id of edge `edge`'s type (edge ids as the views' `edge_key`).
    pub fn edge_type(&self, edge: u64) -> u32 {
        self.edge_types[edge as usize]
    }

    /// `key_rank()[i]` is node `i`'s position when keys are sorted as strings (byte order,
    /// which is Python's `str` order; integer keys as their decimal text).
    pub fn key_rank(&self) -> &[u32] {
        self.key_rank.get_or_init(|| {
            fn text(k: &NodeKey) -> std::borrow::Cow<'_, str> {
                match k {
                    NodeKey::Str(s) => std::borrow::Cow::Borrowed(s.as_str()),
                    NodeKey::Int(i) => std::borrow::Cow::Owned(i.to_string()),
                }
            }
            let mut order: Vec<u32> = (0..self.node_count()).collect();
            order.sort_by(|&a, &b| text(&self.keys[a as usize]).cmp(&text(&self.keys[b as usize])));
            let mut rank = vec![0u32; order.len()];
            for (r, &v) in order.iter().enumerate() {
                rank[v as usize] = r as u32;
            }
            rank
        })
    }

    fn memory_bytes(&self) -> usize {
        let keys: usize = self
            .keys
            .iter()
            .map(|k| {
                KEY_BYTES
                    + match k {
                        NodeKey::Str(s) => s.len(),
                        NodeKey::Int(_) => 0,
                    }
            })
            .sum();
        self.out.memory_bytes()
            + self.inc.memory_bytes()
            + self.both.memory_bytes()
            + keys
            + self.edge_types.len() * 4
            + self.ids.len() * 8
            + self.labels.as_ref().map_or(0, |l| l.len() * 8)
            + self.dense.len() * 4
            + self.key_index.capacity() * 5
    }
}

impl std::fmt::Debug for GraphProjection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphProjection")
            .field("spec", &self.spec)
            .field("info", &self.info)
            .finish()
    }
}

/// A shared projection.
pub type SharedProjection = Arc<GraphProjection>;
