//! The write delta: what a write changes in one partition, as operations on its rows, kept in
//! PostgreSQL (`partition_delta`) until a compaction folds them into a new generation. Reads
//! of a partition with pending operations merge them into the generation's rows.
//!
//! Operations state results, not intentions ("this node row is now X", "this adjacency row is
//! gone"): the writer works them out against the partition's current rows, so applying them
//! needs no other partition and applying the same list twice gives the same rows.
//!
//! The encoding: a tag byte, then the row's fields as in a node slice (LEB128 lengths).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::cold::{row_dir, EdgeRow, NodeRow, Partition, RowDir};
use crate::error::{ClusterError, Result};
use crate::slice::{put_bytes, put_len, Reader};

const PUT_NODE: u8 = 1;
const DELETE_NODE: u8 = 2;
const PUT_ROW: u8 = 3;
const DELETE_ROW: u8 = 4;

/// An adjacency row's identity within its partition.
pub(crate) type RowId = (Vec<u8>, RowDir, Arc<str>, Vec<u8>, u64);

/// One change to a partition's rows.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    /// The node row is now this one (created or replaced).
    PutNode(NodeRow),
    /// The node and every adjacency row of it are gone.
    DeleteNode(Vec<u8>),
    /// The adjacency row is now this one.
    PutRow(EdgeRow),
    /// The adjacency row is gone.
    DeleteRow(RowId),
}

impl Op {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64);
        match self {
            Op::PutNode(n) => {
                out.push(PUT_NODE);
                put_bytes(&mut out, &n.key);
                put_len(&mut out, n.labels.len());
                for l in &n.labels {
                    put_bytes(&mut out, l.as_bytes());
                }
                put_bytes(&mut out, &n.props);
            }
            Op::DeleteNode(k) => {
                out.push(DELETE_NODE);
                put_bytes(&mut out, k);
            }
            Op::PutRow(e) => {
                out.push(PUT_ROW);
                put_row_id(&mut out, &e.node, e.dir, &e.ty, &e.other, e.id);
                match e.weight {
                    Some(w) => {
                        out.push(1);
                        out.extend_from_slice(&w.to_le_bytes());
                    }
                    None => out.push(0),
                }
                put_bytes(&mut out, &e.props);
            }
            Op::DeleteRow((node, dir, ty, other, id)) => {
                out.push(DELETE_ROW);
                put_row_id(&mut out, node, *dir, ty, other, *id);
            }
        }
        out
    }

    /// Decodes one operation of partition `p` (named in errors).
    pub fn decode(buf: &[u8], p: u32) -> Result<Op> {
        let bad = |why: &str| ClusterError::Corrupt {
            object: format!("a pending write of partition {p}"),
            why: why.to_string(),
        };
        let mut r = Reader::new(buf);
        let truncated = || bad("truncated");
        let op = match r.byte().ok_or_else(truncated)? {
            PUT_NODE => {
                let key = r.take().ok_or_else(truncated)?.to_vec();
                let n = r.len().ok_or_else(truncated)?;
                let mut labels = Vec::with_capacity(n.min(64));
                for _ in 0..n {
                    let l = r.take().ok_or_else(truncated)?;
                    labels.push(String::from_utf8(l.to_vec()).map_err(|_| bad("a label is not UTF-8"))?);
                }
                let props = r.take().ok_or_else(truncated)?.to_vec();
                Op::PutNode(NodeRow { key, labels, props })
            }
            DELETE_NODE => Op::DeleteNode(r.take().ok_or_else(truncated)?.to_vec()),
            tag @ (PUT_ROW | DELETE_ROW) => {
                let node = r.take().ok_or_else(truncated)?.to_vec();
                let d = r.byte().ok_or_else(truncated)?;
                if d > RowDir::Undirected as u8 {
                    return Err(bad("unknown direction"));
                }
                let ty = std::str::from_utf8(r.take().ok_or_else(truncated)?)
                    .map_err(|_| bad("an edge type is not UTF-8"))?;
                let ty: Arc<str> = Arc::from(ty);
                let other = r.take().ok_or_else(truncated)?.to_vec();
                let id = r.u64().ok_or_else(truncated)?;
                if tag == DELETE_ROW {
                    Op::DeleteRow((node, row_dir(d), ty, other, id))
                } else {
                    let weight = match r.byte().ok_or_else(truncated)? {
                        0 => None,
                        1 => Some(f64::from_le_bytes(r.u64().ok_or_else(truncated)?.to_le_bytes())),
                        _ => return Err(bad("bad weight flag")),
                    };
                    let props = r.take().ok_or_else(truncated)?.to_vec();
                    Op::PutRow(EdgeRow {
                        node,
                        dir: row_dir(d),
                        ty,
                        other,
                        id,
                        weight,
                        props,
                    })
                }
            }
            _ => return Err(bad("unknown operation")),
        };
        if !r.done() {
            return Err(bad("trailing bytes"));
        }
        Ok(op)
    }
}

fn put_row_id(out: &mut Vec<u8>, node: &[u8], dir: RowDir, ty: &str, other: &[u8], id: u64) {
    put_bytes(out, node);
    out.push(dir as u8);
    put_bytes(out, ty.as_bytes());
    put_bytes(out, other);
    out.extend_from_slice(&id.to_le_bytes());
}

/// Pending writes over a generation's rows: the nodes written or deleted, and the whole row
/// list of every node whose rows changed. Reads consult it before the generation's arrays,
/// so merging a write costs what the write touched, not the partition's size.
#[derive(Clone, Default)]
pub(crate) struct Overlay {
    /// Nodes written (`Some`) or deleted (`None`).
    pub nodes: BTreeMap<Vec<u8>, Option<NodeRow>>,
    /// For each node whose rows changed, its rows now (indices into `extra`), in row order.
    pub rows: BTreeMap<Vec<u8>, Vec<u32>>,
    /// The rows the overlay holds; superseded ones stay until a compaction.
    pub extra: Vec<EdgeRow>,
}

/// A row's order within its node's rows, as a generation sorts them.
fn order(e: &EdgeRow) -> (RowDir, &str, &[u8], u64) {
    (e.dir, &e.ty, &e.other, e.id)
}

impl Overlay {
    /// Whether no write is pending.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty() && self.rows.is_empty()
    }

    /// Overlay row `i` of a partition whose arrays hold `base` rows (`None`: an array row).
    pub fn row(&self, i: usize, base: usize) -> Option<&EdgeRow> {
        i.checked_sub(base).and_then(|j| self.extra.get(j))
    }

    /// Applies `op`; `current` is the rows of the op's node when the overlay holds none of
    /// them yet (its generation's rows).
    pub fn apply(&mut self, op: Op, current: Vec<EdgeRow>) {
        match op {
            Op::PutNode(n) => {
                self.nodes.insert(n.key.clone(), Some(n));
            }
            Op::DeleteNode(k) => {
                self.nodes.insert(k.clone(), None);
                self.rows.insert(k, Vec::new());
            }
            Op::PutRow(e) => {
                let mut list = self.take_list(&e.node, current);
                let at = list.binary_search_by(|&j| order(&self.extra[j as usize]).cmp(&order(&e)));
                let j = self.extra.len() as u32;
                let node = e.node.clone();
                self.extra.push(e);
                match at {
                    Ok(i) => list[i] = j,
                    Err(i) => list.insert(i, j),
                }
                self.rows.insert(node, list);
            }
            Op::DeleteRow((node, dir, ty, other, id)) => {
                let mut list = self.take_list(&node, current);
                list.retain(|&j| {
                    let e = &self.extra[j as usize];
                    order(e) != (dir, &*ty, other.as_slice(), id)
                });
                self.rows.insert(node, list);
            }
        }
    }

    /// The node's row list, taken out to change (made from `current` the first time).
    fn take_list(&mut self, node: &[u8], current: Vec<EdgeRow>) -> Vec<u32> {
        if let Some(list) = self.rows.remove(node) {
            return list;
        }
        let start = self.extra.len() as u32;
        self.extra.extend(current);
        (start..self.extra.len() as u32).collect()
    }

    /// Roughly the memory it holds.
    pub fn bytes(&self) -> usize {
        let nodes: usize = self
            .nodes
            .iter()
            .map(|(k, n)| 2 * k.len() + n.as_ref().map_or(0, |n| n.props.len() + 16 * n.labels.len()) + 64)
            .sum();
        let rows: usize = self
            .extra
            .iter()
            .map(|e| e.node.len() + e.other.len() + e.props.len() + 64)
            .sum();
        nodes + rows + self.rows.values().map(|l| 4 * l.len() + 48).sum::<usize>()
    }
}

pub(crate) fn row_id(e: &EdgeRow) -> RowId {
    (e.node.clone(), e.dir, e.ty.clone(), e.other.clone(), e.id)
}

/// Partition `p`'s generation (`None`: never loaded) with its pending operations merged in,
/// as content `version`.
pub(crate) fn merge(p: u32, base: Option<Partition>, ops: &[Vec<u8>], version: u64) -> Result<Partition> {
    let mut part = match base {
        Some(b) => b,
        None => Partition::empty(version)?,
    };
    for op in ops {
        part.apply(Op::decode(op, p)?);
    }
    part.version = version;
    part.bytes += part.overlay.bytes();
    Ok(part)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_round_trip_and_damage_is_an_error() {
        let ops = vec![
            Op::PutNode(NodeRow {
                key: vec![2, b'a'],
                labels: vec!["Person".into(), "Émile".into()],
                props: vec![1, 2, 3],
            }),
            Op::DeleteNode(vec![2, b'b']),
            Op::PutRow(EdgeRow {
                node: vec![2, b'a'],
                dir: RowDir::In,
                ty: Arc::from("KNOWS"),
                other: vec![2, b'c'],
                id: 7,
                weight: Some(-0.5),
                props: vec![9],
            }),
            Op::DeleteRow((vec![2, b'a'], RowDir::Undirected, Arc::from("T"), vec![2, b'd'], 0)),
        ];
        for op in &ops {
            let enc = op.encode();
            assert_eq!(Op::decode(&enc, 3).unwrap().encode(), enc);
            for cut in 0..enc.len() {
                assert!(Op::decode(&enc[..cut], 3).is_err(), "{op:?} cut at {cut}");
            }
            let mut longer = enc.clone();
            longer.push(0);
            assert!(Op::decode(&longer, 3).is_err());
        }
    }

    #[test]
    fn the_overlay_keeps_row_order_and_deletes_only_the_node_named() {
        let row = |node: &[u8], other: &[u8], w: f64| EdgeRow {
            node: node.to_vec(),
            dir: RowDir::Out,
            ty: Arc::from("T"),
            other: other.to_vec(),
            id: 0,
            weight: Some(w),
            props: Vec::new(),
        };
        let mut base = Partition::empty(1).unwrap();
        for (n, o) in [
            (&b"a"[..], &b"c"[..]),
            (b"ab", b"a"),
            (b"a", b"b"),
            (b"b", b"a"),
            (b"a", b"c"),
        ] {
            base.apply(Op::PutRow(row(n, o, 1.0)));
        }
        base.apply(Op::PutRow(row(b"a", b"c", 2.0)));
        let others: Vec<(Vec<u8>, Option<f64>)> = base.rows_of(b"a").into_iter().map(|e| (e.other, e.weight)).collect();
        assert_eq!(others, vec![(b"b".to_vec(), Some(1.0)), (b"c".to_vec(), Some(2.0))]);
        base.apply(Op::DeleteNode(b"a".to_vec()));
        assert!(base.rows_of(b"a").is_empty());
        assert_eq!(base.rows_of(b"ab").len(), 1);
        let (_, edges) = base.to_rows();
        let left: Vec<&[u8]> = edges.iter().map(|e| e.node.as_slice()).collect();
        assert_eq!(left.len(), 2);
        assert!(left.contains(&&b"ab"[..]) && left.contains(&&b"b"[..]));
    }
}
