//! The watchdog: one thread that, every few milliseconds, looks at each connection running a
//! statement or holding a transaction, and
//!
//! * cancels the statement when its client has gone (the socket reads end-of-file or fails)
//!   or has sent `RESET` or `GOODBYE` behind it (plain TCP only: TLS bytes cannot be read
//!   without consuming them), or when the server is stopping;
//! * closes a connection whose explicit transaction has been idle longer than the idle
//!   transaction timeout (closing rolls it back and frees the writer slot).
//!
//! A connection thread never reads its socket while it runs a statement, so the watchdog
//! peeks (`recv` with `MSG_PEEK | MSG_DONTWAIT`): it sees the bytes queued behind the
//! statement without taking them, and changes nothing the connection thread relies on.

use std::collections::HashMap;
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How often the watchdog looks.
const PERIOD: Duration = Duration::from_millis(10);

/// One connection as the watchdog sees it.
pub(crate) struct ConnWatch {
    /// A second handle on the socket (peeked; shut down to close the connection).
    socket: TcpStream,
    /// Whether the bytes on the socket are Bolt messages in the clear (not TLS).
    plain: bool,
    pub(crate) peer: SocketAddr,
    /// Set to stop the statement running on this connection (its `Control`'s cancel flag).
    pub(crate) cancel: Arc<AtomicBool>,
    /// A statement is running.
    busy: AtomicBool,
    /// Milliseconds since `epoch` when the open explicit transaction last finished a
    /// message; 0 when no transaction is open.
    tx_idle_since: AtomicU64,
    epoch: Instant,
}

impl ConnWatch {
    pub(crate) fn new(socket: TcpStream, plain: bool, peer: SocketAddr) -> Self {
        Self {
            socket,
            plain,
            peer,
            cancel: Arc::new(AtomicBool::new(false)),
            busy: AtomicBool::new(false),
            tx_idle_since: AtomicU64::new(0),
            epoch: Instant::now(),
        }
    }

    /// A statement starts: a cancellation meant for an earlier one is forgotten.
    pub(crate) fn statement_started(&self) {
        self.cancel.store(false, Ordering::SeqCst);
        self.busy.store(true, Ordering::SeqCst);
    }

    pub(crate) fn statement_ended(&self) {
        self.busy.store(false, Ordering::SeqCst);
    }

    /// After each message: whether an explicit transaction is open (its idle time restarts).
    pub(crate) fn transaction_open(&self, open: bool) {
        let now = if open {
            (self.epoch.elapsed().as_millis() as u64).max(1)
        } else {
            0
        };
        self.tx_idle_since.store(now, Ordering::SeqCst);
    }

    /// Closes the connection from outside its thread (its read returns end-of-file).
    pub(crate) fn close(&self) {
        let _ = self.socket.shutdown(Shutdown::Both);
    }

    /// What the client has done behind the running statement.
    #[allow(unsafe_code)]
    fn client_state(&self) -> ClientState {
        use std::os::fd::AsRawFd;
        let mut buf = [0u8; 4096];
        // SAFETY: `buf` is valid for `buf.len()` bytes and the descriptor is open (we own a
        // handle on it); MSG_PEEK leaves the bytes queued, MSG_DONTWAIT never blocks.
        let n = unsafe {
            libc::recv(
                self.socket.as_raw_fd(),
                buf.as_mut_ptr().cast(),
                buf.len(),
                libc::MSG_PEEK | libc::MSG_DONTWAIT,
            )
        };
        match n {
            0 => ClientState::Gone,
            n if n < 0 => {
                let e = std::io::Error::last_os_error();
                match e.kind() {
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted => ClientState::Waiting,
                    _ => ClientState::Gone,
                }
            }
            n => {
                let queued = buf.get(..n as usize).unwrap_or_default();
                if self.plain && interrupt_queued(queued) {
                    ClientState::Interrupted
                } else {
                    ClientState::Waiting
                }
            }
        }
    }
}

enum ClientState {
    Waiting,
    Gone,
    Interrupted,
}

/// Bolt request tags (the byte after a message's struct marker).
const TAG_GOODBYE: u8 = 0x02;
const TAG_RESET: u8 = 0x0F;
const REQUEST_TAGS: &[u8] = &[
    0x01,
    TAG_GOODBYE,
    TAG_RESET,
    0x10,
    0x11,
    0x12,
    0x13,
    0x2F,
    0x3F,
    0x54,
    0x66,
    0x6A,
    0x6B,
];

/// Whether the queued bytes hold a `RESET` or `GOODBYE` message. They are read as chunks
/// (two-byte size, data; size 0 ends a message) from the first byte, which is a message
/// boundary when the connection thread has taken whole messages; if anything does not
/// look like a Bolt request (a message split across reads), nothing is claimed.
pub(crate) fn interrupt_queued(bytes: &[u8]) -> bool {
    let mut at = 0usize;
    let mut message_start = true;
    while let Some(head) = bytes.get(at..at + 2) {
        let size = usize::from(u16::from_be_bytes([head[0], head[1]]));
        at += 2;
        if size == 0 {
            message_start = true;
            continue;
        }
        if message_start {
            let (Some(&marker), Some(&tag)) = (bytes.get(at), bytes.get(at + 1)) else {
                return false;
            };
            if !(0xB0..=0xBF).contains(&marker) || !REQUEST_TAGS.contains(&tag) {
                return false;
            }
            if tag == TAG_RESET || tag == TAG_GOODBYE {
                return true;
            }
            message_start = false;
        }
        at += size;
    }
    false
}

/// The connections being watched, by connection id.
#[derive(Default)]
pub(crate) struct Watched {
    conns: Mutex<HashMap<u64, Arc<ConnWatch>>>,
}

impl Watched {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<ConnWatch>>> {
        self.conns.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn insert(&self, id: u64, w: Arc<ConnWatch>) {
        self.lock().insert(id, w);
    }

    pub(crate) fn remove(&self, id: u64) {
        self.lock().remove(&id);
    }

    /// Closes every connection and cancels what runs on them (shutdown).
    pub(crate) fn close_all(&self) {
        for w in self.lock().values() {
            w.cancel.store(true, Ordering::SeqCst);
            w.close();
        }
    }

    /// Runs until `stopping` is set.
    pub(crate) fn run(&self, stopping: &AtomicBool, idle_tx_timeout: Option<Duration>) {
        while !stopping.load(Ordering::SeqCst) {
            std::thread::sleep(PERIOD);
            let conns: Vec<(u64, Arc<ConnWatch>)> = self.lock().iter().map(|(k, v)| (*k, v.clone())).collect();
            for (id, w) in conns {
                if w.busy.load(Ordering::SeqCst) && !w.cancel.load(Ordering::SeqCst) {
                    match w.client_state() {
                        ClientState::Waiting => {}
                        ClientState::Gone => {
                            tracing::info!(conn = id, peer = %w.peer, "client disconnected: cancelling its running statement");
                            w.cancel.store(true, Ordering::SeqCst);
                        }
                        ClientState::Interrupted => {
                            tracing::info!(conn = id, peer = %w.peer, "RESET received: cancelling the running statement");
                            w.cancel.store(true, Ordering::SeqCst);
                        }
                    }
                    continue;
                }
                let since = w.tx_idle_since.load(Ordering::SeqCst);
                if let Some(limit) = idle_tx_timeout {
                    let idle = (w.epoch.elapsed().as_millis() as u64).saturating_sub(since);
                    if since != 0 && !w.busy.load(Ordering::SeqCst) && idle > limit.as_millis() as u64 {
                        tracing::warn!(
                            conn = id,
                            peer = %w.peer,
                            idle_ms = idle,
                            "closing a connection whose transaction was idle past the idle transaction timeout (rolled back)"
                        );
                        w.tx_idle_since.store(0, Ordering::SeqCst);
                        w.close();
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::interrupt_queued;

    fn chunked(messages: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for m in messages {
            out.extend_from_slice(&(m.len() as u16).to_be_bytes());
            out.extend_from_slice(m);
            out.extend_from_slice(&[0, 0]);
        }
        out
    }

    #[test]
    fn finds_reset_and_goodbye_behind_other_messages() {
        let pull = [0xB1, 0x3F, 0xA1, 0x81, b'n', 0x7F];
        assert!(interrupt_queued(&chunked(&[&[0xB0, 0x0F]])));
        assert!(interrupt_queued(&chunked(&[&pull, &[0xB0, 0x0F]])));
        assert!(interrupt_queued(&chunked(&[&pull, &[0xB0, 0x02]])));
        assert!(!interrupt_queued(&chunked(&[&pull])));
        // Partial data, and bytes that do not start a message, claim nothing.
        assert!(!interrupt_queued(&[0x00]));
        assert!(!interrupt_queued(&chunked(&[&[0x81, 0x0F]])));
        assert!(!interrupt_queued(&[0x00, 0x02, 0xB0]));
        // A RESET's bytes inside another message's data are not a RESET.
        assert!(!interrupt_queued(&chunked(&[&[0xB1, 0x10, 0x00, 0x02, 0xB0, 0x0F]])));
    }
}
