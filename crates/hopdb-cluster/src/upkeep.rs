//! What a query node knows of the partitions (the live view) and the background thread that
//! keeps it current: every `[metadata] refresh_ms` it re-reads which versions are live, and
//! every 10 s it adds the reads counted to the partitions' temperatures, on a metadata
//! connection of its own, so a read never waits on PostgreSQL for either. With `refresh_ms = 0`
//! there is no thread: every read re-reads the view first (and flushes the counts when due).
//!
//! Versions of a partition grow in commit order (every change takes its number while holding
//! the partition's metadata row), so a view is merged partition by partition keeping the
//! higher version: a slow refresh never takes back a write this query node already sees.

use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::access::{Access, FLUSH_EVERY};
use crate::meta::{Live, Metadata};
use crate::LiveGenerations;

/// The live view, shared by reads and the upkeep thread.
#[derive(Default)]
pub(crate) struct View(RwLock<Arc<LiveGenerations>>);

impl View {
    pub fn new(live: LiveGenerations) -> View {
        View(RwLock::new(Arc::new(live)))
    }

    pub fn get(&self) -> Arc<LiveGenerations> {
        self.0.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Merges newer states of partitions in: each is taken when its version is higher than
    /// the one held, or the same version was since promoted or evicted whole.
    pub fn install(&self, fresh: impl IntoIterator<Item = (u32, Live)>) {
        let mut w = self.0.write().unwrap_or_else(|e| e.into_inner());
        let mut next: Option<LiveGenerations> = None;
        for (p, l) in fresh {
            let cur = next.as_ref().unwrap_or(&**w);
            let Some(slot) = cur.get(p as usize) else { continue };
            let newer = l.version != 0 && slot.as_ref().is_none_or(|s| l.version > s.version);
            let rebucketed = slot
                .as_ref()
                .is_some_and(|s| l.version == s.version && l.hot_buckets != s.hot_buckets);
            if newer {
                next.get_or_insert_with(|| (**w).clone())[p as usize] = Some(l);
            } else if rebucketed {
                // Only the hot tier's layout changed: the rest is what this view holds.
                if let Some(s) = next.get_or_insert_with(|| (**w).clone())[p as usize].as_mut() {
                    s.hot_buckets = l.hot_buckets;
                }
            }
        }
        if let Some(n) = next {
            *w = Arc::new(n);
        }
    }

    /// Records that partitions were promoted whole at these versions, into these many buckets
    /// (by this query node: the others learn it at their next refresh). A partition whose view
    /// has moved to another version is left as it is.
    pub fn promoted(&self, done: impl IntoIterator<Item = (u32, u64, u64)>) {
        let mut w = self.0.write().unwrap_or_else(|e| e.into_inner());
        let mut next = (**w).clone();
        for (p, version, buckets) in done {
            if let Some(Some(l)) = next
                .get_mut(p as usize)
                .filter(|l| l.as_ref().is_some_and(|l| l.version == version))
            {
                l.hot_buckets = buckets;
            }
        }
        *w = Arc::new(next);
    }

    /// Merges a whole view read from the metadata.
    pub fn install_all(&self, fresh: LiveGenerations) {
        self.install(fresh.into_iter().enumerate().filter_map(|(p, l)| Some((p as u32, l?))));
    }
}

/// The upkeep thread; dropping this stops it.
pub(crate) struct Upkeep {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Upkeep {
    pub fn start(
        conn: String,
        partitions: u32,
        every: Duration,
        view: Arc<View>,
        access: Arc<Access>,
    ) -> Option<Upkeep> {
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("hopdb-cluster-upkeep".into())
            .spawn(move || {
                let mut meta: Option<Metadata> = None;
                let mut warned = false;
                let mut flushed = Instant::now();
                // Woken early (and stopped) when the handle drops.
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                    let m = match meta.as_mut() {
                        Some(m) => m,
                        None => match Metadata::connect(&conn) {
                            Ok(m) => meta.insert(m),
                            Err(e) => {
                                warn_once(&mut warned, &e);
                                continue;
                            }
                        },
                    };
                    let read = m.revive().and_then(|()| m.live(partitions));
                    match read {
                        Ok(fresh) => {
                            view.install_all(fresh);
                            warned = false;
                        }
                        Err(e) => warn_once(&mut warned, &e),
                    }
                    if flushed.elapsed() >= FLUSH_EVERY {
                        flushed = Instant::now();
                        if let Err(e) = access.flush(m) {
                            tracing::warn!(error = %e, "could not record partition temperatures");
                        }
                    }
                }
            });
        match thread {
            Ok(t) => Some(Upkeep {
                stop: Some(stop),
                thread: Some(t),
            }),
            Err(e) => {
                tracing::warn!(error = %e, "could not start the cluster's upkeep thread; reads refresh the view themselves");
                None
            }
        }
    }
}

fn warn_once(warned: &mut bool, e: &crate::ClusterError) {
    if !*warned {
        tracing::warn!(error = %e, "cannot re-read the live versions; reading with the last ones");
        *warned = true;
    }
}

impl Drop for Upkeep {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Kept for the inline path (`refresh_ms = 0`): counts flushed when due.
pub(crate) fn flush_due(access: &Access) -> bool {
    let since = (access.started.elapsed().as_millis() as u64).saturating_sub(access.flushed_ms.load(Ordering::Relaxed));
    since >= FLUSH_EVERY.as_millis() as u64
}
