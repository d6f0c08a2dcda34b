//! Not part of the API: the decoders of stored bytes, otherwise crate-private, exposed for the
//! fuzz targets (`crates/hopdb-core/fuzz`) and their bounded in-suite run
//! (`tests/fuzz_decoders.rs`), and the segment codec for the adjacency-layout bench. Each is a
//! thin wrapper over the function the store itself calls on what it reads back from disk;
//! nothing here is used by the store.

use crate::counters::{self, Deg, DegSet};
use crate::error::Result;
use crate::read::Side;
use crate::records::{self, EdgeRec, NodeRec, TypeId};
use crate::segment;
use crate::value::{self, NodeKey, Props, Reader, Value};
use crate::Edge;
use crate::{fulltext, index, FulltextIndexDef};
use std::sync::Arc;

/// One property value (the encoding inside a property map), at the top nesting level.
pub fn decode_value(b: &[u8]) -> Result<Value> {
    value::decode_value(&mut Reader::new(b), 1)
}

/// A property value's encoding.
pub fn encode_value(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    value::encode_value(&mut out, v);
    out
}

pub use crate::codec::{decode_key as decode_node_key, decode_props, encode_key as encode_node_key, encode_props};

/// A node record: (key, label ids, properties).
pub fn decode_node_record(b: &[u8]) -> Result<(NodeKey, Vec<u32>, Props)> {
    NodeRec::decode(b).map(|r| (r.key, r.labels, r.props))
}

/// A node record's key only (what scans without properties decode).
pub fn decode_node_record_key(b: &[u8]) -> Result<NodeKey> {
    NodeRec::decode_key(b)
}

/// A node record's encoding.
pub fn encode_node_record(key: NodeKey, labels: Vec<u32>, props: Props) -> Result<Vec<u8>> {
    NodeRec { key, labels, props }.encode()
}

/// An adjacency entry's value: (neighbour key, weight, properties).
pub fn decode_edge_record(b: &[u8]) -> Result<(NodeKey, Option<f64>, Props)> {
    EdgeRec::decode(b).map(|r| (r.nbr, r.weight, r.props))
}

/// An adjacency entry's value as listings decode it (a fast path for the common shape).
pub fn decode_edge_record_listed(b: &[u8]) -> Result<(NodeKey, Option<f64>, Props)> {
    EdgeRec::decode_parts(b)
}

/// An adjacency entry's neighbour key and weight only.
pub fn decode_edge_record_head(b: &[u8]) -> Result<(NodeKey, Option<f64>)> {
    EdgeRec::decode_head(b)
}

/// An adjacency entry value's encoding.
pub fn encode_edge_record(nbr: NodeKey, weight: Option<f64>, props: Props) -> Result<Vec<u8>> {
    EdgeRec { nbr, weight, props }.encode()
}

/// One segment entry: (type, neighbour id, edge id, record).
pub type SegmentEntry = (u32, u64, u64, Vec<u8>);

/// An adjacency segment (decision 0055): every entry, in order.
pub fn decode_segment(b: &[u8]) -> Result<Vec<SegmentEntry>> {
    let s = segment::Segment::parse(b)?;
    Ok(s.entries(None)
        .map(|e| (e.ty, e.nbr, e.eid, e.record.to_vec()))
        .collect())
}

/// A segment's encoding; the entries must be sorted by (type, neighbour id, edge id).
pub fn encode_segment(entries: &[(u32, u64, u64, &[u8])]) -> Vec<u8> {
    segment::encode(entries)
}

/// A segment's entry count.
pub fn segment_len(b: &[u8]) -> Result<usize> {
    Ok(segment::Segment::parse(b)?.len())
}

/// Visits a segment's entries of type `ty` (all when `None`) in place: `(type, neighbour id,
/// edge id, record)`.
pub fn visit_segment(b: &[u8], ty: Option<u32>, mut f: impl FnMut(u32, u64, u64, &[u8])) -> Result<()> {
    for e in segment::Segment::parse(b)?.entries(ty) {
        f(e.ty, e.nbr, e.eid, e.record);
    }
    Ok(())
}

/// A segment's entries as the out-edges of `me`, all of type `ty`: the listing the store
/// builds from a segment.
pub fn segment_edges(b: &[u8], me: &NodeKey, ty: &Arc<str>) -> Result<Vec<Edge>> {
    let s = segment::Segment::parse(b)?;
    segment::edges(&s, me, Side::Out, None, &|_| Ok(ty.clone()))
}

/// The edge ids a segment holds for type `ty` to neighbour `nbr` (a binary search).
pub fn segment_find(b: &[u8], ty: u32, nbr: u64) -> Result<Vec<u64>> {
    Ok(segment::Segment::parse(b)?.find(ty, nbr).map(|e| e.eid).collect())
}

/// The six lanes of one type's degree counters: out, out weight, in, in weight, undirected,
/// undirected weight (weights as f64 bits, so NaN compares).
pub type Lanes = (u32, [u64; 6]);

fn lanes(t: TypeId, d: &Deg) -> Lanes {
    (
        t,
        [
            d.out as u64,
            d.out_w.to_bits(),
            d.inn as u64,
            d.in_w.to_bits(),
            d.und as u64,
            d.und_w.to_bits(),
        ],
    )
}

/// A node's degree counters (`deg` column family), per type; `None` is corruption.
pub fn decode_deg_set(b: &[u8]) -> Option<Vec<Lanes>> {
    DegSet::decode(b).map(|s| s.0.iter().map(|(t, d)| lanes(*t, d)).collect())
}

/// The encoding of degree counters given per type.
pub fn encode_deg_set(set: &[Lanes]) -> Vec<u8> {
    let d = |l: &[u64; 6]| Deg {
        out: l[0] as i64,
        out_w: f64::from_bits(l[1]),
        inn: l[2] as i64,
        in_w: f64::from_bits(l[3]),
        und: l[4] as i64,
        und_w: f64::from_bits(l[5]),
    };
    DegSet(set.iter().map(|(t, l)| (*t, d(l))).collect()).encode()
}

/// The `deg` column family's full merge (RocksDB's merge operator); `None` is corruption.
pub fn merge_deg(base: Option<&[u8]>, operands: &[&[u8]]) -> Option<Vec<u8>> {
    counters::merge_deg(base, operands.iter().copied())
}

/// The `deg` column family's partial merge (operands only).
pub fn merge_deg_operands(operands: &[&[u8]]) -> Option<Vec<u8>> {
    counters::merge_deg_operands(operands.iter().copied())
}

/// A `counts` column family value.
pub fn decode_count(b: &[u8]) -> Option<i64> {
    counters::decode_count(b)
}

/// The `counts` column family's merge.
pub fn merge_count(base: Option<&[u8]>, operands: &[&[u8]]) -> Option<Vec<u8>> {
    counters::merge_count(base, operands.iter().copied())
}

/// An adjacency key: (node, type, neighbour, edge id).
pub fn parse_adj_key(k: &[u8]) -> Option<(u64, u32, u64, u64)> {
    records::parse_adj_key(k).map(|a| (a.node, a.ty, a.nbr, a.eid))
}

/// An adjacency key's encoding.
pub fn adj_key(node: u64, ty: u32, nbr: u64, eid: u64) -> Vec<u8> {
    records::adj_key(node, ty, nbr, eid).to_vec()
}

/// A `keys` column family value: (node id, live).
pub fn parse_key_value(b: &[u8]) -> Option<(u64, bool)> {
    records::parse_key_value(b)
}

/// The labels a `keys` column family value carries, if it carries them.
pub fn key_labels(b: &[u8]) -> Option<Vec<u32>> {
    records::key_labels(b)
}

/// A `keys` column family value's encoding: with `labels`, a live node's with its labels.
pub fn key_value(id: u64, live: bool, labels: Option<&[u32]>) -> Vec<u8> {
    match labels {
        Some(l) => records::key_value_labeled(id, l),
        None => records::key_value(id, live).to_vec(),
    }
}

/// An `edge_ids` column family value: (source, type, destination).
pub fn parse_edge_id_value(b: &[u8]) -> Option<(u64, u32, u64)> {
    records::parse_edge_id_value(b)
}

/// A property index definition (`meta` key and value): (id, label, property, unique,
/// declared).
pub fn parse_index_def(k: &[u8], v: &[u8]) -> Option<(u32, u32, String, bool, bool)> {
    index::parse_def(k, v).map(|s| (s.id, s.label, s.property.to_string(), s.unique, s.declared))
}

/// A property index entry key: (index, value part, node).
pub fn parse_index_entry(k: &[u8]) -> Option<(u32, Vec<u8>, u64)> {
    index::parse_entry(k).map(|(i, part, n)| (i, part.to_vec(), n))
}

/// A full-text index definition (`meta` key and value).
pub fn decode_fulltext_def(k: &[u8], v: &[u8]) -> Option<FulltextIndexDef> {
    fulltext::decode(k, v)
}

/// A full-text index definition's `meta` value.
pub fn encode_fulltext_def(def: &FulltextIndexDef) -> Vec<u8> {
    fulltext::encode(def)
}
