//! The full-text procedures: `db.index.fulltext.queryNodes(indexName, query[, options])`
//! (fields `node`, `score`; options `skip`, `limit`),
//! `db.index.fulltext.listAvailableAnalyzers()`, and the waits for index population
//! (`db.awaitIndexes([seconds])`, `db.index.fulltext.awaitEventuallyConsistentIndexRefresh()`),
//! which return at once: HopDB's indexes are complete when their transaction commits.

use super::ProcOutput;
use crate::error::Result;
use crate::exec::ctx::Ctx;
use crate::fulltext::{self, analyzer};
use crate::value::{NodeRef, Value};

pub(super) const PROCEDURES: &[(&str, &[&str])] = &[
    ("db.index.fulltext.querynodes", &["node", "score"]),
    (
        "db.index.fulltext.listavailableanalyzers",
        &["analyzer", "description", "stopwords"],
    ),
    ("db.awaitindexes", &[]),
    ("db.index.fulltext.awaiteventuallyconsistentindexrefresh", &[]),
];

pub(super) fn invoke(ctx: &Ctx, lower: &str, args: &[Value]) -> Option<Result<ProcOutput>> {
    let fields = PROCEDURES.iter().find(|(n, _)| *n == lower)?.1;
    let rows = match lower {
        "db.index.fulltext.querynodes" => query_nodes(ctx, args),
        "db.index.fulltext.listavailableanalyzers" => Ok(analyzer::NAMES
            .iter()
            .map(|n| {
                vec![
                    Value::String(n.to_string()),
                    Value::String(format!("the {n} analyzer")),
                    Value::List(Vec::new()),
                ]
            })
            .collect()),
        // Indexes here are complete when their transaction commits: nothing to wait for. One
        // empty row, so a CALL inside a query keeps its input rows (a void procedure).
        "db.awaitindexes" | "db.index.fulltext.awaiteventuallyconsistentindexrefresh" => {
            if args.len() > 1 {
                return Some(Err(fulltext::failed(
                    "db.awaitIndexes takes at most one argument (seconds)",
                )));
            }
            Ok(vec![Vec::new()])
        }
        _ => return None,
    };
    Some(rows.map(|rows| ProcOutput {
        fields: fields.iter().map(|f| f.to_string()).collect(),
        rows,
    }))
}

fn query_nodes(ctx: &Ctx, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    let (name, text) = match args {
        [Value::String(n), Value::String(q)] | [Value::String(n), Value::String(q), _] => (n, q),
        _ => {
            return Err(fulltext::failed(
                "expected (indexName :: STRING, queryString :: STRING[, options :: MAP])",
            ))
        }
    };
    let (mut skip, mut limit) = (0usize, usize::MAX);
    match args.get(2) {
        None | Some(Value::Null) => {}
        Some(Value::Map(m)) => {
            for (k, v) in m {
                let n = match v {
                    Value::Int(i) if *i >= 0 => *i as usize,
                    _ => return Err(fulltext::failed(format!("option `{k}` must be a non-negative integer"))),
                };
                match k.as_str() {
                    "skip" => skip = n,
                    "limit" => limit = n,
                    _ => return Err(fulltext::failed(format!("option `{k}` is not supported (skip, limit)"))),
                }
            }
        }
        Some(o) => {
            return Err(fulltext::failed(format!(
                "options must be a map, not {}",
                o.type_name()
            )))
        }
    }
    let g = ctx.read();
    let def = g
        .fulltext_indexes()?
        .into_iter()
        .find(|d| &d.name == name)
        .ok_or_else(|| fulltext::failed(format!("There is no such fulltext schema index: {name}")))?;
    let hits = fulltext::search(g, &def, text, &|| ctx.check())?;
    Ok(hits
        .into_iter()
        .skip(skip)
        .take(limit)
        .map(|(key, score)| vec![Value::Node(NodeRef::new(key)), Value::Float(score)])
        .collect())
}
