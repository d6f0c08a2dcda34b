//! [`ByteSession`]: the whole server side of one Bolt connection over raw bytes: handshake,
//! dechunking, decoding, the state machine and chunked responses. A network server only moves
//! bytes between the socket and [`ByteSession::receive`].

use crate::chunk::{chunk_into, Dechunker, DEFAULT_MAX_MESSAGE_SIZE};
use crate::error::{ChunkError, FatalError, FatalReason, HandshakeError};
use crate::handshake::{
    check_magic, negotiate, parse_manifest_choice, Negotiated, Version, HANDSHAKE_LEN, SUPPORTED_VERSIONS,
};
use crate::message::{msg, BoltFailure, Response};
use crate::state::{Backend, Connection, ConnectionConfig, ServerState};

/// Settings of a [`ByteSession`].
#[derive(Debug, Clone, PartialEq)]
pub struct SessionConfig {
    /// Versions to negotiate, best first.
    pub versions: Vec<Version>,
    /// Largest message accepted, in bytes (after dechunking).
    pub max_message_size: usize,
    /// Settings of the connection once negotiated.
    pub connection: ConnectionConfig,
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            versions: SUPPORTED_VERSIONS.to_vec(),
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            connection: ConnectionConfig::default(),
        }
    }
}

#[derive(Debug)]
enum Phase {
    /// Collecting the 20-byte handshake.
    Handshake(Vec<u8>),
    /// Manifest offered; collecting the client's choice.
    ManifestChoice(Vec<u8>),
    /// Exchanging messages.
    Messages,
    /// Closed.
    Closed,
}

/// The server side of one Bolt connection, bytes in and bytes out.
#[derive(Debug)]
pub struct ByteSession<B> {
    versions: Vec<Version>,
    connection_config: Option<ConnectionConfig>,
    phase: Phase,
    backend: Option<B>,
    connection: Option<Connection<B>>,
    dechunker: Dechunker,
}

fn fatal(reason: impl Into<FatalReason>, reply: Vec<u8>) -> FatalError {
    FatalError {
        reason: reason.into(),
        reply,
    }
}

impl<B: Backend> ByteSession<B> {
    /// A session waiting for the client's handshake.
    pub fn new(backend: B, config: SessionConfig) -> Self {
        Self {
            versions: config.versions,
            connection_config: Some(config.connection),
            phase: Phase::Handshake(Vec::with_capacity(HANDSHAKE_LEN)),
            backend: Some(backend),
            connection: None,
            dechunker: Dechunker::new(config.max_message_size),
        }
    }

    /// Feeds bytes received from the client; returns the bytes to send back. After a response
    /// that closes the connection (`GOODBYE`, a failed authentication, a protocol violation)
    /// [`closed`](Self::closed) is true. A [`FatalError`] carries bytes still to send before
    /// closing.
    pub fn receive(&mut self, bytes: &[u8]) -> Result<Vec<u8>, FatalError> {
        let mut out = Vec::new();
        let mut input = bytes;
        loop {
            match std::mem::replace(&mut self.phase, Phase::Closed) {
                Phase::Closed => return Err(fatal(FatalReason::Closed, out)),
                Phase::Handshake(mut buf) => {
                    let take = (HANDSHAKE_LEN - buf.len()).min(input.len());
                    let (head, rest) = input.split_at(take);
                    buf.extend_from_slice(head);
                    input = rest;
                    if let Err(e) = check_magic(&buf) {
                        return Err(self.fail_handshake(e, out));
                    }
                    if buf.len() < HANDSHAKE_LEN {
                        self.phase = Phase::Handshake(buf);
                        return Ok(out);
                    }
                    match negotiate(&buf, &self.versions) {
                        Ok(n) => {
                            out.extend_from_slice(&n.reply);
                            match n.negotiated {
                                Negotiated::Version(v) => self.start(v, false),
                                Negotiated::ManifestV1 => self.phase = Phase::ManifestChoice(Vec::new()),
                            }
                        }
                        Err(e) => {
                            out.extend_from_slice(e.reply());
                            return Err(self.fail_handshake(e, out));
                        }
                    }
                }
                Phase::ManifestChoice(mut buf) => {
                    buf.extend_from_slice(input);
                    input = &[];
                    match parse_manifest_choice(&buf, &self.versions, 0) {
                        Ok(None) => {
                            self.phase = Phase::ManifestChoice(buf);
                            return Ok(out);
                        }
                        Ok(Some((choice, used))) => {
                            tracing::debug!(version = %choice.version, "Bolt manifest choice");
                            self.start(choice.version, true);
                            self.dechunker.push(buf.get(used..).unwrap_or_default());
                        }
                        Err(e) => return Err(self.fail_handshake(e, out)),
                    }
                }
                Phase::Messages => {
                    self.phase = Phase::Messages;
                    self.dechunker.push(input);
                    return self.drain(out);
                }
            }
        }
    }

    /// Whether the connection is closed: send what was returned, then close the socket.
    pub fn closed(&self) -> bool {
        matches!(self.phase, Phase::Closed)
    }

    /// The negotiated version, once the handshake is done.
    pub fn version(&self) -> Option<Version> {
        self.connection.as_ref().map(Connection::version)
    }

    /// The connection's state, once the handshake is done.
    pub fn state(&self) -> Option<ServerState> {
        self.connection.as_ref().map(Connection::state)
    }

    /// The connection, once the handshake is done.
    pub fn connection(&self) -> Option<&Connection<B>> {
        self.connection.as_ref()
    }

    /// The connection, mutably, once the handshake is done.
    pub fn connection_mut(&mut self) -> Option<&mut Connection<B>> {
        self.connection.as_mut()
    }

    /// The peer closed its side: releases the backend's resources and closes. Errors if the
    /// stream stopped inside the handshake or a message.
    pub fn finish(&mut self) -> Result<(), FatalError> {
        let phase = std::mem::replace(&mut self.phase, Phase::Closed);
        if let Some(c) = self.connection.as_mut() {
            c.disconnect();
        }
        match phase {
            Phase::Handshake(buf) if !buf.is_empty() => {
                Err(fatal(HandshakeError::TooShort { len: buf.len() }, Vec::new()))
            }
            Phase::ManifestChoice(buf) => Err(fatal(
                HandshakeError::TooShort {
                    len: HANDSHAKE_LEN + buf.len(),
                },
                Vec::new(),
            )),
            Phase::Messages => self.dechunker.finish().map_err(|e| fatal(e, Vec::new())),
            _ => Ok(()),
        }
    }

    fn fail_handshake(&mut self, e: HandshakeError, out: Vec<u8>) -> FatalError {
        tracing::debug!(error = %e, "Bolt handshake failed");
        self.phase = Phase::Closed;
        fatal(e, out)
    }

    fn start(&mut self, version: Version, manifest: bool) {
        tracing::debug!(%version, manifest, "Bolt version negotiated");
        if let (Some(backend), Some(config)) = (self.backend.take(), self.connection_config.take()) {
            self.connection = Some(Connection::new(backend, version, config).with_manifest(manifest));
        }
        self.phase = Phase::Messages;
    }

    /// Handles every complete message.
    fn drain(&mut self, mut out: Vec<u8>) -> Result<Vec<u8>, FatalError> {
        let mut messages = Vec::new();
        let mut broken: Option<ChunkError> = None;
        loop {
            match self.dechunker.next_message() {
                Ok(Some(m)) => messages.push(m),
                Ok(None) => break,
                Err(e) => {
                    broken = Some(e);
                    break;
                }
            }
        }
        let Some(conn) = self.connection.as_mut() else {
            self.phase = Phase::Closed;
            return Ok(out);
        };
        // RESET jumps ahead of the messages queued before it: they are IGNORED.
        let resets = messages.iter().filter(|m| m.as_slice() == [0xB0, msg::RESET]).count();
        for _ in 0..resets {
            conn.interrupt();
        }
        for m in &messages {
            let outcome = conn.handle_message(m);
            conn.write_outcome(&outcome, &mut out);
            if outcome.close {
                self.phase = Phase::Closed;
                return Ok(out);
            }
        }
        if let Some(e) = broken {
            let failure = Response::Failure(BoltFailure::request_invalid(e.to_string()));
            let mut msg = Vec::new();
            if failure.encode(conn.version(), &Default::default(), &mut msg).is_ok() {
                chunk_into(&msg, &mut out);
            }
            conn.disconnect();
            self.phase = Phase::Closed;
            return Err(fatal(e, out));
        }
        Ok(out)
    }
}
