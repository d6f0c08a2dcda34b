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
    pub live: LiveIds,
}

/// A set of node ids, one bit each: ids are dense (decision 0002), so a bitmap is smaller
/// and faster than a cache of entries (a single-edge upsert spent 17% of its time reading
/// liveness when a 196,000-entry cache missed). Ids at or above `limit` are never held:
/// the writer reads their liveness from the store, which is only slower.
pub(crate) struct LiveIds {
    words: Vec<u64>,
    limit: u64,
}

impl LiveIds {
    /// A set that holds ids below `max_bytes * 8`.
    pub(crate) fn new(max_bytes: u64) -> LiveIds {
        LiveIds {
            words: Vec::new(),
            limit: max_bytes.saturating_mul(8),
        }
    }

    pub(crate) fn contains(&self, id: NodeId) -> bool {
        self.words
            .get((id / 64) as usize)
            .is_some_and(|w| w >> (id % 64) & 1 == 1)
    }

    pub(crate) fn insert(&mut self, id: NodeId) {
        if id >= self.limit {
            return;
        }
        let w = (id / 64) as usize;
        if w >= self.words.len() {
            // Grows by half again at least, so a run of new ids does not reallocate each time.
            let most = self.limit.div_ceil(64) as usize;
            self.words.resize((w + 1).max(self.words.len() * 3 / 2).min(most), 0);
        }
        self.words[w] |= 1 << (id % 64);
    }

    pub(crate) fn remove(&mut self, id: NodeId) {
        if let Some(w) = self.words.get_mut((id / 64) as usize) {
            *w &= !(1 << (id % 64));
        }
    }
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

#[cfg(test)]
mod tests {
    use super::LiveIds;

    #[test]
    fn live_ids_hold_what_was_inserted_below_the_limit() {
        let mut s = LiveIds::new(16); // ids 0..128
        for id in [0, 1, 63, 64, 100, 127] {
            assert!(!s.contains(id));
            s.insert(id);
            assert!(s.contains(id));
        }
        for id in [2, 62, 65, 126, 128, 1 << 40] {
            assert!(!s.contains(id), "{id}");
        }
        s.insert(128); // at the limit: not held, and no growth past it
        s.insert(u64::MAX);
        assert!(!s.contains(128) && !s.contains(u64::MAX));
        assert_eq!(s.words.len(), 2);
        s.remove(64);
        s.remove(1 << 40); // never held: nothing to do
        assert!(!s.contains(64) && s.contains(63) && s.contains(100));
    }
}
