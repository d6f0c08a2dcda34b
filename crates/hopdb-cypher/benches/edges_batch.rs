//! LightRAG's `get_edges_batch` query with and without the expand-into (decision 0053), and
//! the same ends named in a WHERE (decision 0054); node lookups by element id.
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
//! - `where`: the far end's `entity_id` in a WHERE instead of the pattern (`WHERE
//!   end.entity_id = pair.tgt`), as hand-written Cypher often has it: the WHERE names the end;
//! - `listing`: the same WHERE made opaque to the matcher (`(end.entity_id = pair.tgt) =
//!   true`): the start's relationships listed and each neighbour read, what every query did
//!   before these fast paths.
//!
//! Then node lookups, 100 nodes a batch: `MATCH (n) WHERE elementId(n) IN $ids` (what the
//! explorer and drivers send for nodes they were given) against the same made opaque.
//!
//! The forms answer the same (checked first). Rounds rotate their order; the figure is the
//! median over 15 rounds of each one's time for the same 50 batches, and the median of the
//! per-round ratios to the opaque form. Store first, then again with the projection `hopdb
//! serve` builds.

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
const WHERE: &str = "UNWIND $pairs AS pair \
    MATCH (start:base {entity_id: pair.src})-[r:DIRECTED]-(end:base) WHERE end.entity_id = pair.tgt \
    RETURN pair.src AS src_id, pair.tgt AS tgt_id, collect(properties(r)) AS edges";
const LISTING: &str = "UNWIND $pairs AS pair \
    MATCH (start:base {entity_id: pair.src})-[r:DIRECTED]-(end:base) WHERE (end.entity_id = pair.tgt) = true \
    RETURN pair.src AS src_id, pair.tgt AS tgt_id, collect(properties(r)) AS edges";
const BY_ELEMENT_ID: &str = "MATCH (n) WHERE elementId(n) IN $ids RETURN n.entity_id";
const BY_ELEMENT_ID_OPAQUE: &str = "MATCH (n) WHERE (elementId(n) IN $ids) = true RETURN n.entity_id";
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

/// Times each of `forms` (label, query) over the same batches; the last is the reference the
/// others are checked against and compared with. Returns a table row.
fn measure(e: &QueryEngine, batches: &[Params], forms: &[(&str, &str)], stage: &str, name: &str) -> String {
    let reference = forms.last().unwrap().1;
    for p in batches.iter().take(5) {
        for (label, q) in forms {
            assert_eq!(
                sorted(rows(e, q, p)),
                sorted(rows(e, reference, p)),
                "{name}: {label} differs"
            );
        }
    }
    let n = forms.len();
    let (mut times, mut ratios) = (vec![Vec::new(); n], vec![Vec::new(); n]);
    for round in 0..ROUNDS {
        let mut secs = vec![0.0; n];
        for i in 0..n {
            let k = (i + round) % n;
            let t = Instant::now();
            for p in batches {
                black_box(rows(e, forms[k].1, p));
            }
            secs[k] = t.elapsed().as_secs_f64();
        }
        for k in 0..n {
            times[k].push(secs[k] / batches.len() as f64 * 1e3);
            ratios[k].push(secs[n - 1] / secs[k]);
        }
    }
    let cells: Vec<String> = times.into_iter().map(|t| format!("{:.3}", median(t))).collect();
    let speedups: Vec<String> = ratios[..n - 1]
        .iter()
        .map(|r| format!("{:.2}x", median(r.clone())))
        .collect();
    format!(
        "| {name} | {stage} | {} | {} |",
        cells.join(" | "),
        speedups.join(" | ")
    )
}

/// Batches of `PAIRS` element ids of random nodes, a fixed sequence.
fn id_batches(e: &QueryEngine) -> Vec<Params> {
    let ids: Vec<Value> = rows(e, "MATCH (n:base) RETURN elementId(n)", &Params::new())
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    (0..BATCHES)
        .map(|b| {
            let pick = (0..PAIRS).map(|i| ids[(b * 7919 + i * 104_729) % ids.len()].clone());
            let mut p = Params::new();
            p.insert("ids".into(), Value::List(pick.collect()));
            p
        })
        .collect()
}

fn main() {
    let Some(dir) = hopdb_testdata::datasets() else {
        eprintln!("skipping: no datasets folder (set HOPDB_DATASETS)");
        return;
    };
    let edge_forms = [("into", INTO), ("where", WHERE), ("listing", LISTING)];
    let id_forms = [("by element id", BY_ELEMENT_ID), ("opaque", BY_ELEMENT_ID_OPAQUE)];
    let mut lookups = Vec::new();
    println!(
        "| graph | adjacency | into, ms a batch of {PAIRS} pairs | where, ms | listing, ms | \
         listing / into | listing / where (medians of {ROUNDS} rounds) |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|");
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
        println!("{}", measure(&e, &batches, &edge_forms, "store", &name));
        lookups.push(measure(&e, &id_batches(&e), &id_forms, "store", &name));
        db.analytics()
            .projection(&ProjectionSpec::all(), &Control::default())
            .unwrap();
        println!("{}", measure(&e, &batches, &edge_forms, "projection", &name));
    }
    println!();
    println!("| graph | adjacency | elementId(n) IN $ids, ms a batch of {PAIRS} | opaque, ms | opaque / by id |");
    println!("|---|---|---:|---:|---:|");
    for row in lookups {
        println!("{row}");
    }
}
