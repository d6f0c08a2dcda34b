//! The execution context: the store (a snapshot or the query's write transaction), the
//! parameters, the statement clock, update counters, and a cache of the entities read.

use crate::ast::Projection;
use crate::engine::{Params, KEY_PROPERTY};
use crate::error::{CypherError, ErrorClass, Result};
use crate::functions::GraphAccess;
use crate::result::QueryStats;
use crate::temporal::Clock;
use crate::value::{Map, NodeData, NodeRef, RelData, RelRef, Value};
use hopdb_database::{
    Analytics, Control, Edge, GraphRead, GraphWrite, Node, NodeKey, NodeRecord, ReadTxn, SharedProjection, WriteTxn,
};
use rustc_hash::FxHashMap;
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

/// Where a query reads (and writes).
pub(crate) enum Store<'t> {
    /// A read-only query's snapshot.
    Read(ReadTxn),
    /// A writing query's transaction (it sees its own changes); boxed, as it is large.
    Write(Box<WriteTxn<'t>>),
    /// A read-only query on a graph kept elsewhere (a cluster's query node): only what
    /// [`GraphRead`] offers, none of the local store's fast paths.
    Remote(Arc<dyn GraphRead + Send + Sync>),
    /// A writing query's transaction on a graph kept elsewhere (it sees its own changes).
    RemoteWrite(Box<dyn GraphWrite + Send>),
}

impl Store<'_> {
    /// Commits a write transaction's changes (nothing to do for a read).
    pub fn commit(self) -> hopdb_database::Result<()> {
        match self {
            Store::Write(tx) => tx.commit(),
            Store::RemoteWrite(tx) => tx.commit_boxed(),
            Store::Read(_) | Store::Remote(_) => Ok(()),
        }
    }

    /// Whether the store takes writes.
    pub fn writes(&self) -> bool {
        matches!(self, Store::Write(_) | Store::RemoteWrite(_))
    }
}

/// A read-only query's adjacency from the analytics layer's projection of every edge type,
/// when that projection holds exactly the query's snapshot: listing a node's relationships
/// is then a slice of memory instead of a RocksDB iterator seek.
pub(crate) struct FastAdj {
    pub proj: SharedProjection,
    /// Catalog type id -> the type's name when the projection lists its edges exactly as the
    /// store does (directed and simple: the edge is `(src, type, dst)`); `None` for the
    /// undirected and multi-edge types, which are listed from the store.
    pub types: Vec<Option<Arc<str>>>,
    /// Every declared type is listable from the projection.
    pub all_listable: bool,
}

impl FastAdj {
    fn new(txn: &ReadTxn, proj: SharedProjection) -> FastAdj {
        let mut types: Vec<Option<Arc<str>>> = Vec::new();
        let mut all_listable = true;
        for t in txn.declared_edge_types() {
            let at = t.id as usize;
            if types.len() <= at {
                types.resize(at + 1, None);
            }
            if t.options.undirected || t.options.multi {
                all_listable = false;
            } else {
                types[at] = Some(t.name.clone());
            }
        }
        FastAdj {
            proj,
            types,
            all_listable,
        }
    }

    /// The catalog ids of `names` when every one is listable here (unknown names list
    /// nothing); `None` when one is not (list from the store).
    pub fn type_ids(&self, txn: &ReadTxn, names: &[String]) -> Option<Vec<u32>> {
        let mut ids = Vec::with_capacity(names.len());
        for n in names {
            match txn.edge_type_named(n) {
                Some(t) if !self.types.get(t.id as usize).is_some_and(Option::is_some) => return None,
                Some(t) if !ids.contains(&t.id) => ids.push(t.id),
                _ => {}
            }
        }
        Some(ids)
    }
}

/// An engine's last [`FastAdj`], reused while the projection it was made for is the fresh
/// one: its type table costs an allocation and a walk of the catalog, a tenth of a short
/// query, when made per query. A projection holds exactly one snapshot version, so the
/// catalog it was made with is every later query's on it.
#[derive(Default)]
pub(crate) struct FastAdjCache(std::sync::Mutex<Option<Arc<FastAdj>>>);

impl FastAdjCache {
    fn get(&self, txn: &ReadTxn, proj: SharedProjection) -> Arc<FastAdj> {
        let mut last = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(f) = last.as_ref().filter(|f| Arc::ptr_eq(&f.proj, &proj)) {
            return f.clone();
        }
        let f = Arc::new(FastAdj::new(txn, proj));
        *last = Some(f.clone());
        f
    }
}

/// A node as a query has read it: decoded (`None`: it does not exist), or from a scan with
/// its properties still encoded, so a query that reads one property per node decodes that
/// one only.
enum Seen {
    Node(Option<Arc<Node>>),
    Record(NodeRecord),
}

/// Everything operators and expressions need while a query runs.
pub(crate) struct Ctx<'t, 'p> {
    pub store: Store<'t>,
    pub params: &'p Params,
    pub clock: Clock,
    pub control: Control,
    pub stats: QueryStats,
    pub analytics: Arc<Analytics>,
    /// PROFILE: (clause, rows out, nanoseconds) per clause run, when profiling.
    pub profile: Option<Vec<(String, u64, u64)>>,
    /// The engine's user-defined procedures (empty unless the engine sets them).
    pub procedures: super::procedures::registry::ProcedureRegistry,
    nodes: RefCell<FxHashMap<NodeKey, Seen>>,
    rels: RefCell<FxHashMap<RelRef, Option<Arc<Map>>>>,
    /// Regular expressions of `=~`, compiled once per query and pattern text.
    regexes: RefCell<HashMap<String, Arc<regex::Regex>>>,
    /// Edge types this query created relationships of (a catalog listing reads every
    /// type's counter, too much to repeat per relationship).
    pub edge_types: HashMap<String, hopdb_database::EdgeType>,
    fast: OnceCell<Option<Arc<FastAdj>>>,
    fast_cache: Arc<FastAdjCache>,
    /// The operator PROFILE names for the clause just run when a fast path answered it
    /// (`Walk`: the analytics layer's walks; `NodeByKeySeek`: one node read by its key).
    pub operator: std::cell::Cell<Option<&'static str>>,
    /// The clause just run also applied the projection after it (see `project::Stream`), to
    /// this many rows of its own.
    pub fused: std::cell::Cell<Option<u64>>,
    /// The clause just run was a walk that also ran this many clauses after it (a `WITH
    /// DISTINCT` and a second MATCH, see `walks::chain`), before any projection it fused.
    pub chained: std::cell::Cell<usize>,
    /// The clause just run produced rows the next projection's DISTINCT cannot reduce (each
    /// end node once, projected to one value per node): it skips its duplicate check.
    pub distinct_rows: std::cell::Cell<bool>,
    /// The query's last RETURN when its values may come back as one column (a top-level
    /// query, no UNION, not profiled). Compared by address only, never read through.
    pub final_return: Option<*const Projection>,
    /// That RETURN's values, when it has one column and a walk projected it: no vector per
    /// row (the table it returned holds the names and no rows; the engine takes these).
    pub column: std::cell::Cell<Option<Vec<Value>>>,
}

impl<'t, 'p> Ctx<'t, 'p> {
    pub fn new(
        store: Store<'t>,
        params: &'p Params,
        control: Control,
        analytics: Arc<Analytics>,
        procedures: super::procedures::registry::ProcedureRegistry,
        fast_cache: Arc<FastAdjCache>,
    ) -> Ctx<'t, 'p> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as i128)
            .unwrap_or(0);
        Ctx {
            store,
            params,
            clock: Clock { statement_nanos: nanos },
            control,
            stats: QueryStats::default(),
            analytics,
            profile: None,
            procedures,
            nodes: RefCell::new(FxHashMap::default()),
            rels: RefCell::new(FxHashMap::default()),
            regexes: RefCell::new(HashMap::new()),
            edge_types: HashMap::new(),
            fast: OnceCell::new(),
            fast_cache,
            operator: std::cell::Cell::new(None),
            fused: std::cell::Cell::new(None),
            chained: std::cell::Cell::new(0),
            distinct_rows: std::cell::Cell::new(false),
            final_return: None,
            column: std::cell::Cell::new(None),
        }
    }

    /// Whether `p` is the query's last RETURN and has one column, so its values may be
    /// handed over as [`Ctx::column`].
    pub fn returns_column(&self, p: &Projection) -> bool {
        p.items.len() == 1 && self.final_return.is_some_and(|f| std::ptr::eq(f, p))
    }

    /// The projection-backed adjacency of a read-only query whose snapshot a cached
    /// projection holds exactly; `None` otherwise (writes, or no fresh projection).
    pub fn fast_adj(&self) -> Option<&FastAdj> {
        self.fast
            .get_or_init(|| match &self.store {
                Store::Read(txn) => self
                    .analytics
                    .fresh_projection(txn)
                    .map(|p| self.fast_cache.get(txn, p)),
                Store::Write(_) | Store::Remote(_) | Store::RemoteWrite(_) => None,
            })
            .as_deref()
    }

    /// Whether node `key` exists as this query sees it: from the projection when it holds
    /// the snapshot exactly, else by reading (and caching) the node, which the label and
    /// property checks and the projection that follow then use without another read.
    pub fn live(&self, key: &NodeKey) -> Result<bool> {
        Ok(match self.fast_adj() {
            Some(fast) => fast.proj.index_of_key(key).is_some(),
            None => self.node(key)?.is_some(),
        })
    }

    /// Whether node `key` has every one of `labels`, from the fresh projection's label masks
    /// (no node read); `None` when there is no fresh projection or it holds no masks.
    pub fn has_labels_projected(&self, key: &NodeKey, labels: &[String]) -> Option<bool> {
        self.projected_label_check(labels).map(|has| has(key))
    }

    /// [`Ctx::has_labels_projected`] as one check for many nodes (the projection and snapshot
    /// resolved once); `None` when there is no fresh projection or it holds no masks.
    pub fn projected_label_check(&self, labels: &[String]) -> Option<impl Fn(&NodeKey) -> bool + '_> {
        let (fast, txn) = (self.fast_adj()?, self.snapshot()?);
        if !fast.proj.has_label_masks() {
            return None;
        }
        // The labels as one mask, looked up once; `None` when the catalog does not know one,
        // or its id is past what a mask holds: no node has it.
        let want = labels.iter().try_fold(0u64, |m, l| {
            txn.label_id_named(l).filter(|&id| id < 64).map(|id| m | 1 << id)
        });
        Some(move |key: &NodeKey| match (want, fast.proj.index_of_key(key)) {
            (Some(want), Some(u)) => fast.proj.has_label_mask(u, want) == Some(true),
            // Not in the snapshot: no node to have them.
            _ => false,
        })
    }

    /// The read-only snapshot, for the analytics layer's calls (`None` in a write transaction,
    /// whose own changes only the executor sees).
    pub fn snapshot(&self) -> Option<&ReadTxn> {
        match &self.store {
            Store::Read(txn) => Some(txn),
            Store::Write(_) | Store::Remote(_) | Store::RemoteWrite(_) => None,
        }
    }

    /// Whether the query reads a graph kept elsewhere (a cluster).
    pub fn is_remote(&self) -> bool {
        matches!(self.store, Store::Remote(_) | Store::RemoteWrite(_))
    }

    /// The store as this query sees it.
    pub fn read(&self) -> &dyn GraphRead {
        match &self.store {
            Store::Read(r) => r,
            Store::Write(w) => &**w,
            Store::Remote(g) => &**g,
            Store::RemoteWrite(w) => &**w,
        }
    }

    /// The write transaction; a read-only query that reaches a write clause is a planner bug.
    /// Gives the store back (to commit or keep using the transaction).
    pub fn into_store(self) -> Store<'t> {
        self.store
    }

    pub fn tx(&mut self) -> Result<&mut dyn GraphWrite> {
        self.nodes.get_mut().clear();
        self.rels.get_mut().clear();
        match &mut self.store {
            Store::Write(w) => Ok(&mut **w),
            Store::RemoteWrite(w) => Ok(&mut **w),
            Store::Read(_) | Store::Remote(_) => Err(CypherError::runtime(
                ErrorClass::SemanticError,
                "WriteInReadOnlyQuery",
                "a write clause ran in a read-only transaction",
            )),
        }
    }

    /// Stops the query when its timeout, cancel flag or memory bound says so.
    pub fn check(&self) -> Result<()> {
        self.control.check().map_err(|e| {
            use hopdb_database::AlgoError as A;
            let (class, detail) = match e {
                A::MemoryLimit { .. } => (ErrorClass::MemoryLimit, "Cancelled"),
                A::DeadlineExceeded(_) => (ErrorClass::Timeout, "TimedOut"),
                _ => (ErrorClass::Timeout, "Cancelled"),
            };
            CypherError::runtime(class, detail, format!("query stopped: {e}"))
        })
    }

    /// The compiled regular expression of an `=~` pattern (whole-string match).
    pub fn regex(&self, pattern: &str) -> Result<Arc<regex::Regex>> {
        if let Some(r) = self.regexes.borrow().get(pattern) {
            return Ok(r.clone());
        }
        let re = regex::Regex::new(&format!("^(?:{pattern})$")).map_err(|e| {
            CypherError::argument(
                "InvalidArgumentValue",
                format!("invalid regular expression {pattern:?}: {e}"),
            )
        })?;
        let re = Arc::new(re);
        self.regexes.borrow_mut().insert(pattern.to_string(), re.clone());
        Ok(re)
    }

    /// Checks the memory bound against a table of `rows` rows of `width` values (estimated
    /// at 64 bytes a value), every 1024 rows, along with the timeout and cancel flag.
    pub fn check_rows(&self, rows: usize, width: usize) -> Result<()> {
        if !rows.is_multiple_of(1024) {
            return Ok(());
        }
        self.check_size(rows, width)
    }

    /// [`Ctx::check_rows`] now, whatever the count (rows that grow by more than one at a time).
    pub fn check_size(&self, rows: usize, width: usize) -> Result<()> {
        self.check()?;
        self.control
            .check_memory(rows.saturating_mul(width.max(1)).saturating_mul(64))
            .map_err(|e| CypherError::runtime(ErrorClass::MemoryLimit, "MemoryLimit", format!("query stopped: {e}")))
    }

    /// The node with this key, as the query sees it now; `None` if it does not exist (deleted).
    pub fn node(&self, key: &NodeKey) -> Result<Option<Arc<Node>>> {
        let scanned = match self.nodes.borrow().get(key) {
            Some(Seen::Node(n)) => return Ok(n.clone()),
            Some(Seen::Record(r)) => Some(r.to_node()?),
            None => None,
        };
        let n = match scanned {
            Some(n) => Some(Arc::new(n)),
            None => self.read().node(key)?.map(Arc::new),
        };
        self.nodes.borrow_mut().insert(key.clone(), Seen::Node(n.clone()));
        Ok(n)
    }

    /// Caches a node read by a scan, its properties decoded when one is asked for.
    pub fn remember(&self, rec: NodeRecord) {
        self.nodes.borrow_mut().insert(rec.key.clone(), Seen::Record(rec));
    }

    /// `f` of the node's scanned record, carried by the value or cached by key; `None` when
    /// there is none (the node was read whole, or not yet).
    fn scanned<R>(&self, n: &NodeRef, f: impl FnOnce(&NodeRecord) -> R) -> Option<R> {
        if let Some(r) = &n.stored {
            return Some(f(r));
        }
        match self.nodes.borrow().get(&n.key) {
            Some(Seen::Record(r)) => Some(f(r)),
            _ => None,
        }
    }

    /// `f` of the node's record: carried by the value, cached, or read now and cached (one
    /// point read, the properties left encoded: a filter on one property of a node found by
    /// key, index or expansion decodes that one, not a description of kilobytes). `None` when
    /// the node was cached whole or does not exist; over a cluster, nodes are read whole.
    fn with_record<R>(&self, n: &NodeRef, f: impl FnOnce(&NodeRecord) -> R) -> Result<Option<R>> {
        if n.stored.is_none() && !self.is_remote() && !self.nodes.borrow().contains_key(&n.key) {
            let seen = match self.read().node_record(&n.key)? {
                Some(rec) => Seen::Record(rec),
                None => Seen::Node(None),
            };
            self.nodes.borrow_mut().insert(n.key.clone(), seen);
        }
        Ok(self.scanned(n, f))
    }

    /// Whether the node has every one of `labels` (`None`: it does not exist), without
    /// decoding its properties.
    pub fn node_has_labels(&self, n: &NodeRef, labels: &[String]) -> Result<Option<bool>> {
        if let Some(has) = self.with_record(n, |r| labels.iter().all(|l| r.has_label(l)))? {
            return Ok(Some(has));
        }
        Ok(self
            .node(&n.key)?
            .map(|n| labels.iter().all(|l| n.labels.iter().any(|x| x == l))))
    }

    /// The node, or an EntityNotFound error when it was deleted.
    pub fn live_node(&self, n: &NodeRef) -> Result<Arc<Node>> {
        if let Some(r) = &n.stored {
            return Ok(Arc::new(r.to_node()?));
        }
        self.node(&n.key)?.ok_or_else(|| {
            CypherError::runtime(
                ErrorClass::EntityNotFound,
                "DeletedEntityAccess",
                format!("node {} was deleted", n.key),
            )
        })
    }

    /// The stored edge a relationship reference names.
    pub fn edge(&self, r: &RelRef) -> Result<Option<Edge>> {
        let g = self.read();
        if r.edge_id != 0 && self.is_remote() {
            // No edge-id index over a cluster: the edge is among its source's.
            return Ok(
                match g.edges(&r.src, hopdb_database::Direction::Out, Some(&r.ty), None) {
                    Ok(list) => list.into_iter().find(|e| e.id == r.edge_id),
                    Err(e) if e.kind() == hopdb_database::ErrorKind::NotFound => None,
                    Err(e) => return Err(e.into()),
                },
            );
        }
        if r.edge_id != 0 {
            return Ok(g.edge_by_id(r.edge_id)?);
        }
        Ok(g.edge(&r.src, &r.ty, &r.dst)?)
    }

    /// A relationship's properties as the query sees them now.
    pub fn rel_props(&self, r: &RelRef) -> Result<Option<Arc<Map>>> {
        if let Some(p) = self.rels.borrow().get(r) {
            return Ok(p.clone());
        }
        let p = self.edge(r)?.map(|e| Arc::new(convert_props(e.props)));
        self.rels.borrow_mut().insert(r.clone(), p.clone());
        Ok(p)
    }

    /// A property of a node (`_key` is the node's key).
    pub fn node_property(&self, n: &NodeRef, key: &str) -> Result<Value> {
        if key == KEY_PROPERTY {
            return Ok(key_value(&n.key));
        }
        if let Some(v) = self.with_record(n, |r| r.property(key))? {
            return Ok(v?.map_or(Value::Null, stored_value));
        }
        let node = self.live_node(n)?;
        Ok(match node.props.get(key) {
            Some(v) => stored_value_ref(v),
            None => Value::Null,
        })
    }

    /// A property of a relationship.
    pub fn rel_property(&self, r: &RelRef, key: &str) -> Result<Value> {
        match self.rel_props(r)? {
            Some(p) => Ok(p.get(key).cloned().unwrap_or(Value::Null)),
            None => Err(deleted_rel()),
        }
    }

    /// Fills a value's nodes and relationships with their contents, for the result.
    pub fn materialize(&self, v: Value) -> Result<Value> {
        Ok(match v {
            Value::Node(n) => Value::Node(self.materialize_node(n)?),
            Value::Relationship(r) => Value::Relationship(self.materialize_rel(r)?),
            Value::Path(mut p) => {
                p.nodes = p
                    .nodes
                    .into_iter()
                    .map(|n| self.materialize_node(n))
                    .collect::<Result<_>>()?;
                p.rels = p
                    .rels
                    .into_iter()
                    .map(|r| self.materialize_rel(r))
                    .collect::<Result<_>>()?;
                Value::Path(p)
            }
            Value::List(l) => Value::List(l.into_iter().map(|v| self.materialize(v)).collect::<Result<_>>()?),
            Value::Map(m) => Value::Map(
                m.into_iter()
                    .map(|(k, v)| Ok((k, self.materialize(v)?)))
                    .collect::<Result<_>>()?,
            ),
            v => v,
        })
    }

    fn materialize_node(&self, mut n: NodeRef) -> Result<NodeRef> {
        if n.data.is_some() {
            return Ok(n);
        }
        let id = self.node_id(&n)?;
        let node = match &n.stored {
            Some(r) => Some(Arc::new(r.to_node()?)),
            None => self.node(&n.key)?,
        };
        let data = match node {
            Some(node) => NodeData {
                id,
                labels: node.labels.clone(),
                props: convert_props(node.props.clone()),
            },
            // A node deleted by this query is returned as an empty shell, as Neo4j does.
            None => NodeData {
                id,
                labels: Vec::new(),
                props: Map::new(),
            },
        };
        n.data = Some(Arc::new(data));
        Ok(n)
    }

    fn materialize_rel(&self, mut r: RelRef) -> Result<RelRef> {
        if r.data.is_some() {
            return Ok(r);
        }
        let props = self.rel_props(&r)?.map(|p| (*p).clone()).unwrap_or_default();
        let (start_id, end_id) = (self.node_id_of(&r.src)?, self.node_id_of(&r.dst)?);
        r.data = Some(Arc::new(RelData {
            id: self.rel_id_of(&r, start_id, end_id),
            start_id,
            end_id,
            props,
        }));
        Ok(r)
    }

    fn node_id_of(&self, key: &NodeKey) -> Result<u64> {
        Ok(self.read().node_id(key)?.unwrap_or(0))
    }

    fn rel_id_of(&self, r: &RelRef, start: u64, end: u64) -> i64 {
        if r.edge_id != 0 {
            return r.edge_id as i64;
        }
        // Simple edge types have no id of their own: derive a stable one from the endpoints
        // and type, with bit 61 set so it never equals a multi-edge id and stays positive.
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (start, &*r.ty, end).hash(&mut h);
        ((h.finish() >> 3) | (1 << 61)) as i64
    }
}

fn deleted_rel() -> CypherError {
    CypherError::runtime(
        ErrorClass::EntityNotFound,
        "DeletedEntityAccess",
        "the relationship was deleted",
    )
}

/// A node key as a Cypher value.
pub(crate) fn key_value(k: &NodeKey) -> Value {
    match k {
        NodeKey::Int(i) => Value::Int(*i),
        NodeKey::Str(s) => Value::String(s.clone()),
    }
}

/// [`key_value`] for a key no longer needed: moved, not copied.
pub(crate) fn key_into_value(k: NodeKey) -> Value {
    match k {
        NodeKey::Str(s) => Value::String(s),
        NodeKey::Int(i) => Value::Int(i),
    }
}

/// A stored property value as a Cypher value (temporal values are stored as tagged maps).
pub(crate) fn stored_value(v: hopdb_database::Value) -> Value {
    if let Some(t) = crate::temporal::from_store(&v) {
        return t;
    }
    Value::from_store(v)
}

/// [`stored_value`] of a borrowed value: scalars are copied without cloning the container.
pub(crate) fn stored_value_ref(v: &hopdb_database::Value) -> Value {
    use hopdb_database::Value as S;
    match v {
        S::Null => Value::Null,
        S::Bool(b) => Value::Bool(*b),
        S::Int(i) => Value::Int(*i),
        S::Float(f) => Value::Float(*f),
        S::Str(s) => Value::String(s.clone()),
        other => stored_value(other.clone()),
    }
}

/// Stored properties as a Cypher map.
pub(crate) fn convert_props(p: hopdb_database::Props) -> Map {
    p.into_iter().map(|(k, v)| (k, stored_value(v))).collect()
}

impl GraphAccess for Ctx<'_, '_> {
    fn labels(&self, n: &NodeRef) -> Result<Vec<String>> {
        if let Some(r) = &n.stored {
            return Ok(r.labels.iter().map(|l| l.to_string()).collect());
        }
        Ok(self.live_node(n)?.labels.clone())
    }
    fn node_properties(&self, n: &NodeRef) -> Result<Map> {
        Ok(convert_props(self.live_node(n)?.props.clone()))
    }
    fn rel_properties(&self, r: &RelRef) -> Result<Map> {
        self.rel_props(r)?.map(|p| (*p).clone()).ok_or_else(deleted_rel)
    }
    fn node_id(&self, n: &NodeRef) -> Result<u64> {
        match &n.stored {
            Some(r) => Ok(r.id),
            None => self.node_id_of(&n.key),
        }
    }
    fn rel_id(&self, r: &RelRef) -> Result<i64> {
        let (s, e) = (self.node_id_of(&r.src)?, self.node_id_of(&r.dst)?);
        Ok(self.rel_id_of(r, s, e))
    }
}
