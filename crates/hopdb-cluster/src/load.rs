//! Loading a whole graph from an embedded store into the cluster: a new generation of every
//! partition, written by parallel workers that claim partitions in the metadata, then swapped
//! in at once.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use hopdb_core::{codec, Direction, Graph, GraphRead, NodeKey, NodeRecord, ReadTxn};

use crate::cold::{encode_partition, generation_prefix, EdgeRow, NodeRow, RowDir};
use crate::error::{objects, ClusterError, Result};
use crate::meta::{Metadata, Written};
use crate::partition::partition_of_encoded;
use crate::Cluster;

/// How a load runs.
pub struct LoadOptions<'a> {
    /// Parallel workers, each with its own metadata connection (default: the cores); as many
    /// threads read the store.
    pub workers: usize,
    /// Memory for the rows of the partitions being built (default 1 GiB). A store whose rows
    /// need more is read in several passes, each building a range of partitions.
    pub memory_mb: u64,
    /// Called after each partition is written with (partitions done, partitions in all).
    pub progress: Option<&'a (dyn Fn(usize, usize) + Sync)>,
    /// Where a load from import files spills its rows between reading and writing (default:
    /// the system's temporary directory); it needs about 30 bytes per edge end.
    pub scratch: Option<std::path::PathBuf>,
}

impl Default for LoadOptions<'_> {
    fn default() -> Self {
        LoadOptions {
            workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
            memory_mb: 1024,
            progress: None,
            scratch: None,
        }
    }
}

/// What a load did.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadReport {
    /// The generation it made live.
    pub generation: u64,
    /// Partitions written.
    pub partitions: usize,
    /// Nodes written.
    pub nodes: u64,
    /// Edges written (each once).
    pub edges: u64,
    /// Bytes of Parquet written to the object store.
    pub bytes: u64,
    /// Passes over the store.
    pub passes: u32,
    /// Wall time, seconds.
    pub seconds: f64,
    /// Of which reading the store.
    pub scan_seconds: f64,
    /// Workers that ran.
    pub workers: usize,
}

impl LoadReport {
    /// Bytes written per second per worker, over the time spent writing.
    pub fn bytes_per_second_per_worker(&self) -> f64 {
        self.bytes as f64 / (self.seconds - self.scan_seconds).max(1e-9) / self.workers.max(1) as f64
    }
}

/// Decoded rows take up to this many times the store's table files (measured on the S=1
/// knowledge graph: 109 MB of table files, a load peaking at 1.0 GB RSS in one pass); the
/// pass count uses it.
const ROWS_PER_TABLE_BYTE: u64 = 8;

/// The rows of one partition, built by a scan, taken by the worker that writes it.
#[derive(Default)]
struct Bucket {
    nodes: Vec<NodeRow>,
    edges: Vec<EdgeRow>,
    /// Edges counted in this partition (`EdgeRow::counts_edge`).
    counted: u64,
}

impl Bucket {
    fn push(&mut self, r: EdgeRow) {
        self.counted += u64::from(r.counts_edge());
        self.edges.push(r);
    }
}

pub(crate) fn load_from_store(cluster: &Cluster, g: &Graph, opts: &LoadOptions) -> Result<LoadReport> {
    let started = Instant::now();
    let n = cluster.partitions;
    // One snapshot for the whole load, so the cluster gets one consistent state of the store.
    let snap = g.read();
    let edge_types = snap.edge_types()?;
    let types: Vec<(String, hopdb_core::EdgeTypeOptions)> = edge_types
        .iter()
        .map(|(t, _)| (t.name.to_string(), t.options))
        .collect();
    let undirected: Vec<Arc<str>> = edge_types
        .into_iter()
        .filter(|(t, _)| t.options.undirected)
        .map(|(t, _)| t.name)
        .collect();
    let table_bytes = g.stats()?.storage.sst_bytes;
    let budget = opts.memory_mb.max(1).saturating_mul(1 << 20);
    let passes = (table_bytes.saturating_mul(ROWS_PER_TABLE_BYTE).div_ceil(budget)).clamp(1, u64::from(n)) as u32;

    let (load, stale) = cluster.meta()?.begin_load(n)?;
    for prefix in stale {
        cluster.delete_prefix(&prefix);
    }
    tracing::info!(generation = load, partitions = n, passes, "cluster load started");
    let workers = opts.workers.clamp(1, n as usize);
    let tally = Tally::default();
    let mut scan_seconds = 0.0;
    for pass in 0..passes {
        let range =
            (n as u64 * pass as u64 / passes as u64) as u32..(n as u64 * (pass as u64 + 1) / passes as u64) as u32;
        let scan_started = Instant::now();
        let buckets: Vec<Mutex<Bucket>> = scan(&snap, n, range.clone(), &undirected, workers)?
            .into_iter()
            .map(Mutex::new)
            .collect();
        scan_seconds += scan_started.elapsed().as_secs_f64();
        let results: Vec<Result<usize>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    let (buckets, range, tally) = (&buckets, range.clone(), &tally);
                    s.spawn(move || -> Result<usize> {
                        let mut meta = Metadata::connect(&cluster.cfg.metadata.postgres)?;
                        meta.claim_each(load, range.clone(), &mut |p| {
                            let b = std::mem::take(
                                &mut *buckets[(p - range.start) as usize]
                                    .lock()
                                    .unwrap_or_else(|e| e.into_inner()),
                            );
                            cluster.write_loaded(load, p, b.nodes, b.edges, b.counted, tally, opts)
                        })
                    })
                })
                .collect();
            join_all(handles, "a load worker panicked")
        });
        for r in results {
            r?;
        }
    }
    cluster.finish_loaded(load, &types, tally, started, scan_seconds, passes, workers)
}

/// Counters of a running load, shared by its workers.
#[derive(Default)]
pub(crate) struct Tally {
    done: AtomicUsize,
    nodes: AtomicU64,
    edges: AtomicU64,
    bytes: AtomicU64,
}

/// Joins scoped threads, a panicked one failing with `why`.
pub(crate) fn join_all<T>(handles: Vec<std::thread::ScopedJoinHandle<'_, Result<T>>>, why: &str) -> Vec<Result<T>> {
    handles
        .into_iter()
        .map(|h| h.join().unwrap_or_else(|_| Err(ClusterError::State(why.into()))))
        .collect()
}

impl Cluster {
    /// Encodes one partition's rows (`counted` of its edges count toward the graph's, see
    /// [`EdgeRow::counts_edge`]) and writes them to the cold tier as generation `load`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn write_loaded(
        &self,
        load: u64,
        p: u32,
        nodes: Vec<NodeRow>,
        edges: Vec<EdgeRow>,
        counted: u64,
        tally: &Tally,
        opts: &LoadOptions,
    ) -> Result<Written> {
        let encoded = encode_partition(nodes, edges, self.cfg.cold.row_group_rows)?;
        let prefix = generation_prefix(p, load);
        let size = (encoded.nodes.len() + encoded.edges.len()) as u64;
        self.put(&format!("{prefix}/nodes.parquet"), encoded.nodes)?;
        self.put(&format!("{prefix}/edges.parquet"), encoded.edges)?;
        tally.nodes.fetch_add(encoded.node_count, Ordering::Relaxed);
        tally.edges.fetch_add(counted, Ordering::Relaxed);
        tally.bytes.fetch_add(size, Ordering::Relaxed);
        let d = tally.done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(f) = opts.progress {
            f(d, self.partitions as usize);
        }
        Ok(Written {
            object_key: prefix,
            vertex_count: encoded.node_count,
            edge_count: counted,
        })
    }

    /// Makes load `load` live, deletes the generations it replaced, and reports it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn finish_loaded(
        &self,
        load: u64,
        types: &[(String, hopdb_core::EdgeTypeOptions)],
        tally: Tally,
        started: Instant,
        scan_seconds: f64,
        passes: u32,
        workers: usize,
    ) -> Result<LoadReport> {
        let replaced = self.meta()?.finish_load(load, types)?;
        for prefix in replaced {
            self.delete_prefix(&prefix);
        }
        self.refresh()?;
        let report = LoadReport {
            generation: load,
            partitions: tally.done.into_inner(),
            nodes: tally.nodes.into_inner(),
            edges: tally.edges.into_inner(),
            bytes: tally.bytes.into_inner(),
            passes,
            seconds: started.elapsed().as_secs_f64(),
            scan_seconds,
            workers,
        };
        tracing::info!(?report, "cluster load finished");
        Ok(report)
    }
}

/// One pass over the snapshot: the rows of the partitions in `range`, each node with every edge
/// of it in both directions. `threads` threads share the partitions (thread t the partitions t,
/// t + threads, ...); each walks every node in the store's own order (sequential reads) and
/// lists the edges of its own, which is where the time goes.
fn scan(snap: &ReadTxn, n: u32, range: Range<u32>, undirected: &[Arc<str>], threads: usize) -> Result<Vec<Bucket>> {
    let threads = threads.clamp(1, range.len().max(1));
    let shares: Vec<Result<Vec<Bucket>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (snap, range) = (snap.clone(), range.clone());
                s.spawn(move || scan_share(&snap, n, range, undirected, t, threads))
            })
            .collect();
        join_all(handles, "a load scan thread panicked")
    });
    let mut shares = shares.into_iter().collect::<Result<Vec<_>>>()?;
    Ok((0..range.len())
        .map(|i| std::mem::take(&mut shares[i % threads][i]))
        .collect())
}

/// Thread `t` of `threads` of a [`scan`]: the buckets of its partitions (the others empty).
fn scan_share(
    snap: &ReadTxn,
    n: u32,
    range: Range<u32>,
    undirected: &[Arc<str>],
    t: usize,
    threads: usize,
) -> Result<Vec<Bucket>> {
    let mut buckets: Vec<Bucket> = (range.start..range.end).map(|_| Bucket::default()).collect();
    let mut failed = None;
    snap.for_each_node_record(None, &mut |r| {
        let enc = codec::encode_key(&r.key);
        let p = partition_of_encoded(&enc, n);
        if !range.contains(&p) || (p - range.start) as usize % threads != t {
            return true;
        }
        match node_rows(snap, &r, enc, undirected, &mut buckets[(p - range.start) as usize]) {
            Ok(()) => true,
            Err(e) => {
                failed = Some(e);
                false
            }
        }
    })?;
    match failed {
        Some(e) => Err(e),
        None => Ok(buckets),
    }
}

/// The node's row and a row per edge end of it.
fn node_rows(
    snap: &impl GraphRead,
    r: &NodeRecord,
    enc: Vec<u8>,
    undirected: &[Arc<str>],
    b: &mut Bucket,
) -> Result<()> {
    let key = &r.key;
    for e in snap.edges(key, Direction::Both, None, None)? {
        let props = codec::encode_props(&e.props)?;
        let row = |dir: RowDir, other: &NodeKey| EdgeRow {
            node: enc.clone(),
            dir,
            ty: e.ty.clone(),
            other: codec::encode_key(other),
            id: e.id,
            weight: e.weight,
            props: props.clone(),
        };
        if undirected.contains(&e.ty) {
            let other = if e.src == *key { &e.dst } else { &e.src };
            b.push(row(RowDir::Undirected, other));
        } else if e.src == *key && e.dst == *key {
            b.push(row(RowDir::Out, key));
            b.push(row(RowDir::In, key));
        } else if e.src == *key {
            b.push(row(RowDir::Out, &e.dst));
        } else {
            b.push(row(RowDir::In, &e.src));
        }
    }
    b.nodes.push(NodeRow {
        key: enc,
        labels: r.labels.iter().map(|l| l.to_string()).collect(),
        props: r.encoded_props().to_vec(),
    });
    Ok(())
}

impl Cluster {
    /// Writes one object, waiting for the store to acknowledge it.
    pub(crate) fn put(&self, key: &str, data: bytes::Bytes) -> Result<()> {
        let path = object_store::path::Path::from(key);
        self.rt
            .block_on(self.objects.put(&path, data.into()))
            .map(|_| ())
            .map_err(objects(format!("writing {key}")))
    }

    /// Deletes a generation's objects; a failure is logged, not returned (they are garbage).
    pub(crate) fn delete_prefix(&self, prefix: &str) {
        for name in ["nodes.parquet", "edges.parquet"] {
            let path = object_store::path::Path::from(format!("{prefix}/{name}"));
            match self.rt.block_on(self.objects.delete(&path)) {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => tracing::warn!(object = %path, error = %e, "could not delete a replaced partition file"),
            }
        }
    }
}
