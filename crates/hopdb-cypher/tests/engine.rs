#![allow(clippy::unwrap_used, clippy::expect_used)]
//! End-to-end behaviour of the engine: reads, writes, atomicity, transactions, the plan
//! cache, key and index lookups.

use hopdb_cypher::{params, ErrorClass, Params, QueryEngine, Value};
use hopdb_database::{Database, GraphRead, NodeKey};

fn engine() -> QueryEngine {
    QueryEngine::new(Database::in_memory())
}

fn rows(e: &QueryEngine, q: &str, p: &Params) -> Vec<Vec<Value>> {
    e.query(q, p)
        .unwrap_or_else(|err| panic!("{q}: {err}"))
        .collect_rows()
        .unwrap()
}

fn s(x: &str) -> Value {
    Value::from(x)
}

#[test]
fn create_then_match_with_properties_and_direction() {
    let e = engine();
    let r = e
        .query(
            "CREATE (a:Person {name: 'Ada', born: 1815})-[:KNOWS {since: 1833}]->(b:Person {name: 'Charles'})",
            &params! {},
        )
        .unwrap();
    assert_eq!(r.stats().nodes_created, 2);
    assert_eq!(r.stats().relationships_created, 1);
    assert_eq!(r.stats().properties_set, 4);
    assert_eq!(r.stats().labels_added, 2);
    let got = rows(
        &e,
        "MATCH (a:Person)-[k:KNOWS]->(b) RETURN a.name, k.since, b.name",
        &params! {},
    );
    assert_eq!(got, vec![vec![s("Ada"), Value::Int(1833), s("Charles")]]);
    // The other direction finds nothing; undirected finds both orientations.
    assert!(rows(&e, "MATCH (a {name: 'Ada'})<-[:KNOWS]-(b) RETURN b", &params! {}).is_empty());
    assert_eq!(
        rows(&e, "MATCH (a)-[:KNOWS]-(b) RETURN a.name ORDER BY a.name", &params! {}).len(),
        2
    );
}

#[test]
fn columns_follow_aliases_and_expression_text() {
    let e = engine();
    let r = e
        .query("RETURN 1 + 2 AS three, 'x' + 'y', [1, 2][0]", &params! {})
        .unwrap();
    assert_eq!(r.columns(), &["three", "'x' + 'y'", "[1, 2][0]"]);
    assert_eq!(
        r.collect_rows().unwrap(),
        vec![vec![Value::Int(3), s("xy"), Value::Int(1)]]
    );
}

#[test]
fn aggregation_grouping_order_and_limit() {
    let e = engine();
    e.query(
        "UNWIND range(1, 10) AS i CREATE (:N {i: i, parity: i % 2})",
        &params! {},
    )
    .unwrap();
    let got = rows(
        &e,
        "MATCH (n:N) RETURN n.parity AS p, count(*) AS c, sum(n.i) AS s, collect(n.i)[0..2] AS first ORDER BY p",
        &params! {},
    );
    assert_eq!(got.len(), 2);
    assert_eq!(got[0][0], Value::Int(0));
    assert_eq!(got[0][1], Value::Int(5));
    assert_eq!(got[0][2], Value::Int(30));
    assert_eq!(got[1][2], Value::Int(25));
    let top = rows(
        &e,
        "MATCH (n:N) RETURN n.i ORDER BY n.i DESC LIMIT $k",
        &params! {"k" => 3},
    );
    assert_eq!(
        top,
        vec![vec![Value::Int(10)], vec![Value::Int(9)], vec![Value::Int(8)]]
    );
    let none = rows(&e, "MATCH (n:Missing) RETURN count(n) AS c", &params! {});
    assert_eq!(none, vec![vec![Value::Int(0)]]);
}

#[test]
fn a_failing_query_applies_nothing() {
    let e = engine();
    e.query("CREATE (:A {v: 1})", &params! {}).unwrap();
    let err = e
        .query("MATCH (a:A) CREATE (:B) WITH a RETURN a.v / 0", &params! {})
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::ArgumentError, "{err}");
    assert!(rows(&e, "MATCH (b:B) RETURN b", &params! {}).is_empty());
    assert_eq!(e.database().graph().node_count().unwrap(), 1);
}

#[test]
fn explicit_transactions_commit_or_roll_back() {
    let e = engine();
    let mut tx = e.begin().unwrap();
    tx.query("CREATE (:T {k: 1})", &params! {}).unwrap();
    let seen = tx
        .query("MATCH (t:T) RETURN t.k", &params! {})
        .unwrap()
        .collect_rows()
        .unwrap();
    assert_eq!(seen, vec![vec![Value::Int(1)]]);
    tx.rollback();
    assert!(rows(&e, "MATCH (t:T) RETURN t", &params! {}).is_empty());
    let mut tx = e.begin().unwrap();
    tx.query("CREATE (:T {k: 2})", &params! {}).unwrap();
    tx.commit().unwrap();
    assert_eq!(
        rows(&e, "MATCH (t:T) RETURN t.k", &params! {}),
        vec![vec![Value::Int(2)]]
    );
}

#[test]
fn plan_cache_reuses_plans_and_binds_parameters_per_run() {
    let e = engine();
    e.query("CREATE (:P {name: 'a'}), (:P {name: 'b'})", &params! {})
        .unwrap();
    let q = "MATCH (p:P {name: $n}) RETURN p.name";
    assert_eq!(rows(&e, q, &params! {"n" => "a"}), vec![vec![s("a")]]);
    let cached = e.plan_cache().len();
    assert_eq!(rows(&e, q, &params! {"n" => "b"}), vec![vec![s("b")]]);
    assert_eq!(e.plan_cache().len(), cached, "the second run must reuse the plan");
    let err = e.query(q, &params! {}).unwrap_err();
    assert_eq!(err.class, ErrorClass::ParameterMissing);
}

#[test]
fn key_property_reads_and_chooses_store_keys() {
    let db = Database::in_memory();
    db.graph()
        .upsert_node(
            "ent-1",
            &["Entity"],
            hopdb_database::props([("name", hopdb_database::Value::from("x"))]),
            Default::default(),
        )
        .unwrap();
    let e = QueryEngine::new(db);
    let got = rows(
        &e,
        "MATCH (n {_key: $k}) RETURN n.name, n._key, keys(n)",
        &params! {"k" => "ent-1"},
    );
    assert_eq!(got, vec![vec![s("x"), s("ent-1"), Value::List(vec![s("name")])]]);
    e.query("CREATE (:Entity {_key: 'ent-2', name: 'y'})", &params! {})
        .unwrap();
    assert!(e.database().graph().has_node(&NodeKey::from("ent-2")).unwrap());
    let dup = e.query("CREATE ({_key: 'ent-2'})", &params! {}).unwrap_err();
    assert_eq!(dup.class, ErrorClass::ConstraintVerificationFailed);
}

#[test]
fn indexes_are_created_listed_used_and_dropped() {
    let e = engine();
    e.query(
        "UNWIND range(1, 50) AS i CREATE (:base {entity_id: 'e' + toString(i)})",
        &params! {},
    )
    .unwrap();
    let r = e
        .query("CREATE INDEX IF NOT EXISTS FOR (n:base) ON (n.entity_id)", &params! {})
        .unwrap();
    assert_eq!(r.stats().indexes_added, 1);
    // Idempotent with IF NOT EXISTS.
    e.query("CREATE INDEX IF NOT EXISTS FOR (n:base) ON (n.entity_id)", &params! {})
        .unwrap();
    let shown = rows(&e, "SHOW INDEXES", &params! {});
    assert_eq!(shown.len(), 1);
    let got = rows(
        &e,
        "MATCH (n:base {entity_id: $id}) RETURN n.entity_id",
        &params! {"id" => "e7"},
    );
    assert_eq!(got, vec![vec![s("e7")]]);
    e.query("DROP INDEX index_base_entity_id", &params! {}).unwrap();
    assert!(rows(&e, "SHOW INDEXES", &params! {}).is_empty());
}

#[test]
fn unique_constraints_reject_duplicates() {
    let e = engine();
    e.query("CREATE CONSTRAINT FOR (n:U) REQUIRE n.id IS UNIQUE", &params! {})
        .unwrap();
    e.query("CREATE (:U {id: 1})", &params! {}).unwrap();
    let err = e.query("CREATE (:U {id: 1})", &params! {}).unwrap_err();
    assert_ne!(err.class, ErrorClass::SyntaxError, "{err}");
    assert_eq!(
        rows(&e, "MATCH (u:U) RETURN count(u)", &params! {}),
        vec![vec![Value::Int(1)]]
    );
}

#[test]
fn merge_set_remove_delete() {
    let e = engine();
    for _ in 0..2 {
        e.query(
            "MERGE (a:base {entity_id: $a}) MERGE (b:base {entity_id: $b}) MERGE (a)-[r:DIRECTED]-(b) SET r += $props",
            &params! {"a" => "x", "b" => "y", "props" => Value::Map([("weight".to_string(), Value::Float(1.5))].into())},
        )
        .unwrap();
    }
    assert_eq!(
        rows(&e, "MATCH ()-[r]->() RETURN count(r), r.weight", &params! {}),
        vec![vec![Value::Int(1), Value::Float(1.5)]]
    );
    let r = e
        .query(
            "MATCH (n:base {entity_id: 'x'}) SET n:Person, n.age = 3 REMOVE n.missing RETURN labels(n)",
            &params! {},
        )
        .unwrap();
    assert_eq!(r.stats().labels_added, 1);
    let err = e
        .query("MATCH (n:base {entity_id: 'x'}) DELETE n", &params! {})
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::ConstraintVerificationFailed);
    let r = e
        .query("MATCH (n:base {entity_id: 'x'}) DETACH DELETE n", &params! {})
        .unwrap();
    assert_eq!(r.stats().nodes_deleted, 1);
    assert_eq!(r.stats().relationships_deleted, 1);
}

#[test]
fn variable_length_and_shortest_paths() {
    let e = engine();
    e.query(
        "CREATE (a:V {n: 1})-[:E]->(b:V {n: 2})-[:E]->(c:V {n: 3})-[:E]->(d:V {n: 4}), (a)-[:E]->(d)",
        &params! {},
    )
    .unwrap();
    let ends = rows(
        &e,
        "MATCH (:V {n: 1})-[:E*2..3]->(x) RETURN x.n ORDER BY x.n",
        &params! {},
    );
    assert_eq!(ends, vec![vec![Value::Int(3)], vec![Value::Int(4)]]);
    let sp = rows(
        &e,
        "MATCH (a:V {n: 1}), (d:V {n: 4}) MATCH p = shortestPath((a)-[:E*]->(d)) RETURN length(p)",
        &params! {},
    );
    assert_eq!(sp, vec![vec![Value::Int(1)]]);
}

#[test]
fn lightrag_queries_run() {
    let e = engine();
    e.query(
        "UNWIND $nodes AS node MERGE (n:base {entity_id: node.id}) SET n += node.props SET n:`Person`",
        &params! {"nodes" => Value::List(vec![
            Value::Map([("id".to_string(), s("Alice")), ("props".to_string(), Value::Map([("description".to_string(), s("a person"))].into()))].into()),
            Value::Map([("id".to_string(), s("Bob")), ("props".to_string(), Value::Map([("description".to_string(), s("another"))].into()))].into()),
        ])},
    )
    .unwrap();
    e.query(
        "MATCH (s:base {entity_id: $s}) MATCH (t:base {entity_id: $t}) MERGE (s)-[r:DIRECTED]-(t) SET r += $p RETURN r",
        &params! {"s" => "Alice", "t" => "Bob", "p" => Value::Map([("weight".to_string(), Value::Float(2.0))].into())},
    )
    .unwrap();
    let deg = rows(
        &e,
        "MATCH (n:base {entity_id: $id}) RETURN count { (n)--() } AS degree",
        &params! {"id" => "Alice"},
    );
    assert_eq!(deg, vec![vec![Value::Int(1)]]);
    let found = rows(
        &e,
        "MATCH (n:base) WHERE toLower(n.entity_id) CONTAINS toLower($q) RETURN n.entity_id AS id ORDER BY id LIMIT $limit",
        &params! {"q" => "ALI", "limit" => 10},
    );
    assert_eq!(found, vec![vec![s("Alice")]]);
    let edges = rows(
        &e,
        "MATCH (a:base {entity_id: $s})-[r]-(b:base {entity_id: $t}) RETURN properties(r) AS edge_properties",
        &params! {"s" => "Bob", "t" => "Alice"},
    );
    assert_eq!(
        edges,
        vec![vec![Value::Map([("weight".to_string(), Value::Float(2.0))].into())]]
    );
    let batch = rows(
        &e,
        "UNWIND $ids AS id MATCH (n:base {entity_id: id}) OPTIONAL MATCH (n)-[r]-() RETURN id, count(r) AS degree ORDER BY id",
        &params! {"ids" => vec!["Alice", "Bob"]},
    );
    assert_eq!(
        batch,
        vec![vec![s("Alice"), Value::Int(1)], vec![s("Bob"), Value::Int(1)]]
    );
    let proj = rows(
        &e,
        "MATCH (n:base {entity_id: 'Bob'}) RETURN n {.entity_id, .description} AS m",
        &params! {},
    );
    assert_eq!(
        proj,
        vec![vec![Value::Map(
            [
                ("description".to_string(), s("another")),
                ("entity_id".to_string(), s("Bob"))
            ]
            .into()
        )]]
    );
}

#[test]
fn errors_name_what_and_where() {
    let e = engine();
    let err = e.query("MATCH (n) RETRUN n", &params! {}).unwrap_err();
    assert_eq!(err.class, ErrorClass::SyntaxError);
    assert_eq!(err.neo4j_code(), "Neo.ClientError.Statement.SyntaxError");
    assert!(err.position.is_some());
    let err = e.query("RETURN 1 + 'a' - 2", &params! {}).unwrap_err();
    assert_eq!(err.class, ErrorClass::TypeError, "{err}");
    let err = e.query("RETURN nosuchfunction(1)", &params! {}).unwrap_err();
    assert_eq!(err.detail, "UnknownFunction");
}

#[test]
fn shortest_path_property_predicates_see_the_row_and_regexes_match_per_row() {
    let e = engine();
    e.query(
        "CREATE (a:S {n: 1})-[:E {ok: true}]->(b:S {n: 2})-[:E {ok: true}]->(c:S {n: 3}), (a)-[:E {ok: false}]->(c)",
        &params! {},
    )
    .unwrap();
    // The predicate reads a variable bound earlier: the direct edge is excluded.
    let got = rows(
        &e,
        "WITH true AS flag MATCH (a:S {n: 1}), (c:S {n: 3}) MATCH p = shortestPath((a)-[:E* {ok: flag}]->(c)) RETURN length(p)",
        &params! {},
    );
    assert_eq!(got, vec![vec![Value::Int(2)]]);
    let got = rows(
        &e,
        "MATCH (s:S) WHERE toString(s.n) =~ '[12]' RETURN s.n ORDER BY s.n",
        &params! {},
    );
    assert_eq!(got, vec![vec![Value::Int(1)], vec![Value::Int(2)]]);
    let err = e.query("RETURN 'a' =~ '('", &params! {}).unwrap_err();
    assert_eq!(err.class, ErrorClass::ArgumentError);
}

#[test]
fn exists_and_count_subqueries_may_end_without_return() {
    let e = engine();
    rows(
        &e,
        "CREATE (:P {name: 'a'})-[:K]->(:P {name: 'b'}), (:P {name: 'c'})-[:K]->(:Q {name: 'c'})",
        &params! {},
    );
    // Neo4j 5: the RETURN of an EXISTS / COUNT subquery is optional.
    let got = rows(
        &e,
        "MATCH (p:P) RETURN p.name, EXISTS { MATCH (p)-[:K]->(d) WHERE d.name = p.name } AS same, \
         COUNT { MATCH (p)-[:K]->(d) } AS out, COUNT { UNWIND [1, 2] AS x } AS two ORDER BY p.name",
        &params! {},
    );
    let b = |x: bool| Value::Bool(x);
    assert_eq!(
        got,
        vec![
            vec![s("a"), b(false), Value::Int(1), Value::Int(2)],
            vec![s("b"), b(false), Value::Int(0), Value::Int(2)],
            vec![s("c"), b(true), Value::Int(1), Value::Int(2)],
        ]
    );
    // A whole query still must not end with MATCH.
    let err = e.query("MATCH (p:P)", &params! {}).unwrap_err();
    assert_eq!(err.detail, "InvalidClauseComposition", "{err}");
}

/// Label and all-node starts: a read-only query matches from each node as the scan reads it
/// (in chunks of 256, a label held by most nodes through a pass over every record), nested
/// scans included; a writing query reads its candidates first, so the nodes it creates are
/// not matched again.
#[test]
fn scans_stream_in_reads_and_not_in_writes() {
    let e = engine();
    rows(
        &e,
        "UNWIND range(0, 699) AS i CREATE (n:N {i: i}) WITH n, i WHERE i % 7 <> 0 SET n:P \
         WITH n, i WHERE i % 6 = 0 SET n:Q",
        &params! {},
    );
    let one = |q: &str| rows(&e, q, &params! {})[0][0].clone();
    assert_eq!(one("MATCH (a:P) RETURN count(*)"), Value::Int(600));
    assert_eq!(one("MATCH (a) RETURN count(*)"), Value::Int(700));
    assert_eq!(one("MATCH (a:Q:P) RETURN count(*)"), Value::Int(100));
    assert_eq!(one("MATCH (a:P) WHERE a.i >= 690 RETURN sum(a.i)"), Value::Int(6252));
    assert_eq!(one("MATCH (a:Q), (b:Q) RETURN count(*)"), Value::Int(100 * 100));
    let limited = rows(&e, "MATCH (a:P) RETURN a.i AS i, labels(a) AS l LIMIT 7", &params! {});
    assert_eq!(limited.len(), 7);
    let mut seen: Vec<String> = limited.iter().map(|r| format!("{:?}", r[0])).collect();
    seen.dedup();
    assert_eq!(seen.len(), 7);
    for r in &limited {
        let Value::Int(i) = r[0] else { panic!("{r:?}") };
        assert_ne!(i % 7, 0, "{r:?} has no label P");
        assert!(matches!(&r[1], Value::List(l) if l.contains(&s("P"))), "{r:?}");
    }
    // Writing: each P node makes one more, and only the 600 read first are matched.
    rows(&e, "MATCH (a:P) CREATE (:P {i: -1})", &params! {});
    assert_eq!(one("MATCH (a:P) RETURN count(*)"), Value::Int(1200));
}
