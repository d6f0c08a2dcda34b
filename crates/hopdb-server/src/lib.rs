//! `hopdb serve`: HopDB's Cypher engine ([`hopdb_cypher::QueryEngine`]) served to Neo4j
//! drivers over Bolt, through the protocol layer [`hopdb_bolt`].
//!
//! * [`serve`] binds a TCP address and accepts on a thread of its own. Plain-TCP connections
//!   are served by a pool of worker threads waiting on one epoll set (one per core by default,
//!   more while long statements hold them: decision 0023); a TLS connection gets a thread.
//!   Each connection has a Bolt backend over the engine that owns its open transaction and
//!   results. Auto-commit statements run (and commit) at
//!   `RUN`; an explicit write transaction holds the store's single writer slot until it ends;
//!   an explicit read transaction (`execute_read`) takes no lock, each statement reading a
//!   fresh snapshot; statements that write are refused in read mode.
//! * [`convert`] maps values between the engine and Bolt (nodes, relationships, paths,
//!   temporal values; parameters the other way).
//! * [`ServerHandle::shutdown`] stops accepting, closes the connections (open transactions
//!   roll back) and waits for their threads, so the caller can then close the store.
//! * [`auth`]: with [`AuthConfig::UsersFile`] clients log on with the `basic` scheme as a user
//!   of a users file (argon2id password hashes, edited by `hopdb user`); with
//!   [`AuthConfig::Disabled`] (the default) any credentials are accepted.
//! * [`TlsConfig`]: TLS (rustls) on every connection, for `bolt+s://` and `neo4j+s://`.
//! * HTTP beside Bolt ([`ServerConfig::http_listen`], [`ServerHandle::http_addr`]):
//!   `GET /health` (`/health/live`, `/health/ready`; 503 while shutting down), `GET /metrics`
//!   in Prometheus' text format (statement latency per protocol and query kind, errors by
//!   Neo4j status code, open connections and transactions, plan-cache hits and misses, store
//!   and RocksDB sizes), and Neo4j's query API, `POST /db/neo4j/query/v2` with
//!   `{"statement", "parameters"}`, answered in its plain JSON format.
//!
//! The server serves one database, named `neo4j`.
//!
//! ```no_run
//! use hopdb_cypher::QueryEngine;
//! use hopdb_database::Database;
//! use hopdb_server::{serve, ServerConfig};
//!
//! let engine = QueryEngine::new(Database::in_memory());
//! let config = ServerConfig { bolt_listen: "127.0.0.1:0".into(), ..ServerConfig::default() };
//! let server = serve(engine, config).unwrap();
//! println!("bolt://{}", server.local_addr());
//! server.shutdown();
//! ```

pub mod auth;
mod backend;
mod charts;
pub mod convert;
mod epoll;
mod http;
mod metrics;
mod pool;
mod query_api;
mod server;
mod tls;
mod watchdog;

pub use auth::{AuthConfig, AuthError, Users};

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `m`, taking over a lock poisoned by a panicking thread: every mutex here guards
/// bookkeeping (connections, users, counters) that stays consistent between statements.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
pub use backend::DATABASE_NAME;
pub use server::{serve, ServerConfig, ServerError, ServerHandle};
pub use tls::{TlsConfig, TlsError};
