//! Cypher from Python: `Graph.query(text, params)`, the `QueryResult` it returns, and the
//! `Node` and `Relationship` values in its rows.
//!
//! The query runs to its end with the GIL released (rows are buffered as engine values);
//! values become Python objects as rows are read. Parameters are plain Python values: None,
//! bool, int, float, str, bytes, list or tuple, dict with str keys, and the `datetime`
//! module's date, time, datetime and timedelta (see `temporal.rs`).

use hopdb_cypher::{Map, NodeRef, Params, QueryOptions, QueryStats, RelRef, Row, Value};
use pyo3::exceptions::{PyIndexError, PyKeyError, PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyIterator, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;

use crate::analytics::control;
use crate::convert::{key_py, name_py};
use crate::errors::cypher_err;
use crate::graph::GraphHandle;

#[pymethods]
impl GraphHandle {
    /// Runs one openCypher statement and returns its `QueryResult` (columns, rows, update
    /// counters, plan). `params` is a dict of the `$name` parameters: None, bool, int, float,
    /// str, bytes, list/tuple, dict, and datetime.date / time / datetime / timedelta values
    /// (temporal results come back as those types). A statement that writes is one atomic
    /// transaction. `timeout` (seconds) stops a long query with `CypherError`. Failures raise
    /// `CypherError` (code, line, column); a parameter of an unsupported type raises TypeError.
    /// The graph keeps one query engine, so a query text is planned once.
    #[pyo3(signature = (text, params=None, *, timeout=None))]
    fn query(
        &self,
        py: Python<'_>,
        text: &str,
        params: Option<&Bound<'_, PyAny>>,
        timeout: Option<f64>,
    ) -> PyResult<QueryResult> {
        let params = to_params(params)?;
        let opts = QueryOptions {
            control: control(timeout)?,
            ..Default::default()
        };
        let engine = self.engine()?;
        py.detach(move || {
            let mut r = engine.query_with(text, &params, &opts)?;
            let columns = r.columns().to_vec();
            let rows = match r.take_column()? {
                Some(values) => Rows::Column(values),
                None => Rows::Table(r.take_rows()?),
            };
            // After the rows: PROFILE's counters are final once the result is consumed.
            let plan = r.plan().map(|p| p.render());
            Ok(QueryResult {
                columns,
                rows,
                stats: *r.stats(),
                plan,
            })
        })
        .map_err(|e| cypher_err(py, e))
    }
}

/// The parameter dict as engine values.
fn to_params(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Params> {
    let mut out = Params::new();
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(out);
    };
    let d = obj.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err(format!(
            "query parameters are a dict of name -> value, not {}",
            type_name(obj)
        ))
    })?;
    for (k, v) in d.iter() {
        let name = k
            .cast::<PyString>()
            .map_err(|_| PyTypeError::new_err(format!("parameter names are str, not {}", type_name(&k))))?
            .to_cow()?
            .into_owned();
        let value = param_value(&v).map_err(|e| {
            let py = v.py();
            PyErr::from_type(e.get_type(py), format!("parameter ${name}: {}", e.value(py)))
        })?;
        out.insert(name, value);
    }
    Ok(out)
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// One parameter value.
fn param_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
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
            .map_err(|_| PyOverflowError::new_err("an int must fit in 64 bits (Cypher's INTEGER)"));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(Value::Float(f.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Value::Bytes(b.as_bytes().to_vec()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Value::Bytes(b.to_vec()));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut m = Map::new();
        for (k, v) in d.iter() {
            let k = k
                .cast::<PyString>()
                .map_err(|_| PyTypeError::new_err(format!("map keys are str, not {}", type_name(&k))))?
                .to_cow()?
                .into_owned();
            m.insert(k, param_value(&v)?);
        }
        return Ok(Value::Map(m));
    }
    // Read by index, not through the iterator protocol (Q7 passes its seeds as a list).
    if let Ok(l) = obj.cast::<PyList>() {
        return Ok(Value::List(l.iter().map(|v| param_value(&v)).collect::<PyResult<_>>()?));
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return Ok(Value::List(t.iter().map(|v| param_value(&v)).collect::<PyResult<_>>()?));
    }
    if let Some(t) = crate::temporal::py_temporal(obj)? {
        return Ok(t);
    }
    if let Some(p) = crate::spatial::py_point(obj) {
        return Ok(Value::Point(p));
    }
    Err(PyTypeError::new_err(format!(
        "a query parameter is None, bool, int, float, str, bytes, list, tuple, dict, hopdb.Point, or a datetime date, time, datetime or timedelta, not {}",
        type_name(obj)
    )))
}

/// An engine value as a Python object: nodes and relationships as `Node` / `Relationship`
/// (or, with `dicts`, as their `to_dict()`), paths as alternating lists [node, rel, node, ...],
/// temporal values as `datetime` objects (see `temporal.rs`), points as `hopdb.Point`.
fn value_py(py: Python<'_>, v: &Value, dicts: bool) -> PyResult<Py<PyAny>> {
    match v {
        Value::Null => Ok(py.None()),
        Value::Bool(b) => b.into_py_any(py),
        Value::Int(i) => i.into_py_any(py),
        Value::Float(f) => f.into_py_any(py),
        Value::String(s) => s.into_py_any(py),
        Value::Bytes(b) => PyBytes::new(py, b).into_py_any(py),
        Value::List(l) => PyList::new(
            py,
            l.iter().map(|x| value_py(py, x, dicts)).collect::<PyResult<Vec<_>>>()?,
        )?
        .into_py_any(py),
        Value::Map(m) => map_py(py, m, dicts)?.into_py_any(py),
        Value::Node(n) => node_value(py, n, dicts),
        Value::Relationship(r) => rel_value(py, r, dicts),
        Value::Path(p) => {
            let mut items = Vec::with_capacity(p.nodes.len() + p.rels.len());
            for (i, n) in p.nodes.iter().enumerate() {
                if i > 0 {
                    if let Some(r) = p.rels.get(i - 1) {
                        items.push(rel_value(py, r, dicts)?);
                    }
                }
                items.push(node_value(py, n, dicts)?);
            }
            PyList::new(py, items)?.into_py_any(py)
        }
        Value::Point(p) => crate::spatial::point_py(py, p),
        other => match crate::temporal::temporal_py(py, other)? {
            Some(t) => Ok(t),
            None => format!("{other:?}").into_py_any(py),
        },
    }
}

fn map_py<'py>(py: Python<'py>, m: &Map, dicts: bool) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in m {
        d.set_item(name_py(py, k), value_py(py, v, dicts)?)?;
    }
    Ok(d)
}

fn node_value(py: Python<'_>, n: &NodeRef, dicts: bool) -> PyResult<Py<PyAny>> {
    let node = Node {
        id: n.data.as_ref().map(|d| d.id),
        key: key_py(py, &n.key)?,
        labels: n.data.as_ref().map(|d| d.labels.clone()).unwrap_or_default(),
        properties: match &n.data {
            Some(d) => map_py(py, &d.props, dicts)?.unbind(),
            None => PyDict::new(py).unbind(),
        },
    };
    if dicts {
        node.to_dict(py)?.into_py_any(py)
    } else {
        node.into_py_any(py)
    }
}

fn rel_value(py: Python<'_>, r: &RelRef, dicts: bool) -> PyResult<Py<PyAny>> {
    let rel = Relationship {
        id: r.data.as_ref().map(|d| d.id),
        ty: r.ty.to_string(),
        start: r.data.as_ref().map(|d| d.start_id),
        end: r.data.as_ref().map(|d| d.end_id),
        start_key: key_py(py, &r.src)?,
        end_key: key_py(py, &r.dst)?,
        properties: match &r.data {
            Some(d) => map_py(py, &d.props, dicts)?.unbind(),
            None => PyDict::new(py).unbind(),
        },
    };
    if dicts {
        rel.to_dict(py)?.into_py_any(py)
    } else {
        rel.into_py_any(py)
    }
}

fn row_py<'py>(py: Python<'py>, row: &[Value]) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(
        py,
        row.iter()
            .map(|v| value_py(py, v, false))
            .collect::<PyResult<Vec<_>>>()?,
    )
}

/// A node in a query result. Attributes: ``id`` (int: the store's internal id, Cypher's
/// ``id(n)``), ``element_id`` (str: ``str(id)``), ``key`` (the node's HopDB key, str or int),
/// ``labels`` (list of str) and ``properties`` (dict; a copy). ``node["name"]`` and
/// ``node.get("name", default)`` read one property. Two nodes are equal when id, key, labels
/// and properties are; the hash is the key's. ``to_dict()`` gives
/// ``{"id", "element_id", "key", "labels", "properties"}``.
#[pyclass(module = "hopdb._hopdb", frozen)]
pub(crate) struct Node {
    id: Option<u64>,
    key: Py<PyAny>,
    labels: Vec<String>,
    properties: Py<PyDict>,
}

#[pymethods]
impl Node {
    /// The store's internal node id (Cypher's `id(n)`).
    #[getter]
    fn id(&self) -> Option<u64> {
        self.id
    }
    /// The id as a string.
    #[getter]
    fn element_id(&self, py: Python<'_>) -> PyResult<String> {
        match self.id {
            Some(id) => Ok(id.to_string()),
            None => Ok(self.key.bind(py).str()?.to_string()),
        }
    }
    /// The node's HopDB key (str or int).
    #[getter]
    fn key(&self, py: Python<'_>) -> Py<PyAny> {
        self.key.clone_ref(py)
    }
    /// The labels.
    #[getter]
    fn labels(&self) -> Vec<String> {
        self.labels.clone()
    }
    /// The properties (a new dict each time).
    #[getter]
    fn properties<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.properties.bind(py).copy()
    }
    fn __getitem__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        match self.properties.bind(py).get_item(name)? {
            Some(v) => Ok(v.unbind()),
            None => Err(PyKeyError::new_err(name.to_owned())),
        }
    }
    /// One property, or `default`.
    #[pyo3(signature = (name, default=None))]
    fn get(&self, py: Python<'_>, name: &str, default: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
        Ok(match self.properties.bind(py).get_item(name)? {
            Some(v) => v.unbind(),
            None => default.unwrap_or_else(|| py.None()),
        })
    }
    /// `{"id", "element_id", "key", "labels", "properties"}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item(pyo3::intern!(py, "id"), self.id)?;
        d.set_item(pyo3::intern!(py, "element_id"), self.element_id(py)?)?;
        d.set_item(pyo3::intern!(py, "key"), &self.key)?;
        d.set_item(pyo3::intern!(py, "labels"), &self.labels)?;
        d.set_item(pyo3::intern!(py, "properties"), self.properties.bind(py).copy()?)?;
        Ok(d)
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Node(id={}, key={}, labels={}, properties={})",
            self.id.map_or("None".to_owned(), |i| i.to_string()),
            self.key.bind(py).repr()?,
            PyList::new(py, &self.labels)?.repr()?,
            self.properties.bind(py).repr()?
        ))
    }
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(o) = other.cast::<Node>() else {
            return Ok(false);
        };
        let o = o.get();
        Ok(self.id == o.id
            && self.labels == o.labels
            && self.key.bind(py).eq(&o.key)?
            && self.properties.bind(py).eq(&o.properties)?)
    }
    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        self.key.bind(py).hash()
    }
}

/// A relationship in a query result. Attributes: ``id`` (int, Cypher's ``id(r)``),
/// ``element_id`` (str: ``str(id)``), ``type`` (str), ``start`` and ``end`` (the internal ids
/// of its start and end nodes, as ``Node.id``), ``start_key`` and ``end_key`` (their HopDB
/// keys) and ``properties`` (dict; a copy). ``rel["name"]`` and ``rel.get("name", default)``
/// read one property. Equal when every attribute is; the hash is the id's. ``to_dict()``
/// gives ``{"id", "element_id", "type", "start", "end", "start_key", "end_key", "properties"}``.
#[pyclass(module = "hopdb._hopdb", frozen)]
pub(crate) struct Relationship {
    id: Option<i64>,
    ty: String,
    start: Option<u64>,
    end: Option<u64>,
    start_key: Py<PyAny>,
    end_key: Py<PyAny>,
    properties: Py<PyDict>,
}

#[pymethods]
impl Relationship {
    /// Cypher's `id(r)`.
    #[getter]
    fn id(&self) -> Option<i64> {
        self.id
    }
    /// The id as a string.
    #[getter]
    fn element_id(&self) -> Option<String> {
        self.id.map(|i| i.to_string())
    }
    /// The relationship type.
    #[getter]
    fn r#type(&self) -> &str {
        &self.ty
    }
    /// The start node's internal id.
    #[getter]
    fn start(&self) -> Option<u64> {
        self.start
    }
    /// The end node's internal id.
    #[getter]
    fn end(&self) -> Option<u64> {
        self.end
    }
    /// The start node's key.
    #[getter]
    fn start_key(&self, py: Python<'_>) -> Py<PyAny> {
        self.start_key.clone_ref(py)
    }
    /// The end node's key.
    #[getter]
    fn end_key(&self, py: Python<'_>) -> Py<PyAny> {
        self.end_key.clone_ref(py)
    }
    /// The properties (a new dict each time).
    #[getter]
    fn properties<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.properties.bind(py).copy()
    }
    fn __getitem__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        match self.properties.bind(py).get_item(name)? {
            Some(v) => Ok(v.unbind()),
            None => Err(PyKeyError::new_err(name.to_owned())),
        }
    }
    /// One property, or `default`.
    #[pyo3(signature = (name, default=None))]
    fn get(&self, py: Python<'_>, name: &str, default: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
        Ok(match self.properties.bind(py).get_item(name)? {
            Some(v) => v.unbind(),
            None => default.unwrap_or_else(|| py.None()),
        })
    }
    /// `{"id", "element_id", "type", "start", "end", "start_key", "end_key", "properties"}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item(pyo3::intern!(py, "id"), self.id)?;
        d.set_item(pyo3::intern!(py, "element_id"), self.element_id())?;
        d.set_item(pyo3::intern!(py, "type"), &self.ty)?;
        d.set_item(pyo3::intern!(py, "start"), self.start)?;
        d.set_item(pyo3::intern!(py, "end"), self.end)?;
        d.set_item(pyo3::intern!(py, "start_key"), &self.start_key)?;
        d.set_item(pyo3::intern!(py, "end_key"), &self.end_key)?;
        d.set_item(pyo3::intern!(py, "properties"), self.properties.bind(py).copy()?)?;
        Ok(d)
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Relationship(id={}, type={}, start_key={}, end_key={}, properties={})",
            self.id.map_or("None".to_owned(), |i| i.to_string()),
            PyString::new(py, &self.ty).repr()?,
            self.start_key.bind(py).repr()?,
            self.end_key.bind(py).repr()?,
            self.properties.bind(py).repr()?
        ))
    }
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(o) = other.cast::<Relationship>() else {
            return Ok(false);
        };
        let o = o.get();
        Ok(self.id == o.id
            && self.ty == o.ty
            && self.start == o.start
            && self.end == o.end
            && self.start_key.bind(py).eq(&o.start_key)?
            && self.end_key.bind(py).eq(&o.end_key)?
            && self.properties.bind(py).eq(&o.properties)?)
    }
    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        match self.id {
            Some(i) => i.into_pyobject(py)?.hash(),
            None => (self.ty.as_str(), &self.start_key, &self.end_key)
                .into_pyobject(py)?
                .hash(),
        }
    }
}

/// The result of `Graph.query`: ``columns`` (list of str), the rows (iterate for tuples in
/// column order; ``len(result)``, ``result[i]``), ``stats`` (dict of update counters),
/// ``plan`` (the plan as text for EXPLAIN / PROFILE, else None), the Neo4j Python driver's
/// readers ``value(key=0, default=None)`` (one column as a list), ``values(*keys)`` and
/// ``data(*keys)``, and conversions: ``to_dicts()`` (a list of {column: value}),
/// ``to_arrow()`` (a pyarrow Table), ``to_polars()`` and ``to_pandas()``. In the tables, nodes and relationships are their ``to_dict()`` structs
/// and a column whose values Arrow cannot hold as one type holds them as JSON text.
#[pyclass(module = "hopdb._hopdb", frozen)]
pub(crate) struct QueryResult {
    columns: Vec<String>,
    rows: Rows,
    stats: QueryStats,
    plan: Option<String>,
}

#[pymethods]
impl QueryResult {
    /// The column names, in order.
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.columns.clone()
    }
    /// What the query changed: nodes_created, nodes_deleted, relationships_created,
    /// relationships_deleted, properties_set, properties_removed, labels_added, labels_removed,
    /// indexes_added, indexes_removed, constraints_added, constraints_removed.
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, n) in stats_fields(&self.stats) {
            d.set_item(name, n)?;
        }
        Ok(d)
    }
    /// The plan as an indented text tree (EXPLAIN and PROFILE queries), else None.
    #[getter]
    fn plan(&self) -> Option<String> {
        self.plan.clone()
    }
    fn __len__(&self) -> usize {
        self.rows.len()
    }
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyIterator>> {
        // A list of tuples, iterated: a list's iterator is C's loop, where a Python-visible
        // iterator class costs a method call per row. Built per iteration, not kept: keeping
        // it needs a once-cell, whose first fill releases and retakes the GIL (about 1 us,
        // more than a one-row result costs to build).
        let rows = self.rows.iter().map(|r| row_py(py, r)).collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, rows)?.try_iter()
    }
    fn __getitem__<'py>(&self, py: Python<'py>, index: isize) -> PyResult<Bound<'py, PyTuple>> {
        let n = self.rows.len() as isize;
        let i = if index < 0 { index + n } else { index };
        if i < 0 || i >= n {
            return Err(PyIndexError::new_err("result row index out of range"));
        }
        row_py(py, self.rows.row(i as usize))
    }
    /// One column's values as a list, row by row (the Neo4j Python driver's
    /// ``Result.value``): ``key`` is the column's index or name; a column the result does not
    /// have gives ``default`` for every row, as the driver does. No tuple per row is made, so
    /// this is the fast way to read a list of ids.
    #[pyo3(signature = (key=None, default=None))]
    fn value<'py>(
        &self,
        py: Python<'py>,
        key: Option<&Bound<'py, PyAny>>,
        default: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let default = default.unwrap_or_else(|| py.None());
        match key.map_or(Ok(Some(0)), |k| self.column_index(k))? {
            Some(c) => PyList::new(
                py,
                self.rows
                    .iter()
                    .map(|r| {
                        r.get(c)
                            .map_or_else(|| Ok(default.clone_ref(py)), |v| value_py(py, v, false))
                    })
                    .collect::<PyResult<Vec<_>>>()?,
            ),
            None => PyList::new(py, self.rows.iter().map(|_| default.clone_ref(py))),
        }
    }
    /// The rows as lists of values (the Neo4j Python driver's ``Result.values``): all
    /// columns, or those named or numbered in ``keys`` (a name the result lacks gives None,
    /// an index out of range IndexError, as in the driver).
    #[pyo3(signature = (*keys))]
    fn values<'py>(&self, py: Python<'py>, keys: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyList>> {
        let cols = self.selected(keys)?;
        let out = PyList::empty(py);
        for row in self.rows.iter() {
            let vals = cols.iter().map(|c| cell(py, row, *c)).collect::<PyResult<Vec<_>>>()?;
            out.append(PyList::new(py, vals)?)?;
        }
        Ok(out)
    }
    /// The rows as dicts {column: value} (the Neo4j Python driver's ``Result.data``): all
    /// columns, or those named or numbered in ``keys`` (keyed by column name; a name the
    /// result lacks gives None, an index out of range IndexError). Unlike the driver's, nodes
    /// and relationships stay ``Node`` / ``Relationship`` values, as in ``to_dicts()``.
    #[pyo3(signature = (*keys))]
    fn data<'py>(&self, py: Python<'py>, keys: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyList>> {
        let cols = self.selected(keys)?;
        let names = match keys.is_empty() {
            true => self
                .columns
                .iter()
                .map(|c| c.into_py_any(py))
                .collect::<PyResult<Vec<_>>>()?,
            false => keys
                .iter()
                .zip(&cols)
                .map(|(k, c)| match c {
                    Some(c) => self.columns[*c].clone().into_py_any(py),
                    None => Ok(k.unbind()),
                })
                .collect::<PyResult<Vec<_>>>()?,
        };
        let out = PyList::empty(py);
        for row in self.rows.iter() {
            let d = PyDict::new(py);
            for (name, c) in names.iter().zip(&cols) {
                d.set_item(name, cell(py, row, *c)?)?;
            }
            out.append(d)?;
        }
        Ok(out)
    }
    /// The rows as dicts {column: value}.
    fn to_dicts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.data(py, &PyTuple::empty(py))
    }
    /// The values column by column, nodes and relationships as dicts (for the table conversions).
    fn _column_values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for c in 0..self.columns.len() {
            let col = self
                .rows
                .iter()
                .map(|r| r.get(c).map_or_else(|| Ok(py.None()), |v| value_py(py, v, true)))
                .collect::<PyResult<Vec<_>>>()?;
            out.append(PyList::new(py, col)?)?;
        }
        Ok(out)
    }
    /// The result as a pyarrow Table (needs pyarrow).
    fn to_arrow<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        frames(slf, "to_arrow")
    }
    /// The result as a Polars DataFrame (needs polars and pyarrow).
    fn to_polars<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        frames(slf, "to_polars")
    }
    /// The result as a pandas DataFrame (needs pandas and pyarrow).
    fn to_pandas<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        frames(slf, "to_pandas")
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "<QueryResult columns={} rows={}>",
            PyList::new(py, &self.columns)?.repr()?,
            self.rows.len()
        ))
    }
}

/// A result's rows: as the engine's rows, or a one-column result's values (no vector per
/// row; see `hopdb_cypher::QueryResult::take_column`).
enum Rows {
    Table(Vec<Row>),
    Column(Vec<Value>),
}

impl Rows {
    fn len(&self) -> usize {
        match self {
            Rows::Table(rows) => rows.len(),
            Rows::Column(values) => values.len(),
        }
    }

    /// Row `i` (`i < len()`).
    fn row(&self, i: usize) -> &[Value] {
        match self {
            Rows::Table(rows) => &rows[i],
            Rows::Column(values) => std::slice::from_ref(&values[i]),
        }
    }

    fn iter(&self) -> impl Iterator<Item = &[Value]> {
        (0..self.len()).map(|i| self.row(i))
    }
}

impl QueryResult {
    /// The index of the column `key` names (an int index from 0, or a column name); `None`
    /// when the result has no such column. Other types are a TypeError.
    fn column_index(&self, key: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
        if let Ok(i) = key.extract::<isize>() {
            // 0 <= i < columns, as the driver's Record.index: no counting from the end.
            return Ok(usize::try_from(i).ok().filter(|i| *i < self.columns.len()));
        }
        if let Ok(name) = key.cast::<PyString>() {
            let name = name.to_cow()?;
            return Ok(self.columns.iter().position(|c| *c == name));
        }
        Err(PyTypeError::new_err(format!(
            "a result column is named by its index (int) or name (str), not {}",
            type_name(key)
        )))
    }

    /// The columns `keys` selects, in order (every column when `keys` is empty); a name the
    /// result lacks is `None`, an index out of range an IndexError (as the Neo4j driver).
    fn selected(&self, keys: &Bound<'_, PyTuple>) -> PyResult<Vec<Option<usize>>> {
        if keys.is_empty() {
            return Ok((0..self.columns.len()).map(Some).collect());
        }
        keys.iter()
            .map(|k| match self.column_index(&k)? {
                None if k.is_instance_of::<PyInt>() => Err(PyIndexError::new_err(format!(
                    "result column index {k} out of range: the result has {} column(s)",
                    self.columns.len()
                ))),
                c => Ok(c),
            })
            .collect()
    }
}

/// The value in column `c` of `row` (None for a column the result lacks).
fn cell(py: Python<'_>, row: &[Value], c: Option<usize>) -> PyResult<Py<PyAny>> {
    match c.and_then(|c| row.get(c)) {
        Some(v) => value_py(py, v, false),
        None => Ok(py.None()),
    }
}

/// The table conversions live in Python (`hopdb/_cypher.py`).
fn frames<'py>(slf: &Bound<'py, QueryResult>, f: &str) -> PyResult<Bound<'py, PyAny>> {
    slf.py().import("hopdb._cypher")?.getattr(f)?.call1((slf,))
}

fn stats_fields(s: &QueryStats) -> [(&'static str, u64); 12] {
    [
        ("nodes_created", s.nodes_created),
        ("nodes_deleted", s.nodes_deleted),
        ("relationships_created", s.relationships_created),
        ("relationships_deleted", s.relationships_deleted),
        ("properties_set", s.properties_set),
        ("properties_removed", s.properties_removed),
        ("labels_added", s.labels_added),
        ("labels_removed", s.labels_removed),
        ("indexes_added", s.indexes_added),
        ("indexes_removed", s.indexes_removed),
        ("constraints_added", s.constraints_added),
        ("constraints_removed", s.constraints_removed),
    ]
}
