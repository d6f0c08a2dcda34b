//! PostgreSQL and SQLite over bench/engines' flat tables nodes(id, label, ..., canonical_title,
//! entity_type) and edges(src, dst, type) with B-tree indexes on nodes(id), edges(src) and
//! edges(dst): the statements of bench/engines/sql.py, prepared once per
//! connection, one connection per client.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use super::{list_answer, seeds, Answer, Client, Engine, Options, QResult, QueryError};
use crate::workload::{Kind, Op, KINDS, LIMIT, TOP};

/// Every statement with placeholders `p(1)`, `p(2)`, ... (PostgreSQL `$1`, SQLite `?1`);
/// `collate` is added to Q6's id ordering (PostgreSQL: COLLATE "C", byte order as elsewhere).
pub fn statements(p: fn(usize) -> String, collate: &str) -> Vec<(Kind, String)> {
    let id = p(1);
    let co = format!(
        "FROM edges m JOIN edges o ON o.dst = m.dst WHERE m.src = {id} AND m.type = 'MENTIONS' AND o.type = 'MENTIONS' AND o.src <> {id}"
    );
    let set = (1..=5).map(p).collect::<Vec<_>>().join(", ");
    KINDS
        .iter()
        .map(|&k| {
            let s = match k {
                Kind::Q1 => format!("SELECT doc_id, ordinal, word_count, section_title FROM nodes WHERE id = {id}"),
                Kind::Q2 => format!("SELECT dst FROM edges WHERE src = {id} AND type = 'MENTIONS' LIMIT {LIMIT}"),
                Kind::Q3 => format!("SELECT src FROM edges WHERE dst = {id} AND type = 'MENTIONS' LIMIT {LIMIT}"),
                Kind::Q4 => format!("SELECT DISTINCT o.src {co} LIMIT {LIMIT}"),
                Kind::Q5 => format!("SELECT dst FROM edges WHERE src = {id} AND type = 'HAS_CHUNK'"),
                Kind::Q6 => format!("SELECT o.src, count(*) AS n {co} GROUP BY o.src ORDER BY n DESC, o.src{collate} LIMIT {TOP}"),
                Kind::Q7 => format!(
                    "SELECT DISTINCT f.dst FROM edges m JOIN edges f ON f.src = m.src \
                     WHERE m.dst IN ({set}) AND m.type = 'MENTIONS' AND f.type = 'MENTIONS' LIMIT {LIMIT}"
                ),
                // LightRAG's node record: the entity's label and properties.
                Kind::GetNode => format!("SELECT label, canonical_title, entity_type FROM nodes WHERE id = {id}"),
                // Both directions, each through its own index.
                Kind::GetNodeEdges => {
                    format!("SELECT src, dst FROM edges WHERE src = {id} UNION ALL SELECT src, dst FROM edges WHERE dst = {id}")
                }
                Kind::UpsertNode => format!(
                    "INSERT INTO nodes (id, label, canonical_title, entity_type) VALUES ({id}, 'Entity', {}, {}) \
                     ON CONFLICT (id) DO UPDATE SET canonical_title = excluded.canonical_title, entity_type = excluded.entity_type",
                    p(2),
                    p(3)
                ),
                Kind::NodeDegree => format!(
                    "SELECT (SELECT count(*) FROM edges WHERE src = {id}) + (SELECT count(*) FROM edges WHERE dst = {id})"
                ),
                Kind::HasNode => format!("SELECT EXISTS (SELECT 1 FROM nodes WHERE id = {id})"),
            };
            (k, s)
        })
        .collect()
}

/// The statement's parameters: the seed ids, or for an upsert the id and its two properties
/// (an empty CSV cell as NULL, as PostgreSQL's COPY loaded it).
fn params(op: &Op) -> std::result::Result<Vec<Option<&str>>, QueryError> {
    let ids = seeds(op)?;
    let mut v: Vec<Option<&str>> = ids.iter().map(|s| Some(s.as_str())).collect();
    if op.kind == Kind::UpsertNode {
        let p = op
            .props
            .as_ref()
            .ok_or_else(|| QueryError::Failed("upsert_node without properties".into()))?;
        for s in [&p.canonical_title, &p.entity_type] {
            v.push((!s.is_empty()).then_some(s.as_str()));
        }
    }
    Ok(v)
}

// ---- PostgreSQL ---------------------------------------------------------------------------

/// Per session: HopDB's writes in the LightRAG mix are not fsynced per commit ('process'
/// durability), so PostgreSQL's must not be either, or the comparison measures fsyncs.
const PG_SYNCHRONOUS_COMMIT: &str = "off";

pub struct Postgres {
    cfg: postgres::Config,
    target: String,
    timeout: Option<Duration>,
    version: String,
    durability: Value,
}

fn pg_config(o: &Options) -> Result<postgres::Config> {
    let mut cfg: postgres::Config = o
        .target
        .parse()
        .with_context(|| format!("bad PostgreSQL conninfo {:?}", o.target))?;
    if let Some(u) = &o.user {
        cfg.user(u);
    }
    if let Some(p) = &o.password {
        cfg.password(p);
    }
    Ok(cfg)
}

impl Postgres {
    pub fn open(o: &Options) -> Result<Postgres> {
        let cfg = pg_config(o)?;
        let mut c = cfg
            .connect(postgres::NoTls)
            .with_context(|| format!("cannot connect to PostgreSQL at {:?}", o.target))?;
        let show = |c: &mut postgres::Client, what: &str| -> Result<String> {
            Ok(c.query_one(&format!("SHOW {what}"), &[])?.get::<_, String>(0))
        };
        let version = format!(
            "PostgreSQL {} (Rust postgres crate, sync client)",
            show(&mut c, "server_version")?
        );
        let durability = json!({
            "synchronous_commit": PG_SYNCHRONOUS_COMMIT,
            "server_synchronous_commit": show(&mut c, "synchronous_commit")?,
            "fsync": show(&mut c, "fsync")?,
            "wal_level": show(&mut c, "wal_level")?,
            "meaning": "each session sets synchronous_commit=off: a commit returns once its WAL record is in the server's \
                        buffers and the WAL writer flushes it within wal_writer_delay; the closest match to HopDB's \
                        'process' durability (WAL written, not fsynced, per commit)",
        });
        let missing: Vec<String> = ["nodes", "edges"]
            .into_iter()
            .filter(|t| {
                c.query_one("SELECT to_regclass($1) IS NULL", &[t])
                    .map(|r| r.get::<_, bool>(0))
                    .unwrap_or(true)
            })
            .map(str::to_owned)
            .collect();
        if !missing.is_empty() {
            bail!(
                "PostgreSQL at {:?} has no table {} (bench/engines' flat tables)",
                o.target,
                missing.join(", ")
            );
        }
        Ok(Postgres {
            cfg,
            target: o.target.clone(),
            timeout: o.timeout,
            version,
            durability,
        })
    }
}

struct PgClient {
    c: postgres::Client,
    st: Vec<postgres::Statement>,
}

impl Engine for Postgres {
    fn connect(&self) -> Result<Box<dyn Client>> {
        let mut c = self
            .cfg
            .connect(postgres::NoTls)
            .with_context(|| format!("cannot connect to PostgreSQL at {:?}", self.target))?;
        if let Some(t) = self.timeout {
            c.batch_execute(&format!("SET statement_timeout = {}", t.as_millis().max(1)))?;
        }
        c.batch_execute(&format!("SET synchronous_commit = {PG_SYNCHRONOUS_COMMIT}"))?;
        let st = statements(|i| format!("${i}"), " COLLATE \"C\"")
            .into_iter()
            .map(|(k, s)| {
                c.prepare(&s)
                    .with_context(|| format!("PostgreSQL cannot prepare {}: {s}", k.name()))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Box::new(PgClient { c, st }))
    }
    fn version(&self) -> String {
        self.version.clone()
    }
    fn durability(&self) -> Value {
        self.durability.clone()
    }
    fn notes(&self) -> String {
        "one connection per client, every statement prepared once per connection (server-side), autocommit \
         with synchronous_commit=off per session; Q6 orders ids with COLLATE \"C\""
            .into()
    }
}

fn pg_err(e: postgres::Error) -> QueryError {
    if e.code() == Some(&postgres::error::SqlState::QUERY_CANCELED) {
        QueryError::Timeout
    } else {
        QueryError::Failed(e.to_string())
    }
}

/// A column of a row as JSON (text and integer columns are all the tables have).
fn pg_json(row: &postgres::Row, i: usize) -> std::result::Result<Value, QueryError> {
    use postgres::types::Type;
    let bad = |e: postgres::Error| QueryError::Failed(format!("column {i}: {e}"));
    let ty = row.columns()[i].type_().clone();
    Ok(if ty == Type::INT4 {
        json!(row.try_get::<_, Option<i32>>(i).map_err(bad)?)
    } else if ty == Type::INT8 {
        json!(row.try_get::<_, Option<i64>>(i).map_err(bad)?)
    } else {
        json!(row.try_get::<_, Option<String>>(i).map_err(bad)?)
    })
}

impl Client for PgClient {
    fn run(&mut self, op: &Op) -> QResult {
        let ps = params(op)?;
        let args: Vec<&(dyn postgres::types::ToSql + Sync)> =
            ps.iter().map(|p| p as &(dyn postgres::types::ToSql + Sync)).collect();
        let st = &self.st[op.kind.index()];
        if op.kind == Kind::UpsertNode {
            self.c.execute(st, &args).map_err(pg_err)?;
            return Ok(Answer::Written);
        }
        let rows = self.c.query(st, &args).map_err(pg_err)?;
        let get = |r: &postgres::Row, i| r.try_get::<_, String>(i).map_err(|e| QueryError::Failed(e.to_string()));
        Ok(match op.kind {
            Kind::Q1 | Kind::GetNode => Answer::Row(match rows.first() {
                Some(r) => Some(
                    (0..r.len())
                        .map(|i| pg_json(r, i))
                        .collect::<std::result::Result<_, _>>()?,
                ),
                None => None,
            }),
            Kind::Q6 => Answer::Counts(
                rows.iter()
                    .map(|r| Ok((get(r, 0)?, r.try_get::<_, i64>(1).map_err(pg_err)?)))
                    .collect::<std::result::Result<_, QueryError>>()?,
            ),
            Kind::GetNodeEdges => Answer::Pairs(
                rows.iter()
                    .map(|r| Ok((get(r, 0)?, get(r, 1)?)))
                    .collect::<std::result::Result<_, QueryError>>()?,
            ),
            Kind::NodeDegree => Answer::Count(one(&rows)?.try_get::<_, i64>(0).map_err(pg_err)?),
            Kind::HasNode => Answer::Bool(one(&rows)?.try_get::<_, bool>(0).map_err(pg_err)?),
            _ => Answer::Ids(rows.iter().map(|r| get(r, 0)).collect::<std::result::Result<_, _>>()?),
        })
    }
}

fn one<R>(rows: &[R]) -> std::result::Result<&R, QueryError> {
    rows.first().ok_or_else(|| QueryError::Failed("no row".into()))
}

// ---- SQLite -------------------------------------------------------------------------------

/// The page cache of every connection, as bench/engines' adapter and the Python client.
const CACHE_MIB: i64 = 64;
/// How long a writer waits for the write lock before SQLITE_BUSY, without --timeout-ms.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Sqlite {
    path: std::path::PathBuf,
    writes: bool,
    timeout: Option<Duration>,
    version: String,
    durability: Value,
}

impl Sqlite {
    pub fn open(o: &Options) -> Result<Sqlite> {
        let path = std::path::PathBuf::from(&o.target);
        if !path.is_file() {
            bail!("{}: no SQLite database file there", path.display());
        }
        let mut s = Sqlite {
            path,
            writes: o.writes,
            timeout: o.timeout,
            version: format!("SQLite {} (rusqlite, bundled)", rusqlite::version()),
            durability: Value::Null,
        };
        let c = s.connection()?;
        let idx: Vec<String> = c
            .prepare("SELECT name FROM sqlite_master WHERE type = 'index'")?
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let missing: Vec<&str> = ["nodes_id", "edges_src", "edges_dst"]
            .into_iter()
            .filter(|i| !idx.iter().any(|x| x == i))
            .collect();
        if !missing.is_empty() {
            bail!(
                "{}: indexes {missing:?} missing (bench/engines' SQLite adapter makes them)",
                s.path.display()
            );
        }
        let pragma = |name: &str| -> Result<String> {
            Ok(
                c.query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, rusqlite::types::Value>(0))
                    .map(|v| match v {
                        rusqlite::types::Value::Integer(i) => i.to_string(),
                        rusqlite::types::Value::Text(t) => t,
                        other => format!("{other:?}"),
                    })?,
            )
        };
        s.durability = if !s.writes {
            json!("read-only connections (no writes)")
        } else {
            json!({
            "journal_mode": pragma("journal_mode")?,
            "synchronous": pragma("synchronous")?,
            "meaning": "synchronous=1 (NORMAL) in WAL mode, set on every connection by this client as bench/engines' adapter: \
                        a commit survives a crash of the process, not a power loss (no fsync per commit), like HopDB's durability \"process\"",
            })
        };
        Ok(s)
    }

    fn connection(&self) -> Result<rusqlite::Connection> {
        use rusqlite::OpenFlags as F;
        let flags = F::SQLITE_OPEN_NO_MUTEX
            | if self.writes {
                F::SQLITE_OPEN_READ_WRITE
            } else {
                F::SQLITE_OPEN_READ_ONLY
            };
        let c = rusqlite::Connection::open_with_flags(&self.path, flags)
            .with_context(|| format!("cannot open the SQLite database {}", self.path.display()))?;
        c.execute_batch(&format!("PRAGMA cache_size = -{}", CACHE_MIB * 1024))?;
        if self.writes {
            // Writers serialize on the database's write lock: wait for it rather than fail.
            c.busy_timeout(self.timeout.unwrap_or(BUSY_TIMEOUT).max(BUSY_TIMEOUT))?;
            c.execute_batch("PRAGMA synchronous = NORMAL")?;
        }
        Ok(c)
    }
}

struct SqliteClient {
    c: rusqlite::Connection,
    sql: Vec<String>,
    /// Deadline of the running statement in ns after `base` (0: none), read by the progress handler.
    deadline: Arc<AtomicU64>,
    base: Instant,
    timeout: Option<Duration>,
}

impl Engine for Sqlite {
    fn connect(&self) -> Result<Box<dyn Client>> {
        let mut c = self.connection()?;
        let sql: Vec<String> = statements(|i| format!("?{i}"), "")
            .into_iter()
            .map(|(_, s)| s)
            .collect();
        c.set_prepared_statement_cache_capacity(sql.len() + 4);
        for s in &sql {
            // Read-only connections cannot prepare the upsert: it is prepared on first use.
            if self.writes || !s.starts_with("INSERT") {
                c.prepare_cached(s)
                    .with_context(|| format!("SQLite cannot prepare: {s}"))?;
            }
        }
        let deadline = Arc::new(AtomicU64::new(0));
        let base = Instant::now();
        if self.timeout.is_some() {
            let d = deadline.clone();
            // Called every 1,000 virtual-machine instructions; true interrupts the statement.
            c.progress_handler(
                1000,
                Some(move || {
                    let at = d.load(Ordering::Relaxed);
                    at != 0 && base.elapsed().as_nanos() as u64 > at
                }),
            )?;
        }
        Ok(Box::new(SqliteClient {
            c,
            sql,
            deadline,
            base,
            timeout: self.timeout,
        }))
    }
    fn version(&self) -> String {
        self.version.clone()
    }
    fn durability(&self) -> Value {
        self.durability.clone()
    }
    fn notes(&self) -> String {
        format!(
            "one connection per client ({}), {CACHE_MIB} MiB page cache each, statements prepared once and cached{}",
            if self.writes {
                format!(
                    "read-write, WAL, busy_timeout {} ms",
                    self.timeout.unwrap_or(BUSY_TIMEOUT).max(BUSY_TIMEOUT).as_millis()
                )
            } else {
                "read-only".into()
            },
            if self.timeout.is_some() {
                "; timeout by a progress handler"
            } else {
                ""
            }
        )
    }
}

fn sqlite_err(e: rusqlite::Error) -> QueryError {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::OperationInterrupted) => QueryError::Timeout,
        Some(rusqlite::ErrorCode::DatabaseBusy) | Some(rusqlite::ErrorCode::DatabaseLocked) => QueryError::Busy,
        _ => QueryError::Failed(e.to_string()),
    }
}

/// A SQLite value as JSON (the flat tables hold text and integers).
fn sqlite_json(v: rusqlite::types::ValueRef<'_>) -> Value {
    use rusqlite::types::ValueRef as V;
    match v {
        V::Null => Value::Null,
        V::Integer(i) => json!(i),
        V::Real(f) => json!(f),
        V::Text(t) => json!(String::from_utf8_lossy(t)),
        V::Blob(b) => json!(b),
    }
}

impl SqliteClient {
    fn query(&self, op: &Op) -> QResult {
        let ps = params(op)?;
        let mut st = self.c.prepare_cached(&self.sql[op.kind.index()]).map_err(sqlite_err)?;
        let args = rusqlite::params_from_iter(ps.iter());
        if op.kind == Kind::UpsertNode {
            st.execute(args).map_err(sqlite_err)?;
            return Ok(Answer::Written);
        }
        let mut rows = st.query(args).map_err(sqlite_err)?;
        let mut out: Vec<Vec<Value>> = Vec::new();
        while let Some(r) = rows.next().map_err(sqlite_err)? {
            let n = r.as_ref().column_count();
            out.push(
                (0..n)
                    .map(|i| r.get_ref(i).map(sqlite_json))
                    .collect::<rusqlite::Result<_>>()
                    .map_err(sqlite_err)?,
            );
        }
        Ok(match op.kind {
            Kind::Q1 | Kind::GetNode => Answer::Row(out.into_iter().next()),
            Kind::HasNode => match one(&out)?.first().and_then(Value::as_i64) {
                Some(n) => Answer::Bool(n != 0),
                None => return Err(QueryError::Failed(format!("has_node: expected a count, got {out:?}"))),
            },
            _ => list_answer(op.kind, &out)?,
        })
    }
}

impl Client for SqliteClient {
    fn run(&mut self, op: &Op) -> QResult {
        if let Some(t) = self.timeout {
            let at = (self.base.elapsed() + t).as_nanos() as u64;
            self.deadline.store(at, Ordering::Relaxed);
        }
        let r = self.query(op);
        self.deadline.store(0, Ordering::Relaxed);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::testkg::{check, entity_props, retrieval_ops, sqlite_db, Reference};
    use hopdb_kg::KgSpec;

    #[test]
    fn statements_use_each_drivers_placeholders() {
        let pg = statements(|i| format!("${i}"), " COLLATE \"C\"");
        let lite = statements(|i| format!("?{i}"), "");
        assert_eq!(pg.len(), KINDS.len());
        let q6 = &pg[Kind::Q6.index()].1;
        assert!(q6.contains("o.src <> $1") && q6.contains("ORDER BY n DESC, o.src COLLATE \"C\" LIMIT 10"));
        assert!(lite[Kind::Q7.index()].1.contains("IN (?1, ?2, ?3, ?4, ?5)"));
        assert!(lite[Kind::UpsertNode.index()].1.contains("ON CONFLICT (id) DO UPDATE"));
    }

    fn options(path: &std::path::Path, writes: bool, timeout: Option<Duration>) -> Options {
        Options {
            engine: "sqlite".into(),
            target: path.display().to_string(),
            writes,
            memory_mb: None,
            timeout,
            user: None,
            password: None,
        }
    }

    #[test]
    fn sqlite_answers_match_brute_force_and_the_upsert_changes_nothing() {
        let spec = KgSpec::new(0.002, 7).unwrap();
        let r = Reference::new(&spec);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kg.sqlite");
        sqlite_db(&spec, &path);
        let mut c = Sqlite::open(&options(&path, false, None)).unwrap().connect().unwrap();
        for op in retrieval_ops(&r) {
            let got = c.run(&op).unwrap();
            if let Err(why) = check(op.kind, &got, &r.full(op.kind, &op.ids)) {
                panic!("{} {:?}: {why}", op.kind.name(), op.ids);
            }
        }
        let ents = &r.entities[..50];
        let props = entity_props(&r, ents);
        let dump = || -> Vec<Vec<Value>> {
            let c = rusqlite::Connection::open(&path).unwrap();
            let mut st = c.prepare("SELECT * FROM nodes ORDER BY id").unwrap();
            let n = st.column_count();
            st.query_map([], |row| (0..n).map(|i| row.get_ref(i).map(sqlite_json)).collect())
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap()
        };
        let before = dump();
        let eng = Sqlite::open(&options(&path, true, Some(Duration::from_secs(5)))).unwrap();
        assert_eq!(eng.durability()["synchronous"], "1");
        let mut c = eng.connect().unwrap();
        let ops = crate::workload::lightrag_ops(ents, &props, 1000, 1).unwrap();
        for op in &ops {
            let e = &op.ids[0];
            let mentions = r.adj(&r.inc, e, "MENTIONS");
            match (op.kind, c.run(op).unwrap()) {
                (Kind::GetNode, Answer::Row(Some(row))) => {
                    assert_eq!(
                        row,
                        vec![
                            json!("Entity"),
                            json!(props[e].canonical_title),
                            json!(props[e].entity_type)
                        ]
                    )
                }
                (Kind::GetNodeEdges, Answer::Pairs(p)) => {
                    assert!(p.iter().all(|(_, d)| d == e));
                    assert_eq!(p.len(), mentions.len());
                }
                (Kind::NodeDegree, Answer::Count(n)) => assert_eq!(n as usize, mentions.len()),
                (Kind::HasNode, Answer::Bool(b)) => assert!(b),
                (Kind::UpsertNode, Answer::Written) => {}
                (k, a) => panic!("{}: {a:?}", k.name()),
            }
        }
        assert!(ops.iter().filter(|o| o.kind == Kind::UpsertNode).count() > 100);
        assert_eq!(dump(), before);
    }

    #[test]
    fn sqlite_timeout_interrupts_the_statement() {
        let spec = KgSpec::new(0.002, 7).unwrap();
        let r = Reference::new(&spec);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kg.sqlite");
        sqlite_db(&spec, &path);
        let mut c = Sqlite::open(&options(&path, false, Some(Duration::ZERO)))
            .unwrap()
            .connect()
            .unwrap();
        let op = Op {
            kind: Kind::Q6,
            ids: vec![r.chunks[0].clone()],
            props: None,
        };
        assert!(matches!(c.run(&op), Err(QueryError::Timeout)));
    }
}
