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
use crate::graph::{GraphRead, ViewGuard};
use crate::index::{def_entry, def_key, entries_of, entry_key, holders, is_hashed, parse_entry, IndexSpec, Probe};
use crate::model::WriteMode;
use crate::records::*;
use crate::state::{Inner, WriterState};
use crate::value::{validate_name, validate_props, NodeKey, Props};
use parking_lot::MutexGuard;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Per column family: key -> new value (None = deleted).
type Overlay = [BTreeMap<Vec<u8>, Option<Vec<u8>>>; Cf::ALL.len()];
/// Per column family: key -> committed value, read ahead in bulk.
type Prefetched = [FxHashMap<Vec<u8>, Option<Vec<u8>>>; Cf::ALL.len()];

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
            if cached.is_none_or(|id| self.state.live.get(&id).is_none()) {
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
            tx.prefetch_keys(&keys)?;
            let ids: Vec<Vec<u8>> = keys
                .iter()
                .filter_map(|k| tx.g.ids.get(k))
                .map(|id| id_bytes(id).to_vec())
                .collect();
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
        if self.state.live.get(&id).is_some() {
            return Ok(true);
        }
        let live = match self.get(Cf::Keys, &key.encode())? {
            Some(v) => parse_key_value(&v).ok_or_else(|| corrupt_rec("key mapping"))?.1,
            None => false,
        };
        if live {
            // Observed in the committed state, which only this lock holder can change.
            self.state.live.insert(id, ());
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
        let old = match mapped {
            Some(id) => self.node_rec(id)?,
            None => None,
        };
        let id = match mapped {
            Some(id) => id,
            None => self.new_id(&key),
        };
        let (labels, props) = match (old.as_ref(), mode) {
            (Some(o), WriteMode::Merge) => {
                let mut l = o.labels.clone();
                l.extend(label_ids.iter().filter(|x| !o.labels.contains(x)));
                let mut p = o.props.clone();
                p.extend(props);
                (l, p)
            }
            _ => (label_ids, props),
        };
        let old_labels = old.as_ref().map(|o| o.labels.clone()).unwrap_or_default();
        for l in old_labels.iter().filter(|l| !labels.contains(l)) {
            self.delete(Cf::Labels, &label_key(*l, id));
            self.count(&count_label_key(*l), -1);
        }
        for l in labels.iter().filter(|l| !old_labels.contains(l)) {
            self.put(Cf::Labels, &label_key(*l, id), Vec::new());
            self.count(&count_label_key(*l), 1);
        }
        if old.is_none() {
            self.count(COUNT_NODES, 1);
            self.liveness.push((id, true));
            if let Some(log) = self.changes.as_mut() {
                log.push(crate::changes::GraphChange::NodeAdded { id, key: key.clone() });
            }
            self.put(Cf::Keys, &key.encode(), key_value(id, true).to_vec());
        }
        let rec = NodeRec { key, labels, props };
        let enc = rec.encode()?;
        self.reindex(id, old.as_ref(), Some(&rec))?;
        self.put(Cf::Nodes, &id_bytes(id), enc);
        Ok(())
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

    // ---- property indexes and uniqueness constraints (decision 0017) ----

    /// Moves node `id`'s property index entries from those of `old` to those of `new` (either
    /// absent), checking uniqueness constraints for the values it gains.
    fn reindex(&mut self, id: NodeId, old: Option<&NodeRec>, new: Option<&NodeRec>) -> Result<()> {
        if !self.cat().has_indexes() {
            return Ok(());
        }
        let entries = |tx: &Self, rec: Option<&NodeRec>| -> Vec<(IndexSpec, Probe)> {
            rec.map(|r| {
                entries_of(tx.cat(), r)
                    .into_iter()
                    .map(|(s, p)| (s.clone(), p))
                    .collect()
            })
            .unwrap_or_default()
        };
        let (before, after) = (entries(self, old), entries(self, new));
        let kept = |list: &[(IndexSpec, Probe)], s: &IndexSpec, p: &Probe| {
            list.iter().any(|(s2, p2)| s2.id == s.id && p2 == p)
        };
        for (s, p) in before.iter().filter(|(s, p)| !kept(&after, s, p)) {
            self.delete(Cf::PropIndex, &entry_key(s.id, &p.part, id));
            self.count(&count_index_key(s.id), -1);
        }
        for (s, p) in after.iter().filter(|(s, p)| !kept(&before, s, p)) {
            if let (true, Some(rec)) = (s.unique, new) {
                self.check_unique(s, p, id, rec)?;
            }
            self.put(Cf::PropIndex, &entry_key(s.id, &p.part, id), Vec::new());
            self.count(&count_index_key(s.id), 1);
        }
        Ok(())
    }

    /// Fails if a live node other than `id` holds `probe` in the unique index `spec`.
    fn check_unique(&self, spec: &IndexSpec, probe: &Probe, id: NodeId, rec: &NodeRec) -> Result<()> {
        let other = holders(&self.reader(), spec, probe, 2)?.into_iter().find(|&n| n != id);
        match other {
            None => Ok(()),
            Some(other) => Err(self.violation(spec, rec, other)),
        }
    }

    /// The error for node `rec` sharing its value of `spec`'s property with node `other`.
    fn violation(&self, spec: &IndexSpec, rec: &NodeRec, other: NodeId) -> Error {
        let existing = match self.node_rec(other) {
            Ok(Some(r)) => r.key.to_string(),
            _ => format!("with id {other}"),
        };
        Error::ConstraintViolation {
            label: self
                .cat()
                .label_name(spec.label)
                .map_or_else(|| format!("label {}", spec.label), |n| n.to_string()),
            property: spec.property.to_string(),
            value: Box::new(
                rec.props
                    .get(&*spec.property)
                    .cloned()
                    .unwrap_or(crate::value::Value::Null),
            ),
            node: rec.key.to_string(),
            existing,
        }
    }

    /// The index on (label, property), if any (without creating the label).
    fn find_index(&self, label: &str, property: &str) -> Option<IndexSpec> {
        let l = self.cat().label_id(label)?;
        self.cat().index(l, property).cloned()
    }

    /// Writes an index definition and puts it in this transaction's catalog.
    fn set_index(&mut self, spec: IndexSpec) {
        let (k, v) = def_entry(&spec);
        self.put(Cf::Meta, &k, v);
        self.cat_mut().add_index(spec);
    }

    /// Stores a full-text index definition; false if a full-text index of that name exists.
    /// The index holds no entries of its own: queries read the labelled nodes' text as this
    /// transaction or a later snapshot sees it, so it is never stale.
    pub fn create_fulltext_index(&mut self, def: &crate::fulltext::FulltextIndexDef) -> Result<bool> {
        self.run(|tx| {
            crate::fulltext::validate(def)?;
            let key = crate::fulltext::def_key(&def.name);
            if tx.get(Cf::Meta, &key)?.is_some() {
                return Ok(false);
            }
            tx.put(Cf::Meta, &key, crate::fulltext::encode(def));
            Ok(true)
        })
    }

    /// Removes the full-text index `name`; false if there is none.
    pub fn drop_fulltext_index(&mut self, name: &str) -> Result<bool> {
        self.run(|tx| {
            let key = crate::fulltext::def_key(name);
            if tx.get(Cf::Meta, &key)?.is_none() {
                return Ok(false);
            }
            tx.delete(Cf::Meta, &key);
            Ok(true)
        })
    }

    /// Creates the index on (`label`, `property`) and fills it from the nodes that carry the
    /// label (as this transaction sees them), in this transaction. Returns false if the index
    /// already exists (a uniqueness constraint's included). From then on every write keeps
    /// it: [`GraphRead::nodes_by_property`] answers from it. The label is created if new.
    pub fn create_index(&mut self, label: &str, property: &str) -> Result<bool> {
        self.run(|tx| tx.create_index_inner(label, property, false))
    }

    /// Makes `property` unique among the live nodes with `label`: a later write giving a
    /// second such node an equal value (Cypher equality: `1` equals `1.0`; null and NaN are
    /// never equal, so never conflict) fails with [`Error::ConstraintViolation`] and aborts
    /// the transaction. Each operation is checked against the state the transaction sees when
    /// it runs. Uses the index on (label, property), created (and filled) if missing; fails
    /// with `ConstraintViolation`, naming the value and two nodes holding it, if existing
    /// nodes already break it. Returns false if the constraint already exists.
    pub fn create_unique_constraint(&mut self, label: &str, property: &str) -> Result<bool> {
        self.run(|tx| tx.create_index_inner(label, property, true))
    }

    fn create_index_inner(&mut self, label: &str, property: &str, unique: bool) -> Result<bool> {
        validate_name("property name", property)?;
        let l = self.label_id(label)?;
        if let Some(old) = self.cat().index(l, property).cloned() {
            if !unique || old.unique {
                return Ok(false);
            }
            let spec = IndexSpec { unique: true, ..old };
            self.check_index_unique(&spec)?;
            self.set_index(spec);
            return Ok(true);
        }
        let spec = IndexSpec {
            id: self.cat().next_index_id(),
            label: l,
            property: property.into(),
            unique,
            declared: !unique,
        };
        self.set_index(spec.clone());
        self.backfill(&spec)?;
        if unique {
            self.check_index_unique(&spec)?;
        }
        Ok(true)
    }

    /// Adds the entries of every node with the index's label, as this transaction sees them.
    fn backfill(&mut self, spec: &IndexSpec) -> Result<()> {
        const CHUNK: usize = 1024;
        let p = spec.label.to_be_bytes();
        let mut ids = Vec::new();
        let mut bad = false;
        self.reader().scan(Cf::Labels, &p, &p, &mut |k, _| {
            match k.get(4..).and_then(parse_id) {
                Some(id) => ids.push(id),
                None => bad = true,
            }
            !bad
        })?;
        if bad {
            return Err(corrupt_rec("label index entry"));
        }
        let mut entries = Vec::new();
        for chunk in ids.chunks(CHUNK) {
            let keys: Vec<Vec<u8>> = chunk.iter().map(|id| id_bytes(*id).to_vec()).collect();
            for (id, v) in chunk.iter().zip(self.reader().multi_get(Cf::Nodes, &keys)?) {
                let v = v.ok_or_else(|| corrupt_rec("label index entry of a missing node"))?;
                let rec = NodeRec::decode(&v)?;
                if let Some(p) = rec.props.get(&*spec.property).and_then(Probe::of) {
                    entries.push(entry_key(spec.id, &p.part, *id));
                }
            }
        }
        self.count(&count_index_key(spec.id), entries.len() as i64);
        for e in entries {
            self.put(Cf::PropIndex, &e, Vec::new());
        }
        Ok(())
    }

    /// Fails with [`Error::ConstraintViolation`] if two entries of `spec` hold equal values:
    /// one ordered scan (equal values are adjacent), checking the values behind a shared hash.
    fn check_index_unique(&self, spec: &IndexSpec) -> Result<()> {
        let p = spec.id.to_be_bytes();
        // Runs of entries sharing a value part: an inline part is a duplicate at once; a
        // hashed one is looked at below.
        let mut prev: Option<(Vec<u8>, NodeId)> = None;
        let mut dup = None;
        let mut hashed: Vec<Vec<NodeId>> = Vec::new();
        let mut bad = false;
        self.reader().scan(Cf::PropIndex, &p, &p, &mut |k, _| {
            let Some((_, part, node)) = parse_entry(k) else {
                bad = true;
                return false;
            };
            if let Some((pp, pn)) = &prev {
                if pp.as_slice() == part {
                    if !is_hashed(part) {
                        dup = Some((*pn, node));
                        return false;
                    }
                    match hashed.last_mut() {
                        Some(run) if run.last() == Some(pn) => run.push(node),
                        _ => hashed.push(vec![*pn, node]),
                    }
                }
            }
            prev = Some((part.to_vec(), node));
            true
        })?;
        if bad {
            return Err(corrupt_rec("property index entry"));
        }
        if dup.is_none() {
            'runs: for run in hashed {
                let mut seen: Vec<(Probe, NodeId)> = Vec::new();
                for n in run {
                    let rec = self
                        .node_rec(n)?
                        .ok_or_else(|| corrupt_rec("property index entry of a missing node"))?;
                    let Some(probe) = rec.props.get(&*spec.property).and_then(Probe::of) else {
                        continue;
                    };
                    if let Some((_, first)) = seen.iter().find(|(q, _)| *q == probe) {
                        dup = Some((*first, n));
                        break 'runs;
                    }
                    seen.push((probe, n));
                }
            }
        }
        match dup {
            None => Ok(()),
            Some((first, second)) => {
                let rec = self
                    .node_rec(second)?
                    .ok_or_else(|| corrupt_rec("property index entry of a missing node"))?;
                Err(self.violation(spec, &rec, first))
            }
        }
    }

    /// Drops the index on (`label`, `property`) and its entries. Returns false if there is no
    /// such index; fails if it belongs to a uniqueness constraint (drop that instead).
    pub fn drop_index(&mut self, label: &str, property: &str) -> Result<bool> {
        self.run(|tx| {
            let Some(spec) = tx.find_index(label, property) else {
                return Ok(false);
            };
            if spec.unique {
                return Err(Error::invalid(
                    "index",
                    format!(
                        "the index on :{label}({property}) enforces a uniqueness constraint: drop the constraint instead"
                    ),
                ));
            }
            tx.remove_index(&spec)?;
            Ok(true)
        })
    }

    /// Drops the uniqueness constraint on (`label`, `property`). Its index goes with it,
    /// unless it was created by [`WriteTxn::create_index`] (before or after the constraint),
    /// in which case it stays as a plain index. Returns false if there is no such constraint.
    pub fn drop_unique_constraint(&mut self, label: &str, property: &str) -> Result<bool> {
        self.run(|tx| {
            let Some(spec) = tx.find_index(label, property).filter(|s| s.unique) else {
                return Ok(false);
            };
            if spec.declared {
                tx.set_index(IndexSpec { unique: false, ..spec });
            } else {
                tx.remove_index(&spec)?;
            }
            Ok(true)
        })
    }

    /// Deletes an index's definition, entries and entry count.
    fn remove_index(&mut self, spec: &IndexSpec) -> Result<()> {
        let p = spec.id.to_be_bytes();
        let mut keys = Vec::new();
        self.reader().scan(Cf::PropIndex, &p, &p, &mut |k, _| {
            keys.push(k.to_vec());
            true
        })?;
        for k in keys {
            self.delete(Cf::PropIndex, &k);
        }
        // Counter keys are never deleted: zeroed, so a later index reusing the id starts at 0.
        let key = count_index_key(spec.id);
        let now = match self.get(Cf::Counts, &key)? {
            Some(v) => crate::counters::decode_count(&v).ok_or_else(|| corrupt_rec("counter"))?,
            None => 0,
        };
        self.count(&key, -now);
        self.delete(Cf::Meta, &def_key(spec.label, &spec.property));
        self.cat_mut().remove_index(spec.label, &spec.property);
        Ok(())
    }

    fn new_id(&mut self, key: &NodeKey) -> NodeId {
        let id = self.next_node;
        self.next_node += 1;
        self.new_keys.insert(key.clone(), id);
        id
    }

    /// The id of a live endpoint, created if missing and the store's policy allows it.
    fn endpoint(&mut self, key: &NodeKey) -> Result<NodeId> {
        key.validate()?;
        if let Some(id) = self.resolve(key)? {
            if self.is_live(key, id)? {
                return Ok(id);
            }
        }
        if self.g.cfg.missing_endpoints == MissingEndpoints::Reject {
            return Err(Error::NodeNotFound { key: key.to_string() });
        }
        self.upsert_node_inner(key.clone(), &[], Props::new(), WriteMode::Merge)?;
        self.resolve(key)?
            .ok_or_else(|| Error::NodeNotFound { key: key.to_string() })
    }

    fn check_weight(weight: Option<f64>) -> Result<()> {
        match weight {
            Some(w) if !w.is_finite() => Err(Error::invalid("edge weight", format!("{w} is not a finite number"))),
            _ => Ok(()),
        }
    }

    fn put_edge(
        &mut self,
        s: NodeId,
        t: &EdgeType,
        d: NodeId,
        eid: u64,
        rec: &EdgeRec,
        src_key: &NodeKey,
    ) -> Result<()> {
        self.put(Cf::Out, &adj_key(s, t.id, d, eid), rec.encode()?);
        let back = rec.with_nbr(src_key.clone()).encode()?;
        if t.options.undirected {
            if s != d {
                self.put(Cf::Out, &adj_key(d, t.id, s, eid), back);
            }
        } else {
            self.put(Cf::In, &adj_key(d, t.id, s, eid), back);
        }
        Ok(())
    }

    fn delete_edge_entries(&mut self, s: NodeId, t: &EdgeType, d: NodeId, eid: u64) {
        self.delete(Cf::Out, &adj_key(s, t.id, d, eid));
        if t.options.undirected {
            if s != d {
                self.delete(Cf::Out, &adj_key(d, t.id, s, eid));
            }
        } else {
            self.delete(Cf::In, &adj_key(d, t.id, s, eid));
        }
        if t.options.multi {
            self.delete(Cf::EdgeIds, &id_bytes(eid));
        }
    }

    /// Applies a change of `dc` edges and `dw` weight between `s` and `d` to the counters.
    fn bump(&mut self, s: NodeId, t: &EdgeType, d: NodeId, dc: i64, dw: f64) {
        if dc == 0 && dw == 0.0 {
            return;
        }
        if t.options.undirected {
            if s == d {
                self.deg(s, t.id, |x| {
                    x.und += 2 * dc;
                    x.und_w += 2.0 * dw;
                });
            } else {
                for n in [s, d] {
                    self.deg(n, t.id, |x| {
                        x.und += dc;
                        x.und_w += dw;
                    });
                }
            }
        } else {
            self.deg(s, t.id, |x| {
                x.out += dc;
                x.out_w += dw;
            });
            self.deg(d, t.id, |x| {
                x.inn += dc;
                x.in_w += dw;
            });
        }
        if let Some(log) = self.changes.as_mut() {
            let (src, dst, ty, undirected) = (s, d, t.id, t.options.undirected);
            for _ in 0..dc.unsigned_abs() {
                log.push(if dc > 0 {
                    crate::changes::GraphChange::EdgeAdded {
                        src,
                        dst,
                        ty,
                        undirected,
                    }
                } else {
                    crate::changes::GraphChange::EdgeRemoved {
                        src,
                        dst,
                        ty,
                        undirected,
                    }
                });
            }
        }
        if dc != 0 {
            self.count(COUNT_EDGES, dc);
            self.count(&count_type_key(t.id), dc);
        }
    }

    /// Inserts or updates the edge `src -[ty]-> dst` of a simple (non-multi) type. Missing
    /// endpoints are created or rejected per [`crate::MissingEndpoints`].
    pub fn upsert_edge(
        &mut self,
        src: impl Into<NodeKey>,
        ty: &str,
        dst: impl Into<NodeKey>,
        weight: Option<f64>,
        props: Props,
        mode: WriteMode,
    ) -> Result<()> {
        let (src, dst) = (src.into(), dst.into());
        self.run(|t| t.upsert_edge_inner(&src, ty, &dst, weight, props, mode))
    }

    fn upsert_edge_inner(
        &mut self,
        src: &NodeKey,
        ty: &str,
        dst: &NodeKey,
        weight: Option<f64>,
        props: Props,
        mode: WriteMode,
    ) -> Result<()> {
        Self::check_weight(weight)?;
        validate_props(&props)?;
        let t = self.edge_type(ty, None)?;
        if t.options.multi {
            return Err(Error::EdgeType {
                ty: ty.into(),
                reason: "allows parallel edges: use add_edge, and update or delete by edge id".into(),
            });
        }
        let s = self.endpoint(src)?;
        let d = self.endpoint(dst)?;
        let old = self
            .get(Cf::Out, &adj_key(s, t.id, d, 0))?
            .map(|v| EdgeRec::decode(&v))
            .transpose()?;
        let rec = match (&old, mode) {
            (Some(o), WriteMode::Merge) => {
                let mut p = o.props.clone();
                p.extend(props);
                EdgeRec {
                    nbr: dst.clone(),
                    weight: weight.or(o.weight),
                    props: p,
                }
            }
            _ => EdgeRec {
                nbr: dst.clone(),
                weight,
                props,
            },
        };
        self.put_edge(s, &t, d, 0, &rec, src)?;
        let dc = i64::from(old.is_none());
        let dw = weight_of(rec.weight) - old.as_ref().map_or(0.0, |o| weight_of(o.weight));
        self.bump(s, &t, d, dc, dw);
        Ok(())
    }

    /// Adds a parallel edge of a multi-edge type and returns its stable edge id.
    pub fn add_edge(
        &mut self,
        src: impl Into<NodeKey>,
        ty: &str,
        dst: impl Into<NodeKey>,
        weight: Option<f64>,
        props: Props,
    ) -> Result<u64> {
        let (src, dst) = (src.into(), dst.into());
        self.run(|tx| {
            Self::check_weight(weight)?;
            validate_props(&props)?;
            let t = tx.edge_type(ty, None)?;
            if !t.options.multi {
                return Err(Error::EdgeType {
                    ty: ty.into(),
                    reason: "is not a multi-edge type (declare it with multi: true); use upsert_edge".into(),
                });
            }
            let s = tx.endpoint(&src)?;
            let d = tx.endpoint(&dst)?;
            let eid = tx.next_edge;
            tx.next_edge += 1;
            let rec = EdgeRec {
                nbr: dst.clone(),
                weight,
                props,
            };
            tx.put_edge(s, &t, d, eid, &rec, &src)?;
            tx.put(Cf::EdgeIds, &id_bytes(eid), edge_id_value(s, t.id, d).to_vec());
            tx.bump(s, &t, d, 1, weight_of(weight));
            Ok(eid)
        })
    }

    fn edge_at(&self, eid: u64) -> Result<(NodeId, EdgeType, NodeId, EdgeRec)> {
        let v = self
            .get(Cf::EdgeIds, &id_bytes(eid))?
            .ok_or(Error::EdgeIdNotFound { id: eid })?;
        let (s, ty, d) = parse_edge_id_value(&v).ok_or_else(|| corrupt_rec("edge id entry"))?;
        let t = self
            .cat()
            .type_by_id(ty)
            .cloned()
            .ok_or_else(|| corrupt_rec("edge of an unknown type"))?;
        let rec = self
            .get(Cf::Out, &adj_key(s, ty, d, eid))?
            .ok_or_else(|| corrupt_rec("edge id without its edge"))?;
        Ok((s, t, d, EdgeRec::decode(&rec)?))
    }

    /// Updates a parallel edge by its id.
    pub fn update_edge_by_id(&mut self, eid: u64, weight: Option<f64>, props: Props, mode: WriteMode) -> Result<()> {
        self.run(|tx| {
            Self::check_weight(weight)?;
            validate_props(&props)?;
            let (s, t, d, old) = tx.edge_at(eid)?;
            let src_key = tx
                .node_rec(s)?
                .ok_or_else(|| corrupt_rec("edge from a missing node"))?
                .key;
            let rec = match mode {
                WriteMode::Merge => {
                    let mut p = old.props.clone();
                    p.extend(props);
                    EdgeRec {
                        nbr: old.nbr.clone(),
                        weight: weight.or(old.weight),
                        props: p,
                    }
                }
                WriteMode::Replace => EdgeRec {
                    nbr: old.nbr.clone(),
                    weight,
                    props,
                },
            };
            tx.put_edge(s, &t, d, eid, &rec, &src_key)?;
            tx.bump(s, &t, d, 0, weight_of(rec.weight) - weight_of(old.weight));
            Ok(())
        })
    }

    /// Deletes a parallel edge by its id.
    pub fn delete_edge_by_id(&mut self, eid: u64) -> Result<()> {
        self.run(|tx| {
            let (s, t, d, old) = tx.edge_at(eid)?;
            tx.delete_edge_entries(s, &t, d, eid);
            tx.bump(s, &t, d, -1, -weight_of(old.weight));
            Ok(())
        })
    }

    /// Deletes the edge `src -[ty]-> dst` (every parallel one, for a multi-edge type); for an
    /// undirected type `dst -[ty]- src` is the same edge. Fails with `EdgeNotFound` if absent.
    pub fn delete_edge(&mut self, src: impl Into<NodeKey>, ty: &str, dst: impl Into<NodeKey>) -> Result<()> {
        let (src, dst) = (src.into(), dst.into());
        self.run(|tx| match tx.delete_edge_inner(&src, ty, &dst)? {
            true => Ok(()),
            false => Err(Error::EdgeNotFound {
                src: src.to_string(),
                ty: ty.into(),
                dst: dst.to_string(),
            }),
        })
    }

    /// Like [`WriteTxn::delete_edge`], but an absent edge is not an error. Returns whether
    /// something was deleted.
    pub fn delete_edge_if_exists(
        &mut self,
        src: impl Into<NodeKey>,
        ty: &str,
        dst: impl Into<NodeKey>,
    ) -> Result<bool> {
        let (src, dst) = (src.into(), dst.into());
        self.run(|tx| tx.delete_edge_inner(&src, ty, &dst))
    }

    fn delete_edge_inner(&mut self, src: &NodeKey, ty: &str, dst: &NodeKey) -> Result<bool> {
        let Some(t) = self.cat().type_named(ty).cloned() else {
            return Ok(false);
        };
        let (Some(s), Some(d)) = (self.resolve(src)?, self.resolve(dst)?) else {
            return Ok(false);
        };
        let found = self.adjacency(Cf::Out, &pair_prefix(s, t.id, d))?;
        for (a, w) in &found {
            self.delete_edge_entries(s, &t, d, a.eid);
            self.bump(s, &t, d, -1, -weight_of(*w));
        }
        Ok(!found.is_empty())
    }

    /// Deletes a node and every edge touching it. Fails with `NodeNotFound` if absent.
    pub fn delete_node(&mut self, key: impl Into<NodeKey>) -> Result<()> {
        let key = key.into();
        self.run(|tx| match tx.delete_node_inner(&key)? {
            true => Ok(()),
            false => Err(Error::NodeNotFound { key: key.to_string() }),
        })
    }

    /// Like [`WriteTxn::delete_node`], but an absent node is not an error.
    pub fn delete_node_if_exists(&mut self, key: impl Into<NodeKey>) -> Result<bool> {
        let key = key.into();
        self.run(|tx| tx.delete_node_inner(&key))
    }

    fn delete_node_inner(&mut self, key: &NodeKey) -> Result<bool> {
        let Some(id) = self.resolve(key)? else { return Ok(false) };
        let Some(rec) = self.node_rec(id)? else {
            return Ok(false);
        };
        let mut adj = Vec::new();
        for cf in [Cf::Out, Cf::In] {
            adj.extend(
                self.adjacency(cf, &node_prefix(id))?
                    .into_iter()
                    .map(|(a, w)| (cf, a, w)),
            );
        }
        for (cf, a, w) in adj {
            let t = self
                .cat()
                .type_by_id(a.ty)
                .cloned()
                .ok_or_else(|| corrupt_rec("edge of an unknown type"))?;
            let (s, d) = match cf {
                Cf::Out => (id, a.nbr),
                _ if a.nbr == id => continue, // a directed self-loop, handled from its out entry
                _ => (a.nbr, id),
            };
            self.delete_edge_entries(s, &t, d, a.eid);
            self.bump(s, &t, d, -1, -weight_of(w));
        }
        self.reindex(id, Some(&rec), None)?;
        // The node's own counters go entirely (the bumps above touched them too).
        self.p.deg.insert(id, (true, DegSet::default()));
        for l in &rec.labels {
            self.delete(Cf::Labels, &label_key(*l, id));
            self.count(&count_label_key(*l), -1);
        }
        self.delete(Cf::Nodes, &id_bytes(id));
        self.put(Cf::Keys, &rec.key.encode(), key_value(id, false).to_vec());
        self.count(COUNT_NODES, -1);
        self.liveness.push((id, false));
        if let Some(log) = self.changes.as_mut() {
            log.push(crate::changes::GraphChange::NodeRemoved { id });
        }
        Ok(true)
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
        for (id, live) in std::mem::take(&mut self.liveness) {
            if live {
                self.state.live.insert(id, ());
            } else {
                self.state.live.remove(&id);
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
