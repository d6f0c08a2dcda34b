//! The shared state of an open store: the engine, the catalog, the key index, the writer's
//! counters and the version log. It sits below the read path, the write path and the store
//! handle, which all reach it, so none of them has to reach into another.

use crate::catalog::Catalog;
use crate::changes::Versions;
use crate::config::Config;
use crate::engine::faults::CommitFaults;
use crate::engine::Engine;
use crate::key_index::KeyIndex;
use crate::records::{NodeId, TypeId};
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
    /// The labels of live nodes this writer wrote, so a replace reads neither the record
    /// nor the key entry (decision 0037). Only consulted for ids `live` holds.
    pub labels: NodeLabels,
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
        grow_to_hold(&mut self.words, w, self.limit.div_ceil(64) as usize);
        self.words[w] |= 1 << (id % 64);
    }

    pub(crate) fn remove(&mut self, id: NodeId) {
        if let Some(w) = self.words.get_mut((id / 64) as usize) {
            *w &= !(1 << (id % 64));
        }
    }
}

/// Makes `v` long enough to hold index `i` (< `most`), zero-filled. It grows by half again
/// at least, so a run of new ids does not reallocate each time, and never past `most`.
fn grow_to_hold<T: Copy + Default>(v: &mut Vec<T>, i: usize, most: usize) {
    if i >= v.len() {
        v.resize((i + 1).max(v.len() * 3 / 2).min(most), T::default());
    }
}

/// The label sets of node ids, one byte each: an index into the distinct sets seen (a
/// graph has few: the knowledge graph three, SNAP graphs one). 0 is "not known", and so is
/// any id at or above `limit` or past the 255th distinct set: the writer then reads the
/// labels from the store, which is only slower.
pub(crate) struct NodeLabels {
    by_id: Vec<u8>,
    sets: Vec<Box<[TypeId]>>,
    limit: u64,
}

impl NodeLabels {
    /// A map that holds ids below `max_bytes`.
    pub(crate) fn new(max_bytes: u64) -> NodeLabels {
        NodeLabels {
            by_id: Vec::new(),
            sets: Vec::new(),
            limit: max_bytes,
        }
    }

    pub(crate) fn get(&self, id: NodeId) -> Option<&[TypeId]> {
        let i = *self.by_id.get(usize::try_from(id).ok()?)?;
        Some(&self.sets[usize::from(i.checked_sub(1)?)])
    }

    pub(crate) fn set(&mut self, id: NodeId, labels: &[TypeId]) {
        let slot = match self.sets.iter().position(|s| **s == *labels) {
            Some(i) => i,
            None if self.sets.len() < usize::from(u8::MAX) => {
                self.sets.push(labels.into());
                self.sets.len() - 1
            }
            None => return self.forget(id),
        };
        if id >= self.limit {
            return;
        }
        let i = id as usize;
        grow_to_hold(&mut self.by_id, i, self.limit as usize);
        // `slot` < 255, so the stored index is 1..=255.
        self.by_id[i] = slot as u8 + 1;
    }

    pub(crate) fn forget(&mut self, id: NodeId) {
        if let Some(b) = usize::try_from(id).ok().and_then(|i| self.by_id.get_mut(i)) {
            *b = 0;
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
    use super::{LiveIds, NodeLabels};

    #[test]
    fn node_labels_hold_what_was_set_below_the_limit_and_the_set_cap() {
        let mut m = NodeLabels::new(1000);
        assert_eq!(m.get(5), None);
        m.set(5, &[1, 2]);
        m.set(6, &[]);
        m.set(7, &[1, 2]);
        assert_eq!(m.get(5), Some(&[1, 2][..]));
        assert_eq!(m.get(6), Some(&[][..]));
        assert_eq!(m.sets.len(), 2, "equal sets are shared");
        m.set(5, &[2]);
        assert_eq!((m.get(5), m.get(7)), (Some(&[2][..]), Some(&[1, 2][..])));
        m.forget(7);
        m.forget(1 << 40);
        assert_eq!(m.get(7), None);
        m.set(1000, &[1]); // at the limit: not held
        assert_eq!(m.get(1000), None);
        for l in 3..400 {
            m.set(10, &[l]);
        }
        // Past the 255th distinct set an id is forgotten, never given a wrong set.
        assert_eq!(m.sets.len(), 255);
        assert_eq!(m.get(10), None);
        assert_eq!(m.get(5), Some(&[2][..]));
    }

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
