//! `hopdb export` in neo4j-admin CSV: `nodes.csv`, one `relationships-N.csv` per edge type,
//! and `manifest.json` (edge-type options, id type, counts, the neo4j-admin command line),
//! such that `import(export(g))` reproduces `g` (edge ids of parallel edges are renumbered)
//! and `neo4j-admin database import full` loads the same files.
//!
//! Every header is one neo4j-admin reads. Column types are chosen per property: `long`,
//! `double`, `boolean`, `string`, the temporal types, `point`, and their arrays (`long[]`,
//! `string[]`, `date[]`, ...) joined with an array delimiter that no exported string holds.
//! What Neo4j cannot store as a property (maps, nested or mixed lists, empty lists, bytes,
//! nulls, a property holding different kinds on different nodes) is written as JSON text in a
//! `string` column that the manifest lists under `json_columns`: Neo4j reads it as a string,
//! `hopdb import --from-export` as the value (bytes as `{"$bytes": base64}`). The node key is
//! the `_key:ID` column (Neo4j keeps it as the `_key` property, the name HopDB's Cypher gives
//! the key); an edge's weight is a `double` column the manifest names (`weight`, or
//! `_weight` when a property is called `weight`). Keys: `--id-type=integer` when all keys are
//! integers, `string` when all are strings, and JSON text (`12` or `"abc"`) when mixed. An
//! empty string is written `""` (neo4j-admin reads an unquoted empty field as no value).

use crate::error::{io, ImportError, Result};
use crate::neo4j::{point_text, to_json, CsvOptions, IdType, KEY_COLUMN};
use crate::{FileGroup, ImportSpec};
use hopdb_core::spatial::Point;
use hopdb_core::{Direction, EdgeTypeOptions, Graph, GraphRead, NodeKey, Props, Value, TEMPORAL_KEY};
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;

/// What an export wrote.
#[derive(Debug, Clone, Default)]
pub struct CsvExport {
    /// Node rows written.
    pub nodes: u64,
    /// Relationship rows written.
    pub edges: u64,
    /// Total size of the files in the output directory.
    pub bytes: u64,
}

/// Array delimiters tried in turn: the first that no exported list element or label holds.
const DELIMITERS: [char; 5] = [';', '|', '^', '~', '\u{1f}'];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Int,
    Float,
    Bool,
    Str,
    Temporal(&'static str),
    Point,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Int => "long",
            Kind::Float => "double",
            Kind::Bool => "boolean",
            Kind::Str => "string",
            Kind::Temporal(t) => t,
            Kind::Point => "point",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ColType {
    Scalar(Kind),
    List(Kind),
    Json,
}

/// A stored temporal value's (type, text).
fn temporal(v: &Value) -> Option<(&'static str, &str)> {
    let Value::Map(m) = v else { return None };
    if m.len() != 1 {
        return None;
    }
    let Some(Value::List(l)) = m.get(TEMPORAL_KEY) else {
        return None;
    };
    let [Value::Str(t), Value::Str(text)] = l.as_slice() else {
        return None;
    };
    let t = ["date", "localtime", "time", "localdatetime", "datetime", "duration"]
        .into_iter()
        .find(|k| k == t)?;
    Some((t, text))
}

fn kind_of(v: &Value) -> Option<Kind> {
    Some(match v {
        Value::Int(_) => Kind::Int,
        Value::Float(_) => Kind::Float,
        Value::Bool(_) => Kind::Bool,
        Value::Str(_) => Kind::Str,
        v if stored_point(v).is_some() => Kind::Point,
        v => Kind::Temporal(temporal(v)?.0),
    })
}

fn type_of(v: &Value) -> ColType {
    match v {
        // neo4j-admin cannot write an empty array, nor an empty array element.
        Value::List(l) if !l.is_empty() => {
            let kinds: Option<Vec<Kind>> = l
                .iter()
                .map(|x| match x {
                    Value::Str(s) if s.is_empty() => None,
                    x => kind_of(x),
                })
                .collect();
            match kinds {
                Some(k) if k.windows(2).all(|w| w[0] == w[1]) => ColType::List(k[0]),
                _ => ColType::Json,
            }
        }
        v => kind_of(v).map_or(ColType::Json, ColType::Scalar),
    }
}

/// Which of [`DELIMITERS`] a text holds, as bits.
fn delimiters_in(s: &str) -> u8 {
    DELIMITERS
        .iter()
        .enumerate()
        .filter(|(_, d)| s.contains(**d))
        .fold(0, |m, (i, _)| m | 1 << i)
}

fn has_line_break(s: &str) -> bool {
    s.contains(['\n', '\r'])
}

/// Column types by property name, merged over every value seen, with the delimiters their
/// list elements hold.
#[derive(Default)]
struct Columns(BTreeMap<String, (ColType, u8)>);

impl Columns {
    fn add(&mut self, props: &Props, multiline: &mut bool) {
        for (k, v) in props {
            let t = type_of(v);
            let mut used = 0;
            match v {
                Value::List(l) if matches!(t, ColType::List(Kind::Str)) => {
                    for x in l {
                        if let Value::Str(s) = x {
                            used |= delimiters_in(s);
                            *multiline |= has_line_break(s);
                        }
                    }
                }
                Value::Str(s) => *multiline |= has_line_break(s),
                _ => {}
            }
            *multiline |= has_line_break(k);
            let e = self.0.entry(k.clone()).or_insert((t, 0));
            if e.0 != t {
                e.0 = ColType::Json;
            }
            e.1 |= used;
        }
    }

    /// Delimiters any string list holds.
    fn used(&self) -> u8 {
        self.0.values().fold(0, |m, (_, u)| m | u)
    }

    /// String lists that hold the chosen delimiter (only when every candidate is taken)
    /// become JSON.
    fn settle(&mut self, delimiter_bit: u8) {
        for (t, used) in self.0.values_mut() {
            if *used & delimiter_bit != 0 {
                *t = ColType::Json;
            }
        }
    }

    fn header(&self) -> Vec<String> {
        self.0
            .iter()
            .map(|(name, (t, _))| match t {
                ColType::Scalar(k) => format!("{name}:{}", k.name()),
                ColType::List(k) => format!("{name}:{}[]", k.name()),
                ColType::Json => format!("{name}:string"),
            })
            .collect()
    }

    fn json_names(&self) -> Vec<String> {
        self.0
            .iter()
            .filter(|(_, (t, _))| *t == ColType::Json)
            .map(|(n, _)| n.clone())
            .collect()
    }

    fn fields(&self, props: &Props, ad: char, row: &mut Row) -> std::result::Result<(), String> {
        for (name, (t, _)) in &self.0 {
            match (props.get(name), t) {
                (None, _) => row.absent(),
                (Some(v), ColType::Json) => row.text(&to_json(v)?.to_string()),
                (Some(Value::List(l)), ColType::List(_)) => {
                    let parts: Vec<String> = l.iter().map(plain).collect();
                    row.text(&parts.join(&ad.to_string()))
                }
                (Some(v), _) => row.text(&plain(v)),
            }
        }
        Ok(())
    }
}

/// The point a stored value holds, if it is one.
fn stored_point(v: &Value) -> Option<Point> {
    match v {
        Value::Map(m) => Point::from_store(m),
        _ => None,
    }
}

/// A scalar in neo4j-admin's text form.
fn plain(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Float(f) if f.is_nan() => "NaN".into(),
        Value::Float(f) if f.is_infinite() => if *f > 0.0 { "Infinity" } else { "-Infinity" }.into(),
        Value::Float(f) => format!("{f:?}"),
        Value::Bool(b) => b.to_string(),
        Value::Str(s) => s.clone(),
        other => {
            if let Some(p) = stored_point(other) {
                return point_text(&p);
            }
            match temporal(other) {
                Some((_, text)) => text.to_string(),
                None => to_json(other).map(|j| j.to_string()).unwrap_or_default(),
            }
        }
    }
}

/// One CSV line being written: fields quoted when they must be, and `""` for the empty
/// string (an unquoted empty field is no value).
#[derive(Default)]
struct Row {
    line: String,
    fields: usize,
}

impl Row {
    fn sep(&mut self) {
        if self.fields > 0 {
            self.line.push(',');
        }
        self.fields += 1;
    }
    fn absent(&mut self) {
        self.sep();
    }
    fn text(&mut self, s: &str) {
        self.sep();
        if s.is_empty() || s.contains([',', '"', '\n', '\r']) {
            self.line.push('"');
            self.line.push_str(&s.replace('"', "\"\""));
            self.line.push('"');
        } else {
            self.line.push_str(s);
        }
    }
    fn end(&mut self, w: &mut impl Write) -> std::io::Result<()> {
        self.line.push('\n');
        w.write_all(self.line.as_bytes())?;
        self.line.clear();
        self.fields = 0;
        Ok(())
    }
}

/// How keys are written, from the kinds seen.
#[derive(Default, Clone, Copy)]
struct KeyKinds {
    ints: bool,
    strs: bool,
}

impl KeyKinds {
    fn id_type(self) -> IdType {
        match (self.ints, self.strs) {
            (true, true) => IdType::Json,
            (true, false) => IdType::Integer,
            _ => IdType::String,
        }
    }
}

fn key_field(k: &NodeKey, t: IdType) -> String {
    match (k, t) {
        (NodeKey::Int(i), _) => i.to_string(),
        (NodeKey::Str(s), IdType::Json) => serde_json::Value::String(s.clone()).to_string(),
        (NodeKey::Str(s), _) => s.clone(),
    }
}

fn value_err(what: String, reason: String) -> ImportError {
    ImportError::Usage(format!("cannot export {what}: {reason}"))
}

struct TypePlan {
    options: EdgeTypeOptions,
    cols: Columns,
    file: String,
    /// The weight's column name: `weight` unless a property has that name.
    weight: String,
}

fn writer(path: &Path) -> Result<std::io::BufWriter<std::fs::File>> {
    Ok(std::io::BufWriter::with_capacity(
        1 << 20,
        std::fs::File::create(path).map_err(io(path))?,
    ))
}

/// Writes `g` (one snapshot) as CSV into `dir` (created if absent).
pub fn export_csv(g: &Graph, dir: &Path) -> Result<CsvExport> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let r = g.read();
    let mut plans: BTreeMap<String, TypePlan> = BTreeMap::new();
    for (i, (t, _)) in r.edge_types()?.into_iter().enumerate() {
        plans.insert(
            t.name.to_string(),
            TypePlan {
                options: t.options,
                cols: Columns::default(),
                file: format!("relationships-{i}.csv"),
                weight: String::new(),
            },
        );
    }
    // Pass 1: column types, key kinds, the delimiters and line breaks the text holds.
    let (mut keys, mut node_cols) = (KeyKinds::default(), Columns::default());
    let (mut label_delims, mut multiline) = (0u8, false);
    for n in r.scan_nodes(1024) {
        let n = n?;
        match &n.key {
            NodeKey::Int(_) => keys.ints = true,
            NodeKey::Str(s) => {
                keys.strs = true;
                multiline |= has_line_break(s);
            }
        }
        for l in &n.labels {
            label_delims |= delimiters_in(l);
            multiline |= has_line_break(l);
        }
        node_cols.add(&n.props, &mut multiline);
        for e in r.edges(&n.key, Direction::Out, None, None)? {
            if let Some(p) = plans.get_mut(&*e.ty) {
                p.cols.add(&e.props, &mut multiline);
            }
        }
    }
    let id_type = keys.id_type();
    let used = plans
        .values()
        .fold(node_cols.used() | label_delims, |m, p| m | p.cols.used());
    let di = (0..DELIMITERS.len()).find(|i| used & (1 << i) == 0);
    if di.is_none() && label_delims & (1 << (DELIMITERS.len() - 1)) != 0 {
        return Err(ImportError::Usage(
            "cannot export: labels hold every array delimiter HopDB can choose (; | ^ ~ and U+001F)".into(),
        ));
    }
    let di = di.unwrap_or(DELIMITERS.len() - 1);
    let ad = DELIMITERS[di];
    node_cols.settle(1 << di);
    for p in plans.values_mut() {
        p.cols.settle(1 << di);
        p.weight = std::iter::successors(Some("weight".to_string()), |w| Some(format!("_{w}")))
            .find(|w| !p.cols.0.contains_key(w))
            .unwrap_or_default();
    }
    // Pass 2: write.
    let nodes_path = dir.join("nodes.csv");
    let mut nodes = writer(&nodes_path)?;
    let mut row = Row::default();
    row.text(&format!("{KEY_COLUMN}:ID"));
    row.text(":LABEL");
    for h in node_cols.header() {
        row.text(&h);
    }
    row.end(&mut nodes).map_err(io(&nodes_path))?;
    let mut rels = HashMap::new();
    for (name, p) in &plans {
        let path = dir.join(&p.file);
        let mut w = writer(&path)?;
        for h in [":START_ID", ":END_ID", ":TYPE", &format!("{}:double", p.weight)] {
            row.text(h);
        }
        for h in p.cols.header() {
            row.text(&h);
        }
        row.end(&mut w).map_err(io(&path))?;
        rels.insert(name.clone(), (w, path));
    }
    let mut out = CsvExport::default();
    for n in r.scan_nodes(1024) {
        let n = n?;
        row.text(&key_field(&n.key, id_type));
        if n.labels.is_empty() {
            row.absent();
        } else {
            row.text(&n.labels.join(&ad.to_string()));
        }
        node_cols
            .fields(&n.props, ad, &mut row)
            .map_err(|e| value_err(format!("node {}", n.key), e))?;
        row.end(&mut nodes).map_err(io(&nodes_path))?;
        out.nodes += 1;
        for e in r.edges(&n.key, Direction::Out, None, None)? {
            let (Some(p), Some((w, path))) = (plans.get(&*e.ty), rels.get_mut(&*e.ty)) else {
                continue;
            };
            if p.options.undirected && e.src > e.dst {
                continue; // listed from both ends: written once
            }
            row.text(&key_field(&e.src, id_type));
            row.text(&key_field(&e.dst, id_type));
            row.text(&e.ty);
            match e.weight {
                Some(x) => row.text(&plain(&Value::Float(x))),
                None => row.absent(),
            }
            p.cols
                .fields(&e.props, ad, &mut row)
                .map_err(|m| value_err(format!("edge {} -[{}]-> {}", e.src, e.ty, e.dst), m))?;
            row.end(w).map_err(io(path))?;
            out.edges += 1;
        }
    }
    nodes.flush().map_err(io(&nodes_path))?;
    for (w, path) in rels.values_mut() {
        w.flush().map_err(io(path))?;
    }
    let id_type_name = match id_type {
        IdType::Integer => "integer",
        IdType::String | IdType::Json => "string",
    };
    let delimiter_arg = if ad.is_ascii_graphic() {
        ad.to_string()
    } else {
        format!("U+{:04X}", ad as u32)
    };
    let mut admin = vec![
        "neo4j-admin".to_string(),
        "database".into(),
        "import".into(),
        "full".into(),
        "neo4j".into(),
        "--nodes=nodes.csv".into(),
    ];
    admin.extend(plans.values().map(|p| format!("--relationships={}", p.file)));
    admin.push(format!("--id-type={id_type_name}"));
    admin.push(format!("--array-delimiter={delimiter_arg}"));
    if multiline {
        admin.push("--multiline-fields=true".into());
    }
    let mut json_columns = serde_json::Map::new();
    json_columns.insert("nodes.csv".into(), node_cols.json_names().into());
    for p in plans.values() {
        json_columns.insert(p.file.clone(), p.cols.json_names().into());
    }
    let manifest = serde_json::json!({
        "format": "hopdb-export-csv",
        "version": 2,
        "id_type": match id_type { IdType::Integer => "integer", IdType::String => "string", IdType::Json => "json" },
        "array_delimiter": ad.to_string(),
        "multiline_fields": multiline,
        "nodes": ["nodes.csv"],
        "relationships": plans.iter().map(|(name, p)| serde_json::json!({
            "type": name, "file": p.file, "undirected": p.options.undirected, "multi": p.options.multi,
            "weight_column": p.weight,
        })).collect::<Vec<_>>(),
        "json_columns": json_columns,
        "neo4j_admin": admin,
        "notes": "Load into Neo4j with the neo4j_admin command line, run in this directory. Columns listed \
                  in json_columns hold JSON text (maps, nested, mixed or empty lists, bytes, nulls: values a \
                  Neo4j property cannot hold); Neo4j reads them as strings, `hopdb import --from-export` \
                  as the values. The node key is the _key property in Neo4j; an edge's weight is the \
                  weight_column property. Undirected types are written once per edge, from the lower key.",
        "node_count": out.nodes,
        "edge_count": out.edges,
    });
    let mpath = dir.join("manifest.json");
    std::fs::write(&mpath, serde_json::to_vec_pretty(&manifest).unwrap_or_default()).map_err(io(&mpath))?;
    out.bytes = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    Ok(out)
}

/// The import that reads back a CSV export in `dir` (its manifest gives files, id type and
/// edge-type options).
pub fn csv_export_spec(dir: &Path) -> Result<ImportSpec> {
    let mpath = dir.join("manifest.json");
    let raw = std::fs::read(&mpath).map_err(io(&mpath))?;
    let m: serde_json::Value = serde_json::from_slice(&raw)
        .map_err(|e| ImportError::Usage(format!("{}: not a manifest: {e}", mpath.display())))?;
    if m["format"] != "hopdb-export-csv" {
        return Err(ImportError::Usage(format!(
            "{}: not a HopDB CSV export manifest",
            mpath.display()
        )));
    }
    let id_type = match m["id_type"].as_str() {
        Some("integer") => IdType::Integer,
        Some("json") => IdType::Json,
        _ => IdType::String,
    };
    let files = |v: &serde_json::Value| -> Vec<std::path::PathBuf> {
        v.as_array()
            .map(|a| a.iter().filter_map(|f| f.as_str()).map(|f| dir.join(f)).collect())
            .unwrap_or_default()
    };
    let json_columns = |file: &str| -> Vec<String> {
        m["json_columns"][file]
            .as_array()
            .map(|a| a.iter().filter_map(|c| c.as_str()).map(str::to_string).collect())
            .unwrap_or_default()
    };
    let array_delimiter = match m["array_delimiter"].as_str().map(|d| d.as_bytes()) {
        Some([b]) => *b,
        _ => b';',
    };
    let mut nodes = FileGroup::new(None, files(&m["nodes"]));
    nodes.json_columns = json_columns("nodes.csv");
    let mut spec = ImportSpec {
        nodes: vec![nodes],
        csv: CsvOptions {
            id_type,
            array_delimiter,
            multiline_fields: m["multiline_fields"].as_bool().unwrap_or(true),
            ..CsvOptions::default()
        },
        ..ImportSpec::default()
    };
    for r in m["relationships"].as_array().into_iter().flatten() {
        let (Some(ty), Some(file)) = (r["type"].as_str(), r["file"].as_str()) else {
            return Err(ImportError::Usage(format!(
                "{}: a relationship entry lacks type or file",
                mpath.display()
            )));
        };
        let mut group = FileGroup::new(None, vec![dir.join(file)]);
        group.json_columns = json_columns(file);
        group.weight_column = r["weight_column"].as_str().map(str::to_string);
        spec.relationships.push(group);
        spec.type_options.insert(
            ty.to_string(),
            EdgeTypeOptions {
                undirected: r["undirected"].as_bool().unwrap_or(false),
                multi: r["multi"].as_bool().unwrap_or(false),
            },
        );
    }
    Ok(spec)
}
