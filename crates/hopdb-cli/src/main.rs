//! `hopdb`: the command-line tool for HopDB stores.

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use hopdb_cli::kg;
use hopdb_core::{AccessMode, Config, Graph, GraphRead, NodeKey};
use hopdb_kg::{KgSpec, Kind};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod deep_bench;
mod import_cmd;

#[derive(Parser)]
#[command(
    name = "hopdb",
    version,
    about = "HopDB: an embedded, durable graph database for knowledge-graph retrieval and graph analytics.",
    long_about = "HopDB: an embedded, durable graph database for knowledge-graph retrieval (GraphRAG, LightRAG) and graph analytics.\n\nA store is a directory (RocksDB inside). Commands that only read (stats, check) open it as a secondary, so they work while another process writes.\n\nLogs go to stderr; set RUST_LOG=info (or debug) for more."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Show what a store holds: node and edge counts, labels, edge types, size on disk.
    Stats {
        /// The store directory.
        dir: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Verify a store's invariants: both adjacency directions agree, degree counters match the
    /// edges, no dangling ids, counters and indexes consistent. Exits 1 if anything is wrong.
    Check {
        /// The store directory.
        dir: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Bulk-load files into a store (new or not), atomically: neo4j-admin CSV node and
    /// relationship files, plain edge lists, Parquet/Arrow tables, a LightRAG GraphML graph or a
    /// GraphRAG output directory; gzip is read transparently.
    Import(Box<import_cmd::ImportArgs>),
    /// Write a store's graph as files that `hopdb import --from-export` reads back exactly:
    /// neo4j-admin CSV (default) or Parquet, plus manifest.json. Works while a writer runs.
    Export {
        /// The store directory.
        dir: PathBuf,
        /// Output directory (created if missing).
        out: PathBuf,
        /// csv or parquet.
        #[arg(long, default_value = "csv", value_parser = ["csv", "parquet"])]
        format: String,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Take a consistent online backup of a store into a new directory (readers and writers
    /// keep running; a store held by a writing process is read through a secondary open).
    Backup {
        /// The store directory.
        dir: PathBuf,
        /// The backup directory (must not exist, or be empty).
        out: PathBuf,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Restore a backup into a new store directory.
    Restore {
        /// The backup directory (made by `hopdb backup`).
        backup: PathBuf,
        /// The store directory to create (must not exist, or be empty).
        dir: PathBuf,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Time the study's deep queries on a store: Q8 (nodes within 1..4 hops of an entity,
    /// LIMIT 100) and Q11 (shortest path between two entities), on seeds from a JSON file;
    /// writes every answer and latency as JSON (bench/deep/run.py drives it beside the peers).
    BenchDeep(deep_bench::DeepArgs),
    /// Write the LightRAG-shaped knowledge graph of the eight-engine GraphRAG study as
    /// neo4j-admin import CSV files (documents, chunks, entities, HAS_CHUNK, MENTIONS).
    Generate {
        /// Output directory (created if missing).
        #[arg(long)]
        out: PathBuf,
        /// Scale factor: 1 gives 745,504 nodes and 1,252,253 edges; 10 and 20 give 12.5M and 25M edges.
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
        /// Random seed; the same seed gives byte-identical files.
        #[arg(long, default_value_t = hopdb_kg::DEFAULT_SEED)]
        seed: u64,
    },
    /// The main job: generate the knowledge graph, load it into a store, then run the study's
    /// Q1-Q7 retrieval queries and LightRAG's storage-call mix, printing answers and speed.
    Demo {
        /// Store directory (reused if it already holds this graph; see --fresh).
        dir: PathBuf,
        /// Scale factor of the generated graph (1 = the study's full scale).
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
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
    },
}

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()))
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    if let Err(e) = run(Cli::parse()) {
        eprintln!("hopdb: error: {e:#}");
        std::process::exit(2);
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.cmd {
        Cmd::Stats { dir, json } => stats(&dir, json),
        Cmd::Check { dir, json } => check(&dir, json),
        Cmd::Generate { out, scale, seed } => generate(&out, scale, seed),
        Cmd::Import(a) => import_cmd::run(&a),
        Cmd::BenchDeep(a) => deep_bench::run(&a),
        Cmd::Export { dir, out, format, json } => import_cmd::export(&dir, &out, &format, json),
        Cmd::Backup { dir, out, json } => copy_store(&dir, &out, json, "backup"),
        Cmd::Restore { backup, dir, json } => copy_store(&backup, &dir, json, "restore"),
        Cmd::Demo {
            dir,
            scale,
            seed,
            seconds,
            fresh,
            json,
        } => demo(&dir, scale, seed, seconds, fresh, json),
    }
}

fn open_secondary(dir: &Path) -> Result<Graph> {
    Graph::open_with(
        dir,
        Config {
            access: AccessMode::Secondary,
            ..Config::default()
        },
    )
    .with_context(|| format!("opening {}", dir.display()))
}

/// Opens a store for reading: directly when no process holds it, else as a secondary.
pub(crate) fn open_for_reading(dir: &Path) -> Result<Graph> {
    if !dir.join("CURRENT").is_file() {
        bail!("{}: no store here", dir.display());
    }
    match Graph::open(dir) {
        Err(hopdb_core::Error::StoreLocked { .. }) => open_secondary(dir),
        other => other.with_context(|| format!("opening {}", dir.display())),
    }
}

/// `hopdb backup` and `hopdb restore`: both copy one consistent snapshot into a new store.
fn copy_store(from: &Path, to: &Path, as_json: bool, what: &str) -> Result<()> {
    let g = open_for_reading(from)?;
    let r = g
        .backup(to)
        .with_context(|| format!("{what} of {} into {}", from.display(), to.display()))?;
    let disk = import_cmd::dir_bytes(to);
    if as_json {
        println!(
            "{}",
            json!({"from": from, "to": to, "records": r.records, "bytes": r.bytes, "seconds": r.seconds,
                   "records_per_second": r.records_per_second(), "store_bytes": disk})
        );
    } else {
        println!(
            "{what}: {} records ({}) copied in {:.2} s ({:.0} records/s); {} on disk at {}",
            r.records,
            human(r.bytes),
            r.seconds,
            r.records_per_second(),
            human(disk),
            to.display()
        );
    }
    Ok(())
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

fn stats(dir: &Path, as_json: bool) -> Result<()> {
    let g = open_secondary(dir)?;
    let s = g.stats()?;
    if as_json {
        let v = json!({
            "path": dir, "format_version": s.format_version, "nodes": s.nodes, "edges": s.edges,
            "labels": s.labels.iter().map(|(l, c)| json!({"label": l, "nodes": c})).collect::<Vec<_>>(),
            "edge_types": s.edge_types.iter().map(|(t, c)| json!({"type": &*t.name, "undirected": t.options.undirected, "multi": t.options.multi, "edges": c})).collect::<Vec<_>>(),
            "sst_bytes": s.storage.sst_bytes, "sst_files": s.storage.sst_files, "wal_bytes": s.storage.wal_bytes, "live_data_bytes": s.storage.live_data_bytes,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    println!("store          {}", dir.display());
    println!("format version {}", s.format_version);
    println!("nodes          {}", s.nodes);
    println!("edges          {}", s.edges);
    for (l, c) in &s.labels {
        println!("  label {l:<20} {c} nodes");
    }
    for (t, c) in &s.edge_types {
        let kind = match (t.options.undirected, t.options.multi) {
            (false, false) => "directed",
            (true, false) => "undirected",
            (false, true) => "directed, multi",
            (true, true) => "undirected, multi",
        };
        println!("  type  {:<20} {c} edges ({kind})", t.name);
    }
    println!(
        "on disk        {} in {} table files, {} of WAL",
        human(s.storage.sst_bytes),
        s.storage.sst_files,
        human(s.storage.wal_bytes)
    );
    Ok(())
}

fn check(dir: &Path, as_json: bool) -> Result<()> {
    let g = open_secondary(dir)?;
    let started = Instant::now();
    let r = g.check()?;
    let secs = started.elapsed().as_secs_f64();
    if as_json {
        println!(
            "{}",
            serde_json::to_string_pretty(
                &json!({"ok": r.is_ok(), "nodes": r.nodes, "edges": r.edges, "problem_count": r.problem_count, "problems": r.problems, "seconds": secs})
            )?
        );
    } else {
        for p in &r.problems {
            println!("problem: {p}");
        }
        if r.problem_count as usize > r.problems.len() {
            println!("... and {} more problems", r.problem_count as usize - r.problems.len());
        }
        println!(
            "{}: {} nodes, {} edges checked in {secs:.2} s: {}",
            dir.display(),
            r.nodes,
            r.edges,
            if r.is_ok() {
                "OK".to_string()
            } else {
                format!("{} problems", r.problem_count)
            }
        );
    }
    if !r.is_ok() {
        std::process::exit(1);
    }
    Ok(())
}

fn generate(out: &Path, scale: f64, seed: u64) -> Result<()> {
    let spec = KgSpec::new(scale, seed)?;
    let started = Instant::now();
    let files = hopdb_kg::write_csv(&spec, out)?;
    let c = spec.counts();
    println!(
        "wrote {} nodes and {} edges as neo4j-admin CSV to {} in {:.2} s",
        c.nodes(),
        c.edges(),
        out.display(),
        started.elapsed().as_secs_f64()
    );
    for f in files.node_files().into_iter().chain(files.edge_files()) {
        println!("  {} ({} rows)", f.path.display(), f.rows);
    }
    Ok(())
}

fn progress_bar(total: u64) -> ProgressBar {
    let pb = ProgressBar::new(total);
    pb.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {human_pos}/{human_len} rows, {per_sec}, ETA {eta}")
            .expect("valid template")
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

fn demo(dir: &Path, scale: f64, seed: u64, seconds: f64, fresh: bool, as_json: bool) -> Result<()> {
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
