//! HopDB beyond one machine (issue 24), first tier: a partitioned graph whose source of truth is
//! Parquet on object storage (the cold tier, [`cold`]) with its partition metadata in PostgreSQL
//! ([`meta`]). Nodes are spread over a fixed number of partitions by a hash of their key
//! ([`partition_of`]); each partition holds its nodes and both directions of their edges, so a
//! hop reads one partition per node it leaves, batched per hop. Query nodes ([`Cluster`]) are
//! stateless and interchangeable: each reads the live generations from the metadata and keeps
//! the partitions it touched in a memory-bounded cache.
//!
//! ```no_run
//! use hopdb_cluster::{Cluster, ClusterConfig, LoadOptions};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let cfg = ClusterConfig::parse(r#"
//!     [cold]
//!     url = "file:///var/lib/hopdb/cold"
//!     [metadata]
//!     postgres = "host=127.0.0.1 port=5432 user=hopdb dbname=hopdb"
//! "#)?;
//! Cluster::init(&cfg)?;
//! let cluster = Cluster::open(cfg)?;
//! let store = hopdb_core::Graph::open("/path/to/store")?;
//! cluster.load_from(&store, &LoadOptions::default())?;
//! let two_hops = cluster.k_hop(&["alice".into()], 2, hopdb_core::Direction::Out)?;
//! # Ok(()) }
//! ```

mod access;
mod bucket;
mod cold;
mod compact;
mod config;
mod delta;
mod error;
mod graph;
mod hot;
mod load;
mod load_files;
mod meta;
mod partition;
mod promote;
mod ranged;
mod read;
mod slice;
mod snapshot;
mod txn;
mod upkeep;
mod write;

use std::sync::{Arc, Mutex, MutexGuard};

use object_store::ObjectStore;

pub use compact::CompactReport;
pub use config::{CacheConfig, ClusterConfig, ColdConfig, ColdLocation, HotConfig, MetadataConfig, WritesConfig};
pub use error::{ClusterError, Result};
pub use graph::ClusterGraph;
pub use hot::HotStats;
pub use load::{LoadOptions, LoadReport};
pub use load_files::FileLoadReport;
pub use meta::PartitionStatus;
pub use partition::{partition_of, partition_of_encoded, DEFAULT_PARTITIONS, MAX_PARTITIONS};
pub use promote::{EvictReport, PromoteReport};
pub use read::CacheStats;
pub use snapshot::CopyReport;
pub use txn::ClusterTxn;
pub use write::{declare_multi, Mutation, WriteReport};

use meta::{Live, Metadata};

/// Per partition, what is live; `None` where nothing was loaded or written.
type LiveGenerations = Vec<Option<Live>>;

/// A query node's handle on a cluster: loads, reads and status.
pub struct Cluster {
    cfg: ClusterConfig,
    partitions: u32,
    objects: Arc<dyn ObjectStore>,
    /// object_store is asynchronous; HopDB's callers are not.
    rt: tokio::runtime::Runtime,
    meta: Mutex<Metadata>,
    /// What is live in each partition.
    live: Arc<upkeep::View>,
    cache: Mutex<read::Cache>,
    /// The footers of the generations read by ranged reads.
    footers: ranged::FooterCache,
    /// Reads of each partition since they were last added to its temperature.
    access: Arc<access::Access>,
    /// The Redis Cluster hot tier, if configured.
    hot: Option<Arc<hot::HotTier>>,
    /// The thread that keeps `live` current (none with `refresh_ms = 0`); dropped, it stops.
    upkeep: Option<upkeep::Upkeep>,
    /// Numbers of the cluster's sequence taken ahead, for created keys and edge ids.
    numbers: Mutex<Vec<u64>>,
}

impl Cluster {
    /// Creates the metadata (schema, settings, one row per partition) for the configuration.
    /// Returns false when it existed already with the same settings; refuses other settings.
    pub fn init(cfg: &ClusterConfig) -> Result<bool> {
        let created = Metadata::connect(&cfg.metadata.postgres)?.init(cfg.partitions, cfg.cold.url.trim())?;
        if let ColdLocation::Directory(dir) = cfg.cold.location()? {
            std::fs::create_dir_all(&dir)
                .map_err(|e| ClusterError::Config(format!("cannot create the cold tier {}: {e}", dir.display())))?;
        }
        Ok(created)
    }

    /// Connects to the cluster the configuration names.
    pub fn open(cfg: ClusterConfig) -> Result<Cluster> {
        let mut meta = Metadata::connect(&cfg.metadata.postgres)?;
        let partitions = meta.settings(cfg.cold.url.trim())?;
        let objects = object_store_for(&cfg.cold)?;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("hopdb-cluster-io")
            .enable_all()
            .build()
            .map_err(|e| ClusterError::Config(format!("cannot start the I/O runtime: {e}")))?;
        let live = Arc::new(upkeep::View::new(meta.live(partitions)?));
        let access = Arc::new(access::Access::new(partitions));
        let every = std::time::Duration::from_millis(cfg.metadata.refresh_ms);
        let upkeep = (!every.is_zero())
            .then(|| {
                upkeep::Upkeep::start(
                    cfg.metadata.postgres.clone(),
                    partitions,
                    every,
                    live.clone(),
                    access.clone(),
                )
            })
            .flatten();
        let budget = cfg.cache.memory_mb.saturating_mul(1 << 20);
        let hot = cfg.hot.clone().map(|h| Arc::new(hot::HotTier::new(h)));
        Ok(Cluster {
            cfg,
            partitions,
            objects,
            rt,
            meta: Mutex::new(meta),
            live,
            cache: Mutex::new(read::Cache::new(budget)),
            footers: ranged::FooterCache::default(),
            access,
            hot,
            upkeep,
            numbers: Mutex::new(Vec::new()),
        })
    }

    /// A number of the cluster's sequence no one else has: taken 64 at a time, so creating
    /// nodes without keys and parallel edges costs a round trip per 64, not one each.
    pub(crate) fn fresh_number(&self) -> Result<u64> {
        let mut held = self.numbers.lock().unwrap_or_else(|e| e.into_inner());
        if held.is_empty() {
            *held = self.meta()?.take_numbers(64)?;
            held.reverse();
        }
        held.pop()
            .ok_or_else(|| ClusterError::State("the sequence gave no numbers".into()))
    }

    /// The partition count.
    pub fn partitions(&self) -> u32 {
        self.partitions
    }

    /// Loads the whole graph of `store` as a new generation of every partition and makes it
    /// live at once (readers see the old graph or the new one, never a mix).
    pub fn load_from(&self, store: &hopdb_core::Graph, opts: &LoadOptions) -> Result<LoadReport> {
        load::load_from_store(self, store, opts)
    }

    /// Loads the graph the import files of `spec` hold (every input `hopdb import` reads, with
    /// its checks and bad-entry policy) as a new generation of every partition, with no store
    /// in between; `input` reports the reading of the files, `opts.progress` the partitions.
    pub fn load_files(
        &self,
        spec: &hopdb_import::ImportSpec,
        opts: &LoadOptions,
        input: &dyn hopdb_import::Progress,
    ) -> Result<FileLoadReport> {
        load_files::load_from_files(self, spec, opts, input)
    }

    /// Every partition's metadata row.
    pub fn status(&self) -> Result<Vec<PartitionStatus>> {
        self.meta()?.status()
    }

    /// The live graph's edge types.
    pub fn edge_types(&self) -> Result<Vec<(String, hopdb_core::EdgeTypeOptions)>> {
        self.meta()?.edge_types()
    }

    /// Re-reads which versions are live (loads, writes and compactions by other query
    /// nodes) at once; a background thread does it every `[metadata] refresh_ms`.
    pub fn refresh(&self) -> Result<()> {
        let live = self.meta()?.live(self.partitions)?;
        self.live.install_all(live);
        Ok(())
    }

    /// Re-reads which versions of `parts` are live (what a write transaction reads must be
    /// the latest committed, not the view of up to `refresh_ms` ago).
    pub(crate) fn refresh_partitions(&self, parts: &[u32]) -> Result<()> {
        let fresh = self.meta()?.live_of(parts)?;
        self.note_live(&fresh);
        Ok(())
    }

    /// What is live; with `refresh_ms = 0` (no upkeep thread), re-read first. While
    /// PostgreSQL is unreachable, reads go on with the last view.
    fn current(&self) -> Arc<LiveGenerations> {
        if self.upkeep.is_none() {
            if let Err(e) = self.refresh() {
                tracing::warn!(error = %e, "cannot re-read the live versions; reading with the last ones");
            }
        }
        self.live.get()
    }

    /// Records newer states of some partitions (read or written by this query node).
    fn note_live(&self, fresh: &[(u32, Live)]) {
        self.live.install(fresh.iter().cloned());
    }

    fn meta(&self) -> Result<MutexGuard<'_, Metadata>> {
        let mut m = self.meta.lock().unwrap_or_else(|e| e.into_inner());
        m.revive()?;
        Ok(m)
    }
}

/// The object store the cold tier's configuration names.
fn object_store_for(cold: &ColdConfig) -> Result<Arc<dyn ObjectStore>> {
    Ok(match cold.location()? {
        ColdLocation::Memory => Arc::new(object_store::memory::InMemory::new()),
        ColdLocation::Directory(dir) => Arc::new(
            // Cleanup removes a generation's directory with its last file.
            object_store::local::LocalFileSystem::new_with_prefix(&dir)
                .map_err(|e| ClusterError::Config(format!("cold tier {}: {e}", dir.display())))?
                .with_automatic_cleanup(true),
        ),
        ColdLocation::S3 { bucket, prefix } => {
            let mut b = object_store::aws::AmazonS3Builder::from_env().with_bucket_name(&bucket);
            if let Some(e) = &cold.endpoint {
                b = b.with_endpoint(e).with_virtual_hosted_style_request(false);
            }
            if let Some(r) = &cold.region {
                b = b.with_region(r);
            }
            if let Some(k) = &cold.access_key_id {
                b = b.with_access_key_id(k);
            }
            if let Some(k) = &cold.secret_access_key {
                b = b.with_secret_access_key(k);
            }
            let timeout = std::time::Duration::from_millis(cold.timeout_ms.max(1));
            let client = object_store::ClientOptions::new()
                .with_timeout(timeout)
                .with_connect_timeout(timeout.min(std::time::Duration::from_secs(5)));
            let retry = object_store::RetryConfig {
                max_retries: cold.retries,
                retry_timeout: timeout * (cold.retries as u32 + 1),
                ..object_store::RetryConfig::default()
            };
            let s3 = b
                .with_client_options(client)
                .with_retry(retry)
                .with_allow_http(cold.allow_http)
                .build()
                .map_err(|e| ClusterError::Config(format!("cold tier s3://{bucket}: {e}")))?;
            if prefix.is_empty() {
                Arc::new(s3)
            } else {
                Arc::new(object_store::prefix::PrefixStore::new(s3, prefix.as_str()))
            }
        }
    })
}
