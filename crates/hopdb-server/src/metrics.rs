//! The server's Prometheus metrics: one [`prometheus::Registry`] per server, written by the
//! Bolt backend and the HTTP query API as statements run, and by a scrape of `/metrics` for
//! the figures that are read when asked for (open connections, plan-cache size, store sizes).
//!
//! | metric | type | labels |
//! | --- | --- | --- |
//! | `hopdb_query_duration_seconds` | histogram | `protocol` (`bolt`, `http`), `kind` (`read`, `write`, `schema`, `other`) |
//! | `hopdb_query_errors_total` | counter | `protocol`, `class` (`ClientError`, `TransientError`, `DatabaseError`), `code` |
//! | `hopdb_plan_cache_hits_total`, `hopdb_plan_cache_misses_total` | counter | |
//! | `hopdb_plan_cache_entries` | gauge | |
//! | `hopdb_bolt_connections`, `hopdb_bolt_max_connections` | gauge | |
//! | `hopdb_bolt_open_transactions` | gauge | `mode` (`read`, `write`) |
//! | `hopdb_http_requests_total` | counter | `endpoint` (`health`, `metrics`, `query`, `other`), `status` |
//! | `hopdb_store_nodes`, `hopdb_store_relationships` | gauge | |
//! | `hopdb_rocksdb_sst_bytes`, `_live_data_bytes`, `_memtable_bytes`, `_block_cache_usage_bytes`, `_block_cache_pinned_bytes`, `_table_readers_bytes`, `_sst_files`, `_wal_bytes` | gauge | |
//! | `hopdb_rocksdb_compactions_running`, `_compaction_pending_bytes`, `_flushes_running`, `_immutable_memtables` | gauge | |
//! | `hopdb_rocksdb_block_cache_hits_total`, `_misses_total`, `hopdb_rocksdb_row_cache_hits_total`, `_misses_total` | counter | (absent when the store keeps no cache statistics) |
//! | `hopdb_key_index_bytes` | gauge | |
//!
//! A statement's kind comes from its cached plan, as the Bolt summary's `type`: `r` is
//! `read`, `w` and `rw` are `write`, `s` is `schema`; `other` is a statement that failed
//! before it had a plan (a syntax error). The request count per kind is the histogram's
//! `_count`.

use std::time::Duration;

use hopdb_bolt::QueryType;
use hopdb_cypher::QueryEngine;
use hopdb_database::GraphRead;
use prometheus::{
    HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry, TextEncoder,
};

/// Latency buckets, in seconds: 50 µs (a key lookup) to 10 s.
const LATENCY_BUCKETS: [f64; 17] = [
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// The protocol a statement came in by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Protocol {
    /// Bolt (`RUN`).
    Bolt,
    /// The HTTP query API.
    Http,
}

impl Protocol {
    fn label(self) -> &'static str {
        match self {
            Protocol::Bolt => "bolt",
            Protocol::Http => "http",
        }
    }

    fn index(self) -> usize {
        match self {
            Protocol::Bolt => 0,
            Protocol::Http => 1,
        }
    }
}

/// A statement's kind, for the latency histograms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Read only.
    Read,
    /// Writes (with or without reads).
    Write,
    /// Schema commands.
    Schema,
    /// No plan: the statement failed to compile.
    Other,
}

impl Kind {
    const ALL: [Kind; 4] = [Kind::Read, Kind::Write, Kind::Schema, Kind::Other];

    fn label(self) -> &'static str {
        match self {
            Kind::Read => "read",
            Kind::Write => "write",
            Kind::Schema => "schema",
            Kind::Other => "other",
        }
    }

    fn index(self) -> usize {
        match self {
            Kind::Read => 0,
            Kind::Write => 1,
            Kind::Schema => 2,
            Kind::Other => 3,
        }
    }
}

impl From<QueryType> for Kind {
    fn from(t: QueryType) -> Self {
        match t {
            QueryType::Read => Kind::Read,
            QueryType::Write | QueryType::ReadWrite => Kind::Write,
            QueryType::Schema => Kind::Schema,
        }
    }
}

/// The HTTP endpoint a request went to, for `hopdb_http_requests_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Endpoint {
    /// `/health`, `/health/live`, `/health/ready`.
    Health,
    /// `/metrics`.
    Metrics,
    /// `/db/{name}/query/v2`.
    Query,
    /// The explorer's page and its assets (`/browser/...`).
    Browser,
    /// Anything else (404, 405).
    Other,
}

impl Endpoint {
    fn label(self) -> &'static str {
        match self {
            Endpoint::Health => "health",
            Endpoint::Metrics => "metrics",
            Endpoint::Query => "query",
            Endpoint::Browser => "browser",
            Endpoint::Other => "other",
        }
    }
}

/// Keeps `hopdb_bolt_open_transactions` up while an explicit transaction is open: counted up
/// when made, down when dropped, however the transaction ends.
pub(crate) struct OpenTxGauge(IntGauge);

impl Drop for OpenTxGauge {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// Every metric of one server. The hot-path series (latency per protocol and kind, the plan
/// cache counters, open transactions) are resolved once, here, so a statement pays only
/// atomic adds.
pub(crate) struct Metrics {
    registry: Registry,
    /// `[protocol][kind]`.
    latency: [[prometheus::Histogram; 4]; 2],
    errors: IntCounterVec,
    plan_hits: IntCounter,
    plan_misses: IntCounter,
    plan_entries: IntGauge,
    open_tx_read: IntGauge,
    open_tx_write: IntGauge,
    connections: IntGauge,
    http_requests: IntCounterVec,
    store: StoreGauges,
}

/// Figures read from the store at each scrape.
struct StoreGauges {
    nodes: IntGauge,
    relationships: IntGauge,
    sst_bytes: IntGauge,
    live_data_bytes: IntGauge,
    memtable_bytes: IntGauge,
    block_cache_usage_bytes: IntGauge,
    block_cache_pinned_bytes: IntGauge,
    table_readers_bytes: IntGauge,
    key_index_bytes: IntGauge,
    sst_files: IntGauge,
    wal_bytes: IntGauge,
    compactions_running: IntGauge,
    compaction_pending_bytes: IntGauge,
    flushes_running: IntGauge,
    immutable_memtables: IntGauge,
    /// RocksDB's own tickers, copied at each scrape (the store counts; these follow).
    caches: [CacheCounter; 4],
}

/// A counter that mirrors one of the store's cumulative counts: registered on the first
/// scrape that has the count, so a store without statistics shows no series rather than a
/// misleading zero.
struct CacheCounter {
    name: &'static str,
    help: &'static str,
    counter: std::sync::Mutex<Option<IntCounter>>,
}

impl CacheCounter {
    fn new(name: &'static str, help: &'static str) -> CacheCounter {
        CacheCounter {
            name,
            help,
            counter: std::sync::Mutex::new(None),
        }
    }

    /// Brings the counter up to the store's `count` (a counter only goes up; a concurrent
    /// scrape is serialised by the lock, so no increment is applied twice).
    fn follow(&self, registry: &Registry, count: Option<u64>) {
        let Some(count) = count else { return };
        let Ok(mut slot) = self.counter.lock() else { return };
        if slot.is_none() {
            match counter(registry, self.name, self.help) {
                Ok(c) => *slot = Some(c),
                Err(e) => {
                    tracing::warn!(error = %e, metric = self.name, "registering a cache counter failed");
                    return;
                }
            }
        }
        if let Some(c) = slot.as_ref() {
            c.inc_by(count.saturating_sub(c.get()));
        }
    }
}

fn gauge(registry: &Registry, name: &str, help: &str) -> prometheus::Result<IntGauge> {
    let g = IntGauge::new(name, help)?;
    registry.register(Box::new(g.clone()))?;
    Ok(g)
}

fn counter(registry: &Registry, name: &str, help: &str) -> prometheus::Result<IntCounter> {
    let c = IntCounter::new(name, help)?;
    registry.register(Box::new(c.clone()))?;
    Ok(c)
}

fn as_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl Metrics {
    /// A registry with every series the server reports.
    pub(crate) fn new(max_connections: usize) -> prometheus::Result<Metrics> {
        let registry = Registry::new();
        let latency_vec = HistogramVec::new(
            HistogramOpts::new(
                "hopdb_query_duration_seconds",
                "Time to run a statement (compile, execute, commit an auto-commit write; rows are materialized), by protocol and query kind",
            )
            .buckets(LATENCY_BUCKETS.to_vec()),
            &["protocol", "kind"],
        )?;
        registry.register(Box::new(latency_vec.clone()))?;
        let series = |p: Protocol| -> prometheus::Result<[prometheus::Histogram; 4]> {
            let [a, b, c, d] = Kind::ALL.map(|k| latency_vec.get_metric_with_label_values(&[p.label(), k.label()]));
            Ok([a?, b?, c?, d?])
        };
        let latency = [series(Protocol::Bolt)?, series(Protocol::Http)?];

        let errors = IntCounterVec::new(
            Opts::new(
                "hopdb_query_errors_total",
                "Statements and transaction operations that failed, by protocol and Neo4j status code",
            ),
            &["protocol", "class", "code"],
        )?;
        registry.register(Box::new(errors.clone()))?;

        let open_tx = IntGaugeVec::new(
            Opts::new(
                "hopdb_bolt_open_transactions",
                "Explicit Bolt transactions open now (write ones hold the store's writer slot)",
            ),
            &["mode"],
        )?;
        registry.register(Box::new(open_tx.clone()))?;
        let open_tx_read = open_tx.get_metric_with_label_values(&["read"])?;
        let open_tx_write = open_tx.get_metric_with_label_values(&["write"])?;

        let http_requests = IntCounterVec::new(
            Opts::new(
                "hopdb_http_requests_total",
                "HTTP requests answered, by endpoint and status",
            ),
            &["endpoint", "status"],
        )?;
        registry.register(Box::new(http_requests.clone()))?;

        let max = gauge(
            &registry,
            "hopdb_bolt_max_connections",
            "Bolt connections served at once at most",
        )?;
        max.set(i64::try_from(max_connections).unwrap_or(i64::MAX));
        let r = &registry;
        let store = StoreGauges {
            nodes: gauge(r, "hopdb_store_nodes", "Live nodes in the store")?,
            relationships: gauge(r, "hopdb_store_relationships", "Live relationships in the store")?,
            sst_bytes: gauge(r, "hopdb_rocksdb_sst_bytes", "Total size of RocksDB's SST files, all column families")?,
            live_data_bytes: gauge(
                r,
                "hopdb_rocksdb_live_data_bytes",
                "RocksDB's estimate of the live data in the SST files; the rest of hopdb_rocksdb_sst_bytes is space compaction can reclaim",
            )?,
            memtable_bytes: gauge(
                r,
                "hopdb_rocksdb_memtable_bytes",
                "Bytes held by RocksDB's memtables (active and immutable), all column families",
            )?,
            block_cache_usage_bytes: gauge(
                r,
                "hopdb_rocksdb_block_cache_usage_bytes",
                "Bytes in use in RocksDB's shared block cache",
            )?,
            block_cache_pinned_bytes: gauge(
                r,
                "hopdb_rocksdb_block_cache_pinned_bytes",
                "Of the block cache's bytes, those pinned (in use by readers, or pinned index partitions)",
            )?,
            table_readers_bytes: gauge(
                r,
                "hopdb_rocksdb_table_readers_bytes",
                "Memory the open SST files' readers hold outside the block cache; grows with the number of files",
            )?,
            key_index_bytes: gauge(
                r,
                "hopdb_key_index_bytes",
                "Bytes held by the in-memory key index (node key -> id), bounded by its share of the memory budget",
            )?,
            sst_files: gauge(r, "hopdb_rocksdb_sst_files", "SST files over all levels and column families")?,
            wal_bytes: gauge(r, "hopdb_rocksdb_wal_bytes", "Size of the write-ahead log files")?,
            compactions_running: gauge(r, "hopdb_rocksdb_compactions_running", "Compactions running now")?,
            compaction_pending_bytes: gauge(
                r,
                "hopdb_rocksdb_compaction_pending_bytes",
                "Bytes RocksDB estimates compaction must rewrite to bring every level within its target",
            )?,
            flushes_running: gauge(r, "hopdb_rocksdb_flushes_running", "Memtable flushes running now")?,
            immutable_memtables: gauge(
                r,
                "hopdb_rocksdb_immutable_memtables",
                "Full memtables waiting to be flushed",
            )?,
            caches: [
                CacheCounter::new(
                    "hopdb_rocksdb_block_cache_hits_total",
                    "Block-cache lookups (data, index and filter blocks) answered from the cache since the store was opened",
                ),
                CacheCounter::new(
                    "hopdb_rocksdb_block_cache_misses_total",
                    "Block-cache lookups that read the block from disk since the store was opened",
                ),
                CacheCounter::new(
                    "hopdb_rocksdb_row_cache_hits_total",
                    "Point reads answered by RocksDB's row cache since the store was opened",
                ),
                CacheCounter::new(
                    "hopdb_rocksdb_row_cache_misses_total",
                    "Point reads the row cache could not answer since the store was opened",
                ),
            ],
        };
        Ok(Metrics {
            latency,
            errors,
            plan_hits: counter(
                r,
                "hopdb_plan_cache_hits_total",
                "Statements whose plan was in the plan cache",
            )?,
            plan_misses: counter(
                r,
                "hopdb_plan_cache_misses_total",
                "Statements compiled because their plan was not in the plan cache",
            )?,
            plan_entries: gauge(r, "hopdb_plan_cache_entries", "Plans in the plan cache")?,
            open_tx_read,
            open_tx_write,
            connections: gauge(r, "hopdb_bolt_connections", "Bolt connections open now")?,
            http_requests,
            store,
            registry,
        })
    }

    /// A statement ran (or failed to compile: `kind` is `None`) in `elapsed`.
    pub(crate) fn query(&self, protocol: Protocol, kind: Option<Kind>, elapsed: Duration) {
        let kind = kind.unwrap_or(Kind::Other);
        if let Some(h) = self.latency.get(protocol.index()).and_then(|p| p.get(kind.index())) {
            h.observe(elapsed.as_secs_f64());
        }
    }

    /// A plan-cache lookup: whether the plan was there.
    pub(crate) fn plan_cache(&self, cached: bool) {
        if cached {
            self.plan_hits.inc();
        } else {
            self.plan_misses.inc();
        }
    }

    /// A failure with the Neo4j status `code` was sent.
    pub(crate) fn error(&self, protocol: Protocol, code: &str) {
        // `Neo.ClientError.Statement.SyntaxError`: the class is the second part.
        let class = code.split('.').nth(1).unwrap_or("Unknown");
        if let Ok(c) = self
            .errors
            .get_metric_with_label_values(&[protocol.label(), class, code])
        {
            c.inc();
        }
    }

    /// Counts an explicit Bolt transaction as open until the returned guard is dropped.
    pub(crate) fn open_transaction(&self, write: bool) -> OpenTxGauge {
        let g = if write { &self.open_tx_write } else { &self.open_tx_read };
        g.inc();
        OpenTxGauge(g.clone())
    }

    /// An HTTP request was answered with `status`.
    pub(crate) fn http_request(&self, endpoint: Endpoint, status: u16) {
        let status = status.to_string();
        if let Ok(c) = self
            .http_requests
            .get_metric_with_label_values(&[endpoint.label(), status.as_str()])
        {
            c.inc();
        }
    }

    /// Refreshes the figures read on demand and renders every metric in Prometheus' text
    /// format (0.0.4).
    pub(crate) fn render(&self, engine: &QueryEngine, connections: usize) -> String {
        self.connections.set(i64::try_from(connections).unwrap_or(i64::MAX));
        self.plan_entries
            .set(i64::try_from(engine.plan_cache().len()).unwrap_or(i64::MAX));
        let graph = engine.database().graph();
        // One read of the engine's figures serves every storage gauge; the counts are the
        // maintained counters.
        let memory = graph.memory_usage();
        let (s, st) = (&self.store, &memory.storage);
        s.sst_bytes.set(as_i64(st.sst_bytes));
        s.live_data_bytes.set(as_i64(st.live_data_bytes));
        s.memtable_bytes.set(as_i64(st.memtable_bytes));
        s.block_cache_usage_bytes.set(as_i64(st.block_cache_bytes));
        s.block_cache_pinned_bytes.set(as_i64(st.block_cache_pinned_bytes));
        s.table_readers_bytes.set(as_i64(st.table_readers_bytes));
        s.sst_files.set(as_i64(st.sst_files));
        s.wal_bytes.set(as_i64(st.wal_bytes));
        s.compactions_running.set(as_i64(st.compactions_running));
        s.compaction_pending_bytes.set(as_i64(st.compaction_pending_bytes));
        s.flushes_running.set(as_i64(st.flushes_running));
        s.immutable_memtables.set(as_i64(st.immutable_memtables));
        s.key_index_bytes.set(as_i64(memory.key_index_bytes));
        let counts = [
            st.block_cache_hits,
            st.block_cache_misses,
            st.row_cache_hits,
            st.row_cache_misses,
        ];
        for (c, n) in s.caches.iter().zip(counts) {
            c.follow(&self.registry, n);
        }
        // A cluster's query node counts the cluster's graph (its local store is empty).
        let counted = match engine.remote() {
            Some(g) => g.node_count().and_then(|n| Ok((n, g.edge_count()?))),
            None => graph.node_count().and_then(|n| Ok((n, graph.edge_count()?))),
        };
        match counted {
            Ok((nodes, edges)) => {
                s.nodes.set(as_i64(nodes));
                s.relationships.set(as_i64(edges));
            }
            Err(e) => tracing::warn!(error = %e, "reading the store's counts for /metrics failed"),
        }
        let mut out = String::new();
        if let Err(e) = TextEncoder::new().encode_utf8(&self.registry.gather(), &mut out) {
            tracing::warn!(error = %e, "encoding the metrics failed");
        }
        out
    }
}

/// The content type of [`Metrics::render`]'s text.
pub(crate) const CONTENT_TYPE: &str = prometheus::TEXT_FORMAT;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use hopdb_database::Database;

    #[test]
    fn every_series_renders() {
        let m = Metrics::new(7).unwrap();
        m.query(Protocol::Bolt, Some(Kind::Read), Duration::from_micros(80));
        m.query(Protocol::Http, None, Duration::from_millis(3));
        m.plan_cache(true);
        m.plan_cache(false);
        m.plan_cache(false);
        m.error(Protocol::Bolt, "Neo.ClientError.Statement.SyntaxError");
        let tx = m.open_transaction(true);
        m.http_request(Endpoint::Health, 200);
        let db = Database::in_memory();
        db.graph()
            .upsert_edge("a", "R", "b", None, Default::default(), Default::default())
            .unwrap();
        let engine = QueryEngine::new(db.clone());
        let text = m.render(&engine, 3);
        let key_index = db.graph().memory_usage().key_index_bytes;
        assert!(key_index > 0, "two keys written, the key index holds nothing");
        for line in [
            "hopdb_query_duration_seconds_count{kind=\"read\",protocol=\"bolt\"} 1",
            "hopdb_query_duration_seconds_count{kind=\"other\",protocol=\"http\"} 1",
            "hopdb_query_duration_seconds_bucket{kind=\"read\",protocol=\"bolt\",le=\"0.0001\"} 1",
            "hopdb_query_errors_total{class=\"ClientError\",code=\"Neo.ClientError.Statement.SyntaxError\",protocol=\"bolt\"} 1",
            "hopdb_plan_cache_hits_total 1",
            "hopdb_plan_cache_misses_total 2",
            "hopdb_bolt_open_transactions{mode=\"write\"} 1",
            "hopdb_bolt_connections 3",
            "hopdb_bolt_max_connections 7",
            "hopdb_http_requests_total{endpoint=\"health\",status=\"200\"} 1",
            "hopdb_store_nodes 2",
            "hopdb_rocksdb_memtable_bytes 0",
            "hopdb_rocksdb_table_readers_bytes 0",
            &format!("hopdb_key_index_bytes {key_index}"),
        ] {
            assert!(text.contains(line), "no `{line}` in\n{text}");
        }
        drop(tx);
        assert!(m
            .render(&engine, 0)
            .contains("hopdb_bolt_open_transactions{mode=\"write\"} 0"));
    }
}
