//! The Bolt protocol layer of HopDB, without networking and without any storage dependency.
//!
//! Layers, bottom up:
//!
//! * [`value`] and [`packstream`]: the PackStream v1 value model and its codec, with decode
//!   limits on nesting and declared sizes (never panics, never over-allocates).
//! * [`structs`]: typed graph, temporal and spatial structures, and the version-dependent wire
//!   forms ([`StructFormat`]).
//! * [`chunk`]: message chunking ([`Dechunker`], [`chunk`](chunk::chunk)).
//! * [`handshake`]: version negotiation for Bolt 4.4 and 5.0–5.8, including the 5.7+ manifest.
//! * [`message`]: typed [`Request`]s decoded from request messages, [`Response`]s encoded.
//! * [`state`]: the server state machine, [`Connection`], over a [`Backend`] the database
//!   implements.
//! * [`session`]: [`ByteSession`], all of the above over raw bytes in and out.
//!
//! A server accepts a socket, creates a [`ByteSession`] with its [`Backend`], writes back what
//! [`ByteSession::receive`] returns for each read, and closes when [`ByteSession::closed`] turns
//! true or a [`FatalError`] is returned (after writing [`FatalError::reply`]).

pub mod chunk;
pub mod error;
pub mod handshake;
pub mod message;
pub mod packstream;
pub mod session;
pub mod state;
pub mod structs;
pub mod value;

pub use chunk::Dechunker;
pub use error::{ChunkError, DecodeError, EncodeError, FatalError, FatalReason, HandshakeError, RequestError};
pub use handshake::{Version, SUPPORTED_VERSIONS};
pub use message::{
    decode_request, AccessMode, AuthToken, BoltAgent, BoltFailure, Hello, NotificationConfig, Request, Response, Route,
    Run, RunExtra, StreamRequest,
};
pub use packstream::{DecodeLimits, Decoder, Encoder};
pub use session::{ByteSession, SessionConfig};
pub use state::{
    Backend, BeginResult, Connection, ConnectionConfig, Outcome, PullResult, QueryType, RunResult, ServerState, Summary,
};
pub use structs::{BoltStruct, StructFormat};
pub use value::{Map, Value};
