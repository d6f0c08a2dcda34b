//! The cluster's configuration file (TOML), shared by every query node and command:
//!
//! ```toml
//! partitions = 1024                      # fixed at `hopdb cluster init`
//!
//! [cold]
//! url = "file:///var/lib/hopdb/cold"     # a local directory
//! # url = "s3://bucket/prefix"           # S3 or an S3-compatible server, with:
//! # endpoint = "http://127.0.0.1:9000"   #   not AWS (path-style requests)
//! # region = "us-east-1"
//! # allow_http = true                    #   an endpoint without TLS
//! # access_key_id = "..."                #   else AWS_ACCESS_KEY_ID and the rest of the
//! # secret_access_key = "..."            #   AWS_* environment, as the AWS tools read it
//! # timeout_ms = 30000                   #   per request, then an error
//! # retries = 3                          #   of a failed or timed-out request
//! # url = "memory:"                      # in this handle only (tests)
//! row_group_rows = 16384                 # rows per Parquet row group of new generations: a
//!                                        #   point read fetches the groups holding its nodes
//!
//! [metadata]
//! postgres = "host=127.0.0.1 port=5432 user=hopdb dbname=hopdb"
//! refresh_ms = 100                       # how stale other query nodes' writes may be seen
//!
//! [cache]
//! memory_mb = 512                        # decoded partitions kept by each query node
//!
//! [hot]                                  # optional: the Redis Cluster hot tier
//! redis = ["redis://127.0.0.1:7000", "redis://127.0.0.1:7001"]   # any of its nodes
//! budget_mb = 1024                       # what `hopdb cluster promote --auto` fills
//! promote_on_miss = true                 # a node read from the cold tier is promoted
//! timeout_ms = 500                       # a slower Redis answer falls back to the cold tier
//!
//! [writes]
//! compact_after_ops = 1000               # a write compacts partitions with this many pending
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{ClusterError, Result};
use crate::partition::{DEFAULT_PARTITIONS, MAX_PARTITIONS};

/// A cluster's configuration.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterConfig {
    /// The number of partitions (used only by `init`; afterwards the metadata's count rules).
    #[serde(default = "default_partitions")]
    pub partitions: u32,
    /// Where the partition files live.
    pub cold: ColdConfig,
    /// Where the partition metadata lives.
    pub metadata: MetadataConfig,
    /// The query node's partition cache.
    #[serde(default)]
    pub cache: CacheConfig,
    /// The hot tier (none: every read is answered from the cold tier and the cache).
    #[serde(default)]
    pub hot: Option<HotConfig>,
    /// Writes.
    #[serde(default)]
    pub writes: WritesConfig,
}

/// Writes (decision 0043).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WritesConfig {
    /// A write that leaves a partition with at least this many pending operations compacts
    /// it before returning (after it is acknowledged: a failed compaction is logged, the
    /// write stands); 0 leaves compaction to `hopdb cluster compact`.
    #[serde(default = "default_compact_after")]
    pub compact_after_ops: u64,
}

impl Default for WritesConfig {
    fn default() -> Self {
        WritesConfig {
            compact_after_ops: default_compact_after(),
        }
    }
}

fn default_compact_after() -> u64 {
    1000
}

/// The hot tier: a Redis Cluster holding the slices of hot nodes (a cache, never the only copy).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HotConfig {
    /// Seed nodes of the Redis Cluster (`redis://host:port`); the client finds the rest.
    pub redis: Vec<String>,
    /// The bytes of node slices `promote --auto` keeps in Redis, in MiB.
    #[serde(default = "default_hot_mb")]
    pub budget_mb: u64,
    /// Whether a node read from the cold tier is written to the hot tier in the background.
    #[serde(default = "default_true")]
    pub promote_on_miss: bool,
    /// How long a Redis request may take before the read falls back to the cold tier.
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: u64,
}

fn default_hot_mb() -> u64 {
    1024
}

fn default_true() -> bool {
    true
}

fn default_timeout_ms() -> u64 {
    500
}

/// The cold tier: an object store.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColdConfig {
    /// `file:///absolute/dir`, `s3://bucket[/prefix]` or `memory:`.
    pub url: String,
    /// S3: the endpoint of an S3-compatible server (path-style requests); AWS when absent.
    #[serde(default)]
    pub endpoint: Option<String>,
    /// S3: the region (else `AWS_REGION` / `AWS_DEFAULT_REGION`, else us-east-1).
    #[serde(default)]
    pub region: Option<String>,
    /// S3: allow an `http://` endpoint.
    #[serde(default)]
    pub allow_http: bool,
    /// S3: the access key id (else `AWS_ACCESS_KEY_ID`).
    #[serde(default)]
    pub access_key_id: Option<String>,
    /// S3: the secret access key (else `AWS_SECRET_ACCESS_KEY`).
    #[serde(default)]
    pub secret_access_key: Option<String>,
    /// S3: how long one request may take (and connecting, at most 5 s of it).
    #[serde(default = "default_request_timeout_ms")]
    pub timeout_ms: u64,
    /// S3: how many times a failed or timed-out request is retried (with backoff).
    #[serde(default = "default_retries")]
    pub retries: usize,
    /// Rows per Parquet row group in the generations written from now on: a point read of a
    /// partition not cached fetches only the groups holding its nodes, so smaller groups
    /// read less per miss, at the price of a larger footer (read once per generation).
    #[serde(default = "default_row_group_rows")]
    pub row_group_rows: usize,
}

fn default_row_group_rows() -> usize {
    16 * 1024
}

fn default_request_timeout_ms() -> u64 {
    30_000
}

fn default_retries() -> usize {
    3
}

/// The metadata database.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetadataConfig {
    /// A libpq-style connection string (`host=... port=... user=... dbname=...`) or URL.
    pub postgres: String,
    /// How often a query node re-reads which versions are live, in milliseconds: a write or
    /// compaction by another query node is seen at most this late (a query node sees its own
    /// writes at once). 0 re-reads before every read.
    #[serde(default = "default_refresh_ms")]
    pub refresh_ms: u64,
}

fn default_refresh_ms() -> u64 {
    100
}

/// The query node's cache of decoded partitions.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    /// Its budget in MiB.
    #[serde(default = "default_cache_mb")]
    pub memory_mb: u64,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            memory_mb: default_cache_mb(),
        }
    }
}

fn default_partitions() -> u32 {
    DEFAULT_PARTITIONS
}

fn default_cache_mb() -> u64 {
    512
}

/// Where the cold tier is, parsed from [`ColdConfig::url`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColdLocation {
    /// A local directory.
    Directory(PathBuf),
    /// Process memory (tests).
    Memory,
    /// An S3 bucket, objects under `prefix` (empty: the bucket's root).
    S3 {
        /// The bucket.
        bucket: String,
        /// The key prefix, without slashes at either end.
        prefix: String,
    },
}

impl ClusterConfig {
    /// Reads and checks the file at `path`.
    pub fn from_file(path: &Path) -> Result<ClusterConfig> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ClusterError::Config(format!("cannot read {}: {e}", path.display())))?;
        Self::parse(&text).map_err(|e| match e {
            ClusterError::Config(m) => ClusterError::Config(format!("{}: {m}", path.display())),
            other => other,
        })
    }

    /// Parses and checks a configuration's text.
    pub fn parse(text: &str) -> Result<ClusterConfig> {
        let cfg: ClusterConfig = toml::from_str(text).map_err(|e| ClusterError::Config(e.to_string()))?;
        if cfg.partitions == 0 || cfg.partitions > MAX_PARTITIONS {
            return Err(ClusterError::Config(format!(
                "partitions = {}: must be between 1 and {MAX_PARTITIONS}",
                cfg.partitions
            )));
        }
        cfg.cold.location()?;
        if cfg.cold.row_group_rows == 0 {
            return Err(ClusterError::Config(
                "cold.row_group_rows = 0: a row group holds at least one row".into(),
            ));
        }
        if let Some(hot) = &cfg.hot {
            if hot.redis.is_empty() {
                return Err(ClusterError::Config(
                    "hot.redis is empty: list at least one node of the Redis Cluster".into(),
                ));
            }
            for url in &hot.redis {
                if !url.starts_with("redis://") && !url.starts_with("rediss://") {
                    return Err(ClusterError::Config(format!(
                        "hot.redis: {url:?} is not a redis:// URL"
                    )));
                }
            }
        }
        Ok(cfg)
    }
}

impl ColdConfig {
    /// The location the URL names.
    pub fn location(&self) -> Result<ColdLocation> {
        let url = self.url.trim();
        if url == "memory:" {
            return Ok(ColdLocation::Memory);
        }
        if let Some(path) = url.strip_prefix("file://") {
            let path = PathBuf::from(path);
            if !path.is_absolute() {
                return Err(ClusterError::Config(format!(
                    "cold.url = {url:?}: a file URL needs an absolute path (file:///dir)"
                )));
            }
            return Ok(ColdLocation::Directory(path));
        }
        if let Some(rest) = url.strip_prefix("s3://") {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(ClusterError::Config(format!(
                    "cold.url = {url:?}: no bucket (s3://bucket/prefix)"
                )));
            }
            return Ok(ColdLocation::S3 {
                bucket: bucket.to_string(),
                prefix: prefix.trim_matches('/').to_string(),
            });
        }
        Err(ClusterError::Config(format!(
            "cold.url = {url:?}: expected file:///absolute/dir, s3://bucket/prefix or memory:"
        )))
    }
}
