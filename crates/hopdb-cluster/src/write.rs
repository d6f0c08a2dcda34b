//! Writes on a cluster: a batch of mutations, with the embedded store's meaning, becomes one
//! PostgreSQL transaction appending each touched partition's row changes to the delta
//! (decision 0043). Acknowledged means committed in PostgreSQL, so a write survives the query
//! node, Redis and the object store; the cold tier gets it at the next compaction.
//!
//! One writer at a time across the cluster (an advisory lock): the writer reads the current
//! rows of the partitions it touches (locked against a compaction swapping them), works out
//! what changes, and commits the changes under a fresh sequence number that becomes those
//! partitions' content version, so every cache and hot-tier key of their old contents stops
//! being read at once.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use hopdb_core::{codec, EdgeTypeOptions, NodeKey, Props, WriteMode};

use crate::cold::{EdgeRow, NodeRow, Partition, RowDir};
use crate::delta::{row_id, Op, RowId};
use crate::error::{meta, ClusterError, Result};
use crate::meta::{add_edge_types, append_delta, lock_live, read_delta, read_edge_types, Live, PartitionOps};
use crate::partition::partition_of_encoded;
use crate::slice::NodeRows;
use crate::Cluster;

/// One change to the graph, with the meaning the embedded store's write of the same name has.
#[derive(Debug, Clone, PartialEq)]
pub enum Mutation {
    /// Creates or updates a node (`WriteTxn::upsert_node`): `Merge` adds labels and merges
    /// properties, `Replace` sets both.
    UpsertNode {
        /// The node's key.
        key: NodeKey,
        /// Labels to add (merge) or to set (replace).
        labels: Vec<String>,
        /// Properties to merge in or to set.
        props: Props,
        /// How old and new combine.
        mode: WriteMode,
    },
    /// Creates or updates the edge `src -[ty]-> dst` of a simple type, creating missing
    /// endpoints (`WriteTxn::upsert_edge`); a new type is directed and simple.
    UpsertEdge {
        /// The source's key.
        src: NodeKey,
        /// The edge type.
        ty: String,
        /// The target's key.
        dst: NodeKey,
        /// The weight to set; `None` keeps the old one on merge.
        weight: Option<f64>,
        /// Properties to merge in or to set.
        props: Props,
        /// How old and new combine.
        mode: WriteMode,
    },
    /// Adds a parallel edge of a multi-edge type under the id given, creating missing
    /// endpoints (`WriteTxn::add_edge`; a new type is directed and multi). The id must be new
    /// (Cypher's transactions take one from the cluster's sequence, above 2^48).
    AddEdge {
        /// The source's key.
        src: NodeKey,
        /// The edge type.
        ty: String,
        /// The target's key.
        dst: NodeKey,
        /// The new edge's id (not 0).
        id: u64,
        /// Its weight.
        weight: Option<f64>,
        /// Its properties.
        props: Props,
    },
    /// Updates the multi-edge `id` between `src` and `dst` (`WriteTxn::update_edge_by_id`);
    /// refused if it does not exist.
    UpdateEdgeById {
        /// The source's key (either end of an undirected edge).
        src: NodeKey,
        /// The edge type.
        ty: String,
        /// The target's key.
        dst: NodeKey,
        /// The edge's id.
        id: u64,
        /// The weight to set; `None` keeps the old one on merge.
        weight: Option<f64>,
        /// Properties to merge in or to set.
        props: Props,
        /// How old and new combine.
        mode: WriteMode,
    },
    /// Deletes the multi-edge `id` between `src` and `dst`, if it exists.
    DeleteEdgeById {
        /// The source's key (either end of an undirected edge).
        src: NodeKey,
        /// The edge type.
        ty: String,
        /// The target's key.
        dst: NodeKey,
        /// The edge's id.
        id: u64,
    },
    /// Deletes a node and every edge touching it, if it exists (`delete_node_if_exists`).
    DeleteNode {
        /// The node's key.
        key: NodeKey,
    },
    /// Deletes the edge `src -[ty]-> dst` (every parallel one of a multi-edge type; either
    /// orientation of an undirected one), if it exists (`delete_edge_if_exists`).
    DeleteEdge {
        /// The source's key.
        src: NodeKey,
        /// The edge type.
        ty: String,
        /// The target's key.
        dst: NodeKey,
    },
}

impl Mutation {
    /// A merge of a node with these labels and properties.
    pub fn node(key: impl Into<NodeKey>, labels: &[&str], props: Props) -> Mutation {
        Mutation::UpsertNode {
            key: key.into(),
            labels: labels.iter().map(|l| l.to_string()).collect(),
            props,
            mode: WriteMode::Merge,
        }
    }

    /// A merge of an edge with this weight and properties.
    pub fn edge(
        src: impl Into<NodeKey>,
        ty: &str,
        dst: impl Into<NodeKey>,
        weight: Option<f64>,
        props: Props,
    ) -> Mutation {
        Mutation::UpsertEdge {
            src: src.into(),
            ty: ty.to_string(),
            dst: dst.into(),
            weight,
            props,
            mode: WriteMode::Merge,
        }
    }

    /// Refuses what the embedded store refuses, before anything is written.
    pub(crate) fn validate(&self, at: usize) -> Result<()> {
        let check = |r: hopdb_core::Result<()>| r.map_err(|e| ClusterError::Write { at, why: e.to_string() });
        match self {
            Mutation::UpsertNode { key, labels, props, .. } => {
                check(key.validate())?;
                for l in labels {
                    check(codec::validate_name("label", l))?;
                }
                check(codec::validate_props(props))
            }
            Mutation::UpsertEdge {
                src,
                ty,
                dst,
                weight,
                props,
                ..
            }
            | Mutation::AddEdge {
                src,
                ty,
                dst,
                weight,
                props,
                ..
            }
            | Mutation::UpdateEdgeById {
                src,
                ty,
                dst,
                weight,
                props,
                ..
            } => {
                check(src.validate())?;
                check(dst.validate())?;
                check(codec::validate_name("edge type", ty))?;
                if let Some(w) = weight.filter(|w| !w.is_finite()) {
                    return Err(ClusterError::Write {
                        at,
                        why: format!("edge weight {w} is not a finite number"),
                    });
                }
                if matches!(
                    self,
                    Mutation::AddEdge { id: 0, .. } | Mutation::UpdateEdgeById { id: 0, .. }
                ) {
                    return Err(ClusterError::Write {
                        at,
                        why: "a multi-edge's id is never 0".into(),
                    });
                }
                check(codec::validate_props(props))
            }
            Mutation::DeleteNode { key } => check(key.validate()),
            Mutation::DeleteEdge { src, dst, .. } | Mutation::DeleteEdgeById { src, dst, .. } => {
                check(src.validate())?;
                check(dst.validate())
            }
        }
    }

    /// Applies the mutation to an embedded store's write transaction: the write whose meaning
    /// the cluster's has (a cluster and a store given the same mutations answer alike). The
    /// store numbers the edges `AddEdge` adds itself; by-id mutations name the store's ids.
    pub fn apply_to(&self, w: &mut hopdb_core::WriteTxn<'_>) -> hopdb_core::Result<()> {
        match self.clone() {
            Mutation::UpsertNode {
                key,
                labels,
                props,
                mode,
            } => {
                let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
                w.upsert_node(key, &labels, props, mode)
            }
            Mutation::UpsertEdge {
                src,
                ty,
                dst,
                weight,
                props,
                mode,
            } => w.upsert_edge(src, &ty, dst, weight, props, mode),
            Mutation::AddEdge {
                src,
                ty,
                dst,
                weight,
                props,
                ..
            } => {
                declare_multi(w, &ty)?;
                w.add_edge(src, &ty, dst, weight, props).map(drop)
            }
            Mutation::UpdateEdgeById {
                id,
                weight,
                props,
                mode,
                ..
            } => w.update_edge_by_id(id, weight, props, mode),
            Mutation::DeleteEdgeById { id, .. } => match w.delete_edge_by_id(id) {
                Err(hopdb_core::Error::EdgeIdNotFound { .. }) => Ok(()),
                other => other,
            },
            Mutation::DeleteNode { key } => w.delete_node_if_exists(key).map(drop),
            Mutation::DeleteEdge { src, ty, dst } => w.delete_edge_if_exists(src, &ty, dst).map(drop),
        }
    }

    /// Whether applying it reads the edge types (node writes do not).
    pub(crate) fn needs_types(&self) -> bool {
        !matches!(self, Mutation::UpsertNode { .. } | Mutation::DeleteNode { .. })
    }

    pub(crate) fn keys(&self) -> Vec<&NodeKey> {
        match self {
            Mutation::UpsertNode { key, .. } | Mutation::DeleteNode { key } => vec![key],
            Mutation::UpsertEdge { src, dst, .. }
            | Mutation::DeleteEdge { src, dst, .. }
            | Mutation::AddEdge { src, dst, .. }
            | Mutation::UpdateEdgeById { src, dst, .. }
            | Mutation::DeleteEdgeById { src, dst, .. } => vec![src, dst],
        }
    }
}

/// Declares `ty` a directed multi-edge type in the store if it has no type of that name, as
/// a cluster's first `AddEdge` of a type does.
pub fn declare_multi(w: &mut hopdb_core::WriteTxn<'_>, ty: &str) -> hopdb_core::Result<()> {
    use hopdb_core::GraphRead;
    if !w.edge_types()?.iter().any(|(t, _)| &*t.name == ty) {
        w.define_edge_type(
            ty,
            EdgeTypeOptions {
                multi: true,
                undirected: false,
            },
        )?;
    }
    Ok(())
}

/// Whether a write of an edge needs the edge to exist already.
#[derive(Clone, Copy)]
enum Prior {
    /// An upsert: it may or may not.
    Any,
    /// An update by id: it must.
    Required,
    /// An add under a new id: it must not.
    Forbidden,
}

/// What a write did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WriteReport {
    /// Its sequence number (0: it changed nothing, nothing was written).
    pub seq: u64,
    /// Partitions it changed.
    pub partitions: usize,
    /// Row operations it appended to the delta.
    pub operations: usize,
    /// Partitions it compacted afterwards (`[writes] compact_after_ops`).
    pub compacted: usize,
    /// Wall time, seconds.
    pub seconds: f64,
}

/// Reads the partitions a write works on that it has not read yet (`Working::missing`).
pub(crate) type Loader<'a> = dyn FnMut(&mut Working, &[u32]) -> Result<()> + 'a;

/// The partitions a write works on: their state and rows as the write changes them. The
/// commit path (`Cluster::write`) reads them locked in PostgreSQL; a Cypher transaction
/// (`ClusterTxn`) reads them from its query node's view, to see its own changes.
pub(crate) struct Working {
    partitions: u32,
    pub parts: HashMap<u32, (Live, Partition)>,
    pub ops: HashMap<u32, Vec<Op>>,
    pub types: HashMap<String, EdgeTypeOptions>,
    /// Types the write declares (their first edge's kind: simple or multi).
    pub new_types: Vec<(String, EdgeTypeOptions)>,
}

impl Working {
    pub fn new(partitions: u32, types: HashMap<String, EdgeTypeOptions>) -> Working {
        Working {
            partitions,
            parts: HashMap::new(),
            ops: HashMap::new(),
            types,
            new_types: Vec::new(),
        }
    }

    pub fn partition_of(&self, encoded: &[u8]) -> u32 {
        partition_of_encoded(encoded, self.partitions)
    }

    /// The partitions of `parts` not read yet, sorted, each once.
    pub fn missing(&self, parts: &[u32]) -> Vec<u32> {
        let mut missing: Vec<u32> = parts.iter().copied().filter(|p| !self.parts.contains_key(p)).collect();
        missing.sort_unstable();
        missing.dedup();
        missing
    }

    /// Reads (and locks) the partitions of `parts` not read yet, for the commit.
    fn load_locked(&mut self, cluster: &Cluster, tx: &mut postgres::Transaction<'_>, parts: &[u32]) -> Result<()> {
        let missing = self.missing(parts);
        if missing.is_empty() {
            return Ok(());
        }
        let live = lock_live(tx, &missing)?;
        let mut fetch = Vec::new();
        {
            let mut cache = cluster.cache.lock().unwrap_or_else(|e| e.into_inner());
            for (p, l) in live {
                if l.version == 0 {
                    self.parts.insert(p, (l, Partition::empty(0)?));
                } else if let Some(part) = cache.get(p, l.version) {
                    self.parts.insert(p, (l, (*part).clone()));
                } else {
                    fetch.push((p, l));
                }
            }
        }
        // Pending writes only for what the cache lacks.
        let pending: Vec<u32> = fetch.iter().filter(|(_, l)| l.pending()).map(|(p, _)| *p).collect();
        let delta = read_delta(tx, &pending)?;
        let states: HashMap<u32, Live> = fetch.iter().cloned().collect();
        for (p, part) in cluster.fetch_partitions(fetch, &delta)? {
            if let Some(l) = states.get(&p) {
                self.parts.insert(p, (l.clone(), (*part).clone()));
            }
        }
        Ok(())
    }

    /// Partition `p` as this write has changed it so far; `load` read it (every caller
    /// loads first).
    fn rows(&mut self, p: u32) -> Result<&mut Partition> {
        self.parts
            .get_mut(&p)
            .map(|(_, rows)| rows)
            .ok_or_else(|| ClusterError::State(format!("internal: partition {p} changed before it was read")))
    }

    /// Whether partition `p` holds the row `id` now.
    fn has_row(&mut self, p: u32, id: &RowId) -> Result<bool> {
        Ok(self.rows(p)?.rows_of(&id.0).iter().any(|e| row_id(e) == *id))
    }

    fn push(&mut self, p: u32, op: Op) -> Result<()> {
        self.rows(p)?.apply(op.clone());
        self.ops.entry(p).or_default().push(op);
        Ok(())
    }

    /// The options of type `ty` for a write of a simple edge (`multi` false) or a parallel
    /// one: an existing type must be of that kind; a new one is declared directed, of it.
    fn edge_type(&mut self, ty: &str, multi: bool, at: usize) -> Result<EdgeTypeOptions> {
        if let Some(o) = self.types.get(ty) {
            if o.multi != multi {
                return Err(ClusterError::Write {
                    at,
                    why: if o.multi {
                        format!("edge type {ty:?} allows parallel edges: add them (with ids), not upserts")
                    } else {
                        format!("edge type {ty:?} is simple (one edge per pair): upsert its edges, do not add them")
                    },
                });
            }
            return Ok(*o);
        }
        let o = EdgeTypeOptions {
            multi,
            undirected: false,
        };
        self.types.insert(ty.to_string(), o);
        self.new_types.push((ty.to_string(), o));
        Ok(o)
    }

    /// The options of an existing multi-edge type (a by-id write's).
    fn multi_type(&self, ty: &str, at: usize) -> Result<EdgeTypeOptions> {
        match self.types.get(ty) {
            Some(o) if o.multi => Ok(*o),
            _ => Err(ClusterError::Write {
                at,
                why: format!("no multi-edge type {ty:?}: edges by id are of multi-edge types"),
            }),
        }
    }

    fn upsert_node(&mut self, key: &[u8], labels: &[String], props: &Props, mode: WriteMode) -> Result<()> {
        let p = self.partition_of(key);
        let old = self.rows(p)?.node_row(key);
        let mut new_labels: Vec<String> = Vec::with_capacity(labels.len());
        let mut props = props.clone();
        if let (Some(o), WriteMode::Merge) = (&old, mode) {
            new_labels.extend(o.labels.iter().cloned());
            let mut merged = codec::decode_props(&o.props)?;
            merged.extend(props);
            props = merged;
        }
        for l in labels {
            if !new_labels.contains(l) {
                new_labels.push(l.clone());
            }
        }
        let row = NodeRow {
            key: key.to_vec(),
            labels: new_labels,
            props: codec::encode_props(&props)?,
        };
        self.push(p, Op::PutNode(row))?;
        Ok(())
    }

    fn ensure_node(&mut self, key: &[u8]) -> Result<()> {
        let p = self.partition_of(key);
        if self.rows(p)?.has_node(key) {
            return Ok(());
        }
        self.upsert_node(key, &[], &Props::new(), WriteMode::Merge)
    }

    /// Writes edge `id` (0 for a simple type) `s -[ty]-> d` of a type with options `o` at both
    /// ends, merged into the edge there is under `mode`; `prior` says whether there must be
    /// one, must not, or may.
    #[allow(clippy::too_many_arguments)]
    fn put_edge(
        &mut self,
        s: &[u8],
        d: &[u8],
        (ty, o, id): (&str, EdgeTypeOptions, u64),
        weight: Option<f64>,
        props: &Props,
        mode: WriteMode,
        prior: Prior,
        at: usize,
    ) -> Result<()> {
        self.ensure_node(s)?;
        self.ensure_node(d)?;
        let (ps, pd) = (self.partition_of(s), self.partition_of(d));
        let (there, back) = if o.undirected {
            (RowDir::Undirected, RowDir::Undirected)
        } else {
            (RowDir::Out, RowDir::In)
        };
        let ty: Arc<str> = Arc::from(ty);
        let row_at: RowId = (s.to_vec(), there, ty.clone(), d.to_vec(), id);
        let old = self.rows(ps)?.rows_of(s).into_iter().find(|e| row_id(e) == row_at);
        match (prior, &old) {
            (Prior::Required, None) => {
                return Err(ClusterError::Write {
                    at,
                    why: format!("edge id {id} is not an edge of type {ty:?} between these nodes"),
                })
            }
            (Prior::Forbidden, Some(_)) => {
                return Err(ClusterError::Write {
                    at,
                    why: format!("edge id {id} is taken"),
                })
            }
            _ => {}
        }
        let (weight, props) = match (&old, mode) {
            (Some(o), WriteMode::Merge) => {
                let mut merged = codec::decode_props(&o.props)?;
                merged.extend(props.clone());
                (weight.or(o.weight), merged)
            }
            _ => (weight, props.clone()),
        };
        let props = codec::encode_props(&props)?;
        let row = |node: &[u8], dir: RowDir, other: &[u8]| EdgeRow {
            node: node.to_vec(),
            dir,
            ty: ty.clone(),
            other: other.to_vec(),
            id,
            weight,
            props: props.clone(),
        };
        self.push(ps, Op::PutRow(row(s, there, d)))?;
        // An undirected self-loop is one row.
        if !(o.undirected && s == d) {
            self.push(pd, Op::PutRow(row(d, back, s)))?;
        }
        Ok(())
    }

    /// Deletes the rows of edge `id` (`None`: every edge of the type) `s -[ty]-> d` at both ends.
    fn delete_edge(&mut self, s: &[u8], ty: &str, d: &[u8], id: Option<u64>) -> Result<()> {
        let Some(o) = self.types.get(ty).copied() else {
            return Ok(());
        };
        let (ps, pd) = (self.partition_of(s), self.partition_of(d));
        let mut gone: Vec<(u32, RowId)> = Vec::new();
        let (there, back) = if o.undirected {
            (RowDir::Undirected, RowDir::Undirected)
        } else {
            (RowDir::Out, RowDir::In)
        };
        for e in self.rows(ps)?.rows_of(s) {
            if e.dir == there && &*e.ty == ty && e.other == d && id.is_none_or(|id| id == e.id) {
                let id = row_id(&e);
                let rev: RowId = (d.to_vec(), back, e.ty.clone(), s.to_vec(), e.id);
                if rev != id {
                    gone.push((pd, rev));
                }
                gone.push((ps, id));
            }
        }
        for (p, id) in gone {
            if self.has_row(p, &id)? {
                self.push(p, Op::DeleteRow(id))?;
            }
        }
        Ok(())
    }

    /// Applies mutation `at` of a batch, its keys encoded, reading what it needs with `load`.
    pub fn apply(&mut self, at: usize, mutation: &Mutation, keys: &[Vec<u8>], load: &mut Loader<'_>) -> Result<()> {
        let parts: Vec<u32> = keys.iter().map(|k| self.partition_of(k)).collect();
        load(self, &parts)?;
        match mutation {
            Mutation::UpsertNode {
                labels, props, mode, ..
            } => self.upsert_node(&keys[0], labels, props, *mode),
            Mutation::UpsertEdge {
                ty,
                weight,
                props,
                mode,
                ..
            } => {
                let o = self.edge_type(ty, false, at)?;
                let edge = (ty.as_str(), o, 0);
                self.put_edge(&keys[0], &keys[1], edge, *weight, props, *mode, Prior::Any, at)
            }
            Mutation::AddEdge {
                ty, id, weight, props, ..
            } => {
                let o = self.edge_type(ty, true, at)?;
                let (edge, replace) = ((ty.as_str(), o, *id), WriteMode::Replace);
                self.put_edge(&keys[0], &keys[1], edge, *weight, props, replace, Prior::Forbidden, at)
            }
            Mutation::UpdateEdgeById {
                ty,
                id,
                weight,
                props,
                mode,
                ..
            } => {
                let o = self.multi_type(ty, at)?;
                let edge = (ty.as_str(), o, *id);
                self.put_edge(&keys[0], &keys[1], edge, *weight, props, *mode, Prior::Required, at)
            }
            Mutation::DeleteNode { .. } => self.delete_node(load, &keys[0]),
            Mutation::DeleteEdge { ty, .. } => self.delete_edge(&keys[0], ty, &keys[1], None),
            Mutation::DeleteEdgeById { ty, id, .. } => self.delete_edge(&keys[0], ty, &keys[1], Some(*id)),
        }
    }

    fn delete_node(&mut self, load: &mut Loader<'_>, key: &[u8]) -> Result<()> {
        let p = self.partition_of(key);
        if !self.rows(p)?.has_node(key) {
            return Ok(());
        }
        // Each of its rows has a twin at the other end, in that node's partition.
        let twins: Vec<RowId> = self
            .rows(p)?
            .rows_of(key)
            .into_iter()
            .filter(|e| e.other != key)
            .map(|e| {
                let back = match e.dir {
                    RowDir::Out => RowDir::In,
                    RowDir::In => RowDir::Out,
                    RowDir::Undirected => RowDir::Undirected,
                };
                (e.other, back, e.ty, key.to_vec(), e.id)
            })
            .collect();
        let others: Vec<u32> = twins.iter().map(|t| self.partition_of(&t.0)).collect();
        load(self, &others)?;
        for (twin, q) in twins.into_iter().zip(others) {
            if self.has_row(q, &twin)? {
                self.push(q, Op::DeleteRow(twin))?;
            }
        }
        self.push(p, Op::DeleteNode(key.to_vec()))?;
        Ok(())
    }
}

impl Cluster {
    fn partition_of(&self, encoded: &[u8]) -> u32 {
        partition_of_encoded(encoded, self.partitions)
    }

    /// Applies `batch` in order as one atomic write: all of it is acknowledged (committed in
    /// PostgreSQL) or none of it. Reads on this query node see it at once; other query nodes
    /// within `[metadata] refresh_ms`.
    pub fn write(&self, batch: &[Mutation]) -> Result<WriteReport> {
        self.write_checked(batch, &HashMap::new())
    }

    /// [`Cluster::write`] for a transaction that read partitions first: `read` holds the
    /// content version it read of each; if one it writes has changed since, nothing is
    /// written and the error is [`ClusterError::Conflict`] (run the transaction again).
    pub(crate) fn write_checked(&self, batch: &[Mutation], read: &HashMap<u32, u64>) -> Result<WriteReport> {
        let started = Instant::now();
        for (at, m) in batch.iter().enumerate() {
            m.validate(at)?;
        }
        let encoded: Vec<Vec<Vec<u8>>> = batch
            .iter()
            .map(|m| m.keys().into_iter().map(codec::encode_key).collect())
            .collect();
        let mut parts: Vec<u32> = encoded.iter().flatten().map(|k| self.partition_of(k)).collect();
        parts.sort_unstable();
        parts.dedup();

        let mut m = self.meta()?;
        let mut tx = m.begin_write()?;
        let types = if batch.iter().any(Mutation::needs_types) {
            read_edge_types(&mut tx)?.into_iter().collect()
        } else {
            HashMap::new()
        };
        let mut w = Working::new(self.partitions, types);
        w.load_locked(self, &mut tx, &parts)?;
        let mut load = |w: &mut Working, parts: &[u32]| w.load_locked(self, &mut tx, parts);
        for (at, (mutation, keys)) in batch.iter().zip(&encoded).enumerate() {
            w.apply(at, mutation, keys, &mut load)?;
        }
        // A transaction that read a partition it writes must have read what is there now.
        let stale: Vec<(u32, Live)> = w
            .parts
            .iter()
            .filter(|(p, (l, _))| read.get(p).is_some_and(|&v| v != l.version))
            .map(|(&p, (l, _))| (p, l.clone()))
            .collect();
        if !stale.is_empty() {
            tx.rollback()
                .map_err(meta("ending a write that met a concurrent one"))?;
            drop(m);
            // The retry reads what is there now.
            self.note_live(&stale);
            return Err(ClusterError::Conflict {
                partitions: stale.iter().map(|(p, _)| *p).collect(),
            });
        }
        if w.ops.is_empty() {
            tx.rollback().map_err(meta("ending a write that changed nothing"))?;
            return Ok(WriteReport {
                seconds: started.elapsed().as_secs_f64(),
                ..WriteReport::default()
            });
        }
        let mut changed: Vec<PartitionOps> = w
            .ops
            .iter()
            .map(|(&p, ops)| PartitionOps {
                partition: p,
                ops: ops.iter().map(Op::encode).collect(),
            })
            .collect();
        changed.sort_unstable_by_key(|c| c.partition);
        let (seq, pending) = append_delta(&mut tx, &changed)?;
        add_edge_types(&mut tx, &w.new_types)?;
        tx.commit().map_err(meta("committing a write"))?;
        drop(m);

        // This query node reads its own write at once: the new versions, and the rows it
        // already built, cached under them.
        let mut report = WriteReport {
            seq,
            partitions: changed.len(),
            operations: changed.iter().map(|c| c.ops.len()).sum(),
            ..WriteReport::default()
        };
        let mut fresh = Vec::with_capacity(changed.len());
        let mut built = Vec::with_capacity(changed.len());
        for c in &changed {
            if let Some((mut l, mut part)) = w.parts.remove(&c.partition) {
                l.version = seq;
                l.delta_seq = seq;
                // The hot tier holds the old version's slices: the new version has no buckets
                // until it is promoted (else reads would ask Redis for keys that never exist).
                l.hot_buckets = 0;
                fresh.push((c.partition, l));
                part.version = seq;
                built.push((c.partition, part));
            }
        }
        self.note_live(&fresh);
        {
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            for (p, part) in built {
                cache.insert(p, Arc::new(part));
            }
        }
        // Partitions whose pending operations reached the threshold are compacted now; the
        // write is acknowledged already, so a failure only leaves them pending.
        let limit = self.cfg.writes.compact_after_ops;
        let due: Vec<u32> = pending
            .iter()
            .filter(|&&(_, n)| limit > 0 && n >= limit)
            .map(|&(p, _)| p)
            .collect();
        if !due.is_empty() {
            match self.compact(Some(&due)) {
                Ok(c) => report.compacted = c.partitions,
                Err(e) => {
                    tracing::warn!(error = %e, partitions = due.len(), "could not compact after a write; the writes stay pending")
                }
            }
        }
        Ok(WriteReport {
            seconds: started.elapsed().as_secs_f64(),
            ..report
        })
    }
}
