//! Property indexes and uniqueness constraints (decision 0017).
//!
//! An index on (label, property) finds the live nodes that carry the label and whose property
//! equals a value, in one seek and a short scan. Definitions live in `meta` beside the labels
//! they name and are loaded into the catalog; entries live in the `prop_index` column family,
//! one per (index, value, node), written in the same batch as the node records they describe
//! by every write path (upserts, deletes, `create_node`, bulk loads).
//!
//! Values are indexed in a canonical form that follows Cypher equality, so values that are
//! equal in Cypher share an entry: an integral float within the i64 range is the integer
//! (`1.0` finds `1`), lists and maps are canonical element by element, and a value that is
//! never equal to anything (null, NaN, or a list or map holding one) is not indexed at all.
//! A canonical encoding longer than [`MAX_INLINE_VALUE`] bytes is stored as a hash, and every
//! match of a hashed value is checked against the node's property.

use crate::catalog::Catalog;
use crate::engine::{Cf, KvRead};
use crate::error::{corrupt_rec, Result};
use crate::records::{parse_id, NodeId, NodeRec, TypeId, META_INDEX_PREFIX};
use crate::value::{
    put_len_prefixed, put_varint, zigzag, Value, T_FALSE, T_FLOAT, T_INT, T_LIST, T_MAP, T_STR, T_TRUE,
};
use std::sync::Arc;

/// A property index, as [`crate::GraphRead::indexes`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexDef {
    /// The label of the nodes it indexes.
    pub label: String,
    /// The property it indexes.
    pub property: String,
    /// Whether it enforces a uniqueness constraint: at most one live node with the label has
    /// any one value of the property.
    pub unique: bool,
    /// Entries: live nodes with the label whose property holds an indexable value (not null,
    /// not NaN), from a maintained counter.
    pub entries: u64,
}

/// An index as the catalog holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexSpec {
    /// Dense id, the first 4 bytes of the index's entry keys.
    pub id: u32,
    pub label: TypeId,
    pub property: Arc<str>,
    pub unique: bool,
    /// Asked for by `create_index`, so it outlives a uniqueness constraint dropped from it;
    /// an index made only for a constraint goes with the constraint.
    pub declared: bool,
}

const FLAG_UNIQUE: u8 = 1;
const FLAG_DECLARED: u8 = 2;

/// The `meta` key of the definition of the index on (label, property).
pub(crate) fn def_key(label: TypeId, property: &str) -> Vec<u8> {
    let mut k = META_INDEX_PREFIX.to_vec();
    k.extend_from_slice(&label.to_be_bytes());
    k.extend_from_slice(property.as_bytes());
    k
}

/// An index definition's `meta` entry: its key and `id(4 BE) flags(1)`.
pub(crate) fn def_entry(spec: &IndexSpec) -> (Vec<u8>, Vec<u8>) {
    let mut v = spec.id.to_be_bytes().to_vec();
    v.push((u8::from(spec.unique) * FLAG_UNIQUE) | (u8::from(spec.declared) * FLAG_DECLARED));
    (def_key(spec.label, &spec.property), v)
}

/// Parses a definition read from `meta` (`k` includes the prefix).
pub(crate) fn parse_def(k: &[u8], v: &[u8]) -> Option<IndexSpec> {
    let rest = k.strip_prefix(META_INDEX_PREFIX)?;
    let label = u32::from_be_bytes(rest.get(..4)?.try_into().ok()?);
    let property = std::str::from_utf8(rest.get(4..)?).ok()?;
    let [a, b, c, d, flags] = <[u8; 5]>::try_from(v).ok()?;
    if property.is_empty() {
        return None;
    }
    Some(IndexSpec {
        id: u32::from_be_bytes([a, b, c, d]),
        label,
        property: property.into(),
        unique: flags & FLAG_UNIQUE != 0,
        declared: flags & FLAG_DECLARED != 0,
    })
}

/// The longest canonical encoding an entry key holds whole; a longer one is stored hashed.
pub(crate) const MAX_INLINE_VALUE: usize = 256;
/// Tag of a hashed value part: after every value tag, so it never begins a canonical encoding.
const T_HASHED: u8 = 0xff;

/// A value as an index sees it: the bytes of its entry keys, and what a match must equal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Probe {
    /// The value's part of an entry key: its canonical encoding, or for a long one
    /// `ff | fnv1a64(canonical encoding)(8 BE)`. Either form is prefix-free.
    pub part: Vec<u8>,
    /// The whole canonical encoding of a hashed value, which a candidate must equal.
    pub canon: Option<Vec<u8>>,
}

impl Probe {
    /// The probe of `v`, or None if `v` equals nothing in Cypher (null, NaN, or a list or
    /// map holding one) and so is not indexed.
    pub(crate) fn of(v: &Value) -> Option<Probe> {
        let mut canon = Vec::new();
        if !canonical(&mut canon, v) {
            return None;
        }
        Some(if canon.len() > MAX_INLINE_VALUE {
            let mut part = vec![T_HASHED];
            part.extend_from_slice(&fnv1a64(&canon).to_be_bytes());
            Probe {
                part,
                canon: Some(canon),
            }
        } else {
            Probe {
                part: canon,
                canon: None,
            }
        })
    }

    /// Whether a candidate node's value `v` is this probe's value. An inline entry key says
    /// so by itself; a hashed one needs the node's value.
    pub(crate) fn matches(&self, v: Option<&Value>) -> bool {
        match &self.canon {
            None => true,
            Some(c) => v.and_then(Probe::of).is_some_and(|p| p.canon.as_ref() == Some(c)),
        }
    }
}

/// -2^63, exactly.
const I64_MIN_F: f64 = i64::MIN as f64;

/// Appends the canonical encoding of `v` (the value encoding of docs/format.md, with an
/// integral float within the i64 range written as the integer); false if `v` is not
/// indexable.
fn canonical(out: &mut Vec<u8>, v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Float(f) if f.is_nan() => false,
        // -2^63 <= f < 2^63 and integral: exactly representable as an i64 (-0.0 too, as 0).
        Value::Float(f) if f.fract() == 0.0 && *f >= I64_MIN_F && *f < -I64_MIN_F => {
            out.push(T_INT);
            put_varint(out, zigzag(*f as i64));
            true
        }
        Value::Float(f) => {
            out.push(T_FLOAT);
            out.extend_from_slice(&f.to_le_bytes());
            true
        }
        Value::Int(i) => {
            out.push(T_INT);
            put_varint(out, zigzag(*i));
            true
        }
        Value::Bool(b) => {
            out.push(if *b { T_TRUE } else { T_FALSE });
            true
        }
        Value::Str(s) => {
            out.push(T_STR);
            put_len_prefixed(out, s.as_bytes());
            true
        }
        Value::Bytes(_) => {
            crate::value::encode_value(out, v);
            true
        }
        Value::List(l) => {
            out.push(T_LIST);
            put_varint(out, l.len() as u64);
            l.iter().all(|x| canonical(out, x))
        }
        Value::Map(m) => {
            out.push(T_MAP);
            put_varint(out, m.len() as u64);
            m.iter().all(|(k, x)| {
                put_len_prefixed(out, k.as_bytes());
                canonical(out, x)
            })
        }
    }
}

/// 64-bit FNV-1a: the hash of long values. Part of the format (docs/format.md), so it must
/// never change; collisions only cost a check of the node's value.
pub(crate) fn fnv1a64(b: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &x in b {
        h ^= u64::from(x);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Whether an entry's value part is a hash (of a value longer than [`MAX_INLINE_VALUE`]).
pub(crate) fn is_hashed(part: &[u8]) -> bool {
    part.first() == Some(&T_HASHED)
}

/// The prefix of the entries of index `index` holding the value part `part`.
pub(crate) fn entry_prefix(index: u32, part: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(4 + part.len() + 8);
    k.extend_from_slice(&index.to_be_bytes());
    k.extend_from_slice(part);
    k
}

/// An entry key: `index(4 BE) part node(8 BE)`.
pub(crate) fn entry_key(index: u32, part: &[u8], node: NodeId) -> Vec<u8> {
    let mut k = entry_prefix(index, part);
    k.extend_from_slice(&node.to_be_bytes());
    k
}

/// Splits an entry key into (index, value part, node).
pub(crate) fn parse_entry(k: &[u8]) -> Option<(u32, &[u8], NodeId)> {
    if k.len() < 13 {
        return None;
    }
    let index = u32::from_be_bytes(k[..4].try_into().ok()?);
    let node = parse_id(&k[k.len() - 8..])?;
    Some((index, &k[4..k.len() - 8], node))
}

/// The entries a node record has under the catalog's indexes: (index, probe of its value).
pub(crate) fn entries_of<'c>(cat: &'c Catalog, rec: &NodeRec) -> Vec<(&'c IndexSpec, Probe)> {
    let mut out = Vec::new();
    for &l in &rec.labels {
        for spec in cat.indexes_on(l) {
            if let Some(p) = rec.props.get(&*spec.property).and_then(Probe::of) {
                out.push((spec, p));
            }
        }
    }
    out
}

/// The nodes whose entries in index `spec` hold `probe`, in id order, at most `limit`;
/// candidates of a hashed value are checked against their records.
pub(crate) fn holders(kv: &dyn KvRead, spec: &IndexSpec, probe: &Probe, limit: usize) -> Result<Vec<NodeId>> {
    let prefix = entry_prefix(spec.id, &probe.part);
    let mut ids = Vec::new();
    let mut bad = false;
    if limit > 0 {
        kv.scan(Cf::PropIndex, &prefix, &prefix, &mut |k, _| {
            match k.get(prefix.len()..).and_then(parse_id) {
                Some(id) => ids.push(id),
                None => bad = true,
            }
            // A hashed value's candidates are checked below, so the limit applies after.
            !bad && (probe.canon.is_some() || ids.len() < limit)
        })?;
    }
    if bad {
        return Err(corrupt_rec("property index entry"));
    }
    if probe.canon.is_some() {
        let mut kept = Vec::new();
        for id in ids {
            if kept.len() == limit {
                break;
            }
            let rec = kv
                .get(Cf::Nodes, &crate::records::id_bytes(id))?
                .ok_or_else(|| corrupt_rec("property index entry of a missing node"))?;
            if probe.matches(NodeRec::decode(&rec)?.props.get(&*spec.property)) {
                kept.push(id);
            }
        }
        ids = kept;
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(v: Value) -> Option<Vec<u8>> {
        Probe::of(&v).map(|p| p.part)
    }

    #[test]
    fn cypher_equal_values_share_an_entry() {
        assert_eq!(part(Value::Int(1)), part(Value::Float(1.0)));
        assert_eq!(part(Value::Int(0)), part(Value::Float(-0.0)));
        assert_eq!(part(Value::Int(-7)), part(Value::Float(-7.0)));
        assert_ne!(part(Value::Int(1)), part(Value::Float(1.5)));
        assert_ne!(part(Value::Int(1)), part(Value::Bool(true)));
        assert_ne!(part(Value::from("1")), part(Value::Int(1)));
        assert_eq!(
            part(Value::List(vec![Value::Int(1), Value::Float(2.0)])),
            part(Value::List(vec![Value::Float(1.0), Value::Int(2)]))
        );
        // 2^63 is outside i64: it stays a float, and equals no integer.
        assert_ne!(part(Value::Float(-I64_MIN_F)), part(Value::Int(i64::MAX)));
        assert_eq!(part(Value::Float(I64_MIN_F)), part(Value::Int(i64::MIN)));
        assert!(part(Value::Float(f64::INFINITY)).is_some());
    }

    #[test]
    fn values_equal_to_nothing_are_not_indexed() {
        assert_eq!(part(Value::Null), None);
        assert_eq!(part(Value::Float(f64::NAN)), None);
        assert_eq!(part(Value::List(vec![Value::Int(1), Value::Null])), None);
        let mut m = std::collections::BTreeMap::new();
        m.insert("x".to_string(), Value::Float(f64::NAN));
        assert_eq!(part(Value::Map(m)), None);
        assert!(part(Value::List(Vec::new())).is_some());
    }

    #[test]
    fn long_values_are_hashed_and_checked() {
        let long = Value::from("x".repeat(MAX_INLINE_VALUE + 10));
        let p = Probe::of(&long).unwrap();
        assert_eq!(p.part.len(), 9);
        assert_eq!(p.part[0], T_HASHED);
        assert!(p.matches(Some(&long)));
        assert!(!p.matches(Some(&Value::from("x".repeat(MAX_INLINE_VALUE + 11)))));
        assert!(!p.matches(None));
        let short = Probe::of(&Value::from("abc")).unwrap();
        assert_eq!(short.canon, None);
        // Parts are prefix-free: "ab" is not a prefix of "abc"'s part.
        let ab = Probe::of(&Value::from("ab")).unwrap();
        assert!(!short.part.starts_with(&ab.part));
    }

    #[test]
    fn entry_keys_roundtrip() {
        let k = entry_key(3, b"\x05\x01a", 42);
        assert_eq!(parse_entry(&k), Some((3, &b"\x05\x01a"[..], 42)));
        assert!(k.starts_with(&entry_prefix(3, b"\x05\x01a")));
        assert_eq!(parse_entry(&k[..12]), None);
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn definitions_roundtrip() {
        let s = IndexSpec {
            id: 7,
            label: 2,
            property: "email".into(),
            unique: true,
            declared: false,
        };
        let (k, v) = def_entry(&s);
        assert_eq!(parse_def(&k, &v), Some(s));
        assert_eq!(parse_def(&k, &v[..4]), None);
    }
}
