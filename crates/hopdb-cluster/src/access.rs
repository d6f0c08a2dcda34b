//! Partition temperature: each query node counts the reads of every partition and adds them to
//! the partition's temperature in the metadata every few seconds (and when it is dropped),
//! decayed by a half-life of an hour since the last access, with the time and the query node.
//! Promotion to the hot tier and eviction from it rank partitions by this temperature.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::error::Result;
use crate::meta::Metadata;
use crate::Cluster;

/// How often a query node adds its counts to the metadata.
pub(crate) const FLUSH_EVERY: Duration = Duration::from_secs(10);

pub(crate) struct Access {
    reads: Vec<AtomicU64>,
    /// When the counts were last flushed, in ms after `started` (an atomic: every read checks
    /// it, so a lock here would be taken on every read).
    pub(crate) flushed_ms: AtomicU64,
    pub(crate) started: Instant,
    /// This query node's name in `partition_metadata.query_node`.
    node: String,
}

impl Access {
    pub fn new(partitions: u32) -> Access {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        Access {
            reads: (0..partitions).map(|_| AtomicU64::new(0)).collect(),
            flushed_ms: AtomicU64::new(0),
            started: Instant::now(),
            node: format!("{}:{}", host.trim(), std::process::id()),
        }
    }

    pub fn count(&self, partition: u32) {
        if let Some(c) = self.reads.get(partition as usize) {
            c.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Takes the counts (partitions with reads, and their reads).
    fn take(&self) -> (Vec<i32>, Vec<f64>) {
        let mut parts = Vec::new();
        let mut reads = Vec::new();
        for (p, c) in self.reads.iter().enumerate() {
            let n = c.swap(0, Ordering::Relaxed);
            if n > 0 {
                parts.push(p as i32);
                reads.push(n as f64);
            }
        }
        (parts, reads)
    }
}

impl Access {
    /// Adds the reads counted since the last flush to the temperatures, through `meta`.
    pub(crate) fn flush(&self, meta: &mut Metadata) -> Result<()> {
        self.flushed_ms
            .store(self.started.elapsed().as_millis() as u64, Ordering::Relaxed);
        let (parts, reads) = self.take();
        if parts.is_empty() {
            return Ok(());
        }
        meta.record_access(&parts, &reads, &self.node)
    }
}

impl Cluster {
    /// Adds the reads counted since the last call to the partitions' temperatures in the
    /// metadata (the upkeep thread does it every 10 seconds).
    pub fn flush_access(&self) -> Result<()> {
        self.access.flush(&mut *self.meta()?)
    }

    /// Called by every read: without an upkeep thread (`refresh_ms = 0`), flushes when the
    /// last flush is older than [`FLUSH_EVERY`].
    pub(crate) fn note_access(&self) {
        if self.upkeep.is_none() && crate::upkeep::flush_due(&self.access) {
            if let Err(e) = self.flush_access() {
                tracing::warn!(error = %e, "could not record partition temperatures");
            }
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Err(e) = self.flush_access() {
            tracing::warn!(error = %e, "could not record partition temperatures");
        }
    }
}
