//! The worker pool that serves plain-TCP Bolt connections (decision 0023).
//!
//! Every connection's socket is non-blocking and registered one-shot in one epoll set; a few
//! worker threads (one per core by default) all wait on that set. A worker that gets a ready
//! connection reads what is there, runs it through the connection's [`ByteSession`] (which
//! runs the statements), writes the reply and re-arms the socket. Under load a worker goes
//! from one ready connection to the next without sleeping, where a thread per connection
//! paid a wake-up and two context switches per request.
//!
//! A statement blocks the worker running it (a long query, a wait for the writer slot): the
//! monitor adds a worker whenever fewer than the configured number are free or inside a
//! short step, so short requests keep being served beside long ones (as with a thread per
//! connection, the OS then shares the cores). Workers added that way leave after a second
//! without work. One-shot registration means a connection is served by one worker at a time,
//! in order; its session (and an open transaction in it) moves between workers.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

use hopdb_bolt::ByteSession;
use hopdb_cypher::QueryEngine;

use crate::backend::EngineBackend;
use crate::epoll::{Epoll, EventFd, Interest};
use crate::lock;
use crate::server::{session_config, Shared, Slot};
use crate::watchdog::ConnWatch;

/// The token of the stop signal (connection ids start at 1).
const STOP: u64 = 0;
/// A worker inside one request for longer than this no longer counts as available.
const STUCK_AFTER: Duration = Duration::from_millis(20);
/// How often the monitor looks at the workers.
const MONITOR_PERIOD: Duration = Duration::from_millis(5);
/// A worker added by the monitor leaves after this long without a ready connection.
const RETIRE_AFTER: Duration = Duration::from_secs(1);
/// How much one read takes from a socket.
const READ_SIZE: usize = 64 * 1024;

/// One connection served by the pool.
struct PoolConn<'e> {
    id: u64,
    stream: TcpStream,
    session: ByteSession<EngineBackend<'e>>,
    /// Reply bytes not yet accepted by the socket, from `sent` on.
    pending: Vec<u8>,
    sent: usize,
    /// The session asked to close (after its last reply is sent).
    closing: bool,
    watch: Arc<ConnWatch>,
    /// Released (the connection count, the watchdog's entry) when the connection is dropped.
    _slot: Slot,
}

/// What a connection waits for next.
enum Next {
    Read,
    Write,
    Close,
}

impl PoolConn<'_> {
    /// Serves the connection once it is ready: sends what is pending, then reads and answers
    /// until the socket has nothing more.
    fn on_ready(&mut self, buf: &mut [u8]) -> Next {
        if self.sent < self.pending.len() {
            if let Some(next) = self.send_pending() {
                return next;
            }
        }
        loop {
            let n = match self.stream.read(buf) {
                Ok(0) => return Next::Close,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Next::Read,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return self.failed("read", &e),
            };
            let input = buf.get(..n).unwrap_or_default();
            match self.session.receive(input) {
                Ok(out) => {
                    self.pending = out;
                    self.closing = self.session.closed();
                }
                Err(fatal) => {
                    tracing::info!(conn = self.id, peer = %self.watch.peer, error = %fatal, "closing a Bolt connection on a protocol error");
                    self.pending = fatal.reply;
                    self.closing = true;
                }
            }
            self.sent = 0;
            if let Some(next) = self.send_pending() {
                return next;
            }
            if n < buf.len() {
                // Most likely all there was; if not, the re-armed socket is ready at once.
                return Next::Read;
            }
        }
    }

    /// Sends the pending reply: what to wait for next, or `None` when it all went out and the
    /// connection stays open.
    fn send_pending(&mut self) -> Option<Next> {
        match self.flush() {
            Ok(true) if self.closing => Some(Next::Close),
            Ok(true) => None,
            Ok(false) => Some(Next::Write),
            Err(e) => Some(self.failed("write", &e)),
        }
    }

    /// Writes pending bytes until done (`true`) or the socket is full (`false`).
    fn flush(&mut self) -> io::Result<bool> {
        while let Some(rest) = self.pending.get(self.sent..).filter(|r| !r.is_empty()) {
            match self.stream.write(rest) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => self.sent += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.pending.clear();
        self.sent = 0;
        Ok(true)
    }

    fn failed(&self, what: &str, e: &io::Error) -> Next {
        tracing::debug!(conn = self.id, peer = %self.watch.peer, error = %e, "Bolt connection {what} failed");
        Next::Close
    }

    /// Ends the session (rolling back an open transaction) and closes the socket.
    fn close(&mut self) {
        if let Err(e) = self.session.finish() {
            tracing::debug!(conn = self.id, peer = %self.watch.peer, error = %e, "Bolt connection ended mid-message");
        }
        let _ = self.stream.shutdown(Shutdown::Both);
        tracing::info!(conn = self.id, peer = %self.watch.peer, "Bolt connection closed");
    }
}

/// A new epoll set with the pool's stop signal registered in it.
pub(crate) fn stop_signal() -> io::Result<(Epoll, EventFd)> {
    let epoll = Epoll::new()?;
    let stop = EventFd::new()?;
    epoll.add_level(&stop, STOP)?;
    Ok((epoll, stop))
}

/// What the monitor knows of a worker: since when it has been inside a request (micros
/// since the pool's epoch, plus one), or 0 while it waits for one.
#[derive(Default)]
struct WorkerState {
    busy_since: AtomicU64,
}

/// The pool: the epoll set, the connections, the workers' states.
pub(crate) struct Pool<'e> {
    engine: &'e QueryEngine,
    shared: &'e Shared,
    epoll: Epoll,
    stop: EventFd,
    conns: Mutex<HashMap<u64, Arc<Mutex<PoolConn<'e>>>>>,
    workers: Mutex<Vec<Arc<WorkerState>>>,
    /// Workers ever started (for thread names).
    started: AtomicUsize,
    /// Workers kept at all times.
    base: usize,
    /// Most workers at once: one per connection, plus the base.
    max: usize,
    epoch: Instant,
}

impl<'e> Pool<'e> {
    /// A pool over `epoll`, in which `stop` is registered (see [`stop_signal`]).
    pub(crate) fn new(engine: &'e QueryEngine, shared: &'e Shared, epoll: Epoll, stop: EventFd) -> Self {
        let base = shared.config.workers.max(1);
        Pool {
            engine,
            shared,
            epoll,
            stop,
            conns: Mutex::new(HashMap::new()),
            workers: Mutex::new(Vec::new()),
            started: AtomicUsize::new(0),
            base,
            max: base + shared.config.max_connections,
            epoch: Instant::now(),
        }
    }

    /// Takes an accepted connection: makes its socket non-blocking and registers it.
    pub(crate) fn add(&self, stream: TcpStream, watch: Arc<ConnWatch>, id: u64, slot: Slot) {
        let peer = watch.peer;
        if let Err(e) = stream.set_nonblocking(true) {
            tracing::warn!(conn = id, %peer, error = %e, "cannot serve a Bolt connection");
            return;
        }
        let _ = stream.set_nodelay(true);
        tracing::debug!(conn = id, %peer, "Bolt connection accepted");
        let backend = EngineBackend::new(self.engine, self.shared, watch.clone(), id);
        let session = ByteSession::new(backend, session_config(self.shared, id));
        // Inserted before it is registered: its first event must find it.
        let fd = stream.as_raw_fd();
        let conn = PoolConn {
            id,
            stream,
            session,
            pending: Vec::new(),
            sent: 0,
            closing: false,
            watch,
            _slot: slot,
        };
        lock(&self.conns).insert(id, Arc::new(Mutex::new(conn)));
        if let Err(e) = self.epoll.add_oneshot(fd, id, Interest::Read) {
            tracing::warn!(conn = id, %peer, error = %e, "cannot serve a Bolt connection");
            if let Some(c) = lock(&self.conns).remove(&id) {
                lock(&c).close();
            }
        }
    }

    /// Starts the base workers and the monitor in `scope`, runs `accept` (which returns when
    /// the server stops), then stops the workers; the scope waits for them. Call
    /// [`Pool::close_all`] after the scope.
    pub(crate) fn run<'s>(&'s self, scope: &'s Scope<'s, '_>, accept: impl FnOnce()) {
        let mut base = Vec::new();
        for _ in 0..self.base {
            base.extend(self.spawn_worker(scope, false));
        }
        let monitor = thread::Builder::new()
            .name("bolt-pool-monitor".into())
            .spawn_scoped(scope, move || self.monitor(scope));
        if let Err(e) = &monitor {
            tracing::warn!(error = %e, "cannot start the Bolt worker monitor: the pool will not grow");
        }
        accept();
        if let Err(e) = self.stop.signal() {
            tracing::error!(error = %e, "cannot signal the Bolt workers to stop");
        }
        for h in base {
            let _ = h.join();
        }
        if let Ok(m) = monitor {
            let _ = m.join();
        }
    }

    /// Closes every connection left (rolling back their transactions); after the workers end.
    pub(crate) fn close_all(&self) {
        let conns: Vec<_> = lock(&self.conns).drain().map(|(_, c)| c).collect();
        for c in conns {
            let mut c = lock(&c);
            let _ = self.epoll.remove(&c.stream);
            c.close();
        }
    }

    fn spawn_worker<'s>(&'s self, scope: &'s Scope<'s, '_>, extra: bool) -> Option<ScopedJoinHandle<'s, ()>> {
        let n = self.started.fetch_add(1, Ordering::Relaxed);
        let state = Arc::new(WorkerState::default());
        lock(&self.workers).push(state.clone());
        let forget = |state: &Arc<WorkerState>| lock(&self.workers).retain(|w| !Arc::ptr_eq(w, state));
        let mine = state.clone();
        let spawned = thread::Builder::new()
            .name(format!("bolt-worker-{n}"))
            .spawn_scoped(scope, move || {
                self.worker(&mine, extra);
                forget(&mine);
            });
        match spawned {
            Ok(h) => Some(h),
            Err(e) => {
                tracing::warn!(error = %e, "cannot start a Bolt worker thread");
                forget(&state);
                None
            }
        }
    }

    fn now_micros(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_micros()).unwrap_or(u64::MAX - 1) + 1
    }

    fn worker(&self, state: &WorkerState, extra: bool) {
        let mut buf = vec![0u8; READ_SIZE];
        let wait = if extra { RETIRE_AFTER } else { Duration::from_secs(3600) };
        loop {
            match self.epoll.wait_one(wait) {
                Ok(Some(STOP)) => return,
                Ok(Some(id)) => {
                    state.busy_since.store(self.now_micros(), Ordering::SeqCst);
                    self.serve(id, &mut buf);
                    state.busy_since.store(0, Ordering::SeqCst);
                }
                Ok(None) if extra => {
                    tracing::debug!("an extra Bolt worker retires");
                    return;
                }
                Ok(None) => {}
                Err(e) => {
                    tracing::error!(error = %e, "waiting for Bolt connections failed");
                    thread::sleep(Duration::from_millis(10));
                }
            }
        }
    }

    fn serve(&self, id: u64, buf: &mut [u8]) {
        let Some(conn) = lock(&self.conns).get(&id).cloned() else {
            return;
        };
        let mut c = lock(&conn);
        let next = c.on_ready(buf);
        let rearmed = match next {
            Next::Read => self.epoll.rearm(&c.stream, id, Interest::Read),
            Next::Write => self.epoll.rearm(&c.stream, id, Interest::Write),
            Next::Close => Err(io::ErrorKind::ConnectionAborted.into()),
        };
        if let Err(e) = rearmed {
            if !matches!(next, Next::Close) {
                tracing::warn!(conn = id, error = %e, "cannot watch a Bolt connection: closing it");
            }
            let _ = self.epoll.remove(&c.stream);
            c.close();
            drop(c);
            lock(&self.conns).remove(&id);
        }
    }

    /// Adds a worker while fewer than the base number are free or inside a short request.
    fn monitor<'s>(&'s self, scope: &'s Scope<'s, '_>) {
        let mut extras: Vec<ScopedJoinHandle<'s, ()>> = Vec::new();
        let stuck = u64::try_from(STUCK_AFTER.as_micros()).unwrap_or(u64::MAX);
        while !self.shared.stopping.load(Ordering::SeqCst) {
            thread::sleep(MONITOR_PERIOD);
            let now = self.now_micros();
            let (total, available) = {
                let w = lock(&self.workers);
                let available = w
                    .iter()
                    .filter(|s| {
                        let since = s.busy_since.load(Ordering::SeqCst);
                        since == 0 || now.saturating_sub(since) < stuck
                    })
                    .count();
                (w.len(), available)
            };
            if available < self.base && total < self.max {
                tracing::debug!(
                    workers = total + 1,
                    "every Bolt worker is busy with a long request: adding one"
                );
                extras.extend(self.spawn_worker(scope, true));
            }
            extras.retain(|h| !h.is_finished());
        }
        for h in extras {
            let _ = h.join();
        }
    }
}
