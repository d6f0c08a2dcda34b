//! Reads on a cluster: each call finds the partitions its keys live in, fetches the ones the
//! cache lacks from the cold tier together, then answers from the decoded partitions. A k-hop
//! walk does this once per hop for its whole frontier.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use futures::stream::{self, StreamExt, TryStreamExt};
use hopdb_core::{codec, Degree, Direction, Edge, Node, NodeKey};
use rayon::prelude::*;

use bytes::Bytes;

use crate::bucket;
use crate::cold::{edge_schema, node_schema, Partition, TypeNames};
use crate::error::{objects, ClusterError, Result};
use crate::hot::{bucket_key, entry_key, HotTier};
use crate::meta::{Delta, Live};
use crate::partition::partition_of_encoded;
use crate::promote::node_entries;
use crate::ranged::{Chunks, Footer, Footers};
use crate::slice::{NodeRows, NodeSlice};
use crate::{Cluster, LiveGenerations};

/// What a read of a partition needs from the cold tier.
#[derive(Clone)]
pub(crate) enum Need {
    /// Every row (kept in the cache).
    Whole,
    /// The rows of these encoded keys (sorted) only.
    Keys(Vec<Vec<u8>>),
}

/// A generation's objects as read: both whole, or some row groups of each.
enum Fetched {
    Whole(Bytes, Bytes),
    Ranged {
        nodes: (Vec<usize>, Chunks),
        edges: (Vec<usize>, Chunks),
        footers: Arc<Footers>,
        /// Bytes read for the footers (0: they were held).
        footer_bytes: u64,
    },
}

impl Fetched {
    /// The bytes read from the objects.
    fn bytes(&self) -> u64 {
        match self {
            Fetched::Whole(n, e) => (n.len() + e.len()) as u64,
            Fetched::Ranged {
                nodes,
                edges,
                footer_bytes,
                ..
            } => nodes.1.bytes() + edges.1.bytes() + footer_bytes,
        }
    }

    /// The rows read, decoded, as content `version` of generation `prefix`.
    fn decode(self, prefix: &str, version: u64) -> Result<Partition> {
        match self {
            Fetched::Whole(nodes, edges) => Partition::decode(prefix, version, nodes, edges),
            Fetched::Ranged {
                nodes: (ngroups, nchunks),
                edges: (egroups, echunks),
                footers,
                ..
            } => {
                let whole = ngroups.len() == footers.nodes.groups() && egroups.len() == footers.edges.groups();
                let n = footers
                    .nodes
                    .decode(&format!("{prefix}/nodes.parquet"), ngroups, nchunks)?;
                let e = footers
                    .edges
                    .decode(&format!("{prefix}/edges.parquet"), egroups, echunks)?;
                Partition::from_groups(prefix, version, &n, &e, whole)
            }
        }
    }
}

/// Partition fetches in flight at once.
const FETCH_CONCURRENCY: usize = 16;

/// The query node's partition cache counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Partition lookups answered from memory.
    pub hits: u64,
    /// Partition lookups that read the cold tier.
    pub misses: u64,
    /// Of those, the partitions rebuilt from a cached older version of the same generation
    /// (its arrays reused, only the pending writes merged: no object read).
    pub reused: u64,
    /// Of the misses, the point reads that fetched only the row groups holding their nodes
    /// (a partition not admitted to the cache: `[cache] memory_mb = 0`, or its first miss).
    pub ranged: u64,
    /// Bytes read from the cold tier's objects (footers included).
    pub cold_bytes: u64,
    /// Memory held by the footers kept for ranged reads (one pair per partition read so).
    pub footer_bytes: usize,
    /// Partitions held.
    pub partitions: usize,
    /// Bytes held.
    pub bytes: usize,
}

/// Decoded partitions, least recently used evicted first, within a byte budget.
pub(crate) struct Cache {
    budget: u64,
    tick: u64,
    held: HashMap<u32, (Arc<Partition>, u64)>,
    bytes: usize,
    hits: u64,
    misses: u64,
    reused: u64,
    ranged: u64,
    cold_bytes: u64,
    /// Partitions read by ranged reads since they were last held: the next miss of one of
    /// them reads it whole and keeps it.
    seen: HashSet<u32>,
}

impl Cache {
    pub fn new(budget: u64) -> Cache {
        Cache {
            budget,
            tick: 0,
            held: HashMap::new(),
            bytes: 0,
            hits: 0,
            misses: 0,
            reused: 0,
            ranged: 0,
            cold_bytes: 0,
            seen: HashSet::new(),
        }
    }

    /// Whether a point read missing partition `p` reads it whole (and keeps it) rather than
    /// only its wanted nodes' row groups: never with no cache; else on its second miss since
    /// it was last held (a partition read once is likely cold, and holding it would push out
    /// one that is read again).
    pub(crate) fn read_whole(&mut self, p: u32) -> bool {
        self.budget > 0 && !self.seen.insert(p)
    }

    pub(crate) fn get(&mut self, p: u32, version: u64) -> Option<Arc<Partition>> {
        self.tick += 1;
        match self.held.get_mut(&p) {
            Some((part, used)) if part.version == version => {
                *used = self.tick;
                self.hits += 1;
                Some(part.clone())
            }
            _ => {
                self.misses += 1;
                None
            }
        }
    }

    /// The arrays of partition `p`'s generation `prefix`, if the cached version is of it.
    pub(crate) fn base_of(&mut self, p: u32, prefix: &str) -> Option<Partition> {
        let base = self.held.get(&p).and_then(|(part, _)| part.base_copy(prefix));
        self.reused += u64::from(base.is_some());
        base
    }

    pub(crate) fn insert(&mut self, p: u32, part: Arc<Partition>) {
        if self.budget == 0 {
            return; // no cache: every read goes to the hot or cold tier
        }
        self.tick += 1;
        self.seen.remove(&p);
        if let Some((old, _)) = self.held.insert(p, (part.clone(), self.tick)) {
            self.bytes -= old.bytes;
        }
        self.bytes += part.bytes;
        // Evict the least recently used until within budget (never the one just added).
        while self.bytes as u64 > self.budget && self.held.len() > 1 {
            let Some((&victim, _)) = self
                .held
                .iter()
                .filter(|(&k, _)| k != p)
                .min_by_key(|(_, (_, used))| *used)
            else {
                break;
            };
            if let Some((old, _)) = self.held.remove(&victim) {
                self.bytes -= old.bytes;
            }
        }
    }
}

/// What holds a located node's rows: its decoded partition or its slice from the hot tier.
#[derive(Clone)]
pub(crate) enum Held {
    Partition(Arc<Partition>),
    Slice(Arc<NodeSlice>),
}

impl Held {
    fn rows(&self) -> &dyn NodeRows {
        match self {
            Held::Partition(p) => &**p,
            Held::Slice(s) => &**s,
        }
    }
}

/// The rows of the located node, if the node exists.
fn holding<'a>(held: &'a Option<Held>, l: &Located) -> Option<&'a dyn NodeRows> {
    held.as_ref().map(Held::rows).filter(|r| r.has_node(&l.enc))
}

/// A node's encoded key and its partition.
pub(crate) struct Located {
    pub enc: Vec<u8>,
    pub part: u32,
}

impl Cluster {
    pub(crate) fn locate(&self, key: &NodeKey) -> Located {
        let enc = codec::encode_key(key);
        let part = partition_of_encoded(&enc, self.partitions);
        Located { enc, part }
    }

    /// What holds each located node: the cached partition, else its slice in the hot tier,
    /// else its partition read from the cold tier (and the slice promoted in the background).
    /// `None` where the partition was never loaded.
    fn resolve(&self, located: &[Located]) -> Result<Vec<Option<Held>>> {
        let live = self.current();
        self.note_access();
        let mut out: Vec<Option<Held>> = vec![None; located.len()];
        // Keys whose partition is loaded but not cached.
        let mut wanted: Vec<usize> = Vec::new();
        {
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            let mut seen = HashMap::new();
            for (i, l) in located.iter().enumerate() {
                let part = seen.entry(l.part).or_insert_with(|| {
                    self.access.count(l.part);
                    live.get(l.part as usize)
                        .and_then(Option::as_ref)
                        .map(|lv| cache.get(l.part, lv.version))
                });
                match part {
                    None => {} // never loaded or written: empty
                    Some(Some(p)) => out[i] = Some(Held::Partition(p.clone())),
                    Some(None) => wanted.push(i),
                }
            }
        }
        let layout = |p: u32| live[p as usize].as_ref().map_or((0, 0), |l| (l.version, l.hot_buckets));
        if let Some(hot) = &self.hot {
            if !wanted.is_empty() {
                wanted = self.read_hot(hot, located, &wanted, &layout, &mut out);
            }
        }
        if wanted.is_empty() {
            return Ok(out);
        }
        let parts = self.fetch_cold_keys(&live, wanted.iter().map(|&i| &located[i]))?;
        for &i in &wanted {
            out[i] = parts.get(&located[i].part).map(|p| Held::Partition(p.clone()));
        }
        if let Some(hot) = self.hot.as_ref().filter(|h| h.promote_on_miss()) {
            let entries = node_entries(wanted.iter().map(|&i| &located[i]), &parts);
            hot.promote_in_background(&self.rt, entries);
        }
        Ok(out)
    }

    /// Looks the `wanted` keys up in the hot tier, filling `out` with the slices found. Nodes
    /// of a partition promoted whole are looked for in their buckets (`layout`: a partition's
    /// live version and bucket count); the others, and those a bucket sends on (a node too
    /// large for it, or a bucket Redis dropped), under their own keys: one `MGET` per
    /// partition and round. Returns the keys still wanted (the cold tier answers them).
    fn read_hot(
        &self,
        hot: &HotTier,
        located: &[Located],
        wanted: &[usize],
        layout: &dyn Fn(u32) -> (u64, u64),
        out: &mut [Option<Held>],
    ) -> Vec<usize> {
        let (bucketed, mut own): (Vec<usize>, Vec<usize>) =
            wanted.iter().partition(|&&i| layout(located[i].part).1 > 0);
        let mut still = Vec::new();
        let (mut hits, mut misses) = (0u64, 0u64);
        let what = |p: u32| format!("hot slice of a node in partition {p}");
        if !bucketed.is_empty() {
            let groups = by_partition(located, &bucketed);
            // Per partition: its distinct buckets, and where each node's is among them.
            let mut keys = Vec::with_capacity(groups.len());
            let mut at = Vec::with_capacity(groups.len());
            for (p, idx) in &groups {
                let (version, buckets) = layout(*p);
                let (mut k, mut slot) = (Vec::new(), HashMap::new());
                at.push(
                    idx.iter()
                        .map(|&i| {
                            let b = bucket::bucket_of(&located[i].enc, buckets);
                            *slot.entry(b).or_insert_with(|| {
                                k.push(bucket_key(*p, version, b));
                                k.len() - 1
                            })
                        })
                        .collect::<Vec<usize>>(),
                );
                keys.push(k);
            }
            match self.rt.block_on(hot.get(keys)) {
                Ok(values) => {
                    for (((p, idx), at), vals) in groups.into_iter().zip(at).zip(values) {
                        let Some(vals) = vals else {
                            still.extend(idx); // that shard failed: the cold tier answers
                            continue;
                        };
                        let vals: Vec<Option<Bytes>> = vals.into_iter().map(|v| v.map(Bytes::from)).collect();
                        for (i, b) in idx.into_iter().zip(at) {
                            let Some(packed) = &vals[b] else {
                                own.push(i); // dropped by Redis: the node may have been promoted since
                                continue;
                            };
                            let enc = &located[i].enc;
                            let found = bucket::find(packed, enc, &what(p));
                            let decoded = found.and_then(|f| {
                                f.map(|own| own.map(|v| NodeSlice::decode(enc, v, &what(p))).transpose())
                                    .transpose()
                            });
                            match decoded {
                                Ok(Some(Some(s))) => {
                                    out[i] = Some(Held::Slice(Arc::new(s)));
                                    hits += 1;
                                }
                                Ok(Some(None)) => own.push(i), // under its own key
                                Ok(None) => {
                                    still.push(i);
                                    misses += 1;
                                }
                                Err(e) => {
                                    tracing::warn!(error = %e, "damaged hot bucket; reading the cold tier");
                                    still.push(i);
                                    misses += 1;
                                }
                            }
                        }
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "hot tier unavailable; reading the cold tier");
                    return wanted.to_vec();
                }
            }
        }
        if !own.is_empty() {
            let groups = by_partition(located, &own);
            let keys = groups
                .iter()
                .map(|(p, idx)| {
                    let version = layout(*p).0;
                    idx.iter().map(|&i| entry_key(*p, version, &located[i].enc)).collect()
                })
                .collect();
            match self.rt.block_on(hot.get(keys)) {
                Ok(values) => {
                    for ((p, idx), vals) in groups.into_iter().zip(values) {
                        let Some(vals) = vals else {
                            still.extend(idx);
                            continue;
                        };
                        for (i, v) in idx.into_iter().zip(vals) {
                            let decoded = v.map(|v| NodeSlice::decode(&located[i].enc, Bytes::from(v), &what(p)));
                            match decoded {
                                Some(Ok(s)) => {
                                    out[i] = Some(Held::Slice(Arc::new(s)));
                                    hits += 1;
                                    continue;
                                }
                                Some(Err(e)) => tracing::warn!(error = %e, "damaged hot slice; reading the cold tier"),
                                None => {}
                            }
                            still.push(i);
                            misses += 1;
                        }
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "hot tier unavailable; reading the cold tier");
                    still.extend(own);
                }
            }
        }
        hot.count(hits, misses);
        still
    }

    /// Reads the live contents of the partitions `parts` (each once; those never loaded or
    /// written are left out) from the cold tier together, merges their pending writes, and
    /// caches them.
    pub(crate) fn fetch_cold(
        &self,
        live: &LiveGenerations,
        parts: impl IntoIterator<Item = u32>,
    ) -> Result<HashMap<u32, Arc<Partition>>> {
        let mut parts: Vec<u32> = parts.into_iter().collect();
        parts.sort_unstable();
        parts.dedup();
        self.fetch_cold_needs(live, parts.into_iter().map(|p| (p, Need::Whole)).collect())
    }

    /// Reads, for each partition of the located nodes, what point reads of them need (their
    /// row groups, or the whole partition when the cache admits it: `Cache::read_whole`),
    /// with the pending writes merged. A ranged result answers only for those nodes.
    pub(crate) fn fetch_cold_keys<'a>(
        &self,
        live: &LiveGenerations,
        located: impl IntoIterator<Item = &'a Located>,
    ) -> Result<HashMap<u32, Arc<Partition>>> {
        let mut keys: HashMap<u32, Vec<Vec<u8>>> = HashMap::new();
        for l in located {
            keys.entry(l.part).or_default().push(l.enc.clone());
        }
        let needs = {
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            keys.into_iter()
                .map(|(p, mut keys)| match cache.read_whole(p) {
                    true => (p, Need::Whole),
                    false => {
                        keys.sort_unstable();
                        keys.dedup();
                        (p, Need::Keys(keys))
                    }
                })
                .collect()
        };
        self.fetch_cold_needs(live, needs)
    }

    /// What `fetch_cold` and `fetch_cold_keys` share. A view that a compaction made stale
    /// (its objects deleted) is refreshed and the read tried once more.
    fn fetch_cold_needs(
        &self,
        live: &LiveGenerations,
        needs: Vec<(u32, Need)>,
    ) -> Result<HashMap<u32, Arc<Partition>>> {
        match self.fetch_cold_once(live, needs.clone()) {
            Err(ClusterError::ObjectStore {
                source: object_store::Error::NotFound { .. },
                ..
            }) => {
                self.refresh()?;
                let live = self.live.get();
                self.fetch_cold_once(&live, needs)
            }
            r => r,
        }
    }

    fn fetch_cold_once(&self, live: &LiveGenerations, needs: Vec<(u32, Need)>) -> Result<HashMap<u32, Arc<Partition>>> {
        let mut want: Vec<(u32, Live, Need)> = needs
            .into_iter()
            .filter_map(|(p, need)| Some((p, live.get(p as usize)?.clone()?, need)))
            .collect();
        let pending: Vec<u32> = want
            .iter()
            .filter(|(_, l, _)| l.pending())
            .map(|(p, _, _)| *p)
            .collect();
        let mut delta = Delta::new();
        if !pending.is_empty() {
            // The pending writes and the state they apply to, read together.
            let (fresh, d) = self.meta()?.live_with_delta(&pending)?;
            self.note_live(&fresh);
            for (p, l) in fresh {
                if let Some(w) = want.iter_mut().find(|(q, _, _)| *q == p) {
                    w.1 = l;
                }
            }
            delta = d;
        }
        self.fetch_needed(want, &delta)
    }

    /// Reads the objects of `want`'s generations together, merges `delta`'s operations into
    /// them, and caches the results under their versions.
    pub(crate) fn fetch_partitions(
        &self,
        want: Vec<(u32, Live)>,
        delta: &Delta,
    ) -> Result<HashMap<u32, Arc<Partition>>> {
        self.fetch_needed(want.into_iter().map(|(p, l)| (p, l, Need::Whole)).collect(), delta)
    }

    /// `fetch_partitions` for wholes and ranged reads alike; only whole results are cached.
    fn fetch_needed(&self, want: Vec<(u32, Live, Need)>, delta: &Delta) -> Result<HashMap<u32, Arc<Partition>>> {
        let mut out = HashMap::new();
        if want.is_empty() {
            return Ok(out);
        }
        // A cached older version of the same generation lends its arrays: only the pending
        // writes are merged again (a partition another query node wrote, re-read).
        let mut reused: Vec<(u32, Live, Partition)> = Vec::new();
        let want: Vec<(u32, Live, Need)> = {
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            want.into_iter()
                .filter_map(
                    |(p, l, need)| match l.prefix.as_deref().and_then(|pre| cache.base_of(p, pre)) {
                        Some(base) => {
                            reused.push((p, l, base));
                            None
                        }
                        None => Some((p, l, need)),
                    },
                )
                .collect()
        };
        let fetched: Vec<(u32, Live, Option<Fetched>)> = self.rt.block_on(
            stream::iter(want)
                .map(|(p, l, need)| async move {
                    let Some(prefix) = l.prefix.as_deref() else {
                        return Ok((p, l, None)); // only ever written: the delta is all
                    };
                    let fetched = match need {
                        Need::Whole => self.fetch_whole(prefix).await?,
                        Need::Keys(keys) => self.fetch_ranged(p, prefix, &keys).await?,
                    };
                    Ok::<_, ClusterError>((p, l, Some(fetched)))
                })
                .buffer_unordered(FETCH_CONCURRENCY)
                .try_collect(),
        )?;
        let mut built = Vec::with_capacity(fetched.len() + reused.len());
        let (mut ranged, mut bytes) = (0, 0);
        for f in fetched.iter().filter_map(|(_, _, f)| f.as_ref()) {
            ranged += u64::from(matches!(f, Fetched::Ranged { .. }));
            bytes += f.bytes();
        }
        // Decoding is most of a read's CPU: one partition per core.
        let decoded: Vec<(u32, Live, Option<Partition>)> = fetched
            .into_par_iter()
            .map(|(p, l, fetched)| {
                let base = match (fetched, &l.prefix) {
                    (Some(f), Some(prefix)) => Some(f.decode(prefix, l.version)?),
                    _ => None,
                };
                Ok::<_, ClusterError>((p, l, base))
            })
            .collect::<Result<_>>()?;
        let reused = reused.into_iter().map(|(p, l, base)| (p, l, Some(base)));
        for (p, l, base) in decoded.into_iter().chain(reused) {
            let part = match (delta.get(&p), base) {
                (None, Some(mut base)) => {
                    base.version = l.version; // a lent base carries its lender's
                    base
                }
                (ops, base) => crate::delta::merge(p, base, ops.map_or(&[][..], Vec::as_slice), l.version)?,
            };
            built.push((p, Arc::new(part)));
        }
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.ranged += ranged;
        cache.cold_bytes += bytes;
        for (p, part) in built {
            if part.is_whole() {
                cache.insert(p, part.clone());
            }
            out.insert(p, part);
        }
        Ok(out)
    }

    /// Both objects of generation `prefix`.
    async fn fetch_whole(&self, prefix: &str) -> Result<Fetched> {
        let get = |name: &str| {
            let path = object_store::path::Path::from(format!("{prefix}/{name}"));
            async move {
                let r = self.objects.get(&path).await.map_err(objects_err(&path))?;
                r.bytes().await.map_err(objects_err(&path))
            }
        };
        let (nodes, edges) = futures::try_join!(get("nodes.parquet"), get("edges.parquet"))?;
        Ok(Fetched::Whole(nodes, edges))
    }

    /// The row groups of generation `prefix` (of partition `p`) that hold the sorted `keys`,
    /// reading its footers first unless held.
    async fn fetch_ranged(&self, p: u32, prefix: &str, keys: &[Vec<u8>]) -> Result<Fetched> {
        let path = |name: &str| object_store::path::Path::from(format!("{prefix}/{name}"));
        let (npath, epath) = (path("nodes.parquet"), path("edges.parquet"));
        let mut footer_bytes = 0;
        let footers = match self.footers.get(p, prefix) {
            Some(f) => f,
            None => {
                let (objects, nschema, eschema) = (&*self.objects, node_schema(), edge_schema());
                let (nodes, edges) = futures::try_join!(
                    Footer::read(objects, &npath, &nschema),
                    Footer::read(objects, &epath, &eschema)
                )?;
                footer_bytes = nodes.read + edges.read;
                let f = Arc::new(Footers { nodes, edges });
                self.footers.put(p, prefix, f.clone());
                f
            }
        };
        let keys: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let (ngroups, egroups) = (footers.nodes.groups_holding(&keys), footers.edges.groups_holding(&keys));
        let (nodes, edges) = futures::try_join!(
            footers.nodes.fetch(&*self.objects, &npath, &ngroups),
            footers.edges.fetch(&*self.objects, &epath, &egroups)
        )?;
        Ok(Fetched::Ranged {
            nodes: (ngroups, nodes),
            edges: (egroups, edges),
            footers,
            footer_bytes,
        })
    }

    /// The partition cache's counters.
    pub fn cache_stats(&self) -> CacheStats {
        let c = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        CacheStats {
            hits: c.hits,
            misses: c.misses,
            reused: c.reused,
            ranged: c.ranged,
            cold_bytes: c.cold_bytes,
            footer_bytes: self.footers.memory(),
            partitions: c.held.len(),
            bytes: c.bytes,
        }
    }

    /// Empties the partition cache (the next reads go to the cold tier).
    pub fn clear_cache(&self) {
        let mut c = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        c.held.clear();
        c.seen.clear();
        c.bytes = 0;
    }

    /// The node with this key, if it exists.
    pub fn node(&self, key: &NodeKey) -> Result<Option<Node>> {
        Ok(self.nodes_batch(std::slice::from_ref(key))?.pop().flatten())
    }

    /// Nodes for many keys; `None` where absent. One read per partition touched.
    pub fn nodes_batch(&self, keys: &[NodeKey]) -> Result<Vec<Option<Node>>> {
        let located: Vec<Located> = keys.iter().map(|k| self.locate(k)).collect();
        let held = self.resolve(&located)?;
        located
            .iter()
            .zip(&held)
            .map(|(l, h)| match h {
                Some(h) => h.rows().node(&l.enc),
                None => Ok(None),
            })
            .collect()
    }

    /// The edges of many nodes, listed as the embedded store lists them (`Out`: leaving and
    /// undirected; `In`: entering and undirected; `Both`: all, a directed self-loop once);
    /// `None` where the node is absent.
    pub fn edges_batch(&self, keys: &[NodeKey], dir: Direction, ty: Option<&str>) -> Result<Vec<Option<Vec<Edge>>>> {
        let located: Vec<Located> = keys.iter().map(|k| self.locate(k)).collect();
        let held = self.resolve(&located)?;
        let mut types = TypeNames::default();
        located
            .iter()
            .zip(keys)
            .zip(&held)
            .map(|((l, key), h)| match holding(h, l) {
                Some(p) => p.edges_of(&l.enc, key, dir, ty, &mut types).map(Some),
                None => Ok(None),
            })
            .collect()
    }

    /// The edges of one node; `None` when it is absent.
    pub fn edges(&self, key: &NodeKey, dir: Direction, ty: Option<&str>) -> Result<Option<Vec<Edge>>> {
        Ok(self.edges_batch(std::slice::from_ref(key), dir, ty)?.pop().flatten())
    }

    /// The degree and weight sum of a node, as the store counts them (a directed self-loop
    /// twice under `Both`); `None` when it is absent.
    pub fn degree(&self, key: &NodeKey, dir: Direction, ty: Option<&str>) -> Result<Option<Degree>> {
        let l = self.locate(key);
        let held = self.resolve(std::slice::from_ref(&l))?.pop().flatten();
        let Some(p) = holding(&held, &l) else {
            return Ok(None);
        };
        Ok(Some(p.degree_of(&l.enc, dir, ty)))
    }

    /// The distinct neighbours of many nodes, in adjacency order; `None` where absent.
    pub fn neighbors_batch(
        &self,
        keys: &[NodeKey],
        dir: Direction,
        ty: Option<&str>,
    ) -> Result<Vec<Option<Vec<NodeKey>>>> {
        let located: Vec<Located> = keys.iter().map(|k| self.locate(k)).collect();
        let held = self.resolve(&located)?;
        located
            .iter()
            .zip(&held)
            .map(|(l, h)| {
                let Some(p) = holding(h, l) else {
                    return Ok(None);
                };
                p.neighbors_of(&l.enc, dir, ty).map(Some)
            })
            .collect()
    }

    /// Breadth-first from `seeds` up to `k` hops: the nodes first reached at each distance
    /// 1..=k (seeds excluded), each hop one batched read of the partitions its frontier is in.
    pub fn k_hop(&self, seeds: &[NodeKey], k: usize, dir: Direction) -> Result<Vec<Vec<NodeKey>>> {
        let mut seen: HashSet<Vec<u8>> = seeds.iter().map(codec::encode_key).collect();
        let mut frontier: Vec<NodeKey> = seeds.to_vec();
        let mut levels = Vec::with_capacity(k);
        for _ in 0..k {
            if frontier.is_empty() {
                break;
            }
            let mut next = Vec::new();
            for list in self.neighbors_batch(&frontier, dir, None)?.into_iter().flatten() {
                for n in list {
                    if seen.insert(codec::encode_key(&n)) {
                        next.push(n);
                    }
                }
            }
            levels.push(next.clone());
            frontier = next;
        }
        Ok(levels)
    }
}

fn objects_err(path: &object_store::path::Path) -> impl FnOnce(object_store::Error) -> crate::ClusterError {
    objects(format!("reading {path}"))
}

/// The positions `idx` of `located`, grouped by partition.
fn by_partition(located: &[Located], idx: &[usize]) -> Vec<(u32, Vec<usize>)> {
    let mut by: HashMap<u32, Vec<usize>> = HashMap::new();
    for &i in idx {
        by.entry(located[i].part).or_default().push(i);
    }
    by.into_iter().collect()
}
