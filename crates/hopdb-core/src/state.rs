//! The shared state of an open store: the engine, the catalog, the key index, the writer's
//! counters and the version log. It sits below the read path, the write path and the store
//! handle, which all reach it, so none of them has to reach into another.

use crate::catalog::Catalog;
use crate::changes::Versions;
use crate::config::Config;
use crate::engine::faults::CommitFaults;
use crate::engine::Engine;
use crate::key_index::KeyIndex;
use crate::records::NodeId;
use parking_lot::{Mutex, RwLock};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// What only the one writer reads and changes, under the writer lock.
pub(crate) struct WriterState {
    pub next_node: NodeId,
    pub next_edge: u64,
    /// Ids known to be live nodes in the committed state. Only writers read or change it,
    /// under the writer lock, so it cannot go stale; it spares edge writes a liveness read
    /// per endpoint.
    pub live: quick_cache::unsync::Cache<NodeId, ()>,
}

/// One open store, shared by every clone of its [`crate::Graph`].
pub(crate) struct Inner {
    pub engine: Box<dyn Engine>,
    pub path: Option<PathBuf>,
    pub cfg: Config,
    catalog: RwLock<Arc<Catalog>>,
    pub ids: KeyIndex,
    /// The one writer slot: a write transaction holds this lock until it ends.
    pub writer: Mutex<WriterState>,
    /// Test hook: upcoming commits that fail before reaching the engine.
    pub commit_faults: CommitFaults,
    /// A bulk load failed half-committed: writes are refused until the store is reopened
    /// (and so rolled back).
    bulk_failed: AtomicBool,
    /// The store version and the change log (see [`crate::Graph::version`]).
    pub versions: Versions,
}

impl Inner {
    pub(crate) fn new(
        engine: Box<dyn Engine>,
        path: Option<PathBuf>,
        cfg: Config,
        catalog: Catalog,
        ids: KeyIndex,
        writer: WriterState,
    ) -> Inner {
        Inner {
            engine,
            path,
            cfg,
            catalog: RwLock::new(Arc::new(catalog)),
            ids,
            writer: Mutex::new(writer),
            commit_faults: CommitFaults::default(),
            bulk_failed: AtomicBool::new(false),
            versions: Versions::default(),
        }
    }

    pub(crate) fn catalog(&self) -> Arc<Catalog> {
        self.catalog.read().clone()
    }

    pub(crate) fn set_catalog(&self, c: Arc<Catalog>) {
        *self.catalog.write() = c;
    }

    /// Refuses every later write through this handle (see `bulk_failed`).
    pub(crate) fn fail_after_bulk(&self) {
        self.bulk_failed.store(true, Ordering::SeqCst);
    }

    pub(crate) fn bulk_failed(&self) -> bool {
        self.bulk_failed.load(Ordering::SeqCst)
    }
}
