//! The APOC procedures the ecosystem's tools call, implemented natively with APOC's
//! semantics: LightRAG's Neo4JStorage (`apoc.path.subgraphAll`) and langchain-neo4j's
//! `Neo4jGraph` (`apoc.merge.node`, `apoc.merge.relationship`, `apoc.meta.data`,
//! `apoc.schema.nodes`), plus the label helpers `apoc.create.addLabels` / `removeLabels`.
//!
//! The writing procedures are expressed as the MERGE / SET / REMOVE they stand for and run
//! by the same operators (`write.rs`), so counters, constraints and read-your-writes behave
//! exactly as in the Cypher a user would write by hand.

use super::ProcOutput;
use crate::ast::{
    Expr, NodePattern, PathKind, PatternElement, PatternPart, RelDirection, RelPattern, RemoveItem, SetItem,
};
use crate::error::{CypherError, ErrorClass, Result};
use crate::exec::adjacency;
use crate::exec::ctx::Ctx;
use crate::exec::{write, Table};
use crate::value::{Map, NodeRef, RelRef, Value};
use hopdb_database::{Direction, NodeKey};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// The APOC procedures (lower case) and their output fields.
pub(super) const PROCEDURES: &[(&str, &[&str])] = &[
    ("apoc.path.subgraphall", &["nodes", "relationships"]),
    ("apoc.path.subgraphnodes", &["node"]),
    ("apoc.merge.node", &["node"]),
    ("apoc.merge.relationship", &["rel"]),
    ("apoc.create.addlabels", &["node"]),
    ("apoc.create.removelabels", &["node"]),
    ("apoc.meta.data", META_FIELDS),
    ("apoc.schema.nodes", SCHEMA_NODES_FIELDS),
    ("apoc.meta.graph", &["nodes", "relationships"]),
];

const META_FIELDS: &[&str] = &[
    "label",
    "property",
    "count",
    "unique",
    "index",
    "existence",
    "type",
    "array",
    "sample",
    "left",
    "right",
    "other",
    "otherLabels",
    "elementType",
];

const SCHEMA_NODES_FIELDS: &[&str] = &[
    "name",
    "label",
    "properties",
    "status",
    "type",
    "failure",
    "populationProgress",
    "size",
    "valuesSelectivity",
    "userDescription",
];

/// Whether the APOC procedure `name` (lower case) writes.
pub(super) fn writes(lower: &str) -> bool {
    lower.starts_with("apoc.merge.") || lower.starts_with("apoc.create.")
}

/// Runs the APOC procedure `lower` (lower case), or `None` when it is not one.
pub(super) fn invoke(ctx: &mut Ctx, lower: &str, args: &[Value]) -> Option<Result<ProcOutput>> {
    let fields = PROCEDURES.iter().find(|(n, _)| *n == lower)?.1;
    let out = |rows: Result<Vec<Vec<Value>>>| {
        rows.map(|rows| ProcOutput {
            fields: fields.iter().map(|f| f.to_string()).collect(),
            rows,
        })
    };
    Some(match lower {
        "apoc.path.subgraphall" => out(subgraph(ctx, args, true)),
        "apoc.path.subgraphnodes" => out(subgraph(ctx, args, false)),
        "apoc.merge.node" => out(merge_node(ctx, args)),
        "apoc.merge.relationship" => out(merge_relationship(ctx, args)),
        "apoc.create.addlabels" => out(change_labels(ctx, args, true)),
        "apoc.create.removelabels" => out(change_labels(ctx, args, false)),
        "apoc.meta.data" => out(meta_data(ctx, args)),
        "apoc.schema.nodes" => out(schema_nodes(ctx, args)),
        "apoc.meta.graph" => out(meta_graph(ctx, args)),
        _ => return None,
    })
}

fn failed(name: &str, msg: impl std::fmt::Display) -> CypherError {
    CypherError::runtime(
        ErrorClass::ProcedureError,
        "ProcedureCallFailed",
        format!("Failed to invoke procedure `{name}`: {msg}"),
    )
}

fn arity(name: &str, args: &[Value], min: usize, max: usize) -> Result<()> {
    if args.len() < min || args.len() > max {
        let want = if min == max {
            format!("{min}")
        } else {
            format!("{min} to {max}")
        };
        return Err(CypherError::runtime(
            ErrorClass::SyntaxError,
            "InvalidNumberOfArguments",
            format!("procedure {name} takes {want} argument(s), got {}", args.len()),
        ));
    }
    Ok(())
}

/// A map argument (`null` is the empty map).
fn map_arg(name: &str, what: &str, v: Option<&Value>) -> Result<Map> {
    match v {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Map(m)) => Ok(m.clone()),
        Some(o) => Err(failed(name, format!("{what} must be a map, not {}", o.type_name()))),
    }
}

/// The nodes an argument names: a node, a node id, or a list of them.
fn nodes_arg(ctx: &Ctx, name: &str, v: &Value) -> Result<Vec<NodeRef>> {
    let one = |v: &Value| -> Result<Option<NodeRef>> {
        match v {
            Value::Null => Ok(None),
            Value::Node(n) => Ok(Some(NodeRef::new(n.key.clone()))),
            Value::Int(id) => Ok(u64::try_from(*id)
                .ok()
                .map(|id| ctx.read().node_key(id))
                .transpose()?
                .flatten()
                .map(NodeRef::new)),
            o => Err(failed(
                name,
                format!("expected a node or a node id, not {}", o.type_name()),
            )),
        }
    };
    match v {
        Value::List(items) => items.iter().filter_map(|i| one(i).transpose()).collect(),
        v => Ok(one(v)?.into_iter().collect()),
    }
}

fn string_list(name: &str, what: &str, v: &Value) -> Result<Vec<String>> {
    let items = match v {
        Value::Null => return Ok(Vec::new()),
        Value::List(l) => l.as_slice(),
        v => std::slice::from_ref(v),
    };
    items
        .iter()
        .map(|i| match i {
            Value::String(s) if !s.is_empty() => Ok(s.clone()),
            o => Err(failed(
                name,
                format!("{what} must be non-empty strings, not {}", o.type_name()),
            )),
        })
        .collect()
}

// ---- apoc.path.subgraphAll / subgraphNodes ------------------------------------------------

/// One `relationshipFilter` entry: a type (any when `None`) and the direction to follow.
struct RelFilter {
    ty: Option<String>,
    dir: RelDirection,
}

/// `relationshipFilter`: `TYPE`, `<TYPE`, `TYPE>`, `>`, `<`, joined by `|` (empty: any type,
/// both directions).
fn rel_filters(name: &str, spec: &str) -> Result<Vec<RelFilter>> {
    let mut out = Vec::new();
    for part in spec.split('|').map(str::trim) {
        if part.is_empty() {
            continue;
        }
        let (dir, ty) = if let Some(t) = part.strip_prefix('<') {
            (RelDirection::Left, t)
        } else if let Some(t) = part.strip_suffix('>') {
            (RelDirection::Right, t)
        } else {
            (RelDirection::Both, part)
        };
        if ty.contains(['<', '>']) {
            return Err(failed(name, format!("invalid relationshipFilter entry `{part}`")));
        }
        out.push(RelFilter {
            ty: (!ty.is_empty()).then(|| ty.to_string()),
            dir,
        });
    }
    if out.is_empty() {
        out.push(RelFilter {
            ty: None,
            dir: RelDirection::Both,
        });
    }
    Ok(out)
}

/// `labelFilter`: `+L` (or a bare `L`) whitelists, `-L` blacklists, joined by `|`; the
/// termination and end-node filters (`/L`, `>L`) are not implemented.
struct LabelFilter {
    allow: Vec<String>,
    deny: Vec<String>,
}

impl LabelFilter {
    fn parse(name: &str, spec: &str) -> Result<LabelFilter> {
        let mut f = LabelFilter {
            allow: Vec::new(),
            deny: Vec::new(),
        };
        for part in spec.split(['|', ',']).map(str::trim).filter(|p| !p.is_empty()) {
            if let Some(l) = part.strip_prefix('-') {
                f.deny.push(l.to_string());
            } else if let Some(l) = part.strip_prefix('+') {
                f.allow.push(l.to_string());
            } else if part.starts_with(['/', '>']) {
                return Err(failed(
                    name,
                    format!("labelFilter `{part}`: termination and end-node label filters are not supported by HopDB"),
                ));
            } else {
                f.allow.push(part.to_string());
            }
        }
        Ok(f)
    }

    fn accepts(&self, labels: &[String]) -> bool {
        !labels.iter().any(|l| self.deny.contains(l))
            && (self.allow.is_empty() || labels.iter().any(|l| self.allow.contains(l)))
    }
}

fn config_int(name: &str, cfg: &Map, key: &str, default: i64) -> Result<i64> {
    match cfg.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Int(i)) => Ok(*i),
        Some(Value::Float(f)) if f.fract() == 0.0 => Ok(*f as i64),
        Some(o) => Err(failed(
            name,
            format!("`{key}` must be an integer, not {}", o.type_name()),
        )),
    }
}

/// The nodes reachable from the start nodes within `maxLevel` steps, breadth first, each
/// once (APOC's NODE_GLOBAL uniqueness), keeping those at `minLevel` or deeper, at most
/// `limit`; with `all`, also every relationship between the nodes kept (`apoc.algo.cover`).
fn subgraph(ctx: &mut Ctx, args: &[Value], all: bool) -> Result<Vec<Vec<Value>>> {
    let name = if all {
        "apoc.path.subgraphAll"
    } else {
        "apoc.path.subgraphNodes"
    };
    arity(name, args, 2, 2)?;
    let starts = nodes_arg(ctx, name, &args[0])?;
    let cfg = map_arg(name, "the configuration", args.get(1))?;
    for key in cfg.keys() {
        const KNOWN: &[&str] = &[
            "relationshipFilter",
            "labelFilter",
            "minLevel",
            "maxLevel",
            "limit",
            "bfs",
            "filterStartNode",
            "uniqueness",
            "optional",
        ];
        if !KNOWN.contains(&key.as_str()) {
            return Err(failed(
                name,
                format!("the configuration key `{key}` is not supported by HopDB"),
            ));
        }
    }
    let text = |k: &str| match cfg.get(k) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(o) => Err(failed(name, format!("`{k}` must be a string, not {}", o.type_name()))),
    };
    let rels = rel_filters(name, &text("relationshipFilter")?)?;
    let labels = LabelFilter::parse(name, &text("labelFilter")?)?;
    let min_level = config_int(name, &cfg, "minLevel", 0)?.max(0) as u64;
    let max_level = match config_int(name, &cfg, "maxLevel", -1)? {
        l if l < 0 => u64::MAX,
        l => l as u64,
    };
    let limit = match config_int(name, &cfg, "limit", -1)? {
        l if l < 0 => usize::MAX,
        l => l as usize,
    };
    let filter_start = matches!(cfg.get("filterStartNode"), Some(Value::Bool(true)));

    let mut seen: FxHashSet<NodeKey> = FxHashSet::default();
    let mut queue: VecDeque<(NodeKey, u64)> = VecDeque::new();
    let mut kept: Vec<NodeKey> = Vec::new();
    for s in starts {
        let Some(node) = ctx.node(&s.key)? else { continue };
        if (filter_start && !labels.accepts(&node.labels)) || !seen.insert(s.key.clone()) {
            continue;
        }
        queue.push_back((s.key, 0));
    }
    while let Some((key, level)) = queue.pop_front() {
        if kept.len() >= limit {
            break;
        }
        ctx.check()?;
        if level >= min_level {
            kept.push(key.clone());
        }
        if level >= max_level {
            continue;
        }
        for f in &rels {
            let types: Vec<String> = f.ty.iter().cloned().collect();
            for (_, other) in adjacency::expand(ctx, &key, f.dir, &types)? {
                if seen.contains(&other) {
                    continue;
                }
                let Some(n) = ctx.node(&other)? else { continue };
                if !labels.accepts(&n.labels) {
                    continue;
                }
                seen.insert(other.clone());
                queue.push_back((other, level + 1));
            }
        }
    }
    let node_values: Vec<Value> = kept.iter().map(|k| Value::Node(NodeRef::new(k.clone()))).collect();
    if !all {
        return Ok(node_values.into_iter().map(|n| vec![n]).collect());
    }
    // Every relationship between two kept nodes, once, found from its start node.
    let members: FxHashSet<&NodeKey> = kept.iter().collect();
    let mut rels_out: Vec<Value> = Vec::new();
    let mut rel_seen: FxHashSet<RelRef> = FxHashSet::default();
    for k in &kept {
        for (r, other) in adjacency::expand(ctx, k, RelDirection::Right, &[])? {
            if members.contains(&other) && rel_seen.insert(r.clone()) {
                rels_out.push(Value::Relationship(r));
            }
        }
    }
    Ok(vec![vec![Value::List(node_values), Value::List(rels_out)]])
}

// ---- apoc.merge.node / apoc.merge.relationship / apoc.create.addLabels --------------------

const NODE: &str = "  apoc node";
const START: &str = "  apoc start";
const END: &str = "  apoc end";
const REL: &str = "  apoc rel";
const IDENT: &str = "  apoc ident";
const ON_CREATE: &str = "  apoc on create";
const ON_MATCH: &str = "  apoc on match";

/// `{k: ident.k, ...}`: the identifying properties as a map pattern over the IDENT variable
/// (entry by entry, so a label's property index can serve the match).
fn ident_pattern(ident: &Map) -> Option<Box<Expr>> {
    (!ident.is_empty()).then(|| {
        Box::new(Expr::Map(
            ident
                .keys()
                .map(|k| {
                    (
                        k.clone(),
                        Expr::Property(Box::new(Expr::Variable(IDENT.into())), k.clone()),
                    )
                })
                .collect(),
        ))
    })
}

fn merge_props(var: &str, from: &str) -> SetItem {
    SetItem::Properties {
        var: var.into(),
        value: Expr::Variable(from.into()),
        merge: true,
    }
}

/// `apoc.merge.node(labels, identProps, onCreateProps = {}, onMatchProps = {})`:
/// `MERGE (node:labels {identProps}) ON CREATE SET node += onCreateProps ON MATCH SET
/// node += onMatchProps`.
fn merge_node(ctx: &mut Ctx, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.merge.node";
    arity(NAME, args, 2, 4)?;
    let labels = string_list(NAME, "labels", &args[0])?;
    let ident = map_arg(NAME, "identProps", args.get(1))?;
    if ident.is_empty() {
        return Err(failed(
            NAME,
            "you need to supply at least one identifying property for a merge",
        ));
    }
    let on_create = map_arg(NAME, "onCreateProps", args.get(2))?;
    let on_match = map_arg(NAME, "onMatchProps", args.get(3))?;
    let part = PatternPart {
        var: None,
        kind: PathKind::Plain,
        element: PatternElement {
            start: NodePattern {
                var: Some(NODE.into()),
                labels,
                props: ident_pattern(&ident),
            },
            chain: Vec::new(),
        },
    };
    let t = Table {
        names: vec![IDENT.into(), ON_CREATE.into(), ON_MATCH.into()],
        rows: vec![vec![Value::Map(ident), Value::Map(on_create), Value::Map(on_match)]],
    };
    let out = write::merge(
        ctx,
        t,
        &part,
        &[merge_props(NODE, ON_CREATE)],
        &[merge_props(NODE, ON_MATCH)],
    )?;
    column(out, NODE)
}

/// `apoc.merge.relationship(start, relType, identProps, onCreateProps, end, onMatchProps = {})`:
/// `MERGE (start)-[rel:relType {identProps}]->(end)` with the same ON CREATE / ON MATCH.
fn merge_relationship(ctx: &mut Ctx, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.merge.relationship";
    arity(NAME, args, 5, 6)?;
    let (start, end) = match (&args[0], &args[4]) {
        (Value::Node(s), Value::Node(e)) => (s.clone(), e.clone()),
        (s, e) => {
            return Err(failed(
                NAME,
                format!(
                    "the start and end must be nodes, not {} and {}",
                    s.type_name(),
                    e.type_name()
                ),
            ))
        }
    };
    let ty = match &args[1] {
        Value::String(s) if !s.is_empty() => s.clone(),
        o => {
            return Err(failed(
                NAME,
                format!(
                    "the relationship type must be a non-empty string, not {}",
                    o.type_name()
                ),
            ))
        }
    };
    let ident = map_arg(NAME, "identProps", args.get(2))?;
    let on_create = map_arg(NAME, "onCreateProps", args.get(3))?;
    let on_match = map_arg(NAME, "onMatchProps", args.get(5))?;
    let node = |v: &str| NodePattern {
        var: Some(v.into()),
        labels: Vec::new(),
        props: None,
    };
    let part = PatternPart {
        var: None,
        kind: PathKind::Plain,
        element: PatternElement {
            start: node(START),
            chain: vec![(
                RelPattern {
                    var: Some(REL.into()),
                    types: vec![ty],
                    direction: RelDirection::Right,
                    length: None,
                    props: ident_pattern(&ident),
                },
                node(END),
            )],
        },
    };
    let t = Table {
        names: vec![
            START.into(),
            END.into(),
            IDENT.into(),
            ON_CREATE.into(),
            ON_MATCH.into(),
        ],
        rows: vec![vec![
            Value::Node(start),
            Value::Node(end),
            Value::Map(ident),
            Value::Map(on_create),
            Value::Map(on_match),
        ]],
    };
    let out = write::merge(
        ctx,
        t,
        &part,
        &[merge_props(REL, ON_CREATE)],
        &[merge_props(REL, ON_MATCH)],
    )?;
    column(out, REL)
}

/// `apoc.create.addLabels(nodes, labels)` / `removeLabels`: `SET n:labels` / `REMOVE n:labels`
/// on each node; the nodes come back.
fn change_labels(ctx: &mut Ctx, args: &[Value], add: bool) -> Result<Vec<Vec<Value>>> {
    let name = if add {
        "apoc.create.addLabels"
    } else {
        "apoc.create.removeLabels"
    };
    arity(name, args, 2, 2)?;
    let nodes = nodes_arg(ctx, name, &args[0])?;
    let labels = string_list(name, "labels", &args[1])?;
    let t = Table {
        names: vec![NODE.into()],
        rows: nodes.into_iter().map(|n| vec![Value::Node(n)]).collect(),
    };
    let out = if add {
        write::set(
            ctx,
            t,
            &[SetItem::Labels {
                var: NODE.into(),
                labels,
                dynamic: Vec::new(),
            }],
        )?
    } else {
        write::remove(
            ctx,
            t,
            &[RemoveItem::Labels {
                var: NODE.into(),
                labels,
                dynamic: Vec::new(),
            }],
        )?
    };
    column(out, NODE)
}

/// The values of column `name`, one per row.
fn column(t: Table, name: &str) -> Result<Vec<Vec<Value>>> {
    let i = t
        .names
        .iter()
        .position(|n| n == name)
        .ok_or_else(|| failed(name, "internal: the merged variable is missing"))?;
    Ok(t.rows.into_iter().map(|mut r| vec![r.swap_remove(i)]).collect())
}

// ---- apoc.meta.data / apoc.schema.nodes ---------------------------------------------------

/// APOC's name for a property value's type.
fn meta_type(v: &hopdb_database::Value) -> (&'static str, bool) {
    use hopdb_database::Value as V;
    let converted = crate::exec::ctx::stored_value(v.clone());
    let t = match &converted {
        Value::Null => "NULL",
        Value::Bool(_) => "BOOLEAN",
        Value::Int(_) => "INTEGER",
        Value::Float(_) => "FLOAT",
        Value::String(_) => "STRING",
        Value::Bytes(_) | Value::List(_) => "LIST",
        Value::Map(_) => "MAP",
        Value::Date(_) => "DATE",
        Value::LocalTime(_) => "LOCAL_TIME",
        Value::Time(_) => "TIME",
        Value::LocalDateTime(_) => "LOCAL_DATE_TIME",
        Value::DateTime(_) => "DATE_TIME",
        Value::Duration(_) => "DURATION",
        Value::Point(_) => "POINT",
        Value::Node(_) | Value::Relationship(_) | Value::Path(_) => "ANY",
    };
    (t, matches!(v, V::List(_) | V::Bytes(_)))
}

/// Per label or type: property -> (type, array, count).
type PropStats = BTreeMap<String, BTreeMap<String, (&'static str, bool, i64)>>;

fn note_props(stats: &mut PropStats, owner: &str, props: &hopdb_database::Props) {
    let entry = stats.entry(owner.to_string()).or_default();
    for (k, v) in props.iter() {
        let (t, array) = meta_type(v);
        let e = entry.entry(k.to_string()).or_insert((t, array, 0));
        e.2 += 1;
    }
}

/// `apoc.meta.data(config)`: for each label, a row per property (`elementType` "node") and
/// per outgoing relationship type (`type` "RELATIONSHIP", `other` the end nodes' labels);
/// for each relationship type, a row per property (`elementType` "relationship"). Every node
/// is read (no sampling: the answer is exact).
fn meta_data(ctx: &mut Ctx, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.meta.data";
    arity(NAME, args, 0, 1)?;
    map_arg(NAME, "the configuration", args.first())?;
    let g = ctx.read();
    let mut node_props: PropStats = BTreeMap::new();
    let mut rel_props: PropStats = BTreeMap::new();
    // label -> type -> (count, end labels)
    let mut rels: BTreeMap<String, BTreeMap<String, (i64, BTreeSet<String>)>> = BTreeMap::new();
    let mut labels_of: FxHashMap<NodeKey, Vec<String>> = FxHashMap::default();
    let mut nodes = Vec::new();
    let mut failure = None;
    g.for_each_node(None, &mut |n| {
        if let Err(e) = ctx.check() {
            failure = Some(e);
            return false;
        }
        for l in &n.labels {
            note_props(&mut node_props, l, &n.props);
        }
        labels_of.insert(n.key.clone(), n.labels.clone());
        nodes.push(n.key);
        true
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    for key in &nodes {
        let start_labels = &labels_of[key];
        for e in g.edges(key, Direction::Out, None, None)? {
            note_props(&mut rel_props, &e.ty, &e.props);
            let end_labels = labels_of.get(&e.dst).cloned().unwrap_or_default();
            for l in start_labels {
                let r = rels.entry(l.clone()).or_default().entry(e.ty.to_string()).or_default();
                r.0 += 1;
                r.1.extend(end_labels.iter().cloned());
            }
        }
    }
    let indexes = g.indexes()?;
    let indexed = |label: &str, prop: &str| indexes.iter().find(|d| d.label == label && d.property == prop);
    let s = |x: &str| Value::String(x.to_string());
    let row = |label: &str,
               prop: &str,
               count: i64,
               unique: bool,
               index: bool,
               ty: &str,
               array: bool,
               other: Vec<Value>,
               element: &str| {
        vec![
            s(label),
            s(prop),
            Value::Int(count),
            Value::Bool(unique),
            Value::Bool(index),
            Value::Bool(false),
            s(ty),
            Value::Bool(array),
            Value::Null,
            Value::Int(0),
            Value::Int(0),
            Value::List(other),
            Value::List(Vec::new()),
            s(element),
        ]
    };
    let mut out = Vec::new();
    let mut labels: BTreeSet<&String> = node_props.keys().collect();
    labels.extend(rels.keys());
    for label in labels {
        for (ty, (count, ends)) in rels.get(label).into_iter().flatten() {
            let other = ends.iter().map(|l| s(l)).collect();
            out.push(row(
                label,
                ty,
                *count,
                false,
                false,
                "RELATIONSHIP",
                false,
                other,
                "node",
            ));
        }
        for (p, (ty, array, count)) in node_props.get(label).into_iter().flatten() {
            let idx = indexed(label, p);
            let unique = idx.is_some_and(|d| d.unique);
            out.push(row(
                label,
                p,
                *count,
                unique,
                idx.is_some(),
                ty,
                *array,
                Vec::new(),
                "node",
            ));
        }
    }
    for (rel_type, props) in &rel_props {
        for (p, (ty, array, count)) in props {
            out.push(row(
                rel_type,
                p,
                *count,
                false,
                false,
                ty,
                *array,
                Vec::new(),
                "relationship",
            ));
        }
    }
    Ok(out)
}

/// `apoc.meta.graph(config)`: the graph's schema as one row: `nodes`, a map per label
/// (`name`, `count`), and `relationships`, a map per (start label, type, end label) with
/// `type`, `count`, `start` and `end`. APOC returns virtual nodes and relationships holding
/// these properties; tools read them as property maps (`apoc.any.property`, `.data()`), which
/// maps answer alike.
fn meta_graph(ctx: &mut Ctx, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.meta.graph";
    arity(NAME, args, 0, 1)?;
    map_arg(NAME, "the configuration", args.first())?;
    let g = ctx.read();
    let mut labels: BTreeMap<String, i64> = BTreeMap::new();
    let mut labels_of: FxHashMap<NodeKey, Vec<String>> = FxHashMap::default();
    g.for_each_node(None, &mut |n| {
        for l in &n.labels {
            *labels.entry(l.clone()).or_default() += 1;
        }
        labels_of.insert(n.key, n.labels);
        true
    })?;
    ctx.check()?;
    let mut rels: BTreeMap<(String, String, String), i64> = BTreeMap::new();
    for (key, start) in &labels_of {
        for e in g.edges(key, Direction::Out, None, None)? {
            let end = labels_of.get(&e.dst).map(Vec::as_slice).unwrap_or_default();
            for a in start {
                for b in end {
                    *rels.entry((a.clone(), e.ty.to_string(), b.clone())).or_default() += 1;
                }
            }
        }
    }
    let map = |entries: Vec<(&str, Value)>| Value::Map(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect());
    let nodes = labels
        .into_iter()
        .map(|(l, c)| map(vec![("name", Value::String(l)), ("count", Value::Int(c))]))
        .collect();
    let relationships = rels
        .into_iter()
        .map(|((a, t, b), c)| {
            map(vec![
                ("type", Value::String(t)),
                ("count", Value::Int(c)),
                ("start", Value::String(a)),
                ("end", Value::String(b)),
            ])
        })
        .collect();
    Ok(vec![vec![Value::List(nodes), Value::List(relationships)]])
}

/// `apoc.schema.nodes()`: the node indexes and uniqueness constraints (`type` "RANGE" or
/// "UNIQUENESS"), with their size and the share of distinct values.
fn schema_nodes(ctx: &mut Ctx, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.schema.nodes";
    arity(NAME, args, 0, 1)?;
    map_arg(NAME, "the configuration", args.first())?;
    let g = ctx.read();
    let mut out = Vec::new();
    for d in g.indexes()? {
        let mut distinct: FxHashSet<String> = FxHashSet::default();
        let mut size = 0i64;
        g.for_each_node(Some(&d.label), &mut |n| {
            if let Some(v) = n.props.get(&d.property) {
                size += 1;
                distinct.insert(format!("{v:?}"));
            }
            true
        })?;
        let selectivity = if size == 0 {
            1.0
        } else {
            distinct.len() as f64 / size as f64
        };
        let s = |x: &str| Value::String(x.to_string());
        let name = format!(":{}({})", d.label, d.property);
        // A uniqueness constraint lists as itself and as the RANGE index backing it, as APOC
        // lists Neo4j's.
        let kinds: &[&str] = if d.unique { &["UNIQUENESS", "RANGE"] } else { &["RANGE"] };
        for kind in kinds {
            out.push(vec![
                s(&name),
                s(&d.label),
                Value::List(vec![s(&d.property)]),
                s("ONLINE"),
                s(kind),
                s("NO FAILURE"),
                Value::Float(100.0),
                Value::Int(size),
                Value::Float(selectivity),
                s(&format!(
                    "name: '{name}', type: '{kind}', labels: [{}], properties: [{}]",
                    d.label, d.property
                )),
            ]);
        }
    }
    Ok(out)
}
