//! The key index warms itself: a store opened from disk fills its in-memory key index
//! ([`crate::key_index`]) from the key family on a background thread, so reads by key are
//! fast without a call a user must know to make (decision 0027). The thread belongs to the
//! handle that opened the store and is stopped and joined when the last clone of it drops, so
//! closing a store never waits on, or is kept open by, a warm-up.

use crate::engine::Cf;
use crate::error::{corrupt_rec, Result};
use crate::key_index::Indexed;
use crate::records::parse_key_value;
use crate::state::Inner;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// A running key-index warm-up (see [`start`]).
pub(crate) struct WarmUp {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for WarmUp {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Fills the key index from the key family until it is full (it never evicts here), or
/// `stop` is set. Returns the keys indexed.
pub(crate) fn warm_key_index(inner: &Inner, stop: &AtomicBool) -> Result<u64> {
    let (mut n, mut bad) = (0u64, false);
    inner.engine.scan(Cf::Keys, &[], &[], &mut |k, v| {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let Some((id, _)) = parse_key_value(v) else {
            bad = true;
            return false;
        };
        match inner.ids.insert_encoded(k, id, false) {
            Indexed::Yes => n += 1,
            Indexed::Skipped => {}
            Indexed::Full => return false,
        }
        true
    })?;
    if bad {
        return Err(corrupt_rec("key mapping"));
    }
    Ok(n)
}

/// [`crate::Graph::warm_key_index`] on a thread of its own. Its cost is one sequential scan
/// of the key family (about 0.3 s for 325,000 keys); reads meanwhile resolve keys as before
/// and are correct either way.
pub(crate) fn start(inner: &Arc<Inner>) -> Option<Arc<WarmUp>> {
    let (inner, stop) = (inner.clone(), Arc::new(AtomicBool::new(false)));
    let flag = stop.clone();
    let started = Instant::now();
    let spawned = std::thread::Builder::new()
        .name("hopdb-key-index".into())
        .spawn(move || match warm_key_index(&inner, &flag) {
            Ok(n) => tracing::info!(keys = n, ms = started.elapsed().as_millis() as u64, "key index warmed"),
            Err(e) => tracing::warn!(error = %e, "key index warm-up stopped"),
        });
    match spawned {
        Ok(t) => Some(Arc::new(WarmUp { stop, thread: Some(t) })),
        Err(e) => {
            tracing::warn!(error = %e, "no thread for the key index warm-up");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use crate::{BulkOptions, Config, Graph, NodeKey, Props};
    use std::path::Path;
    use std::time::Instant;

    fn store_with_keys(dir: &Path, n: i64) {
        let g = Graph::open(dir).unwrap();
        let mut b = g.bulk_load(BulkOptions::default()).unwrap();
        for i in 0..n {
            b.add_node(NodeKey::Int(i), &[], Props::new()).unwrap();
        }
        b.finish().unwrap();
    }

    #[test]
    fn an_opened_store_warms_its_key_index_by_itself() {
        let dir = tempfile::tempdir().unwrap();
        store_with_keys(dir.path(), 20_000);
        let g = Graph::open(dir.path()).unwrap();
        let deadline = Instant::now() + std::time::Duration::from_secs(30);
        while g.inner().ids.get(&NodeKey::Int(19_999)).is_none() {
            assert!(Instant::now() < deadline, "the key index was not warmed");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!((0..20_000).all(|i| g.inner().ids.get(&NodeKey::Int(i)).is_some()));
        drop(g);
        let off = Config {
            warm_key_index: false,
            ..Config::default()
        };
        let g = Graph::open_with(dir.path(), off).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert_eq!(g.inner().ids.get(&NodeKey::Int(19_999)), None);
    }

    #[test]
    fn dropping_the_handle_mid_warm_up_closes_the_store() {
        let dir = tempfile::tempdir().unwrap();
        store_with_keys(dir.path(), 300_000);
        for _ in 0..5 {
            let g = Graph::open(dir.path()).unwrap();
            let clone = g.clone();
            drop(g);
            drop(clone);
            // The warm-up stopped and let go of the store: it opens again at once.
            Graph::open(dir.path()).unwrap();
        }
    }
}
