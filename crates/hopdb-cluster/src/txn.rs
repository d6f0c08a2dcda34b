//! A write transaction on a cluster, behind the embedded store's write interface
//! ([`GraphWrite`]), so the Cypher engine of `hopdb serve --cluster` writes a cluster the way
//! it writes a store (decision 0045).
//!
//! The transaction reads whole partitions from its query node's view (the cache, else the
//! cold tier plus the delta) and keeps its own copy of each one it reads, to which it applies
//! its writes with the commit's own logic (`Working`): it reads its own changes, and each
//! partition it reads stays as first read (repeatable reads). It records its writes as
//! [`Mutation`]s and commits them as one [`Cluster::write`] batch, checked: if a partition it
//! writes is no longer the version it read (another query node wrote it meanwhile), nothing is
//! written and the commit fails with a conflict, which the Cypher engine answers by running a
//! statement again (drivers retry the transient error of an explicit transaction). Every
//! partition a transaction writes it has read (applying a write reads the rows it changes), so
//! every one is checked.
//!
//! Parallel edges of multi-edge types take their ids from the cluster's sequence (above 2^48,
//! as created node keys do); a by-id write names the edge's ends too (`EdgeAt`), since a
//! cluster finds an edge in its ends' partitions. What a cluster does not write: undirected
//! types declared here, and schema (indexes, constraints).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use hopdb_core::{
    codec, Degree, Direction, Edge, EdgeAt, EdgeType, EdgeTypeOptions, GraphRead, GraphWrite, Node, NodeKey,
    NodeRecord, Props, WriteMode,
};

use crate::cold::{Partition, TypeNames};
use crate::error::Result;
use crate::graph::{catalog, core, limited, records, unsupported, ClusterGraph};
use crate::meta::Live;
use crate::slice::NodeRows;
use crate::write::{Mutation, Working};
use crate::Cluster;

type CoreResult<T> = hopdb_core::Result<T>;

/// Where the keys of nodes created without one start: the cluster's sequence numbers above
/// 2^48, so they stay clear of the small integer keys loaded graphs use (a taken one is
/// skipped all the same).
const CREATED_KEYS_FROM: u64 = 1 << 48;

/// A write transaction on a cluster ([`crate::ClusterGraph`]'s `begin_write`).
pub struct ClusterTxn {
    graph: ClusterGraph,
    /// The partitions read, as read and as changed since.
    work: RefCell<Working>,
    /// Edge types: the cluster's when first needed (a node write needs none), then those
    /// the transaction declared.
    types: std::cell::OnceCell<Vec<(String, EdgeTypeOptions)>>,
    /// The writes, in order: the commit's batch.
    batch: Vec<Mutation>,
}

impl ClusterTxn {
    pub(crate) fn begin(graph: ClusterGraph) -> CoreResult<ClusterTxn> {
        let work = Working::new(graph.cluster().partitions(), HashMap::new());
        Ok(ClusterTxn {
            graph,
            work: RefCell::new(work),
            types: std::cell::OnceCell::new(),
            batch: Vec::new(),
        })
    }

    /// The edge types, read from the metadata the first time.
    fn types(&self) -> CoreResult<&Vec<(String, EdgeTypeOptions)>> {
        if let Some(t) = self.types.get() {
            return Ok(t);
        }
        let read = self.cluster().edge_types().map_err(core)?;
        // The commit's checks need the cluster's types (not those declared here).
        self.work.borrow_mut().types = read.iter().cloned().collect();
        Ok(self.types.get_or_init(|| read))
    }

    fn cluster(&self) -> &Arc<Cluster> {
        self.graph.cluster()
    }

    /// Runs `f` on the partition holding `key`, as this transaction sees it, and the key
    /// encoded.
    fn with_rows<T>(&self, key: &NodeKey, f: impl FnOnce(&Partition, &[u8]) -> Result<T>) -> CoreResult<T> {
        let enc = codec::encode_key(key);
        let mut w = self.work.borrow_mut();
        let p = w.partition_of(&enc);
        load_into(self.cluster(), &mut w, &[p]).map_err(core)?;
        f(&w.parts[&p].1, &enc).map_err(core)
    }

    /// The node's rows listed by `f`; `NodeNotFound` when it does not exist.
    fn listing<T>(&self, key: &NodeKey, f: impl FnOnce(&Partition, &[u8]) -> Result<T>) -> CoreResult<T> {
        self.with_rows(key, |p, enc| p.has_node(enc).then(|| f(p, enc)).transpose())?
            .ok_or_else(|| hopdb_core::Error::NodeNotFound { key: key.to_string() })
    }

    /// `EdgeIdNotFound` unless the multi-edge is among its source's edges now.
    fn edge_at(&self, edge: EdgeAt<'_>) -> CoreResult<()> {
        let found = match self.edges(edge.src, Direction::Both, Some(edge.ty), None) {
            Ok(list) => list.iter().any(|e| e.id == edge.id),
            Err(e) if e.kind() == hopdb_core::ErrorKind::NotFound => false,
            Err(e) => return Err(e),
        };
        if found {
            Ok(())
        } else {
            Err(hopdb_core::Error::EdgeIdNotFound { id: edge.id })
        }
    }

    /// Applies a write to the transaction's partitions and records it for the commit.
    fn write(&mut self, m: Mutation) -> CoreResult<()> {
        m.validate(0).map_err(core)?;
        if m.needs_types() {
            self.types()?;
        }
        let keys: Vec<Vec<u8>> = m.keys().into_iter().map(codec::encode_key).collect();
        let cluster = self.cluster().clone();
        let mut load = |w: &mut Working, parts: &[u32]| load_into(&cluster, w, parts);
        self.work
            .get_mut()
            .apply(self.batch.len(), &m, &keys, &mut load)
            .map_err(core)?;
        self.batch.push(m);
        Ok(())
    }

    /// Visits every node (with `label`, if given), partition by partition, as this
    /// transaction sees them, until `f` returns false. No partition is borrowed while `f`
    /// runs, so `f` may read the transaction.
    fn scan(&self, label: Option<&str>, f: &mut dyn FnMut(NodeRecord) -> CoreResult<bool>) -> CoreResult<()> {
        let parts: Vec<u32> = (0..self.cluster().partitions()).collect();
        // It keeps every partition it reads: read them all at once.
        load_into(self.cluster(), &mut self.work.borrow_mut(), &parts).map_err(core)?;
        for p in parts {
            let found = records(&self.work.borrow().parts[&p].1, label)?;
            for r in found {
                if !f(r)? {
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}

/// Copies the partitions of `parts` the transaction has not read yet, at their latest
/// committed versions (re-read from the metadata: the query node's view may be up to
/// `refresh_ms` old, and a write that missed a node another query node just wrote would
/// write nothing, so no conflict would tell); those never loaded or written are empty
/// (version 0).
fn load_into(cluster: &Cluster, w: &mut Working, parts: &[u32]) -> Result<()> {
    let missing = w.missing(parts);
    if missing.is_empty() {
        return Ok(());
    }
    cluster.refresh_partitions(&missing)?;
    let held = cluster.live_partitions(&missing)?;
    for p in missing {
        let part = match held.get(&p) {
            Some(part) => (**part).clone(),
            None => Partition::empty(0)?,
        };
        w.parts.insert(p, (Live::at(part.version), part));
    }
    Ok(())
}

/// A fresh number above 2^48 from the cluster's sequence (created node keys, edge ids).
fn fresh_number(cluster: &Cluster) -> CoreResult<u64> {
    Ok(CREATED_KEYS_FROM + cluster.fresh_number().map_err(core)?)
}

impl GraphRead for ClusterTxn {
    crate::graph::scanned_reads!();

    fn node(&self, key: &NodeKey) -> CoreResult<Option<Node>> {
        self.with_rows(key, |p, enc| p.node(enc))
    }

    fn has_node(&self, key: &NodeKey) -> CoreResult<bool> {
        self.with_rows(key, |p, enc| Ok(p.has_node(enc)))
    }

    fn edge_between(
        &self,
        src: &NodeKey,
        dst: &NodeKey,
        ty: Option<&str>,
        either_direction: bool,
    ) -> CoreResult<Option<Edge>> {
        let find = |a: &NodeKey, b: &NodeKey| {
            self.with_rows(a, |p, enc| {
                if !p.has_node(enc) {
                    return Ok(None);
                }
                Ok(p.edges_of(enc, a, Direction::Out, ty, &mut TypeNames::default())?
                    .into_iter()
                    .find(|e| &e.dst == b))
            })
        };
        match find(src, dst)? {
            Some(e) => Ok(Some(e)),
            None if either_direction => find(dst, src),
            None => Ok(None),
        }
    }

    fn edges(&self, key: &NodeKey, dir: Direction, ty: Option<&str>, limit: Option<usize>) -> CoreResult<Vec<Edge>> {
        let list = self.listing(key, |p, enc| p.edges_of(enc, key, dir, ty, &mut TypeNames::default()))?;
        Ok(limited(list, limit))
    }

    fn neighbors(
        &self,
        key: &NodeKey,
        dir: Direction,
        ty: Option<&str>,
        limit: Option<usize>,
    ) -> CoreResult<Vec<NodeKey>> {
        let list = self.listing(key, |p, enc| p.neighbors_of(enc, dir, ty))?;
        Ok(limited(list, limit))
    }

    fn degree(&self, key: &NodeKey, dir: Direction, ty: Option<&str>) -> CoreResult<Degree> {
        self.listing(key, |p, enc| Ok(p.degree_of(enc, dir, ty)))
    }

    fn node_count(&self) -> CoreResult<u64> {
        Ok(self.graph.counts()?.0) // as last compacted: the planner's estimate only
    }

    fn edge_count(&self) -> CoreResult<u64> {
        Ok(self.graph.counts()?.1)
    }

    fn edge_types(&self) -> CoreResult<Vec<(EdgeType, u64)>> {
        Ok(catalog(self.types()?.clone()))
    }

    fn nodes_batch(&self, keys: &[NodeKey]) -> CoreResult<Vec<Option<Node>>> {
        keys.iter().map(|k| self.node(k)).collect()
    }

    fn degrees_batch(&self, keys: &[NodeKey], dir: Direction, ty: Option<&str>) -> CoreResult<Vec<Option<Degree>>> {
        keys.iter()
            .map(|k| self.with_rows(k, |p, enc| Ok(p.has_node(enc).then(|| p.degree_of(enc, dir, ty)))))
            .collect()
    }

    fn edges_batch(
        &self,
        keys: &[NodeKey],
        dir: Direction,
        ty: Option<&str>,
        limit: Option<usize>,
    ) -> CoreResult<Vec<Option<Vec<Edge>>>> {
        let mut types = TypeNames::default();
        keys.iter()
            .map(|k| {
                self.with_rows(k, |p, enc| {
                    p.has_node(enc)
                        .then(|| p.edges_of(enc, k, dir, ty, &mut types).map(|l| limited(l, limit)))
                        .transpose()
                })
            })
            .collect()
    }
}

impl GraphWrite for ClusterTxn {
    fn create_node(&mut self, labels: &[&str], props: Props) -> CoreResult<NodeKey> {
        loop {
            let key = NodeKey::Int(fresh_number(self.cluster())? as i64);
            if !self.has_node(&key)? {
                self.upsert_node(key.clone(), labels, props, WriteMode::Replace)?;
                return Ok(key);
            }
        }
    }

    fn upsert_node(&mut self, key: NodeKey, labels: &[&str], props: Props, mode: WriteMode) -> CoreResult<()> {
        self.write(Mutation::UpsertNode {
            key,
            labels: labels.iter().map(|l| l.to_string()).collect(),
            props,
            mode,
        })
    }

    fn upsert_edge(
        &mut self,
        src: NodeKey,
        ty: &str,
        dst: NodeKey,
        weight: Option<f64>,
        props: Props,
        mode: WriteMode,
    ) -> CoreResult<()> {
        self.write(Mutation::UpsertEdge {
            src,
            ty: ty.to_string(),
            dst,
            weight,
            props,
            mode,
        })
    }

    fn add_edge(&mut self, src: NodeKey, ty: &str, dst: NodeKey, weight: Option<f64>, props: Props) -> CoreResult<u64> {
        let id = fresh_number(self.cluster())?;
        self.write(Mutation::AddEdge {
            src,
            ty: ty.to_string(),
            dst,
            id,
            weight,
            props,
        })?;
        Ok(id)
    }

    fn define_edge_type(&mut self, name: &str, options: EdgeTypeOptions) -> CoreResult<EdgeType> {
        codec::validate_name("edge type", name)?;
        self.types()?;
        let Some(types) = self.types.get_mut() else {
            return Err(unsupported("edge types")); // read just above
        };
        let at = types.iter().position(|(n, _)| n == name);
        if let Some(i) = at {
            let existing = types[i].1;
            if existing != options {
                return Err(hopdb_core::Error::EdgeType {
                    ty: name.to_string(),
                    reason: format!("declared as {existing:?}, not {options:?}"),
                });
            }
        } else if options.undirected {
            return Err(hopdb_core::Error::Invalid {
                what: "write on a cluster",
                reason: "a new edge type on a cluster is directed (load undirected types with `hopdb cluster load`)"
                    .into(),
            });
        } else {
            // The first edge of the type declares it in the cluster when it commits.
            types.push((name.to_string(), options));
        }
        let id = at.unwrap_or(types.len() - 1) as u32;
        Ok(EdgeType {
            name: Arc::from(name),
            id,
            options,
        })
    }

    fn delete_edge(&mut self, src: NodeKey, ty: &str, dst: NodeKey) -> CoreResult<()> {
        if self.edge(&src, ty, &dst)?.is_none() {
            return Err(hopdb_core::Error::EdgeNotFound {
                src: src.to_string(),
                ty: ty.to_string(),
                dst: dst.to_string(),
            });
        }
        self.write(Mutation::DeleteEdge {
            src,
            ty: ty.to_string(),
            dst,
        })
    }

    fn delete_edge_by_id(&mut self, edge: EdgeAt<'_>) -> CoreResult<()> {
        self.edge_at(edge)?;
        self.write(Mutation::DeleteEdgeById {
            src: edge.src.clone(),
            ty: edge.ty.to_string(),
            dst: edge.dst.clone(),
            id: edge.id,
        })
    }

    fn update_edge_by_id(
        &mut self,
        edge: EdgeAt<'_>,
        weight: Option<f64>,
        props: Props,
        mode: WriteMode,
    ) -> CoreResult<()> {
        self.edge_at(edge)?;
        self.write(Mutation::UpdateEdgeById {
            src: edge.src.clone(),
            ty: edge.ty.to_string(),
            dst: edge.dst.clone(),
            id: edge.id,
            weight,
            props,
            mode,
        })
    }

    fn delete_node(&mut self, key: NodeKey) -> CoreResult<()> {
        if !self.has_node(&key)? {
            return Err(hopdb_core::Error::NodeNotFound { key: key.to_string() });
        }
        self.write(Mutation::DeleteNode { key })
    }

    fn commit_boxed(self: Box<Self>) -> CoreResult<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let read: HashMap<u32, u64> = self
            .work
            .borrow()
            .parts
            .iter()
            .map(|(&p, (l, _))| (p, l.version))
            .collect();
        self.cluster().write_checked(&self.batch, &read).map(drop).map_err(core)
    }
}
