//! Parquet and Arrow IPC tables as node and relationship input, and the Parquet export.
//!
//! # Reading
//!
//! A [`TableInput`] is one Parquet file or Arrow IPC file (Feather v2, file or stream format;
//! the format is recognised by its magic bytes, not the name). It is read one record batch at a
//! time, so memory stays bounded whatever the file size. [`Columns`] says which columns play
//! which part (defaults `id`, `labels`, `src`, `dst`, `type`, `weight`); every other column is
//! a property:
//!
//! | Arrow type | value |
//! | --- | --- |
//! | null (any type) | property absent |
//! | bool | `Bool` |
//! | int8 … int64, uint8 … uint64 | `Int` (a uint64 above `i64::MAX` is a bad value) |
//! | float16/32/64 | `Float` |
//! | utf8, large_utf8, utf8_view | `Str` (a column named `NAME:json` is JSON: any value, property `NAME`) |
//! | binary, large_binary, binary_view, fixed_size_binary | `Bytes` |
//! | list, large_list, fixed_size_list | `List` (null elements are `Null`) |
//! | struct | `Map` (null fields left out) |
//! | map | `Map` (keys as strings) |
//! | dictionary | its value type |
//! | dates, times, timestamps, durations, decimals, … | `Str`, as Arrow displays them |
//!
//! The key column (`id` for nodes, `src` and `dst` for relationships) holds integers
//! ([`NodeKey::Int`]) or strings ([`NodeKey::Str`]); a string column `id:json` (used when the
//! column `id` is absent) holds JSON integers and strings, for keys of both kinds. Labels come
//! from a `list<string>` column or a string column split on the CSV array delimiter (`;`).
//! A row with a bad value (a null id, a string weight) goes through the import's bad-entry
//! policy, named by file, row number (as the line, counting data rows from 1) and column.
//!
//! # The Parquet export
//!
//! [`export_parquet`] writes a store as `nodes.parquet`, one `relationships-N.parquet` per edge
//! type and `manifest.json`, so that [`parquet_export_spec`] + [`crate::import`] reproduce the
//! graph (except the ids of multi-edge types, which a new store numbers anew):
//!
//! - `nodes.parquet`: `id` (int64 when every key is an integer, utf8 when every key is a
//!   string, otherwise `id:json` with JSON integers and strings), `labels` (`list<utf8>`), then
//!   one column per property name, in name order;
//! - `relationships-N.parquet`: `src`, `dst` (typed as `id`), `weight` (float64, null when the
//!   edge has none), then one column per property name. An undirected edge is written once,
//!   from its smaller endpoint;
//! - a property column is int64, float64, bool, utf8 or binary when every value of that
//!   property is of that kind, `list<…>` of one of those when every value is a list whose
//!   elements all are, and otherwise (mixed kinds, maps, nested lists, explicit `Null` values,
//!   property names that end in `:json`) a utf8 column `NAME:json` of JSON text
//!   ([`crate::neo4j::to_json`]: integers stay integers, bytes are `{"$bytes": base64}`; a
//!   NaN or infinite float there has no JSON form and fails the export, naming the column);
//! - a reserved column name that a property already uses gets `_` prefixed until it is free;
//!   the manifest records the names actually used, and the types' options (undirected, multi).

use crate::bad::BadKind;
use crate::error::{io, ImportError, Result};
use crate::neo4j::{from_json, to_json, RowCtx};
use crate::{ImportSpec, Run};
use arrow::array::{
    Array, ArrayRef, AsArray, BinaryBuilder, BooleanBuilder, Float64Builder, Int64Builder, ListBuilder, RecordBatch,
    StringBuilder,
};
use arrow::datatypes::*;
use arrow::error::ArrowError;
use hopdb_core::{Direction, EdgeTypeOptions, Error as StoreError, Graph, GraphRead, KeyRef, NodeKey, Props, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Rows per record batch, read and written.
const BATCH_ROWS: usize = 8192;

/// Which columns of a table play which part. Every other column is a property.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns {
    /// Node tables: the key column.
    pub id: String,
    /// Node tables: the labels column (`list<string>` or `;`-separated string), if any.
    pub labels: Option<String>,
    /// Relationship tables: the start key column.
    pub src: String,
    /// Relationship tables: the end key column.
    pub dst: String,
    /// Relationship tables: the type column, if any (a null or absent type falls back to the
    /// type given with the file).
    pub ty: Option<String>,
    /// Relationship tables: the weight column, if any.
    pub weight: Option<String>,
    /// Also keep the columns above as properties, under their column names (the GraphRAG
    /// reader keeps `title`, `type`, `source`, `target` and `weight` this way).
    pub keep: bool,
}

impl Default for Columns {
    fn default() -> Self {
        Columns {
            id: "id".into(),
            labels: Some("labels".into()),
            src: "src".into(),
            dst: "dst".into(),
            ty: Some("type".into()),
            weight: Some("weight".into()),
            keep: false,
        }
    }
}

/// One Parquet or Arrow IPC file of nodes or relationships, or record batches already in
/// memory (an Arrow table handed over from Python: then `file` only names it in messages).
#[derive(Debug, Clone)]
pub struct TableInput {
    /// The file (Parquet or Arrow IPC, told apart by content), or the name of an in-memory table.
    pub file: PathBuf,
    /// Node tables: labels for every row (`A:B`); relationship tables: the type of rows
    /// without one.
    pub spec: Option<String>,
    /// Which columns hold the key, labels, endpoints, type and weight.
    pub columns: Columns,
    /// The rows, when they are in memory instead of in `file`.
    pub batches: Option<MemoryTable>,
}

/// Record batches in memory, read instead of a file.
#[derive(Debug, Clone)]
pub struct MemoryTable {
    /// The schema every batch has.
    pub schema: SchemaRef,
    /// The batches, in row order (shared, so the table is not copied).
    pub batches: Arc<Vec<RecordBatch>>,
}

impl TableInput {
    /// `file` with the default column names and no labels or type given.
    pub fn new(file: impl Into<PathBuf>) -> Self {
        TableInput {
            file: file.into(),
            spec: None,
            columns: Columns::default(),
            batches: None,
        }
    }

    /// An in-memory table; `name` stands for the file in messages (e.g. `<nodes table 1>`).
    pub fn from_batches(name: &str, schema: SchemaRef, batches: Vec<RecordBatch>) -> Self {
        TableInput {
            batches: Some(MemoryTable {
                schema,
                batches: Arc::new(batches),
            }),
            ..TableInput::new(name)
        }
    }

    /// Parses `[SPEC=]FILE` as `--parquet-nodes` and `--parquet-relationships` take it.
    pub fn parse(arg: &str, columns: Columns) -> Self {
        let (spec, file) = match arg.split_once('=') {
            Some((s, f)) if !s.contains('/') && !s.is_empty() => (Some(s.to_string()), f),
            _ => (None, arg),
        };
        TableInput {
            file: file.into(),
            spec,
            columns,
            batches: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Parquet,
    IpcFile,
    IpcStream,
}

fn sniff(path: &Path) -> Result<Format> {
    let mut f = std::fs::File::open(path).map_err(io(path))?;
    let mut magic = [0u8; 6];
    let mut n = 0;
    while n < magic.len() {
        match f.read(&mut magic[n..]).map_err(io(path))? {
            0 => break,
            k => n += k,
        }
    }
    if n >= 4 && &magic[..4] == b"PAR1" {
        Ok(Format::Parquet)
    } else if n == 6 && &magic == b"ARROW1" {
        Ok(Format::IpcFile)
    } else if n >= 4 && magic[..4] == [0xff; 4] {
        Ok(Format::IpcStream)
    } else {
        Err(ImportError::Usage(format!(
            "{}: not a Parquet or Arrow IPC file (no PAR1 or ARROW1 magic)",
            path.display()
        )))
    }
}

fn data_err(path: &Path, e: impl std::fmt::Display) -> ImportError {
    ImportError::Io {
        path: path.to_owned(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()),
    }
}

type BatchIter = Box<dyn Iterator<Item = std::result::Result<RecordBatch, ArrowError>> + Send>;

/// How far through a table a reader is, for progress: rows of a Parquet file, batches of an
/// IPC file (a stream does not say).
#[derive(Clone, Copy)]
enum Extent {
    Rows(u64),
    Batches(u64),
    Unknown,
}

/// The message of a caught panic.
fn panic_text(p: &(dyn std::any::Any + Send)) -> &str {
    p.downcast_ref::<&str>()
        .copied()
        .or_else(|| p.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message")
}

/// The arrow and parquet readers trust some offsets and lengths of a damaged file and panic
/// on them (e.g. arrow-ipc 60 slices an IPC buffer past the message body). A panic while
/// opening or reading a table becomes the file's typed error, saying so, and the reader
/// stops there.
struct Guarded {
    inner: Option<BatchIter>,
    batch: u64,
}

impl Iterator for Guarded {
    type Item = std::result::Result<RecordBatch, ArrowError>;
    fn next(&mut self) -> Option<Self::Item> {
        let inner = self.inner.as_mut()?;
        self.batch += 1;
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.next())) {
            Ok(item) => item,
            Err(p) => {
                self.inner = None;
                Some(Err(ArrowError::InvalidArgumentError(format!(
                    "record batch {}: malformed data (the reader failed: {})",
                    self.batch,
                    panic_text(&*p)
                ))))
            }
        }
    }
}

/// Opens a table: its schema, its batches, and its extent.
fn open_batches(path: &Path) -> Result<(SchemaRef, BatchIter, Extent)> {
    let (schema, it, extent) = std::panic::catch_unwind(|| open_batches_unguarded(path)).map_err(|p| {
        data_err(
            path,
            format!("malformed table metadata (the reader failed: {})", panic_text(&*p)),
        )
    })??;
    let it: BatchIter = Box::new(Guarded {
        inner: Some(it),
        batch: 0,
    });
    Ok((schema, it, extent))
}

fn open_batches_unguarded(path: &Path) -> Result<(SchemaRef, BatchIter, Extent)> {
    let format = sniff(path)?;
    let f = std::fs::File::open(path).map_err(io(path))?;
    match format {
        Format::Parquet => {
            let b = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)
                .map_err(|e| data_err(path, e))?
                .with_batch_size(BATCH_ROWS);
            let rows = u64::try_from(b.metadata().file_metadata().num_rows()).map_or(Extent::Unknown, Extent::Rows);
            let schema = b.schema().clone();
            let r = b.build().map_err(|e| data_err(path, e))?;
            Ok((schema, Box::new(r), rows))
        }
        Format::IpcFile => {
            let r = arrow::ipc::reader::FileReader::try_new_buffered(f, None).map_err(|e| data_err(path, e))?;
            let batches = Extent::Batches(r.num_batches() as u64);
            Ok((r.schema(), Box::new(r), batches))
        }
        Format::IpcStream => {
            let r = arrow::ipc::reader::StreamReader::try_new_buffered(f, None).map_err(|e| data_err(path, e))?;
            Ok((r.schema(), Box::new(r), Extent::Unknown))
        }
    }
}

/// Reads a whole table into memory (for small side tables such as GraphRAG communities and for
/// tests).
pub(crate) fn read_all(path: &Path) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let (schema, it, _) = open_batches(path)?;
    let batches = it
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| data_err(path, e))?;
    Ok((schema, batches))
}

/// Calls `f` with each record batch of a table, in order.
pub(crate) fn for_each_batch(path: &Path, mut f: impl FnMut(&RecordBatch) -> Result<()>) -> Result<()> {
    let (_, it, _) = open_batches(path)?;
    for b in it {
        f(&b.map_err(|e| data_err(path, e))?)?;
    }
    Ok(())
}

/// A column's position and whether it is JSON text.
#[derive(Debug, Clone, Copy)]
struct ColRef {
    idx: usize,
    json: bool,
}

/// The key columns of a table: a node table's id, or a relationship table's two endpoints.
#[derive(Debug, Clone, Copy)]
enum Keys {
    Node(ColRef),
    Edge { src: ColRef, dst: ColRef },
}

struct Layout {
    keys: Keys,
    labels: Option<usize>,
    ty: Option<usize>,
    weight: Option<usize>,
    /// (column, property name, JSON text)
    props: Vec<(usize, String, bool)>,
    names: Vec<String>,
    /// Node tables: the labels given with the file, and the delimiter of string labels.
    spec_labels: Vec<String>,
    delimiter: char,
    /// Relationship tables: the type given with the file (TYPE=FILE), if any.
    spec_type: Option<String>,
}

fn is_string(t: &DataType) -> bool {
    match t {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
        DataType::Dictionary(_, v) => is_string(v),
        _ => false,
    }
}

impl Layout {
    fn new(schema: &Schema, cols: &Columns, nodes: bool, has_spec: bool, file: &Path) -> Result<Layout> {
        let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
        let find = |name: &str| names.iter().position(|n| n == name);
        // A key column `NAME`, or `NAME:json` when there is no `NAME`.
        let find_key = |name: &str| match find(name) {
            Some(idx) => Some(ColRef { idx, json: false }),
            None => find(&format!("{name}:json")).map(|idx| ColRef { idx, json: true }),
        };
        let missing = |what: &str, name: &str| {
            ImportError::Usage(format!(
                "{}: no {what} column '{name}' (columns: {})",
                file.display(),
                names.join(", ")
            ))
        };
        let keys = if nodes {
            Keys::Node(find_key(&cols.id).ok_or_else(|| missing("node id", &cols.id))?)
        } else {
            Keys::Edge {
                src: find_key(&cols.src).ok_or_else(|| missing("start node", &cols.src))?,
                dst: find_key(&cols.dst).ok_or_else(|| missing("end node", &cols.dst))?,
            }
        };
        let mut l = Layout {
            keys,
            labels: None,
            ty: None,
            weight: None,
            props: Vec::new(),
            names: names.clone(),
            spec_labels: Vec::new(),
            delimiter: ';',
            spec_type: None,
        };
        if nodes {
            l.labels = cols.labels.as_deref().and_then(find);
        } else {
            l.ty = cols.ty.as_deref().and_then(find);
            l.weight = cols.weight.as_deref().and_then(find);
            if l.ty.is_none() && !has_spec {
                return Err(ImportError::Usage(format!(
                    "{}: no type column '{}' and no type given (TYPE=FILE)",
                    file.display(),
                    cols.ty.as_deref().unwrap_or("")
                )));
            }
        }
        let (first_key, second_key) = match l.keys {
            Keys::Node(key) => (key.idx, None),
            Keys::Edge { src, dst } => (src.idx, Some(dst.idx)),
        };
        let special: Vec<usize> = [Some(first_key), second_key, l.labels, l.ty, l.weight]
            .into_iter()
            .flatten()
            .collect();
        for (i, f) in schema.fields().iter().enumerate() {
            if special.contains(&i) {
                if cols.keep {
                    l.props.push((i, f.name().clone(), false));
                }
                continue;
            }
            match f.name().strip_suffix(":json") {
                Some(base) if !base.is_empty() && is_string(f.data_type()) => l.props.push((i, base.to_string(), true)),
                _ => l.props.push((i, f.name().clone(), false)),
            }
        }
        Ok(l)
    }
}

/// The schema of a table.
pub(crate) fn schema_of(path: &Path) -> Result<SchemaRef> {
    open_batches(path).map(|(s, _, _)| s)
}

/// Reads one node or relationship table into the load.
pub(crate) fn read(run: &mut Run, t: &TableInput, nodes: bool) -> Result<()> {
    read_with(run, t, nodes, &mut |_| {})
}

/// [`read`], with `extra` adding to each row's properties.
pub(crate) fn read_with(run: &mut Run, t: &TableInput, nodes: bool, extra: &mut dyn FnMut(&mut Props)) -> Result<()> {
    let file = t.file.as_path();
    let (schema, batches, extent, size) = match &t.batches {
        Some(m) => {
            let it: BatchIter = Box::new((*m.batches).clone().into_iter().map(Ok));
            let bytes = m.batches.iter().map(|b| b.get_array_memory_size() as u64).sum();
            (m.schema.clone(), it, Extent::Batches(m.batches.len() as u64), bytes)
        }
        None => {
            let (schema, it, extent) = open_batches(file)?;
            (schema, it, extent, std::fs::metadata(file).map_or(0, |m| m.len()))
        }
    };
    let mut layout = Layout::new(&schema, &t.columns, nodes, t.spec.is_some(), file)?;
    if let (Some(s), true) = (&t.spec, nodes) {
        layout.spec_labels = s.split(':').filter(|l| !l.is_empty()).map(str::to_string).collect();
    }
    if !nodes {
        layout.spec_type = t.spec.clone();
    }
    layout.delimiter = run.spec.csv.array_delimiter as char;
    let (mut row, mut done_batches, mut counted) = (0u64, 0u64, 0u64);
    for batch in batches {
        let batch = batch.map_err(|e| data_err(file, e))?;
        let cols = batch.columns();
        let n = batch.num_rows();
        for i in 0..n {
            if let Keys::Edge { src, dst } = layout.keys {
                // Endpoint lookups miss the cache at random: start them rows ahead.
                for (ahead, near) in [(PREFETCH_FAR, false), (PREFETCH_NEAR, true)] {
                    if i + ahead < n {
                        for c in [src, dst] {
                            if let Some(k) = key_ref_at(cols[c.idx].as_ref(), i + ahead, c.json) {
                                run.load.prefetch_endpoint(k, near);
                            }
                        }
                    }
                }
            }
            row += 1;
            let ctx = RowCtx { file, line: row };
            // `layout.keys` is `Node` exactly when `nodes` (see `Layout::new`).
            match layout.keys {
                Keys::Node(key) => node_row(run, &layout, key, cols, i, &ctx, extra)?,
                Keys::Edge { src, dst } => edge_row(run, &layout, (src, dst), cols, i, &ctx, extra)?,
            }
        }
        // Progress: the file's share of the rows (or batches) read so far.
        done_batches += 1;
        let share = |done: u64, of: u64| (size as u128 * done as u128 / of.max(1) as u128).min(size as u128) as u64;
        let now = match extent {
            Extent::Rows(n) => share(row, n),
            Extent::Batches(n) => share(done_batches, n),
            Extent::Unknown => counted,
        };
        run.bytes.fetch_add(now - counted, Ordering::Relaxed);
        counted = now;
        run.tick();
    }
    run.bytes.fetch_add(size.saturating_sub(counted), Ordering::Relaxed);
    Ok(())
}

fn col_name(l: &Layout, idx: usize) -> Option<&str> {
    l.names.get(idx).map(String::as_str)
}

/// The properties of row `i`: Err((column, reason)) on a bad value.
fn row_props(l: &Layout, cols: &[ArrayRef], i: usize) -> std::result::Result<Props, (usize, String)> {
    let mut props = Props::new();
    for (idx, name, json) in &l.props {
        let v = value_at(cols[*idx].as_ref(), i).map_err(|e| (*idx, e))?;
        let Some(v) = v else { continue };
        let v = if *json {
            json_value(&v).map_err(|e| (*idx, e))?
        } else {
            v
        };
        props.insert(name.clone(), v);
    }
    Ok(props)
}

fn json_value(v: &Value) -> std::result::Result<Value, String> {
    match v {
        Value::Str(s) => serde_json::from_str::<serde_json::Value>(s)
            .map_err(|e| format!("not valid JSON: {e}"))
            .and_then(|j| from_json(&j)),
        _ => Err("a :json column must hold strings".into()),
    }
}

/// Rows ahead at which an edge row's endpoints are prefetched: the slot first, then (once it
/// is in cache) the key it points to (measured on the 1M-node Arrow load: decision 0039).
const PREFETCH_FAR: usize = 16;
const PREFETCH_NEAR: usize = 8;

/// Row `i`'s key, borrowed, when the column is a plain string or integer column and the
/// value is there (others take [`key_at`]'s slower path, and are not prefetched).
fn key_ref_at(a: &dyn Array, i: usize, json: bool) -> Option<KeyRef<'_>> {
    if json || a.is_null(i) {
        return None;
    }
    match a.data_type() {
        DataType::Int64 => Some(KeyRef::Int(a.as_primitive::<Int64Type>().value(i))),
        _ => str_at(a, i).filter(|s| !s.is_empty()).map(KeyRef::Str),
    }
}

fn key_at(a: &dyn Array, i: usize, json: bool) -> std::result::Result<Option<NodeKey>, String> {
    if let Some(k) = key_ref_at(a, i, json) {
        return Ok(Some(k.into()));
    }
    let Some(v) = value_at(a, i)? else { return Ok(None) };
    let v = if json { json_value(&v)? } else { v };
    match v {
        Value::Int(k) => Ok(Some(NodeKey::Int(k))),
        Value::Str(s) if s.is_empty() => Err("empty node id".into()),
        Value::Str(s) => Ok(Some(NodeKey::Str(s))),
        other => Err(format!(
            "a node id must be an integer or a string, not {}",
            kind_name(&other)
        )),
    }
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Int(_) => "an integer",
        Value::Float(_) => "a float",
        Value::Str(_) => "a string",
        Value::Bytes(_) => "bytes",
        Value::List(_) => "a list",
        Value::Map(_) => "a map",
    }
}

fn node_row(
    run: &mut Run,
    l: &Layout,
    kc: ColRef,
    cols: &[ArrayRef],
    i: usize,
    ctx: &RowCtx,
    extra: &mut dyn FnMut(&mut Props),
) -> Result<()> {
    let key = match key_at(cols[kc.idx].as_ref(), i, kc.json) {
        Ok(Some(k)) => k,
        Ok(None) => return ctx.malformed(&mut run.bad, col_name(l, kc.idx), "null node id".into()),
        Err(e) => return ctx.malformed(&mut run.bad, col_name(l, kc.idx), e),
    };
    let mut labels: Vec<String> = l.spec_labels.clone();
    if let Some(li) = l
        .labels
        .filter(|&li| !push_list_labels(cols[li].as_ref(), i, &mut labels))
    {
        match value_at(cols[li].as_ref(), i) {
            Ok(None) => {}
            Ok(Some(Value::Str(s))) => {
                labels.extend(s.split(l.delimiter).filter(|x| !x.is_empty()).map(str::to_string))
            }
            Ok(Some(Value::List(items))) => {
                for it in items {
                    match it {
                        Value::Str(s) if !s.is_empty() => labels.push(s),
                        Value::Null => {}
                        Value::Str(_) => {}
                        other => {
                            let reason = format!("a label must be a string, not {}", kind_name(&other));
                            return ctx.malformed(&mut run.bad, col_name(l, li), reason);
                        }
                    }
                }
            }
            Ok(Some(other)) => {
                let reason = format!(
                    "labels must be a list of strings or a string, not {}",
                    kind_name(&other)
                );
                return ctx.malformed(&mut run.bad, col_name(l, li), reason);
            }
            Err(e) => return ctx.malformed(&mut run.bad, col_name(l, li), e),
        }
    }
    let mut props = match row_props(l, cols, i) {
        Ok(p) => p,
        Err((idx, e)) => return ctx.malformed(&mut run.bad, col_name(l, idx), e),
    };
    extra(&mut props);
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    run.add_node(key, &labels, props, ctx)
}

/// The endpoint key in column `c` of row `i`, or `None` once the row is recorded as bad.
fn end_key(run: &mut Run, l: &Layout, c: ColRef, cols: &[ArrayRef], i: usize, ctx: &RowCtx) -> Result<Option<NodeKey>> {
    match key_at(cols[c.idx].as_ref(), i, c.json) {
        Ok(Some(k)) => Ok(Some(k)),
        Ok(None) => run
            .bad
            .bad(
                BadKind::BadRelationship,
                ctx.file,
                ctx.line,
                col_name(l, c.idx).map(str::to_string),
                "null node id".into(),
            )
            .map(|()| None),
        Err(e) => ctx.malformed(&mut run.bad, col_name(l, c.idx), e).map(|()| None),
    }
}

fn edge_row(
    run: &mut Run,
    l: &Layout,
    (src, dst): (ColRef, ColRef),
    cols: &[ArrayRef],
    i: usize,
    ctx: &RowCtx,
    extra: &mut dyn FnMut(&mut Props),
) -> Result<()> {
    let Some(src) = end_key(run, l, src, cols, i, ctx)? else {
        return Ok(());
    };
    let Some(dst) = end_key(run, l, dst, cols, i, ctx)? else {
        return Ok(());
    };
    // Borrowed from the column when it is a plain string column (no allocation per row).
    let mut ty: Option<std::borrow::Cow<'_, str>> = l.spec_type.as_deref().map(std::borrow::Cow::Borrowed);
    let fast_ty = l.ty.and_then(|ti| str_at(cols[ti].as_ref(), i));
    if let Some(t) = fast_ty.filter(|t| !t.is_empty()) {
        ty = Some(std::borrow::Cow::Borrowed(t));
    } else if let Some(ti) = l.ty.filter(|_| fast_ty.is_none()) {
        match value_at(cols[ti].as_ref(), i) {
            Ok(None) => {}
            Ok(Some(Value::Str(s))) if !s.is_empty() => ty = Some(std::borrow::Cow::Owned(s)),
            Ok(Some(Value::Str(_))) => {}
            Ok(Some(other)) => {
                let reason = format!("a relationship type must be a string, not {}", kind_name(&other));
                return ctx.malformed(&mut run.bad, col_name(l, ti), reason);
            }
            Err(e) => return ctx.malformed(&mut run.bad, col_name(l, ti), e),
        }
    }
    let Some(ty) = ty else {
        return ctx.malformed(
            &mut run.bad,
            l.ty.and_then(|t| col_name(l, t)),
            "no relationship type".into(),
        );
    };
    let mut weight = None;
    if let Some(wi) = l.weight {
        let w = match value_at(cols[wi].as_ref(), i) {
            Ok(None) => None,
            Ok(Some(Value::Float(f))) => Some(f),
            Ok(Some(Value::Int(n))) => Some(n as f64),
            Ok(Some(other)) => {
                let reason = format!("a weight must be a number, not {}", kind_name(&other));
                return ctx.malformed(&mut run.bad, col_name(l, wi), reason);
            }
            Err(e) => return ctx.malformed(&mut run.bad, col_name(l, wi), e),
        };
        if let Some(w) = w {
            if !w.is_finite() {
                return ctx.malformed(
                    &mut run.bad,
                    col_name(l, wi),
                    format!("weight {w} is not a finite number"),
                );
            }
        }
        weight = w;
    }
    let mut props = match row_props(l, cols, i) {
        Ok(p) => p,
        Err((idx, e)) => return ctx.malformed(&mut run.bad, col_name(l, idx), e),
    };
    extra(&mut props);
    match run.load.add_edge(src, &ty, dst, weight, props) {
        Ok(()) => Ok(()),
        Err(StoreError::NodeNotFound { key }) => run.bad.bad(
            BadKind::BadRelationship,
            ctx.file,
            ctx.line,
            None,
            format!("relationship to node id {key}, which no node input defines"),
        ),
        Err(e) => ctx.malformed(&mut run.bad, None, e.to_string()),
    }
}

/// The value at row `i` of `a`; `None` when it is null.
/// The string at row `i` of a string column, borrowed (no value built); `None` for other
/// column types and nulls, which then go through [`value_at`].
fn str_at(a: &dyn Array, i: usize) -> Option<&str> {
    if a.is_null(i) {
        return None;
    }
    match a.data_type() {
        DataType::Utf8 => Some(a.as_string::<i32>().value(i)),
        DataType::LargeUtf8 => Some(a.as_string::<i64>().value(i)),
        DataType::Utf8View => Some(a.as_string_view().value(i)),
        _ => None,
    }
}

/// The labels of row `i` of a list-of-strings column (list or large list; utf8, large utf8 or
/// utf8 view items, as pyarrow and Polars export them), pushed without building values; false
/// when the column is of another type (the caller falls back to [`value_at`]).
fn push_list_labels(a: &dyn Array, i: usize, out: &mut Vec<String>) -> bool {
    let (lo, hi, items) = match a.data_type() {
        DataType::List(_) => {
            let l = a.as_list::<i32>();
            (
                l.value_offsets()[i] as usize,
                l.value_offsets()[i + 1] as usize,
                l.values(),
            )
        }
        DataType::LargeList(_) => {
            let l = a.as_list::<i64>();
            (
                l.value_offsets()[i] as usize,
                l.value_offsets()[i + 1] as usize,
                l.values(),
            )
        }
        _ => return false,
    };
    if !matches!(
        items.data_type(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    ) {
        return false;
    }
    if !a.is_null(i) {
        out.extend(
            (lo..hi)
                .filter_map(|j| str_at(items.as_ref(), j))
                .filter(|s| !s.is_empty())
                .map(str::to_string),
        );
    }
    true
}

pub(crate) fn value_at(a: &dyn Array, i: usize) -> std::result::Result<Option<Value>, String> {
    use DataType as D;
    if matches!(a.data_type(), D::Null) || a.is_null(i) {
        return Ok(None);
    }
    let v = match a.data_type() {
        D::Boolean => Value::Bool(a.as_boolean().value(i)),
        D::Int8 => Value::Int(a.as_primitive::<Int8Type>().value(i).into()),
        D::Int16 => Value::Int(a.as_primitive::<Int16Type>().value(i).into()),
        D::Int32 => Value::Int(a.as_primitive::<Int32Type>().value(i).into()),
        D::Int64 => Value::Int(a.as_primitive::<Int64Type>().value(i)),
        D::UInt8 => Value::Int(a.as_primitive::<UInt8Type>().value(i).into()),
        D::UInt16 => Value::Int(a.as_primitive::<UInt16Type>().value(i).into()),
        D::UInt32 => Value::Int(a.as_primitive::<UInt32Type>().value(i).into()),
        D::UInt64 => {
            let x = a.as_primitive::<UInt64Type>().value(i);
            Value::Int(i64::try_from(x).map_err(|_| format!("{x} does not fit a signed 64-bit integer"))?)
        }
        D::Float16 => Value::Float(a.as_primitive::<Float16Type>().value(i).to_f64()),
        D::Float32 => Value::Float(a.as_primitive::<Float32Type>().value(i).into()),
        D::Float64 => Value::Float(a.as_primitive::<Float64Type>().value(i)),
        D::Utf8 => Value::Str(a.as_string::<i32>().value(i).to_string()),
        D::LargeUtf8 => Value::Str(a.as_string::<i64>().value(i).to_string()),
        D::Utf8View => Value::Str(a.as_string_view().value(i).to_string()),
        D::Binary => Value::Bytes(a.as_binary::<i32>().value(i).to_vec()),
        D::LargeBinary => Value::Bytes(a.as_binary::<i64>().value(i).to_vec()),
        D::BinaryView => Value::Bytes(a.as_binary_view().value(i).to_vec()),
        D::FixedSizeBinary(_) => Value::Bytes(a.as_fixed_size_binary().value(i).to_vec()),
        D::List(_) => list_value(a.as_list::<i32>().value(i).as_ref())?,
        D::LargeList(_) => list_value(a.as_list::<i64>().value(i).as_ref())?,
        D::FixedSizeList(..) => list_value(a.as_fixed_size_list().value(i).as_ref())?,
        D::Struct(fields) => {
            let s = a.as_struct();
            let mut m = BTreeMap::new();
            for (f, c) in fields.iter().zip(s.columns()) {
                if let Some(v) = value_at(c.as_ref(), i)? {
                    m.insert(f.name().clone(), v);
                }
            }
            Value::Map(m)
        }
        D::Map(..) => {
            let entries = a.as_map().value(i);
            let (keys, vals) = (entries.column(0), entries.column(1));
            let mut m = BTreeMap::new();
            for j in 0..entries.len() {
                let k = match value_at(keys.as_ref(), j)? {
                    Some(Value::Str(s)) => s,
                    Some(Value::Int(n)) => n.to_string(),
                    Some(Value::Bool(b)) => b.to_string(),
                    Some(other) => return Err(format!("a map key must be a string, not {}", kind_name(&other))),
                    None => return Err("a null map key".into()),
                };
                m.insert(k, value_at(vals.as_ref(), j)?.unwrap_or(Value::Null));
            }
            Value::Map(m)
        }
        D::Dictionary(..) => {
            let d = a.as_any_dictionary();
            let k = match value_at(d.keys(), i)? {
                Some(Value::Int(k)) => usize::try_from(k).map_err(|_| format!("bad dictionary key {k}"))?,
                _ => return Ok(None),
            };
            if k >= d.values().len() {
                return Err(format!("dictionary key {k} out of range"));
            }
            return value_at(d.values().as_ref(), k);
        }
        _ => {
            let opts = arrow::util::display::FormatOptions::default();
            let f = arrow::util::display::ArrayFormatter::try_new(a, &opts).map_err(|e| e.to_string())?;
            Value::Str(f.value(i).to_string())
        }
    };
    Ok(Some(v))
}

fn list_value(a: &dyn Array) -> std::result::Result<Value, String> {
    (0..a.len())
        .map(|j| value_at(a, j).map(|v| v.unwrap_or(Value::Null)))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map(Value::List)
}

// ---------------------------------------------------------------------------------------------
// Export

/// What [`export_parquet`] wrote.
#[derive(Debug, Clone, Default)]
pub struct ExportSummary {
    /// Node rows written.
    pub nodes: u64,
    /// Relationship rows written.
    pub edges: u64,
    /// The files written (the manifest last).
    pub files: Vec<PathBuf>,
    /// Their total size.
    pub bytes: u64,
}

/// The manifest's name in an export directory.
pub const MANIFEST: &str = "manifest.json";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int,
    Float,
    Bool,
    Str,
    Bytes,
}

/// The column type that holds every value seen so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ColType {
    Unset,
    Scalar(Kind),
    /// A list of one scalar kind (`None`: only empty lists so far).
    List(Option<Kind>),
    Json,
}

fn scalar_kind(v: &Value) -> Option<Kind> {
    Some(match v {
        Value::Int(_) => Kind::Int,
        Value::Float(_) => Kind::Float,
        Value::Bool(_) => Kind::Bool,
        Value::Str(_) => Kind::Str,
        Value::Bytes(_) => Kind::Bytes,
        _ => return None,
    })
}

fn type_of(v: &Value) -> ColType {
    if let Some(k) = scalar_kind(v) {
        return ColType::Scalar(k);
    }
    let Value::List(items) = v else { return ColType::Json };
    let mut kind = None;
    for it in items {
        match (scalar_kind(it), kind) {
            (None, _) => return ColType::Json,
            (Some(k), None) => kind = Some(k),
            (Some(k), Some(prev)) if k == prev => {}
            _ => return ColType::Json,
        }
    }
    ColType::List(kind)
}

fn merge(a: ColType, b: ColType) -> ColType {
    use ColType::*;
    match (a, b) {
        (Unset, x) | (x, Unset) => x,
        (Scalar(x), Scalar(y)) if x == y => a,
        (List(None), List(y)) => List(y),
        (List(x), List(None)) => List(x),
        (List(x), List(y)) if x == y => a,
        _ => Json,
    }
}

/// How key columns are typed: every key an integer, every key a string, or both (JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct KeyKinds {
    ints: bool,
    strs: bool,
}

impl KeyKinds {
    fn add(&mut self, k: &NodeKey) {
        match k {
            NodeKey::Int(_) => self.ints = true,
            NodeKey::Str(_) => self.strs = true,
        }
    }
    fn json(self) -> bool {
        self.ints && self.strs
    }
    fn data_type(self) -> DataType {
        if self.ints && !self.strs {
            DataType::Int64
        } else {
            DataType::Utf8
        }
    }
    fn column(self, base: &str) -> String {
        if self.json() {
            format!("{base}:json")
        } else {
            base.to_string()
        }
    }
}

/// The property columns of one table: name -> type, and the column name each gets.
#[derive(Default)]
struct PropCols {
    types: BTreeMap<String, ColType>,
}

impl PropCols {
    fn add(&mut self, props: &Props) {
        for (k, v) in props {
            let t = self.types.entry(k.clone()).or_insert(ColType::Unset);
            *t = merge(*t, type_of(v));
            // A `NAME:json` property written plainly would be read back as JSON.
            if k.ends_with(":json") || matches!(v, Value::Null) {
                *t = ColType::Json;
            }
        }
    }

    /// (property, column name, type) in name order.
    fn columns(&self) -> Vec<(String, String, ColType)> {
        self.types
            .iter()
            .map(|(k, t)| {
                let t = match t {
                    ColType::Unset => ColType::Json,
                    ColType::List(None) => ColType::List(Some(Kind::Str)),
                    t => *t,
                };
                let col = if t == ColType::Json {
                    format!("{k}:json")
                } else {
                    k.clone()
                };
                (k.clone(), col, t)
            })
            .collect()
    }
}

fn kind_type(k: Kind) -> DataType {
    match k {
        Kind::Int => DataType::Int64,
        Kind::Float => DataType::Float64,
        Kind::Bool => DataType::Boolean,
        Kind::Str => DataType::Utf8,
        Kind::Bytes => DataType::Binary,
    }
}

fn item_field(k: Kind) -> FieldRef {
    Arc::new(Field::new("item", kind_type(k), true))
}

fn col_type(t: ColType) -> DataType {
    match t {
        ColType::Scalar(k) => kind_type(k),
        ColType::List(k) => DataType::List(item_field(k.unwrap_or(Kind::Str))),
        ColType::Unset | ColType::Json => DataType::Utf8,
    }
}

/// A reserved column name not taken by a property column (nor its `:json` form).
fn free_name(base: &str, taken: &BTreeSet<String>) -> String {
    let mut n = base.to_string();
    while taken.contains(&n) || taken.contains(&format!("{n}:json")) {
        n.insert(0, '_');
    }
    n
}

type ExportErr = std::result::Result<ArrayRef, String>;

fn key_array<'a>(keys: impl Iterator<Item = &'a NodeKey>, kinds: KeyKinds) -> ExportErr {
    if kinds.json() {
        let mut b = StringBuilder::new();
        for k in keys {
            b.append_value(match k {
                NodeKey::Int(i) => i.to_string(),
                NodeKey::Str(s) => serde_json::Value::String(s.clone()).to_string(),
            });
        }
        return Ok(Arc::new(b.finish()));
    }
    if kinds.data_type() == DataType::Int64 {
        let mut b = Int64Builder::new();
        for k in keys {
            match k {
                NodeKey::Int(i) => b.append_value(*i),
                NodeKey::Str(_) => return Err("a string key in an integer key column".into()),
            }
        }
        return Ok(Arc::new(b.finish()));
    }
    let mut b = StringBuilder::new();
    for k in keys {
        match k {
            NodeKey::Str(s) => b.append_value(s),
            NodeKey::Int(_) => return Err("an integer key in a string key column".into()),
        }
    }
    Ok(Arc::new(b.finish()))
}

fn mismatch(v: &Value) -> String {
    format!("unexpected {} in the column", kind_name(v))
}

fn scalar_array<'a>(vals: impl Iterator<Item = Option<&'a Value>>, k: Kind) -> ExportErr {
    macro_rules! build {
        ($b:expr, $pat:pat => $e:expr) => {{
            let mut b = $b;
            for v in vals {
                match v {
                    None => b.append_null(),
                    Some($pat) => b.append_value($e),
                    Some(other) => return Err(mismatch(other)),
                }
            }
            Ok(Arc::new(b.finish()) as ArrayRef)
        }};
    }
    match k {
        Kind::Int => build!(Int64Builder::new(), Value::Int(x) => *x),
        Kind::Float => build!(Float64Builder::new(), Value::Float(x) => *x),
        Kind::Bool => build!(BooleanBuilder::new(), Value::Bool(x) => *x),
        Kind::Str => build!(StringBuilder::new(), Value::Str(x) => x),
        Kind::Bytes => build!(BinaryBuilder::new(), Value::Bytes(x) => x),
    }
}

fn list_array<'a>(vals: impl Iterator<Item = Option<&'a Value>>, k: Kind) -> ExportErr {
    macro_rules! build {
        ($inner:expr, $pat:pat => $e:expr) => {{
            let mut b = ListBuilder::new($inner).with_field(item_field(k));
            for v in vals {
                match v {
                    None => b.append_null(),
                    Some(Value::List(items)) => {
                        for it in items {
                            match it {
                                $pat => b.values().append_value($e),
                                other => return Err(mismatch(other)),
                            }
                        }
                        b.append(true);
                    }
                    Some(other) => return Err(mismatch(other)),
                }
            }
            Ok(Arc::new(b.finish()) as ArrayRef)
        }};
    }
    match k {
        Kind::Int => build!(Int64Builder::new(), Value::Int(x) => *x),
        Kind::Float => build!(Float64Builder::new(), Value::Float(x) => *x),
        Kind::Bool => build!(BooleanBuilder::new(), Value::Bool(x) => *x),
        Kind::Str => build!(StringBuilder::new(), Value::Str(x) => x),
        Kind::Bytes => build!(BinaryBuilder::new(), Value::Bytes(x) => x),
    }
}

fn prop_array<'a>(vals: impl Iterator<Item = Option<&'a Value>>, t: ColType) -> ExportErr {
    match t {
        ColType::Scalar(k) => scalar_array(vals, k),
        ColType::List(k) => list_array(vals, k.unwrap_or(Kind::Str)),
        ColType::Unset | ColType::Json => {
            let mut b = StringBuilder::new();
            for v in vals {
                match v {
                    None => b.append_null(),
                    Some(v) => b.append_value(to_json(v)?.to_string()),
                }
            }
            Ok(Arc::new(b.finish()))
        }
    }
}

/// One Parquet file being written, rows buffered into batches.
struct TableOut<R> {
    path: PathBuf,
    schema: SchemaRef,
    writer: parquet::arrow::ArrowWriter<std::fs::File>,
    props: Vec<(String, String, ColType)>,
    buf: Vec<R>,
    rows: u64,
}

impl<R> TableOut<R> {
    fn create(path: PathBuf, mut fields: Vec<Field>, props: Vec<(String, String, ColType)>) -> Result<Self> {
        for (_, col, t) in &props {
            fields.push(Field::new(col, col_type(*t), true));
        }
        let schema = Arc::new(Schema::new(fields));
        let f = std::fs::File::create(&path).map_err(io(&path))?;
        let wp = parquet::file::properties::WriterProperties::builder()
            .set_compression(parquet::basic::Compression::SNAPPY)
            .build();
        let writer =
            parquet::arrow::ArrowWriter::try_new(f, schema.clone(), Some(wp)).map_err(|e| data_err(&path, e))?;
        Ok(TableOut {
            path,
            schema,
            writer,
            props,
            buf: Vec::with_capacity(BATCH_ROWS),
            rows: 0,
        })
    }

    /// Writes the buffered rows: `fixed` builds the leading columns, `props_of` gives a row's
    /// properties.
    fn flush(
        &mut self,
        fixed: impl Fn(&[R]) -> std::result::Result<Vec<ArrayRef>, String>,
        props_of: impl Fn(&R) -> &Props,
    ) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let bad = |e: String| ImportError::Usage(format!("exporting to {}: {e}", self.path.display()));
        let mut cols = fixed(&self.buf).map_err(bad)?;
        for (name, col, t) in &self.props {
            let a = prop_array(self.buf.iter().map(|r| props_of(r).get(name)), *t)
                .map_err(|e| bad(format!("column {col}: {e}")))?;
            cols.push(a);
        }
        let batch = RecordBatch::try_new(self.schema.clone(), cols).map_err(|e| data_err(&self.path, e))?;
        self.writer.write(&batch).map_err(|e| data_err(&self.path, e))?;
        self.rows += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }

    fn close(self) -> Result<(PathBuf, u64)> {
        self.writer.close().map_err(|e| data_err(&self.path, e))?;
        Ok((self.path, self.rows))
    }
}

/// What one edge type's file looks like.
#[derive(Default)]
struct TypePlan {
    options: EdgeTypeOptions,
    keys: KeyKinds,
    props: PropCols,
    edges: u64,
}

/// Whether an edge listed from `e.src` is the one listing of it that the export writes.
fn written_here(e: &hopdb_core::Edge, undirected: bool) -> bool {
    !undirected || e.src <= e.dst
}

/// Writes `g` as Parquet files in `dir` (created if absent), plus `manifest.json`; see the
/// [module documentation](self) for the layout. Reads one snapshot, twice (once to choose the
/// column types, once to write), holding one batch per file and one node's edges in memory.
pub fn export_parquet(g: &Graph, dir: &Path) -> Result<ExportSummary> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let r = g.read();
    let types = r.edge_types()?;
    let mut plans: HashMap<String, TypePlan> = types
        .iter()
        .map(|(t, _)| {
            let plan = TypePlan {
                options: t.options,
                ..TypePlan::default()
            };
            (t.name.to_string(), plan)
        })
        .collect();
    let (mut node_keys, mut node_props) = (KeyKinds::default(), PropCols::default());
    for n in r.scan_nodes(1024) {
        let n = n?;
        node_keys.add(&n.key);
        node_props.add(&n.props);
        for e in r.edges(&n.key, Direction::Out, None, None)? {
            let plan = plans.entry(e.ty.to_string()).or_default();
            if !written_here(&e, plan.options.undirected) {
                continue;
            }
            plan.keys.add(&e.src);
            plan.keys.add(&e.dst);
            plan.props.add(&e.props);
            plan.edges += 1;
        }
    }

    // Nodes.
    let ncols = node_props.columns();
    let taken: BTreeSet<String> = ncols.iter().map(|(_, c, _)| c.clone()).collect();
    let id_base = free_name("id", &taken);
    let labels_col = free_name("labels", &taken);
    let id_col = node_keys.column(&id_base);
    let labels_type = DataType::List(item_field(Kind::Str));
    let mut nodes_out: TableOut<hopdb_core::Node> = TableOut::create(
        dir.join("nodes.parquet"),
        vec![
            Field::new(&id_col, node_keys.data_type(), false),
            Field::new(&labels_col, labels_type, false),
        ],
        ncols,
    )?;

    // Relationships: one file per type, in type-name order.
    let mut names: Vec<&String> = plans.keys().collect();
    names.sort();
    let mut rel_outs: BTreeMap<String, (TableOut<hopdb_core::Edge>, serde_json::Value)> = BTreeMap::new();
    for (i, name) in names.into_iter().enumerate() {
        let plan = &plans[name];
        let pcols = plan.props.columns();
        let taken: BTreeSet<String> = pcols.iter().map(|(_, c, _)| c.clone()).collect();
        let (src, dst, weight) = (
            free_name("src", &taken),
            free_name("dst", &taken),
            free_name("weight", &taken),
        );
        let file = format!("relationships-{i}.parquet");
        let (src_col, dst_col) = (plan.keys.column(&src), plan.keys.column(&dst));
        let out = TableOut::create(
            dir.join(&file),
            vec![
                Field::new(&src_col, plan.keys.data_type(), false),
                Field::new(&dst_col, plan.keys.data_type(), false),
                Field::new(&weight, DataType::Float64, true),
            ],
            pcols,
        )?;
        let manifest = serde_json::json!({
            "type": name, "file": file, "rows": plan.edges,
            "undirected": plan.options.undirected, "multi": plan.options.multi,
            "src_column": src, "dst_column": dst, "weight_column": weight,
        });
        rel_outs.insert(name.clone(), (out, manifest));
    }

    let node_fixed = |rows: &[hopdb_core::Node]| -> std::result::Result<Vec<ArrayRef>, String> {
        let keys = key_array(rows.iter().map(|n| &n.key), node_keys)?;
        let mut lb = ListBuilder::new(StringBuilder::new()).with_field(item_field(Kind::Str));
        for n in rows {
            for l in &n.labels {
                lb.values().append_value(l);
            }
            lb.append(true);
        }
        Ok(vec![keys, Arc::new(lb.finish())])
    };
    let mut edges = 0u64;
    for n in r.scan_nodes(1024) {
        let n = n?;
        for e in r.edges(&n.key, Direction::Out, None, None)? {
            let Some((out, _)) = rel_outs.get_mut(&*e.ty) else {
                continue;
            };
            let plan = &plans[&*e.ty];
            if !written_here(&e, plan.options.undirected) {
                continue;
            }
            edges += 1;
            out.buf.push(e);
            if out.buf.len() >= BATCH_ROWS {
                let kinds = plan.keys;
                out.flush(|rows| edge_fixed(rows, kinds), |e| &e.props)?;
            }
        }
        nodes_out.buf.push(n);
        if nodes_out.buf.len() >= BATCH_ROWS {
            nodes_out.flush(node_fixed, |n| &n.props)?;
        }
    }
    nodes_out.flush(node_fixed, |n| &n.props)?;
    let mut summary = ExportSummary {
        edges,
        ..ExportSummary::default()
    };
    let (nodes_path, node_rows) = nodes_out.close()?;
    summary.nodes = node_rows;
    summary.files.push(nodes_path);
    let mut rels = Vec::new();
    for (name, (mut out, manifest)) in rel_outs {
        let kinds = plans[&name].keys;
        out.flush(|rows| edge_fixed(rows, kinds), |e| &e.props)?;
        let (path, _) = out.close()?;
        summary.files.push(path);
        rels.push(manifest);
    }
    let manifest = serde_json::json!({
        "format": "hopdb-parquet-export",
        "version": 1,
        "nodes": {"file": "nodes.parquet", "rows": summary.nodes, "id_column": id_base, "labels_column": labels_col},
        "relationships": rels,
    });
    let mpath = dir.join(MANIFEST);
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| data_err(&mpath, e))?;
    std::fs::write(&mpath, text + "\n").map_err(io(&mpath))?;
    summary.files.push(mpath);
    summary.bytes = crate::input::total_bytes(summary.files.iter().map(PathBuf::as_path));
    Ok(summary)
}

fn edge_fixed(rows: &[hopdb_core::Edge], kinds: KeyKinds) -> std::result::Result<Vec<ArrayRef>, String> {
    let src = key_array(rows.iter().map(|e| &e.src), kinds)?;
    let dst = key_array(rows.iter().map(|e| &e.dst), kinds)?;
    let mut w = Float64Builder::new();
    for e in rows {
        w.append_option(e.weight);
    }
    Ok(vec![src, dst, Arc::new(w.finish())])
}

/// The import of a directory [`export_parquet`] wrote: its tables with the manifest's column
/// names, and its types' options. Import it with [`crate::import`] (into a fresh store to get
/// the exported graph back).
pub fn parquet_export_spec(dir: &Path) -> Result<ImportSpec> {
    let mpath = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&mpath).map_err(io(&mpath))?;
    let m: serde_json::Value = serde_json::from_str(&text).map_err(|e| data_err(&mpath, e))?;
    let bad = |what: &str| ImportError::Usage(format!("{}: {what}", mpath.display()));
    let s = |v: &serde_json::Value, k: &str| -> Result<String> {
        v.get(k)
            .and_then(serde_json::Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| bad(&format!("no string '{k}'")))
    };
    if m.get("format").and_then(|f| f.as_str()) != Some("hopdb-parquet-export") {
        return Err(bad("not a HopDB Parquet export manifest"));
    }
    let nodes = m.get("nodes").ok_or_else(|| bad("no 'nodes'"))?;
    let mut spec = ImportSpec::default();
    spec.parquet_nodes.push(TableInput {
        file: dir.join(s(nodes, "file")?),
        spec: None,
        columns: Columns {
            id: s(nodes, "id_column")?,
            labels: Some(s(nodes, "labels_column")?),
            ..Columns::default()
        },
        batches: None,
    });
    for rel in m
        .get("relationships")
        .and_then(|r| r.as_array())
        .ok_or_else(|| bad("no 'relationships'"))?
    {
        let ty = s(rel, "type")?;
        let flag = |k: &str| rel.get(k).and_then(serde_json::Value::as_bool).unwrap_or(false);
        spec.type_options.insert(
            ty.clone(),
            EdgeTypeOptions {
                undirected: flag("undirected"),
                multi: flag("multi"),
            },
        );
        spec.parquet_edges.push(TableInput {
            file: dir.join(s(rel, "file")?),
            spec: Some(ty),
            columns: Columns {
                src: s(rel, "src_column")?,
                dst: s(rel, "dst_column")?,
                weight: Some(s(rel, "weight_column")?),
                ty: None,
                ..Columns::default()
            },
            batches: None,
        });
    }
    Ok(spec)
}
