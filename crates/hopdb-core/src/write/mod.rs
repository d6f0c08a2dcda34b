//! Write transactions: one writer at a time, read-your-own-writes, atomic commit.
//!
//! A transaction collects its changes in an overlay and commits them as one RocksDB write
//! batch. Nothing it did is visible to anyone, cached, or persisted until `commit` returns
//! Ok; dropping it (or any error inside it) discards everything. Every read of
//! [`crate::GraphRead`] works on a transaction too, and sees the committed state plus the
//! transaction's own changes (`TxnReader`). Property index entries and uniqueness
//! constraints (decision 0017) are kept by the same write paths that write node records.

use crate::catalog::{label_op, type_op, Catalog, EdgeType, EdgeTypeOptions};
use crate::config::MissingEndpoints;
use crate::counters::{Deg, DegSet};
use crate::engine::{Cf, Engine, KvRead, Op};
use crate::error::{corrupt_rec, Error, Result};
use crate::graph_read::{GraphRead, ViewGuard};
use crate::index::{def_entry, def_key, entries_of, entry_key, holders, is_hashed, parse_entry, IndexSpec, Probe};
use crate::model::WriteMode;
use crate::records::*;
use crate::state::{Inner, WriterState};
use crate::value::{validate_name, validate_props, NodeKey, Props};
use parking_lot::MutexGuard;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::sync::Arc;

mod edges;
mod indexes;
mod interface;

pub use interface::{EdgeAt, GraphWrite, RemoteGraph};

/// Per column family: key -> new value (None = deleted).
type Overlay = [BTreeMap<Vec<u8>, Option<Vec<u8>>>; Cf::ALL.len()];
/// Per column family: key -> committed value, read ahead in bulk.
type Prefetched = [FxHashMap<Vec<u8>, Option<Vec<u8>>>; Cf::ALL.len()];

/// The node an upsert replaces: its labels, and its record when the write needed it.
struct Prior {
    labels: Vec<TypeId>,
    rec: Option<NodeRec>,
    /// Its key entry was read and carries no labels (format 1 or the bulk loader's): the
    /// write gives it them.
    key_lacks_labels: bool,
}

#[derive(Default)]
struct Pending {
    kv: Overlay,
    /// Degree counter changes per node: (base deleted, delta).
    deg: FxHashMap<NodeId, (bool, DegSet)>,
    counts: FxHashMap<Vec<u8>, i64>,
}

impl Pending {
    fn len(&self) -> usize {
        self.kv.iter().map(BTreeMap::len).sum::<usize>() + self.deg.len() + self.counts.len()
    }
}

/// The store as this transaction sees it: committed state plus its own changes.
pub(crate) struct TxnReader<'a> {
    engine: &'a dyn Engine,
    p: &'a Pending,
    /// Committed values read ahead in bulk (see `WriteTxn::prefetch`).
    pre: &'a Prefetched,
}

impl KvRead for TxnReader<'_> {
    fn get(&self, cf: Cf, key: &[u8]) -> Result<Option<Vec<u8>>> {
        match cf {
            Cf::Deg => {
                let pending = key
                    .try_into()
                    .ok()
                    .map(u64::from_be_bytes)
                    .and_then(|n| self.p.deg.get(&n));
                let base = match pending {
                    Some((true, _)) => None,
                    _ => self.engine.get(cf, key)?,
                };
                match pending {
                    Some((_, delta)) if !delta.0.is_empty() => {
                        let mut d = match base {
                            Some(v) => DegSet::decode(&v).ok_or_else(|| corrupt_rec("degree counter"))?,
                            None => DegSet::default(),
                        };
                        d.merge(delta);
                        d.prune();
                        Ok(Some(d.encode()))
                    }
                    _ => Ok(base),
                }
            }
            Cf::Counts => {
                let base = self.engine.get(cf, key)?;
                match self.p.counts.get(key) {
                    None => Ok(base),
                    Some(delta) => {
                        let b = base.as_deref().and_then(crate::counters::decode_count).unwrap_or(0);
                        Ok(Some((b + delta).to_le_bytes().to_vec()))
                    }
                }
            }
            _ => {
                let i = cf as usize;
                match self.p.kv[i].get(key).or_else(|| self.pre[i].get(key)) {
                    Some(v) => Ok(v.clone()),
                    None => self.engine.get(cf, key),
                }
            }
        }
    }

    fn scan(&self, cf: Cf, prefix: &[u8], start: &[u8], f: &mut dyn FnMut(&[u8], &[u8]) -> bool) -> Result<()> {
        let from = if start > prefix { start } else { prefix };
        let overlay: Vec<(&Vec<u8>, &Option<Vec<u8>>)> = self.p.kv[cf as usize]
            .range::<[u8], _>((std::ops::Bound::Included(from), std::ops::Bound::Unbounded))
            .take_while(|(k, _)| k.starts_with(prefix))
            .collect();
        let deg_touched = cf == Cf::Deg
            && self.p.deg.keys().any(|n| {
                let k = deg_key(*n);
                k.starts_with(prefix) && k.as_slice() >= from
            });
        if overlay.is_empty() && !deg_touched {
            return self.engine.scan(cf, prefix, start, f);
        }
        if !deg_touched {
            return self.merge_scan(cf, prefix, start, overlay, f);
        }
        // Degree counters: merge committed values with pending deltas, in memory.
        let mut merged = BTreeMap::new();
        self.engine.scan(cf, prefix, start, &mut |k, v| {
            merged.insert(k.to_vec(), v.to_vec());
            true
        })?;
        for (k, v) in overlay {
            match v {
                Some(v) => merged.insert(k.clone(), v.clone()),
                None => merged.remove(k),
            };
        }
        if deg_touched {
            for n in self.p.deg.keys() {
                let k = deg_key(*n);
                if k.starts_with(prefix) && k.as_slice() >= from {
                    match self.get(Cf::Deg, &k)? {
                        Some(v) => merged.insert(k.to_vec(), v),
                        None => merged.remove(k.as_slice()),
                    };
                }
            }
        }
        for (k, v) in &merged {
            if !f(k, v) {
                break;
            }
        }
        Ok(())
    }

    fn multi_get(&self, cf: Cf, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>> {
        if matches!(cf, Cf::Deg | Cf::Counts) {
            return keys.iter().map(|k| self.get(cf, k)).collect();
        }
        // Pending and read-ahead values first; the rest in one batched read, in the order given.
        let i = cf as usize;
        let mut out = vec![None; keys.len()];
        let (mut miss, mut at) = (Vec::new(), Vec::new());
        for (j, k) in keys.iter().enumerate() {
            match self.p.kv[i].get(k).or_else(|| self.pre[i].get(k)) {
                Some(v) => out[j] = v.clone(),
                None => {
                    miss.push(k.clone());
                    at.push(j);
                }
            }
        }
        if !miss.is_empty() {
            for (j, v) in at.into_iter().zip(self.engine.multi_get(cf, &miss)?) {
                out[j] = v;
            }
        }
        Ok(out)
    }
}

impl TxnReader<'_> {
    /// A scan of committed entries merged, as they stream, with the pending changes in
    /// `overlay` (ascending, all under `prefix` from `start` on): memory stays O(changes).
    fn merge_scan(
        &self,
        cf: Cf,
        prefix: &[u8],
        start: &[u8],
        overlay: Vec<(&Vec<u8>, &Option<Vec<u8>>)>,
        f: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<()> {
        let mut pending = overlay.into_iter().peekable();
        let mut stopped = false;
        self.engine.scan(cf, prefix, start, &mut |k, v| {
            // Pending entries before this committed one (new keys, or deletes to skip).
            while let Some((pk, pv)) = pending.next_if(|(pk, _)| pk.as_slice() < k) {
                if let Some(pv) = pv {
                    if !f(pk, pv) {
                        stopped = true;
                        return false;
                    }
                }
            }
            let go = match pending.next_if(|(pk, _)| pk.as_slice() == k) {
                Some((_, Some(pv))) => f(k, pv),
                Some((_, None)) => true,
                None => f(k, v),
            };
            stopped = !go;
            go
        })?;
        if !stopped {
            for (pk, pv) in pending {
                if let Some(pv) = pv {
                    if !f(pk, pv) {
                        break;
                    }
                }
            }
        }
        Ok(())
    }
}

/// What a read or write after a failed operation gets.
fn aborted(what: &str) -> Error {
    Error::invalid(
        "write transaction",
        format!("an earlier operation failed; the transaction is aborted and can only be dropped ({what})"),
    )
}

/// An atomic write transaction. Obtain one with [`crate::Graph::write`]; it holds the store's
/// single writer lock until committed or dropped.
///
/// It is also a [`GraphRead`]: reads through it see the committed state plus its own pending
/// changes (read-your-writes). After an operation fails, the transaction is aborted: later
/// operations and reads fail, and only dropping it remains.
///
/// ```
/// use hopdb_core::{Graph, GraphRead, Props, WriteMode};
/// let g = Graph::in_memory();
/// let mut tx = g.write().unwrap();
/// tx.upsert_node("alice", &["Person"], Props::new(), WriteMode::Merge).unwrap();
/// tx.upsert_edge("alice", "KNOWS", "bob", Some(0.5), Props::new(), WriteMode::Merge).unwrap();
/// tx.commit().unwrap();
/// assert!(g.has_edge(&"alice".into(), &"bob".into(), Some("KNOWS"), false).unwrap());
/// ```
pub struct WriteTxn<'g> {
    g: &'g Inner,
    state: MutexGuard<'g, WriterState>,
    base_cat: Arc<Catalog>,
    cat: Option<Catalog>,
    p: Pending,
    new_keys: FxHashMap<NodeKey, NodeId>,
    /// Committed values read ahead in bulk; valid while this transaction holds the writer
    /// lock, since nothing else can change the committed state meanwhile.
    pre: Prefetched,
    /// Node ids this transaction made live (true) or deleted (false), in order.
    liveness: Vec<(NodeId, bool)>,
    /// Nodes written and their labels, for the writer's label map once committed.
    labels_written: Vec<(NodeId, Vec<TypeId>)>,
    pub(crate) next_node: NodeId,
    pub(crate) next_edge: u64,
    poisoned: bool,
    /// Structural changes, recorded when the store tracks them (decided when the
    /// transaction starts: a commit of an untracked transaction is logged as unrecorded).
    changes: Option<Vec<crate::changes::GraphChange>>,
}

impl<'g> WriteTxn<'g> {
    pub(crate) fn new(g: &'g Inner, state: MutexGuard<'g, WriterState>) -> Self {
        let base_cat = g.catalog();
        let (next_node, next_edge) = (state.next_node, state.next_edge);
        WriteTxn {
            g,
            state,
            base_cat,
            cat: None,
            p: Pending::default(),
            new_keys: FxHashMap::default(),
            pre: Default::default(),
            liveness: Vec::new(),
            labels_written: Vec::new(),
            next_node,
            next_edge,
            poisoned: false,
            changes: g.versions.tracking().then(Vec::new),
        }
    }

    fn cat(&self) -> &Catalog {
        self.cat.as_ref().unwrap_or(&self.base_cat)
    }

    fn cat_mut(&mut self) -> &mut Catalog {
        self.cat.get_or_insert_with(|| (*self.base_cat).clone())
    }

    /// Runs one operation; any error aborts the whole transaction.
    fn run<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.poisoned {
            return Err(aborted("writing"));
        }
        let r = f(self);
        if r.is_err() {
            self.poisoned = true;
        }
        r
    }

    pub(crate) fn reader(&self) -> TxnReader<'_> {
        TxnReader {
            engine: &*self.g.engine,
            p: &self.p,
            pre: &self.pre,
        }
    }

    /// Reads the committed values of `keys` in one batched lookup, so that the operations
    /// that follow find them without a point read each.
    fn prefetch(&mut self, cf: Cf, mut keys: Vec<Vec<u8>>) -> Result<()> {
        let i = cf as usize;
        keys.retain(|k| !self.p.kv[i].contains_key(k) && !self.pre[i].contains_key(k));
        keys.sort_unstable();
        keys.dedup();
        if keys.is_empty() {
            return Ok(());
        }
        let vals = self.g.engine.multi_get(cf, &keys)?;
        for (k, v) in keys.into_iter().zip(vals) {
            self.pre[i].insert(k, v);
        }
        Ok(())
    }

    /// Reads, in one batch, the committed key entries (id and liveness) of the keys whose id
    /// or liveness this writer has not cached, and caches the ids found.
    fn prefetch_keys(&mut self, keys: &[&NodeKey]) -> Result<()> {
        let mut need = Vec::new();
        for k in keys.iter().filter(|k| !self.new_keys.contains_key(**k)) {
            let cached = self.g.ids.get(k);
            if cached.is_none_or(|id| !self.state.live.contains(id)) {
                need.push((*k, k.encode()));
            }
        }
        self.prefetch(Cf::Keys, need.iter().map(|(_, e)| e.clone()).collect())?;
        for (k, enc) in need {
            if let Some(Some(v)) = self.pre[Cf::Keys as usize].get(&enc) {
                if let Some((id, _)) = parse_key_value(v) {
                    // Committed mappings are permanent: safe to cache.
                    self.g.ids.insert(k, id);
                }
            }
        }
        Ok(())
    }

    /// Upserts many nodes, reading what they need in batches first.
    pub fn upsert_nodes(&mut self, nodes: &[crate::model::NodeInput], mode: WriteMode) -> Result<()> {
        self.run(|tx| {
            let keys: Vec<&NodeKey> = nodes.iter().map(|n| &n.key).collect();
            let ids: Vec<Vec<u8>> = if tx.labels_from_keys(mode) {
                // The key entries of the nodes whose labels this writer does not know, for
                // the labels they carry; records only of the live nodes whose entries carry
                // none.
                let enc: Vec<Vec<u8>> = keys
                    .iter()
                    .filter(|k| tx.g.ids.get(k).is_none_or(|id| tx.known_labels(id).is_none()))
                    .map(|k| k.encode())
                    .collect();
                tx.prefetch(Cf::Keys, enc.clone())?;
                let reader = tx.reader();
                let mut ids = Vec::new();
                for e in &enc {
                    if let Some(v) = reader.get(Cf::Keys, e)? {
                        if let (Some((id, true)), None) = (parse_key_value(&v), key_labels(&v)) {
                            ids.push(id_bytes(id).to_vec());
                        }
                    }
                }
                ids
            } else {
                tx.prefetch_keys(&keys)?;
                keys.iter()
                    .filter_map(|k| tx.g.ids.get(k))
                    .map(|id| id_bytes(id).to_vec())
                    .collect()
            };
            tx.prefetch(Cf::Nodes, ids)?;
            for (i, n) in nodes.iter().enumerate() {
                let labels: Vec<&str> = n.labels.iter().map(String::as_str).collect();
                tx.upsert_node_inner(n.key.clone(), &labels, n.props.clone(), mode)
                    .map_err(|e| e.at(i))?;
            }
            Ok(())
        })
    }

    /// Upserts many edges, reading what they need (ids, liveness, existing edges) in
    /// batches first.
    pub fn upsert_edges(&mut self, edges: &[crate::model::EdgeInput], mode: WriteMode) -> Result<()> {
        self.run(|tx| {
            let keys: Vec<&NodeKey> = edges.iter().flat_map(|e| [&e.src, &e.dst]).collect();
            tx.prefetch_keys(&keys)?;
            let id_of = |tx: &Self, k: &NodeKey| tx.new_keys.get(k).copied().or_else(|| tx.g.ids.get(k));
            let mut adj = Vec::new();
            for e in edges {
                let (s, d) = (id_of(tx, &e.src), id_of(tx, &e.dst));
                if let (Some(s), Some(d), Some(t)) = (s, d, tx.cat().type_named(&e.ty)) {
                    if !t.options.multi {
                        adj.push(adj_key(s, t.id, d, 0).to_vec());
                    }
                }
            }
            tx.prefetch(Cf::Out, adj)?;
            for (i, e) in edges.iter().enumerate() {
                tx.upsert_edge_inner(&e.src, &e.ty, &e.dst, e.weight, e.props.clone(), mode)
                    .map_err(|err| err.at(i))?;
            }
            Ok(())
        })
    }

    /// The adjacency entries under `prefix` as this transaction sees them, with weights.
    fn adjacency(&self, cf: Cf, prefix: &[u8]) -> Result<Vec<(AdjKey, Option<f64>)>> {
        let mut out = Vec::new();
        let mut bad = None;
        self.reader().scan(cf, prefix, prefix, &mut |k, v| {
            match (parse_adj_key(k), EdgeRec::decode_head(v)) {
                (Some(a), Ok((_, w))) => out.push((a, w)),
                (_, Err(e)) => bad = Some(e),
                (None, _) => bad = Some(corrupt_rec("adjacency key")),
            }
            bad.is_none()
        })?;
        bad.map_or(Ok(out), Err)
    }

    /// Whether node `id` (of `key`) is live as this transaction sees it.
    fn is_live(&mut self, key: &NodeKey, id: NodeId) -> Result<bool> {
        if let Some(v) = self.p.kv[Cf::Nodes as usize].get(id_bytes(id).as_slice()) {
            return Ok(v.is_some());
        }
        if self.state.live.contains(id) {
            return Ok(true);
        }
        let live = match self.get(Cf::Keys, &key.encode())? {
            Some(v) => parse_key_value(&v).ok_or_else(|| corrupt_rec("key mapping"))?.1,
            None => false,
        };
        if live {
            // Observed in the committed state, which only this lock holder can change.
            self.state.live.insert(id);
        }
        Ok(live)
    }

    fn get(&self, cf: Cf, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.reader().get(cf, key)
    }
    fn put(&mut self, cf: Cf, key: &[u8], v: Vec<u8>) {
        self.p.kv[cf as usize].insert(key.to_vec(), Some(v));
    }
    fn delete(&mut self, cf: Cf, key: &[u8]) {
        self.p.kv[cf as usize].insert(key.to_vec(), None);
    }
    pub(crate) fn count(&mut self, key: &[u8], delta: i64) {
        *self.p.counts.entry(key.to_vec()).or_default() += delta;
    }
    fn deg(&mut self, node: NodeId, ty: TypeId, f: impl Fn(&mut Deg)) {
        let mut d = Deg::default();
        f(&mut d);
        self.p.deg.entry(node).or_default().1.add(ty, &d);
    }

    /// The id a key maps to, committed or created in this transaction.
    fn resolve(&self, key: &NodeKey) -> Result<Option<NodeId>> {
        if let Some(id) = self.new_keys.get(key) {
            return Ok(Some(*id));
        }
        if let Some(id) = self.g.ids.get(key) {
            return Ok(Some(id));
        }
        // The committed entry (read ahead in bulk, or now). Mappings are permanent, so
        // caching them is always safe.
        let enc = key.encode();
        let v = match self.pre[Cf::Keys as usize].get(&enc) {
            Some(v) => v.clone(),
            None => self.g.engine.get(Cf::Keys, &enc)?,
        };
        let Some(v) = v else { return Ok(None) };
        let (id, _) = parse_key_value(&v).ok_or_else(|| corrupt_rec("key mapping"))?;
        self.g.ids.insert(key, id);
        Ok(Some(id))
    }

    fn node_rec(&self, id: NodeId) -> Result<Option<NodeRec>> {
        self.get(Cf::Nodes, &id_bytes(id))?
            .map(|v| NodeRec::decode(&v))
            .transpose()
    }

    pub(crate) fn label_id(&mut self, name: &str) -> Result<TypeId> {
        validate_name("label", name)?;
        if let Some(id) = self.cat().label_id(name) {
            return Ok(id);
        }
        let id = self.cat().next_label_id();
        self.cat_mut().add_label(name.into(), id);
        let Op::Put(cf, k, v) = label_op(name, id) else {
            unreachable!("label_op builds a put")
        };
        self.put(cf, &k, v);
        Ok(id)
    }

    pub(crate) fn type_named(&self, name: &str) -> Option<&EdgeType> {
        self.cat().type_named(name)
    }

    /// The catalog as this transaction sees it (its own new types and labels included).
    pub(crate) fn catalog_now(&self) -> &Catalog {
        self.cat()
    }

    pub(crate) fn edge_type(&mut self, name: &str, declare: Option<EdgeTypeOptions>) -> Result<EdgeType> {
        validate_name("edge type", name)?;
        if let Some(t) = self.cat().type_named(name) {
            if let Some(o) = declare {
                if o != t.options {
                    return Err(Error::EdgeType {
                        ty: name.into(),
                        reason: format!("already exists with {:?}, cannot redeclare as {o:?}", t.options),
                    });
                }
            }
            return Ok(t.clone());
        }
        let id = self.cat().next_type_id();
        if id >= crate::catalog::MAX_TYPES {
            return Err(Error::EdgeType {
                ty: name.into(),
                reason: format!("the store already has {id} edge types, the most it supports"),
            });
        }
        let t = EdgeType {
            name: name.into(),
            id,
            options: declare.unwrap_or_default(),
        };
        self.cat_mut().add_type(t.clone());
        let Op::Put(cf, k, v) = type_op(&t) else {
            unreachable!("type_op builds a put")
        };
        self.put(cf, &k, v);
        Ok(t)
    }

    /// Declares an edge type as undirected and/or multi-edge. Types are otherwise created on
    /// first use as directed and simple; a type's options cannot change once it exists.
    pub fn define_edge_type(&mut self, name: &str, options: EdgeTypeOptions) -> Result<EdgeType> {
        self.run(|t| t.edge_type(name, Some(options)))
    }

    /// Inserts or updates a node.
    pub fn upsert_node(
        &mut self,
        key: impl Into<NodeKey>,
        labels: &[&str],
        props: Props,
        mode: WriteMode,
    ) -> Result<()> {
        let key = key.into();
        self.run(|t| t.upsert_node_inner(key, labels, props, mode))
    }

    fn upsert_node_inner(&mut self, key: NodeKey, labels: &[&str], props: Props, mode: WriteMode) -> Result<()> {
        key.validate()?;
        validate_props(&props)?;
        let mut label_ids = Vec::with_capacity(labels.len());
        for l in labels {
            let id = self.label_id(l)?;
            if !label_ids.contains(&id) {
                label_ids.push(id);
            }
        }
        let mapped = self.resolve(&key)?;
        let prior = match mapped {
            Some(id) => self.prior_node(id, &key, mode)?,
            None => None,
        };
        let id = match mapped {
            Some(id) => id,
            None => self.new_id(&key),
        };
        let (labels, props) = match (prior.as_ref().and_then(|p| p.rec.as_ref()), mode) {
            (Some(o), WriteMode::Merge) => {
                let mut l = o.labels.clone();
                l.extend(label_ids.iter().filter(|x| !o.labels.contains(x)));
                let mut p = o.props.clone();
                p.extend(props);
                (l, p)
            }
            _ => (label_ids, props),
        };
        let old_labels = prior.as_ref().map(|p| p.labels.as_slice()).unwrap_or_default();
        for &l in old_labels.iter().filter(|l| !labels.contains(l)) {
            self.delete(Cf::Labels, &label_key(l, id));
            self.count(&count_label_key(l), -1);
        }
        for &l in labels.iter().filter(|l| !old_labels.contains(l)) {
            self.put(Cf::Labels, &label_key(l, id), Vec::new());
            self.count(&count_label_key(l), 1);
        }
        if prior.is_none() {
            self.count(COUNT_NODES, 1);
            self.liveness.push((id, true));
            if let Some(log) = self.changes.as_mut() {
                log.push(crate::changes::GraphChange::NodeAdded { id, key: key.clone() });
            }
        }
        // The key entry carries the labels: rewritten whenever they change, and when a read
        // found an entry without them (written by format 1 or the bulk loader).
        let key_stale = match &prior {
            None => true,
            Some(p) => p.labels != labels || p.key_lacks_labels,
        };
        if key_stale {
            self.put(Cf::Keys, &key.encode(), key_value_labeled(id, &labels));
        }
        self.labels_written.push((id, labels.clone()));
        let rec = NodeRec { key, labels, props };
        let enc = rec.encode()?;
        let old_rec = prior.and_then(|p| p.rec);
        self.reindex(id, old_rec.as_ref(), Some(&rec))?;
        self.put(Cf::Nodes, &id_bytes(id), enc);
        Ok(())
    }

    /// Whether a write in `mode` needs no more of the node it replaces than its labels,
    /// which its key entry may carry: a replace, with no property index to update.
    fn labels_from_keys(&self, mode: WriteMode) -> bool {
        mode == WriteMode::Replace && !self.cat().has_indexes()
    }

    /// The labels of node `id` if it is live in the committed state, this transaction has
    /// not touched it, and this writer knows them.
    fn known_labels(&self, id: NodeId) -> Option<&[TypeId]> {
        let untouched = !self.p.kv[Cf::Nodes as usize].contains_key(id_bytes(id).as_slice());
        (untouched && self.state.live.contains(id))
            .then(|| self.state.labels.get(id))
            .flatten()
    }

    /// The live node `id` (of `key`) as an upsert in `mode` needs it, or None when it is
    /// deleted. A replace without property indexes takes the labels from the key entry
    /// when it carries them and reads no record (decision 0037).
    fn prior_node(&self, id: NodeId, key: &NodeKey, mode: WriteMode) -> Result<Option<Prior>> {
        let mut key_lacks_labels = false;
        if self.labels_from_keys(mode) {
            if let Some(labels) = self.known_labels(id) {
                return Ok(Some(Prior {
                    labels: labels.to_vec(),
                    rec: None,
                    key_lacks_labels,
                }));
            }
            if let Some(v) = self.get(Cf::Keys, &key.encode())? {
                match (parse_key_value(&v), key_labels(&v)) {
                    (None, _) => return Err(corrupt_rec("key mapping")),
                    (Some((_, false)), _) => return Ok(None),
                    (Some(_), Some(labels)) => {
                        return Ok(Some(Prior {
                            labels,
                            rec: None,
                            key_lacks_labels,
                        }))
                    }
                    (Some(_), None) => key_lacks_labels = true,
                }
            }
        }
        Ok(self.node_rec(id)?.map(|rec| Prior {
            labels: rec.labels.clone(),
            rec: Some(rec),
            key_lacks_labels,
        }))
    }

    /// Creates a node with a key the store chooses and returns the key: `NodeKey::Int(n)`
    /// for the smallest `n` at or above the next internal node id that is not the key of a
    /// live node (committed or created in this transaction). A store whose keys all came
    /// from `create_node` therefore has `key == Int(id)` for every node; integer keys the
    /// user chose are skipped, never overwritten. (A deleted node's key can be chosen again,
    /// which brings back that key's old id, decision 0002.)
    pub fn create_node(&mut self, labels: &[&str], props: Props) -> Result<NodeKey> {
        self.run(|tx| {
            let mut n = tx.next_node;
            loop {
                let i = i64::try_from(n).map_err(|_| Error::invalid("node key", "no free integer key is left"))?;
                let key = NodeKey::Int(i);
                let taken = match tx.resolve(&key)? {
                    Some(id) => tx.is_live(&key, id)?,
                    None => false,
                };
                if !taken {
                    tx.upsert_node_inner(key.clone(), labels, props, WriteMode::Replace)?;
                    return Ok(key);
                }
                n += 1;
            }
        })
    }

    /// Commits every change atomically, at the store's durability level.
    pub fn commit(mut self) -> Result<()> {
        self.commit_keeping_lock()
    }

    /// Commits everything so far and goes on as a fresh transaction, still holding the writer
    /// lock (the bulk loader commits in steps that no other writer may interleave with).
    pub(crate) fn commit_keeping_lock(&mut self) -> Result<()> {
        // Read-ahead values may be stale once this commit (or an ingestion) lands.
        for m in self.pre.iter_mut() {
            m.clear();
        }
        if self.poisoned {
            return Err(Error::invalid(
                "write transaction",
                "an earlier operation failed; nothing was committed",
            ));
        }
        let p = std::mem::take(&mut self.p);
        let mut ops = Vec::with_capacity(p.len() + 2);
        let ids_moved = self.state.next_node != self.next_node || self.next_edge != self.state.next_edge;
        for (cf, map) in Cf::ALL.into_iter().zip(p.kv) {
            for (k, v) in map {
                ops.push(match v {
                    Some(v) => Op::Put(cf, k, v),
                    None => Op::Delete(cf, k),
                });
            }
        }
        for (node, (deleted, d)) in p.deg {
            if deleted {
                ops.push(Op::Delete(Cf::Deg, deg_key(node).to_vec()));
            }
            if !d.0.iter().all(|(_, x)| x.is_zero()) {
                ops.push(Op::Merge(Cf::Deg, deg_key(node).to_vec(), d.encode()));
            }
        }
        for (k, c) in p.counts {
            if c != 0 {
                ops.push(Op::Merge(Cf::Counts, k, c.to_le_bytes().to_vec()));
            }
        }
        if ops.is_empty() && !ids_moved && self.cat.is_none() {
            return Ok(());
        }
        if self.next_node != self.state.next_node {
            ops.push(Op::Put(
                Cf::Meta,
                META_NEXT_NODE.to_vec(),
                self.next_node.to_le_bytes().to_vec(),
            ));
        }
        if self.next_edge != self.state.next_edge {
            ops.push(Op::Put(
                Cf::Meta,
                META_NEXT_EDGE.to_vec(),
                self.next_edge.to_le_bytes().to_vec(),
            ));
        }
        // New edge types and labels are published *before* the batch is written: a reader
        // whose snapshot already holds the batch must know its types. If the write fails,
        // the old catalog is put back (we still hold the writer lock, so nothing used it).
        let new_cat = self.cat.take().map(Arc::new);
        if let Some(c) = &new_cat {
            self.g.set_catalog(c.clone());
        }
        let next_base = new_cat.clone().unwrap_or_else(|| self.base_cat.clone());
        let old_cat = std::mem::replace(&mut self.base_cat, next_base);
        let injected = self.g.commit_faults.take();
        self.g.versions.begin();
        let written = if injected {
            Err(Error::Storage {
                context: "committing a write batch",
                detail: "injected failure".into(),
            })
        } else {
            self.g.engine.write(ops, self.g.cfg.durability)
        };
        if let Err(e) = written {
            self.g.versions.abort();
            self.poisoned = true;
            if new_cat.is_some() {
                self.g.set_catalog(old_cat.clone());
                self.base_cat = old_cat;
            }
            return Err(e);
        }
        // Published only now that the batch is durable.
        let changes = self.changes.as_mut().map(std::mem::take);
        self.g.versions.end(changes);
        self.state.next_node = self.next_node;
        self.state.next_edge = self.next_edge;
        for (k, id) in self.new_keys.drain() {
            self.g.ids.insert(&k, id);
        }
        // Every node written is live now, unless the transaction deleted it afterwards (the
        // liveness below comes after, so its removal wins). Replaces of nodes that were
        // already live learn it here too, so their next replace reads nothing.
        for (id, labels) in std::mem::take(&mut self.labels_written) {
            self.state.live.insert(id);
            self.state.labels.set(id, &labels);
        }
        for (id, live) in std::mem::take(&mut self.liveness) {
            if live {
                self.state.live.insert(id);
            } else {
                self.state.live.remove(id);
                self.state.labels.forget(id);
            }
        }
        Ok(())
    }
}

impl GraphRead for WriteTxn<'_> {
    fn view_guard(&self) -> Result<ViewGuard<'_>> {
        if self.poisoned {
            return Err(aborted("reading"));
        }
        Ok(ViewGuard::txn(self.reader(), self.cat(), &self.g.ids))
    }
}
