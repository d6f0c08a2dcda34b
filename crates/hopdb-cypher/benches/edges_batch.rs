//! LightRAG's `get_edges_batch` query with and without the expand-into (decision 0053).
//!
//! `cargo bench -p hopdb-cypher --bench edges_batch` (LightRAG graphs from ../shared/datasets
//! or $HOPDB_DATASETS; a missing one is skipped with a message). Each graph is imported from
//! LightRAG's GraphML into a RocksDB store and given the shape LightRAG's Neo4JStorage keeps:
//! the workspace label `base` with an index on `entity_id`, and a directed `DIRECTED`
//! relationship per edge. A batch is 100 pairs:
//! the ends of relationships drawn at random (so hubs come up as often as their degree
//! says), half of them asked the other way round, as retrieval asks for them.
//!
//! - `into`: the query as LightRAG sends it; both ends are named by the index, so the step
//!   is an expand-into (point lookups between the two ends);
//! - `listing`: the same with the far end's `entity_id` in a WHERE instead of the pattern: the
//!   start's relationships listed and each neighbour read (what every query did before).
//!
//! Both answer the same (checked first). Rounds alternate the order of the two; the figure is
//! the median over 15 rounds of each one's time for the same 50 batches, and the median of the
//! per-round ratios. Store first, then again with the projection `hopdb serve` builds.

// Benchmarks: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use hopdb_cypher::{Params, QueryEngine, Value};
use hopdb_database::import::{import, ImportSpec, NoProgress};
use hopdb_database::{Control, Database, GraphRead, ProjectionSpec};
use std::hint::black_box;
use std::time::Instant;

const INTO: &str = "UNWIND $pairs AS pair \
    MATCH (start:base {entity_id: pair.src})-[r:DIRECTED]-(end:base {entity_id: pair.tgt}) \
    RETURN pair.src AS src_id, pair.tgt AS tgt_id, collect(properties(r)) AS edges";
const LISTING: &str = "UNWIND $pairs AS pair \
    MATCH (start:base {entity_id: pair.src})-[r:DIRECTED]-(end:base) WHERE end.entity_id = pair.tgt \
    RETURN pair.src AS src_id, pair.tgt AS tgt_id, collect(properties(r)) AS edges";
const ROUNDS: usize = 15;
const BATCHES: usize = 50;
const PAIRS: usize = 100;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn rows(e: &QueryEngine, q: &str, p: &Params) -> Vec<Vec<Value>> {
    e.query(q, p).unwrap().collect_rows().unwrap()
}

fn sorted(r: Vec<Vec<Value>>) -> Vec<String> {
    let mut out: Vec<String> = r.iter().map(|x| format!("{x:?}")).collect();
    out.sort();
    out
}

/// Batches of `PAIRS` (src, tgt) entity ids from random relationships, a fixed sequence.
fn batches(e: &QueryEngine) -> Vec<Params> {
    let ends = rows(
        e,
        "MATCH (a)-[r:DIRECTED]->(b) RETURN a.entity_id, b.entity_id",
        &Params::new(),
    );
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..BATCHES)
        .map(|_| {
            let pairs = (0..PAIRS)
                .map(|_| {
                    let r = next();
                    let row = &ends[(r % ends.len() as u64) as usize];
                    let (a, b) = if r & (1 << 40) == 0 { (0, 1) } else { (1, 0) };
                    let mut m = std::collections::BTreeMap::new();
                    m.insert("src".to_string(), row[a].clone());
                    m.insert("tgt".to_string(), row[b].clone());
                    Value::Map(m)
                })
                .collect();
            let mut p = Params::new();
            p.insert("pairs".into(), Value::List(pairs));
            p
        })
        .collect()
}

fn measure(e: &QueryEngine, batches: &[Params], stage: &str, name: &str) {
    for p in batches.iter().take(5) {
        assert_eq!(
            sorted(rows(e, INTO, p)),
            sorted(rows(e, LISTING, p)),
            "{name}: the two forms differ"
        );
    }
    let (mut times, mut ratios) = ([Vec::new(), Vec::new()], Vec::new());
    for round in 0..ROUNDS {
        let mut secs = [0.0; 2];
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for k in order {
            let q = [INTO, LISTING][k];
            let t = Instant::now();
            for p in batches {
                black_box(rows(e, q, p));
            }
            secs[k] = t.elapsed().as_secs_f64();
        }
        for k in 0..2 {
            times[k].push(secs[k] / batches.len() as f64 * 1e3);
        }
        ratios.push(secs[1] / secs[0]);
    }
    let [into, listing] = times.map(median);
    println!(
        "| {name} | {stage} | {into:.3} | {listing:.3} | {:.2}x |",
        median(ratios)
    );
}

fn main() {
    let Some(dir) = hopdb_testdata::datasets() else {
        eprintln!("skipping: no datasets folder (set HOPDB_DATASETS)");
        return;
    };
    println!("| graph | adjacency | into, ms a batch of {PAIRS} | listing, ms | listing / into (median of {ROUNDS} rounds) |");
    println!("|---|---|---:|---:|---:|");
    for name in [
        "lightrag-lennyhub-podcasts",
        "lightrag-dickens-full-workdir",
        "lightrag-africa-cdc-2024",
    ] {
        let file = dir.join(name).join("graph_chunk_entity_relation.graphml.gz");
        if !file.is_file() {
            eprintln!("skipping {name}: {} is absent", file.display());
            continue;
        }
        let tmp = tempfile::tempdir().unwrap();
        let db = Database::open(tmp.path().join("store")).unwrap();
        let spec = ImportSpec {
            graphml: vec![file],
            ..ImportSpec::default()
        };
        import(db.graph(), &spec, &NoProgress).unwrap();
        let e = QueryEngine::new(db.clone());
        // As LightRAG's Neo4JStorage keeps the graph: the workspace label, an index on
        // entity_id, one directed DIRECTED relationship per pair with the edge's properties.
        for q in [
            "MATCH (n) SET n:base",
            "CREATE INDEX FOR (n:base) ON (n.entity_id)",
            "MATCH (a)-[r:RELATED]-(b) WHERE a._key < b._key CREATE (a)-[d:DIRECTED]->(b) SET d = properties(r)",
        ] {
            rows(&e, q, &Params::new());
        }
        db.graph().flush().unwrap();
        let name = format!(
            "{name} ({} nodes, {} rels)",
            db.graph().node_count().unwrap(),
            db.graph().edge_count().unwrap()
        );
        let batches = batches(&e);
        measure(&e, &batches, "store", &name);
        db.analytics()
            .projection(&ProjectionSpec::all(), &Control::default())
            .unwrap();
        measure(&e, &batches, "projection", &name);
    }
}
