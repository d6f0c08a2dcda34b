//! The server over real sockets: Bolt bytes in, Bolt bytes out, against an in-memory store.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

use common::{
    begin, begin_with, commit, discard, goodbye, hello, logon, message, pull, pull_qid, records, reset, rollback,
    route, run, run_params, run_with, start, start_with, Client, Resp,
};
use hopdb_bolt::message::msg;
use hopdb_bolt::structs::{self as bs, tag, BoltStruct};
use hopdb_bolt::{Value, Version};
use hopdb_server::ServerConfig;

const DAY: i64 = 86_400;
/// 2024-06-01 in days since 1970-01-01.
const JUNE_1_2024: i64 = 19_875;

/// Polls until `f` holds (up to 10 s).
fn eventually(mut f: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(10);
    while !f() {
        assert!(Instant::now() < until, "condition not reached in 10 s");
        thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn hello_logon_run_pull_and_the_summary() {
    let server = start();
    let mut c = Client::handshake(server.local_addr(), None);
    assert_eq!(c.version, Version::V5_8);
    let r = c.request(&[hello()]);
    assert!(r[0].str("server").starts_with("Neo4j/"), "{r:?}");
    assert_eq!(r[0].str("connection_id"), "bolt-1");
    let r = c.request(&[logon()]);
    assert!(r[0].is_success(), "{r:?}");

    let r = c.request(&[
        run("CREATE (a:Person {name: 'Ada', age: 36}) RETURN a.name AS name"),
        pull(-1),
    ]);
    assert_eq!(r[0].get("fields"), Some(&Value::list(["name"])));
    assert!(r[0].get("t_first").is_some());
    assert_eq!(r[0].str("db"), "neo4j");
    assert_eq!(records(&r), vec![vec![Value::from("Ada")]]);
    let summary = r.last().unwrap();
    assert_eq!(summary.stat("nodes-created"), Some(&Value::Integer(1)));
    assert_eq!(summary.stat("labels-added"), Some(&Value::Integer(1)));
    assert_eq!(summary.stat("properties-set"), Some(&Value::Integer(2)));
    assert_eq!(summary.stat("contains-updates"), Some(&Value::Boolean(true)));
    assert_eq!(summary.stat("nodes-deleted"), None, "zeros are left out");
    assert_eq!(summary.str("type"), "rw");
    assert!(summary.str("bookmark").starts_with("hopdb:"), "{summary:?}");
    assert_eq!(summary.str("db"), "neo4j");
    assert!(summary.get("t_last").is_some());

    let (_, rows, summary) = c.query("MATCH (n:Person) RETURN count(n) AS c", Vec::new());
    assert_eq!(rows, vec![vec![Value::Integer(1)]]);
    assert_eq!(summary.str("type"), "r");
    assert_eq!(summary.get("stats"), None);

    let (run, rows, summary) = c.query("CREATE (:Thing)", Vec::new());
    assert_eq!(run.get("fields"), Some(&Value::List(Vec::new())));
    assert!(rows.is_empty());
    assert_eq!(summary.str("type"), "w");

    let (_, _, summary) = c.query("CREATE INDEX IF NOT EXISTS FOR (n:Person) ON (n.name)", Vec::new());
    assert_eq!(summary.str("type"), "s");
    assert_eq!(summary.stat("indexes-added"), Some(&Value::Integer(1)));

    let (_, _, summary) = c.query("EXPLAIN MATCH (n:Person) RETURN n", Vec::new());
    assert!(
        summary.get("plan").and_then(|p| p.get("operatorType")).is_some(),
        "{summary:?}"
    );
    let (_, rows, summary) = c.query("PROFILE MATCH (n:Person) RETURN n.name AS name", Vec::new());
    assert_eq!(rows.len(), 1);
    assert!(
        summary.get("profile").and_then(|p| p.get("rows")).is_some(),
        "{summary:?}"
    );

    c.send(&[goodbye()]);
    assert!(c.closed_by_server(), "GOODBYE closes without a reply");
}

#[test]
fn results_stream_in_batches_and_discard() {
    let server = start();
    let mut c = Client::ready(server.local_addr());
    let r = c.request(&[run("UNWIND range(1, 5) AS x RETURN x"), pull(2)]);
    assert_eq!(records(&r), vec![vec![Value::Integer(1)], vec![Value::Integer(2)]]);
    assert_eq!(r.last().unwrap().get("has_more"), Some(&Value::Boolean(true)));
    let r = c.request(&[pull(2), pull(2)]);
    assert_eq!(records(&r).len(), 3);
    assert_eq!(r[2].get("has_more"), Some(&Value::Boolean(true)));
    assert!(
        r[4].get("has_more").is_none() && r[4].get("bookmark").is_some(),
        "{r:?}"
    );

    // A batch that takes the last rows ends the result at once (no empty extra PULL).
    let r = c.request(&[run("UNWIND range(1, 4) AS x RETURN x"), pull(2), pull(2)]);
    assert!(r.last().unwrap().get("bookmark").is_some(), "{r:?}");
    assert_eq!(records(&r).len(), 4);

    let r = c.request(&[run("UNWIND range(1, 4) AS x RETURN x"), discard(1), discard(-1)]);
    assert_eq!(r[1].get("has_more"), Some(&Value::Boolean(true)));
    assert!(r[2].get("bookmark").is_some(), "{r:?}");
    assert!(records(&r).is_empty());
}

#[test]
fn explicit_transactions_commit_and_roll_back() {
    let server = start();
    let mut c = Client::ready(server.local_addr());
    let r = c.request(&[
        begin(),
        run("CREATE (:Tx {n: 1})"),
        run("MATCH (t:Tx) RETURN count(t) AS c"),
        pull_qid(-1, 1),
        pull_qid(-1, 0),
        rollback(),
    ]);
    assert!(r.iter().all(|m| !m.is_failure()), "{r:?}");
    assert_eq!(r[0].str("db"), "neo4j");
    assert_eq!(r[1].get("qid"), Some(&Value::Integer(0)));
    assert_eq!(r[2].get("qid"), Some(&Value::Integer(1)));
    assert_eq!(
        records(&r),
        vec![vec![Value::Integer(1)]],
        "the transaction sees its own write"
    );
    assert!(r
        .iter()
        .all(|m| matches!(m, Resp::Record(_)) || m.get("bookmark").is_none()));
    assert_eq!(c.scalar("MATCH (t:Tx) RETURN count(t) AS c"), Value::Integer(0));

    // COMMIT with a result never pulled.
    let r = c.request(&[begin(), run("CREATE (:Tx {n: 2})"), commit()]);
    assert!(r[2].str("bookmark").starts_with("hopdb:"), "{r:?}");
    assert_eq!(c.scalar("MATCH (t:Tx) RETURN t.n AS n"), Value::Integer(2));

    // A failing statement aborts the transaction: its earlier writes are gone. A run-time
    // failure comes with the result (RUN succeeds, PULL fails), as on Neo4j.
    let r = c.request(&[
        begin(),
        run("CREATE (:Tx {n: 3})"),
        run("RETURN 1 / 0 AS boom"),
        pull(-1),
        rollback(),
    ]);
    assert!(r[2].is_success(), "{r:?}");
    assert_eq!(r[3].code(), "Neo.ClientError.Statement.ArgumentError", "{r:?}");
    assert_eq!(r[4], Resp::Ignored);
    assert!(c.request(&[reset()])[0].is_success());
    assert_eq!(c.scalar("MATCH (t:Tx) RETURN count(t) AS c"), Value::Integer(1));

    // tx_timeout is enforced at the next statement.
    let r = c.request(&[begin_with(vec![("tx_timeout", Value::Integer(1))])]);
    assert!(r[0].is_success());
    thread::sleep(Duration::from_millis(20));
    let r = c.request(&[run("CREATE (:Tx {n: 4})")]);
    assert_eq!(r[0].code(), "Neo.ClientError.Transaction.TransactionTimedOut");
    assert!(c.request(&[reset()])[0].is_success());
    assert_eq!(c.scalar("MATCH (t:Tx) RETURN count(t) AS c"), Value::Integer(1));
}

#[test]
fn a_syntax_error_fails_until_reset() {
    let server = start();
    let mut c = Client::ready(server.local_addr());
    let r = c.request(&[run("MATCH (n RETURN n"), pull(-1)]);
    assert_eq!(r[0].code(), "Neo.ClientError.Statement.SyntaxError", "{r:?}");
    assert_eq!(r[0].str("gql_status"), "42001");
    assert!(r[0].str("message").contains("line 1"), "{r:?}");
    assert_eq!(r[1], Resp::Ignored);
    let r = c.request(&[reset()]);
    assert!(r[0].is_success());
    assert_eq!(c.scalar("RETURN 1 AS x"), Value::Integer(1));

    let r = c.request(&[run("RETURN $missing AS x")]);
    assert_eq!(r[0].code(), "Neo.ClientError.Statement.ParameterMissing", "{r:?}");
    c.request(&[reset()]);
    let r = c.request(&[run_params(
        "RETURN $p AS x",
        vec![(
            "p",
            bs::Point2D {
                srid: 1234,
                x: 1.0,
                y: 2.0,
            }
            .into_value(),
        )],
    )]);
    assert_eq!(r[0].code(), "Neo.ClientError.Statement.TypeError", "{r:?}");
    assert!(r[0].str("message").contains("SRID 1234"), "{r:?}");
    assert!(r[0].str("message").contains("$p"), "{r:?}");
}

#[test]
fn nodes_relationships_and_paths() {
    let server = start();
    let mut c = Client::ready(server.local_addr());
    c.query(
        "CREATE (a:P {name: 'a', _key: 'ka'})-[:R {w: 1}]->(b:P:Q {name: 'b'})<-[:S]-(c:P {name: 'c'})",
        Vec::new(),
    );
    let (_, rows, _) = c.query(
        "MATCH p = (a:P {name: 'a'})-[r:R]->(b)<-[s:S]-(c) RETURN a, r, b, p, a._key AS key",
        Vec::new(),
    );
    let [a, r, b, p, key] = rows[0].as_slice() else {
        panic!("{rows:?}")
    };
    let a = bs::Node::from_value(a).unwrap();
    assert_eq!(a.labels, ["P"]);
    assert_eq!(
        a.properties,
        vec![("name".to_owned(), Value::from("a"))],
        "no _key among them"
    );
    assert_eq!(a.element_id, a.id.to_string());
    assert_eq!(key, &Value::from("ka"));
    let b = bs::Node::from_value(b).unwrap();
    let mut labels = b.labels.clone();
    labels.sort();
    assert_eq!(labels, ["P", "Q"]);
    let r = bs::Relationship::from_value(r).unwrap();
    assert_eq!(r.rel_type, "R");
    assert_eq!((r.start_node_id, r.end_node_id), (a.id, b.id));
    assert_eq!(r.start_node_element_id, a.element_id);
    assert_eq!(r.element_id, format!("r{}", r.id));
    assert_eq!(r.properties, vec![("w".to_owned(), Value::Integer(1))]);
    // elementId() in Cypher agrees with what the driver sees.
    let (_, ids, _) = c.query(
        "MATCH (a:P {name: 'a'})-[r:R]->() RETURN elementId(a) AS a, elementId(r) AS r",
        Vec::new(),
    );
    assert_eq!(
        ids[0],
        vec![Value::from(a.element_id.clone()), Value::from(r.element_id.clone())]
    );

    let p = bs::Path::from_value(p).unwrap();
    let names: Vec<_> = p
        .nodes
        .iter()
        .map(|n| hopdb_bolt::value::map_get(&n.properties, "name").cloned().unwrap())
        .collect();
    assert_eq!(names, [Value::from("a"), Value::from("b"), Value::from("c")]);
    assert_eq!(p.rels.len(), 2);
    assert_eq!(p.rels[0].rel_type, "R");
    assert_eq!(p.rels[1].rel_type, "S");
    // a -[R]-> b, then S walked against its direction to c.
    assert_eq!(p.indices, [1, 1, -2, 2]);

    // A path that comes back to a node sends it once.
    c.query("CREATE (x:L {name: 'x'})-[:T]->(y:L {name: 'y'})-[:T]->(x)", Vec::new());
    let v = c.scalar("MATCH p = (x:L {name: 'x'})-[:T]->(:L)-[:T]->(x) RETURN p");
    let p = bs::Path::from_value(&v).unwrap();
    assert_eq!(p.nodes.len(), 2);
    assert_eq!(p.indices, [1, 1, 2, 0]);
}

#[test]
fn temporal_values_both_ways() {
    let server = start();
    let mut c = Client::ready(server.local_addr());
    let (_, rows, _) = c.query(
        "RETURN date('2024-02-29') AS d, localtime('12:34:56.789') AS lt, time('12:00+02:00') AS t, \
         localdatetime('2024-06-01T12:00:00') AS ldt, datetime('2024-06-01T12:00:00+02:00') AS dt, \
         datetime('2024-06-01T12:00:00[Europe/Paris]') AS dtz, duration('P1M2DT3.5S') AS dur",
        Vec::new(),
    );
    let row = &rows[0];
    let noon = 12 * 3600;
    let expected = vec![
        bs::Date { days: 19_782 }.into_value(),
        bs::LocalTime {
            nanoseconds: 45_296_789_000_000,
        }
        .into_value(),
        bs::Time {
            nanoseconds: noon * 1_000_000_000,
            tz_offset_seconds: 7200,
        }
        .into_value(),
        bs::LocalDateTime {
            seconds: JUNE_1_2024 * DAY + noon,
            nanoseconds: 0,
        }
        .into_value(),
        bs::DateTime {
            seconds: JUNE_1_2024 * DAY + noon - 7200,
            nanoseconds: 0,
            tz_offset_seconds: 7200,
        }
        .into_value(),
        // The 5.x form: the offset is not sent.
        bs::DateTimeZoneId {
            seconds: JUNE_1_2024 * DAY + noon - 7200,
            nanoseconds: 0,
            tz_id: "Europe/Paris".into(),
            offset_seconds: None,
        }
        .into_value(),
        bs::Duration {
            months: 1,
            days: 2,
            seconds: 3,
            nanoseconds: 500_000_000,
        }
        .into_value(),
    ];
    assert_eq!(row, &expected);

    // The same values as parameters: equal to what Cypher builds, and sent back unchanged.
    let names = ["d", "lt", "t", "ldt", "dt", "dtz", "dur"];
    let params: Vec<(&str, Value)> = names.iter().copied().zip(expected.iter().cloned()).collect();
    let (_, rows, _) = c.query(
        "RETURN $d = date('2024-02-29') AND $lt = localtime('12:34:56.789') AND $t = time('12:00+02:00') \
         AND $ldt = localdatetime('2024-06-01T12:00:00') AND $dt = datetime('2024-06-01T12:00:00+02:00') \
         AND $dtz = datetime('2024-06-01T12:00:00[Europe/Paris]') AND $dur = duration('P1M2DT3.5S') AS same, \
         $dtz.timezone AS zone, [$d, $lt, $t, $ldt, $dt, $dtz, $dur] AS back",
        params,
    );
    assert_eq!(rows[0][0], Value::Boolean(true));
    assert_eq!(rows[0][1], Value::from("Europe/Paris"));
    assert_eq!(rows[0][2], Value::List(expected.clone()));

    // Stored and read back.
    c.query(
        "CREATE (:E {at: $dtz, on: $d})",
        vec![("dtz", expected[5].clone()), ("d", expected[0].clone())],
    );
    let (_, rows, _) = c.query("MATCH (e:E) RETURN e.at AS at, e.on AS on", Vec::new());
    assert_eq!(rows[0], vec![expected[5].clone(), expected[0].clone()]);
}

#[test]
fn bolt_4_4_clients_get_the_legacy_forms() {
    let server = start();
    let mut c = Client::handshake(server.local_addr(), Some(Version::V4_4));
    assert_eq!(c.version, Version::V4_4);
    let hello44 = message(
        msg::HELLO,
        vec![Value::map([
            ("user_agent", Value::from("old-driver/4.4")),
            ("scheme", "basic".into()),
            ("principal", "neo4j".into()),
            ("credentials", "x".into()),
        ])],
    );
    assert!(c.request(&[hello44])[0].is_success());
    let (_, rows, _) = c.query(
        "CREATE (n:Old {v: 1}) RETURN n, datetime('2024-06-01T12:00:00[Europe/Paris]') AS dtz",
        Vec::new(),
    );
    let (t, fields) = rows[0][0].as_structure().unwrap();
    assert_eq!((t, fields.len()), (tag::NODE, 3), "no element id before 5.0");
    let (t, fields) = rows[0][1].as_structure().unwrap();
    assert_eq!(t, tag::LEGACY_DATE_TIME_ZONE_ID);
    assert_eq!(
        fields[0],
        Value::Integer(JUNE_1_2024 * DAY + 12 * 3600),
        "local seconds"
    );
}

#[test]
fn a_reader_is_not_blocked_by_an_open_write_transaction() {
    let server = start();
    let mut writer = Client::ready(server.local_addr());
    let mut reader = Client::ready(server.local_addr());
    let r = writer.request(&[begin(), run("CREATE (:W {n: 1})"), pull(-1)]);
    assert!(r.iter().all(Resp::is_success), "{r:?}");
    assert_eq!(reader.scalar("MATCH (w:W) RETURN count(w) AS c"), Value::Integer(0));
    let r = reader.request(&[
        begin_with(vec![("mode", "r".into())]),
        run("MATCH (w:W) RETURN count(w) AS c"),
        pull(-1),
        commit(),
    ]);
    assert_eq!(records(&r), vec![vec![Value::Integer(0)]], "{r:?}");
    assert!(writer.request(&[commit()])[0].is_success());
    assert_eq!(reader.scalar("MATCH (w:W) RETURN count(w) AS c"), Value::Integer(1));
}

#[test]
fn read_mode_refuses_writes() {
    let server = start();
    let mut c = Client::ready(server.local_addr());
    let r = c.request(&[run_with("CREATE (:RO)", Vec::new(), vec![("mode", "r".into())])]);
    assert_eq!(r[0].code(), "Neo.ClientError.Statement.AccessMode", "{r:?}");
    c.request(&[reset()]);
    let r = c.request(&[begin_with(vec![("mode", "r".into())]), run("CREATE (:RO)")]);
    assert!(r[0].is_success());
    assert_eq!(r[1].code(), "Neo.ClientError.Statement.AccessMode", "{r:?}");
    c.request(&[reset()]);
    assert_eq!(c.scalar("MATCH (n:RO) RETURN count(n) AS c"), Value::Integer(0));
}

#[test]
fn a_client_that_leaves_mid_transaction_is_rolled_back() {
    let server = start();
    let mut leaver = Client::ready(server.local_addr());
    let r = leaver.request(&[begin(), run("CREATE (:Gone)"), pull(-1)]);
    assert!(r.iter().all(Resp::is_success), "{r:?}");
    assert_eq!(server.active_connections(), 1);
    drop(leaver);
    // The writer slot is released by the rollback: this write does not wait forever.
    let mut other = Client::ready(server.local_addr());
    other.query("CREATE (:Stays)", Vec::new());
    assert_eq!(other.scalar("MATCH (n:Gone) RETURN count(n) AS c"), Value::Integer(0));
    assert_eq!(other.scalar("MATCH (n:Stays) RETURN count(n) AS c"), Value::Integer(1));
    eventually(|| server.active_connections() == 1);
}

#[test]
fn garbage_closes_only_its_own_connection() {
    let server = start();
    let mut good = Client::ready(server.local_addr());

    let mut http = TcpStream::connect(server.local_addr()).unwrap();
    http.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    http.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
    let mut buf = [0u8; 64];
    let n = http.read(&mut buf).unwrap_or(0);
    assert_eq!(n, 0, "the server answers a non-Bolt client by closing");

    // A Bolt client sending a message that is not PackStream: FAILURE, then closed.
    let mut bad = Client::ready(server.local_addr());
    bad.stream
        .write_all(&[0x00, 0x03, 0xFF, 0xFF, 0xFF, 0x00, 0x00])
        .unwrap();
    let r = bad.recv().unwrap();
    assert_eq!(r.code(), "Neo.ClientError.Request.Invalid", "{r:?}");
    assert!(bad.closed_by_server());

    // A chunk header announcing more than the client ever sends, then hanging up.
    let mut cut = Client::ready(server.local_addr());
    cut.stream.write_all(&[0x10, 0x00, 0xB1]).unwrap();
    drop(cut);

    assert_eq!(good.scalar("RETURN 41 + 1 AS x"), Value::Integer(42));
    eventually(|| server.active_connections() == 1);
}

#[test]
fn databases_and_routing() {
    let server = start();
    let mut c = Client::ready(server.local_addr());
    let r = c.request(&[run_with("RETURN 1 AS x", Vec::new(), vec![("db", "other".into())])]);
    assert_eq!(r[0].code(), "Neo.ClientError.Database.DatabaseNotFound", "{r:?}");
    c.request(&[reset()]);
    let r = c.request(&[begin_with(vec![("db", "NEO4J".into())]), rollback()]);
    assert!(r.iter().all(Resp::is_success), "{r:?}");

    let r = c.request(&[route(None)]);
    let rt = r[0].get("rt").unwrap_or_else(|| panic!("{r:?}"));
    assert_eq!(rt.get("ttl"), Some(&Value::Integer(300)));
    assert_eq!(rt.get("db"), Some(&Value::from("neo4j")));
    let servers = rt.get("servers").and_then(Value::as_list).unwrap();
    let mut roles: Vec<&str> = servers
        .iter()
        .map(|s| s.get("role").and_then(Value::as_str).unwrap())
        .collect();
    roles.sort_unstable();
    assert_eq!(roles, ["READ", "ROUTE", "WRITE"]);
    for s in servers {
        // The address the client used, from the routing context.
        assert_eq!(s.get("addresses"), Some(&Value::list(["localhost:9999"])));
    }
    // Drivers probe the `system` database's table (Java's verifyConnectivity): answered.
    let r = c.request(&[route(Some("system"))]);
    let rt = r[0].get("rt").unwrap_or_else(|| panic!("{r:?}"));
    assert_eq!(rt.get("db"), Some(&Value::from("system")));
    let r = c.request(&[route(Some("other"))]);
    assert_eq!(r[0].code(), "Neo.ClientError.Database.DatabaseNotFound", "{r:?}");
}

#[test]
fn the_connection_limit_closes_extra_connections() {
    let server = start_with(ServerConfig {
        max_connections: 1,
        ..ServerConfig::default()
    });
    let mut first = Client::ready(server.local_addr());
    let mut second = TcpStream::connect(server.local_addr()).unwrap();
    second.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut buf = [0u8; 4];
    assert!(matches!(second.read(&mut buf), Ok(0) | Err(_)), "closed at once");
    assert_eq!(first.scalar("RETURN 1 AS x"), Value::Integer(1));
    first.send(&[goodbye()]);
    eventually(|| server.active_connections() == 0);
    let mut third = Client::ready(server.local_addr());
    assert_eq!(third.scalar("RETURN 3 AS x"), Value::Integer(3));
}

#[test]
fn shutdown_closes_connections_and_stops_listening() {
    let server = start();
    let addr = server.local_addr();
    let mut idle = Client::ready(addr);
    let mut in_tx = Client::ready(addr);
    let r = in_tx.request(&[begin(), run("CREATE (:Pending)"), pull(-1)]);
    assert!(r.iter().all(Resp::is_success), "{r:?}");
    assert!(server.shutdown(), "every connection ended within the grace period");
    assert!(idle.closed_by_server());
    assert!(in_tx.closed_by_server());
    assert!(
        TcpStream::connect_timeout(&addr, Duration::from_secs(2)).is_err(),
        "no longer listening"
    );
}
