//! The store version and an optional, bounded log of the structural changes of recent commits
//! (decision 0010), so derived data such as an algorithm projection can tell that it is stale
//! and catch up with a few commits instead of being rebuilt.
//!
//! Versions work like a seqlock: a commit announces `started = v + 1` before its batch becomes
//! visible and publishes `version = v + 1` after. A snapshot taken between reading `version`
//! and reading `started`, with both equal, holds exactly that version's commits.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::records::NodeId;
use crate::value::NodeKey;

/// One structural change made by a commit.
#[derive(Debug, Clone, PartialEq)]
pub enum GraphChange {
    /// A node became live (created, or re-created under a key deleted before).
    NodeAdded {
        /// The node's internal id (a key keeps its id, also when re-created after a delete).
        id: NodeId,
        /// The node's user key.
        key: NodeKey,
    },
    /// A node was deleted; the removals of its edges are recorded before it.
    NodeRemoved {
        /// The deleted node's internal id.
        id: NodeId,
    },
    /// An edge was created (an update of an existing edge is not a structural change).
    EdgeAdded {
        /// Internal id of the source node (either end, for an undirected type).
        src: NodeId,
        /// Internal id of the target node (the other end, for an undirected type).
        dst: NodeId,
        /// The edge type's id ([`crate::EdgeType::id`]).
        ty: u32,
        /// Whether the type is undirected, so `src` and `dst` are interchangeable.
        undirected: bool,
    },
    /// An edge was deleted (one change per parallel edge of a multi-edge type).
    EdgeRemoved {
        /// Internal id of the source node (either end, for an undirected type).
        src: NodeId,
        /// Internal id of the target node (the other end, for an undirected type).
        dst: NodeId,
        /// The edge type's id ([`crate::EdgeType::id`]).
        ty: u32,
        /// Whether the type is undirected, so `src` and `dst` are interchangeable.
        undirected: bool,
    },
}

/// The changes of one commit; `None` when they were not recorded (a bulk load).
#[derive(Debug, Clone)]
pub struct ChangeSet {
    /// The store version the commit published ([`crate::Graph::version`]).
    pub version: u64,
    /// The commit's structural changes in the order it made them, or None if unrecorded.
    pub changes: Option<Vec<GraphChange>>,
}

/// Why [`crate::Graph::changes_between`] cannot give every change asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangesUnavailable {
    /// Change tracking is off (see [`crate::Graph::track_changes`]).
    NotTracked,
    /// The log no longer holds commits that old.
    Trimmed,
    /// A commit in the range did not record its changes (a bulk load).
    Unrecorded {
        /// The version of the first such commit in the range.
        version: u64,
    },
}

pub(crate) struct Versions {
    /// Published: every commit up to it is visible.
    pub version: AtomicU64,
    /// Announced: the commit being written (equal to `version` when none is).
    pub started: AtomicU64,
    tracking: AtomicBool,
    log: Mutex<Log>,
}

struct Log {
    sets: VecDeque<Arc<ChangeSet>>,
    /// Changes held (the log's size bound counts these).
    held: usize,
    capacity: usize,
    /// Versions up to this one are not (or no longer) in the log.
    floor: u64,
}

impl Default for Versions {
    fn default() -> Versions {
        Versions {
            version: AtomicU64::new(0),
            started: AtomicU64::new(0),
            tracking: AtomicBool::new(false),
            log: Mutex::new(Log {
                sets: VecDeque::new(),
                held: 0,
                capacity: 0,
                floor: 0,
            }),
        }
    }
}

/// What one commit's entry costs against the log's capacity: its changes plus one for the
/// entry itself, so commits with no structural change (property updates) are trimmed too.
fn set_weight(changes: Option<&[GraphChange]>) -> usize {
    changes.map_or(0, <[GraphChange]>::len) + 1
}

impl Versions {
    pub(crate) fn tracking(&self) -> bool {
        self.tracking.load(Ordering::SeqCst)
    }

    /// Turns tracking on, keeping at most `capacity` changes, each commit counting one more
    /// (older commits are dropped). A commit already under way when tracking starts is logged
    /// as unrecorded, so a reader of the log sees a gap, never part of a commit.
    pub(crate) fn track(&self, capacity: usize) {
        let mut log = self.log.lock();
        log.capacity = capacity.max(log.capacity);
        if !self.tracking.swap(true, Ordering::SeqCst) {
            log.floor = self.version.load(Ordering::SeqCst);
        }
    }

    /// Announces a commit (under the writer lock); returns its version.
    pub(crate) fn begin(&self) -> u64 {
        let v = self.version.load(Ordering::SeqCst) + 1;
        self.started.store(v, Ordering::SeqCst);
        v
    }

    /// The announced commit did not happen.
    pub(crate) fn abort(&self) {
        self.started
            .store(self.version.load(Ordering::SeqCst), Ordering::SeqCst);
    }

    /// The announced commit is visible: records its changes, then publishes its version.
    pub(crate) fn end(&self, changes: Option<Vec<GraphChange>>) {
        let v = self.started.load(Ordering::SeqCst);
        if self.tracking() {
            let mut log = self.log.lock();
            let n = set_weight(changes.as_deref());
            log.held += n;
            log.sets.push_back(Arc::new(ChangeSet { version: v, changes }));
            while log.held > log.capacity {
                let Some(old) = log.sets.pop_front() else { break };
                log.held -= set_weight(old.changes.as_deref());
                log.floor = old.version;
            }
        }
        self.version.store(v, Ordering::SeqCst);
    }

    /// The change sets of versions `after + 1 ..= upto`.
    pub(crate) fn between(&self, after: u64, upto: u64) -> Result<Vec<Arc<ChangeSet>>, ChangesUnavailable> {
        if !self.tracking() {
            return Err(ChangesUnavailable::NotTracked);
        }
        let log = self.log.lock();
        if after < log.floor {
            return Err(ChangesUnavailable::Trimmed);
        }
        let mut out = Vec::new();
        for s in log.sets.iter().filter(|s| s.version > after && s.version <= upto) {
            if s.changes.is_none() {
                return Err(ChangesUnavailable::Unrecorded { version: s.version });
            }
            out.push(s.clone());
        }
        Ok(out)
    }
}
