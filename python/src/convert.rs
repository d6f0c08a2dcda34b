//! Values between Python and HopDB: node keys (str or int), property values (None, bool,
//! int, float, str, bytes, list, dict with str keys), and nodes, edges and degrees as the
//! plain Python objects the API returns.

use std::collections::BTreeMap;

use hopdb_database::spatial::Point;
use hopdb_database::{Degree, Direction, Edge, Node, NodeKey, Props, Value};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;

use crate::errors::InvalidArgument;

pub(crate) fn to_key(obj: &Bound<'_, PyAny>) -> PyResult<NodeKey> {
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

pub(crate) fn to_keys(obj: &Bound<'_, PyAny>) -> PyResult<Vec<NodeKey>> {
    obj.try_iter()?.map(|k| to_key(&k?)).collect()
}

pub(crate) fn key_py(py: Python<'_>, k: &NodeKey) -> PyResult<Py<PyAny>> {
    match k {
        NodeKey::Str(s) => s.into_py_any(py),
        NodeKey::Int(i) => i.into_py_any(py),
    }
}

pub(crate) fn keys_py(py: Python<'_>, ks: &[NodeKey]) -> PyResult<Py<PyAny>> {
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
    if let Some(v) = crate::temporal::py_stored_temporal(obj).map_err(|e| InvalidArgument::new_err(e.to_string()))? {
        return Ok(v);
    }
    if let Some(p) = crate::spatial::py_point(obj) {
        return Ok(p.to_store());
    }
    Err(InvalidArgument::new_err(format!(
        "a property value is None, bool, int, float, str, bytes, list, dict, hopdb.Point, or a datetime date, time, datetime or timedelta, not {}",
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

pub(crate) fn opt_props(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Props> {
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
    if matches!(v, Value::Map(m) if m.len() == 1) {
        if let Some(t) = crate::temporal::stored_temporal_py(py, v)? {
            return Ok(t);
        }
    }
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
        Value::Map(m) => match Point::from_store(m) {
            Some(p) => crate::spatial::point_py(py, &p),
            None => props_py(py, m),
        },
    }
}

/// Python strs for property names, labels and edge types, made once: a store has few distinct
/// names, and a str that already exists skips an allocation (and, as a dict key, a hash).
/// +4% on `node()` of a cached chunk (decision 0013).
static NAMES: std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<String, Py<PyString>>>> =
    std::sync::OnceLock::new();
/// Names beyond this many are made afresh each time (a store with open-ended names).
const NAMES_MAX: usize = 4096;

pub(crate) fn name_py(py: Python<'_>, name: &str) -> Py<PyString> {
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

pub(crate) fn node_py(py: Python<'_>, n: &Node) -> PyResult<Py<PyAny>> {
    let d = PyDict::new(py);
    d.set_item(pyo3::intern!(py, "key"), key_py(py, &n.key)?)?;
    d.set_item(
        pyo3::intern!(py, "labels"),
        PyList::new(py, n.labels.iter().map(|l| name_py(py, l)))?,
    )?;
    d.set_item(pyo3::intern!(py, "props"), props_py(py, &n.props)?)?;
    d.into_py_any(py)
}

pub(crate) fn edge_py(py: Python<'_>, e: &Edge) -> PyResult<Py<PyAny>> {
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

pub(crate) fn edges_list(py: Python<'_>, es: &[Edge]) -> PyResult<Py<PyAny>> {
    PyList::new(py, es.iter().map(|e| edge_py(py, e)).collect::<PyResult<Vec<_>>>()?)?.into_py_any(py)
}

pub(crate) fn degree_py(py: Python<'_>, d: &Degree) -> PyResult<Py<PyAny>> {
    (d.count, d.weight_sum).into_py_any(py)
}

pub(crate) fn opt_list<T>(
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

pub(crate) fn direction(s: &str) -> PyResult<Direction> {
    match s {
        "out" => Ok(Direction::Out),
        "in" => Ok(Direction::In),
        "both" => Ok(Direction::Both),
        other => Err(InvalidArgument::new_err(format!(
            "direction is 'out', 'in' or 'both', not {other:?}"
        ))),
    }
}
