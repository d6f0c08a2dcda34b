//! `hopdb`: the command-line tool for HopDB stores.

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use hopdb_database::{AccessMode, Config, ErrorKind, Graph};
use hopdb_kg::KgSpec;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

mod cluster_cmd;
mod cypher_format;
mod import_cmd;
mod query_cmd;
mod serve_cmd;
mod shell;
mod user_cmd;

/// mimalloc for the Rust side's allocations (RocksDB's C++ keeps its own): `hopdb serve` runs
/// statements on several worker threads, and glibc's malloc (arena locks, chunk
/// consolidation) took about 18% of the server's CPU on the Q1-Q7 mix at 50 clients
/// (decision 0023). The import path measured no different either way (decision 0013).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Hands pages that hold no allocation back to the system, after a projection build freed
/// its scratch (decision 0033; registered with `after_projection_builds`).
fn return_free_pages() {
    // SAFETY: mi_collect takes no pointers and frees no live block: it only returns pages
    // that hold no allocation to the system (mimalloc is this binary's allocator, above).
    #[allow(unsafe_code)]
    unsafe {
        libmimalloc_sys::mi_collect(true)
    };
}

#[derive(Parser)]
#[command(
    name = "hopdb",
    version,
    about = "HopDB: an embedded, durable graph database for knowledge-graph retrieval and graph analytics.",
    long_about = "HopDB: an embedded, durable graph database for knowledge-graph retrieval (GraphRAG, LightRAG) and graph analytics.\n\nA store is a directory (RocksDB inside). Commands that only read (stats, check) open it as a secondary, so they work while another process writes; `query` and `shell` run Cypher and open it for writing (or with --read-only as a secondary); `serve` serves it to Neo4j drivers over Bolt.\n\nThe knowledge-graph demo and the GraphRAG study's benchmark commands are `hopdb-bench` (crates/hopdb-bench).\n\nLogs go to stderr; set RUST_LOG=info (or debug) for more."
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
    /// Run Cypher statements against a store and print the rows as an aligned table (or JSON
    /// lines with --json), the row count and time, and the update counters. The store is
    /// opened for writing (statements may write; each is one atomic transaction).
    Query(Box<query_cmd::QueryArgs>),
    /// An interactive Cypher shell on a store: statements end with ';' and may span lines;
    /// :help lists the commands (parameters, quitting). History is kept in ~/.hopdb_history.
    /// Reads plain lines when stdin is not a terminal (scripts: `hopdb shell STORE < file`).
    Shell(Box<shell::ShellArgs>),
    /// Serve a store to Neo4j drivers and tools over Bolt (bolt:// and neo4j:// URIs) until
    /// SIGINT (Ctrl-C) or SIGTERM.
    ///
    /// Speaks Bolt 4.4 and 5.0-5.8 (the Neo4j 5 drivers). One database, named "neo4j"; Cypher
    /// as in `hopdb query`; auto-commit statements, explicit and managed transactions (one
    /// writing transaction at a time: others wait; reads never wait).
    ///
    /// Authentication: when the users file (STORE.users.json beside the store, or --users FILE; edited with
    /// `hopdb user add`) lists users, clients log on as one of them (scheme "basic") and any
    /// address may be served. With no users, any credentials are accepted (the log says so)
    /// and only loopback addresses are served unless --allow-unauthenticated-network is given.
    /// TLS with --tls-cert and --tls-key (clients use bolt+s://, or bolt+ssc:// for a
    /// self-signed certificate).
    ///
    /// On SIGINT or SIGTERM the server stops accepting, rolls back open transactions and
    /// closes the store. Connections, logins and failures are logged to stderr (RUST_LOG=debug
    /// for more).
    ///
    /// Example: hopdb user add ./store ada; hopdb serve ./store --create; then in Python
    /// GraphDatabase.driver("bolt://127.0.0.1:7687", auth=("ada", password)).
    Serve(Box<serve_cmd::ServeArgs>),
    /// Manage the users `hopdb serve` lets log on: add, passwd, remove, list. They are kept in
    /// STORE.users.json beside the store directory (or --users FILE) as argon2id password hashes, written atomically and
    /// readable by the owner only; a running server picks changes up at the next login.
    /// Passwords are asked on the terminal or read with --password-stdin, never taken from the
    /// command line.
    User {
        #[command(subcommand)]
        cmd: user_cmd::UserCmd,
    },
    /// A partitioned graph beyond one machine: partitions as Parquet on object storage (the
    /// cold tier) with their metadata in PostgreSQL. `init` creates it, `load` writes a store
    /// into it as a new generation, `status` shows it. The configuration file (TOML):
    ///
    ///   partitions = 1024
    ///   [cold]
    ///   url = "file:///var/lib/hopdb/cold"
    ///   [metadata]
    ///   postgres = "host=127.0.0.1 port=5432 user=hopdb dbname=hopdb"
    Cluster {
        #[command(subcommand)]
        cmd: cluster_cmd::ClusterCmd,
    },
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
}

fn main() {
    let cli = Cli::parse();
    // A server's connections and failures are worth seeing by default, and so is its own
    // work (the projection builds, at start and after writes: `serve_cmd.rs`, decision 0034).
    let default_filter = match cli.cmd {
        Cmd::Serve(_) => "warn,hopdb_server=info,hopdb=info,hopdb_analytics=info",
        Cmd::Cluster { .. } => "warn,hopdb_cluster=info",
        _ => "warn",
    };
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| default_filter.into()),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    hopdb_database::after_projection_builds(return_free_pages);
    if let Err(e) = run(cli) {
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
        Cmd::Export { dir, out, format, json } => import_cmd::export(&dir, &out, &format, json),
        Cmd::Backup { dir, out, json } => copy_store(&dir, &out, json, "backup"),
        Cmd::Restore { backup, dir, json } => copy_store(&backup, &dir, json, "restore"),
        Cmd::Query(a) => query_cmd::run(&a),
        Cmd::Shell(a) => shell::run(&a),
        Cmd::Serve(a) => serve_cmd::run(&a),
        Cmd::User { cmd } => user_cmd::run(&cmd),
        Cmd::Cluster { cmd } => cluster_cmd::run(&cmd),
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
        Err(e) if e.kind() == ErrorKind::Locked => open_secondary(dir),
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

pub(crate) fn human(bytes: u64) -> String {
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
