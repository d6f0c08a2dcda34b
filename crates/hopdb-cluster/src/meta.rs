//! Partition metadata in PostgreSQL: which generation of each partition is live and where its
//! objects are, the partition's counts, temperature and last access (the tiered-storage memo's
//! `partition_metadata`), the edge types, and the loads in progress, whose partitions workers
//! claim with `FOR UPDATE SKIP LOCKED`.
//!
//! A load writes new generations beside the live ones and swaps them all in one transaction,
//! so readers see the old graph or the new one, never a mix. A worker holds its claim inside a
//! transaction: if it dies, PostgreSQL drops the lock and another worker takes the partition.

use hopdb_core::EdgeTypeOptions;
use postgres::{Client, GenericClient, NoTls};

use crate::cold::generation_prefix;
use crate::error::{meta, ClusterError, Result};

/// The metadata schema this version reads and writes (2: content versions and the write
/// delta; 3: `hot_buckets`, upgraded from 2 on connecting: decision 0050).
const FORMAT: &str = "3";

/// What format 3 adds to format 2 (an older hot tier's entries stay readable: no buckets).
const UPGRADE_FROM_2: &str = "
ALTER TABLE partition_metadata ADD COLUMN IF NOT EXISTS hot_buckets bigint NOT NULL DEFAULT 0;
ALTER TABLE partition_metadata ADD COLUMN IF NOT EXISTS hot_keys bigint NOT NULL DEFAULT 0;
UPDATE partition_metadata SET hot_keys = hot_nodes;
UPDATE hopdb_cluster SET value = '3' WHERE key = 'format';
";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS hopdb_cluster (
    key   text PRIMARY KEY,
    value text NOT NULL
);
CREATE TABLE IF NOT EXISTS partition_metadata (
    partition_id integer PRIMARY KEY,
    query_node   text,
    vertex_count bigint NOT NULL DEFAULT 0,
    edge_count   bigint NOT NULL DEFAULT 0,
    temperature  double precision NOT NULL DEFAULT 0,
    last_access  timestamptz,
    object_key   text,
    generation   bigint NOT NULL DEFAULT 0,
    -- A number of the generation sequence taken at every change of the partition's content
    -- (load, write, compaction): caches and hot-tier keys name it, so they are never stale.
    version      bigint NOT NULL DEFAULT 0,
    -- Writes with sequence numbers up to base_seq are in the generation's objects; those
    -- after it, up to delta_seq, are in partition_delta.
    base_seq     bigint NOT NULL DEFAULT 0,
    delta_seq    bigint NOT NULL DEFAULT 0,
    delta_ops    bigint NOT NULL DEFAULT 0,
    hot_version  bigint NOT NULL DEFAULT 0,
    hot_nodes    bigint NOT NULL DEFAULT 0,
    hot_bytes    bigint NOT NULL DEFAULT 0,
    -- The buckets small nodes of hot_version were packed in (0: each node under its own key).
    hot_buckets  bigint NOT NULL DEFAULT 0,
    -- The Redis keys it wrote (buckets and nodes under their own keys).
    hot_keys     bigint NOT NULL DEFAULT 0
);
-- The write delta: each acknowledged write's changes to a partition, in order, until a
-- compaction folds them into a new generation.
CREATE TABLE IF NOT EXISTS partition_delta (
    partition_id integer NOT NULL,
    seq          bigint NOT NULL,
    n            integer NOT NULL,
    op           bytea NOT NULL,
    PRIMARY KEY (partition_id, seq, n)
);
CREATE TABLE IF NOT EXISTS edge_types (
    name       text PRIMARY KEY,
    undirected boolean NOT NULL,
    multi      boolean NOT NULL
);
CREATE TABLE IF NOT EXISTS partition_loads (
    load_id      bigint NOT NULL,
    partition_id integer NOT NULL,
    state        text NOT NULL DEFAULT 'pending',
    object_key   text,
    vertex_count bigint NOT NULL DEFAULT 0,
    edge_count   bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (load_id, partition_id)
);
CREATE SEQUENCE IF NOT EXISTS hopdb_generation;
";

/// One partition's row, as `hopdb cluster status` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionStatus {
    /// The partition.
    pub partition: u32,
    /// Its live generation (0: never loaded).
    pub generation: u64,
    /// The prefix of the live generation's objects.
    pub object_key: Option<String>,
    /// Nodes in it.
    pub vertex_count: u64,
    /// Edges counted here: directed edges at their source, undirected ones at their smaller key.
    pub edge_count: u64,
    /// Its temperature: reads, each decayed by a half-life of an hour.
    pub temperature: f64,
    /// When a query node last reported reads of it.
    pub last_access: Option<std::time::SystemTime>,
    /// The query node that last reported reads of it (`host:pid`).
    pub query_node: Option<String>,
    /// Its content version: changes with every load, write and compaction.
    pub version: u64,
    /// Writes waiting in the delta for the next compaction (operations on this partition).
    pub delta_ops: u64,
    /// The content version whose every node was last promoted to the hot tier (0: none). The
    /// partition is hot while this equals `version`.
    pub hot_version: u64,
    /// Nodes and slice bytes that promotion wrote.
    pub hot_nodes: u64,
    /// The bytes of the node slices that promotion wrote.
    pub hot_bytes: u64,
    /// The buckets promotion packed small nodes in (`crate::bucket`).
    pub hot_buckets: u64,
    /// The Redis keys promotion wrote (the buckets used, and the nodes under their own keys).
    pub hot_keys: u64,
}

impl PartitionStatus {
    /// Whether every node of the live generation was promoted to the hot tier.
    pub fn is_hot(&self) -> bool {
        self.generation != 0 && self.hot_version == self.version
    }
}

/// What a query node knows of one loaded partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Live {
    /// The content version: partition caches and hot-tier keys name it.
    pub version: u64,
    /// The generation whose objects hold the partition's rows.
    pub generation: u64,
    /// Those objects' key prefix (`None`: never loaded, only written: the delta is all).
    pub prefix: Option<String>,
    /// Writes with sequence numbers above this are in the delta, not in the objects.
    pub base_seq: u64,
    /// The last write to the partition (equal to `base_seq`: nothing pending).
    pub delta_seq: u64,
    /// The buckets of this version's hot nodes (0: not promoted whole, only own keys).
    pub hot_buckets: u64,
}

impl Live {
    /// A state known only by its content version (what a transaction read).
    pub fn at(version: u64) -> Live {
        Live {
            version,
            generation: 0,
            prefix: None,
            base_seq: 0,
            delta_seq: 0,
            hot_buckets: 0,
        }
    }

    /// Whether writes wait in the delta to be merged on reading.
    pub fn pending(&self) -> bool {
        self.delta_seq > self.base_seq
    }
}

/// Pending write operations per partition, in order (encoded, see `delta`).
pub(crate) type Delta = std::collections::HashMap<u32, Vec<Vec<u8>>>;

const LIVE_SELECT: &str = "SELECT partition_id, version, generation, object_key, base_seq, delta_seq, \
     CASE WHEN hot_version = version THEN hot_buckets ELSE 0 END FROM partition_metadata";

fn live_row(r: &postgres::Row) -> (u32, Live) {
    (
        r.get::<_, i32>(0) as u32,
        Live {
            version: r.get::<_, i64>(1) as u64,
            generation: r.get::<_, i64>(2) as u64,
            prefix: r.get(3),
            base_seq: r.get::<_, i64>(4) as u64,
            delta_seq: r.get::<_, i64>(5) as u64,
            hot_buckets: r.get::<_, i64>(6) as u64,
        },
    )
}

/// The state of `parts` (every one, even never written: version 0), locked until `tx` ends:
/// a writer's view, which no compaction swaps meanwhile.
pub(crate) fn lock_live(tx: &mut postgres::Transaction<'_>, parts: &[u32]) -> Result<Vec<(u32, Live)>> {
    let ids: Vec<i32> = parts.iter().map(|&p| p as i32).collect();
    let sql = format!("{LIVE_SELECT} WHERE partition_id = ANY($1) ORDER BY partition_id FOR UPDATE");
    let rows = tx.query(&sql, &[&ids]).map_err(meta("locking partitions"))?;
    Ok(rows.iter().map(live_row).collect())
}

/// The pending writes of `parts`, in `tx`.
pub(crate) fn read_delta(tx: &mut postgres::Transaction<'_>, parts: &[u32]) -> Result<Delta> {
    let mut delta = Delta::new();
    if parts.is_empty() {
        return Ok(delta);
    }
    let ids: Vec<i32> = parts.iter().map(|&p| p as i32).collect();
    for r in tx
        .query(
            "SELECT partition_id, op FROM partition_delta WHERE partition_id = ANY($1) ORDER BY partition_id, seq, n",
            &[&ids],
        )
        .map_err(meta("reading pending writes"))?
    {
        delta.entry(r.get::<_, i32>(0) as u32).or_default().push(r.get(1));
    }
    Ok(delta)
}

/// What a worker reports for a partition it wrote.
pub(crate) struct Written {
    pub object_key: String,
    pub vertex_count: u64,
    pub edge_count: u64,
}

/// A connection to the metadata database.
pub(crate) struct Metadata {
    client: Client,
    conn: String,
    used: std::time::Instant,
}

/// After this long unused, a connection is checked before use (and made again if the server
/// restarted or dropped it).
const CHECK_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

impl Metadata {
    pub fn connect(conn: &str) -> Result<Metadata> {
        let client = Client::connect(conn, NoTls).map_err(meta("connecting"))?;
        Ok(Metadata {
            client,
            conn: conn.to_string(),
            used: std::time::Instant::now(),
        })
    }

    /// Makes sure the connection works, connecting again if it was lost (a PostgreSQL restart
    /// or failover): checked when it sat unused for a second, or is known to be closed.
    pub fn revive(&mut self) -> Result<()> {
        let idle = self.used.elapsed() >= CHECK_AFTER;
        self.used = std::time::Instant::now();
        let lost = self.client.is_closed() || (idle && self.client.simple_query("").is_err());
        if !lost {
            return Ok(());
        }
        tracing::info!("the metadata connection was lost; connecting again");
        self.client = Client::connect(&self.conn, NoTls).map_err(meta("connecting again"))?;
        Ok(())
    }

    /// Creates the schema and the partitions' rows; a second init with the same settings does
    /// nothing, with other settings it is refused.
    pub fn init(&mut self, partitions: u32, cold_url: &str) -> Result<bool> {
        let mut tx = self.client.transaction().map_err(meta("starting init"))?;
        // One init at a time, even across processes.
        tx.batch_execute("SELECT pg_advisory_xact_lock(7687001)")
            .map_err(meta("locking for init"))?;
        tx.batch_execute(SCHEMA).map_err(meta("creating the schema"))?;
        let existing: Vec<(String, String)> = tx
            .query("SELECT key, value FROM hopdb_cluster", &[])
            .map_err(meta("reading the settings"))?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        if !existing.is_empty() {
            let get = |k: &str| existing.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
            if get("format") == Some("2") {
                tx.batch_execute(UPGRADE_FROM_2)
                    .map_err(meta("upgrading the metadata from format 2"))?;
            }
            let same = matches!(get("format"), Some(FORMAT) | Some("2"))
                && get("partitions") == Some(partitions.to_string().as_str())
                && get("cold_url") == Some(cold_url);
            if !same {
                return Err(ClusterError::State(format!(
                    "already initialised with format {:?}, {:?} partitions, cold tier {:?}; \
                     this configuration says {partitions} partitions at {cold_url:?}",
                    get("format").unwrap_or("?"),
                    get("partitions").unwrap_or("?"),
                    get("cold_url").unwrap_or("?"),
                )));
            }
            tx.commit().map_err(meta("finishing init"))?;
            return Ok(false);
        }
        for (k, v) in [
            ("format", FORMAT.to_string()),
            ("partitions", partitions.to_string()),
            ("cold_url", cold_url.to_string()),
        ] {
            tx.execute("INSERT INTO hopdb_cluster (key, value) VALUES ($1, $2)", &[&k, &v])
                .map_err(meta("writing the settings"))?;
        }
        let n = partitions as i32;
        tx.execute(
            "INSERT INTO partition_metadata (partition_id) SELECT generate_series(0, $1 - 1)",
            &[&n],
        )
        .map_err(meta("creating the partitions' rows"))?;
        tx.commit().map_err(meta("finishing init"))?;
        Ok(true)
    }

    /// The partition count, after checking the metadata's format and cold tier.
    pub fn settings(&mut self, cold_url: &str) -> Result<u32> {
        let rows = self
            .client
            .query("SELECT key, value FROM hopdb_cluster", &[])
            .map_err(|e| match e.code() {
                Some(c) if *c == postgres::error::SqlState::UNDEFINED_TABLE => {
                    ClusterError::State("not initialised: run `hopdb cluster init` first".into())
                }
                _ => ClusterError::Metadata {
                    doing: "reading the settings".into(),
                    source: e,
                },
            })?;
        let get = |k: &str| {
            rows.iter()
                .find(|r| r.get::<_, &str>(0) == k)
                .map(|r| r.get::<_, String>(1))
        };
        match get("format").as_deref() {
            Some(FORMAT) => {}
            Some("2") => {
                self.client
                    .batch_execute(UPGRADE_FROM_2)
                    .map_err(meta("upgrading the metadata from format 2"))?;
                tracing::info!("metadata upgraded from format 2 to {FORMAT}");
            }
            None => {
                return Err(ClusterError::State(
                    "not initialised: run `hopdb cluster init` first".into(),
                ))
            }
            Some(f) => {
                return Err(ClusterError::State(format!(
                    "metadata format {f}; this HopDB reads format {FORMAT}"
                )))
            }
        }
        if get("cold_url").as_deref() != Some(cold_url) {
            return Err(ClusterError::State(format!(
                "the cluster's cold tier is {:?}, the configuration says {cold_url:?}",
                get("cold_url").unwrap_or_default()
            )));
        }
        get("partitions")
            .and_then(|p| p.parse().ok())
            .ok_or_else(|| ClusterError::State("the partition count is missing or not a number".into()))
    }

    /// What is live in each partition; `None` where nothing was ever loaded or written.
    pub fn live(&mut self, partitions: u32) -> Result<Vec<Option<Live>>> {
        let mut out = vec![None; partitions as usize];
        let rows = self
            .client
            .query(&format!("{LIVE_SELECT} WHERE version <> 0"), &[])
            .map_err(meta("reading the live generations"))?;
        for r in &rows {
            let (p, l) = live_row(r);
            if let Some(slot) = out.get_mut(p as usize) {
                *slot = Some(l);
            }
        }
        Ok(out)
    }

    /// The live state of those of `parts` ever loaded or written.
    pub fn live_of(&mut self, parts: &[u32]) -> Result<Vec<(u32, Live)>> {
        let ids: Vec<i32> = parts.iter().map(|&p| p as i32).collect();
        let sql = format!("{LIVE_SELECT} WHERE partition_id = ANY($1) AND version <> 0");
        let rows = self
            .client
            .query(&sql, &[&ids])
            .map_err(meta("reading live versions"))?;
        Ok(rows.iter().map(live_row).collect())
    }

    /// The live state of partitions `parts` and their pending writes, read by one statement
    /// (one snapshot: a compaction that swaps meanwhile cannot pair a new generation with old
    /// writes) in one round trip.
    pub fn live_with_delta(&mut self, parts: &[u32]) -> Result<(Vec<(u32, Live)>, Delta)> {
        let ids: Vec<i32> = parts.iter().map(|&p| p as i32).collect();
        let rows = self
            .client
            .query(
                "SELECT m.partition_id, m.version, m.generation, m.object_key, m.base_seq, m.delta_seq, \
                 CASE WHEN m.hot_version = m.version THEN m.hot_buckets ELSE 0 END, d.op \
                 FROM partition_metadata m LEFT JOIN partition_delta d ON d.partition_id = m.partition_id \
                 WHERE m.partition_id = ANY($1) ORDER BY m.partition_id, d.seq, d.n",
                &[&ids],
            )
            .map_err(meta("reading pending writes"))?;
        let mut live: Vec<(u32, Live)> = Vec::new();
        let mut delta = Delta::new();
        for r in &rows {
            let (p, l) = live_row(r);
            if live.last().is_none_or(|(q, _)| *q != p) {
                live.push((p, l));
            }
            if let Some(op) = r.get::<_, Option<Vec<u8>>>(7) {
                delta.entry(p).or_default().push(op);
            }
        }
        Ok((live, delta))
    }

    /// Every partition's row, by partition.
    pub fn status(&mut self) -> Result<Vec<PartitionStatus>> {
        Ok(self
            .client
            .query(
                "SELECT partition_id, generation, object_key, vertex_count, edge_count, temperature, \
                 last_access, query_node, version, delta_ops, hot_version, hot_nodes, hot_bytes, hot_buckets, hot_keys \
                 FROM partition_metadata ORDER BY partition_id",
                &[],
            )
            .map_err(meta("reading the partitions"))?
            .iter()
            .map(|r| PartitionStatus {
                partition: r.get::<_, i32>(0) as u32,
                generation: r.get::<_, i64>(1) as u64,
                object_key: r.get(2),
                vertex_count: r.get::<_, i64>(3) as u64,
                edge_count: r.get::<_, i64>(4) as u64,
                temperature: r.get(5),
                last_access: r.get(6),
                query_node: r.get(7),
                version: r.get::<_, i64>(8) as u64,
                delta_ops: r.get::<_, i64>(9) as u64,
                hot_version: r.get::<_, i64>(10) as u64,
                hot_nodes: r.get::<_, i64>(11) as u64,
                hot_bytes: r.get::<_, i64>(12) as u64,
                hot_buckets: r.get::<_, i64>(13) as u64,
                hot_keys: r.get::<_, i64>(14) as u64,
            })
            .collect())
    }

    /// Adds `reads[i]` to partition `parts[i]`'s temperature, after decaying it by a
    /// half-life of an hour since its last access; sets the access time and query node.
    pub fn record_access(&mut self, parts: &[i32], reads: &[f64], node: &str) -> Result<()> {
        self.client
            .execute(
                "UPDATE partition_metadata m SET \
                 temperature = m.temperature * power(0.5, extract(epoch FROM now() - coalesce(m.last_access, now()))::float8 / 3600.0) + a.reads, \
                 last_access = now(), query_node = $3 \
                 FROM unnest($1::int[], $2::float8[]) AS a(p, reads) WHERE m.partition_id = a.p",
                &[&parts, &reads, &node],
            )
            .map_err(meta("recording partition temperatures"))?;
        Ok(())
    }

    /// Records partitions whose every node of the given generation is in the hot tier.
    pub fn mark_hot(&mut self, done: &[crate::promote::Promoted]) -> Result<()> {
        let col = |f: fn(&crate::promote::Promoted) -> i64| done.iter().map(f).collect::<Vec<i64>>();
        let parts: Vec<i32> = done.iter().map(|d| d.partition as i32).collect();
        self.client
            .execute(
                "UPDATE partition_metadata m SET hot_version = a.g, hot_nodes = a.n, hot_bytes = a.b, \
                 hot_buckets = a.k, hot_keys = a.e \
                 FROM unnest($1::int[], $2::int8[], $3::int8[], $4::int8[], $5::int8[], $6::int8[]) \
                 AS a(p, g, n, b, k, e) \
                 WHERE m.partition_id = a.p",
                &[
                    &parts,
                    &col(|d| d.version as i64),
                    &col(|d| d.nodes as i64),
                    &col(|d| d.bytes as i64),
                    &col(|d| d.buckets as i64),
                    &col(|d| d.keys as i64),
                ],
            )
            .map_err(meta("recording a promotion"))?;
        Ok(())
    }

    /// Records that partitions `parts` are no longer in the hot tier.
    pub fn mark_evicted(&mut self, parts: &[u32]) -> Result<()> {
        let parts: Vec<i32> = parts.iter().map(|&p| p as i32).collect();
        self.client
            .execute(
                "UPDATE partition_metadata SET hot_version = 0, hot_nodes = 0, hot_bytes = 0, hot_buckets = 0, hot_keys = 0 \
                 WHERE partition_id = ANY($1)",
                &[&parts],
            )
            .map_err(meta("recording an eviction"))?;
        Ok(())
    }

    /// The edge types of the live graph.
    pub fn edge_types(&mut self) -> Result<Vec<(String, EdgeTypeOptions)>> {
        read_edge_types(&mut self.client)
    }

    /// Starts a load of every partition. Returns its id (the new generation) and the object
    /// prefixes of unfinished earlier loads, whose rows it removes (their objects are garbage).
    pub fn begin_load(&mut self, partitions: u32) -> Result<(u64, Vec<String>)> {
        let mut tx = self.client.transaction().map_err(meta("starting a load"))?;
        // Every partition of an unfinished load may have files (written, or written and not
        // yet recorded when its worker died).
        let stale: Vec<String> = tx
            .query("DELETE FROM partition_loads RETURNING load_id, partition_id", &[])
            .map_err(meta("removing unfinished loads"))?
            .iter()
            .map(|r| generation_prefix(r.get::<_, i32>(1) as u32, r.get::<_, i64>(0) as u64))
            .collect();
        let id: i64 = tx
            .query_one("SELECT nextval('hopdb_generation')", &[])
            .map_err(meta("taking a generation number"))?
            .get(0);
        tx.execute(
            "INSERT INTO partition_loads (load_id, partition_id) SELECT $1, generate_series(0, $2 - 1)",
            &[&id, &(partitions as i32)],
        )
        .map_err(meta("queueing the partitions"))?;
        tx.commit().map_err(meta("starting a load"))?;
        Ok((id as u64, stale))
    }

    /// Claims the load's pending partitions in `range` one at a time and runs `work` on each, holding
    /// the claim (a row lock) until its result is recorded. Stops at the first error.
    pub fn claim_each(
        &mut self,
        load: u64,
        range: std::ops::Range<u32>,
        work: &mut dyn FnMut(u32) -> Result<Written>,
    ) -> Result<usize> {
        let mut done = 0;
        loop {
            let mut tx = self.client.transaction().map_err(meta("claiming a partition"))?;
            let Some(row) = tx
                .query_opt(
                    "SELECT partition_id FROM partition_loads WHERE load_id = $1 AND state = 'pending' \
                     AND partition_id >= $2 AND partition_id < $3 \
                     ORDER BY partition_id LIMIT 1 FOR UPDATE SKIP LOCKED",
                    &[&(load as i64), &(range.start as i32), &(range.end as i32)],
                )
                .map_err(meta("claiming a partition"))?
            else {
                tx.commit().map_err(meta("claiming a partition"))?;
                return Ok(done);
            };
            let p: i32 = row.get(0);
            let w = work(p as u32)?;
            let updated = tx.execute(
                "UPDATE partition_loads SET state = 'written', object_key = $3, vertex_count = $4, edge_count = $5 \
                 WHERE load_id = $1 AND partition_id = $2",
                &[&(load as i64), &p, &w.object_key, &(w.vertex_count as i64), &(w.edge_count as i64)],
            )
            .map_err(meta("recording a written partition"))?;
            if updated != 1 {
                return Err(ClusterError::State(format!(
                    "load {load} was abandoned (a newer load started) while partition {p} was written"
                )));
            }
            tx.commit().map_err(meta("recording a written partition"))?;
            done += 1;
        }
    }

    /// Records partitions of a load as written by this process (a restore: one writer, no claims).
    pub fn record_written(&mut self, load: u64, written: &[(u32, Written)]) -> Result<()> {
        let parts: Vec<i32> = written.iter().map(|(p, _)| *p as i32).collect();
        let keys: Vec<&str> = written.iter().map(|(_, w)| w.object_key.as_str()).collect();
        let nodes: Vec<i64> = written.iter().map(|(_, w)| w.vertex_count as i64).collect();
        let edges: Vec<i64> = written.iter().map(|(_, w)| w.edge_count as i64).collect();
        let n = self
            .client
            .execute(
                "UPDATE partition_loads l SET state = 'written', object_key = a.k, vertex_count = a.n, edge_count = a.e \
                 FROM unnest($2::int[], $3::text[], $4::int8[], $5::int8[]) AS a(p, k, n, e) \
                 WHERE l.load_id = $1 AND l.partition_id = a.p",
                &[&(load as i64), &parts, &keys, &nodes, &edges],
            )
            .map_err(meta("recording restored partitions"))?;
        if n != written.len() as u64 {
            return Err(ClusterError::State(format!(
                "load {load} was abandoned (a newer load started) while it was being restored"
            )));
        }
        Ok(())
    }

    /// Makes the load's generations live, all in one transaction, with its edge types.
    /// Returns the object prefixes of the generations it replaced.
    pub fn finish_load(&mut self, load: u64, types: &[(String, EdgeTypeOptions)]) -> Result<Vec<String>> {
        let mut tx = self.client.transaction().map_err(meta("finishing a load"))?;
        // Writes wait until the swap is done: a load replaces the whole graph, writes
        // acknowledged before it included (they are not in the store it was made from).
        tx.batch_execute(WRITE_LOCK)
            .map_err(meta("waiting for writes to finish"))?;
        let id = load as i64;
        let pending: i64 = tx
            .query_one(
                "SELECT count(*) FROM partition_loads WHERE load_id = $1 AND state <> 'written'",
                &[&id],
            )
            .map_err(meta("checking the load"))?
            .get(0);
        let written: i64 = tx
            .query_one("SELECT count(*) FROM partition_loads WHERE load_id = $1", &[&id])
            .map_err(meta("checking the load"))?
            .get(0);
        if pending != 0 || written == 0 {
            return Err(ClusterError::State(format!(
                "load {load} is not complete ({pending} of {written} partitions unwritten); nothing was swapped"
            )));
        }
        let old: Vec<String> = tx
            .query(
                "SELECT m.object_key FROM partition_metadata m JOIN partition_loads l \
                 ON l.partition_id = m.partition_id AND l.load_id = $1 WHERE m.object_key IS NOT NULL",
                &[&id],
            )
            .map_err(meta("listing replaced generations"))?
            .iter()
            .map(|r| r.get(0))
            .collect();
        // The rows first, then the number: a partition's versions grow in commit order.
        tx.execute(
            "SELECT 1 FROM partition_metadata m JOIN partition_loads l \
             ON l.partition_id = m.partition_id AND l.load_id = $1 FOR UPDATE OF m",
            &[&id],
        )
        .map_err(meta("locking the partitions"))?;
        let version = next_number(&mut tx)?;
        tx.execute(
            "UPDATE partition_metadata m SET generation = l.load_id, object_key = l.object_key, \
             vertex_count = l.vertex_count, edge_count = l.edge_count, version = $2, \
             base_seq = m.delta_seq, delta_ops = 0 \
             FROM partition_loads l WHERE l.load_id = $1 AND l.partition_id = m.partition_id",
            &[&id, &(version as i64)],
        )
        .map_err(meta("swapping in the new generations"))?;
        tx.execute("DELETE FROM partition_delta", &[])
            .map_err(meta("dropping writes the load replaces"))?;
        tx.execute("DELETE FROM edge_types", &[])
            .map_err(meta("replacing the edge types"))?;
        for (name, o) in types {
            tx.execute(
                "INSERT INTO edge_types (name, undirected, multi) VALUES ($1, $2, $3)",
                &[name, &o.undirected, &o.multi],
            )
            .map_err(meta("replacing the edge types"))?;
        }
        tx.execute("DELETE FROM partition_loads WHERE load_id = $1", &[&id])
            .map_err(meta("finishing a load"))?;
        tx.commit().map_err(meta("finishing a load"))?;
        Ok(old)
    }
}

/// Held by a write (and a load's swap) until its transaction ends: one writer at a time, so
/// write sequence numbers follow commit order.
const WRITE_LOCK: &str = "SELECT pg_advisory_xact_lock(7687002)";

/// A fresh number of the generation sequence (generations, versions and write sequence
/// numbers all come from it, so none is ever used twice).
pub(crate) fn next_number(tx: &mut postgres::Transaction<'_>) -> Result<u64> {
    Ok(tx
        .query_one("SELECT nextval('hopdb_generation')", &[])
        .map_err(meta("taking a sequence number"))?
        .get::<_, i64>(0) as u64)
}

/// One partition's operations of a write.
pub(crate) struct PartitionOps {
    pub partition: u32,
    pub ops: Vec<Vec<u8>>,
}

impl Metadata {
    /// Starts a write transaction, waiting for any other writer to finish.
    pub fn begin_write(&mut self) -> Result<postgres::Transaction<'_>> {
        let mut tx = self.client.transaction().map_err(meta("starting a write"))?;
        tx.batch_execute(WRITE_LOCK)
            .map_err(meta("waiting for the write lock"))?;
        Ok(tx)
    }

    /// Replaces partition `p`'s generation `expected` with a compacted one holding the writes
    /// up to `cut`, dropping those from the delta. Returns the replaced generation's prefix, or
    /// `None` when the partition changed generation meanwhile (a load or another compaction:
    /// nothing is swapped).
    pub fn swap_compacted(
        &mut self,
        p: u32,
        expected: u64,
        w: &Written,
        generation: u64,
        cut: u64,
    ) -> Result<Option<Option<String>>> {
        let mut tx = self.client.transaction().map_err(meta("swapping in a compaction"))?;
        let row = tx
            .query_one(
                "SELECT generation, object_key FROM partition_metadata WHERE partition_id = $1 FOR UPDATE",
                &[&(p as i32)],
            )
            .map_err(meta("swapping in a compaction"))?;
        if row.get::<_, i64>(0) as u64 != expected {
            return Ok(None);
        }
        let old: Option<String> = row.get(1);
        let version = next_number(&mut tx)?;
        tx.execute(
            "DELETE FROM partition_delta WHERE partition_id = $1 AND seq <= $2",
            &[&(p as i32), &(cut as i64)],
        )
        .map_err(meta("dropping compacted writes"))?;
        tx.execute(
            "UPDATE partition_metadata SET generation = $2, object_key = $3, vertex_count = $4, edge_count = $5, \
             version = $6, base_seq = $7, \
             delta_ops = (SELECT count(*) FROM partition_delta WHERE partition_id = $1) \
             WHERE partition_id = $1",
            &[
                &(p as i32),
                &(generation as i64),
                &w.object_key,
                &(w.vertex_count as i64),
                &(w.edge_count as i64),
                &(version as i64),
                &(cut as i64),
            ],
        )
        .map_err(meta("swapping in a compaction"))?;
        tx.commit().map_err(meta("swapping in a compaction"))?;
        Ok(Some(old))
    }

    /// A fresh number of the generation sequence, outside any transaction.
    pub fn take_number(&mut self) -> Result<u64> {
        Ok(self
            .client
            .query_one("SELECT nextval('hopdb_generation')", &[])
            .map_err(meta("taking a sequence number"))?
            .get::<_, i64>(0) as u64)
    }

    /// `n` fresh numbers of the generation sequence in one round trip, ascending.
    pub fn take_numbers(&mut self, n: i32) -> Result<Vec<u64>> {
        Ok(self
            .client
            .query("SELECT nextval('hopdb_generation') FROM generate_series(1, $1)", &[&n])
            .map_err(meta("taking sequence numbers"))?
            .iter()
            .map(|r| r.get::<_, i64>(0) as u64)
            .collect())
    }
}

/// Appends the operations of a write to the delta under a fresh sequence number, which
/// becomes the content version of the partitions it changes; returns the number and each
/// partition's pending operation count. One statement (one round trip): the number, the
/// delta rows and the metadata rows together.
pub(crate) fn append_delta(
    tx: &mut postgres::Transaction<'_>,
    parts: &[PartitionOps],
) -> Result<(u64, Vec<(u32, u64)>)> {
    let (mut ids, mut ns, mut ops) = (Vec::new(), Vec::new(), Vec::new());
    for po in parts {
        for (n, op) in po.ops.iter().enumerate() {
            ids.push(po.partition as i32);
            ns.push(n as i32);
            ops.push(op.as_slice());
        }
    }
    let touched: Vec<i32> = parts.iter().map(|p| p.partition as i32).collect();
    let counts: Vec<i64> = parts.iter().map(|p| p.ops.len() as i64).collect();
    // A CTE with a volatile function is evaluated once: one number for every row.
    let rows = tx
        .query(
            "WITH s AS (SELECT nextval('hopdb_generation') AS seq), \
             ins AS (INSERT INTO partition_delta (partition_id, seq, n, op) \
               SELECT a.p, s.seq, a.n, a.op FROM s, unnest($1::int[], $2::int[], $3::bytea[]) AS a(p, n, op)) \
             UPDATE partition_metadata m SET delta_seq = s.seq, version = s.seq, delta_ops = m.delta_ops + a.n \
             FROM s, unnest($4::int[], $5::int8[]) AS a(p, n) WHERE m.partition_id = a.p \
             RETURNING m.partition_id, m.delta_ops, s.seq",
            &[&ids, &ns, &ops, &touched, &counts],
        )
        .map_err(meta("recording a write"))?;
    let seq = match rows.first() {
        Some(r) => r.get::<_, i64>(2) as u64,
        None => return Err(ClusterError::State("a write changed no partition row".into())),
    };
    Ok((
        seq,
        rows.iter()
            .map(|r| (r.get::<_, i32>(0) as u32, r.get::<_, i64>(1) as u64))
            .collect(),
    ))
}

/// The edge types, by name, read through `c` (the connection, or a write's transaction).
pub(crate) fn read_edge_types(c: &mut impl GenericClient) -> Result<Vec<(String, EdgeTypeOptions)>> {
    Ok(
        c.query("SELECT name, undirected, multi FROM edge_types ORDER BY name", &[])
            .map_err(meta("reading the edge types"))?
            .iter()
            .map(|r| {
                (
                    r.get(0),
                    EdgeTypeOptions {
                        undirected: r.get(1),
                        multi: r.get(2),
                    },
                )
            })
            .collect(),
    )
}

/// Records edge types a write created (directed; simple or multi as their first edge was).
pub(crate) fn add_edge_types(tx: &mut postgres::Transaction<'_>, types: &[(String, EdgeTypeOptions)]) -> Result<()> {
    for (n, o) in types {
        tx.execute(
            "INSERT INTO edge_types (name, undirected, multi) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            &[n, &o.undirected, &o.multi],
        )
        .map_err(meta("recording a new edge type"))?;
    }
    Ok(())
}
