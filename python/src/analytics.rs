//! Traversals (point queries: the store, or the projection when fresh) and whole-graph
//! algorithms (on the cached projection).

use std::time::Duration;

use hopdb_database::{
    Control, HopMode, KHop, LeidenOptions, LouvainOptions, NodeKey, NodeValues, PageRankOptions, PathQuery,
    ProjectionSpec, Sampling, Step, Via,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;

use crate::convert::{direction, key_py, keys_py, to_key, to_keys};
use crate::errors::{an_err, InvalidArgument};
use crate::graph::GraphHandle;

pub(crate) fn control(timeout: Option<f64>) -> PyResult<Control> {
    match timeout {
        None => Ok(Control::default()),
        Some(t) if t.is_finite() && t >= 0.0 => Ok(Control::default().with_timeout(Duration::from_secs_f64(t))),
        Some(t) => Err(InvalidArgument::new_err(format!(
            "timeout must be a non-negative number of seconds, not {t}"
        ))),
    }
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

#[pymethods]
impl GraphHandle {
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
        let (db, ctrl) = (self.db()?, control(timeout)?);
        let got = py.detach(|| db.analytics().k_hop(&start, &q, &ctrl)).map_err(an_err)?;
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
        let (db, ctrl) = (self.db()?, control(timeout)?);
        let got = py
            .detach(|| db.analytics().expand(&seeds, &steps, limit, exclude_seeds, &ctrl))
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
        let (db, ctrl) = (self.db()?, control(timeout)?);
        let got = py
            .detach(|| db.analytics().expand_counts(&seeds, &steps, top, exclude_seeds, &ctrl))
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
        let (db, ctrl) = (self.db()?, control(timeout)?);
        if weighted {
            let got = py
                .detach(|| db.analytics().weighted_shortest_path(&s, &t, dir, &ctrl))
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
        match py
            .detach(|| db.analytics().shortest_path(&s, &t, &q, &ctrl))
            .map_err(an_err)?
            .value
        {
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
        let (db, ctrl) = (self.db()?, control(timeout)?);
        let got = py
            .detach(|| db.analytics().all_shortest_paths(&s, &t, dir, limit, &ctrl))
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
        let (db, ctrl) = (self.db()?, control(timeout)?);
        if endpoints {
            let got = py
                .detach(|| db.analytics().var_length_endpoints(&start, min_hops, &q, limit, &ctrl))
                .map_err(an_err)?;
            return keys_py(py, &got.value);
        }
        let mut paths: Vec<Vec<NodeKey>> = Vec::new();
        py.detach(|| {
            db.analytics()
                .var_length_paths(&start, min_hops, &q, limit.map(|l| l as u64), &ctrl, &mut |p| {
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
        let (db, ctrl) = (self.db()?, control(timeout)?);
        let s = py
            .detach(|| {
                db.analytics()
                    .lightrag_subgraph(start.as_ref(), max_depth, max_nodes, &ctrl)
            })
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
        let opts = PageRankOptions {
            damping,
            max_iterations,
            tolerance,
            ..Default::default()
        };
        let (db, ctrl) = (self.db()?, control(timeout)?);
        let r = py
            .detach(|| db.analytics().pagerank_with_seeds(&opts, &seeds, &ctrl))
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
        let (db, ctrl) = (self.db()?, control(timeout)?);
        let c = py
            .detach(|| db.analytics().weakly_connected_components(&ctrl))
            .map_err(an_err)?;
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
        let (db, ctrl) = (self.db()?, control(timeout)?);
        let c = py
            .detach(|| db.analytics().strongly_connected_components(&ctrl))
            .map_err(an_err)?;
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
        let (db, ctrl) = (self.db()?, control(timeout)?);
        let c = match method {
            "leiden" => {
                let opts = LeidenOptions {
                    resolution,
                    seed,
                    ..Default::default()
                };
                py.detach(|| db.analytics().leiden(&opts, weighted, &ctrl))
            }
            "louvain" => {
                let opts = LouvainOptions {
                    resolution,
                    seed,
                    ..Default::default()
                };
                py.detach(|| db.analytics().louvain(&opts, weighted, &ctrl))
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
        let (db, ctrl) = (self.db()?, control(timeout)?);
        let (total, per) = py.detach(|| db.analytics().triangles(&ctrl)).map_err(an_err)?;
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
        let s = Sampling {
            fanouts,
            dir: self::direction(direction)?,
            types,
            replace,
            seed,
        };
        let (db, ctrl) = (self.db()?, control(timeout)?);
        let hops = py
            .detach(|| db.analytics().sample_neighbors(&seeds, &s, &ctrl))
            .map_err(an_err)?;
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

    /// Builds (or reuses) the cached projection now, whatever `projection_mb` says (reads
    /// build it in the background on their own when it fits); returns its build figures.
    fn project(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let db = self.db()?;
        let p = py
            .detach(|| db.analytics().projection(&ProjectionSpec::all(), &Control::default()))
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
    v: &NodeValues<T>,
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
