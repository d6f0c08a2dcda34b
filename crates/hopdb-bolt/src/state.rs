//! The server side of a Bolt connection: an explicit state machine over a [`Backend`].
//!
//! [`Connection::handle`] takes one decoded request and returns the responses to send and
//! whether to close. What each state accepts follows the Bolt server-state specification:
//!
//! | state | accepts |
//! |---|---|
//! | `NEGOTIATION` | `HELLO` (4.4/5.0: with auth, to `READY`; 5.1+: to `AUTHENTICATION`) |
//! | `AUTHENTICATION` | `LOGON` (to `READY`), `RESET` |
//! | `READY` | `RUN`, `BEGIN`, `ROUTE`, `TELEMETRY` (5.4+), `LOGOFF` (5.1+) |
//! | `STREAMING` | `PULL`, `DISCARD` |
//! | `TX_READY` | `RUN`, `COMMIT`, `ROLLBACK` |
//! | `TX_STREAMING` | `RUN`, `PULL`, `DISCARD`, and (as Neo4j allows) `COMMIT`, `ROLLBACK` |
//! | `FAILED`, `INTERRUPTED` | everything is `IGNORED` but `RESET` |
//!
//! `RESET` returns to `READY` (or `AUTHENTICATION` when nobody is logged on) and `GOODBYE`
//! closes, from any state. Anything else is answered with a `Neo.ClientError.Request.Invalid`
//! FAILURE: in an authenticated state the connection moves to `FAILED`; before authentication,
//! and for `HELLO`/`LOGON` out of place or `LOGOFF` outside `READY` (which the specification
//! calls protocol violations), the FAILURE is followed by closing the connection. A failed
//! authentication also closes.

use crate::chunk::chunk_into;
use crate::error::RequestError;
use crate::handshake::Version;
use crate::message::{
    decode_request, AuthToken, BoltFailure, Hello, Request, Response, Route, Run, RunExtra, StreamRequest,
};
use crate::packstream::{DecodeLimits, Encoder};
use crate::structs::StructFormat;
use crate::value::{Map, Value};

/// The state of a connection, as named by the Bolt server-state specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ServerState {
    /// Handshake done, waiting for `HELLO` (`CONNECTED` before 5.1).
    Negotiation,
    /// `HELLO` (or `LOGOFF`) done, waiting for `LOGON` (5.1+).
    Authentication,
    /// Ready for a query or a transaction.
    Ready,
    /// An auto-commit result is open.
    Streaming,
    /// Inside an explicit transaction, no result open.
    TxReady,
    /// Inside an explicit transaction, with at least one open result.
    TxStreaming,
    /// A request failed; everything but `RESET` is ignored.
    Failed,
    /// A `RESET` is on its way; everything before it is ignored.
    Interrupted,
    /// Closed for good.
    Defunct,
}

impl ServerState {
    /// The specification's name (`"TX_STREAMING"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ServerState::Negotiation => "NEGOTIATION",
            ServerState::Authentication => "AUTHENTICATION",
            ServerState::Ready => "READY",
            ServerState::Streaming => "STREAMING",
            ServerState::TxReady => "TX_READY",
            ServerState::TxStreaming => "TX_STREAMING",
            ServerState::Failed => "FAILED",
            ServerState::Interrupted => "INTERRUPTED",
            ServerState::Defunct => "DEFUNCT",
        }
    }

    fn logged_on(self) -> bool {
        !matches!(
            self,
            ServerState::Negotiation | ServerState::Authentication | ServerState::Defunct
        )
    }
}

/// What a `RUN` produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunResult {
    /// Column names.
    pub fields: Vec<String>,
    /// The result's id, used by `PULL`/`DISCARD` (sent to the client inside transactions).
    pub qid: i64,
    /// Milliseconds until the first record was available.
    pub t_first: i64,
    /// The database the query runs in, when the client named none (sent from 5.8 on, for
    /// auto-commit queries).
    pub db: Option<String>,
}

/// What a `BEGIN` produced.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BeginResult {
    /// The database the transaction runs in, when the client named none (sent from 5.8 on).
    pub db: Option<String>,
}

/// The kind of statement, for the summary's `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryType {
    /// `"r"`: read only.
    Read,
    /// `"w"`: write only.
    Write,
    /// `"rw"`: reads and writes.
    ReadWrite,
    /// `"s"`: schema only.
    Schema,
}

impl QueryType {
    /// The protocol's code.
    pub fn as_str(self) -> &'static str {
        match self {
            QueryType::Read => "r",
            QueryType::Write => "w",
            QueryType::ReadWrite => "rw",
            QueryType::Schema => "s",
        }
    }
}

/// The summary of an exhausted result.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Summary {
    /// The bookmark after the auto-commit transaction committed (dropped inside explicit
    /// transactions, whose bookmark comes with `COMMIT`).
    pub bookmark: Option<String>,
    /// Milliseconds until the last record was consumed.
    pub t_last: Option<i64>,
    /// The kind of statement.
    pub query_type: Option<QueryType>,
    /// Update counters (`nodes-created`, ...); omitted when empty.
    pub stats: Map,
    /// The database the query ran in.
    pub db: Option<String>,
    /// Further entries sent as they are (`plan`, `profile`, `notifications`, `statuses`).
    pub extra: Map,
}

impl Summary {
    /// The SUCCESS metadata of the summary.
    pub fn metadata(&self, include_bookmark: bool) -> Map {
        let mut m: Map = Vec::new();
        if let (true, Some(b)) = (include_bookmark, &self.bookmark) {
            m.push(("bookmark".into(), b.clone().into()));
        }
        if !self.stats.is_empty() {
            m.push(("stats".into(), Value::Map(self.stats.clone())));
        }
        if let Some(t) = self.query_type {
            m.push(("type".into(), t.as_str().into()));
        }
        if let Some(t) = self.t_last {
            m.push(("t_last".into(), t.into()));
        }
        if let Some(db) = &self.db {
            m.push(("db".into(), db.clone().into()));
        }
        m.extend(self.extra.iter().cloned());
        m
    }
}

/// A batch of records from `PULL`, and the summary once the result is exhausted.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PullResult {
    /// The records (each a row of values, in column order).
    pub records: Vec<Vec<Value>>,
    /// `Some` when no record remains (the result is then closed); `None` means more remain.
    pub summary: Option<Summary>,
}

/// What the connection needs from the database. Values are in canonical (5.x) form; the
/// connection converts them for the negotiated version.
pub trait Backend {
    /// `HELLO` arrived (user agent, routing context, notification filters). Default: accept.
    fn hello(&mut self, hello: &Hello) -> Result<(), BoltFailure> {
        let _ = hello;
        Ok(())
    }

    /// Authenticates (from `HELLO` in 4.4/5.0, from `LOGON` in 5.1+). A failure closes the
    /// connection.
    fn authenticate(&mut self, auth: &AuthToken) -> Result<(), BoltFailure>;

    /// `LOGOFF`: forget the authenticated user. Default: nothing to do.
    fn logoff(&mut self) -> Result<(), BoltFailure> {
        Ok(())
    }

    /// Runs a query, in the open explicit transaction when `in_tx`, else as an auto-commit
    /// transaction that commits when its result is exhausted (by `pull` or `discard`).
    fn run(&mut self, query: &str, params: Map, extra: &RunExtra, in_tx: bool) -> Result<RunResult, BoltFailure>;

    /// Up to `n` records (all when `n` is -1) of the open result `qid`.
    fn pull(&mut self, qid: i64, n: i64) -> Result<PullResult, BoltFailure>;

    /// Throws away up to `n` records (all when -1) of result `qid`; `Some(summary)` once none
    /// remain.
    fn discard(&mut self, qid: i64, n: i64) -> Result<Option<Summary>, BoltFailure>;

    /// Opens an explicit transaction.
    fn begin(&mut self, extra: &RunExtra) -> Result<BeginResult, BoltFailure>;

    /// Commits the explicit transaction (closing its open results); returns the bookmark.
    fn commit(&mut self) -> Result<Option<String>, BoltFailure>;

    /// Rolls the explicit transaction back (closing its open results).
    fn rollback(&mut self) -> Result<(), BoltFailure>;

    /// `RESET`: roll back any transaction, drop open results, cancel running work. A failure
    /// closes the connection.
    fn reset(&mut self) -> Result<(), BoltFailure>;

    /// `ROUTE`: the routing table, sent as the `rt` entry (`ttl`, `db`, `servers`).
    fn route(&mut self, route: &Route) -> Result<Map, BoltFailure>;

    /// `TELEMETRY` (5.4+). Default: accept and ignore.
    fn telemetry(&mut self, api: i64) -> Result<(), BoltFailure> {
        let _ = api;
        Ok(())
    }

    /// The connection is closing (`GOODBYE`, a protocol violation, or the peer went away):
    /// roll back and release everything. Default: nothing to do.
    fn goodbye(&mut self) {}
}

impl<B: Backend + ?Sized> Backend for Box<B> {
    fn hello(&mut self, hello: &Hello) -> Result<(), BoltFailure> {
        (**self).hello(hello)
    }
    fn authenticate(&mut self, auth: &AuthToken) -> Result<(), BoltFailure> {
        (**self).authenticate(auth)
    }
    fn logoff(&mut self) -> Result<(), BoltFailure> {
        (**self).logoff()
    }
    fn run(&mut self, query: &str, params: Map, extra: &RunExtra, in_tx: bool) -> Result<RunResult, BoltFailure> {
        (**self).run(query, params, extra, in_tx)
    }
    fn pull(&mut self, qid: i64, n: i64) -> Result<PullResult, BoltFailure> {
        (**self).pull(qid, n)
    }
    fn discard(&mut self, qid: i64, n: i64) -> Result<Option<Summary>, BoltFailure> {
        (**self).discard(qid, n)
    }
    fn begin(&mut self, extra: &RunExtra) -> Result<BeginResult, BoltFailure> {
        (**self).begin(extra)
    }
    fn commit(&mut self) -> Result<Option<String>, BoltFailure> {
        (**self).commit()
    }
    fn rollback(&mut self) -> Result<(), BoltFailure> {
        (**self).rollback()
    }
    fn reset(&mut self) -> Result<(), BoltFailure> {
        (**self).reset()
    }
    fn route(&mut self, route: &Route) -> Result<Map, BoltFailure> {
        (**self).route(route)
    }
    fn telemetry(&mut self, api: i64) -> Result<(), BoltFailure> {
        (**self).telemetry(api)
    }
    fn goodbye(&mut self) {
        (**self).goodbye()
    }
}

/// Server-side settings of a connection.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectionConfig {
    /// The `server` entry of `HELLO`'s SUCCESS. Drivers expect it to start with `Neo4j/`.
    pub server_agent: String,
    /// The `connection_id` entry of `HELLO`'s SUCCESS.
    pub connection_id: String,
    /// Configuration hints for the driver (`connection.recv_timeout_seconds`,
    /// `telemetry.enabled`, ...).
    pub hints: Map,
    /// The `advertised_address` sent on `LOGON` success (5.8+), if any.
    pub advertised_address: Option<String>,
    /// Limits on incoming messages.
    pub limits: DecodeLimits,
}

impl Default for ConnectionConfig {
    fn default() -> Self {
        Self {
            server_agent: concat!(
                "Neo4j/5.26.0 compatible graph database server - HopDB/",
                env!("CARGO_PKG_VERSION")
            )
            .to_owned(),
            connection_id: "bolt-0".to_owned(),
            hints: Vec::new(),
            advertised_address: None,
            limits: DecodeLimits::default(),
        }
    }
}

/// The responses to one request and whether the connection must then close.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outcome {
    /// Detail messages then at most one summary (none after `GOODBYE`).
    pub responses: Vec<Response>,
    /// Close the connection after sending the responses.
    pub close: bool,
}

impl Outcome {
    fn one(r: Response) -> Self {
        Self {
            responses: vec![r],
            close: false,
        }
    }
    fn success(meta: Map) -> Self {
        Self::one(Response::Success(meta))
    }
}

/// One Bolt connection after the handshake: the state machine over a [`Backend`].
#[derive(Debug)]
pub struct Connection<B> {
    backend: B,
    version: Version,
    manifest: bool,
    utc_patch: bool,
    state: ServerState,
    config: ConnectionConfig,
    /// Open results (qids), oldest first.
    open: Vec<i64>,
    /// The qid of the last `RUN`, for `qid: -1`.
    last_qid: Option<i64>,
    /// `RESET`s announced by [`interrupt`](Self::interrupt) and not yet processed.
    interrupts: usize,
}

impl<B: Backend> Connection<B> {
    /// A connection that negotiated `version`, waiting for `HELLO`.
    pub fn new(backend: B, version: Version, config: ConnectionConfig) -> Self {
        Self {
            backend,
            version,
            manifest: false,
            utc_patch: false,
            state: ServerState::Negotiation,
            config,
            open: Vec::new(),
            last_qid: None,
            interrupts: 0,
        }
    }

    /// Marks the version as negotiated through the manifest handshake (5.7+ `HELLO` SUCCESS
    /// then carries `protocol_version`).
    pub fn with_manifest(mut self, manifest: bool) -> Self {
        self.manifest = manifest;
        self
    }

    /// The current state.
    pub fn state(&self) -> ServerState {
        self.state
    }

    /// The negotiated version.
    pub fn version(&self) -> Version {
        self.version
    }

    /// The wire form of structures (depends on the version and the 4.4 `"utc"` patch).
    pub fn format(&self) -> StructFormat {
        StructFormat::for_version(self.version, self.utc_patch)
    }

    /// The backend.
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// The backend, mutably.
    pub fn backend_mut(&mut self) -> &mut B {
        &mut self.backend
    }

    /// Announces a `RESET` that is queued behind other messages (the `<INTERRUPT>` signal): the
    /// connection ignores everything until that `RESET` is handled. No effect before logon.
    pub fn interrupt(&mut self) {
        if self.state.logged_on() {
            self.interrupts += 1;
            self.state = ServerState::Interrupted;
        }
    }

    /// The peer went away (`<DISCONNECT>`): releases the backend's resources.
    pub fn disconnect(&mut self) {
        if self.state != ServerState::Defunct {
            self.defunct();
        }
    }

    /// Decodes and handles one dechunked message.
    pub fn handle_message(&mut self, bytes: &[u8]) -> Outcome {
        match decode_request(bytes, self.version, self.format(), &self.config.limits) {
            Ok(req) => self.handle(req),
            Err(e) => self.handle_invalid(&e),
        }
    }

    /// Handles a message that could not be decoded: unrecognisable messages close the
    /// connection, recognised ones with bad fields fail like any request (or are ignored in
    /// `FAILED`/`INTERRUPTED`).
    pub fn handle_invalid(&mut self, err: &RequestError) -> Outcome {
        tracing::debug!(state = self.state.name(), error = %err, "invalid Bolt request");
        let failure = BoltFailure::request_invalid(err.to_string());
        match self.state {
            ServerState::Defunct => self.closed(),
            _ if err.is_fatal() => self.fatal(failure),
            ServerState::Negotiation | ServerState::Authentication => self.fatal(failure),
            ServerState::Failed | ServerState::Interrupted => Outcome::one(Response::Ignored),
            _ => self.fail(failure),
        }
    }

    /// Handles one request.
    pub fn handle(&mut self, req: Request) -> Outcome {
        use ServerState as S;
        tracing::trace!(state = self.state.name(), request = req.name(), "Bolt request");
        let state = self.state;
        let since = match &req {
            Request::Logon(_) | Request::Logoff => Some(Version::V5_1),
            Request::Telemetry(_) => Some(Version::V5_4),
            _ => None,
        };
        if since.is_some_and(|v| self.version < v) && state != ServerState::Defunct {
            let message = format!("{} is not part of Bolt {}", req.name(), self.version);
            return self.fatal(BoltFailure::request_invalid(message));
        }
        match (state, req) {
            (S::Defunct, _) => self.closed(),
            (_, Request::Goodbye) => {
                self.defunct();
                self.closed()
            }
            (S::Negotiation, Request::Hello(h)) => self.hello(h),
            (S::Authentication, Request::Logon(auth)) => self.logon(&auth),
            (S::Authentication, Request::Reset) => Outcome::success(Vec::new()),
            (S::Interrupted, Request::Reset) => {
                self.interrupts = self.interrupts.saturating_sub(1);
                if self.interrupts > 0 {
                    Outcome::one(Response::Ignored)
                } else {
                    self.reset()
                }
            }
            (S::Failed | S::Interrupted, _) => Outcome::one(Response::Ignored),
            (_, Request::Reset) if state.logged_on() => self.reset(),
            (S::Ready, Request::Logoff) => self.logoff(),
            (S::Ready, Request::Run(r)) => self.run(r, false),
            (S::TxReady | S::TxStreaming, Request::Run(r)) => self.run(r, true),
            (S::Ready, Request::Begin(extra)) => self.begin(&extra),
            (S::Streaming | S::TxStreaming, Request::Pull(s)) => self.pull(s),
            (S::Streaming | S::TxStreaming, Request::Discard(s)) => self.discard(s),
            (S::TxReady | S::TxStreaming, Request::Commit) => self.commit(),
            (S::TxReady | S::TxStreaming, Request::Rollback) => self.rollback(),
            (S::Ready, Request::Telemetry(api)) => self.telemetry(api),
            (S::Ready, Request::Route(r)) => self.route(&r),
            (_, req) => {
                let failure = BoltFailure::request_invalid(format!(
                    "Message '{}' cannot be handled by a session in the {} state.",
                    req.name(),
                    state.name()
                ));
                let violation =
                    !state.logged_on() || matches!(req, Request::Hello(_) | Request::Logon(_) | Request::Logoff);
                if violation {
                    self.fatal(failure)
                } else {
                    self.fail(failure)
                }
            }
        }
    }

    /// Encodes `outcome`'s responses, chunked, onto `out`. A response that cannot be encoded
    /// (a record holding a structure the version cannot express, ...) is replaced, with the
    /// rest of the outcome, by a FAILURE, and the connection moves to `FAILED`.
    pub fn write_outcome(&mut self, outcome: &Outcome, out: &mut Vec<u8>) {
        let encoder = Encoder::new(self.format());
        let mut scratch = Vec::new();
        for resp in &outcome.responses {
            scratch.clear();
            let Err(e) = resp.encode(self.version, &encoder, &mut scratch) else {
                chunk_into(&scratch, out);
                continue;
            };
            tracing::warn!(error = %e, "could not encode a Bolt response");
            if self.state.logged_on() {
                self.state = ServerState::Failed;
            }
            let failure = BoltFailure::internal(format!("the result could not be sent to the client: {e}"));
            scratch.clear();
            if Response::Failure(failure)
                .encode(self.version, &encoder, &mut scratch)
                .is_err()
            {
                scratch.clear();
                // `B0 7E`: IGNORED cannot fail to encode; it still ends the response.
                scratch.extend_from_slice(&[0xB0, 0x7E]);
            }
            chunk_into(&scratch, out);
            break;
        }
    }

    fn closed(&self) -> Outcome {
        Outcome {
            responses: Vec::new(),
            close: true,
        }
    }

    fn defunct(&mut self) {
        self.state = ServerState::Defunct;
        self.open.clear();
        self.backend.goodbye();
    }

    /// FAILURE then close.
    fn fatal(&mut self, failure: BoltFailure) -> Outcome {
        tracing::debug!(state = self.state.name(), %failure, "closing Bolt connection");
        self.defunct();
        Outcome {
            responses: vec![Response::Failure(failure)],
            close: true,
        }
    }

    /// FAILURE and move to `FAILED`.
    fn fail(&mut self, failure: BoltFailure) -> Outcome {
        tracing::debug!(state = self.state.name(), %failure, "Bolt request failed");
        self.state = ServerState::Failed;
        Outcome::one(Response::Failure(failure))
    }

    fn hello(&mut self, hello: Hello) -> Outcome {
        if let Err(f) = self.backend.hello(&hello) {
            return self.fatal(f);
        }
        if self.version < Version::V5_1 {
            let none = AuthToken {
                scheme: "none".into(),
                principal: None,
                credentials: None,
                realm: None,
                other: Vec::new(),
            };
            if let Err(f) = self.backend.authenticate(hello.auth.as_ref().unwrap_or(&none)) {
                return self.fatal(f);
            }
            self.state = ServerState::Ready;
        } else {
            self.state = ServerState::Authentication;
        }
        let mut meta: Map = vec![
            ("server".into(), self.config.server_agent.clone().into()),
            ("connection_id".into(), self.config.connection_id.clone().into()),
        ];
        if self.version.major == 4 && hello.patch_bolt.iter().any(|p| p == "utc") {
            self.utc_patch = true;
            meta.push(("patch_bolt".into(), Value::list(["utc"])));
        }
        meta.push(("hints".into(), Value::Map(self.config.hints.clone())));
        if self.manifest {
            meta.push(("protocol_version".into(), self.version.to_string().into()));
        }
        Outcome::success(meta)
    }

    fn logon(&mut self, auth: &AuthToken) -> Outcome {
        if let Err(f) = self.backend.authenticate(auth) {
            return self.fatal(f);
        }
        self.state = ServerState::Ready;
        let mut meta = Vec::new();
        if let (true, Some(addr)) = (self.version >= Version::V5_8, &self.config.advertised_address) {
            meta.push(("advertised_address".into(), addr.clone().into()));
        }
        Outcome::success(meta)
    }

    fn logoff(&mut self) -> Outcome {
        match self.backend.logoff() {
            Ok(()) => {
                self.state = ServerState::Authentication;
                Outcome::success(Vec::new())
            }
            Err(f) => self.fail(f),
        }
    }

    fn reset(&mut self) -> Outcome {
        self.interrupts = 0;
        match self.backend.reset() {
            Ok(()) => {
                self.open.clear();
                self.last_qid = None;
                self.state = ServerState::Ready;
                Outcome::success(Vec::new())
            }
            Err(f) => self.fatal(f),
        }
    }

    fn home_db(&self, asked: &Option<String>, resolved: Option<String>, meta: &mut Map) {
        if let (true, None, Some(db)) = (self.version >= Version::V5_8, asked, resolved) {
            meta.push(("db".into(), db.into()));
        }
    }

    fn run(&mut self, run: Run, in_tx: bool) -> Outcome {
        let Run {
            query,
            parameters,
            extra,
        } = run;
        let res = match self.backend.run(&query, parameters, &extra, in_tx) {
            Ok(res) => res,
            Err(f) => return self.fail(f),
        };
        let mut meta: Map = vec![
            ("fields".into(), Value::list(res.fields)),
            ("t_first".into(), res.t_first.into()),
        ];
        if in_tx {
            meta.push(("qid".into(), res.qid.into()));
            self.open.push(res.qid);
            self.state = ServerState::TxStreaming;
        } else {
            self.home_db(&extra.db, res.db, &mut meta);
            self.open = vec![res.qid];
            self.state = ServerState::Streaming;
        }
        self.last_qid = Some(res.qid);
        Outcome::success(meta)
    }

    fn begin(&mut self, extra: &RunExtra) -> Outcome {
        match self.backend.begin(extra) {
            Ok(res) => {
                let mut meta = Vec::new();
                self.home_db(&extra.db, res.db, &mut meta);
                self.open.clear();
                self.state = ServerState::TxReady;
                Outcome::success(meta)
            }
            Err(f) => self.fail(f),
        }
    }

    /// The open result a `PULL`/`DISCARD` addresses, or the FAILURE to send.
    fn target(&self, s: StreamRequest) -> Result<i64, BoltFailure> {
        let qid = if s.qid == -1 { self.last_qid } else { Some(s.qid) };
        match qid {
            Some(q) if self.open.contains(&q) => Ok(q),
            _ => Err(BoltFailure::request_invalid(format!(
                "there is no open result with qid {}",
                s.qid
            ))),
        }
    }

    /// Closes result `qid` after its summary and moves on; returns the SUCCESS metadata.
    fn finish_result(&mut self, qid: i64, summary: &Summary) -> Map {
        self.open.retain(|q| *q != qid);
        let auto_commit = self.state == ServerState::Streaming;
        if auto_commit {
            self.state = ServerState::Ready;
        } else if self.open.is_empty() {
            self.state = ServerState::TxReady;
        }
        summary.metadata(auto_commit)
    }

    fn pull(&mut self, s: StreamRequest) -> Outcome {
        let qid = match self.target(s) {
            Ok(q) => q,
            Err(f) => return self.fail(f),
        };
        let res = match self.backend.pull(qid, s.n) {
            Ok(r) => r,
            Err(f) => return self.fail(f),
        };
        let mut responses: Vec<Response> = res.records.into_iter().map(Response::Record).collect();
        let meta = match &res.summary {
            None => vec![("has_more".into(), true.into())],
            Some(summary) => self.finish_result(qid, summary),
        };
        responses.push(Response::Success(meta));
        Outcome {
            responses,
            close: false,
        }
    }

    fn discard(&mut self, s: StreamRequest) -> Outcome {
        let qid = match self.target(s) {
            Ok(q) => q,
            Err(f) => return self.fail(f),
        };
        match self.backend.discard(qid, s.n) {
            Ok(None) => Outcome::success(vec![("has_more".into(), true.into())]),
            Ok(Some(summary)) => {
                let meta = self.finish_result(qid, &summary);
                Outcome::success(meta)
            }
            Err(f) => self.fail(f),
        }
    }

    fn end_tx(&mut self) {
        self.open.clear();
        self.last_qid = None;
        self.state = ServerState::Ready;
    }

    fn commit(&mut self) -> Outcome {
        match self.backend.commit() {
            Ok(bookmark) => {
                self.end_tx();
                let mut meta = Vec::new();
                if let Some(b) = bookmark {
                    meta.push(("bookmark".into(), b.into()));
                }
                Outcome::success(meta)
            }
            Err(f) => self.fail(f),
        }
    }

    fn rollback(&mut self) -> Outcome {
        match self.backend.rollback() {
            Ok(()) => {
                self.end_tx();
                Outcome::success(Vec::new())
            }
            Err(f) => self.fail(f),
        }
    }

    fn telemetry(&mut self, api: i64) -> Outcome {
        match self.backend.telemetry(api) {
            Ok(()) => Outcome::success(Vec::new()),
            Err(f) => self.fail(f),
        }
    }

    fn route(&mut self, route: &Route) -> Outcome {
        match self.backend.route(route) {
            Ok(rt) => Outcome::success(vec![("rt".into(), Value::Map(rt))]),
            Err(f) => self.fail(f),
        }
    }
}
