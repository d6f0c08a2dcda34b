//! Whole sessions over bytes against the in-memory fake backend: the message flows of the Bolt
//! specification, failures, RESET, GOODBYE, out-of-order messages and version differences.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{
    bare, begin, chunked, discard, hello, hello5, logon, message, pull, run, run_with, Client, FakeBackend, Resp,
};
use hopdb_bolt::message::msg;
use hopdb_bolt::{
    AccessMode, Backend, ByteSession, ChunkError, Connection, ConnectionConfig, FatalReason, Request, ServerState,
    SessionConfig, Value, Version,
};

fn records(r: &[Resp]) -> Vec<i64> {
    r.iter()
        .filter_map(|m| match m {
            Resp::Record(v) => v[0].as_int(),
            _ => None,
        })
        .collect()
}

#[test]
fn hello_logon_run_pull_in_batches() {
    let mut c = Client::connect(Version::V5_8);
    let r = c.send(&[hello5()]);
    assert!(r[0].get("server").unwrap().as_str().unwrap().starts_with("Neo4j/"));
    assert!(r[0].get("connection_id").is_some());
    assert!(r[0].get("hints").is_some());
    assert_eq!(c.state(), ServerState::Authentication);
    let r = c.send(&[logon("neo4j", "secret")]);
    assert_eq!(r, [Resp::Success(vec![])]);
    assert_eq!(c.state(), ServerState::Ready);

    let r = c.send(&[run("RANGE 5")]);
    assert_eq!(r[0].get("fields"), Some(&Value::list(["x"])));
    assert_eq!(r[0].get("t_first"), Some(&Value::Integer(2)));
    assert_eq!(r[0].get("qid"), None, "no qid outside explicit transactions");
    // 5.8: the resolved home database when the client named none.
    assert_eq!(r[0].get("db"), Some(&Value::from("neo4j")));
    assert_eq!(c.state(), ServerState::Streaming);

    let r = c.send(&[pull(2, -1)]);
    assert_eq!(records(&r), [0, 1]);
    assert_eq!(r[2].get("has_more"), Some(&Value::Boolean(true)));
    assert_eq!(c.state(), ServerState::Streaming);
    let r = c.send(&[pull(2, -1)]);
    assert_eq!(records(&r), [2, 3]);
    let r = c.send(&[pull(-1, -1)]);
    assert_eq!(records(&r), [4]);
    let summary = r.last().unwrap();
    assert_eq!(summary.get("has_more"), None);
    assert_eq!(summary.get("bookmark"), Some(&Value::from("bm:1")));
    assert_eq!(summary.get("type"), Some(&Value::from("r")));
    assert_eq!(summary.get("t_last"), Some(&Value::Integer(1)));
    assert_eq!(summary.get("db"), Some(&Value::from("neo4j")));
    assert_eq!(c.state(), ServerState::Ready);
}

#[test]
fn pipelined_run_pull_and_discard() {
    let mut c = Client::ready(Version::V5_4);
    let r = c.send(&[
        run("RANGE 3"),
        pull(-1, -1),
        run("RANGE 4"),
        discard(2, -1),
        discard(-1, -1),
    ]);
    assert!(r[0].is_success());
    assert_eq!(records(&r), [0, 1, 2]);
    assert!(r[4].is_success() && r[5].is_success());
    assert_eq!(r[6].get("has_more"), Some(&Value::Boolean(true)));
    assert_eq!(r[7].get("bookmark"), Some(&Value::from("bm:2")));
    assert_eq!(r.len(), 8);
    assert_eq!(c.state(), ServerState::Ready);
    assert_eq!(r[0].get("db"), None, "home database only from 5.8");
}

#[test]
fn explicit_transaction_with_two_results() {
    let mut c = Client::ready(Version::V5_8);
    let r = c.send(&[begin()]);
    assert_eq!(r[0].get("db"), Some(&Value::from("neo4j")));
    assert_eq!(c.state(), ServerState::TxReady);
    let r = c.send(&[run("RANGE 2"), run("RANGE 3")]);
    assert_eq!(r[0].get("qid"), Some(&Value::Integer(0)));
    assert_eq!(r[1].get("qid"), Some(&Value::Integer(1)));
    assert_eq!(r[0].get("db"), None);
    assert_eq!(c.state(), ServerState::TxStreaming);
    // The first result, by qid: no bookmark inside a transaction.
    let r = c.send(&[pull(-1, 0)]);
    assert_eq!(records(&r), [0, 1]);
    assert_eq!(r.last().unwrap().get("bookmark"), None);
    assert_eq!(c.state(), ServerState::TxStreaming);
    // qid -1 is the last RUN.
    let r = c.send(&[pull(1, -1), pull(-1, -1)]);
    assert_eq!(records(&r), [0, 1, 2]);
    assert_eq!(c.state(), ServerState::TxReady);
    let r = c.send(&[bare(msg::COMMIT)]);
    assert_eq!(r[0].get("bookmark"), Some(&Value::from("bm:1")));
    assert_eq!(c.state(), ServerState::Ready);
    assert_eq!(
        c.backend().log[1..],
        [
            "begin",
            "run RANGE 2 tx=true",
            "run RANGE 3 tx=true",
            "pull 0 -1",
            "pull 1 1",
            "pull 1 -1",
            "commit"
        ]
    );
}

#[test]
fn rollback_and_lenient_commit_with_open_results() {
    let mut c = Client::ready(Version::V5_2);
    let r = c.send(&[begin(), run("RANGE 2"), bare(msg::ROLLBACK)]);
    assert!(r.iter().all(Resp::is_success), "{r:?}");
    assert_eq!(c.state(), ServerState::Ready);
    let r = c.send(&[begin(), run("RANGE 2"), bare(msg::COMMIT)]);
    assert!(r.iter().all(Resp::is_success), "{r:?}");
    assert_eq!(c.state(), ServerState::Ready);
}

#[test]
fn failure_then_ignored_then_reset() {
    let mut c = Client::ready(Version::V5_6);
    let r = c.send(&[run("FAIL")]);
    assert!(r[0].is_failure());
    assert_eq!(r[0].code(), "Neo.ClientError.Statement.SyntaxError");
    assert!(r[0].get("message").unwrap().as_str().unwrap().contains("FAIL"));
    assert_eq!(c.state(), ServerState::Failed);
    let r = c.send(&[pull(-1, -1)]);
    assert_eq!(r, [Resp::Ignored]);
    let r = c.send(&[
        run("RANGE 1"),
        begin(),
        bare(msg::LOGOFF),
        message(msg::TELEMETRY, vec![1.into()]),
    ]);
    assert_eq!(r, vec![Resp::Ignored; 4]);
    let r = c.send(&[bare(msg::RESET)]);
    assert_eq!(r, [Resp::Success(vec![])]);
    assert_eq!(c.state(), ServerState::Ready);
    assert!(c.backend().log.contains(&"reset".to_owned()));
    let r = c.send(&[run("RANGE 1"), pull(-1, -1)]);
    assert_eq!(records(&r), [0]);
}

#[test]
fn failure_inside_a_transaction() {
    let mut c = Client::ready(Version::V5_8);
    let r = c.send(&[begin(), run("FAIL"), run("RANGE 1"), bare(msg::COMMIT)]);
    assert!(r[0].is_success());
    assert!(r[1].is_failure());
    assert_eq!(r[2..], [Resp::Ignored, Resp::Ignored]);
    assert!(c.backend().in_tx, "the transaction stays open until RESET");
    c.send(&[bare(msg::RESET)]);
    assert!(!c.backend().in_tx);
}

#[test]
fn reset_jumps_ahead_of_queued_messages() {
    let mut c = Client::ready(Version::V5_4);
    // Messages sent before a RESET in the same write are IGNORED (INTERRUPTED state).
    let r = c.send(&[
        run("RANGE 3"),
        pull(-1, -1),
        bare(msg::RESET),
        run("RANGE 1"),
        pull(-1, -1),
    ]);
    assert_eq!(r[..3], [Resp::Ignored, Resp::Ignored, Resp::Success(vec![])]);
    assert_eq!(records(&r[3..]), [0]);
    assert!(!c.backend().log.iter().any(|l| l.contains("RANGE 3")));
    // Two RESETs: everything up to the second is ignored, including the first RESET.
    let r = c.send(&[run("RANGE 1"), bare(msg::RESET), run("RANGE 1"), bare(msg::RESET)]);
    assert_eq!(r, [Resp::Ignored, Resp::Ignored, Resp::Ignored, Resp::Success(vec![])]);
    assert_eq!(c.state(), ServerState::Ready);
    // RESET from a streaming state.
    c.send(&[run("RANGE 5"), pull(1, -1)]);
    assert_eq!(c.state(), ServerState::Streaming);
    let r = c.send(&[bare(msg::RESET)]);
    assert!(r[0].is_success());
    assert_eq!(c.state(), ServerState::Ready);
}

#[test]
fn goodbye_closes_without_a_response() {
    let mut c = Client::ready(Version::V5_1);
    let r = c.send(&[bare(msg::GOODBYE), run("RANGE 1")]);
    assert!(r.is_empty());
    assert!(c.session.closed());
    assert!(c.backend().goodbye);
    assert_eq!(c.session.receive(&[0, 0]).unwrap_err().reason, FatalReason::Closed);
}

#[test]
fn logoff_and_logon_again() {
    let mut c = Client::ready(Version::V5_1);
    let r = c.send(&[bare(msg::LOGOFF)]);
    assert!(r[0].is_success());
    assert_eq!(c.state(), ServerState::Authentication);
    // RESET before logon keeps the connection waiting for LOGON.
    let r = c.send(&[bare(msg::RESET)]);
    assert!(r[0].is_success());
    assert_eq!(c.state(), ServerState::Authentication);
    let r = c.send(&[logon("neo4j", "secret"), run("RANGE 1"), pull(-1, -1)]);
    assert_eq!(records(&r), [0]);
    // A query while logged off is a protocol violation: FAILURE, then close.
    let mut c = Client::ready(Version::V5_1);
    c.send(&[bare(msg::LOGOFF)]);
    let r = c.send(&[run("RANGE 1")]);
    assert!(r[0].is_failure());
    assert!(c.session.closed());
    // LOGOFF while streaming: FAILURE and close (message spec).
    let mut c = Client::ready(Version::V5_1);
    let r = c.send(&[run("RANGE 2"), bare(msg::LOGOFF)]);
    assert!(r[1].is_failure());
    assert!(c.session.closed());
}

#[test]
fn bad_credentials_close_the_connection() {
    let mut c = Client::connect(Version::V5_3);
    c.send(&[hello5()]);
    let r = c.send(&[logon("neo4j", "wrong")]);
    assert_eq!(r[0].code(), "Neo.ClientError.Security.Unauthorized");
    assert!(c.session.closed());
    let mut c = Client::connect(Version::V4_4);
    let r = c.send(&[hello(vec![
        ("user_agent", "t/1".into()),
        ("scheme", "basic".into()),
        ("principal", "neo4j".into()),
        ("credentials", "wrong".into()),
    ])]);
    assert!(r[0].is_failure());
    assert!(c.session.closed());
}

#[test]
fn out_of_order_messages() {
    // Anything before HELLO: FAILURE, then close.
    let mut c = Client::connect(Version::V5_8);
    let r = c.send(&[run("RANGE 1"), hello5()]);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].code(), "Neo.ClientError.Request.Invalid");
    assert!(c.session.closed());
    assert!(c.backend().goodbye);
    // RESET before HELLO closes too.
    let mut c = Client::connect(Version::V5_8);
    assert!(c.send(&[bare(msg::RESET)])[0].is_failure());
    assert!(c.session.closed());
    // HELLO twice: close.
    let mut c = Client::ready(Version::V5_8);
    assert!(c.send(&[hello5()])[0].is_failure());
    assert!(c.session.closed());
    // In an authenticated state: FAILURE and FAILED, recoverable with RESET.
    for (setup, wrong) in [
        (vec![], pull(-1, -1)),
        (vec![], bare(msg::COMMIT)),
        (vec![], bare(msg::ROLLBACK)),
        (vec![begin()], begin()),
        (vec![begin()], message(msg::TELEMETRY, vec![0.into()])),
        (vec![run("RANGE 2")], run("RANGE 1")),
        (vec![run("RANGE 2")], begin()),
    ] {
        let mut c = Client::ready(Version::V5_8);
        c.send(&setup);
        let r = c.send(&[wrong]);
        assert_eq!(r[0].code(), "Neo.ClientError.Request.Invalid", "{r:?}");
        assert!(r[0]
            .get("message")
            .unwrap()
            .as_str()
            .unwrap()
            .contains("cannot be handled"));
        assert_eq!(c.state(), ServerState::Failed);
        assert!(!c.session.closed());
        assert!(c.send(&[bare(msg::RESET)])[0].is_success());
        assert_eq!(c.state(), ServerState::Ready);
    }
    // PULL of a result that is not open.
    let mut c = Client::ready(Version::V5_8);
    let r = c.send(&[begin(), run("RANGE 1"), pull(-1, 9)]);
    assert!(r[2].is_failure());
}

#[test]
fn undecodable_and_invalid_messages() {
    // An unknown message (ACK_FAILURE is gone since v3): FAILURE and close.
    let mut c = Client::ready(Version::V5_8);
    let r = c.send(&[bare(0x0E)]);
    assert!(r[0].is_failure());
    assert!(c.session.closed());
    // LOGON is not part of 4.4: close.
    let mut c = Client::ready(Version::V4_4);
    assert!(c.send(&[logon("a", "b")])[0].is_failure());
    assert!(c.session.closed());
    // Malformed PackStream inside a complete chunk: close.
    let mut c = Client::ready(Version::V5_8);
    assert!(c.send(&[vec![0xB1, 0x10, 0xD0]])[0].is_failure());
    assert!(c.session.closed());
    // A recognised message with the wrong field count or types: FAILURE, FAILED.
    let mut c = Client::ready(Version::V5_8);
    let r = c.send(&[message(msg::RUN, vec!["RANGE 1".into()]), run("RANGE 1")]);
    assert!(r[0].is_failure());
    assert!(r[0].get("message").unwrap().as_str().unwrap().contains("3 field(s)"));
    assert_eq!(r[1], Resp::Ignored);
    assert!(c.send(&[bare(msg::RESET)])[0].is_success());
    let r = c.send(&[message(msg::TELEMETRY, vec![9001.into()])]);
    assert!(r[0].is_failure());
    assert!(!c.session.closed());
    // Nested 10,000 deep parameters: refused with a FAILURE, no panic.
    let mut deep = vec![0xB3, 0x10, 0x81, b'x', 0xA1, 0x81, b'p'];
    deep.extend(std::iter::repeat_n(0x91, 10_000));
    deep.extend([0x01, 0xA0]);
    let mut c = Client::ready(Version::V5_8);
    let r = c.send(&[deep]);
    assert!(r[0].get("message").unwrap().as_str().unwrap().contains("deeper"));
    assert!(c.session.closed());
    // A declared 2 GB string.
    let mut c = Client::ready(Version::V5_8);
    let r = c.send(&[vec![0xB3, 0x10, 0xD2, 0x7F, 0xFF, 0xFF, 0xFF, b'x']]);
    assert!(r[0].get("message").unwrap().as_str().unwrap().contains("limit"));
}

#[test]
fn chunk_level_errors() {
    // A message over the size limit: FAILURE, then a fatal error.
    let config = SessionConfig {
        max_message_size: 64,
        ..SessionConfig::default()
    };
    let mut s = ByteSession::new(FakeBackend::default(), config);
    s.receive(&common::handshake_bytes([[0, 0, 4, 4], [0; 4], [0; 4], [0; 4]]))
        .unwrap();
    let e = s.receive(&chunked(&[run(&"x".repeat(100))])).unwrap_err();
    assert!(matches!(
        e.reason,
        FatalReason::Chunk(ChunkError::MessageTooLarge { limit: 64, .. })
    ));
    assert!(common::decode_responses(&e.reply)[0].is_failure());
    assert!(s.closed());
    // A truncated chunk: nothing to answer yet; the end of the stream reports it.
    let mut c = Client::ready(Version::V5_8);
    let full = chunked(&[run("RANGE 1")]);
    assert!(c.send_raw(&full[..5]).unwrap().is_empty());
    let e = c.session.finish().unwrap_err();
    assert!(matches!(e.reason, FatalReason::Chunk(ChunkError::Truncated { .. })));
    assert!(c.backend().goodbye, "the backend is released at disconnect");
    // NOOP chunks between messages are keep-alives.
    let mut c = Client::ready(Version::V5_8);
    let mut bytes = vec![0, 0, 0, 0];
    bytes.extend(chunked(&[run("RANGE 1")]));
    bytes.extend([0, 0]);
    bytes.extend(chunked(&[pull(-1, -1)]));
    assert_eq!(records(&c.send_raw(&bytes).unwrap()), [0]);
}

#[test]
fn byte_by_byte_equals_one_write() {
    let mut bytes = common::handshake_bytes([[0, 8, 8, 5], [0; 4], [0; 4], [0; 4]]);
    bytes.extend(chunked(&[
        hello5(),
        logon("neo4j", "secret"),
        run("RANGE 3"),
        pull(2, -1),
        pull(2, -1),
    ]));
    let mut one = ByteSession::new(FakeBackend::default(), SessionConfig::default());
    let all = one.receive(&bytes).unwrap();
    let mut trickle = ByteSession::new(FakeBackend::default(), SessionConfig::default());
    let mut out = Vec::new();
    for b in &bytes {
        out.extend(trickle.receive(std::slice::from_ref(b)).unwrap());
    }
    assert_eq!(out, all);
    assert_eq!(records(&common::decode_responses(&all[4..])), [0, 1, 2]);
}

#[test]
fn bolt_44_forms_and_utc_patch() {
    // 4.4: auth in HELLO, straight to READY; legacy structures.
    let mut c = Client::ready(Version::V4_4);
    assert_eq!(c.state(), ServerState::Ready);
    let r = c.send(&[run("NODE"), pull(-1, -1), run("DT"), pull(-1, -1)]);
    let Resp::Record(node) = &r[1] else { panic!() };
    assert_eq!(node[0].as_structure().unwrap().1.len(), 3, "no element id in 4.4");
    let Resp::Record(dt) = &r[4] else { panic!() };
    assert_eq!(dt[0].as_structure().unwrap().0, 0x46);
    assert_eq!(dt[0].as_structure().unwrap().1[0], Value::Integer(8100));
    assert_eq!(dt[1].as_structure().unwrap().0, 0x66);
    // A zoned value without its offset cannot be sent in the legacy form: FAILURE, FAILED.
    let r = c.send(&[run("ZONED"), pull(-1, -1)]);
    assert!(r[1].is_failure());
    assert_eq!(r[1].code(), "Neo.DatabaseError.General.UnknownError");
    assert_eq!(r.len(), 2);
    assert_eq!(c.state(), ServerState::Failed);
    c.send(&[bare(msg::RESET)]);
    // With the "utc" patch, 4.4 uses the 5.x DateTime forms.
    let mut c = Client::connect(Version::V4_4);
    let r = c.send(&[hello(vec![
        ("user_agent", "t/1".into()),
        ("patch_bolt", Value::list(["utc", "unknown"])),
    ])]);
    assert_eq!(r[0].get("patch_bolt"), Some(&Value::list(["utc"])));
    let r = c.send(&[run("DT"), pull(-1, -1), run("ZONED"), pull(-1, -1)]);
    let Resp::Record(dt) = &r[1] else { panic!() };
    assert_eq!(dt[0].as_structure().unwrap().0, 0x49);
    assert_eq!(dt[1].as_structure().unwrap().0, 0x69);
    assert_eq!(dt[1].as_structure().unwrap().1.len(), 3);
    assert!(matches!(r[4], Resp::Record(_)));
}

#[test]
fn bolt_5_forms_and_gql_failures() {
    let mut c = Client::ready(Version::V5_0);
    let r = c.send(&[run("NODE"), pull(-1, -1)]);
    let Resp::Record(node) = &r[1] else { panic!() };
    let (_, fields) = node[0].as_structure().unwrap();
    assert_eq!(fields.len(), 4);
    assert_eq!(fields[3], Value::from("7"));
    assert_eq!(c.backend().log[0], "auth basic", "5.0 authenticates in HELLO");
    // 5.7+: FAILURE carries the GQL fields.
    let mut c = Client::ready(Version::V5_7);
    let r = c.send(&[run("FAIL")]);
    assert_eq!(r[0].get("code"), None);
    assert_eq!(
        r[0].get("neo4j_code"),
        Some(&Value::from("Neo.ClientError.Statement.SyntaxError"))
    );
    assert_eq!(r[0].get("gql_status"), Some(&Value::from("50N42")));
    assert!(r[0].get("description").is_some());
    assert_eq!(
        r[0].get("diagnostic_record").unwrap().get("_classification"),
        Some(&Value::from("CLIENT_ERROR"))
    );
}

#[test]
fn run_arguments_reach_the_backend() {
    let mut c = Client::ready(Version::V5_8);
    let params = vec![("p", Value::map([("nested", Value::list([1, 2]))]))];
    let extra = vec![
        ("db", Value::from("movies")),
        ("mode", "r".into()),
        ("bookmarks", Value::list(["bm:0"])),
        ("tx_metadata", Value::map([("app", "x")])),
    ];
    let r = c.send(&[run_with("RANGE 1", params, extra)]);
    assert_eq!(r[0].get("db"), None, "the client named a database");
    let b = c.backend();
    assert_eq!(b.last_params[0].1.get("nested"), Some(&Value::list([1, 2])));
    let e = b.last_extra.as_ref().unwrap();
    assert_eq!((e.db.as_deref(), e.mode), (Some("movies"), AccessMode::Read));
    assert_eq!(e.bookmarks, ["bm:0"]);
    assert_eq!(b.last_auth.as_ref().unwrap().principal.as_deref(), Some("neo4j"));
}

#[test]
fn route_and_telemetry() {
    let mut c = Client::ready(Version::V5_4);
    let route = message(
        msg::ROUTE,
        vec![
            Value::map([("address", "localhost:7687")]),
            Value::list(Vec::<i64>::new()),
            Value::map([("db", "movies")]),
        ],
    );
    let r = c.send(&[route, message(msg::TELEMETRY, vec![2.into()])]);
    let rt = r[0].get("rt").unwrap();
    assert_eq!(rt.get("db"), Some(&Value::from("movies")));
    assert_eq!(rt.get("servers").unwrap().as_list().unwrap().len(), 3);
    assert_eq!(r[1], Resp::Success(vec![]));
    assert_eq!(c.backend().log[1..], ["route Some(\"movies\")", "telemetry 2"]);
    assert_eq!(c.state(), ServerState::Ready);
}

#[test]
fn backend_can_be_a_trait_object_and_connection_is_usable_directly() {
    let backend: Box<dyn Backend> = Box::new(FakeBackend::default());
    let mut s = ByteSession::new(backend, SessionConfig::default());
    let out = s
        .receive(&common::handshake_bytes([[0, 0, 4, 4], [0; 4], [0; 4], [0; 4]]))
        .unwrap();
    assert_eq!(out, [0, 0, 4, 4]);
    // The state machine without bytes: typed requests in, typed responses out.
    let mut c = Connection::new(FakeBackend::default(), Version::V4_4, ConnectionConfig::default());
    assert_eq!(c.state(), ServerState::Negotiation);
    let hello = hopdb_bolt::decode_request(
        &hello(vec![("user_agent", "t/1".into())]),
        Version::V4_4,
        c.format(),
        &Default::default(),
    )
    .unwrap();
    assert!(!c.handle(hello).close);
    assert_eq!(c.state(), ServerState::Ready);
    // A request the version lacks is refused even when built by hand.
    let out = c.handle(Request::Logoff);
    assert!(out.close);
    assert_eq!(c.state(), ServerState::Defunct);
}
