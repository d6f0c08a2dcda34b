//! One client per engine: each runs an [`Op`] to its last row and hands the rows back.

use std::time::Duration;

use anyhow::{bail, Result};
use serde_json::{json, Value};

use crate::workload::{Kind, Op};

mod bolt;
pub mod falkordb;
pub mod hopdb;
pub mod hopdb_bolt;
pub mod neo4j;
pub mod sql;
#[cfg(test)]
mod testkg;

/// The rows of one operation, as the check compares them.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Q1 (doc_id, ordinal, word_count, section_title), get_node (the properties); None: no node.
    Row(Option<Vec<Value>>),
    /// Q2-Q5, Q7.
    Ids(Vec<String>),
    /// Q6: (id, paths).
    Counts(Vec<(String, i64)>),
    /// get_node_edges: (src, dst).
    Pairs(Vec<(String, String)>),
    /// node_degree.
    Count(i64),
    /// has_node.
    Bool(bool),
    /// upsert_node.
    Written,
}

impl Answer {
    pub fn to_json(&self) -> Value {
        match self {
            Answer::Row(r) => json!(r),
            Answer::Ids(v) => json!(v),
            Answer::Counts(v) => json!(v),
            Answer::Pairs(v) => json!(v),
            Answer::Count(n) => json!(n),
            Answer::Bool(b) => json!(b),
            Answer::Written => Value::Null,
        }
    }
}

/// Why an operation failed; `Timeout` and `Busy` are counted under their own names.
#[derive(Debug)]
pub enum QueryError {
    Timeout,
    /// SQLite's lock wait ran past busy_timeout.
    Busy,
    Failed(String),
}

impl QueryError {
    pub fn message(&self) -> String {
        match self {
            QueryError::Timeout => "timeout".into(),
            QueryError::Busy => "busy (SQLITE_BUSY after busy_timeout)".into(),
            QueryError::Failed(m) => m.clone(),
        }
    }
}

pub type QResult = std::result::Result<Answer, QueryError>;

/// The answer of a list-shaped kind (Q2-Q7, get_node_edges, node_degree) from rows of JSON
/// cells, for the clients whose drivers hand rows over as values (SQLite, FalkorDB, Bolt).
pub fn list_answer(kind: Kind, rows: &[Vec<Value>]) -> QResult {
    let cell = |r: &[Value], i: usize| r.get(i).cloned().unwrap_or(Value::Null);
    let text = |v: Value| {
        v.as_str()
            .map(str::to_owned)
            .ok_or_else(|| QueryError::Failed(format!("expected an id, got {v}")))
    };
    let int = |v: Value| {
        v.as_i64()
            .ok_or_else(|| QueryError::Failed(format!("expected an integer, got {v}")))
    };
    Ok(match kind {
        Kind::Q6 => Answer::Counts(
            rows.iter()
                .map(|r| Ok((text(cell(r, 0))?, int(cell(r, 1))?)))
                .collect::<std::result::Result<_, QueryError>>()?,
        ),
        Kind::GetNodeEdges => Answer::Pairs(
            rows.iter()
                .map(|r| Ok((text(cell(r, 0))?, text(cell(r, 1))?)))
                .collect::<std::result::Result<_, QueryError>>()?,
        ),
        Kind::NodeDegree => Answer::Count(rows.first().map_or(Ok(0), |r| int(cell(r, 0)))?),
        _ => Answer::Ids(
            rows.iter()
                .map(|r| text(cell(r, 0)))
                .collect::<std::result::Result<_, _>>()?,
        ),
    })
}

/// One client's connection (or handle).
pub trait Client: Send {
    fn run(&mut self, op: &Op) -> QResult;
}

/// An opened target: makes clients and says what it is.
pub trait Engine: Sync {
    fn connect(&self) -> Result<Box<dyn Client>>;
    fn version(&self) -> String;
    /// How durable a write is, read from the target where it can be.
    fn durability(&self) -> Value;
    fn notes(&self) -> String;
}

/// What the command line asks of the engine.
pub struct Options {
    pub engine: String,
    pub target: String,
    /// The LightRAG mix writes: the target is opened read-write.
    pub writes: bool,
    pub memory_mb: Option<usize>,
    pub timeout: Option<Duration>,
    pub user: Option<String>,
    pub password: Option<String>,
}

pub const ENGINES: [&str; 6] = ["hopdb", "postgres", "sqlite", "falkordb", "neo4j", "hopdb-bolt"];

pub fn open(o: &Options) -> Result<Box<dyn Engine>> {
    if o.memory_mb.is_some() && o.engine != "hopdb" {
        bail!(
            "--memory-mb sizes HopDB's caches; {} is capped from outside (cgroup, prlimit)",
            o.engine
        );
    }
    match o.engine.as_str() {
        "hopdb" => Ok(Box::new(hopdb::HopDB::open(o)?)),
        "postgres" => Ok(Box::new(sql::Postgres::open(o)?)),
        "sqlite" => Ok(Box::new(sql::Sqlite::open(o)?)),
        "falkordb" => Ok(Box::new(falkordb::FalkorDB::open(o)?)),
        "neo4j" => Ok(Box::new(neo4j::Neo4j::open(o)?)),
        "hopdb-bolt" => Ok(Box::new(hopdb_bolt::HopDBBolt::open(o)?)),
        other => bail!("unknown engine {other:?} (known: {})", ENGINES.join(", ")),
    }
}

/// Kinds of the retrieval mix take one seed except Q7; a wrong count is a caller bug the
/// clients report instead of panicking on.
pub fn seeds(op: &Op) -> std::result::Result<&[String], QueryError> {
    let want = if op.kind == Kind::Q7 { 5 } else { 1 };
    if op.ids.len() == want {
        Ok(&op.ids)
    } else {
        Err(QueryError::Failed(format!(
            "{} takes {want} seed ids, got {}",
            op.kind.name(),
            op.ids.len()
        )))
    }
}
