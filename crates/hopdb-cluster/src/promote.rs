//! Moving data into and out of the hot tier: whole partitions (by hand or by temperature within
//! the budget), single nodes, and eviction. The metadata records a partition as hot only after
//! all its nodes were written, and no longer hot before any is deleted.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hopdb_core::NodeKey;
use rayon::prelude::*;

use crate::bucket::{self, Packer};
use crate::cold::Partition;
use crate::error::{ClusterError, Result};
use crate::hot::{bucket_key, entries_bytes, entry_key, Entries, HotStats, HotTier};
use crate::read::Located;
use crate::slice;
use crate::{Cluster, LiveGenerations};

/// Partitions read and written per step of a promotion (bounds the memory it holds).
const PARTITIONS_PER_STEP: usize = 16;

/// What a promotion did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromoteReport {
    /// Partitions whose every node was written.
    pub partitions: usize,
    /// Nodes written.
    pub nodes: u64,
    /// Redis keys written: small nodes share a key (a bucket), large ones have their own.
    pub keys: u64,
    /// Bytes written (keys and values).
    pub bytes: u64,
    /// Wall time, reading the cold tier included.
    pub seconds: f64,
    /// Of it: reading and decoding partitions from the cold tier (or the cache).
    pub read_seconds: f64,
    /// Encoding node slices (on every core).
    pub encode_seconds: f64,
    /// Waiting for Redis to take a step's writes (they overlap the next step's reading and
    /// encoding; this is the part that did not).
    pub write_wait_seconds: f64,
}

/// What an eviction did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvictReport {
    /// Partitions no longer hot.
    pub partitions: usize,
    /// Redis entries deleted.
    pub entries: u64,
    /// Wall time.
    pub seconds: f64,
}

impl Cluster {
    fn hot_tier(&self) -> Result<&Arc<HotTier>> {
        self.hot
            .as_ref()
            .ok_or_else(|| ClusterError::Config("no hot tier: the configuration has no [hot] section".into()))
    }

    /// The hot tier's counters on this query node (`None` without a hot tier).
    pub fn hot_stats(&self) -> Option<HotStats> {
        self.hot.as_ref().map(|h| h.stats())
    }

    /// Waits up to `limit` for the background promotions of earlier misses; false if some are
    /// still running.
    pub fn wait_promotions(&self, limit: Duration) -> bool {
        self.hot.as_ref().is_none_or(|h| h.wait_promotions(limit))
    }

    /// The live contents of `parts`, decoded (from the cache or the cold tier, writes merged
    /// in); partitions never loaded or written are left out.
    pub(crate) fn live_partitions(&self, parts: &[u32]) -> Result<HashMap<u32, Arc<Partition>>> {
        let live = self.current();
        let (mut out, missing) = self.cached(&live, parts.iter().copied());
        out.extend(self.fetch_cold(&live, missing)?);
        Ok(out)
    }

    /// What holds the rows of the located nodes: their cached partitions, else ranged reads of
    /// the cold tier (`Cluster::fetch_cold_keys`), which answer for these nodes only.
    fn live_rows_of(&self, located: &[Located]) -> Result<HashMap<u32, Arc<Partition>>> {
        let live = self.current();
        let (mut out, missing) = self.cached(&live, located.iter().map(|l| l.part));
        let missing: HashSet<u32> = missing.into_iter().collect();
        out.extend(self.fetch_cold_keys(&live, located.iter().filter(|l| missing.contains(&l.part)))?);
        Ok(out)
    }

    /// The cached live versions of `parts`, and the loaded partitions the cache lacks.
    fn cached(
        &self,
        live: &LiveGenerations,
        parts: impl Iterator<Item = u32>,
    ) -> (HashMap<u32, Arc<Partition>>, Vec<u32>) {
        let (mut out, mut missing, mut seen) = (HashMap::new(), Vec::new(), HashSet::new());
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        for p in parts {
            let Some(Some(l)) = live.get(p as usize) else {
                continue;
            };
            if !seen.insert(p) {
                continue;
            }
            match cache.get(p, l.version) {
                Some(part) => {
                    out.insert(p, part);
                }
                None => missing.push(p),
            }
        }
        (out, missing)
    }

    /// Writes every node of the partitions `parts` to the hot tier and records them as hot.
    /// Steps overlap: while one step's slices are written, the next is read and encoded.
    pub fn promote_partitions(&self, parts: &[u32]) -> Result<PromoteReport> {
        let hot = self.hot_tier()?;
        let started = Instant::now();
        let mut report = PromoteReport::default();
        let mut writing: Option<(tokio::task::JoinHandle<Result<u64>>, Vec<Promoted>)> = None;
        for step in parts.chunks(PARTITIONS_PER_STEP) {
            let t = Instant::now();
            let held: Vec<(u32, Arc<Partition>)> = self.live_partitions(step)?.into_iter().collect();
            report.read_seconds += t.elapsed().as_secs_f64();
            let t = Instant::now();
            let encoded = encode_in_parallel(&held);
            report.encode_seconds += t.elapsed().as_secs_f64();
            if let Some((w, done)) = writing.take() {
                self.finish_step(w, done, &mut report)?;
            }
            let done = encoded.iter().map(|(d, _)| *d).collect();
            let groups = encoded.into_iter().map(|(_, g)| g).collect();
            let hot = hot.clone();
            writing = Some((self.rt.spawn(async move { hot.put(groups).await }), done));
        }
        if let Some((w, done)) = writing {
            self.finish_step(w, done, &mut report)?;
        }
        report.seconds = started.elapsed().as_secs_f64();
        Ok(report)
    }

    /// Waits for a step's writes, then records its partitions as hot.
    fn finish_step(
        &self,
        w: tokio::task::JoinHandle<Result<u64>>,
        done: Vec<Promoted>,
        report: &mut PromoteReport,
    ) -> Result<()> {
        let t = Instant::now();
        report.bytes += self.rt.block_on(w).map_err(|e| ClusterError::Hot {
            doing: "writing node slices".into(),
            why: e.to_string(),
        })??;
        report.write_wait_seconds += t.elapsed().as_secs_f64();
        self.meta()?.mark_hot(&done)?;
        // This query node reads the buckets at once; the others at their next refresh.
        self.live
            .promoted(done.iter().map(|d| (d.partition, d.version, d.buckets)));
        report.partitions += done.len();
        report.nodes += done.iter().map(|d| d.nodes).sum::<u64>();
        report.keys += done.iter().map(|d| d.keys).sum::<u64>();
        Ok(())
    }

    /// Writes the given nodes' slices to the hot tier (one-vertex promotion). Returns how many
    /// existed and were written.
    pub fn promote_nodes(&self, keys: &[NodeKey]) -> Result<usize> {
        let hot = self.hot_tier()?;
        let located: Vec<_> = keys.iter().map(|k| self.locate(k)).collect();
        let held = self.live_rows_of(&located)?;
        let groups = node_entries(located.iter(), &held);
        let n = groups.iter().map(Vec::len).sum();
        self.rt.block_on(hot.put(groups))?;
        Ok(n)
    }

    /// Deletes every node of the partitions `parts` from the hot tier (under their live version
    /// and the one last promoted, with its buckets) and records them as not hot.
    pub fn evict_partitions(&self, parts: &[u32]) -> Result<EvictReport> {
        let hot = self.hot_tier()?;
        let started = Instant::now();
        let status = self.status()?;
        let mut report = EvictReport::default();
        for step in parts.chunks(PARTITIONS_PER_STEP) {
            // Not hot first, so no reader counts on what is about to go.
            self.meta()?.mark_evicted(step)?;
            let held = self.live_partitions(step)?;
            let mut groups = Vec::new();
            for (&p, part) in &held {
                let mut versions = vec![part.version];
                if let Some(s) = status.get(p as usize) {
                    if s.hot_version != 0 && s.hot_version != part.version {
                        versions.push(s.hot_version);
                    }
                }
                for g in versions {
                    groups.push(part.node_keys().into_iter().map(|k| entry_key(p, g, k)).collect());
                }
                if let Some(s) = status.get(p as usize).filter(|s| s.hot_version != 0) {
                    groups.push((0..s.hot_buckets).map(|b| bucket_key(p, s.hot_version, b)).collect());
                }
            }
            report.entries += self.rt.block_on(hot.delete(groups))?;
            report.partitions += step.len();
        }
        report.seconds = started.elapsed().as_secs_f64();
        Ok(report)
    }

    /// Fills the hot tier's budget with the hottest partitions (by temperature; partitions
    /// never read are left cold) and evicts the hot ones that no longer fit.
    pub fn promote_auto(&self) -> Result<(PromoteReport, EvictReport)> {
        let budget = self.hot_tier()?.budget_bytes();
        self.flush_access()?;
        let mut status = self.status()?;
        status.retain(|s| s.version != 0);
        status.sort_by(|a, b| b.temperature.total_cmp(&a.temperature));
        let started = Instant::now();
        let mut promoted = PromoteReport::default();
        let mut keep = HashSet::new();
        let mut used = 0u64;
        for s in status.iter().filter(|s| s.temperature > 0.0) {
            if s.is_hot() {
                if used + s.hot_bytes > budget {
                    break;
                }
                used += s.hot_bytes;
                keep.insert(s.partition);
                continue;
            }
            let held = self.live_partitions(&[s.partition])?;
            let Some(part) = held.get(&s.partition) else {
                continue;
            };
            let (done, entries) = promotion(s.partition, part);
            if used + done.bytes > budget {
                break;
            }
            promoted.bytes += self.rt.block_on(self.hot_tier()?.put(vec![entries]))?;
            self.meta()?.mark_hot(&[done])?;
            promoted.partitions += 1;
            promoted.nodes += done.nodes;
            promoted.keys += done.keys;
            used += done.bytes;
            keep.insert(s.partition);
        }
        promoted.seconds = started.elapsed().as_secs_f64();
        let evict: Vec<u32> = self
            .status()?
            .iter()
            .filter(|s| s.hot_version != 0 && !keep.contains(&s.partition))
            .map(|s| s.partition)
            .collect();
        let evicted = self.evict_partitions(&evict)?;
        Ok((promoted, evicted))
    }
}

/// A partition whose every node was written to the hot tier.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Promoted {
    pub partition: u32,
    /// The content version written.
    pub version: u64,
    pub nodes: u64,
    pub bytes: u64,
    /// The buckets its small nodes were packed in.
    pub buckets: u64,
    /// The Redis keys written (the buckets used, the nodes under their own keys).
    pub keys: u64,
}

/// The entries of each partition, encoded on every core.
fn encode_in_parallel(held: &[(u32, Arc<Partition>)]) -> Vec<(Promoted, Entries)> {
    held.par_iter().map(|(p, part)| promotion(*p, part)).collect()
}

/// Every node of a partition as hot-tier entries: small nodes packed in buckets, the others
/// under their own keys; with what they add up to.
fn promotion(p: u32, part: &Partition) -> (Promoted, Entries) {
    let v = part.version;
    let mut packer = Packer::new(bucket::count_for(part.node_count_hint()));
    let (mut entries, mut nodes, mut slice) = (Entries::new(), 0u64, Vec::new());
    part.for_each_node(&mut |n| {
        slice::encode_node_into(part, &n, &mut slice);
        nodes += 1;
        if !packer.add(n.key, &slice) {
            entries.push((entry_key(p, v, n.key), slice.clone()));
        }
    });
    let buckets = packer.count();
    entries.extend(packer.finish().map(|(b, value)| (bucket_key(p, v, b), value)));
    let done = Promoted {
        partition: p,
        version: v,
        nodes,
        bytes: entries_bytes(&entries),
        buckets,
        keys: entries.len() as u64,
    };
    (done, entries)
}

/// The hot-tier entry of the node with encoded key `enc`, if partition `p` holds it.
fn entry(p: u32, part: &Partition, enc: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    slice::encode(part, enc).map(|v| (entry_key(p, part.version, enc), v))
}

/// The entries of the located nodes that `parts` hold, grouped by partition (one-vertex
/// promotion, by hand or on a miss).
pub(crate) fn node_entries<'a>(
    nodes: impl Iterator<Item = &'a Located>,
    parts: &HashMap<u32, Arc<Partition>>,
) -> Vec<Entries> {
    let mut groups: HashMap<u32, Entries> = HashMap::new();
    for l in nodes {
        if let Some(e) = parts.get(&l.part).and_then(|part| entry(l.part, part, &l.enc)) {
            groups.entry(l.part).or_default().push(e);
        }
    }
    groups.into_values().collect()
}
