//! Loading a graph into the cluster straight from import files (everything `hopdb import`
//! reads), with no embedded store in between, so a graph larger than one machine's store
//! can be loaded (decision 0046).
//!
//! It is a shuffle in two phases:
//! 1. the importer's readers parse the input once, on one thread; each row becomes the
//!    partition rows it makes (a node row, an edge's row at each end) appended to the spill
//!    file of its partition's group on local disk. Keys are checked as the store's bulk
//!    loader checks them, as the rows arrive (a node given twice, an edge to a node no node
//!    file defines), so the importer's bad-entry policy and report work unchanged;
//! 2. workers take the groups, each reading one group file at a time (1/256 of the graph),
//!    sort each partition's rows, merge the rows of a simple edge given more than once
//!    (later properties win, as in the store), and write the partition to the cold tier.
//!
//! The new generation goes live at the end in one metadata transaction, as any load does.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::hash::BuildHasherDefault;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Instant;

use hopdb_core::{codec, EdgeTypeOptions, Error as StoreError, MissingEndpoints, NodeKey, Props};
use hopdb_import::{ImportSpec, ReadReport, RowSink};

use crate::cold::{EdgeRow, NodeRow, RowDir};
use crate::error::{ClusterError, Result};
use crate::load::{join_all, LoadOptions, LoadReport, Tally};
use crate::meta::Metadata;
use crate::partition::partition_of_encoded;
use crate::slice::{put_bytes, put_len, Reader};
use crate::Cluster;

/// At most this many spill files (groups of partitions): a worker holds one group's rows.
const MAX_GROUPS: u32 = 256;

/// What a load from import files did.
#[derive(Debug, Clone)]
pub struct FileLoadReport {
    /// The load (its `scan_seconds` is the time reading the input).
    pub load: LoadReport,
    /// The reading: rows, bad entries skipped, merged relationship rows, the report file.
    pub read: ReadReport,
    /// Nodes created because an edge named them and no node row did (edge lists).
    pub implicit_nodes: u64,
    /// Bytes of rows spilled to local disk between the two phases.
    pub spill_bytes: u64,
}

pub(crate) fn load_from_files(
    cluster: &Cluster,
    spec: &ImportSpec,
    opts: &LoadOptions,
    input_progress: &dyn hopdb_import::Progress,
) -> Result<FileLoadReport> {
    let started = Instant::now();
    let n = cluster.partitions;
    let plan = hopdb_import::plan(spec)?;
    let scratch = match &opts.scratch {
        Some(dir) => tempfile::Builder::new().prefix("hopdb-cluster-load-").tempdir_in(dir),
        None => tempfile::Builder::new().prefix("hopdb-cluster-load-").tempdir(),
    }
    .map_err(|e| ClusterError::State(format!("cannot create the load's spill directory: {e}")))?;
    let mut spill = Spill::new(n, scratch.path(), &plan.options)?;
    let types: HashMap<String, EdgeTypeOptions> =
        plan.options.type_options.iter().map(|(k, v)| (k.clone(), *v)).collect();
    let read = hopdb_import::read_into(&mut spill, spec, &plan, types, input_progress)?;
    let (groups, types, implicit_nodes, spill_bytes) = spill.finish()?;
    let read_seconds = started.elapsed().as_secs_f64();
    tracing::info!(
        rows = read.rows,
        spill_bytes,
        seconds = read_seconds,
        "cluster load: input read"
    );

    let (load, stale) = cluster.meta()?.begin_load(n)?;
    for prefix in stale {
        cluster.delete_prefix(&prefix);
    }
    let workers = opts.workers.clamp(1, groups.len().max(1));
    let (tally, next) = (Tally::default(), AtomicU32::new(0));
    // Each spilled type index: its name and its rank in name order.
    let mut by_name: Vec<&str> = types.iter().map(|(t, _)| t.as_str()).collect();
    by_name.sort_unstable();
    let type_names: Vec<(Arc<str>, u32)> = types
        .iter()
        .map(|(t, _)| {
            (
                Arc::from(t.as_str()),
                by_name.binary_search(&t.as_str()).unwrap_or(0) as u32,
            )
        })
        .collect();
    let results: Vec<Result<()>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let (groups, tally, next, type_names) = (&groups, &tally, &next, &type_names);
                s.spawn(move || -> Result<()> {
                    let mut meta = Metadata::connect(&cluster.cfg.metadata.postgres)?;
                    loop {
                        let g = next.fetch_add(1, Ordering::Relaxed) as usize;
                        let Some(group) = groups.get(g) else { return Ok(()) };
                        let mut parts = group.read(n, type_names)?;
                        let range = group.partitions.clone();
                        meta.claim_each(load, range.clone(), &mut |p| {
                            let rows = std::mem::take(&mut parts[(p - range.start) as usize]);
                            let (nodes, edges, counted) = rows.finish(p)?;
                            cluster.write_loaded(load, p, nodes, edges, counted, tally, opts)
                        })?;
                        // The group's file is not needed again.
                        let _ = std::fs::remove_file(&group.path);
                    }
                })
            })
            .collect();
        join_all(handles, "a load worker panicked")
    });
    for r in results {
        r?;
    }
    let report = cluster.finish_loaded(load, &types, tally, started, read_seconds, 1, workers)?;
    Ok(FileLoadReport {
        load: report,
        read,
        implicit_nodes,
        spill_bytes,
    })
}

/// Spill record tags.
const NODE: u8 = 0;
const EDGE: u8 = 1;

/// A key's identity for the checks of phase 1: 128 bits of XXH3, so two keys of any input a
/// machine can hold collide with negligible probability (and a collision is caught in phase
/// 2, failing the load, never loading a wrong graph).
type KeyHash = u128;

/// Keys are hashes already: the set uses them as they are.
#[derive(Default)]
struct PassThrough(u64);
impl std::hash::Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }
    fn write_u128(&mut self, v: u128) {
        self.0 = v as u64;
    }
}

/// Phase 1: the [`RowSink`] that appends each row's partition rows to its group's file.
struct Spill {
    partitions: u32,
    /// Partitions per group (the last group may have fewer).
    per: u32,
    files: Vec<(PathBuf, BufWriter<File>)>,
    /// Every key given so far (node rows and the endpoints edges created).
    keys: HashSet<KeyHash, BuildHasherDefault<PassThrough>>,
    missing: MissingEndpoints,
    declared: HashMap<String, EdgeTypeOptions>,
    default_type: EdgeTypeOptions,
    /// Edge types in order of first use: name, options.
    types: Vec<(String, EdgeTypeOptions)>,
    type_index: HashMap<String, u32>,
    /// Edge rows accepted: multi edges take `1 + ordinal` as id, as the store's bulk loader
    /// numbers them in a new store.
    edges: u64,
    rows: u64,
    implicit: u64,
    record: Vec<u8>,
    /// The first write that failed: the load fails with it at the end even if the importer
    /// skipped the row as bad.
    failed: Option<(PathBuf, std::io::Error)>,
}

impl Spill {
    fn new(partitions: u32, dir: &Path, opts: &hopdb_core::BulkOptions) -> Result<Spill> {
        let groups = partitions.min(MAX_GROUPS);
        let per = partitions.div_ceil(groups);
        let files = (0..partitions.div_ceil(per))
            .map(|g| {
                let path = dir.join(format!("group-{g:04}.rows"));
                File::create(&path)
                    .map(|f| (path.clone(), BufWriter::with_capacity(256 << 10, f)))
                    .map_err(|e| ClusterError::State(format!("cannot create {}: {e}", path.display())))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Spill {
            partitions,
            per,
            files,
            keys: HashSet::default(),
            missing: opts.missing_endpoints,
            declared: opts.type_options.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            default_type: opts.default_type,
            types: Vec::new(),
            type_index: HashMap::new(),
            edges: 0,
            rows: 0,
            implicit: 0,
            record: Vec::with_capacity(256),
            failed: None,
        })
    }

    /// Closes the files: the groups, the edge types, implicit nodes and bytes spilled.
    #[allow(clippy::type_complexity)]
    fn finish(mut self) -> Result<(Vec<Group>, Vec<(String, EdgeTypeOptions)>, u64, u64)> {
        if let Some((path, e)) = self.failed.take() {
            return Err(ClusterError::State(format!(
                "writing the load's spill file {}: {e}",
                path.display()
            )));
        }
        let mut groups = Vec::with_capacity(self.files.len());
        let mut bytes = 0;
        for (g, (path, w)) in self.files.into_iter().enumerate() {
            let f = w
                .into_inner()
                .map_err(|e| ClusterError::State(format!("writing the load's spill file {}: {e}", path.display())))?;
            bytes += f.metadata().map(|m| m.len()).unwrap_or(0);
            let start = g as u32 * self.per;
            groups.push(Group {
                path,
                partitions: start..(start + self.per).min(self.partitions),
            });
        }
        Ok((groups, self.types, self.implicit, bytes))
    }

    fn hash(enc: &[u8]) -> KeyHash {
        xxhash_rust::xxh3::xxh3_128(enc)
    }

    /// Appends the record built in `self.record` to the file of `enc`'s partition.
    fn emit(&mut self, enc: &[u8]) {
        let g = (partition_of_encoded(enc, self.partitions) / self.per) as usize;
        let (path, w) = &mut self.files[g];
        if self.failed.is_none() {
            if let Err(e) = w.write_all(&self.record) {
                self.failed = Some((path.clone(), e));
            }
        }
    }

    fn node_record(&mut self, enc: &[u8], labels: &[&str], props: &[u8]) {
        let r = &mut self.record;
        r.clear();
        r.push(NODE);
        put_bytes(r, enc);
        put_len(r, labels.len());
        for l in labels {
            put_bytes(r, l.as_bytes());
        }
        put_bytes(r, props);
        self.emit(enc);
    }

    #[allow(clippy::too_many_arguments)]
    fn edge_record(
        &mut self,
        node: &[u8],
        dir: RowDir,
        ty: u32,
        other: &[u8],
        id: u64,
        weight: Option<f64>,
        props: &[u8],
    ) {
        let r = &mut self.record;
        r.clear();
        r.push(EDGE);
        put_bytes(r, node);
        r.push(dir as u8);
        put_len(r, ty as usize);
        put_bytes(r, other);
        put_len(r, id as usize);
        match weight {
            Some(w) => {
                r.push(1);
                r.extend_from_slice(&w.to_le_bytes());
            }
            None => r.push(0),
        }
        put_bytes(r, props);
        self.emit(node);
    }

    /// The index of edge type `ty`, declaring it with this load's options on first use.
    fn type_of(&mut self, ty: &str) -> hopdb_core::Result<(u32, EdgeTypeOptions)> {
        if let Some(&i) = self.type_index.get(ty) {
            return Ok((i, self.types[i as usize].1));
        }
        codec::validate_name("relationship type", ty)?;
        let o = self.declared.get(ty).copied().unwrap_or(self.default_type);
        let i = self.types.len() as u32;
        self.types.push((ty.to_string(), o));
        self.type_index.insert(ty.to_string(), i);
        Ok((i, o))
    }
}

impl RowSink for Spill {
    fn add_node(&mut self, key: NodeKey, labels: &[&str], props: Props) -> hopdb_core::Result<()> {
        key.validate()?;
        codec::validate_props(&props)?;
        let mut own: Vec<&str> = Vec::with_capacity(labels.len());
        for l in labels {
            codec::validate_name("label", l)?;
            if !own.contains(l) {
                own.push(l);
            }
        }
        let enc = codec::encode_key(&key);
        let props = codec::encode_props(&props)?;
        if !self.keys.insert(Self::hash(&enc)) {
            return Err(StoreError::DuplicateNode { key: key.to_string() });
        }
        self.node_record(&enc, &own, &props);
        self.rows += 1;
        Ok(())
    }

    fn add_edge(
        &mut self,
        src: NodeKey,
        ty: &str,
        dst: NodeKey,
        weight: Option<f64>,
        props: Props,
    ) -> hopdb_core::Result<()> {
        src.validate()?;
        dst.validate()?;
        codec::validate_props(&props)?;
        if let Some(w) = weight {
            if !w.is_finite() {
                return Err(StoreError::Invalid {
                    what: "edge weight",
                    reason: format!("{w} is not a finite number"),
                });
            }
        }
        let (t, o) = self.type_of(ty)?;
        let (s, d) = (codec::encode_key(&src), codec::encode_key(&dst));
        let (hs, hd) = (Self::hash(&s), Self::hash(&d));
        for (key, h) in [(&src, hs), (&dst, hd)] {
            if !self.keys.contains(&h) && self.missing == MissingEndpoints::Reject {
                return Err(StoreError::NodeNotFound { key: key.to_string() });
            }
        }
        for (enc, h) in [(&s, hs), (&d, hd)] {
            if self.keys.insert(h) {
                self.implicit += 1;
                self.node_record(enc, &[], codec::EMPTY_PROPS);
            }
        }
        let props = codec::encode_props(&props)?;
        self.edges += 1;
        let id = if o.multi { self.edges } else { 0 };
        if o.undirected {
            self.edge_record(&s, RowDir::Undirected, t, &d, id, weight, &props);
            if s != d {
                self.edge_record(&d, RowDir::Undirected, t, &s, id, weight, &props);
            }
        } else {
            self.edge_record(&s, RowDir::Out, t, &d, id, weight, &props);
            self.edge_record(&d, RowDir::In, t, &s, id, weight, &props);
        }
        self.rows += 1;
        Ok(())
    }

    fn rows(&self) -> u64 {
        self.rows
    }
}

/// One spill file: the rows of a contiguous range of partitions, in input order.
struct Group {
    path: PathBuf,
    partitions: std::ops::Range<u32>,
}

/// The rows of one partition read back from its group, in input order.
#[derive(Default)]
struct PartitionRows {
    nodes: Vec<NodeRow>,
    edges: Vec<EdgeRow>,
    /// Each edge row's type's rank in name order (the partition files' sort order).
    ranks: Vec<u32>,
}

impl Group {
    /// Phase 2: the group's rows, by partition.
    fn read(&self, n: u32, types: &[(Arc<str>, u32)]) -> Result<Vec<PartitionRows>> {
        let data = std::fs::read(&self.path)
            .map_err(|e| ClusterError::State(format!("reading the load's spill file {}: {e}", self.path.display())))?;
        let corrupt = || ClusterError::State(format!("the load's spill file {} is damaged", self.path.display()));
        let mut parts: Vec<PartitionRows> = self.partitions.clone().map(|_| PartitionRows::default()).collect();
        let mut r = Reader::new(&data);
        while !r.done() {
            let tag = r.byte().ok_or_else(corrupt)?;
            let key = r.take().ok_or_else(corrupt)?.to_vec();
            let p = partition_of_encoded(&key, n);
            let rows = parts
                .get_mut(p.wrapping_sub(self.partitions.start) as usize)
                .ok_or_else(corrupt)?;
            match tag {
                NODE => {
                    let count = r.len().ok_or_else(corrupt)?;
                    let labels = (0..count)
                        .map(|_| r.take().and_then(|b| std::str::from_utf8(b).ok()).map(str::to_string))
                        .collect::<Option<Vec<_>>>()
                        .ok_or_else(corrupt)?;
                    let props = r.take().ok_or_else(corrupt)?.to_vec();
                    rows.nodes.push(NodeRow { key, labels, props });
                }
                EDGE => {
                    let dir = match r.byte().ok_or_else(corrupt)? {
                        0 => RowDir::Out,
                        1 => RowDir::In,
                        2 => RowDir::Undirected,
                        _ => return Err(corrupt()),
                    };
                    let (ty, rank) = types.get(r.len().ok_or_else(corrupt)?).ok_or_else(corrupt)?.clone();
                    let other = r.take().ok_or_else(corrupt)?.to_vec();
                    let id = r.len().ok_or_else(corrupt)? as u64;
                    let weight = match r.byte().ok_or_else(corrupt)? {
                        0 => None,
                        _ => Some(f64::from_bits(r.u64().ok_or_else(corrupt)?)),
                    };
                    let props = r.take().ok_or_else(corrupt)?.to_vec();
                    rows.edges.push(EdgeRow {
                        node: key,
                        dir,
                        ty,
                        other,
                        id,
                        weight,
                        props,
                    });
                    rows.ranks.push(rank);
                }
                _ => return Err(corrupt()),
            }
        }
        Ok(parts)
    }
}

impl PartitionRows {
    /// Sorted rows with each simple edge given more than once merged into one row (later
    /// properties win by name, the last weight given wins: the store's bulk-load rule), and
    /// the count of edges the partition holds.
    fn finish(mut self, p: u32) -> Result<(Vec<NodeRow>, Vec<EdgeRow>, u64)> {
        // A stable sort: a key's rows stay in input order.
        self.nodes.sort_by(|a, b| a.key.cmp(&b.key));
        if let Some(w) = self.nodes.windows(2).find(|w| w[0].key == w[1].key) {
            return Err(key_collision(p, &w[0].key));
        }
        // Edge rows sort on inline keys (the rows' own keys are on the heap: comparing them
        // chases two pointers, which made this sort most of a load's second phase), the
        // input position breaking ties, so the rows of one edge stay in input order for the
        // merge. The order is the partition file's, so its writer finds them sorted.
        let rows = std::mem::take(&mut self.edges);
        let mut keys: Vec<SortKey> = rows
            .iter()
            .zip(&self.ranks)
            .enumerate()
            .map(|(seq, (e, &rank))| SortKey {
                node: Prefix::of(&e.node),
                dir: e.dir as u8,
                rank,
                other: Prefix::of(&e.other),
                id: e.id,
                seq: seq as u32,
            })
            .collect();
        let same_edge = |a: &SortKey, b: &SortKey| {
            a.node
                .cmp(&b.node, || rows[a.seq as usize].node.cmp(&rows[b.seq as usize].node))
                .then(a.dir.cmp(&b.dir))
                .then(a.rank.cmp(&b.rank))
                .then_with(|| {
                    a.other
                        .cmp(&b.other, || rows[a.seq as usize].other.cmp(&rows[b.seq as usize].other))
                })
                .then(a.id.cmp(&b.id))
        };
        keys.sort_unstable_by(|a, b| same_edge(a, b).then(a.seq.cmp(&b.seq)));
        // Whether each row in order repeats the edge of the row before it.
        let repeats: Vec<bool> = std::iter::once(false)
            .chain(keys.windows(2).map(|w| same_edge(&w[0], &w[1]).is_eq()))
            .collect();
        let mut rows: Vec<Option<EdgeRow>> = rows.into_iter().map(Some).collect();
        let mut edges: Vec<EdgeRow> = Vec::with_capacity(rows.len());
        for (k, repeat) in keys.iter().zip(repeats) {
            let Some(e) = rows[k.seq as usize].take() else {
                continue;
            };
            match edges.last_mut() {
                Some(last) if repeat => merge_into(last, e)?,
                _ => edges.push(e),
            }
        }
        // Every row's node has its node row (phase 1 checked by hash; this is exact).
        let mut at = 0;
        for e in &edges {
            while at < self.nodes.len() && self.nodes[at].key < e.node {
                at += 1;
            }
            if self.nodes.get(at).is_none_or(|n| n.key != e.node) {
                return Err(key_collision(p, &e.node));
            }
        }
        let counted = edges.iter().filter(|e| e.counts_edge()).count() as u64;
        Ok((self.nodes, edges, counted))
    }
}

/// An edge row's sort key, inline.
struct SortKey {
    node: Prefix,
    dir: u8,
    rank: u32,
    other: Prefix,
    id: u64,
    seq: u32,
}

/// A byte string's first 16 bytes (zero-padded, big-endian) and its length: for strings of
/// at most 16 bytes (every integer key), ordering these orders the strings.
#[derive(Clone, Copy)]
struct Prefix(u128, u32);

impl Prefix {
    fn of(b: &[u8]) -> Prefix {
        let mut a = [0u8; 16];
        let n = b.len().min(16);
        a[..n].copy_from_slice(&b[..n]);
        Prefix(u128::from_be_bytes(a), b.len() as u32)
    }

    /// Orders the strings; `full` compares them whole when both are longer than 16 bytes
    /// and their prefixes are equal.
    fn cmp(&self, o: &Prefix, full: impl FnOnce() -> std::cmp::Ordering) -> std::cmp::Ordering {
        match self.0.cmp(&o.0) {
            std::cmp::Ordering::Equal if self.1 > 16 && o.1 > 16 => full(),
            std::cmp::Ordering::Equal => self.1.cmp(&o.1),
            other => other,
        }
    }
}

/// Phase 1's key check disagreed with the rows (two keys with one 128-bit hash).
fn key_collision(p: u32, key: &[u8]) -> ClusterError {
    let key = codec::decode_key(key).map_or_else(|_| format!("{key:?}"), |k| k.to_string());
    ClusterError::State(format!(
        "partition {p}: the rows of key {key} disagree with the load's key check (a hash collision); \
         load this input through a store instead (hopdb import, then hopdb cluster load STORE)"
    ))
}

/// Merges a later row of the same simple edge into `into`.
fn merge_into(into: &mut EdgeRow, later: EdgeRow) -> Result<()> {
    if later.weight.is_some() {
        into.weight = later.weight;
    }
    let mut props = codec::decode_props(&into.props)?;
    props.extend(codec::decode_props(&later.props)?);
    into.props = codec::encode_props(&props)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_simple_edges_merge_later_properties_over_earlier() {
        let ty: Arc<str> = Arc::from("T");
        let row = |props: Props, weight| EdgeRow {
            node: codec::encode_key(&NodeKey::Int(1)),
            dir: RowDir::Out,
            ty: ty.clone(),
            other: codec::encode_key(&NodeKey::Int(2)),
            id: 0,
            weight,
            props: codec::encode_props(&props).unwrap(),
        };
        let mut a = Props::new();
        a.insert("x".into(), hopdb_core::Value::Int(1));
        a.insert("y".into(), hopdb_core::Value::Int(1));
        let mut b = Props::new();
        b.insert("y".into(), hopdb_core::Value::Int(2));
        let rows = PartitionRows {
            ranks: vec![0, 0],
            nodes: vec![NodeRow {
                key: codec::encode_key(&NodeKey::Int(1)),
                labels: vec![],
                props: codec::EMPTY_PROPS.to_vec(),
            }],
            edges: vec![row(a, Some(3.0)), row(b, None)],
        };
        let (_, edges, counted) = rows.finish(0).unwrap();
        assert_eq!((edges.len(), counted), (1, 1));
        let props = codec::decode_props(&edges[0].props).unwrap();
        assert_eq!(props.get("x"), Some(&hopdb_core::Value::Int(1)));
        assert_eq!(props.get("y"), Some(&hopdb_core::Value::Int(2)));
        assert_eq!(edges[0].weight, Some(3.0));
    }

    #[test]
    fn rows_come_out_in_the_partition_files_order() {
        // Integer and long string keys, three types, both directions, repeats.
        let key = |i: u64| match i % 3 {
            0 => NodeKey::Int(i as i64 - 40),
            1 => NodeKey::Str(format!("a key longer than sixteen bytes {}", i % 7)),
            _ => NodeKey::Str(format!("k{i}")),
        };
        let types: Vec<Arc<str>> = ["b", "a", "c"].iter().map(|t| Arc::from(*t)).collect();
        let ranks = [1u32, 0, 2];
        let mut rows = PartitionRows::default();
        for i in 0..50u64 {
            rows.nodes.push(NodeRow {
                key: codec::encode_key(&key(i)),
                labels: vec![],
                props: codec::EMPTY_PROPS.to_vec(),
            });
        }
        rows.nodes.sort_by(|a, b| a.key.cmp(&b.key));
        rows.nodes.dedup_by(|a, b| a.key == b.key);
        let mut x = 7u64;
        for _ in 0..2000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let t = (x >> 60) as usize % 3;
            rows.edges.push(EdgeRow {
                node: codec::encode_key(&key((x >> 8) % 50)),
                dir: [RowDir::Out, RowDir::In, RowDir::Undirected][(x >> 20) as usize % 3],
                ty: types[t].clone(),
                other: codec::encode_key(&key((x >> 30) % 50)),
                id: 0,
                weight: None,
                props: codec::EMPTY_PROPS.to_vec(),
            });
            rows.ranks.push(ranks[t]);
        }
        let (_, edges, _) = rows.finish(0).unwrap();
        let order = |e: &EdgeRow| (e.node.clone(), e.dir, e.ty.clone(), e.other.clone(), e.id);
        assert!(edges.windows(2).all(|w| order(&w[0]) < order(&w[1])));
    }

    #[test]
    fn an_edge_row_without_its_node_fails_the_partition() {
        let rows = PartitionRows {
            ranks: vec![0],
            nodes: vec![],
            edges: vec![EdgeRow {
                node: codec::encode_key(&NodeKey::Int(1)),
                dir: RowDir::Out,
                ty: Arc::from("T"),
                other: codec::encode_key(&NodeKey::Int(2)),
                id: 0,
                weight: None,
                props: Vec::new(),
            }],
        };
        let e = rows
            .finish(7)
            .expect_err("a row without its node is refused")
            .to_string();
        assert!(e.contains("partition 7") && e.contains("key 1"), "{e}");
    }
}
