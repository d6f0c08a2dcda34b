//! A cluster behind the embedded store's read interface, [`GraphRead`], so what reads a store
//! through it (the Cypher engine of `hopdb serve --cluster`) reads a cluster unchanged.
//!
//! What maps directly: nodes, edge lists, neighbours and degrees (each one batched read of the
//! partitions touched). What a cluster answers differently: scans (every label scan, count and
//! `for_each_node` reads every partition); internal node ids, which a cluster does not have,
//! are a hash of the node's key (the same on every query node; `node_key` cannot invert it);
//! counts of nodes and edges are the partitions' as last compacted; there are no property or
//! full-text indexes. Anything else fails with an `Invalid` error naming the read, never with a
//! wrong answer.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hopdb_core::{
    codec, Degree, Direction, Edge, EdgeType, GraphRead, GraphWrite, Node, NodeId, NodeKey, NodeRecord, RemoteGraph,
};

use crate::cold::Partition;
use crate::error::ClusterError;
use crate::txn::ClusterTxn;
use crate::Cluster;

type CoreResult<T> = hopdb_core::Result<T>;

/// Partitions a scan reads at once.
const SCAN_STEP: usize = 16;

/// How long the node and edge counts (one metadata query) are reused.
const COUNTS_FOR: Duration = Duration::from_secs(1);

/// A cluster as a [`GraphRead`], and a [`RemoteGraph`] whose write transactions are
/// [`ClusterTxn`]s. Clones share the cluster and the cached counts.
#[derive(Clone)]
pub struct ClusterGraph {
    cluster: Arc<Cluster>,
    counts: Arc<Mutex<Option<(Instant, u64, u64)>>>,
}

impl ClusterGraph {
    /// Reads `cluster` through [`GraphRead`].
    pub fn new(cluster: Arc<Cluster>) -> ClusterGraph {
        ClusterGraph {
            cluster,
            counts: Arc::new(Mutex::new(None)),
        }
    }

    /// The cluster read.
    pub fn cluster(&self) -> &Arc<Cluster> {
        &self.cluster
    }

    /// The node and edge counts of the partitions (as last compacted).
    pub(crate) fn counts(&self) -> CoreResult<(u64, u64)> {
        let mut c = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, n, e)) = *c {
            if at.elapsed() < COUNTS_FOR {
                return Ok((n, e));
            }
        }
        let status = self.cluster.status().map_err(core)?;
        let (n, e) = (
            status.iter().map(|s| s.vertex_count).sum(),
            status.iter().map(|s| s.edge_count).sum(),
        );
        *c = Some((Instant::now(), n, e));
        Ok((n, e))
    }

    /// Visits every node (with `label`, if given) partition by partition, until `f` returns
    /// false.
    fn scan(&self, label: Option<&str>, f: &mut dyn FnMut(NodeRecord) -> CoreResult<bool>) -> CoreResult<()> {
        let parts: Vec<u32> = (0..self.cluster.partitions()).collect();
        for step in parts.chunks(SCAN_STEP) {
            let held = self.cluster.live_partitions(step).map_err(core)?;
            for p in step {
                let Some(part) = held.get(p) else { continue };
                for rec in records(part, label)? {
                    if !f(rec)? {
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
    }

    fn listed(&self, key: &NodeKey, dir: Direction, ty: Option<&str>) -> CoreResult<Vec<Edge>> {
        self.cluster
            .edges(key, dir, ty)
            .map_err(core)?
            .ok_or_else(|| hopdb_core::Error::NodeNotFound { key: key.to_string() })
    }
}

/// Edge types as the store's catalog lists them, numbered in order. Counting their edges
/// would read every partition, so the counts are 0.
pub(crate) fn catalog(types: Vec<(String, hopdb_core::EdgeTypeOptions)>) -> Vec<(EdgeType, u64)> {
    types
        .into_iter()
        .enumerate()
        .map(|(i, (name, options))| {
            let t = EdgeType {
                name: Arc::from(name.as_str()),
                id: i as u32,
                options,
            };
            (t, 0)
        })
        .collect()
}

/// The nodes of a partition (with `label`, if given) as records, in key order.
pub(crate) fn records(part: &Partition, label: Option<&str>) -> CoreResult<Vec<NodeRecord>> {
    let mut out = Vec::new();
    for enc in part.node_keys() {
        let Some((labels, props)) = part.node_parts(enc) else {
            continue;
        };
        if label.is_some_and(|l| !labels.contains(&l)) {
            continue;
        }
        let key = codec::decode_key(enc)?;
        let labels: Arc<[Arc<str>]> = labels.iter().map(|&l| Arc::from(l)).collect();
        out.push(NodeRecord::new(key_id(enc), key, labels, props.to_vec()));
    }
    Ok(out)
}

/// The id a cluster gives the node with encoded key `enc`: its key's hash (63 bits, so it is
/// a positive Bolt integer), the same on every query node.
pub(crate) fn key_id(enc: &[u8]) -> NodeId {
    xxhash_rust::xxh3::xxh3_64_with_seed(enc, 0x4859_4944) >> 1
}

pub(crate) fn core(e: ClusterError) -> hopdb_core::Error {
    match e {
        ClusterError::Store(e) => e,
        ClusterError::Conflict { .. } => hopdb_core::Error::Conflict { detail: e.to_string() },
        ClusterError::Write { why, .. } => hopdb_core::Error::Invalid {
            what: "write on a cluster",
            reason: why,
        },
        other => hopdb_core::Error::Storage {
            context: "reading the cluster",
            detail: other.to_string(),
        },
    }
}

pub(crate) fn unsupported(what: &'static str) -> hopdb_core::Error {
    hopdb_core::Error::Invalid {
        what,
        reason: "not available when reading a cluster (hopdb serve --cluster)".into(),
    }
}

pub(crate) fn limited<T>(mut v: Vec<T>, limit: Option<usize>) -> Vec<T> {
    if let Some(l) = limit {
        v.truncate(l);
    }
    v
}

/// The reads a cluster answers the same way whether it reads the live graph
/// ([`ClusterGraph`]) or a transaction's copies ([`ClusterTxn`]): each type supplies `scan`,
/// `node`, `has_node` and `edge_between`; these are the rest that do not differ.
macro_rules! scanned_reads {
    () => {
        fn view_guard(&self) -> hopdb_core::Result<hopdb_core::ViewGuard<'_>> {
            Err($crate::graph::unsupported("read"))
        }

        fn edge(
            &self,
            src: &hopdb_core::NodeKey,
            ty: &str,
            dst: &hopdb_core::NodeKey,
        ) -> hopdb_core::Result<Option<hopdb_core::Edge>> {
            self.edge_between(src, dst, Some(ty), false)
        }

        fn node_record(&self, key: &hopdb_core::NodeKey) -> hopdb_core::Result<Option<hopdb_core::NodeRecord>> {
            let Some(n) = self.node(key)? else { return Ok(None) };
            let id = $crate::graph::key_id(&hopdb_core::codec::encode_key(key));
            let labels = n
                .labels
                .iter()
                .map(|l| std::sync::Arc::from(l.as_str()))
                .collect();
            let props = hopdb_core::codec::encode_props(&n.props)?;
            Ok(Some(hopdb_core::NodeRecord::new(id, n.key, labels, props)))
        }

        fn edges_from_to(
            &self,
            src: &hopdb_core::NodeKey,
            ty: &str,
            dst: &hopdb_core::NodeKey,
        ) -> hopdb_core::Result<Vec<hopdb_core::Edge>> {
            let listed = self
                .edges(src, hopdb_core::Direction::Out, Some(ty), None)
                .or_else(|e| match e.kind() {
                    hopdb_core::ErrorKind::NotFound => Ok(Vec::new()),
                    _ => Err(e),
                })?;
            Ok(listed.into_iter().filter(|e| e.dst == *dst).collect())
        }

        fn edge_by_id(&self, _id: u64) -> hopdb_core::Result<Option<hopdb_core::Edge>> {
            Err($crate::graph::unsupported("edge by id"))
        }

        fn has_edge(
            &self,
            src: &hopdb_core::NodeKey,
            dst: &hopdb_core::NodeKey,
            ty: Option<&str>,
            either_direction: bool,
        ) -> hopdb_core::Result<bool> {
            Ok(self.edge_between(src, dst, ty, either_direction)?.is_some())
        }

        fn label_count(&self, label: &str) -> hopdb_core::Result<u64> {
            let mut n = 0;
            self.scan(Some(label), &mut |_| {
                n += 1;
                Ok(true)
            })?;
            Ok(n)
        }

        fn labels(&self) -> hopdb_core::Result<Vec<(String, u64)>> {
            let mut counts: std::collections::BTreeMap<String, u64> = std::collections::BTreeMap::new();
            self.scan(None, &mut |r| {
                for l in r.labels.iter() {
                    *counts.entry(l.to_string()).or_default() += 1;
                }
                Ok(true)
            })?;
            Ok(counts.into_iter().collect())
        }

        fn nodes_with_label(&self, label: &str, limit: Option<usize>) -> hopdb_core::Result<Vec<hopdb_core::NodeKey>> {
            let mut out = Vec::new();
            self.scan(Some(label), &mut |r| {
                out.push(r.key);
                Ok(limit.is_none_or(|l| out.len() < l))
            })?;
            Ok(out)
        }

        fn for_each_node(
            &self,
            label: Option<&str>,
            f: &mut dyn FnMut(hopdb_core::Node) -> bool,
        ) -> hopdb_core::Result<()> {
            self.scan(label, &mut |r| Ok(f(r.to_node()?)))
        }

        fn for_each_node_record(
            &self,
            label: Option<&str>,
            f: &mut dyn FnMut(hopdb_core::NodeRecord) -> bool,
        ) -> hopdb_core::Result<()> {
            self.scan(label, &mut |r| Ok(f(r)))
        }

        fn node_id(&self, key: &hopdb_core::NodeKey) -> hopdb_core::Result<Option<hopdb_core::NodeId>> {
            Ok(self
                .has_node(key)?
                .then(|| $crate::graph::key_id(&hopdb_core::codec::encode_key(key))))
        }

        fn node_key(&self, _id: hopdb_core::NodeId) -> hopdb_core::Result<Option<hopdb_core::NodeKey>> {
            Err($crate::graph::unsupported("node by internal id"))
        }

        fn node_by_id(&self, _id: hopdb_core::NodeId) -> hopdb_core::Result<Option<hopdb_core::Node>> {
            Err($crate::graph::unsupported("node by internal id"))
        }

        fn indexes(&self) -> hopdb_core::Result<Vec<hopdb_core::IndexDef>> {
            Ok(Vec::new())
        }

        fn fulltext_indexes(&self) -> hopdb_core::Result<Vec<hopdb_core::FulltextIndexDef>> {
            Ok(Vec::new())
        }

        fn nodes_by_property(
            &self,
            _label: &str,
            _property: &str,
            _value: &hopdb_core::Value,
            _limit: Option<usize>,
        ) -> hopdb_core::Result<Option<Vec<hopdb_core::NodeKey>>> {
            Ok(None) // no property indexes: the caller scans
        }

        fn edges_between_batch(
            &self,
            pairs: &[(hopdb_core::NodeKey, hopdb_core::NodeKey)],
            ty: Option<&str>,
            either_direction: bool,
        ) -> hopdb_core::Result<Vec<Option<hopdb_core::Edge>>> {
            pairs
                .iter()
                .map(|(a, b)| self.edge_between(a, b, ty, either_direction))
                .collect()
        }
    };
}
pub(crate) use scanned_reads;

impl RemoteGraph for ClusterGraph {
    fn begin_write(&self) -> CoreResult<Box<dyn GraphWrite + Send>> {
        Ok(Box::new(ClusterTxn::begin(self.clone())?))
    }
}

impl GraphRead for ClusterGraph {
    scanned_reads!();

    fn node(&self, key: &NodeKey) -> CoreResult<Option<Node>> {
        self.cluster.node(key).map_err(core)
    }

    fn has_node(&self, key: &NodeKey) -> CoreResult<bool> {
        Ok(self.node(key)?.is_some())
    }

    fn edge_between(
        &self,
        src: &NodeKey,
        dst: &NodeKey,
        ty: Option<&str>,
        either_direction: bool,
    ) -> CoreResult<Option<Edge>> {
        let find = |a: &NodeKey, b: &NodeKey| -> CoreResult<Option<Edge>> {
            Ok(match self.cluster.edges(a, Direction::Out, ty).map_err(core)? {
                Some(list) => list.into_iter().find(|e| &e.dst == b),
                None => None,
            })
        };
        match find(src, dst)? {
            Some(e) => Ok(Some(e)),
            None if either_direction => find(dst, src),
            None => Ok(None),
        }
    }

    fn edges(&self, key: &NodeKey, dir: Direction, ty: Option<&str>, limit: Option<usize>) -> CoreResult<Vec<Edge>> {
        Ok(limited(self.listed(key, dir, ty)?, limit))
    }

    fn neighbors(
        &self,
        key: &NodeKey,
        dir: Direction,
        ty: Option<&str>,
        limit: Option<usize>,
    ) -> CoreResult<Vec<NodeKey>> {
        let list = self
            .cluster
            .neighbors_batch(std::slice::from_ref(key), dir, ty)
            .map_err(core)?
            .pop()
            .flatten()
            .ok_or_else(|| hopdb_core::Error::NodeNotFound { key: key.to_string() })?;
        Ok(limited(list, limit))
    }

    fn degree(&self, key: &NodeKey, dir: Direction, ty: Option<&str>) -> CoreResult<Degree> {
        self.cluster
            .degree(key, dir, ty)
            .map_err(core)?
            .ok_or_else(|| hopdb_core::Error::NodeNotFound { key: key.to_string() })
    }

    fn node_count(&self) -> CoreResult<u64> {
        Ok(self.counts()?.0)
    }

    fn edge_count(&self) -> CoreResult<u64> {
        Ok(self.counts()?.1)
    }

    fn edge_types(&self) -> CoreResult<Vec<(EdgeType, u64)>> {
        Ok(catalog(self.cluster.edge_types().map_err(core)?))
    }

    fn nodes_batch(&self, keys: &[NodeKey]) -> CoreResult<Vec<Option<Node>>> {
        self.cluster.nodes_batch(keys).map_err(core)
    }

    fn degrees_batch(&self, keys: &[NodeKey], dir: Direction, ty: Option<&str>) -> CoreResult<Vec<Option<Degree>>> {
        keys.iter()
            .map(|k| self.cluster.degree(k, dir, ty).map_err(core))
            .collect()
    }

    fn edges_batch(
        &self,
        keys: &[NodeKey],
        dir: Direction,
        ty: Option<&str>,
        limit: Option<usize>,
    ) -> CoreResult<Vec<Option<Vec<Edge>>>> {
        Ok(self
            .cluster
            .edges_batch(keys, dir, ty)
            .map_err(core)?
            .into_iter()
            .map(|l| l.map(|l| limited(l, limit)))
            .collect())
    }
}
