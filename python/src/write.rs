//! Writes: upserts and deletes of nodes and edges, each one atomic, durable transaction, and
//! the batches `hopdb.Graph.batch()` collects.

use hopdb_database::{EdgeInput, EdgeTypeOptions, NodeInput, NodeKey, WriteMode};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::{opt_props, to_key, to_keys};
use crate::errors::InvalidArgument;
use crate::graph::GraphHandle;

fn mode(replace: bool) -> WriteMode {
    if replace {
        WriteMode::Replace
    } else {
        WriteMode::Merge
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

#[pymethods]
impl GraphHandle {
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
}
