//! Snapshots of the whole graph on object storage, and restoring one: a snapshot is a copy of
//! every partition's live generation (`pPPPP/nodes.parquet`, `pPPPP/edges.parquet`) and a
//! `manifest.json` (partition count, edge types, each partition's counts and object sizes),
//! at any URL the cold tier accepts (`file:///dir`, `s3://bucket/prefix`; S3 settings from the
//! `[cold]` section). Restoring copies the files in as a new generation of every partition and
//! swaps them all in one transaction, as a load does: readers see the old graph or the
//! restored one, and a failed restore leaves the live graph as it was.

use std::sync::Arc;
use std::time::Instant;

use futures::stream::{self, StreamExt, TryStreamExt};
use object_store::path::Path;
use object_store::ObjectStore;
use serde::{Deserialize, Serialize};

use crate::cold::generation_prefix;
use crate::config::ColdConfig;
use crate::error::{objects, ClusterError, Result};
use crate::meta::Written;
use crate::{object_store_for, Cluster};

/// The manifest format this version writes and reads.
const MANIFEST_FORMAT: u32 = 1;
const FILES: [&str; 2] = ["nodes.parquet", "edges.parquet"];

/// What a snapshot or a restore did.
#[derive(Debug, Clone, PartialEq)]
pub struct CopyReport {
    /// Partitions copied.
    pub partitions: usize,
    /// Nodes in them.
    pub nodes: u64,
    /// Edges in them.
    pub edges: u64,
    /// Bytes copied.
    pub bytes: u64,
    /// Wall time.
    pub seconds: f64,
    /// Copies in flight at once.
    pub workers: usize,
    /// The generation made live (restore only).
    pub generation: Option<u64>,
}

impl CopyReport {
    /// Bytes copied per second per worker.
    pub fn bytes_per_second_per_worker(&self) -> f64 {
        self.bytes as f64 / self.seconds.max(1e-9) / self.workers.max(1) as f64
    }
}

#[derive(Serialize, Deserialize)]
struct Manifest {
    format: u32,
    partitions: u32,
    edge_types: Vec<ManifestType>,
    rows: Vec<ManifestRow>,
}

#[derive(Serialize, Deserialize)]
struct ManifestType {
    name: String,
    undirected: bool,
    multi: bool,
}

#[derive(Serialize, Deserialize)]
struct ManifestRow {
    partition: u32,
    vertex_count: u64,
    edge_count: u64,
    /// Sizes of nodes.parquet and edges.parquet, checked on restore.
    sizes: [u64; 2],
}

fn snapshot_prefix(p: u32) -> String {
    format!("p{p:04}")
}

impl Cluster {
    /// The object store at `url`, with the cold tier's S3 settings.
    fn store_at(&self, url: &str) -> Result<Arc<dyn ObjectStore>> {
        let cfg = ColdConfig {
            url: url.to_string(),
            ..self.cfg.cold.clone()
        };
        if let crate::ColdLocation::Directory(dir) = cfg.location()? {
            std::fs::create_dir_all(&dir)
                .map_err(|e| ClusterError::Config(format!("cannot create {}: {e}", dir.display())))?;
        }
        object_store_for(&cfg)
    }

    /// Copies every partition's live generation to `url` with `workers` copies in flight,
    /// then writes the manifest (last: a snapshot without one is incomplete). Pending writes
    /// are compacted first, so the snapshot holds every write acknowledged before it began.
    pub fn snapshot(&self, url: &str, workers: usize) -> Result<CopyReport> {
        let started = Instant::now();
        let to = self.store_at(url)?;
        self.compact(None)?;
        let status = self.status()?;
        let types = self.edge_types()?;
        let loaded: Vec<_> = status.iter().filter(|s| s.object_key.is_some()).collect();
        if loaded.is_empty() {
            return Err(ClusterError::State(
                "nothing to snapshot: the cluster was never loaded".into(),
            ));
        }
        let workers = workers.max(1);
        let copies = loaded.iter().flat_map(|s| {
            let from = s.object_key.clone().unwrap_or_default();
            FILES.map(|f| (format!("{from}/{f}"), format!("{}/{f}", snapshot_prefix(s.partition))))
        });
        let sizes = self.copy_all(&self.objects, &to, copies.collect(), workers, "snapshot")?;
        let rows: Vec<ManifestRow> = loaded
            .iter()
            .zip(sizes.chunks(2))
            .map(|(s, z)| ManifestRow {
                partition: s.partition,
                vertex_count: s.vertex_count,
                edge_count: s.edge_count,
                sizes: [z[0], z[1]],
            })
            .collect();
        let manifest = Manifest {
            format: MANIFEST_FORMAT,
            partitions: self.partitions,
            edge_types: types
                .iter()
                .map(|(n, o)| ManifestType {
                    name: n.clone(),
                    undirected: o.undirected,
                    multi: o.multi,
                })
                .collect(),
            rows,
        };
        let json = serde_json::to_vec_pretty(&manifest)
            .map_err(|e| ClusterError::State(format!("writing the snapshot manifest: {e}")))?;
        self.rt
            .block_on(to.put(&Path::from("manifest.json"), json.into()))
            .map_err(objects(format!("writing {url}/manifest.json")))?;
        Ok(CopyReport {
            partitions: manifest.rows.len(),
            nodes: manifest.rows.iter().map(|r| r.vertex_count).sum(),
            edges: manifest.rows.iter().map(|r| r.edge_count).sum(),
            bytes: sizes.iter().sum(),
            seconds: started.elapsed().as_secs_f64(),
            workers,
            generation: None,
        })
    }

    /// Replaces the live graph with the snapshot at `url`: its files are copied in as a new
    /// generation of every partition (checked against the manifest's sizes), then swapped in
    /// at once with its edge types. Partitions the snapshot lacks become empty.
    pub fn restore(&self, url: &str, workers: usize) -> Result<CopyReport> {
        let started = Instant::now();
        let from = self.store_at(url)?;
        let raw = self
            .rt
            .block_on(async { from.get(&Path::from("manifest.json")).await?.bytes().await })
            .map_err(objects(format!("reading {url}/manifest.json (is it a snapshot?)")))?;
        let m: Manifest =
            serde_json::from_slice(&raw).map_err(|e| ClusterError::State(format!("{url}/manifest.json: {e}")))?;
        if m.format != MANIFEST_FORMAT {
            return Err(ClusterError::State(format!(
                "{url}: snapshot format {}, this HopDB reads {MANIFEST_FORMAT}",
                m.format
            )));
        }
        if m.partitions != self.partitions {
            return Err(ClusterError::State(format!(
                "{url}: the snapshot has {} partitions, this cluster {}; a node's partition depends on \
                 the count, so it cannot be restored here",
                m.partitions, self.partitions
            )));
        }
        let (load, stale) = self.meta()?.begin_load(self.partitions)?;
        for prefix in stale {
            self.delete_prefix(&prefix);
        }
        let workers = workers.max(1);
        let copies = m.rows.iter().flat_map(|r| {
            let to = generation_prefix(r.partition, load);
            FILES.map(|f| (format!("{}/{f}", snapshot_prefix(r.partition)), format!("{to}/{f}")))
        });
        let sizes = self.copy_all(&from, &self.objects, copies.collect(), workers, "restore")?;
        for (r, z) in m.rows.iter().zip(sizes.chunks(2)) {
            if z != r.sizes {
                return Err(ClusterError::Corrupt {
                    object: format!("{url}/{}", snapshot_prefix(r.partition)),
                    why: format!("sizes {z:?}, the manifest says {:?}", r.sizes),
                });
            }
        }
        let mut written: Vec<(u32, Written)> = m
            .rows
            .iter()
            .map(|r| {
                (
                    r.partition,
                    Written {
                        object_key: generation_prefix(r.partition, load),
                        vertex_count: r.vertex_count,
                        edge_count: r.edge_count,
                    },
                )
            })
            .collect();
        // Partitions the snapshot lacks (never loaded when it was taken) get an empty generation.
        for p in 0..self.partitions {
            if !m.rows.iter().any(|r| r.partition == p) {
                let e = crate::cold::encode_partition(Vec::new(), Vec::new(), self.cfg.cold.row_group_rows)?;
                let prefix = generation_prefix(p, load);
                self.put(&format!("{prefix}/nodes.parquet"), e.nodes)?;
                self.put(&format!("{prefix}/edges.parquet"), e.edges)?;
                written.push((
                    p,
                    Written {
                        object_key: prefix,
                        vertex_count: 0,
                        edge_count: 0,
                    },
                ));
            }
        }
        let types: Vec<(String, hopdb_core::EdgeTypeOptions)> = m
            .edge_types
            .iter()
            .map(|t| {
                (
                    t.name.clone(),
                    hopdb_core::EdgeTypeOptions {
                        undirected: t.undirected,
                        multi: t.multi,
                    },
                )
            })
            .collect();
        let replaced = {
            let mut meta = self.meta()?;
            meta.record_written(load, &written)?;
            meta.finish_load(load, &types)?
        };
        for prefix in replaced {
            self.delete_prefix(&prefix);
        }
        self.refresh()?;
        Ok(CopyReport {
            partitions: m.rows.len(),
            nodes: m.rows.iter().map(|r| r.vertex_count).sum(),
            edges: m.rows.iter().map(|r| r.edge_count).sum(),
            bytes: sizes.iter().sum(),
            seconds: started.elapsed().as_secs_f64(),
            workers,
            generation: Some(load),
        })
    }

    /// Copies objects `(from, to)` between stores, `workers` at once; their sizes, in order.
    fn copy_all(
        &self,
        src: &Arc<dyn ObjectStore>,
        dst: &Arc<dyn ObjectStore>,
        copies: Vec<(String, String)>,
        workers: usize,
        doing: &str,
    ) -> Result<Vec<u64>> {
        self.rt.block_on(
            stream::iter(copies)
                .map(|(from, to)| {
                    let (src, dst) = (src.clone(), dst.clone());
                    async move {
                        let data = async { src.get(&Path::from(from.as_str())).await?.bytes().await }
                            .await
                            .map_err(objects(format!("{doing}: reading {from}")))?;
                        let n = data.len() as u64;
                        dst.put(&Path::from(to.as_str()), data.into())
                            .await
                            .map_err(objects(format!("{doing}: writing {to}")))?;
                        Ok::<u64, ClusterError>(n)
                    }
                })
                .buffered(workers)
                .try_collect(),
        )
    }
}
