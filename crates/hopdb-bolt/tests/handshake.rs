//! Handshake: version ranges, client preference, 4.4, 5.x, the 5.7 manifest, and garbage.
//!
//! Byte examples marked "spec" come from the Bolt handshake specification
//! (neo4j.com/docs/bolt/current/bolt/handshake).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{chunked, decode_responses, handshake_bytes, hello5, FakeBackend};
use hopdb_bolt::handshake::{negotiate, parse_manifest_choice, ManifestChoice, Negotiated, MANIFEST_V1, NO_VERSION};
use hopdb_bolt::{ByteSession, FatalReason, HandshakeError, SessionConfig, Value, Version, SUPPORTED_VERSIONS};

fn pick(proposals: [[u8; 4]; 4]) -> Result<Negotiated, HandshakeError> {
    negotiate(&handshake_bytes(proposals), SUPPORTED_VERSIONS).map(|n| n.negotiated)
}

const NONE: [u8; 4] = [0; 4];

#[test]
fn exact_versions_and_ranges() {
    let v = |v: Version| Ok(Negotiated::Version(v));
    assert_eq!(pick([[0, 0, 4, 4], NONE, NONE, NONE]), v(Version::V4_4));
    assert_eq!(pick([[0, 0, 0, 5], NONE, NONE, NONE]), v(Version::V5_0));
    // 5.8 down to 5.0: the highest.
    assert_eq!(pick([[0, 8, 8, 5], NONE, NONE, NONE]), v(Version::V5_8));
    // 5.6 down to 5.4.
    assert_eq!(pick([[0, 2, 6, 5], NONE, NONE, NONE]), v(Version::V5_6));
    // 4.4 down to 4.2, as drivers send it.
    assert_eq!(pick([[0, 2, 4, 4], NONE, NONE, NONE]), v(Version::V4_4));
    // 5.5 alone is not spoken; the next proposal wins.
    assert_eq!(pick([[0, 0, 5, 5], [0, 0, 4, 4], NONE, NONE]), v(Version::V4_4));
    // A range that reaches into our versions from above.
    assert_eq!(pick([[0, 5, 12, 5], NONE, NONE, NONE]), v(Version::V5_8));
    assert_eq!(pick([[0, 1, 7, 5], NONE, NONE, NONE]), v(Version::V5_7));
    // The client's order of preference wins over "highest".
    assert_eq!(pick([[0, 0, 4, 4], [0, 8, 8, 5], NONE, NONE]), v(Version::V4_4));
    // What the Python driver sends: 5.8-5.0, 4.4-4.2, 4.1, 3.0.
    assert_eq!(
        pick([[0, 8, 8, 5], [0, 2, 4, 4], [0, 0, 1, 4], [0, 0, 0, 3]]),
        v(Version::V5_8)
    );
    let n = negotiate(&handshake_bytes([[0, 8, 8, 5], NONE, NONE, NONE]), SUPPORTED_VERSIONS).unwrap();
    assert_eq!(n.reply, [0, 0, 8, 5]);
}

#[test]
fn spec_examples_of_unsupported_versions() {
    // spec: a client that only knows version 3 gets 00 00 00 00.
    let e = pick([[0, 0, 0, 3], NONE, NONE, NONE]).unwrap_err();
    assert_eq!(
        e,
        HandshakeError::NoSupportedVersion {
            proposals: [3, 0, 0, 0]
        }
    );
    assert_eq!(e.reply(), NO_VERSION);
    // spec (4.3 ranges): 4.3-4.0, 4.0, 3 -> none of them is 4.4 or 5.x.
    assert!(pick([[0, 3, 3, 4], [0, 0, 1, 4], [0, 0, 0, 4], [0, 0, 0, 3]]).is_err());
    assert!(pick([NONE; 4]).is_err());
}

#[test]
fn garbage_handshakes() {
    assert!(matches!(
        negotiate(b"GET / HTTP/1.1\r\nHost: x\r\n", SUPPORTED_VERSIONS),
        Err(HandshakeError::BadMagic { .. })
    ));
    assert_eq!(
        negotiate(&[0x60, 0x60, 0xB0, 0x17, 0, 0], SUPPORTED_VERSIONS),
        Err(HandshakeError::TooShort { len: 6 })
    );
    // Through a session: rejected at the first wrong byte, nothing sent back, closed.
    let mut s = ByteSession::new(FakeBackend::default(), SessionConfig::default());
    let e = s.receive(b"G").unwrap_err();
    assert!(matches!(
        e.reason,
        FatalReason::Handshake(HandshakeError::BadMagic { .. })
    ));
    assert!(e.reply.is_empty());
    assert!(s.closed());
    assert_eq!(s.receive(b"x").unwrap_err().reason, FatalReason::Closed);
    // No supported version: four zero bytes, then closed.
    let mut s = ByteSession::new(FakeBackend::default(), SessionConfig::default());
    let e = s
        .receive(&handshake_bytes([[0, 0, 0, 3], NONE, NONE, NONE]))
        .unwrap_err();
    assert_eq!(e.reply, NO_VERSION);
    assert!(s.closed());
}

#[test]
fn handshake_split_byte_by_byte() {
    let mut s = ByteSession::new(FakeBackend::default(), SessionConfig::default());
    let mut out = Vec::new();
    for b in handshake_bytes([[0, 0, 4, 4], NONE, NONE, NONE]) {
        out.extend(s.receive(&[b]).unwrap());
    }
    assert_eq!(out, [0, 0, 4, 4]);
    assert_eq!(s.version(), Some(Version::V4_4));
    // Ending the stream mid-handshake is reported.
    let mut s = ByteSession::new(FakeBackend::default(), SessionConfig::default());
    s.receive(&[0x60, 0x60]).unwrap();
    assert!(matches!(
        s.finish().unwrap_err().reason,
        FatalReason::Handshake(HandshakeError::TooShort { len: 2 })
    ));
}

#[test]
fn spec_manifest_example() {
    // spec: C: 00 00 01 FF 00 00 04 04 00 00 00 03 00 00 00 02 (manifest v1 first).
    let hs = handshake_bytes([MANIFEST_V1, [0, 0, 4, 4], [0, 0, 0, 3], [0, 0, 0, 2]]);
    let n = negotiate(&hs, SUPPORTED_VERSIONS).unwrap();
    assert_eq!(n.negotiated, Negotiated::ManifestV1);
    // S: 00 00 01 FF, 3 ranges (5.8-5.6, 5.4-5.0, 4.4), capabilities 0.
    assert_eq!(n.reply, [0, 0, 1, 0xFF, 3, 0, 2, 8, 5, 0, 4, 4, 5, 0, 0, 4, 4, 0]);
    // spec: C: 00 00 07 05 08 (5.7, capability bit 4, which we did not offer).
    assert_eq!(
        parse_manifest_choice(&[0, 0, 7, 5, 0x08], SUPPORTED_VERSIONS, 0),
        Ok(Some((
            ManifestChoice {
                version: Version::V5_7,
                capabilities: 0
            },
            5
        )))
    );
    assert_eq!(parse_manifest_choice(&[0, 0, 7], SUPPORTED_VERSIONS, 0), Ok(None));
    assert_eq!(
        parse_manifest_choice(&[0, 0, 7, 5, 0x80], SUPPORTED_VERSIONS, 0),
        Ok(None)
    );
    assert!(matches!(
        parse_manifest_choice(&[0, 0, 5, 5, 0], SUPPORTED_VERSIONS, 0),
        Err(HandshakeError::VersionNotOffered { .. })
    ));
    assert!(matches!(
        parse_manifest_choice(&[0, 2, 8, 5, 0], SUPPORTED_VERSIONS, 0),
        Err(HandshakeError::VersionNotOffered { .. })
    ));
    // A proposal listed before the manifest wins if it matches.
    let hs = handshake_bytes([[0, 0, 4, 4], MANIFEST_V1, NONE, NONE]);
    assert_eq!(
        negotiate(&hs, SUPPORTED_VERSIONS).unwrap().negotiated,
        Negotiated::Version(Version::V4_4)
    );
}

#[test]
fn manifest_through_a_session_with_pipelined_hello() {
    let mut s = ByteSession::new(FakeBackend::default(), SessionConfig::default());
    let offer = s
        .receive(&handshake_bytes([MANIFEST_V1, [0, 8, 8, 5], NONE, NONE]))
        .unwrap();
    assert_eq!(&offer[..4], &MANIFEST_V1);
    assert_eq!(s.version(), None);
    // The choice (5.7, no capabilities) pipelined with HELLO, split awkwardly.
    let mut bytes = vec![0, 0, 7, 5, 0];
    bytes.extend(chunked(&[hello5()]));
    let mut out = s.receive(&bytes[..3]).unwrap();
    out.extend(s.receive(&bytes[3..]).unwrap());
    assert_eq!(s.version(), Some(Version::V5_7));
    let r = decode_responses(&out);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].get("protocol_version"), Some(&Value::from("5.7")));
    // A choice that was not offered closes the session.
    let mut s = ByteSession::new(FakeBackend::default(), SessionConfig::default());
    s.receive(&handshake_bytes([MANIFEST_V1, NONE, NONE, NONE])).unwrap();
    let e = s.receive(&[0, 0, 3, 4, 0]).unwrap_err();
    assert!(matches!(
        e.reason,
        FatalReason::Handshake(HandshakeError::VersionNotOffered { .. })
    ));
    assert!(s.closed());
    // Without manifest, HELLO's SUCCESS has no protocol_version.
    let mut c = common::Client::connect(Version::V5_7);
    let r = c.send(&[hello5()]);
    assert_eq!(r[0].get("protocol_version"), None);
}
