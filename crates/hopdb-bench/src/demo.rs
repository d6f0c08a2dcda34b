//! `hopdb-bench demo` (formerly `hopdb demo`), the README's main job: generate the study's
//! knowledge graph, load it into a durable store with the bulk loader, then answer the study's
//! Q1-Q7 retrieval queries and LightRAG's storage-call mix, printing sample answers and latencies.

use crate::kg;
use anyhow::{bail, Context, Result};
use clap::Args;
use hopdb_database::{Graph, GraphRead, NodeKey};
use hopdb_kg::{KgSpec, Kind};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// `hopdb-bench demo`'s command line.
#[derive(Args)]
pub struct DemoArgs {
    /// Store directory (reused if it already holds this graph; see --fresh).
    dir: PathBuf,
    /// Scale factor of the generated graph (1 = the study's full scale).
    #[arg(long, default_value_t = 1.0)]
    scale: f64,
    /// Random seed of the generated graph (the same seed gives the same graph).
    #[arg(long, default_value_t = hopdb_kg::DEFAULT_SEED)]
    seed: u64,
    /// Seconds to time each query shape.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Delete the store directory first and load from scratch.
    #[arg(long)]
    fresh: bool,
    /// Print the timing results as JSON.
    #[arg(long)]
    json: bool,
}

fn human(bytes: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < units.len() {
        v /= 1024.0;
        i += 1;
    }
    format!("{v:.1} {}", units[i])
}

fn progress_bar(total: u64) -> ProgressBar {
    let pb = ProgressBar::new(total);
    pb.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {human_pos}/{human_len} rows, {per_sec}, ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb
}

/// Latency samples of one query shape.
struct Timing {
    name: &'static str,
    calls: u64,
    secs: f64,
    lat_us: Vec<f64>,
}

impl Timing {
    fn pct(&self, p: f64) -> f64 {
        let mut v = self.lat_us.clone();
        v.sort_by(f64::total_cmp);
        v.get(((v.len() as f64 - 1.0) * p).round() as usize)
            .copied()
            .unwrap_or(0.0)
    }
}

/// Calls `f` over the seed pool for `seconds` (and at least one pass), timing each call.
fn time_query(
    name: &'static str,
    seconds: f64,
    pool_len: usize,
    mut f: impl FnMut(usize) -> Result<usize>,
) -> Result<Timing> {
    for i in 0..pool_len {
        f(i)?; // warm-up pass
    }
    let mut lat_us = Vec::new();
    let started = Instant::now();
    let budget = Duration::from_secs_f64(seconds);
    let mut i = 0;
    while started.elapsed() < budget || i < pool_len {
        let t = Instant::now();
        f(i % pool_len)?;
        lat_us.push(t.elapsed().as_secs_f64() * 1e6);
        i += 1;
    }
    Ok(Timing {
        name,
        calls: i as u64,
        secs: started.elapsed().as_secs_f64(),
        lat_us,
    })
}

fn keys(spec: &KgSpec, kind: Kind, seed: u64) -> Vec<NodeKey> {
    hopdb_kg::sample_keys(spec, kind, 500, seed)
        .into_iter()
        .map(NodeKey::Str)
        .collect()
}

fn show(keys: &[NodeKey], n: usize) -> String {
    let mut s: Vec<String> = keys.iter().take(n).map(|k| k.to_string()).collect();
    if keys.len() > n {
        s.push(format!("... ({} in all)", keys.len()));
    }
    s.join(", ")
}

/// Runs the demo: loads the graph (unless the store already holds it), prints sample answers
/// and the latency table (or JSON).
pub fn run(a: &DemoArgs) -> Result<()> {
    let (dir, scale, seed, seconds, fresh, as_json) = (a.dir.as_path(), a.scale, a.seed, a.seconds, a.fresh, a.json);
    let spec = KgSpec::new(scale, seed)?;
    let counts = spec.counts();
    if fresh && dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    let g = Graph::open(dir).with_context(|| format!("opening {}", dir.display()))?;
    let (n0, e0) = (g.node_count()?, g.edge_count()?);
    if (n0, e0) == (counts.nodes(), counts.edges()) {
        eprintln!(
            "{} already holds the S={scale} graph ({n0} nodes, {e0} edges); use --fresh to reload",
            dir.display()
        );
    } else {
        if n0 != 0 {
            bail!(
                "{} holds another graph ({n0} nodes, {e0} edges); pass --fresh to replace it",
                dir.display()
            );
        }
        let total = counts.nodes() + counts.edges();
        let pb = progress_bar(total);
        pb.set_message("loading");
        let started = Instant::now();
        let (n, e) = kg::load(&g, &spec, |rows| pb.set_position(rows))?;
        g.flush()?;
        pb.finish_and_clear();
        let secs = started.elapsed().as_secs_f64();
        let s = g.stats()?;
        eprintln!(
            "loaded {n} nodes and {e} edges in {secs:.1} s ({:.0} rows/s, one atomic bulk load), {} on disk",
            (n + e) as f64 / secs,
            human(s.storage.sst_bytes + s.storage.wal_bytes)
        );
    }
    let chunks = keys(&spec, Kind::Chunk, 1);
    let entities = keys(&spec, Kind::Entity, 2);
    let docs = keys(&spec, Kind::Document, 3);
    let seeds5: Vec<Vec<NodeKey>> = (0..100)
        .map(|i| (0..5).map(|j| entities[(i * 5 + j) % entities.len()].clone()).collect())
        .collect();

    if !as_json {
        println!("\nSample answers (first seed of each pool):");
        let c = &chunks[0];
        let node = kg::q1_chunk(&g, c)?.context("sampled chunk missing")?;
        println!("Q1 chunk {c}: {:?}", node.props);
        println!("Q2 entities of {c}: {}", show(&kg::q2_chunk_entities(&g, c)?, 5));
        println!(
            "Q3 chunks mentioning {}: {}",
            entities[0],
            show(&kg::q3_entity_chunks(&g, &entities[0])?, 5)
        );
        println!("Q4 chunks two hops from {c}: {}", show(&kg::q4_two_hop(&g, c)?, 5));
        println!(
            "Q5 chunks of {}: {}",
            docs[0],
            show(&kg::q5_doc_chunks(&g, &docs[0])?, 5)
        );
        let q6 = kg::q6_co_entity(&g, c)?;
        println!(
            "Q6 chunks sharing entities with {c}: {}",
            q6.iter()
                .take(3)
                .map(|(k, n)| format!("{k} ({n} shared)"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        println!(
            "Q7 entities near {}: {}",
            show(&seeds5[0], 5),
            show(&kg::q7_multi_seed(&g, &seeds5[0])?, 5)
        );
    }

    let mut results = vec![
        time_query("Q1 point lookup (chunk)", seconds, chunks.len(), |i| {
            Ok(kg::q1_chunk(&g, &chunks[i])?.map_or(0, |_| 1))
        })?,
        time_query("Q2 chunk->entities LIMIT 50", seconds, chunks.len(), |i| {
            Ok(kg::q2_chunk_entities(&g, &chunks[i])?.len())
        })?,
        time_query("Q3 entity->chunks LIMIT 50", seconds, entities.len(), |i| {
            Ok(kg::q3_entity_chunks(&g, &entities[i])?.len())
        })?,
        time_query("Q4 2-hop DISTINCT LIMIT 50", seconds, chunks.len(), |i| {
            Ok(kg::q4_two_hop(&g, &chunks[i])?.len())
        })?,
        time_query("Q5 document->chunks", seconds, docs.len(), |i| {
            Ok(kg::q5_doc_chunks(&g, &docs[i])?.len())
        })?,
        time_query("Q6 co-entity count top 10", seconds, chunks.len(), |i| {
            Ok(kg::q6_co_entity(&g, &chunks[i])?.len())
        })?,
        time_query("Q7 multi-seed expand LIMIT 50", seconds, seeds5.len(), |i| {
            Ok(kg::q7_multi_seed(&g, &seeds5[i])?.len())
        })?,
    ];
    // The study's weighted mix, as one stream of calls.
    let mix: Vec<(u32, usize)> = {
        let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ seed;
        (0..10_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                ((x % 100) as u32, (x >> 32) as usize % 500)
            })
            .collect()
    };
    results.push(time_query(
        "Q1-Q7 weighted mix (30/30/20/10/3/4/3)",
        seconds,
        mix.len(),
        |i| {
            let (dice, s) = mix[i];
            Ok(match dice {
                0..30 => kg::q1_chunk(&g, &chunks[s])?.map_or(0, |_| 1),
                30..60 => kg::q2_chunk_entities(&g, &chunks[s])?.len(),
                60..80 => kg::q3_entity_chunks(&g, &entities[s])?.len(),
                80..90 => kg::q4_two_hop(&g, &chunks[s])?.len(),
                90..93 => kg::q5_doc_chunks(&g, &docs[s])?.len(),
                93..97 => kg::q6_co_entity(&g, &chunks[s])?.len(),
                _ => kg::q7_multi_seed(&g, &seeds5[s % seeds5.len()])?.len(),
            })
        },
    )?);
    results.push(time_query(
        "LightRAG call mix (35/25/15/15/10)",
        seconds,
        mix.len(),
        |i| {
            let (dice, s) = mix[i];
            Ok(kg::lightrag_call(&g, dice, &entities[s])?)
        },
    )?);

    if as_json {
        let rows: Vec<_> = results
            .iter()
            .map(|t| json!({"query": t.name, "calls": t.calls, "ops_per_sec": t.calls as f64 / t.secs, "p50_us": t.pct(0.5), "p99_us": t.pct(0.99)}))
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(
                &json!({"scale": scale, "nodes": counts.nodes(), "edges": counts.edges(), "results": rows})
            )?
        );
    } else {
        println!(
            "\nOne thread, {seconds} s per shape, 500 random seeds per kind, store at {}:",
            dir.display()
        );
        println!("{:<42} {:>10} {:>10} {:>12}", "query", "p50 us", "p99 us", "ops/s");
        for t in &results {
            println!(
                "{:<42} {:>10.1} {:>10.1} {:>12.0}",
                t.name,
                t.pct(0.5),
                t.pct(0.99),
                t.calls as f64 / t.secs
            );
        }
    }
    Ok(())
}
