//! `hopdb-bench deep` (formerly `hopdb-bench deep`): the study's deep queries (Q8: nodes within
//! 1..4 hops LIMIT 100; Q11: shortest path length) through the Rust API, for bench/deep/run.py,
//! which times the peers on the same seeds and checks every engine's answers against each other,
//! and bench/deep_rust/run.sh, which compares HopDB's execution paths.

use anyhow::{bail, Context, Result};
use clap::Args;
use hopdb_database::{
    AlgoError, Analytics, AnalyticsError, Control, Database, Direction, Graph, GraphRead, KHop, NodeKey, PathQuery,
    ProjectionSpec, Used, Via, WriteMode,
};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `hopdb-bench deep`'s command line.
#[derive(Args)]
pub struct DeepArgs {
    /// The store (made by `hopdb import` from `hopdb generate`'s files, or by `hopdb-bench demo`).
    #[arg(long)]
    store: PathBuf,
    /// The queries: {"q8": [key, ...], "q11": [[a, b], ...], "timeout_ms": N, "warmup": N,
    /// "max_hops": N}.
    #[arg(long)]
    queries: PathBuf,
    /// Where to write the answers and per-query latencies (JSON).
    #[arg(long)]
    out: PathBuf,
    /// store: every query reads the store snapshot directly. projection: a CSR projection is
    /// built first and every query runs on it. auto: the projection is built first and used
    /// while it is fresh; queries fall back to the store once a write makes it stale.
    #[arg(long, default_value = "auto", value_parser = ["auto", "store", "projection"])]
    mode: String,
    /// Run a writer thread during the timed queries: each write is its own durable
    /// transaction adding an entity and a MENTIONS edge from an existing chunk (LightRAG's
    /// upsert traffic). 0 = no writer.
    #[arg(long, default_value_t = 0)]
    writer_rate: u64,
    /// Rebuild a stale projection on a background thread (auto mode).
    #[arg(long)]
    background_refresh: bool,
    /// Run the whole query list this many times (latencies of every pass are reported;
    /// answers of the last). Longer runs let a writer make many commits meanwhile.
    #[arg(long, default_value_t = 1)]
    passes: u32,
}

fn key_list(v: &Value, what: &str) -> Result<Vec<NodeKey>> {
    v.as_array()
        .with_context(|| format!("{what}: expected a list"))?
        .iter()
        .map(|k| match k {
            Value::String(s) => Ok(NodeKey::from(s.as_str())),
            Value::Number(n) => n.as_i64().map(NodeKey::Int).context("integer key"),
            other => bail!("{what}: {other} is not a key"),
        })
        .collect()
}

fn key_json(k: &NodeKey) -> Value {
    match k {
        NodeKey::Str(s) => json!(s),
        NodeKey::Int(i) => json!(i),
    }
}

fn is_timeout(e: &AnalyticsError) -> bool {
    matches!(e, AnalyticsError::Algo(AlgoError::DeadlineExceeded(_)))
}

/// Runs the deep queries on the store and writes their answers and latencies to `--out`.
pub fn run(a: &DeepArgs) -> Result<()> {
    let q: Value =
        serde_json::from_slice(&std::fs::read(&a.queries).with_context(|| format!("reading {}", a.queries.display()))?)
            .with_context(|| format!("parsing {}", a.queries.display()))?;
    let q8 = key_list(&q["q8"], "q8")?;
    let q11: Vec<(NodeKey, NodeKey)> = q["q11"]
        .as_array()
        .context("q11: expected a list of pairs")?
        .iter()
        .map(|p| {
            let pair = key_list(p, "q11 pair")?;
            match pair.as_slice() {
                [x, y] => Ok((x.clone(), y.clone())),
                _ => bail!("q11: {p} is not a pair"),
            }
        })
        .collect::<Result<_>>()?;
    let timeout = Duration::from_millis(q["timeout_ms"].as_u64().unwrap_or(2000));
    let warmup = q["warmup"].as_u64().unwrap_or(50) as usize;
    let max_hops = q["max_hops"].as_u64().unwrap_or(12) as u32;

    let store = Graph::open(&a.store).with_context(|| format!("opening {}", a.store.display()))?;
    let db = Database::from_analytics(Analytics::new(store).with_auto_projection(if a.background_refresh {
        u64::MAX
    } else {
        0
    }));
    let (g, an) = (db.graph(), db.analytics());
    let via = match a.mode.as_str() {
        "store" => Via::Store,
        "projection" => Via::Projection,
        _ => Via::Auto,
    };
    let mut notes = serde_json::Map::new();
    if via != Via::Store {
        let rss0 = rss_bytes();
        let p = an.projection(&ProjectionSpec::all(), &Control::default())?;
        let i = p.projection.info();
        eprintln!(
            "projection: {} nodes, {} edges, {:.0} MiB, built in {:.2} s",
            i.nodes,
            i.edges,
            i.bytes as f64 / (1 << 20) as f64,
            i.seconds
        );
        notes.insert(
            "projection".into(),
            json!({"nodes": i.nodes, "edges": i.edges, "bytes": i.bytes, "seconds": i.seconds,
                   "rss_growth_bytes": rss_bytes().saturating_sub(rss0)}),
        );
    }

    let stop = Arc::new(AtomicBool::new(false));
    let writes = Arc::new(AtomicU64::new(0));
    let writer = (a.writer_rate > 0).then(|| {
        let (g, stop, writes, rate) = (g.clone(), stop.clone(), writes.clone(), a.writer_rate);
        let chunks = g.label_count("Chunk").unwrap_or(0).max(1);
        std::thread::spawn(move || writer_loop(&g, &stop, &writes, rate, chunks))
    });

    let started = Instant::now();
    // How many queries each execution path answered.
    let mut paths = [0u64; 3];
    let mut count_used = |u: Used| {
        paths[match u {
            Used::Store => 0,
            Used::Projection { .. } => 1,
            Used::Overlay { .. } => 2,
        }] += 1;
    };
    let mut q8_out = Vec::new();
    let mut q11_out = Vec::new();
    let mut q8_us = Vec::new();
    let mut q11_us = Vec::new();
    for pass in 0..a.passes.max(1) {
        let warmup = if pass == 0 { warmup } else { 0 };
        q8_out.clear();
        q11_out.clear();
        for (i, seed) in q8.iter().enumerate() {
            let query = KHop::within(4).limit(100).dir(Direction::Both).via(via);
            if i < warmup {
                let _ = an.k_hop(seed, &query, &Control::default().with_timeout(timeout));
            }
            let t = Instant::now();
            let r = an.k_hop(seed, &query, &Control::default().with_timeout(timeout));
            let us = t.elapsed().as_secs_f64() * 1e6;
            q8_us.push((us, r.is_ok()));
            q8_out.push(match r {
                Ok(ans) => {
                    count_used(ans.used);
                    json!({"seed": key_json(seed), "ids": ans.value.iter().map(key_json).collect::<Vec<_>>(), "us": us})
                }
                Err(e) if is_timeout(&e) => json!({"seed": key_json(seed), "error": "timeout", "us": us}),
                Err(e) => json!({"seed": key_json(seed), "error": e.to_string(), "us": us}),
            });
        }
        let path_q = PathQuery {
            dir: Direction::Both,
            max_hops,
            via,
            ..Default::default()
        };
        for (i, (x, y)) in q11.iter().enumerate() {
            if i < warmup {
                let _ = an.shortest_path(x, y, &path_q, &Control::default().with_timeout(timeout));
            }
            let t = Instant::now();
            let r = an.shortest_path(x, y, &path_q, &Control::default().with_timeout(timeout));
            let us = t.elapsed().as_secs_f64() * 1e6;
            q11_us.push((us, r.is_ok()));
            q11_out.push(match r {
                Ok(ans) => {
                    count_used(ans.used);
                    json!({"a": key_json(x), "b": key_json(y), "length": ans.value.map(|p| p.len() - 1), "us": us})
                }
                Err(e) if is_timeout(&e) => {
                    json!({"a": key_json(x), "b": key_json(y), "length": null, "error": "timeout", "us": us})
                }
                Err(e) => json!({"a": key_json(x), "b": key_json(y), "length": null, "error": e.to_string(), "us": us}),
            });
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::SeqCst);
    if let Some(w) = writer {
        w.join().map_err(|_| anyhow::anyhow!("the writer thread panicked"))??;
        let n = writes.load(Ordering::SeqCst);
        notes.insert(
            "writer".into(),
            json!({"writes": n, "writes_per_second": n as f64 / seconds}),
        );
        eprintln!(
            "writer: {n} durable writes during the queries ({:.0}/s)",
            n as f64 / seconds
        );
    }
    notes.insert(
        "answered_on".into(),
        json!({"store": paths[0], "projection": paths[1], "overlay": paths[2]}),
    );
    eprintln!(
        "answered on: store {}, projection {}, overlay {}",
        paths[0], paths[1], paths[2]
    );
    notes.insert("max_hops".into(), json!(max_hops));
    notes.insert("passes".into(), json!(a.passes.max(1)));
    // Latencies of every pass (the JSON rows carry the last pass's answers and times).
    for (name, all) in [("q8", &q8_us), ("q11", &q11_us)] {
        let mut us: Vec<f64> = all.iter().filter(|x| x.1).map(|x| x.0).collect();
        us.sort_by(f64::total_cmp);
        if let (Some(&median), Some(&p99)) = (
            us.get(us.len() / 2),
            us.get((us.len() * 99 / 100).min(us.len().saturating_sub(1))),
        ) {
            notes.insert(
                format!("{name}_all_passes"),
                json!({"queries": us.len(), "median_us": median, "p99_us": p99}),
            );
            eprintln!("{name}: {} queries, median {median:.1} µs, p99 {p99:.1} µs", us.len());
        }
    }
    let out = json!({"engine": "hopdb", "mode": a.mode, "q8": q8_out, "q11": q11_out, "notes": notes});
    std::fs::write(&a.out, serde_json::to_vec(&out)?).with_context(|| format!("writing {}", a.out.display()))?;
    Ok(())
}

/// Adds entities mentioned by random existing chunks, one durable transaction each, at about
/// `rate` writes per second, until `stop`.
fn writer_loop(g: &Graph, stop: &AtomicBool, writes: &AtomicU64, rate: u64, chunks: u64) -> Result<()> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let gap = Duration::from_secs_f64(1.0 / rate as f64);
    let mut next = Instant::now();
    let mut i = 0u64;
    while !stop.load(Ordering::SeqCst) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let chunk = format!("chunk-{}", 1 + x % chunks);
        let entity = format!("bench-writer-ent-{i}");
        let mut tx = g.write()?;
        tx.upsert_node(entity.as_str(), &["Entity"], Default::default(), WriteMode::Merge)?;
        tx.upsert_edge(
            chunk.as_str(),
            "MENTIONS",
            entity.as_str(),
            None,
            Default::default(),
            WriteMode::Merge,
        )?;
        tx.commit()?;
        writes.fetch_add(1, Ordering::SeqCst);
        i += 1;
        next += gap;
        let now = Instant::now();
        if next > now {
            std::thread::sleep(next - now);
        } else {
            next = now;
        }
    }
    Ok(())
}

/// This process's resident set size (Linux), 0 elsewhere.
fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}
