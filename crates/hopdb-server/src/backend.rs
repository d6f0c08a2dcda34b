//! [`EngineBackend`]: the Bolt [`Backend`] of one connection over the Cypher engine.
//!
//! * Auto-commit `RUN` runs the statement at once (`QueryEngine::query_with`), committing a
//!   write before `RUN`'s SUCCESS; the materialized result is then streamed by `PULL`.
//! * `BEGIN` in write mode opens a [`Transaction`] (which holds the store's single writer slot
//!   until it ends, waited for at most `writer_wait`); in read mode (`execute_read`) a
//!   [`ReadTransaction`]: every statement reads the snapshot taken at `BEGIN`.
//! * A running statement stops when the watchdog sets the connection's cancel flag (RESET or
//!   GOODBYE queued behind it, the client gone, shutdown) or at the statement timeout.
//! * Statements that write are refused in read mode (`Neo.ClientError.Statement.AccessMode`).
//! * `RESET`, `ROLLBACK`, the end of the connection and a failed statement roll back.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hopdb_bolt::{
    AccessMode, AuthToken, Backend, BeginResult, BoltFailure, Hello, PullResult, QueryType, Route, RunExtra, RunResult,
    Summary, Value as Bolt,
};
use hopdb_cypher::ast::{Clause, Statement};
use hopdb_cypher::plan::Plan;
use hopdb_cypher::{
    CypherError, ErrorClass, PlanDescription, QueryEngine, QueryOptions, QueryResult, QueryStats, ReadTransaction, Row,
    Transaction,
};
use hopdb_database::Control;

use crate::convert;
use crate::metrics::{Kind, OpenTxGauge, Protocol};
use crate::server::Shared;
use crate::watchdog::ConnWatch;

/// The one database a HopDB server serves, under Neo4j's default name.
pub const DATABASE_NAME: &str = "neo4j";

/// Neo4j's administration database: routable (drivers probe it), not queryable here.
const SYSTEM_DATABASE: &str = "system";

/// Seconds a client may cache the routing table.
const ROUTING_TTL_SECONDS: i64 = 300;

/// An explicit transaction.
enum Tx<'e> {
    /// Write mode: one store transaction (boxed: it is large, and opened once per BEGIN).
    Write(Box<Transaction<'e>>),
    /// Read mode: every statement reads the snapshot taken at BEGIN.
    Read(ReadTransaction<'e>),
}

struct OpenTx<'e> {
    tx: Tx<'e>,
    /// When `tx_timeout` runs out.
    deadline: Option<Instant>,
    /// Counts the transaction in `hopdb_bolt_open_transactions` until it ends.
    _open: OpenTxGauge,
}

/// A result being streamed.
struct OpenResult {
    qid: i64,
    result: QueryResult,
    /// A run-time failure reported at the first PULL or DISCARD, as Neo4j reports a statement
    /// that fails while it streams (its RUN succeeds): drivers raise it from the result.
    failure: Option<BoltFailure>,
    /// The row read ahead to know whether the result is exhausted.
    peeked: Option<Row>,
    query_type: QueryType,
    /// Set for auto-commit results: sent with the summary.
    bookmark: Option<String>,
    /// `PROFILE` (the summary carries `profile`, else `plan` for EXPLAIN).
    profile: bool,
    /// When the result was ready (for `t_last`).
    ready: Instant,
}

impl OpenResult {
    fn next(&mut self) -> Result<Option<Row>, CypherError> {
        match self.peeked.take() {
            Some(r) => Ok(Some(r)),
            None => self.result.next_row(),
        }
    }

    fn exhausted(&mut self) -> Result<bool, CypherError> {
        if self.peeked.is_none() {
            self.peeked = self.result.next_row()?;
        }
        Ok(self.peeked.is_none())
    }

    /// Moves up to `limit` rows into `out`; whether the result is then exhausted.
    fn take(&mut self, limit: usize, out: &mut Vec<Row>) -> Result<bool, CypherError> {
        while out.len() < limit {
            match self.next()? {
                Some(row) => out.push(row),
                None => break,
            }
        }
        self.exhausted()
    }

    /// Throws away up to `n` rows (all when `n` is -1); whether the result is then exhausted.
    fn skip(&mut self, n: i64) -> Result<bool, CypherError> {
        let mut left = n;
        while left != 0 && self.next()?.is_some() {
            left -= 1;
        }
        self.exhausted()
    }
}

/// The backend of one Bolt connection: holds the engine (borrowed from the connection's
/// thread), the open explicit transaction and the open results.
pub(crate) struct EngineBackend<'e> {
    engine: &'e QueryEngine,
    shared: &'e Shared,
    watch: Arc<ConnWatch>,
    conn: u64,
    peer: SocketAddr,
    tx: Option<OpenTx<'e>>,
    results: Vec<OpenResult>,
    next_qid: i64,
}

impl<'e> EngineBackend<'e> {
    pub(crate) fn new(engine: &'e QueryEngine, shared: &'e Shared, watch: Arc<ConnWatch>, conn: u64) -> Self {
        Self {
            engine,
            shared,
            peer: watch.peer,
            watch,
            conn,
            tx: None,
            results: Vec::new(),
            next_qid: 0,
        }
    }

    fn bookmark(&self) -> String {
        format!("hopdb:{}", self.engine.database().graph().version())
    }

    /// The statement's limits: the connection's cancel flag (set by the watchdog), the
    /// shorter of the client's timeout and the server's statement timeout, and the bounded
    /// wait for the writer slot.
    fn options(&self, timeout: Option<Duration>) -> QueryOptions {
        let mut control = Control::default().with_cancel(self.watch.cancel.clone());
        let limit = match (timeout, self.shared.config.statement_timeout) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(t) = limit {
            control = control.with_timeout(t);
        }
        QueryOptions {
            control,
            writer_wait: self.shared.config.writer_wait,
        }
    }

    /// After each message: tells the watchdog whether a transaction is open (and idle now).
    fn idle(&self) {
        self.watch.transaction_open(self.tx.is_some());
    }

    /// Logs a failed statement and turns it into the FAILURE to send.
    fn query_failure(&self, e: &CypherError, query: &str) -> BoltFailure {
        let f = cypher_failure(e);
        let query = shorten(query);
        if f.code.starts_with("Neo.ClientError.") {
            tracing::info!(conn = self.conn, peer = %self.peer, code = %f.code, error = %e.message, query = %query, "statement failed");
        } else {
            tracing::warn!(conn = self.conn, peer = %self.peer, code = %f.code, error = %e.message, query = %query, "statement failed");
        }
        f
    }

    /// Counts a failure sent outside `RUN` (whose failures `run` counts) in the metrics.
    fn counted(&self, f: BoltFailure) -> BoltFailure {
        self.shared.metrics.error(Protocol::Bolt, &f.code);
        f
    }

    fn close_tx(&mut self) -> bool {
        self.results.clear();
        self.tx.take().is_some()
    }

    fn summary(&self, open: OpenResult) -> Summary {
        let t_last = millis(open.ready.elapsed());
        let mut extra: hopdb_bolt::Map = Vec::new();
        if let Some(plan) = open.result.plan() {
            let key = if open.profile { "profile" } else { "plan" };
            extra.push((key.into(), plan_value(plan, open.profile)));
        }
        Summary {
            bookmark: open.bookmark,
            t_last: Some(t_last),
            query_type: Some(open.query_type),
            stats: stats_map(open.result.stats()),
            db: Some(DATABASE_NAME.into()),
            extra,
        }
    }

    /// `RUN`: compiles, checks the database and access mode, runs the statement, and keeps
    /// its result open.
    fn run_statement(
        &mut self,
        query: &str,
        params: hopdb_bolt::Map,
        extra: &RunExtra,
        in_tx: bool,
    ) -> Result<RunResult, BoltFailure> {
        let started = Instant::now();
        let metrics = &self.shared.metrics;
        let plan = match self.engine.plan_cache().get(query) {
            Ok((plan, cached)) => {
                metrics.plan_cache(cached);
                plan
            }
            Err(e) => {
                metrics.query(Protocol::Bolt, None, started.elapsed());
                return Err(self.query_failure(&e, query));
            }
        };
        let query_type = query_type(&plan);
        let profile = matches!(plan.statement, Statement::Profile(_));
        let params = convert::params_from_bolt(params)?;
        let outcome = if in_tx {
            let deadline = match self.tx.as_ref() {
                None => return Err(BoltFailure::request_invalid("RUN in a transaction, but none is open")),
                Some(open) => open.deadline,
            };
            let opts = match deadline {
                None => self.options(None),
                Some(d) => match d.checked_duration_since(Instant::now()).filter(|left| !left.is_zero()) {
                    Some(left) => self.options(Some(left)),
                    None => return Err(timed_out()),
                },
            };
            match self.tx.as_mut().map(|t| &mut t.tx) {
                Some(Tx::Write(tx)) => tx.query_with(query, &params, &opts),
                Some(Tx::Read(_)) if !plan.read_only => return Err(access_mode()),
                Some(Tx::Read(tx)) => tx.query_with(query, &params, &opts),
                None => return Err(BoltFailure::request_invalid("RUN in a transaction, but none is open")),
            }
        } else {
            check_db(extra.db.as_deref())?;
            if extra.mode == AccessMode::Read && !plan.read_only {
                return Err(access_mode());
            }
            let opts = self.options(tx_timeout(extra)?);
            self.engine.query_with(query, &params, &opts)
        };
        metrics.query(Protocol::Bolt, Some(Kind::from(query_type)), started.elapsed());
        let (result, failure) = match outcome {
            Ok(r) => (r, None),
            Err(e) => match plan.result_columns() {
                // A missing parameter is reported at RUN, as Neo4j checks them before it runs
                // anything. Nor is a wait for the writer slot: nothing ran, and drivers retry it at RUN.
                Some(columns)
                    if e.phase == hopdb_cypher::Phase::Runtime
                        && !matches!(e.class, ErrorClass::ParameterMissing)
                        && e.detail != "LockAcquisitionTimeout" =>
                {
                    let f = self.query_failure(&e, query);
                    self.shared.metrics.error(Protocol::Bolt, &f.code);
                    (QueryResult::empty(columns), Some(f))
                }
                _ => return Err(self.query_failure(&e, query)),
            },
        };
        let qid = self.next_qid;
        self.next_qid += 1;
        let fields = result.columns().to_vec();
        if !in_tx {
            // An auto-commit result replaces any earlier one (the protocol allows one).
            self.results.clear();
        }
        let bookmark = (!in_tx).then(|| self.bookmark());
        self.results.push(OpenResult {
            qid,
            result,
            failure,
            peeked: None,
            query_type,
            bookmark,
            profile,
            ready: Instant::now(),
        });
        Ok(RunResult {
            fields,
            qid,
            t_first: millis(started.elapsed()),
            db: Some(DATABASE_NAME.into()),
        })
    }

    /// The run-time failure a result holds, sent now; a transaction it belonged to is gone.
    fn deferred_failure(&mut self, at: usize) -> Result<(), BoltFailure> {
        if let Some(f) = self.results[at].failure.take() {
            self.results.remove(at);
            if self.close_tx() {
                tracing::debug!(conn = self.conn, "a failed statement rolled its transaction back");
            }
            self.idle();
            return Err(f);
        }
        Ok(())
    }

    fn result_index(&self, qid: i64) -> Result<usize, BoltFailure> {
        self.results
            .iter()
            .position(|r| r.qid == qid)
            .ok_or_else(|| BoltFailure::request_invalid(format!("there is no open result with qid {qid}")))
    }
}

impl Backend for EngineBackend<'_> {
    fn hello(&mut self, hello: &Hello) -> Result<(), BoltFailure> {
        tracing::info!(
            conn = self.conn,
            peer = %self.peer,
            user_agent = %hello.user_agent,
            driver = hello.bolt_agent.as_ref().map_or("", |a| a.product.as_str()),
            routing = hello.routing.is_some(),
            "Bolt client connected"
        );
        Ok(())
    }

    fn authenticate(&mut self, auth: &AuthToken) -> Result<(), BoltFailure> {
        // Checked on the connection's own thread (argon2 takes tens of ms by design); the
        // authenticator logs the outcome (user and peer, never the credentials). A failure
        // closes the connection.
        self.shared
            .auth
            .authenticate(auth, self.conn, self.peer)
            .map(|_user| ())
    }

    fn run(
        &mut self,
        query: &str,
        params: hopdb_bolt::Map,
        extra: &RunExtra,
        in_tx: bool,
    ) -> Result<RunResult, BoltFailure> {
        if self.shared.stopping.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(BoltFailure::new(
                "Neo.TransientError.General.DatabaseUnavailable",
                "the server is shutting down",
            ));
        }
        self.watch.statement_started();
        let outcome = self.run_statement(query, params, extra, in_tx);
        self.watch.statement_ended();
        if let Err(f) = &outcome {
            self.shared.metrics.error(Protocol::Bolt, &f.code);
        }
        if outcome.is_err() && in_tx && self.close_tx() {
            // Any failure aborts the transaction: release the store at once (the client's
            // RESET or ROLLBACK then finds nothing to undo).
            tracing::debug!(conn = self.conn, "a failed statement rolled its transaction back");
        }
        self.idle();
        outcome
    }

    fn pull(&mut self, qid: i64, n: i64) -> Result<PullResult, BoltFailure> {
        self.idle();
        let at = self.result_index(qid)?;
        self.deferred_failure(at)?;
        let limit = usize::try_from(n).unwrap_or(usize::MAX);
        let mut rows = Vec::new();
        let done = match self.results[at].take(limit, &mut rows) {
            Ok(done) => done,
            Err(e) => {
                self.results.remove(at);
                return Err(self.counted(self.query_failure(&e, "(PULL)")));
            }
        };
        let records = rows
            .iter()
            .map(|r| convert::row_to_bolt(r.as_slice()))
            .collect::<Result<Vec<Vec<Bolt>>, _>>()?;
        let summary = if done {
            let open = self.results.remove(at);
            Some(self.summary(open))
        } else {
            None
        };
        Ok(PullResult { records, summary })
    }

    fn discard(&mut self, qid: i64, n: i64) -> Result<Option<Summary>, BoltFailure> {
        self.idle();
        let at = self.result_index(qid)?;
        self.deferred_failure(at)?;
        match self.results[at].skip(n) {
            Ok(true) => {
                let open = self.results.remove(at);
                Ok(Some(self.summary(open)))
            }
            Ok(false) => Ok(None),
            Err(e) => {
                self.results.remove(at);
                Err(self.counted(self.query_failure(&e, "(DISCARD)")))
            }
        }
    }

    fn begin(&mut self, extra: &RunExtra) -> Result<BeginResult, BoltFailure> {
        check_db(extra.db.as_deref())?;
        if self.tx.is_some() {
            return Err(BoltFailure::request_invalid("a transaction is already open"));
        }
        let deadline = tx_timeout(extra)?.map(|t| Instant::now() + t);
        let tx = match extra.mode {
            AccessMode::Read => Tx::Read(self.engine.begin_read()),
            AccessMode::Write => match self.engine.begin_within(self.shared.config.writer_wait) {
                Ok(tx) => Tx::Write(Box::new(tx)),
                Err(e) => return Err(self.counted(self.query_failure(&e, "(BEGIN)"))),
            },
        };
        self.results.clear();
        self.next_qid = 0;
        let open = self.shared.metrics.open_transaction(matches!(tx, Tx::Write(_)));
        self.tx = Some(OpenTx {
            tx,
            deadline,
            _open: open,
        });
        self.idle();
        Ok(BeginResult {
            db: Some(DATABASE_NAME.into()),
        })
    }

    fn commit(&mut self) -> Result<Option<String>, BoltFailure> {
        self.results.clear();
        let Some(open) = self.tx.take() else {
            return Err(BoltFailure::request_invalid("COMMIT, but no transaction is open"));
        };
        if open.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(self.counted(timed_out()));
        }
        self.idle();
        if let Tx::Write(tx) = open.tx {
            tx.commit()
                .map_err(|e| self.counted(self.query_failure(&e, "(COMMIT)")))?;
        }
        Ok(Some(self.bookmark()))
    }

    fn rollback(&mut self) -> Result<(), BoltFailure> {
        self.close_tx();
        self.idle();
        Ok(())
    }

    fn reset(&mut self) -> Result<(), BoltFailure> {
        if self.close_tx() {
            tracing::debug!(conn = self.conn, "RESET rolled back the open transaction");
        }
        self.idle();
        Ok(())
    }

    fn route(&mut self, route: &Route) -> Result<hopdb_bolt::Map, BoltFailure> {
        // Drivers ask for the `system` database's table to verify connectivity (the Java
        // driver's `verifyConnectivity` over neo4j://): answered as Neo4j does, with the same
        // servers; statements on `system` are still refused.
        let system = route
            .db
            .as_deref()
            .is_some_and(|d| d.eq_ignore_ascii_case(SYSTEM_DATABASE));
        if !system {
            check_db(route.db.as_deref())?;
        }
        // The address the client used is the one it can reach us by, unless configured.
        let from_client = hopdb_bolt::value::map_get(&route.routing, "address").and_then(Bolt::as_str);
        let address = match (&self.shared.config.advertised_address, from_client) {
            (Some(a), _) => a.clone(),
            (None, Some(a)) if !a.is_empty() => a.to_owned(),
            _ => self.shared.local_addr.to_string(),
        };
        let servers = ["WRITE", "READ", "ROUTE"]
            .into_iter()
            .map(|role| Bolt::map([("addresses", Bolt::list([address.clone()])), ("role", role.into())]))
            .collect::<Vec<_>>();
        Ok(vec![
            ("ttl".into(), ROUTING_TTL_SECONDS.into()),
            ("db".into(), if system { SYSTEM_DATABASE } else { DATABASE_NAME }.into()),
            ("servers".into(), Bolt::List(servers)),
        ])
    }

    fn goodbye(&mut self) {
        if self.close_tx() {
            tracing::info!(
                conn = self.conn,
                peer = %self.peer,
                "connection ended inside a transaction: rolled back"
            );
        }
    }
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// At most 200 characters of a query, for logs.
fn shorten(query: &str) -> String {
    let mut s: String = query.chars().take(200).collect();
    if s.len() < query.len() {
        s.push('…');
    }
    s
}

/// Only the default database exists (its name is case-insensitive, as Neo4j's are).
fn check_db(db: Option<&str>) -> Result<(), BoltFailure> {
    match db {
        None => Ok(()),
        Some(d) if d.is_empty() || d.eq_ignore_ascii_case(DATABASE_NAME) => Ok(()),
        Some(d) => Err(BoltFailure::new(
            "Neo.ClientError.Database.DatabaseNotFound",
            format!("Database does not exist. Database name: '{d}'. HopDB serves one database, '{DATABASE_NAME}'."),
        )),
    }
}

fn access_mode() -> BoltFailure {
    BoltFailure::new(
        "Neo.ClientError.Statement.AccessMode",
        format!("Writing in read access mode not allowed. Attempted write to database '{DATABASE_NAME}'."),
    )
}

fn timed_out() -> BoltFailure {
    BoltFailure::new(
        "Neo.ClientError.Transaction.TransactionTimedOut",
        "The transaction has been terminated: it ran longer than its timeout (tx_timeout) and was rolled back.",
    )
}

/// `tx_timeout` in milliseconds; 0 or absent means none.
fn tx_timeout(extra: &RunExtra) -> Result<Option<Duration>, BoltFailure> {
    match extra.tx_timeout {
        None | Some(0) => Ok(None),
        Some(ms) if ms > 0 => Ok(Some(Duration::from_millis(ms.unsigned_abs()))),
        Some(ms) => Err(BoltFailure::new(
            "Neo.ClientError.Request.Invalid",
            format!("tx_timeout must not be negative, got {ms}"),
        )),
    }
}

/// The FAILURE for an engine error: its Neo4j status code, and the message with the position.
pub(crate) fn cypher_failure(e: &CypherError) -> BoltFailure {
    let message = match e.position {
        Some(p) => format!(
            "{} (line {}, column {} (offset: {}))",
            e.message, p.line, p.column, p.offset
        ),
        None => e.message.clone(),
    };
    let f = BoltFailure::new(e.neo4j_code(), message);
    if e.class == ErrorClass::SyntaxError {
        f.with_gql("42001", "error: syntax error or access rule violation - invalid syntax")
    } else {
        f
    }
}

/// The summary's `type`: from the plan, as Neo4j reports it.
pub(crate) fn query_type(plan: &Plan) -> QueryType {
    if let Some(cmd) = plan.schema() {
        return match cmd {
            c if c.reads_only() => QueryType::Read,
            _ => QueryType::Schema,
        };
    }
    if plan.read_only {
        return QueryType::Read;
    }
    let only_updates = plan.query().is_some_and(|q| {
        std::iter::once(&q.first)
            .chain(q.unions.iter().map(|(_, s)| s))
            .flat_map(|s| s.clauses.iter())
            .all(|c| {
                matches!(
                    c,
                    Clause::Create(_)
                        | Clause::Set(_)
                        | Clause::Remove(_)
                        | Clause::Delete { .. }
                        | Clause::Foreach { .. }
                )
            })
    });
    if only_updates {
        QueryType::Write
    } else {
        QueryType::ReadWrite
    }
}

/// Update counters under Neo4j's names, zeros left out (Neo4j counts removed properties as
/// set).
fn stats_map(s: &QueryStats) -> hopdb_bolt::Map {
    let counters = [
        ("nodes-created", s.nodes_created),
        ("nodes-deleted", s.nodes_deleted),
        ("relationships-created", s.relationships_created),
        ("relationships-deleted", s.relationships_deleted),
        ("properties-set", s.properties_set.saturating_add(s.properties_removed)),
        ("labels-added", s.labels_added),
        ("labels-removed", s.labels_removed),
        ("indexes-added", s.indexes_added),
        ("indexes-removed", s.indexes_removed),
        ("constraints-added", s.constraints_added),
        ("constraints-removed", s.constraints_removed),
    ];
    let mut m: hopdb_bolt::Map = counters
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| (k.to_owned(), Bolt::Integer(i64::try_from(n).unwrap_or(i64::MAX))))
        .collect();
    if s.contains_updates() {
        m.push(("contains-updates".into(), true.into()));
    }
    m
}

/// A plan as Neo4j's summary carries it: `operatorType`, `args`, `identifiers`, `children`,
/// and for PROFILE `rows` and `dbHits` (HopDB counts no page hits: 0).
fn plan_value(p: &PlanDescription, profile: bool) -> Bolt {
    let mut args: hopdb_bolt::Map = vec![("EstimatedRows".into(), p.estimated_rows.into())];
    if !p.details.is_empty() {
        args.push(("Details".into(), p.details.clone().into()));
    }
    if let (true, Some(ns)) = (profile, p.time_ns) {
        args.push(("Time".into(), i64::try_from(ns).unwrap_or(i64::MAX).into()));
    }
    let mut m: hopdb_bolt::Map = vec![
        ("operatorType".into(), p.operator.clone().into()),
        ("args".into(), Bolt::Map(args)),
        ("identifiers".into(), Bolt::List(Vec::new())),
        (
            "children".into(),
            Bolt::List(p.children.iter().map(|c| plan_value(c, profile)).collect()),
        ),
    ];
    if profile {
        m.push((
            "rows".into(),
            i64::try_from(p.rows.unwrap_or(0)).unwrap_or(i64::MAX).into(),
        ));
        m.push(("dbHits".into(), 0.into()));
    }
    Bolt::Map(m)
}
