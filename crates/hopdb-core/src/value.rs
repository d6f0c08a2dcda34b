//! The property-graph value model and its compact binary encoding.
//!
//! The encoding is HopDB's own on-disk format (decision 0003): a tag byte per value, LEB128
//! varints for lengths and integers (zig-zag), little-endian IEEE-754 for floats. It is
//! versioned with the store, not with any serialization library.

use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::fmt;

/// Largest encoded property map (of one node or edge) accepted: 16 MiB.
pub const MAX_PROPS_BYTES: usize = 16 << 20;
/// Largest string node key accepted, in bytes.
pub const MAX_KEY_BYTES: usize = 4096;
/// Largest label, edge-type or property name, in bytes.
pub const MAX_NAME_BYTES: usize = 255;
/// Deepest nesting of lists and maps accepted.
pub const MAX_DEPTH: usize = 32;

/// A property value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An explicit null, stored as such (not the same as an absent property).
    Null,
    /// A boolean.
    Bool(bool),
    /// A signed 64-bit integer.
    Int(i64),
    /// A 64-bit float, stored bit for bit (NaN and infinities included).
    Float(f64),
    /// A UTF-8 string.
    Str(String),
    /// Raw bytes.
    Bytes(Vec<u8>),
    /// An ordered list of values, nested at most 32 levels deep.
    List(Vec<Value>),
    /// A map from names to values, ordered by name, nested at most 32 levels deep.
    Map(BTreeMap<String, Value>),
}

/// The reserved key of a stored temporal value: the store has no temporal types, so the
/// Cypher engine stores one as the map `{"$hopdb.temporal": [type tag, text form]}` and the
/// exporter and clients read it back by this key.
pub const TEMPORAL_KEY: &str = "$hopdb.temporal";

/// The properties of a node or edge, ordered by name.
pub type Props = BTreeMap<String, Value>;

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::Str(s.to_owned())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::Str(s)
    }
}
impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Float(v)
    }
}
impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}

/// Builds a [`Props`] map from `(name, value)` pairs.
///
/// ```
/// use hopdb_core::{props, Value};
/// let p = props([("name", Value::from("Ada")), ("born", Value::Int(1815))]);
/// assert_eq!(p["born"], Value::Int(1815));
/// ```
pub fn props<K: Into<String>, I: IntoIterator<Item = (K, Value)>>(pairs: I) -> Props {
    pairs.into_iter().map(|(k, v)| (k.into(), v)).collect()
}

/// The unique user key of a node: a string or a 64-bit integer. `Int(7)` and `Str("7")` are
/// different nodes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NodeKey {
    /// An integer key; integer keys sort before string keys.
    Int(i64),
    /// A non-empty string key of at most [`MAX_KEY_BYTES`] bytes.
    Str(String),
}

impl fmt::Display for NodeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeKey::Int(i) => write!(f, "{i}"),
            NodeKey::Str(s) => write!(f, "{s:?}"),
        }
    }
}
impl From<&str> for NodeKey {
    fn from(s: &str) -> Self {
        NodeKey::Str(s.to_owned())
    }
}
impl From<String> for NodeKey {
    fn from(s: String) -> Self {
        NodeKey::Str(s)
    }
}
impl From<i64> for NodeKey {
    fn from(v: i64) -> Self {
        NodeKey::Int(v)
    }
}
impl From<&NodeKey> for NodeKey {
    fn from(k: &NodeKey) -> Self {
        k.clone()
    }
}

/// A [`NodeKey`] borrowed: what a caller that reads keys from columns or text can hand over
/// without building one (the bulk loader's prefetch hints take it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyRef<'a> {
    /// `NodeKey::Int`.
    Int(i64),
    /// `NodeKey::Str`.
    Str(&'a str),
}

impl KeyRef<'_> {
    /// The memcomparable encoding (see [`NodeKey`]'s) as its tag byte and payload, without
    /// allocating.
    pub(crate) fn encoded_parts<R>(self, f: impl FnOnce(u8, &[u8]) -> R) -> R {
        match self {
            KeyRef::Int(i) => f(1, &((i as u64) ^ (1 << 63)).to_be_bytes()),
            KeyRef::Str(s) => f(2, s.as_bytes()),
        }
    }
}

impl From<KeyRef<'_>> for NodeKey {
    fn from(k: KeyRef<'_>) -> NodeKey {
        match k {
            KeyRef::Int(i) => NodeKey::Int(i),
            KeyRef::Str(s) => NodeKey::Str(s.to_owned()),
        }
    }
}

impl NodeKey {
    /// Checks the key against the documented limits.
    pub fn validate(&self) -> Result<()> {
        if let NodeKey::Str(s) = self {
            if s.is_empty() {
                return Err(Error::invalid("node key", "the empty string is not a key"));
            }
            if s.len() > MAX_KEY_BYTES {
                return Err(Error::TooLarge {
                    what: "node key",
                    len: s.len(),
                    max: MAX_KEY_BYTES,
                });
            }
        }
        Ok(())
    }

    /// Memcomparable encoding: integers (sign-flipped big-endian) sort before strings, each in
    /// natural order.
    pub(crate) fn encode_into(&self, out: &mut Vec<u8>) {
        self.encoded_parts(|tag, payload| {
            out.push(tag);
            out.extend_from_slice(payload);
        })
    }

    /// The encoding as its tag byte and payload, without allocating (`encode` is the two
    /// concatenated).
    pub(crate) fn encoded_parts<R>(&self, f: impl FnOnce(u8, &[u8]) -> R) -> R {
        self.borrowed().encoded_parts(f)
    }

    /// The key borrowed.
    pub fn borrowed(&self) -> KeyRef<'_> {
        match self {
            NodeKey::Int(i) => KeyRef::Int(*i),
            NodeKey::Str(s) => KeyRef::Str(s),
        }
    }

    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(9);
        self.encode_into(&mut v);
        v
    }

    pub(crate) fn decode(b: &[u8]) -> Result<NodeKey> {
        match b.split_first() {
            Some((1, rest)) if rest.len() == 8 => {
                let mut a = [0u8; 8];
                a.copy_from_slice(rest);
                Ok(NodeKey::Int((u64::from_be_bytes(a) ^ (1 << 63)) as i64))
            }
            Some((2, rest)) => std::str::from_utf8(rest)
                .map(|s| NodeKey::Str(s.to_owned()))
                .map_err(|_| decode_err("node key is not UTF-8")),
            _ => Err(decode_err("bad node key encoding")),
        }
    }
}

/// `v` written as a Cypher literal, for messages: `null`, `true`, `42`, `1.5`, `"text"`,
/// `[1, 2]`, `{a: 1}` (bytes as `bytes(3)`, long strings and lists shortened).
pub(crate) fn literal(v: &Value) -> String {
    fn go(out: &mut String, v: &Value) {
        use std::fmt::Write;
        match v {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Value::Float(f) => {
                let _ = write!(out, "{f:?}");
            }
            Value::Str(s) if s.chars().count() > 80 => {
                let head: String = s.chars().take(80).collect();
                let _ = write!(out, "{head:?}...");
            }
            Value::Str(s) => {
                let _ = write!(out, "{s:?}");
            }
            Value::Bytes(b) => {
                let _ = write!(out, "bytes({})", b.len());
            }
            Value::List(l) => {
                out.push('[');
                for (i, x) in l.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    if i == 16 {
                        out.push_str("...");
                        break;
                    }
                    go(out, x);
                }
                out.push(']');
            }
            Value::Map(m) => {
                out.push('{');
                for (i, (k, x)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(out, "{k}: ");
                    go(out, x);
                }
                out.push('}');
            }
        }
    }
    let mut out = String::new();
    go(&mut out, v);
    out
}

pub(crate) fn validate_name(what: &'static str, name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::invalid(what, "must not be empty"));
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(Error::TooLarge {
            what,
            len: name.len(),
            max: MAX_NAME_BYTES,
        });
    }
    Ok(())
}

pub(crate) fn decode_err(msg: &str) -> Error {
    Error::malformed(msg, "decoding a stored record")
}

// ---- varints ----

pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A cursor over an encoded record.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Reader { buf }
    }
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
    pub(crate) fn varint(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let (&b, rest) = self.buf.split_first().ok_or_else(|| decode_err("truncated varint"))?;
            self.buf = rest;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(decode_err("varint too long"))
    }
    pub(crate) fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.buf.len() < n {
            return Err(decode_err("truncated record"));
        }
        let (a, b) = self.buf.split_at(n);
        self.buf = b;
        Ok(a)
    }
    pub(crate) fn u8(&mut self) -> Result<u8> {
        Ok(self.bytes(1)?[0])
    }
    pub(crate) fn f64(&mut self) -> Result<f64> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.bytes(8)?);
        Ok(f64::from_le_bytes(a))
    }
    /// What is left to read.
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.buf
    }
    pub(crate) fn len_prefixed(&mut self) -> Result<&'a [u8]> {
        let n = self.varint()? as usize;
        self.bytes(n)
    }
    pub(crate) fn string(&mut self) -> Result<String> {
        let b = self.len_prefixed()?;
        std::str::from_utf8(b)
            .map(str::to_owned)
            .map_err(|_| decode_err("string is not UTF-8"))
    }
}

pub(crate) fn put_len_prefixed(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

// ---- values ----

pub(crate) const T_NULL: u8 = 0;
pub(crate) const T_FALSE: u8 = 1;
pub(crate) const T_TRUE: u8 = 2;
pub(crate) const T_INT: u8 = 3;
pub(crate) const T_FLOAT: u8 = 4;
pub(crate) const T_STR: u8 = 5;
pub(crate) const T_BYTES: u8 = 6;
pub(crate) const T_LIST: u8 = 7;
pub(crate) const T_MAP: u8 = 8;

pub(crate) fn zigzag(i: i64) -> u64 {
    ((i << 1) ^ (i >> 63)) as u64
}
fn unzigzag(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}

/// Checks names, nesting depth and size limits of a property map.
pub(crate) fn validate_props(p: &Props) -> Result<()> {
    fn walk(v: &Value, depth: usize) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(Error::invalid(
                "property value",
                format!("nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        match v {
            Value::List(l) => l.iter().try_for_each(|x| walk(x, depth + 1)),
            Value::Map(m) => m.values().try_for_each(|x| walk(x, depth + 1)),
            _ => Ok(()),
        }
    }
    for (k, v) in p {
        validate_name("property name", k)?;
        walk(v, 1)?;
    }
    Ok(())
}

pub(crate) fn encode_props(out: &mut Vec<u8>, p: &Props) -> Result<()> {
    let start = out.len();
    put_varint(out, p.len() as u64);
    for (k, v) in p {
        put_len_prefixed(out, k.as_bytes());
        encode_value(out, v);
    }
    let len = out.len() - start;
    if len > MAX_PROPS_BYTES {
        return Err(Error::TooLarge {
            what: "encoded property map",
            len,
            max: MAX_PROPS_BYTES,
        });
    }
    Ok(())
}

pub(crate) fn encode_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.push(T_NULL),
        Value::Bool(false) => out.push(T_FALSE),
        Value::Bool(true) => out.push(T_TRUE),
        Value::Int(i) => {
            out.push(T_INT);
            put_varint(out, zigzag(*i));
        }
        Value::Float(f) => {
            out.push(T_FLOAT);
            out.extend_from_slice(&f.to_le_bytes());
        }
        Value::Str(s) => {
            out.push(T_STR);
            put_len_prefixed(out, s.as_bytes());
        }
        Value::Bytes(b) => {
            out.push(T_BYTES);
            put_len_prefixed(out, b);
        }
        Value::List(l) => {
            out.push(T_LIST);
            put_varint(out, l.len() as u64);
            l.iter().for_each(|x| encode_value(out, x));
        }
        Value::Map(m) => {
            out.push(T_MAP);
            put_varint(out, m.len() as u64);
            for (k, x) in m {
                put_len_prefixed(out, k.as_bytes());
                encode_value(out, x);
            }
        }
    }
}

pub(crate) fn decode_props(r: &mut Reader<'_>) -> Result<Props> {
    let n = r.varint()?;
    let mut p = Props::new();
    for _ in 0..n {
        let k = r.string()?;
        let v = decode_value(r, 1)?;
        p.insert(k, v);
    }
    Ok(p)
}

/// The value of property `name` in an encoded property map, decoding no other value. The
/// map's entries are in name order (it is encoded from a `BTreeMap`), so the walk stops at
/// the first greater name.
pub(crate) fn find_prop(encoded: &[u8], name: &str) -> Result<Option<Value>> {
    let mut r = Reader::new(encoded);
    for _ in 0..r.varint()? {
        let k = r.len_prefixed()?;
        match k.cmp(name.as_bytes()) {
            std::cmp::Ordering::Less => skip_value(&mut r, 1)?,
            std::cmp::Ordering::Equal => return decode_value(&mut r, 1).map(Some),
            std::cmp::Ordering::Greater => return Ok(None),
        }
    }
    Ok(None)
}

/// Steps over one encoded value without building it.
fn skip_value(r: &mut Reader<'_>, depth: usize) -> Result<()> {
    if depth > MAX_DEPTH + 1 {
        return Err(decode_err("value nested too deeply"));
    }
    match r.u8()? {
        T_NULL | T_FALSE | T_TRUE => {}
        T_INT => {
            r.varint()?;
        }
        T_FLOAT => {
            r.bytes(8)?;
        }
        T_STR | T_BYTES => {
            r.len_prefixed()?;
        }
        T_LIST => {
            for _ in 0..r.varint()? {
                skip_value(r, depth + 1)?;
            }
        }
        T_MAP => {
            for _ in 0..r.varint()? {
                r.len_prefixed()?;
                skip_value(r, depth + 1)?;
            }
        }
        t => return Err(decode_err(&format!("unknown value tag {t}"))),
    }
    Ok(())
}

pub(crate) fn decode_value(r: &mut Reader<'_>, depth: usize) -> Result<Value> {
    if depth > MAX_DEPTH + 1 {
        return Err(decode_err("value nested too deeply"));
    }
    Ok(match r.u8()? {
        T_NULL => Value::Null,
        T_FALSE => Value::Bool(false),
        T_TRUE => Value::Bool(true),
        T_INT => Value::Int(unzigzag(r.varint()?)),
        T_FLOAT => Value::Float(r.f64()?),
        T_STR => Value::Str(r.string()?),
        T_BYTES => Value::Bytes(r.len_prefixed()?.to_vec()),
        T_LIST => {
            let n = r.varint()?;
            let mut l = Vec::with_capacity(n.min(1024) as usize);
            for _ in 0..n {
                l.push(decode_value(r, depth + 1)?);
            }
            Value::List(l)
        }
        T_MAP => {
            let n = r.varint()?;
            let mut m = BTreeMap::new();
            for _ in 0..n {
                let k = r.string()?;
                m.insert(k, decode_value(r, depth + 1)?);
            }
            Value::Map(m)
        }
        t => return Err(decode_err(&format!("unknown value tag {t}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arb_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::Int),
            any::<f64>()
                .prop_filter("NaN != NaN", |f| !f.is_nan())
                .prop_map(Value::Float),
            ".{0,20}".prop_map(Value::Str),
            proptest::collection::vec(any::<u8>(), 0..20).prop_map(Value::Bytes),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::List),
                proptest::collection::btree_map(".{1,8}", inner, 0..6).prop_map(Value::Map),
            ]
        })
    }

    proptest! {
        #[test]
        fn props_roundtrip(p in proptest::collection::btree_map(".{1,10}", arb_value(), 0..8)) {
            let mut buf = Vec::new();
            encode_props(&mut buf, &p).unwrap();
            let mut r = Reader::new(&buf);
            prop_assert_eq!(decode_props(&mut r).unwrap(), p);
            prop_assert!(r.is_empty());
        }

        #[test]
        fn one_property_reads_as_the_whole_map(
            p in proptest::collection::btree_map(".{1,10}", arb_value(), 0..8),
            probes in proptest::collection::vec(".{1,10}", 0..6),
        ) {
            let mut buf = Vec::new();
            encode_props(&mut buf, &p).unwrap();
            for name in p.keys().chain(probes.iter()) {
                let got = find_prop(&buf, name).unwrap();
                prop_assert_eq!(got.as_ref(), p.get(name), "{}", name);
            }
        }

        #[test]
        fn key_encoding_is_memcomparable(a in any::<i64>(), b in any::<i64>(), s in ".{1,10}", t in ".{1,10}") {
            let (ka, kb) = (NodeKey::Int(a), NodeKey::Int(b));
            prop_assert_eq!(ka.encode().cmp(&kb.encode()), a.cmp(&b));
            let (ks, kt) = (NodeKey::Str(s.clone()), NodeKey::Str(t.clone()));
            prop_assert_eq!(ks.encode().cmp(&kt.encode()), s.as_bytes().cmp(t.as_bytes()));
            prop_assert!(ka.encode() < ks.encode());
            prop_assert_eq!(NodeKey::decode(&ka.encode()).unwrap(), ka);
            prop_assert_eq!(NodeKey::decode(&ks.encode()).unwrap(), ks);
        }

        #[test]
        fn decoding_garbage_never_panics(b in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = decode_props(&mut Reader::new(&b));
            let _ = find_prop(&b, "a");
            let _ = NodeKey::decode(&b);
        }
    }

    #[test]
    fn limits_are_enforced() {
        assert!(NodeKey::Str(String::new()).validate().is_err());
        assert!(NodeKey::Str("x".repeat(MAX_KEY_BYTES + 1)).validate().is_err());
        assert!(NodeKey::Str("x".repeat(MAX_KEY_BYTES)).validate().is_ok());
        let mut deep = Value::Null;
        for _ in 0..MAX_DEPTH + 1 {
            deep = Value::List(vec![deep]);
        }
        assert!(validate_props(&props([("d", deep)])).is_err());
        let big = props([("b", Value::Bytes(vec![0; MAX_PROPS_BYTES]))]);
        assert!(matches!(
            encode_props(&mut Vec::new(), &big),
            Err(Error::TooLarge { .. })
        ));
    }
}
