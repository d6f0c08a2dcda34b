//! The hot tier: a Redis Cluster holding node slices ([`crate::slice`]) of hot nodes under
//! their partition's hash tag, so a partition lives on one shard and a hop's lookups in one
//! partition are one `MGET`: a promoted partition's small nodes packed in buckets
//! (`{p42}:b17:3`, [`crate::bucket`]), its large nodes and nodes promoted one at a time under
//! their own key (`{p42}:v17:` + the node's encoded key). Lookups of different partitions run
//! concurrently on the client's multiplexed connections, which pipelines them per shard.
//!
//! It is a cache, never the only copy: a key names its partition's content version, which
//! every load, write and compaction changes, so a value is either right or not found (nothing
//! is ever invalidated: a change moves readers to new keys); any Redis error, timeout or damaged value
//! sends the read to the cold tier; Redis may evict any value at any time (its LFU policy
//! is the budget's backstop). A partition is recorded as hot in the metadata only after every
//! one of its nodes was written, so a query node killed mid-promotion leaves a partition that
//! is read correctly (node by node) and not counted as hot.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::stream::{self, StreamExt, TryStreamExt};
use redis::cluster::ClusterClientBuilder;
use redis::cluster_async::ClusterConnection;

use crate::config::HotConfig;
use crate::error::{ClusterError, Result};

/// Entries per `MSET`/`DEL` when promoting or evicting a partition.
const WRITE_CHUNK: usize = 512;

/// ... and at most about this many bytes (an entry larger than it goes alone): requests wait
/// behind one another on a shard's connection, so a chunk of 512 buckets or hubs (megabytes)
/// made the last of them miss the timeout.
const WRITE_CHUNK_BYTES: usize = 256 << 10;

/// Partition reads or writes in flight at once.
const CONCURRENCY: usize = 32;

/// How long a query node waits before trying Redis again after it failed: doubled after each
/// failed attempt up to [`RECONNECT_MAX`], so an unreachable Redis (connects that hang until
/// the timeout) stalls a read rarely, not every second.
const RECONNECT_AFTER: Duration = Duration::from_secs(1);
const RECONNECT_MAX: Duration = Duration::from_secs(30);

/// The hot tier's counters on this query node.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HotStats {
    /// Node lookups answered by Redis.
    pub hits: u64,
    /// Node lookups Redis did not hold (read from the cold tier).
    pub misses: u64,
    /// Redis requests that failed or timed out (their reads went to the cold tier).
    pub errors: u64,
    /// Nodes written to Redis by promotion on a miss.
    pub promoted_on_miss: u64,
}

/// Hot-tier entries of one partition: (Redis key, node slice).
pub(crate) type Entries = Vec<(Vec<u8>, Vec<u8>)>;

/// The bytes of entries (keys and values).
pub(crate) fn entries_bytes(entries: &Entries) -> u64 {
    entries.iter().map(|(k, v)| (k.len() + v.len()) as u64).sum()
}

/// The Redis key of a node's own slice.
pub(crate) fn entry_key(partition: u32, version: u64, encoded: &[u8]) -> Vec<u8> {
    let mut k = format!("{{p{partition}}}:v{version}:").into_bytes();
    k.extend_from_slice(encoded);
    k
}

/// The Redis key of a bucket of slices (never equal to an [`entry_key`]: `b`, not `v`).
pub(crate) fn bucket_key(partition: u32, version: u64, bucket: u64) -> Vec<u8> {
    format!("{{p{partition}}}:b{version}:{bucket}").into_bytes()
}

#[derive(Default)]
struct Counters {
    hits: AtomicU64,
    misses: AtomicU64,
    errors: AtomicU64,
    promoted_on_miss: AtomicU64,
    /// Background promotions not yet finished.
    pending: AtomicU64,
}

pub(crate) struct HotTier {
    cfg: HotConfig,
    conn: Mutex<Connection>,
    counters: Counters,
}

#[derive(Default)]
struct Connection {
    live: Option<ClusterConnection>,
    failed_at: Option<Instant>,
    /// Failures since the last working connection.
    failures: u32,
}

impl Connection {
    fn backoff(&self) -> Duration {
        (RECONNECT_AFTER * 2u32.saturating_pow(self.failures.saturating_sub(1).min(5))).min(RECONNECT_MAX)
    }

    fn record_failure(&mut self) {
        self.live = None;
        self.failed_at = Some(Instant::now());
        self.failures = self.failures.saturating_add(1);
    }
}

impl HotTier {
    pub fn new(cfg: HotConfig) -> HotTier {
        HotTier {
            cfg,
            conn: Mutex::new(Connection::default()),
            counters: Counters::default(),
        }
    }

    pub fn promote_on_miss(&self) -> bool {
        self.cfg.promote_on_miss
    }

    pub fn budget_bytes(&self) -> u64 {
        self.cfg.budget_mb.saturating_mul(1 << 20)
    }

    fn timeout(&self) -> Duration {
        Duration::from_millis(self.cfg.timeout_ms.max(1))
    }

    /// The shared connection, connecting when there is none (not within the backoff after a
    /// failure). A failure to get one counts as an error.
    async fn connection(&self, doing: &str) -> Result<ClusterConnection> {
        let c = self.connect(doing).await;
        if c.is_err() {
            self.counters.errors.fetch_add(1, Ordering::Relaxed);
        }
        c
    }

    async fn connect(&self, doing: &str) -> Result<ClusterConnection> {
        {
            let c = self.conn.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(conn) = &c.live {
                return Ok(conn.clone());
            }
            if c.failed_at.is_some_and(|t| t.elapsed() < c.backoff()) {
                return Err(hot(
                    doing,
                    format!("Redis failed {} times; waiting before trying again", c.failures),
                ));
            }
        }
        let client = ClusterClientBuilder::new(self.cfg.redis.clone())
            .connection_timeout(self.timeout())
            .response_timeout(self.timeout())
            .retries(1)
            .build()
            .map_err(|e| hot(doing, e))?;
        let made = tokio::time::timeout(self.timeout() * 2, client.get_async_connection()).await;
        let mut c = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        match made {
            Ok(Ok(conn)) => {
                c.live = Some(conn.clone());
                c.failed_at = None;
                c.failures = 0;
                Ok(conn)
            }
            Ok(Err(e)) => {
                c.record_failure();
                Err(hot(doing, e))
            }
            Err(_) => {
                c.record_failure();
                Err(hot(doing, "connecting timed out"))
            }
        }
    }

    /// Forgets the connection after a failure, so the next request reconnects (and reads the
    /// cluster's slots afresh, as after a failover).
    fn failed(&self) {
        self.counters.errors.fetch_add(1, Ordering::Relaxed);
        self.conn.lock().unwrap_or_else(|e| e.into_inner()).record_failure();
    }

    /// Runs `command` (`MSET` or `DEL`) once per chunk, `CONCURRENCY` at once, each within the
    /// timeout; returns the sum of the replies. On a failure counts it and drops the connection.
    async fn run_chunks<T: redis::ToRedisArgs>(&self, doing: &str, command: &str, chunks: Vec<Vec<T>>) -> Result<u64> {
        let conn = self.connection(doing).await?;
        let timeout = self.timeout();
        let done = stream::iter(chunks)
            .map(|chunk| {
                let mut conn = conn.clone();
                async move {
                    let mut cmd = redis::cmd(command);
                    cmd.arg(&chunk);
                    match tokio::time::timeout(timeout, cmd.query_async::<redis::Value>(&mut conn)).await {
                        Ok(Ok(redis::Value::Int(n))) => Ok(n.max(0) as u64),
                        Ok(Ok(_)) => Ok(0),
                        Ok(Err(e)) => Err(hot(doing, e)),
                        Err(_) => Err(hot(doing, format!("no answer within {} ms", timeout.as_millis()))),
                    }
                }
            })
            .buffer_unordered(CONCURRENCY)
            .try_fold(0u64, |a, n| async move { Ok(a + n) })
            .await;
        if done.is_err() {
            self.failed();
        }
        done
    }

    /// Counts node lookups the hot tier answered and those it did not.
    pub fn count(&self, hits: u64, misses: u64) {
        self.counters.hits.fetch_add(hits, Ordering::Relaxed);
        self.counters.misses.fetch_add(misses, Ordering::Relaxed);
    }

    /// The values of `keys`, grouped by partition (one `MGET` per group, all groups at once);
    /// `None` for a group whose shard failed or did not answer in time (its keys go to the
    /// cold tier; the others are still served).
    pub async fn get(&self, groups: Vec<Vec<Vec<u8>>>) -> Result<Vec<Option<Vec<Option<Vec<u8>>>>>> {
        let conn = self.connection("reading node slices").await?;
        let timeout = self.timeout();
        let reads = groups.into_iter().map(|keys| {
            let mut conn = conn.clone();
            async move {
                if keys.is_empty() {
                    return Ok(Vec::new());
                }
                let mut cmd = redis::cmd("MGET");
                cmd.arg(&keys);
                match tokio::time::timeout(timeout, cmd.query_async::<Vec<Option<Vec<u8>>>>(&mut conn)).await {
                    Ok(r) => r.map_err(|e| e.to_string()),
                    Err(_) => Err(format!("no answer within {} ms", timeout.as_millis())),
                }
            }
        });
        let out = futures::future::join_all(reads).await;
        let mut failures = Vec::new();
        let out = out.into_iter().map(|r| r.map_err(|e| failures.push(e)).ok()).collect();
        if let Some(first) = failures.first() {
            // The client refreshes its slot map on connection errors and redirections, so the
            // connection is kept: a failover shows up as a few failed groups, not an outage.
            self.counters.errors.fetch_add(failures.len() as u64, Ordering::Relaxed);
            tracing::warn!(failed = failures.len(), error = %first, "hot tier reads failed; reading the cold tier");
        }
        Ok(out)
    }

    /// Writes entries, each group one partition's (so one shard's), in chunks of `MSET`.
    /// Returns the bytes written (keys and values).
    pub async fn put(&self, groups: Vec<Entries>) -> Result<u64> {
        let bytes = groups.iter().map(entries_bytes).sum();
        let size = |(k, v): &(Vec<u8>, Vec<u8>)| k.len() + v.len();
        self.run_chunks("writing node slices", "MSET", chunked(groups, size))
            .await?;
        Ok(bytes)
    }

    /// Deletes `keys` (grouped by partition). Returns how many existed.
    pub async fn delete(&self, groups: Vec<Vec<Vec<u8>>>) -> Result<u64> {
        self.run_chunks("deleting node slices", "DEL", chunked(groups, Vec::len))
            .await
    }

    pub fn stats(&self) -> HotStats {
        let c = &self.counters;
        HotStats {
            hits: c.hits.load(Ordering::Relaxed),
            misses: c.misses.load(Ordering::Relaxed),
            errors: c.errors.load(Ordering::Relaxed),
            promoted_on_miss: c.promoted_on_miss.load(Ordering::Relaxed),
        }
    }

    /// Writes the slices of nodes just read from the cold tier, in the background.
    pub fn promote_in_background(self: &Arc<Self>, rt: &tokio::runtime::Runtime, groups: Vec<Entries>) {
        let n: u64 = groups.iter().map(|g| g.len() as u64).sum();
        if n == 0 {
            return;
        }
        self.counters.pending.fetch_add(1, Ordering::AcqRel);
        let me = self.clone();
        rt.spawn(async move {
            match me.put(groups).await {
                Ok(_) => {
                    me.counters.promoted_on_miss.fetch_add(n, Ordering::Relaxed);
                }
                Err(e) => tracing::debug!(error = %e, "promotion on a miss failed; the next miss tries again"),
            }
            me.counters.pending.fetch_sub(1, Ordering::AcqRel);
        });
    }

    /// Waits (up to `limit`) until the background promotions started so far have finished.
    pub fn wait_promotions(&self, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        while self.counters.pending.load(Ordering::Acquire) > 0 {
            if Instant::now() > until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        true
    }
}

/// Each group split into chunks of at most `WRITE_CHUNK` entries and `WRITE_CHUNK_BYTES`
/// bytes (`size` of each; moved, not copied); a chunk never spans two groups, so it stays
/// within one partition and one shard.
fn chunked<T>(groups: Vec<Vec<T>>, size: impl Fn(&T) -> usize) -> Vec<Vec<T>> {
    let mut chunks = Vec::new();
    for g in groups {
        let (mut chunk, mut bytes) = (Vec::new(), 0);
        for e in g {
            let n = size(&e);
            if !chunk.is_empty() && (chunk.len() == WRITE_CHUNK || bytes + n > WRITE_CHUNK_BYTES) {
                chunks.push(std::mem::take(&mut chunk));
                bytes = 0;
            }
            bytes += n;
            chunk.push(e);
        }
        if !chunk.is_empty() {
            chunks.push(chunk);
        }
    }
    chunks
}

fn hot(doing: &str, why: impl std::fmt::Display) -> ClusterError {
    ClusterError::Hot {
        doing: doing.to_string(),
        why: why.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_bounded_by_entries_and_bytes_and_never_span_groups() {
        let small = vec![vec![1u8; 10]; 1200];
        let big = vec![
            vec![0u8; 100 << 10],
            vec![0u8; 300 << 10],
            vec![0u8; 100 << 10],
            vec![0u8; 100 << 10],
        ];
        let chunks = chunked(vec![small, big], Vec::len);
        let sizes: Vec<(usize, usize)> = chunks.iter().map(|c| (c.len(), c.iter().map(Vec::len).sum())).collect();
        assert_eq!(
            sizes,
            vec![
                (512, 5120),
                (512, 5120),
                (176, 1760),
                (1, 100 << 10),
                (1, 300 << 10),
                (2, 200 << 10)
            ]
        );
    }
}
