//! Bulk import into a HopDB store from the files graphs come in: neo4j-admin CSV (node and
//! relationship files, header in the file or a separate header file) and SNAP /
//! networkrepository / MatrixMarket / DIMACS edge lists, gzip or not.
//!
//! Everything is parsed and checked before the store changes; the rows go to the core's
//! [`hopdb_core::BulkLoader`], which writes sorted runs and commits them atomically. A bad
//! line stops the import (file, line, column, reason) with the store untouched, unless the
//! [`BadPolicy`] says to skip it.
//!
//! ```
//! use hopdb_import::{import, FileGroup, ImportSpec, NoProgress};
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("people.csv"), "id:ID,name,age:int,:LABEL\nada,Ada,36,Person\nbob,Bob,,Person\n").unwrap();
//! std::fs::write(dir.path().join("knows.csv"), ":START_ID,:END_ID,:TYPE,since:int\nada,bob,KNOWS,1840\n").unwrap();
//! let g = hopdb_core::Graph::in_memory();
//! let spec = ImportSpec {
//!     nodes: vec![FileGroup::new(None, vec![dir.path().join("people.csv")])],
//!     relationships: vec![FileGroup::new(None, vec![dir.path().join("knows.csv")])],
//!     ..ImportSpec::default()
//! };
//! let report = import(&g, &spec, &NoProgress).unwrap();
//! assert_eq!((report.nodes, report.edges), (2, 1));
//! ```

mod bad;
mod csvread;
pub mod edgelist;
mod error;
pub mod export;
pub mod graphml;
pub mod graphrag;
pub mod input;
pub mod neo4j;
pub mod parquet;

pub use bad::{BadKind, BadPolicy};
pub use edgelist::EdgeList;
pub use error::{ImportError, Result};
pub use export::{csv_export_spec, export_csv, CsvExport};
pub use neo4j::{CsvOptions, GroupKeys, IdType, TemporalParser};

use bad::BadLog;
use hopdb_core::{
    BulkLoader, BulkOptions, BulkSummary, EdgeTypeOptions, Error as StoreError, Graph, GraphRead, KeyRef,
    MissingEndpoints, NodeKey, Props,
};
use neo4j::{id_property, key_of, row_props, Col, Field, Header, RowCtx};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Files of one `--nodes` or `--relationships` option: `[SPEC=]FILE[,FILE]`. The first line
/// of the first file is the header of them all (so the first file may be a header file).
#[derive(Debug, Clone)]
pub struct FileGroup {
    /// Labels (`A:B`) for node files, or the relationship type.
    pub spec: Option<String>,
    /// The files, read in order as one table under the first one's header.
    pub files: Vec<PathBuf>,
    /// Property columns that hold JSON text whatever their header says (a `hopdb export`
    /// manifest's `json_columns`).
    pub json_columns: Vec<String>,
    /// The property column that is the edge weight (a `hopdb export` manifest's
    /// `weight_column`).
    pub weight_column: Option<String>,
}

impl FileGroup {
    /// A group from its parts (the spec as `A:B` labels or a relationship type).
    pub fn new(spec: Option<&str>, files: Vec<PathBuf>) -> Self {
        FileGroup {
            spec: spec.map(str::to_string),
            files,
            json_columns: Vec::new(),
            weight_column: None,
        }
    }

    /// Parses neo4j-admin's `[SPEC=]FILE[,FILE]`.
    pub fn parse(arg: &str) -> Self {
        let (spec, files) = match arg.split_once('=') {
            Some((s, f)) if !s.contains('/') && !s.contains(',') => (Some(s.to_string()), f),
            _ => (None, arg),
        };
        FileGroup {
            spec,
            files: files.split(',').filter(|f| !f.is_empty()).map(PathBuf::from).collect(),
            json_columns: Vec::new(),
            weight_column: None,
        }
    }
}

/// Everything one import reads.
#[derive(Debug, Clone, Default)]
pub struct ImportSpec {
    /// neo4j-admin CSV node files (`--nodes`).
    pub nodes: Vec<FileGroup>,
    /// neo4j-admin CSV relationship files (`--relationships`).
    pub relationships: Vec<FileGroup>,
    /// SNAP, networkrepository, MatrixMarket and DIMACS edge lists (see [`edgelist`]).
    pub edge_lists: Vec<EdgeList>,
    /// CSV dialect and id handling, for the CSV files (the array delimiter also splits
    /// string labels of Parquet tables).
    pub csv: CsvOptions,
    /// Which bad entries are skipped instead of stopping the import.
    pub bad: BadPolicy,
    /// Options of the edge types the import creates (e.g. undirected), by name.
    pub type_options: HashMap<String, EdgeTypeOptions>,
    /// Parquet or Arrow IPC node tables (see [`parquet`]).
    pub parquet_nodes: Vec<parquet::TableInput>,
    /// Parquet or Arrow IPC relationship tables.
    pub parquet_edges: Vec<parquet::TableInput>,
    /// GraphML files, gzip or not, as LightRAG writes them (see [`graphml`]).
    pub graphml: Vec<PathBuf>,
    /// Microsoft GraphRAG output directories (see [`graphrag`]).
    pub graphrag: Vec<PathBuf>,
    /// The relationship types this import creates from CSV files are multi-edge types: every
    /// row is its own relationship, as neo4j-admin makes them (`--multi-edges`). Otherwise they
    /// are simple (one relationship per start, type and end) and rows repeating an earlier
    /// one are merged into it, counted in [`ImportReport::merged_relationships`] and listed
    /// in the report file.
    pub multi_relationships: bool,
    /// Bytes of adjacency sorted in memory before a run spills to disk (0: the store's
    /// default; see [`hopdb_core::BulkOptions::memory_budget`]).
    pub memory_budget: usize,
}

/// Progress of a running import (the CLI draws a bar; libraries can ignore it).
pub trait Progress: Sync {
    /// Total input bytes (on disk, compressed or not).
    fn start(&self, _total_bytes: u64) {}
    /// Input bytes consumed and rows accepted so far.
    fn update(&self, _bytes: u64, _rows: u64) {}
    /// A new phase ("sorting and writing", "committing").
    fn phase(&self, _name: &str) {}
}

/// Reports nothing.
pub struct NoProgress;
impl Progress for NoProgress {}

/// What an import did.
#[derive(Debug, Clone)]
pub struct ImportReport {
    /// Nodes added (created).
    pub nodes: u64,
    /// Edges added.
    pub edges: u64,
    /// Input rows accepted (node rows, relationship rows, edge list lines).
    pub rows: u64,
    /// Bad entries skipped.
    pub bad: u64,
    /// CSV relationship rows merged into an earlier row's relationship (a simple type keeps
    /// one per start, type and end); each is listed in the report file.
    pub merged_relationships: u64,
    /// The report file that lists the skipped entries, when one was written.
    pub report_file: Option<PathBuf>,
    /// Total input size: files on disk (compressed or not) plus in-memory tables.
    pub input_bytes: u64,
    /// Wall time of the whole import, commit included.
    pub seconds: f64,
    /// Wall time spent reading and parsing the input, before sorting and committing.
    pub parse_seconds: f64,
    /// What the bulk loader wrote (see [`hopdb_core::BulkLoader`]).
    pub summary: BulkSummary,
}

impl ImportReport {
    /// Input rows accepted per second of the whole import.
    pub fn rows_per_second(&self) -> f64 {
        self.rows as f64 / self.seconds.max(1e-9)
    }
}

/// Where an import's parsed rows go: a store's [`BulkLoader`] (what [`import`] uses), or a
/// loader of another kind (the cluster's, which writes partitions) through [`read_into`].
/// The readers map a row's error the way the bulk loader reports them:
/// [`StoreError::DuplicateNode`] and [`StoreError::NodeNotFound`] are bad entries the
/// [`BadPolicy`] may skip, anything else is a malformed row.
pub trait RowSink {
    /// Adds a node row (see [`BulkLoader::add_node`]).
    fn add_node(&mut self, key: NodeKey, labels: &[&str], props: Props) -> hopdb_core::Result<()>;
    /// Adds a relationship row (see [`BulkLoader::add_edge`]).
    fn add_edge(
        &mut self,
        src: NodeKey,
        ty: &str,
        dst: NodeKey,
        weight: Option<f64>,
        props: Props,
    ) -> hopdb_core::Result<()>;
    /// A hint that `key` is looked up a few rows from now (see
    /// [`BulkLoader::prefetch_endpoint`]); only speed depends on it.
    fn prefetch_endpoint(&self, _key: KeyRef<'_>, _near: bool) {}
    /// Rows accepted so far.
    fn rows(&self) -> u64;
}

impl RowSink for BulkLoader<'_> {
    fn add_node(&mut self, key: NodeKey, labels: &[&str], props: Props) -> hopdb_core::Result<()> {
        BulkLoader::add_node(self, key, labels, props)
    }
    fn add_edge(
        &mut self,
        src: NodeKey,
        ty: &str,
        dst: NodeKey,
        weight: Option<f64>,
        props: Props,
    ) -> hopdb_core::Result<()> {
        BulkLoader::add_edge(self, src, ty, dst, weight, props)
    }
    fn prefetch_endpoint(&self, key: KeyRef<'_>, near: bool) {
        BulkLoader::prefetch_endpoint(self, key, near)
    }
    fn rows(&self) -> u64 {
        BulkLoader::rows(self)
    }
}

/// State shared by the readers of one import.
pub(crate) struct Run<'a> {
    pub load: &'a mut dyn RowSink,
    pub bad: BadLog,
    pub spec: &'a ImportSpec,
    pub bytes: Arc<AtomicU64>,
    pub progress: &'a dyn Progress,
    /// Id groups defined by node files (for `:START_ID(Group)` checks).
    pub groups: HashSet<String>,
    /// Rows of CSV relationship files that repeat an earlier row's simple edge.
    pub parallel: Parallel,
}

impl Run<'_> {
    /// Adds a parsed node row; a duplicate id or an invalid value is a bad entry of its line.
    pub(crate) fn add_node(&mut self, key: NodeKey, labels: &[&str], props: Props, ctx: &RowCtx) -> Result<()> {
        match self.load.add_node(key, labels, props) {
            Ok(()) => Ok(()),
            Err(StoreError::DuplicateNode { key }) => self.bad.bad(
                BadKind::DuplicateNode,
                ctx.file,
                ctx.line,
                None,
                format!("node id {key} is defined twice"),
            ),
            Err(e) => ctx.malformed(&mut self.bad, None, e.to_string()),
        }
    }

    pub(crate) fn tick(&self) {
        self.progress
            .update(self.bytes.load(Ordering::Relaxed), self.load.rows());
    }
}

/// Finds CSV relationship rows that repeat an earlier row's (start, type, end) of a simple
/// type: the store keeps one relationship for them where neo4j-admin makes one per row, so
/// each is listed in the report. Each row appends 16 bytes (a 64-bit hash of its edge and
/// where it is), sorted once at the end: sequential writes instead of a hash-table probe per
/// row. A hash collision could only list a row wrongly, never change what is stored.
pub(crate) struct Parallel {
    /// Options of each edge type as this import will have it (store, then import options).
    types: HashMap<String, EdgeTypeOptions>,
    default: EdgeTypeOptions,
    /// (edge hash, file index << 48 | line) per row of a simple type.
    rows: Vec<(u64, u64)>,
    hasher: foldhash::fast::FixedState,
    files: Vec<PathBuf>,
    /// The path buffer of the last row's file and its index in `files`.
    last: (*const u8, u64),
    /// Rows merged into an earlier one.
    pub merged: u64,
}

const LINE_BITS: u64 = 48;

impl Parallel {
    fn new(types: HashMap<String, EdgeTypeOptions>, default: EdgeTypeOptions) -> Self {
        Parallel {
            types,
            default,
            rows: Vec::new(),
            // A fixed seed: the same edge hashes the same on every row.
            hasher: foldhash::fast::FixedState::with_seed(0x5eed),
            files: Vec::new(),
            last: (std::ptr::null(), 0),
            merged: 0,
        }
    }

    /// A relationship row's entry, `None` for a multi-edge type (kept with [`Parallel::add`]
    /// once the row is loaded).
    fn entry(&mut self, src: &NodeKey, ty: &str, dst: &NodeKey, ctx: &RowCtx) -> Option<(u64, u64)> {
        use std::hash::BuildHasher;
        let o = self.types.get(ty).copied().unwrap_or(self.default);
        if o.multi {
            return None;
        }
        let (a, b) = if o.undirected && dst < src {
            (dst, src)
        } else {
            (src, dst)
        };
        // Rows of one file come together: compare the path only when the row's file changes
        // (a path comparison walks its components).
        let at = ctx.file.as_os_str().as_encoded_bytes().as_ptr();
        if self.last.0 != at {
            let i = match self.files.iter().position(|f| f == ctx.file) {
                Some(i) => i,
                None => {
                    self.files.push(ctx.file.to_owned());
                    self.files.len() - 1
                }
            };
            self.last = (at, i as u64);
        }
        let place = self.last.1 << LINE_BITS | (ctx.line & ((1 << LINE_BITS) - 1));
        Some((self.hasher.hash_one((a, ty, b)), place))
    }

    fn add(&mut self, entry: Option<(u64, u64)>) {
        self.rows.extend(entry);
    }

    /// Lists every row that repeats an earlier one in the report, in file and line order.
    fn report(&mut self, bad: &mut BadLog) -> Result<()> {
        let mut rows = std::mem::take(&mut self.rows);
        rows.sort_unstable();
        let mut repeats: Vec<(u64, u64)> = Vec::new();
        for run in rows.chunk_by(|x, y| x.0 == y.0) {
            repeats.extend(run[1..].iter().map(|r| (r.1, run[0].1)));
        }
        repeats.sort_unstable();
        self.merged = repeats.len() as u64;
        let place = |p: u64| (&self.files[(p >> LINE_BITS) as usize], p & ((1 << LINE_BITS) - 1));
        for (at, first) in repeats {
            let ((file, line), (first_file, first_line)) = (place(at), place(first));
            bad.note(
                file,
                line,
                format!(
                    "a relationship that repeats {}:{first_line} (same start, type and end) was merged into it: \
                     its type is simple, one relationship per start, type and end (--multi-edges keeps one \
                     per row, as neo4j-admin does)",
                    first_file.display()
                ),
            )?;
        }
        Ok(())
    }
}

/// What an import will read, checked before anything is loaded: the files, their size, and
/// the bulk-load options their kinds imply (edge-list, GraphML and GraphRAG type options;
/// whether edges may create their endpoints).
pub struct ImportPlan {
    /// Options for the loader: missing endpoints, the types' options, the memory budget.
    pub options: BulkOptions,
    /// Total input size: files on disk (compressed or not) plus in-memory tables.
    pub input_bytes: u64,
    graphrag_files: Vec<graphrag::GraphragFiles>,
}

/// Checks that everything `spec` names exists and works out how it loads.
pub fn plan(spec: &ImportSpec) -> Result<ImportPlan> {
    let files: Vec<&Path> = spec
        .nodes
        .iter()
        .chain(&spec.relationships)
        .flat_map(|grp| grp.files.iter().map(PathBuf::as_path))
        .chain(spec.edge_lists.iter().map(|e| e.file.as_path()))
        .chain(
            spec.parquet_nodes
                .iter()
                .chain(&spec.parquet_edges)
                .filter(|t| t.batches.is_none())
                .map(|t| t.file.as_path()),
        )
        .chain(spec.graphml.iter().map(PathBuf::as_path))
        .collect();
    let graphrag_files = spec
        .graphrag
        .iter()
        .map(|d| graphrag::files(d))
        .collect::<Result<Vec<_>>>()?;
    let files: Vec<&Path> = files
        .into_iter()
        .chain(graphrag_files.iter().flat_map(|f| f.all()))
        .collect();
    let memory_tables = spec
        .parquet_nodes
        .iter()
        .chain(&spec.parquet_edges)
        .filter_map(|t| t.batches.as_ref());
    let memory_bytes: u64 = memory_tables
        .flat_map(|m| m.batches.iter())
        .map(|b| b.get_array_memory_size() as u64)
        .sum();
    let has_memory = spec
        .parquet_nodes
        .iter()
        .chain(&spec.parquet_edges)
        .any(|t| t.batches.is_some());
    if files.is_empty() && !has_memory {
        return Err(ImportError::Usage(
            "nothing to import: give --nodes, --relationships or --edge-list".into(),
        ));
    }
    for f in &files {
        if !f.is_file() {
            return Err(ImportError::Usage(format!("{}: no such file", f.display())));
        }
    }
    let input_bytes = input::total_bytes(files.iter().copied()) + memory_bytes;
    // Relationship files name ids that node files define (neo4j-admin); edge lists create
    // their endpoints.
    let node_inputs = !spec.nodes.is_empty()
        || !spec.parquet_nodes.is_empty()
        || !spec.graphml.is_empty()
        || !spec.graphrag.is_empty();
    let missing_endpoints = if !node_inputs || !spec.edge_lists.is_empty() {
        MissingEndpoints::Create
    } else {
        MissingEndpoints::Reject
    };
    let mut options = BulkOptions {
        missing_endpoints,
        memory_budget: spec.memory_budget,
        ..BulkOptions::default()
    };
    for (k, v) in &spec.type_options {
        options.type_options.insert(k.clone(), *v);
    }
    for e in &spec.edge_lists {
        let o = e.type_options();
        options.type_options.entry(e.ty.clone()).or_insert(o);
    }
    for f in &spec.graphml {
        let o = graphml::type_options(f)?;
        options.type_options.entry(graphml::EDGE_TYPE.into()).or_insert(o);
    }
    if !spec.graphrag.is_empty() {
        options
            .type_options
            .entry(graphrag::EDGE_TYPE.into())
            .or_insert(graphrag::TYPE_OPTIONS);
    }
    if spec.multi_relationships {
        options.default_type.multi = true;
    }
    Ok(ImportPlan {
        options,
        input_bytes,
        graphrag_files,
    })
}

/// What reading an import's input did (see [`read_into`]).
#[derive(Debug, Clone)]
pub struct ReadReport {
    /// Input rows accepted (node rows, relationship rows, edge list lines).
    pub rows: u64,
    /// Bad entries skipped.
    pub bad: u64,
    /// CSV relationship rows merged into an earlier row's relationship (see
    /// [`ImportReport::merged_relationships`]).
    pub merged_relationships: u64,
    /// The report file that lists the skipped entries, when one was written.
    pub report_file: Option<PathBuf>,
    /// Wall time of the reading, seconds.
    pub seconds: f64,
}

/// Reads everything `spec` names, in [`import`]'s order (node inputs, then relationship
/// inputs, then edge lists), into `sink`. `types` are the options of the edge types the
/// loaded graph will have (those the target already has, then the plan's), for the report
/// of merged relationship rows.
pub fn read_into(
    sink: &mut dyn RowSink,
    spec: &ImportSpec,
    plan: &ImportPlan,
    types: HashMap<String, EdgeTypeOptions>,
    progress: &dyn Progress,
) -> Result<ReadReport> {
    let started = Instant::now();
    progress.start(plan.input_bytes);
    let mut run = Run {
        load: sink,
        bad: BadLog::new(spec.bad.clone()),
        spec,
        bytes: Arc::new(AtomicU64::new(0)),
        progress,
        groups: HashSet::new(),
        parallel: Parallel::new(types, plan.options.default_type),
    };
    for (i, grp) in spec.nodes.iter().enumerate() {
        read_group(&mut run, grp, i, true)?;
    }
    for t in &spec.parquet_nodes {
        parquet::read(&mut run, t, true)?;
    }
    for f in &spec.graphml {
        graphml::read(&mut run, f, true)?;
    }
    for d in &plan.graphrag_files {
        graphrag::read_nodes(&mut run, d)?;
    }
    for (i, grp) in spec.relationships.iter().enumerate() {
        read_group(&mut run, grp, i, false)?;
    }
    for t in &spec.parquet_edges {
        parquet::read(&mut run, t, false)?;
    }
    for f in &spec.graphml {
        graphml::read(&mut run, f, false)?;
    }
    for d in &plan.graphrag_files {
        graphrag::read_edges(&mut run, d)?;
    }
    for e in &spec.edge_lists {
        edgelist::read(&mut run, e)?;
    }
    run.parallel.report(&mut run.bad)?;
    run.bad.flush()?;
    run.tick();
    Ok(ReadReport {
        rows: run.load.rows(),
        bad: run.bad.count,
        merged_relationships: run.parallel.merged,
        report_file: run.bad.report_path().map(Path::to_path_buf),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Imports everything `spec` names into `g`, atomically.
pub fn import(g: &Graph, spec: &ImportSpec, progress: &dyn Progress) -> Result<ImportReport> {
    let started = Instant::now();
    let plan = plan(spec)?;
    let mut types: HashMap<String, EdgeTypeOptions> = HashMap::new();
    for (t, _) in g.read().edge_types()? {
        types.insert(t.name.to_string(), t.options);
    }
    for (k, v) in &plan.options.type_options {
        types.entry(k.clone()).or_insert(*v);
    }
    let mut load = g.bulk_load(plan.options.clone())?;
    let read = read_into(&mut load, spec, &plan, types, progress)?;
    progress.phase("sorting, writing and committing");
    let summary = load.finish()?;
    Ok(ImportReport {
        nodes: summary.nodes_created,
        edges: summary.edges_created + summary.edges_replayed,
        rows: read.rows,
        bad: read.bad,
        merged_relationships: read.merged_relationships,
        report_file: read.report_file,
        input_bytes: plan.input_bytes,
        seconds: started.elapsed().as_secs_f64(),
        parse_seconds: read.seconds,
        summary,
    })
}

fn field_strs<'r>(rec: &'r csvread::Record, ctx: &RowCtx, header: Option<&Header>) -> Result<Vec<Field<'r>>> {
    (0..rec.len())
        .map(|i| {
            let (bytes, quoted) = rec.field(i);
            let text = std::str::from_utf8(bytes).map_err(|_| ImportError::Bad {
                file: ctx.file.to_owned(),
                line: ctx.line,
                column: Some(
                    header
                        .and_then(|h| h.names.get(i).cloned())
                        .unwrap_or_else(|| (i + 1).to_string()),
                ),
                reason: "not valid UTF-8".into(),
            })?;
            Ok(Field { text, quoted })
        })
        .collect()
}

/// A record whose quoting cannot be read: a bad entry at its line and column.
fn quoting_error(
    run: &mut Run,
    header: Option<&Header>,
    file: &Path,
    line: u64,
    field: usize,
    why: &str,
) -> Result<()> {
    let column = header.and_then(|h| h.names.get(field).cloned());
    run.bad.bad(BadKind::Malformed, file, line, column, why.into())
}

/// Reads the files of one `--nodes` / `--relationships` group.
fn read_group(run: &mut Run, grp: &FileGroup, index: usize, nodes: bool) -> Result<()> {
    let mut header: Option<Header> = None;
    let spec_labels: Vec<String> = match (&grp.spec, nodes) {
        (Some(s), true) => s.split(':').filter(|l| !l.is_empty()).map(str::to_string).collect(),
        _ => Vec::new(),
    };
    let spec_type = if nodes { None } else { grp.spec.clone() };
    let csv = &run.spec.csv;
    let dialect = csvread::Dialect {
        delimiter: csv.delimiter,
        quote: csv.quote,
        multiline: csv.multiline_fields,
        legacy_quoting: csv.legacy_quoting,
    };
    let mut rec = csvread::Record::default();
    let mut rows = 0u64;
    let mut scratch = String::new();
    for file in &grp.files {
        let mut rdr = csvread::Ahead::new(csvread::Reader::new(input::open(file, run.bytes.clone())?, dialect));
        let mut ends = None;
        loop {
            match rdr.read(&mut rec) {
                Ok(false) => break,
                Ok(true) => {}
                Err(csvread::ReadError::Io(e)) => {
                    return Err(ImportError::Io {
                        path: file.clone(),
                        source: e,
                    })
                }
                Err(csvread::ReadError::Multiline { line, field }) => {
                    let why = "a quoted field runs past the end of its line (pass --multiline-fields=true if fields hold line breaks)";
                    quoting_error(run, header.as_ref(), file, line, field, why)?;
                    // The rest of the file cannot be split into records reliably.
                    break;
                }
                Err(csvread::ReadError::Unclosed { line, field }) => {
                    let why = "a quoted field is never closed (it runs to the end of the file)";
                    quoting_error(run, header.as_ref(), file, line, field, why)?;
                    break;
                }
            }
            let line = rec.line;
            let ctx = RowCtx { file, line };
            let fields = match field_strs(&rec, &ctx, header.as_ref()) {
                Ok(f) => f,
                Err(ImportError::Bad { column, reason, .. }) => {
                    run.bad.bad(bad::BadKind::Malformed, file, line, column, reason)?;
                    continue;
                }
                Err(e) => return Err(e),
            };
            let Some(h) = header.as_ref() else {
                let names: Vec<&str> = fields.iter().map(|f| f.text).collect();
                let mut h = Header::parse(&names).map_err(|(i, reason)| ImportError::Bad {
                    file: file.clone(),
                    line,
                    column: Some(names.get(i).map_or_else(|| (i + 1).to_string(), |s| s.to_string())),
                    reason,
                })?;
                h.apply(&grp.json_columns, grp.weight_column.as_deref());
                check_header(run, &h, nodes, spec_type.is_some(), file)?;
                if nodes {
                    if let Some(Col::Id { group: Some(g), .. }) = h.cols.iter().find(|c| matches!(c, Col::Id { .. })) {
                        run.groups.insert(g.clone());
                    }
                }
                if !nodes {
                    ends = endpoint_columns(&h);
                }
                header = Some(h);
                continue;
            };
            if let Some(ends) = &ends {
                prefetch_ahead(run, &rdr, ends, &mut scratch);
            }
            if fields.len() > h.cols.len() {
                let extra = format!(
                    "{} fields where the header has {} (extra: '{}')",
                    fields.len(),
                    h.cols.len(),
                    fields[h.cols.len()].text
                );
                if !run.spec.csv.ignore_extra_columns {
                    ctx.malformed(
                        &mut run.bad,
                        None,
                        format!("{extra}; --ignore-extra-columns ignores them"),
                    )?;
                    continue;
                }
                run.bad
                    .note(file, line, format!("{extra}: ignored (--ignore-extra-columns)"))?;
            }
            // Missing trailing fields are absent values (neo4j-admin).
            let mut fields = fields;
            fields.resize(
                h.cols.len(),
                Field {
                    text: "",
                    quoted: false,
                },
            );
            rows += 1;
            if nodes {
                node_row(run, h, &fields, &spec_labels, (index, rows), &ctx)?;
            } else {
                rel_row(run, h, &fields, spec_type.as_deref(), &ctx)?;
            }
            if run.load.rows().is_multiple_of(65_536) {
                run.tick();
            }
        }
    }
    Ok(())
}

/// The `:START_ID` and `:END_ID` columns of a relationship header, with their id groups.
fn endpoint_columns(h: &Header) -> Option<[(usize, Option<String>); 2]> {
    let find = |start: bool| {
        h.cols.iter().enumerate().find_map(|(i, c)| match c {
            Col::StartId { group } if start => Some((i, group.clone())),
            Col::EndId { group } if !start => Some((i, group.clone())),
            _ => None,
        })
    };
    Some([find(true)?, find(false)?])
}

/// Hints the loader with the endpoint keys of the relationship rows 16 and 8 records ahead,
/// built as [`key_of`] builds them, so that their lookups find what they need in cache
/// (decision 0039). A row it cannot read is skipped: only speed depends on the hints.
fn prefetch_ahead<R: std::io::BufRead>(
    run: &Run,
    rdr: &csvread::Ahead<R>,
    ends: &[(usize, Option<String>); 2],
    scratch: &mut String,
) {
    use std::fmt::Write;
    let csv = &run.spec.csv;
    for (n, near) in [(csvread::AHEAD, false), (csvread::AHEAD / 2, true)] {
        let Some(rec) = rdr.ahead(n) else { continue };
        for (col, group) in ends {
            if *col >= rec.len() {
                continue;
            }
            let Ok(id) = std::str::from_utf8(rec.field(*col).0) else {
                continue;
            };
            if id.is_empty() {
                continue;
            }
            let key = match (csv.group_keys, group, csv.id_type) {
                (GroupKeys::Prefixed, Some(g), _) => {
                    scratch.clear();
                    let _ = write!(scratch, "{g}:{id}");
                    KeyRef::Str(scratch)
                }
                (_, _, IdType::String) => KeyRef::Str(id),
                (_, _, IdType::Integer) => match id.trim().parse::<i64>() {
                    Ok(i) => KeyRef::Int(i),
                    Err(_) => continue,
                },
                _ => continue,
            };
            run.load.prefetch_endpoint(key, near);
        }
    }
}

fn check_header(run: &Run, h: &Header, nodes: bool, has_type: bool, file: &Path) -> Result<()> {
    let bad = |reason: String| {
        Err(ImportError::Bad {
            file: file.to_owned(),
            line: 1,
            column: None,
            reason,
        })
    };
    if nodes {
        if h.count(|c| matches!(c, Col::Id { .. })) > 1 {
            return bad("a node header has more than one :ID column".into());
        }
        if h.count(|c| matches!(c, Col::StartId { .. } | Col::EndId { .. } | Col::Type | Col::Weight)) > 0 {
            return bad("a node header cannot have :START_ID, :END_ID, :TYPE or :WEIGHT".into());
        }
    } else {
        if h.count(|c| matches!(c, Col::StartId { .. })) != 1 || h.count(|c| matches!(c, Col::EndId { .. })) != 1 {
            return bad("a relationship header needs one :START_ID and one :END_ID column".into());
        }
        if h.count(|c| matches!(c, Col::Type)) == 0 && !has_type {
            return bad("no :TYPE column and no type given (--relationships=TYPE=FILE)".into());
        }
        if h.count(|c| matches!(c, Col::Id { .. } | Col::Label)) > 0 {
            return bad("a relationship header cannot have :ID or :LABEL".into());
        }
        for c in &h.cols {
            if let Col::StartId { group: Some(g) } | Col::EndId { group: Some(g) } = c {
                if !run.groups.contains(g) {
                    return bad(format!("unknown id group '{g}': no node file defines :ID({g})"));
                }
            }
        }
    }
    Ok(())
}

fn column_name(h: &Header, i: usize) -> Option<&str> {
    h.names.get(i).map(String::as_str)
}

/// The key of a node row of a file without an `:ID` column (nodes nothing refers to):
/// `_:N:R` for the R-th row of the N-th `--nodes` group (1-based), a scheme no id of a
/// neo4j-admin file produces unless written that way on purpose.
fn anonymous_key(group: usize, row: u64) -> NodeKey {
    NodeKey::Str(format!("_:{}:{row}", group + 1))
}

fn node_row(
    run: &mut Run,
    h: &Header,
    fields: &[Field],
    spec_labels: &[String],
    (group_index, row): (usize, u64),
    ctx: &RowCtx,
) -> Result<()> {
    let mut key = None;
    let mut labels: Vec<&str> = spec_labels.iter().map(String::as_str).collect();
    let mut props = Props::new();
    let csv = &run.spec.csv;
    let ad = csv.array_delimiter as char;
    let mut has_id = false;
    for (i, (col, f)) in h.cols.iter().zip(fields).enumerate() {
        let raw = f.text;
        match col {
            Col::Id { group, prop } => {
                has_id = true;
                if raw.is_empty() {
                    return ctx.malformed(&mut run.bad, column_name(h, i), "empty node id".into());
                }
                match key_of(csv, group.as_deref(), raw) {
                    Ok(k) => key = Some(k),
                    Err(e) => return ctx.malformed(&mut run.bad, column_name(h, i), e),
                }
                if let Some(p) = prop.as_ref().filter(|p| *p != neo4j::KEY_COLUMN) {
                    props.insert(p.clone(), id_property(csv, raw));
                }
            }
            Col::Label => labels.extend(raw.split(ad).map(str::trim).filter(|l| !l.is_empty())),
            _ => {}
        }
    }
    if let Err((i, e)) = row_props(h, fields, csv, &mut props) {
        return ctx.malformed(&mut run.bad, column_name(h, i), e);
    }
    let key = match key {
        Some(k) => k,
        None if !has_id => anonymous_key(group_index, row),
        None => return Ok(()),
    };
    run.add_node(key, &labels, props, ctx)
}

fn rel_row(run: &mut Run, h: &Header, fields: &[Field], spec_type: Option<&str>, ctx: &RowCtx) -> Result<()> {
    let (mut src, mut dst): (Option<NodeKey>, Option<NodeKey>) = (None, None);
    let mut ty = spec_type.map(str::to_string);
    let mut weight = None;
    let mut props = Props::new();
    for (i, (col, f)) in h.cols.iter().zip(fields).enumerate() {
        let raw = f.text;
        let slot = match col {
            Col::StartId { group } => Some((&mut src, group)),
            Col::EndId { group } => Some((&mut dst, group)),
            Col::Type => {
                if !raw.is_empty() {
                    ty = Some(raw.to_string());
                }
                None
            }
            Col::Weight => {
                if !raw.is_empty() {
                    match raw.trim().parse::<f64>() {
                        Ok(w) if w.is_finite() => weight = Some(w),
                        _ => {
                            return ctx.malformed(
                                &mut run.bad,
                                column_name(h, i),
                                format!("weight '{raw}' is not a finite number"),
                            )
                        }
                    }
                }
                None
            }
            _ => None,
        };
        if let Some((slot, group)) = slot {
            if raw.is_empty() {
                return run.bad.bad(
                    BadKind::BadRelationship,
                    ctx.file,
                    ctx.line,
                    column_name(h, i).map(str::to_string),
                    "empty node id".into(),
                );
            }
            match key_of(&run.spec.csv, group.as_deref(), raw) {
                Ok(k) => *slot = Some(k),
                Err(e) => return ctx.malformed(&mut run.bad, column_name(h, i), e),
            }
        }
    }
    let Some(ty) = ty else {
        return ctx.malformed(&mut run.bad, Some(":TYPE"), "no relationship type".into());
    };
    if let Err((i, e)) = row_props(h, fields, &run.spec.csv, &mut props) {
        return ctx.malformed(&mut run.bad, column_name(h, i), e);
    }
    let (Some(src), Some(dst)) = (src, dst) else {
        return Ok(());
    };
    let entry = run.parallel.entry(&src, &ty, &dst, ctx);
    match run.load.add_edge(src, &ty, dst, weight, props) {
        Ok(()) => {
            run.parallel.add(entry);
            Ok(())
        }
        Err(StoreError::NodeNotFound { key }) => run.bad.bad(
            BadKind::BadRelationship,
            ctx.file,
            ctx.line,
            None,
            format!("relationship to node id {key}, which no node file defines"),
        ),
        Err(e) => ctx.malformed(&mut run.bad, None, e.to_string()),
    }
}
