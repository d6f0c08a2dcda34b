//! One node's slice of a partition (its labels, properties and adjacency rows) as a single
//! value: what the hot tier stores per node, so a hop from a hot node is one read. Reads answer
//! from a slice or from a whole partition through the same [`NodeRows`] interface.
//!
//! The encoding (version 2): a version byte, then the labels, the property bytes (the store's
//! encoding), the names of the edge types the rows use, and the rows in the partition's row
//! order, each a head byte (direction in bits 0-1; bit 2: a weight follows, bit 3: properties
//! follow, bit 4: an id follows), the type's index, the other end's key, then what the head
//! says: the id (a varint), the weight (8 bytes), the properties. All lengths are LEB128
//! varints. A row of a simple, unweighted edge without properties takes 2 bytes plus its key,
//! where version 1 (still read: a value written before an upgrade) spelled out the type name,
//! an 8-byte id and empty properties on every row: the promotion of a partition writes half the
//! bytes. Decoding checks every length, so a damaged value is an error, never a wrong answer.

use std::ops::Range;

use bytes::Bytes;
use hopdb_core::{codec, Degree, Direction, Edge, Node, NodeKey};

use crate::cold::{NodeParts, Partition, RowDir, TypeNames};
use crate::error::{ClusterError, Result};

const VERSION: u8 = 2;

/// Row head bits (version 2).
const HAS_WEIGHT: u8 = 1 << 2;
const HAS_PROPS: u8 = 1 << 3;
const HAS_ID: u8 = 1 << 4;

/// What reads need from whatever holds a node's rows: a decoded partition or a node slice.
pub(crate) trait NodeRows {
    /// The node with this encoded key, if held here.
    fn node(&self, key: &[u8]) -> Result<Option<Node>>;
    /// Whether the node with this encoded key is held here.
    fn has_node(&self, key: &[u8]) -> bool;
    /// Visits every row of the node (of type `ty` if given) with its direction.
    fn for_each_raw_row(&self, key: &[u8], ty: Option<&str>, f: &mut dyn FnMut(usize, RowDir));
    /// The encoded neighbour key of row `i`.
    fn other(&self, i: usize) -> &[u8];
    /// The weight of row `i` (1.0 when unweighted, as degree sums count it).
    fn weight_or_one(&self, i: usize) -> f64;
    /// Row `i` of `node` as the store's `Edge` (an `in` row's source is the neighbour).
    fn edge(&self, i: usize, node: &NodeKey, types: &mut TypeNames) -> Result<Edge>;

    /// Visits the rows of the node listed in direction `dir` (of type `ty` if given), as the
    /// store lists them: `Out` the out and undirected rows, `In` the in and undirected rows,
    /// `Both` all of them but the `in` row of a directed self-loop (listed once).
    fn for_each_row(&self, key: &[u8], dir: Direction, ty: Option<&str>, f: &mut dyn FnMut(usize)) {
        self.for_each_raw_row(key, ty, &mut |i, d| {
            let keep = match dir {
                Direction::Out => d != RowDir::In,
                Direction::In => d != RowDir::Out,
                Direction::Both => d != RowDir::In || self.other(i) != key,
            };
            if keep {
                f(i);
            }
        });
    }

    /// The node's edges listed in direction `dir`, as the store lists them (their type names
    /// shared through `types`, one per batch).
    fn edges_of(
        &self,
        key: &[u8],
        node: &NodeKey,
        dir: Direction,
        ty: Option<&str>,
        types: &mut TypeNames,
    ) -> Result<Vec<Edge>> {
        let mut rows = Vec::new();
        self.for_each_row(key, dir, ty, &mut |i| rows.push(i));
        rows.into_iter().map(|i| self.edge(i, node, types)).collect()
    }

    /// The node's degree and weight sum as the store's counters hold them: out, in and
    /// undirected counts, a directed self-loop twice under `Both` and an undirected one
    /// (one row here) twice.
    fn degree_of(&self, key: &[u8], dir: Direction, ty: Option<&str>) -> Degree {
        let mut d = Degree::default();
        self.for_each_raw_row(key, ty, &mut |i, row_dir| {
            let n = match (row_dir, dir) {
                (RowDir::Undirected, _) => 1 + u64::from(self.other(i) == key),
                (RowDir::Out, Direction::Out | Direction::Both) | (RowDir::In, Direction::In | Direction::Both) => 1,
                _ => 0,
            };
            d.count += n;
            d.weight_sum += n as f64 * self.weight_or_one(i);
        });
        d
    }

    /// The node's distinct neighbours in adjacency order.
    fn neighbors_of(&self, key: &[u8], dir: Direction, ty: Option<&str>) -> Result<Vec<NodeKey>> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        let mut err = None;
        self.for_each_row(key, dir, ty, &mut |i| {
            let other = self.other(i);
            if seen.insert(other.to_vec()) {
                match codec::decode_key(other) {
                    Ok(k) => out.push(k),
                    Err(e) => err = Some(e),
                }
            }
        });
        match err {
            Some(e) => Err(e.into()),
            None => Ok(out),
        }
    }
}

/// Encodes the slice of the node with encoded key `key` from a decoded partition; `None` when
/// the partition does not hold it.
pub(crate) fn encode(p: &Partition, key: &[u8]) -> Option<Vec<u8>> {
    let (labels, props) = p.node_parts(key)?;
    let mut rows = Vec::new();
    p.for_each_raw_row(key, None, &mut |i, d| rows.push((i, d)));
    let n = NodeParts {
        key,
        labels: &labels,
        props,
        rows: &rows,
    };
    Some(encode_node(p, &n))
}

/// The slice of a node of `p` given its parts.
pub(crate) fn encode_node(p: &Partition, n: &NodeParts<'_>) -> Vec<u8> {
    // Sized for a row of a simple edge (head, type, key length, a short key): one allocation
    // for most slices.
    let mut out = Vec::with_capacity(32 + n.props.len() + n.rows.len() * (4 + n.key.len()));
    encode_node_into(p, n, &mut out);
    out
}

/// [`encode_node`] into `out` (cleared first), so a promotion reuses one buffer.
pub(crate) fn encode_node_into(p: &Partition, n: &NodeParts<'_>, out: &mut Vec<u8>) {
    let NodeParts {
        key: _,
        labels,
        props,
        rows,
    } = *n;
    out.clear();
    out.push(VERSION);
    put_len(out, labels.len());
    for l in labels {
        put_bytes(out, l.as_bytes());
    }
    put_bytes(out, props);
    let mut types: Vec<&str> = Vec::new();
    for &(i, _) in rows {
        let ty = p.row(i).ty;
        if !types.contains(&ty) {
            types.push(ty);
        }
    }
    put_len(out, types.len());
    for t in &types {
        put_bytes(out, t.as_bytes());
    }
    put_len(out, rows.len());
    for &(i, d) in rows {
        let r = p.row(i);
        let props = r.props != codec::EMPTY_PROPS;
        let head = d as u8
            | if r.weight.is_some() { HAS_WEIGHT } else { 0 }
            | if props { HAS_PROPS } else { 0 }
            | if r.id != 0 { HAS_ID } else { 0 };
        out.push(head);
        put_len(out, types.iter().position(|t| *t == r.ty).unwrap_or(0));
        put_bytes(out, r.other);
        if r.id != 0 {
            put_len(out, r.id as usize);
        }
        if let Some(w) = r.weight {
            out.extend_from_slice(&w.to_le_bytes());
        }
        if props {
            put_bytes(out, r.props);
        }
    }
}

/// The fields of one row, borrowed from a partition.
pub(crate) struct RowRef<'a> {
    pub ty: &'a str,
    pub other: &'a [u8],
    pub id: u64,
    pub weight: Option<f64>,
    pub props: &'a [u8],
}

struct SliceRow {
    dir: RowDir,
    ty: Range<usize>,
    other: Range<usize>,
    id: u64,
    weight: Option<f64>,
    props: Range<usize>,
}

/// A node's slice, decoded: ranges into the value it came from.
pub(crate) struct NodeSlice {
    key: Vec<u8>,
    buf: Bytes,
    labels: Vec<Range<usize>>,
    props: Range<usize>,
    rows: Vec<SliceRow>,
}

impl NodeSlice {
    /// Decodes the slice of the node with encoded key `key`; `what` names it in errors.
    pub fn decode(key: &[u8], buf: Bytes, what: &str) -> Result<NodeSlice> {
        let bad = |why: &str| ClusterError::Corrupt {
            object: what.to_string(),
            why: why.to_string(),
        };
        let mut r = Reader::new(&buf);
        let version = r.byte().ok_or_else(|| bad("empty"))?;
        if version != VERSION && version != 1 {
            return Err(bad("unknown slice version"));
        }
        let n = r.len().ok_or_else(|| bad("truncated labels"))?;
        let mut labels = Vec::with_capacity(n.min(64));
        for _ in 0..n {
            let l = r.bytes().ok_or_else(|| bad("truncated label"))?;
            std::str::from_utf8(&buf[l.clone()]).map_err(|_| bad("label not UTF-8"))?;
            labels.push(l);
        }
        let props = r.bytes().ok_or_else(|| bad("truncated properties"))?;
        let rows = if version == 1 {
            Self::rows_v1(&mut r, &buf, &bad)?
        } else {
            Self::rows_v2(&mut r, &buf, &bad)?
        };
        if !r.done() {
            return Err(bad("trailing bytes"));
        }
        Ok(NodeSlice {
            key: key.to_vec(),
            buf,
            labels,
            props,
            rows,
        })
    }

    /// The rows of a version-2 slice.
    fn rows_v2(r: &mut Reader<'_>, buf: &[u8], bad: &dyn Fn(&str) -> ClusterError) -> Result<Vec<SliceRow>> {
        let n = r.len().ok_or_else(|| bad("truncated types"))?;
        let mut types = Vec::with_capacity(n.min(64));
        for _ in 0..n {
            let t = r.bytes().ok_or_else(|| bad("truncated type"))?;
            std::str::from_utf8(&buf[t.clone()]).map_err(|_| bad("type not UTF-8"))?;
            types.push(t);
        }
        let n = r.len().ok_or_else(|| bad("truncated rows"))?;
        let mut rows = Vec::with_capacity(n.min(1 << 16));
        for _ in 0..n {
            let head = r.byte().ok_or_else(|| bad("truncated row"))?;
            let dir = match head & 3 {
                0 => RowDir::Out,
                1 => RowDir::In,
                2 => RowDir::Undirected,
                _ => return Err(bad("bad row direction")),
            };
            if head & !(3 | HAS_WEIGHT | HAS_PROPS | HAS_ID) != 0 {
                return Err(bad("bad row head"));
            }
            let ty = r
                .len()
                .and_then(|i| types.get(i))
                .ok_or_else(|| bad("bad row type"))?
                .clone();
            let other = r.bytes().ok_or_else(|| bad("truncated row key"))?;
            let id = if head & HAS_ID != 0 {
                r.len().ok_or_else(|| bad("truncated row id"))? as u64
            } else {
                0
            };
            let weight = if head & HAS_WEIGHT != 0 {
                Some(f64::from_le_bytes(
                    r.fixed::<8>().ok_or_else(|| bad("truncated weight"))?,
                ))
            } else {
                None
            };
            // An empty range: the empty property map.
            let props = if head & HAS_PROPS != 0 {
                r.bytes().ok_or_else(|| bad("truncated row properties"))?
            } else {
                0..0
            };
            rows.push(SliceRow {
                dir,
                ty,
                other,
                id,
                weight,
                props,
            });
        }
        Ok(rows)
    }

    /// The rows of a version-1 slice (written before version 2).
    fn rows_v1(r: &mut Reader<'_>, buf: &[u8], bad: &dyn Fn(&str) -> ClusterError) -> Result<Vec<SliceRow>> {
        let n = r.len().ok_or_else(|| bad("truncated rows"))?;
        let mut rows = Vec::with_capacity(n.min(1 << 16));
        for _ in 0..n {
            let dir = match r.byte() {
                Some(0) => RowDir::Out,
                Some(1) => RowDir::In,
                Some(2) => RowDir::Undirected,
                _ => return Err(bad("bad row direction")),
            };
            let ty = r.bytes().ok_or_else(|| bad("truncated row type"))?;
            std::str::from_utf8(&buf[ty.clone()]).map_err(|_| bad("row type not UTF-8"))?;
            let other = r.bytes().ok_or_else(|| bad("truncated row key"))?;
            let id = u64::from_le_bytes(r.fixed::<8>().ok_or_else(|| bad("truncated row id"))?);
            let weight = match r.byte() {
                Some(0) => None,
                Some(1) => Some(f64::from_le_bytes(
                    r.fixed::<8>().ok_or_else(|| bad("truncated weight"))?,
                )),
                _ => return Err(bad("bad weight flag")),
            };
            let props = r.bytes().ok_or_else(|| bad("truncated row properties"))?;
            rows.push(SliceRow {
                dir,
                ty,
                other,
                id,
                weight,
                props,
            });
        }
        Ok(rows)
    }

    fn str(&self, r: &Range<usize>) -> &str {
        // Checked as UTF-8 when decoded.
        std::str::from_utf8(&self.buf[r.clone()]).unwrap_or_default()
    }
}

impl NodeRows for NodeSlice {
    fn node(&self, key: &[u8]) -> Result<Option<Node>> {
        if key != self.key {
            return Ok(None);
        }
        Ok(Some(Node {
            key: codec::decode_key(key)?,
            labels: self.labels.iter().map(|l| self.str(l).to_string()).collect(),
            props: codec::decode_props(&self.buf[self.props.clone()])?,
        }))
    }

    fn has_node(&self, key: &[u8]) -> bool {
        key == self.key
    }

    fn for_each_raw_row(&self, key: &[u8], ty: Option<&str>, f: &mut dyn FnMut(usize, RowDir)) {
        if key != self.key {
            return;
        }
        for (i, r) in self.rows.iter().enumerate() {
            if ty.is_none_or(|t| self.str(&r.ty) == t) {
                f(i, r.dir);
            }
        }
    }

    fn other(&self, i: usize) -> &[u8] {
        &self.buf[self.rows[i].other.clone()]
    }

    fn weight_or_one(&self, i: usize) -> f64 {
        self.rows[i].weight.unwrap_or(1.0)
    }

    fn edge(&self, i: usize, node: &NodeKey, types: &mut TypeNames) -> Result<Edge> {
        let r = &self.rows[i];
        let other = codec::decode_key(self.other(i))?;
        let (src, dst) = if r.dir == RowDir::In {
            (other, node.clone())
        } else {
            (node.clone(), other)
        };
        Ok(Edge {
            src,
            ty: types.intern(self.str(&r.ty)),
            dst,
            id: r.id,
            weight: r.weight,
            props: if r.props.is_empty() {
                hopdb_core::Props::new()
            } else {
                codec::decode_props(&self.buf[r.props.clone()])?
            },
        })
    }
}

pub(crate) fn put_len(out: &mut Vec<u8>, mut n: usize) {
    loop {
        let b = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

pub(crate) fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_len(out, b.len());
    out.extend_from_slice(b);
}

/// Reads what `put_len`, `put_bytes` and fixed-width fields wrote; `None` when truncated.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, at: 0 }
    }

    /// Whether every byte was read.
    pub(crate) fn done(&self) -> bool {
        self.at == self.buf.len()
    }

    /// A length-prefixed byte string.
    pub(crate) fn take(&mut self) -> Option<&'a [u8]> {
        let r = self.bytes()?;
        Some(&self.buf[r])
    }

    /// A little-endian u64.
    pub(crate) fn u64(&mut self) -> Option<u64> {
        self.fixed::<8>().map(u64::from_le_bytes)
    }

    pub(crate) fn byte(&mut self) -> Option<u8> {
        let b = *self.buf.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    pub(crate) fn len(&mut self) -> Option<usize> {
        let mut n = 0usize;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= usize::from(b & 0x7f).checked_shl(shift)?;
            if b & 0x80 == 0 {
                return Some(n);
            }
        }
        None
    }

    /// The range of a length-prefixed byte string.
    pub(crate) fn bytes(&mut self) -> Option<Range<usize>> {
        let n = self.len()?;
        let end = self.at.checked_add(n).filter(|&e| e <= self.buf.len())?;
        let r = self.at..end;
        self.at = end;
        Some(r)
    }

    fn fixed<const N: usize>(&mut self) -> Option<[u8; N]> {
        let r = self.buf.get(self.at..self.at + N)?;
        self.at += N;
        r.try_into().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damaged_slices_are_errors() {
        // A node with no labels, empty properties, no types and no rows.
        let good = vec![VERSION, 0, 0, 0, 0];
        assert!(NodeSlice::decode(b"k", Bytes::from(good.clone()), "t").is_ok());
        for cut in 0..good.len() {
            assert!(NodeSlice::decode(b"k", Bytes::from(good[..cut].to_vec()), "t").is_err());
        }
        let mut trailing = good.clone();
        trailing.push(0);
        assert!(NodeSlice::decode(b"k", Bytes::from(trailing), "t").is_err());
        // A row count far beyond the value's length.
        assert!(NodeSlice::decode(b"k", Bytes::from(vec![VERSION, 0, 0, 0, 0xff, 0xff, 0x03]), "t").is_err());
        // A row naming a type the slice does not list, and an unknown head bit.
        let key = codec::encode_key(&NodeKey::Int(2));
        for (ty, head) in [(1u8, 0u8), (0, 0x20)] {
            let mut v = vec![VERSION, 0, 0, 1, 1, b'T', 1, head, ty, key.len() as u8];
            v.extend_from_slice(&key);
            assert!(NodeSlice::decode(b"k", Bytes::from(v), "t").is_err());
        }
    }

    /// The one-pass walk a promotion uses encodes every node as a lookup of that node does,
    /// with and without pending writes.
    #[test]
    fn walking_a_partition_encodes_each_node_as_looking_it_up() {
        use crate::cold::{encode_partition, EdgeRow, NodeRow};
        use crate::delta::Op;
        let key = |i: i64| codec::encode_key(&NodeKey::Int(i));
        let nodes: Vec<NodeRow> = (0..40)
            .map(|i| NodeRow {
                key: key(i),
                labels: if i % 3 == 0 {
                    vec!["A".into(), "B".into()]
                } else {
                    Vec::new()
                },
                props: codec::EMPTY_PROPS.to_vec(),
            })
            .collect();
        // Every third node has no rows; the others a few, in both directions.
        let mut edges = Vec::new();
        for i in (0..40).filter(|i| i % 3 != 0) {
            for (n, dir) in [(1, RowDir::Out), (i % 5, RowDir::In)] {
                edges.push(EdgeRow {
                    node: key(i),
                    dir,
                    ty: std::sync::Arc::from(if n == 1 { "T" } else { "U" }),
                    other: key((i * 7 + n) % 40),
                    id: 0,
                    weight: (i % 2 == 0).then_some(0.5),
                    props: codec::EMPTY_PROPS.to_vec(),
                });
            }
        }
        let enc = encode_partition(nodes, edges, 7).unwrap();
        let mut part = Partition::decode("t", 1, enc.nodes, enc.edges).unwrap();
        let check = |part: &Partition| {
            let mut walked = 0;
            part.for_each_node(&mut |n| {
                assert_eq!(Some(encode_node(part, &n)), encode(part, n.key));
                walked += 1;
            });
            assert_eq!(walked, part.node_keys().len());
            walked
        };
        assert_eq!(check(&part), 40);
        part.apply(Op::DeleteNode(key(4)));
        part.apply(Op::PutNode(NodeRow {
            key: key(100),
            labels: vec!["New".into()],
            props: codec::EMPTY_PROPS.to_vec(),
        }));
        assert_eq!(check(&part), 40);
    }

    /// One row of each shape in version 2, and the same rows as version 1 wrote them.
    #[test]
    fn both_versions_decode_to_the_same_edges() {
        let node = NodeKey::Int(1);
        let key = codec::encode_key(&node);
        let other = codec::encode_key(&NodeKey::Str("b".into()));
        let props = codec::encode_props(&hopdb_core::props([("x", hopdb_core::Value::Int(7))])).unwrap();
        let no_props = codec::EMPTY_PROPS;
        // (dir, type, id, weight, props)
        type Row<'a> = (u8, &'a str, u64, Option<f64>, &'a [u8]);
        let rows: [Row; 3] = [
            (0, "T", 0, None, no_props),
            (1, "M", 1 << 50, Some(2.5), &props),
            (2, "T", 0, Some(1.0), no_props),
        ];
        let mut v2 = vec![2, 0, 0, 2, 1, b'T', 1, b'M', 3];
        let mut v1 = vec![1, 0, 0, 3];
        for (dir, ty, id, weight, p) in rows {
            let has_props = p != no_props;
            v2.push(
                dir | if weight.is_some() { HAS_WEIGHT } else { 0 }
                    | if has_props { HAS_PROPS } else { 0 }
                    | if id != 0 { HAS_ID } else { 0 },
            );
            v2.push(u8::from(ty == "M"));
            put_bytes(&mut v2, &other);
            if id != 0 {
                put_len(&mut v2, id as usize);
            }
            if let Some(w) = weight {
                v2.extend_from_slice(&w.to_le_bytes());
            }
            if has_props {
                put_bytes(&mut v2, p);
            }
            v1.push(dir);
            put_bytes(&mut v1, ty.as_bytes());
            put_bytes(&mut v1, &other);
            v1.extend_from_slice(&id.to_le_bytes());
            match weight {
                Some(w) => {
                    v1.push(1);
                    v1.extend_from_slice(&w.to_le_bytes());
                }
                None => v1.push(0),
            }
            put_bytes(&mut v1, p);
        }
        let edges = |v: Vec<u8>| -> Vec<Edge> {
            let s = NodeSlice::decode(&key, Bytes::from(v), "t").unwrap();
            let mut types = TypeNames::default();
            (0..3).map(|i| s.edge(i, &node, &mut types).unwrap()).collect()
        };
        let (a, b) = (edges(v2), edges(v1));
        assert_eq!(a, b);
        assert_eq!((a[1].id, a[1].weight, a[1].props.len()), (1 << 50, Some(2.5), 1));
        assert_eq!((a[0].id, a[0].weight, a[0].props.len()), (0, None, 0));
        assert_eq!(a[1].src, NodeKey::Str("b".into()));
    }
}
