//! Reading the store: the [`GraphRead`] operations on the latest state ([`Graph`]), a
//! snapshot ([`ReadTxn`]) or a write transaction, and the views they read through.

use crate::catalog::{Catalog, EdgeType};
use crate::engine::KvRead;
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::index::IndexDef;
use crate::key_index::KeyIndex;
use crate::model::{Degree, Direction, Edge, Node, NodeRecord};
use crate::read::View;
use crate::records::*;
use crate::state::Inner;
use crate::value::{NodeKey, Value};
use crate::write::TxnReader;
use std::collections::VecDeque;
use std::sync::Arc;

/// A view's store access: shared (the engine or a snapshot) or a write transaction's own
/// (committed state plus its pending changes).
enum GuardKv<'a> {
    Shared(&'a dyn KvRead),
    Txn(TxnReader<'a>),
}

/// A view's catalog: shared, or borrowed from a write transaction (its own changes included).
enum GuardCat<'a> {
    Shared(Arc<Catalog>),
    Txn(&'a Catalog),
}

/// A view plus what it borrows: the state to read and the catalog to read it with.
#[doc(hidden)]
pub struct ViewGuard<'a> {
    kv: GuardKv<'a>,
    cat: GuardCat<'a>,
    ids: &'a KeyIndex,
    learn: bool,
    fresh: Option<&'a Inner>,
}

impl<'a> ViewGuard<'a> {
    /// The view of the latest committed state, which fills the key index as it reads.
    pub(crate) fn latest(inner: &'a Inner) -> Self {
        ViewGuard {
            kv: GuardKv::Shared(&*inner.engine),
            cat: GuardCat::Shared(inner.catalog()),
            ids: &inner.ids,
            learn: true,
            fresh: Some(inner),
        }
    }

    /// The view of a write transaction: its reader and catalog. The key index is consulted
    /// (a committed mapping never changes) but not filled, since the transaction's reads see
    /// mappings that may never commit.
    pub(crate) fn txn(kv: TxnReader<'a>, cat: &'a Catalog, ids: &'a KeyIndex) -> Self {
        ViewGuard {
            kv: GuardKv::Txn(kv),
            cat: GuardCat::Txn(cat),
            ids,
            learn: false,
            fresh: None,
        }
    }

    pub(crate) fn cat(&self) -> &Catalog {
        match &self.cat {
            GuardCat::Shared(c) => c,
            GuardCat::Txn(c) => c,
        }
    }

    pub(crate) fn v(&self) -> View<'_> {
        View {
            kv: match &self.kv {
                GuardKv::Shared(kv) => *kv,
                GuardKv::Txn(r) => r,
            },
            cat: self.cat(),
            ids: Some(self.ids),
            learn: self.learn,
            fresh: self.fresh,
        }
    }
}

macro_rules! delegate_view {
    ($self:ident) => {
        $self.view_guard()?.v()
    };
}

/// A consistent snapshot of the store. Reads through it all see the same state; a clone
/// shares the snapshot.
#[derive(Clone)]
pub struct ReadTxn {
    pub(crate) version: u64,
    pub(crate) exact: bool,
    pub(crate) kv: Arc<dyn KvRead>,
    pub(crate) cat: Arc<Catalog>,
    pub(crate) g: Arc<Inner>,
}

/// Read operations, on the latest state ([`Graph`]), a snapshot ([`ReadTxn`]) or a write
/// transaction ([`WriteTxn`](crate::WriteTxn): the committed state plus the transaction's own changes).
pub trait GraphRead {
    #[doc(hidden)]
    fn view_guard(&self) -> Result<ViewGuard<'_>>;

    /// The node with this key, if it exists.
    fn node(&self, key: &NodeKey) -> Result<Option<Node>> {
        delegate_view!(self).node(key)
    }
    /// The node with this key with its properties left encoded (see [`NodeRecord`]): for a
    /// caller that reads one or two of many properties.
    fn node_record(&self, key: &NodeKey) -> Result<Option<NodeRecord>> {
        delegate_view!(self).node_record(key)
    }
    /// Whether a live node has this key.
    fn has_node(&self, key: &NodeKey) -> Result<bool> {
        delegate_view!(self).has_node(key)
    }
    /// The edge `src -[ty]-> dst` of a simple type (`dst -[ty]- src` too if undirected).
    fn edge(&self, src: &NodeKey, ty: &str, dst: &NodeKey) -> Result<Option<Edge>> {
        delegate_view!(self).find_edge(src, dst, Some(ty), false)
    }
    /// Every edge `src -[ty]-> dst` as `src`'s adjacency lists them (parallel ones of a
    /// multi-edge type too; for an undirected type, the pair's edge listed from `src`), without
    /// listing `src`'s other edges.
    fn edges_from_to(&self, src: &NodeKey, ty: &str, dst: &NodeKey) -> Result<Vec<Edge>> {
        delegate_view!(self).edges_from_to(src, ty, dst)
    }
    /// The first edge from `src` to `dst` (of type `ty`, or of any type in type-id order),
    /// looking at `dst -> src` too when `either_direction`.
    fn edge_between(
        &self,
        src: &NodeKey,
        dst: &NodeKey,
        ty: Option<&str>,
        either_direction: bool,
    ) -> Result<Option<Edge>> {
        delegate_view!(self).find_edge(src, dst, ty, either_direction)
    }
    /// The edge of a multi-edge type with this stable id, if it exists.
    fn edge_by_id(&self, id: u64) -> Result<Option<Edge>> {
        delegate_view!(self).edge_by_id(id)
    }
    /// Whether an edge `src -> dst` exists (of type `ty` or any), or `dst -> src` too when
    /// `either_direction`. One point lookup per type.
    fn has_edge(&self, src: &NodeKey, dst: &NodeKey, ty: Option<&str>, either_direction: bool) -> Result<bool> {
        delegate_view!(self).has_edge(src, dst, ty, either_direction)
    }
    /// The edges of a node with their properties and weights: one seek plus a sequential
    /// read per direction. `NodeNotFound` if the node does not exist.
    fn edges(&self, key: &NodeKey, dir: Direction, ty: Option<&str>, limit: Option<usize>) -> Result<Vec<Edge>> {
        delegate_view!(self).edges(key, dir, ty, limit)
    }
    /// The distinct neighbour keys of a node, in adjacency order.
    fn neighbors(&self, key: &NodeKey, dir: Direction, ty: Option<&str>, limit: Option<usize>) -> Result<Vec<NodeKey>> {
        delegate_view!(self).neighbors(key, dir, ty, limit)
    }
    /// Degree and weight sum in O(1) from maintained counters.
    fn degree(&self, key: &NodeKey, dir: Direction, ty: Option<&str>) -> Result<Degree> {
        delegate_view!(self).degree(key, dir, ty)
    }
    /// Number of live nodes, in O(1) from a maintained counter.
    fn node_count(&self) -> Result<u64> {
        delegate_view!(self).count(COUNT_NODES)
    }
    /// Number of live edges (every parallel edge counts), in O(1) from a maintained counter.
    fn edge_count(&self) -> Result<u64> {
        delegate_view!(self).count(COUNT_EDGES)
    }
    /// Number of nodes carrying `label`.
    fn label_count(&self, label: &str) -> Result<u64> {
        let g = self.view_guard()?;
        match g.cat().label_id(label) {
            Some(l) => g.v().count(&count_label_key(l)),
            None => Ok(0),
        }
    }
    /// Labels in use with their node counts, by name.
    fn labels(&self) -> Result<Vec<(String, u64)>> {
        delegate_view!(self).labels()
    }
    /// Edge types with their edge counts, by name.
    fn edge_types(&self) -> Result<Vec<(EdgeType, u64)>> {
        delegate_view!(self).edge_types()
    }
    /// Keys of nodes with `label`, in id order.
    fn nodes_with_label(&self, label: &str, limit: Option<usize>) -> Result<Vec<NodeKey>> {
        delegate_view!(self).nodes_with_label(label, limit)
    }
    /// Visits the live nodes in id order, all of them or those with `label`, until `f`
    /// returns false. Nodes are read in chunks and no read is in progress while `f` runs,
    /// so `f` may read the store too. On a [`Graph`] it reads one snapshot taken at the call.
    fn for_each_node(&self, label: Option<&str>, f: &mut dyn FnMut(Node) -> bool) -> Result<()> {
        delegate_view!(self).for_each_node(label, f)
    }
    /// [`GraphRead::for_each_node`] with each node's properties left encoded, for scans that
    /// read a few of them.
    fn for_each_node_record(&self, label: Option<&str>, f: &mut dyn FnMut(NodeRecord) -> bool) -> Result<()> {
        delegate_view!(self).for_each_node_record(label, f)
    }

    // ---- internal ids ----

    /// The internal id of the live node with this key: dense, assigned when the key is
    /// first created, kept while the node lives (and when it is re-created after a delete),
    /// never given to another key (decision 0002). Cypher's `id(n)`.
    fn node_id(&self, key: &NodeKey) -> Result<Option<NodeId>> {
        delegate_view!(self).live_id(key)
    }
    /// The key of the live node with internal id `id`.
    fn node_key(&self, id: NodeId) -> Result<Option<NodeKey>> {
        delegate_view!(self).node_key(id)
    }
    /// The live node with internal id `id`.
    fn node_by_id(&self, id: NodeId) -> Result<Option<Node>> {
        delegate_view!(self).node_by_id(id)
    }

    // ---- property indexes ----

    /// The property indexes, uniqueness constraints' included (`unique`), sorted by label
    /// and property.
    fn indexes(&self) -> Result<Vec<IndexDef>> {
        delegate_view!(self).indexes()
    }
    /// The full-text index definitions, sorted by name.
    fn fulltext_indexes(&self) -> Result<Vec<crate::fulltext::FulltextIndexDef>> {
        delegate_view!(self).fulltext_indexes()
    }
    /// Keys of the live nodes with `label` whose `property` equals `value`, in id order (at
    /// most `limit`), from the index on (label, property): one seek and a scan of the
    /// matches. `None` when no such index exists. Equality is Cypher's: `Int(1)` finds
    /// `Float(1.0)`, lists and maps compare element by element, and null or NaN (or a list
    /// or map holding one) finds nothing.
    fn nodes_by_property(
        &self,
        label: &str,
        property: &str,
        value: &Value,
        limit: Option<usize>,
    ) -> Result<Option<Vec<NodeKey>>> {
        delegate_view!(self).nodes_by_property(label, property, value, limit)
    }

    // ---- batch forms (LightRAG's batch calls) ----

    /// Nodes for many keys; `None` where absent.
    fn nodes_batch(&self, keys: &[NodeKey]) -> Result<Vec<Option<Node>>> {
        delegate_view!(self).nodes(keys)
    }
    /// Degrees for many keys; `None` where the node is absent.
    fn degrees_batch(&self, keys: &[NodeKey], dir: Direction, ty: Option<&str>) -> Result<Vec<Option<Degree>>> {
        delegate_view!(self).degrees(keys, dir, ty)
    }
    /// Edge lists for many keys; `None` where the node is absent.
    fn edges_batch(
        &self,
        keys: &[NodeKey],
        dir: Direction,
        ty: Option<&str>,
        limit: Option<usize>,
    ) -> Result<Vec<Option<Vec<Edge>>>> {
        let g = self.view_guard()?;
        let v = g.v();
        v.warm_ids(keys)?;
        keys.iter()
            .map(|k| absent_as_none(v.edges(k, dir, ty, limit)))
            .collect()
    }
    /// Edges between many pairs; `None` where no such edge exists.
    fn edges_between_batch(
        &self,
        pairs: &[(NodeKey, NodeKey)],
        ty: Option<&str>,
        either_direction: bool,
    ) -> Result<Vec<Option<Edge>>> {
        delegate_view!(self).find_edges(pairs, ty, either_direction)
    }
}

fn absent_as_none<T>(r: Result<T>) -> Result<Option<T>> {
    match r {
        Ok(x) => Ok(Some(x)),
        Err(Error::NodeNotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

impl GraphRead for Graph {
    fn view_guard(&self) -> Result<ViewGuard<'_>> {
        Ok(self.view())
    }
    // Scans and index lookups run on one snapshot: a scan sees one state, and an index
    // entry never outlives the node it names.
    fn for_each_node(&self, label: Option<&str>, f: &mut dyn FnMut(Node) -> bool) -> Result<()> {
        self.read().for_each_node(label, f)
    }
    fn for_each_node_record(&self, label: Option<&str>, f: &mut dyn FnMut(NodeRecord) -> bool) -> Result<()> {
        self.read().for_each_node_record(label, f)
    }
    fn nodes_by_property(
        &self,
        label: &str,
        property: &str,
        value: &Value,
        limit: Option<usize>,
    ) -> Result<Option<Vec<NodeKey>>> {
        self.read().nodes_by_property(label, property, value, limit)
    }
    // Batch reads on the latest state run on one snapshot, so they see one state.
    fn nodes_batch(&self, keys: &[NodeKey]) -> Result<Vec<Option<Node>>> {
        self.read().nodes_batch(keys)
    }
    fn degrees_batch(&self, keys: &[NodeKey], dir: Direction, ty: Option<&str>) -> Result<Vec<Option<Degree>>> {
        self.read().degrees_batch(keys, dir, ty)
    }
    fn edges_batch(
        &self,
        keys: &[NodeKey],
        dir: Direction,
        ty: Option<&str>,
        limit: Option<usize>,
    ) -> Result<Vec<Option<Vec<Edge>>>> {
        self.read().edges_batch(keys, dir, ty, limit)
    }
    fn edges_between_batch(
        &self,
        pairs: &[(NodeKey, NodeKey)],
        ty: Option<&str>,
        either_direction: bool,
    ) -> Result<Vec<Option<Edge>>> {
        self.read().edges_between_batch(pairs, ty, either_direction)
    }
}

impl GraphRead for ReadTxn {
    fn view_guard(&self) -> Result<ViewGuard<'_>> {
        // The catalog was read after the snapshot was taken, so it knows all of its data.
        Ok(ViewGuard {
            kv: GuardKv::Shared(&*self.kv),
            cat: GuardCat::Shared(self.cat.clone()),
            ids: &self.g.ids,
            learn: true,
            fresh: None,
        })
    }
}

impl ReadTxn {
    /// Streams every node of this snapshot in id order, fetching `chunk` nodes at a time.
    pub fn scan_nodes(&self, chunk: usize) -> NodeScan {
        NodeScan {
            kv: self.kv.clone(),
            cat: self.cat.clone(),
            next: 1,
            buf: VecDeque::new(),
            chunk: chunk.max(1),
            done: false,
        }
    }
}

impl Graph {
    /// Streams every node (of a snapshot taken now) in id order, in bounded memory.
    pub fn scan_nodes(&self) -> NodeScan {
        self.read().scan_nodes(1024)
    }
}

/// A streaming scan over the nodes of a snapshot.
pub struct NodeScan {
    kv: Arc<dyn KvRead>,
    cat: Arc<Catalog>,
    next: NodeId,
    buf: VecDeque<Node>,
    chunk: usize,
    done: bool,
}

impl Iterator for NodeScan {
    type Item = Result<Node>;
    fn next(&mut self) -> Option<Result<Node>> {
        if self.buf.is_empty() && !self.done {
            let v = View {
                kv: &*self.kv,
                cat: &self.cat,
                ids: None,
                learn: false,
                fresh: None,
            };
            let (chunk, mut last) = (self.chunk, None);
            let mut got = Vec::with_capacity(chunk);
            if let Err(e) = v.scan_nodes(self.next, &mut |id, rec| {
                got.push(rec);
                last = Some(id);
                got.len() < chunk
            }) {
                self.done = true;
                return Some(Err(e));
            }
            match last {
                Some(id) if got.len() == chunk => self.next = id + 1,
                _ => self.done = true,
            }
            self.buf.extend(got.into_iter().map(|r| v.to_node(r)));
        }
        self.buf.pop_front().map(Ok)
    }
}
