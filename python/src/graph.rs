//! The graph handle (`hopdb._hopdb.GraphHandle`, which `hopdb.Graph` subclasses): opening and
//! closing a store, snapshots, maintenance, and the reads shared with `Snapshot`.

use std::sync::Arc;

use hopdb_cypher::QueryEngine;
use hopdb_database::{
    AccessMode, Config, Control, Database, Direction, Durability, Edge, Graph, GraphRead, MissingEndpoints, NodeKey,
    ReadTxn,
};
use parking_lot::{Mutex, RwLock};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3::IntoPyObjectExt;

use crate::convert::{degree_py, direction, edge_py, edges_list, keys_py, node_py, opt_list, to_key, to_keys};
use crate::errors::{an_err, core_err, ClosedError, InvalidArgument};

/// A HopDB store: a directory on disk (RocksDB inside), or in memory. `hopdb.Graph`
/// subclasses it (context manager, batches, NetworkX conversion).
#[pyclass(module = "hopdb._hopdb", frozen, subclass)]
pub(crate) struct GraphHandle {
    inner: RwLock<Option<Arc<Database>>>,
    /// The Cypher engine over `inner`, made by the first `query` (its plan cache then serves
    /// every later one); dropped by `close` with the store. Locked after `inner`.
    engine: Mutex<Option<QueryEngine>>,
}

impl GraphHandle {
    /// The open database (the store and its analytics); ClosedError after `close`.
    pub(crate) fn db(&self) -> PyResult<Arc<Database>> {
        self.inner
            .read()
            .clone()
            .ok_or_else(|| ClosedError::new_err("the graph was closed"))
    }

    /// The database whose latest state reads see (a snapshot has none: it reads its own).
    fn latest(&self) -> PyResult<Option<Arc<Database>>> {
        self.db().map(Some)
    }

    /// The graph's Cypher engine, made on first use; ClosedError after `close`.
    pub(crate) fn engine(&self) -> PyResult<QueryEngine> {
        let inner = self.inner.read();
        let db = inner
            .as_ref()
            .ok_or_else(|| ClosedError::new_err("the graph was closed"))?;
        let mut slot = self.engine.lock();
        Ok(slot
            .get_or_insert_with(|| QueryEngine::new(Database::clone(db)))
            .clone())
    }

    /// Runs `f` on the store with the GIL released.
    pub(crate) fn store<R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&Graph) -> hopdb_database::Result<R> + Send,
    ) -> PyResult<R> {
        let db = self.db()?;
        py.detach(|| f(db.graph())).map_err(core_err)
    }
}

/// A consistent read snapshot: every read through it sees the same state.
#[pyclass(module = "hopdb._hopdb", frozen)]
pub(crate) struct Snapshot {
    txn: Arc<ReadTxn>,
}

impl Snapshot {
    /// A snapshot reads its own state, never the latest (see `GraphHandle::latest`).
    fn latest(&self) -> PyResult<Option<Arc<Database>>> {
        Ok(None)
    }
}

/// The read methods, shared by `Graph` (latest state) and `Snapshot`.
macro_rules! read_methods {
    ($ty:ty, $reader:ident, $this:ident => $get:expr) => {
        #[pymethods]
        impl $ty {
            /// The node with this key as {"key", "labels", "props"}, or None.
            fn node(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let k = to_key(key)?;
                let $this = self;
                let $reader = $get;
                match py.detach(|| $reader.node(&k)).map_err(core_err)? {
                    Some(n) => node_py(py, &n),
                    None => Ok(py.None()),
                }
            }
            /// Nodes for many keys, in order; None where absent.
            fn nodes(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let ks = to_keys(keys)?;
                let $this = self;
                let $reader = $get;
                let got = py.detach(|| $reader.nodes_batch(&ks)).map_err(core_err)?;
                opt_list(py, &got, node_py)
            }
            fn has_node(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
                let k = to_key(key)?;
                let $this = self;
                let $reader = $get;
                py.detach(|| $reader.has_node(&k)).map_err(core_err)
            }
            /// Whether an edge src -> dst exists (of `type`, or any), or dst -> src too when
            /// `either_direction`.
            #[pyo3(signature = (src, dst, r#type=None, either_direction=false))]
            fn has_edge(
                &self,
                py: Python<'_>,
                src: &Bound<'_, PyAny>,
                dst: &Bound<'_, PyAny>,
                r#type: Option<String>,
                either_direction: bool,
            ) -> PyResult<bool> {
                let (s, d) = (to_key(src)?, to_key(dst)?);
                let $this = self;
                if let (Some(db), None) = ($this.latest()?, &r#type) {
                    if let Some(found) = db.analytics().has_edge_now(&s, &d, either_direction) {
                        return Ok(found);
                    }
                }
                let $reader = $get;
                py.detach(|| $reader.has_edge(&s, &d, r#type.as_deref(), either_direction))
                    .map_err(core_err)
            }
            /// The first edge src -> dst (of `type`, or any), looking at dst -> src too when
            /// `either_direction`; a dict or None.
            #[pyo3(signature = (src, dst, r#type=None, either_direction=false))]
            fn edge(
                &self,
                py: Python<'_>,
                src: &Bound<'_, PyAny>,
                dst: &Bound<'_, PyAny>,
                r#type: Option<String>,
                either_direction: bool,
            ) -> PyResult<Py<PyAny>> {
                let (s, d) = (to_key(src)?, to_key(dst)?);
                let $this = self;
                let $reader = $get;
                match py
                    .detach(|| $reader.edge_between(&s, &d, r#type.as_deref(), either_direction))
                    .map_err(core_err)?
                {
                    Some(e) => edge_py(py, &e),
                    None => Ok(py.None()),
                }
            }
            /// Edges for many (src, dst) pairs, in order; None where absent.
            #[pyo3(signature = (pairs, r#type=None, either_direction=false))]
            fn edges_between(
                &self,
                py: Python<'_>,
                pairs: &Bound<'_, PyAny>,
                r#type: Option<String>,
                either_direction: bool,
            ) -> PyResult<Py<PyAny>> {
                let ps = pairs
                    .try_iter()?
                    .map(|p| {
                        let p = p?;
                        let (a, b): (Bound<'_, PyAny>, Bound<'_, PyAny>) = p.extract()?;
                        Ok((to_key(&a)?, to_key(&b)?))
                    })
                    .collect::<PyResult<Vec<_>>>()?;
                let $this = self;
                let $reader = $get;
                let got = py
                    .detach(|| $reader.edges_between_batch(&ps, r#type.as_deref(), either_direction))
                    .map_err(core_err)?;
                opt_list(py, &got, edge_py)
            }
            /// The edges of a node as dicts ("out", "in" or "both"); NotFound if it does not exist.
            #[pyo3(signature = (key, direction="both", r#type=None, limit=None))]
            fn edges(
                &self,
                py: Python<'_>,
                key: &Bound<'_, PyAny>,
                direction: &str,
                r#type: Option<String>,
                limit: Option<usize>,
            ) -> PyResult<Py<PyAny>> {
                let (k, dir) = (to_key(key)?, self::direction(direction)?);
                let $this = self;
                let $reader = $get;
                let got = py
                    .detach(|| $reader.edges(&k, dir, r#type.as_deref(), limit))
                    .map_err(core_err)?;
                edges_list(py, &got)
            }
            /// Edge lists for many keys, in order; None where the node is absent.
            #[pyo3(signature = (keys, direction="both", r#type=None, limit=None))]
            fn edges_of(
                &self,
                py: Python<'_>,
                keys: &Bound<'_, PyAny>,
                direction: &str,
                r#type: Option<String>,
                limit: Option<usize>,
            ) -> PyResult<Py<PyAny>> {
                let (ks, dir) = (to_keys(keys)?, self::direction(direction)?);
                let $this = self;
                let $reader = $get;
                let got = py
                    .detach(|| $reader.edges_batch(&ks, dir, r#type.as_deref(), limit))
                    .map_err(core_err)?;
                opt_list(py, &got, |py, es: &Vec<Edge>| edges_list(py, es))
            }
            /// Distinct neighbour keys of a node (itself too over a self-loop), at most `limit`,
            /// in storage order; NotFound if it does not exist. On the latest state this is
            /// served from the in-memory projection when one is fresh (built in the background
            /// after the first such read, within `projection_mb`; or by `project`).
            #[pyo3(signature = (key, direction="both", r#type=None, limit=None))]
            fn neighbors(
                &self,
                py: Python<'_>,
                key: &Bound<'_, PyAny>,
                direction: &str,
                r#type: Option<String>,
                limit: Option<usize>,
            ) -> PyResult<Py<PyAny>> {
                let k = to_key(key)?;
                let dir = self::direction(direction)?;
                match self
                    .neighbor_lists(py, std::slice::from_ref(&k), dir, r#type, limit)?
                    .pop()
                    .flatten()
                {
                    Some(got) => keys_py(py, &got),
                    None => Err(core_err(hopdb_database::Error::NodeNotFound {
                        key: k.to_string(),
                    })),
                }
            }
            /// Neighbour key lists for many keys, in order; None where the node is absent.
            #[pyo3(signature = (keys, direction="both", r#type=None, limit=None))]
            fn neighbors_of(
                &self,
                py: Python<'_>,
                keys: &Bound<'_, PyAny>,
                direction: &str,
                r#type: Option<String>,
                limit: Option<usize>,
            ) -> PyResult<Py<PyAny>> {
                let (ks, dir) = (to_keys(keys)?, self::direction(direction)?);
                let got = self.neighbor_lists(py, &ks, dir, r#type, limit)?;
                opt_list(py, &got, |py, ks: &Vec<NodeKey>| keys_py(py, ks))
            }
            /// (edge count, weight sum) of a node in O(1); unweighted edges weigh 1.0.
            #[pyo3(signature = (key, direction="both", r#type=None))]
            fn degree(
                &self,
                py: Python<'_>,
                key: &Bound<'_, PyAny>,
                direction: &str,
                r#type: Option<String>,
            ) -> PyResult<Py<PyAny>> {
                let (k, dir) = (to_key(key)?, self::direction(direction)?);
                let $this = self;
                let $reader = $get;
                let d = py
                    .detach(|| $reader.degree(&k, dir, r#type.as_deref()))
                    .map_err(core_err)?;
                degree_py(py, &d)
            }
            /// (count, weight sum) for many keys, in order; None where the node is absent.
            #[pyo3(signature = (keys, direction="both", r#type=None))]
            fn degrees(
                &self,
                py: Python<'_>,
                keys: &Bound<'_, PyAny>,
                direction: &str,
                r#type: Option<String>,
            ) -> PyResult<Py<PyAny>> {
                let (ks, dir) = (to_keys(keys)?, self::direction(direction)?);
                let $this = self;
                let $reader = $get;
                let got = py
                    .detach(|| $reader.degrees_batch(&ks, dir, r#type.as_deref()))
                    .map_err(core_err)?;
                opt_list(py, &got, degree_py)
            }
            fn node_count(&self, py: Python<'_>) -> PyResult<u64> {
                let $this = self;
                let $reader = $get;
                py.detach(|| $reader.node_count()).map_err(core_err)
            }
            fn edge_count(&self, py: Python<'_>) -> PyResult<u64> {
                let $this = self;
                let $reader = $get;
                py.detach(|| $reader.edge_count()).map_err(core_err)
            }
            /// Labels in use as [(name, node count)], by name.
            fn labels(&self, py: Python<'_>) -> PyResult<Vec<(String, u64)>> {
                let $this = self;
                let $reader = $get;
                py.detach(|| $reader.labels()).map_err(core_err)
            }
            /// Edge types as [(name, edge count, undirected, multi)], by name.
            fn edge_types(&self, py: Python<'_>) -> PyResult<Vec<(String, u64, bool, bool)>> {
                let $this = self;
                let $reader = $get;
                let t = py.detach(|| $reader.edge_types()).map_err(core_err)?;
                Ok(t.into_iter()
                    .map(|(t, n)| (t.name.to_string(), n, t.options.undirected, t.options.multi))
                    .collect())
            }
            /// Keys of the nodes with `label`.
            #[pyo3(signature = (label, limit=None))]
            fn nodes_with_label(&self, py: Python<'_>, label: &str, limit: Option<usize>) -> PyResult<Py<PyAny>> {
                let $this = self;
                let $reader = $get;
                let got = py
                    .detach(|| $reader.nodes_with_label(label, limit))
                    .map_err(core_err)?;
                keys_py(py, &got)
            }
        }
    };
}

/// Where `neighbors` reads: the latest state through `Analytics` (a fresh projection or the
/// overlay when there is one, else the store), a snapshot from its own state.
trait NeighborReads {
    fn neighbor_lists(
        &self,
        py: Python<'_>,
        keys: &[NodeKey],
        dir: Direction,
        ty: Option<String>,
        limit: Option<usize>,
    ) -> PyResult<Vec<Option<Vec<NodeKey>>>>;
}

impl NeighborReads for GraphHandle {
    fn neighbor_lists(
        &self,
        py: Python<'_>,
        keys: &[NodeKey],
        dir: Direction,
        ty: Option<String>,
        limit: Option<usize>,
    ) -> PyResult<Vec<Option<Vec<NodeKey>>>> {
        let (db, types) = (self.db()?, ty.map(|t| vec![t]));
        py.detach(|| {
            db.analytics()
                .neighbors_batch(keys, dir, &types, limit, &Control::default())
        })
        .map(|a| a.value)
        .map_err(an_err)
    }
}

impl NeighborReads for Snapshot {
    fn neighbor_lists(
        &self,
        py: Python<'_>,
        keys: &[NodeKey],
        dir: Direction,
        ty: Option<String>,
        limit: Option<usize>,
    ) -> PyResult<Vec<Option<Vec<NodeKey>>>> {
        let txn = self.txn.clone();
        py.detach(|| {
            keys.iter()
                .map(|k| match txn.neighbors(k, dir, ty.as_deref(), limit) {
                    Ok(n) => Ok(Some(n)),
                    Err(hopdb_database::Error::NodeNotFound { .. }) => Ok(None),
                    Err(e) => Err(e),
                })
                .collect::<hopdb_database::Result<Vec<_>>>()
        })
        .map_err(core_err)
    }
}

read_methods!(GraphHandle, reader, this => this.db()?.graph().clone());
read_methods!(Snapshot, reader, this => this.txn.clone());

#[pymethods]
impl GraphHandle {
    /// Opens (creating if needed) the store at `path`, or an in-memory store when `path` is
    /// None. `read_only` opens a store another process may be writing (a fixed view as of
    /// the open). `durability`: "process" (survives a crash of the process; default), "sync"
    /// (survives power loss) or "none" (bulk work; durable at the next flush or close).
    /// `projection_mb`: the peak MiB an adjacency projection built without a `project()` call
    /// may take (reads build one in the background when it fits; 0 never); default 512, or
    /// `memory_mb` when that is given.
    #[new]
    #[pyo3(signature = (path=None, *, read_only=false, durability="process", create_missing_endpoints=true, memory_mb=None, projection_mb=None))]
    fn new(
        py: Python<'_>,
        path: Option<std::path::PathBuf>,
        read_only: bool,
        durability: &str,
        create_missing_endpoints: bool,
        memory_mb: Option<f64>,
        projection_mb: Option<f64>,
    ) -> PyResult<Self> {
        let mut cfg = Config {
            access: if read_only {
                AccessMode::Secondary
            } else {
                AccessMode::ReadWrite
            },
            durability: match durability {
                "process" => Durability::Process,
                "sync" => Durability::Sync,
                "none" => Durability::None,
                other => {
                    return Err(InvalidArgument::new_err(format!(
                        "durability is 'process', 'sync' or 'none', not {other:?}"
                    )))
                }
            },
            missing_endpoints: if create_missing_endpoints {
                MissingEndpoints::Create
            } else {
                MissingEndpoints::Reject
            },
            ..Config::default()
        };
        if let Some(mb) = memory_mb {
            if !(mb.is_finite() && mb >= 8.0) {
                return Err(InvalidArgument::new_err(format!(
                    "memory_mb is the caches' and memtables' budget in MiB, at least 8, not {mb}"
                )));
            }
            cfg = cfg.with_memory_budget((mb * 1048576.0) as usize);
        }
        if let Some(mb) = projection_mb {
            if !(mb.is_finite() && mb >= 0.0) {
                return Err(InvalidArgument::new_err(format!(
                    "projection_mb is the unasked projection's peak in MiB, 0 or more, not {mb}"
                )));
            }
            cfg.auto_projection_bytes = (mb * 1048576.0) as u64;
        }
        let db = py
            .detach(|| match &path {
                Some(p) => Database::open_with(p, cfg),
                None => Ok(Database::in_memory_with(cfg)),
            })
            .map_err(core_err)?;
        Ok(GraphHandle {
            inner: RwLock::new(Some(Arc::new(db))),
            engine: Mutex::new(None),
        })
    }

    /// Closes the store (waits for nothing: running calls finish on their own handle).
    fn close(&self, py: Python<'_>) {
        let taken = {
            let mut inner = self.inner.write();
            (inner.take(), self.engine.lock().take())
        };
        py.detach(move || drop(taken));
    }

    #[getter]
    fn closed(&self) -> bool {
        self.inner.read().is_none()
    }

    /// The store directory, or None in memory.
    #[getter]
    fn path(&self) -> PyResult<Option<String>> {
        Ok(self.db()?.graph().path().map(|p| p.display().to_string()))
    }

    /// A counter that moves with every commit through this handle.
    #[getter]
    fn version(&self) -> PyResult<u64> {
        Ok(self.db()?.graph().version())
    }

    /// A consistent read snapshot.
    fn snapshot(&self) -> PyResult<Snapshot> {
        Ok(Snapshot {
            txn: Arc::new(self.db()?.graph().read()),
        })
    }

    /// Every node as a dict, in id order (a snapshot taken now; bounded memory).
    fn all_nodes(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let db = self.db()?;
        let nodes = py
            .detach(|| db.graph().scan_nodes().collect::<hopdb_database::Result<Vec<_>>>())
            .map_err(core_err)?;
        PyList::new(py, nodes.iter().map(|n| node_py(py, n)).collect::<PyResult<Vec<_>>>()?)?.into_py_any(py)
    }

    /// Persists memtables to disk (writes are durable without it; this shortens the next open).
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        self.store(py, |g| g.flush())
    }

    /// The store's memory by part, in bytes, read without touching data: the block cache
    /// (and what of it is pinned), the row cache, memtables, the SST readers' own memory, the
    /// key index, and the bytes the Rust side's allocator (mimalloc) has committed. RocksDB's
    /// C++ and CPython allocate elsewhere, so the parts need not add up to the process's RSS.
    ///
    /// >>> import hopdb
    /// >>> g = hopdb.Graph()
    /// >>> g.upsert_edge("a", "LINKS", "b")
    /// >>> g.memory_usage()["key_index_keys"]
    /// 2
    fn memory_usage<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let db = self.db()?;
        let m = py.detach(|| db.graph().memory_usage());
        let s = &m.storage;
        let d = PyDict::new(py);
        for (k, v) in [
            ("block_cache", s.block_cache_bytes),
            ("block_cache_pinned", s.block_cache_pinned_bytes),
            ("row_cache", s.row_cache_bytes),
            ("memtables", s.memtable_bytes),
            ("table_readers", s.table_readers_bytes),
            ("key_index", m.key_index_bytes),
            ("key_index_keys", m.key_index_keys),
            ("allocator_committed", crate::allocator_committed_bytes()),
        ] {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// Loads the store's keys into the in-memory key index (one scan, until every key is in
    /// or the index's share of ``memory_mb`` is spent) and returns how many it indexed. Reads
    /// by key then cost one storage lookup fewer from their first call; without it the index
    /// fills as keys are read. Run it on a thread after opening a large store:
    ///
    /// >>> import hopdb
    /// >>> g = hopdb.Graph()
    /// >>> g.upsert_edge("a", "LINKS", "b")
    /// >>> g.warm_key_index()
    /// 2
    fn warm_key_index(&self, py: Python<'_>) -> PyResult<u64> {
        self.store(py, |g| g.warm_key_index())
    }

    /// Copies one consistent snapshot of the store into a new directory; returns
    /// {"records", "bytes", "seconds"}.
    fn backup(&self, py: Python<'_>, dest: std::path::PathBuf) -> PyResult<Py<PyAny>> {
        let db = self.db()?;
        let r = py.detach(|| db.graph().backup(&dest)).map_err(core_err)?;
        let d = PyDict::new(py);
        d.set_item("records", r.records)?;
        d.set_item("bytes", r.bytes)?;
        d.set_item("seconds", r.seconds)?;
        d.into_py_any(py)
    }
}
