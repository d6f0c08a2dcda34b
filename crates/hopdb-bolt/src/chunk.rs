//! Bolt message chunking: each message travels as chunks of at most 65,535 bytes, each with a
//! big-endian `u16` size header, and ends with an empty chunk `00 00`. An empty chunk between
//! messages is a NOOP keep-alive (Bolt 4.1+).

use std::collections::VecDeque;

use crate::error::ChunkError;

/// The largest chunk body a `u16` header can announce.
pub const MAX_CHUNK_SIZE: usize = 0xFFFF;
/// Default maximum size of one dechunked message (64 MiB).
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 64 * 1024 * 1024;

/// Appends `message` to `out` as chunks of at most 65,535 bytes followed by the `00 00` end
/// marker. An empty message yields just the end marker.
pub fn chunk_into(message: &[u8], out: &mut Vec<u8>) {
    out.reserve(message.len() + 2 * (message.len() / MAX_CHUNK_SIZE + 2));
    for piece in message.chunks(MAX_CHUNK_SIZE) {
        out.extend_from_slice(&(piece.len() as u16).to_be_bytes());
        out.extend_from_slice(piece);
    }
    out.extend_from_slice(&[0, 0]);
}

/// `message` as chunks followed by the end marker.
pub fn chunk(message: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    chunk_into(message, &mut out);
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Expecting a chunk header; holds its first byte once received.
    Header(Option<u8>),
    /// Inside a chunk body with this many bytes still to come.
    Body(usize),
}

/// Reassembles messages from a byte stream that arrives in arbitrary pieces.
///
/// Chunk bodies are copied straight into the message being assembled, so the dechunker never
/// holds more than one partial message (bounded by the maximum message size) plus the complete
/// messages not yet taken. After an error it stays failed.
#[derive(Debug)]
pub struct Dechunker {
    max_message_size: usize,
    phase: Phase,
    current: Vec<u8>,
    /// Complete messages not yet taken.
    ready: VecDeque<Vec<u8>>,
    error: Option<ChunkError>,
}

impl Default for Dechunker {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_MESSAGE_SIZE)
    }
}

impl Dechunker {
    /// A dechunker that rejects messages larger than `max_message_size` bytes.
    pub fn new(max_message_size: usize) -> Self {
        Self {
            max_message_size,
            phase: Phase::Header(None),
            current: Vec::new(),
            ready: VecDeque::new(),
            error: None,
        }
    }

    /// Feeds bytes from the stream. Complete messages become available from
    /// [`next_message`](Self::next_message); a size violation is reported there, after the
    /// messages completed before it.
    pub fn push(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() && self.error.is_none() {
            match self.phase {
                Phase::Header(None) => {
                    if let [a, b, rest @ ..] = bytes {
                        self.header(u16::from_be_bytes([*a, *b]));
                        bytes = rest;
                    } else if let [a] = bytes {
                        self.phase = Phase::Header(Some(*a));
                        bytes = &[];
                    }
                }
                Phase::Header(Some(a)) => {
                    if let [b, rest @ ..] = bytes {
                        self.header(u16::from_be_bytes([a, *b]));
                        bytes = rest;
                    }
                }
                Phase::Body(left) => {
                    let n = left.min(bytes.len());
                    let (body, rest) = bytes.split_at(n);
                    self.current.extend_from_slice(body);
                    bytes = rest;
                    self.phase = match left - n {
                        0 => Phase::Header(None),
                        more => Phase::Body(more),
                    };
                }
            }
        }
    }

    fn header(&mut self, size: u16) {
        let size = usize::from(size);
        if size == 0 {
            // End of message, or a NOOP between messages.
            if !self.current.is_empty() {
                self.ready.push_back(std::mem::take(&mut self.current));
            }
            self.phase = Phase::Header(None);
            return;
        }
        let total = self.current.len().saturating_add(size);
        if total > self.max_message_size {
            self.error = Some(ChunkError::MessageTooLarge {
                size: total,
                limit: self.max_message_size,
            });
            self.current = Vec::new();
            return;
        }
        self.current.reserve(size);
        self.phase = Phase::Body(size);
    }

    /// The next complete message, `Ok(None)` if none is complete yet, or the error that broke
    /// the stream once the messages completed before it were taken.
    pub fn next_message(&mut self) -> Result<Option<Vec<u8>>, ChunkError> {
        if let Some(m) = self.ready.pop_front() {
            return Ok(Some(m));
        }
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(None),
        }
    }

    /// Whether the stream stopped between messages (nothing partial is buffered).
    pub fn is_idle(&self) -> bool {
        self.current.is_empty() && self.phase == Phase::Header(None)
    }

    /// Call at end of stream: errors with [`ChunkError::Truncated`] if a message (or a chunk
    /// header) was cut short.
    pub fn finish(&self) -> Result<(), ChunkError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.is_idle() {
            Ok(())
        } else {
            Err(ChunkError::Truncated {
                buffered: self.current.len(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(d: &mut Dechunker) -> Vec<Vec<u8>> {
        let mut v = Vec::new();
        while let Some(m) = d.next_message().unwrap() {
            v.push(m);
        }
        v
    }

    #[test]
    fn byte_by_byte_feeding_reassembles() {
        let msg: Vec<u8> = (0..200_000u32).map(|i| i as u8).collect();
        let wire = chunk(&msg);
        assert_eq!(wire.len(), msg.len() + 2 * 4 + 2);
        let mut d = Dechunker::default();
        for b in &wire {
            d.push(std::slice::from_ref(b));
        }
        assert_eq!(all(&mut d), vec![msg]);
        assert!(d.finish().is_ok());
    }

    #[test]
    fn limit_is_enforced_at_the_header() {
        let mut d = Dechunker::new(10);
        d.push(&[0x00, 0x05, 1, 2, 3, 4, 5, 0x00, 0x06]);
        assert_eq!(
            d.next_message(),
            Err(ChunkError::MessageTooLarge { size: 11, limit: 10 })
        );
        assert!(d.finish().is_err());
    }

    #[test]
    fn truncation_is_reported_at_finish() {
        let mut d = Dechunker::default();
        d.push(&[0x00, 0x04, 1, 2]);
        assert_eq!(d.next_message(), Ok(None));
        assert_eq!(d.finish(), Err(ChunkError::Truncated { buffered: 2 }));
        let mut d = Dechunker::default();
        d.push(&[0x00]);
        assert_eq!(d.finish(), Err(ChunkError::Truncated { buffered: 0 }));
    }
}
