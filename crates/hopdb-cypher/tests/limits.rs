#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Runaway and hostile queries: timeouts, cancellation, memory bounds, deep nesting, and
//! EXPLAIN / PROFILE output.

use hopdb_cypher::{params, ErrorClass, QueryEngine, QueryOptions};
use hopdb_database::{Control, Database, GraphRead};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn engine_with_nodes(n: usize) -> QueryEngine {
    let e = QueryEngine::new(Database::in_memory());
    e.query(
        "UNWIND range(1, $n) AS i CREATE (:N {i: i})",
        &params! {"n" => n as i64},
    )
    .unwrap();
    e
}

#[test]
fn a_timeout_stops_a_runaway_query() {
    let e = engine_with_nodes(300);
    let opts = QueryOptions {
        control: Control::default().with_timeout(Duration::from_millis(100)),
        ..Default::default()
    };
    let t = Instant::now();
    // A 300^3 cartesian product: 27 million rows.
    let err = e
        .query_with("MATCH (a:N), (b:N), (c:N) RETURN count(*)", &params! {}, &opts)
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Timeout, "{err}");
    assert!(t.elapsed() < Duration::from_secs(20), "stopped after {:?}", t.elapsed());
}

#[test]
fn a_cancel_flag_stops_a_query_and_a_stopped_write_applies_nothing() {
    let e = engine_with_nodes(50);
    let flag = Arc::new(AtomicBool::new(true));
    let opts = QueryOptions {
        control: Control::default().with_cancel(flag),
        ..Default::default()
    };
    let err = e
        .query_with("MATCH (a:N) CREATE (:M {i: a.i})", &params! {}, &opts)
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Timeout, "{err}");
    let left = e
        .query("MATCH (m:M) RETURN count(m)", &params! {})
        .unwrap()
        .collect_rows()
        .unwrap();
    assert_eq!(left, vec![vec![hopdb_cypher::Value::Int(0)]]);
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let e = QueryEngine::new(Database::in_memory());
    // Run in a thread with the default 2 MiB stack, as servers do.
    let h = std::thread::spawn(move || {
        for depth in [50usize, 200, 5_000, 100_000] {
            let q = format!("RETURN {}1{}", "[".repeat(depth), "]".repeat(depth));
            match e.query(&q, &params! {}) {
                Ok(r) => assert!(depth <= 200, "depth {depth} accepted: {:?}", r.columns()),
                Err(err) => assert_eq!(err.class, ErrorClass::SyntaxError, "depth {depth}: {err}"),
            }
            let q = format!("RETURN {}1", "-".repeat(depth));
            let _ = e.query(&q, &params! {});
        }
    });
    h.join().unwrap();
}

#[test]
fn explain_plans_without_running_and_profile_counts_rows() {
    let e = engine_with_nodes(10);
    let r = e.query("EXPLAIN MATCH (n:N) CREATE (:X)", &params! {}).unwrap();
    let plan = r.plan().unwrap().render();
    assert!(plan.contains("Match") && plan.contains("Create"), "{plan}");
    assert_eq!(
        e.database().graph().label_count("X").unwrap(),
        0,
        "EXPLAIN must not run the query"
    );
    let r = e
        .query("PROFILE MATCH (n:N) WHERE n.i > 3 RETURN n.i", &params! {})
        .unwrap();
    let plan = r.plan().unwrap().clone();
    let rows = r.collect_rows().unwrap();
    assert_eq!(rows.len(), 7);
    assert_eq!(plan.operator, "ProduceResults");
    assert_eq!(plan.rows, Some(7));
    assert_eq!(plan.children[0].operator, "Match");
    assert_eq!(plan.children[0].rows, Some(7));
    assert!(plan.time_ns.is_some());
}

#[test]
fn a_memory_bound_stops_a_query_that_would_hold_too_many_rows() {
    let e = engine_with_nodes(200);
    let opts = QueryOptions {
        control: Control::default().with_max_memory(1 << 20),
        ..Default::default()
    };
    let err = e
        .query_with("MATCH (a:N), (b:N) RETURN a.i, b.i", &params! {}, &opts)
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::MemoryLimit, "{err}");
    // The same query within a larger bound runs.
    let opts = QueryOptions {
        control: Control::default().with_max_memory(1 << 30),
        ..Default::default()
    };
    assert_eq!(
        e.query_with("MATCH (a:N), (b:N) RETURN a.i, b.i", &params! {}, &opts)
            .unwrap()
            .collect_rows()
            .unwrap()
            .len(),
        40_000
    );
}

#[test]
fn a_memory_bound_stops_a_walked_listing_of_a_hub() {
    // One step from a key, projecting the end's key: the walk lists a whole node's
    // relationships at once (not row by row), and the bound still holds.
    let e = QueryEngine::new(Database::in_memory());
    e.query(
        "CREATE (h {_key: 'hub'}) WITH h UNWIND range(1, 30000) AS i CREATE (h)-[:T]->({_key: 'n' + toString(i)})",
        &params! {},
    )
    .unwrap();
    let q = "MATCH ({_key: 'hub'})-[:T]->(x) RETURN x._key";
    let plan = e.query(&format!("PROFILE {q}"), &params! {}).unwrap();
    let rendered = plan.plan().unwrap().render();
    assert!(rendered.contains("Walk"), "{rendered}");
    let opts = QueryOptions {
        control: Control::default().with_max_memory(1 << 20),
        ..Default::default()
    };
    let err = e.query_with(q, &params! {}, &opts).unwrap_err();
    assert_eq!(err.class, ErrorClass::MemoryLimit, "{err}");
    let opts = QueryOptions {
        control: Control::default().with_max_memory(1 << 30),
        ..Default::default()
    };
    let rows = e.query_with(q, &params! {}, &opts).unwrap().collect_rows().unwrap();
    assert_eq!(rows.len(), 30_000);
}
