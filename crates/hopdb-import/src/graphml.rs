//! GraphML, as LightRAG writes its knowledge graph (`graph_chunk_entity_relation.graphml`,
//! through NetworkX), gzip or not. Streamed with a pull parser: no DOM, bounded memory.
//!
//! - `<key id for attr.name attr.type>` declarations (with an optional `<default>`) type the
//!   `<data key>` values: `string` -> `Str`, `int`/`long` -> `Int`, `float`/`double` ->
//!   `Float`, `boolean` -> `Bool` (other types are read as strings). Every data value becomes a
//!   property named by its key's `attr.name`.
//! - `<node id>`: the key is the id string ([`NodeKey::Str`]). The node's label is its
//!   `entity_type` (LightRAG), with the surrounding quotes of older LightRAG versions removed,
//!   when that is a plausible type name: 1 to 64 bytes, none of `"<>|` nor control characters
//!   (LLM parser leftovers such as `geo"<>"A small market town…` get no label). A `labels`
//!   attribute (`:A:B`, as Neo4j's GraphML export writes) adds labels. `entity_type` stays a
//!   property either way.
//! - `<edge source target>`: an edge of type [`EDGE_TYPE`] (`RELATED`). The type is undirected
//!   when the file's `<graph edgedefault="undirected">` says so (LightRAG's graphs all do; a
//!   missing `edgedefault` means directed), unless the import's type options say otherwise;
//!   the first GraphML file decides. A `weight` data value that is a finite number is the edge
//!   weight *and* stays the `weight` property (LightRAG reads it as a property). The type is
//!   simple: a repeated pair merges into one edge, later values winning.
//!
//! Nodes are read in the import's node phase and edges in its edge phase: the file is read
//! twice, so edges may name nodes declared anywhere in it. Lines in errors are the lines of the
//! element's start tag in the (decompressed) file.

use crate::bad::BadKind;
use crate::error::{ImportError, Result};
use crate::neo4j::RowCtx;
use crate::Run;
use hopdb_core::{EdgeTypeOptions, Error as StoreError, NodeKey, Props, Value};
use quick_xml::events::{BytesStart, Event};
use std::collections::HashMap;
use std::io::{BufRead, Read};
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// The edge type GraphML edges load into.
pub const EDGE_TYPE: &str = "RELATED";

/// Counts the newlines the XML reader has consumed, for line numbers in errors.
struct Lines<R> {
    inner: R,
    lines: u64,
}

impl<R: BufRead> Read for Lines<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Lines<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        if let Ok(b) = self.inner.fill_buf() {
            let n = amt.min(b.len());
            self.lines += b[..n].iter().filter(|&&c| c == b'\n').count() as u64;
        }
        self.inner.consume(amt);
    }
}

type XmlReader = quick_xml::Reader<Lines<Box<dyn BufRead + Send>>>;

fn open(path: &Path, bytes: Arc<AtomicU64>) -> Result<XmlReader> {
    let r = crate::input::open(path, bytes)?;
    let mut x = quick_xml::Reader::from_reader(Lines { inner: r, lines: 0 });
    x.config_mut().expand_empty_elements = false;
    Ok(x)
}

fn line(x: &XmlReader) -> u64 {
    x.get_ref().lines + 1
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AttrType {
    Str,
    Int,
    Float,
    Bool,
}

#[derive(Debug, Clone)]
struct KeyDecl {
    name: String,
    ty: AttrType,
    /// `node`, `edge` or `all` (others are not applied to nodes and edges).
    domain: String,
    default: Option<String>,
}

fn attr_type(s: &str) -> AttrType {
    match s.to_ascii_lowercase().as_str() {
        "int" | "long" | "integer" => AttrType::Int,
        "float" | "double" => AttrType::Float,
        "boolean" | "bool" => AttrType::Bool,
        _ => AttrType::Str,
    }
}

fn typed(ty: AttrType, s: &str) -> std::result::Result<Value, String> {
    match ty {
        AttrType::Str => Ok(Value::Str(s.to_string())),
        AttrType::Int => s
            .trim()
            .parse::<i64>()
            .map(Value::Int)
            .map_err(|_| format!("'{s}' is not an integer")),
        AttrType::Float => s
            .trim()
            .parse::<f64>()
            .map(Value::Float)
            .map_err(|_| format!("'{s}' is not a number")),
        AttrType::Bool => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "1" => Ok(Value::Bool(true)),
            "false" | "0" => Ok(Value::Bool(false)),
            _ => Err(format!("'{s}' is not a boolean")),
        },
    }
}

/// The label LightRAG's `entity_type` gives, if it is a plausible type name.
pub fn entity_label(entity_type: &str) -> Option<&str> {
    let t = entity_type.trim();
    let t = t
        .strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(t)
        .trim();
    let ok = !t.is_empty() && t.len() <= 64 && !t.chars().any(|c| matches!(c, '"' | '<' | '>' | '|') || c.is_control());
    ok.then_some(t)
}

fn attr(x: &XmlReader, e: &BytesStart, name: &[u8]) -> std::result::Result<Option<String>, String> {
    match e.try_get_attribute(name) {
        Ok(Some(a)) => a
            .decode_and_unescape_value(x.decoder())
            .map(|v| Some(v.into_owned()))
            .map_err(|err| format!("bad attribute value: {err}")),
        Ok(None) => Ok(None),
        Err(err) => Err(format!("bad attribute: {err}")),
    }
}

/// The options of the edge type a GraphML file's edges get: undirected when its
/// `<graph edgedefault="undirected">` says so. Reads only up to the `<graph>` tag.
pub fn type_options(path: &Path) -> Result<EdgeTypeOptions> {
    let mut x = open(path, Default::default())?;
    let mut buf = Vec::new();
    loop {
        let ev = x.read_event_into(&mut buf).map_err(|e| xml_err(path, &x, e))?;
        match ev {
            Event::Start(e) | Event::Empty(e) if e.local_name().as_ref() == b"graph" => {
                let d = attr(&x, &e, b"edgedefault").map_err(|r| bad(path, line(&x), r))?;
                return Ok(EdgeTypeOptions {
                    undirected: d.as_deref() == Some("undirected"),
                    multi: false,
                });
            }
            Event::Eof => return Ok(EdgeTypeOptions::default()),
            _ => {}
        }
        buf.clear();
    }
}

fn bad(path: &Path, line: u64, reason: String) -> ImportError {
    ImportError::Bad {
        file: path.to_owned(),
        line,
        column: None,
        reason,
    }
}

fn xml_err(path: &Path, x: &XmlReader, e: quick_xml::Error) -> ImportError {
    bad(path, line(x), format!("malformed XML: {e}"))
}

/// The element being read.
enum Item {
    Node {
        key: Option<NodeKey>,
        labels: Vec<String>,
        line: u64,
    },
    Edge {
        src: Option<String>,
        dst: Option<String>,
        line: u64,
    },
}

/// One GraphML pass: the nodes (`nodes`) or the edges of `path`.
pub(crate) fn read(run: &mut Run, path: &Path, nodes: bool) -> Result<()> {
    // Progress counts the edge pass (the second read of the file) only.
    let counter = if nodes {
        Arc::new(AtomicU64::new(0))
    } else {
        run.bytes.clone()
    };
    let mut x = open(path, counter)?;
    let mut keys: HashMap<String, KeyDecl> = HashMap::new();
    let mut buf = Vec::new();
    let mut item: Option<Item> = None;
    let mut props = Props::new();
    // The key of the `<data>` (or `<default>`) whose text is being read, and the text.
    let mut data: Option<String> = None;
    let mut in_default: Option<String> = None;
    let mut text = String::new();
    let mut skip_bad: Option<u64> = None;
    loop {
        let ev = match x.read_event_into(&mut buf) {
            Ok(ev) => ev,
            Err(e) => {
                let l = line(&x);
                // The parser cannot resynchronise: the file ends here.
                run.bad
                    .bad(BadKind::Malformed, path, l, None, format!("malformed XML: {e}"))?;
                break;
            }
        };
        let l = line(&x);
        match ev {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(ev, Event::Empty(_));
                let name = e.local_name();
                match name.as_ref() {
                    b"key" => {
                        let get = |k: &[u8]| attr(&x, e, k).map_err(|r| bad(path, l, r));
                        let id = get(b"id")?.ok_or_else(|| bad(path, l, "a <key> without an id".into()))?;
                        let decl = KeyDecl {
                            name: get(b"attr.name")?.unwrap_or_else(|| id.clone()),
                            ty: attr_type(get(b"attr.type")?.as_deref().unwrap_or("string")),
                            domain: get(b"for")?.unwrap_or_else(|| "all".into()),
                            default: None,
                        };
                        if !empty {
                            in_default = Some(id.clone());
                        }
                        keys.insert(id, decl);
                    }
                    b"default" => text.clear(),
                    b"node" if nodes => {
                        props.clear();
                        let mut labels = Vec::new();
                        let key = match attr(&x, e, b"id") {
                            Ok(Some(id)) if !id.is_empty() => Some(NodeKey::Str(id)),
                            Ok(_) => {
                                RowCtx { file: path, line: l }.malformed(
                                    &mut run.bad,
                                    Some("id"),
                                    "a <node> without an id".into(),
                                )?;
                                None
                            }
                            Err(r) => {
                                RowCtx { file: path, line: l }.malformed(&mut run.bad, Some("id"), r)?;
                                None
                            }
                        };
                        if let Ok(Some(ls)) = attr(&x, e, b"labels") {
                            labels.extend(ls.split(':').filter(|s| !s.is_empty()).map(str::to_string));
                        }
                        item = Some(Item::Node { key, labels, line: l });
                        if empty {
                            finish(run, path, &keys, item.take(), &mut props, &mut skip_bad)?;
                        }
                    }
                    b"edge" if !nodes => {
                        props.clear();
                        let (src, dst) = (attr(&x, e, b"source"), attr(&x, e, b"target"));
                        let (src, dst) = match (src, dst) {
                            (Ok(s), Ok(d)) => (s, d),
                            (Err(r), _) | (_, Err(r)) => {
                                RowCtx { file: path, line: l }.malformed(&mut run.bad, None, r)?;
                                (None, None)
                            }
                        };
                        item = Some(Item::Edge { src, dst, line: l });
                        if empty {
                            finish(run, path, &keys, item.take(), &mut props, &mut skip_bad)?;
                        }
                    }
                    b"data" if item.is_some() => {
                        let k = attr(&x, e, b"key").map_err(|r| bad(path, l, r))?.unwrap_or_default();
                        if empty {
                            if let Err(r) = add_data(&keys, &k, "", &mut props) {
                                skip_bad = Some(l);
                                RowCtx { file: path, line: l }.malformed(
                                    &mut run.bad,
                                    Some(&key_name(&keys, &k)),
                                    r,
                                )?;
                            }
                        } else {
                            data = Some(k);
                            text.clear();
                        }
                    }
                    _ => {}
                }
            }
            Event::Text(t) if data.is_some() || in_default.is_some() => {
                let s = t.xml10_content().map_err(|e| bad(path, l, format!("bad text: {e}")))?;
                text.push_str(&s);
            }
            Event::CData(t) if data.is_some() || in_default.is_some() => {
                let s = t.decode().map_err(|e| bad(path, l, format!("bad CDATA: {e}")))?;
                text.push_str(&s);
            }
            Event::GeneralRef(r) if data.is_some() || in_default.is_some() => match r.resolve_char_ref() {
                Ok(Some(c)) => text.push(c),
                Ok(None) => {
                    let name = r.decode().map_err(|e| bad(path, l, format!("bad reference: {e}")))?;
                    match quick_xml::escape::resolve_xml_entity(&name) {
                        Some(s) => text.push_str(s),
                        None => return Err(bad(path, l, format!("unknown entity &{name};"))),
                    }
                }
                Err(e) => return Err(bad(path, l, format!("bad character reference: {e}"))),
            },
            Event::End(e) => match e.local_name().as_ref() {
                b"default" => {
                    if let Some(k) = in_default.as_ref().and_then(|id| keys.get_mut(id)) {
                        k.default = Some(std::mem::take(&mut text));
                    }
                }
                b"key" => in_default = None,
                b"data" => {
                    if let Some(k) = data.take() {
                        if let Err(r) = add_data(&keys, &k, &text, &mut props) {
                            skip_bad = Some(l);
                            RowCtx { file: path, line: l }.malformed(&mut run.bad, Some(&key_name(&keys, &k)), r)?;
                        }
                    }
                }
                b"node" | b"edge" => {
                    finish(run, path, &keys, item.take(), &mut props, &mut skip_bad)?;
                    if run.load.rows().is_multiple_of(65_536) {
                        run.tick();
                    }
                }
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    run.tick();
    Ok(())
}

/// The property name of a data key (for errors).
fn key_name(keys: &HashMap<String, KeyDecl>, key: &str) -> String {
    keys.get(key).map_or_else(|| key.to_string(), |k| k.name.clone())
}

/// Adds one `<data>` value to `props`.
fn add_data(
    keys: &HashMap<String, KeyDecl>,
    key: &str,
    text: &str,
    props: &mut Props,
) -> std::result::Result<(), String> {
    let (name, ty) = match keys.get(key) {
        Some(k) => (k.name.clone(), k.ty),
        None => (key.to_string(), AttrType::Str),
    };
    if name.is_empty() {
        return Err("a <data> without a key".into());
    }
    props.insert(name, typed(ty, text)?);
    Ok(())
}

/// Loads the node or edge just read (unless one of its values was bad and skipped).
fn finish(
    run: &mut Run,
    path: &Path,
    keys: &HashMap<String, KeyDecl>,
    item: Option<Item>,
    props: &mut Props,
    skip_bad: &mut Option<u64>,
) -> Result<()> {
    let mut props = std::mem::take(props);
    let skipped = skip_bad.take().is_some();
    let Some(item) = item else { return Ok(()) };
    if skipped {
        return Ok(());
    }
    let domain = if matches!(item, Item::Node { .. }) {
        "node"
    } else {
        "edge"
    };
    for k in keys.values() {
        if let (Some(d), true) = (&k.default, k.domain == domain || k.domain == "all") {
            if !props.contains_key(&k.name) {
                if let Ok(v) = typed(k.ty, d) {
                    props.insert(k.name.clone(), v);
                }
            }
        }
    }
    match item {
        Item::Node { key, mut labels, line } => {
            let Some(key) = key else { return Ok(()) };
            if let Some(Value::Str(t)) = props.get("entity_type") {
                if let Some(l) = entity_label(t) {
                    labels.push(l.to_string());
                }
            }
            let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
            match run.load.add_node(key, &labels, props) {
                Ok(()) => Ok(()),
                Err(StoreError::DuplicateNode { key }) => run.bad.bad(
                    BadKind::DuplicateNode,
                    path,
                    line,
                    Some("id".into()),
                    format!("node id {key} is defined twice"),
                ),
                Err(e) => RowCtx { file: path, line }.malformed(&mut run.bad, None, e.to_string()),
            }
        }
        Item::Edge { src, dst, line } => {
            let ctx = RowCtx { file: path, line };
            let (Some(src), Some(dst)) = (src, dst) else {
                return run.bad.bad(
                    BadKind::BadRelationship,
                    path,
                    line,
                    None,
                    "an <edge> without source or target".into(),
                );
            };
            if src.is_empty() || dst.is_empty() {
                return run
                    .bad
                    .bad(BadKind::BadRelationship, path, line, None, "an empty node id".into());
            }
            let weight = match props.get("weight") {
                Some(Value::Float(w)) if w.is_finite() => Some(*w),
                Some(Value::Int(w)) => Some(*w as f64),
                Some(Value::Str(s)) => s.trim().parse::<f64>().ok().filter(|w| w.is_finite()),
                _ => None,
            };
            match run
                .load
                .add_edge(NodeKey::Str(src), EDGE_TYPE, NodeKey::Str(dst), weight, props)
            {
                Ok(()) => Ok(()),
                Err(StoreError::NodeNotFound { key }) => run.bad.bad(
                    BadKind::BadRelationship,
                    path,
                    line,
                    None,
                    format!("edge to node id {key}, which the file does not declare"),
                ),
                Err(e) => ctx.malformed(&mut run.bad, None, e.to_string()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_from_entity_types() {
        assert_eq!(entity_label("person"), Some("person"));
        assert_eq!(entity_label("\"ORGANIZATION\""), Some("ORGANIZATION"));
        assert_eq!(entity_label("geo\"<>\"A small market town"), None);
        assert_eq!(entity_label("  "), None);
        assert_eq!(entity_label(&"x".repeat(65)), None);
    }

    #[test]
    fn typed_values() {
        assert_eq!(typed(AttrType::Int, " 17").unwrap(), Value::Int(17));
        assert_eq!(typed(AttrType::Float, "2.5").unwrap(), Value::Float(2.5));
        assert_eq!(typed(AttrType::Bool, "True").unwrap(), Value::Bool(true));
        assert!(typed(AttrType::Int, "x").is_err());
        assert_eq!(attr_type("long"), AttrType::Int);
        assert_eq!(attr_type("double"), AttrType::Float);
    }
}
