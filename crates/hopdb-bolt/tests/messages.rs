//! Request decoding and response encoding, with golden bytes.
//!
//! Message bytes are derived from the Bolt message specification
//! (neo4j.com/docs/bolt/current/bolt/message): the signature (tag) table and the examples of
//! each message, encoded with the PackStream rules. Chunk examples are the specification's
//! "Examples of how Bolt chunks messages".

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::message;
use hopdb_bolt::chunk::{chunk, Dechunker};
use hopdb_bolt::message::msg;
use hopdb_bolt::packstream::{DecodeLimits, Encoder};
use hopdb_bolt::{
    decode_request, AccessMode, BoltFailure, Request, RequestError, Response, StructFormat, Value, Version,
};

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

fn dec(bytes: &[u8], v: Version) -> Result<Request, RequestError> {
    decode_request(bytes, v, StructFormat::V5, &DecodeLimits::default())
}

fn enc(r: &Response, v: Version) -> Vec<u8> {
    let mut out = Vec::new();
    r.encode(v, &Encoder::default(), &mut out).unwrap();
    out
}

#[test]
fn golden_requests() {
    let v = Version::V5_4;
    assert_eq!(dec(&hex("B0 0F"), v), Ok(Request::Reset));
    assert_eq!(dec(&hex("B0 02"), v), Ok(Request::Goodbye));
    assert_eq!(dec(&hex("B0 12"), v), Ok(Request::Commit));
    assert_eq!(dec(&hex("B0 13"), v), Ok(Request::Rollback));
    assert_eq!(dec(&hex("B0 6B"), v), Ok(Request::Logoff));
    // spec: TELEMETRY 0
    assert_eq!(dec(&hex("B1 54 00"), v), Ok(Request::Telemetry(0)));
    // spec: PULL {"n": -1, "qid": -1}
    let Ok(Request::Pull(p)) = dec(&hex("B1 3F A2 81 6E FF 83 71 69 64 FF"), v) else {
        panic!()
    };
    assert_eq!((p.n, p.qid), (-1, -1));
    // spec: DISCARD {"n": 1000} (qid defaults to -1)
    let Ok(Request::Discard(d)) = dec(&hex("B1 2F A1 81 6E C9 03 E8"), v) else {
        panic!()
    };
    assert_eq!((d.n, d.qid), (1000, -1));
    // spec: RUN "RETURN $x AS x" {"x": 1} {}
    let run = hex("B3 10 8E 52 45 54 55 52 4E 20 24 78 20 41 53 20 78 A1 81 78 01 A0");
    let Ok(Request::Run(r)) = dec(&run, v) else { panic!() };
    assert_eq!(r.query, "RETURN $x AS x");
    assert_eq!(r.parameters, vec![("x".to_owned(), Value::Integer(1))]);
    assert_eq!(r.extra, Default::default());
}

#[test]
fn golden_responses() {
    let v = Version::V5_4;
    assert_eq!(enc(&Response::Ignored, v), hex("B0 7E"));
    assert_eq!(
        enc(&Response::Record(vec![1.into(), 2.into(), 3.into()]), v),
        hex("B1 71 93 01 02 03")
    );
    // spec: SUCCESS {"fields": ["x"], "t_first": 123, "qid": 7000}
    let success = Response::Success(vec![
        ("fields".into(), Value::list(["x"])),
        ("t_first".into(), 123.into()),
        ("qid".into(), 7000.into()),
    ]);
    assert_eq!(
        enc(&success, v),
        hex("B1 70 A3 86 66 69 65 6C 64 73 91 81 78 87 74 5F 66 69 72 73 74 7B 83 71 69 64 C9 1B 58")
    );
    // spec (v1 - v5.6): FAILURE {"code": "Example.Failure.Code", "message": "example failure"}
    let failure = Response::Failure(BoltFailure::new("Example.Failure.Code", "example failure"));
    let mut expected = hex("B1 7F A2 84 63 6F 64 65 D0 14");
    expected.extend(b"Example.Failure.Code");
    expected.extend(hex("87 6D 65 73 73 61 67 65 8F"));
    expected.extend(b"example failure");
    assert_eq!(enc(&failure, Version::V5_6), expected);
}

#[test]
fn failure_metadata_by_version() {
    let f = BoltFailure::new("Neo.ClientError.Statement.SyntaxError", "bad");
    let keys = |v: Version| -> Vec<String> { f.metadata(v).into_iter().map(|(k, _)| k).collect() };
    assert_eq!(keys(Version::V4_4), ["code", "message"]);
    assert_eq!(keys(Version::V5_6), ["code", "message"]);
    assert_eq!(
        keys(Version::V5_7),
        [
            "neo4j_code",
            "message",
            "gql_status",
            "description",
            "diagnostic_record"
        ]
    );
    let m = Value::Map(f.metadata(Version::V5_8));
    assert_eq!(m.get("gql_status"), Some(&"50N42".into()));
    assert_eq!(
        m.get("diagnostic_record").and_then(|d| d.get("_classification")),
        Some(&"CLIENT_ERROR".into())
    );
    let t = BoltFailure::new("Neo.TransientError.General.X", "t");
    assert_eq!(t.classification(), "TRANSIENT_ERROR");
    assert_eq!(BoltFailure::internal("x").classification(), "DATABASE_ERROR");
    let p = Value::Map(BoltFailure::request_invalid("x").metadata(Version::V5_7));
    assert_eq!(p.get("gql_status"), Some(&"08N06".into()));
}

#[test]
fn spec_chunking_examples() {
    let m1: Vec<u8> = (0..16).collect();
    assert_eq!(
        chunk(&m1),
        hex("00 10 00 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F 00 00")
    );
    // A message split in two chunks, two messages, and a NOOP between messages.
    let wire = hex(
        "00 10 00 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F 00 04 01 02 03 04 00 00 \
         00 00 \
         00 08 0F 0E 0D 0C 0B 0A 09 08 00 00",
    );
    let mut d = Dechunker::default();
    d.push(&wire);
    let mut first = m1.clone();
    first.extend([1, 2, 3, 4]);
    assert_eq!(d.next_message().unwrap(), Some(first));
    assert_eq!(d.next_message().unwrap(), Some(hex("0F 0E 0D 0C 0B 0A 09 08")));
    assert_eq!(d.next_message().unwrap(), None);
    // Messages over 65,535 bytes are split at 65,535.
    let big = vec![0xAB; 70_000];
    let wire = chunk(&big);
    assert_eq!(&wire[..2], &[0xFF, 0xFF]);
    assert_eq!(&wire[65_537..65_539], &[0x11, 0x71]);
    assert_eq!(&wire[wire.len() - 2..], &[0, 0]);
}

#[test]
fn hello_by_version() {
    let extra = |with_agent: bool| {
        let mut e = vec![
            ("user_agent", Value::from("Example/4.1.0")),
            ("scheme", "basic".into()),
            ("principal", "neo4j".into()),
            ("credentials", "pw".into()),
            ("routing", Value::map([("address", "x.example.com:9001")])),
            ("patch_bolt", Value::list(["utc"])),
            ("notifications_disabled_categories", Value::list(["HINT"])),
        ];
        if with_agent {
            e.push((
                "bolt_agent",
                Value::map([("product", "driver/1"), ("platform", "Linux")]),
            ));
        }
        message(msg::HELLO, vec![Value::map(e)])
    };
    let Ok(Request::Hello(h)) = dec(&extra(false), Version::V4_4) else {
        panic!()
    };
    let auth = h.auth.clone().unwrap();
    assert_eq!(
        (auth.scheme.as_str(), auth.principal.as_deref()),
        ("basic", Some("neo4j"))
    );
    assert_eq!(auth.credentials.as_deref(), Some("pw"));
    assert!(
        !format!("{h:?}").contains("pw"),
        "credentials must not be in Debug output"
    );
    assert_eq!(h.patch_bolt, ["utc"]);
    assert_eq!(h.routing.unwrap()[0].0, "address");
    assert_eq!(h.notifications.disabled_classifications.unwrap(), ["HINT"]);
    // 5.1+: no auth in HELLO.
    let Ok(Request::Hello(h)) = dec(&extra(false), Version::V5_2) else {
        panic!()
    };
    assert!(h.auth.is_none());
    // 5.3+: bolt_agent is mandatory.
    assert!(matches!(
        dec(&extra(false), Version::V5_3),
        Err(RequestError::InvalidField { ref field, .. }) if field == "bolt_agent"
    ));
    let Ok(Request::Hello(h)) = dec(&extra(true), Version::V5_3) else {
        panic!()
    };
    assert_eq!(h.bolt_agent.unwrap().platform.as_deref(), Some("Linux"));
    // user_agent is required.
    let no_ua = message(msg::HELLO, vec![Value::map([("scheme", "none")])]);
    assert!(matches!(
        dec(&no_ua, Version::V4_4),
        Err(RequestError::InvalidField { .. })
    ));
    // 4.4 HELLO without scheme means "none".
    let bare = message(msg::HELLO, vec![Value::map([("user_agent", "a/1")])]);
    let Ok(Request::Hello(h)) = dec(&bare, Version::V4_4) else {
        panic!()
    };
    assert_eq!(h.auth.unwrap().scheme, "none");
}

#[test]
fn run_begin_and_route_fields() {
    let v = Version::V5_8;
    let run = message(
        msg::RUN,
        vec![
            "RETURN 1".into(),
            Value::map([("p", Value::list([1, 2]))]),
            Value::map([
                ("bookmarks", Value::list(["bm:1"])),
                ("tx_timeout", 123.into()),
                ("tx_metadata", Value::map([("log", "x")])),
                ("mode", "r".into()),
                ("db", "".into()),
                ("imp_user", "bob".into()),
                ("notifications_minimum_severity", "WARNING".into()),
            ]),
        ],
    );
    let Ok(Request::Run(r)) = dec(&run, v) else { panic!() };
    assert_eq!(r.extra.bookmarks, ["bm:1"]);
    assert_eq!(r.extra.tx_timeout, Some(123));
    assert_eq!(r.extra.mode, AccessMode::Read);
    assert_eq!(r.extra.db, None, "an empty db means the default");
    assert_eq!(r.extra.imp_user.as_deref(), Some("bob"));
    assert_eq!(r.extra.notifications.minimum_severity.as_deref(), Some("WARNING"));
    let begin = message(msg::BEGIN, vec![Value::map([("db", "movies"), ("mode", "w")])]);
    let Ok(Request::Begin(e)) = dec(&begin, v) else {
        panic!()
    };
    assert_eq!(e.db.as_deref(), Some("movies"));
    // spec (v4.4+): ROUTE {routing} [bookmarks] {extra}
    let route = message(
        msg::ROUTE,
        vec![
            Value::map([("address", "x.example.com:9001")]),
            Value::list(["neo4j-bookmark-transaction:1"]),
            Value::map([("db", "example_database"), ("imp_user", "bob")]),
        ],
    );
    let Ok(Request::Route(r)) = dec(&route, v) else {
        panic!()
    };
    assert_eq!(r.db.as_deref(), Some("example_database"));
    assert_eq!(r.imp_user.as_deref(), Some("bob"));
    assert_eq!(r.bookmarks.len(), 1);
    // spec (v4.3 form): ROUTE {"address": ...} [] null
    let route43 = message(
        msg::ROUTE,
        vec![
            Value::map([("address", "x:7687")]),
            Value::list(Vec::<i64>::new()),
            Value::Null,
        ],
    );
    assert!(matches!(dec(&route43, v), Ok(Request::Route(Route { db: None, .. }))));
}

use hopdb_bolt::Route;

#[test]
fn bad_requests_give_typed_errors() {
    let v = Version::V5_8;
    // Wrong field count.
    let short_run = message(msg::RUN, vec!["RETURN 1".into(), Value::Map(vec![])]);
    assert_eq!(
        dec(&short_run, v),
        Err(RequestError::FieldCount {
            message: "RUN",
            expected: 3,
            got: 2
        })
    );
    assert!(matches!(
        dec(&message(msg::RESET, vec![1.into()]), v),
        Err(RequestError::FieldCount { message: "RESET", .. })
    ));
    // Wrong field types.
    let bad_query = message(msg::RUN, vec![1.into(), Value::Map(vec![]), Value::Map(vec![])]);
    let e = dec(&bad_query, v).unwrap_err();
    assert!(e.to_string().contains("query") && !e.is_fatal(), "{e}");
    let bad_mode = message(msg::BEGIN, vec![Value::map([("mode", "x")])]);
    assert!(matches!(dec(&bad_mode, v), Err(RequestError::InvalidField { .. })));
    let no_n = message(msg::PULL, vec![Value::map([("qid", 1)])]);
    assert!(matches!(dec(&no_n, v), Err(RequestError::InvalidField { ref field, .. }) if field == "n"));
    let zero_n = message(msg::PULL, vec![Value::map([("n", 0)])]);
    assert!(matches!(dec(&zero_n, v), Err(RequestError::InvalidField { .. })));
    let bad_bookmarks = message(msg::BEGIN, vec![Value::map([("bookmarks", Value::list([1]))])]);
    assert!(matches!(dec(&bad_bookmarks, v), Err(RequestError::InvalidField { .. })));
    // spec: TELEMETRY 9001 and TELEMETRY "oh no!" are failures.
    assert!(matches!(
        dec(&hex("B1 54 C9 23 29"), v),
        Err(RequestError::InvalidField { .. })
    ));
    let oh_no = message(msg::TELEMETRY, vec!["oh no!".into()]);
    assert!(matches!(dec(&oh_no, v), Err(RequestError::InvalidField { .. })));
    // A LOGON without `scheme` is scheme "none" (what the Python driver sends for auth=None).
    let logon_no_scheme = message(msg::LOGON, vec![Value::map([("principal", "x")])]);
    match dec(&logon_no_scheme, v) {
        Ok(Request::Logon(token)) => assert_eq!(token.scheme, "none"),
        other => panic!("{other:?}"),
    }
    // Messages the version lacks, unknown messages, non-structures: fatal.
    let e = dec(&hex("B0 6B"), Version::V5_0).unwrap_err();
    assert_eq!(
        e,
        RequestError::NotInVersion {
            message: "LOGOFF",
            version: Version::V5_0
        }
    );
    assert!(e.is_fatal());
    assert!(matches!(
        dec(&hex("B1 54 00"), Version::V5_3),
        Err(RequestError::NotInVersion { .. })
    ));
    assert_eq!(dec(&hex("B0 0E"), v), Err(RequestError::UnknownMessage { tag: 0x0E }));
    assert_eq!(
        dec(&hex("93 01 02 03"), v),
        Err(RequestError::NotAStructure { marker: 0x93 })
    );
    assert_eq!(dec(&[], v), Err(RequestError::NotAStructure { marker: 0 }));
    assert!(matches!(dec(&hex("B1 3F A1 81"), v), Err(RequestError::Packstream(_))));
    assert!(matches!(dec(&hex("B0 0F 00"), v), Err(RequestError::Packstream(_))));
}
