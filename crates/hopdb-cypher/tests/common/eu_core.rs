//! SNAP email-Eu-core as a typed test graph, shared by the differential tests of the
//! matcher's fast paths (walks.rs, expand_into.rs, where_hints.rs).

#![allow(dead_code)]

use hopdb_cypher::{Params, QueryEngine, Value};
use hopdb_database::{Database, EdgeInput, EdgeTypeOptions, NodeKey, WriteMode};

pub fn read_edges(path: &std::path::Path) -> Vec<(i64, i64)> {
    use std::io::Read;
    let mut r = hopdb_database::import::input::open(path, Default::default()).unwrap();
    let mut text = String::new();
    r.read_to_string(&mut text).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut it = l.split_whitespace().map(|x| x.parse::<i64>().unwrap());
            (it.next().unwrap(), it.next().unwrap())
        })
        .collect()
}

/// Even ids keep integer keys, odd ones get string keys: ties on a count are broken across
/// both kinds, in Cypher's order of values.
/// SNAP email-Eu-core's edges; `None` (with a SKIPPED line) when the dataset is absent.
pub fn eu_core_edges() -> Option<Vec<(i64, i64)>> {
    let Some(dir) = hopdb_testdata::datasets() else {
        println!("SKIPPED: no datasets folder (set HOPDB_DATASETS or provide /work/shared/datasets)");
        return None;
    };
    let file = dir.join("snap-email-Eu-core/email-Eu-core.txt.gz");
    if !file.is_file() {
        println!("SKIPPED: {} is absent", file.display());
        return None;
    }
    Some(read_edges(&file))
}

pub fn key(i: i64) -> NodeKey {
    if i % 2 == 0 {
        NodeKey::Int(i)
    } else {
        NodeKey::Str(format!("n{i}"))
    }
}

pub fn key_value(i: i64) -> Value {
    match key(i) {
        NodeKey::Int(i) => Value::Int(i),
        NodeKey::Str(s) => Value::String(s),
    }
}

/// email-Eu-core with each edge typed A or B by its ends, every fifth edge also as a parallel
/// pair of the multi-edge type M, and every seventh as the undirected type U.
pub fn load(db: &Database, edges: &[(i64, i64)], n: i64) {
    let g = db.graph();
    g.define_edge_type(
        "M",
        EdgeTypeOptions {
            multi: true,
            undirected: false,
        },
    )
    .unwrap();
    g.define_edge_type(
        "U",
        EdgeTypeOptions {
            multi: false,
            undirected: true,
        },
    )
    .unwrap();
    for i in 0..n {
        g.upsert_node(key(i), &["P"], Default::default(), WriteMode::Merge)
            .unwrap();
    }
    let mut typed = Vec::new();
    let mut und = Vec::new();
    for (k, &(a, b)) in edges.iter().enumerate() {
        let ty = if (a + b) % 3 == 0 { "B" } else { "A" };
        typed.push(EdgeInput::new(key(a), ty, key(b)));
        if k % 7 == 0 {
            und.push(EdgeInput::new(key(a), "U", key(b)));
        }
    }
    for chunk in typed.chunks(10_000).chain(und.chunks(10_000)) {
        g.upsert_edges(chunk, WriteMode::Merge).unwrap();
    }
    let mut tx = g.write().unwrap();
    for (k, &(a, b)) in edges.iter().enumerate() {
        if k % 5 == 0 {
            tx.add_edge(key(a), "M", key(b), None, Default::default()).unwrap();
            tx.add_edge(key(a), "M", key(b), None, Default::default()).unwrap();
        }
    }
    tx.commit().unwrap();
}

pub fn rows(e: &QueryEngine, q: &str, p: &Params) -> Vec<Vec<Value>> {
    e.query(q, p)
        .unwrap_or_else(|err| panic!("{q}: {err}"))
        .collect_rows()
        .unwrap()
}

pub type Edges = Vec<(i64, i64)>;

/// email-Eu-core in memory (see [`load`]), each node's `num` (its id modulo 331, about
/// three nodes a value) indexed: the edges, the node count, the store and an engine on it.
pub fn numbered_eu_core() -> Option<(Edges, i64, Database, QueryEngine)> {
    let edges = eu_core_edges()?;
    let n = edges.iter().map(|&(a, b)| a.max(b)).max().unwrap() + 1;
    let db = Database::in_memory();
    load(&db, &edges, n);
    let e = QueryEngine::new(db.clone());
    rows(&e, "CREATE INDEX FOR (n:P) ON (n.num)", &Params::new());
    rows(&e, "MATCH (n:P) SET n.num = toInteger(n._key) % 331", &Params::new());
    // String keys (odd ids) have no integer value: give them theirs.
    rows(
        &e,
        "MATCH (n:P) WHERE n._key STARTS WITH 'n' SET n.num = toInteger(substring(n._key, 1)) % 331",
        &Params::new(),
    );
    Some((edges, n, db, e))
}

/// Runs `check` (given the stage's name) on the store, then again with a fresh projection
/// built; both must find the same number of rows, which it returns.
pub fn on_store_and_projection(db: &Database, mut check: impl FnMut(&str) -> usize) -> usize {
    let store = check("no projection");
    db.analytics()
        .projection(
            &hopdb_database::ProjectionSpec::all(),
            &hopdb_database::Control::default(),
        )
        .unwrap();
    let projected = check("fresh projection");
    assert_eq!(
        store, projected,
        "the store and the projection found different row counts"
    );
    store
}
