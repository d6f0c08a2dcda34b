//! PackStream v1 encoder and decoder.
//!
//! The decoder never panics and never allocates more than the input can back: every declared
//! size is checked against the caller's [`DecodeLimits`] and against the bytes actually left
//! before anything is reserved, and nesting is bounded by [`DecodeLimits::max_depth`].
//!
//! The [`Encoder`] writes the smallest form of every integer and size. Built with a
//! [`StructFormat`] ([`Encoder::new`]) it also converts graph and temporal structures from their
//! canonical (Bolt 5.x) form to the form of the negotiated version; [`encode`] and
//! [`to_bytes`] write structures verbatim.

use std::collections::HashMap;

use crate::error::{DecodeError, EncodeError};
use crate::structs::{tag, StructFormat};
use crate::value::{Map, Value};

/// Default maximum nesting depth of lists, dictionaries and structures.
pub const DEFAULT_MAX_DEPTH: usize = 512;
/// Default maximum declared size: bytes of a string or byte array, items of a list, entries of
/// a dictionary (64 MiB).
pub const DEFAULT_MAX_SIZE: usize = 64 * 1024 * 1024;
/// The largest size PackStream permits for any sized value (2,147,483,647).
pub const MAX_PACKSTREAM_SIZE: usize = i32::MAX as usize;

/// Limits the decoder enforces on untrusted input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeLimits {
    /// Maximum number of nested lists, dictionaries and structures.
    pub max_depth: usize,
    /// Maximum declared size of a string or byte array (bytes), list (items) or dictionary
    /// (entries).
    pub max_size: usize,
}

impl Default for DecodeLimits {
    fn default() -> Self {
        Self {
            max_depth: DEFAULT_MAX_DEPTH,
            max_size: DEFAULT_MAX_SIZE,
        }
    }
}

mod marker {
    pub const NULL: u8 = 0xC0;
    pub const FLOAT: u8 = 0xC1;
    pub const FALSE: u8 = 0xC2;
    pub const TRUE: u8 = 0xC3;
    pub const INT_8: u8 = 0xC8;
    pub const INT_16: u8 = 0xC9;
    pub const INT_32: u8 = 0xCA;
    pub const INT_64: u8 = 0xCB;
    pub const BYTES_8: u8 = 0xCC;
    pub const BYTES_16: u8 = 0xCD;
    pub const BYTES_32: u8 = 0xCE;
    pub const STRING_8: u8 = 0xD0;
    pub const STRING_16: u8 = 0xD1;
    pub const STRING_32: u8 = 0xD2;
    pub const LIST_8: u8 = 0xD4;
    pub const LIST_16: u8 = 0xD5;
    pub const LIST_32: u8 = 0xD6;
    pub const MAP_8: u8 = 0xD8;
    pub const MAP_16: u8 = 0xD9;
    pub const MAP_32: u8 = 0xDA;
    pub const TINY_STRING: u8 = 0x80;
    pub const TINY_LIST: u8 = 0x90;
    pub const TINY_MAP: u8 = 0xA0;
    pub const TINY_STRUCT: u8 = 0xB0;
}

/// Decodes exactly one value from `bytes` (trailing bytes are an error).
pub fn decode(bytes: &[u8], limits: &DecodeLimits) -> Result<Value, DecodeError> {
    let mut decoder = Decoder::new(bytes, *limits);
    let value = decoder.read_value()?;
    decoder.finish()?;
    Ok(value)
}

/// Encodes `value` as it is (structures verbatim) onto `out`. On error `out` may hold a
/// partial encoding.
pub fn encode(value: &Value, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    Encoder::default().encode(value, out)
}

/// Encodes `value` as it is (structures verbatim) into a new buffer.
pub fn to_bytes(value: &Value) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    encode(value, &mut out)?;
    Ok(out)
}

/// A cursor over PackStream bytes.
#[derive(Debug)]
pub struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
    limits: DecodeLimits,
    format: StructFormat,
}

impl<'a> Decoder<'a> {
    /// A decoder over `buf` that leaves structures as they are.
    pub fn new(buf: &'a [u8], limits: DecodeLimits) -> Self {
        Self {
            buf,
            pos: 0,
            limits,
            format: StructFormat::V5,
        }
    }

    /// Normalises incoming structures of the given wire format to their canonical form: with
    /// `utc_datetime` off, a legacy `DateTime` (0x46) becomes a UTC `DateTime` (0x49). (A legacy
    /// `DateTimeZoneId` cannot be converted without a time-zone database and is left as is.)
    pub fn with_format(mut self, format: StructFormat) -> Self {
        self.format = format;
        self
    }

    /// Offset of the next byte to read.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes left to read.
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    /// The next byte, without consuming it.
    pub fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    /// Errors with [`DecodeError::TrailingBytes`] unless every byte was read.
    pub fn finish(&self) -> Result<(), DecodeError> {
        match self.remaining() {
            0 => Ok(()),
            count => Err(DecodeError::TrailingBytes {
                offset: self.pos,
                count,
            }),
        }
    }

    /// Reads a structure header: returns `Ok(None)` (consuming nothing) if the next value is not
    /// a structure, else its field count and tag.
    pub fn read_struct_header(&mut self) -> Result<Option<(usize, u8)>, DecodeError> {
        match self.peek() {
            Some(m) if m & 0xF0 == marker::TINY_STRUCT => {
                let at = self.pos;
                self.pos += 1;
                let tag = self.take_u8("structure tag")?;
                if tag > 0x7F {
                    return Err(DecodeError::InvalidTag { tag, offset: at + 1 });
                }
                Ok(Some((usize::from(m & 0x0F), tag)))
            }
            _ => Ok(None),
        }
    }

    /// Reads one value at the top nesting level.
    pub fn read_value(&mut self) -> Result<Value, DecodeError> {
        self.read_at(0)
    }

    /// Reads one value that sits inside `depth` enclosing containers.
    pub fn read_value_at_depth(&mut self, depth: usize) -> Result<Value, DecodeError> {
        self.read_at(depth)
    }

    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], DecodeError> {
        let rem = self.remaining();
        if n > rem {
            return Err(DecodeError::UnexpectedEnd {
                what,
                offset: self.pos,
                needed: n - rem,
            });
        }
        let slice = self.buf.get(self.pos..self.pos + n).unwrap_or(&[]);
        self.pos += n;
        Ok(slice)
    }

    fn take_array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], DecodeError> {
        let mut arr = [0u8; N];
        arr.copy_from_slice(self.take(N, what)?);
        Ok(arr)
    }

    fn take_u8(&mut self, what: &'static str) -> Result<u8, DecodeError> {
        Ok(self.take_array::<1>(what)?[0])
    }

    /// Reads the size that follows a sized marker and checks it against the limits.
    fn read_size(&mut self, width: u8, what: &'static str, marker_at: usize) -> Result<usize, DecodeError> {
        let declared: u64 = match width {
            1 => u64::from(self.take_u8(what)?),
            2 => u64::from(u16::from_be_bytes(self.take_array(what)?)),
            _ => u64::from(u32::from_be_bytes(self.take_array(what)?)),
        };
        let limit = self.limits.max_size.min(MAX_PACKSTREAM_SIZE) as u64;
        if declared > limit {
            return Err(DecodeError::SizeLimit {
                what,
                declared,
                limit,
                offset: marker_at,
            });
        }
        // Bounded by `limit`, which is a usize.
        Ok(usize::try_from(declared).unwrap_or(usize::MAX))
    }

    fn check_size(&self, size: usize, what: &'static str, at: usize) -> Result<(), DecodeError> {
        let limit = self.limits.max_size.min(MAX_PACKSTREAM_SIZE);
        if size > limit {
            return Err(DecodeError::SizeLimit {
                what,
                declared: size as u64,
                limit: limit as u64,
                offset: at,
            });
        }
        Ok(())
    }

    /// Reads one value without recursion: containers under construction live on an explicit
    /// stack, so hostile nesting can exhaust neither the thread's stack nor the depth limit's
    /// promise.
    fn read_at(&mut self, base_depth: usize) -> Result<Value, DecodeError> {
        let mut stack: Vec<Frame> = Vec::new();
        loop {
            let at = self.pos;
            if let Some(Frame {
                kind: FrameKind::Map { key: None, .. },
                ..
            }) = stack.last()
            {
                match self.peek() {
                    Some(m) if is_string_marker(m) => {}
                    Some(m) => return Err(DecodeError::NonStringKey { marker: m, offset: at }),
                    None => {}
                }
            }
            let mut value = match self.read_item()? {
                Item::Value(v) => v,
                Item::Open(kind, len) => {
                    if base_depth + stack.len() >= self.limits.max_depth {
                        return Err(DecodeError::DepthLimit {
                            limit: self.limits.max_depth,
                            offset: at,
                        });
                    }
                    let frame = Frame { kind, left: len };
                    if len > 0 {
                        stack.push(frame);
                        continue;
                    }
                    self.close(frame.kind)
                }
            };
            // Hand the finished value to its container, closing containers as they fill.
            loop {
                let Some(top) = stack.last_mut() else {
                    return Ok(value);
                };
                match &mut top.kind {
                    FrameKind::List(items) => items.push(value),
                    FrameKind::Struct(_, fields) => fields.push(value),
                    FrameKind::Map { entries, index, key } => match key.take() {
                        None => {
                            // Checked above: the key is a string.
                            if let Value::String(k) = value {
                                *key = Some(k);
                            }
                            break;
                        }
                        Some(k) => insert_entry(entries, index, k, value),
                    },
                }
                top.left -= 1;
                if top.left > 0 {
                    break;
                }
                let Some(done) = stack.pop() else {
                    break;
                };
                value = self.close(done.kind);
            }
        }
    }

    /// A finished container as a value.
    fn close(&self, kind: FrameKind) -> Value {
        match kind {
            FrameKind::List(items) => Value::List(items),
            FrameKind::Map { entries, .. } => Value::Map(entries),
            FrameKind::Struct(t, fields) => self.normalise(t, fields),
        }
    }

    /// Reads a scalar, or the header of a container.
    fn read_item(&mut self) -> Result<Item, DecodeError> {
        let at = self.pos;
        let m = self.take_u8("marker")?;
        let v = match m {
            0x00..=0x7F => Value::Integer(i64::from(m)),
            0xF0..=0xFF => Value::Integer(i64::from(m as i8)),
            marker::NULL => Value::Null,
            marker::FALSE => Value::Boolean(false),
            marker::TRUE => Value::Boolean(true),
            marker::FLOAT => Value::Float(f64::from_be_bytes(self.take_array("Float")?)),
            marker::INT_8 => Value::Integer(i64::from(self.take_u8("INT_8")? as i8)),
            marker::INT_16 => Value::Integer(i64::from(i16::from_be_bytes(self.take_array("INT_16")?))),
            marker::INT_32 => Value::Integer(i64::from(i32::from_be_bytes(self.take_array("INT_32")?))),
            marker::INT_64 => Value::Integer(i64::from_be_bytes(self.take_array("INT_64")?)),
            marker::BYTES_8 | marker::BYTES_16 | marker::BYTES_32 => {
                let size = self.read_size(1 << (m - marker::BYTES_8), "bytes", at)?;
                Value::Bytes(self.take(size, "bytes")?.to_vec())
            }
            0x80..=0x8F => self.read_string(usize::from(m & 0x0F), at)?,
            marker::STRING_8 | marker::STRING_16 | marker::STRING_32 => {
                let size = self.read_size(1 << (m - marker::STRING_8), "string", at)?;
                self.read_string(size, at)?
            }
            0x90..=0x9F => return self.open_list(usize::from(m & 0x0F), at),
            marker::LIST_8 | marker::LIST_16 | marker::LIST_32 => {
                let size = self.read_size(1 << (m - marker::LIST_8), "list", at)?;
                return self.open_list(size, at);
            }
            0xA0..=0xAF => return self.open_map(usize::from(m & 0x0F), at),
            marker::MAP_8 | marker::MAP_16 | marker::MAP_32 => {
                let size = self.read_size(1 << (m - marker::MAP_8), "dictionary", at)?;
                return self.open_map(size, at);
            }
            0xB0..=0xBF => {
                let t = self.take_u8("structure tag")?;
                if t > 0x7F {
                    return Err(DecodeError::InvalidTag { tag: t, offset: at + 1 });
                }
                let n = usize::from(m & 0x0F);
                return Ok(Item::Open(FrameKind::Struct(t, Vec::with_capacity(n)), n));
            }
            _ => return Err(DecodeError::UnknownMarker { marker: m, offset: at }),
        };
        Ok(Item::Value(v))
    }

    fn read_string(&mut self, size: usize, at: usize) -> Result<Value, DecodeError> {
        self.check_size(size, "string", at)?;
        let bytes = self.take(size, "string")?;
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(Value::String(s.to_owned())),
            Err(_) => Err(DecodeError::InvalidUtf8 { offset: at }),
        }
    }

    fn open_list(&mut self, size: usize, at: usize) -> Result<Item, DecodeError> {
        self.check_size(size, "list", at)?;
        // Every item takes at least one byte: never reserve more than the input can hold.
        if size > self.remaining() {
            return Err(DecodeError::UnexpectedEnd {
                what: "list items",
                offset: self.pos,
                needed: size - self.remaining(),
            });
        }
        Ok(Item::Open(FrameKind::List(Vec::with_capacity(size)), size))
    }

    fn open_map(&mut self, size: usize, at: usize) -> Result<Item, DecodeError> {
        self.check_size(size, "dictionary", at)?;
        // Every entry takes at least two bytes (a key and a value).
        let needed = size.saturating_mul(2);
        if needed > self.remaining() {
            return Err(DecodeError::UnexpectedEnd {
                what: "dictionary entries",
                offset: self.pos,
                needed: needed - self.remaining(),
            });
        }
        Ok(Item::Open(
            FrameKind::Map {
                entries: Vec::with_capacity(size),
                // For large maps, an index keeps duplicate-key handling linear.
                index: (size > 16).then(HashMap::new),
                key: None,
            },
            size,
        ))
    }

    fn normalise(&self, t: u8, fields: Vec<Value>) -> Value {
        if !self.format.utc_datetime && t == tag::LEGACY_DATE_TIME {
            if let [Value::Integer(local), Value::Integer(ns), Value::Integer(off)] = fields[..] {
                return Value::Structure {
                    tag: tag::DATE_TIME,
                    fields: vec![
                        Value::Integer(local.saturating_sub(off)),
                        Value::Integer(ns),
                        Value::Integer(off),
                    ],
                };
            }
        }
        Value::Structure { tag: t, fields }
    }
}

/// What [`Decoder::read_item`] found.
enum Item {
    /// A complete scalar.
    Value(Value),
    /// The start of a container with this many elements to come.
    Open(FrameKind, usize),
}

/// A container being decoded.
struct Frame {
    kind: FrameKind,
    /// Items, entries or fields still to read.
    left: usize,
}

enum FrameKind {
    List(Vec<Value>),
    Map {
        entries: Map,
        index: Option<HashMap<String, usize>>,
        /// The key read, waiting for its value.
        key: Option<String>,
    },
    Struct(u8, Vec<Value>),
}

fn is_string_marker(m: u8) -> bool {
    matches!(
        m,
        0x80..=0x8F | marker::STRING_8 | marker::STRING_16 | marker::STRING_32
    )
}

/// Adds an entry; for a duplicate key the last value wins, at the first key's position.
fn insert_entry(entries: &mut Map, index: &mut Option<HashMap<String, usize>>, key: String, value: Value) {
    let existing = match index {
        Some(idx) => idx.get(&key).copied(),
        None => entries.iter().position(|(k, _)| *k == key),
    };
    match existing.and_then(|i| entries.get_mut(i)) {
        Some(entry) => entry.1 = value,
        None => {
            if let Some(idx) = index {
                idx.insert(key.clone(), entries.len());
            }
            entries.push((key, value));
        }
    }
}

/// Writes PackStream, optionally converting canonical graph and temporal structures to the
/// wire form of a negotiated version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Encoder {
    /// The wire form of version-dependent structures; `None` writes structures verbatim.
    pub format: Option<StructFormat>,
    /// Maximum nesting depth of the values written.
    pub max_depth: usize,
}

impl Default for Encoder {
    /// The verbatim encoder ([`Encoder::raw`]).
    fn default() -> Self {
        Self::raw()
    }
}

impl Encoder {
    /// An encoder converting structures to `format`, with the default depth limit.
    pub fn new(format: StructFormat) -> Self {
        Self {
            format: Some(format),
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }

    /// An encoder writing structures verbatim, with the default depth limit.
    pub fn raw() -> Self {
        Self {
            format: None,
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }

    /// Appends the encoding of `value` to `out`. On error `out` may hold a partial encoding.
    pub fn encode(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.write(value, out, 0)
    }

    /// The encoding of `value` in a new buffer.
    pub fn to_vec(&self, value: &Value) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::new();
        self.encode(value, &mut out)?;
        Ok(out)
    }

    /// Appends one value that sits inside `depth` enclosing containers.
    pub fn encode_at_depth(&self, value: &Value, out: &mut Vec<u8>, depth: usize) -> Result<(), EncodeError> {
        self.write(value, out, depth)
    }

    fn enter(&self, depth: usize) -> Result<(), EncodeError> {
        if depth >= self.max_depth {
            return Err(EncodeError::DepthLimit { limit: self.max_depth });
        }
        Ok(())
    }

    fn write(&self, value: &Value, out: &mut Vec<u8>, depth: usize) -> Result<(), EncodeError> {
        match value {
            Value::Null => out.push(marker::NULL),
            Value::Boolean(false) => out.push(marker::FALSE),
            Value::Boolean(true) => out.push(marker::TRUE),
            Value::Integer(i) => write_int(out, *i),
            Value::Float(f) => {
                out.push(marker::FLOAT);
                out.extend_from_slice(&f.to_be_bytes());
            }
            Value::Bytes(b) => {
                write_size(out, b.len(), None, marker::BYTES_8, "bytes")?;
                out.extend_from_slice(b);
            }
            Value::String(s) => write_string(out, s)?,
            Value::List(items) => {
                self.enter(depth)?;
                write_size(out, items.len(), Some(marker::TINY_LIST), marker::LIST_8, "list")?;
                for item in items {
                    self.write(item, out, depth + 1)?;
                }
            }
            Value::Map(entries) => {
                self.enter(depth)?;
                write_size(out, entries.len(), Some(marker::TINY_MAP), marker::MAP_8, "dictionary")?;
                for (k, v) in entries {
                    write_string(out, k)?;
                    self.write(v, out, depth + 1)?;
                }
            }
            Value::Structure { tag: t, fields } => {
                self.enter(depth)?;
                self.write_structure(*t, fields, out, depth)?;
            }
        }
        Ok(())
    }

    fn write_fields(
        &self,
        t: u8,
        fields: &[Value],
        extra: &[Value],
        out: &mut Vec<u8>,
        depth: usize,
    ) -> Result<(), EncodeError> {
        write_struct_header(out, t, fields.len() + extra.len())?;
        for f in fields.iter().chain(extra) {
            self.write(f, out, depth + 1)?;
        }
        Ok(())
    }

    fn write_structure(&self, t: u8, fields: &[Value], out: &mut Vec<u8>, depth: usize) -> Result<(), EncodeError> {
        let Some(fmt) = self.format else {
            return self.write_fields(t, fields, &[], out, depth);
        };
        let id_str = |v: &Value| match v {
            Value::Integer(i) => Some(Value::String(i.to_string())),
            _ => None,
        };
        match (t, fields) {
            // Graph entities: element ids exist from 5.0 on. Canonical values may omit them (the
            // numeric id then serves as element id) and 4.4 drops them.
            (tag::NODE, [id, _, _]) if fmt.element_ids => {
                if let Some(eid) = id_str(id) {
                    return self.write_fields(t, fields, &[eid], out, depth);
                }
            }
            (tag::NODE, [_, _, _, _]) if !fmt.element_ids => {
                return self.write_fields(t, fields.get(..3).unwrap_or(fields), &[], out, depth);
            }
            (tag::RELATIONSHIP, [id, start, end, _, _]) if fmt.element_ids => {
                if let (Some(e), Some(s), Some(n)) = (id_str(id), id_str(start), id_str(end)) {
                    return self.write_fields(t, fields, &[e, s, n], out, depth);
                }
            }
            (tag::RELATIONSHIP, [_, _, _, _, _, _, _, _]) if !fmt.element_ids => {
                return self.write_fields(t, fields.get(..5).unwrap_or(fields), &[], out, depth);
            }
            (tag::UNBOUND_RELATIONSHIP, [id, _, _]) if fmt.element_ids => {
                if let Some(eid) = id_str(id) {
                    return self.write_fields(t, fields, &[eid], out, depth);
                }
            }
            (tag::UNBOUND_RELATIONSHIP, [_, _, _, _]) if !fmt.element_ids => {
                return self.write_fields(t, fields.get(..3).unwrap_or(fields), &[], out, depth);
            }
            (tag::DATE_TIME, [Value::Integer(s), Value::Integer(ns), Value::Integer(off)]) if !fmt.utc_datetime => {
                let legacy = [
                    Value::Integer(s.saturating_add(*off)),
                    Value::Integer(*ns),
                    Value::Integer(*off),
                ];
                return self.write_fields(tag::LEGACY_DATE_TIME, &legacy, &[], out, depth);
            }
            (tag::DATE_TIME_ZONE_ID, [Value::Integer(_), Value::Integer(_), Value::String(_)]) if fmt.utc_datetime => {
                return self.write_fields(t, fields, &[], out, depth);
            }
            (tag::DATE_TIME_ZONE_ID, [Value::Integer(_), Value::Integer(_), Value::String(_), Value::Integer(_)])
                if fmt.utc_datetime =>
            {
                return self.write_fields(t, fields.get(..3).unwrap_or(fields), &[], out, depth);
            }
            (tag::DATE_TIME_ZONE_ID, [Value::Integer(s), Value::Integer(ns), Value::String(tz), rest @ ..])
                if !fmt.utc_datetime =>
            {
                return match rest {
                    [Value::Integer(off)] => {
                        let legacy = [
                            Value::Integer(s.saturating_add(*off)),
                            Value::Integer(*ns),
                            Value::String(tz.clone()),
                        ];
                        self.write_fields(tag::LEGACY_DATE_TIME_ZONE_ID, &legacy, &[], out, depth)
                    }
                    _ => Err(EncodeError::ZoneOffsetUnknown { tz_id: tz.clone() }),
                };
            }
            _ => {}
        }
        self.write_fields(t, fields, &[], out, depth)
    }
}

/// Writes a structure header (marker and tag) for `fields` fields.
pub fn write_struct_header(out: &mut Vec<u8>, t: u8, fields: usize) -> Result<(), EncodeError> {
    if t > 0x7F {
        return Err(EncodeError::InvalidTag { tag: t });
    }
    if fields > 15 {
        return Err(EncodeError::TooManyFields { tag: t, fields });
    }
    out.push(marker::TINY_STRUCT | fields as u8);
    out.push(t);
    Ok(())
}

/// Writes the marker and size of a list of `len` items.
pub fn write_list_header(out: &mut Vec<u8>, len: usize) -> Result<(), EncodeError> {
    write_size(out, len, Some(marker::TINY_LIST), marker::LIST_8, "list")
}

/// Writes the marker and size of a dictionary of `len` entries.
pub fn write_map_header(out: &mut Vec<u8>, len: usize) -> Result<(), EncodeError> {
    write_size(out, len, Some(marker::TINY_MAP), marker::MAP_8, "dictionary")
}

/// Writes an integer in its smallest form.
pub fn write_int(out: &mut Vec<u8>, i: i64) {
    if (-16..=127).contains(&i) {
        out.push(i as u8);
    } else if (-128..=-17).contains(&i) {
        out.push(marker::INT_8);
        out.push(i as i8 as u8);
    } else if let Ok(v) = i16::try_from(i) {
        out.push(marker::INT_16);
        out.extend_from_slice(&v.to_be_bytes());
    } else if let Ok(v) = i32::try_from(i) {
        out.push(marker::INT_32);
        out.extend_from_slice(&v.to_be_bytes());
    } else {
        out.push(marker::INT_64);
        out.extend_from_slice(&i.to_be_bytes());
    }
}

/// Writes a string in its smallest form.
pub fn write_string(out: &mut Vec<u8>, s: &str) -> Result<(), EncodeError> {
    write_size(out, s.len(), Some(marker::TINY_STRING), marker::STRING_8, "string")?;
    out.extend_from_slice(s.as_bytes());
    Ok(())
}

/// Writes the marker and size of a sized value: a tiny marker (`tiny | len`) below 16 when the
/// type has one, else `base`, `base + 1` or `base + 2` followed by an 8, 16 or 32-bit size.
fn write_size(
    out: &mut Vec<u8>,
    len: usize,
    tiny: Option<u8>,
    base: u8,
    what: &'static str,
) -> Result<(), EncodeError> {
    match (tiny, len) {
        (Some(t), 0..=15) => out.push(t | len as u8),
        (_, 0..=0xFF) => {
            out.push(base);
            out.push(len as u8);
        }
        (_, 0x100..=0xFFFF) => {
            out.push(base + 1);
            out.extend_from_slice(&(len as u16).to_be_bytes());
        }
        _ if len <= MAX_PACKSTREAM_SIZE => {
            out.push(base + 2);
            out.extend_from_slice(&(len as u32).to_be_bytes());
        }
        _ => return Err(EncodeError::TooLarge { what, size: len }),
    }
    Ok(())
}
