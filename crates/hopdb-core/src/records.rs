//! Key layouts and record encodings (decision 0002). All integers in keys are big-endian
//! so that keys sort by node, then type, then neighbour: a node's edges (of one type) are
//! one seek plus a sequential read, and "does a->b exist" is one point lookup.

use crate::error::Result;
use crate::value::{decode_props, encode_props, put_len_prefixed, put_varint, NodeKey, Props, Reader};

/// A node's internal id: dense, assigned once per key and never reused; 0 is never used
/// (decision 0002).
pub type NodeId = u64;
/// Edge-type and label ids are dense u32s.
pub(crate) type TypeId = u32;

pub(crate) const ADJ_KEY_LEN: usize = 28;

/// `node(8) type(4) neighbour(8) edge_id(8)`; edge id is 0 for simple (non-multi) types.
pub(crate) fn adj_key(node: NodeId, ty: TypeId, nbr: NodeId, eid: u64) -> [u8; ADJ_KEY_LEN] {
    let mut k = [0u8; ADJ_KEY_LEN];
    k[..8].copy_from_slice(&node.to_be_bytes());
    k[8..12].copy_from_slice(&ty.to_be_bytes());
    k[12..20].copy_from_slice(&nbr.to_be_bytes());
    k[20..].copy_from_slice(&eid.to_be_bytes());
    k
}

pub(crate) struct AdjKey {
    pub node: NodeId,
    pub ty: TypeId,
    pub nbr: NodeId,
    pub eid: u64,
}

pub(crate) fn parse_adj_key(k: &[u8]) -> Option<AdjKey> {
    if k.len() != ADJ_KEY_LEN {
        return None;
    }
    Some(AdjKey {
        node: u64::from_be_bytes(k[..8].try_into().ok()?),
        ty: u32::from_be_bytes(k[8..12].try_into().ok()?),
        nbr: u64::from_be_bytes(k[12..20].try_into().ok()?),
        eid: u64::from_be_bytes(k[20..].try_into().ok()?),
    })
}

pub(crate) fn node_prefix(node: NodeId) -> [u8; 8] {
    node.to_be_bytes()
}

pub(crate) fn node_type_prefix(node: NodeId, ty: TypeId) -> [u8; 12] {
    let mut k = [0u8; 12];
    k[..8].copy_from_slice(&node.to_be_bytes());
    k[8..].copy_from_slice(&ty.to_be_bytes());
    k
}

pub(crate) fn pair_prefix(node: NodeId, ty: TypeId, nbr: NodeId) -> [u8; 20] {
    let mut k = [0u8; 20];
    k[..12].copy_from_slice(&node_type_prefix(node, ty));
    k[12..].copy_from_slice(&nbr.to_be_bytes());
    k
}

/// Key of a node's degree counters: `node(8)`.
pub(crate) fn deg_key(node: NodeId) -> [u8; 8] {
    node.to_be_bytes()
}

pub(crate) fn label_key(label: TypeId, node: NodeId) -> [u8; 12] {
    let mut k = [0u8; 12];
    k[..4].copy_from_slice(&label.to_be_bytes());
    k[4..].copy_from_slice(&node.to_be_bytes());
    k
}

/// Value of the `keys` column family: `id(8) state(1) [label(4)]*`. The id is permanent.
/// The state byte says whether the node currently exists, so one lookup resolves a key and
/// its liveness: 0 deleted, 1 live (format 1: labels only in the node record), 2 live with
/// the node's label ids following, in the record's order (format 2). A writer that knows
/// the labels from here replaces a node without reading its record (decision 0037).
pub(crate) fn key_value(id: NodeId, live: bool) -> [u8; 9] {
    let mut v = [0u8; 9];
    v[..8].copy_from_slice(&id.to_be_bytes());
    v[8] = u8::from(live);
    v
}

/// A live node's `keys` value with its labels (state 2).
pub(crate) fn key_value_labeled(id: NodeId, labels: &[TypeId]) -> Vec<u8> {
    let mut v = Vec::with_capacity(9 + 4 * labels.len());
    v.extend_from_slice(&id.to_be_bytes());
    v.push(KEY_LIVE_LABELED);
    for l in labels {
        v.extend_from_slice(&l.to_be_bytes());
    }
    v
}

const KEY_LIVE_LABELED: u8 = 2;

pub(crate) fn parse_key_value(b: &[u8]) -> Option<(NodeId, bool)> {
    let (id, rest) = b.split_first_chunk::<8>()?;
    let live = match rest {
        [0] => false,
        [1] => true,
        _ if labels_part(rest).is_some() => true,
        _ => return None,
    };
    Some((u64::from_be_bytes(*id), live))
}

/// The label ids of a state-2 entry's tail (state byte included), if it is one.
fn labels_part(state_and_labels: &[u8]) -> Option<&[u8]> {
    match state_and_labels {
        [KEY_LIVE_LABELED, labels @ ..] if labels.len() % 4 == 0 => Some(labels),
        _ => None,
    }
}

/// The labels a `keys` value carries: `None` when it has none to tell (a deleted node, or
/// a live one written by format 1 or the bulk loader, whose labels are in its record).
pub(crate) fn key_labels(b: &[u8]) -> Option<Vec<TypeId>> {
    let labels = labels_part(b.get(8..)?)?;
    Some(
        labels
            .chunks_exact(4)
            .map(|c| TypeId::from_be_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

pub(crate) fn id_bytes(id: u64) -> [u8; 8] {
    id.to_be_bytes()
}

pub(crate) fn parse_id(b: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(b.try_into().ok()?))
}

// ---- counters in the `counts` column family ----
pub(crate) const COUNT_NODES: &[u8] = b"n";
pub(crate) const COUNT_EDGES: &[u8] = b"e";
pub(crate) fn count_label_key(label: TypeId) -> Vec<u8> {
    let mut k = b"l".to_vec();
    k.extend_from_slice(&label.to_be_bytes());
    k
}
pub(crate) fn count_type_key(ty: TypeId) -> Vec<u8> {
    let mut k = b"t".to_vec();
    k.extend_from_slice(&ty.to_be_bytes());
    k
}
/// Entries of property index `index` (decision 0017).
pub(crate) fn count_index_key(index: u32) -> Vec<u8> {
    let mut k = b"i".to_vec();
    k.extend_from_slice(&index.to_be_bytes());
    k
}

// ---- meta ----
pub(crate) const META_FORMAT: &[u8] = b"format_version";
pub(crate) const META_NEXT_NODE: &[u8] = b"next_node_id";
pub(crate) const META_NEXT_EDGE: &[u8] = b"next_edge_id";
pub(crate) const META_TYPE_PREFIX: &[u8] = b"type\0";
pub(crate) const META_LABEL_PREFIX: &[u8] = b"label\0";
/// Property index definitions: `index\0 label(4 BE) property` -> `id(4 BE) flags(1)`.
pub(crate) const META_INDEX_PREFIX: &[u8] = b"index\0";
/// Full-text index definitions: `fulltext\0 name` -> the definition (`fulltext.rs`).
pub(crate) const META_FULLTEXT_PREFIX: &[u8] = b"fulltext\0";

// ---- node records ----

/// A stored node: user key, label ids, properties.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NodeRec {
    pub key: NodeKey,
    pub labels: Vec<TypeId>,
    pub props: Props,
}

impl NodeRec {
    pub(crate) fn encode(&self) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(64);
        put_len_prefixed(&mut out, &self.key.encode());
        put_varint(&mut out, self.labels.len() as u64);
        for l in &self.labels {
            put_varint(&mut out, u64::from(*l));
        }
        encode_props(&mut out, &self.props)?;
        Ok(out)
    }

    pub(crate) fn decode(b: &[u8]) -> Result<NodeRec> {
        let (key, labels, props) = NodeRec::decode_lazy(b)?;
        Ok(NodeRec {
            key,
            labels: NodeRec::label_ids(labels)?,
            props: decode_props(&mut Reader::new(props))?,
        })
    }

    /// Splits a record into its key, its encoded label list (see [`NodeRec::label_ids`]) and
    /// its encoded properties, decoding only the key.
    pub(crate) fn decode_lazy(b: &[u8]) -> Result<(NodeKey, &[u8], &[u8])> {
        let mut r = Reader::new(b);
        let key = NodeKey::decode(r.len_prefixed()?)?;
        let labels = r.rest();
        for _ in 0..r.varint()? {
            r.varint()?;
        }
        let props = r.rest();
        Ok((key, &labels[..labels.len() - props.len()], props))
    }

    /// The label ids of an encoded label list.
    pub(crate) fn label_ids(b: &[u8]) -> Result<Vec<TypeId>> {
        let mut r = Reader::new(b);
        let n = r.varint()?;
        let mut labels = Vec::with_capacity(n.min(64) as usize);
        for _ in 0..n {
            let l = r.varint()?;
            labels.push(TypeId::try_from(l).map_err(|_| crate::value::decode_err("label id out of range"))?);
        }
        Ok(labels)
    }

    /// Decodes only the key (for scans that need no properties).
    pub(crate) fn decode_key(b: &[u8]) -> Result<NodeKey> {
        NodeKey::decode(Reader::new(b).len_prefixed()?)
    }

    /// Decodes the key and the labels as a mask (bit `l` for label id `l`); `None` for the
    /// mask when a label id is 64 or more (for scans that need no properties).
    pub(crate) fn decode_key_label_mask(b: &[u8]) -> Result<(NodeKey, Option<u64>)> {
        let mut r = Reader::new(b);
        let key = NodeKey::decode(r.len_prefixed()?)?;
        let mut mask = Some(0u64);
        for _ in 0..r.varint()? {
            let l = r.varint()?;
            mask = mask.and_then(|m| (l < 64).then(|| m | (1 << l)));
        }
        Ok((key, mask))
    }
}

// ---- edge records ----

/// A stored edge as seen from one endpoint: the other endpoint's key, weight, properties.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EdgeRec {
    pub nbr: NodeKey,
    pub weight: Option<f64>,
    pub props: Props,
}

impl EdgeRec {
    pub(crate) fn encode(&self) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(32);
        self.encode_into(&mut out)?;
        Ok(out)
    }

    pub(crate) fn encode_into(&self, out: &mut Vec<u8>) -> Result<()> {
        put_len_prefixed(out, &self.nbr.encode());
        match self.weight {
            Some(w) => {
                out.push(1);
                out.extend_from_slice(&w.to_le_bytes());
            }
            None => out.push(0),
        }
        encode_props(out, &self.props)
    }

    /// The same record as seen from the other endpoint.
    pub(crate) fn with_nbr(&self, nbr: NodeKey) -> EdgeRec {
        EdgeRec {
            nbr,
            weight: self.weight,
            props: self.props.clone(),
        }
    }

    /// The record's neighbour key, weight and properties, for listings, which decode one per
    /// edge. Most records are a short key, a weight or none, and no properties: those are read
    /// with plain slice checks, since a `Result` per field (104 bytes each) and a whole
    /// `EdgeRec` in one cost more than the fields (decision 0055).
    #[inline]
    pub(crate) fn decode_parts(b: &[u8]) -> Result<(NodeKey, Option<f64>, Props)> {
        match split_short_head(b) {
            Some((key, weight, [0])) => Ok((NodeKey::decode(key)?, weight, Props::new())),
            _ => EdgeRec::decode(b).map(|r| (r.nbr, r.weight, r.props)),
        }
    }

    pub(crate) fn decode(b: &[u8]) -> Result<EdgeRec> {
        let mut r = Reader::new(b);
        let nbr = NodeKey::decode(r.len_prefixed()?)?;
        let weight = match r.u8()? {
            0 => None,
            _ => Some(r.f64()?),
        };
        let props = decode_props(&mut r)?;
        Ok(EdgeRec { nbr, weight, props })
    }

    /// Decodes the neighbour key and weight only.
    pub(crate) fn decode_head(b: &[u8]) -> Result<(NodeKey, Option<f64>)> {
        let mut r = Reader::new(b);
        let nbr = NodeKey::decode(r.len_prefixed()?)?;
        let weight = match r.u8()? {
            0 => None,
            _ => Some(r.f64()?),
        };
        Ok((nbr, weight))
    }
}

/// An edge record's key bytes, weight and what follows them, when its key is shorter than 128
/// bytes (a one-byte length); `None` sends the caller to the general decoder, which also
/// reports damage.
#[inline]
fn split_short_head(b: &[u8]) -> Option<(&[u8], Option<f64>, &[u8])> {
    let (&n, rest) = b.split_first()?;
    if n >= 0x80 || rest.len() < usize::from(n) + 1 {
        return None;
    }
    let (key, rest) = rest.split_at(usize::from(n));
    match rest.split_first()? {
        (0, rest) => Some((key, None, rest)),
        (_, rest) => {
            let (w, rest) = rest.split_first_chunk::<8>()?;
            Some((key, Some(f64::from_le_bytes(*w)), rest))
        }
    }
}

/// The weight an edge contributes to weight sums: unweighted edges count 1.0, as in
/// NetworkX's `degree(weight=...)`.
pub(crate) fn weight_of(w: Option<f64>) -> f64 {
    w.unwrap_or(1.0)
}

/// Value of the `edge_ids` column family: `src(8) type(4) dst(8)`.
pub(crate) fn edge_id_value(src: NodeId, ty: TypeId, dst: NodeId) -> [u8; 20] {
    pair_prefix(src, ty, dst)
}

pub(crate) fn parse_edge_id_value(b: &[u8]) -> Option<(NodeId, TypeId, NodeId)> {
    if b.len() != 20 {
        return None;
    }
    Some((
        u64::from_be_bytes(b[..8].try_into().ok()?),
        u32::from_be_bytes(b[8..12].try_into().ok()?),
        u64::from_be_bytes(b[12..20].try_into().ok()?),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{props, Value};

    #[test]
    fn adjacency_keys_sort_by_node_type_neighbour() {
        let a = adj_key(1, 2, 300, 0);
        let b = adj_key(1, 3, 1, 0);
        let c = adj_key(2, 0, 0, 0);
        assert!(a < b && b < c);
        let p = parse_adj_key(&a).unwrap();
        assert_eq!((p.node, p.ty, p.nbr, p.eid), (1, 2, 300, 0));
        assert!(a.starts_with(&pair_prefix(1, 2, 300)));
        assert!(a.starts_with(&node_type_prefix(1, 2)));
    }

    #[test]
    fn records_roundtrip() {
        let n = NodeRec {
            key: NodeKey::Str("ent-1".into()),
            labels: vec![0, 7],
            props: props([("x", Value::Int(-3))]),
        };
        assert_eq!(NodeRec::decode(&n.encode().unwrap()).unwrap(), n);
        assert_eq!(NodeRec::decode_key(&n.encode().unwrap()).unwrap(), n.key);
        let e = EdgeRec {
            nbr: NodeKey::Int(-9),
            weight: Some(2.5),
            props: props([("d", Value::from("x"))]),
        };
        let enc = e.encode().unwrap();
        assert_eq!(EdgeRec::decode(&enc).unwrap(), e);
        assert_eq!(EdgeRec::decode_head(&enc).unwrap(), (NodeKey::Int(-9), Some(2.5)));
    }

    #[test]
    fn a_label_id_past_the_id_range_is_damage() {
        let n = NodeRec {
            key: NodeKey::Str("n".into()),
            labels: vec![TypeId::MAX],
            props: Props::new(),
        };
        assert!(NodeRec::decode(&n.encode().unwrap()).is_ok());
        // The same record with its one label id one past the range (a 5-byte varint).
        let mut b = Vec::new();
        put_len_prefixed(&mut b, &n.key.encode());
        put_varint(&mut b, 1);
        put_varint(&mut b, u64::from(TypeId::MAX) + 1);
        encode_props(&mut b, &Props::new()).unwrap();
        let e = NodeRec::decode(&b).unwrap_err();
        assert!(e.to_string().contains("label id out of range"), "{e}");
    }
}
