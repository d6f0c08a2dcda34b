//! The APOC functions tools call: `apoc.version()` and `apoc.any.property(thing, key)`
//! (langchain-neo4j's enhanced schema reads the virtual entities of `apoc.meta.graph`, which
//! HopDB returns as maps, with it).

use super::GraphAccess;
use crate::error::Result;
use crate::value::Value;

/// The APOC release whose behaviour these functions and the `apoc.*` procedures follow.
pub(crate) const APOC_VERSION: &str = "5.26.0";

pub(super) fn call(name: &str, args: &[Value], graph: &dyn GraphAccess) -> Option<Result<Value>> {
    Some(match name {
        "apoc.version" => Ok(Value::String(APOC_VERSION.into())),
        "apoc.any.property" => {
            let key = match args.get(1) {
                Some(Value::String(k)) => k,
                Some(Value::Null) => return Some(Ok(Value::Null)),
                Some(o) => return Some(Err(super::arg_type_error("apoc.any.property", "a string key", o))),
                None => return Some(Ok(Value::Null)),
            };
            match args.first() {
                Some(Value::Map(m)) => Ok(m.get(key).cloned().unwrap_or(Value::Null)),
                Some(Value::Node(n)) => graph
                    .node_properties(n)
                    .map(|p| p.get(key).cloned().unwrap_or(Value::Null)),
                Some(Value::Relationship(r)) => graph
                    .rel_properties(r)
                    .map(|p| p.get(key).cloned().unwrap_or(Value::Null)),
                Some(Value::Null) | None => Ok(Value::Null),
                Some(o) => Err(super::arg_type_error(
                    "apoc.any.property",
                    "a node, relationship or map",
                    o,
                )),
            }
        }
        _ => return None,
    })
}
