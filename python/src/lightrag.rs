//! Native helpers for `hopdb.lightrag` (LightRAG's graph storage): one more `#[pymethods]`
//! block on `GraphHandle` (the crate enables pyo3's `multiple-pymethods`).

use hopdb_analytics::ProjectionSpec;
use hopdb_core::NodeKey;
use pyo3::prelude::*;

use crate::{core_err, keys_py, GraphHandle};

#[pymethods]
impl GraphHandle {
    /// Every node key, in no particular order. Taken from the cached whole-graph projection
    /// when it reflects every write (no store read at all), else from one scan of the node
    /// records (keys decoded, properties skipped) in which only the keys cross to Python: several times cheaper than
    /// `all_nodes()` when only the keys are wanted (LightRAG's label listing and search).
    fn node_keys(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let open = self.open()?;
        if let Some(p) = open.an.cached_projection(&ProjectionSpec::all()) {
            return keys_py(py, p.keys());
        }
        let g = open.g.clone();
        let keys = py
            .detach(move || {
                let mut keys: Vec<NodeKey> = Vec::new();
                g.read().scan_node_keys(&mut |_, k| {
                    keys.push(k);
                    true
                })?;
                Ok(keys)
            })
            .map_err(core_err)?;
        keys_py(py, &keys)
    }
}
