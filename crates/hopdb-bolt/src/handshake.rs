//! The Bolt handshake: the magic preamble, version negotiation (with 4.3-style ranges) and the
//! Bolt 5.7+ "manifest v1" negotiation.
//!
//! ```text
//! C: 60 60 B0 17                      magic
//! C: 00 RR mm MM  x 4                 four proposals: range, minor, major (big-endian u32)
//! S: 00 00 mm MM                      the chosen version, or 00 00 00 00 and close
//! ```
//!
//! With manifest v1 (a proposal `00 00 01 FF`) the server instead answers `00 00 01 FF`, a
//! varint count, that many version ranges and a capabilities varint; the client answers with
//! the version it chose (no range) and the capabilities it takes, and may pipeline messages
//! right after.

use std::fmt;

use crate::error::HandshakeError;

/// The Bolt magic preamble.
pub const MAGIC: [u8; 4] = [0x60, 0x60, 0xB0, 0x17];
/// Length of the client's handshake: magic plus four proposals.
pub const HANDSHAKE_LEN: usize = 20;
/// The proposal (and reply) that selects handshake manifest v1.
pub const MANIFEST_V1: [u8; 4] = [0x00, 0x00, 0x01, 0xFF];
/// The reply meaning "no supported version".
pub const NO_VERSION: [u8; 4] = [0, 0, 0, 0];

/// A Bolt protocol version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// Major version.
    pub major: u8,
    /// Minor version.
    pub minor: u8,
}

impl Version {
    /// Bolt 4.4.
    pub const V4_4: Self = Self::new(4, 4);
    /// Bolt 5.0.
    pub const V5_0: Self = Self::new(5, 0);
    /// Bolt 5.1 (LOGON/LOGOFF).
    pub const V5_1: Self = Self::new(5, 1);
    /// Bolt 5.2 (notification filters).
    pub const V5_2: Self = Self::new(5, 2);
    /// Bolt 5.3 (bolt_agent).
    pub const V5_3: Self = Self::new(5, 3);
    /// Bolt 5.4 (TELEMETRY).
    pub const V5_4: Self = Self::new(5, 4);
    /// Bolt 5.6 (GQL statuses).
    pub const V5_6: Self = Self::new(5, 6);
    /// Bolt 5.7 (GQL errors, manifest handshake).
    pub const V5_7: Self = Self::new(5, 7);
    /// Bolt 5.8 (home database resolution).
    pub const V5_8: Self = Self::new(5, 8);

    /// `major.minor`.
    pub const fn new(major: u8, minor: u8) -> Self {
        Self { major, minor }
    }

    /// The version as a handshake reply: `00 00 minor major`.
    pub fn to_bytes(self) -> [u8; 4] {
        [0, 0, self.minor, self.major]
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// The versions this crate speaks, best first: 5.8 down to 5.6, 5.4 down to 5.0, and 4.4.
///
/// 5.5 is left out on purpose: the protocol documentation says it was released only in some
/// drivers with a flawed design and that no server negotiates it.
pub const SUPPORTED_VERSIONS: &[Version] = &[
    Version::V5_8,
    Version::V5_7,
    Version::V5_6,
    Version::V5_4,
    Version::V5_3,
    Version::V5_2,
    Version::V5_1,
    Version::V5_0,
    Version::V4_4,
];

/// What the handshake settled on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Negotiated {
    /// A version was agreed; messages follow.
    Version(Version),
    /// Manifest v1 was chosen: the client's choice (see [`parse_manifest_choice`]) follows.
    ManifestV1,
}

/// The outcome of [`negotiate`]: what was agreed and the bytes to send back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Negotiation {
    /// What was agreed.
    pub negotiated: Negotiated,
    /// The server's reply.
    pub reply: Vec<u8>,
}

/// The client's answer to a manifest offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ManifestChoice {
    /// The version chosen.
    pub version: Version,
    /// The capabilities taken (a subset of those offered).
    pub capabilities: u64,
}

/// Checks the magic preamble on however many of its bytes have arrived.
pub fn check_magic(prefix: &[u8]) -> Result<(), HandshakeError> {
    let n = prefix.len().min(MAGIC.len());
    if prefix.get(..n) == MAGIC.get(..n) {
        Ok(())
    } else {
        Err(HandshakeError::BadMagic {
            found: prefix.get(..n).unwrap_or_default().to_vec(),
        })
    }
}

/// Negotiates from the client's 20-byte handshake, choosing among `supported` (best first).
///
/// Proposals are taken in the client's order of preference and the first that matches wins;
/// within a range the highest supported version is chosen. On
/// [`HandshakeError::NoSupportedVersion`] send [`HandshakeError::reply`] (four zero bytes) and
/// close.
pub fn negotiate(handshake: &[u8], supported: &[Version]) -> Result<Negotiation, HandshakeError> {
    check_magic(handshake)?;
    let Some(body) = handshake.get(4..HANDSHAKE_LEN) else {
        return Err(HandshakeError::TooShort { len: handshake.len() });
    };
    let mut proposals = [[0u8; 4]; 4];
    for (p, bytes) in proposals.iter_mut().zip(body.chunks_exact(4)) {
        p.copy_from_slice(bytes);
    }
    for p in proposals {
        if p == MANIFEST_V1 {
            return Ok(Negotiation {
                negotiated: Negotiated::ManifestV1,
                reply: manifest_offer(supported, 0),
            });
        }
        if let Some(v) = best_in_range(p, supported) {
            return Ok(Negotiation {
                negotiated: Negotiated::Version(v),
                reply: v.to_bytes().to_vec(),
            });
        }
    }
    Err(HandshakeError::NoSupportedVersion {
        proposals: proposals.map(u32::from_be_bytes),
    })
}

/// The highest supported version named by one proposal `[reserved, range, minor, major]`.
fn best_in_range(p: [u8; 4], supported: &[Version]) -> Option<Version> {
    let [_, range, minor, major] = p;
    if major == 0 || major == 0xFF {
        return None;
    }
    let lowest = minor.saturating_sub(range);
    supported
        .iter()
        .copied()
        .filter(|v| v.major == major && (lowest..=minor).contains(&v.minor))
        .max()
}

/// `supported` as 4.3-style ranges `[0, range, minor, major]`, best first: runs of consecutive
/// minors of one major share an entry.
pub fn version_ranges(supported: &[Version]) -> Vec<[u8; 4]> {
    let mut sorted = supported.to_vec();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    sorted.dedup();
    let mut out: Vec<[u8; 4]> = Vec::new();
    for v in sorted {
        match out.last_mut() {
            Some([_, range, minor, major])
                if *major == v.major && minor.checked_sub(range.saturating_add(1)) == Some(v.minor) =>
            {
                *range += 1;
            }
            _ => out.push([0, 0, v.minor, v.major]),
        }
    }
    out
}

/// The server's manifest v1 reply: `00 00 01 FF`, the count of ranges, the ranges, and the
/// capabilities bitmask.
pub fn manifest_offer(supported: &[Version], capabilities: u64) -> Vec<u8> {
    let ranges = version_ranges(supported);
    let mut out = MANIFEST_V1.to_vec();
    encode_varint(ranges.len() as u64, &mut out);
    for r in &ranges {
        out.extend_from_slice(r);
    }
    encode_varint(capabilities, &mut out);
    out
}

/// Parses the client's manifest answer from the start of `bytes`: `Ok(None)` if more bytes are
/// needed, else the choice and the number of bytes it took. The version must be one of
/// `supported` with no range; capabilities not offered are dropped.
pub fn parse_manifest_choice(
    bytes: &[u8],
    supported: &[Version],
    offered_capabilities: u64,
) -> Result<Option<(ManifestChoice, usize)>, HandshakeError> {
    let Some(&[_, range, minor, major]) = bytes.get(..4) else {
        return Ok(None);
    };
    let version = Version::new(major, minor);
    if range != 0 || !supported.contains(&version) {
        return Err(HandshakeError::VersionNotOffered { major, minor, range });
    }
    let Some((capabilities, used)) = decode_varint(bytes.get(4..).unwrap_or_default())? else {
        return Ok(None);
    };
    Ok(Some((
        ManifestChoice {
            version,
            capabilities: capabilities & offered_capabilities,
        },
        4 + used,
    )))
}

/// Appends `value` as a varint: 7-bit groups, least significant first, high bit = more follow.
pub fn encode_varint(mut value: u64, out: &mut Vec<u8>) {
    loop {
        let low = (value & 0x7F) as u8;
        value >>= 7;
        if value == 0 {
            out.push(low);
            return;
        }
        out.push(low | 0x80);
    }
}

/// Decodes a varint from the start of `bytes`: `Ok(None)` if it is incomplete, else the value
/// and the bytes it took. More than 64 bits is an error.
pub fn decode_varint(bytes: &[u8]) -> Result<Option<(u64, usize)>, HandshakeError> {
    let mut value: u64 = 0;
    for (i, b) in bytes.iter().enumerate() {
        let group = u64::from(b & 0x7F);
        let shift = 7 * i as u32;
        if i >= 10 || (i == 9 && group > 1) {
            return Err(HandshakeError::VarintOverflow);
        }
        value |= group << shift;
        if b & 0x80 == 0 {
            return Ok(Some((value, i + 1)));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_examples_from_the_handshake_spec() {
        // Examples from the "VarInt" section of the Bolt handshake specification.
        for (bytes, value) in [
            (&[0x01][..], 1u64),
            (&[0x7F][..], 127),
            (&[0xFF, 0x82, 0x71][..], 1_851_775),
        ] {
            assert_eq!(decode_varint(bytes), Ok(Some((value, bytes.len()))));
            let mut out = Vec::new();
            encode_varint(value, &mut out);
            assert_eq!(out, bytes);
        }
        let mut out = Vec::new();
        encode_varint(u64::MAX, &mut out);
        assert_eq!(out.len(), 10);
        assert_eq!(decode_varint(&out), Ok(Some((u64::MAX, 10))));
        assert_eq!(decode_varint(&[0x80, 0x80]), Ok(None));
        assert_eq!(decode_varint(&[0xFF; 11]), Err(HandshakeError::VarintOverflow));
        let mut too_big = vec![0xFF; 9];
        too_big.push(0x02);
        assert_eq!(decode_varint(&too_big), Err(HandshakeError::VarintOverflow));
    }

    #[test]
    fn ranges_group_consecutive_minors() {
        assert_eq!(
            version_ranges(SUPPORTED_VERSIONS),
            vec![[0, 2, 8, 5], [0, 4, 4, 5], [0, 0, 4, 4]]
        );
        assert_eq!(version_ranges(&[Version::V5_0]), vec![[0, 0, 0, 5]]);
    }
}
