//! The entry point: [`QueryEngine`] runs Cypher text against a [`Database`].

use crate::ast::{Clause, SchemaCommand, Statement};
use crate::error::{CypherError, ErrorClass, Result};
use crate::exec::ctx::{Ctx, Store};
use crate::exec::procedures::registry::{ProcedureFn, ProcedureRegistry, ProcedureSignature};
use crate::exec::{self, Table};
use crate::plan::{Plan, PlanCache};
use crate::result::{ColumnRows, PlanDescription, QueryResult, QueryStats, RowSource};
use crate::schema;
use crate::value::Value;
use hopdb_database::{Control, Database, GraphRead, RemoteGraph};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// Query parameters by name.
pub type Params = HashMap<String, Value>;

/// The property name under which Cypher sees a node's store key: `MATCH (n {_key: $k})` is a
/// direct key-index read, `CREATE (n {_key: 'x'})` chooses the key, and `n._key` reads it.
/// It is not listed by `keys(n)` or `properties(n)`. Nodes created without it get an integer
/// key chosen by the store.
pub const KEY_PROPERTY: &str = "_key";

/// How many times a writing statement on a remote graph runs again after meeting a
/// concurrent write before its conflict is reported.
pub const CONFLICT_RETRIES: u32 = 8;

/// Per-query limits.
#[derive(Debug, Clone, Default)]
pub struct QueryOptions {
    /// Timeout, cancel flag and memory bound (the analytics layer's [`Control`]).
    pub control: Control,
    /// How long a writing statement waits for the store's one writer slot when another
    /// transaction holds it (`None`: as long as it takes). When the wait runs out the
    /// statement fails with a transient `LockAcquisitionTimeout`, which drivers retry.
    pub writer_wait: Option<std::time::Duration>,
}

/// Runs Cypher against one database. Cheap to clone; share it between threads. Plans are
/// cached by query text for the engine's lifetime.
#[derive(Clone)]
pub struct QueryEngine {
    db: Database,
    /// The graph read and written instead of `db`'s, when it is kept elsewhere
    /// ([`QueryEngine::over`]).
    remote: Option<Arc<dyn RemoteGraph>>,
    cache: Arc<PlanCache>,
    procedures: ProcedureRegistry,
    fast_adj: Arc<exec::ctx::FastAdjCache>,
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
            remote: None,
            cache: Arc::new(PlanCache::default()),
            procedures: ProcedureRegistry::default(),
            fast_adj: Default::default(),
        }
    }

    /// An engine over `graph`, a graph kept elsewhere (a cluster: `hopdb serve --cluster`),
    /// read through [`GraphRead`] and written through its write transactions
    /// ([`RemoteGraph::begin_write`]). A writing statement that meets a concurrent write is
    /// run again (up to [`CONFLICT_RETRIES`] times); in an explicit transaction the conflict
    /// is the client's to retry (a transient error). Schema changes and the algorithm
    /// procedures (which need an embedded store's projection) are refused with a clear error.
    pub fn over(graph: Arc<dyn RemoteGraph>) -> QueryEngine {
        QueryEngine {
            remote: Some(graph),
            ..QueryEngine::new(Database::in_memory())
        }
    }

    /// The graph kept elsewhere that the engine reads ([`QueryEngine::over`]), if any.
    pub fn remote(&self) -> Option<&Arc<dyn RemoteGraph>> {
        self.remote.as_ref()
    }

    /// What a read-only statement reads: a snapshot of the database, or the remote graph.
    fn read_store(&self) -> Store<'static> {
        match &self.remote {
            Some(g) => Store::Remote(g.clone()),
            None => Store::Read(self.db.graph().read()),
        }
    }

    /// What a writing statement or transaction writes: the store's write transaction (after
    /// waiting at most `wait` for its writer slot), or one on the remote graph.
    fn write_store(&self, wait: Option<std::time::Duration>) -> Result<Store<'_>> {
        match &self.remote {
            Some(g) => Ok(Store::RemoteWrite(g.begin_write()?)),
            None => Ok(Store::Write(Box::new(self.writer(wait)?))),
        }
    }

    /// The database queried (an empty one in memory for an engine [`QueryEngine::over`] a
    /// remote graph).
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
            return self.run_schema(cmd, opts.writer_wait);
        }
        if let Statement::Explain(_) = plan.statement {
            return Ok(explain(&plan));
        }
        if plan.read_only {
            return Ok(self.run(&plan, self.read_store(), params, opts)?.0);
        }
        let mut attempt = 0;
        loop {
            let outcome = self
                .run(&plan, self.write_store(opts.writer_wait)?, params, opts)
                .and_then(|(result, store)| store.commit().map(|()| result).map_err(CypherError::from));
            match outcome {
                Err(e) if e.class == ErrorClass::Conflict && attempt < CONFLICT_RETRIES => {
                    attempt += 1;
                    tracing::debug!(attempt, error = %e, "a writing statement met a concurrent write; running it again");
                }
                r => return r,
            }
        }
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
        let mut ctx = Ctx::new(
            store,
            params,
            opts.control.clone(),
            self.db.analytics().clone(),
            self.procedures.clone(),
            self.fast_adj.clone(),
        );
        if matches!(plan.statement, Statement::Profile(_)) {
            ctx.profile = Some(Vec::new());
        }
        exec::procedures::check_query(&ctx, q)?;
        if let (None, true, Some(Clause::Return(p))) = (&ctx.profile, q.unions.is_empty(), q.first.clauses.last()) {
            ctx.final_return = Some(p);
        }
        let mut t = exec::run_query(&mut ctx, q, Table::unit())?;
        if t.names.is_empty() {
            // No columns (a query ending in an update, a standalone call of a void procedure).
            t.rows.clear();
        }
        let mut column = ctx.column.take();
        // In place: the rows keep their vectors. Scalars (most columns: keys, properties,
        // counts) have nothing to fill and stay where they are.
        for v in t.rows.iter_mut().flatten().chain(column.iter_mut().flatten()) {
            if matches!(
                v,
                Value::Node(_) | Value::Relationship(_) | Value::Path(_) | Value::List(_) | Value::Map(_)
            ) {
                *v = ctx.materialize(std::mem::replace(v, Value::Null))?;
            }
        }
        let rows: Box<dyn RowSource> = match column {
            Some(values) => Box::new(ColumnRows(values.into_iter())),
            None => Box::new(VecDeque::from(t.rows)),
        };
        let stats = ctx.stats;
        let plan_desc = ctx.profile.take().map(profile_description);
        let result = QueryResult {
            columns: t.names.into(),
            rows,
            stats,
            plan: plan_desc,
        };
        Ok((result, ctx.into_store()))
    }

    /// A schema command as its own transaction: SHOW reads a snapshot; the others take the
    /// writer slot (waiting at most `wait`) and commit.
    fn run_schema(&self, cmd: &SchemaCommand, wait: Option<std::time::Duration>) -> Result<QueryResult> {
        if cmd.reads_only() {
            return match &self.remote {
                Some(g) => schema::show(&**g, cmd),
                None => schema::show(&self.db.graph().read(), cmd),
            };
        }
        let mut tx = self.writer(wait)?;
        let r = schema::change(&mut tx, cmd)?;
        tx.commit()?;
        self.cache.clear();
        Ok(r)
    }

    /// Starts an explicit transaction: several statements, then commit or roll back. It holds
    /// the store's writer lock until it ends.
    pub fn begin(&self) -> Result<Transaction<'_>> {
        self.begin_within(None)
    }

    /// [`QueryEngine::begin`], waiting at most `wait` for the writer slot (see
    /// [`QueryOptions::writer_wait`]).
    pub fn begin_within(&self, wait: Option<std::time::Duration>) -> Result<Transaction<'_>> {
        Ok(Transaction {
            engine: self,
            tx: Some(self.write_store(wait)?),
        })
    }

    /// Starts a read-only explicit transaction: every statement in it reads the one snapshot
    /// taken now (repeatable reads), and a statement that would write is refused.
    pub fn begin_read(&self) -> ReadTransaction<'_> {
        ReadTransaction {
            engine: self,
            snapshot: match &self.remote {
                Some(g) => Snapshot::Remote(g.clone() as Arc<dyn GraphRead + Send + Sync>),
                None => Snapshot::Local(self.db.graph().read()),
            },
        }
    }

    fn writer(&self, wait: Option<std::time::Duration>) -> Result<hopdb_database::WriteTxn<'_>> {
        if self.remote.is_some() {
            return Err(remote_schema_refused());
        }
        let g = self.db.graph();
        match wait {
            None => Ok(g.write()?),
            Some(w) => g.write_within(w)?.ok_or_else(|| {
                CypherError::runtime(
                    ErrorClass::Timeout,
                    "LockAcquisitionTimeout",
                    format!(
                        "another transaction held the store's writer slot for longer than {} ms; retry",
                        w.as_millis()
                    ),
                )
            }),
        }
    }
}

/// A read-only explicit transaction over one snapshot ([`QueryEngine::begin_read`]).
pub struct ReadTransaction<'e> {
    engine: &'e QueryEngine,
    snapshot: Snapshot,
}

/// What a read-only transaction reads: one snapshot of the database, or the remote graph (a
/// cluster has no snapshots: each statement reads it as it is).
enum Snapshot {
    Local(hopdb_database::ReadTxn),
    Remote(Arc<dyn GraphRead + Send + Sync>),
}

impl Snapshot {
    fn store(&self) -> Store<'static> {
        match self {
            Snapshot::Local(s) => Store::Read(s.clone()),
            Snapshot::Remote(g) => Store::Remote(g.clone()),
        }
    }

    fn graph(&self) -> &dyn GraphRead {
        match self {
            Snapshot::Local(s) => s,
            Snapshot::Remote(g) => &**g,
        }
    }
}

impl ReadTransaction<'_> {
    /// Runs a read-only statement on the transaction's snapshot. A statement that writes
    /// fails (`AccessMode`), as does a schema command that changes the schema.
    pub fn query_with(&self, text: &str, params: &Params, opts: &QueryOptions) -> Result<QueryResult> {
        let e = self.engine;
        let (plan, _cached) = e.cache.get(text)?;
        if !plan.read_only {
            return Err(CypherError::compile(
                ErrorClass::SemanticError,
                "AccessMode",
                "a read-only transaction cannot run a statement that writes",
            ));
        }
        if let Some(cmd) = plan.schema() {
            return schema::show(self.snapshot.graph(), cmd);
        }
        if let Statement::Explain(_) = plan.statement {
            return Ok(explain(&plan));
        }
        let (result, _) = e.run(&plan, self.snapshot.store(), params, opts)?;
        Ok(result)
    }
}

fn remote_schema_refused() -> CypherError {
    CypherError::compile(
        ErrorClass::FeatureNotSupported,
        "FeatureNotSupported",
        "a cluster (hopdb serve --cluster) keeps no property or full-text indexes, so it refuses schema changes",
    )
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
    /// The write transaction (local or remote); `None` once a statement failed.
    tx: Option<Store<'e>>,
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
        if let Some(cmd) = plan.schema() {
            // Neo4j runs schema commands in explicit transactions too (langchain-neo4j sends
            // them through managed transactions); here they join the transaction's batch.
            let mut tx = tx;
            let r = match &mut tx {
                Store::Write(w) if cmd.reads_only() => schema::show(&**w, cmd),
                Store::Write(w) => schema::change(w, cmd),
                Store::RemoteWrite(w) if cmd.reads_only() => schema::show(&**w, cmd),
                _ => Err(remote_schema_refused()),
            };
            if r.is_ok() {
                self.tx = Some(tx);
                self.engine.cache.clear();
            }
            return r;
        }
        let (result, store) = self.engine.run(&plan, tx, params, opts)?;
        self.tx = Some(store);
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
