//! The worker pool (decision 0023): many connections on few workers, in order per
//! connection; a long statement or a wait for the writer slot never stalls the others; a
//! transaction moves between workers; big replies go out whole through a full socket.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use common::*;
use hopdb_bolt::Value;
use hopdb_server::ServerConfig;

fn workers(n: usize) -> ServerConfig {
    ServerConfig {
        workers: n,
        ..ServerConfig::default()
    }
}

/// A client inside an explicit transaction that has run `write` (so it holds the writer slot).
fn open_write_tx(addr: std::net::SocketAddr, write: &str) -> Client {
    let mut c = Client::ready(addr);
    let r = c.request(&[begin(), run(write), pull(-1)]);
    assert!(r.iter().all(Resp::is_success), "{r:?}");
    c
}

/// 64 connections, each its own sequence of writes and reads, on two workers: every
/// connection sees its own answers, in order, and the store ends with every write.
#[test]
fn many_connections_share_two_workers() {
    let server = start_with(workers(2));
    let addr = server.local_addr();
    let clients = 64;
    let rounds = 25i64;
    let barrier = Arc::new(Barrier::new(clients));
    let handles: Vec<_> = (0..clients)
        .map(|c| {
            let barrier = barrier.clone();
            thread::spawn(move || {
                let mut client = Client::ready(addr);
                barrier.wait();
                for i in 0..rounds {
                    let (_, rows, _) = client.query(
                        "CREATE (n:P {c: $c, i: $i}) RETURN n.c * 1000 + n.i AS v",
                        vec![("c", Value::Integer(c as i64)), ("i", Value::Integer(i))],
                    );
                    assert_eq!(rows, vec![vec![Value::Integer(c as i64 * 1000 + i)]]);
                    let (_, rows, _) = client.query(
                        "MATCH (n:P {c: $c}) RETURN count(n) AS k",
                        vec![("c", Value::Integer(c as i64))],
                    );
                    assert_eq!(rows, vec![vec![Value::Integer(i + 1)]], "client {c} round {i}");
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let mut client = Client::ready(addr);
    assert_eq!(
        client.scalar("MATCH (n:P) RETURN count(n)"),
        Value::Integer(clients as i64 * rounds)
    );
    assert!(server.shutdown());
}

/// With one worker, a statement that runs for a long time (9 million expression
/// evaluations) does not hold up short ones on other connections, new connections included:
/// the monitor adds a worker, and the short ones all finish before the long one.
#[test]
fn a_long_statement_does_not_stall_the_others() {
    const LONG: &str = "UNWIND range(1, 3000) AS a RETURN sum(size([b IN range(1, 3000) WHERE (a * b) % 7 = 0])) AS n";
    let server = start_with(workers(1));
    let addr = server.local_addr();
    let long = thread::spawn(move || {
        let mut c = Client::ready(addr);
        let v = c.scalar(LONG);
        (v, Instant::now())
    });
    // Let the long statement take the only base worker.
    thread::sleep(Duration::from_millis(100));
    let mut short = Client::ready(addr);
    for i in 0..20i64 {
        let (_, rows, _) = short.query("RETURN $i AS i", vec![("i", Value::Integer(i))]);
        assert_eq!(rows, vec![vec![Value::Integer(i)]]);
    }
    let short_done = Instant::now();
    let (v, long_done) = long.join().unwrap();
    let want = (1..=3000i64)
        .map(|a| (1..=3000i64).filter(|b| (a * b) % 7 == 0).count() as i64)
        .sum::<i64>();
    assert_eq!(v, Value::Integer(want));
    assert!(short_done < long_done, "the short statements waited for the long one");
    assert!(server.shutdown());
}

/// With one worker: A holds the writer slot in an open transaction, B's write waits for it
/// (holding the worker), and A's COMMIT is still served: B then succeeds after A.
#[test]
fn a_writer_waiting_for_the_slot_does_not_block_the_holder() {
    let server = start_with(workers(1));
    let addr = server.local_addr();
    let mut a = open_write_tx(addr, "CREATE (:T {who: 'a'})");
    let b = thread::spawn(move || {
        let mut b = Client::ready(addr);
        let (_, rows, _) = b.query(
            "CREATE (:T {who: 'b'}) WITH 1 AS one MATCH (t:T) RETURN count(t)",
            vec![],
        );
        rows
    });
    // B is now waiting for the writer slot on the only base worker.
    thread::sleep(Duration::from_millis(200));
    let r = a.request(&[commit()]);
    assert!(r[0].is_success(), "{r:?}");
    // B ran after A committed, so it saw A's node and its own.
    assert_eq!(b.join().unwrap(), vec![vec![Value::Integer(2)]]);
    assert!(server.shutdown());
}

/// An explicit transaction spans many requests, each possibly on another worker, and its
/// statements see each other's writes; a rollback undoes them all.
#[test]
fn a_transaction_moves_between_workers() {
    let server = start_with(workers(3));
    let addr = server.local_addr();
    let mut c = Client::ready(addr);
    assert!(c.request(&[begin()])[0].is_success());
    for i in 0..50i64 {
        let r = c.request(&[
            run_params("CREATE (:X {i: $i})", vec![("i", Value::Integer(i))]),
            pull(-1),
        ]);
        assert!(r.iter().all(Resp::is_success), "{r:?}");
    }
    let r = c.request(&[run("MATCH (x:X) RETURN count(x)"), pull(-1)]);
    assert_eq!(records(&r), vec![vec![Value::Integer(50)]]);
    assert!(c.request(&[rollback()])[0].is_success());
    assert_eq!(c.scalar("MATCH (x:X) RETURN count(x)"), Value::Integer(0));
    assert!(server.shutdown());
}

/// A reply far larger than the socket's buffers (about 20 MB) arrives whole while the client
/// reads slowly at first, and the connection then serves the next statement.
#[test]
fn a_large_reply_goes_out_through_a_full_socket() {
    let server = start_with(workers(1));
    let addr = server.local_addr();
    let mut c = Client::ready(addr);
    c.send(&[
        run("UNWIND range(1, 200000) AS i RETURN i, 'padding padding padding padding padding padding padding padding' AS s"),
        pull(-1),
    ]);
    // Let the server fill the socket before anything is read.
    thread::sleep(Duration::from_millis(300));
    // Meanwhile another connection is served.
    let mut other = Client::ready(addr);
    assert_eq!(other.scalar("RETURN 7"), Value::Integer(7));
    let mut rows = 0i64;
    loop {
        match c.recv().expect("the server closed the connection") {
            Resp::Record(r) => {
                rows += 1;
                assert_eq!(r[0], Value::Integer(rows));
            }
            Resp::Success(m) if hopdb_bolt::value::map_get(&m, "fields").is_some() => {}
            Resp::Success(_) => break,
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(rows, 200_000);
    assert_eq!(c.scalar("RETURN 1"), Value::Integer(1));
    assert!(server.shutdown());
}

/// Shutdown with connections idle in the pool, one inside a transaction: everything is
/// closed, the transaction rolled back, and the handle reports a clean stop.
#[test]
fn shutdown_closes_pool_connections() {
    let engine_db = hopdb_database::Database::in_memory();
    let server = hopdb_server::serve(
        hopdb_cypher::QueryEngine::new(engine_db.clone()),
        ServerConfig {
            bolt_listen: "127.0.0.1:0".into(),
            ..workers(2)
        },
    )
    .unwrap();
    let addr = server.local_addr();
    let mut idle: Vec<Client> = (0..10).map(|_| Client::ready(addr)).collect();
    let mut tx = open_write_tx(addr, "CREATE (:Gone)");
    assert!(server.shutdown(), "the stop was not clean");
    for c in &mut idle {
        assert!(c.closed_by_server());
    }
    assert!(tx.closed_by_server());
    let after = hopdb_cypher::QueryEngine::new(engine_db);
    let rows = after
        .query("MATCH (g:Gone) RETURN count(g)", &Default::default())
        .unwrap();
    assert_eq!(rows.collect_rows().unwrap(), vec![vec![hopdb_cypher::Value::Int(0)]]);
}
