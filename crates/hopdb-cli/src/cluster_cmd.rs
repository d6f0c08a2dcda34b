//! `hopdb cluster`: create a partitioned cluster's metadata, load a store into it, and show
//! its partitions (issue 24; crates/hopdb-cluster).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Subcommand;
use hopdb_cluster::{Cluster, ClusterConfig, LoadOptions};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use crate::human;

#[derive(Subcommand)]
pub enum ClusterCmd {
    /// Create the cluster's metadata in PostgreSQL (schema, settings, one row per partition)
    /// and its cold-tier directory. Running it again with the same configuration does nothing;
    /// a different partition count or cold tier is refused.
    Init {
        /// The cluster configuration (TOML: partitions, [cold] url, [metadata] postgres).
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
    },
    /// Load a whole graph into the cluster as a new generation of every partition: workers
    /// claim partitions in the metadata, write each as Parquet to the cold tier, and the new
    /// generation goes live in one transaction (readers see the old graph or the new one).
    /// The graph comes from a store (read from one snapshot, so another process may write it
    /// meanwhile) or straight from import files, with `hopdb import`'s options and checks:
    /// the files are read once, the rows spilled by partition to local disk (--scratch), and
    /// no store is built.
    #[command(after_help = "EXAMPLES:
  hopdb cluster load --config cluster.toml kg-store
  hopdb cluster load --config cluster.toml --edge-list=rmat.txt.gz --type=LINKS
  hopdb cluster load --config cluster.toml --nodes=Person=people.csv --relationships=KNOWS=knows.csv")]
    Load {
        /// The cluster configuration.
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
        /// The store directory to load (or give import files instead).
        #[arg(required_unless_present_any = ["nodes", "relationships", "edge_lists", "from_export", "parquet_nodes", "parquet_relationships", "graphml", "graphrag"])]
        store: Option<PathBuf>,
        /// Import files to load instead of a store (the options of `hopdb import`).
        #[command(flatten)]
        input: Box<crate::import_cmd::ImportInputs>,
        /// A load from import files: the directory for its spill files (default: the system's
        /// temporary directory; about 30 bytes per edge end, removed at the end).
        #[arg(long, value_name = "DIR")]
        scratch: Option<PathBuf>,
        /// Parallel workers (default: the number of cores).
        #[arg(long, value_name = "N")]
        workers: Option<usize>,
        /// Memory for the rows of the partitions being built; a store whose rows need more
        /// is read in several passes, each building a range of partitions (each pass reads
        /// every node record again).
        #[arg(long, value_name = "MB", default_value_t = 1024)]
        memory_mb: u64,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write whole partitions to the hot tier (the configuration's [hot] Redis Cluster): the
    /// ones named, or with --auto the hottest (by temperature) that fit its budget_mb, evicting
    /// hot partitions that no longer fit. A partition counts as hot only once all its nodes
    /// are written; an interrupted promotion leaves it cold and correct.
    Promote {
        /// The cluster configuration.
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
        /// A partition to promote (repeat for more).
        #[arg(long = "partition", value_name = "P", required_unless_present = "auto")]
        partitions: Vec<u32>,
        /// Fill the budget with the hottest partitions instead.
        #[arg(long, conflicts_with = "partitions")]
        auto: bool,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Delete partitions' nodes from the hot tier (reads of them go to the cold tier).
    Evict {
        /// The cluster configuration.
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
        /// A partition to evict (repeat for more).
        #[arg(long = "partition", value_name = "P", required_unless_present = "all")]
        partitions: Vec<u32>,
        /// Every partition recorded as hot.
        #[arg(long, conflicts_with = "partitions")]
        all: bool,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Copy the whole live graph (every partition's files and a manifest) to object storage:
    /// a directory (file:///dir) or S3 (s3://bucket/prefix, with the [cold] section's S3
    /// settings). Reports GB/s per worker.
    Snapshot {
        /// The cluster configuration.
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
        /// Where to write the snapshot.
        #[arg(long, value_name = "URL")]
        to: String,
        /// Copies in flight at once.
        #[arg(long, value_name = "N", default_value_t = 8)]
        workers: usize,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Replace the live graph with a snapshot: its files are copied in as a new generation of
    /// every partition (sizes checked against its manifest) and go live at once; a failed
    /// restore leaves the live graph as it was. The partition count must match.
    Restore {
        /// The cluster configuration.
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
        /// The snapshot's URL.
        #[arg(long, value_name = "URL")]
        from: String,
        /// Copies in flight at once.
        #[arg(long, value_name = "N", default_value_t = 8)]
        workers: usize,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Fold pending writes (the delta in PostgreSQL) into new generations of the partitions
    /// they touch, each swapped in atomically; writes go on meanwhile. All partitions with
    /// pending writes, or only those named.
    Compact {
        /// The cluster configuration.
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
        /// A partition to compact (repeat for more; default: every one with pending writes).
        #[arg(long = "partition", value_name = "P")]
        partitions: Vec<u32>,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show the cluster: partitions, live generation, node and edge counts, edge types, the
    /// hot tier's share and the hottest partitions (reads, decayed by a half-life of an hour).
    Status {
        /// The cluster configuration.
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
        /// List every partition.
        #[arg(long)]
        partitions: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(cmd: &ClusterCmd) -> Result<()> {
    match cmd {
        ClusterCmd::Init { config } => {
            let cfg = read_config(config)?;
            let created = Cluster::init(&cfg)?;
            println!(
                "{} cluster: {} partitions, cold tier {}",
                if created { "created the" } else { "already initialised:" },
                cfg.partitions,
                cfg.cold.url
            );
            Ok(())
        }
        ClusterCmd::Load {
            config,
            store,
            input,
            scratch,
            workers,
            memory_mb,
            json,
        } => {
            let source = match (store, input.given()) {
                (Some(_), true) => bail!("give a store or import files to load, not both"),
                (Some(s), false) => Source::Store(s),
                (None, _) => Source::Files(input, scratch.clone()),
            };
            load(config, source, *workers, *memory_mb, *json)
        }
        ClusterCmd::Status {
            config,
            partitions,
            json,
        } => status(config, *partitions, *json),
        ClusterCmd::Promote {
            config,
            partitions,
            auto,
            json,
        } => promote(config, partitions, *auto, *json),
        ClusterCmd::Evict {
            config,
            partitions,
            all,
            json,
        } => evict(config, partitions, *all, *json),
        ClusterCmd::Compact {
            config,
            partitions,
            json,
        } => compact(config, partitions, *json),
        ClusterCmd::Snapshot {
            config,
            to,
            workers,
            json,
        } => copy(config, Copy::Snapshot(to), *workers, *json),
        ClusterCmd::Restore {
            config,
            from,
            workers,
            json,
        } => copy(config, Copy::Restore(from), *workers, *json),
    }
}

enum Copy<'a> {
    Snapshot(&'a str),
    Restore(&'a str),
}

fn copy(config: &Path, what: Copy, workers: usize, as_json: bool) -> Result<()> {
    let cluster = Cluster::open(read_config(config)?)?;
    let spinner = ProgressBar::new_spinner();
    if as_json {
        spinner.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    spinner.enable_steady_tick(std::time::Duration::from_millis(120));
    let (r, verb, url) = match what {
        Copy::Snapshot(to) => {
            spinner.set_message(format!("copying the graph to {to}"));
            let r = cluster
                .snapshot(to, workers)
                .with_context(|| format!("taking a snapshot to {to}"))?;
            (r, "snapshot of", to)
        }
        Copy::Restore(from) => {
            spinner.set_message(format!("restoring from {from}"));
            let r = cluster
                .restore(from, workers)
                .with_context(|| format!("restoring {from}"))?;
            (r, "restored", from)
        }
    };
    spinner.finish_and_clear();
    let per_worker = r.bytes_per_second_per_worker();
    if as_json {
        println!(
            "{}",
            json!({"partitions": r.partitions, "nodes": r.nodes, "edges": r.edges, "bytes": r.bytes,
                   "seconds": r.seconds, "workers": r.workers, "generation": r.generation,
                   "bytes_per_second_per_worker": per_worker})
        );
    } else {
        println!(
            "{verb} {} partitions ({} nodes, {} edges), {} in {:.2} s at {url}: {:.3} GB/s per worker ({} workers)",
            r.partitions,
            r.nodes,
            r.edges,
            human(r.bytes),
            r.seconds,
            per_worker / 1e9,
            r.workers
        );
    }
    Ok(())
}

fn promote(config: &Path, partitions: &[u32], auto: bool, as_json: bool) -> Result<()> {
    let cluster = Cluster::open(read_config(config)?)?;
    check_partitions(&cluster, partitions)?;
    let (p, e) = if auto {
        cluster.promote_auto().context("promoting the hottest partitions")?
    } else {
        let p = cluster.promote_partitions(partitions).context("promoting partitions")?;
        (p, hopdb_cluster::EvictReport::default())
    };
    if as_json {
        println!(
            "{}",
            json!({"promoted_partitions": p.partitions, "nodes": p.nodes, "keys": p.keys, "bytes": p.bytes, "seconds": p.seconds,
                   "nodes_per_second": p.nodes as f64 / p.seconds.max(1e-9), "read_seconds": p.read_seconds,
                   "encode_seconds": p.encode_seconds, "write_wait_seconds": p.write_wait_seconds,
                   "evicted_partitions": e.partitions, "evicted_entries": e.entries})
        );
    } else {
        println!(
            "promoted {} partitions: {} nodes in {} Redis keys, {} in {:.2} s ({:.0} nodes/s)",
            p.partitions,
            p.nodes,
            p.keys,
            human(p.bytes),
            p.seconds,
            p.nodes as f64 / p.seconds.max(1e-9)
        );
        if auto {
            println!("evicted {} partitions ({} entries)", e.partitions, e.entries);
        }
    }
    Ok(())
}

fn evict(config: &Path, partitions: &[u32], all: bool, as_json: bool) -> Result<()> {
    let cluster = Cluster::open(read_config(config)?)?;
    check_partitions(&cluster, partitions)?;
    let parts: Vec<u32> = if all {
        cluster
            .status()?
            .iter()
            .filter(|s| s.hot_version != 0)
            .map(|s| s.partition)
            .collect()
    } else {
        partitions.to_vec()
    };
    let e = cluster.evict_partitions(&parts).context("evicting partitions")?;
    if as_json {
        println!(
            "{}",
            json!({"evicted_partitions": e.partitions, "entries": e.entries, "seconds": e.seconds})
        );
    } else {
        println!(
            "evicted {} partitions: {} entries deleted in {:.2} s",
            e.partitions, e.entries, e.seconds
        );
    }
    Ok(())
}

fn compact(config: &Path, partitions: &[u32], as_json: bool) -> Result<()> {
    let cluster = Cluster::open(read_config(config)?)?;
    check_partitions(&cluster, partitions)?;
    let spinner = ProgressBar::new_spinner();
    if as_json {
        spinner.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    spinner.enable_steady_tick(std::time::Duration::from_millis(120));
    spinner.set_message("compacting pending writes");
    let only = (!partitions.is_empty()).then_some(partitions);
    let r = cluster.compact(only).context("compacting pending writes")?;
    spinner.finish_and_clear();
    if as_json {
        println!(
            "{}",
            json!({"partitions": r.partitions, "operations": r.operations, "nodes": r.nodes, "bytes": r.bytes,
                   "conflicts": r.conflicts, "seconds": r.seconds})
        );
    } else {
        println!(
            "compacted {} partitions: {} pending operations folded into {} nodes, {} of Parquet in {:.2} s{}",
            r.partitions,
            r.operations,
            r.nodes,
            human(r.bytes),
            r.seconds,
            if r.conflicts > 0 {
                format!(" ({} skipped: replaced meanwhile)", r.conflicts)
            } else {
                String::new()
            }
        );
    }
    Ok(())
}

fn check_partitions(cluster: &Cluster, partitions: &[u32]) -> Result<()> {
    if let Some(p) = partitions.iter().find(|&&p| p >= cluster.partitions()) {
        anyhow::bail!(
            "--partition {p}: the cluster has partitions 0 to {}",
            cluster.partitions() - 1
        );
    }
    Ok(())
}

fn read_config(path: &Path) -> Result<ClusterConfig> {
    Ok(ClusterConfig::from_file(path)?)
}

/// What `hopdb cluster load` loads.
enum Source<'a> {
    Store(&'a Path),
    Files(&'a crate::import_cmd::ImportInputs, Option<PathBuf>),
}

fn load(config: &Path, source: Source, workers: Option<usize>, memory_mb: u64, as_json: bool) -> Result<()> {
    let cluster = Cluster::open(read_config(config)?)?;
    let bar = ProgressBar::new(u64::from(cluster.partitions()));
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} partitions ({eta} left)")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message("writing partitions");
    let hidden = as_json || !std::io::IsTerminal::is_terminal(&std::io::stderr());
    if hidden {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let progress = |done: usize, _: usize| bar.set_position(done as u64);
    let mut opts = LoadOptions {
        progress: Some(&progress),
        memory_mb: memory_mb.max(1),
        ..LoadOptions::default()
    };
    if let Some(w) = workers {
        opts.workers = w.max(1);
    }
    let (r, read) = match source {
        Source::Store(store) => {
            let g = crate::open_for_reading(store)?;
            let r = cluster
                .load_from(&g, &opts)
                .with_context(|| format!("loading {} into the cluster", store.display()))?;
            (r, None)
        }
        Source::Files(input, scratch) => {
            let spec = crate::import_cmd::input_spec(input)?;
            opts.scratch = scratch;
            let reading = ProgressBar::new(0);
            reading.set_style(
                ProgressStyle::with_template(
                    "reading [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}, ETA {eta} | {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            if hidden {
                reading.set_draw_target(indicatif::ProgressDrawTarget::hidden());
            }
            let f = cluster.load_files(&spec, &opts, &crate::import_cmd::Bar(reading.clone()));
            reading.finish_and_clear();
            let f = f.context("loading import files into the cluster")?;
            (f.load, Some((f.read, f.implicit_nodes, f.spill_bytes)))
        }
    };
    bar.finish_and_clear();
    if as_json {
        let mut out = json!({"generation": r.generation, "partitions": r.partitions, "nodes": r.nodes, "edges": r.edges,
               "bytes": r.bytes, "seconds": r.seconds, "scan_seconds": r.scan_seconds, "passes": r.passes,
               "workers": r.workers, "bytes_per_second_per_worker": r.bytes_per_second_per_worker()});
        if let Some((read, implicit, spill)) = &read {
            out["rows"] = json!(read.rows);
            out["bad"] = json!(read.bad);
            out["merged_relationships"] = json!(read.merged_relationships);
            out["report_file"] = json!(read.report_file);
            out["implicit_nodes"] = json!(implicit);
            out["spill_bytes"] = json!(spill);
        }
        println!("{out}");
    } else {
        let source = match &read {
            None => format!("reading the store in {} pass(es)", r.passes),
            Some((read, _, spill)) => format!(
                "reading {} input rows, {} spilled; {} bad entries{}",
                read.rows,
                human(*spill),
                read.bad,
                read.report_file
                    .as_ref()
                    .map_or_else(String::new, |f| format!(" (listed in {})", f.display()))
            ),
        };
        println!(
            "loaded {} nodes and {} edges into {} partitions (generation {}): {} of Parquet in {:.2} s ({:.2} s {source}), {}/s per worker writing ({} workers)",
            r.nodes,
            r.edges,
            r.partitions,
            r.generation,
            human(r.bytes),
            r.seconds,
            r.scan_seconds,
            human(r.bytes_per_second_per_worker() as u64),
            r.workers
        );
    }
    Ok(())
}

fn status(config: &Path, each: bool, as_json: bool) -> Result<()> {
    let cluster = Cluster::open(read_config(config)?)?;
    let parts = cluster.status()?;
    let types = cluster.edge_types()?;
    let nodes: u64 = parts.iter().map(|p| p.vertex_count).sum();
    let edges: u64 = parts.iter().map(|p| p.edge_count).sum();
    let mut gens: Vec<u64> = parts.iter().map(|p| p.generation).collect();
    gens.sort_unstable();
    gens.dedup();
    let loaded = parts.iter().filter(|p| p.object_key.is_some()).count();
    let pending: Vec<_> = parts.iter().filter(|p| p.delta_ops > 0).collect();
    let pending_ops: u64 = pending.iter().map(|p| p.delta_ops).sum();
    let hot: Vec<_> = parts.iter().filter(|p| p.is_hot()).collect();
    let hot_nodes: u64 = hot.iter().map(|p| p.hot_nodes).sum();
    let hot_bytes: u64 = hot.iter().map(|p| p.hot_bytes).sum();
    let hot_keys: u64 = hot.iter().map(|p| p.hot_keys).sum();
    let mut hottest: Vec<_> = parts.iter().filter(|p| p.temperature > 0.0).collect();
    hottest.sort_by(|a, b| b.temperature.total_cmp(&a.temperature));
    hottest.truncate(5);
    if as_json {
        let v = json!({
            "partitions": parts.len(), "loaded": loaded, "nodes": nodes, "edges": edges, "generations": gens,
            "edge_types": types.iter().map(|(n, o)| json!({"type": n, "undirected": o.undirected, "multi": o.multi})).collect::<Vec<_>>(),
            "partition_rows": if each { parts.iter().map(|p| json!({"partition": p.partition, "generation": p.generation,
                "object_key": p.object_key, "nodes": p.vertex_count, "edges": p.edge_count, "temperature": p.temperature,
                "last_access_unix": p.last_access.and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map(|d| d.as_secs_f64()),
                "query_node": p.query_node, "version": p.version, "pending_operations": p.delta_ops, "hot": p.is_hot(), "hot_nodes": p.hot_nodes, "hot_keys": p.hot_keys, "hot_bytes": p.hot_bytes})).collect::<Vec<_>>() } else { Vec::new() },
            "hot": {"partitions": hot.len(), "nodes": hot_nodes, "keys": hot_keys, "bytes": hot_bytes},
            "pending_writes": {"partitions": pending.len(), "operations": pending_ops},
            "hottest": hottest.iter().map(|p| json!({"partition": p.partition, "temperature": p.temperature, "hot": p.is_hot()})).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    let sizes: Vec<u64> = parts.iter().map(|p| p.vertex_count).collect();
    println!("partitions     {} ({} loaded)", parts.len(), loaded);
    let shown: Vec<String> = gens.iter().take(5).map(u64::to_string).collect();
    println!(
        "generation     {}{}",
        shown.join(", "),
        if gens.len() > 5 {
            format!(", ... ({} in all)", gens.len())
        } else {
            String::new()
        }
    );
    println!(
        "nodes          {nodes}{}",
        if pending.is_empty() { "" } else { " (as compacted)" }
    );
    println!(
        "edges          {edges}{}",
        if pending.is_empty() { "" } else { " (as compacted)" }
    );
    println!(
        "pending writes {pending_ops} operations in {} partitions{}",
        pending.len(),
        if pending.is_empty() {
            ""
        } else {
            " (folded in by `hopdb cluster compact`)"
        }
    );
    println!(
        "nodes/partition min {} max {}",
        sizes.iter().min().copied().unwrap_or(0),
        sizes.iter().max().copied().unwrap_or(0)
    );
    println!(
        "hot tier       {} partitions, {hot_nodes} nodes in {hot_keys} keys, {}",
        hot.len(),
        human(hot_bytes)
    );
    for p in &hottest {
        println!(
            "  hottest {:>5}  temperature {:.1}{}",
            p.partition,
            p.temperature,
            if p.is_hot() { "  (hot)" } else { "" }
        );
    }
    for (n, o) in &types {
        println!(
            "  type  {n:<20} ({})",
            if o.undirected { "undirected" } else { "directed" }
        );
    }
    if each {
        println!(
            "{:>9} {:>10} {:>10} {:>10} {:>11} {:>3}  object",
            "partition", "generation", "nodes", "edges", "temperature", "hot"
        );
        for p in &parts {
            println!(
                "{:>9} {:>10} {:>10} {:>10} {:>11.1} {:>3}  {}",
                p.partition,
                p.generation,
                p.vertex_count,
                p.edge_count,
                p.temperature,
                if p.is_hot() { "yes" } else { "" },
                p.object_key.as_deref().unwrap_or("-")
            );
        }
    }
    Ok(())
}
