//! Read operations, written once over any [`KvRead`]: the latest state, a snapshot, or a
//! write transaction's own view. [`crate::GraphRead`] exposes them on `Graph`, `ReadTxn` and
//! `WriteTxn`.

use crate::catalog::{Catalog, EdgeType};
use crate::counters::{decode_count, Deg, DegSet};
use crate::engine::{Cf, KvRead};
use crate::error::{corrupt_rec, Error, Result};
use crate::index::{def_key, holders, parse_def, IndexDef, IndexSpec, Probe};
use crate::key_index::KeyIndex;
use crate::model::{Degree, Direction, Edge, Node, NodeRecord};
use crate::records::*;
use crate::value::{NodeKey, Value};
use std::collections::HashSet;
use std::sync::Arc;

/// What [`View::for_each_adj_many`] calls per entry: (node index, side, key, record); false
/// stops that node's listing.
pub(crate) type AdjVisitMany<'a> = dyn FnMut(usize, Side, &AdjKey, &[u8]) -> bool + 'a;

/// Which column family an adjacency entry came from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Side {
    Out,
    In,
}

/// A read-only view over one state of the store.
pub(crate) struct View<'a> {
    pub kv: &'a dyn KvRead,
    pub cat: &'a Catalog,
    pub ids: Option<&'a KeyIndex>,
    /// Whether ids read from the store go into `ids`. False for a write transaction's view,
    /// whose reads see key mappings that are not committed (and may never be).
    pub learn: bool,
    /// For reads of the latest state: the store, whose current catalog knows every type and
    /// label of data committed after `cat` was taken (writers publish them first).
    pub fresh: Option<&'a crate::state::Inner>,
}

impl View<'_> {
    /// The node id a key maps to (the node itself may have been deleted).
    pub(crate) fn node_id(&self, key: &NodeKey) -> Result<Option<NodeId>> {
        if let Some(id) = self.ids.and_then(|c| c.get(key)) {
            return Ok(Some(id));
        }
        match self.kv.get(Cf::Keys, &key.encode())? {
            Some(v) => self.remember_id(key, &v).map(Some),
            None => Ok(None),
        }
    }

    /// Parses a key mapping read from the store and puts it in the id cache.
    fn remember_id(&self, key: &NodeKey, mapping: &[u8]) -> Result<NodeId> {
        let (id, _) = parse_key_value(mapping).ok_or_else(|| corrupt_rec("key mapping"))?;
        if let Some(c) = self.ids.filter(|_| self.learn) {
            c.insert(key, id);
        }
        Ok(id)
    }

    pub(crate) fn node_rec(&self, id: NodeId) -> Result<Option<NodeRec>> {
        self.kv
            .get(Cf::Nodes, &id_bytes(id))?
            .map(|v| NodeRec::decode(&v))
            .transpose()
    }

    fn node_live(&self, id: NodeId) -> Result<bool> {
        Ok(self.kv.get(Cf::Nodes, &id_bytes(id))?.is_some())
    }

    pub(crate) fn to_node(&self, rec: NodeRec) -> Node {
        Node {
            key: rec.key,
            labels: rec.labels.iter().filter_map(|l| self.label_name(*l)).collect(),
            props: rec.props,
        }
    }

    /// The ids of many keys (live or not): the id cache, then one sorted multi-get.
    pub(crate) fn node_ids(&self, keys: &[NodeKey]) -> Result<Vec<Option<NodeId>>> {
        let mut ids = vec![None; keys.len()];
        let mut misses: Vec<(Vec<u8>, usize)> = Vec::new();
        for (i, k) in keys.iter().enumerate() {
            match self.ids.and_then(|c| c.get(k)) {
                Some(id) => ids[i] = Some(id),
                None => misses.push((k.encode(), i)),
            }
        }
        misses.sort_unstable();
        let (enc, at): (Vec<Vec<u8>>, Vec<usize>) = misses.into_iter().unzip();
        for (i, v) in at.into_iter().zip(self.kv.multi_get(Cf::Keys, &enc)?) {
            if let Some(v) = v {
                ids[i] = Some(self.remember_id(&keys[i], &v)?);
            }
        }
        Ok(ids)
    }

    /// Resolves many keys into the id cache in one batched read, so the per-key reads of a
    /// batch call that follow find their ids there (nothing to do without a cache).
    pub(crate) fn warm_ids(&self, keys: &[NodeKey]) -> Result<()> {
        if self.ids.is_some() && self.learn && keys.len() > 1 {
            self.node_ids(keys)?;
        }
        Ok(())
    }

    /// The raw records of many node ids, in order (`None`: no such live node): one sorted
    /// multi-get, so a batch shares RocksDB's index and filter lookups.
    pub(crate) fn node_values(&self, ids: &[Option<NodeId>]) -> Result<Vec<Option<Vec<u8>>>> {
        self.values_by_id(Cf::Nodes, ids, |id| id_bytes(id).to_vec())
    }

    /// The values of family `cf` under `key(id)` for many ids, in order (`None` for a `None`
    /// id or no value): one multi-get in id order, which is key order for id-keyed families.
    fn values_by_id(
        &self,
        cf: Cf,
        ids: &[Option<NodeId>],
        key: impl Fn(NodeId) -> Vec<u8>,
    ) -> Result<Vec<Option<Vec<u8>>>> {
        let mut want: Vec<(NodeId, usize)> = ids
            .iter()
            .enumerate()
            .filter_map(|(i, id)| id.map(|id| (id, i)))
            .collect();
        want.sort_unstable();
        let enc: Vec<Vec<u8>> = want.iter().map(|(id, _)| key(*id)).collect();
        let mut out = vec![None; ids.len()];
        for ((_, i), v) in want.iter().zip(self.kv.multi_get(cf, &enc)?) {
            out[*i] = v;
        }
        Ok(out)
    }

    /// [`View::node`] for many keys, batched.
    pub(crate) fn nodes(&self, keys: &[NodeKey]) -> Result<Vec<Option<Node>>> {
        self.node_values(&self.node_ids(keys)?)?
            .into_iter()
            .map(|v| v.map(|v| NodeRec::decode(&v).map(|r| self.to_node(r))).transpose())
            .collect()
    }

    pub(crate) fn node(&self, key: &NodeKey) -> Result<Option<Node>> {
        let Some(id) = self.node_id(key)? else { return Ok(None) };
        Ok(self.node_rec(id)?.map(|r| self.to_node(r)))
    }

    /// [`View::node`] with the properties left encoded: one point read, labels named, no
    /// property decoded until one is asked for.
    pub(crate) fn node_record(&self, key: &NodeKey) -> Result<Option<NodeRecord>> {
        let Some(id) = self.node_id(key)? else { return Ok(None) };
        let Some(v) = self.kv.get(Cf::Nodes, &id_bytes(id))? else {
            return Ok(None);
        };
        let (key, labels, props) = NodeRec::decode_lazy(&v)?;
        let names = NodeRec::label_ids(labels)?
            .iter()
            .filter_map(|&l| self.label_arc(l))
            .collect();
        Ok(Some(NodeRecord::new(id, key, names, props.to_vec())))
    }

    pub(crate) fn has_node(&self, key: &NodeKey) -> Result<bool> {
        match self.node_id(key)? {
            Some(id) => self.node_live(id),
            None => Ok(false),
        }
    }

    /// The id of the live node with this key.
    pub(crate) fn live_id(&self, key: &NodeKey) -> Result<Option<NodeId>> {
        match self.node_id(key)? {
            Some(id) if self.node_live(id)? => Ok(Some(id)),
            _ => Ok(None),
        }
    }

    /// The key of the live node `id`.
    pub(crate) fn node_key(&self, id: NodeId) -> Result<Option<NodeKey>> {
        self.kv
            .get(Cf::Nodes, &id_bytes(id))?
            .map(|v| NodeRec::decode_key(&v))
            .transpose()
    }

    /// The live node `id`.
    pub(crate) fn node_by_id(&self, id: NodeId) -> Result<Option<Node>> {
        Ok(self.node_rec(id)?.map(|r| self.to_node(r)))
    }

    /// Visits the live nodes (with `label`, or all) in id order until `f` returns false,
    /// reading them in chunks: no read is in progress while `f` runs.
    pub(crate) fn for_each_node(&self, label: Option<&str>, f: &mut dyn FnMut(Node) -> bool) -> Result<()> {
        let mut err = None;
        self.for_each_node_record(label, &mut |rec| match rec.to_node() {
            Ok(n) => f(n),
            Err(e) => {
                err = Some(e);
                false
            }
        })?;
        err.map_or(Ok(()), Err)
    }

    /// [`View::for_each_node`] with each node's properties left encoded.
    pub(crate) fn for_each_node_record(
        &self,
        label: Option<&str>,
        f: &mut dyn FnMut(NodeRecord) -> bool,
    ) -> Result<()> {
        const CHUNK: usize = 256;
        let label = match label {
            None => None,
            Some(name) => match self.cat.label_id(name) {
                Some(l) => Some(l),
                None => return Ok(()),
            },
        };
        // A label held by most nodes is read by scanning the records in order and skipping
        // the others: a label-index entry plus a point read per node cost about twice a
        // sequential step (twitch-DE, every node labelled: 13.7 against 7.6 ms a scan).
        let by_index = match label {
            Some(l) => self.count(&count_label_key(l))?.saturating_mul(2) <= self.count(COUNT_NODES)?,
            None => false,
        };
        // Nodes with the same labels share one list of names (most scans see one or two
        // label sets), found by comparing the encoded lists: no allocation per node for them.
        // The record of a node without `label` is not built.
        let seen_labels: std::cell::RefCell<LabelSet> = Default::default();
        let record = |id: NodeId, b: &[u8]| -> Result<Option<NodeRecord>> {
            let (key, labels, props) = NodeRec::decode_lazy(b)?;
            let mut last = seen_labels.borrow_mut();
            if last.encoded != labels {
                let ids = NodeRec::label_ids(labels)?;
                *last = LabelSet {
                    encoded: labels.to_vec(),
                    wanted: label.is_none_or(|l| ids.contains(&l)),
                    names: ids.iter().filter_map(|&l| self.label_arc(l)).collect(),
                };
            }
            Ok(last
                .wanted
                .then(|| NodeRecord::new(id, key, last.names.clone(), props.to_vec())))
        };
        let mut from: NodeId = 0;
        loop {
            let mut recs = Vec::with_capacity(CHUNK);
            // The last id this chunk looked at, and whether the chunk was full (more may follow).
            let (last, full) = if by_index {
                let l = label.unwrap_or_default();
                let mut ids = Vec::with_capacity(CHUNK);
                let p = l.to_be_bytes();
                let mut bad = false;
                self.kv.scan(Cf::Labels, &p, &label_key(l, from), &mut |k, _| {
                    match k.get(4..).and_then(parse_id) {
                        Some(id) => ids.push(Some(id)),
                        None => bad = true,
                    }
                    !bad && ids.len() < CHUNK
                })?;
                if bad {
                    return Err(corrupt_rec("label index entry"));
                }
                for (id, v) in ids.iter().zip(self.node_values(&ids)?) {
                    let v = v.ok_or_else(|| corrupt_rec("label index entry of a missing node"))?;
                    recs.extend(record(id.unwrap_or_default(), &v)?);
                }
                (ids.last().copied().flatten(), ids.len() == CHUNK)
            } else {
                let (mut seen, mut last) = (0, None);
                scan_node_records(self.kv, from, record, &mut |id, rec| {
                    recs.extend(rec);
                    (seen, last) = (seen + 1, Some(id));
                    seen < CHUNK
                })?;
                (last, seen == CHUNK)
            };
            for rec in recs {
                if !f(rec) {
                    return Ok(());
                }
            }
            match last {
                Some(last) if full => from = last + 1,
                _ => return Ok(()),
            }
        }
    }

    /// The index definitions this view's data holds (read from `meta`, not the catalog, so
    /// a snapshot never lists an index whose entries it does not have).
    /// The full-text index definitions, by name.
    pub(crate) fn fulltext_indexes(&self) -> Result<Vec<crate::fulltext::FulltextIndexDef>> {
        self.meta_entries(
            META_FULLTEXT_PREFIX,
            crate::fulltext::decode,
            "full-text index definition",
        )
    }

    pub(crate) fn index_specs(&self) -> Result<Vec<IndexSpec>> {
        self.meta_entries(META_INDEX_PREFIX, parse_def, "property index definition")
    }

    /// Every `meta` entry under `prefix`, decoded; a corruption error naming `what` when one
    /// does not decode.
    fn meta_entries<T>(
        &self,
        prefix: &[u8],
        decode: impl Fn(&[u8], &[u8]) -> Option<T>,
        what: &'static str,
    ) -> Result<Vec<T>> {
        let mut out = Vec::new();
        let mut bad = false;
        self.kv.scan(Cf::Meta, prefix, prefix, &mut |k, v| match decode(k, v) {
            Some(d) => {
                out.push(d);
                true
            }
            None => {
                bad = true;
                false
            }
        })?;
        if bad {
            return Err(corrupt_rec(what));
        }
        Ok(out)
    }

    /// The property indexes, sorted by label and property.
    pub(crate) fn indexes(&self) -> Result<Vec<IndexDef>> {
        let mut out = Vec::new();
        for s in self.index_specs()? {
            let label = self
                .label_name(s.label)
                .ok_or_else(|| corrupt_rec("property index of an unknown label"))?;
            out.push(IndexDef {
                label,
                property: s.property.to_string(),
                unique: s.unique,
                entries: self.count(&count_index_key(s.id))?,
            });
        }
        out.sort_by(|a, b| (&a.label, &a.property).cmp(&(&b.label, &b.property)));
        Ok(out)
    }

    /// The definition of the index on (label, property) in this view's data.
    pub(crate) fn index_spec(&self, label: &str, property: &str) -> Result<Option<IndexSpec>> {
        let Some(l) = self.lookup(|c| c.label_id(label)) else {
            return Ok(None);
        };
        match self.kv.get(Cf::Meta, &def_key(l, property))? {
            None => Ok(None),
            Some(v) => parse_def(&def_key(l, property), &v)
                .map(Some)
                .ok_or_else(|| corrupt_rec("property index definition")),
        }
    }

    /// Keys of the live nodes with `label` whose `property` equals `value` (as in Cypher), in
    /// id order, through the index on (label, property); `None` when there is no such index.
    pub(crate) fn nodes_by_property(
        &self,
        label: &str,
        property: &str,
        value: &Value,
        limit: Option<usize>,
    ) -> Result<Option<Vec<NodeKey>>> {
        let Some(spec) = self.index_spec(label, property)? else {
            return Ok(None);
        };
        let Some(probe) = Probe::of(value) else {
            return Ok(Some(Vec::new()));
        };
        let ids: Vec<Option<NodeId>> = holders(self.kv, &spec, &probe, limit.unwrap_or(usize::MAX))?
            .into_iter()
            .map(Some)
            .collect();
        self.node_values(&ids)?
            .into_iter()
            .map(|v| NodeRec::decode_key(&v.ok_or_else(|| corrupt_rec("property index entry of a missing node"))?))
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }

    fn type_filter(&self, ty: Option<&str>) -> Result<Option<Option<&EdgeType>>> {
        // Outer None: the named type does not exist, so nothing can match.
        Ok(match ty {
            None => Some(None),
            Some(name) => self.cat.type_named(name).map(Some),
        })
    }

    /// Visits the adjacency entries of node `id` in `dir`, optionally of one type, until
    /// `f` returns false.
    pub(crate) fn for_each_adj(
        &self,
        id: NodeId,
        dir: Direction,
        ty: Option<&EdgeType>,
        f: &mut dyn FnMut(Side, &AdjKey, &[u8]) -> bool,
    ) -> Result<()> {
        self.for_each_adj_many(&[id], dir, ty, &mut |_, side, a, v| f(side, a, v))
    }

    /// [`View::for_each_adj`] for many nodes: `f` gets the index of the node in `ids` and
    /// returns false to stop listing that node. One iterator per family visits the nodes in
    /// id order, so a batch costs forward seeks instead of an iterator per node; each node's
    /// entries still come in the order a single listing gives (`out`, then `in`).
    pub(crate) fn for_each_adj_many(
        &self,
        ids: &[NodeId],
        dir: Direction,
        ty: Option<&EdgeType>,
        f: &mut AdjVisitMany<'_>,
    ) -> Result<()> {
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| ids[i]);
        let mut go = vec![true; ids.len()];
        let mut scan = |cf: Cf, typed: Option<TypeId>, skip_self: bool, only_und: bool| -> Result<()> {
            let live: Vec<usize> = order.iter().copied().filter(|&i| go[i]).collect();
            let prefixes: Vec<Vec<u8>> = live
                .iter()
                .map(|&i| match typed {
                    Some(t) => node_type_prefix(ids[i], t).to_vec(),
                    None => node_prefix(ids[i]).to_vec(),
                })
                .collect();
            let refs: Vec<&[u8]> = prefixes.iter().map(Vec::as_slice).collect();
            let side = if cf == Cf::Out { Side::Out } else { Side::In };
            let mut bad = false;
            self.kv.scan_prefixes(cf, &refs, &mut |j, k, v| {
                let Some(a) = parse_adj_key(k) else {
                    bad = true;
                    return false;
                };
                if (skip_self && a.nbr == a.node) || (only_und && !self.is_undirected(a.ty)) {
                    return true;
                }
                let i = live[j];
                go[i] = f(i, side, &a, v);
                go[i]
            })?;
            if bad {
                return Err(corrupt_rec("adjacency key"));
            }
            Ok(())
        };
        match ty {
            Some(t) => {
                let p = Some(t.id);
                if t.options.undirected {
                    scan(Cf::Out, p, false, false)?;
                } else {
                    match dir {
                        Direction::Out => scan(Cf::Out, p, false, false)?,
                        Direction::In => scan(Cf::In, p, false, false)?,
                        Direction::Both => {
                            scan(Cf::Out, p, false, false)?;
                            scan(Cf::In, p, true, false)?;
                        }
                    }
                }
            }
            None => match dir {
                Direction::Out => scan(Cf::Out, None, false, false)?,
                Direction::In => {
                    scan(Cf::In, None, false, false)?;
                    if self.lookup(|c| c.any_undirected.then_some(())).is_some() {
                        scan(Cf::Out, None, false, true)?;
                    }
                }
                Direction::Both => {
                    scan(Cf::Out, None, false, false)?;
                    scan(Cf::In, None, true, false)?;
                }
            },
        }
        Ok(())
    }

    /// Looks something up in this view's catalog, then (for latest-state views) in the
    /// store's current one, which knows the types and labels of anything committed since.
    fn lookup<T>(&self, f: impl Fn(&Catalog) -> Option<T>) -> Option<T> {
        f(self.cat).or_else(|| self.fresh.and_then(|g| f(&g.catalog())))
    }

    fn type_name(&self, ty: TypeId) -> Result<Arc<str>> {
        self.lookup(|c| c.type_by_id(ty).map(|t| t.name.clone()))
            .ok_or_else(|| corrupt_rec("edge of an unknown type"))
    }

    fn is_undirected(&self, ty: TypeId) -> bool {
        self.lookup(|c| c.type_by_id(ty).map(|t| t.options.undirected))
            .unwrap_or(false)
    }

    fn label_name(&self, l: TypeId) -> Option<String> {
        self.label_arc(l).map(|n| n.to_string())
    }

    fn label_arc(&self, l: TypeId) -> Option<Arc<str>> {
        self.lookup(|c| c.label_name(l).cloned())
    }

    pub(crate) fn make_edge(&self, me: &NodeKey, side: Side, a: &AdjKey, v: &[u8]) -> Result<Edge> {
        let (nbr, weight, props) = EdgeRec::decode_parts(v)?;
        let (src, dst) = match side {
            Side::Out => (me.clone(), nbr),
            Side::In => (nbr, me.clone()),
        };
        Ok(Edge {
            src,
            ty: self.type_name(a.ty)?,
            dst,
            id: a.eid,
            weight,
            props,
        })
    }

    pub(crate) fn edges(
        &self,
        key: &NodeKey,
        dir: Direction,
        ty: Option<&str>,
        limit: Option<usize>,
    ) -> Result<Vec<Edge>> {
        let id = self
            .node_id(key)?
            .ok_or_else(|| Error::NodeNotFound { key: key.to_string() })?;
        let mut out = Vec::new();
        if let Some(t) = self.type_filter(ty)? {
            let limit = limit.unwrap_or(usize::MAX);
            let mut err = None;
            if limit > 0 {
                self.for_each_adj(id, dir, t, &mut |side, a, v| match self.make_edge(key, side, a, v) {
                    Ok(e) => {
                        out.push(e);
                        out.len() < limit
                    }
                    Err(e) => {
                        err = Some(e);
                        false
                    }
                })?;
            }
            if let Some(e) = err {
                return Err(e);
            }
        }
        // A node with edges is alive (deleting a node deletes its edges in the same batch).
        if out.is_empty() && !self.node_live(id)? {
            return Err(Error::NodeNotFound { key: key.to_string() });
        }
        Ok(out)
    }

    pub(crate) fn neighbors(
        &self,
        key: &NodeKey,
        dir: Direction,
        ty: Option<&str>,
        limit: Option<usize>,
    ) -> Result<Vec<NodeKey>> {
        let id = self
            .node_id(key)?
            .ok_or_else(|| Error::NodeNotFound { key: key.to_string() })?;
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        let mut any = false;
        if let Some(t) = self.type_filter(ty)? {
            let limit = limit.unwrap_or(usize::MAX);
            let mut err = None;
            if limit > 0 {
                self.for_each_adj(id, dir, t, &mut |_, a, v| {
                    any = true;
                    if seen.insert(a.nbr) {
                        match EdgeRec::decode_head(v) {
                            Ok((nbr, _)) => out.push(nbr),
                            Err(e) => {
                                err = Some(e);
                                return false;
                            }
                        }
                    }
                    out.len() < limit
                })?;
            }
            if let Some(e) = err {
                return Err(e);
            }
        }
        if !any && !self.node_live(id)? {
            return Err(Error::NodeNotFound { key: key.to_string() });
        }
        Ok(out)
    }

    pub(crate) fn deg_counters(&self, id: NodeId) -> Result<DegSet> {
        match self.kv.get(Cf::Deg, &deg_key(id))? {
            Some(v) => DegSet::decode(&v).ok_or_else(|| corrupt_rec("degree counter")),
            None => Ok(DegSet::default()),
        }
    }

    pub(crate) fn degree(&self, key: &NodeKey, dir: Direction, ty: Option<&str>) -> Result<Degree> {
        let id = self
            .node_id(key)?
            .ok_or_else(|| Error::NodeNotFound { key: key.to_string() })?;
        let (d, has_edges) = match self.type_filter(ty)? {
            None => (Deg::default(), false),
            Some(t) => {
                let set = self.deg_counters(id)?;
                let any = set.has_edges();
                (pick_deg(set, t), any)
            }
        };
        let (count, weight_sum) = deg_along(&d, dir);
        // Only a node without any edge may be a deleted one: read its record then alone.
        if count == 0 && !has_edges && !self.node_live(id)? {
            return Err(Error::NodeNotFound { key: key.to_string() });
        }
        Ok(Degree {
            count: count.max(0) as u64,
            weight_sum,
        })
    }

    /// [`View::degree`] for many keys (`None`: no such live node): one multi-get for the
    /// keys' ids and one for their counters, instead of a cold point read per key and family.
    pub(crate) fn degrees(&self, keys: &[NodeKey], dir: Direction, ty: Option<&str>) -> Result<Vec<Option<Degree>>> {
        let ids = self.node_ids(keys)?;
        // Per key: the count and weight sum along `dir`, and whether the node has any edge.
        let mut counts: Vec<(i64, f64, bool)> = vec![(0, 0.0, false); keys.len()];
        if let Some(t) = self.type_filter(ty)? {
            let sets = self.values_by_id(Cf::Deg, &ids, |id| deg_key(id).to_vec())?;
            for (c, v) in counts.iter_mut().zip(sets) {
                let set = match v {
                    Some(v) => DegSet::decode(&v).ok_or_else(|| corrupt_rec("degree counter"))?,
                    None => DegSet::default(),
                };
                let any = set.has_edges();
                let (count, weight_sum) = deg_along(&pick_deg(set, t), dir);
                *c = (count, weight_sum, any);
            }
        }
        // A node without any edge may still be deleted (its key mapping stays): check those.
        let unsure: Vec<Option<NodeId>> = ids
            .iter()
            .zip(&counts)
            .map(|(id, (c, _, any))| id.filter(|_| *c == 0 && !*any))
            .collect();
        let live = self.node_values(&unsure)?;
        Ok(ids
            .iter()
            .zip(counts)
            .zip(live)
            .map(|((id, (count, weight_sum, any)), rec)| {
                (id.is_some() && (count != 0 || any || rec.is_some())).then(|| Degree {
                    count: count.max(0) as u64,
                    weight_sum,
                })
            })
            .collect())
    }

    /// Finds the stored entry of an edge between two nodes: `src -> dst` (or, with
    /// `either_direction`, `dst -> src` too), of one type or any type.
    fn locate_edge(
        &self,
        src: &NodeKey,
        dst: &NodeKey,
        ty: Option<&str>,
        either: bool,
    ) -> Result<Option<(AdjKey, Vec<u8>, bool)>> {
        let (Some(s), Some(d)) = (self.node_id(src)?, self.node_id(dst)?) else {
            return Ok(None);
        };
        let types: Vec<&EdgeType> = match ty {
            Some(name) => match self.cat.type_named(name) {
                Some(t) => vec![t],
                None => return Ok(None),
            },
            None => {
                let mut v: Vec<&EdgeType> = self.cat.types().collect();
                v.sort_by_key(|t| t.id);
                v
            }
        };
        for t in types {
            let dirs: &[(NodeId, NodeId, bool)] = if either && !t.options.undirected && s != d {
                &[(s, d, false), (d, s, true)]
            } else {
                &[(s, d, false)]
            };
            for &(a, b, reversed) in dirs {
                if t.options.multi {
                    let mut found = None;
                    self.kv.scan(
                        Cf::Out,
                        &pair_prefix(a, t.id, b),
                        &pair_prefix(a, t.id, b),
                        &mut |k, v| {
                            found = parse_adj_key(k).map(|ak| (ak, v.to_vec()));
                            false
                        },
                    )?;
                    if let Some((k, v)) = found {
                        return Ok(Some((k, v, reversed)));
                    }
                } else if let Some(v) = self.kv.get(Cf::Out, &adj_key(a, t.id, b, 0))? {
                    return Ok(Some((
                        AdjKey {
                            node: a,
                            ty: t.id,
                            nbr: b,
                            eid: 0,
                        },
                        v,
                        reversed,
                    )));
                }
            }
        }
        Ok(None)
    }

    /// Every edge `src -[ty]-> dst` (listed from `src`, as its adjacency holds them): one
    /// point read for a simple type, one short prefix scan for a multi-edge type.
    pub(crate) fn edges_from_to(&self, src: &NodeKey, ty: &str, dst: &NodeKey) -> Result<Vec<Edge>> {
        let (Some(s), Some(d), Some(t)) = (self.node_id(src)?, self.node_id(dst)?, self.cat.type_named(ty)) else {
            return Ok(Vec::new());
        };
        if !t.options.multi {
            return Ok(self.find_edge(src, dst, Some(ty), false)?.into_iter().collect());
        }
        let (mut found, mut err) = (Vec::new(), None);
        let prefix = pair_prefix(s, t.id, d);
        self.kv.scan(Cf::Out, &prefix, &prefix, &mut |k, v| {
            let made = parse_adj_key(k).map(|ak| self.make_edge(src, Side::Out, &ak, v));
            match made {
                Some(Ok(e)) => found.push(e),
                Some(Err(e)) => err = Some(e),
                None => {}
            }
            err.is_none()
        })?;
        err.map_or(Ok(found), Err)
    }

    pub(crate) fn has_edge(&self, src: &NodeKey, dst: &NodeKey, ty: Option<&str>, either: bool) -> Result<bool> {
        Ok(self.locate_edge(src, dst, ty, either)?.is_some())
    }

    pub(crate) fn find_edge(
        &self,
        src: &NodeKey,
        dst: &NodeKey,
        ty: Option<&str>,
        either: bool,
    ) -> Result<Option<Edge>> {
        match self.locate_edge(src, dst, ty, either)? {
            None => Ok(None),
            Some((a, v, reversed)) => {
                let me = if reversed { dst } else { src };
                self.make_edge(me, Side::Out, &a, &v).map(Some)
            }
        }
    }

    /// [`View::find_edge`] for many pairs. Of one non-multi type (LightRAG's case), every
    /// probe is a point key: one multi-get for the endpoints' ids and one for the edges,
    /// instead of cold point reads per pair. Otherwise pair by pair.
    pub(crate) fn find_edges(
        &self,
        pairs: &[(NodeKey, NodeKey)],
        ty: Option<&str>,
        either: bool,
    ) -> Result<Vec<Option<Edge>>> {
        let t = match ty.map(|name| self.cat.type_named(name)) {
            Some(Some(t)) if !t.options.multi => t,
            Some(None) => return Ok(vec![None; pairs.len()]),
            _ => return pairs.iter().map(|(a, b)| self.find_edge(a, b, ty, either)).collect(),
        };
        let ends: Vec<NodeKey> = pairs.iter().flat_map(|(a, b)| [a.clone(), b.clone()]).collect();
        let ids = self.node_ids(&ends)?;
        // (edge key, pair index, reversed), sorted for the multi-get.
        let mut probes: Vec<(Vec<u8>, usize, bool)> = Vec::new();
        for (i, w) in ids.chunks(2).enumerate() {
            let (Some(s), Some(d)) = (w[0], w[1]) else { continue };
            probes.push((adj_key(s, t.id, d, 0).to_vec(), i, false));
            if either && !t.options.undirected && s != d {
                probes.push((adj_key(d, t.id, s, 0).to_vec(), i, true));
            }
        }
        probes.sort_unstable();
        let (enc, at): (Vec<Vec<u8>>, Vec<(usize, bool)>) = probes.into_iter().map(|(k, i, r)| (k, (i, r))).unzip();
        let (mut fwd, mut rev) = (vec![None; pairs.len()], vec![None; pairs.len()]);
        for ((i, reversed), v) in at.into_iter().zip(self.kv.multi_get(Cf::Out, &enc)?) {
            if reversed {
                rev[i] = v;
            } else {
                fwd[i] = v;
            }
        }
        // The forward direction wins when both exist, as in `locate_edge`.
        let found = fwd
            .into_iter()
            .zip(rev)
            .map(|(f, r)| f.map(|v| (v, false)).or(r.map(|v| (v, true))));
        pairs
            .iter()
            .zip(ids.chunks(2))
            .zip(found)
            .map(|(((src, dst), w), f)| {
                let Some((v, reversed)) = f else { return Ok(None) };
                let (s, d) = (w[0].unwrap_or_default(), w[1].unwrap_or_default());
                let (me, a) = if reversed { (dst, (d, s)) } else { (src, (s, d)) };
                let key = AdjKey {
                    node: a.0,
                    ty: t.id,
                    nbr: a.1,
                    eid: 0,
                };
                self.make_edge(me, Side::Out, &key, &v).map(Some)
            })
            .collect()
    }

    pub(crate) fn edge_by_id(&self, id: u64) -> Result<Option<Edge>> {
        let Some(v) = self.kv.get(Cf::EdgeIds, &id_bytes(id))? else {
            return Ok(None);
        };
        let (s, t, d) = parse_edge_id_value(&v).ok_or_else(|| corrupt_rec("edge id entry"))?;
        let Some(v) = self.kv.get(Cf::Out, &adj_key(s, t, d, id))? else {
            return Err(corrupt_rec("edge id without its edge"));
        };
        let me = self
            .node_rec(s)?
            .ok_or_else(|| corrupt_rec("edge from a missing node"))?
            .key;
        self.make_edge(
            &me,
            Side::Out,
            &AdjKey {
                node: s,
                ty: t,
                nbr: d,
                eid: id,
            },
            &v,
        )
        .map(Some)
    }

    pub(crate) fn count(&self, key: &[u8]) -> Result<u64> {
        match self.kv.get(Cf::Counts, key)? {
            Some(v) => decode_count(&v)
                .map(|c| c.max(0) as u64)
                .ok_or_else(|| corrupt_rec("counter")),
            None => Ok(0),
        }
    }

    pub(crate) fn labels(&self) -> Result<Vec<(String, u64)>> {
        let mut out = Vec::new();
        for (name, id) in self.cat.labels() {
            let c = self.count(&count_label_key(id))?;
            if c > 0 {
                out.push((name.to_string(), c));
            }
        }
        out.sort();
        Ok(out)
    }

    pub(crate) fn edge_types(&self) -> Result<Vec<(EdgeType, u64)>> {
        let mut out = Vec::new();
        for t in self.cat.types() {
            out.push((t.clone(), self.count(&count_type_key(t.id))?));
        }
        out.sort_by(|a, b| a.0.name.cmp(&b.0.name));
        Ok(out)
    }

    /// Visits live nodes in id order starting at `from`, until `f` returns false.
    pub(crate) fn scan_nodes(&self, from: NodeId, f: &mut dyn FnMut(NodeId, NodeRec) -> bool) -> Result<()> {
        scan_node_records(self.kv, from, |_, b| NodeRec::decode(b), f)
    }

    pub(crate) fn nodes_with_label(&self, label: &str, limit: Option<usize>) -> Result<Vec<NodeKey>> {
        let Some(l) = self.cat.label_id(label) else {
            return Ok(Vec::new());
        };
        let limit = limit.unwrap_or(usize::MAX);
        let mut ids = Vec::new();
        if limit > 0 {
            let p = l.to_be_bytes();
            self.kv.scan(Cf::Labels, &p, &p, &mut |k, _| {
                if let Some(id) = k.get(4..).and_then(parse_id) {
                    ids.push(id);
                }
                ids.len() < limit
            })?;
        }
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let v = self
                .kv
                .get(Cf::Nodes, &id_bytes(id))?
                .ok_or_else(|| corrupt_rec("label index entry of a missing node"))?;
            out.push(NodeRec::decode_key(&v)?);
        }
        Ok(out)
    }
}

/// The label set a node scan saw last: its encoding, whether it holds the label asked for,
/// and its names.
#[derive(Default)]
struct LabelSet {
    encoded: Vec<u8>,
    wanted: bool,
    names: Arc<[Arc<str>]>,
}

/// Visits the node records from id `from` on, decoded by `decode`, until `f` returns false.
pub(crate) fn scan_node_records<T>(
    kv: &dyn KvRead,
    from: NodeId,
    decode: impl Fn(NodeId, &[u8]) -> Result<T>,
    f: &mut dyn FnMut(NodeId, T) -> bool,
) -> Result<()> {
    let mut err = None;
    kv.scan(Cf::Nodes, &[], &id_bytes(from), &mut |k, v| {
        let Some(id) = parse_id(k) else {
            err = Some(corrupt_rec("node id"));
            return false;
        };
        match decode(id, v) {
            Ok(rec) => f(id, rec),
            Err(e) => {
                err = Some(e);
                false
            }
        }
    })?;
    err.map_or(Ok(()), Err)
}

/// The counters of one type (or all types) from a node's counter set.
fn pick_deg(set: DegSet, ty: Option<&EdgeType>) -> Deg {
    match ty {
        None => set.total(),
        Some(t) => set.of_type(t.id),
    }
}

/// (edge count, weight sum) along `dir`; undirected edges count in every direction.
fn deg_along(d: &Deg, dir: Direction) -> (i64, f64) {
    match dir {
        Direction::Out => (d.out + d.und, d.out_w + d.und_w),
        Direction::In => (d.inn + d.und, d.in_w + d.und_w),
        Direction::Both => (d.out + d.inn + d.und, d.out_w + d.in_w + d.und_w),
    }
}
