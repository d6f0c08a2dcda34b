//! Native helpers for `hopdb.lightrag` (LightRAG's graph storage): one more `#[pymethods]`
//! block on `GraphHandle` (the crate enables pyo3's `multiple-pymethods`).

use hopdb_database::{NodeKey, ProjectionSpec};
use pyo3::prelude::*;

use crate::convert::keys_py;
use crate::errors::core_err;
use crate::graph::GraphHandle;

#[pymethods]
impl GraphHandle {
    /// Every node key, in no particular order. Taken from the cached whole-graph projection
    /// when it reflects every write (no store read at all), else from one scan of the node
    /// records (keys decoded, properties skipped) in which only the keys cross to Python: several times cheaper than
    /// `all_nodes()` when only the keys are wanted (LightRAG's label listing and search).
    fn node_keys(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let db = self.db()?;
        if let Some(p) = db.analytics().cached_projection(&ProjectionSpec::all()) {
            return keys_py(py, p.keys());
        }
        let keys = py
            .detach(move || {
                let mut keys: Vec<NodeKey> = Vec::new();
                db.graph().read().scan_node_keys(&mut |_, k| {
                    keys.push(k);
                    true
                })?;
                Ok(keys)
            })
            .map_err(core_err)?;
        keys_py(py, &keys)
    }
}
