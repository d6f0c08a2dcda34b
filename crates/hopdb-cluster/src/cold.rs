//! The cold tier: each partition generation is two Parquet objects on an object store,
//! `pPPPP/gGGGGGGGG/nodes.parquet` and `.../edges.parquet`, sorted by node so a reader finds a
//! node's rows by binary search (and, later, by ranged reads of row groups). Keys and property
//! maps keep HopDB's stored encoding (`hopdb_core::codec`), so nothing is lost on the way.
//!
//! A node's edges are all in its own partition, in both directions: a directed edge `a -> b`
//! is an `out` row of `a` and an `in` row of `b`; an undirected one is an `undirected` row of
//! each end. A hop therefore reads one partition per node it leaves.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, BinaryArray, BinaryBuilder, Float64Array, Float64Builder, ListArray, ListBuilder, StringArray,
    StringBuilder, UInt64Array, UInt64Builder, UInt8Array, UInt8Builder,
};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use bytes::Bytes;
use hopdb_core::{codec, Edge, Node, NodeKey};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

use crate::delta::Overlay;
use crate::error::{ClusterError, Result};
use crate::slice::{NodeRows, RowRef};

/// How an adjacency row relates to its node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub(crate) enum RowDir {
    Out = 0,
    In = 1,
    Undirected = 2,
}

/// One adjacency row before it is written.
#[derive(Debug, Clone)]
pub(crate) struct EdgeRow {
    pub node: Vec<u8>,
    pub dir: RowDir,
    pub ty: Arc<str>,
    pub other: Vec<u8>,
    pub id: u64,
    pub weight: Option<f64>,
    pub props: Vec<u8>,
}

impl EdgeRow {
    /// Whether the partition holding this row counts its edge: a directed edge at its source
    /// (the out row), an undirected one at its smaller key; so the partitions' counts add up
    /// to the graph's.
    pub(crate) fn counts_edge(&self) -> bool {
        self.dir == RowDir::Out || (self.dir == RowDir::Undirected && self.node <= self.other)
    }
}

/// One node held, as a promotion encodes it: its key, labels, encoded properties and
/// adjacency rows (row numbers and directions).
pub(crate) struct NodeParts<'a> {
    pub key: &'a [u8],
    pub labels: &'a [&'a str],
    pub props: &'a [u8],
    pub rows: &'a [(usize, RowDir)],
}

/// One node row before it is written.
#[derive(Debug, Clone)]
pub(crate) struct NodeRow {
    pub key: Vec<u8>,
    pub labels: Vec<String>,
    pub props: Vec<u8>,
}

/// The object key prefix of one partition generation.
pub(crate) fn generation_prefix(partition: u32, generation: u64) -> String {
    format!("p{partition:04}/g{generation:08}")
}

pub(crate) fn node_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("key", DataType::Binary, false),
        Field::new(
            "labels",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            false,
        ),
        Field::new("props", DataType::Binary, false),
    ]))
}

pub(crate) fn edge_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("node", DataType::Binary, false),
        Field::new("dir", DataType::UInt8, false),
        Field::new("type", DataType::Utf8, false),
        Field::new("other", DataType::Binary, false),
        Field::new("id", DataType::UInt64, false),
        Field::new("weight", DataType::Float64, true),
        Field::new("props", DataType::Binary, false),
    ]))
}

/// The two Parquet files of one partition generation, sorted, encoded and compressed.
pub(crate) struct EncodedPartition {
    pub nodes: Bytes,
    pub edges: Bytes,
    pub node_count: u64,
}

/// Sorts the rows and writes them as the partition's two files, `group_rows` rows per row
/// group (small enough for a ranged read of one group to be cheap).
pub(crate) fn encode_partition(
    nodes: Vec<NodeRow>,
    edges: Vec<EdgeRow>,
    group_rows: usize,
) -> Result<EncodedPartition> {
    let node_count = nodes.len() as u64;
    let (node_batch, edge_batch) = build_batches(nodes, edges)?;
    Ok(EncodedPartition {
        nodes: write_parquet(&node_batch, group_rows)?,
        edges: write_parquet(&edge_batch, group_rows)?,
        node_count,
    })
}

/// The rows, sorted as a partition keeps them, as its two column batches.
fn build_batches(mut nodes: Vec<NodeRow>, mut edges: Vec<EdgeRow>) -> Result<(RecordBatch, RecordBatch)> {
    nodes.sort_unstable_by(|a, b| a.key.cmp(&b.key));
    edges
        .sort_unstable_by(|a, b| (&a.node, a.dir, &a.ty, &a.other, a.id).cmp(&(&b.node, b.dir, &b.ty, &b.other, b.id)));
    // Builders sized up front: growing them copied every byte several times.
    let bytes = |f: &dyn Fn(&NodeRow) -> usize| nodes.iter().map(f).sum::<usize>();
    let mut key = BinaryBuilder::with_capacity(nodes.len(), bytes(&|n| n.key.len()));
    let mut labels = ListBuilder::new(StringBuilder::new());
    let mut props = BinaryBuilder::with_capacity(nodes.len(), bytes(&|n| n.props.len()));
    for n in &nodes {
        key.append_value(&n.key);
        for l in &n.labels {
            labels.values().append_value(l);
        }
        labels.append(true);
        props.append_value(&n.props);
    }
    let node_batch = batch(
        node_schema(),
        vec![
            Arc::new(key.finish()),
            Arc::new(labels.finish()),
            Arc::new(props.finish()),
        ],
    )?;
    let n = edges.len();
    let bytes = |f: &dyn Fn(&EdgeRow) -> usize| edges.iter().map(f).sum::<usize>();
    let (mut node, mut dir, mut ty, mut other) = (
        BinaryBuilder::with_capacity(n, bytes(&|e| e.node.len())),
        UInt8Builder::with_capacity(n),
        StringBuilder::with_capacity(n, bytes(&|e| e.ty.len())),
        BinaryBuilder::with_capacity(n, bytes(&|e| e.other.len())),
    );
    let (mut id, mut weight, mut eprops) = (
        UInt64Builder::with_capacity(n),
        Float64Builder::with_capacity(n),
        BinaryBuilder::with_capacity(n, bytes(&|e| e.props.len())),
    );
    for e in &edges {
        node.append_value(&e.node);
        dir.append_value(e.dir as u8);
        ty.append_value(&e.ty);
        other.append_value(&e.other);
        id.append_value(e.id);
        weight.append_option(e.weight);
        eprops.append_value(&e.props);
    }
    let edge_batch = batch(
        edge_schema(),
        vec![
            Arc::new(node.finish()),
            Arc::new(dir.finish()),
            Arc::new(ty.finish()),
            Arc::new(other.finish()),
            Arc::new(id.finish()),
            Arc::new(weight.finish()),
            Arc::new(eprops.finish()),
        ],
    )?;
    Ok((node_batch, edge_batch))
}

fn batch(schema: SchemaRef, columns: Vec<ArrayRef>) -> Result<RecordBatch> {
    RecordBatch::try_new(schema, columns).map_err(|e| internal(format!("building a partition batch: {e}")))
}

fn internal(why: String) -> ClusterError {
    ClusterError::Corrupt {
        object: "(being written)".into(),
        why,
    }
}

fn write_parquet(batch: &RecordBatch, group_rows: usize) -> Result<Bytes> {
    // Ranged reads choose row groups by the key column's (first column's) minimum and
    // maximum, so those are kept whole: truncated to Parquet's default 64 bytes, keys sharing
    // a longer prefix would all fall in every group. The other columns' statistics would only
    // make footers larger.
    let mut props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(group_rows.max(1)))
        .set_statistics_truncate_length(None);
    for field in batch.schema().fields().iter().skip(1) {
        let path = match field.data_type() {
            DataType::List(item) => ColumnPath::new(vec![field.name().clone(), "list".into(), item.name().clone()]),
            _ => ColumnPath::new(vec![field.name().clone()]),
        };
        props = props.set_column_statistics_enabled(path, EnabledStatistics::None);
    }
    let props = props.build();
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(props))
        .map_err(|e| internal(format!("starting a Parquet file: {e}")))?;
    w.write(batch)
        .map_err(|e| internal(format!("writing a Parquet file: {e}")))?;
    w.close()
        .map_err(|e| internal(format!("finishing a Parquet file: {e}")))?;
    Ok(Bytes::from(out))
}

fn read_parquet(object: &str, bytes: Bytes, want: &SchemaRef) -> Result<RecordBatch> {
    let corrupt = |why: String| ClusterError::Corrupt {
        object: object.to_string(),
        why,
    };
    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes)
        .and_then(|b| {
            // One batch for the whole file: no concatenation afterwards.
            let rows = b.metadata().file_metadata().num_rows();
            b.with_batch_size(usize::try_from(rows).unwrap_or(0).max(1)).build()
        })
        .map_err(|e| corrupt(e.to_string()))?;
    let mut batches = reader
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| corrupt(e.to_string()))?;
    let have = batches.first().map(|b| b.schema()).unwrap_or_else(|| want.clone());
    same_columns(&have, want).map_err(corrupt)?;
    one_batch(want, &mut batches).map_err(|e| corrupt(e.to_string()))
}

/// Whether a partition file's columns are the ones expected (else why not).
pub(crate) fn same_columns(have: &SchemaRef, want: &SchemaRef) -> std::result::Result<(), String> {
    match have.fields() == want.fields() {
        true => Ok(()),
        false => Err(format!("columns {:?}, expected {:?}", have.fields(), want.fields())),
    }
}

/// The batches as one (no copy when there is one already).
pub(crate) fn one_batch(schema: &SchemaRef, batches: &mut Vec<RecordBatch>) -> arrow::error::Result<RecordBatch> {
    match batches.len() {
        1 => Ok(batches.remove(0)),
        _ => arrow::compute::concat_batches(schema, batches.iter()),
    }
}

/// A partition generation, decoded and held in memory, with the pending writes merged in as
/// an overlay (`delta::Overlay`) that takes precedence over the arrays for the nodes it touches.
#[derive(Clone)]
pub(crate) struct Partition {
    /// The content version it holds (its generation plus the writes merged in).
    pub version: u64,
    keys: BinaryArray,
    labels: ListArray,
    node_props: BinaryArray,
    edge_node: BinaryArray,
    dir: UInt8Array,
    ty: StringArray,
    other: BinaryArray,
    id: UInt64Array,
    weight: Float64Array,
    edge_props: BinaryArray,
    /// The pending writes; overlay rows are numbered after the arrays' rows.
    pub(crate) overlay: Overlay,
    /// The memory it holds (arrays and overlay as merged).
    pub bytes: usize,
    /// The generation its arrays were decoded from (its objects' prefix), if any: a later
    /// version of the same generation reuses them (`Partition::base_copy`).
    base: Option<Arc<str>>,
    /// The memory its arrays hold.
    base_bytes: usize,
    /// False for a ranged read of some row groups: it answers only for the nodes asked.
    whole: bool,
}

fn column<T: Array + Clone + 'static>(b: &RecordBatch, i: usize, object: &str) -> Result<T> {
    b.column(i)
        .as_any()
        .downcast_ref::<T>()
        .cloned()
        .ok_or_else(|| ClusterError::Corrupt {
            object: object.to_string(),
            why: format!("column {} has the wrong type", b.schema().field(i).name()),
        })
}

impl Partition {
    /// Decodes a generation's two files (`prefix` names them in errors) as content `version`.
    pub fn decode(prefix: &str, version: u64, nodes: Bytes, edges: Bytes) -> Result<Partition> {
        let (nobj, eobj) = (format!("{prefix}/nodes.parquet"), format!("{prefix}/edges.parquet"));
        let n = read_parquet(&nobj, nodes, &node_schema())?;
        let e = read_parquet(&eobj, edges, &edge_schema())?;
        let mut p = Partition::from_batches(prefix, version, &n, &e)?;
        p.base = Some(Arc::from(prefix));
        Ok(p)
    }

    /// Rows of generation `prefix` decoded from some of its row groups (`ranged`), as content
    /// `version`. When the groups were all of them (`whole`), it is the generation's partition
    /// and may lend its arrays like a decoded one; otherwise it answers only for the nodes
    /// whose groups were read, and is never cached.
    pub fn from_groups(prefix: &str, version: u64, n: &RecordBatch, e: &RecordBatch, whole: bool) -> Result<Partition> {
        let mut p = Partition::from_batches(prefix, version, n, e)?;
        p.base = whole.then(|| Arc::from(prefix));
        p.whole = whole;
        Ok(p)
    }

    /// Whether it holds every row of its generation (not a ranged read of some of them).
    pub fn is_whole(&self) -> bool {
        self.whole
    }

    /// The arrays of generation `prefix` without any pending writes, when this partition
    /// holds that generation's: what a newer version of it merges its pending writes into,
    /// instead of reading and decoding the objects again (the arrays are shared, not copied).
    pub fn base_copy(&self, prefix: &str) -> Option<Partition> {
        (self.base.as_deref() == Some(prefix)).then(|| Partition {
            overlay: Overlay::default(),
            bytes: self.base_bytes,
            ..self.clone()
        })
    }

    /// A partition with no rows (never loaded), as content `version`.
    pub fn empty(version: u64) -> Result<Partition> {
        let (n, e) = build_batches(Vec::new(), Vec::new())?;
        Partition::from_batches("(empty)", version, &n, &e)
    }

    fn from_batches(prefix: &str, version: u64, n: &RecordBatch, e: &RecordBatch) -> Result<Partition> {
        let (nobj, eobj) = (format!("{prefix}/nodes.parquet"), format!("{prefix}/edges.parquet"));
        let bytes = n.get_array_memory_size() + e.get_array_memory_size();
        let p = Partition {
            version,
            keys: column(n, 0, &nobj)?,
            labels: column(n, 1, &nobj)?,
            node_props: column(n, 2, &nobj)?,
            edge_node: column(e, 0, &eobj)?,
            dir: column(e, 1, &eobj)?,
            ty: column(e, 2, &eobj)?,
            other: column(e, 3, &eobj)?,
            id: column(e, 4, &eobj)?,
            weight: column(e, 5, &eobj)?,
            edge_props: column(e, 6, &eobj)?,
            overlay: Overlay::default(),
            bytes,
            base: None,
            base_bytes: bytes,
            whole: true,
        };
        if !sorted(&p.keys) || !sorted(&p.edge_node) || p.dir.values().iter().any(|&d| d > RowDir::Undirected as u8) {
            return Err(ClusterError::Corrupt {
                object: prefix.to_string(),
                why: "rows out of order or an unknown direction".into(),
            });
        }
        Ok(p)
    }

    /// The labels and encoded properties of the node with this encoded key.
    /// (Borrowed: encoding every node of a partition for the hot tier calls this per node.)
    pub fn node_parts(&self, key: &[u8]) -> Option<(Vec<&str>, &[u8])> {
        if let Some(n) = self.overlay.nodes.get(key) {
            return n
                .as_ref()
                .map(|n| (n.labels.iter().map(String::as_str).collect(), n.props.as_slice()));
        }
        self.node_index(key).map(|i| self.node_parts_at(i))
    }

    /// The labels and encoded properties of node row `i` of the arrays.
    fn node_parts_at(&self, i: usize) -> (Vec<&str>, &[u8]) {
        let offsets = self.labels.value_offsets();
        let (from, to) = (offsets[i] as usize, offsets[i + 1] as usize);
        let labels = match self.labels.values().as_any().downcast_ref::<StringArray>() {
            Some(names) => (from..to)
                .filter(|&j| names.is_valid(j))
                .map(|j| names.value(j))
                .collect(),
            None => Vec::new(),
        };
        (labels, self.node_props.value(i))
    }

    /// Calls `f` with every node held, in key order: its key, labels, encoded properties and
    /// adjacency rows. With no pending writes this is one pass over the sorted arrays (a
    /// promotion encodes every node, and a search per node was a tenth of its CPU); else
    /// node by node.
    pub fn for_each_node(&self, f: &mut dyn FnMut(NodeParts<'_>)) {
        let mut rows = Vec::new();
        if !self.overlay.is_empty() {
            for key in self.node_keys() {
                if let Some((labels, props)) = self.node_parts(key) {
                    rows.clear();
                    self.for_each_raw_row(key, None, &mut |i, d| rows.push((i, d)));
                    f(NodeParts {
                        key,
                        labels: &labels,
                        props,
                        rows: &rows,
                    });
                }
            }
            return;
        }
        let mut j = 0;
        for i in 0..self.keys.len() {
            let key = self.keys.value(i);
            while j < self.edge_node.len() && self.edge_node.value(j) < key {
                j += 1; // rows without a node row (never written so): skipped, as a search would
            }
            rows.clear();
            while j < self.edge_node.len() && self.edge_node.value(j) == key {
                rows.push((j, row_dir(self.dir.value(j))));
                j += 1;
            }
            let (labels, props) = self.node_parts_at(i);
            f(NodeParts {
                key,
                labels: &labels,
                props,
                rows: &rows,
            });
        }
    }

    /// The node row of this encoded key, if the node exists.
    pub fn node_row(&self, key: &[u8]) -> Option<NodeRow> {
        self.node_parts(key).map(|(labels, props)| NodeRow {
            key: key.to_vec(),
            labels: labels.into_iter().map(str::to_string).collect(),
            props: props.to_vec(),
        })
    }

    /// Row `i` as an owned row.
    pub fn edge_row(&self, i: usize) -> EdgeRow {
        if let Some(e) = self.overlay.row(i, self.base_rows()) {
            return e.clone();
        }
        let r = self.row(i);
        EdgeRow {
            node: self.edge_node.value(i).to_vec(),
            dir: row_dir(self.dir.value(i)),
            ty: Arc::from(r.ty),
            other: r.other.to_vec(),
            id: r.id,
            weight: r.weight,
            props: r.props.to_vec(),
        }
    }

    /// The adjacency rows of the node with this encoded key, in order.
    pub fn rows_of(&self, key: &[u8]) -> Vec<EdgeRow> {
        let mut out = Vec::new();
        self.for_each_raw_row(key, None, &mut |i, _| out.push(self.edge_row(i)));
        out
    }

    /// Every row held, for writing a compacted generation.
    pub fn to_rows(&self) -> (Vec<NodeRow>, Vec<EdgeRow>) {
        let keys = self.node_keys();
        let nodes = keys.iter().filter_map(|k| self.node_row(k)).collect();
        let mut edges: Vec<EdgeRow> = (0..self.base_rows())
            .filter(|&i| !self.overlay.rows.contains_key(self.edge_node.value(i)))
            .map(|i| self.edge_row(i))
            .collect();
        for list in self.overlay.rows.values() {
            edges.extend(list.iter().map(|&j| self.overlay.extra[j as usize].clone()));
        }
        (nodes, edges)
    }

    /// About how many nodes are held (exact without pending writes), without listing them.
    pub fn node_count_hint(&self) -> usize {
        self.keys.len() + self.overlay.nodes.len()
    }

    /// The encoded keys of the nodes held, in order.
    pub fn node_keys(&self) -> Vec<&[u8]> {
        let base = (0..self.keys.len())
            .map(|i| self.keys.value(i))
            .filter(|k| !self.overlay.nodes.contains_key(*k));
        let added = self
            .overlay
            .nodes
            .iter()
            .filter(|(_, n)| n.is_some())
            .map(|(k, _)| k.as_slice());
        let mut keys: Vec<&[u8]> = base.chain(added).collect();
        if !self.overlay.nodes.is_empty() {
            keys.sort_unstable();
        }
        keys
    }

    fn node_index(&self, key: &[u8]) -> Option<usize> {
        let i = lower_bound(&self.keys, key);
        (i < self.keys.len() && self.keys.value(i) == key).then_some(i)
    }

    /// Rows in the arrays; overlay rows are numbered from here.
    fn base_rows(&self) -> usize {
        self.edge_node.len()
    }

    /// The adjacency rows of a node in the arrays: the first and one past the last.
    fn rows(&self, key: &[u8]) -> std::ops::Range<usize> {
        lower_bound(&self.edge_node, key)..upper_bound(&self.edge_node, key)
    }

    /// The fields of row `i`.
    pub fn row(&self, i: usize) -> RowRef<'_> {
        if let Some(e) = self.overlay.row(i, self.base_rows()) {
            return RowRef {
                ty: &e.ty,
                other: &e.other,
                id: e.id,
                weight: e.weight,
                props: &e.props,
            };
        }
        RowRef {
            ty: self.ty.value(i),
            other: self.other.value(i),
            id: self.id.value(i),
            weight: (!self.weight.is_null(i)).then(|| self.weight.value(i)),
            props: self.edge_props.value(i),
        }
    }

    fn dir_of(&self, i: usize) -> RowDir {
        match self.overlay.row(i, self.base_rows()) {
            Some(e) => e.dir,
            None => row_dir(self.dir.value(i)),
        }
    }

    /// Applies a pending write operation (merging on reading, or a write working out its
    /// own changes).
    pub fn apply(&mut self, op: crate::delta::Op) {
        let base: Vec<EdgeRow> = match &op {
            crate::delta::Op::PutRow(e) if !self.overlay.rows.contains_key(&e.node) => self.rows_of(&e.node),
            crate::delta::Op::DeleteRow(id) if !self.overlay.rows.contains_key(&id.0) => self.rows_of(&id.0),
            _ => Vec::new(),
        };
        self.overlay.apply(op, base);
    }
}

impl NodeRows for Partition {
    fn node(&self, key: &[u8]) -> Result<Option<Node>> {
        let Some((labels, props)) = self.node_parts(key) else {
            return Ok(None);
        };
        Ok(Some(Node {
            key: codec::decode_key(key)?,
            labels: labels.into_iter().map(str::to_string).collect(),
            props: codec::decode_props(props)?,
        }))
    }

    fn has_node(&self, key: &[u8]) -> bool {
        match self.overlay.nodes.get(key) {
            Some(n) => n.is_some(),
            None => self.node_index(key).is_some(),
        }
    }

    fn for_each_raw_row(&self, key: &[u8], ty: Option<&str>, f: &mut dyn FnMut(usize, RowDir)) {
        if let Some(list) = self.overlay.rows.get(key) {
            let base = self.base_rows();
            for &j in list {
                let e = &self.overlay.extra[j as usize];
                if ty.is_none_or(|t| &*e.ty == t) {
                    f(base + j as usize, e.dir);
                }
            }
            return;
        }
        for i in self.rows(key) {
            if ty.is_none_or(|t| self.ty.value(i) == t) {
                f(i, row_dir(self.dir.value(i)));
            }
        }
    }

    fn other(&self, i: usize) -> &[u8] {
        self.row(i).other
    }

    fn weight_or_one(&self, i: usize) -> f64 {
        self.row(i).weight.unwrap_or(1.0)
    }

    fn edge(&self, i: usize, node: &NodeKey, types: &mut TypeNames) -> Result<Edge> {
        let r = self.row(i);
        let other = codec::decode_key(r.other)?;
        let (src, dst) = if self.dir_of(i) == RowDir::In {
            (other, node.clone())
        } else {
            (node.clone(), other)
        };
        Ok(Edge {
            src,
            ty: types.intern(r.ty),
            dst,
            id: r.id,
            weight: r.weight,
            props: codec::decode_props(r.props)?,
        })
    }
}

/// Interned type names, so the edges of one answer share one allocation per type.
#[derive(Default)]
pub(crate) struct TypeNames(Vec<Arc<str>>);

impl TypeNames {
    pub(crate) fn intern(&mut self, name: &str) -> Arc<str> {
        if let Some(t) = self.0.iter().find(|t| &***t == name) {
            return t.clone();
        }
        let t: Arc<str> = Arc::from(name);
        self.0.push(t.clone());
        t
    }
}

/// A stored direction byte (checked on decoding) as a direction.
pub(crate) fn row_dir(d: u8) -> RowDir {
    match d {
        0 => RowDir::Out,
        1 => RowDir::In,
        _ => RowDir::Undirected,
    }
}

fn sorted(a: &BinaryArray) -> bool {
    (1..a.len()).all(|i| a.value(i - 1) <= a.value(i))
}

fn lower_bound(a: &BinaryArray, key: &[u8]) -> usize {
    let (mut lo, mut hi) = (0, a.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        if a.value(mid) < key {
            lo = mid + 1
        } else {
            hi = mid
        }
    }
    lo
}

fn upper_bound(a: &BinaryArray, key: &[u8]) -> usize {
    let (mut lo, mut hi) = (0, a.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        if a.value(mid) <= key {
            lo = mid + 1
        } else {
            hi = mid
        }
    }
    lo
}
