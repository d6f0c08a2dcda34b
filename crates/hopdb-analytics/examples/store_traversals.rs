//! k-hop latencies on a RocksDB store, both execution paths, and whole-graph algorithms
//! through `Analytics` (projection build included once), on the largest real graphs.
//!
//! cargo run --release -p hopdb-analytics --example store_traversals [-- DATASETS_DIR]
// A benchmark program, not library code: a failed unwrap/expect aborts the run with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Instant;

use hopdb_algo::{Control, HopMode, LeidenOptions, PageRankOptions};
use hopdb_analytics::{Analytics, KHop, ProjectionSpec, Via};
use hopdb_core::{Direction, Graph, NodeKey};
use hopdb_import::{import, EdgeList, ImportSpec, NoProgress};
use rand::{Rng, SeedableRng};

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let root = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/datasets")));
    let graphs = [
        (
            "snap-web-NotreDame",
            "snap-web-NotreDame/web-NotreDame.txt.gz",
            false,
            1u64,
        ),
        ("dimacs9-road-NY", "dimacs9-road-NY/USA-road-d.NY.gr.gz", true, 0),
    ];
    let ctrl = Control::default();
    for (name, file, weighted, skip) in graphs {
        let dir = tempfile::tempdir().expect("temp dir");
        let g = Graph::open(dir.path()).expect("open store");
        let t = Instant::now();
        let spec = ImportSpec {
            edge_lists: vec![EdgeList {
                weighted,
                skip_lines: skip,
                ..EdgeList::new(root.join(file))
            }],
            ..ImportSpec::default()
        };
        let rep = import(&g, &spec, &NoProgress).expect("import");
        println!(
            "## {name}: {} rows imported into a RocksDB store in {:.2} s",
            rep.rows,
            t.elapsed().as_secs_f64()
        );
        let an = Analytics::new(g.clone());
        let p = an
            .projection(&ProjectionSpec::all(), &ctrl)
            .expect("projection")
            .projection;
        let i = p.info();
        println!(
            "projection: {} nodes, {} edges, built in {:.0} ms, {:.1} MiB (out, in, symmetric views, keys)",
            i.nodes,
            i.edges,
            i.seconds * 1e3,
            i.bytes as f64 / (1 << 20) as f64
        );
        let keys: Vec<NodeKey> = p.keys().to_vec();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(42);
        let seeds: Vec<NodeKey> = (0..1000)
            .map(|_| keys[rng.random_range(0..keys.len())].clone())
            .collect();
        println!("| k | path | median µs | p99 µs | mean nodes |");
        println!("|---|---|---:|---:|---:|");
        for k in 2..=4u32 {
            for via in [Via::Store, Via::Projection] {
                let q = KHop {
                    k,
                    mode: HopMode::Within,
                    dir: Direction::Out,
                    types: None,
                    limit: None,
                    via,
                };
                // Warm pass over every seed: the figures are the steady state with a warm block cache.
                for s in &seeds {
                    an.k_hop(s, &q, &ctrl).expect("warm-up");
                }
                let mut us = Vec::new();
                let mut found = 0usize;
                for s in &seeds {
                    let t = Instant::now();
                    let r = an.k_hop(s, &q, &ctrl).expect("k-hop");
                    us.push(t.elapsed().as_secs_f64() * 1e6);
                    found += r.value.len();
                }
                let med = pct(&mut us, 0.5);
                let p99 = pct(&mut us, 0.99);
                println!(
                    "| {k} | {via:?} | {med:.1} | {p99:.1} | {:.0} |",
                    found as f64 / seeds.len() as f64
                );
            }
        }
        let t = Instant::now();
        let pr = an
            .pagerank(
                &PageRankOptions {
                    max_iterations: 20,
                    tolerance: 0.0,
                    ..Default::default()
                },
                &ctrl,
            )
            .expect("pagerank");
        println!(
            "PageRank 20 iterations: {:.1} ms ({} nodes)",
            t.elapsed().as_secs_f64() * 1e3,
            pr.len()
        );
        let t = Instant::now();
        let w = an.weakly_connected_components(&ctrl).expect("wcc");
        println!(
            "WCC: {:.1} ms ({} components)",
            t.elapsed().as_secs_f64() * 1e3,
            w.count
        );
        let t = Instant::now();
        let l = an.leiden(&LeidenOptions::default(), false, &ctrl).expect("leiden");
        println!(
            "Leiden: {:.2} s (modularity {:.4}, {} communities)",
            t.elapsed().as_secs_f64(),
            l.quality,
            l.count
        );
        println!();
    }
}
