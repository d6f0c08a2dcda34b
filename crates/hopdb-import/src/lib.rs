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
pub use neo4j::{CsvOptions, GroupKeys, IdType};

use bad::BadLog;
use hopdb_core::{
    BulkLoader, BulkOptions, BulkSummary, EdgeTypeOptions, Error as StoreError, Graph, MissingEndpoints, NodeKey, Props,
};
use neo4j::{key_of, row_props, Col, Header, RowCtx};
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
}

impl FileGroup {
    /// A group from its parts (the spec as `A:B` labels or a relationship type).
    pub fn new(spec: Option<&str>, files: Vec<PathBuf>) -> Self {
        FileGroup {
            spec: spec.map(str::to_string),
            files,
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

/// State shared by the readers of one import.
pub(crate) struct Run<'a, 'g> {
    pub load: BulkLoader<'g>,
    pub bad: BadLog,
    pub spec: &'a ImportSpec,
    pub bytes: Arc<AtomicU64>,
    pub progress: &'a dyn Progress,
    /// Id groups defined by node files (for `:START_ID(Group)` checks).
    pub groups: HashSet<String>,
}

impl Run<'_, '_> {
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

/// Imports everything `spec` names into `g`, atomically.
pub fn import(g: &Graph, spec: &ImportSpec, progress: &dyn Progress) -> Result<ImportReport> {
    let started = Instant::now();
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
    progress.start(input_bytes);
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
    let mut type_options: hopdb_core::BulkOptions = BulkOptions {
        missing_endpoints,
        ..BulkOptions::default()
    };
    for (k, v) in &spec.type_options {
        type_options.type_options.insert(k.clone(), *v);
    }
    for e in &spec.edge_lists {
        let o = e.type_options();
        type_options.type_options.entry(e.ty.clone()).or_insert(o);
    }
    for f in &spec.graphml {
        let o = graphml::type_options(f)?;
        type_options.type_options.entry(graphml::EDGE_TYPE.into()).or_insert(o);
    }
    if !spec.graphrag.is_empty() {
        type_options
            .type_options
            .entry(graphrag::EDGE_TYPE.into())
            .or_insert(graphrag::TYPE_OPTIONS);
    }
    let mut run = Run {
        load: g.bulk_load(type_options)?,
        bad: BadLog::new(spec.bad.clone()),
        spec,
        bytes: Arc::new(AtomicU64::new(0)),
        progress,
        groups: HashSet::new(),
    };
    for grp in &spec.nodes {
        read_group(&mut run, grp, true)?;
    }
    for t in &spec.parquet_nodes {
        parquet::read(&mut run, t, true)?;
    }
    for f in &spec.graphml {
        graphml::read(&mut run, f, true)?;
    }
    for d in &graphrag_files {
        graphrag::read_nodes(&mut run, d)?;
    }
    for grp in &spec.relationships {
        read_group(&mut run, grp, false)?;
    }
    for t in &spec.parquet_edges {
        parquet::read(&mut run, t, false)?;
    }
    for f in &spec.graphml {
        graphml::read(&mut run, f, false)?;
    }
    for d in &graphrag_files {
        graphrag::read_edges(&mut run, d)?;
    }
    for e in &spec.edge_lists {
        edgelist::read(&mut run, e)?;
    }
    run.bad.flush()?;
    run.tick();
    let parse_seconds = started.elapsed().as_secs_f64();
    let rows = run.load.rows();
    progress.phase("sorting, writing and committing");
    let summary = run.load.finish()?;
    Ok(ImportReport {
        nodes: summary.nodes_created,
        edges: summary.edges_created + summary.edges_replayed,
        rows,
        bad: run.bad.count,
        report_file: run.bad.report_path().map(Path::to_path_buf),
        input_bytes,
        seconds: started.elapsed().as_secs_f64(),
        parse_seconds,
        summary,
    })
}

/// Counts one byte value in what passes through (the quote character: an odd count at the
/// end of a file means a quoted field was never closed, which the CSV reader would otherwise
/// accept as a field running to the end of the file).
struct ByteCount<R> {
    inner: R,
    byte: u8,
    count: Arc<AtomicU64>,
}

impl<R: std::io::Read> std::io::Read for ByteCount<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let c = buf[..n].iter().filter(|&&b| b == self.byte).count();
        self.count.fetch_add(c as u64, Ordering::Relaxed);
        Ok(n)
    }
}

fn csv_reader(run: &Run, file: &Path, quotes: Arc<AtomicU64>) -> Result<csv::Reader<Box<dyn std::io::Read + Send>>> {
    let r: Box<dyn std::io::Read + Send> = Box::new(ByteCount {
        inner: input::open(file, run.bytes.clone())?,
        byte: run.spec.csv.quote,
        count: quotes,
    });
    Ok(csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(run.spec.csv.delimiter)
        .quote(run.spec.csv.quote)
        .buffer_capacity(1 << 20)
        .from_reader(r))
}

fn utf8<'r>(
    rec: &'r csv::ByteRecord,
    ctx: &RowCtx,
    header: Option<&Header>,
) -> std::result::Result<Vec<&'r str>, ImportError> {
    rec.iter()
        .enumerate()
        .map(|(i, f)| {
            std::str::from_utf8(f).map_err(|_| ImportError::Bad {
                file: ctx.file.to_owned(),
                line: ctx.line,
                column: Some(
                    header
                        .and_then(|h| h.names.get(i).cloned())
                        .unwrap_or_else(|| (i + 1).to_string()),
                ),
                reason: "not valid UTF-8".into(),
            })
        })
        .collect()
}

/// Reads the files of one `--nodes` / `--relationships` group.
fn read_group(run: &mut Run, grp: &FileGroup, nodes: bool) -> Result<()> {
    let mut header: Option<Header> = None;
    let spec_labels: Vec<String> = match (&grp.spec, nodes) {
        (Some(s), true) => s.split(':').filter(|l| !l.is_empty()).map(str::to_string).collect(),
        _ => Vec::new(),
    };
    let spec_type = if nodes { None } else { grp.spec.clone() };
    let mut rec = csv::ByteRecord::new();
    for file in &grp.files {
        let quotes = Arc::new(AtomicU64::new(0));
        let mut rdr = csv_reader(run, file, quotes.clone())?;
        let mut last_line = 0;
        loop {
            match rdr.read_byte_record(&mut rec) {
                Ok(false) => {
                    if quotes.load(Ordering::Relaxed) % 2 == 1 {
                        let ctx = RowCtx { file, line: last_line };
                        ctx.malformed(
                            &mut run.bad,
                            None,
                            "a quoted field is never closed (it runs to the end of the file)".into(),
                        )?;
                    }
                    break;
                }
                Ok(true) => {}
                Err(e) => {
                    let line = e.position().map_or(0, |p| p.line());
                    let ctx = RowCtx { file, line };
                    ctx.malformed(&mut run.bad, None, format!("unreadable CSV: {e}"))?;
                    // The reader cannot resynchronise after a quoting error: the file ends here.
                    break;
                }
            }
            let line = rec.position().map_or(0, |p| p.line());
            last_line = line;
            let ctx = RowCtx { file, line };
            let fields = match utf8(&rec, &ctx, header.as_ref()) {
                Ok(f) => f,
                Err(ImportError::Bad { column, reason, .. }) => {
                    run.bad.bad(bad::BadKind::Malformed, file, line, column, reason)?;
                    continue;
                }
                Err(e) => return Err(e),
            };
            let Some(h) = header.as_ref() else {
                let h = Header::parse(&fields).map_err(|(i, reason)| ImportError::Bad {
                    file: file.clone(),
                    line,
                    column: Some(fields.get(i).map_or_else(|| (i + 1).to_string(), |s| s.to_string())),
                    reason,
                })?;
                check_header(run, &h, nodes, spec_type.is_some(), file)?;
                if nodes {
                    if let Some(Col::Id { group: Some(g), .. }) = h.cols.iter().find(|c| matches!(c, Col::Id { .. })) {
                        run.groups.insert(g.clone());
                    }
                }
                header = Some(h);
                continue;
            };
            if fields.len() != h.cols.len() {
                ctx.malformed(
                    &mut run.bad,
                    None,
                    format!("{} fields where the header has {}", fields.len(), h.cols.len()),
                )?;
                continue;
            }
            if nodes {
                node_row(run, h, &fields, &spec_labels, &ctx)?;
            } else {
                rel_row(run, h, &fields, spec_type.as_deref(), &ctx)?;
            }
            if run.load.rows() % 65_536 == 0 {
                run.tick();
            }
        }
    }
    Ok(())
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
        if h.count(|c| matches!(c, Col::Id { .. })) != 1 {
            return bad("a node header needs exactly one :ID column".into());
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

fn node_row(run: &mut Run, h: &Header, fields: &[&str], spec_labels: &[String], ctx: &RowCtx) -> Result<()> {
    let mut key = None;
    let mut labels: Vec<&str> = spec_labels.iter().map(String::as_str).collect();
    let mut props = Props::new();
    let ad = run.spec.csv.array_delimiter as char;
    for (i, (col, raw)) in h.cols.iter().zip(fields).enumerate() {
        match col {
            Col::Id { group, prop } => {
                if raw.is_empty() {
                    return ctx.malformed(&mut run.bad, column_name(h, i), "empty node id".into());
                }
                match key_of(&run.spec.csv, group.as_deref(), raw) {
                    Ok(k) => key = Some(k),
                    Err(e) => return ctx.malformed(&mut run.bad, column_name(h, i), e),
                }
                if let Some(p) = prop {
                    props.insert(p.clone(), hopdb_core::Value::Str(raw.to_string()));
                }
            }
            Col::Label => labels.extend(raw.split(ad).filter(|l| !l.is_empty())),
            _ => {}
        }
    }
    if let Err((i, e)) = row_props(h, fields, ad, &mut props) {
        return ctx.malformed(&mut run.bad, column_name(h, i), e);
    }
    let Some(key) = key else { return Ok(()) };
    run.add_node(key, &labels, props, ctx)
}

fn rel_row(run: &mut Run, h: &Header, fields: &[&str], spec_type: Option<&str>, ctx: &RowCtx) -> Result<()> {
    let (mut src, mut dst): (Option<NodeKey>, Option<NodeKey>) = (None, None);
    let mut ty = spec_type.map(str::to_string);
    let mut weight = None;
    let mut props = Props::new();
    for (i, (col, raw)) in h.cols.iter().zip(fields).enumerate() {
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
    if let Err((i, e)) = row_props(h, fields, run.spec.csv.array_delimiter as char, &mut props) {
        return ctx.malformed(&mut run.bad, column_name(h, i), e);
    }
    let (Some(src), Some(dst)) = (src, dst) else {
        return Ok(());
    };
    match run.load.add_edge(src, &ty, dst, weight, props) {
        Ok(()) => Ok(()),
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
