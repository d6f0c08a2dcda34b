//! `hopdb import`: neo4j-admin's import options, plus edge lists.

use anyhow::{bail, Context, Result};
use clap::Args;
use hopdb_database::import::parquet::{Columns, TableInput};
use hopdb_database::import::{
    self, BadPolicy, CsvOptions, EdgeList, FileGroup, GroupKeys, IdType, ImportSpec, Progress,
};
use hopdb_database::{EdgeTypeOptions, Graph};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Args)]
#[command(after_help = "EXAMPLES:
  hopdb import kg --nodes=Document=docs.csv --nodes=chunks.csv --relationships=HAS_CHUNK=has_chunk.csv
  hopdb import kg --nodes=Person=header.csv,part1.csv.gz,part2.csv.gz --relationships=rels.csv
  hopdb import web --edge-list=web-NotreDame.txt.gz --skip-lines=1
  hopdb import roads --edge-list=USA-road-d.NY.gr.gz --undirected --type=ROAD
  hopdb import kg --parquet-nodes=Person=people.parquet --parquet-relationships=KNOWS=knows.feather --src-column=from
  hopdb import lightrag --graphml=rag_storage/graph_chunk_entity_relation.graphml
  hopdb import graphrag --graphrag=output/

The store may be new or already hold data: imported nodes merge into existing ones with the same
key, and edges to existing nodes are added. The import is atomic: on any error, or if the process
is killed, the store is exactly as before.")]
pub struct ImportArgs {
    /// The store directory (created if absent).
    pub dir: PathBuf,
    /// What to import.
    #[command(flatten)]
    pub input: ImportInputs,
    /// Print the summary as one JSON line.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// The inputs of an import and how to read them (shared by `hopdb import` and
/// `hopdb cluster load`).
#[derive(Args)]
pub struct ImportInputs {
    /// Node files: `[LABEL[:LABEL]=]FILE[,FILE]`. The first line of the first file is the
    /// header for all of them (so the first may be a header-only file). Repeatable.
    #[arg(long = "nodes", value_name = "[LABELS=]FILES")]
    pub nodes: Vec<String>,
    /// Relationship files: `[TYPE=]FILE[,FILE]`, header as for --nodes. Repeatable.
    #[arg(long = "relationships", value_name = "[TYPE=]FILES")]
    pub relationships: Vec<String>,
    /// A plain edge list (SNAP, networkrepository, MatrixMarket .mtx, DIMACS .gr). Repeatable.
    #[arg(long = "edge-list", value_name = "FILE")]
    pub edge_lists: Vec<PathBuf>,
    /// Edge lists: the graph is undirected (the type is created undirected: one edge per pair,
    /// listed from both ends; `u v` and `v u` lines are the same edge).
    #[arg(long)]
    pub undirected: bool,
    /// Edge lists: read the third column as the edge weight.
    #[arg(long)]
    pub weighted: bool,
    /// Keep repeated relationships as parallel edges: the types this import creates are
    /// multi-edge types, one relationship per CSV row or edge-list line, as neo4j-admin makes
    /// them. Default: a type is simple (one relationship per start, type and end), repeated
    /// rows merge into one, and each merged CSV row is listed in the report file.
    #[arg(long)]
    pub multi_edges: bool,
    /// Edge lists: the edge type.
    #[arg(long = "type", default_value = "EDGE")]
    pub edge_type: String,
    /// Edge lists: skip this many leading data lines (e.g. a "NODES EDGES" count line).
    #[arg(long, default_value_t = 0)]
    pub skip_lines: u64,
    /// Declare options of relationship types the import creates: `TYPE=undirected[,multi]`.
    #[arg(long = "type-options", value_name = "TYPE=OPTIONS")]
    pub type_options: Vec<String>,
    /// CSV field delimiter (one character, or TAB).
    #[arg(long, default_value = ",")]
    pub delimiter: String,
    /// Delimiter inside array values and :LABEL fields.
    #[arg(long, default_value = ";")]
    pub array_delimiter: String,
    /// CSV quote character.
    #[arg(long, default_value = "\"")]
    pub quote: String,
    /// How node ids are read: string or integer (default: string for CSV, integer for edge lists).
    #[arg(long, value_parser = ["string", "integer", "json"])]
    pub id_type: Option<String>,
    /// Import a directory written by `hopdb export` (CSV or Parquet; its manifest says which
    /// files and edge-type options).
    #[arg(long, value_name = "DIR")]
    pub from_export: Option<PathBuf>,
    /// Keys of ids in `:ID(Group)` columns: `prefixed` (neo4j-admin's id spaces: the key is
    /// `Group:id`, so groups may reuse ids; ids of no group are their own key) or `plain` (one
    /// global id space: the id is the key, and groups must not share ids).
    #[arg(long, default_value = "prefixed", value_parser = ["prefixed", "plain"])]
    pub id_group_keys: String,
    /// Skip relationships to ids no node file defines (listed in the report file).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "true|false")]
    pub skip_bad_relationships: Option<bool>,
    /// Skip node rows whose id was already given (listed in the report file).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "true|false")]
    pub skip_duplicate_nodes: Option<bool>,
    /// Skip up to N bad entries of any kind, malformed lines included (default 1000 when a
    /// --skip flag is given).
    #[arg(long, value_name = "N")]
    pub bad_tolerance: Option<u64>,
    /// Where skipped entries (and relationship rows merged into an earlier one) are listed.
    #[arg(long, default_value = "import.report")]
    pub report_file: PathBuf,
    /// neo4j-admin's CSV options (same names, same meanings).
    #[command(flatten)]
    pub neo4j: Box<Neo4jAdminArgs>,
    /// Parquet, Arrow IPC, GraphML and GraphRAG inputs.
    #[command(flatten)]
    pub formats: Box<FormatArgs>,
}

/// neo4j-admin `database import full` options a script may pass. Those about Neo4j's own
/// machinery are accepted and have no effect (each says so).
#[derive(Args)]
pub struct Neo4jAdminArgs {
    /// Quoted fields may hold line breaks. Without it such a field is an error naming its
    /// file and line (neo4j-admin's default is false too).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "true|false")]
    pub multiline_fields: Option<bool>,
    /// A quoted empty string ("") sets no property, as an empty field does. Default: it is
    /// the empty string.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "true|false")]
    pub ignore_empty_strings: Option<bool>,
    /// Ignore fields beyond the header's (each such row is listed in the report file).
    /// Default: such a row is bad.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "true|false")]
    pub ignore_extra_columns: Option<bool>,
    /// Cut leading and trailing whitespace from unquoted values (quoted ones are kept as
    /// written).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "true|false")]
    pub trim_strings: Option<bool>,
    /// A backslash-escaped quote (\") inside a quoted field is a quote.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "true|false")]
    pub legacy_style_quoting: Option<bool>,
    /// Replace the store: its contents are deleted once the import has succeeded (the new
    /// store is built beside it and swapped in, so a failed import leaves the old one).
    /// Default: the import adds to what the store holds.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "true|false")]
    pub overwrite_destination: Option<bool>,
    /// Memory for sorting the adjacency before it is written (e.g. 512M, 4G); beyond it
    /// sorted runs spill to disk. A percentage (neo4j-admin's default, 90%) keeps HopDB's
    /// default of 64 MiB.
    #[arg(long, value_name = "SIZE")]
    pub max_off_heap_memory: Option<String>,
    /// Accepted for neo4j-admin scripts; no effect: HopDB stores every integer as 64 bits
    /// and every float as a double, which is what neo4j-admin's default (true) does.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "true|false")]
    pub normalize_types: Option<bool>,
    /// Accepted for neo4j-admin scripts; no effect (HopDB's reader sizes its own buffer).
    #[arg(long, value_name = "SIZE")]
    pub read_buffer_size: Option<String>,
    /// Accepted for neo4j-admin scripts; no effect (the import parses on one thread and
    /// sorts and writes with the store's background threads).
    #[arg(long, value_name = "N")]
    pub threads: Option<String>,
    /// Accepted for neo4j-admin scripts; no effect.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "on|off|auto")]
    pub high_parallel_io: Option<String>,
}

/// `512M`, `4G`, `1024` (bytes) -> bytes; `None` for a percentage.
fn memory_size(s: &str) -> Result<Option<usize>> {
    let t = s.trim();
    if t.ends_with('%') {
        return Ok(None);
    }
    let (num, mult) = match t.chars().last().map(|c| c.to_ascii_lowercase()) {
        Some('k') => (&t[..t.len() - 1], 1usize << 10),
        Some('m') => (&t[..t.len() - 1], 1 << 20),
        Some('g') => (&t[..t.len() - 1], 1 << 30),
        Some('t') => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1),
    };
    let n: f64 = num
        .trim()
        .parse()
        .ok()
        .filter(|n: &f64| n.is_finite() && *n >= 0.0)
        .with_context(|| format!("--max-off-heap-memory: '{s}' is not a size such as 512M, 4G or 90%"))?;
    Ok(Some((n * mult as f64) as usize))
}

/// The inputs read by hopdb_import's parquet, graphml and graphrag modules.
#[derive(Args)]
pub struct FormatArgs {
    /// Parquet or Arrow IPC (Feather v2) node table: `[LABEL[:LABEL]=]FILE`. The key column is
    /// --id-column (integers or strings), labels come from --labels-column (list<string> or
    /// `;`-separated), every other column is a property (a string column `NAME:json` holds JSON).
    /// `.parquet`, `.arrow`, `.feather` and `.ipc` files given to --nodes are read this way too.
    /// Repeatable.
    #[arg(long = "parquet-nodes", value_name = "[LABELS=]FILE")]
    pub parquet_nodes: Vec<String>,
    /// Parquet or Arrow IPC relationship table: `[TYPE=]FILE` (TYPE for rows without a
    /// --type-column value). `.parquet`, `.arrow`, `.feather` and `.ipc` files given to
    /// --relationships are read this way too. Repeatable.
    #[arg(long = "parquet-relationships", value_name = "[TYPE=]FILE")]
    pub parquet_relationships: Vec<String>,
    /// Parquet/Arrow node tables: the key column.
    #[arg(long, default_value = "id", value_name = "NAME")]
    pub id_column: String,
    /// Parquet/Arrow node tables: the labels column (ignored when absent).
    #[arg(long, alias = "label-column", default_value = "labels", value_name = "NAME")]
    pub labels_column: String,
    /// Parquet/Arrow relationship tables: the start node column.
    #[arg(long, default_value = "src", value_name = "NAME")]
    pub src_column: String,
    /// Parquet/Arrow relationship tables: the end node column.
    #[arg(long, default_value = "dst", value_name = "NAME")]
    pub dst_column: String,
    /// Parquet/Arrow relationship tables: the type column (ignored when absent).
    #[arg(long, default_value = "type", value_name = "NAME")]
    pub type_column: String,
    /// Parquet/Arrow relationship tables: the weight column (ignored when absent).
    #[arg(long, default_value = "weight", value_name = "NAME")]
    pub weight_column: String,
    /// Parquet/Arrow tables: also keep the id, labels, src, dst, type and weight columns as
    /// properties.
    #[arg(long)]
    pub keep_columns: bool,
    /// A GraphML file, gzip or not, as LightRAG writes it (graph_chunk_entity_relation.graphml):
    /// nodes keyed by id and labelled by entity_type, edges of type RELATED (undirected when the
    /// file says edgedefault="undirected"), the `weight` data as weight and property.
    /// `.graphml[.gz]` files given to --edge-list are read this way too. Repeatable.
    #[arg(long = "graphml", value_name = "FILE")]
    pub graphml: Vec<PathBuf>,
    /// A Microsoft GraphRAG output directory (entities.parquet, relationships.parquet, optional
    /// communities.parquet): entities keyed by title and labelled by type, relationships as
    /// undirected multi edges of type RELATIONSHIP. Repeatable.
    #[arg(long = "graphrag", value_name = "DIR")]
    pub graphrag: Vec<PathBuf>,
}

/// A delimiter or quote option: one ASCII character, `TAB`, or neo4j-admin's `U+XXXX`.
fn one_byte(what: &str, s: &str) -> Result<u8> {
    let code = s
        .strip_prefix("U+")
        .or_else(|| s.strip_prefix("u+"))
        .and_then(|h| u32::from_str_radix(h, 16).ok());
    match (s, code) {
        ("TAB" | "\\t" | "\t", _) => Ok(b'\t'),
        (_, Some(c)) if c < 0x80 => Ok(c as u8),
        _ if s.len() == 1 => Ok(s.as_bytes()[0]),
        _ => bail!("--{what} must be one ASCII character, TAB or U+XXXX (ASCII), not '{s}'"),
    }
}

impl ImportInputs {
    /// Whether any input is named.
    pub fn given(&self) -> bool {
        !(self.nodes.is_empty()
            && self.relationships.is_empty()
            && self.edge_lists.is_empty()
            && self.from_export.is_none()
            && self.formats.parquet_nodes.is_empty()
            && self.formats.parquet_relationships.is_empty()
            && self.formats.graphml.is_empty()
            && self.formats.graphrag.is_empty())
    }
}

/// What the options say to import: the files, or a `hopdb export` directory by its manifest.
pub fn input_spec(a: &ImportInputs) -> Result<ImportSpec> {
    let mut spec = spec(a)?;
    if let Some(d) = &a.from_export {
        let temporal = spec.csv.temporal;
        spec = export_spec(d, spec.bad)?;
        spec.csv.temporal = temporal;
    }
    Ok(spec)
}

fn spec(a: &ImportInputs) -> Result<ImportSpec> {
    let id_type = |default| match a.id_type.as_deref() {
        Some("integer") => IdType::Integer,
        Some("json") => IdType::Json,
        Some(_) => IdType::String,
        None => default,
    };
    let mut type_options = std::collections::HashMap::new();
    for t in &a.type_options {
        let (name, opts) = t
            .split_once('=')
            .with_context(|| format!("--type-options expects TYPE=undirected[,multi], not '{t}'"))?;
        let mut o = EdgeTypeOptions::default();
        for w in opts.split(',') {
            match w {
                "undirected" => o.undirected = true,
                "multi" => o.multi = true,
                "directed" | "" => {}
                _ => bail!("--type-options: unknown option '{w}' (undirected, multi)"),
            }
        }
        type_options.insert(name.to_string(), o);
    }
    let spec = ImportSpec {
        nodes: a.nodes.iter().map(|s| FileGroup::parse(s)).collect(),
        relationships: a.relationships.iter().map(|s| FileGroup::parse(s)).collect(),
        edge_lists: a
            .edge_lists
            .iter()
            .map(|f| EdgeList {
                ty: a.edge_type.clone(),
                undirected: a.undirected,
                weighted: a.weighted,
                multi: a.multi_edges,
                skip_lines: a.skip_lines,
                id_type: id_type(IdType::Integer),
                ..EdgeList::new(f)
            })
            .collect(),
        csv: CsvOptions {
            delimiter: one_byte("delimiter", &a.delimiter)?,
            array_delimiter: one_byte("array-delimiter", &a.array_delimiter)?,
            quote: one_byte("quote", &a.quote)?,
            id_type: id_type(IdType::String),
            group_keys: if a.id_group_keys == "prefixed" {
                GroupKeys::Prefixed
            } else {
                GroupKeys::Plain
            },
            multiline_fields: a.neo4j.multiline_fields.unwrap_or(false),
            legacy_quoting: a.neo4j.legacy_style_quoting.unwrap_or(false),
            ignore_empty_strings: a.neo4j.ignore_empty_strings.unwrap_or(false),
            trim_strings: a.neo4j.trim_strings.unwrap_or(false),
            temporal: Some(hopdb_cypher::temporal::import_value),
            ignore_extra_columns: a.neo4j.ignore_extra_columns.unwrap_or(false),
        },
        multi_relationships: a.multi_edges,
        memory_budget: match &a.neo4j.max_off_heap_memory {
            Some(s) => memory_size(s)?.unwrap_or(0),
            None => 0,
        },
        bad: BadPolicy {
            skip_duplicate_nodes: a.skip_duplicate_nodes.unwrap_or(false),
            skip_bad_relationships: a.skip_bad_relationships.unwrap_or(false),
            tolerance: a.bad_tolerance,
            report: Some(a.report_file.clone()),
        },
        type_options,
        ..ImportSpec::default()
    };
    Ok(table_inputs(&a.formats, spec))
}

fn is_table(f: &Path) -> bool {
    let name = f.to_string_lossy().to_ascii_lowercase();
    [".parquet", ".arrow", ".feather", ".ipc"]
        .iter()
        .any(|e| name.ends_with(e))
}

/// Adds the Parquet/Arrow, GraphML and GraphRAG inputs, and moves such files given to --nodes,
/// --relationships and --edge-list (by extension) to them.
fn table_inputs(a: &FormatArgs, mut spec: ImportSpec) -> ImportSpec {
    let columns = Columns {
        id: a.id_column.clone(),
        labels: Some(a.labels_column.clone()),
        src: a.src_column.clone(),
        dst: a.dst_column.clone(),
        ty: Some(a.type_column.clone()),
        weight: Some(a.weight_column.clone()),
        keep: a.keep_columns,
    };
    let tables = |groups: &mut Vec<FileGroup>| -> Vec<TableInput> {
        let (t, csv): (Vec<FileGroup>, Vec<FileGroup>) = std::mem::take(groups)
            .into_iter()
            .partition(|g| !g.files.is_empty() && g.files.iter().all(|f| is_table(f)));
        *groups = csv;
        t.into_iter()
            .flat_map(|g| {
                let spec = g.spec;
                g.files.into_iter().map(move |f| (spec.clone(), f))
            })
            .map(|(s, f)| TableInput {
                spec: s,
                columns: columns.clone(),
                ..TableInput::new(f)
            })
            .collect()
    };
    spec.parquet_nodes = tables(&mut spec.nodes);
    spec.parquet_edges = tables(&mut spec.relationships);
    let parse = |arg: &String| TableInput::parse(arg, columns.clone());
    spec.parquet_nodes.extend(a.parquet_nodes.iter().map(parse));
    spec.parquet_edges.extend(a.parquet_relationships.iter().map(parse));
    let graphml = |f: &Path| {
        let n = f.to_string_lossy().to_ascii_lowercase();
        n.ends_with(".graphml") || n.ends_with(".graphml.gz")
    };
    let (g, lists): (Vec<EdgeList>, Vec<EdgeList>) = std::mem::take(&mut spec.edge_lists)
        .into_iter()
        .partition(|e| graphml(&e.file));
    spec.edge_lists = lists;
    spec.graphml = g.into_iter().map(|e| e.file).chain(a.graphml.iter().cloned()).collect();
    spec.graphrag = a.graphrag.clone();
    spec
}

/// Draws an import's progress (input bytes read, rows) on a bar.
pub struct Bar(pub ProgressBar);

impl Progress for Bar {
    fn start(&self, total: u64) {
        self.0.set_length(total);
    }
    fn update(&self, bytes: u64, rows: u64) {
        self.0.set_position(bytes);
        self.0.set_message(format!("{rows} rows"));
    }
    fn phase(&self, name: &str) {
        self.0.set_message(name.to_string());
    }
}

pub fn dir_bytes(p: &Path) -> u64 {
    std::fs::read_dir(p).map_or(0, |rd| {
        rd.flatten()
            .map(|e| match e.metadata() {
                Ok(m) if m.is_dir() => dir_bytes(&e.path()),
                Ok(m) => m.len(),
                Err(_) => 0,
            })
            .sum()
    })
}

/// `hopdb export`.
pub fn export(dir: &Path, out: &Path, format: &str, as_json: bool) -> Result<()> {
    let g = crate::open_for_reading(dir)?;
    let started = std::time::Instant::now();
    let (nodes, edges) = if format == "parquet" {
        let s = import::parquet::export_parquet(&g, out)?;
        (s.nodes, s.edges)
    } else {
        let s = import::export_csv(&g, out)?;
        (s.nodes, s.edges)
    };
    let secs = started.elapsed().as_secs_f64();
    let bytes = dir_bytes(out);
    if as_json {
        println!(
            "{}",
            json!({"store": dir, "out": out, "format": format, "nodes": nodes, "edges": edges, "seconds": secs,
                   "rows_per_second": (nodes + edges) as f64 / secs.max(1e-9), "bytes": bytes})
        );
    } else {
        println!(
            "exported {nodes} nodes and {edges} edges as {format} into {} in {secs:.2} s ({:.0} rows/s, {})",
            out.display(),
            (nodes + edges) as f64 / secs.max(1e-9),
            crate::human(bytes)
        );
    }
    Ok(())
}

/// The import of a `hopdb export` directory, by its manifest.
fn export_spec(dir: &Path, bad: BadPolicy) -> Result<ImportSpec> {
    let manifest = std::fs::read_to_string(dir.join("manifest.json"))
        .with_context(|| format!("{}: no manifest.json (not a hopdb export)", dir.display()))?;
    let mut spec = if manifest.contains("hopdb-export-csv") {
        import::csv_export_spec(dir)?
    } else {
        import::parquet::parquet_export_spec(dir)?
    };
    spec.bad = bad;
    Ok(spec)
}

pub fn run(a: &ImportArgs) -> Result<()> {
    let spec = input_spec(&a.input)?;
    // --overwrite-destination: build the new store beside the old one and swap it in only
    // once the import has succeeded.
    let overwrite = a.input.neo4j.overwrite_destination.unwrap_or(false) && a.dir.exists();
    let target = if overwrite {
        let mut name = a.dir.file_name().unwrap_or_default().to_os_string();
        name.push(".import-new");
        let t = a.dir.with_file_name(name);
        if t.exists() {
            std::fs::remove_dir_all(&t).with_context(|| format!("removing the stale {}", t.display()))?;
        }
        t
    } else {
        a.dir.clone()
    };
    let g = Graph::open(&target).with_context(|| format!("opening {}", target.display()))?;
    let show = !a.quiet && !a.json && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let pb = ProgressBar::with_draw_target(
        None,
        if show {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    pb.set_style(
        ProgressStyle::with_template("importing [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}, ETA {eta} | {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb.enable_steady_tick(Duration::from_millis(200));
    let report = import::import(&g, &spec, &Bar(pb.clone()));
    pb.finish_and_clear();
    let report = match report {
        Ok(r) => r,
        Err(e) => {
            drop(g);
            if overwrite {
                let _ = std::fs::remove_dir_all(&target);
            }
            return Err(e).with_context(|| format!("importing into {}", a.dir.display()));
        }
    };
    drop(g);
    if overwrite {
        replace_store(&a.dir, &target)?;
    }
    let disk = dir_bytes(&a.dir);
    if a.json {
        println!(
            "{}",
            json!({
                "store": a.dir, "nodes": report.nodes, "edges": report.edges, "rows": report.rows,
                "bad": report.bad, "report_file": report.report_file,
                "seconds": report.seconds, "parse_seconds": report.parse_seconds,
                "rows_per_second": report.rows_per_second(),
                "input_bytes": report.input_bytes, "store_bytes": disk,
                "nodes_merged": report.summary.nodes_merged, "implicit_nodes": report.summary.implicit_nodes,
                "merged_relationships": report.merged_relationships,
            })
        );
    } else {
        println!(
            "imported {} nodes and {} edges from {} rows in {:.2} s ({:.0} rows/s); {} bad entries{}{}; store {} on disk",
            report.nodes,
            report.edges,
            report.rows,
            report.seconds,
            report.rows_per_second(),
            report.bad,
            if report.merged_relationships > 0 {
                format!(
                    ", {} relationship rows merged into an earlier row's relationship (--multi-edges keeps every row)",
                    report.merged_relationships
                )
            } else {
                String::new()
            },
            report
                .report_file
                .as_ref()
                .map(|p| format!(" (listed in {})", p.display()))
                .unwrap_or_default(),
            crate::human(disk),
        );
    }
    Ok(())
}

/// Swaps the freshly imported store `new` in for `dir`: `dir` moves aside, `new` takes its
/// name, and the old contents are deleted last.
fn replace_store(dir: &Path, new: &Path) -> Result<()> {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(".import-old");
    let old = dir.with_file_name(name);
    if old.exists() {
        std::fs::remove_dir_all(&old).with_context(|| format!("removing the stale {}", old.display()))?;
    }
    std::fs::rename(dir, &old).with_context(|| format!("moving {} aside", dir.display()))?;
    std::fs::rename(new, dir).with_context(|| format!("moving the new store to {}", dir.display()))?;
    std::fs::remove_dir_all(&old).with_context(|| format!("deleting the replaced store {}", old.display()))?;
    Ok(())
}
