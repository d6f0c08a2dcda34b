//! The openCypher function library (scalar and aggregating), over values and a read-only
//! view of the graph for the entity functions (`labels`, `properties`, `type`, ...).
//!
//! Conventions, as in Neo4j 5 and the openCypher TCK:
//!
//! * a `null` argument gives `null` for almost every function (`coalesce`, `exists`,
//!   `toStringOrNull` and friends are the exceptions);
//! * an argument of the wrong type is a run-time `TypeError` with detail
//!   `InvalidArgumentValue` (what the TCK expects of `toInteger([])`, `labels(1)`, ...);
//! * an argument of the right type but out of range is an `ArgumentError`
//!   (`NumberOutOfRange`: `range(1, 5, 0)`, `substring('a', -1)`, a percentile above 1);
//! * a wrong number of arguments is a compile-time `SyntaxError` `InvalidNumberOfArguments`
//!   ([`signature`] lets the planner check it before running anything).
//!
//! Temporal construction functions (`date(...)`, `duration.between(...)`) live in
//! [`crate::temporal::call`]; `toString` of temporal values delegates to
//! [`crate::temporal::to_cypher_string`].
//!
//! Entity ids: `id(n)` is the store's internal node id and `id(r)` the relationship id of
//! [`crate::value::RelData::id`]; `elementId(n)` is that node id as a decimal string and
//! `elementId(r)` is `"r"` followed by the relationship id, so the two never collide.

mod aggregate;
mod apoc;
mod convert;
mod entity;
mod list;
mod math;
pub(crate) mod spatial;
mod string;

pub use convert::{format_float, to_cypher_string};

use crate::error::{CypherError, ErrorClass, Result};
use crate::value::{Map, NodeRef, RelRef, Value};

/// What the entity functions need from the graph, implemented by the executor over the
/// query's snapshot or write transaction.
pub trait GraphAccess {
    /// A node's labels (error if deleted in this transaction).
    fn labels(&self, n: &NodeRef) -> Result<Vec<String>>;
    /// A node's properties.
    fn node_properties(&self, n: &NodeRef) -> Result<Map>;
    /// A relationship's properties.
    fn rel_properties(&self, r: &RelRef) -> Result<Map>;
    /// A node's internal id.
    fn node_id(&self, n: &NodeRef) -> Result<u64>;
    /// A relationship's id (see [`crate::value::RelData::id`]).
    fn rel_id(&self, r: &RelRef) -> Result<i64>;
}

/// The number of arguments a scalar function (`name` lowercased) takes: `(min, max)`, `max`
/// `None` for variadic functions; `None` when no scalar function has that name.
pub fn signature(name: &str) -> Option<(usize, Option<usize>)> {
    let one = Some((1, Some(1)));
    match name {
        "e" | "pi" | "rand" | "timestamp" | "randomuuid" => Some((0, Some(0))),
        "coalesce" => Some((1, None)),
        "apoc.version" => Some((0, Some(0))),
        "apoc.any.property" | "point.distance" => Some((2, Some(2))),
        "point.withinbbox" => Some((3, Some(3))),
        "atan2" | "left" | "right" | "split" | "nullif" => Some((2, Some(2))),
        "replace" => Some((3, Some(3))),
        "substring" | "range" => Some((2, Some(3))),
        "round" => Some((1, Some(3))),
        "ltrim" | "rtrim" | "btrim" => Some((1, Some(2))),
        "toupper" | "upper" | "tolower" | "lower" | "trim" | "reverse" | "size" | "char_length"
        | "character_length" | "tostring" | "tostringornull" | "tointeger" | "tointegerornull" | "tofloat"
        | "tofloatornull" | "toboolean" | "tobooleanornull" | "tobooleanlist" | "tointegerlist" | "tofloatlist"
        | "tostringlist" | "valuetype" | "abs" | "ceil" | "floor" | "sign" | "sqrt" | "exp" | "log" | "log10"
        | "sin" | "cos" | "tan" | "asin" | "acos" | "atan" | "cot" | "sinh" | "cosh" | "tanh" | "coth" | "degrees"
        | "radians" | "haversin" | "isnan" | "head" | "last" | "tail" | "isempty" | "keys" | "nodes"
        | "relationships" | "length" | "id" | "elementid" | "labels" | "type" | "properties" | "startnode"
        | "endnode" | "exists" | "point" => one,
        _ => None,
    }
}

/// Whether `name` (lowercased) is a scalar function of this library.
pub fn is_scalar(name: &str) -> bool {
    signature(name).is_some()
}

/// Calls a scalar function (`name` lowercased, dotted names as written); `None` when no
/// scalar function has that name.
pub fn call(name: &str, args: Vec<Value>, graph: &dyn GraphAccess) -> Option<Result<Value>> {
    let (min, max) = signature(name)?;
    if args.len() < min || max.is_some_and(|m| args.len() > m) {
        let expected = match max {
            Some(m) if m == min => format!("{min}"),
            Some(m) => format!("{min} to {m}"),
            None => format!("at least {min}"),
        };
        return Some(Err(CypherError::compile(
            ErrorClass::SyntaxError,
            "InvalidNumberOfArguments",
            format!("{name}() takes {expected} argument(s), got {}", args.len()),
        )));
    }
    string::call(name, &args)
        .or_else(|| math::call(name, &args))
        .or_else(|| list::call(name, &args))
        .or_else(|| convert::call(name, &args))
        .or_else(|| entity::call(name, &args, graph))
        .or_else(|| spatial::call(name, &args))
        .or_else(|| apoc::call(name, &args, graph))
}

/// Whether `name` (lowercased) is an aggregating function.
pub fn is_aggregate(name: &str) -> bool {
    AGGREGATES.contains(&name)
}

/// [`is_aggregate`] for a name as written (any case), without lowercasing it first.
pub fn is_aggregate_ignoring_case(name: &str) -> bool {
    AGGREGATES.iter().any(|a| a.eq_ignore_ascii_case(name))
}

const AGGREGATES: [&str; 10] = [
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "collect",
    "percentilecont",
    "percentiledisc",
    "stdev",
    "stdevp",
];

/// One group's running state of an aggregating function.
pub trait Aggregator: Send {
    /// Adds one row's argument values (already evaluated; `count(*)` passes none).
    fn update(&mut self, args: &[Value]) -> Result<()>;
    /// The aggregate's value.
    fn finish(&mut self) -> Result<Value>;
}

/// A fresh aggregator for `name` (lowercased); `None` when not an aggregating function.
///
/// Nulls are skipped (`count(x)` counts non-null values); with `distinct`, values already
/// seen under grouping equivalence ([`crate::compare::GroupKey`]) are skipped too. Over no
/// values: `count` 0, `sum` 0, `collect` `[]`, `stDev`/`stDevP` 0.0, the others null.
pub fn aggregator(name: &str, distinct: bool, count_star: bool) -> Option<Box<dyn Aggregator>> {
    aggregate::new(name, distinct, count_star)
}

/// The run-time error for an argument of the wrong type.
pub(crate) fn arg_type_error(func: &str, expected: &str, got: &Value) -> CypherError {
    CypherError::runtime(
        ErrorClass::TypeError,
        "InvalidArgumentValue",
        format!("{func}() expects {expected}, got {}", got.type_name()),
    )
}

/// The run-time error for an argument out of range.
pub(crate) fn arg_range_error(func: &str, message: impl std::fmt::Display) -> CypherError {
    CypherError::argument("NumberOutOfRange", format!("{func}(): {message}"))
}

/// The `i`th argument (arity has been checked; `Null` if absent).
pub(crate) fn arg(args: &[Value], i: usize) -> &Value {
    static NULL: Value = Value::Null;
    args.get(i).unwrap_or(&NULL)
}
