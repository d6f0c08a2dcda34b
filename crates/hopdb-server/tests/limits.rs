//! What bounds one client's effect on the others: a running statement stops on RESET, on
//! disconnect and at the statement timeout; a write waits a bounded time for the writer
//! slot; an idle transaction is rolled back; a read transaction reads one snapshot.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::thread;
use std::time::{Duration, Instant};

use common::{begin, begin_with, commit, pull, reset, run, start, start_with, Client, Resp};
use hopdb_bolt::Value;
use hopdb_server::{ServerConfig, ServerHandle};

/// A statement that would run for minutes: a 400^3 cartesian product counted.
const LONG: &str = "MATCH (a:N), (b:N), (c:N) RETURN count(*) AS n";

fn with_nodes(server: &ServerHandle) -> Client {
    let mut c = Client::ready(server.local_addr());
    c.query("UNWIND range(1, 400) AS i CREATE (:N {i: i})", Vec::new());
    c
}

#[test]
fn reset_cancels_a_running_statement() {
    let server = start();
    let mut c = with_nodes(&server);
    let t = Instant::now();
    c.send(&[run(LONG), pull(-1)]);
    thread::sleep(Duration::from_millis(300));
    c.send(&[reset()]);
    let r: Vec<Resp> = (0..3).map(|_| c.recv().unwrap()).collect();
    let took = t.elapsed();
    // As on Neo4j: RUN succeeds, the stopped statement's failure comes with its result.
    assert!(r[0].is_success(), "{r:?}");
    assert_eq!(r[1].code(), "Neo.ClientError.Transaction.Terminated", "{r:?}");
    assert!(r[2].is_success(), "{r:?}");
    assert!(
        took < Duration::from_secs(5),
        "RESET took {took:?} to stop the statement"
    );
    // The connection is usable again.
    assert_eq!(c.scalar("RETURN 1 AS one"), Value::Integer(1));
}

#[test]
fn a_disconnect_cancels_its_running_statement() {
    let server = start();
    let mut c = with_nodes(&server);
    c.send(&[run(LONG), pull(-1)]);
    thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    drop(c);
    while server.active_connections() > 0 {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "the statement ran on after its client left"
        );
        thread::sleep(Duration::from_millis(10));
    }
    // The server still serves.
    let mut other = Client::ready(server.local_addr());
    assert_eq!(other.scalar("MATCH (n:N) RETURN count(n) AS c"), Value::Integer(400));
}

#[test]
fn the_statement_timeout_stops_a_long_statement() {
    let server = start_with(ServerConfig {
        statement_timeout: Some(Duration::from_millis(200)),
        ..ServerConfig::default()
    });
    let mut c = with_nodes(&server);
    let t = Instant::now();
    let r = c.request(&[run(LONG), pull(-1)]);
    assert_eq!(r[1].code(), "Neo.ClientError.Transaction.TransactionTimedOut", "{r:?}");
    assert!(t.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_write_waits_a_bounded_time_for_the_writer_slot() {
    let server = start_with(ServerConfig {
        writer_wait: Some(Duration::from_millis(200)),
        ..ServerConfig::default()
    });
    let mut holder = Client::ready(server.local_addr());
    let r = holder.request(&[begin(), run("CREATE (:Held)"), pull(-1)]);
    assert!(r.iter().all(Resp::is_success), "{r:?}");
    let mut other = Client::ready(server.local_addr());
    let t = Instant::now();
    let r = other.request(&[run("CREATE (:Other)"), pull(-1)]);
    // Transient: drivers retry it (managed transactions).
    assert_eq!(
        r[0].code(),
        "Neo.TransientError.Transaction.LockAcquisitionTimeout",
        "{r:?}"
    );
    assert!(t.elapsed() >= Duration::from_millis(150) && t.elapsed() < Duration::from_secs(5));
    other.request(&[reset()]);
    let r = other.request(&[begin()]);
    assert_eq!(
        r[0].code(),
        "Neo.TransientError.Transaction.LockAcquisitionTimeout",
        "{r:?}"
    );
    other.request(&[reset()]);
    assert!(holder.request(&[commit()])[0].is_success());
    other.query("CREATE (:Other)", Vec::new());
    assert_eq!(other.scalar("MATCH (n) RETURN count(n) AS c"), Value::Integer(2));
}

#[test]
fn an_idle_transaction_is_rolled_back() {
    let server = start_with(ServerConfig {
        idle_transaction_timeout: Some(Duration::from_millis(300)),
        ..ServerConfig::default()
    });
    let mut idle = Client::ready(server.local_addr());
    let r = idle.request(&[begin(), run("CREATE (:Abandoned)"), pull(-1)]);
    assert!(r.iter().all(Resp::is_success), "{r:?}");
    let t = Instant::now();
    assert!(idle.closed_by_server());
    assert!(t.elapsed() < Duration::from_secs(5));
    // The writer slot is free again and nothing of the transaction was kept.
    let mut other = Client::ready(server.local_addr());
    other.query("CREATE (:After)", Vec::new());
    assert_eq!(
        other.scalar("MATCH (n:Abandoned) RETURN count(n) AS c"),
        Value::Integer(0)
    );
    // A busy (non-idle) auto-commit connection is not touched.
    thread::sleep(Duration::from_millis(500));
    assert_eq!(other.scalar("MATCH (n:After) RETURN count(n) AS c"), Value::Integer(1));
}

#[test]
fn a_read_transaction_reads_one_snapshot() {
    let server = start();
    let mut reader = Client::ready(server.local_addr());
    let mut writer = Client::ready(server.local_addr());
    let count = run("MATCH (n:S) RETURN count(n) AS c");
    let r = reader.request(&[begin_with(vec![("mode", "r".into())]), count.clone(), pull(-1)]);
    assert_eq!(common::records(&r), vec![vec![Value::Integer(0)]], "{r:?}");
    writer.query("CREATE (:S)", Vec::new());
    // Repeatable: the transaction still sees the graph as of its BEGIN.
    let r = reader.request(&[count.clone(), pull(-1)]);
    assert_eq!(common::records(&r), vec![vec![Value::Integer(0)]], "{r:?}");
    assert!(reader.request(&[commit()])[0].is_success());
    assert_eq!(reader.scalar("MATCH (n:S) RETURN count(n) AS c"), Value::Integer(1));
}
