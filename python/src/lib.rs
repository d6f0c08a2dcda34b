//! `hopdb._hopdb`: the native half of the `hopdb` Python package.
//!
//! Values cross as plain Python objects (None, bool, int, float, str, bytes, list, dict with
//! str keys); node keys are str or int. Every call that touches the store or runs an
//! algorithm releases the GIL (`Python::detach`), so Python threads run in parallel; inputs
//! are converted before and results after, while holding it.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use hopdb_algo::{AlgoError, Control, HopMode};
use hopdb_analytics::{Analytics, AnalyticsError, KHop, PathQuery, ProjectionSpec, Step, Via};
use hopdb_core::{
    AccessMode, Config, Degree, Direction, Durability, Edge, EdgeInput, EdgeTypeOptions, Graph, GraphRead,
    MissingEndpoints, Node, NodeInput, NodeKey, Props, ReadTxn, Value, WriteMode,
};
use parking_lot::RwLock;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;

/// The Rust side's allocations (decoded records, key lists, traversal state) go to mimalloc:
/// with glibc's malloc, two Python threads calling in contended on its arenas, and RocksDB's
/// block churn made every free consolidate chunks. Measured on the study's Q1-Q7 mix from
/// Python (medians): +14% on one thread, +23% on two (decision 0013). RocksDB's C++ and
/// CPython keep their own allocators; `local_dynamic_tls` because this library is loaded with
/// dlopen.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod lightrag;

// ---- exceptions ---------------------------------------------------------------------------

create_exception!(_hopdb, Error, PyException, "Base class of every HopDB error.");
create_exception!(
    _hopdb,
    NotFound,
    Error,
    "A node or edge named by the call does not exist."
);
create_exception!(
    _hopdb,
    InvalidArgument,
    Error,
    "Bad input: a value, name, key or option HopDB cannot accept."
);
create_exception!(
    _hopdb,
    StoreLocked,
    Error,
    "The store is open for writing elsewhere (one writer process at a time)."
);
create_exception!(_hopdb, ReadOnlyError, Error, "A write on a store opened read-only.");
create_exception!(
    _hopdb,
    StorageError,
    Error,
    "The storage engine or the file system failed."
);
create_exception!(
    _hopdb,
    CorruptionError,
    StorageError,
    "The store's files are damaged or not a HopDB store."
);
create_exception!(
    _hopdb,
    Cancelled,
    Error,
    "A traversal or algorithm stopped by its timeout, cancel flag or memory bound."
);
create_exception!(_hopdb, ClosedError, Error, "The graph was closed.");

fn core_err(e: hopdb_core::Error) -> PyErr {
    use hopdb_core::Error as E;
    let msg = e.to_string();
    // A batch item's error keeps its class (and the message names the item).
    let kind = match &e {
        E::InBatch { source, .. } => &**source,
        other => other,
    };
    match kind {
        E::NodeNotFound { .. } | E::EdgeNotFound { .. } => NotFound::new_err(msg),
        E::StoreLocked { .. } => StoreLocked::new_err(msg),
        E::ReadOnly { .. } => ReadOnlyError::new_err(msg),
        E::Invalid { .. } | E::TooLarge { .. } | E::EdgeType { .. } | E::DuplicateNode { .. } => {
            InvalidArgument::new_err(msg)
        }
        E::Corruption { .. } | E::NotAStore { .. } | E::UnsupportedFormat { .. } => CorruptionError::new_err(msg),
        E::Storage { .. } | E::Io { .. } => StorageError::new_err(msg),
        _ => Error::new_err(msg),
    }
}

fn an_err(e: AnalyticsError) -> PyErr {
    let msg = e.to_string();
    match e {
        AnalyticsError::Store(e) => core_err(e),
        AnalyticsError::NodeNotFound { .. } => NotFound::new_err(msg),
        AnalyticsError::Algo(AlgoError::InvalidArgument(_)) => InvalidArgument::new_err(msg),
        AnalyticsError::Algo(AlgoError::NodeOutOfRange { .. }) => NotFound::new_err(msg),
        AnalyticsError::Algo(_) => Cancelled::new_err(msg),
        _ => Error::new_err(msg),
    }
}

fn import_err(e: hopdb_import::ImportError) -> PyErr {
    match e {
        hopdb_import::ImportError::Store(e) => core_err(e),
        other => InvalidArgument::new_err(other.to_string()),
    }
}

// ---- values -------------------------------------------------------------------------------

fn to_key(obj: &Bound<'_, PyAny>) -> PyResult<NodeKey> {
    if obj.is_instance_of::<PyBool>() {
        return Err(InvalidArgument::new_err("a node key is a str or an int, not a bool"));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(NodeKey::Str(s.to_cow()?.into_owned()));
    }
    if obj.is_instance_of::<PyInt>() {
        return obj
            .extract::<i64>()
            .map(NodeKey::Int)
            .map_err(|_| InvalidArgument::new_err("an int node key must fit in 64 bits"));
    }
    Err(InvalidArgument::new_err(format!(
        "a node key is a str or an int, not {}",
        obj.get_type().name()?
    )))
}

fn to_keys(obj: &Bound<'_, PyAny>) -> PyResult<Vec<NodeKey>> {
    obj.try_iter()?.map(|k| to_key(&k?)).collect()
}

fn key_py(py: Python<'_>, k: &NodeKey) -> PyResult<Py<PyAny>> {
    match k {
        NodeKey::Str(s) => s.into_py_any(py),
        NodeKey::Int(i) => i.into_py_any(py),
    }
}

fn keys_py(py: Python<'_>, ks: &[NodeKey]) -> PyResult<Py<PyAny>> {
    let items = ks.iter().map(|k| key_py(py, k)).collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)?.into_py_any(py)
}

fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        return obj
            .extract::<i64>()
            .map(Value::Int)
            .map_err(|_| InvalidArgument::new_err("an int property must fit in 64 bits"));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(Value::Float(f.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::Str(s.to_cow()?.into_owned()));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Value::Bytes(b.as_bytes().to_vec()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Value::Bytes(b.to_vec()));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        return Ok(Value::Map(to_props(d)?));
    }
    if obj.cast::<PyList>().is_ok() || obj.cast::<PyTuple>().is_ok() {
        return Ok(Value::List(
            obj.try_iter()?.map(|v| to_value(&v?)).collect::<PyResult<_>>()?,
        ));
    }
    Err(InvalidArgument::new_err(format!(
        "a property value is None, bool, int, float, str, bytes, list or dict, not {}",
        obj.get_type().name()?
    )))
}

fn to_props(d: &Bound<'_, PyDict>) -> PyResult<BTreeMap<String, Value>> {
    let mut out = BTreeMap::new();
    for (k, v) in d.iter() {
        let k = k
            .cast::<PyString>()
            .map_err(|_| InvalidArgument::new_err("property names are str"))?
            .to_cow()?
            .into_owned();
        out.insert(k, to_value(&v)?);
    }
    Ok(out)
}

fn opt_props(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Props> {
    match obj {
        None => Ok(Props::new()),
        Some(o) if o.is_none() => Ok(Props::new()),
        Some(o) => to_props(
            o.cast::<PyDict>()
                .map_err(|_| InvalidArgument::new_err("props must be a dict"))?,
        ),
    }
}

fn value_py(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
    match v {
        Value::Null => Ok(py.None()),
        Value::Bool(b) => b.into_py_any(py),
        Value::Int(i) => i.into_py_any(py),
        Value::Float(f) => f.into_py_any(py),
        Value::Str(s) => s.into_py_any(py),
        Value::Bytes(b) => PyBytes::new(py, b).into_py_any(py),
        Value::List(l) => {
            PyList::new(py, l.iter().map(|x| value_py(py, x)).collect::<PyResult<Vec<_>>>()?)?.into_py_any(py)
        }
        Value::Map(m) => props_py(py, m),
    }
}

/// Python strs for property names, labels and edge types, made once: a store has few distinct
/// names, and a str that already exists skips an allocation (and, as a dict key, a hash).
/// +4% on `node()` of a cached chunk (decision 0013).
static NAMES: std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<String, Py<PyString>>>> =
    std::sync::OnceLock::new();
/// Names beyond this many are made afresh each time (a store with open-ended names).
const NAMES_MAX: usize = 4096;

fn name_py(py: Python<'_>, name: &str) -> Py<PyString> {
    let names = NAMES.get_or_init(Default::default);
    let mut names = names.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = names.get(name) {
        return s.clone_ref(py);
    }
    let s = PyString::new(py, name).unbind();
    if names.len() < NAMES_MAX {
        names.insert(name.to_owned(), s.clone_ref(py));
    }
    s
}

fn props_py(py: Python<'_>, p: &BTreeMap<String, Value>) -> PyResult<Py<PyAny>> {
    let d = PyDict::new(py);
    for (k, v) in p {
        d.set_item(name_py(py, k), value_py(py, v)?)?;
    }
    d.into_py_any(py)
}

fn node_py(py: Python<'_>, n: &Node) -> PyResult<Py<PyAny>> {
    let d = PyDict::new(py);
    d.set_item(pyo3::intern!(py, "key"), key_py(py, &n.key)?)?;
    d.set_item(
        pyo3::intern!(py, "labels"),
        PyList::new(py, n.labels.iter().map(|l| name_py(py, l)))?,
    )?;
    d.set_item(pyo3::intern!(py, "props"), props_py(py, &n.props)?)?;
    d.into_py_any(py)
}

fn edge_py(py: Python<'_>, e: &Edge) -> PyResult<Py<PyAny>> {
    let d = PyDict::new(py);
    d.set_item(pyo3::intern!(py, "src"), key_py(py, &e.src)?)?;
    d.set_item(pyo3::intern!(py, "type"), name_py(py, &e.ty))?;
    d.set_item(pyo3::intern!(py, "dst"), key_py(py, &e.dst)?)?;
    d.set_item(pyo3::intern!(py, "weight"), e.weight)?;
    d.set_item(pyo3::intern!(py, "props"), props_py(py, &e.props)?)?;
    if e.id != 0 {
        d.set_item(pyo3::intern!(py, "id"), e.id)?;
    }
    d.into_py_any(py)
}

fn edges_list(py: Python<'_>, es: &[Edge]) -> PyResult<Py<PyAny>> {
    PyList::new(py, es.iter().map(|e| edge_py(py, e)).collect::<PyResult<Vec<_>>>()?)?.into_py_any(py)
}

fn degree_py(py: Python<'_>, d: &Degree) -> PyResult<Py<PyAny>> {
    (d.count, d.weight_sum).into_py_any(py)
}

fn opt_list<T>(
    py: Python<'_>,
    items: &[Option<T>],
    f: impl Fn(Python<'_>, &T) -> PyResult<Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    let out = items
        .iter()
        .map(|x| match x {
            Some(x) => f(py, x),
            None => Ok(py.None()),
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, out)?.into_py_any(py)
}

fn direction(s: &str) -> PyResult<Direction> {
    match s {
        "out" => Ok(Direction::Out),
        "in" => Ok(Direction::In),
        "both" => Ok(Direction::Both),
        other => Err(InvalidArgument::new_err(format!(
            "direction is 'out', 'in' or 'both', not {other:?}"
        ))),
    }
}

fn mode(replace: bool) -> WriteMode {
    if replace {
        WriteMode::Replace
    } else {
        WriteMode::Merge
    }
}

fn control(timeout: Option<f64>) -> PyResult<Control> {
    match timeout {
        None => Ok(Control::default()),
        Some(t) if t.is_finite() && t >= 0.0 => Ok(Control::default().with_timeout(Duration::from_secs_f64(t))),
        Some(t) => Err(InvalidArgument::new_err(format!(
            "timeout must be a non-negative number of seconds, not {t}"
        ))),
    }
}

/// A node input from `(key, labels, props)` or `{"key": .., "labels": .., "props": ..}`.
fn node_input(obj: &Bound<'_, PyAny>) -> PyResult<NodeInput> {
    let (key, labels, props) = if let Ok(d) = obj.cast::<PyDict>() {
        let key = d
            .get_item("key")?
            .ok_or_else(|| InvalidArgument::new_err("a node dict needs a 'key'"))?;
        (key, d.get_item("labels")?, d.get_item("props")?)
    } else {
        let t: Vec<Bound<'_, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
        match t.len() {
            1..=3 => (t[0].clone(), t.get(1).cloned(), t.get(2).cloned()),
            _ => return Err(InvalidArgument::new_err("a node is (key, labels, props) or a dict")),
        }
    };
    let labels: Vec<String> = match labels {
        Some(l) if !l.is_none() => l.extract()?,
        _ => Vec::new(),
    };
    Ok(NodeInput {
        key: to_key(&key)?,
        labels,
        props: opt_props(props.as_ref())?,
    })
}

/// An edge input from `(src, type, dst[, weight[, props]])` or a dict with those names.
fn edge_input(obj: &Bound<'_, PyAny>) -> PyResult<EdgeInput> {
    let (src, ty, dst, weight, props) = if let Ok(d) = obj.cast::<PyDict>() {
        let get = |k: &str| -> PyResult<Bound<'_, PyAny>> {
            d.get_item(k)?
                .ok_or_else(|| InvalidArgument::new_err(format!("an edge dict needs {k:?}")))
        };
        (
            get("src")?,
            get("type")?,
            get("dst")?,
            d.get_item("weight")?,
            d.get_item("props")?,
        )
    } else {
        let t: Vec<Bound<'_, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
        match t.len() {
            3..=5 => (
                t[0].clone(),
                t[1].clone(),
                t[2].clone(),
                t.get(3).cloned(),
                t.get(4).cloned(),
            ),
            _ => {
                return Err(InvalidArgument::new_err(
                    "an edge is (src, type, dst[, weight[, props]]) or a dict",
                ))
            }
        }
    };
    let weight = match weight {
        Some(w) if !w.is_none() => Some(w.extract::<f64>()?),
        _ => None,
    };
    Ok(EdgeInput {
        src: to_key(&src)?,
        ty: ty.extract()?,
        dst: to_key(&dst)?,
        weight,
        props: opt_props(props.as_ref())?,
    })
}

/// One key (a str or int) or an iterable of keys.
fn seed_keys(obj: &Bound<'_, PyAny>) -> PyResult<Vec<NodeKey>> {
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyInt>() {
        Ok(vec![to_key(obj)?])
    } else {
        to_keys(obj)
    }
}

/// A path pattern: (direction, type | [types] | None) pairs.
fn pattern_steps(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Step>> {
    obj.try_iter()?
        .map(|item| {
            let item = item?;
            let (dir, types): (String, Bound<'_, PyAny>) = item.extract().map_err(|_| {
                InvalidArgument::new_err(format!(
                    "a pattern step is a (direction, type) pair, e.g. ('out', 'MENTIONS'); got {item}"
                ))
            })?;
            let types = if types.is_none() {
                None
            } else if types.is_instance_of::<PyString>() {
                Some(vec![types.extract::<String>()?])
            } else {
                Some(types.extract::<Vec<String>>()?)
            };
            Ok(Step {
                dir: direction(&dir)?,
                types,
            })
        })
        .collect()
}

// ---- the graph ----------------------------------------------------------------------------

struct Open {
    g: Graph,
    an: Arc<Analytics>,
}

/// A HopDB store: a directory on disk (RocksDB inside), or in memory. `hopdb.Graph`
/// subclasses it (context manager, batches, NetworkX conversion).
#[pyclass(module = "hopdb._hopdb", frozen, subclass)]
struct GraphHandle {
    inner: RwLock<Option<Arc<Open>>>,
}

impl GraphHandle {
    fn open(&self) -> PyResult<Arc<Open>> {
        self.inner
            .read()
            .clone()
            .ok_or_else(|| ClosedError::new_err("the graph was closed"))
    }

    /// Runs `f` on the store with the GIL released.
    fn store<R: Send>(&self, py: Python<'_>, f: impl FnOnce(&Graph) -> hopdb_core::Result<R> + Send) -> PyResult<R> {
        let g = self.open()?.g.clone();
        py.detach(|| f(&g)).map_err(core_err)
    }
}

/// A consistent read snapshot: every read through it sees the same state.
#[pyclass(module = "hopdb._hopdb", frozen)]
struct Snapshot {
    txn: Arc<ReadTxn>,
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
            /// served from the in-memory projection when one is fresh (see `project`).
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
                    None => Err(core_err(hopdb_core::Error::NodeNotFound { key: k.to_string() })),
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
        let (an, types) = (self.open()?.an.clone(), ty.map(|t| vec![t]));
        py.detach(|| an.neighbors_batch(keys, dir, &types, limit, &Control::default()))
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
                    Err(hopdb_core::Error::NodeNotFound { .. }) => Ok(None),
                    Err(e) => Err(e),
                })
                .collect::<hopdb_core::Result<Vec<_>>>()
        })
        .map_err(core_err)
    }
}

read_methods!(GraphHandle, reader, this => this.open()?.g.clone());
read_methods!(Snapshot, reader, this => this.txn.clone());

#[pymethods]
impl GraphHandle {
    /// Opens (creating if needed) the store at `path`, or an in-memory store when `path` is
    /// None. `read_only` opens a store another process may be writing (a fixed view as of
    /// the open). `durability`: "process" (survives a crash of the process; default), "sync"
    /// (survives power loss) or "none" (bulk work; durable at the next flush or close).
    #[new]
    #[pyo3(signature = (path=None, *, read_only=false, durability="process", create_missing_endpoints=true, memory_mb=None))]
    fn new(
        py: Python<'_>,
        path: Option<std::path::PathBuf>,
        read_only: bool,
        durability: &str,
        create_missing_endpoints: bool,
        memory_mb: Option<f64>,
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
        let g = py
            .detach(|| match &path {
                Some(p) => Graph::open_with(p, cfg),
                None => Ok(Graph::in_memory_with(cfg)),
            })
            .map_err(core_err)?;
        let an = Arc::new(Analytics::new(g.clone()));
        Ok(GraphHandle {
            inner: RwLock::new(Some(Arc::new(Open { g, an }))),
        })
    }

    /// Closes the store (waits for nothing: running calls finish on their own handle).
    fn close(&self, py: Python<'_>) {
        let taken = self.inner.write().take();
        py.detach(move || drop(taken));
    }

    #[getter]
    fn closed(&self) -> bool {
        self.inner.read().is_none()
    }

    /// The store directory, or None in memory.
    #[getter]
    fn path(&self) -> PyResult<Option<String>> {
        Ok(self.open()?.g.path().map(|p| p.display().to_string()))
    }

    /// A counter that moves with every commit through this handle.
    #[getter]
    fn version(&self) -> PyResult<u64> {
        Ok(self.open()?.g.version())
    }

    /// A consistent read snapshot.
    fn snapshot(&self) -> PyResult<Snapshot> {
        Ok(Snapshot {
            txn: Arc::new(self.open()?.g.read()),
        })
    }

    /// Inserts or merges a node (labels added, properties merged; `replace=True` makes them
    /// exactly the given ones). Durable when it returns.
    #[pyo3(signature = (key, labels=Vec::new(), props=None, *, replace=false))]
    fn upsert_node(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        labels: Vec<String>,
        props: Option<&Bound<'_, PyAny>>,
        replace: bool,
    ) -> PyResult<()> {
        let n = NodeInput {
            key: to_key(key)?,
            labels,
            props: opt_props(props)?,
        };
        self.store(py, |g| g.upsert_nodes(std::slice::from_ref(&n), mode(replace)))
    }

    /// Upserts many nodes in one atomic, durable batch: items are (key, labels, props) or
    /// {"key", "labels", "props"}.
    #[pyo3(signature = (nodes, *, replace=false))]
    fn upsert_nodes(&self, py: Python<'_>, nodes: &Bound<'_, PyAny>, replace: bool) -> PyResult<()> {
        let ns = nodes
            .try_iter()?
            .map(|n| node_input(&n?))
            .collect::<PyResult<Vec<_>>>()?;
        self.store(py, |g| g.upsert_nodes(&ns, mode(replace)))
    }

    /// Deletes a node and its edges; returns whether it existed.
    fn delete_node(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let k = to_key(key)?;
        self.store(py, |g| {
            let mut tx = g.write()?;
            let found = tx.delete_node_if_exists(k)?;
            tx.commit()?;
            Ok(found)
        })
    }

    /// Deletes many nodes (and their edges) atomically; returns how many existed.
    fn delete_nodes(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<usize> {
        let ks = to_keys(keys)?;
        self.store(py, |g| {
            let mut tx = g.write()?;
            let mut n = 0;
            for k in ks {
                n += usize::from(tx.delete_node_if_exists(k)?);
            }
            tx.commit()?;
            Ok(n)
        })
    }

    /// Inserts or merges the edge src -[type]-> dst (missing endpoints are created unless
    /// the graph was opened with create_missing_endpoints=False).
    #[pyo3(signature = (src, r#type, dst, weight=None, props=None, *, replace=false))]
    #[allow(clippy::too_many_arguments)]
    fn upsert_edge(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        r#type: String,
        dst: &Bound<'_, PyAny>,
        weight: Option<f64>,
        props: Option<&Bound<'_, PyAny>>,
        replace: bool,
    ) -> PyResult<()> {
        let e = EdgeInput {
            src: to_key(src)?,
            ty: r#type,
            dst: to_key(dst)?,
            weight,
            props: opt_props(props)?,
        };
        self.store(py, |g| g.upsert_edges(std::slice::from_ref(&e), mode(replace)))
    }

    /// Upserts many edges in one atomic, durable batch: items are (src, type, dst[, weight[,
    /// props]]) or dicts with those names.
    #[pyo3(signature = (edges, *, replace=false))]
    fn upsert_edges(&self, py: Python<'_>, edges: &Bound<'_, PyAny>, replace: bool) -> PyResult<()> {
        let es = edges
            .try_iter()?
            .map(|e| edge_input(&e?))
            .collect::<PyResult<Vec<_>>>()?;
        self.store(py, |g| g.upsert_edges(&es, mode(replace)))
    }

    /// Adds a parallel edge of a multi-edge type; returns its id.
    #[pyo3(signature = (src, r#type, dst, weight=None, props=None))]
    fn add_edge(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        r#type: String,
        dst: &Bound<'_, PyAny>,
        weight: Option<f64>,
        props: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<u64> {
        let (s, d, p) = (to_key(src)?, to_key(dst)?, opt_props(props)?);
        self.store(py, |g| {
            let mut tx = g.write()?;
            let id = tx.add_edge(s, &r#type, d, weight, p)?;
            tx.commit()?;
            Ok(id)
        })
    }

    /// Declares an edge type before first use: undirected (one edge per unordered pair)
    /// and/or multi (parallel edges with ids).
    #[pyo3(signature = (name, *, undirected=false, multi=false))]
    fn define_edge_type(&self, py: Python<'_>, name: &str, undirected: bool, multi: bool) -> PyResult<()> {
        self.store(py, |g| g.define_edge_type(name, EdgeTypeOptions { undirected, multi }))
            .map(|_| ())
    }

    /// Deletes the edge src -[type]-> dst; returns whether it existed.
    fn delete_edge(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        r#type: &str,
        dst: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let (s, d) = (to_key(src)?, to_key(dst)?);
        self.store(py, |g| {
            let mut tx = g.write()?;
            let found = tx.delete_edge_if_exists(s, r#type, d)?;
            tx.commit()?;
            Ok(found)
        })
    }

    /// Deletes many (src, type, dst) edges atomically; returns how many existed.
    fn delete_edges(&self, py: Python<'_>, edges: &Bound<'_, PyAny>) -> PyResult<usize> {
        let es = edges
            .try_iter()?
            .map(|e| {
                let (s, t, d): (Bound<'_, PyAny>, String, Bound<'_, PyAny>) = e?.extract()?;
                Ok((to_key(&s)?, t, to_key(&d)?))
            })
            .collect::<PyResult<Vec<_>>>()?;
        self.store(py, |g| {
            let mut tx = g.write()?;
            let mut n = 0;
            for (s, t, d) in es {
                n += usize::from(tx.delete_edge_if_exists(s, &t, d)?);
            }
            tx.commit()?;
            Ok(n)
        })
    }

    /// Applies a list of operations in one atomic, durable transaction (used by
    /// `hopdb.Graph.batch()`): ("node", key, labels, props, replace), ("edge", src, type,
    /// dst, weight, props, replace), ("del_node", key), ("del_edge", src, type, dst).
    fn apply(&self, py: Python<'_>, ops: &Bound<'_, PyAny>) -> PyResult<()> {
        enum Op {
            Node(NodeInput, WriteMode),
            Edge(EdgeInput, WriteMode),
            DelNode(NodeKey),
            DelEdge(NodeKey, String, NodeKey),
        }
        let mut list = Vec::new();
        for op in ops.try_iter()? {
            let op = op?;
            let t: Vec<Bound<'_, PyAny>> = op.try_iter()?.collect::<PyResult<_>>()?;
            let kind: String = t
                .first()
                .ok_or_else(|| InvalidArgument::new_err("empty operation"))?
                .extract()?;
            list.push(match (kind.as_str(), t.len()) {
                ("node", 5) => Op::Node(
                    NodeInput {
                        key: to_key(&t[1])?,
                        labels: t[2].extract()?,
                        props: opt_props(Some(&t[3]))?,
                    },
                    mode(t[4].extract()?),
                ),
                ("edge", 7) => Op::Edge(
                    EdgeInput {
                        src: to_key(&t[1])?,
                        ty: t[2].extract()?,
                        dst: to_key(&t[3])?,
                        weight: t[4].extract()?,
                        props: opt_props(Some(&t[5]))?,
                    },
                    mode(t[6].extract()?),
                ),
                ("del_node", 2) => Op::DelNode(to_key(&t[1])?),
                ("del_edge", 4) => Op::DelEdge(to_key(&t[1])?, t[2].extract()?, to_key(&t[3])?),
                _ => {
                    return Err(InvalidArgument::new_err(format!(
                        "unknown operation {kind:?} with {} fields",
                        t.len()
                    )))
                }
            });
        }
        self.store(py, |g| {
            let mut tx = g.write()?;
            for op in list {
                match op {
                    Op::Node(n, m) => tx.upsert_node(
                        n.key,
                        &n.labels.iter().map(String::as_str).collect::<Vec<_>>(),
                        n.props,
                        m,
                    )?,
                    Op::Edge(e, m) => tx.upsert_edge(e.src, &e.ty, e.dst, e.weight, e.props, m)?,
                    Op::DelNode(k) => {
                        tx.delete_node_if_exists(k)?;
                    }
                    Op::DelEdge(s, t, d) => {
                        tx.delete_edge_if_exists(s, &t, d)?;
                    }
                }
            }
            tx.commit()
        })
    }

    /// Every node as a dict, in id order (a snapshot taken now; bounded memory).
    fn all_nodes(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let g = self.open()?.g.clone();
        let nodes = py
            .detach(|| g.scan_nodes().collect::<hopdb_core::Result<Vec<_>>>())
            .map_err(core_err)?;
        PyList::new(py, nodes.iter().map(|n| node_py(py, n)).collect::<PyResult<Vec<_>>>()?)?.into_py_any(py)
    }

    /// Persists memtables to disk (writes are durable without it; this shortens the next open).
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        self.store(py, |g| g.flush())
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
        let g = self.open()?.g.clone();
        let r = py.detach(|| g.backup(&dest)).map_err(core_err)?;
        let d = PyDict::new(py);
        d.set_item("records", r.records)?;
        d.set_item("bytes", r.bytes)?;
        d.set_item("seconds", r.seconds)?;
        d.into_py_any(py)
    }

    /// Writes the graph as files that `import_files` (or `hopdb import --from-export`) reads
    /// back exactly: "csv" (neo4j-admin CSV) or "parquet" (one nodes file, one file per edge
    /// type), plus manifest.json, in `dest`. Returns {"nodes", "edges"}. Works while writers
    /// write (one snapshot).
    #[pyo3(signature = (dest, format="parquet"))]
    fn export(&self, py: Python<'_>, dest: std::path::PathBuf, format: &str) -> PyResult<Py<PyAny>> {
        let g = self.open()?.g.clone();
        let (nodes, edges) = match format {
            "parquet" => py
                .detach(|| hopdb_import::parquet::export_parquet(&g, &dest))
                .map(|r| (r.nodes, r.edges)),
            "csv" => py
                .detach(|| hopdb_import::export::export_csv(&g, &dest))
                .map(|r| (r.nodes, r.edges)),
            other => {
                return Err(InvalidArgument::new_err(format!(
                    "format is 'parquet' or 'csv', not {other:?}"
                )))
            }
        }
        .map_err(import_err)?;
        let d = PyDict::new(py);
        d.set_item("nodes", nodes)?;
        d.set_item("edges", edges)?;
        d.into_py_any(py)
    }

    /// Bulk-loads files atomically (see `hopdb import --help`): neo4j-admin CSV `nodes` and
    /// `relationships` (lists of "[LABEL=]file,..." specs), `edge_lists` (paths), Parquet /
    /// Arrow IPC tables, LightRAG GraphML files, GraphRAG output directories. Returns a dict
    /// of counts and timings.
    #[pyo3(signature = (*, nodes=Vec::new(), relationships=Vec::new(), edge_lists=Vec::new(), undirected=false, weighted=false, parquet_nodes=Vec::new(), parquet_edges=Vec::new(), graphml=Vec::new(), graphrag=Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn import_files(
        &self,
        py: Python<'_>,
        nodes: Vec<String>,
        relationships: Vec<String>,
        edge_lists: Vec<std::path::PathBuf>,
        undirected: bool,
        weighted: bool,
        parquet_nodes: Vec<String>,
        parquet_edges: Vec<String>,
        graphml: Vec<std::path::PathBuf>,
        graphrag: Vec<std::path::PathBuf>,
    ) -> PyResult<Py<PyAny>> {
        use hopdb_import::{parquet::Columns, parquet::TableInput, EdgeList, FileGroup, ImportSpec};
        let spec = ImportSpec {
            nodes: nodes.iter().map(|s| FileGroup::parse(s)).collect(),
            relationships: relationships.iter().map(|s| FileGroup::parse(s)).collect(),
            edge_lists: edge_lists
                .iter()
                .map(|p| EdgeList {
                    undirected,
                    weighted,
                    ..EdgeList::new(p)
                })
                .collect(),
            parquet_nodes: parquet_nodes
                .iter()
                .map(|s| TableInput::parse(s, Columns::default()))
                .collect(),
            parquet_edges: parquet_edges
                .iter()
                .map(|s| TableInput::parse(s, Columns::default()))
                .collect(),
            graphml,
            graphrag,
            ..ImportSpec::default()
        };
        let g = self.open()?.g.clone();
        let r = py
            .detach(|| hopdb_import::import(&g, &spec, &hopdb_import::NoProgress))
            .map_err(import_err)?;
        let d = PyDict::new(py);
        d.set_item("nodes", r.nodes)?;
        d.set_item("edges", r.edges)?;
        d.set_item("rows", r.rows)?;
        d.set_item("bad", r.bad)?;
        d.set_item("seconds", r.seconds)?;
        d.into_py_any(py)
    }

    /// Bulk-loads Arrow tables atomically, like Parquet files: `nodes` and `edges` are lists
    /// of tables, or of (spec, table) pairs where spec gives the labels of every node row
    /// ("A:B") or the type of edge rows without a type column. A table is anything with
    /// `__arrow_c_stream__` (pyarrow Table / RecordBatchReader, Polars and pandas DataFrames),
    /// read without copying. Columns: `id` / `src`, `dst` (str or int keys), `labels`,
    /// `type`, `weight`; every other column is a property.
    #[pyo3(signature = (*, nodes=Vec::new(), edges=Vec::new(), id="id", src="src", dst="dst", labels="labels", r#type="type", weight="weight"))]
    #[allow(clippy::too_many_arguments)]
    fn import_tables(
        &self,
        py: Python<'_>,
        nodes: Vec<Bound<'_, PyAny>>,
        edges: Vec<Bound<'_, PyAny>>,
        id: &str,
        src: &str,
        dst: &str,
        labels: &str,
        r#type: &str,
        weight: &str,
    ) -> PyResult<Py<PyAny>> {
        use hopdb_import::{parquet::Columns, parquet::TableInput, ImportSpec};
        let columns = Columns {
            id: id.into(),
            src: src.into(),
            dst: dst.into(),
            labels: Some(labels.into()),
            ty: Some(r#type.into()),
            weight: Some(weight.into()),
            ..Columns::default()
        };
        let tables = |items: &[Bound<'_, PyAny>], what: &str| -> PyResult<Vec<TableInput>> {
            items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let (spec, table) = match item.extract::<(String, Bound<'_, PyAny>)>() {
                        Ok((spec, t)) => (Some(spec), t),
                        Err(_) => (None, item.clone()),
                    };
                    let (schema, batches) = arrow_stream(&table)?;
                    let mut t = TableInput::from_batches(&format!("<{what} table {}>", i + 1), schema, batches);
                    t.spec = spec;
                    t.columns = columns.clone();
                    Ok(t)
                })
                .collect()
        };
        let spec = ImportSpec {
            parquet_nodes: tables(&nodes, "nodes")?,
            parquet_edges: tables(&edges, "edges")?,
            ..ImportSpec::default()
        };
        let g = self.open()?.g.clone();
        let r = py
            .detach(|| hopdb_import::import(&g, &spec, &hopdb_import::NoProgress))
            .map_err(import_err)?;
        let d = PyDict::new(py);
        d.set_item("nodes", r.nodes)?;
        d.set_item("edges", r.edges)?;
        d.set_item("rows", r.rows)?;
        d.set_item("seconds", r.seconds)?;
        d.into_py_any(py)
    }

    // ---- traversals (point queries: the store, or the projection when fresh) ----

    /// Distinct nodes within (mode="within") or exactly (mode="exactly") k hops of `key`,
    /// excluded, in BFS order, stopping at `limit`. `types`: edge types to follow.
    #[pyo3(signature = (key, k, *, mode="within", direction="both", types=None, limit=None, timeout=None))]
    #[allow(clippy::too_many_arguments)]
    fn k_hop(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        k: u32,
        mode: &str,
        direction: &str,
        types: Option<Vec<String>>,
        limit: Option<usize>,
        timeout: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let start = to_key(key)?;
        let q = KHop {
            k,
            mode: match mode {
                "within" => HopMode::Within,
                "exactly" => HopMode::Exactly,
                other => {
                    return Err(InvalidArgument::new_err(format!(
                        "mode is 'within' or 'exactly', not {other:?}"
                    )))
                }
            },
            dir: self::direction(direction)?,
            types,
            limit,
            via: Via::Auto,
        };
        let (an, ctrl) = (self.open()?.an.clone(), control(timeout)?);
        let got = py.detach(|| an.k_hop(&start, &q, &ctrl)).map_err(an_err)?;
        keys_py(py, &got.value)
    }

    /// The distinct end nodes of the walks from `seeds` (a key or a list of keys) that follow
    /// `steps`, a list of (direction, type) pairs ("out"/"in"/"both"; an edge type, a list of
    /// types, or None for any): openCypher's `MATCH (s)-[:A]->()<-[:B]-(n) WHERE s.id IN
    /// $seeds RETURN DISTINCT n LIMIT k`. Discovery order (depth-first); missing seeds match
    /// nothing; `exclude_seeds` leaves the seeds out of the answer.
    ///
    /// >>> g.expand("chunk-1", [("out", "MENTIONS"), ("in", "MENTIONS")], limit=50, exclude_seeds=True)
    #[pyo3(signature = (seeds, steps, *, limit=None, exclude_seeds=false, timeout=None))]
    fn expand(
        &self,
        py: Python<'_>,
        seeds: &Bound<'_, PyAny>,
        steps: &Bound<'_, PyAny>,
        limit: Option<usize>,
        exclude_seeds: bool,
        timeout: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let (seeds, steps) = (seed_keys(seeds)?, pattern_steps(steps)?);
        let (an, ctrl) = (self.open()?.an.clone(), control(timeout)?);
        let got = py
            .detach(|| an.expand(&seeds, &steps, limit, exclude_seeds, &ctrl))
            .map_err(an_err)?;
        keys_py(py, &got.value)
    }

    /// The end nodes of the walks from `seeds` along `steps` (as in `expand`) with the number
    /// of walks reaching each, as (key, count), by count descending then key, the first `top`:
    /// openCypher's `RETURN n, count(*) ORDER BY count(*) DESC, n.id LIMIT top`.
    ///
    /// >>> g.expand_counts("chunk-1", [("out", "MENTIONS"), ("in", "MENTIONS")], top=10, exclude_seeds=True)
    #[pyo3(signature = (seeds, steps, *, top=None, exclude_seeds=false, timeout=None))]
    fn expand_counts(
        &self,
        py: Python<'_>,
        seeds: &Bound<'_, PyAny>,
        steps: &Bound<'_, PyAny>,
        top: Option<usize>,
        exclude_seeds: bool,
        timeout: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let (seeds, steps) = (seed_keys(seeds)?, pattern_steps(steps)?);
        let (an, ctrl) = (self.open()?.an.clone(), control(timeout)?);
        let got = py
            .detach(|| an.expand_counts(&seeds, &steps, top, exclude_seeds, &ctrl))
            .map_err(an_err)?;
        let rows = got
            .value
            .iter()
            .map(|(k, c)| {
                Ok(PyTuple::new(py, [key_py(py, k)?, c.into_py_any(py)?])?
                    .into_any()
                    .unbind())
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, rows)?.into_py_any(py)
    }

    /// One shortest path from `a` to `b` as a list of keys, or None. With `weighted=True`,
    /// the lightest by edge weight (Dijkstra; returns (length, keys)).
    #[pyo3(signature = (a, b, *, direction="both", types=None, max_hops=None, weighted=false, timeout=None))]
    #[allow(clippy::too_many_arguments)]
    fn shortest_path(
        &self,
        py: Python<'_>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
        direction: &str,
        types: Option<Vec<String>>,
        max_hops: Option<u32>,
        weighted: bool,
        timeout: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let (s, t, dir) = (to_key(a)?, to_key(b)?, self::direction(direction)?);
        let (an, ctrl) = (self.open()?.an.clone(), control(timeout)?);
        if weighted {
            let got = py
                .detach(|| an.weighted_shortest_path(&s, &t, dir, &ctrl))
                .map_err(an_err)?;
            return match got {
                Some((len, keys)) => (len, keys_py(py, &keys)?).into_py_any(py),
                None => Ok(py.None()),
            };
        }
        let q = PathQuery {
            dir,
            types,
            max_hops: max_hops.unwrap_or(u32::MAX),
            via: Via::Auto,
        };
        match py.detach(|| an.shortest_path(&s, &t, &q, &ctrl)).map_err(an_err)?.value {
            Some(p) => keys_py(py, &p),
            None => Ok(py.None()),
        }
    }

    /// Every fewest-hop path from `a` to `b` (lists of keys), at most `limit`.
    #[pyo3(signature = (a, b, *, direction="both", limit=None, timeout=None))]
    fn all_shortest_paths(
        &self,
        py: Python<'_>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
        direction: &str,
        limit: Option<usize>,
        timeout: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let (s, t, dir) = (to_key(a)?, to_key(b)?, self::direction(direction)?);
        let (an, ctrl) = (self.open()?.an.clone(), control(timeout)?);
        let got = py
            .detach(|| an.all_shortest_paths(&s, &t, dir, limit, &ctrl))
            .map_err(an_err)?;
        PyList::new(py, got.iter().map(|p| keys_py(py, p)).collect::<PyResult<Vec<_>>>()?)?.into_py_any(py)
    }

    /// Paths of min_hops..max_hops relationships from `key` using no relationship twice
    /// (openCypher `-[*min..max]-`), as lists of keys, at most `limit`; with
    /// `endpoints=True`, the distinct end nodes instead.
    #[pyo3(signature = (key, min_hops, max_hops, *, direction="both", types=None, limit=None, endpoints=false, timeout=None))]
    #[allow(clippy::too_many_arguments)]
    fn var_length_paths(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        min_hops: u32,
        max_hops: u32,
        direction: &str,
        types: Option<Vec<String>>,
        limit: Option<usize>,
        endpoints: bool,
        timeout: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let start = to_key(key)?;
        let q = PathQuery {
            dir: self::direction(direction)?,
            types,
            max_hops,
            via: Via::Auto,
        };
        let (an, ctrl) = (self.open()?.an.clone(), control(timeout)?);
        if endpoints {
            let got = py
                .detach(|| an.var_length_endpoints(&start, min_hops, &q, limit, &ctrl))
                .map_err(an_err)?;
            return keys_py(py, &got.value);
        }
        let mut paths: Vec<Vec<NodeKey>> = Vec::new();
        py.detach(|| {
            an.var_length_paths(&start, min_hops, &q, limit.map(|l| l as u64), &ctrl, &mut |p| {
                paths.push(p.to_vec());
                true
            })
        })
        .map_err(an_err)?;
        PyList::new(py, paths.iter().map(|p| keys_py(py, p)).collect::<PyResult<Vec<_>>>()?)?.into_py_any(py)
    }

    /// LightRAG's get_knowledge_graph: the BFS subgraph from `label` to `max_depth` (or, with
    /// label None, the `max_nodes` nodes of highest degree), as {"nodes", "edges",
    /// "truncated"} (node keys; edges as (key, key) pairs).
    #[pyo3(signature = (label, max_depth, max_nodes, *, timeout=None))]
    fn knowledge_graph(
        &self,
        py: Python<'_>,
        label: Option<&Bound<'_, PyAny>>,
        max_depth: u32,
        max_nodes: usize,
        timeout: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let start = label.map(to_key).transpose()?;
        let (an, ctrl) = (self.open()?.an.clone(), control(timeout)?);
        let s = py
            .detach(|| an.lightrag_subgraph(start.as_ref(), max_depth, max_nodes, &ctrl))
            .map_err(an_err)?;
        let d = PyDict::new(py);
        d.set_item("nodes", keys_py(py, &s.nodes)?)?;
        let edges = s
            .edges
            .iter()
            .map(|(a, b)| (key_py(py, a)?, key_py(py, b)?).into_py_any(py))
            .collect::<PyResult<Vec<_>>>()?;
        d.set_item("edges", PyList::new(py, edges)?)?;
        d.set_item("truncated", s.truncated)?;
        d.into_py_any(py)
    }

    // ---- whole-graph algorithms (on the cached projection) ----

    /// PageRank as {key: score} (or, `as_arrays`, (keys, array.array('d'))); `seeds` makes it
    /// personalised.
    #[pyo3(signature = (*, damping=0.85, max_iterations=100, tolerance=1e-6, seeds=None, as_arrays=false, timeout=None))]
    #[allow(clippy::too_many_arguments)]
    fn pagerank(
        &self,
        py: Python<'_>,
        damping: f64,
        max_iterations: u32,
        tolerance: f64,
        seeds: Option<&Bound<'_, PyAny>>,
        as_arrays: bool,
        timeout: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let seeds = seeds.map(to_keys).transpose()?.unwrap_or_default();
        let opts = hopdb_algo::PageRankOptions {
            damping,
            max_iterations,
            tolerance,
            ..Default::default()
        };
        let (an, ctrl) = (self.open()?.an.clone(), control(timeout)?);
        let r = py
            .detach(|| an.pagerank_with_seeds(&opts, &seeds, &ctrl))
            .map_err(an_err)?;
        node_values(py, &r, as_arrays)
    }

    /// Weakly connected components as {key: component number} (or arrays, see pagerank).
    #[pyo3(signature = (*, as_arrays=false, timeout=None))]
    fn weakly_connected_components(
        &self,
        py: Python<'_>,
        as_arrays: bool,
        timeout: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let (an, ctrl) = (self.open()?.an.clone(), control(timeout)?);
        let c = py.detach(|| an.weakly_connected_components(&ctrl)).map_err(an_err)?;
        node_values(py, &c.membership, as_arrays)
    }

    /// Strongly connected components as {key: component number} (or arrays, see pagerank).
    #[pyo3(signature = (*, as_arrays=false, timeout=None))]
    fn strongly_connected_components(
        &self,
        py: Python<'_>,
        as_arrays: bool,
        timeout: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let (an, ctrl) = (self.open()?.an.clone(), control(timeout)?);
        let c = py.detach(|| an.strongly_connected_components(&ctrl)).map_err(an_err)?;
        node_values(py, &c.membership, as_arrays)
    }

    /// Leiden (or Louvain with method="louvain") communities of the undirected graph:
    /// ({key: community} or, `as_arrays`, (keys, array.array('I')), modularity).
    #[pyo3(signature = (*, method="leiden", resolution=1.0, weighted=false, seed=42, as_arrays=false, timeout=None))]
    #[allow(clippy::too_many_arguments)]
    fn communities(
        &self,
        py: Python<'_>,
        method: &str,
        resolution: f64,
        weighted: bool,
        seed: u64,
        as_arrays: bool,
        timeout: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let (an, ctrl) = (self.open()?.an.clone(), control(timeout)?);
        let c = match method {
            "leiden" => {
                let opts = hopdb_algo::LeidenOptions {
                    resolution,
                    seed,
                    ..Default::default()
                };
                py.detach(|| an.leiden(&opts, weighted, &ctrl))
            }
            "louvain" => {
                let opts = hopdb_algo::LouvainOptions {
                    resolution,
                    seed,
                    ..Default::default()
                };
                py.detach(|| an.louvain(&opts, weighted, &ctrl))
            }
            other => {
                return Err(InvalidArgument::new_err(format!(
                    "method is 'leiden' or 'louvain', not {other:?}"
                )))
            }
        }
        .map_err(an_err)?;
        (node_values(py, &c.membership, as_arrays)?, c.quality).into_py_any(py)
    }

    /// Triangles of the simple undirected graph: (total, {key: triangles}).
    #[pyo3(signature = (*, timeout=None))]
    fn triangles(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Py<PyAny>> {
        let (an, ctrl) = (self.open()?.an.clone(), control(timeout)?);
        let (total, per) = py.detach(|| an.triangles(&ctrl)).map_err(an_err)?;
        (total, node_values(py, &per, false)?).into_py_any(py)
    }

    /// Typed neighbour sampling for GNN training: per hop, a list of (node, neighbour) keys.
    #[pyo3(signature = (seeds, fanouts, *, direction="out", types=None, replace=false, seed=0, timeout=None))]
    #[allow(clippy::too_many_arguments)]
    fn sample_neighbors(
        &self,
        py: Python<'_>,
        seeds: &Bound<'_, PyAny>,
        fanouts: Vec<usize>,
        direction: &str,
        types: Option<Vec<String>>,
        replace: bool,
        seed: u64,
        timeout: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let seeds = to_keys(seeds)?;
        let s = hopdb_analytics::Sampling {
            fanouts,
            dir: self::direction(direction)?,
            types,
            replace,
            seed,
        };
        let (an, ctrl) = (self.open()?.an.clone(), control(timeout)?);
        let hops = py.detach(|| an.sample_neighbors(&seeds, &s, &ctrl)).map_err(an_err)?;
        let out = hops
            .iter()
            .map(|h| {
                let pairs = h
                    .iter()
                    .map(|(a, b)| (key_py(py, a)?, key_py(py, b)?).into_py_any(py))
                    .collect::<PyResult<Vec<_>>>()?;
                PyList::new(py, pairs)?.into_py_any(py)
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, out)?.into_py_any(py)
    }

    /// Builds (or reuses) the cached projection now; returns its build figures.
    fn project(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let an = self.open()?.an.clone();
        let p = py
            .detach(|| an.projection(&ProjectionSpec::all(), &Control::default()))
            .map_err(an_err)?;
        let i = p.projection.info();
        let d = PyDict::new(py);
        d.set_item("nodes", i.nodes)?;
        d.set_item("edges", i.edges)?;
        d.set_item("bytes", i.bytes)?;
        d.set_item("seconds", i.seconds)?;
        d.set_item("rebuilt", p.rebuilt)?;
        d.into_py_any(py)
    }
}

/// The record batches of anything exporting the Arrow C stream interface, imported without
/// copying the buffers.
fn arrow_stream(
    obj: &Bound<'_, PyAny>,
) -> PyResult<(arrow::datatypes::SchemaRef, Vec<arrow::record_batch::RecordBatch>)> {
    use arrow::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
    use arrow::record_batch::RecordBatchReader;
    use pyo3::types::PyCapsule;
    if !obj.hasattr("__arrow_c_stream__")? {
        return Err(InvalidArgument::new_err(format!(
            "{} is not an Arrow table (no __arrow_c_stream__; pass a pyarrow Table, a Polars or pandas DataFrame)",
            obj.get_type().name()?
        )));
    }
    let capsule = obj.call_method0("__arrow_c_stream__")?;
    let capsule = capsule
        .cast::<PyCapsule>()
        .map_err(|_| InvalidArgument::new_err("__arrow_c_stream__ did not return a capsule"))?;
    // Checks the capsule's name, as the Arrow PyCapsule interface specifies.
    let ptr = capsule
        .pointer_checked(Some(c"arrow_array_stream"))
        .map_err(|_| InvalidArgument::new_err("__arrow_c_stream__ did not return an arrow_array_stream capsule"))?
        .as_ptr() as *mut FFI_ArrowArrayStream;
    // SAFETY: a capsule of that name holds a valid FFI_ArrowArrayStream; `from_raw` moves the stream out and leaves a
    // released one behind, so the capsule's destructor does not release it twice.
    #[allow(unsafe_code)]
    let reader =
        unsafe { RecordBatchStreamReader::from_raw(ptr) }.map_err(|e| InvalidArgument::new_err(e.to_string()))?;
    let schema = reader.schema();
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| InvalidArgument::new_err(format!("reading the Arrow stream: {e}")))?;
    Ok((schema, batches))
}

/// A per-node value type that fits a stdlib `array.array`.
trait ArrayItem: Copy {
    const CODE: &'static str;
    fn put(self, out: &mut Vec<u8>);
}
impl ArrayItem for f64 {
    const CODE: &'static str = "d";
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_ne_bytes());
    }
}
impl ArrayItem for u32 {
    const CODE: &'static str = "I";
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_ne_bytes());
    }
}
impl ArrayItem for u64 {
    const CODE: &'static str = "Q";
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_ne_bytes());
    }
}

/// One value per node: {key: value}, or with `as_arrays` (keys list, `array.array` of the
/// values in the same order), which `numpy.asarray` or `pyarrow.array` wrap without copying.
fn node_values<'py, T: ArrayItem + IntoPyObjectExt<'py>>(
    py: Python<'py>,
    v: &hopdb_analytics::NodeValues<T>,
    as_arrays: bool,
) -> PyResult<Py<PyAny>> {
    if as_arrays {
        let mut raw = Vec::with_capacity(v.values.len() * std::mem::size_of::<T>());
        for &x in &v.values {
            x.put(&mut raw);
        }
        let array = py
            .import("array")?
            .getattr("array")?
            .call1((T::CODE, PyBytes::new(py, &raw)))?;
        return (keys_py(py, v.projection.keys())?, array).into_py_any(py);
    }
    let d = PyDict::new(py);
    for (k, &x) in v.iter() {
        d.set_item(key_py(py, k)?, x.into_py_any(py)?)?;
    }
    d.into_py_any(py)
}

#[pymodule]
fn _hopdb(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<GraphHandle>()?;
    m.add_class::<Snapshot>()?;
    for (name, ty) in [
        ("Error", py.get_type::<Error>()),
        ("NotFound", py.get_type::<NotFound>()),
        ("InvalidArgument", py.get_type::<InvalidArgument>()),
        ("StoreLocked", py.get_type::<StoreLocked>()),
        ("ReadOnlyError", py.get_type::<ReadOnlyError>()),
        ("StorageError", py.get_type::<StorageError>()),
        ("CorruptionError", py.get_type::<CorruptionError>()),
        ("Cancelled", py.get_type::<Cancelled>()),
        ("ClosedError", py.get_type::<ClosedError>()),
    ] {
        m.add(name, ty)?;
    }
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
