//! The natively implemented APOC procedures (`apoc.path.subgraphAll` / `subgraphNodes`,
//! `apoc.merge.node` / `relationship`, `apoc.create.addLabels` / `removeLabels`,
//! `apoc.meta.data`, `apoc.schema.nodes`), dynamic labels (`SET n:$(expr)`), the
//! administration commands a one-database server refuses, and the SHOW probes tools send.
//!
//! `subgraphAll` is checked against a breadth-first search written here over the edge list,
//! on random labelled multigraphs; the writing procedures against the MERGE / SET they
//! stand for, by reading the graph back.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_cypher::{params, ErrorClass, Params, QueryEngine, Value};
use hopdb_database::{Database, EdgeInput, WriteMode};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn rows(e: &QueryEngine, q: &str, p: &Params) -> Vec<Vec<Value>> {
    e.query(q, p)
        .unwrap_or_else(|err| panic!("{q}: {err}"))
        .collect_rows()
        .unwrap()
}

fn ints(v: &Value) -> BTreeSet<i64> {
    match v {
        Value::List(l) => l
            .iter()
            .map(|x| match x {
                Value::Int(i) => *i,
                o => panic!("expected an integer, got {o:?}"),
            })
            .collect(),
        o => panic!("expected a list, got {o:?}"),
    }
}

fn s(x: &str) -> Value {
    Value::String(x.into())
}

// ---- apoc.path.subgraphAll ----------------------------------------------------------------

/// A random graph: nodes 0..n with label A (and B for some, C for others), edges of types
/// R and S in random directions.
struct Fixture {
    n: i64,
    labels: Vec<Vec<&'static str>>,
    edges: Vec<(i64, &'static str, i64)>,
}

fn fixture(seed: u64, n: i64, m: usize) -> (QueryEngine, Fixture) {
    let mut r = Rng(seed | 1);
    let db = Database::in_memory();
    let g = db.graph();
    let mut labels = Vec::new();
    for i in 0..n {
        let ls: Vec<&str> = match r.below(4) {
            0 => vec!["A", "B"],
            1 => vec!["A", "C"],
            _ => vec!["A"],
        };
        let mut props = hopdb_database::Props::new();
        props.insert("i".into(), hopdb_database::Value::Int(i));
        g.upsert_node(i, &ls, props, WriteMode::Merge).unwrap();
        labels.push(ls);
    }
    let mut edges = BTreeSet::new();
    for _ in 0..m {
        let (a, b) = (r.below(n as u64) as i64, r.below(n as u64) as i64);
        let ty = if r.below(3) == 0 { "S" } else { "R" };
        edges.insert((a, ty, b));
    }
    let input: Vec<EdgeInput> = edges.iter().map(|&(a, t, b)| EdgeInput::new(a, t, b)).collect();
    g.upsert_edges(&input, WriteMode::Merge).unwrap();
    (
        QueryEngine::new(db),
        Fixture {
            n,
            labels,
            edges: edges.into_iter().collect(),
        },
    )
}

/// Breadth-first levels from `start` following `types` (any when empty) in both directions
/// (or only out when `out_only`), entering only nodes `allowed`, up to `max_level`.
fn levels(
    f: &Fixture,
    start: i64,
    types: &[&str],
    out_only: bool,
    max_level: u64,
    allowed: &dyn Fn(i64) -> bool,
) -> BTreeMap<i64, u64> {
    let mut level = BTreeMap::from([(start, 0u64)]);
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        let d = level[&v];
        if d >= max_level {
            continue;
        }
        for &(a, t, b) in &f.edges {
            if !types.is_empty() && !types.contains(&t) {
                continue;
            }
            let next = if a == v {
                Some(b)
            } else if b == v && !out_only {
                Some(a)
            } else {
                None
            };
            if let Some(w) = next {
                if !level.contains_key(&w) && allowed(w) {
                    level.insert(w, d + 1);
                    queue.push_back(w);
                }
            }
        }
    }
    level
}

const SUBGRAPH: &str = "MATCH (s {i: $start}) CALL apoc.path.subgraphAll(s, $config) YIELD nodes, relationships \
     RETURN [n IN nodes | n.i] AS ns, [r IN relationships | [startNode(r).i, type(r), endNode(r).i]] AS rs, \
     [n IN nodes | n.i][0] AS first";

#[test]
fn subgraph_all_matches_breadth_first_search() {
    for seed in 1..=40u64 {
        let (e, f) = fixture(seed, 30 + (seed as i64 % 20), 60 + seed as usize * 2);
        let mut r = Rng(seed * 7919);
        for _ in 0..8 {
            let start = r.below(f.n as u64) as i64;
            let max_level = r.below(4);
            let (filter, types, out_only): (&str, Vec<&str>, bool) = match r.below(3) {
                0 => ("", vec![], false),
                1 => ("R", vec!["R"], false),
                _ => ("R>|S>", vec!["R", "S"], true),
            };
            let (label_filter, allowed): (&str, Box<dyn Fn(i64) -> bool>) = match r.below(3) {
                0 => ("", Box::new(|_| true)),
                1 => ("-B", Box::new(|w| !f.labels[w as usize].contains(&"B"))),
                _ => ("+C", Box::new(|w| f.labels[w as usize].contains(&"C"))),
            };
            let want = levels(&f, start, &types, out_only, max_level, &*allowed);
            let mut config = hopdb_cypher::Map::new();
            config.insert("relationshipFilter".into(), s(filter));
            config.insert("labelFilter".into(), s(label_filter));
            config.insert("maxLevel".into(), Value::Int(max_level as i64));
            config.insert("bfs".into(), Value::Bool(true));
            let limit = r.below(6) as i64 + 1;
            let truncated = r.below(2) == 0;
            if truncated {
                config.insert("limit".into(), Value::Int(limit));
            }
            let p = params! { "start" => start, "config" => Value::Map(config) };
            let got = rows(&e, SUBGRAPH, &p);
            assert_eq!(got.len(), 1, "seed {seed}");
            let nodes = ints(&got[0][0]);
            assert_eq!(got[0][2], Value::Int(start), "seed {seed}: the start node comes first");
            let ctx = format!("seed {seed} start {start} filter {filter:?} labels {label_filter:?} max {max_level}");
            if truncated {
                assert_eq!(nodes.len(), want.len().min(limit as usize), "{ctx}");
                // A breadth-first prefix: every node nearer than the farthest kept is kept.
                let deepest = nodes.iter().map(|n| want[n]).max().unwrap();
                for (n, d) in &want {
                    if *d < deepest {
                        assert!(nodes.contains(n), "{ctx}: node {n} at level {d} missing");
                    }
                }
                assert!(nodes.iter().all(|n| want.contains_key(n)), "{ctx}");
            } else {
                assert_eq!(nodes, want.keys().copied().collect::<BTreeSet<_>>(), "{ctx}");
            }
            // Every relationship between kept nodes, whatever its type, exactly once.
            let want_rels: BTreeSet<(i64, String, i64)> = f
                .edges
                .iter()
                .filter(|(a, _, b)| nodes.contains(a) && nodes.contains(b))
                .map(|&(a, t, b)| (a, t.to_string(), b))
                .collect();
            let Value::List(rs) = &got[0][1] else { panic!() };
            let got_rels: Vec<(i64, String, i64)> = rs
                .iter()
                .map(|r| match r {
                    Value::List(x) => match (&x[0], &x[1], &x[2]) {
                        (Value::Int(a), Value::String(t), Value::Int(b)) => (*a, t.clone(), *b),
                        o => panic!("{o:?}"),
                    },
                    o => panic!("{o:?}"),
                })
                .collect();
            assert_eq!(got_rels.len(), want_rels.len(), "{ctx}: a relationship listed twice");
            assert_eq!(got_rels.into_iter().collect::<BTreeSet<_>>(), want_rels, "{ctx}");
        }
    }
}

#[test]
fn subgraph_nodes_min_level_and_errors() {
    let (e, f) = fixture(5, 25, 60);
    let want = levels(&f, 0, &[], false, 2, &|_| true);
    let q = "MATCH (s {i: 0}) CALL apoc.path.subgraphNodes(s, {maxLevel: 2, minLevel: 1}) YIELD node RETURN node.i";
    let got: BTreeSet<i64> = rows(&e, q, &params! {})
        .into_iter()
        .map(|r| match r[0] {
            Value::Int(i) => i,
            _ => panic!(),
        })
        .collect();
    let expected: BTreeSet<i64> = want.iter().filter(|(_, d)| **d >= 1).map(|(n, _)| *n).collect();
    assert_eq!(got, expected);
    for (q, needle) in [
        (
            "MATCH (s {i: 0}) CALL apoc.path.subgraphAll(s, {labelFilter: '/B'}) YIELD nodes RETURN nodes",
            "termination",
        ),
        (
            "MATCH (s {i: 0}) CALL apoc.path.subgraphAll(s, {whitelistNodes: []}) YIELD nodes RETURN nodes",
            "whitelistNodes",
        ),
        (
            "MATCH (s {i: 0}) CALL apoc.path.subgraphAll(s, {maxLevel: 'x'}) YIELD nodes RETURN nodes",
            "maxLevel",
        ),
        ("CALL apoc.path.subgraphAll('x', {}) YIELD nodes RETURN nodes", "node"),
    ] {
        let err = e.query(q, &params! {}).and_then(|r| r.collect_rows()).unwrap_err();
        assert_eq!(
            err.neo4j_code(),
            "Neo.ClientError.Procedure.ProcedureCallFailed",
            "{q}: {err}"
        );
        assert!(err.message.contains(needle), "{q}: {err}");
    }
}

// ---- the writing procedures -----------------------------------------------------------------

#[test]
fn merge_node_creates_once_then_matches() {
    let e = QueryEngine::new(Database::in_memory());
    let q = "UNWIND $rows AS row CALL apoc.merge.node([row.type, 'Entity'], {id: row.id}, row.props, {seen: true}) \
             YIELD node RETURN node.id AS id, labels(node) AS labels, node.seen AS seen, node.name AS name";
    let row = |id: &str, ty: &str, name: &str| {
        let mut props = hopdb_cypher::Map::new();
        props.insert("name".into(), s(name));
        let mut m = hopdb_cypher::Map::new();
        m.insert("id".into(), s(id));
        m.insert("type".into(), s(ty));
        m.insert("props".into(), Value::Map(props));
        Value::Map(m)
    };
    let p = params! { "rows" => Value::List(vec![row("a", "Person", "Ann"), row("b", "Company", "Bo"), row("a", "Person", "Other")]) };
    let mut result = e.query(q, &p).unwrap();
    let got = result.by_ref().collect::<Result<Vec<_>, _>>().unwrap();
    assert_eq!(result.stats().nodes_created, 2);
    assert_eq!(got.len(), 3);
    assert_eq!(got[0][1], Value::List(vec![s("Person"), s("Entity")]));
    // The third row matched the first node: onMatch applied, onCreate (name 'Other') not; the
    // second node was only created.
    let after = "MATCH (n:Entity) RETURN n.id, n.name, n.seen ORDER BY n.id";
    assert_eq!(
        rows(&e, after, &params! {}),
        vec![
            vec![s("a"), s("Ann"), Value::Bool(true)],
            vec![s("b"), s("Bo"), Value::Null]
        ]
    );
    let count = rows(&e, "MATCH (n:Entity) RETURN count(n)", &params! {});
    assert_eq!(count[0][0], Value::Int(2));
    let err = e
        .query("CALL apoc.merge.node(['X'], {}) YIELD node RETURN node", &params! {})
        .and_then(|r| r.collect_rows())
        .unwrap_err();
    assert!(err.message.contains("identifying property"), "{err}");
    // A read-only session refuses it like any write.
    let (plan, _) = e
        .plan_cache()
        .get("CALL apoc.merge.node(['X'], {id: 1}) YIELD node RETURN node")
        .unwrap();
    assert!(!plan.read_only);
}

#[test]
fn merge_relationship_and_labels() {
    let e = QueryEngine::new(Database::in_memory());
    rows(&e, "CREATE (:P {id: 1}), (:P {id: 2})", &params! {});
    let q = "MATCH (a:P {id: 1}), (b:P {id: 2}) \
             CALL apoc.merge.relationship(a, $type, {k: 1}, {w: 0.5}, b, {again: true}) YIELD rel \
             RETURN type(rel), rel.w, rel.again";
    let p = params! { "type" => "KNOWS" };
    assert_eq!(rows(&e, q, &p), vec![vec![s("KNOWS"), Value::Float(0.5), Value::Null]]);
    assert_eq!(
        rows(&e, q, &p),
        vec![vec![s("KNOWS"), Value::Float(0.5), Value::Bool(true)]]
    );
    let n = rows(&e, "MATCH (:P)-[r:KNOWS]->(:P) RETURN count(r)", &params! {});
    assert_eq!(n[0][0], Value::Int(1));

    let add = "MATCH (n:P) WITH collect(n) AS ns CALL apoc.create.addLabels(ns, ['Q', 'R']) YIELD node \
               RETURN count(node)";
    assert_eq!(rows(&e, add, &params! {})[0][0], Value::Int(2));
    let got = rows(&e, "MATCH (n:Q:R) RETURN count(n)", &params! {});
    assert_eq!(got[0][0], Value::Int(2));
    let rm = "MATCH (n:P {id: 1}) CALL apoc.create.removeLabels(n, 'Q') YIELD node RETURN labels(node)";
    assert_eq!(rows(&e, rm, &params! {}), vec![vec![Value::List(vec![s("P"), s("R")])]]);
}

#[test]
fn dynamic_labels() {
    let e = QueryEngine::new(Database::in_memory());
    let q = "UNWIND $rows AS row CREATE (n {id: row.id}) SET n:$(row.type) RETURN labels(n)";
    let p = params! { "rows" => Value::List(vec![
        Value::Map([("id".to_string(), Value::Int(1)), ("type".to_string(), s("Person"))].into_iter().collect()),
        Value::Map([("id".to_string(), Value::Int(2)), ("type".to_string(), Value::List(vec![s("A"), s("B")]))].into_iter().collect()),
    ]) };
    assert_eq!(
        rows(&e, q, &p),
        vec![
            vec![Value::List(vec![s("Person")])],
            vec![Value::List(vec![s("A"), s("B")])]
        ]
    );
    rows(&e, "MATCH (n {id: 2}) REMOVE n:$('A')", &params! {});
    assert_eq!(
        rows(&e, "MATCH (n {id: 2}) RETURN labels(n)", &params! {}),
        vec![vec![Value::List(vec![s("B")])]]
    );
    for bad in [
        "MATCH (n {id: 1}) SET n:$(null)",
        "MATCH (n {id: 1}) SET n:$('')",
        "MATCH (n {id: 1}) SET n:$(1)",
    ] {
        let err = e.query(bad, &params! {}).unwrap_err();
        assert_eq!(err.class, ErrorClass::TypeError, "{bad}: {err}");
    }
    // Nothing half-applied by the failed statements.
    assert_eq!(
        rows(&e, "MATCH (n {id: 1}) RETURN labels(n)", &params! {}),
        vec![vec![Value::List(vec![s("Person")])]]
    );
}

// ---- schema: apoc.meta.data, apoc.schema.nodes ---------------------------------------------

#[test]
fn meta_data_describes_the_graph() {
    let e = QueryEngine::new(Database::in_memory());
    rows(
        &e,
        "CREATE (a:Person {name: 'Ann', age: 41, tags: ['x']})-[:WORKS_AT {since: 2020}]->(c:Company {name: 'Acme'}), \
         (b:Person {name: 'Bob'})-[:KNOWS]->(a), (b)-[:WORKS_AT {since: 2021, role: 'dev'}]->(c)",
        &params! {},
    );
    rows(&e, "CREATE INDEX FOR (p:Person) ON (p.name)", &params! {});
    let q = "CALL apoc.meta.data({sample: -1}) YIELD label, property, type, elementType, other, count, index, array \
             RETURN label, property, type, elementType, other, count, index, array";
    let got: BTreeSet<String> = rows(&e, q, &params! {}).iter().map(|r| format!("{r:?}")).collect();
    let row = |l: &str, p: &str, t: &str, el: &str, other: Vec<Value>, count: i64, index: bool, array: bool| {
        format!(
            "{:?}",
            vec![
                s(l),
                s(p),
                s(t),
                s(el),
                Value::List(other),
                Value::Int(count),
                Value::Bool(index),
                Value::Bool(array)
            ]
        )
    };
    let want: BTreeSet<String> = [
        row("Person", "name", "STRING", "node", vec![], 2, true, false),
        row("Person", "age", "INTEGER", "node", vec![], 1, false, false),
        row("Person", "tags", "LIST", "node", vec![], 1, false, true),
        row("Company", "name", "STRING", "node", vec![], 1, false, false),
        row(
            "Person",
            "WORKS_AT",
            "RELATIONSHIP",
            "node",
            vec![s("Company")],
            2,
            false,
            false,
        ),
        row(
            "Person",
            "KNOWS",
            "RELATIONSHIP",
            "node",
            vec![s("Person")],
            1,
            false,
            false,
        ),
        row("WORKS_AT", "since", "INTEGER", "relationship", vec![], 2, false, false),
        row("WORKS_AT", "role", "STRING", "relationship", vec![], 1, false, false),
    ]
    .into_iter()
    .collect();
    assert_eq!(got, want);

    // langchain-neo4j's schema queries, as it sends them.
    let rel_query = "CALL apoc.meta.data({sample: $SAMPLE}) YIELD label, other, elementType, type, property \
                     WHERE type = 'RELATIONSHIP' AND elementType = 'node' UNWIND other AS other_node \
                     WITH * WHERE NOT label IN $EXCLUDED_LABELS AND NOT other_node IN $EXCLUDED_LABELS \
                     RETURN {start: label, type: property, end: toString(other_node)} AS output";
    let p = params! { "SAMPLE" => 1000, "EXCLUDED_LABELS" => Value::List(vec![s("_Bloom_Perspective_")]) };
    assert_eq!(rows(&e, rel_query, &p).len(), 2);
    let index_query = "CALL apoc.schema.nodes() YIELD label, properties, type, size, valuesSelectivity \
                       WHERE type = 'RANGE' RETURN *, size * valuesSelectivity as distinctValues";
    let got = rows(&e, index_query, &params! {});
    assert_eq!(got.len(), 1);
    let cols = e.query(index_query, &params! {}).unwrap().columns().to_vec();
    let at = |c: &str| cols.iter().position(|x| x == c).unwrap();
    assert_eq!(got[0][at("label")], s("Person"));
    assert_eq!(got[0][at("size")], Value::Int(2));
    assert_eq!(got[0][at("distinctValues")], Value::Float(2.0));
}

// ---- administration and probes --------------------------------------------------------------

#[test]
fn administration_commands_are_refused_with_neo4j_code() {
    let e = QueryEngine::new(Database::in_memory());
    for q in [
        "CREATE DATABASE `chunk-entity-relation` IF NOT EXISTS",
        "CREATE OR REPLACE DATABASE x",
        "DROP DATABASE x",
        "CREATE USER bob SET PASSWORD 'x'",
        "ALTER USER bob SET PASSWORD 'y'",
        "GRANT ROLE admin TO bob",
        "SHOW USERS",
        "START DATABASE neo4j",
    ] {
        let err = e.query(q, &params! {}).unwrap_err();
        assert_eq!(
            err.neo4j_code(),
            "Neo.ClientError.Statement.UnsupportedAdministrationCommand",
            "{q}: {err}"
        );
    }
    let dbs = e.query("SHOW DATABASES", &params! {}).unwrap();
    let cols = dbs.columns().to_vec();
    let got = dbs.collect_rows().unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0][cols.iter().position(|c| c == "name").unwrap()], s("neo4j"));
    assert_eq!(
        got[0][cols.iter().position(|c| c == "currentStatus").unwrap()],
        s("online")
    );
    assert_eq!(rows(&e, "SHOW DEFAULT DATABASE", &params! {}).len(), 1);
    // Index kinds HopDB does not build list nothing; RANGE indexes list as before.
    rows(&e, "CREATE INDEX FOR (n:L) ON (n.p)", &params! {});
    assert_eq!(rows(&e, "SHOW FULLTEXT INDEXES", &params! {}).len(), 0);
    assert_eq!(rows(&e, "SHOW INDEXES", &params! {}).len(), 1);
    let c = rows(
        &e,
        "CALL dbms.components() YIELD name, versions, edition RETURN versions[0], edition",
        &params! {},
    );
    assert_eq!(c, vec![vec![s("5.26.0"), s("community")]]);
}

#[test]
fn schema_for_langchain() {
    let e = QueryEngine::new(Database::in_memory());
    rows(
        &e,
        "CREATE (a:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(b:Person {name: 'Bob'}), (b)-[:WORKS_AT]->(:Company {name: 'Acme'})",
        &params! {},
    );
    // Schema commands run inside an explicit transaction (drivers' managed transactions).
    let mut tx = e.begin().unwrap();
    tx.query(
        "CREATE CONSTRAINT IF NOT EXISTS FOR (p:Person) REQUIRE p.name IS UNIQUE",
        &params! {},
    )
    .unwrap();
    let shown = tx.query("SHOW CONSTRAINTS", &params! {}).unwrap();
    assert_eq!(
        shown.columns(),
        [
            "id",
            "name",
            "type",
            "entityType",
            "labelsOrTypes",
            "properties",
            "ownedIndex",
            "propertyType"
        ]
    );
    assert_eq!(shown.collect_rows().unwrap().len(), 1);
    tx.commit().unwrap();
    let idx = e.query("SHOW INDEXES", &params! {}).unwrap();
    assert_eq!(
        idx.columns(),
        [
            "id",
            "name",
            "state",
            "populationPercent",
            "type",
            "entityType",
            "labelsOrTypes",
            "properties",
            "indexProvider",
            "owningConstraint",
            "lastRead",
            "readCount"
        ]
    );
    let idx = idx.collect_rows().unwrap();
    assert_eq!(idx.len(), 1);
    assert_eq!(
        idx[0][1], idx[0][9],
        "the constraint's index carries the constraint's name"
    );
    // apoc.schema.nodes lists the constraint and its RANGE index (langchain keeps the RANGE rows).
    let kinds = rows(
        &e,
        "CALL apoc.schema.nodes() YIELD type RETURN type ORDER BY type",
        &params! {},
    );
    assert_eq!(kinds, vec![vec![s("RANGE")], vec![s("UNIQUENESS")]]);
    // db.propertyKeys includes relationship properties.
    let keys = rows(
        &e,
        "CALL db.propertyKeys() YIELD propertyKey RETURN collect(propertyKey)",
        &params! {},
    );
    assert_eq!(keys, vec![vec![Value::List(vec![s("name"), s("since")])]]);
    // apoc.meta.graph and apoc.any.property, as langchain's enhanced schema reads them.
    let q = "CALL apoc.meta.graph({sample: 1000, maxRels: 100}) YIELD nodes, relationships \
             RETURN [n IN nodes | [apoc.any.property(n, 'name'), apoc.any.property(n, 'count')]] AS nodes, \
             [rel IN relationships | {name: apoc.any.property(rel, 'type'), count: apoc.any.property(rel, 'count')}] AS rels";
    let got = rows(&e, q, &params! {});
    assert_eq!(
        got[0][0],
        Value::List(vec![
            Value::List(vec![s("Company"), Value::Int(1)]),
            Value::List(vec![s("Person"), Value::Int(2)])
        ])
    );
    let Value::List(rels) = &got[0][1] else { panic!() };
    assert_eq!(rels.len(), 2);
    assert_eq!(
        rows(&e, "RETURN apoc.version() AS v", &params! {}),
        vec![vec![s("5.26.0")]]
    );
    assert_eq!(
        rows(
            &e,
            "MATCH (p:Person {name: 'Ann'}) RETURN apoc.any.property(p, 'name')",
            &params! {}
        ),
        vec![vec![s("Ann")]]
    );
}
