//! `hopdb._hopdb`: the native half of the `hopdb` Python package.
//!
//! Values cross as plain Python objects (None, bool, int, float, str, bytes, list, dict with
//! str keys); node keys are str or int. Every call that touches the store or runs an
//! algorithm releases the GIL (`Python::detach`), so Python threads run in parallel; inputs
//! are converted before and results after, while holding it.
//!
//! The modules: `errors` (the exceptions and the mapping to them), `convert` (Python values
//! <-> keys, values, properties, nodes, edges), `cypher` (`Graph.query`: openCypher, its
//! results and their node and relationship values), `graph` (the handle, snapshots and reads),
//! `write` (upserts, deletes, batches), `analytics` (traversals and algorithms), `io` (import
//! and export) and `lightrag` (helpers for `hopdb.lightrag`). `GraphHandle` has one
//! `#[pymethods]` block per module (pyo3's `multiple-pymethods`).

use pyo3::prelude::*;

mod analytics;
mod convert;
mod cypher;
mod errors;
mod graph;
mod io;
mod lightrag;
mod spatial;
mod temporal;
mod write;

/// The Rust side's allocations (decoded records, key lists, traversal state) go to mimalloc:
/// with glibc's malloc, two Python threads calling in contended on its arenas, and RocksDB's
/// block churn made every free consolidate chunks. Measured on the study's Q1-Q7 mix from
/// Python (medians): +14% on one thread, +23% on two (decision 0013). RocksDB's C++ and
/// CPython keep their own allocators; `local_dynamic_tls` because this library is loaded with
/// dlopen.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Hands pages that hold no allocation back to the system, after a projection build freed
/// its scratch (decision 0033; registered with `after_projection_builds`).
fn return_free_pages() {
    // SAFETY: mi_collect takes no pointers and frees no live block: it only returns pages
    // that hold no allocation (mimalloc is this library's allocator, see the global
    // allocator above).
    #[allow(unsafe_code)]
    unsafe {
        libmimalloc_sys::mi_collect(true)
    };
}

/// The bytes mimalloc holds committed for the Rust side (its own estimate on Linux: the
/// read/write memory it has reserved), for `Graph.memory_usage`.
pub(crate) fn allocator_committed_bytes() -> u64 {
    let mut commit = 0usize;
    // SAFETY: every out-parameter but `current_commit` is null, which mimalloc allows; the one
    // given points at a live usize.
    #[allow(unsafe_code)]
    unsafe {
        libmimalloc_sys::mi_process_info(
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut commit,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    commit as u64
}

#[pymodule]
fn _hopdb(m: &Bound<'_, PyModule>) -> PyResult<()> {
    hopdb_database::after_projection_builds(return_free_pages);
    m.add_class::<graph::GraphHandle>()?;
    m.add_class::<graph::Snapshot>()?;
    m.add_class::<cypher::QueryResult>()?;
    m.add_class::<cypher::Node>()?;
    m.add_class::<cypher::Relationship>()?;
    m.add_class::<spatial::Point>()?;
    errors::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
