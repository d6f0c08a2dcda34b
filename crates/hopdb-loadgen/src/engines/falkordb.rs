//! FalkorDB over RESP (the `redis` crate, one connection per client): the Cypher of
//! bench/engines/cypher.py, with Q6 counting `count(e)` as bench/engines/falkordb.py does
//! (FalkorDB 4.16 answers `count(*)` of that pattern wrongly), parameters in FalkorDB's
//! `CYPHER name=value` prefix, reads through GRAPH.RO_QUERY, the upsert through GRAPH.QUERY,
//! the per-query timeout as the command's TIMEOUT argument. The graph bench/deep loads also
//! holds every edge reversed (MENTIONS_REV, HAS_CHUNK_REV): every query names its edge types.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use redis::{IntoConnectionInfo, Value as R};
use serde_json::{json, Value};

use super::{list_answer, seeds, Answer, Client, Engine, Options, QResult, QueryError};
use crate::workload::{Kind, Op, LIMIT, TOP};

const CO: &str = "MATCH (c:Chunk {id: $id})-[:MENTIONS]->(e:Entity)<-[:MENTIONS]-(o:Chunk) WHERE o.id <> $id";
const TYPES: &str = "MENTIONS|HAS_CHUNK";

pub fn query(kind: Kind) -> String {
    match kind {
        Kind::Q1 => "MATCH (c:Chunk {id: $id}) RETURN c.doc_id, c.ordinal, c.word_count, c.section_title".into(),
        Kind::Q2 => format!("MATCH (c:Chunk {{id: $id}})-[:MENTIONS]->(e:Entity) RETURN e.id LIMIT {LIMIT}"),
        Kind::Q3 => format!("MATCH (e:Entity {{id: $id}})<-[:MENTIONS]-(c:Chunk) RETURN c.id LIMIT {LIMIT}"),
        Kind::Q4 => format!("{CO} RETURN DISTINCT o.id LIMIT {LIMIT}"),
        Kind::Q5 => "MATCH (d:Document {id: $id})-[:HAS_CHUNK]->(c:Chunk) RETURN c.id".into(),
        Kind::Q6 => format!("{CO} RETURN o.id AS id, count(e) AS n ORDER BY n DESC, id LIMIT {TOP}"),
        Kind::Q7 => format!(
            "MATCH (e:Entity)<-[:MENTIONS]-(c:Chunk) WHERE e.id IN $ids WITH DISTINCT c \
             MATCH (c)-[:MENTIONS]->(f:Entity) RETURN DISTINCT f.id LIMIT {LIMIT}"
        ),
        Kind::GetNode => "MATCH (n:Entity {id: $id}) RETURN labels(n)[0], n.canonical_title, n.entity_type".into(),
        Kind::GetNodeEdges => {
            format!("MATCH (n:Entity {{id: $id}})-[r:{TYPES}]-() RETURN startNode(r).id, endNode(r).id")
        }
        Kind::UpsertNode => "MERGE (n:Entity {id: $id}) SET n.canonical_title = $t, n.entity_type = $ty".into(),
        Kind::NodeDegree => format!("MATCH (n:Entity {{id: $id}}) OPTIONAL MATCH (n)-[r:{TYPES}]-() RETURN count(r)"),
        Kind::HasNode => "MATCH (n:Entity {id: $id}) RETURN 1 LIMIT 1".into(),
    }
}

/// A Cypher string literal.
fn lit(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// The query with its parameters in FalkorDB's `CYPHER k=v ...` prefix.
fn with_params(kind: Kind, op: &Op) -> std::result::Result<String, QueryError> {
    let ids = seeds(op)?;
    let params = match kind {
        Kind::Q7 => format!("ids=[{}]", ids.iter().map(|s| lit(s)).collect::<Vec<_>>().join(", ")),
        Kind::UpsertNode => {
            let p = op
                .props
                .as_ref()
                .ok_or_else(|| QueryError::Failed("upsert_node without properties".into()))?;
            format!(
                "id={} t={} ty={}",
                lit(&ids[0]),
                lit(&p.canonical_title),
                lit(&p.entity_type)
            )
        }
        _ => format!("id={}", lit(&ids[0])),
    };
    Ok(format!("CYPHER {params} {}", query(kind)))
}

/// `redis://HOST:PORT/GRAPH` -> (`redis://HOST:PORT`, GRAPH).
fn split_target(t: &str) -> Result<(String, String)> {
    let rest = t
        .strip_prefix("redis://")
        .with_context(|| format!("FalkorDB target {t:?} is not redis://HOST:PORT/GRAPH"))?;
    match rest.split_once('/') {
        Some((host, graph)) if !host.is_empty() && !graph.is_empty() => {
            Ok((format!("redis://{host}"), graph.to_string()))
        }
        _ => bail!("FalkorDB target {t:?} is not redis://HOST:PORT/GRAPH"),
    }
}

pub struct FalkorDB {
    client: redis::Client,
    graph: String,
    timeout: Option<Duration>,
    version: String,
    durability: Value,
}

impl FalkorDB {
    pub fn open(o: &Options) -> Result<FalkorDB> {
        let (url, graph) = split_target(&o.target)?;
        let mut info = url.as_str().into_connection_info().context("bad FalkorDB address")?;
        if o.user.is_some() || o.password.is_some() {
            info.redis.username = o.user.clone();
            info.redis.password = o.password.clone();
        }
        let client = redis::Client::open(info).context("bad FalkorDB address")?;
        let mut c = client
            .get_connection()
            .with_context(|| format!("cannot connect to FalkorDB at {url}"))?;
        let graphs: Vec<String> = redis::cmd("GRAPH.LIST")
            .query(&mut c)
            .with_context(|| format!("{url} does not answer GRAPH.LIST (no FalkorDB module?)"))?;
        if !graphs.contains(&graph) {
            bail!("FalkorDB at {url} has no graph {graph:?} (it has {graphs:?})");
        }
        let mut config = |k: &str| -> String {
            redis::cmd("CONFIG")
                .arg("GET")
                .arg(k)
                .query::<Vec<String>>(&mut c)
                .ok()
                .and_then(|v| v.get(1).cloned())
                .unwrap_or_else(|| "?".into())
        };
        let durability = json!({
            "appendonly": config("appendonly"),
            "appendfsync": config("appendfsync"),
            "save": config("save"),
            "meaning": "with appendonly=no a write is in memory only until the next SAVE (lost on kill -9); \
                        appendonly=yes + appendfsync=everysec loses at most about a second",
        });
        let server: String = redis::cmd("INFO").arg("server").query(&mut c).unwrap_or_default();
        let redis_v = server
            .lines()
            .find_map(|l| l.strip_prefix("redis_version:"))
            .unwrap_or("?")
            .trim()
            .to_string();
        Ok(FalkorDB {
            client,
            graph,
            timeout: o.timeout,
            version: format!("FalkorDB on redis-server {redis_v} (Rust redis crate, RESP)"),
            durability,
        })
    }
}

struct FalkorClient {
    c: redis::Connection,
    graph: String,
    timeout: Option<Duration>,
}

impl Engine for FalkorDB {
    fn connect(&self) -> Result<Box<dyn Client>> {
        let c = self.client.get_connection().context("cannot connect to FalkorDB")?;
        Ok(Box::new(FalkorClient {
            c,
            graph: self.graph.clone(),
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
        "one connection per client; parameterised Cypher (CYPHER prefix), GRAPH.RO_QUERY for reads, GRAPH.QUERY for the upsert; \
         Q6 counts count(e)"
            .into()
    }
}

/// A result cell as JSON (FalkorDB's verbose RESP2 format: strings as bulk strings).
fn cell(v: &R) -> Value {
    match v {
        R::Nil => Value::Null,
        R::Int(i) => json!(i),
        R::BulkString(b) => json!(String::from_utf8_lossy(b)),
        R::SimpleString(s) => json!(s),
        R::Double(f) => json!(f),
        R::Boolean(b) => json!(b),
        other => json!(format!("{other:?}")),
    }
}

impl Client for FalkorClient {
    fn run(&mut self, op: &Op) -> QResult {
        let q = with_params(op.kind, op)?;
        let mut cmd = redis::cmd(if op.kind == Kind::UpsertNode {
            "GRAPH.QUERY"
        } else {
            "GRAPH.RO_QUERY"
        });
        cmd.arg(&self.graph).arg(q);
        if let Some(t) = self.timeout {
            cmd.arg("TIMEOUT").arg(t.as_millis().max(1) as u64);
        }
        let reply: R = cmd.query(&mut self.c).map_err(|e| {
            if e.to_string().contains("timed out") {
                QueryError::Timeout
            } else {
                QueryError::Failed(e.to_string())
            }
        })?;
        if op.kind == Kind::UpsertNode {
            return Ok(Answer::Written);
        }
        // [header, rows, statistics]
        let rows: Vec<Vec<Value>> = match &reply {
            R::Array(parts) if parts.len() == 3 => match &parts[1] {
                R::Array(rows) => rows
                    .iter()
                    .map(|r| match r {
                        R::Array(cells) => cells.iter().map(cell).collect(),
                        other => vec![cell(other)],
                    })
                    .collect(),
                other => return Err(QueryError::Failed(format!("unexpected rows {other:?}"))),
            },
            other => return Err(QueryError::Failed(format!("unexpected reply {other:?}"))),
        };
        Ok(match op.kind {
            Kind::Q1 | Kind::GetNode => Answer::Row(rows.into_iter().next()),
            Kind::HasNode => Answer::Bool(!rows.is_empty()),
            _ => list_answer(op.kind, &rows)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_cypher_literals() {
        let op = Op {
            kind: Kind::Q7,
            ids: ["e1", "it's", "a\\b", "e4", "e5"].map(String::from).to_vec(),
            props: None,
        };
        let q = with_params(Kind::Q7, &op).unwrap();
        assert!(
            q.starts_with(r"CYPHER ids=['e1', 'it\'s', 'a\\b', 'e4', 'e5'] MATCH"),
            "{q}"
        );
        assert_eq!(
            split_target("redis://127.0.0.1:6380/kg").unwrap(),
            ("redis://127.0.0.1:6380".to_string(), "kg".to_string())
        );
        assert!(split_target("redis://127.0.0.1:6380").is_err());
    }
}
