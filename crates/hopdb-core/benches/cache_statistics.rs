//! What counting cache hits costs reads: the same store opened with
//! `Config::cache_statistics` on and off, read in alternating rounds (decision 0052).
//!
//! `cargo bench -p hopdb-core --bench cache_statistics` (web-NotreDame from ../shared/datasets
//! or $HOPDB_DATASETS; skipped with a message when absent). One thread. Each round times the
//! same 20,000 random reads on every store, the order rotating between rounds; the figure is
//! the median over rounds of the per-round ratio to the first store with statistics off, so
//! the machine's drift cancels. A second store with statistics off is the control: its ratio
//! is what two identical stores differ by. The block cache is 8 MiB, smaller than the store,
//! so the reads both hit and miss.

// Benchmarks: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/datasets.rs"]
mod datasets;

use hopdb_core::{Config, Direction, EdgeInput, Graph, GraphRead, NodeKey, WriteMode};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Instant;

const ROUNDS: usize = 15;
const READS: usize = 20_000;

fn open(dir: &std::path::Path, statistics: bool, edges: &[(i64, i64)]) -> Graph {
    let cfg = Config {
        cache_statistics: statistics,
        block_cache_bytes: 8 << 20,
        ..Config::default()
    };
    let g = Graph::open_with(dir, cfg).expect("open");
    for c in edges.chunks(5000) {
        let batch: Vec<EdgeInput> = c.iter().map(|&(a, b)| EdgeInput::new(a, "LINK", b)).collect();
        g.upsert_edges(&batch, WriteMode::Replace).expect("edges");
    }
    g.flush().expect("flush");
    g.compact().expect("compact");
    g
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

type Read = fn(&Graph, &[NodeKey], usize) -> usize;

fn main() {
    let Some(edges) = datasets::read_edges("snap-web-NotreDame/web-NotreDame.txt.gz", true) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    eprintln!("loading web-NotreDame ({} edges) three times", edges.len());
    let stores = [
        open(&dir.path().join("off"), false, &edges),
        open(&dir.path().join("control"), false, &edges),
        open(&dir.path().join("on"), true, &edges),
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let keys: Vec<NodeKey> = (0..READS)
        .map(|_| NodeKey::Int(edges[rng.random_range(0..edges.len())].0))
        .collect();
    let reads: [(&str, Read); 3] = [
        ("edges of a node", |g, k, i| {
            g.edges(&k[i], Direction::Out, None, None).expect("edges").len()
        }),
        ("degree", |g, k, i| {
            g.degree(&k[i], Direction::Both, None).expect("degree").count as usize
        }),
        ("find edge", |g, k, i| {
            usize::from(g.has_edge(&k[i], &k[(i + 1) % k.len()], None, false).expect("has"))
        }),
    ];
    println!("| read | statistics off (reads/s, median) | on | on / off | control (off again) / off |");
    println!("|---|---|---|---|---|");
    for (name, read) in reads {
        let mut rates = [Vec::new(), Vec::new(), Vec::new()];
        let mut ratios = [Vec::new(), Vec::new()];
        for round in 0..ROUNDS {
            let mut secs = [0.0; 3];
            for k in 0..3 {
                let s = (round + k) % 3;
                let t = Instant::now();
                let mut sum = 0;
                for i in 0..READS {
                    sum += read(&stores[s], &keys, i);
                }
                black_box(sum);
                secs[s] = t.elapsed().as_secs_f64();
            }
            for s in 0..3 {
                rates[s].push(READS as f64 / secs[s]);
            }
            ratios[0].push(secs[0] / secs[2]);
            ratios[1].push(secs[0] / secs[1]);
        }
        let [off, _, on] = rates.map(median);
        let [with_stats, control] = ratios.map(median);
        println!("| {name} | {off:.0} | {on:.0} | {with_stats:.3} | {control:.3} |");
    }
    let s = stores[2].memory_usage().storage;
    let (h, m) = (s.block_cache_hits.unwrap_or(0), s.block_cache_misses.unwrap_or(0));
    println!(
        "\nblock cache with statistics on: {h} hits, {m} misses ({:.1}% hit rate); ratios are medians of {ROUNDS} rounds",
        100.0 * h as f64 / (h + m).max(1) as f64
    );
}
