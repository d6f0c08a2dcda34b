//! The entry point: [`QueryEngine`] runs Cypher text against a [`Database`].

use crate::ast::{Clause, SchemaCommand, SchemaTarget, Statement};
use crate::error::{CypherError, ErrorClass, Result};
use crate::exec::ctx::{Ctx, Store};
use crate::exec::procedures::registry::{ProcedureFn, ProcedureRegistry, ProcedureSignature};
use crate::exec::{self, Table};
use crate::plan::{Plan, PlanCache};
use crate::result::{PlanDescription, QueryResult, QueryStats, Row};
use crate::value::Value;
use hopdb_database::{Control, Database, GraphRead, WriteTxn};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// Query parameters by name.
pub type Params = HashMap<String, Value>;

/// The property name under which Cypher sees a node's store key: `MATCH (n {_key: $k})` is a
/// direct key-index read, `CREATE (n {_key: 'x'})` chooses the key, and `n._key` reads it.
/// It is not listed by `keys(n)` or `properties(n)`. Nodes created without it get an integer
/// key chosen by the store.
pub const KEY_PROPERTY: &str = "_key";

/// Per-query limits.
#[derive(Debug, Clone, Default)]
pub struct QueryOptions {
    /// Timeout, cancel flag and memory bound (the analytics layer's [`Control`]).
    pub control: Control,
}

/// Runs Cypher against one database. Cheap to clone; share it between threads. Plans are
/// cached by query text for the engine's lifetime.
#[derive(Clone)]
pub struct QueryEngine {
    db: Database,
    cache: Arc<PlanCache>,
    procedures: ProcedureRegistry,
}

impl std::fmt::Debug for QueryEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryEngine")
            .field("cached_plans", &self.cache.len())
            .finish_non_exhaustive()
    }
}

impl QueryEngine {
    /// An engine over `db`.
    pub fn new(db: Database) -> QueryEngine {
        QueryEngine {
            db,
            cache: Arc::new(PlanCache::default()),
            procedures: ProcedureRegistry::default(),
        }
    }

    /// The database queried.
    pub fn database(&self) -> &Database {
        &self.db
    }

    /// Registers a user-defined procedure, callable as `CALL name(...)` by this engine and
    /// its clones (replacing one of the same name; built-in names are refused). See
    /// [`ProcedureSignature`] for the calling rules.
    pub fn register_procedure(&self, signature: ProcedureSignature, body: ProcedureFn) -> Result<()> {
        self.procedures.register(signature, body)
    }

    /// Removes a user-defined procedure; whether it was registered.
    pub fn unregister_procedure(&self, name: &str) -> bool {
        self.procedures.unregister(name)
    }

    /// The user-defined procedures' signatures, by name.
    pub fn procedures(&self) -> Vec<ProcedureSignature> {
        self.procedures.signatures()
    }

    /// The plan cache (for inspection and tests).
    pub fn plan_cache(&self) -> &PlanCache {
        &self.cache
    }

    /// Runs one statement as its own transaction.
    pub fn query(&self, text: &str, params: &Params) -> Result<QueryResult> {
        self.query_with(text, params, &QueryOptions::default())
    }

    /// Runs one statement as its own transaction, under `opts`. A statement that writes is
    /// atomic: when it fails, nothing it did is kept.
    pub fn query_with(&self, text: &str, params: &Params, opts: &QueryOptions) -> Result<QueryResult> {
        let (plan, _cached) = self.cache.get(text)?;
        if let Some(cmd) = plan.schema() {
            let r = self.run_schema(cmd);
            self.cache.clear();
            return r;
        }
        if let Statement::Explain(_) = plan.statement {
            return Ok(explain(&plan));
        }
        let store = if plan.read_only {
            Store::Read(self.db.graph().read())
        } else {
            Store::Write(Box::new(self.db.graph().write()?))
        };
        let (result, store) = self.run(&plan, store, params, opts)?;
        if let Store::Write(tx) = store {
            tx.commit()?;
        }
        Ok(result)
    }

    fn run<'t>(
        &self,
        plan: &Plan,
        store: Store<'t>,
        params: &Params,
        opts: &QueryOptions,
    ) -> Result<(QueryResult, Store<'t>)> {
        let Some(q) = plan.query() else {
            return Err(CypherError::unsupported(
                "schema commands inside an explicit transaction",
            ));
        };
        let mut ctx = Ctx::new(store, params, opts.control.clone(), self.db.analytics().clone());
        let profiling = matches!(plan.statement, Statement::Profile(_));
        if profiling {
            ctx.profile = Some(Vec::new());
        }
        ctx.procedures = self.procedures.clone();
        exec::procedures::check_query(&ctx, q)?;
        let mut t = exec::run_query(&mut ctx, q, Table::unit())?;
        if t.names.is_empty() {
            // No columns (a query ending in an update, a standalone call of a void procedure).
            t.rows.clear();
        }
        let rows = t
            .rows
            .into_iter()
            .map(|r| r.into_iter().map(|v| ctx.materialize(v)).collect::<Result<Row>>())
            .collect::<Result<VecDeque<Row>>>()?;
        let stats = ctx.stats;
        let plan_desc = ctx.profile.take().map(profile_description);
        let result = QueryResult {
            columns: t.names.into(),
            rows: Box::new(rows),
            stats,
            plan: plan_desc,
        };
        Ok((result, ctx.into_store()))
    }

    fn run_schema(&self, cmd: &SchemaCommand) -> Result<QueryResult> {
        let g = self.db.graph();
        let mut stats = QueryStats::default();
        let exists_err = |what: &str| {
            CypherError::runtime(
                ErrorClass::SemanticError,
                "EquivalentSchemaRuleAlreadyExists",
                format!("an equivalent {what} already exists"),
            )
        };
        let missing_err = |what: &str, name: &str| {
            CypherError::runtime(
                ErrorClass::SemanticError,
                "SchemaRuleNotFound",
                format!("no {what} named {name}"),
            )
        };
        let resolve = |target: &SchemaTarget, unique: bool| -> Result<Option<(String, String)>> {
            Ok(match target {
                SchemaTarget::LabelProperty(l, p) => Some((l.clone(), p.clone())),
                SchemaTarget::Name(n) => g
                    .indexes()?
                    .into_iter()
                    .find(|d| d.unique == unique && schema_name(&d.label, &d.property, d.unique) == *n)
                    .map(|d| (d.label, d.property)),
            })
        };
        let mut rows: VecDeque<Row> = VecDeque::new();
        let mut columns: Vec<String> = Vec::new();
        match cmd {
            SchemaCommand::CreateIndex {
                if_not_exists,
                label,
                properties,
                ..
            } => {
                let [p] = properties.as_slice() else {
                    return Err(CypherError::unsupported(
                        "composite indexes (HopDB indexes one property)",
                    ));
                };
                let mut tx = g.write()?;
                if tx.create_index(label, p)? {
                    stats.indexes_added = 1;
                } else if !if_not_exists {
                    return Err(exists_err("index"));
                }
                tx.commit()?;
            }
            SchemaCommand::DropIndex { target, if_exists } => match resolve(target, false)? {
                Some((l, p)) => {
                    let mut tx = g.write()?;
                    if tx.drop_index(&l, &p)? {
                        stats.indexes_removed = 1;
                    } else if !if_exists {
                        return Err(missing_err("index", &format!(":{l}({p})")));
                    }
                    tx.commit()?;
                }
                None if *if_exists => {}
                None => return Err(missing_err("index", &format!("{target:?}"))),
            },
            SchemaCommand::CreateUniqueConstraint {
                if_not_exists,
                label,
                property,
                ..
            } => {
                let mut tx = g.write()?;
                if tx.create_unique_constraint(label, property)? {
                    stats.constraints_added = 1;
                } else if !if_not_exists {
                    return Err(exists_err("constraint"));
                }
                tx.commit()?;
            }
            SchemaCommand::DropConstraint { target, if_exists } => match resolve(target, true)? {
                Some((l, p)) => {
                    let mut tx = g.write()?;
                    if tx.drop_unique_constraint(&l, &p)? {
                        stats.constraints_removed = 1;
                    } else if !if_exists {
                        return Err(missing_err("constraint", &format!(":{l}({p})")));
                    }
                    tx.commit()?;
                }
                None if *if_exists => {}
                None => return Err(missing_err("constraint", &format!("{target:?}"))),
            },
            SchemaCommand::ShowIndexes | SchemaCommand::ShowConstraints => {
                let constraints = matches!(cmd, SchemaCommand::ShowConstraints);
                columns = if constraints {
                    [
                        "name",
                        "type",
                        "entityType",
                        "labelsOrTypes",
                        "properties",
                        "ownedIndex",
                    ]
                } else {
                    [
                        "name",
                        "type",
                        "entityType",
                        "labelsOrTypes",
                        "properties",
                        "owningConstraint",
                    ]
                }
                .map(String::from)
                .to_vec();
                columns.push("state".into());
                columns.push("entries".into());
                for d in g.indexes()? {
                    if constraints && !d.unique {
                        continue;
                    }
                    let name = schema_name(&d.label, &d.property, d.unique && constraints);
                    let owner = if d.unique {
                        Value::String(schema_name(&d.label, &d.property, !constraints))
                    } else {
                        Value::Null
                    };
                    rows.push_back(vec![
                        Value::String(name),
                        Value::String(if constraints { "UNIQUENESS" } else { "RANGE" }.into()),
                        Value::String("NODE".into()),
                        Value::List(vec![Value::String(d.label.clone())]),
                        Value::List(vec![Value::String(d.property.clone())]),
                        owner,
                        Value::String("ONLINE".into()),
                        Value::Int(d.entries as i64),
                    ]);
                }
            }
        }
        Ok(QueryResult {
            columns: columns.into(),
            rows: Box::new(rows),
            stats,
            plan: None,
        })
    }

    /// Starts an explicit transaction: several statements, then commit or roll back. It holds
    /// the store's writer lock until it ends.
    pub fn begin(&self) -> Result<Transaction<'_>> {
        Ok(Transaction {
            engine: self,
            tx: Some(self.db.graph().write()?),
        })
    }
}

/// The name SHOW INDEXES / SHOW CONSTRAINTS give an index or constraint (names given at
/// creation are not stored; DROP accepts these).
fn schema_name(label: &str, property: &str, constraint: bool) -> String {
    let kind = if constraint { "constraint" } else { "index" };
    format!("{kind}_{label}_{property}")
}

fn explain(plan: &Plan) -> QueryResult {
    let mut ops = Vec::new();
    if let Some(q) = plan.query() {
        for c in &q.first.clauses {
            ops.push((exec::clause_name(c).to_string(), clause_details(c), None, None));
        }
    }
    QueryResult {
        columns: Vec::<String>::new().into(),
        rows: Box::new(VecDeque::new()),
        stats: QueryStats::default(),
        plan: Some(chain(ops)),
    }
}

fn clause_details(c: &Clause) -> String {
    match c {
        Clause::Match { pattern, .. } => format!("{} pattern part(s)", pattern.len()),
        _ => String::new(),
    }
}

fn profile_description(p: Vec<(String, u64, u64)>) -> PlanDescription {
    chain(
        p.into_iter()
            .map(|(op, rows, ns)| (op, String::new(), Some(rows), Some(ns)))
            .collect(),
    )
}

/// Operators in run order as a plan tree: the last is the root, each reads the one before.
fn chain(ops: Vec<(String, String, Option<u64>, Option<u64>)>) -> PlanDescription {
    let mut node: Option<PlanDescription> = None;
    for (operator, details, rows, time_ns) in ops {
        node = Some(PlanDescription {
            operator,
            details,
            estimated_rows: rows.map(|r| r as f64).unwrap_or(1.0),
            rows,
            time_ns,
            children: node.into_iter().collect(),
        });
    }
    node.unwrap_or(PlanDescription {
        operator: "EmptyResult".into(),
        details: String::new(),
        estimated_rows: 0.0,
        rows: None,
        time_ns: None,
        children: Vec::new(),
    })
}

/// An explicit multi-statement transaction. A statement that fails aborts it.
pub struct Transaction<'e> {
    engine: &'e QueryEngine,
    tx: Option<WriteTxn<'e>>,
}

impl<'e> Transaction<'e> {
    /// Runs a statement inside the transaction; it sees the earlier statements' changes.
    pub fn query(&mut self, text: &str, params: &Params) -> Result<QueryResult> {
        self.query_with(text, params, &QueryOptions::default())
    }

    /// Runs a statement inside the transaction under `opts` (timeout, cancel flag, memory
    /// bound); a statement stopped by them fails, and so aborts the transaction.
    pub fn query_with(&mut self, text: &str, params: &Params, opts: &QueryOptions) -> Result<QueryResult> {
        let Some(tx) = self.tx.take() else {
            return Err(CypherError::runtime(
                ErrorClass::SemanticError,
                "TransactionAborted",
                "an earlier statement failed; the transaction was rolled back",
            ));
        };
        let (plan, _) = self.engine.cache.get(text)?;
        let (result, store) = self.engine.run(&plan, Store::Write(Box::new(tx)), params, opts)?;
        if let Store::Write(tx) = store {
            self.tx = Some(*tx);
        }
        Ok(result)
    }
    /// Makes every statement's changes durable and visible.
    pub fn commit(mut self) -> Result<()> {
        match self.tx.take() {
            Some(tx) => Ok(tx.commit()?),
            None => Err(CypherError::runtime(
                ErrorClass::SemanticError,
                "TransactionAborted",
                "the transaction was rolled back by a failed statement",
            )),
        }
    }
    /// Discards every statement's changes.
    pub fn rollback(self) {}
}
