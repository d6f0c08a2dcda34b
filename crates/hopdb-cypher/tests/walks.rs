//! The read-only fast paths (relationships listed from a fresh projection; one- and two-step
//! chains answered whole by the analytics layer's walks) give exactly what the row-by-row
//! matcher gives, on a real graph (SNAP email-Eu-core) with mixed integer and string keys,
//! self-loops, two directed types, a multi-edge type and an undirected type; before and after
//! the projection is built, and after a write leaves it behind.
//!
//! Each query is run in its planned form and in a reference form the fast paths do not take
//! (an extra `AND true` / `WHERE true`), and the answers compared.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/eu_core.rs"]
mod eu_core;

use eu_core::{eu_core_edges, key, key_value, load, rows};
use hopdb_cypher::{params, Params, QueryEngine, Value};
use hopdb_database::{Control, Database, ProjectionSpec, WriteMode};

/// A new in-memory store holding what `create` makes, with a projection of it when `project`.
fn small_graph(create: &str, project: bool) -> QueryEngine {
    let db = Database::in_memory();
    let e = QueryEngine::new(db.clone());
    rows(&e, create, &params! {});
    if project {
        db.analytics()
            .projection(&ProjectionSpec::all(), &Control::default())
            .unwrap();
    }
    e
}

fn sorted(mut r: Vec<Vec<Value>>) -> Vec<String> {
    let mut out: Vec<String> = r.drain(..).map(|x| format!("{x:?}")).collect();
    out.sort();
    out
}

/// (planned form, reference form, how to compare).
enum Cmp {
    /// Same rows in the same order (ORDER BY on a total order).
    Exact,
    /// Same multiset of rows.
    Bag,
    /// A LIMIT without ORDER BY: the planned rows are distinct, `n` of the reference's (or
    /// all of them when it has fewer).
    SubsetOf(usize),
    /// A SKIP without ORDER BY: the planned rows are distinct, all but `n` of the reference's.
    Skipped(usize),
}

const QUERIES: &[(&str, &str, Cmp)] = &[
    // GraphRAG Q6's shape: co-members by count, top 10 (ties by key value, mixed key types).
    (
        "MATCH (c {_key: $k})-[:A]->()<-[:A]-(o) WHERE o <> c RETURN o._key AS id, count(*) AS n ORDER BY n DESC, id LIMIT 10",
        "MATCH (c {_key: $k})-[:A]->()<-[:A]-(o) WHERE o <> c AND true RETURN o._key AS id, count(*) AS n ORDER BY n DESC, id LIMIT 10",
        Cmp::Exact,
    ),
    // Q4's shape, with the peer's `_key` exclusion.
    (
        "MATCH (c {_key: $k})-[:A|B]->()<-[:A|B]-(o) WHERE o._key <> $k RETURN DISTINCT o._key",
        "MATCH (c {_key: $k})-[:A|B]->()<-[:A|B]-(o) WHERE o._key <> $k AND true RETURN DISTINCT o._key",
        Cmp::Bag,
    ),
    (
        "MATCH ({_key: $k})-[:A]->()<-[:B]-(o) RETURN DISTINCT o._key LIMIT 7",
        "MATCH ({_key: $k})-[:A]->()<-[:B]-(o) WHERE true RETURN DISTINCT o._key",
        Cmp::SubsetOf(7),
    ),
    // The multi-edge type: parallel edges are separate matches.
    (
        "MATCH (c {_key: $k})-[:M]->()-[:M]->(o) WHERE o <> c RETURN o AS x, count(*) AS n ORDER BY n DESC, x LIMIT 5",
        "MATCH (c {_key: $k})-[:M]->()-[:M]->(o) WHERE o <> c AND true RETURN o AS x, count(*) AS n ORDER BY n DESC, x LIMIT 5",
        Cmp::Exact,
    ),
    (
        "MATCH ({_key: $k})<-[:M]-(o) RETURN o._key, count(*) AS n ORDER BY n DESC, o._key",
        "MATCH ({_key: $k})<-[:M]-(o) WHERE true RETURN o._key, count(*) AS n ORDER BY n DESC, o._key",
        Cmp::Exact,
    ),
    (
        "MATCH ({_key: $k})-[:A]->()-[:B]->(o) RETURN count(*) AS walks, count(*) + 1 AS more",
        "MATCH ({_key: $k})-[:A]->()-[:B]->(o) WHERE true RETURN count(*) AS walks, count(*) + 1 AS more",
        Cmp::Exact,
    ),
    // Untyped steps over a catalog with an undirected type (not walked: rows as before).
    (
        "MATCH (c {_key: $k})-->()<--(o) WHERE o <> c RETURN DISTINCT o._key",
        "MATCH (c {_key: $k})-->()<--(o) WHERE o <> c AND true RETURN DISTINCT o._key",
        Cmp::Bag,
    ),
    // Q7's shape: seeds unwound, a DISTINCT hop, then a batched hop from the bound nodes.
    (
        "UNWIND $ks AS i MATCH ({_key: i})<-[:A]-(c) WITH DISTINCT c MATCH (c)-[:B]->(f) RETURN DISTINCT f._key",
        "UNWIND $ks AS i MATCH ({_key: i})<-[:A]-(c) WHERE true WITH DISTINCT c MATCH (c)-[:B]->(f) WHERE true RETURN DISTINCT f._key",
        Cmp::Bag,
    ),
    // Chained into one walk (see `chained_shapes_walk_once`): back along the same type (the
    // seeds are ends too), a limit, a bound start, a sort, a two-step second clause, and a
    // projection of more than the end node.
    (
        "UNWIND $ks AS i MATCH ({_key: i})<-[:A]-(c) WITH DISTINCT c MATCH (c)-[:A]->(f) RETURN DISTINCT f._key LIMIT 9",
        "UNWIND $ks AS i MATCH ({_key: i})<-[:A]-(c) WHERE true WITH DISTINCT c MATCH (c)-[:A]->(f) WHERE true RETURN DISTINCT f._key",
        Cmp::SubsetOf(9),
    ),
    (
        "MATCH (s {_key: $k}) MATCH (s)-[:M]->(c) WITH DISTINCT c MATCH (c)-[:M]->(f) RETURN DISTINCT f AS x ORDER BY x LIMIT 6",
        "MATCH (s {_key: $k}) MATCH (s)-[:M]->(c) WHERE true WITH DISTINCT c MATCH (c)-[:M]->(f) WHERE true RETURN DISTINCT f AS x ORDER BY x LIMIT 6",
        Cmp::Exact,
    ),
    (
        "UNWIND $ks AS i MATCH ({_key: i})-[:B]->(c) WITH DISTINCT c MATCH (c)-[:A]->()<-[:B]-(f) RETURN DISTINCT f._key, 1 AS one",
        "UNWIND $ks AS i MATCH ({_key: i})-[:B]->(c) WHERE true WITH DISTINCT c MATCH (c)-[:A]->()<-[:B]-(f) WHERE true RETURN DISTINCT f._key, 1 AS one",
        Cmp::Bag,
    ),
    // Q8's shape: the distinct ends of a variable-length step, walked as one breadth-first
    // search and projected by the walk (a limit, mixed key types, the undirected and
    // multi-edge types, a minimum above one, the node itself and its id).
    (
        "MATCH ({_key: $k})-[*1..3]-(n) RETURN DISTINCT n._key LIMIT 50",
        "MATCH ({_key: $k})-[*1..3]-(n) WHERE true RETURN DISTINCT n._key",
        Cmp::SubsetOf(50),
    ),
    (
        "MATCH ({_key: $k})-[:A*2..3]->(n) RETURN DISTINCT n, id(n) AS i",
        "MATCH ({_key: $k})-[:A*2..3]->(n) WHERE true RETURN DISTINCT n, id(n) AS i",
        Cmp::Bag,
    ),
    (
        "MATCH ({_key: $k})-[:U|M*0..2]-(n) RETURN DISTINCT n._key SKIP 2",
        "MATCH ({_key: $k})-[:U|M*0..2]-(n) WHERE true RETURN DISTINCT n._key",
        Cmp::Skipped(2),
    ),
    // Sorted: the walk's rows go through the projection, which may skip its DISTINCT.
    (
        "MATCH ({_key: $k})<-[:B*1..2]-(n) RETURN DISTINCT n._key AS x ORDER BY x LIMIT 20",
        "MATCH ({_key: $k})<-[:B*1..2]-(n) WHERE true RETURN DISTINCT n._key AS x ORDER BY x LIMIT 20",
        Cmp::Exact,
    ),
    // Not one value per node: the DISTINCT must still remove repeats.
    (
        "MATCH ({_key: $k})-[:A*1..2]->(n) RETURN DISTINCT labels(n) AS l, size(keys(n)) AS p",
        "MATCH ({_key: $k})-[:A*1..2]->(n) WHERE true RETURN DISTINCT labels(n) AS l, size(keys(n)) AS p",
        Cmp::Bag,
    ),
    // Q11's shape: each hop of the shortest path is a relationship joining its two nodes,
    // named from the projection or the store, that exists with its type.
    (
        "MATCH p = shortestPath(({_key: $k})-[:A|B*..6]-({_key: $ks[3]})) RETURN length(p), \
         all(i IN range(0, length(p) - 1) WHERE \
           {s: startNode(relationships(p)[i]), e: endNode(relationships(p)[i])} IN \
           [{s: nodes(p)[i], e: nodes(p)[i + 1]}, {s: nodes(p)[i + 1], e: nodes(p)[i]}]) AS joined, \
         all(r IN relationships(p) WHERE type(r) IN ['A', 'B'] AND \
           EXISTS { MATCH ({_key: startNode(r)._key})-[x]->({_key: endNode(r)._key}) WHERE type(x) = type(r) }) AS stored",
        "MATCH p = shortestPath(({_key: $k})-[:A|B*..6]-({_key: $ks[3]})) WHERE true RETURN length(p), true AS joined, true AS stored",
        Cmp::Exact,
    ),
    // Q11's shape answered from the search's node list (see `plan_hops`): untyped and both
    // ways, typed and directed, one node at both ends (zero hops allowed or not), and a row
    // per unwound end (a missing key among them).
    (
        "MATCH p = shortestPath(({_key: $k})-[*..6]-({_key: $ks[3]})) RETURN length(p) AS hops",
        "MATCH p = shortestPath(({_key: $k})-[*..6]-({_key: $ks[3]})) WHERE true RETURN length(p) AS hops",
        Cmp::Exact,
    ),
    (
        "MATCH p = shortestPath((a {_key: $k})-[:A|M*..5]->(b {_key: $ks[2]})) RETURN length(p), LENGTH(p) AS again",
        "MATCH p = shortestPath((a {_key: $k})-[:A|M*..5]->(b {_key: $ks[2]})) WHERE true RETURN length(p), LENGTH(p) AS again",
        Cmp::Exact,
    ),
    (
        "MATCH p = shortestPath(({_key: $k})-[:B*0..3]-({_key: $k})) RETURN length(p)",
        "MATCH p = shortestPath(({_key: $k})-[:B*0..3]-({_key: $k})) WHERE true RETURN length(p)",
        Cmp::Exact,
    ),
    (
        "MATCH p = shortestPath(({_key: $k})-[:B*..3]-({_key: $k})) RETURN length(p)",
        "MATCH p = shortestPath(({_key: $k})-[:B*..3]-({_key: $k})) WHERE true RETURN length(p)",
        Cmp::Exact,
    ),
    (
        "UNWIND $ks + [$k + 1000000] AS i MATCH p = shortestPath(({_key: $k})<-[*..4]-({_key: i})) RETURN length(p) AS h",
        "UNWIND $ks + [$k + 1000000] AS i MATCH p = shortestPath(({_key: $k})<-[*..4]-({_key: i})) WHERE true RETURN length(p) AS h",
        Cmp::Bag,
    ),
    // Q6's shape ranked by the walk itself: items in the other order, a SKIP.
    (
        "MATCH (c {_key: $k})-[:A|B]->()<-[:A]-(o) WHERE o._key <> $k RETURN count(*) AS n, o._key AS id ORDER BY n DESC, id SKIP 2 LIMIT 3",
        "MATCH (c {_key: $k})-[:A|B]->()<-[:A]-(o) WHERE o._key <> $k AND true RETURN count(*) AS n, o._key AS id ORDER BY n DESC, id SKIP 2 LIMIT 3",
        Cmp::Exact,
    ),
    // Rows per relationship (Q2/Q3/Q5's shape), listed by the walk: a simple type, the
    // multi-edge type (parallel edges are separate rows), a LIMIT, a SKIP, the self-loop
    // exclusion, the node itself and its id, seeds unwound (repeats kept).
    (
        "MATCH ({_key: $k})-[:A]->(x) RETURN x._key",
        "MATCH ({_key: $k})-[:A]->(x) WHERE true RETURN x._key",
        Cmp::Bag,
    ),
    (
        "MATCH ({_key: $k})<-[:M]-(x) RETURN x._key AS k",
        "MATCH ({_key: $k})<-[:M]-(x) WHERE true RETURN x._key AS k",
        Cmp::Bag,
    ),
    (
        "MATCH ({_key: $k})<-[:A]-(x) RETURN x._key LIMIT 4",
        "MATCH ({_key: $k})<-[:A]-(x) WHERE true RETURN x._key",
        Cmp::SubsetOf(4),
    ),
    (
        "MATCH ({_key: $k})-[:A]->(x) RETURN x, id(x) AS i SKIP 1",
        "MATCH ({_key: $k})-[:A]->(x) WHERE true RETURN x, id(x) AS i",
        Cmp::Skipped(1),
    ),
    (
        "MATCH (c {_key: $k})-[:A|M]->(x) WHERE x <> c RETURN x._key LIMIT 3",
        "MATCH (c {_key: $k})-[:A|M]->(x) WHERE x <> c AND true RETURN x._key LIMIT 3",
        Cmp::Bag,
    ),
    (
        "UNWIND $ks + $ks AS i MATCH ({_key: i})-[:B]->(x) RETURN x._key",
        "UNWIND $ks + $ks AS i MATCH ({_key: i})-[:B]->(x) WHERE true RETURN x._key",
        Cmp::Bag,
    ),
    // Undirected patterns with self-loops (row by row).
    (
        "MATCH (s {_key: $k})-[r]-(e) RETURN type(r), startNode(r)._key, endNode(r)._key, e._key",
        "MATCH (s {_key: $k})-[r]-(e) WHERE true RETURN type(r), startNode(r)._key, endNode(r)._key, e._key",
        Cmp::Bag,
    ),
    (
        "MATCH (s {_key: $k})-[:A|B]-(e)-[:A]->(f) RETURN s._key, e._key, f._key",
        "MATCH (s {_key: $k})-[:A|B]-(e)-[:A]->(f) WHERE true RETURN s._key, e._key, f._key",
        Cmp::Bag,
    ),
];

fn check_all(e: &QueryEngine, seeds: &[i64], stage: &str) -> usize {
    let mut nonempty = 0;
    for &s in seeds {
        let ks = Value::List((0..5).map(|d| key_value(s + d)).collect());
        let p = params! { "k" => key_value(s), "ks" => ks };
        for (planned, reference, cmp) in QUERIES {
            let got = rows(e, planned, &p);
            let walks = |q: &str| profiled_ops(e, q, &p).iter().filter(|o| *o == "Walk").count();
            let row_by_row = ["-->", "(e)", "]-(e)", "relationships(p)"];
            if !row_by_row.iter().any(|f| planned.contains(f)) {
                assert!(walks(planned) > 0, "{stage}: {planned} should walk");
            }
            assert_eq!(walks(reference), 0, "{stage}: {reference} should not walk");
            let want = rows(e, reference, &p);
            let ctx = || format!("{stage}, seed {s}: {planned}");
            if got.first().is_some_and(|r| r.len() == 1) {
                // A one-column answer read whole is the rows' values in order.
                let column = e.query(planned, &p).unwrap().take_column().unwrap();
                let by_row: Vec<Value> = got.iter().map(|r| r[0].clone()).collect();
                assert_eq!(column, Some(by_row), "{}: take_column", ctx());
            }
            match cmp {
                Cmp::Exact => assert_eq!(got, want, "{}", ctx()),
                Cmp::Bag => assert_eq!(sorted(got.clone()), sorted(want.clone()), "{}", ctx()),
                Cmp::SubsetOf(_) | Cmp::Skipped(_) => {
                    let all = sorted(want.clone());
                    let mine = sorted(got.clone());
                    let expected = match cmp {
                        Cmp::Skipped(n) => all.len().saturating_sub(*n),
                        Cmp::SubsetOf(n) => all.len().min(*n),
                        Cmp::Exact | Cmp::Bag => unreachable!(),
                    };
                    assert_eq!(mine.len(), expected, "{}", ctx());
                    let mut dedup = mine.clone();
                    dedup.dedup();
                    assert_eq!(dedup.len(), mine.len(), "{}: rows repeat", ctx());
                    assert!(mine.iter().all(|r| all.contains(r)), "{}", ctx());
                }
            }
            nonempty += usize::from(!want.is_empty());
        }
    }
    nonempty
}

#[test]
fn fast_paths_answer_as_the_row_matcher_on_email_eu_core() {
    let Some(edges) = eu_core_edges() else { return };
    assert_eq!(edges.len(), 25_571, "SOURCES.md's line count");
    let n = edges.iter().map(|&(a, b)| a.max(b)).max().unwrap() + 1;
    let db = Database::in_memory();
    load(&db, &edges, n);
    // Hubs, ordinary nodes, self-loop nodes and a key that does not exist.
    let mut seeds: Vec<i64> = (0..n).step_by(23).collect();
    let mut deg = vec![0usize; n as usize];
    for &(a, b) in &edges {
        deg[a as usize] += 1;
        deg[b as usize] += 1;
    }
    let mut by_deg: Vec<i64> = (0..n).collect();
    by_deg.sort_by_key(|&u| std::cmp::Reverse(deg[u as usize]));
    seeds.extend(&by_deg[..5]);
    seeds.extend(edges.iter().filter(|(a, b)| a == b).map(|&(a, _)| a).take(5));
    seeds.push(n + 100);
    let e = QueryEngine::new(db.clone());

    let store = check_all(&e, &seeds, "no projection");
    db.analytics()
        .projection(&ProjectionSpec::all(), &Control::default())
        .unwrap();
    let projected = check_all(&e, &seeds, "fresh projection");
    assert_eq!(store, projected);
    assert!(
        store > seeds.len() * QUERIES.len() / 2,
        "most answers should be non-empty: {store}"
    );
    // A write leaves the projection behind: answers follow the store.
    let (a, b) = (key_value(by_deg[0]), key_value(by_deg[1]));
    rows(
        &e,
        "MATCH (a {_key: $a}), (b {_key: $b}) CREATE (a)-[:A]->(x {_key: 'new'})<-[:A]-(b), (x)-[:B]->(b)",
        &params! { "a" => a, "b" => b },
    );
    check_all(&e, &seeds[seeds.len() - 12..], "after a write");
}

/// Labelled patterns: the matcher checks labels from the fresh projection's label masks
/// instead of reading each node record; the answers must be the store's.
const LABELLED: &[(&str, bool)] = &[
    // (query, walked once the projection is built)
    ("MATCH (s:P {_key: $k})-[:A]->(x:Q) RETURN x._key", true),
    ("MATCH (s:Q {_key: $k})<-[:A|B]-(x:P) RETURN x._key", true),
    ("MATCH ({_key: $k})-[:M]->(x:Q:P) RETURN x._key", true),
    (
        "MATCH ({_key: $k})-[:A]->(:Q)<-[:A]-(x:R) RETURN x._key, count(*) AS n",
        false,
    ),
    ("MATCH ({_key: $k})-[:B]->(x:Missing) RETURN x._key", true),
    // Walks whose start and end labels are checked from the masks: DISTINCT with an
    // exclusion, a ranked count, several seeds, a variable-length step, two walks, a chain.
    (
        "MATCH (s:P {_key: $k})-[:A]->()<-[:A]-(x:R) WHERE x <> s RETURN DISTINCT x._key",
        true,
    ),
    (
        "MATCH (s:Q {_key: $k})-[:A|B]->()<-[:A]-(x:R) WHERE x <> s \
         RETURN x._key AS id, count(*) AS n ORDER BY n DESC, id LIMIT 4",
        true,
    ),
    (
        "UNWIND [$k, $k + 2, $k + 4] AS i MATCH (s:Q {_key: i})-[:A]->(x:R) RETURN DISTINCT x._key",
        true,
    ),
    ("MATCH (s:R {_key: $k})-[*1..2]-(x:Q) RETURN DISTINCT x._key", true),
    (
        "UNWIND [$k, $k + 2] AS i MATCH (e:Q {_key: i})<-[:A]-(c:P) WITH DISTINCT c \
         MATCH (c)-[:B]->(f:R) RETURN DISTINCT f._key",
        true,
    ),
    (
        "UNWIND [$k, $k + 2] AS i MATCH (e:Q {_key: i})<-[:A]-(c) WITH DISTINCT c \
         MATCH (c)-[:A]->(f:R) RETURN DISTINCT f._key",
        true,
    ),
];

/// Labelled walks cut by a LIMIT without ORDER BY: (query, its limit).
const LABELLED_LIMITED: &[(&str, usize)] = &[
    ("MATCH (s:P {_key: $k})-[:A]->(x:Q) RETURN x._key LIMIT 2", 2),
    (
        "MATCH (s:P {_key: $k})-[:A]->()<-[:A]-(x:R) WHERE x <> s RETURN DISTINCT x._key LIMIT 3",
        3,
    ),
    ("MATCH (s:P {_key: $k})-[:A]->(x:R) RETURN x._key LIMIT 2", 2),
];

#[test]
fn label_checks_from_the_projection_answer_as_the_store_on_email_eu_core() {
    let Some(edges) = eu_core_edges() else { return };
    let n = edges.iter().map(|&(a, b)| a.max(b)).max().unwrap() + 1;
    let db = Database::in_memory();
    load(&db, &edges, n);
    // Every node is P; a third are also Q, a fifth also R.
    for i in 0..n {
        let mut labels = vec!["P"];
        if i % 3 == 0 {
            labels.push("Q");
        }
        if i % 5 == 0 {
            labels.push("R");
        }
        db.graph()
            .upsert_node(key(i), &labels, Default::default(), WriteMode::Merge)
            .unwrap();
    }
    let e = QueryEngine::new(db.clone());
    let seeds: Vec<i64> = (0..n).step_by(7).chain([n + 5]).collect();
    let answers = |e: &QueryEngine| -> Vec<Vec<String>> {
        let mut all = Vec::new();
        for &s in &seeds {
            for (q, _) in LABELLED {
                all.push(sorted(rows(e, q, &params! { "k" => key_value(s) })));
            }
        }
        all
    };
    let store = answers(&e);
    assert!(
        store.iter().filter(|r| !r.is_empty()).count() > seeds.len(),
        "most answers should be non-empty"
    );
    // Without LIMIT, from node records: what the limited forms cut.
    let full = |q: &str, s: i64| {
        sorted(rows(
            &e,
            &q[..q.rfind(" LIMIT").unwrap()],
            &params! { "k" => key_value(s) },
        ))
    };
    let limited_store: Vec<Vec<String>> = seeds
        .iter()
        .flat_map(|&s| LABELLED_LIMITED.iter().map(move |(q, _)| (q, s)))
        .map(|(q, s)| full(q, s))
        .collect();
    db.analytics()
        .projection(&ProjectionSpec::all(), &Control::default())
        .unwrap();
    assert_eq!(answers(&e), store, "label masks against node records");
    let p = params! { "k" => key_value(0) };
    for (q, walked) in LABELLED {
        let walks = profiled_ops(&e, q, &p).iter().filter(|o| *o == "Walk").count();
        assert_eq!(walks > 0, *walked, "{q}");
    }
    let mut all = limited_store.into_iter();
    for &s in &seeds {
        for (q, limit) in LABELLED_LIMITED {
            let all = all.next().unwrap();
            let got = sorted(rows(&e, q, &params! { "k" => key_value(s) }));
            assert_eq!(got.len(), all.len().min(*limit), "seed {s}: {q}");
            assert!(got.iter().all(|r| all.contains(r)), "seed {s}: {q}");
            let mut d = got.clone();
            d.dedup();
            assert_eq!(d.len(), got.len(), "seed {s}: {q}: rows repeat");
        }
    }
}

#[test]
fn walks_inside_a_writing_query_see_its_writes() {
    let e = small_graph(
        "CREATE (c {_key: 'c'})-[:A]->(e {_key: 'e'}), (d {_key: 'd'})-[:A]->(e)",
        true,
    );
    // The query's own relationship to `e` counts, though neither the projection nor the
    // committed store has it yet.
    let got = rows(
        &e,
        "MATCH (e {_key: 'e'}) CREATE (:X {_key: 'x'})-[:A]->(e) WITH count(*) AS made \
         MATCH (c {_key: 'c'})-[:A]->()<-[:A]-(o) WHERE o <> c RETURN o._key AS id, count(*) AS n ORDER BY id",
        &params! {},
    );
    assert_eq!(
        got,
        vec![
            vec![Value::String("d".into()), Value::Int(1)],
            vec![Value::String("x".into()), Value::Int(1)],
        ]
    );
}

/// A walk hands the final RETURN's one column over whole (no vector per row). Only that
/// RETURN: a walk inside a UNION part or a subquery returns rows as before, and
/// `take_column` reads any one-column result, whatever made it.
#[test]
fn one_column_results_read_whole_and_row_by_row_alike() {
    let e = small_graph(
        "CREATE (a {_key: 'a'})-[:A]->(b {_key: 'b'})-[:A]->(c {_key: 'c'}), (a)-[:A]->(d {_key: 'd'}), \
         (x {_key: 'x'})-[:A]->(c)",
        true,
    );
    let p = params! { "k" => Value::String("a".into()), "j" => Value::String("x".into()) };
    let keys = |q: &str| -> Vec<String> {
        let mut r = e.query(q, &p).unwrap_or_else(|err| panic!("{q}: {err}"));
        let mut out: Vec<String> = r
            .take_column()
            .unwrap()
            .unwrap_or_else(|| panic!("{q}: one column"))
            .iter()
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => panic!("{q}: {other:?}"),
            })
            .collect();
        out.sort();
        out
    };
    let walk = "MATCH ({_key: $k})-[*1..3]->(n) RETURN DISTINCT n._key AS k";
    assert!(profiled_ops(&e, walk, &p).iter().any(|o| o == "Walk"));
    assert_eq!(keys(walk), ["b", "c", "d"]);
    // Row by row, the same values, one per row.
    let by_row: Vec<Vec<Value>> = rows(&e, walk, &p);
    assert!(by_row.iter().all(|r| r.len() == 1));
    assert_eq!(by_row.len(), 3);
    // The walk of a UNION part, of a subquery, and of a WITH before the RETURN.
    let other = "MATCH ({_key: $j})-[*1..3]->(n) RETURN DISTINCT n._key AS k";
    assert_eq!(keys(&format!("{walk} UNION {other}")), ["b", "c", "d"]);
    assert_eq!(keys(&format!("{walk} UNION ALL {other}")), ["b", "c", "c", "d"]);
    assert_eq!(
        keys("MATCH (m) WHERE count { MATCH (m)-[*1..3]->(n) RETURN DISTINCT n._key } = 3 RETURN m._key"),
        ["a"]
    );
    assert_eq!(
        keys("MATCH ({_key: $k})-[*1..3]->(n) WITH DISTINCT n._key AS k RETURN k + '!' AS k"),
        ["b!", "c!", "d!"]
    );
    // A one-column result the general projection made.
    assert_eq!(keys("MATCH (n) WHERE n._key > 'b' RETURN n._key"), ["c", "d", "x"]);
    // Two columns: no column to take, and the rows are left for reading.
    let mut two = e
        .query("MATCH ({_key: $k})-[*1..3]->(n) RETURN DISTINCT n._key, 1", &p)
        .unwrap();
    assert_eq!(two.take_column().unwrap(), None);
    assert_eq!(two.take_rows().unwrap().len(), 3);
    // PROFILE counts the walk's rows (its RETURN keeps rows).
    let r = e.query(&format!("PROFILE {walk}"), &p).unwrap();
    assert_eq!(r.collect_rows().unwrap().len(), 3);
}

/// The operators PROFILE reports for `q`, first to last.
fn profiled_ops(e: &QueryEngine, q: &str, p: &Params) -> Vec<String> {
    let r = e.query(&format!("PROFILE {q}"), p).unwrap();
    let mut ops = Vec::new();
    let mut at = r.plan().cloned();
    while let Some(d) = at {
        ops.push(d.operator.clone());
        at = d.children.first().cloned();
    }
    ops
}

#[test]
fn chained_shapes_walk_once() {
    let e = small_graph(
        "CREATE (a {_key: 'a'})<-[:A]-(c {_key: 'c'})-[:A]->(b {_key: 'b'}), (c)-[:A]->(a), \
         (d {_key: 'd'})-[:A]->(b), (d)-[:B]->(x {_key: 'x'})",
        false,
    );
    let p = params! { "ks" => Value::List(vec![Value::String("a".into()), Value::String("gone".into())]) };
    let q7 = "UNWIND $ks AS i MATCH ({_key: i})<-[:A]-(c) WITH DISTINCT c MATCH (c)-[:A]->(f) RETURN DISTINCT f._key";
    // One walk of both clauses: the WITH and the second MATCH do not run on their own.
    let ops = profiled_ops(&e, q7, &p);
    assert_eq!(ops.iter().filter(|o| *o == "Walk").count(), 1, "{ops:?}");
    assert!(
        !ops.iter().any(|o| o.starts_with("Projection") || o == "Match"),
        "{ops:?}"
    );
    // c reaches a twice (two relationships) and b once; the seed is an end too.
    let mut got: Vec<Value> = rows(&e, q7, &p).into_iter().map(|r| r[0].clone()).collect();
    got.sort_by_key(|v| format!("{v:?}"));
    assert_eq!(got, vec![Value::String("a".into()), Value::String("b".into())]);
    // Any other WITH (an alias, a limit) keeps the clauses apart.
    for q in [
        "UNWIND $ks AS i MATCH ({_key: i})<-[:A]-(c) WITH DISTINCT c AS m MATCH (m)-[:A]->(f) RETURN DISTINCT f._key",
        "UNWIND $ks AS i MATCH ({_key: i})<-[:A]-(c) WITH DISTINCT c LIMIT 1 MATCH (c)-[:A]->(f) RETURN DISTINCT f._key",
    ] {
        let ops = profiled_ops(&e, q, &p);
        assert!(ops.iter().any(|o| o.starts_with("Projection")), "{q}: {ops:?}");
    }
}

/// Point reads (`MATCH (n:L {_key: $k}) RETURN n.a, ...`, see `exec/point.rs`) answer as
/// the matcher does: every property type, absent properties, `_key`, labels asked for and
/// missing, integer and string keys, keys that name no node, and a row per unwound key.
#[test]
fn point_reads_answer_as_the_matcher_on_email_eu_core() {
    use hopdb_database::Value as Stored;
    let Some(edges) = eu_core_edges() else { return };
    let n = edges.iter().map(|&(a, b)| a.max(b)).max().unwrap() + 1;
    let mut deg = vec![0i64; n as usize];
    for &(a, b) in &edges {
        deg[a as usize] += 1;
        deg[b as usize] += 1;
    }
    let db = Database::in_memory();
    load(&db, &edges, n);
    // Properties from the graph itself; each kind left out on some nodes.
    for i in 0..n {
        let d = deg[i as usize];
        let mut props = hopdb_database::Props::new();
        if i % 4 != 1 {
            props.insert("degree".into(), Stored::Int(d));
        }
        props.insert("share".into(), Stored::Float(d as f64 / edges.len() as f64));
        if i % 3 == 0 {
            props.insert("name".into(), Stored::Str(format!("person {i}")));
            props.insert("flag".into(), Stored::Bool(d > 20));
            props.insert("explicit_null".into(), Stored::Null);
        }
        if i % 5 == 0 {
            props.insert(
                "ends".into(),
                Stored::List(vec![Stored::Int(i), Stored::Str(format!("d{d}"))]),
            );
        }
        let labels: &[&str] = if i % 2 == 0 { &["P", "Even"] } else { &["P"] };
        db.graph().upsert_node(key(i), labels, props, WriteMode::Merge).unwrap();
    }
    let e = QueryEngine::new(db.clone());
    const POINT: &[&str] = &[
        "MATCH (n {_key: $k}) RETURN n.degree, n.share AS s, n.name, n.flag, n.ends, n.explicit_null, n.nothing, n._key",
        "MATCH (n:Even {_key: $k}) RETURN n.name, n.degree",
        "MATCH (n:P:Even {_key: $k}) RETURN n._key AS key",
        "MATCH (n:Missing {_key: $k}) RETURN n.degree",
        "UNWIND $ks AS i MATCH (n {_key: i}) RETURN n._key, n.degree",
    ];
    let mut nonempty = 0;
    for s in (0..n).step_by(11).chain([n + 3, n + 4]) {
        let ks = Value::List(
            (0..4)
                .map(|d| key_value(s + d))
                .chain([Value::String(String::new())])
                .collect(),
        );
        let p = params! { "k" => key_value(s), "ks" => ks };
        for q in POINT {
            let ops = profiled_ops(&e, q, &p);
            assert!(ops.iter().any(|o| o == "NodeByKeySeek"), "{q}: {ops:?}");
            let reference = q.replace(" RETURN", " WHERE true RETURN");
            assert!(!profiled_ops(&e, &reference, &p).iter().any(|o| o == "NodeByKeySeek"));
            let got = rows(&e, q, &p);
            assert_eq!(got, rows(&e, &reference, &p), "seed {s}: {q}");
            nonempty += usize::from(!got.is_empty());
        }
    }
    assert!(nonempty > 150, "most answers should be non-empty: {nonempty}");
}

/// One-hop counts from a bound node (`COUNT { (n)-[:T]->() }`), answered from degree
/// counters or the projection, against the same counts matched edge by edge (`WHERE true`):
/// every node of email-Eu-core, with its self-loops, the multi-edge type and the undirected
/// type, from the store (no projection built unasked), from a fresh projection, and after a
/// write that adds self-loops leaves the projection behind.
#[test]
fn degree_counts_answer_as_the_row_matcher_on_email_eu_core() {
    let Some(edges) = eu_core_edges() else { return };
    let n = edges.iter().map(|&(a, b)| a.max(b)).max().unwrap() + 1;
    let cfg = hopdb_database::Config {
        auto_projection_bytes: 0,
        ..Default::default()
    };
    let db = Database::in_memory_with(cfg);
    load(&db, &edges, n);
    let e = QueryEngine::new(db.clone());
    let counts = [
        "(n)--()",
        "(n)-->()",
        "(n)<--()",
        "()-->(n)",
        "(n)-[:A]->()",
        "(n)<-[:A|B]-()",
        "(n)-[:U]-()",
        "(n)-[:U]->()",
        "()-[:U]->(n)",
        "(n)-[:M]-()",
        "(n)-[:M]->()",
        "(n)-[:A|U]-()",
        "(n)-[:Missing]-()",
    ];
    let query = |reference: bool| {
        let w = if reference { " WHERE true" } else { "" };
        let items: Vec<String> = counts.iter().map(|c| format!("COUNT {{ {c}{w} }}")).collect();
        format!("MATCH (n) RETURN n._key AS k, {} ORDER BY k", items.join(", "))
    };
    let (planned, reference) = (query(false), query(true));
    let check = |stage: &str| {
        let got = rows(&e, &planned, &params! {});
        assert_eq!(got.len() as i64, n, "{stage}");
        assert_eq!(got, rows(&e, &reference, &params! {}), "{stage}");
        // Not all zero: the loops, the parallel pairs and the undirected edges are counted.
        for col in 1..=counts.len() - 1 {
            assert!(
                got.iter().any(|r| r[col] != Value::Int(0)),
                "{stage}: {}",
                counts[col - 1]
            );
        }
    };
    check("store");
    db.analytics()
        .projection(&ProjectionSpec::all(), &Control::default())
        .unwrap();
    check("fresh projection");
    rows(
        &e,
        "MATCH (n) WHERE n._key IN [0, 2, 'n1'] MERGE (n)-[:A]->(n) MERGE (n)-[:U]->(n) \
         CREATE (n)-[:M]->(n), (n)-[:M]->(n)",
        &params! {},
    );
    check("after a write");
}
