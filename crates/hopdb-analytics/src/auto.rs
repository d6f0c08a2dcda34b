//! The projection built without being asked (decision 0034): when a read that could run on
//! the all-types projection finds none fresh, one is built on a background thread if it fits
//! its memory budget, so a user gets the fast path without calling `project()`.
//!
//! The first build starts at the first such read. A rebuild costs a core for as long again
//! and a steady writer makes each one stale at once, so after a build that took `d` the next
//! waits until the store has had no write for `2d` and at least `4d` have passed (a fifth of a
//! core at most), and that wait doubles for each projection in a row that went stale within
//! `8d` of being built.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hopdb_algo::Control;
use hopdb_core::{Graph, GraphRead, ReadTxn};
use parking_lot::Mutex;

/// After a build of `d`, the next one waits `d * BUILD_GAP` (times the back-off).
const BUILD_GAP: u32 = 4;
/// ... and for the store to have had no write for `d * QUIET`.
const QUIET: u32 = 2;
/// A projection that went stale sooner than `d * SHORT_LIVED` after its build was not worth
/// its build: the wait before the next one doubles.
const SHORT_LIVED: u32 = 8;
/// The wait never doubles past `2^MAX_BACKOFF` times the gap.
const MAX_BACKOFF: u32 = 8;
/// How long a graph found too large for the budget waits before it is counted again.
const RECHECK_TOO_LARGE: Duration = Duration::from_secs(30);

/// Peak bytes of building the all-types projection of `txn`'s graph, from its counters,
/// before anything is scanned: per node its id, key (with a short string's heap), id map and
/// three row offsets, 88 bytes; per edge the scanned pair, type and id and four adjacency
/// entries of 8 bytes, 48 bytes, or six entries (64 bytes) for an undirected type, which
/// `out` and `inc` hold both ways (see `GraphProjection::build`, which checks its real
/// figure against the same bound as it goes). Checked against real builds in the tests.
pub fn estimated_build_bytes(txn: &ReadTxn) -> hopdb_core::Result<u64> {
    let edges: u64 = txn
        .edge_types()?
        .iter()
        .map(|(t, n)| n * if t.options.undirected { 64 } else { 48 })
        .sum();
    Ok(txn.node_count()? * 88 + edges)
}

/// When builds may start: the bookkeeping of the rules above, on times passed in.
#[derive(Default)]
struct Policy {
    /// No build starts before this.
    not_before: Option<Instant>,
    /// When the last build finished and how long it took.
    last: Option<(Instant, Duration)>,
    /// When a read first found the last build's projection stale.
    stale_since: Option<Instant>,
    /// The store version last seen by a read wanting a rebuild, and since when.
    seen: Option<(u64, Instant)>,
    /// Doublings of the gap in force.
    backoff: u32,
    /// The graph was found over the budget (logged once per change of mind).
    over_budget: bool,
}

impl Policy {
    /// A read at `now`, with the store at `version`, found no fresh projection: may a build
    /// start? (Not counting the budget, which needs a read of the store.)
    fn may_start(&mut self, now: Instant, version: u64) -> bool {
        let Some((_, took)) = self.last else {
            return self.not_before.is_none_or(|t| now >= t);
        };
        self.stale_since.get_or_insert(now);
        match self.seen {
            Some((v, _)) if v == version => {}
            _ => self.seen = Some((version, now)),
        }
        let quiet = self
            .seen
            .is_some_and(|(_, since)| now.saturating_duration_since(since) >= took * QUIET);
        quiet && self.not_before.is_none_or(|t| now >= t)
    }

    /// A build starts at `now`: the projection before it lived from its build until a read
    /// found it stale; one that did not outlive `SHORT_LIVED` builds doubles the next gap.
    fn started(&mut self) {
        if let (Some((built, took)), Some(stale)) = (self.last, self.stale_since) {
            self.backoff = if stale.saturating_duration_since(built) < took * SHORT_LIVED {
                (self.backoff + 1).min(MAX_BACKOFF)
            } else {
                0
            };
        }
    }

    /// A build that took `took` ended at `done`.
    fn finished(&mut self, done: Instant, took: Duration) {
        self.last = Some((done, took));
        self.stale_since = None;
        self.seen = None;
        self.not_before = Some(done + took * BUILD_GAP * (1 << self.backoff));
    }

    /// The graph is over the budget: count it again later.
    fn too_large(&mut self, now: Instant) {
        self.not_before = Some(now + RECHECK_TOO_LARGE);
    }
}

/// The automatic projection's policy and its one background build. Dropping it (with the
/// analytics that own it) cancels a running build and joins its thread, so the build never
/// keeps a closed store open.
pub(crate) struct AutoProjection {
    /// Peak bytes a build may take; 0: never build unasked.
    budget: u64,
    running: Arc<AtomicBool>,
    policy: Arc<Mutex<Policy>>,
    cancel: Arc<AtomicBool>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Drop for AutoProjection {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.lock().take() {
            let _ = t.join();
        }
    }
}

impl AutoProjection {
    pub(crate) fn new(budget: u64) -> AutoProjection {
        AutoProjection {
            budget,
            running: Arc::new(AtomicBool::new(false)),
            policy: Arc::default(),
            cancel: Arc::new(AtomicBool::new(false)),
            thread: Mutex::new(None),
        }
    }

    pub(crate) fn budget(&self) -> u64 {
        self.budget
    }

    /// Called by a read that found no fresh all-types projection: when the policy allows a
    /// build now, runs the job `make_job` makes (build and install, under the `Control` it is
    /// given) on a background thread. Costs an atomic load on the common path and never
    /// blocks the read.
    pub(crate) fn wanted<J>(&self, graph: &Graph, make_job: impl FnOnce() -> J)
    where
        J: FnOnce(&Control) -> crate::Result<()> + Send + 'static,
    {
        if self.budget == 0 || self.running.load(Ordering::Relaxed) {
            return;
        }
        let Some(mut st) = self.policy.try_lock() else { return };
        if !st.may_start(Instant::now(), graph.version()) {
            return;
        }
        let Ok(need) = estimated_build_bytes(&graph.read()) else {
            return;
        };
        if need > self.budget {
            if !st.over_budget {
                tracing::info!(
                    need_mib = need >> 20,
                    budget_mib = self.budget >> 20,
                    "the adjacency projection would pass its budget: reads use the store"
                );
            }
            st.over_budget = true;
            st.too_large(Instant::now());
            return;
        }
        st.over_budget = false;
        if self.running.swap(true, Ordering::SeqCst) {
            return;
        }
        st.started();
        drop(st);
        let job = make_job();
        let (running, policy) = (self.running.clone(), self.policy.clone());
        let ctrl = Control::default()
            .with_cancel(self.cancel.clone())
            .with_max_memory(usize::try_from(self.budget).unwrap_or(usize::MAX));
        let spawned = std::thread::Builder::new()
            .name("hopdb-projection".into())
            .spawn(move || {
                let started = Instant::now();
                // The job holds the store until it returns, before the build counts as ended.
                match job(&ctrl) {
                    Ok(()) => {}
                    Err(e) if ctrl.check().is_err() => tracing::debug!(error = %e, "projection build cancelled"),
                    Err(e) => tracing::info!(error = %e, "no automatic adjacency projection: reads use the store"),
                }
                policy.lock().finished(Instant::now(), started.elapsed());
                running.store(false, Ordering::SeqCst);
            });
        match spawned {
            // The last build's thread let go of the store before clearing `running`: dropping
            // its handle detaches nothing that holds the store.
            Ok(t) => *self.thread.lock() = Some(t),
            Err(e) => {
                tracing::warn!(error = %e, "could not start the projection thread");
                self.running.store(false, Ordering::SeqCst);
            }
        }
    }

    /// Whether a background build is running now (tests wait for it).
    pub(crate) fn is_building(&self) -> bool {
        self.running.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// A build of `took` at `at`, as `wanted` and the build thread record it.
    fn build(p: &mut Policy, at: Instant, took: Duration) -> Instant {
        p.started();
        p.finished(at + took, took);
        at + took
    }

    #[test]
    fn the_first_read_starts_the_first_build() {
        let t0 = Instant::now();
        assert!(Policy::default().may_start(t0, 7));
    }

    #[test]
    fn a_rebuild_waits_for_a_quiet_store_and_the_gap() {
        let (t0, took) = (Instant::now(), 100 * MS);
        let mut p = Policy::default();
        let done = build(&mut p, t0, took);
        // Stale at once (version 2), then written again at +300 ms (version 3).
        assert!(!p.may_start(done + 10 * MS, 2));
        assert!(!p.may_start(done + 300 * MS, 3));
        // Quiet for 200 ms (2 builds) but within the 400 ms gap: no.
        assert!(!p.may_start(done + 350 * MS, 3));
        // Past the gap, but only 150 ms quiet: no.
        assert!(!p.may_start(done + 450 * MS, 3));
        // Past the gap and quiet for 200 ms: yes.
        assert!(p.may_start(done + 500 * MS, 3));
        // A writer that never pauses for 200 ms gets no rebuild, however long it runs.
        let mut busy = Policy::default();
        let done = build(&mut busy, t0, took);
        for i in 1..1000u32 {
            assert!(!busy.may_start(done + 150 * MS * i, u64::from(i)));
        }
    }

    #[test]
    fn the_gap_doubles_while_writes_outrun_the_builds_and_resets_after_one_that_lasts() {
        let (t0, took) = (Instant::now(), 100 * MS);
        let mut p = Policy::default();
        let mut at = build(&mut p, t0, took);
        let mut gaps = Vec::new();
        for v in 1..=10u64 {
            // A write right after each build: stale at once.
            assert!(!p.may_start(at + MS, v));
            let start = p.not_before.unwrap().max(at + MS + took * QUIET);
            gaps.push((p.not_before.unwrap() - at).as_millis());
            assert!(p.may_start(start, v));
            at = build(&mut p, start, took);
        }
        assert_eq!(gaps, [400, 800, 1600, 3200, 6400, 12800, 25600, 51200, 102400, 102400]);
        // One that served reads for 8 builds' time resets the gap.
        assert!(!p.may_start(at + took * SHORT_LIVED, 11));
        let later = at + took * SHORT_LIVED + took * QUIET + 200_000 * MS;
        assert!(p.may_start(later, 11));
        let done = build(&mut p, later, took);
        assert_eq!(p.not_before, Some(done + 400 * MS));
    }

    #[test]
    fn a_graph_over_the_budget_is_counted_again_later() {
        let t0 = Instant::now();
        let mut p = Policy::default();
        p.too_large(t0);
        assert!(!p.may_start(t0 + RECHECK_TOO_LARGE - MS, 1));
        assert!(p.may_start(t0 + RECHECK_TOO_LARGE, 1));
    }
}
