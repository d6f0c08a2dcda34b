//! Micro-benchmark of the traversals and whole-graph algorithms on a real edge list.
//!
//! usage: algo_bench FILE [--skip N] [--weight-col C] [--queries Q] [--seed S]
//!
//! FILE is read by the tests' loader (tests/common/edgelist.rs): `#`/`%`/`c`/`p` comment
//! lines, whitespace or comma separated, DIMACS `a u v w` lines (the `a` dropped), `--skip`
//! leading data lines, node ids made dense in order of first appearance. Prints one JSON object: load and build times,
//! memory, the seed nodes (file ids, so bench/algo_vs_peers.py can run the same queries), per
//! seed latency and distinct count of 2-, 3-, 4-hop within-k (out-edges, no limit) and of the
//! "within 4, LIMIT 100" query, PageRank (20 iterations) on 1 and 2 threads, and WCC.
// A benchmark program, not library code: a failed unwrap/expect aborts the run with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/common/edgelist.rs"]
mod edgelist;

use std::path::Path;
use std::time::Instant;

use hopdb_algo::components::weakly_connected_components_lp;
use hopdb_algo::{k_hop, pagerank, weakly_connected_components, Control, Csr, HopMode, PageRankOptions};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

struct Args {
    file: String,
    skip: usize,
    weight_col: Option<usize>,
    queries: usize,
    seed: u64,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let mut args = Args {
        file: String::new(),
        skip: 0,
        weight_col: None,
        queries: 1000,
        seed: 42,
    };
    while let Some(a) = it.next() {
        let mut num = |name: &str| -> Result<u64, String> {
            it.next()
                .and_then(|v| v.parse().ok())
                .ok_or(format!("{name} needs a number"))
        };
        match a.as_str() {
            "--skip" => args.skip = num("--skip")? as usize,
            "--weight-col" => args.weight_col = Some(num("--weight-col")? as usize),
            "--queries" => args.queries = num("--queries")? as usize,
            "--seed" => args.seed = num("--seed")?,
            _ if args.file.is_empty() => args.file = a,
            _ => return Err(format!("unexpected argument {a}")),
        }
    }
    if args.file.is_empty() {
        return Err("usage: algo_bench FILE [--skip N] [--weight-col C] [--queries Q] [--seed S]".into());
    }
    Ok(args)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let at = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[at]
}

/// Runs one query per seed; per-seed latency (µs) and result size, plus median and p99.
fn time_queries(seeds: &[u32], mut query: impl FnMut(u32) -> usize) -> Value {
    let mut lat = Vec::with_capacity(seeds.len());
    let mut counts = Vec::with_capacity(seeds.len());
    for &s in seeds {
        let t = Instant::now();
        let c = query(s);
        lat.push(t.elapsed().as_secs_f64() * 1e6);
        counts.push(c);
    }
    let mut sorted = lat.clone();
    sorted.sort_by(f64::total_cmp);
    json!({
        "median_us": percentile(&sorted, 0.5),
        "p99_us": percentile(&sorted, 0.99),
        "mean_count": counts.iter().sum::<usize>() as f64 / counts.len().max(1) as f64,
        "latencies_us": lat,
        "counts": counts,
    })
}

fn main() -> Result<(), String> {
    let args = parse_args()?;
    let t = Instant::now();
    let g = edgelist::read_edge_list(Path::new(&args.file), args.skip, args.weight_col)?;
    let load_s = t.elapsed().as_secs_f64();
    let n = g.n;
    let t = Instant::now();
    let out = Csr::from_edges(n, &g.edges, g.weights.as_deref()).map_err(|e| e.to_string())?;
    let inc = out.transpose();
    let build_s = t.elapsed().as_secs_f64();

    // Seeds: distinct nodes with at least one out-edge, shuffled with a fixed seed.
    let mut candidates: Vec<u32> = (0..n).filter(|&v| out.degree(v) > 0).collect();
    candidates.shuffle(&mut ChaCha8Rng::seed_from_u64(args.seed));
    let seeds: Vec<u32> = candidates.into_iter().take(args.queries).collect();
    let c = Control::unbounded();
    // Warm-up pass (page in the CSR, settle the allocator) so the first seeds are not outliers.
    for &s in &seeds {
        k_hop(&[&out, &inc], s, 4, HopMode::Within, None, &c).map_err(|e| e.to_string())?;
    }
    let mut khop = serde_json::Map::new();
    for k in [2u32, 3, 4] {
        let r = time_queries(&seeds, |s| {
            k_hop(&[&out], s, k, HopMode::Within, None, &c).map_or(0, |v| v.len())
        });
        khop.insert(k.to_string(), r);
    }
    let limited = time_queries(&seeds, |s| {
        k_hop(&[&out, &inc], s, 4, HopMode::Within, Some(100), &c).map_or(0, |v| v.len())
    });

    let opts = PageRankOptions {
        max_iterations: 20,
        tolerance: 0.0,
        ..Default::default()
    };
    let mut pr = serde_json::Map::new();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| e.to_string())?;
        let t = Instant::now();
        pool.install(|| pagerank(&out, &inc, &opts, &c))
            .map_err(|e| e.to_string())?;
        pr.insert(threads.to_string(), json!(t.elapsed().as_secs_f64()));
    }
    let t = Instant::now();
    let wcc = weakly_connected_components(&out, &c).map_err(|e| e.to_string())?;
    let uf_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let lp = weakly_connected_components_lp(&out, &c).map_err(|e| e.to_string())?;
    let lp_s = t.elapsed().as_secs_f64();
    if lp != wcc {
        return Err("label propagation and union-find disagree".into());
    }

    let report = json!({
        "file": args.file,
        "nodes": n,
        "edges": out.edge_count(),
        "load_s": load_s,
        "build_s": build_s,
        "memory_bytes": out.memory_bytes() + inc.memory_bytes(),
        "seeds": seeds.iter().map(|&s| g.ids[s as usize].clone()).collect::<Vec<_>>(),
        "khop_within": khop,
        "khop_both_within4_limit100": limited,
        "pagerank20_s": pr,
        "wcc_s": {"union_find": uf_s, "label_propagation_2_threads": lp_s},
        "wcc_count": wcc.count,
    });
    println!("{report}");
    Ok(())
}
