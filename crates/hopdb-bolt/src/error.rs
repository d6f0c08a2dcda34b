//! Typed errors of every layer: PackStream decoding and encoding, chunking, the handshake,
//! request decoding, and the fatal errors that end a [`ByteSession`](crate::ByteSession).

use crate::handshake::Version;

/// A PackStream value could not be decoded. Every variant says what was being read and at which
/// byte offset of the input (the offset of the marker or size that is at fault).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The input ended in the middle of a value.
    #[error("input ends at byte {offset} while reading {what}: {needed} more byte(s) needed")]
    UnexpectedEnd {
        /// What was being read (`"string"`, `"INT_32"`, ...).
        what: &'static str,
        /// Offset at which the missing bytes were expected.
        offset: usize,
        /// How many bytes were missing (at least).
        needed: usize,
    },
    /// A marker byte that PackStream v1 does not define (reserved or removed markers).
    #[error("unknown PackStream marker 0x{marker:02X} at byte {offset}")]
    UnknownMarker {
        /// The marker byte.
        marker: u8,
        /// Its offset.
        offset: usize,
    },
    /// A string, byte array, list or dictionary declares more elements than the caller allows
    /// (or more than the 2,147,483,647 PackStream permits). Rejected before allocating.
    #[error("{what} at byte {offset} declares size {declared}, over the limit of {limit}")]
    SizeLimit {
        /// `"string"`, `"bytes"`, `"list"` or `"dictionary"`.
        what: &'static str,
        /// The declared size (bytes for strings/bytes, items for lists, entries for maps).
        declared: u64,
        /// The limit in force.
        limit: u64,
        /// Offset of the marker.
        offset: usize,
    },
    /// Lists, dictionaries and structures nest deeper than the caller allows.
    #[error("value at byte {offset} nests deeper than the limit of {limit}")]
    DepthLimit {
        /// The limit in force.
        limit: usize,
        /// Offset of the marker that would exceed it.
        offset: usize,
    },
    /// A string whose bytes are not UTF-8.
    #[error("string at byte {offset} is not valid UTF-8")]
    InvalidUtf8 {
        /// Offset of the string's marker.
        offset: usize,
    },
    /// A dictionary key that is not a string.
    #[error("dictionary key at byte {offset} is not a string (marker 0x{marker:02X})")]
    NonStringKey {
        /// The key's marker byte.
        marker: u8,
        /// The key's offset.
        offset: usize,
    },
    /// A structure tag above 127 (PackStream allows 0..=127).
    #[error("structure tag 0x{tag:02X} at byte {offset} is above 0x7F")]
    InvalidTag {
        /// The tag byte.
        tag: u8,
        /// Its offset.
        offset: usize,
    },
    /// Bytes left over after the one value the input should hold.
    #[error("{count} unexpected byte(s) after the value, from byte {offset}")]
    TrailingBytes {
        /// Offset of the first extra byte.
        offset: usize,
        /// How many bytes are left.
        count: usize,
    },
}

/// A [`Value`](crate::Value) could not be encoded as PackStream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// A string, byte array, list or dictionary longer than PackStream's 2,147,483,647.
    #[error("{what} of size {size} is longer than PackStream allows")]
    TooLarge {
        /// `"string"`, `"bytes"`, `"list"` or `"dictionary"`.
        what: &'static str,
        /// Its size.
        size: usize,
    },
    /// A structure with more than 15 fields.
    #[error("structure 0x{tag:02X} has {fields} fields, PackStream allows 15")]
    TooManyFields {
        /// The structure's tag.
        tag: u8,
        /// Its field count.
        fields: usize,
    },
    /// A structure tag above 127.
    #[error("structure tag 0x{tag:02X} is above 0x7F")]
    InvalidTag {
        /// The tag.
        tag: u8,
    },
    /// The value nests deeper than the encoder's limit.
    #[error("value nests deeper than the limit of {limit}")]
    DepthLimit {
        /// The limit in force.
        limit: usize,
    },
    /// A `DateTimeZoneId` must be sent in the legacy (pre-5.0) form, which needs the zone's
    /// offset at that instant, and the value does not carry it.
    #[error("DateTimeZoneId in zone {tz_id} needs its UTC offset for the legacy Bolt 4.4 form")]
    ZoneOffsetUnknown {
        /// The zone identifier.
        tz_id: String,
    },
}

/// The chunked stream of messages is broken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChunkError {
    /// A message grows past the maximum message size.
    #[error("message of at least {size} bytes is larger than the limit of {limit} bytes")]
    MessageTooLarge {
        /// Size the message would reach.
        size: usize,
        /// The limit in force.
        limit: usize,
    },
    /// The stream ended in the middle of a chunk or of a message.
    #[error("stream ends inside a message ({buffered} byte(s) of it received)")]
    Truncated {
        /// Bytes of the incomplete message received so far.
        buffered: usize,
    },
}

/// The Bolt handshake failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandshakeError {
    /// The first four bytes are not the Bolt magic `60 60 B0 17`.
    #[error("not a Bolt connection: preamble {found:02X?} is not 60 60 B0 17")]
    BadMagic {
        /// The bytes received instead.
        found: Vec<u8>,
    },
    /// The handshake is shorter than 20 bytes.
    #[error("handshake is {len} bytes, 20 are needed")]
    TooShort {
        /// Bytes received.
        len: usize,
    },
    /// None of the client's four proposals names a version this server speaks. The server
    /// replies four zero bytes and closes.
    #[error("no supported Bolt version among the client's proposals {proposals:08X?}")]
    NoSupportedVersion {
        /// The four proposals, as big-endian integers.
        proposals: [u32; 4],
    },
    /// A varint of the manifest handshake is longer than ten bytes or overflows 64 bits.
    #[error("manifest varint is longer than 64 bits")]
    VarintOverflow,
    /// After a manifest offer the client chose a version that was not offered.
    #[error("client chose Bolt {major}.{minor} (range {range}), which the server did not offer")]
    VersionNotOffered {
        /// Major version chosen.
        major: u8,
        /// Minor version chosen.
        minor: u8,
        /// The range byte (must be 0 in a choice).
        range: u8,
    },
}

impl HandshakeError {
    /// The bytes to send before closing: four zero bytes ("no version") for
    /// [`NoSupportedVersion`](Self::NoSupportedVersion), nothing otherwise.
    pub fn reply(&self) -> &'static [u8] {
        match self {
            Self::NoSupportedVersion { .. } => &[0, 0, 0, 0],
            _ => &[],
        }
    }
}

/// A request message could not be decoded into a [`Request`](crate::Request).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RequestError {
    /// The message bytes are not valid PackStream.
    #[error("malformed message: {0}")]
    Packstream(#[from] DecodeError),
    /// The message is not a PackStream structure.
    #[error("message is not a structure (marker 0x{marker:02X})")]
    NotAStructure {
        /// The first byte of the message.
        marker: u8,
    },
    /// A message tag that is not a Bolt request.
    #[error("unknown request message 0x{tag:02X}")]
    UnknownMessage {
        /// The tag byte.
        tag: u8,
    },
    /// A known request that the negotiated version does not have (LOGON before 5.1, ...).
    #[error("{message} is not part of Bolt {version}")]
    NotInVersion {
        /// The message name.
        message: &'static str,
        /// The negotiated version.
        version: Version,
    },
    /// A request with the wrong number of fields.
    #[error("{message} takes {expected} field(s), got {got}")]
    FieldCount {
        /// The message name.
        message: &'static str,
        /// Fields the message takes.
        expected: usize,
        /// Fields received.
        got: usize,
    },
    /// A field (or a dictionary entry of a field) of the wrong type or value.
    #[error("{message}: `{field}` {problem}")]
    InvalidField {
        /// The message name.
        message: &'static str,
        /// The field or entry name.
        field: String,
        /// What is wrong with it.
        problem: String,
    },
}

impl RequestError {
    /// Whether the message could not even be recognised (bad PackStream, unknown tag, a message
    /// the version lacks): such a message is a protocol violation that closes the connection.
    /// A recognised message with bad fields is answered with FAILURE like any failed request.
    pub fn is_fatal(&self) -> bool {
        !matches!(self, Self::FieldCount { .. } | Self::InvalidField { .. })
    }

    /// The name of the message at fault, when it was recognised.
    pub fn message_name(&self) -> Option<&'static str> {
        match self {
            Self::NotInVersion { message, .. }
            | Self::FieldCount { message, .. }
            | Self::InvalidField { message, .. } => Some(message),
            _ => None,
        }
    }
}

/// Why a [`ByteSession`](crate::ByteSession) ended abnormally.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FatalReason {
    /// The handshake failed.
    #[error("handshake failed: {0}")]
    Handshake(#[from] HandshakeError),
    /// The chunked message stream is broken (message too large, truncated at close).
    #[error("broken message stream: {0}")]
    Chunk(#[from] ChunkError),
    /// Bytes arrived after the session was closed.
    #[error("the session is closed")]
    Closed,
}

/// A fatal error of a [`ByteSession`](crate::ByteSession): the connection must be closed after
/// sending [`reply`](Self::reply) (which may be empty).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{reason}")]
pub struct FatalError {
    /// Why the session ended.
    #[source]
    pub reason: FatalReason,
    /// Bytes to send before closing (responses produced before the error, the handshake's
    /// "no version" reply, or a FAILURE explaining the error).
    pub reply: Vec<u8>,
}
