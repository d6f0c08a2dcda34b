//! HopDB over Bolt: `hopdb serve STORE` or a cluster's query node (`hopdb serve --cluster`),
//! one connection per client. neo4rs 0.8 (the Neo4j engine's client) offers only Bolt 4.1 and 4.0, which the
//! server does not speak (4.4, 5.0-5.8), so each client here is a blocking Bolt 4.4 connection
//! on hopdb-bolt's PackStream and chunking: RUN + PULL pipelined in one write, auto-commit,
//! --timeout-ms sent as RUN's `tx_timeout` (a timed-out query is the error "timeout"). The
//! parameters and the answers are bolt.rs's, shared with the Neo4j engine.
//!
//! Q1-Q7 are the "lean" Cypher of bench/engines/hopdb_cypher.py (RETRIEVAL["lean"]), text for
//! text: the node key is the property `_key` (HopDB's key index: `{_key: $id}` is a key lookup),
//! labels the schema implies are left out, the co-occurrence excludes the chunk itself by
//! `WHERE o <> c`, and Q7 unwinds its seeds into `{_key: i}`. Columns are read by position. The
//! LightRAG calls are the Neo4j engine's, on `_key` (the upsert writes; serve the store
//! without `--read-only`).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use hopdb_bolt::chunk::chunk_into;
use hopdb_bolt::handshake::MAGIC;
use hopdb_bolt::message::msg;
use hopdb_bolt::packstream::{self, DecodeLimits};
use hopdb_bolt::{Dechunker, Value as Bolt};
use serde_json::{json, Value};

use super::bolt::{answer, op_params, Param};
use super::{Client, Engine, Options, QResult, QueryError};
use crate::workload::{Kind, Op, LIMIT, TOP};

const CO: &str = "MATCH (c {_key: $id})-[:MENTIONS]->()<-[:MENTIONS]-(o) WHERE o <> c";

/// The query text of a kind.
pub fn query(kind: Kind) -> String {
    match kind {
        Kind::Q1 => "MATCH (c {_key: $id}) RETURN c.doc_id, c.ordinal, c.word_count, c.section_title".into(),
        Kind::Q2 => format!("MATCH ({{_key: $id}})-[:MENTIONS]->(e) RETURN e._key LIMIT {LIMIT}"),
        Kind::Q3 => format!("MATCH ({{_key: $id}})<-[:MENTIONS]-(c) RETURN c._key LIMIT {LIMIT}"),
        Kind::Q4 => format!("{CO} RETURN DISTINCT o._key LIMIT {LIMIT}"),
        Kind::Q5 => "MATCH ({_key: $id})-[:HAS_CHUNK]->(c) RETURN c._key".into(),
        Kind::Q6 => format!("{CO} RETURN o._key AS id, count(*) AS n ORDER BY n DESC, id LIMIT {TOP}"),
        Kind::Q7 => format!(
            "UNWIND $ids AS i MATCH ({{_key: i}})<-[:MENTIONS]-(c) WITH DISTINCT c \
             MATCH (c)-[:MENTIONS]->(f) RETURN DISTINCT f._key LIMIT {LIMIT}"
        ),
        Kind::GetNode => {
            "MATCH (n:Entity {_key: $id}) RETURN labels(n)[0] AS a, n.canonical_title AS b, n.entity_type AS c".into()
        }
        Kind::GetNodeEdges => {
            "MATCH (n:Entity {_key: $id})-[r]-() RETURN startNode(r)._key AS a, endNode(r)._key AS b".into()
        }
        Kind::UpsertNode => "MERGE (n:Entity {_key: $id}) SET n.canonical_title = $t, n.entity_type = $ty".into(),
        Kind::NodeDegree => "MATCH (n:Entity {_key: $id}) RETURN size([(n)--() | 1]) AS a".into(),
        Kind::HasNode => "MATCH (n:Entity {_key: $id}) RETURN 1 AS a LIMIT 1".into(),
    }
}

pub struct HopDBBolt {
    addr: String,
    user: String,
    password: String,
    timeout: Option<Duration>,
}

impl HopDBBolt {
    pub fn open(o: &Options) -> Result<HopDBBolt> {
        let h = HopDBBolt {
            addr: o.target.trim_start_matches("bolt://").to_owned(),
            user: o.user.clone().unwrap_or_default(),
            password: o.password.clone().unwrap_or_default(),
            timeout: o.timeout,
        };
        let r = h
            .client()?
            .rows("RETURN 1 AS a", &[])
            .map_err(|e| anyhow!("hopdb serve at {} does not answer: {}", o.target, e.message()))?;
        if r != vec![vec![json!(1)]] {
            bail!("hopdb serve at {} answers RETURN 1 with {r:?}", o.target);
        }
        Ok(h)
    }

    fn client(&self) -> Result<BoltConn> {
        let what = || format!("cannot connect to hopdb serve at {}", self.addr);
        let mut stream = TcpStream::connect(&self.addr).with_context(what)?;
        stream.set_nodelay(true).with_context(what)?;
        let mut hs = MAGIC.to_vec();
        hs.extend_from_slice(&[0, 0, 4, 4]); // Bolt 4.4 only
        hs.extend_from_slice(&[0; 12]);
        stream.write_all(&hs).with_context(what)?;
        let mut reply = [0u8; 4];
        stream.read_exact(&mut reply).with_context(what)?;
        if reply != [0, 0, 4, 4] {
            bail!(
                "hopdb serve at {} does not speak Bolt 4.4 (handshake reply {reply:?})",
                self.addr
            );
        }
        let mut c = BoltConn {
            stream,
            dechunker: Dechunker::default(),
            tx_timeout: self.timeout.map(|t| i64::try_from(t.as_millis()).unwrap_or(i64::MAX)),
        };
        let mut hello = vec![(
            "user_agent",
            Bolt::from(concat!("hopdb-loadgen/", env!("CARGO_PKG_VERSION"))),
        )];
        if self.user.is_empty() {
            hello.push(("scheme", "none".into()));
        } else {
            hello.push(("scheme", "basic".into()));
            hello.push(("principal", self.user.as_str().into()));
            hello.push(("credentials", self.password.as_str().into()));
        }
        let hello_failed = |e: QueryError| anyhow!("HELLO to hopdb serve at {}: {}", self.addr, e.message());
        c.send(&[message(msg::HELLO, vec![Bolt::map(hello)])?])
            .map_err(hello_failed)?;
        match c.recv().map_err(hello_failed)? {
            (msg::SUCCESS, _) => Ok(c),
            (_, f) => bail!("hopdb serve at {} refuses HELLO: {}", self.addr, failure(&f)),
        }
    }
}

fn message(tag: u8, fields: Vec<Bolt>) -> Result<Vec<u8>> {
    packstream::to_bytes(&Bolt::Structure { tag, fields }).map_err(|e| anyhow!("cannot encode a message: {e}"))
}

/// "code: message" of a FAILURE's metadata.
fn failure(fields: &[Bolt]) -> String {
    let get = |k: &str| match fields.first() {
        Some(Bolt::Map(m)) => m.iter().find(|(n, _)| n == k).map(|(_, v)| to_json(v).to_string()),
        _ => None,
    };
    format!(
        "{}: {}",
        get("code").unwrap_or_default(),
        get("message").unwrap_or_default()
    )
}

fn to_json(v: &Bolt) -> Value {
    match v {
        Bolt::Null => Value::Null,
        Bolt::Boolean(b) => json!(b),
        Bolt::Integer(i) => json!(i),
        Bolt::Float(f) => json!(f),
        Bolt::String(s) => json!(s),
        Bolt::List(l) => Value::Array(l.iter().map(to_json).collect()),
        Bolt::Map(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), to_json(v))).collect()),
        Bolt::Bytes(_) | Bolt::Structure { .. } => json!(format!("{v:?}")),
    }
}

/// One Bolt 4.4 connection, HELLO'd.
struct BoltConn {
    stream: TcpStream,
    dechunker: Dechunker,
    tx_timeout: Option<i64>,
}

type Fail<T> = std::result::Result<T, QueryError>;

fn io(e: impl std::fmt::Display) -> QueryError {
    QueryError::Failed(format!("Bolt connection: {e}"))
}

impl BoltConn {
    fn send(&mut self, messages: &[Vec<u8>]) -> Fail<()> {
        let mut out = Vec::new();
        for m in messages {
            chunk_into(m, &mut out);
        }
        self.stream.write_all(&out).map_err(io)
    }

    /// The next message: (tag, fields).
    fn recv(&mut self) -> Fail<(u8, Vec<Bolt>)> {
        loop {
            if let Some(m) = self.dechunker.next_message().map_err(io)? {
                return match packstream::decode(&m, &DecodeLimits::default()).map_err(io)? {
                    Bolt::Structure { tag, fields } => Ok((tag, fields)),
                    v => Err(io(format!("not a message: {v:?}"))),
                };
            }
            let mut buf = [0u8; 16384];
            let n = self.stream.read(&mut buf).map_err(io)?;
            if n == 0 {
                return Err(io("closed by the server"));
            }
            self.dechunker.push(&buf[..n]);
        }
    }

    /// RUN + PULL all: the records, each its values in column order. After a FAILURE the
    /// connection is RESET for the next query.
    fn rows(&mut self, q: &str, params: &[(&str, Param)]) -> Fail<Vec<Vec<Value>>> {
        let params = Bolt::map(params.iter().map(|(k, v)| {
            let v = match v {
                Param::Str(s) => Bolt::from(s.as_str()),
                Param::List(l) => Bolt::List(l.iter().map(|s| Bolt::from(s.as_str())).collect()),
            };
            (*k, v)
        }));
        let extra = Bolt::map(self.tx_timeout.map(|t| ("tx_timeout", Bolt::Integer(t))));
        let run = message(msg::RUN, vec![q.into(), params, extra]).map_err(io)?;
        let pull = message(msg::PULL, vec![Bolt::map([("n", -1i64)])]).map_err(io)?;
        self.send(&[run, pull])?;
        let mut out = Vec::new();
        let mut err = None;
        for _ in 0..2 {
            loop {
                match self.recv()? {
                    (msg::RECORD, mut f) => match f.pop() {
                        Some(Bolt::List(vals)) => out.push(vals.iter().map(to_json).collect()),
                        other => return Err(io(format!("bad RECORD {other:?}"))),
                    },
                    (msg::SUCCESS | msg::IGNORED, _) => break,
                    (_, f) => {
                        err.get_or_insert(failure(&f));
                        break;
                    }
                }
            }
        }
        let Some(e) = err else { return Ok(out) };
        self.send(&[message(msg::RESET, Vec::new()).map_err(io)?])?;
        while !matches!(self.recv()?.0, msg::SUCCESS | msg::FAILURE) {}
        Err(if e.contains("TimedOut") {
            QueryError::Timeout
        } else {
            QueryError::Failed(e)
        })
    }
}

impl Client for BoltConn {
    fn run(&mut self, op: &Op) -> QResult {
        let rows = self.rows(&query(op.kind), &op_params(op)?)?;
        answer(op.kind, &rows)
    }
}

impl Engine for HopDBBolt {
    fn connect(&self) -> Result<Box<dyn Client>> {
        Ok(Box::new(self.client()?))
    }
    fn version(&self) -> String {
        "HopDB over Bolt (hopdb serve, worker pool; the load generator's blocking Bolt 4.4 client)".into()
    }
    fn durability(&self) -> Value {
        json!("as the server acknowledges: a store's commit (its durability setting), a cluster's PostgreSQL commit")
    }
    fn notes(&self) -> String {
        format!(
            "one Bolt 4.4 connection per client (blocking socket, RUN + PULL in one write) to `hopdb serve` \
             (its worker pool); the lean Cypher of bench/engines/hopdb_cypher.py, parameterised, auto-commit; {}",
            match self.timeout {
                Some(t) => format!("per-query timeout {} ms (RUN's tx_timeout)", t.as_millis()),
                None => "no per-query timeout".into(),
            }
        )
    }
}
