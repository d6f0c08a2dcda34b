//! `hopdb-bench`: the eight-engine GraphRAG study's commands, on the benchmark side of HopDB
//! (the product command is `hopdb`, crates/hopdb-cli).

use clap::{Parser, Subcommand};
use hopdb_bench::{deep, demo};

#[derive(Parser)]
#[command(
    name = "hopdb-bench",
    version,
    about = "HopDB's benchmark commands for the eight-engine GraphRAG study: the knowledge-graph demo and the deep-query timer.",
    long_about = "HopDB's benchmark commands for the eight-engine GraphRAG study: the knowledge-graph demo (the README's main job) and the deep-query timer bench/deep drives. The store commands (stats, check, import, generate, ...) are the product's: `hopdb --help`.\n\nLogs go to stderr; set RUST_LOG=info (or debug) for more."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// The main job: generate the knowledge graph, load it into a store, then run the study's
    /// Q1-Q7 retrieval queries and LightRAG's storage-call mix, printing answers and speed.
    Demo(demo::DemoArgs),
    /// Time the study's deep queries on a store: Q8 (nodes within 1..4 hops of an entity,
    /// LIMIT 100) and Q11 (shortest path between two entities), on seeds from a JSON file;
    /// writes every answer and latency as JSON (bench/deep/run.py drives it beside the peers).
    Deep(deep::DeepArgs),
}

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()))
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let r = match Cli::parse().cmd {
        Cmd::Demo(a) => demo::run(&a),
        Cmd::Deep(a) => deep::run(&a),
    };
    if let Err(e) = r {
        eprintln!("hopdb-bench: error: {e:#}");
        std::process::exit(2);
    }
}
