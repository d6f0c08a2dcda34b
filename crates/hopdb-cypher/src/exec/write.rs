//! The updating clauses: CREATE, MERGE, SET, REMOVE, DELETE, run row by row inside the
//! query's write transaction.

use super::ctx::Ctx;
use super::eval::{eval, Scope};
use super::pattern;
use super::Table;
use crate::ast::{Expr, NodePattern, PatternPart, RelDirection, RelPattern, RemoveItem, SetItem};
use crate::engine::KEY_PROPERTY;
use crate::error::{CypherError, ErrorClass, Result};
use crate::value::{Map, NodeRef, PathValue, RelRef, Value};
use hopdb_database::{Direction, EdgeTypeOptions, NodeKey, Props, WriteMode};

fn semantic(detail: &'static str, msg: impl Into<String>) -> CypherError {
    CypherError::compile(ErrorClass::SyntaxError, detail, msg)
}

/// A Cypher value as a stored property value; nodes, relationships, paths and maps are refused.
fn storable(key: &str, v: &Value) -> Result<hopdb_database::Value> {
    if let Some(t) = crate::temporal::to_store(v) {
        return Ok(t);
    }
    let bad = |what: &str| {
        CypherError::runtime(
            ErrorClass::TypeError,
            "InvalidPropertyType",
            format!("property `{key}` cannot hold a {what}: property values are scalars or lists of scalars"),
        )
    };
    match v {
        Value::Map(_) | Value::Node(_) | Value::Relationship(_) | Value::Path(_) => Err(bad(v.type_name())),
        Value::List(l) => {
            let mut systems = l.iter().filter_map(|x| match x {
                Value::Point(p) => Some(p.crs),
                _ => None,
            });
            if let Some(first) = systems.next() {
                if systems.any(|c| c != first) {
                    return Err(bad("list of points in different coordinate systems"));
                }
            }
            let mut out = Vec::with_capacity(l.len());
            for x in l {
                match x {
                    Value::List(_) | Value::Map(_) | Value::Node(_) | Value::Relationship(_) | Value::Path(_) => {
                        return Err(bad("list of lists, maps or entities"))
                    }
                    _ => out.push(storable(key, x)?),
                }
            }
            Ok(hopdb_database::Value::List(out))
        }
        other => other.to_store().ok_or_else(|| bad(other.type_name())),
    }
}

/// Evaluates a pattern's property map for writing; nulls are dropped.
fn prop_map(ctx: &Ctx, e: Option<&crate::ast::Expr>, scope: &Scope) -> Result<Map> {
    let Some(e) = e else { return Ok(Map::new()) };
    match eval(ctx, e, scope)? {
        Value::Map(m) => Ok(m.into_iter().filter(|(_, v)| !v.is_null()).collect()),
        Value::Null => Ok(Map::new()),
        o => Err(CypherError::type_error(format!(
            "properties must be a map, got {}",
            o.type_name()
        ))),
    }
}

fn to_props(m: &Map) -> Result<Props> {
    m.iter().map(|(k, v)| Ok((k.clone(), storable(k, v)?))).collect()
}

fn bound_node(names: &[String], row: &[Value], var: &Option<String>) -> Option<Value> {
    let v = var.as_ref()?;
    let i = names.iter().position(|n| n == v)?;
    Some(row[i].clone())
}

/// Creates the node of `np` (or returns the bound one).
fn create_node(ctx: &mut Ctx, np: &NodePattern, names: &[String], row: &[Value]) -> Result<NodeRef> {
    if let Some(v) = bound_node(names, row, &np.var) {
        return match v {
            Value::Node(n) => {
                if !np.labels.is_empty() || np.props.is_some() {
                    return Err(semantic(
                        "VariableAlreadyBound",
                        format!("variable `{}` is already bound", np.var.clone().unwrap_or_default()),
                    ));
                }
                Ok(n)
            }
            Value::Null => Err(CypherError::runtime(
                ErrorClass::SemanticError,
                "CreateNodeOnNull",
                "cannot create a relationship to a null node",
            )),
            o => Err(semantic(
                "VariableTypeConflict",
                format!("expected a node, got {}", o.type_name()),
            )),
        };
    }
    let scope = Scope::row(names, row);
    let mut props = prop_map(ctx, np.props.as_deref(), &scope)?;
    let key = props.remove(KEY_PROPERTY);
    let sp = to_props(&props)?;
    let labels: Vec<&str> = np.labels.iter().map(String::as_str).collect();
    let (n_props, n_labels) = (sp.len() as u64, {
        let mut l = np.labels.clone();
        l.sort();
        l.dedup();
        l.len() as u64
    });
    let tx = ctx.tx()?;
    let key = match key {
        None => tx.create_node(&labels, sp)?,
        Some(k) => {
            let k = match k {
                Value::Int(i) => NodeKey::Int(i),
                Value::String(s) => NodeKey::Str(s),
                o => {
                    return Err(CypherError::type_error(format!(
                        "`{KEY_PROPERTY}` must be a string or an integer, got {}",
                        o.type_name()
                    )))
                }
            };
            if tx.has_node(&k)? {
                return Err(CypherError::runtime(
                    ErrorClass::ConstraintVerificationFailed,
                    "KeyAlreadyExists",
                    format!("a node with key {k} already exists"),
                ));
            }
            tx.upsert_node(k.clone(), &labels, sp, WriteMode::Replace)?;
            k
        }
    };
    ctx.stats.nodes_created += 1;
    ctx.stats.labels_added += n_labels;
    ctx.stats.properties_set += n_props;
    Ok(NodeRef::new(key))
}

/// Creates one relationship between existing nodes.
fn create_rel(ctx: &mut Ctx, rp: &RelPattern, a: &NodeRef, b: &NodeRef, scope: &Scope) -> Result<RelRef> {
    let (src, dst) = match rp.direction {
        RelDirection::Left => (b, a),
        _ => (a, b),
    };
    let ty = rp.types.first().cloned().unwrap_or_default();
    let props = prop_map(ctx, rp.props.as_deref(), scope)?;
    let sp = to_props(&props)?;
    let n_props = sp.len() as u64;
    let t = match ctx.edge_types.get(&ty) {
        Some(t) => t.clone(),
        None => {
            // A new type allows parallel relationships, as in Neo4j.
            let tx = ctx.tx()?;
            let existing = tx
                .edge_types()?
                .into_iter()
                .find(|(t, _)| *t.name == *ty)
                .map(|(t, _)| t);
            let t = match existing {
                Some(t) => t,
                None => tx.define_edge_type(
                    &ty,
                    EdgeTypeOptions {
                        undirected: false,
                        multi: true,
                    },
                )?,
            };
            ctx.edge_types.insert(ty.clone(), t.clone());
            t
        }
    };
    let tx = ctx.tx()?;
    let edge_id = if t.options.multi {
        tx.add_edge(src.key.clone(), &ty, dst.key.clone(), None, sp)?
    } else {
        if tx.has_edge(&src.key, &dst.key, Some(&ty), false)? {
            return Err(CypherError::runtime(
                ErrorClass::ConstraintVerificationFailed,
                "SimpleEdgeTypeExists",
                format!(
                    "relationship type `{ty}` holds one relationship per pair of nodes (a simple type, created outside Cypher) and {} -> {} already has one",
                    src.key, dst.key
                ),
            ));
        }
        tx.upsert_edge(src.key.clone(), &ty, dst.key.clone(), None, sp, WriteMode::Replace)?;
        0
    };
    ctx.stats.relationships_created += 1;
    ctx.stats.properties_set += n_props;
    Ok(RelRef {
        src: src.key.clone(),
        ty: ty.as_str().into(),
        dst: dst.key.clone(),
        edge_id,
        data: None,
    })
}

/// Creates a pattern part for one row, binding its new variables; returns the extended row.
fn create_part(ctx: &mut Ctx, part: &PatternPart, names: &mut Vec<String>, row: &mut Vec<Value>) -> Result<()> {
    let el = &part.element;
    let bind = |names: &mut Vec<String>, row: &mut Vec<Value>, var: &Option<String>, v: Value| {
        if let Some(var) = var {
            match names.iter().position(|n| n == var) {
                Some(i) => row[i] = v,
                None => {
                    names.push(var.clone());
                    row.push(v);
                }
            }
        }
    };
    let first = create_node(ctx, &el.start, names, row)?;
    bind(names, row, &el.start.var, Value::Node(first.clone()));
    let mut path = PathValue {
        nodes: vec![first.clone()],
        rels: Vec::new(),
    };
    let mut prev = first;
    for (rp, np) in &el.chain {
        if rp.types.len() != 1 {
            return Err(semantic(
                "NoSingleRelationshipType",
                "a relationship created by CREATE or MERGE needs exactly one type",
            ));
        }
        if rp.length.is_some() {
            return Err(semantic(
                "CreatingVarLength",
                "variable-length relationships cannot be created",
            ));
        }
        let next = create_node(ctx, np, names, row)?;
        bind(names, row, &np.var, Value::Node(next.clone()));
        let r = {
            let scope = Scope::row(names, row);
            create_rel(ctx, rp, &prev, &next, &scope)?
        };
        bind(names, row, &rp.var, Value::Relationship(r.clone()));
        path.rels.push(r);
        path.nodes.push(next.clone());
        prev = next;
    }
    bind(names, row, &part.var, Value::Path(path));
    Ok(())
}

/// CREATE.
pub(crate) fn create(ctx: &mut Ctx, t: Table, parts: &[PatternPart]) -> Result<Table> {
    for p in parts {
        for (rp, _) in &p.element.chain {
            if rp.direction == RelDirection::Both {
                return Err(semantic(
                    "RequiresDirectedRelationship",
                    "CREATE needs a direction on every relationship",
                ));
            }
        }
    }
    let mut out_names = t.names.clone();
    let mut out = Vec::with_capacity(t.rows.len());
    for row in t.rows {
        ctx.check()?;
        let mut names = t.names.clone();
        let mut r = row;
        for p in parts {
            create_part(ctx, p, &mut names, &mut r)?;
        }
        out_names = names;
        out.push(r);
    }
    if out.is_empty() {
        out_names.extend(pattern::new_vars(parts, &t.names));
    }
    Ok(Table {
        names: out_names,
        rows: out,
    })
}

/// MERGE.
pub(crate) fn merge(
    ctx: &mut Ctx,
    t: Table,
    part: &PatternPart,
    on_create: &[SetItem],
    on_match: &[SetItem],
) -> Result<Table> {
    let mut all = t.names.clone();
    all.extend(pattern::new_vars(std::slice::from_ref(part), &t.names));
    let mut out = Vec::new();
    for row in t.rows {
        ctx.check()?;
        // Null property values in a MERGE pattern can never match.
        let mut matches = Vec::new();
        pattern::for_each_match(ctx, &t.names, &row, std::slice::from_ref(part), &mut |_, r| {
            matches.push(r.to_vec());
            Ok(true)
        })?;
        if matches.is_empty() {
            check_merge_nulls(ctx, part, &t.names, &row)?;
            let mut names = t.names.clone();
            let mut r = row.clone();
            create_part(ctx, part, &mut names, &mut r)?;
            let r = reorder(&names, r, &all);
            let r = set_items(ctx, &all, r, on_create)?;
            out.push(r);
        } else {
            for m in matches {
                let r = set_items(ctx, &all, m, on_match)?;
                out.push(r);
            }
        }
    }
    Ok(Table { names: all, rows: out })
}

fn check_merge_nulls(ctx: &Ctx, part: &PatternPart, names: &[String], row: &[Value]) -> Result<()> {
    let scope = Scope::row(names, row);
    let check = |e: &Option<Box<crate::ast::Expr>>| -> Result<()> {
        if let Some(e) = e {
            if let Value::Map(m) = eval(ctx, e, &scope)? {
                if let Some((k, _)) = m.iter().find(|(_, v)| v.is_null()) {
                    return Err(CypherError::runtime(
                        ErrorClass::SemanticError,
                        "MergeReadOwnWrites",
                        format!("cannot merge using null property value for `{k}`"),
                    ));
                }
            }
        }
        Ok(())
    };
    check(&part.element.start.props)?;
    for (r, n) in &part.element.chain {
        check(&r.props)?;
        check(&n.props)?;
    }
    Ok(())
}

fn reorder(names: &[String], row: Vec<Value>, want: &[String]) -> Vec<Value> {
    want.iter()
        .map(|w| {
            names
                .iter()
                .position(|n| n == w)
                .map(|i| row[i].clone())
                .unwrap_or(Value::Null)
        })
        .collect()
}

/// SET.
pub(crate) fn set(ctx: &mut Ctx, t: Table, items: &[SetItem]) -> Result<Table> {
    let mut out = Vec::with_capacity(t.rows.len());
    for row in t.rows {
        out.push(set_items(ctx, &t.names, row, items)?);
    }
    Ok(Table {
        names: t.names,
        rows: out,
    })
}

fn set_items(ctx: &mut Ctx, names: &[String], row: Vec<Value>, items: &[SetItem]) -> Result<Vec<Value>> {
    for it in items {
        let scope = Scope::row(names, &row);
        match it {
            SetItem::Property { target, key, value } => {
                let target = eval(ctx, target, &scope)?;
                let v = eval(ctx, value, &scope)?;
                let mut change = Map::new();
                change.insert(key.clone(), v);
                update_props(ctx, &target, change, true)?;
            }
            SetItem::Properties { var, value, merge } => {
                let target = scope.get(var).cloned().unwrap_or(Value::Null);
                let v = eval(ctx, value, &scope)?;
                let m = match v {
                    Value::Map(m) => m,
                    Value::Node(n) => crate::functions::GraphAccess::node_properties(ctx, &n)?,
                    Value::Relationship(r) => crate::functions::GraphAccess::rel_properties(ctx, &r)?,
                    Value::Null => Map::new(),
                    o => {
                        return Err(CypherError::type_error(format!(
                            "SET {var} = ... needs a map, got {}",
                            o.type_name()
                        )))
                    }
                };
                update_props(ctx, &target, m, *merge)?;
            }
            SetItem::Labels { var, labels, dynamic } => {
                let target = scope.get(var).cloned().unwrap_or(Value::Null);
                let labels = with_dynamic(ctx, labels, dynamic, &scope)?;
                change_labels(ctx, &target, &labels, true)?;
            }
        }
    }
    Ok(row)
}

/// REMOVE.
pub(crate) fn remove(ctx: &mut Ctx, t: Table, items: &[RemoveItem]) -> Result<Table> {
    for row in &t.rows {
        for it in items {
            let scope = Scope::row(&t.names, row);
            match it {
                RemoveItem::Property { target, key } => {
                    let target = eval(ctx, target, &scope)?;
                    let mut change = Map::new();
                    change.insert(key.clone(), Value::Null);
                    update_props(ctx, &target, change, true)?;
                }
                RemoveItem::Labels { var, labels, dynamic } => {
                    let target = scope.get(var).cloned().unwrap_or(Value::Null);
                    let labels = with_dynamic(ctx, labels, dynamic, &scope)?;
                    change_labels(ctx, &target, &labels, false)?;
                }
            }
        }
    }
    Ok(t)
}

/// Applies property changes to a node or relationship: `merge` keeps other properties;
/// null values remove.
fn update_props(ctx: &mut Ctx, target: &Value, change: Map, merge: bool) -> Result<()> {
    match target {
        Value::Null => Ok(()),
        Value::Node(n) => {
            if change.contains_key(KEY_PROPERTY) {
                return Err(CypherError::runtime(
                    ErrorClass::SemanticError,
                    "KeyIsImmutable",
                    format!("`{KEY_PROPERTY}` is the node's store key and cannot be changed"),
                ));
            }
            let node = ctx.live_node(n)?;
            let mut props = node.props.clone();
            let (set, removed) = apply(&mut props, change, merge)?;
            let labels: Vec<&str> = node.labels.iter().map(String::as_str).collect();
            ctx.tx()?
                .upsert_node(n.key.clone(), &labels, props, WriteMode::Replace)?;
            ctx.stats.properties_set += set;
            ctx.stats.properties_removed += removed;
            Ok(())
        }
        Value::Relationship(r) => {
            let Some(e) = ctx.edge(r)? else {
                return Err(CypherError::runtime(
                    ErrorClass::EntityNotFound,
                    "DeletedEntityAccess",
                    "the relationship was deleted",
                ));
            };
            let mut props = e.props.clone();
            let (set, removed) = apply(&mut props, change, merge)?;
            let tx = ctx.tx()?;
            if r.edge_id != 0 {
                tx.update_edge_by_id(r.at(), e.weight, props, WriteMode::Replace)?;
            } else {
                tx.upsert_edge(r.src.clone(), &r.ty, r.dst.clone(), e.weight, props, WriteMode::Replace)?;
            }
            ctx.stats.properties_set += set;
            ctx.stats.properties_removed += removed;
            Ok(())
        }
        o => Err(CypherError::type_error(format!(
            "cannot set properties on a {}",
            o.type_name()
        ))),
    }
}

/// Applies `change` to `props`; returns (set, removed) counts.
fn apply(props: &mut Props, change: Map, merge: bool) -> Result<(u64, u64)> {
    let (mut set, mut removed) = (0, 0);
    if !merge {
        for k in props.keys() {
            if change.get(k).is_none_or(|v| v.is_null()) {
                removed += 1;
            }
        }
        props.clear();
    }
    for (k, v) in change {
        if v.is_null() {
            if props.remove(&k).is_some() {
                removed += 1;
            }
        } else {
            let sv = storable(&k, &v)?;
            props.insert(k, sv);
            set += 1;
        }
    }
    Ok((set, removed))
}

/// The static labels plus the values of the dynamic ones (`:$(expr)`: a string or a list of
/// strings; Neo4j refuses null and the empty string).
fn with_dynamic(ctx: &Ctx, labels: &[String], dynamic: &[Expr], scope: &Scope) -> Result<Vec<String>> {
    let mut out = labels.to_vec();
    for e in dynamic {
        let v = eval(ctx, e, scope)?;
        let items = match v {
            Value::List(l) => l,
            v => vec![v],
        };
        for item in items {
            match item {
                Value::String(s) if !s.is_empty() => out.push(s),
                Value::String(_) => {
                    return Err(CypherError::type_error(
                        "a dynamic label must be a non-empty string, not ''",
                    ))
                }
                o => {
                    return Err(CypherError::type_error(format!(
                        "a dynamic label must be a non-empty string, not {}",
                        o.type_name()
                    )))
                }
            }
        }
    }
    Ok(out)
}

fn change_labels(ctx: &mut Ctx, target: &Value, labels: &[String], add: bool) -> Result<()> {
    let n = match target {
        Value::Null => return Ok(()),
        Value::Node(n) => n,
        o => {
            return Err(CypherError::type_error(format!(
                "labels belong to nodes, not a {}",
                o.type_name()
            )))
        }
    };
    let node = ctx.live_node(n)?;
    let mut have = node.labels.clone();
    let mut changed = 0;
    for l in labels {
        let present = have.contains(l);
        if add && !present {
            have.push(l.clone());
            changed += 1;
        } else if !add && present {
            have.retain(|x| x != l);
            changed += 1;
        }
    }
    if changed > 0 {
        let ls: Vec<&str> = have.iter().map(String::as_str).collect();
        ctx.tx()?
            .upsert_node(n.key.clone(), &ls, node.props.clone(), WriteMode::Replace)?;
    }
    if add {
        ctx.stats.labels_added += changed;
    } else {
        ctx.stats.labels_removed += changed;
    }
    Ok(())
}

/// DELETE / DETACH DELETE.
pub(crate) fn delete(ctx: &mut Ctx, t: Table, exprs: &[crate::ast::Expr], detach: bool) -> Result<Table> {
    let mut nodes: Vec<NodeRef> = Vec::new();
    let mut rels: Vec<RelRef> = Vec::new();
    for row in &t.rows {
        let scope = Scope::row(&t.names, row);
        for e in exprs {
            collect_deletes(eval(ctx, e, &scope)?, &mut nodes, &mut rels)?;
        }
    }
    rels.dedup();
    for r in rels {
        if ctx.edge(&r)?.is_none() {
            continue;
        }
        let tx = ctx.tx()?;
        if r.edge_id != 0 {
            tx.delete_edge_by_id(r.at())?;
        } else {
            tx.delete_edge(r.src.clone(), &r.ty, r.dst.clone())?;
        }
        ctx.stats.relationships_deleted += 1;
    }
    for n in nodes {
        if ctx.node(&n.key)?.is_none() {
            continue;
        }
        let deg = ctx.read().degree(&n.key, Direction::Both, None)?.count;
        if deg > 0 && !detach {
            return Err(CypherError::runtime(
                ErrorClass::ConstraintVerificationFailed,
                "DeleteConnectedNode",
                format!(
                    "cannot delete node {} because it still has relationships; use DETACH DELETE",
                    n.key
                ),
            ));
        }
        if detach {
            // Count the relationships a detach removes (a self-loop counts twice in degree).
            let edges = super::adjacency::expand(ctx, &n.key, RelDirection::Both, &[])?;
            ctx.stats.relationships_deleted += edges.len() as u64;
        }
        ctx.tx()?.delete_node(n.key.clone())?;
        ctx.stats.nodes_deleted += 1;
    }
    Ok(t)
}

fn collect_deletes(v: Value, nodes: &mut Vec<NodeRef>, rels: &mut Vec<RelRef>) -> Result<()> {
    match v {
        Value::Null => Ok(()),
        Value::Node(n) => {
            if !nodes.contains(&n) {
                nodes.push(n);
            }
            Ok(())
        }
        Value::Relationship(r) => {
            if !rels.contains(&r) {
                rels.push(r);
            }
            Ok(())
        }
        Value::Path(p) => {
            for r in p.rels {
                collect_deletes(Value::Relationship(r), nodes, rels)?;
            }
            for n in p.nodes {
                collect_deletes(Value::Node(n), nodes, rels)?;
            }
            Ok(())
        }
        Value::List(l) => {
            for x in l {
                collect_deletes(x, nodes, rels)?;
            }
            Ok(())
        }
        o => Err(CypherError::type_error(format!(
            "DELETE expects a node, relationship or path, got {}",
            o.type_name()
        ))),
    }
}
