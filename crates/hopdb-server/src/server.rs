//! The listener: blocking accept on one thread, which hands plain-TCP connections to the
//! worker pool (`pool.rs`) and gives each TLS connection a thread; a connection limit; and a
//! shutdown that stops accepting, closes every connection (rolling back open transactions)
//! and waits for the workers and threads to let go of the engine.

use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use hopdb_bolt::{ByteSession, ConnectionConfig, SessionConfig};
use hopdb_cypher::QueryEngine;

use crate::auth::{AuthConfig, AuthError, Authenticator};
use crate::backend::EngineBackend;
use crate::http::{self, HttpServer};
use crate::lock;
use crate::metrics::Metrics;
use crate::pool::{self, Pool};
use crate::tls::{self, TlsConfig, TlsError};
use crate::watchdog::{ConnWatch, Watched};

/// How a server listens and behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// Where to listen for Bolt clients, `HOST:PORT` (port 0: any free port, see
    /// [`ServerHandle::local_addr`]).
    pub bolt_listen: String,
    /// Connections served at once; a connection over the limit is closed as soon as it is
    /// accepted.
    pub max_connections: usize,
    /// The `HOST:PORT` clients should use to reach the server, sent in routing tables
    /// (`neo4j://` URIs) and in `LOGON`'s SUCCESS (Bolt 5.8). `None`: the address the client
    /// connected to.
    pub advertised_address: Option<String>,
    /// How long [`ServerHandle::shutdown`] waits for connection threads to finish their
    /// current statement.
    pub shutdown_grace: Duration,
    /// Whether clients must log on as a user of a users file, or any credentials do
    /// (the default: [`AuthConfig::Disabled`]).
    pub auth: AuthConfig,
    /// TLS on every connection (`bolt+s://`), or plain TCP (`bolt://`) when `None`.
    pub tls: Option<TlsConfig>,
    /// Where to answer HTTP (`/health`, `/metrics`, the query API `POST /db/neo4j/query/v2`),
    /// `HOST:PORT`; `None` (the default): no HTTP. See [`ServerHandle::http_addr`].
    pub http_listen: Option<String>,
    /// When the HTTP address cannot be bound: `false` (the default), [`serve`] fails; `true`,
    /// it logs a warning and serves Bolt alone (for a default address that may be taken).
    pub http_best_effort: bool,
    /// The longest a statement may run (a client's shorter `tx_timeout` wins); `None`: no
    /// server-side limit.
    pub statement_timeout: Option<Duration>,
    /// How long a writing statement or `BEGIN` waits for the store's one writer slot while
    /// another transaction holds it, before failing with the transient
    /// `LockAcquisitionTimeout` that drivers retry; `None`: as long as it takes.
    pub writer_wait: Option<Duration>,
    /// An explicit transaction idle (no message from its client) for longer than this is
    /// rolled back by closing its connection, so one stalled client cannot hold the writer
    /// slot; `None`: never.
    pub idle_transaction_timeout: Option<Duration>,
    /// Worker threads serving plain-TCP connections (decision 0023): the pool keeps this many
    /// and adds one while every one of them is held by a long request. Default: one per core.
    /// TLS connections get a thread each.
    pub workers: usize,
    /// A directory whose PNG charts (newest first; HopDB's `bench/results`) the explorer's
    /// store page shows; `None` (the default): none.
    pub charts_dir: Option<std::path::PathBuf>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            bolt_listen: "127.0.0.1:7687".into(),
            max_connections: 256,
            advertised_address: None,
            shutdown_grace: Duration::from_secs(30),
            auth: AuthConfig::Disabled,
            tls: None,
            http_listen: None,
            http_best_effort: false,
            statement_timeout: None,
            writer_wait: Some(Duration::from_secs(10)),
            idle_transaction_timeout: Some(Duration::from_secs(120)),
            workers: thread::available_parallelism().map_or(2, usize::from),
            charts_dir: None,
        }
    }
}

/// The server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The Bolt address could not be bound.
    #[error("cannot listen for Bolt on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The users file could not be used.
    #[error("authentication: {0}")]
    Auth(#[from] AuthError),
    /// The TLS certificate or key could not be used.
    #[error("TLS: {0}")]
    Tls(#[from] TlsError),
    /// The HTTP address could not be bound.
    #[error("cannot listen for HTTP on {addr}: {source}")]
    HttpBind {
        /// The address asked for.
        addr: String,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// Another I/O failure while starting.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// Why it failed.
        #[source]
        source: io::Error,
    },
}

/// What the accept thread, the connection threads and the handle share.
pub(crate) struct Shared {
    pub(crate) config: ServerConfig,
    pub(crate) local_addr: SocketAddr,
    /// Set on shutdown: the accept loop stops and running statements are cancelled.
    pub(crate) stopping: Arc<AtomicBool>,
    /// Checks the credentials of `HELLO` (4.4, 5.0) and `LOGON` (5.1+).
    pub(crate) auth: Authenticator,
    /// The TLS setup, when connections are encrypted.
    tls: Option<Arc<rustls::ServerConfig>>,
    /// Every open connection, for the watchdog (cancel on RESET or disconnect, idle
    /// transactions) and to close them on shutdown.
    watched: Watched,
    /// Connections being served.
    active: Mutex<usize>,
    /// Signalled when a connection ends.
    ended: Condvar,
    /// The Prometheus metrics (`/metrics`).
    pub(crate) metrics: Metrics,
}

impl Shared {
    /// Bolt connections being served now.
    pub(crate) fn connections(&self) -> usize {
        *lock(&self.active)
    }
}

impl Shared {
    fn admit(&self) -> bool {
        let mut n = lock(&self.active);
        if *n >= self.config.max_connections {
            return false;
        }
        *n += 1;
        true
    }

    fn release(&self, id: u64) {
        self.watched.remove(id);
        let mut n = lock(&self.active);
        *n = n.saturating_sub(1);
        self.ended.notify_all();
    }

    fn advertised(&self) -> String {
        self.config
            .advertised_address
            .clone()
            .unwrap_or_else(|| self.local_addr.to_string())
    }
}

/// Releases a connection's slot when it ends (its thread ends or the pool drops it), even by
/// panic.
pub(crate) struct Slot {
    shared: Arc<Shared>,
    id: u64,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.shared.release(self.id);
    }
}

/// A running server. Dropping it shuts it down.
pub struct ServerHandle {
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
    watchdog: Option<JoinHandle<()>>,
    /// The HTTP listener (health, metrics, query API), when configured.
    http: Option<HttpServer>,
}

impl std::fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerHandle")
            .field("local_addr", &self.shared.local_addr)
            .field("active_connections", &self.active_connections())
            .finish_non_exhaustive()
    }
}

impl ServerHandle {
    /// The address the server listens on (with the port chosen when 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.shared.local_addr
    }

    /// Connections being served now.
    pub fn active_connections(&self) -> usize {
        *lock(&self.shared.active)
    }

    /// The address HTTP is answered on (with the port chosen when 0 was asked for), or `None`
    /// without HTTP.
    pub fn http_addr(&self) -> Option<SocketAddr> {
        self.http.as_ref().map(HttpServer::local_addr)
    }

    /// Stops accepting, closes every connection (their open transactions roll back), cancels
    /// running statements, and waits up to the grace period for the connection threads to end.
    /// Returns whether they all did: then no clone of the engine is left in the server and the
    /// caller can close the store.
    pub fn shutdown(mut self) -> bool {
        self.stop()
    }

    /// Stops Bolt, then HTTP (which answers `/health` with 503 meanwhile), within one grace
    /// period.
    fn stop(&mut self) -> bool {
        let deadline = Instant::now() + self.shared.config.shutdown_grace;
        let bolt = self.stop_bolt();
        let http = self.http.as_mut().is_none_or(|h| h.stop(deadline));
        bolt && http
    }

    fn stop_bolt(&mut self) -> bool {
        let Some(accept) = self.accept.take() else {
            return true;
        };
        tracing::info!(address = %self.shared.local_addr, "Bolt server stopping");
        let deadline = Instant::now() + self.shared.config.shutdown_grace;
        self.shared.stopping.store(true, Ordering::SeqCst);
        // Cancel what runs and close every connection: pool workers and connection threads
        // see end-of-file and roll back.
        self.shared.watched.close_all();
        // Wake the blocking accept with a connection of our own. Its thread then stops the
        // pool's workers and closes what the pool still holds.
        let mut clean = true;
        match TcpStream::connect_timeout(&wake_address(self.shared.local_addr), Duration::from_secs(5)) {
            Ok(_) => {
                while !accept.is_finished() && Instant::now() < deadline {
                    thread::sleep(Duration::from_millis(5));
                }
                if !accept.is_finished() {
                    tracing::warn!("Bolt workers still busy after the shutdown grace period");
                    clean = false;
                } else if accept.join().is_err() {
                    tracing::error!("the Bolt accept thread panicked");
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not wake the Bolt accept thread; leaving it behind");
                clean = false;
            }
        }
        if let Some(w) = self.watchdog.take() {
            if w.join().is_err() {
                tracing::error!("the Bolt watchdog thread panicked");
            }
        }
        let mut n = lock(&self.shared.active);
        while *n > 0 {
            let Some(left) = deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()) else {
                break;
            };
            n = self
                .shared
                .ended
                .wait_timeout(n, left)
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
        }
        let clean = clean && *n == 0;
        if clean {
            tracing::info!("Bolt server stopped");
        } else {
            tracing::warn!(busy = *n, "Bolt connections still busy after the shutdown grace period");
        }
        clean
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The address to connect to in order to reach a listener bound to `addr`.
fn wake_address(addr: SocketAddr) -> SocketAddr {
    let ip = match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, addr.port())
}

/// Starts serving `engine` over Bolt: binds `config.bolt_listen` and accepts connections on a
/// thread of its own, each connection then served by a thread of its own.
///
/// With [`AuthConfig::UsersFile`] the file is read now (an unreadable file, or one listing
/// nobody, is an error) and clients must log on as one of its users; with
/// [`AuthConfig::Disabled`] every client is accepted whatever its credentials. With
/// [`ServerConfig::tls`] the certificate and key are loaded now and every connection is TLS.
pub fn serve(engine: QueryEngine, config: ServerConfig) -> Result<ServerHandle, ServerError> {
    let auth = Authenticator::new(&config.auth)?;
    let tls = config.tls.as_ref().map(tls::server_config).transpose()?;
    let listener = TcpListener::bind(&config.bolt_listen).map_err(|source| ServerError::Bind {
        addr: config.bolt_listen.clone(),
        source,
    })?;
    let local_addr = listener.local_addr().map_err(|source| ServerError::Io {
        what: "reading the bound address",
        source,
    })?;
    tracing::info!(
        address = %local_addr,
        max_connections = config.max_connections,
        workers = config.workers,
        tls = tls.is_some(),
        "Bolt server listening"
    );
    match &config.auth {
        AuthConfig::Disabled => {
            tracing::warn!("authentication is disabled: every Bolt client is accepted whatever its credentials")
        }
        AuthConfig::UsersFile(path) => tracing::info!(
            file = %path.display(),
            users = auth.user_count(),
            "authentication is enabled: clients log on as a user of the users file (scheme \"basic\")"
        ),
    }
    let metrics = Metrics::new(config.max_connections).map_err(|e| ServerError::Io {
        what: "setting up the metrics",
        source: io::Error::other(e),
    })?;
    let shared = Arc::new(Shared {
        config,
        local_addr,
        stopping: Arc::new(AtomicBool::new(false)),
        auth,
        tls,
        watched: Watched::default(),
        active: Mutex::new(0),
        ended: Condvar::new(),
        metrics,
    });
    let http_engine = shared.config.http_listen.is_some().then(|| engine.clone());
    let io_err = |what| move |source| ServerError::Io { what, source };
    let (epoll, stop) = pool::stop_signal().map_err(io_err("creating the epoll set of the worker pool"))?;
    let for_accept = shared.clone();
    // The accept thread owns the engine and the worker pool: the workers borrow both, in a
    // scope that ends when the server stops.
    let accept = thread::Builder::new()
        .name("bolt-accept".into())
        .spawn(move || {
            let shared = &*for_accept;
            let pool = Pool::new(&engine, shared, epoll, stop);
            thread::scope(|scope| pool.run(scope, || accept_loop(&listener, &engine, &for_accept, &pool)));
            pool.close_all();
        })
        .map_err(io_err("starting the accept thread"))?;
    let for_watchdog = shared.clone();
    let watchdog = thread::Builder::new()
        .name("bolt-watchdog".into())
        .spawn(move || {
            let s = &for_watchdog;
            s.watched.run(&s.stopping, s.config.idle_transaction_timeout);
        })
        .map_err(|source| ServerError::Io {
            what: "starting the watchdog thread",
            source,
        })?;
    let mut handle = ServerHandle {
        shared,
        accept: Some(accept),
        watchdog: Some(watchdog),
        http: None,
    };
    // HTTP answers once Bolt listens; if it cannot start, dropping the handle stops Bolt.
    if let (Some(listen), Some(engine)) = (handle.shared.config.http_listen.clone(), http_engine) {
        match http::start(&listen, engine, handle.shared.clone()) {
            Ok(h) => handle.http = Some(h),
            Err(e) if handle.shared.config.http_best_effort => {
                tracing::warn!(error = %e, "HTTP is off: serving Bolt alone");
            }
            Err(e) => return Err(e),
        }
    }
    Ok(handle)
}

fn accept_loop(listener: &TcpListener, engine: &QueryEngine, shared: &Arc<Shared>, pool: &Pool<'_>) {
    let mut next_id = 0u64;
    loop {
        let accepted = listener.accept();
        if shared.stopping.load(Ordering::SeqCst) {
            break;
        }
        let (stream, peer) = match accepted {
            Ok(s) => s,
            Err(e) => {
                // Out of file descriptors and the like: do not spin.
                tracing::warn!(error = %e, "accepting a Bolt connection failed");
                thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        next_id += 1;
        let id = next_id;
        if !shared.admit() {
            tracing::warn!(
                %peer,
                limit = shared.config.max_connections,
                "connection limit reached: closing the new connection"
            );
            let _ = stream.shutdown(Shutdown::Both);
            continue;
        }
        let watch = match stream.try_clone() {
            Ok(s) => {
                let w = Arc::new(ConnWatch::new(s, shared.tls.is_none(), peer));
                shared.watched.insert(id, w.clone());
                w
            }
            Err(e) => {
                tracing::warn!(%peer, error = %e, "cannot serve a Bolt connection");
                shared.release(id);
                continue;
            }
        };
        let slot = Slot {
            shared: shared.clone(),
            id,
        };
        if shared.tls.is_none() {
            pool.add(stream, watch, id, slot);
            continue;
        }
        let engine = engine.clone();
        let spawned = thread::Builder::new().name(format!("bolt-{id}")).spawn(move || {
            // The engine is dropped inside, before the slot is released.
            serve_connection(stream, engine, &slot.shared, &watch, id);
            drop(slot);
        });
        if let Err(e) = spawned {
            // The closure (and so the slot) was dropped: the slot is released.
            tracing::warn!(%peer, error = %e, "cannot start a thread for a Bolt connection");
        }
    }
    tracing::debug!("Bolt accept loop ended");
}

/// Serves one connection until the client leaves, the protocol closes it, or the server stops:
/// over TLS when the server has it, else over the plain socket.
fn serve_connection(stream: TcpStream, engine: QueryEngine, shared: &Shared, watch: &Arc<ConnWatch>, id: u64) {
    let peer = watch.peer;
    let _ = stream.set_nodelay(true);
    match &shared.tls {
        None => {
            tracing::debug!(conn = id, %peer, "Bolt connection accepted");
            let mut stream = stream;
            bolt_loop(&mut stream, &engine, shared, watch, id);
            let _ = stream.shutdown(Shutdown::Both);
        }
        Some(config) => match tls::accept(config, stream) {
            Ok(mut stream) => {
                tracing::debug!(
                    conn = id,
                    %peer,
                    version = ?stream.conn.protocol_version(),
                    "Bolt connection accepted (TLS)"
                );
                bolt_loop(&mut stream, &engine, shared, watch, id);
                tls::close(stream);
            }
            Err(e) => {
                // Dropping the socket closes it.
                tracing::info!(conn = id, %peer, error = %e, "TLS handshake failed: connection closed");
                return;
            }
        },
    }
    tracing::info!(conn = id, %peer, "Bolt connection closed");
}

/// The settings of connection `id`'s Bolt session.
pub(crate) fn session_config(shared: &Shared, id: u64) -> SessionConfig {
    SessionConfig {
        connection: ConnectionConfig {
            connection_id: format!("bolt-{id}"),
            advertised_address: Some(shared.advertised()),
            ..ConnectionConfig::default()
        },
        ..SessionConfig::default()
    }
}

/// The Bolt exchange over any byte stream (plain or TLS): read, feed the session, write its
/// reply, until the client leaves or the session closes.
fn bolt_loop<S: Read + Write>(stream: &mut S, engine: &QueryEngine, shared: &Shared, watch: &Arc<ConnWatch>, id: u64) {
    let peer = watch.peer;
    let backend = EngineBackend::new(engine, shared, watch.clone(), id);
    let mut session = ByteSession::new(backend, session_config(shared, id));
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                tracing::debug!(conn = id, %peer, error = %e, "Bolt connection read failed");
                break;
            }
        };
        let Some(input) = buf.get(..n) else { break };
        match session.receive(input) {
            Ok(out) => {
                if !out.is_empty() {
                    if let Err(e) = stream.write_all(&out).and_then(|()| stream.flush()) {
                        tracing::debug!(conn = id, %peer, error = %e, "Bolt connection write failed");
                        break;
                    }
                }
                if session.closed() {
                    break;
                }
            }
            Err(fatal) => {
                let _ = stream.write_all(&fatal.reply).and_then(|()| stream.flush());
                tracing::info!(conn = id, %peer, error = %fatal, "closing a Bolt connection on a protocol error");
                break;
            }
        }
    }
    // Releases the backend (rolling back an open transaction) unless already done.
    if let Err(e) = session.finish() {
        tracing::debug!(conn = id, %peer, error = %e, "Bolt connection ended mid-message");
    }
}
