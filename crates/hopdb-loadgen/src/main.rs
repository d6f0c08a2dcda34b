//! `hopdb-loadgen`: the native multi-threaded load generator of workload 1 (issue 6). It drives
//! bench/retrieval's Q1-Q7 mix or LightRAG's storage-call mix against HopDB (in-process),
//! PostgreSQL, SQLite, FalkorDB, Neo4j or HopDB over Bolt (`hopdb serve`, Q1-Q7 only) from N OS
//! threads, each with its own connection, in a tight loop, and writes throughput, latency
//! percentiles and errors as JSON. `check` answers the queries file's sample seeds for the
//! Python driver to compare with bench/retrieval/reference.py.

mod engines;
mod load;
mod stats;
mod workload;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use serde_json::json;

use engines::Options;
use workload::{entity_props, lightrag_ops, QueriesFile, LIGHTRAG_OPS, LIGHTRAG_SEED};

#[derive(Parser)]
#[command(
    version,
    about = "Native load generator for workload 1: Q1-Q7 and LightRAG mixes over N client threads"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a mix for a ramp and a recorded window; write the figures as JSON.
    Run(RunArgs),
    /// Answer the queries file's check sample: [[kind, seed, answer], ...] as JSON.
    Check(Target),
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum Mix {
    Retrieval,
    Lightrag,
}

#[derive(Args)]
struct Target {
    /// hopdb | postgres | sqlite | falkordb | neo4j | hopdb-bolt
    #[arg(long)]
    engine: String,
    /// hopdb: the store directory; postgres: a libpq conninfo ("host=127.0.0.1 port=P user=U
    /// dbname=D"); sqlite: the database file; falkordb: redis://HOST:PORT/GRAPH; neo4j,
    /// hopdb-bolt: bolt://HOST:PORT.
    #[arg(long)]
    target: String,
    /// bench/retrieval's queries.json (pools, sequence, check).
    #[arg(long)]
    queries: PathBuf,
    /// Where the JSON result goes.
    #[arg(long)]
    out: PathBuf,
    /// HopDB only: Config::with_memory_budget(M MiB) for the caches and memtables, and no
    /// projection (every query reads the store): the memory-capped run.
    #[arg(long)]
    memory_mb: Option<usize>,
    /// Per-query timeout in ms (PostgreSQL statement_timeout, SQLite progress handler, HopDB's
    /// traversal deadline, FalkorDB TIMEOUT; Neo4j, hopdb-bolt: ignored); a query stopped by it
    /// counts as the error "timeout".
    #[arg(long)]
    timeout_ms: Option<u64>,
    #[arg(long)]
    user: Option<String>,
    #[arg(long)]
    password: Option<String>,
}

#[derive(Args)]
struct RunArgs {
    #[command(flatten)]
    t: Target,
    #[arg(long, value_enum)]
    mix: Mix,
    /// Concurrent clients (OS threads, one connection each).
    #[arg(long)]
    clients: usize,
    /// Seconds run before the window, not recorded.
    #[arg(long)]
    ramp_s: f64,
    /// Seconds of the recorded window.
    #[arg(long)]
    window_s: f64,
    /// The generator's CSV directory (entities.csv): the LightRAG upsert writes each entity's
    /// current canonical_title and entity_type back.
    #[arg(long)]
    data: Option<PathBuf>,
}

fn options(t: &Target, writes: bool) -> Options {
    Options {
        engine: t.engine.clone(),
        target: t.target.clone(),
        writes,
        memory_mb: t.memory_mb,
        timeout: t.timeout_ms.map(Duration::from_millis),
        user: t.user.clone(),
        password: t.password.clone(),
    }
}

fn seconds(what: &str, s: f64) -> Result<Duration> {
    if !(s.is_finite() && s >= 0.0) {
        bail!("--{what} must be a non-negative number of seconds, not {s}");
    }
    Ok(Duration::from_secs_f64(s))
}

fn write_json(path: &Path, v: &serde_json::Value) -> Result<()> {
    let text = serde_json::to_string_pretty(v)? + "\n";
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

fn run(a: &RunArgs) -> Result<()> {
    if a.clients == 0 {
        bail!("--clients must be at least 1");
    }
    let (ramp, window) = (seconds("ramp-s", a.ramp_s)?, seconds("window-s", a.window_s)?);
    if window.is_zero() {
        bail!("--window-s must be positive");
    }
    if a.t.memory_mb == Some(0) {
        bail!("--memory-mb must be positive");
    }
    let q = QueriesFile::read(&a.t.queries)?;
    let ops = match a.mix {
        Mix::Retrieval => q.retrieval_ops()?,
        Mix::Lightrag => {
            let data = a
                .data
                .as_ref()
                .context("--mix lightrag needs --data DIR (the CSV directory with entities.csv)")?;
            let props = entity_props(data, &q.pools.entity)?;
            lightrag_ops(&q.pools.entity, &props, LIGHTRAG_OPS, LIGHTRAG_SEED)?
        }
    };
    let t = Instant::now();
    let engine = engines::open(&options(&a.t, a.mix == Mix::Lightrag))?;
    let open_s = t.elapsed().as_secs_f64();
    let m = load::measure(&*engine, Arc::new(ops), a.clients, ramp, window)?;
    let all = m.rec.overall();
    let total = all.ok + all.errors;
    let mix = if a.mix == Mix::Retrieval {
        "retrieval"
    } else {
        "lightrag"
    };
    let out = json!({
        "engine": a.t.engine,
        "mix": mix,
        "clients": a.clients,
        "ramp_s": a.ramp_s,
        "window_s": a.window_s,
        "queries": all.ok,
        "errors": all.errors,
        "error_pct": if total > 0 { all.errors as f64 * 100.0 / total as f64 } else { 0.0 },
        "qps": all.ok as f64 / window.as_secs_f64(),
        "overall": all.summary(),
        "per_kind": m.rec.per_kind(),
        "error_samples": m.rec.samples,
        "client_cpu_s": m.cpu_s,
        "window_wall_s": m.wall_s,
        "peak_rss_kb": stats::peak_rss_kb(),
        "loadavg_before": m.loadavg_before,
        "loadavg_after": m.loadavg_after,
        "durability": engine.durability(),
        "version": format!("hopdb-loadgen {}; {}", env!("CARGO_PKG_VERSION"), engine.version()),
        "notes": format!(
            "{}; open {open_s:.2} s; {} clients, tight loop, no think time; queries = operations completed without error inside the window \
             (qps = queries / window_s), errors likewise; latencies per operation (Instant, call to last row), HDR histograms at 0.1%{}{}",
            engine.notes(),
            a.clients,
            if a.t.engine == "hopdb" { "; client_cpu_s includes the engine (in-process)" } else { "" },
            a.t.timeout_ms.map_or(String::new(), |ms| format!("; per-query timeout {ms} ms")),
        ),
    });
    write_json(&a.t.out, &out)
}

fn check(t: &Target) -> Result<bool> {
    let q = QueriesFile::read(&t.queries)?;
    let sample = q.check_ops()?;
    let engine = engines::open(&options(t, false))?;
    let mut client = engine.connect()?;
    let mut ok = true;
    let rows: Vec<serde_json::Value> = sample
        .iter()
        .map(|(op, seed)| {
            let answer = match client.run(op) {
                Ok(a) => a.to_json(),
                Err(e) => {
                    ok = false;
                    eprintln!("hopdb-loadgen check: {} {seed}: {}", op.kind.name(), e.message());
                    json!({"error": e.message()})
                }
            };
            json!([op.kind.name(), seed, answer])
        })
        .collect();
    write_json(&t.out, &serde_json::Value::Array(rows))?;
    Ok(ok)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match &cli.cmd {
        Cmd::Run(a) => run(a).map(|_| true),
        Cmd::Check(t) => check(t),
    };
    match r {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("hopdb-loadgen: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
