//! The HTTP listener beside Bolt (`--http`, default `127.0.0.1:7474` in `hopdb serve`):
//!
//! * `GET /health`, `/health/live`, `/health/ready`: `200 {"status": "ok", ...}` while the
//!   server serves (the listener starts once the store is open and Bolt is listening), `503
//!   {"status": "stopping"}` once shutdown has begun.
//! * `GET /metrics`: the Prometheus text format ([`crate::metrics`]).
//! * `POST /db/{name}/query/v2`: Neo4j's query API ([`crate::query_api`]); with
//!   authentication on, HTTP Basic credentials are checked against the users file as Bolt's
//!   `basic` scheme is (`401` with `Neo.ClientError.Security.Unauthorized` otherwise).
//! * `GET /`: Neo4j's discovery document (where Bolt and the query API are); a browser
//!   (`Accept: text/html`) is sent to `/browser/`.
//! * `GET /browser/`: the graph explorer ([`hopdb_explorer`]), a page built into the binary.
//!   Its first page (a login form and a loader) is public; with authentication on, the rest of
//!   its code is served only with valid HTTP Basic credentials, and every query it makes is
//!   checked as any other, so an unauthenticated client gets nothing but the login form.
//!   `GET /browser/charts/index.json` lists the PNG charts under `--charts DIR` (none without
//!   one) and `/browser/charts/<path>` serves each, with the same credentials as the page.
//!
//! [tiny_http] parses requests on a thread per connection and queues them; one dispatcher
//! thread takes them from the queue, answers health, metrics and discovery itself (they take
//! microseconds), and hands each query to a thread of its own (at most the Bolt connection
//! limit at once), so a long query never holds up a health probe. Shutdown stops the
//! dispatcher, waits for the query threads (whose statements the server's stop flag
//! cancels) and closes the listener.

use std::io::{self, Read};
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use crate::lock;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use base64::Engine as _;
use hopdb_bolt::AuthToken;
use hopdb_cypher::QueryEngine;
use serde_json::{json, Value as Json};
use tiny_http::{Header, Method, Request, Response};

use crate::backend::DATABASE_NAME;
use crate::charts;
use crate::metrics::{self, Endpoint};
use crate::query_api::{self, ApiError, Reply};
use crate::server::{ServerError, Shared};

/// The largest request body read (a statement and its parameters).
const MAX_BODY_BYTES: u64 = 16 << 20;

const JSON: &str = "application/json";

/// Query threads running now, and a signal when one ends.
#[derive(Default)]
struct Workers {
    active: Mutex<usize>,
    ended: Condvar,
}

/// A running query thread's place; released when dropped (also by panic).
struct Slot(Arc<Workers>);

impl Drop for Slot {
    fn drop(&mut self) {
        let mut n = lock(&self.0.active);
        *n = n.saturating_sub(1);
        self.0.ended.notify_all();
    }
}

impl Workers {
    fn admit(self: &Arc<Self>, limit: usize) -> Option<Slot> {
        let mut n = lock(&self.active);
        if *n >= limit {
            return None;
        }
        *n += 1;
        Some(Slot(self.clone()))
    }

    /// Waits until no query thread runs or `deadline` passes; whether none runs.
    fn wait(&self, deadline: Instant) -> bool {
        let mut n = lock(&self.active);
        while *n > 0 {
            let Some(left) = deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()) else {
                break;
            };
            n = self
                .ended
                .wait_timeout(n, left)
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
        }
        *n == 0
    }
}

/// The running HTTP listener.
pub(crate) struct HttpServer {
    server: Option<Arc<tiny_http::Server>>,
    local_addr: SocketAddr,
    stop: Arc<AtomicBool>,
    dispatcher: Option<JoinHandle<()>>,
    workers: Arc<Workers>,
}

impl HttpServer {
    /// The address the listener is bound to.
    pub(crate) fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Stops answering: ends the dispatcher, waits for running queries until `deadline`, and
    /// closes the listener. Whether every query thread ended (so none holds the engine).
    pub(crate) fn stop(&mut self, deadline: Instant) -> bool {
        let Some(server) = self.server.take() else {
            return true;
        };
        self.stop.store(true, Ordering::SeqCst);
        server.unblock();
        if let Some(d) = self.dispatcher.take() {
            if d.join().is_err() {
                tracing::error!("the HTTP dispatcher thread panicked");
            }
        }
        let clean = self.workers.wait(deadline);
        if !clean {
            tracing::warn!("HTTP queries still running after the shutdown grace period");
        }
        // The last handle: dropping it closes the listener.
        drop(server);
        tracing::info!(address = %self.local_addr, "HTTP server stopped");
        clean
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stop(Instant::now() + Duration::from_secs(5));
    }
}

/// Binds `listen` and starts answering HTTP for the server `shared` describes.
pub(crate) fn start(listen: &str, engine: QueryEngine, shared: Arc<Shared>) -> Result<HttpServer, ServerError> {
    let listener = TcpListener::bind(listen).map_err(|source| ServerError::HttpBind {
        addr: listen.to_owned(),
        source,
    })?;
    let local_addr = listener.local_addr().map_err(|source| ServerError::Io {
        what: "reading the bound HTTP address",
        source,
    })?;
    let server = tiny_http::Server::from_listener(listener, None).map_err(|e| ServerError::Io {
        what: "starting the HTTP server",
        source: io::Error::other(e.to_string()),
    })?;
    let server = Arc::new(server);
    let stop = Arc::new(AtomicBool::new(false));
    let workers = Arc::new(Workers::default());
    let dispatcher = {
        let (server, stop, workers) = (server.clone(), stop.clone(), workers.clone());
        thread::Builder::new()
            .name("http-dispatch".into())
            .spawn(move || dispatch(&server, &engine, &shared, &stop, &workers))
            .map_err(|source| ServerError::Io {
                what: "starting the HTTP dispatcher thread",
                source,
            })?
    };
    tracing::info!(
        address = %local_addr,
        "HTTP server listening (/health, /metrics, /db/{DATABASE_NAME}/query/v2)"
    );
    Ok(HttpServer {
        server: Some(server),
        local_addr,
        stop,
        dispatcher: Some(dispatcher),
        workers,
    })
}

fn dispatch(
    server: &tiny_http::Server,
    engine: &QueryEngine,
    shared: &Arc<Shared>,
    stop: &AtomicBool,
    workers: &Arc<Workers>,
) {
    loop {
        let rq = match server.recv() {
            Ok(rq) => rq,
            Err(_) if stop.load(Ordering::SeqCst) => break,
            Err(e) => {
                tracing::warn!(error = %e, "receiving an HTTP request failed");
                thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        route(rq, engine, shared, workers);
    }
    tracing::debug!("HTTP dispatcher ended");
}

/// The path without the query string.
fn path_of(url: &str) -> &str {
    url.split(['?', '#']).next().unwrap_or("")
}

/// `/db/{name}/query/v2` → `name`.
fn query_database(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("/db/")?;
    let (name, tail) = rest.split_once('/')?;
    (tail == "query/v2" && !name.is_empty()).then_some(name)
}

fn route(rq: Request, engine: &QueryEngine, shared: &Arc<Shared>, workers: &Arc<Workers>) {
    let path = path_of(rq.url()).to_owned();
    let get = matches!(rq.method(), Method::Get | Method::Head);
    match path.as_str() {
        "/health" | "/health/live" | "/health/ready" if get => {
            let (status, body) = health(shared.stopping.load(Ordering::SeqCst), shared.local_addr);
            send_json(rq, shared, Endpoint::Health, status, &body);
        }
        "/metrics" if get => {
            let text = shared.metrics.render(engine, shared.connections());
            send(
                rq,
                shared,
                Endpoint::Metrics,
                200,
                metrics::CONTENT_TYPE,
                text.into_bytes(),
                &[],
            );
        }
        "/" if get && header(&rq, "Accept").is_some_and(|a| a.contains("text/html")) => {
            redirect(rq, shared, "/browser/");
        }
        "/" if get => {
            let body = discovery(shared);
            send_json(rq, shared, Endpoint::Other, 200, &body);
        }
        "/browser" if get => redirect(rq, shared, "/browser/"),
        p if get && p.starts_with("/browser/") => {
            let name = p.trim_start_matches("/browser/").to_owned();
            browser(rq, &name, shared, workers);
        }
        "/health" | "/health/live" | "/health/ready" | "/metrics" | "/" => {
            method_not_allowed(rq, shared, "GET");
        }
        p => match query_database(p) {
            Some(_) if *rq.method() != Method::Post => method_not_allowed(rq, shared, "POST"),
            Some(db) => {
                let db = db.to_owned();
                spawn_query(rq, db, engine, shared, workers);
            }
            None => {
                let message = if p.starts_with("/db/") && p.contains("/query/v2/tx") {
                    format!("{p}: explicit transactions over HTTP are not supported by HopDB; send each statement to /db/{DATABASE_NAME}/query/v2, or use Bolt")
                } else {
                    format!("{p}: no such endpoint (there are /health, /metrics, /browser/ and POST /db/{DATABASE_NAME}/query/v2)")
                };
                let e = ApiError::new("Neo.ClientError.Request.Invalid", message);
                send_json(rq, shared, Endpoint::Other, 404, &e.reply().body);
            }
        },
    }
}

/// The health answer: ready unless stopping.
fn health(stopping: bool, bolt: SocketAddr) -> (u16, Json) {
    let (status, word) = if stopping { (503, "stopping") } else { (200, "ok") };
    (
        status,
        json!({ "status": word, "database": DATABASE_NAME, "bolt": bolt.to_string() }),
    )
}

/// Neo4j's discovery document, with the addresses this server answers on.
fn discovery(shared: &Shared) -> Json {
    let bolt = shared
        .config
        .advertised_address
        .clone()
        .unwrap_or_else(|| shared.local_addr.to_string());
    json!({
        "bolt_direct": format!("bolt://{bolt}"),
        "bolt_routing": format!("neo4j://{bolt}"),
        "query": "/db/{databaseName}/query/v2",
        "neo4j_version": "5.26.0",
        "neo4j_edition": "community",
        "server": concat!("HopDB/", env!("CARGO_PKG_VERSION")),
    })
}

fn redirect(rq: Request, shared: &Shared, to: &str) {
    let location = Header::from_bytes("Location", to).ok();
    send(
        rq,
        shared,
        Endpoint::Browser,
        301,
        "text/plain",
        Vec::new(),
        location.as_slice(),
    );
}

/// What a `/browser/...` path names: one of the page's built-in assets, or (under
/// `charts/`) the benchmark charts of `--charts DIR`.
enum BrowserContent {
    Asset(&'static hopdb_explorer::Asset),
    ChartIndex,
    Chart(String),
}

impl BrowserContent {
    fn of(name: &str) -> Option<BrowserContent> {
        match name.strip_prefix("charts/") {
            Some("index.json") => Some(BrowserContent::ChartIndex),
            Some(rel) => Some(BrowserContent::Chart(rel.to_owned())),
            None => hopdb_explorer::asset(if name.is_empty() { "index.html" } else { name }).map(BrowserContent::Asset),
        }
    }

    /// Served without credentials even with authentication on: only the login page.
    fn public(&self) -> bool {
        matches!(self, BrowserContent::Asset(a) if a.public)
    }

    fn send(self, rq: Request, shared: &Shared) {
        let dir = shared.config.charts_dir.as_deref();
        match self {
            BrowserContent::Asset(asset) => send_asset(rq, shared, asset.content_type, asset.bytes.to_vec()),
            BrowserContent::ChartIndex => match charts::index(dir) {
                Ok(body) => send_json(rq, shared, Endpoint::Browser, 200, &body),
                Err(e) => {
                    tracing::warn!(error = %e, "listing the benchmark charts failed");
                    let e = ApiError::new("Neo.DatabaseError.General.UnknownError", e.to_string());
                    send_json(rq, shared, Endpoint::Browser, 500, &e.reply().body);
                }
            },
            BrowserContent::Chart(rel) => match dir.map(|d| charts::read(d, &rel)) {
                Some(Ok(bytes)) => send_asset(rq, shared, "image/png", bytes),
                Some(Err(e)) => {
                    let e = ApiError::new("Neo.ClientError.Request.Invalid", format!("/browser/charts/{e}"));
                    send_json(rq, shared, Endpoint::Browser, 404, &e.reply().body);
                }
                None => {
                    let e = ApiError::new(
                        "Neo.ClientError.Request.Invalid",
                        format!("/browser/charts/{rel}: this server shows no charts (start it with --charts DIR)"),
                    );
                    send_json(rq, shared, Endpoint::Browser, 404, &e.reply().body);
                }
            },
        }
    }
}

/// A file of the explorer's page (`name` under `/browser/`; empty: the page itself).
fn browser(rq: Request, name: &str, shared: &Arc<Shared>, workers: &Arc<Workers>) {
    let Some(content) = BrowserContent::of(name) else {
        let e = ApiError::new(
            "Neo.ClientError.Request.Invalid",
            format!("/browser/{name}: the explorer has no such file"),
        );
        return send_json(rq, shared, Endpoint::Browser, 404, &e.reply().body);
    };
    // A built-in asset is answered here; a chart reads files, and a password check takes
    // milliseconds: those run on a thread of their own, as a query does.
    if content.public() || (!shared.auth.enabled() && matches!(content, BrowserContent::Asset(_))) {
        return content.send(rq, shared);
    }
    let Some(slot) = workers.admit(shared.config.max_connections) else {
        let e = ApiError::new(
            "Neo.TransientError.Request.NoThreadsAvailable",
            "the server is busy: retry later",
        );
        return send_json(rq, shared, Endpoint::Browser, 503, &e.reply().body);
    };
    let shared = shared.clone();
    let spawned = thread::Builder::new().name("http-browser".into()).spawn(move || {
        let checked = if shared.auth.enabled() {
            authorize(&rq, &shared)
        } else {
            Ok(())
        };
        match checked {
            Ok(()) => content.send(rq, &shared),
            // No challenge header: the page asks for credentials with its own form.
            Err(e) => send_json(rq, &shared, Endpoint::Browser, e.status(), &e.reply().body),
        }
        drop(slot);
    });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "cannot start a thread for an explorer file");
    }
}

fn send_asset(rq: Request, shared: &Shared, content_type: &str, bytes: Vec<u8>) {
    // Not cached, so a new binary's page is what a reload shows.
    let headers: Vec<Header> = [("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff")]
        .iter()
        .filter_map(|(k, v)| Header::from_bytes(*k, *v).ok())
        .collect();
    send(rq, shared, Endpoint::Browser, 200, content_type, bytes, &headers);
}

fn method_not_allowed(rq: Request, shared: &Shared, allowed: &'static str) {
    let e = ApiError::new(
        "Neo.ClientError.Request.Invalid",
        format!("{} is not allowed here: use {allowed}", rq.method()),
    );
    let allow = Header::from_bytes("Allow", allowed).ok();
    let body = serde_json::to_vec(&e.reply().body).unwrap_or_default();
    send(rq, shared, Endpoint::Other, 405, JSON, body, allow.as_slice());
}

fn send_json(rq: Request, shared: &Shared, endpoint: Endpoint, status: u16, body: &Json) {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    send(rq, shared, endpoint, status, JSON, bytes, &[]);
}

fn send(
    rq: Request,
    shared: &Shared,
    endpoint: Endpoint,
    status: u16,
    content_type: &str,
    body: Vec<u8>,
    extra: &[Header],
) {
    shared.metrics.http_request(endpoint, status);
    let mut response = Response::from_data(body).with_status_code(status);
    if let Ok(h) = Header::from_bytes("Content-Type", content_type) {
        response.add_header(h);
    }
    for h in extra {
        response.add_header(h.clone());
    }
    let peer = rq.remote_addr().copied();
    tracing::debug!(method = %rq.method(), url = %rq.url(), status, ?peer, "HTTP request");
    if let Err(e) = rq.respond(response) {
        tracing::debug!(error = %e, ?peer, "writing an HTTP response failed");
    }
}

fn spawn_query(rq: Request, db: String, engine: &QueryEngine, shared: &Arc<Shared>, workers: &Arc<Workers>) {
    if shared.stopping.load(Ordering::SeqCst) {
        let e = ApiError::new(
            "Neo.TransientError.General.DatabaseUnavailable",
            "the server is shutting down",
        );
        shared.metrics.error(crate::metrics::Protocol::Http, &e.code);
        return send_json(rq, shared, Endpoint::Query, 503, &e.reply().body);
    }
    let limit = shared.config.max_connections;
    let Some(slot) = workers.admit(limit) else {
        let e = ApiError::new(
            "Neo.TransientError.Request.NoThreadsAvailable",
            format!("{limit} HTTP queries are running already: retry later"),
        );
        shared.metrics.error(crate::metrics::Protocol::Http, &e.code);
        return send_json(rq, shared, Endpoint::Query, 503, &e.reply().body);
    };
    let engine = engine.clone();
    let shared = shared.clone();
    let spawned = thread::Builder::new().name("http-query".into()).spawn(move || {
        serve_query(rq, &db, &engine, &shared);
        // The engine goes before the slot, so a finished shutdown leaves no clone behind.
        drop(engine);
        drop(slot);
    });
    if let Err(e) = spawned {
        // The closure was dropped with the request (tiny_http answers it 500) and the slot.
        tracing::warn!(error = %e, "cannot start a thread for an HTTP query");
    }
}

fn header<'r>(rq: &'r Request, name: &'static str) -> Option<&'r str> {
    rq.headers()
        .iter()
        .find(|h| h.field.equiv(name))
        .map(|h| h.value.as_str())
}

fn serve_query(mut rq: Request, db: &str, engine: &QueryEngine, shared: &Shared) {
    let reply = match authorize(&rq, shared) {
        Err(e) => {
            shared.metrics.error(crate::metrics::Protocol::Http, &e.code);
            let challenge = Header::from_bytes("WWW-Authenticate", "Basic realm=\"Neo4j\"").ok();
            let body = serde_json::to_vec(&e.reply().body).unwrap_or_default();
            let status = e.status();
            return send(rq, shared, Endpoint::Query, status, JSON, body, challenge.as_slice());
        }
        Ok(()) => {
            let mut body = Vec::new();
            let read = rq.as_reader().take(MAX_BODY_BYTES + 1).read_to_end(&mut body);
            match read {
                Err(e) => {
                    tracing::debug!(error = %e, "reading an HTTP request body failed");
                    return;
                }
                Ok(_) if body.len() as u64 > MAX_BODY_BYTES => {
                    let e = ApiError::new(
                        "Neo.ClientError.Request.Invalid",
                        format!("the request body is over {MAX_BODY_BYTES} bytes"),
                    );
                    shared.metrics.error(crate::metrics::Protocol::Http, &e.code);
                    Reply {
                        status: 413,
                        body: e.reply().body,
                    }
                }
                Ok(_) => query_api::handle(
                    engine,
                    &shared.metrics,
                    &shared.stopping,
                    db,
                    header(&rq, "Accept"),
                    &body,
                ),
            }
        }
    };
    send_json(rq, shared, Endpoint::Query, reply.status, &reply.body);
}

/// `Authorization: Basic base64(user:password)` → (user, password).
fn basic_credentials(value: &str) -> Option<(String, String)> {
    let (scheme, rest) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD.decode(rest.trim()).ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (user, password) = text.split_once(':')?;
    Some((user.to_owned(), password.to_owned()))
}

/// Checks the request's HTTP Basic credentials as Bolt's `basic` scheme is checked (every
/// request is accepted when authentication is off).
fn authorize(rq: &Request, shared: &Shared) -> Result<(), ApiError> {
    if !shared.auth.enabled() {
        return Ok(());
    }
    let token = match header(rq, "Authorization").and_then(basic_credentials) {
        Some((user, password)) => AuthToken {
            scheme: "basic".into(),
            principal: Some(user),
            credentials: Some(password),
            realm: None,
            other: Vec::new(),
        },
        None => AuthToken {
            scheme: "none".into(),
            principal: None,
            credentials: None,
            realm: None,
            other: Vec::new(),
        },
    };
    let peer = rq
        .remote_addr()
        .copied()
        .unwrap_or_else(|| SocketAddr::from(([0, 0, 0, 0], 0)));
    shared
        .auth
        .authenticate(&token, 0, peer)
        .map(|_user| ())
        .map_err(|f| ApiError::new(&f.code, f.message))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn health_is_503_while_stopping() {
        let addr: SocketAddr = "127.0.0.1:7687".parse().unwrap();
        let (status, body) = health(false, addr);
        assert_eq!(status, 200);
        assert_eq!(body["status"], "ok");
        let (status, body) = health(true, addr);
        assert_eq!(status, 503);
        assert_eq!(body["status"], "stopping");
    }

    #[test]
    fn paths() {
        assert_eq!(query_database("/db/neo4j/query/v2"), Some("neo4j"));
        assert_eq!(query_database("/db/other/query/v2"), Some("other"));
        assert_eq!(query_database("/db//query/v2"), None);
        assert_eq!(query_database("/db/neo4j/query/v2/tx"), None);
        assert_eq!(query_database("/db/neo4j/tx/commit"), None);
        assert_eq!(path_of("/metrics?x=1"), "/metrics");
    }

    #[test]
    fn basic_credentials_are_decoded() {
        // "neo4j:verysecret", the Neo4j documentation's example.
        assert_eq!(
            basic_credentials("Basic bmVvNGo6dmVyeXNlY3JldA=="),
            Some(("neo4j".into(), "verysecret".into()))
        );
        assert_eq!(basic_credentials("Bearer abc"), None);
        assert_eq!(basic_credentials("Basic !!!"), None);
    }
}
