//! What the Bolt engines share: an [`Op`]'s parameters and its answer from the rows, and
//! Neo4j's client (`neo4rs` 0.8, async on tokio: each client owns one connection and drives it
//! from its own current-thread runtime, so N clients are N OS threads as for the other engines).
//! neo4rs 0.8 offers only Bolt 4.1 and 4.0, which `hopdb serve` (4.4, 5.0-5.8) does not speak:
//! hopdb_bolt.rs has its own blocking Bolt 4.4 client on hopdb-bolt's PackStream.

use anyhow::{Context, Result};
use neo4rs::{BoltType, ConfigBuilder, Graph};
use serde_json::Value;

use super::{list_answer, seeds, Answer, QResult, QueryError};
use crate::workload::{Kind, Op};

/// A query parameter of the mixes.
#[derive(Debug, Clone)]
pub enum Param {
    Str(String),
    List(Vec<String>),
}

/// `op`'s parameters: `$id` (`$ids` for Q7; `$t`, `$ty` for the upsert).
pub fn op_params(op: &Op) -> std::result::Result<Vec<(&'static str, Param)>, QueryError> {
    let ids = seeds(op)?;
    let mut params = Vec::new();
    if op.kind == Kind::Q7 {
        params.push(("ids", Param::List(ids.to_vec())));
    } else {
        params.push(("id", Param::Str(ids[0].clone())));
    }
    if op.kind == Kind::UpsertNode {
        let p = op
            .props
            .as_ref()
            .ok_or_else(|| QueryError::Failed("upsert_node without properties".into()))?;
        params.push(("t", Param::Str(p.canonical_title.clone())));
        params.push(("ty", Param::Str(p.entity_type.clone())));
    }
    Ok(params)
}

/// `op`'s answer from its rows of JSON cells, the columns in the order of the check.
pub fn answer(kind: Kind, rows: &[Vec<Value>]) -> QResult {
    let col = |r: &Vec<Value>, i: usize| r.get(i).cloned().unwrap_or(Value::Null);
    Ok(match kind {
        Kind::UpsertNode => Answer::Written,
        Kind::Q1 => Answer::Row(rows.first().map(|r| (0..4).map(|i| col(r, i)).collect())),
        Kind::GetNode => Answer::Row(rows.first().map(|r| (0..3).map(|i| col(r, i)).collect())),
        Kind::HasNode => Answer::Bool(!rows.is_empty()),
        _ => list_answer(kind, rows)?,
    })
}

/// Where and as whom to connect (neo4rs).
#[derive(Clone)]
pub struct BoltTarget {
    pub uri: String,
    pub user: String,
    pub password: String,
}

impl BoltTarget {
    pub fn connect(&self) -> Result<BoltClient> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot start a tokio runtime")?;
        let cfg = ConfigBuilder::default()
            .uri(self.uri.trim_start_matches("bolt://"))
            .user(self.user.as_str())
            .password(self.password.as_str())
            .max_connections(1)
            .build()
            .context("bad Neo4j address")?;
        let g = rt
            .block_on(Graph::connect(cfg))
            .with_context(|| format!("cannot connect to Neo4j at {}", self.uri))?;
        Ok(BoltClient { rt, g })
    }
}

/// One neo4rs connection on its own runtime.
pub struct BoltClient {
    rt: tokio::runtime::Runtime,
    g: Graph,
}

impl BoltClient {
    /// The rows of `q`, each the values of `cols` in order (up to the first column missing).
    pub fn rows(
        &mut self,
        q: &str,
        params: &[(&str, Param)],
        cols: &[&str],
    ) -> std::result::Result<Vec<Vec<Value>>, QueryError> {
        let mut query = neo4rs::query(q);
        for (k, v) in params {
            let v: BoltType = match v {
                Param::Str(s) => s.clone().into(),
                Param::List(l) => l.clone().into(),
            };
            query = query.param(k, v);
        }
        let fail = |e: neo4rs::Error| QueryError::Failed(e.to_string());
        self.rt.block_on(async {
            let mut s = self.g.execute(query).await.map_err(fail)?;
            let mut out = Vec::new();
            while let Some(row) = s.next().await.map_err(fail)? {
                out.push(cols.iter().map_while(|c| row.get::<Value>(c).ok()).collect());
            }
            Ok(out)
        })
    }

    /// Runs `op` as `text` and reads its answer from the columns `cols`.
    pub fn run_op(&mut self, op: &Op, text: &str, cols: &[&str]) -> QResult {
        let rows = self.rows(text, &op_params(op)?, cols)?;
        answer(op.kind, &rows)
    }
}
