//! `hopdb export` in neo4j-admin CSV: `nodes.csv`, one `relationships-N.csv` per edge type,
//! and `manifest.json` (edge-type options, id type, counts), such that
//! `import(export(g))` reproduces `g` (edge ids of parallel edges are renumbered).
//!
//! Column types are chosen per property so that every value round-trips: `int`, `float`,
//! `boolean`, `string` (non-empty strings: neo4j-admin reads an empty field as "no
//! property"), `T[]` for lists of one scalar kind whose elements are safe with the array
//! delimiter, and otherwise `json` (maps, nested lists, bytes as `{"$bytes": base64}`, empty
//! strings, mixed kinds). Keys: `--id-type=integer` when all keys are integers, `string` when
//! all are strings, and `json` (`12` or `"abc"`) when mixed.

use crate::error::{io, ImportError, Result};
use crate::neo4j::{to_json, CsvOptions, IdType};
use crate::{FileGroup, ImportSpec};
use hopdb_core::{Direction, EdgeTypeOptions, Graph, GraphRead, NodeKey, Props, Value};
use std::collections::{BTreeMap, HashMap};
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

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Int,
    Float,
    Bool,
    Str,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ColType {
    Scalar(Kind),
    List(Kind),
    Json,
}

fn scalar(v: &Value, array_delimiter: char) -> Option<Kind> {
    match v {
        Value::Int(_) => Some(Kind::Int),
        Value::Float(_) => Some(Kind::Float),
        Value::Bool(_) => Some(Kind::Bool),
        Value::Str(s) if !s.is_empty() && !s.contains(array_delimiter) => Some(Kind::Str),
        _ => None,
    }
}

fn type_of(v: &Value, ad: char) -> ColType {
    match v {
        Value::Str(s) if !s.is_empty() => ColType::Scalar(Kind::Str),
        Value::List(l) if !l.is_empty() => {
            let kinds: Option<Vec<Kind>> = l.iter().map(|x| scalar(x, ad)).collect();
            match kinds {
                Some(k) if k.windows(2).all(|w| w[0] == w[1]) => ColType::List(k[0]),
                _ => ColType::Json,
            }
        }
        v => scalar(v, ad).map_or(ColType::Json, ColType::Scalar),
    }
}

/// Column types by property name, merged over every value seen.
#[derive(Default)]
struct Columns(BTreeMap<String, ColType>);

impl Columns {
    fn add(&mut self, props: &Props, ad: char) {
        for (k, v) in props {
            let t = type_of(v, ad);
            self.0
                .entry(k.clone())
                .and_modify(|old| {
                    if *old != t {
                        *old = ColType::Json;
                    }
                })
                .or_insert(t);
        }
    }

    fn header(&self) -> Vec<String> {
        self.0
            .iter()
            .map(|(name, t)| {
                let kind = |k: Kind| match k {
                    Kind::Int => "int",
                    Kind::Float => "float",
                    Kind::Bool => "boolean",
                    Kind::Str => "string",
                };
                match t {
                    ColType::Scalar(k) => format!("{name}:{}", kind(*k)),
                    ColType::List(k) => format!("{name}:{}[]", kind(*k)),
                    ColType::Json => format!("{name}:json"),
                }
            })
            .collect()
    }

    fn fields(&self, props: &Props, ad: char) -> std::result::Result<Vec<String>, String> {
        self.0
            .iter()
            .map(|(name, t)| match (props.get(name), t) {
                (None, _) => Ok(String::new()),
                (Some(v), ColType::Json) => Ok(to_json(v)?.to_string()),
                (Some(Value::List(l)), ColType::List(_)) => {
                    Ok(l.iter().map(plain).collect::<Vec<_>>().join(&ad.to_string()))
                }
                (Some(v), _) => Ok(plain(v)),
            })
            .collect()
    }
}

fn plain(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Str(s) => s.clone(),
        other => to_json(other).map(|j| j.to_string()).unwrap_or_default(),
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

fn csv_err(path: &Path, e: csv::Error) -> ImportError {
    ImportError::Io {
        path: path.to_owned(),
        source: std::io::Error::other(e),
    }
}

fn value_err(what: String, reason: String) -> ImportError {
    ImportError::Usage(format!("cannot export {what}: {reason}"))
}

struct TypePlan {
    options: EdgeTypeOptions,
    cols: Columns,
    file: String,
}

/// Writes `g` (one snapshot) as CSV into `dir` (created if absent).
pub fn export_csv(g: &Graph, dir: &Path) -> Result<CsvExport> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let ad = ';';
    let r = g.read();
    let mut plans: BTreeMap<String, TypePlan> = BTreeMap::new();
    for (i, (t, _)) in r.edge_types()?.into_iter().enumerate() {
        plans.insert(
            t.name.to_string(),
            TypePlan {
                options: t.options,
                cols: Columns::default(),
                file: format!("relationships-{i}.csv"),
            },
        );
    }
    // Pass 1: column types and key kinds.
    let (mut keys, mut node_cols) = (KeyKinds::default(), Columns::default());
    for n in r.scan_nodes(1024) {
        let n = n?;
        match n.key {
            NodeKey::Int(_) => keys.ints = true,
            NodeKey::Str(_) => keys.strs = true,
        }
        node_cols.add(&n.props, ad);
        for e in r.edges(&n.key, Direction::Out, None, None)? {
            if let Some(p) = plans.get_mut(&*e.ty) {
                p.cols.add(&e.props, ad);
            }
        }
    }
    let id_type = keys.id_type();
    // Pass 2: write.
    let nodes_path = dir.join("nodes.csv");
    let mut nodes = csv::Writer::from_path(&nodes_path).map_err(|e| csv_err(&nodes_path, e))?;
    let mut header = vec![":ID".to_string(), ":LABEL".to_string()];
    header.extend(node_cols.header());
    nodes.write_record(&header).map_err(|e| csv_err(&nodes_path, e))?;
    let mut rels = HashMap::new();
    for (name, p) in &plans {
        let path = dir.join(&p.file);
        let mut w = csv::Writer::from_path(&path).map_err(|e| csv_err(&path, e))?;
        let mut h = vec![":START_ID".into(), ":END_ID".into(), ":TYPE".into(), ":WEIGHT".into()];
        h.extend(p.cols.header());
        w.write_record(&h).map_err(|e| csv_err(&path, e))?;
        rels.insert(name.clone(), (w, path));
    }
    let mut out = CsvExport::default();
    for n in r.scan_nodes(1024) {
        let n = n?;
        let mut rec = vec![key_field(&n.key, id_type), n.labels.join(&ad.to_string())];
        rec.extend(
            node_cols
                .fields(&n.props, ad)
                .map_err(|e| value_err(format!("node {}", n.key), e))?,
        );
        nodes.write_record(&rec).map_err(|e| csv_err(&nodes_path, e))?;
        out.nodes += 1;
        for e in r.edges(&n.key, Direction::Out, None, None)? {
            let (Some(p), Some((w, path))) = (plans.get(&*e.ty), rels.get_mut(&*e.ty)) else {
                continue;
            };
            if p.options.undirected && e.src > e.dst {
                continue; // listed from both ends: written once
            }
            let mut rec = vec![
                key_field(&e.src, id_type),
                key_field(&e.dst, id_type),
                e.ty.to_string(),
                e.weight.map(|x| x.to_string()).unwrap_or_default(),
            ];
            rec.extend(
                p.cols
                    .fields(&e.props, ad)
                    .map_err(|m| value_err(format!("edge {} -[{}]-> {}", e.src, e.ty, e.dst), m))?,
            );
            w.write_record(&rec).map_err(|err| csv_err(path, err))?;
            out.edges += 1;
        }
    }
    nodes.flush().map_err(io(&nodes_path))?;
    for (w, path) in rels.values_mut() {
        w.flush().map_err(io(path))?;
    }
    let manifest = serde_json::json!({
        "format": "hopdb-export-csv",
        "version": 1,
        "id_type": match id_type { IdType::Integer => "integer", IdType::String => "string", IdType::Json => "json" },
        "array_delimiter": ad.to_string(),
        "nodes": ["nodes.csv"],
        "relationships": plans.iter().map(|(name, p)| serde_json::json!({
            "type": name, "file": p.file, "undirected": p.options.undirected, "multi": p.options.multi,
        })).collect::<Vec<_>>(),
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
    let mut spec = ImportSpec {
        nodes: vec![FileGroup::new(None, files(&m["nodes"]))],
        csv: CsvOptions {
            id_type,
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
        spec.relationships.push(FileGroup::new(None, vec![dir.join(file)]));
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
