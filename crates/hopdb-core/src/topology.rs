//! Id-level access to the graph's structure on a snapshot, for traversals and projections
//! (crate `hopdb-analytics`): internal node ids instead of keys, adjacency entries whose
//! properties are never decoded, and the store version a projection is built at.

use crate::engine::Cf;
use crate::error::{corrupt_rec, Result};
use crate::graph_read::{GraphRead, ReadTxn};
use crate::model::Direction;
use crate::read::{scan_node_records, Side};
use crate::records::{parse_adj_key, AdjKey, EdgeRec, NodeId, NodeRec, TypeId};
use crate::value::NodeKey;

/// One adjacency entry as seen from the node it was listed from.
pub struct Adjacent<'a> {
    /// The node the entry was listed from.
    pub node: NodeId,
    /// The node at the other end.
    pub nbr: NodeId,
    /// The edge type's id (see [`ReadTxn::edge_type_ids`]).
    pub ty: u32,
    /// True when listed from the `in` side: the edge is `nbr -> node`.
    pub incoming: bool,
    /// The store's id of a multi-edge (0 for simple types, whose edge is `(src, type, dst)`).
    pub multi_id: u64,
    record: &'a [u8],
}

impl Adjacent<'_> {
    /// The neighbour's key (decoded from the edge record: no extra lookup).
    pub fn nbr_key(&self) -> Result<NodeKey> {
        Ok(EdgeRec::decode_head(self.record)?.0)
    }
    /// The edge's weight, if it has one.
    pub fn weight(&self) -> Result<Option<f64>> {
        Ok(EdgeRec::decode_head(self.record)?.1)
    }
}

/// Which edge types a traversal follows, resolved once against a snapshot's catalog.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum TypeFilter {
    /// Every type.
    #[default]
    All,
    /// Only these type ids (an empty list follows nothing: the names did not exist).
    Only(Vec<u32>),
}

impl ReadTxn {
    /// The store version this snapshot holds every commit of. A version read from
    /// [`crate::Graph::version`] later that differs means the store may have changed since.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// True when this snapshot holds exactly the commits up to [`ReadTxn::version`] (no commit
    /// was being published while it was taken), so changes after that version, applied to
    /// data derived from it, give exactly a later state.
    pub fn is_exact(&self) -> bool {
        self.exact
    }

    /// The live node's id for `key` ([`GraphRead::node_id`], callable without the trait).
    pub fn node_id(&self, key: &NodeKey) -> Result<Option<NodeId>> {
        GraphRead::node_id(self, key)
    }

    /// [`ReadTxn::node_id`] for many keys, in two batched reads.
    pub fn node_ids(&self, keys: &[NodeKey]) -> Result<Vec<Option<NodeId>>> {
        let ids = self.mapped_ids(keys)?;
        let live = self.live(&ids)?;
        Ok(ids.into_iter().zip(live).map(|(id, l)| id.filter(|_| l)).collect())
    }

    /// The ids many keys map to, live or not, in one batched read of the key index (no
    /// node record read).
    pub fn mapped_ids(&self, keys: &[NodeKey]) -> Result<Vec<Option<NodeId>>> {
        self.view_guard()?.v().node_ids(keys)
    }

    /// Whether each id is a live node (`None`: false), in one batched read of the records of
    /// the ids given.
    pub fn live(&self, ids: &[Option<NodeId>]) -> Result<Vec<bool>> {
        let recs = self.view_guard()?.v().node_values(ids)?;
        Ok(recs.iter().map(Option::is_some).collect())
    }

    /// The id `key` maps to, live or not (ids are never reused: decision 0002).
    pub fn mapped_id(&self, key: &NodeKey) -> Result<Option<NodeId>> {
        self.view_guard()?.v().node_id(key)
    }

    /// The key of the live node `id`.
    pub fn node_key_of(&self, id: NodeId) -> Result<Option<NodeKey>> {
        self.kv
            .get(Cf::Nodes, &crate::records::id_bytes(id))?
            .map(|b| NodeRec::decode_key(&b))
            .transpose()
    }

    /// Resolves edge-type names; unknown names match nothing (`None` = every type).
    pub fn type_filter(&self, names: Option<&[&str]>) -> TypeFilter {
        match names {
            None => TypeFilter::All,
            Some(names) => TypeFilter::Only(
                names
                    .iter()
                    .filter_map(|n| self.cat.type_named(n).map(|t| t.id))
                    .collect(),
            ),
        }
    }

    /// Every edge type as (id, name, undirected).
    pub fn edge_type_ids(&self) -> Vec<(u32, String, bool)> {
        self.cat
            .types()
            .map(|t| (t.id, t.name.to_string(), t.options.undirected))
            .collect()
    }

    /// Visits the adjacency entries of node `id` in `dir` (of the filtered types) until `f`
    /// returns false: one seek per column family and type. An undirected edge is listed
    /// once from each end, as outgoing.
    pub fn for_each_adjacent(
        &self,
        id: NodeId,
        dir: Direction,
        types: &TypeFilter,
        f: &mut dyn FnMut(&Adjacent<'_>) -> bool,
    ) -> Result<()> {
        self.for_each_adjacent_many(&[id], dir, types, &mut |_, a| f(a))
    }

    /// [`ReadTxn::for_each_adjacent`] for many nodes in one pass per family and type (forward
    /// seeks of one iterator, in id order): `f` gets the node's index in `ids` and returns
    /// false to stop listing that node.
    pub fn for_each_adjacent_many(
        &self,
        ids: &[NodeId],
        dir: Direction,
        types: &TypeFilter,
        f: &mut dyn FnMut(usize, &Adjacent<'_>) -> bool,
    ) -> Result<()> {
        let g = self.view_guard()?;
        let v = g.v();
        let mut visit = |i: usize, side: Side, a: &AdjKey, rec: &[u8]| {
            f(
                i,
                &Adjacent {
                    node: a.node,
                    nbr: a.nbr,
                    ty: a.ty,
                    incoming: side == Side::In,
                    multi_id: a.eid,
                    record: rec,
                },
            )
        };
        match types {
            TypeFilter::All => v.for_each_adj_many(ids, dir, None, &mut visit),
            TypeFilter::Only(tys) => {
                // A node whose listing was stopped is left out of the next types' passes.
                let mut open: Vec<usize> = (0..ids.len()).collect();
                for &ty in tys {
                    let Some(t) = self.cat.type_by_id(ty) else { continue };
                    if open.is_empty() {
                        break;
                    }
                    let sub: Vec<NodeId> = open.iter().map(|&i| ids[i]).collect();
                    let mut stopped = vec![false; open.len()];
                    v.for_each_adj_many(&sub, dir, Some(t), &mut |j, s, a, r| {
                        let go = visit(open[j], s, a, r);
                        stopped[j] = !go;
                        go
                    })?;
                    open = open
                        .into_iter()
                        .zip(stopped)
                        .filter(|(_, s)| !s)
                        .map(|(i, _)| i)
                        .collect();
                }
                Ok(())
            }
        }
    }

    /// Visits every live node as (id, key) in id order, until `f` returns false.
    pub fn scan_node_keys(&self, f: &mut dyn FnMut(NodeId, NodeKey) -> bool) -> Result<()> {
        scan_node_records(&*self.kv, 0, |_, b| NodeRec::decode_key(b), f)
    }

    /// [`ReadTxn::scan_node_keys`] with each node's labels as a mask: bit `l` is set for the
    /// label [`ReadTxn::label_id_named`] gives id `l`; `None` when one of the node's label
    /// ids is 64 or more.
    pub fn scan_node_keys_labels(&self, f: &mut dyn FnMut(NodeId, (NodeKey, Option<u64>)) -> bool) -> Result<()> {
        scan_node_records(&*self.kv, 0, |_, b| NodeRec::decode_key_label_mask(b), f)
    }

    /// The catalog id of the label named `name`, if any node ever had it.
    pub fn label_id_named(&self, name: &str) -> Option<u32> {
        self.cat.label_id(name)
    }

    /// Visits every stored outgoing adjacency entry in (source, type, target) order: each
    /// directed edge once, each undirected edge twice (once from each end; a self-loop once).
    pub fn scan_out_edges(&self, f: &mut dyn FnMut(&Adjacent<'_>) -> bool) -> Result<()> {
        let mut bad = false;
        self.kv.scan(Cf::Out, &[], &[], &mut |k, v| {
            let Some(a) = parse_adj_key(k) else {
                bad = true;
                return false;
            };
            f(&Adjacent {
                node: a.node,
                nbr: a.nbr,
                ty: a.ty,
                incoming: false,
                multi_id: a.eid,
                record: v,
            })
        })?;
        if bad {
            return Err(corrupt_rec("adjacency key"));
        }
        Ok(())
    }

    /// The declared edge type with catalog id `id` (name, direction, multiplicity).
    pub fn edge_type_by_id(&self, id: u32) -> Option<&crate::catalog::EdgeType> {
        self.cat.type_by_id(id as TypeId)
    }

    /// The declared edge type named `name`, if any.
    pub fn edge_type_named(&self, name: &str) -> Option<&crate::catalog::EdgeType> {
        self.cat.type_named(name)
    }

    /// Every declared edge type.
    pub fn declared_edge_types(&self) -> impl Iterator<Item = &crate::catalog::EdgeType> {
        self.cat.types()
    }

    /// Whether edge type `ty` is undirected.
    pub fn is_undirected_type(&self, ty: u32) -> bool {
        self.cat.type_by_id(ty as TypeId).is_some_and(|t| t.options.undirected)
    }
}
