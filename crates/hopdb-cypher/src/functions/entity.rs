//! Graph entity functions: `id`, `elementId`, `labels`, `type`, `properties`, `keys`,
//! `startNode`, `endNode`, `nodes`, `relationships`, `length`, and the legacy
//! `exists(expr)` (true when not null).

use super::{arg, arg_type_error, GraphAccess};
use crate::error::Result;
use crate::value::{Map, NodeRef, Value};
use crate::KEY_PROPERTY;

pub(super) fn call(name: &str, args: &[Value], graph: &dyn GraphAccess) -> Option<Result<Value>> {
    let x = arg(args, 0);
    if name == "exists" {
        return Some(Ok(Value::Bool(!x.is_null())));
    }
    if x.is_null() && is_entity_function(name) {
        return Some(Ok(Value::Null));
    }
    Some(match name {
        "id" => match x {
            Value::Node(n) => graph.node_id(n).map(|id| Value::Int(id as i64)),
            Value::Relationship(r) => graph.rel_id(r).map(Value::Int),
            v => Err(arg_type_error(name, "a NODE or RELATIONSHIP", v)),
        },
        "elementid" => match x {
            Value::Node(n) => graph.node_id(n).map(|id| Value::String(id.to_string())),
            Value::Relationship(r) => graph.rel_id(r).map(|id| Value::String(format!("r{id}"))),
            v => Err(arg_type_error(name, "a NODE or RELATIONSHIP", v)),
        },
        "labels" => match x {
            Value::Node(n) => graph
                .labels(n)
                .map(|ls| Value::List(ls.into_iter().map(Value::String).collect())),
            v => Err(arg_type_error(name, "a NODE", v)),
        },
        "type" => match x {
            Value::Relationship(r) => Ok(Value::String(r.ty.to_string())),
            v => Err(arg_type_error(name, "a RELATIONSHIP", v)),
        },
        "properties" => match x {
            Value::Map(m) => Ok(Value::Map(m.clone())),
            Value::Node(n) => graph.node_properties(n).map(|m| Value::Map(without_key(m))),
            Value::Relationship(r) => graph.rel_properties(r).map(|m| Value::Map(without_key(m))),
            v => Err(arg_type_error(name, "a NODE, RELATIONSHIP or MAP", v)),
        },
        "keys" => match x {
            Value::Map(m) => Ok(key_list(m.keys())),
            Value::Node(n) => graph.node_properties(n).map(|m| key_list(without_key(m).keys())),
            Value::Relationship(r) => graph.rel_properties(r).map(|m| key_list(without_key(m).keys())),
            v => Err(arg_type_error(name, "a NODE, RELATIONSHIP or MAP", v)),
        },
        "startnode" | "endnode" => match x {
            Value::Relationship(r) => Ok(Value::Node(NodeRef::new(if name == "startnode" {
                r.src.clone()
            } else {
                r.dst.clone()
            }))),
            v => Err(arg_type_error(name, "a RELATIONSHIP", v)),
        },
        "nodes" => match x {
            Value::Path(p) => Ok(Value::List(p.nodes.iter().cloned().map(Value::Node).collect())),
            v => Err(arg_type_error(name, "a PATH", v)),
        },
        "relationships" => match x {
            Value::Path(p) => Ok(Value::List(p.rels.iter().cloned().map(Value::Relationship).collect())),
            v => Err(arg_type_error(name, "a PATH", v)),
        },
        "length" => match x {
            Value::Path(p) => Ok(Value::Int(p.rels.len() as i64)),
            v => Err(arg_type_error(name, "a PATH", v)),
        },
        _ => return None,
    })
}

fn is_entity_function(name: &str) -> bool {
    matches!(
        name,
        "id" | "elementid"
            | "labels"
            | "type"
            | "properties"
            | "keys"
            | "startnode"
            | "endnode"
            | "nodes"
            | "relationships"
            | "length"
    )
}

/// Drops the virtual key property, should the graph view report it.
fn without_key(mut m: Map) -> Map {
    m.remove(KEY_PROPERTY);
    m
}

fn key_list<'a>(keys: impl Iterator<Item = &'a String>) -> Value {
    Value::List(keys.map(|k| Value::String(k.clone())).collect())
}
