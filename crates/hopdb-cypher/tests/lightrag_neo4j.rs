#![allow(clippy::unwrap_used, clippy::expect_used)]
//! LightRAG's Neo4JStorage (lightrag-hku 1.5.7, `lightrag/kg/neo4j_impl.py`) against HopDB's
//! Cypher engine: every text it sends, run in the order it sends them, on a small knowledge
//! graph built through its own upsert queries; the rows (columns, values, types) are those
//! Neo4j 5 returns. Then the study's retrieval mix Q1-Q7 and deep queries Q8 / Q11 as the
//! parameterised Cypher the peers run (bench/engines/cypher.py, bench/engines/neo4j.py) on a
//! generated Document / Chunk / Entity graph, cross-checked against the native API.
//!
//! The texts are the exact strings the storage sends, captured from the installed package by
//! `tests/fixtures/lightrag/capture.py` (a recording fake of the neo4j async driver; workspace
//! label `base`, the default). `fixtures/lightrag/params.txt` lists each call's parameters as
//! sent. Another workspace's texts are these with `` `base` `` replaced by the workspace's
//! label, backticks doubled, exactly as `_get_workspace_label` builds them.

use hopdb_cypher::{params, CypherError, Map, Params, QueryEngine, QueryStats, Value};
use hopdb_database::{Control, Database, Direction, GraphRead, KHop, NodeKey, PathQuery};
use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};

use hopdb_testdata::sampling::Rng;

macro_rules! text {
    ($name:literal) => {
        include_str!(concat!("fixtures/lightrag/", $name, ".cypher"))
    };
}

// initialize()
const CONNECT_PROBE: &str = text!("initialize");
const CREATE_BTREE_INDEX: &str = text!("initialize_2");
const SHOW_FULLTEXT: &str = text!("initialize_3");
const CREATE_FULLTEXT_CJK: &str = text!("initialize_4");
const CREATE_FULLTEXT_STANDARD: &str = text!("initialize_5");
const DROP_FULLTEXT: &str = text!("initialize_migrate");
const DROP_LEGACY_FULLTEXT: &str = text!("initialize_legacy");
// writes
const UPSERT_NODE: &str = text!("upsert_node");
const UPSERT_NODES_BATCH: &str = text!("upsert_nodes_batch");
const UPSERT_EDGE: &str = text!("upsert_edge");
const UPSERT_EDGES_BATCH: &str = text!("upsert_edges_batch");
const DELETE_NODE: &str = text!("delete_node");
const REMOVE_EDGES: &str = text!("remove_edges");
const DROP: &str = text!("drop");
// reads
const HAS_NODE: &str = text!("has_node");
const HAS_NODES_BATCH: &str = text!("has_nodes_batch");
const HAS_EDGE: &str = text!("has_edge");
const GET_NODE: &str = text!("get_node");
const GET_NODES_BATCH: &str = text!("get_nodes_batch");
const NODE_DEGREE: &str = text!("node_degree");
const NODE_DEGREES_BATCH: &str = text!("node_degrees_batch");
const GET_EDGE: &str = text!("get_edge");
const GET_EDGES_BATCH: &str = text!("get_edges_batch");
const GET_NODE_EDGES: &str = text!("get_node_edges");
const GET_NODES_EDGES_BATCH: &str = text!("get_nodes_edges_batch");
const GET_ALL_NODES: &str = text!("get_all_nodes");
const GET_ALL_EDGES: &str = text!("get_all_edges");
const GET_ALL_LABELS: &str = text!("get_all_labels");
const POPULAR_LABELS: &str = text!("get_popular_labels");
const SEARCH_FULLTEXT_LATIN: &str = text!("search_labels_latin");
const SEARCH_FALLBACK_LATIN: &str = text!("search_labels_latin_2");
const SEARCH_FULLTEXT_CJK: &str = text!("search_labels_cjk");
const SEARCH_FALLBACK_CJK: &str = text!("search_labels_cjk_2");
const KG_STAR_COUNT: &str = text!("get_knowledge_graph_star");
const KG_STAR_MAIN: &str = text!("get_knowledge_graph_star_2");
const KG_APOC_FULL: &str = text!("get_knowledge_graph_apoc");
const KG_APOC_LIMITED: &str = text!("get_knowledge_graph_apoc_2");
const KG_FALLBACK_START: &str = text!("get_knowledge_graph_fallback");
const KG_FALLBACK_NEIGHBOURS: &str = text!("get_knowledge_graph_fallback_2");

// ---------------------------------------------------------------------------------------------
// Running queries

/// One query's result: columns, rows, counters.
#[derive(Debug)]
struct Out {
    cols: Vec<String>,
    rows: Vec<Vec<Value>>,
    stats: QueryStats,
}

impl Out {
    fn col(&self, name: &str) -> usize {
        self.cols
            .iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("no column {name} in {:?}", self.cols))
    }
    /// Values of one column, by name (as the driver's `record["name"]`).
    fn column(&self, name: &str) -> Vec<Value> {
        let i = self.col(name);
        self.rows.iter().map(|r| r[i].clone()).collect()
    }
    fn single(&self, name: &str) -> Value {
        assert_eq!(self.rows.len(), 1, "expected one row: {:?}", self.rows);
        self.rows[0][self.col(name)].clone()
    }
}

fn try_run(e: &QueryEngine, q: &str, p: &Params) -> Result<Out, CypherError> {
    let r = e.query(q, p)?;
    let cols = r.columns().to_vec();
    let stats = *r.stats();
    let rows = r.collect_rows()?;
    Ok(Out { cols, rows, stats })
}

fn run(e: &QueryEngine, q: &str, p: &Params) -> Out {
    try_run(e, q, p).unwrap_or_else(|err| panic!("{q}\n-> {err} ({})", err.neo4j_code()))
}

fn s(x: &str) -> Value {
    Value::from(x)
}

fn map<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Map(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn list<T: Into<Value>>(v: Vec<T>) -> Value {
    Value::List(v.into_iter().map(Into::into).collect())
}

fn as_str(v: &Value) -> &str {
    match v {
        Value::String(x) => x,
        other => panic!("expected a string, got {other:?}"),
    }
}

fn as_map(v: &Value) -> &Map {
    match v {
        Value::Map(m) => m,
        other => panic!("expected a map, got {other:?}"),
    }
}

fn as_list(v: &Value) -> &[Value] {
    match v {
        Value::List(l) => l,
        other => panic!("expected a list, got {other:?}"),
    }
}

/// A returned node's (id, labels, properties): the driver's `node.id`, `node.labels`, `dict(node)`.
fn node(v: &Value) -> (u64, Vec<String>, Map) {
    match v {
        Value::Node(n) => {
            let d = n.data.as_ref().expect("a returned node carries its data");
            (d.id, d.labels.clone(), d.props.clone())
        }
        other => panic!("expected a node, got {other:?}"),
    }
}

/// A returned relationship's (id, type, start id, end id, properties).
fn rel(v: &Value) -> (i64, String, u64, u64, Map) {
    match v {
        Value::Relationship(r) => {
            let d = r.data.as_ref().expect("a returned relationship carries its data");
            (d.id, r.ty.to_string(), d.start_id, d.end_id, d.props.clone())
        }
        other => panic!("expected a relationship, got {other:?}"),
    }
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

// ---------------------------------------------------------------------------------------------
// The storage, method by method (the texts it sends and its own post-processing)

/// One Neo4JStorage workspace over an engine.
struct Rag<'e> {
    e: &'e QueryEngine,
    /// `_get_workspace_label()`: the workspace with backticks doubled.
    label: String,
}

impl<'e> Rag<'e> {
    fn new(e: &'e QueryEngine) -> Rag<'e> {
        Rag::workspace(e, "base")
    }
    fn workspace(e: &'e QueryEngine, ws: &str) -> Rag<'e> {
        Rag {
            e,
            label: ws.replace('`', "``"),
        }
    }
    /// The text as this workspace sends it.
    fn q(&self, text: &str) -> String {
        text.replace("`base`", &format!("`{}`", self.label))
    }
    fn run(&self, text: &str, p: &Params) -> Out {
        run(self.e, &self.q(text), p)
    }
    fn try_run(&self, text: &str, p: &Params) -> Result<Out, CypherError> {
        try_run(self.e, &self.q(text), p)
    }

    fn initialize(&self) {
        let probe = self.run(CONNECT_PROBE, &params! {});
        assert_eq!(probe.cols, ["n"]);
        assert!(probe.rows.is_empty());
        self.run(CREATE_BTREE_INDEX, &params! {});
    }

    fn upsert_node(&self, id: &str, props: Value) -> Out {
        self.run(UPSERT_NODE, &params! {"entity_id" => id, "properties" => props})
    }
    fn upsert_edge(&self, src: &str, tgt: &str, props: Value) -> Out {
        self.run(
            UPSERT_EDGE,
            &params! {"source_entity_id" => src, "target_entity_id" => tgt, "properties" => props},
        )
    }
    fn has_node(&self, id: &str) -> bool {
        match self.run(HAS_NODE, &params! {"entity_id" => id}).single("node_exists") {
            Value::Bool(b) => b,
            other => panic!("node_exists = {other:?}"),
        }
    }
    fn has_edge(&self, a: &str, b: &str) -> bool {
        match self
            .run(HAS_EDGE, &params! {"source_entity_id" => a, "target_entity_id" => b})
            .single("edgeExists")
        {
            Value::Bool(b) => b,
            other => panic!("edgeExists = {other:?}"),
        }
    }
    /// `node_degree`: the single record's `degree` (0 when no record).
    fn node_degree(&self, id: &str) -> i64 {
        let out = self.run(NODE_DEGREE, &params! {"entity_id" => id});
        assert_eq!(out.cols, ["degree"]);
        match out.rows.first().map(|r| &r[0]) {
            None => 0,
            Some(Value::Int(d)) => *d,
            Some(other) => panic!("degree = {other:?}"),
        }
    }
    fn node_degrees_batch(&self, ids: &[&str]) -> BTreeMap<String, i64> {
        let out = self.run(NODE_DEGREES_BATCH, &params! {"node_ids" => ids.to_vec()});
        assert_eq!(out.cols, ["entity_id", "degree"]);
        let mut d: BTreeMap<String, i64> = out
            .rows
            .iter()
            .map(|r| match &r[1] {
                Value::Int(n) => (as_str(&r[0]).to_string(), *n),
                other => panic!("degree = {other:?}"),
            })
            .collect();
        for id in ids {
            d.entry(id.to_string()).or_insert(0);
        }
        d
    }
    fn get_edge(&self, a: &str, b: &str) -> Option<Map> {
        let out = self.run(GET_EDGE, &params! {"source_entity_id" => a, "target_entity_id" => b});
        assert_eq!(out.cols, ["edge_properties"]);
        out.rows.first().map(|r| as_map(&r[0]).clone())
    }
    fn get_node(&self, id: &str) -> Option<Map> {
        let out = self.run(GET_NODE, &params! {"entity_id" => id});
        assert_eq!(out.cols, ["n"]);
        out.rows.first().map(|r| node(&r[0]).2)
    }
    /// `get_node_edges`: None when the node does not exist.
    fn get_node_edges(&self, id: &str) -> Option<Vec<(String, String)>> {
        let out = self.run(GET_NODE_EDGES, &params! {"entity_id" => id});
        assert_eq!(out.cols, ["n", "r", "connected"]);
        if out.rows.is_empty() {
            return None;
        }
        let mut edges = Vec::new();
        for r in &out.rows {
            if r[2].is_null() {
                assert!(r[1].is_null(), "an OPTIONAL MATCH miss nulls r and connected together");
                continue;
            }
            let src = node(&r[0]).2["entity_id"].clone();
            let dst = node(&r[2]).2["entity_id"].clone();
            edges.push((as_str(&src).to_string(), as_str(&dst).to_string()));
        }
        Some(edges)
    }
    fn get_all_labels(&self) -> Vec<String> {
        let out = self.run(GET_ALL_LABELS, &params! {});
        assert_eq!(out.cols, ["label"]);
        out.rows.iter().map(|r| as_str(&r[0]).to_string()).collect()
    }
    fn popular_labels(&self, limit: i64) -> Vec<String> {
        let out = self.run(POPULAR_LABELS, &params! {"limit" => limit});
        assert_eq!(out.cols, ["label"]);
        out.rows.iter().map(|r| as_str(&r[0]).to_string()).collect()
    }
    fn delete_node(&self, id: &str) -> Out {
        self.run(DELETE_NODE, &params! {"entity_id" => id})
    }
}

// ---------------------------------------------------------------------------------------------
// The knowledge graph LightRAG would extract (built through upsert_node / upsert_edge)

/// (entity_id, entity_type, description)
const ENTITIES: &[(&str, &str, &str)] = &[
    ("Alice", "person", "Alice is an engineer."),
    ("Bob", "person", "Bob works with Alice."),
    ("Carol", "person", "Carol visited Beijing."),
    ("Acme Corp", "organization", "Acme Corp employs Alice."),
    ("Dave", "person", "Dave is mentioned alone."),
    ("北京", "location", "北京是中国的首都。"),
    ("北京大学", "organization", "北京大学位于北京。"),
];

/// (source, target, keywords, weight)
const RELATIONS: &[(&str, &str, &str, f64)] = &[
    ("Alice", "Bob", "colleagues", 2.0),
    ("Bob", "Carol", "friends", 1.0),
    ("Alice", "Acme Corp", "employment", 3.5),
    ("Carol", "北京", "travel", 1.0),
    ("北京大学", "北京", "located in", 1.0),
];

fn node_props(id: &str, ty: &str, desc: &str) -> Value {
    map([
        ("entity_id", s(id)),
        ("entity_type", s(ty)),
        ("description", s(desc)),
        ("source_id", s("chunk-1")),
        ("file_path", s("story.txt")),
        ("created_at", Value::Int(1_700_000_000)),
    ])
}

fn edge_props(kw: &str, w: f64) -> Value {
    map([
        ("weight", Value::Float(w)),
        ("description", s(&format!("{kw} relation"))),
        ("keywords", s(kw)),
        ("source_id", s("chunk-1")),
        ("file_path", s("story.txt")),
        ("created_at", Value::Int(1_700_000_000)),
    ])
}

fn build(rag: &Rag) {
    rag.initialize();
    for (id, ty, desc) in ENTITIES {
        rag.upsert_node(id, node_props(id, ty, desc));
    }
    for (a, b, kw, w) in RELATIONS {
        let out = rag.upsert_edge(a, b, edge_props(kw, *w));
        assert_eq!(out.rows.len(), 1, "{a} - {b}");
    }
}

fn kg() -> QueryEngine {
    let e = QueryEngine::new(Database::in_memory());
    build(&Rag::new(&e));
    e
}

/// Degrees by reasoning on RELATIONS.
fn degree_of(id: &str) -> i64 {
    RELATIONS.iter().filter(|(a, b, _, _)| *a == id || *b == id).count() as i64
}

// ---------------------------------------------------------------------------------------------
// initialize

#[test]
fn initialize_probe_and_btree_index() {
    let e = QueryEngine::new(Database::in_memory());
    let rag = Rag::new(&e);
    let probe = rag.run(CONNECT_PROBE, &params! {});
    assert_eq!(probe.cols, ["n"]);
    assert!(probe.rows.is_empty());
    let first = rag.run(CREATE_BTREE_INDEX, &params! {});
    assert_eq!(first.stats.indexes_added, 1);
    // Every initialize() sends it again: IF NOT EXISTS makes it a no-op, not an error.
    let again = rag.run(CREATE_BTREE_INDEX, &params! {});
    assert_eq!(again.stats.indexes_added, 0);
    let shown = run(&e, "SHOW INDEXES", &params! {});
    let (labels, props) = (shown.column("labelsOrTypes"), shown.column("properties"));
    assert_eq!(labels, [list(vec!["base"])]);
    assert_eq!(props, [list(vec!["entity_id"])]);
}

#[test]
fn initialize_drop_index_if_exists_on_a_missing_index_is_a_no_op() {
    // Sent when migrating from the legacy full-text index name, or recreating a non-ONLINE one.
    let e = QueryEngine::new(Database::in_memory());
    let rag = Rag::new(&e);
    for q in [DROP_LEGACY_FULLTEXT, DROP_FULLTEXT] {
        let out = rag.run(q, &params! {});
        assert!(out.rows.is_empty());
        assert_eq!(out.stats.indexes_removed, 0);
    }
}

#[test]
fn initialize_fulltext_failure_is_survivable() {
    // Whatever the engine does with full-text indexes, LightRAG must be able to go on:
    // `_create_fulltext_index` catches any exception, and search_labels falls back to CONTAINS.
    // What must not happen is an error that is not a client error (the driver would raise
    // something other than ClientError / DatabaseError) or a half-applied schema change.
    let e = QueryEngine::new(Database::in_memory());
    let rag = Rag::new(&e);
    rag.initialize();
    for q in [SHOW_FULLTEXT, CREATE_FULLTEXT_CJK, CREATE_FULLTEXT_STANDARD] {
        if let Err(err) = rag.try_run(q, &params! {}) {
            assert!(
                err.neo4j_code().starts_with("Neo.ClientError."),
                "{q}: {err} ({})",
                err.neo4j_code()
            );
        }
    }
    // The B-tree index LightRAG depends on is intact, beside the one full-text index (the
    // standard-analyzer CREATE after the CJK one is refused as an equivalent index).
    let kinds = run(&e, "SHOW INDEXES", &params! {}).column("type");
    assert_eq!(kinds.iter().filter(|k| **k == s("RANGE")).count(), 1);
    assert_eq!(kinds.iter().filter(|k| **k == s("FULLTEXT")).count(), 1);
}

#[test]
fn initialize_fulltext_index_as_neo4j() {
    // Neo4j 5: SHOW FULLTEXT INDEXES lists (id, name, state, populationPercent, type,
    // entityType, labelsOrTypes, properties, indexProvider, owningConstraint, lastRead,
    // readCount); LightRAG reads `name` and `state`. Nothing yet -> no rows; after the CREATE,
    // one row named entity_id_fulltext_idx_base, state ONLINE (once populated).
    let e = QueryEngine::new(Database::in_memory());
    let rag = Rag::new(&e);
    rag.initialize();
    let none = rag.run(SHOW_FULLTEXT, &params! {});
    assert!(none.cols.iter().any(|c| c == "name") && none.cols.iter().any(|c| c == "state"));
    assert!(none.rows.is_empty());
    rag.run(CREATE_FULLTEXT_CJK, &params! {});
    let shown = rag.run(SHOW_FULLTEXT, &params! {});
    assert_eq!(shown.column("name"), [s("entity_id_fulltext_idx_base")]);
    assert_eq!(shown.column("state"), [s("ONLINE")]);
    rag.run(DROP_FULLTEXT, &params! {});
    rag.run(CREATE_FULLTEXT_STANDARD, &params! {});
    assert_eq!(rag.run(SHOW_FULLTEXT, &params! {}).rows.len(), 1);
}

// ---------------------------------------------------------------------------------------------
// writes

#[test]
fn upsert_node_creates_then_merges_properties() {
    let e = QueryEngine::new(Database::in_memory());
    let rag = Rag::new(&e);
    rag.initialize();
    let out = rag.upsert_node("Alice", node_props("Alice", "person", "first"));
    assert!(
        out.cols.is_empty() && out.rows.is_empty(),
        "no RETURN: no columns, no rows"
    );
    assert_eq!(out.stats.nodes_created, 1);
    assert_eq!(out.stats.labels_added, 1);
    // A second upsert merges: new keys are added, same-named ones overwritten, others kept.
    let out = rag.upsert_node(
        "Alice",
        map([
            ("entity_id", s("Alice")),
            ("description", s("first<SEP>second")),
            ("extra", s("x")),
        ]),
    );
    assert_eq!(out.stats.nodes_created, 0);
    assert_eq!(out.stats.labels_added, 0);
    let got = rag.get_node("Alice").unwrap();
    assert_eq!(got["description"], s("first<SEP>second"));
    assert_eq!(got["entity_type"], s("person"));
    assert_eq!(got["extra"], s("x"));
    assert_eq!(got["created_at"], Value::Int(1_700_000_000));
    assert_eq!(got.len(), 7);
    assert_eq!(
        run(&e, "MATCH (n) RETURN count(n)", &params! {}).rows,
        [[Value::Int(1)]]
    );
}

#[test]
fn upsert_nodes_batch_merges_each_row() {
    let e = QueryEngine::new(Database::in_memory());
    let rag = Rag::new(&e);
    rag.initialize();
    let row = |id: &str, d: &str| {
        map([
            ("entity_id", s(id)),
            ("props", map([("entity_id", s(id)), ("description", s(d))])),
        ])
    };
    let out = rag.run(
        UPSERT_NODES_BATCH,
        &params! {"nodes" => list(vec![row("A", "a1"), row("B", "b1")])},
    );
    assert_eq!(out.stats.nodes_created, 2);
    // The same id twice in one batch: the second row's MERGE sees the first's node.
    let out = rag.run(
        UPSERT_NODES_BATCH,
        &params! {"nodes" => list(vec![row("A", "a2"), row("C", "c1"), row("C", "c2")])},
    );
    assert_eq!(out.stats.nodes_created, 1);
    assert_eq!(rag.get_node("A").unwrap()["description"], s("a2"));
    assert_eq!(rag.get_node("C").unwrap()["description"], s("c2"));
    assert_eq!(rag.get_all_labels(), ["A", "B", "C"]);
}

#[test]
fn upsert_edge_merges_in_either_direction() {
    let e = QueryEngine::new(Database::in_memory());
    let rag = Rag::new(&e);
    rag.initialize();
    for id in ["A", "B"] {
        rag.upsert_node(id, node_props(id, "person", id));
    }
    let out = rag.upsert_edge("A", "B", edge_props("k1", 1.0));
    assert_eq!(out.cols, ["r", "source", "target"]);
    assert_eq!(out.rows.len(), 1);
    assert_eq!(out.stats.relationships_created, 1);
    let (_, ty, start, end, props) = rel(&out.rows[0][0]);
    let (a_id, a_labels, a_props) = node(&out.rows[0][1]);
    let (b_id, _, _) = node(&out.rows[0][2]);
    assert_eq!(ty, "DIRECTED");
    // MERGE with an undirected pattern creates the relationship left to right.
    assert_eq!((start, end), (a_id, b_id));
    assert_eq!(props["keywords"], s("k1"));
    assert_eq!(a_labels, ["base"]);
    assert_eq!(a_props["entity_id"], s("A"));
    // The reverse upsert finds the same relationship (undirected MERGE) and updates it.
    let out = rag.upsert_edge("B", "A", map([("weight", Value::Float(4.0)), ("keywords", s("k2"))]));
    assert_eq!(out.stats.relationships_created, 0);
    let (_, _, start, end, props) = rel(&out.rows[0][0]);
    assert_eq!((start, end), (a_id, b_id), "still A -> B");
    assert_eq!(props["weight"], Value::Float(4.0));
    assert_eq!(props["keywords"], s("k2"));
    assert_eq!(props["description"], s("k1 relation"), "SET += keeps other properties");
    assert_eq!(
        run(&e, "MATCH ()-[r]->() RETURN count(r)", &params! {}).rows,
        [[Value::Int(1)]]
    );
    // A missing endpoint: the MATCH finds nothing, nothing is created, no error.
    let out = rag.upsert_edge("A", "Nobody", edge_props("k", 1.0));
    assert!(out.rows.is_empty());
    assert_eq!(out.stats, QueryStats::default());
}

#[test]
fn upsert_edges_batch_merges_each_row() {
    let e = QueryEngine::new(Database::in_memory());
    let rag = Rag::new(&e);
    rag.initialize();
    for id in ["A", "B", "C"] {
        rag.upsert_node(id, node_props(id, "person", id));
    }
    let row = |a: &str, b: &str, w: f64| {
        map([
            ("src", s(a)),
            ("tgt", s(b)),
            ("props", map([("weight", Value::Float(w))])),
        ])
    };
    let out = rag.run(
        UPSERT_EDGES_BATCH,
        &params! {"edges" => list(vec![row("A", "B", 1.0), row("B", "A", 2.0), row("B", "C", 3.0), row("A", "Missing", 9.0)])},
    );
    assert!(out.cols.is_empty());
    assert_eq!(
        out.stats.relationships_created, 2,
        "B-A merges into the A-B made by the row before"
    );
    assert_eq!(rag.get_edge("A", "B").unwrap()["weight"], Value::Float(2.0));
    assert_eq!(rag.get_edge("C", "B").unwrap()["weight"], Value::Float(3.0));
}

#[test]
fn delete_node_detaches_and_missing_is_no_op() {
    let e = kg();
    let rag = Rag::new(&e);
    let out = rag.delete_node("Alice");
    assert!(out.cols.is_empty() && out.rows.is_empty());
    assert_eq!(out.stats.nodes_deleted, 1);
    assert_eq!(out.stats.relationships_deleted, 2);
    assert!(!rag.has_node("Alice"));
    assert_eq!(rag.node_degree("Bob"), 1);
    assert_eq!(rag.node_degree("Acme Corp"), 0);
    let out = rag.delete_node("Alice");
    assert_eq!(out.stats, QueryStats::default());
}

#[test]
fn remove_nodes_deletes_each() {
    let e = kg();
    let rag = Rag::new(&e);
    for id in ["Bob", "Dave", "Nobody"] {
        rag.delete_node(id);
    }
    assert_eq!(
        rag.get_all_labels(),
        ["Acme Corp", "Alice", "Carol", "北京", "北京大学"]
    );
    assert!(!rag.has_edge("Alice", "Bob"));
    assert_eq!(rag.node_degree("Carol"), 1);
}

#[test]
fn remove_edges_deletes_in_either_direction() {
    let e = kg();
    let rag = Rag::new(&e);
    // (Bob, Alice) removes the Alice -> Bob relationship (undirected pattern).
    for (a, b) in [("Bob", "Alice"), ("Carol", "北京"), ("Dave", "Alice")] {
        let out = rag.run(
            REMOVE_EDGES,
            &params! {"source_entity_id" => a, "target_entity_id" => b},
        );
        let expected = u64::from(a != "Dave");
        assert_eq!(out.stats.relationships_deleted, expected, "{a} - {b}");
        assert_eq!(out.stats.nodes_deleted, 0);
    }
    assert!(!rag.has_edge("Alice", "Bob"));
    assert!(!rag.has_edge("北京", "Carol"));
    assert!(rag.has_edge("Alice", "Acme Corp"));
    assert!(rag.has_node("Bob"));
    assert_eq!(rag.node_degree("Alice"), 1);
}

#[test]
fn drop_clears_only_this_workspace() {
    let e = kg();
    let other = Rag::workspace(&e, "other");
    other.initialize();
    other.upsert_node("Alice", node_props("Alice", "person", "other workspace"));
    let rag = Rag::new(&e);
    let out = rag.run(DROP, &params! {});
    assert_eq!(out.stats.nodes_deleted, ENTITIES.len() as u64);
    assert_eq!(out.stats.relationships_deleted, RELATIONS.len() as u64);
    assert!(rag.get_all_labels().is_empty());
    assert_eq!(other.get_all_labels(), ["Alice"]);
    // Dropping an empty workspace is fine too.
    assert_eq!(rag.run(DROP, &params! {}).stats, QueryStats::default());
}

// ---------------------------------------------------------------------------------------------
// point reads

#[test]
fn has_node_and_has_nodes_batch() {
    let e = kg();
    let rag = Rag::new(&e);
    let out = rag.run(HAS_NODE, &params! {"entity_id" => "Alice"});
    assert_eq!(out.cols, ["node_exists"]);
    assert_eq!(out.rows, [[Value::Bool(true)]]);
    // count() over no rows is one row: false, not an empty result.
    assert_eq!(
        rag.run(HAS_NODE, &params! {"entity_id" => "Nobody"}).rows,
        [[Value::Bool(false)]]
    );
    let out = rag.run(HAS_NODES_BATCH, &params! {"ids" => vec!["Dave", "Nobody", "北京"]});
    assert_eq!(out.cols, ["entity_id"]);
    assert_eq!(
        sorted(out.column("entity_id").iter().map(|v| as_str(v).to_string()).collect()),
        ["Dave", "北京"]
    );
}

#[test]
fn has_edge_is_undirected() {
    let e = kg();
    let rag = Rag::new(&e);
    let out = rag.run(
        HAS_EDGE,
        &params! {"source_entity_id" => "Alice", "target_entity_id" => "Bob"},
    );
    assert_eq!(out.cols, ["edgeExists"]);
    assert_eq!(out.rows, [[Value::Bool(true)]]);
    assert!(rag.has_edge("Bob", "Alice"));
    assert!(!rag.has_edge("Alice", "Carol"));
    assert!(!rag.has_edge("Alice", "Nobody"));
    assert!(!rag.has_edge("Dave", "Dave"));
}

#[test]
fn get_node_returns_the_node_with_its_properties() {
    let e = kg();
    let rag = Rag::new(&e);
    let out = rag.run(GET_NODE, &params! {"entity_id" => "北京"});
    assert_eq!(out.cols, ["n"]);
    assert_eq!(out.rows.len(), 1);
    let (_, labels, props) = node(&out.rows[0][0]);
    assert_eq!(labels, ["base"]);
    let expected = node_props("北京", "location", "北京是中国的首都。");
    assert_eq!(&props, as_map(&expected), "dict(node) is exactly the properties set");
    assert!(!props.contains_key("_key"), "the store key is not a property");
    assert!(rag.get_node("Nobody").is_none());
}

#[test]
fn get_nodes_batch_one_row_per_found_id() {
    let e = kg();
    let rag = Rag::new(&e);
    let out = rag.run(
        GET_NODES_BATCH,
        &params! {"node_ids" => vec!["Bob", "Nobody", "Alice", "Bob"]},
    );
    assert_eq!(out.cols, ["entity_id", "n"]);
    // UNWIND keeps the list's order (and its duplicates); a missing id gives no row.
    let ids: Vec<&str> = out.rows.iter().map(|r| as_str(&r[0])).collect();
    assert_eq!(ids, ["Bob", "Alice", "Bob"]);
    for r in &out.rows {
        let (_, labels, props) = node(&r[1]);
        assert_eq!(labels, ["base"]);
        assert_eq!(props["entity_id"], r[0]);
        assert_eq!(props["entity_type"], s("person"));
    }
}

#[test]
fn node_degree_counts_relationships_and_zero_when_missing() {
    let e = kg();
    let rag = Rag::new(&e);
    for (id, _, _) in ENTITIES {
        assert_eq!(rag.node_degree(id), degree_of(id), "{id}");
    }
    // No node: MATCH gives no row, but COUNT with no grouping key still returns one row, 0.
    let out = rag.run(NODE_DEGREE, &params! {"entity_id" => "Nobody"});
    assert_eq!(out.rows, [[Value::Int(0)]]);
}

#[test]
fn node_degrees_batch_count_subquery() {
    let e = kg();
    let rag = Rag::new(&e);
    let ids: Vec<&str> = ENTITIES.iter().map(|t| t.0).chain(["Nobody"]).collect();
    let out = rag.run(NODE_DEGREES_BATCH, &params! {"node_ids" => ids.clone()});
    assert_eq!(out.rows.len(), ENTITIES.len(), "no row for a missing id");
    for r in &out.rows {
        assert!(matches!(r[1], Value::Int(_)), "count {{ }} is an integer: {:?}", r[1]);
    }
    let got = rag.node_degrees_batch(&ids);
    for id in &ids {
        assert_eq!(got[*id], degree_of(id), "{id}");
    }
}

#[test]
fn edge_degree_and_edge_degrees_batch() {
    let e = kg();
    let rag = Rag::new(&e);
    // edge_degree = node_degree(src) + node_degree(tgt), two NODE_DEGREE calls.
    assert_eq!(rag.node_degree("Alice") + rag.node_degree("Acme Corp"), 3);
    // edge_degrees_batch: one NODE_DEGREES_BATCH over the distinct endpoints.
    let d = rag.node_degrees_batch(&["Alice", "Bob", "北京大学", "北京"]);
    assert_eq!(d["Alice"] + d["Bob"], 4);
    assert_eq!(d["北京大学"] + d["北京"], 3);
}

#[test]
fn get_edge_properties_either_direction() {
    let e = kg();
    let rag = Rag::new(&e);
    let expected = edge_props("employment", 3.5);
    let out = rag.run(
        GET_EDGE,
        &params! {"source_entity_id" => "Acme Corp", "target_entity_id" => "Alice"},
    );
    assert_eq!(out.cols, ["edge_properties"]);
    assert_eq!(out.rows, [[expected.clone()]]);
    assert_eq!(rag.get_edge("Alice", "Acme Corp").as_ref(), Some(as_map(&expected)));
    assert!(rag.get_edge("Alice", "Carol").is_none());
    assert!(rag.get_edge("Alice", "Nobody").is_none());
}

#[test]
fn get_edges_batch_groups_per_pair() {
    let e = kg();
    let rag = Rag::new(&e);
    let pair = |a: &str, b: &str| map([("src", s(a)), ("tgt", s(b))]);
    let out = rag.run(
        GET_EDGES_BATCH,
        &params! {"pairs" => list(vec![pair("Alice", "Bob"), pair("北京", "Carol"), pair("Alice", "Carol"), pair("Dave", "Nobody")])},
    );
    assert_eq!(out.cols, ["src_id", "tgt_id", "edges"]);
    // Grouped by (src_id, tgt_id); a pair with no relationship has no row. Row order is
    // unspecified in Neo4j: compare sorted.
    let mut got: Vec<(String, String, Vec<Value>)> = out
        .rows
        .iter()
        .map(|r| (as_str(&r[0]).into(), as_str(&r[1]).into(), as_list(&r[2]).to_vec()))
        .collect();
    got.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    assert_eq!(
        got,
        [
            ("Alice".into(), "Bob".into(), vec![edge_props("colleagues", 2.0)]),
            ("北京".into(), "Carol".into(), vec![edge_props("travel", 1.0)]),
        ]
    );
}

#[test]
fn get_node_edges_rows_and_isolated_and_missing() {
    let e = kg();
    let rag = Rag::new(&e);
    let out = rag.run(GET_NODE_EDGES, &params! {"entity_id" => "Alice"});
    assert_eq!(out.cols, ["n", "r", "connected"]);
    assert_eq!(out.rows.len(), 2);
    for r in &out.rows {
        let (_, ty, _, _, _) = rel(&r[1]);
        assert_eq!(ty, "DIRECTED");
    }
    assert_eq!(
        sorted(rag.get_node_edges("Alice").unwrap()),
        [
            ("Alice".to_string(), "Acme Corp".to_string()),
            ("Alice".into(), "Bob".into())
        ]
    );
    // Isolated: exactly one row, n bound, r and connected null -> [] (not None).
    let out = rag.run(GET_NODE_EDGES, &params! {"entity_id" => "Dave"});
    assert_eq!(out.rows.len(), 1);
    assert!(matches!(out.rows[0][0], Value::Node(_)));
    assert!(out.rows[0][1].is_null() && out.rows[0][2].is_null());
    assert_eq!(rag.get_node_edges("Dave"), Some(vec![]));
    assert_eq!(rag.get_node_edges("Nobody"), None);
}

#[test]
fn get_nodes_edges_batch_with_start_node_direction() {
    let e = kg();
    let rag = Rag::new(&e);
    let ids = vec!["Bob", "Dave", "Nobody"];
    let out = rag.run(GET_NODES_EDGES_BATCH, &params! {"node_ids" => ids.clone()});
    assert_eq!(
        out.cols,
        ["queried_id", "node_entity_id", "connected_entity_id", "start_entity_id"]
    );
    let mut got: Vec<Vec<Value>> = out.rows.clone();
    got.sort_by_key(|r| format!("{r:?}"));
    let mut expected = vec![
        // Alice -> Bob: start is Alice; Bob -> Carol: start is Bob.
        vec![s("Bob"), s("Bob"), s("Alice"), s("Alice")],
        vec![s("Bob"), s("Bob"), s("Carol"), s("Bob")],
        // Isolated: the OPTIONAL MATCH row, startNode(null).entity_id is null.
        vec![s("Dave"), s("Dave"), Value::Null, Value::Null],
    ];
    expected.sort_by_key(|r| format!("{r:?}"));
    assert_eq!(got, expected);
    // LightRAG's post-processing: (start, other) per row.
    let mut edges: BTreeMap<String, Vec<(String, String)>> = ids.iter().map(|i| (i.to_string(), vec![])).collect();
    for r in &out.rows {
        if r[2].is_null() {
            continue;
        }
        let (n, c) = (as_str(&r[1]).to_string(), as_str(&r[2]).to_string());
        let pair = if r[3] == r[1] { (n, c) } else { (c, n) };
        edges.get_mut(as_str(&r[0])).unwrap().push(pair);
    }
    assert_eq!(
        sorted(edges["Bob"].clone()),
        [("Alice".to_string(), "Bob".to_string()), ("Bob".into(), "Carol".into())]
    );
    assert!(edges["Dave"].is_empty() && edges["Nobody"].is_empty());
}

// ---------------------------------------------------------------------------------------------
// scans

#[test]
fn get_all_nodes_and_get_all_edges() {
    let e = kg();
    let rag = Rag::new(&e);
    let out = rag.run(GET_ALL_NODES, &params! {});
    assert_eq!(out.cols, ["n"]);
    let ids = sorted(
        out.rows
            .iter()
            .map(|r| as_str(&node(&r[0]).2["entity_id"]).to_string())
            .collect(),
    );
    assert_eq!(ids, sorted(ENTITIES.iter().map(|t| t.0.to_string()).collect()));
    let out = rag.run(GET_ALL_EDGES, &params! {});
    assert_eq!(out.cols, ["source", "target", "properties"]);
    // The undirected pattern gives every relationship in both orientations.
    assert_eq!(out.rows.len(), 2 * RELATIONS.len());
    let got: BTreeSet<(String, String)> = out
        .rows
        .iter()
        .map(|r| (as_str(&r[0]).to_string(), as_str(&r[1]).to_string()))
        .collect();
    for (a, b, kw, w) in RELATIONS {
        assert!(got.contains(&(a.to_string(), b.to_string())) && got.contains(&(b.to_string(), a.to_string())));
        let row = out.rows.iter().find(|r| r[0] == s(a) && r[1] == s(b)).unwrap();
        assert_eq!(row[2], edge_props(kw, *w));
    }
}

#[test]
fn get_all_labels_sorted_distinct() {
    let e = kg();
    let rag = Rag::new(&e);
    // A node of another workspace and a base node without entity_id are not listed.
    Rag::workspace(&e, "other").upsert_node("Zed", node_props("Zed", "person", "z"));
    run(&e, "CREATE (:base {name: 'no entity id'})", &params! {});
    assert_eq!(
        rag.get_all_labels(),
        ["Acme Corp", "Alice", "Bob", "Carol", "Dave", "北京", "北京大学"]
    );
}

#[test]
fn get_popular_labels_by_degree_then_label() {
    let e = kg();
    let rag = Rag::new(&e);
    assert_eq!(
        rag.popular_labels(300),
        ["Alice", "Bob", "Carol", "北京", "Acme Corp", "北京大学", "Dave"]
    );
    assert_eq!(rag.popular_labels(2), ["Alice", "Bob"]);
}

#[test]
fn search_labels_fallback_latin() {
    let e = kg();
    let rag = Rag::new(&e);
    let search = |q: &str, limit: i64| -> Vec<String> {
        let out = rag.run(SEARCH_FALLBACK_LATIN, &params! {"query_lower" => q, "limit" => limit});
        assert_eq!(out.cols, ["label"]);
        out.rows.iter().map(|r| as_str(&r[0]).to_string()).collect()
    };
    // "c": carol starts with it (500); alice contains it (100 - 5); acme corp (100 - 9).
    assert_eq!(search("c", 50), ["Carol", "Alice", "Acme Corp"]);
    assert_eq!(search("c", 2), ["Carol", "Alice"]);
    assert_eq!(search("alice", 50), ["Alice"]);
    assert!(search("zzz", 50).is_empty());
}

#[test]
fn search_labels_fallback_cjk() {
    let e = kg();
    let rag = Rag::new(&e);
    let search = |q: &str| -> Vec<String> {
        let out = rag.run(SEARCH_FALLBACK_CJK, &params! {"query_strip" => q, "limit" => 50});
        out.rows.iter().map(|r| as_str(&r[0]).to_string()).collect()
    };
    // Exact (1000) before prefix (500).
    assert_eq!(search("北京"), ["北京", "北京大学"]);
    // Neither: 100 - size(label), size in characters (2 and 4), not bytes.
    assert_eq!(search("京"), ["北京", "北京大学"]);
    assert_eq!(search("大学"), ["北京大学"]);
}

#[test]
fn search_labels_fulltext_failure_falls_back() {
    // Without a full-text index the queryNodes call must fail (any exception: LightRAG then
    // runs the CONTAINS fallback above), not return a wrong answer.
    let e = kg();
    let rag = Rag::new(&e);
    let p = params! {"index_name" => "entity_id_fulltext_idx_base", "search_query" => "ali*", "query_lower" => "ali", "query_strip" => "ali", "limit" => 50};
    for q in [SEARCH_FULLTEXT_LATIN, SEARCH_FULLTEXT_CJK] {
        match rag.try_run(q, &p) {
            Err(err) => assert!(err.neo4j_code().starts_with("Neo.ClientError."), "{err}"),
            Ok(out) => panic!("queryNodes without a full-text index answered {:?}", out.rows),
        }
    }
}

#[test]
fn search_labels_fulltext_as_neo4j() {
    let e = kg();
    let rag = Rag::new(&e);
    rag.run(CREATE_FULLTEXT_STANDARD, &params! {});
    let p = params! {"index_name" => "entity_id_fulltext_idx_base", "search_query" => "ali*", "query_lower" => "ali", "query_strip" => "ali", "limit" => 50};
    let out = rag.run(SEARCH_FULLTEXT_LATIN, &p);
    assert_eq!(out.cols, ["label"]);
    assert_eq!(out.rows, [[s("Alice")]]);
}

// ---------------------------------------------------------------------------------------------
// get_knowledge_graph

/// The `*` variant's main query: (node ids in order, (rel id, start, end) set), as LightRAG reads it.
type KgView = (Vec<String>, BTreeSet<(String, String)>);

fn kg_star(rag: &Rag, max_nodes: i64) -> Option<KgView> {
    let out = rag.run(KG_STAR_MAIN, &params! {"max_nodes" => max_nodes});
    assert_eq!(out.cols, ["node_info", "relationships"]);
    assert!(out.rows.len() <= 1, "single(): at most one record");
    let row = out.rows.first()?;
    let mut ids = BTreeMap::new();
    let mut nodes = Vec::new();
    for info in as_list(&row[0]) {
        let info = as_map(info);
        assert_eq!(info.keys().collect::<Vec<_>>(), ["node"]);
        let (id, labels, props) = node(&info["node"]);
        assert_eq!(labels, [rag.label.replace("``", "`")]);
        let name = as_str(&props["entity_id"]).to_string();
        ids.insert(id, name.clone());
        nodes.push(name);
    }
    let mut rels = BTreeSet::new();
    let mut rel_ids = HashSet::new();
    for r in as_list(&row[1]) {
        let (rid, ty, start, end, props) = rel(r);
        assert_eq!(ty, "DIRECTED");
        assert!(props.contains_key("weight"));
        assert!(rel_ids.insert(rid), "collect(DISTINCT r): no duplicates");
        rels.insert((ids[&start].clone(), ids[&end].clone()));
    }
    Some((nodes, rels))
}

#[test]
fn get_knowledge_graph_star() {
    let e = kg();
    let rag = Rag::new(&e);
    let out = rag.run(KG_STAR_COUNT, &params! {});
    assert_eq!(out.cols, ["total"]);
    assert_eq!(out.rows, [[Value::Int(ENTITIES.len() as i64)]]);
    let (nodes, rels) = kg_star(&rag, 1000).unwrap();
    assert_eq!(
        nodes,
        ["Alice", "Bob", "Carol", "北京", "Acme Corp", "北京大学", "Dave"]
    );
    let all: BTreeSet<(String, String)> = RELATIONS
        .iter()
        .map(|(a, b, _, _)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(rels, all, "each relationship once, in its stored direction");
    // Truncated to the 3 highest degrees: the relationships among them only.
    let (nodes, rels) = kg_star(&rag, 3).unwrap();
    assert_eq!(nodes, ["Alice", "Bob", "Carol"]);
    assert_eq!(
        rels,
        [("Alice".to_string(), "Bob".to_string()), ("Bob".into(), "Carol".into())].into()
    );
    // An isolated node kept alone: node_info has it, relationships is [].
    let one = Rag::workspace(&e, "solo");
    one.upsert_node("Z", node_props("Z", "person", "z"));
    assert_eq!(kg_star(&one, 10).unwrap(), (vec!["Z".to_string()], BTreeSet::new()));
    // Empty workspace: UNWIND [] leaves no row for the grouping RETURN -> no record.
    assert!(kg_star(&Rag::workspace(&e, "empty"), 10).is_none());
}

#[test]
fn get_knowledge_graph_apoc_subgraph_all() {
    let e = kg();
    let rag = Rag::new(&e);
    let p = params! {"entity_id" => "Alice", "max_depth" => 3, "label_filter" => "base"};
    let out = rag.run(KG_APOC_FULL, &p);
    assert_eq!(out.cols, ["node_info", "relationships", "total_nodes"]);
    assert_eq!(out.rows.len(), 1);
    // Within 3 hops of Alice: Alice, Bob, Acme Corp, Carol, 北京 (北京大学 is 4 away).
    assert_eq!(out.rows[0][2], Value::Int(5));
    assert_eq!(as_list(&out.rows[0][0]).len(), 5);
    assert_eq!(as_list(&out.rows[0][1]).len(), 4);
    let p = params! {"entity_id" => "Alice", "max_depth" => 3, "max_nodes" => 2, "label_filter" => "base"};
    let out = rag.run(KG_APOC_LIMITED, &p);
    assert_eq!(out.cols, ["node_info", "relationships"]);
    assert_eq!(as_list(&out.rows[0][0]).len(), 2);
}

/// `_robust_fallback`, as LightRAG runs it: the start query, then one neighbour query per
/// dequeued node. Returns (node ids, edges as sorted pairs, truncated).
fn robust_fallback(
    rag: &Rag,
    start: &str,
    max_depth: i64,
    max_nodes: usize,
) -> (Vec<String>, BTreeSet<(String, String)>, bool) {
    let out = rag.run(KG_FALLBACK_START, &params! {"entity_id" => start});
    assert_eq!(out.cols, ["node_id", "n"]);
    let Some(row) = out.rows.first() else {
        return (vec![], BTreeSet::new(), false);
    };
    let (nid, _, props) = node(&row[1]);
    assert_eq!(row[0], Value::Int(nid as i64), "id(n) is the node's id");
    let start_id = as_str(&props["entity_id"]).to_string();
    let mut nodes = Vec::new();
    let mut visited: HashSet<String> = HashSet::new();
    let mut visited_edges: HashSet<String> = HashSet::new();
    let mut pairs: BTreeSet<(String, String)> = BTreeSet::new();
    let mut truncated = false;
    let mut queue = VecDeque::from([(start_id, 0i64)]);
    while let Some((cur, depth)) = queue.pop_front() {
        if visited.contains(&cur) || depth > max_depth {
            continue;
        }
        if visited.len() >= max_nodes {
            truncated = true;
            break;
        }
        nodes.push(cur.clone());
        visited.insert(cur.clone());
        let out = rag.run(KG_FALLBACK_NEIGHBOURS, &params! {"entity_id" => cur.as_str()});
        assert_eq!(out.cols, ["r", "b", "edge_id", "target_id"]);
        for r in &out.rows {
            let (rid, _, _, _, _) = rel(&r[0]);
            let (bid, _, bprops) = node(&r[1]);
            assert_eq!(r[2], Value::Int(rid), "id(r) is the relationship's id");
            assert_eq!(r[3], Value::Int(bid as i64), "id(b) is the node's id");
            let edge_id = format!("{rid}");
            if visited_edges.contains(&edge_id) {
                continue;
            }
            let Some(Value::String(target)) = bprops.get("entity_id") else {
                continue;
            };
            let pair = if cur < *target {
                (cur.clone(), target.clone())
            } else {
                (target.clone(), cur.clone())
            };
            if !pairs.contains(&pair) && (visited.contains(target) || depth < max_depth) {
                visited_edges.insert(edge_id);
                pairs.insert(pair);
            }
            if !visited.contains(target) && depth < max_depth {
                queue.push_back((target.clone(), depth + 1));
            }
        }
    }
    (nodes, pairs, truncated)
}

fn pair(a: &str, b: &str) -> (String, String) {
    if a < b {
        (a.into(), b.into())
    } else {
        (b.into(), a.into())
    }
}

#[test]
fn get_knowledge_graph_fallback_bfs() {
    let e = kg();
    let rag = Rag::new(&e);
    let (nodes, edges, truncated) = robust_fallback(&rag, "Alice", 3, 1000);
    assert_eq!(nodes[0], "Alice");
    assert_eq!(
        sorted(nodes),
        sorted(
            vec!["Alice", "Bob", "Acme Corp", "Carol", "北京"]
                .into_iter()
                .map(String::from)
                .collect()
        )
    );
    assert_eq!(
        edges,
        [
            pair("Alice", "Bob"),
            pair("Alice", "Acme Corp"),
            pair("Bob", "Carol"),
            pair("Carol", "北京")
        ]
        .into()
    );
    assert!(!truncated);
    let (nodes, edges, truncated) = robust_fallback(&rag, "Alice", 1, 1000);
    assert_eq!(sorted(nodes), ["Acme Corp", "Alice", "Bob"]);
    assert_eq!(edges, [pair("Alice", "Bob"), pair("Alice", "Acme Corp")].into());
    assert!(!truncated);
    let (nodes, _, truncated) = robust_fallback(&rag, "Alice", 3, 2);
    assert_eq!(nodes.len(), 2);
    assert!(truncated);
    let (nodes, edges, _) = robust_fallback(&rag, "Dave", 3, 1000);
    assert_eq!((nodes, edges), (vec!["Dave".to_string()], BTreeSet::new()));
    assert!(robust_fallback(&rag, "Nobody", 3, 1000).0.is_empty());
}

// ---------------------------------------------------------------------------------------------
// workspaces

#[test]
fn workspace_labels_isolate_and_backticks_are_escaped() {
    let e = QueryEngine::new(Database::in_memory());
    let a = Rag::new(&e);
    let b = Rag::workspace(&e, "team`b ws");
    for r in [&a, &b] {
        r.initialize();
    }
    a.upsert_node("X", node_props("X", "person", "in base"));
    b.upsert_node("X", node_props("X", "person", "in team`b ws"));
    b.upsert_node("Y", node_props("Y", "person", "y"));
    b.upsert_edge("X", "Y", edge_props("k", 1.0));
    assert_eq!(a.get_node("X").unwrap()["description"], s("in base"));
    assert_eq!(b.get_node("X").unwrap()["description"], s("in team`b ws"));
    let out = b.run(GET_NODE, &params! {"entity_id" => "X"});
    assert_eq!(node(&out.rows[0][0]).1, ["team`b ws"]);
    assert_eq!(a.node_degree("X"), 0);
    assert_eq!(b.node_degree("X"), 1);
    assert!(!a.has_edge("X", "Y"));
    assert_eq!(
        sorted(
            run(&e, "SHOW INDEXES", &params! {})
                .column("labelsOrTypes")
                .iter()
                .map(|v| format!("{v:?}"))
                .collect()
        ),
        sorted(vec![
            format!("{:?}", list(vec!["base"])),
            format!("{:?}", list(vec!["team`b ws"]))
        ])
    );
}

// ---------------------------------------------------------------------------------------------
// The study's retrieval mix Q1-Q7 and deep queries Q8 / Q11 (bench/engines/cypher.py,
// bench/engines/neo4j.py), parameterised, on a generated Document / Chunk / Entity graph.

const LIMIT: usize = 50;
const TOP: usize = 10;
const Q1: &str = "MATCH (c:Chunk {id: $id}) RETURN c.doc_id, c.ordinal, c.word_count, c.section_title";
const Q2: &str = "MATCH (c:Chunk {id: $id})-[:MENTIONS]->(e:Entity) RETURN e.id LIMIT 50";
const Q3: &str = "MATCH (e:Entity {id: $id})<-[:MENTIONS]-(c:Chunk) RETURN c.id LIMIT 50";
const Q4: &str = "MATCH (c:Chunk {id: $id})-[:MENTIONS]->(:Entity)<-[:MENTIONS]-(o:Chunk) WHERE o.id <> $id RETURN DISTINCT o.id LIMIT 50";
const Q5: &str = "MATCH (d:Document {id: $id})-[:HAS_CHUNK]->(c:Chunk) RETURN c.id";
const Q6: &str = "MATCH (c:Chunk {id: $id})-[:MENTIONS]->(:Entity)<-[:MENTIONS]-(o:Chunk) WHERE o.id <> $id RETURN o.id AS id, count(*) AS n ORDER BY n DESC, id LIMIT 10";
const Q7: &str = "MATCH (e:Entity)<-[:MENTIONS]-(c:Chunk) WHERE e.id IN $ids WITH DISTINCT c MATCH (c)-[:MENTIONS]->(f:Entity) RETURN DISTINCT f.id LIMIT 50";
const Q8: &str = "MATCH (e:Entity {id: $id})-[*1..4]-(n) RETURN DISTINCT n.id LIMIT 100";
const Q8_ALL: &str = "MATCH (e:Entity {id: $id})-[*1..4]-(n) RETURN DISTINCT n.id";
const Q11: &str = "MATCH p = shortestPath((a:Entity {id: $a})-[*..12]-(b:Entity {id: $b})) RETURN length(p)";

struct Study {
    e: QueryEngine,
    db: Database,
    docs: Vec<String>,
    chunks: Vec<String>,
    ents: Vec<String>,
}

/// 20 documents x 8 chunks, 120 entities (mentions skewed so a few have more than 50 chunks),
/// 3 entities no chunk mentions, and a second component (a chunk-entity pair) for Q11's
/// unreachable case. Written with the native API (key = id, the `id` property too), indexed
/// through Cypher as the peers index them.
fn study() -> Study {
    let db = Database::in_memory();
    let g = db.graph();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut docs, mut chunks, mut ents) = (vec![], vec![], vec![]);
    let node = |key: &str, label: &str, extra: Vec<(&str, hopdb_database::Value)>| {
        let mut p = vec![("id", hopdb_database::Value::from(key))];
        p.extend(extra);
        g.upsert_node(key, &[label], hopdb_database::props(p), Default::default())
            .unwrap();
    };
    let edge = |a: &str, ty: &str, b: &str| {
        g.upsert_edge(a, ty, b, None, Default::default(), Default::default())
            .unwrap();
    };
    for k in 0..123 {
        let id = format!("ent-{k:03}");
        node(
            &id,
            "Entity",
            vec![("name", hopdb_database::Value::from(format!("E{k}")))],
        );
        ents.push(id);
    }
    for d in 0..20 {
        let doc = format!("doc-{d:02}");
        node(&doc, "Document", vec![]);
        docs.push(doc.clone());
        for j in 0..8i64 {
            let c = format!("chunk-{d:02}-{j}");
            let mut extra = vec![
                ("doc_id", hopdb_database::Value::from(doc.as_str())),
                ("ordinal", hopdb_database::Value::Int(j)),
                ("word_count", hopdb_database::Value::Int(100 + rng.below(400) as i64)),
            ];
            if j != 7 {
                extra.push(("section_title", hopdb_database::Value::from(format!("Section {j}"))));
            }
            node(&c, "Chunk", extra);
            edge(&doc, "HAS_CHUNK", &c);
            // Two chunks in five mention the hub entity (more than LIMIT chunks in all).
            if rng.below(5) < 2 {
                edge(&c, "MENTIONS", &ents[0]);
            }
            let n = 2 + rng.below(6);
            for _ in 0..n {
                // Skewed: the product of two uniforms favours low indices.
                let k = (rng.below(120) * rng.below(120)) / 120;
                edge(&c, "MENTIONS", &ents[k]);
            }
            chunks.push(c);
        }
    }
    // A separate component: one document, one chunk, one entity.
    node("doc-island", "Document", vec![]);
    node(
        "chunk-island",
        "Chunk",
        vec![
            ("doc_id", hopdb_database::Value::from("doc-island")),
            ("ordinal", hopdb_database::Value::Int(0)),
            ("word_count", hopdb_database::Value::Int(10)),
        ],
    );
    node("ent-island", "Entity", vec![]);
    edge("doc-island", "HAS_CHUNK", "chunk-island");
    edge("chunk-island", "MENTIONS", "ent-island");
    ents.push("ent-island".into());
    let e = QueryEngine::new(db.clone());
    for label in ["Document", "Chunk", "Entity"] {
        run(
            &e,
            &format!("CREATE INDEX IF NOT EXISTS FOR (n:{label}) ON (n.id)"),
            &params! {},
        );
    }
    Study {
        e,
        db,
        docs,
        chunks,
        ents,
    }
}

fn strings(out: &Out) -> Vec<String> {
    assert_eq!(out.cols.len(), 1);
    out.rows.iter().map(|r| as_str(&r[0]).to_string()).collect()
}

fn key_str(k: NodeKey) -> String {
    match k {
        NodeKey::Str(s) => s,
        NodeKey::Int(i) => i.to_string(),
    }
}

fn keys(v: Vec<NodeKey>) -> BTreeSet<String> {
    v.into_iter().map(key_str).collect()
}

impl Study {
    fn nbrs(&self, id: &str, dir: Direction, ty: &str) -> Vec<String> {
        self.db
            .graph()
            .neighbors(&NodeKey::from(id), dir, Some(ty), None)
            .unwrap()
            .into_iter()
            .map(key_str)
            .collect()
    }
    /// A LIMITed answer: distinct, from the full answer, as many as the limit allows.
    fn check_limited(&self, q: &str, got: Vec<String>, all: &BTreeSet<String>, limit: usize) {
        let set: BTreeSet<String> = got.iter().cloned().collect();
        assert_eq!(set.len(), got.len(), "{q}: duplicates in {got:?}");
        assert!(set.is_subset(all), "{q}: {set:?} not within {all:?}");
        assert_eq!(got.len(), all.len().min(limit), "{q}");
    }
    /// Seeds to try: every 7th of a pool.
    fn sample(pool: &[String]) -> impl Iterator<Item = &String> {
        pool.iter().step_by(7)
    }
}

#[test]
fn study_q1_point_lookup() {
    let st = study();
    for c in Study::sample(&st.chunks).chain([&"chunk-island".to_string()]) {
        let out = run(&st.e, Q1, &params! {"id" => c.as_str()});
        assert_eq!(out.cols, ["c.doc_id", "c.ordinal", "c.word_count", "c.section_title"]);
        let n = st.db.graph().node(&NodeKey::from(c.as_str())).unwrap().unwrap();
        let want: Vec<Value> = ["doc_id", "ordinal", "word_count", "section_title"]
            .iter()
            .map(|p| n.props.get(*p).cloned().map_or(Value::Null, Value::from_store))
            .collect();
        assert_eq!(out.rows, [want], "{c}");
    }
    assert!(run(&st.e, Q1, &params! {"id" => "chunk-none"}).rows.is_empty());
}

#[test]
fn study_q2_q3_q5_neighbours() {
    let st = study();
    for c in Study::sample(&st.chunks) {
        let all: BTreeSet<String> = st.nbrs(c, Direction::Out, "MENTIONS").into_iter().collect();
        let got = strings(&run(&st.e, Q2, &params! {"id" => c.as_str()}));
        st.check_limited("q2", got, &all, LIMIT);
    }
    let mut over_limit = 0;
    for e in st.ents.iter().take(5).chain(Study::sample(&st.ents)) {
        let all: BTreeSet<String> = st.nbrs(e, Direction::In, "MENTIONS").into_iter().collect();
        over_limit += usize::from(all.len() > LIMIT);
        let got = strings(&run(&st.e, Q3, &params! {"id" => e.as_str()}));
        st.check_limited("q3", got, &all, LIMIT);
    }
    assert!(over_limit > 0, "the generator gives some entity more than 50 chunks");
    for d in &st.docs {
        let all: BTreeSet<String> = st.nbrs(d, Direction::Out, "HAS_CHUNK").into_iter().collect();
        let got = sorted(strings(&run(&st.e, Q5, &params! {"id" => d.as_str()})));
        assert_eq!(got, all.into_iter().collect::<Vec<_>>(), "{d}");
    }
}

#[test]
fn study_q4_q6_co_mentions() {
    let st = study();
    for c in Study::sample(&st.chunks) {
        // Native: chunk -> entities -> chunks, counting paths per other chunk.
        let mut counts: BTreeMap<String, i64> = BTreeMap::new();
        for e in st.nbrs(c, Direction::Out, "MENTIONS") {
            for o in st.nbrs(&e, Direction::In, "MENTIONS") {
                if o != *c {
                    *counts.entry(o).or_default() += 1;
                }
            }
        }
        let all: BTreeSet<String> = counts.keys().cloned().collect();
        let got = strings(&run(&st.e, Q4, &params! {"id" => c.as_str()}));
        st.check_limited("q4", got, &all, LIMIT);
        let mut top: Vec<(String, i64)> = counts.into_iter().collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        top.truncate(TOP);
        let out = run(&st.e, Q6, &params! {"id" => c.as_str()});
        assert_eq!(out.cols, ["id", "n"]);
        let want: Vec<Vec<Value>> = top.into_iter().map(|(o, n)| vec![s(&o), Value::Int(n)]).collect();
        assert_eq!(out.rows, want, "q6 {c}");
    }
}

#[test]
fn study_q7_entity_set_expansion() {
    let st = study();
    let mut rng = Rng(7);
    for _ in 0..12 {
        let set: Vec<String> = (0..5).map(|_| st.ents[rng.below(st.ents.len())].clone()).collect();
        let mut all = BTreeSet::new();
        for e in &set {
            for c in st.nbrs(e, Direction::In, "MENTIONS") {
                all.extend(st.nbrs(&c, Direction::Out, "MENTIONS"));
            }
        }
        let got = strings(&run(&st.e, Q7, &params! {"ids" => set.clone()}));
        st.check_limited("q7", got, &all, LIMIT);
    }
}

#[test]
fn study_q8_within_four_hops() {
    let st = study();
    let ctl = Control::default();
    let an = st.db.analytics();
    for e in st
        .ents
        .iter()
        .take(3)
        .chain(Study::sample(&st.ents))
        .chain([&"ent-120".to_string()])
    {
        let key = NodeKey::from(e.as_str());
        let ball = keys(an.k_hop(&key, &KHop::within(4), &ctl).unwrap().value);
        let trails = keys(
            an.var_length_endpoints(
                &key,
                1,
                &PathQuery {
                    max_hops: 4,
                    ..Default::default()
                },
                None,
                &ctl,
            )
            .unwrap()
            .value,
        );
        // Relationship-unique paths: the k-hop ball, plus the seed itself when a cycle of at
        // most 4 relationships runs through it.
        let without_seed: BTreeSet<String> = trails.iter().filter(|k| *k != e).cloned().collect();
        assert_eq!(without_seed, ball, "{e}");
        let got = sorted(strings(&run(&st.e, Q8_ALL, &params! {"id" => e.as_str()})));
        assert_eq!(got, trails.iter().cloned().collect::<Vec<_>>(), "q8 (no limit) {e}");
        let got = strings(&run(&st.e, Q8, &params! {"id" => e.as_str()}));
        st.check_limited("q8", got, &trails, 100);
    }
}

#[test]
fn study_q11_shortest_path_length() {
    let st = study();
    let ctl = Control::default();
    let an = st.db.analytics();
    let mut rng = Rng(11);
    let mut pairs: Vec<(String, String)> = (0..25)
        .map(|_| {
            let a = rng.below(st.ents.len());
            let b = (a + 1 + rng.below(st.ents.len() - 1)) % st.ents.len();
            (st.ents[a].clone(), st.ents[b].clone())
        })
        .collect();
    pairs.push(("ent-000".into(), "ent-island".into())); // another component
    pairs.push(("ent-121".into(), "ent-001".into())); // an entity no chunk mentions
    let mut reached = 0;
    for (a, b) in &pairs {
        let q = PathQuery {
            max_hops: 12,
            ..Default::default()
        };
        let native = an
            .shortest_path(&NodeKey::from(a.as_str()), &NodeKey::from(b.as_str()), &q, &ctl)
            .unwrap()
            .value;
        let out = run(&st.e, Q11, &params! {"a" => a.as_str(), "b" => b.as_str()});
        assert_eq!(out.cols, ["length(p)"]);
        match native {
            Some(path) => {
                reached += 1;
                assert_eq!(out.rows, [[Value::Int(path.len() as i64 - 1)]], "{a} -> {b}");
            }
            None => assert!(out.rows.is_empty(), "{a} -> {b}: {:?}", out.rows),
        }
    }
    assert!(reached > 10 && reached < pairs.len());
}
