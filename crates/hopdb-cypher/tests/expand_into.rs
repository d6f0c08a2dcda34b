//! The expand-into (a relationship step whose far end is already known: bound, named by
//! `_key`, or found by an index, answered by point lookups between the two ends) gives exactly
//! what listing the near end's relationships gives. On SNAP email-Eu-core with two directed
//! types, a multi-edge type, an undirected type and self-loops, from the store and from a
//! fresh projection; the reference is the same query in a write transaction, where the
//! matcher always lists.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/eu_core.rs"]
mod eu_core;

use eu_core::{key_value, numbered_eu_core, on_store_and_projection, rows};
use hopdb_cypher::{params, Params, QueryEngine, Value};

/// What each match binds, so a relationship found the other way (another element id, ends
/// swapped) shows.
const RETURNS: &str = "RETURN p[0] AS a, p[1] AS b, elementId(r) AS id, type(r) AS t, \
                       startNode(r)._key AS s, endNode(r)._key AS e";

/// Relationship steps: directed, both ways, several types, undirected (with and against its
/// listing), multi-edge (never expanded into).
const STEPS: &[&str] = &[
    "-[r:A]->",
    "<-[r:A]-",
    "-[r:A]-",
    "-[r:A|B]-",
    "-[r:B|A|B]->",
    "-[r:U]-",
    "-[r:U]->",
    "<-[r:U]-",
    "-[r:A|U]-",
    "-[r:M]-",
    "-[r:Missing]-",
];

/// The ways of naming both ends: by key, by an indexed property (a value several nodes share),
/// both bound by an earlier MATCH, and LightRAG's `get_edges_batch` shape.
fn queries() -> Vec<String> {
    let mut q = Vec::new();
    for step in STEPS {
        q.push(format!(
            "UNWIND $pairs AS p MATCH (:P {{_key: p[0]}}){step}(:P {{_key: p[1]}}) {RETURNS}"
        ));
        q.push(format!(
            "UNWIND $pairs AS p MATCH (:P {{num: p[2]}}){step}(:P {{num: p[3]}}) {RETURNS}"
        ));
        q.push(format!(
            "UNWIND $pairs AS p MATCH (x:P {{_key: p[0]}}), (y {{_key: p[1]}}) MATCH (x){step}(y) {RETURNS}"
        ));
    }
    q.push(
        "UNWIND $pairs AS p MATCH (s:P {num: p[2]})-[r:A|B]-(e:P {num: p[3]}) \
         RETURN p[0] AS a, p[1] AS b, collect(properties(r)) AS edges, count(*) AS n"
            .into(),
    );
    q
}

/// Pairs of existing edges (both ways round), self-loops, random pairs and a missing key, with
/// each end's `num`.
fn pairs(edges: &[(i64, i64)], n: i64) -> Value {
    let num = |i: i64| Value::Int(i % 331);
    let mut out = Vec::new();
    let mut add = |a: i64, b: i64| out.push(Value::List(vec![key_value(a), key_value(b), num(a), num(b)]));
    for (k, &(a, b)) in edges.iter().enumerate().step_by(97) {
        if k % 2 == 0 {
            add(a, b);
        } else {
            add(b, a);
        }
    }
    for &(a, b) in edges.iter().filter(|(a, b)| a == b).take(5) {
        add(a, b);
    }
    for i in 0..40 {
        add((i * 7919) % n, (i * 104_729 + 13) % n);
    }
    add(n + 5, 0);
    Value::List(out)
}

fn sorted(mut r: Vec<Vec<Value>>) -> Vec<String> {
    let mut out: Vec<String> = r.drain(..).map(|x| format!("{x:?}")).collect();
    out.sort();
    out
}

/// The query's rows in a write transaction (rolled back): the matcher lists there.
fn listed(e: &QueryEngine, q: &str, p: &Params) -> Vec<Vec<Value>> {
    let mut tx = e.begin().unwrap();
    let r = tx.query(q, p).unwrap().collect_rows().unwrap();
    tx.rollback();
    r
}

fn check(e: &QueryEngine, p: &Params, stage: &str) -> usize {
    let mut found = 0;
    for q in queries() {
        let got = rows(e, &q, p);
        let want = listed(e, &q, p);
        assert_eq!(sorted(got.clone()), sorted(want), "{stage}: {q}");
        found += got.len();
    }
    found
}

#[test]
fn expand_into_answers_as_listing_on_email_eu_core() {
    let Some((edges, n, db, e)) = numbered_eu_core() else {
        return;
    };
    let p = params! { "pairs" => pairs(&edges, n) };

    let store = on_store_and_projection(&db, |stage| check(&e, &p, stage));
    assert!(store > 1000, "the pairs should find relationships: {store} rows");
}

/// MERGE may name a far end by the near end's properties (`(x)-->(y {_key: x._key})`; MATCH
/// may not). Such an end is not named until `x` is bound: the matcher must not price or start
/// from it with `x` still null (it once did, and the query failed: "variable `x` not defined").
/// The reference is the same condition in a MATCH's WHERE.
#[test]
fn merge_with_a_far_end_reading_the_near_end_matches_what_exists() {
    let Some((edges, _, _, e)) = numbered_eu_core() else {
        return;
    };
    let count = |q: &str, p: &Params| match &rows(&e, q, p)[..] {
        [row] => row[0].clone(),
        other => panic!("{q}: {other:?}"),
    };
    let totals = "MATCH (a) WITH count(a) AS nodes MATCH ()-[r]->() WITH nodes, count(r) AS rels RETURN [nodes, rels]";
    let before = count(totals, &params! {});
    let loops: Vec<i64> = edges.iter().filter(|(a, b)| a == b).map(|&(a, _)| a).take(8).collect();
    assert!(!loops.is_empty(), "email-Eu-core has self-loops");
    let mut merged = 0;
    for &id in &loops {
        let p = params! { "num" => Value::Int(id % 331), "key" => key_value(id) };
        // The type eu_core::load gives the loop (A or B).
        let ty = if (2 * id) % 3 == 0 { "B" } else { "A" };
        for (merge, reference) in [
            (
                format!("MERGE (x:P {{num: $num}})-[r:{ty}]->(y {{_key: x._key}}) RETURN count(*)"),
                format!("MATCH (x:P {{num: $num}})-[r:{ty}]->(y) WHERE y._key = x._key RETURN count(*)"),
            ),
            (
                format!("MERGE (x:P {{_key: $key}})-[r:{ty}]-(y:P {{num: x.num}}) RETURN count(*)"),
                format!("MATCH (x:P {{_key: $key}})-[r:{ty}]-(y:P) WHERE y.num = x.num RETURN count(*)"),
            ),
        ] {
            let want = count(&reference, &p);
            if want == Value::Int(0) {
                continue; // MERGE would create: nothing to compare
            }
            assert_eq!(count(&merge, &p), want, "{merge} with {p:?}");
            merged += 1;
        }
    }
    assert!(merged > 0, "no self-loop of type A or B to merge on");
    assert_eq!(
        count(totals, &params! {}),
        before,
        "a MERGE of existing patterns created something"
    );
}
