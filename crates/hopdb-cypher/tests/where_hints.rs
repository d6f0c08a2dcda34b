//! A WHERE that names a node by its key, id, element id or an indexed property (`n.num = $v`,
//! `n._key IN $keys`, `elementId(n) IN $ids`, both ends of a relationship step) lets the
//! matcher start from (or expand into) those nodes instead of scanning; the answers must be
//! exactly the scan's. The reference is the same query with each predicate made opaque to the
//! matcher (`(p) = true`, which holds exactly when `p` does), on SNAP email-Eu-core with an
//! index on `num`, from the store and from a fresh projection, in read-only queries and in a
//! write transaction.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/eu_core.rs"]
mod eu_core;

use eu_core::{key_value, numbered_eu_core, on_store_and_projection, rows};
use hopdb_cypher::{params, Params, QueryEngine, Value};

/// (query, the same with its hinted predicates opaque).
fn queries() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "MATCH (n:P) WHERE n.num = $v RETURN n._key AS k",
            "MATCH (n:P) WHERE (n.num = $v) = true RETURN n._key AS k",
        ),
        (
            "MATCH (n:P) WHERE $v = n.num AND n._key <> 0 RETURN n._key AS k",
            "MATCH (n:P) WHERE ($v = n.num) = true AND n._key <> 0 RETURN n._key AS k",
        ),
        (
            "MATCH (n:P) WHERE n.num IN $vs RETURN n._key AS k",
            "MATCH (n:P) WHERE (n.num IN $vs) = true RETURN n._key AS k",
        ),
        (
            "MATCH (n:P) WHERE n.num IN $none RETURN n._key AS k",
            "MATCH (n:P) WHERE (n.num IN $none) = true RETURN n._key AS k",
        ),
        (
            "MATCH (n) WHERE n._key IN $keys RETURN n._key AS k",
            "MATCH (n) WHERE (n._key IN $keys) = true RETURN n._key AS k",
        ),
        (
            "MATCH (n:P) WHERE n._key = $key RETURN n._key AS k",
            "MATCH (n:P) WHERE (n._key = $key) = true RETURN n._key AS k",
        ),
        (
            "MATCH (n) WHERE elementId(n) IN $eids RETURN n._key AS k",
            "MATCH (n) WHERE (elementId(n) IN $eids) = true RETURN n._key AS k",
        ),
        (
            "MATCH (n) WHERE id(n) = $id RETURN n._key AS k",
            "MATCH (n) WHERE (id(n) = $id) = true RETURN n._key AS k",
        ),
        (
            "MATCH (a:P)-[r:A]->(b:P) WHERE a.num = $v AND b.num IN $vs RETURN a._key, b._key, elementId(r)",
            "MATCH (a:P)-[r:A]->(b:P) WHERE (a.num = $v) = true AND (b.num IN $vs) = true \
             RETURN a._key, b._key, elementId(r)",
        ),
        (
            "UNWIND $pairs AS p MATCH (s:P)-[r:A|B|M]-(e:P) WHERE s.num = p[2] AND e.num = p[3] \
             RETURN p[0], s._key, e._key, type(r), elementId(r)",
            "UNWIND $pairs AS p MATCH (s:P)-[r:A|B|M]-(e:P) WHERE (s.num = p[2]) = true AND (e.num = p[3]) = true \
             RETURN p[0], s._key, e._key, type(r), elementId(r)",
        ),
        // An undirected relationship has an element id per end (a known gap): only its ends.
        (
            "UNWIND $pairs AS p MATCH (s:P)-[r]-(e:P) WHERE s.num = p[2] AND e.num = p[3] \
             RETURN p[0], s._key, e._key, type(r)",
            "UNWIND $pairs AS p MATCH (s:P)-[r]-(e:P) WHERE (s.num = p[2]) = true AND (e.num = p[3]) = true \
             RETURN p[0], s._key, e._key, type(r)",
        ),
        (
            "MATCH (a:P)-[r:A|B]->(b) WHERE a.num = $v AND b._key = a._key RETURN a._key, type(r)",
            "MATCH (a:P)-[r:A|B]->(b) WHERE (a.num = $v) = true AND (b._key = a._key) = true RETURN a._key, type(r)",
        ),
        (
            "UNWIND $vs AS v OPTIONAL MATCH (n:P) WHERE n.num = v RETURN v, n._key",
            "UNWIND $vs AS v OPTIONAL MATCH (n:P) WHERE (n.num = v) = true RETURN v, n._key",
        ),
        (
            "MATCH (n:P) WHERE n.num = $v OR n.num = 7 RETURN n._key AS k",
            "MATCH (n:P) WHERE (n.num = $v OR n.num = 7) = true RETURN n._key AS k",
        ),
        (
            "MATCH (n:P) WHERE n.num = $v WITH n MATCH (n)-[:A]->(m:P) WHERE m.num IN $vs RETURN n._key, m._key",
            "MATCH (n:P) WHERE (n.num = $v) = true WITH n MATCH (n)-[:A]->(m:P) WHERE (m.num IN $vs) = true \
             RETURN n._key, m._key",
        ),
    ]
}

fn sorted(r: Vec<Vec<Value>>) -> Vec<String> {
    let mut out: Vec<String> = r.iter().map(|x| format!("{x:?}")).collect();
    out.sort();
    out
}

/// Fails with the rows only one side has (a few of each) when `got` is not `want`.
fn same(got: Vec<String>, want: &[String], what: &str) {
    if got != want {
        let extra: Vec<_> = got.iter().filter(|r| !want.contains(r)).take(5).collect();
        let missing: Vec<_> = want.iter().filter(|r| !got.contains(r)).take(5).collect();
        panic!(
            "{what}: {} rows, want {}; extra {extra:?}, missing {missing:?}",
            got.len(),
            want.len()
        );
    }
}

/// The rows of `q` in a write transaction, rolled back.
fn in_write(e: &QueryEngine, q: &str, p: &Params) -> Vec<Vec<Value>> {
    let mut tx = e.begin().unwrap();
    let r = tx.query(q, p).unwrap().collect_rows().unwrap();
    tx.rollback();
    r
}

fn check(e: &QueryEngine, p: &Params, stage: &str) -> usize {
    let mut found = 0;
    for (q, opaque) in queries() {
        let want = sorted(rows(e, opaque, p));
        let got = rows(e, q, p);
        found += got.len();
        same(sorted(got), &want, &format!("{stage}: {q}"));
        same(
            sorted(in_write(e, q, p)),
            &want,
            &format!("{stage}, in a write transaction: {q}"),
        );
    }
    found
}

#[test]
fn where_predicates_that_name_nodes_answer_as_the_scan() {
    let Some((edges, n, db, e)) = numbered_eu_core() else {
        return;
    };
    let eids: Vec<Value> = rows(&e, "MATCH (n:P) WHERE n.num IN [3, 5] RETURN elementId(n)", &params! {})
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert!(eids.len() >= 4, "{eids:?}");
    let id = rows(&e, "MATCH (n {_key: 'n7'}) RETURN id(n)", &params! {})[0][0].clone();
    let mut eid_list = eids.clone();
    eid_list.extend(["r5", "abc", "999999999", "-1"].map(Value::from));
    eid_list.push(eids[0].clone());
    eid_list.push(Value::Null);
    let pairs: Vec<Value> = edges
        .iter()
        .step_by(401)
        .map(|&(a, b)| {
            Value::List(vec![
                key_value(a),
                key_value(b),
                Value::Int(a % 331),
                Value::Int(b % 331),
            ])
        })
        .collect();
    let p = params! {
        "v" => Value::Int(5),
        // Repeats, a null, a string, a float equal to an integer value, and a missing value.
        "vs" => Value::List(vec![
            Value::Int(3), Value::Int(3), Value::Null, Value::from("x"), Value::Float(4.0), Value::Int(9), Value::Int(100_000),
        ]),
        "none" => Value::Null,
        "keys" => Value::List(vec![
            key_value(2), key_value(2), key_value(7), key_value(n + 10), Value::Float(4.0), Value::Null, Value::from("zz"),
        ]),
        "key" => key_value(11),
        "eids" => Value::List(eid_list),
        "id" => id,
        "pairs" => Value::List(pairs),
    };
    let store = on_store_and_projection(&db, |stage| check(&e, &p, stage));
    assert!(store > 500, "the queries should find rows: {store}");
}

/// `x IN` something that is not a list is the WHERE's type error, hint or not.
#[test]
fn a_hinted_in_over_a_non_list_fails_as_the_scan_does() {
    let Some((_, _, _, e)) = numbered_eu_core() else { return };
    for q in [
        "MATCH (n:P) WHERE n.num IN 5 RETURN n",
        "MATCH (n:P) WHERE (n.num IN 5) = true RETURN n",
        "MATCH (n) WHERE n._key IN 'n7' RETURN n",
    ] {
        let err = e.query(q, &params! {}).and_then(|r| r.collect_rows());
        assert!(err.is_err(), "{q} should fail: {err:?}");
    }
}
