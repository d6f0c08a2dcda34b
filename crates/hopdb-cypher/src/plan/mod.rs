//! Planning: checks a parsed statement once, records what it needs (a write transaction or
//! a snapshot), and caches the result by query text so that a repeated query does no
//! parsing or planning. Parameters are bound per run, never inlined into the plan.

use crate::ast::{Clause, Expr, Query, SchemaCommand, Statement, Subquery};
use crate::error::Result;
use std::sync::{Arc, Mutex};

mod semantic;
pub(crate) use semantic::contains_aggregate;

/// A checked statement, ready to run any number of times.
#[derive(Debug)]
pub struct Plan {
    /// The statement.
    pub statement: Statement,
    /// Whether it only reads (runs on a snapshot, without the writer lock).
    pub read_only: bool,
}

impl Plan {
    /// Parses and checks `text`.
    pub fn compile(text: &str) -> Result<Plan> {
        let statement = crate::parser::parse(text)?;
        semantic::check(&statement)?;
        let read_only = statement_reads_only(&statement);
        Ok(Plan { statement, read_only })
    }

    /// The query, unwrapping EXPLAIN / PROFILE; `None` for schema commands.
    pub fn query(&self) -> Option<&Query> {
        fn inner(s: &Statement) -> Option<&Query> {
            match s {
                Statement::Query(q) => Some(q),
                Statement::Explain(s) | Statement::Profile(s) => inner(s),
                Statement::Schema(_) => None,
            }
        }
        inner(&self.statement)
    }

    /// The result's column names when the text fixes them (a query ending in a `RETURN`
    /// without `*`: its items; one ending in an update: none); `None` otherwise (`RETURN *`, a
    /// standalone CALL, schema commands, EXPLAIN / PROFILE).
    pub fn result_columns(&self) -> Option<Vec<String>> {
        let Statement::Query(q) = &self.statement else {
            return None;
        };
        match q.first.clauses.last()? {
            Clause::Return(p) if !p.star => Some(p.items.iter().map(|i| i.name().to_string()).collect()),
            Clause::Return(_) | Clause::Call(_) | Clause::Match { .. } | Clause::With(_) | Clause::Unwind { .. } => {
                None
            }
            _ => Some(Vec::new()),
        }
    }

    /// The schema command, unwrapping EXPLAIN / PROFILE.
    pub fn schema(&self) -> Option<&SchemaCommand> {
        fn inner(s: &Statement) -> Option<&SchemaCommand> {
            match s {
                Statement::Schema(c) => Some(c),
                Statement::Explain(s) | Statement::Profile(s) => inner(s),
                Statement::Query(_) => None,
            }
        }
        inner(&self.statement)
    }
}

fn statement_reads_only(s: &Statement) -> bool {
    match s {
        Statement::Query(q) => query_reads_only(q),
        Statement::Explain(s) | Statement::Profile(s) => statement_reads_only(s),
        Statement::Schema(c) => c.reads_only(),
    }
}

fn query_reads_only(q: &Query) -> bool {
    std::iter::once(&q.first)
        .chain(q.unions.iter().map(|(_, s)| s))
        .all(|sq| sq.clauses.iter().all(clause_reads_only))
}

fn clause_reads_only(c: &Clause) -> bool {
    match c {
        Clause::Match { where_, .. } => where_.as_ref().is_none_or(expr_reads_only),
        Clause::Unwind { expr, .. } => expr_reads_only(expr),
        Clause::With(p) | Clause::Return(p) => p.items.iter().all(|i| expr_reads_only(&i.expr)),
        Clause::Call(c) => !crate::exec::procedures::writes(&c.name),
        _ => false,
    }
}

fn expr_reads_only(e: &Expr) -> bool {
    match e {
        Expr::Exists(sq) | Expr::CountSubquery(sq) => match sq.as_ref() {
            Subquery::Query(q) => query_reads_only(q),
            Subquery::Pattern { .. } => true,
        },
        _ => true,
    }
}

/// Plans by query text, bounded: when full, the cache is cleared (simple and predictable;
/// a workload rarely has more distinct texts than the bound).
#[derive(Debug, Default)]
pub struct PlanCache {
    plans: Mutex<rustc_hash::FxHashMap<Arc<str>, Arc<Plan>>>,
}

/// Most distinct query texts kept.
const CACHE_CAPACITY: usize = 4096;

impl PlanCache {
    /// The plan for `text`, compiled on first use.
    pub fn get(&self, text: &str) -> Result<(Arc<Plan>, bool)> {
        if let Ok(m) = self.plans.lock() {
            if let Some(p) = m.get(text) {
                return Ok((p.clone(), true));
            }
        }
        let plan = Arc::new(Plan::compile(text)?);
        if let Ok(mut m) = self.plans.lock() {
            if m.len() >= CACHE_CAPACITY {
                m.clear();
            }
            m.insert(text.into(), plan.clone());
        }
        Ok((plan, false))
    }

    /// Number of cached plans.
    pub fn len(&self) -> usize {
        self.plans.lock().map(|m| m.len()).unwrap_or(0)
    }

    /// Whether no plan is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets every plan (after schema changes).
    pub fn clear(&self) {
        if let Ok(mut m) = self.plans.lock() {
            m.clear();
        }
    }
}
