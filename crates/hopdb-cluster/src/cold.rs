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
use parquet::file::properties::WriterProperties;

use crate::error::{ClusterError, Result};
use crate::slice::{NodeRows, RowRef};

/// Rows per Parquet row group: small enough for a ranged read of one group to be cheap.
const ROW_GROUP_ROWS: usize = 16 * 1024;

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

fn node_schema() -> SchemaRef {
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

fn edge_schema() -> SchemaRef {
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

/// Sorts the rows and writes them as the partition's two files.
pub(crate) fn encode_partition(mut nodes: Vec<NodeRow>, mut edges: Vec<EdgeRow>) -> Result<EncodedPartition> {
    nodes.sort_unstable_by(|a, b| a.key.cmp(&b.key));
    edges
        .sort_unstable_by(|a, b| (&a.node, a.dir, &a.ty, &a.other, a.id).cmp(&(&b.node, b.dir, &b.ty, &b.other, b.id)));
    let mut key = BinaryBuilder::new();
    let mut labels = ListBuilder::new(StringBuilder::new());
    let mut props = BinaryBuilder::new();
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
    let (mut node, mut dir, mut ty, mut other) = (
        BinaryBuilder::new(),
        UInt8Builder::new(),
        StringBuilder::new(),
        BinaryBuilder::new(),
    );
    let (mut id, mut weight, mut eprops) = (UInt64Builder::new(), Float64Builder::new(), BinaryBuilder::new());
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
    Ok(EncodedPartition {
        nodes: write_parquet(&node_batch)?,
        edges: write_parquet(&edge_batch)?,
        node_count: nodes.len() as u64,
    })
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

fn write_parquet(batch: &RecordBatch) -> Result<Bytes> {
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .build();
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
        .and_then(|b| b.with_batch_size(64 * 1024).build())
        .map_err(|e| corrupt(e.to_string()))?;
    let batches = reader
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| corrupt(e.to_string()))?;
    let have = batches.first().map(|b| b.schema()).unwrap_or_else(|| want.clone());
    if have.fields() != want.fields() {
        return Err(corrupt(format!(
            "columns {:?}, expected {:?}",
            have.fields(),
            want.fields()
        )));
    }
    arrow::compute::concat_batches(want, &batches).map_err(|e| corrupt(e.to_string()))
}

/// A partition generation, decoded and held in memory.
pub(crate) struct Partition {
    /// Its generation.
    pub generation: u64,
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
    /// The memory its arrays hold.
    pub bytes: usize,
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
    /// Decodes a generation's two files (`prefix` names them in errors).
    pub fn decode(prefix: &str, generation: u64, nodes: Bytes, edges: Bytes) -> Result<Partition> {
        let (nobj, eobj) = (format!("{prefix}/nodes.parquet"), format!("{prefix}/edges.parquet"));
        let n = read_parquet(&nobj, nodes, &node_schema())?;
        let e = read_parquet(&eobj, edges, &edge_schema())?;
        let bytes = n.get_array_memory_size() + e.get_array_memory_size();
        let p = Partition {
            generation,
            keys: column(&n, 0, &nobj)?,
            labels: column(&n, 1, &nobj)?,
            node_props: column(&n, 2, &nobj)?,
            edge_node: column(&e, 0, &eobj)?,
            dir: column(&e, 1, &eobj)?,
            ty: column(&e, 2, &eobj)?,
            other: column(&e, 3, &eobj)?,
            id: column(&e, 4, &eobj)?,
            weight: column(&e, 5, &eobj)?,
            edge_props: column(&e, 6, &eobj)?,
            bytes,
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
    pub fn node_parts(&self, key: &[u8]) -> Option<(Vec<String>, &[u8])> {
        let i = self.node_index(key)?;
        let labels = self.labels.value(i);
        let labels = labels
            .as_any()
            .downcast_ref::<StringArray>()
            .map(|a| a.iter().flatten().map(str::to_string).collect());
        Some((labels.unwrap_or_default(), self.node_props.value(i)))
    }

    /// The encoded keys of the nodes held, in order.
    pub fn node_keys(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.keys.len()).map(|i| self.keys.value(i))
    }

    fn node_index(&self, key: &[u8]) -> Option<usize> {
        let i = lower_bound(&self.keys, key);
        (i < self.keys.len() && self.keys.value(i) == key).then_some(i)
    }

    /// The adjacency rows of a node: the first and one past the last.
    fn rows(&self, key: &[u8]) -> std::ops::Range<usize> {
        lower_bound(&self.edge_node, key)..upper_bound(&self.edge_node, key)
    }

    /// The fields of row `i`.
    pub fn row(&self, i: usize) -> RowRef<'_> {
        RowRef {
            ty: self.ty.value(i),
            other: self.other.value(i),
            id: self.id.value(i),
            weight: (!self.weight.is_null(i)).then(|| self.weight.value(i)),
            props: self.edge_props.value(i),
        }
    }
}

impl NodeRows for Partition {
    fn node(&self, key: &[u8]) -> Result<Option<Node>> {
        let Some((labels, props)) = self.node_parts(key) else {
            return Ok(None);
        };
        Ok(Some(Node {
            key: codec::decode_key(key)?,
            labels,
            props: codec::decode_props(props)?,
        }))
    }

    fn has_node(&self, key: &[u8]) -> bool {
        self.node_index(key).is_some()
    }

    fn for_each_raw_row(&self, key: &[u8], ty: Option<&str>, f: &mut dyn FnMut(usize, RowDir)) {
        for i in self.rows(key) {
            if ty.is_none_or(|t| self.ty.value(i) == t) {
                let d = match self.dir.value(i) {
                    0 => RowDir::Out,
                    1 => RowDir::In,
                    _ => RowDir::Undirected,
                };
                f(i, d);
            }
        }
    }

    fn other(&self, i: usize) -> &[u8] {
        self.other.value(i)
    }

    fn weight_or_one(&self, i: usize) -> f64 {
        if self.weight.is_null(i) {
            1.0
        } else {
            self.weight.value(i)
        }
    }

    fn edge(&self, i: usize, node: &NodeKey, types: &mut TypeNames) -> Result<Edge> {
        let r = self.row(i);
        let other = codec::decode_key(r.other)?;
        let (src, dst) = if self.dir.value(i) == RowDir::In as u8 {
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
