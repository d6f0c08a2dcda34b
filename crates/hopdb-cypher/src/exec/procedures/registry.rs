//! User-defined procedures: [`ProcedureSignature`], [`CypherType`], [`ProcedureFn`] (public,
//! re-exported at the crate root) and the engine's registry of them.

use crate::error::{CypherError, ErrorClass, Result};
use crate::value::Value;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, RwLock};

/// A type in a procedure signature. Every type admits `null` (the TCK's `INTEGER?`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CypherType {
    /// Any value (`ANY?`).
    Any,
    /// `BOOLEAN?`.
    Boolean,
    /// `STRING?`.
    String,
    /// An integer or a float (`NUMBER?`).
    Number,
    /// `INTEGER?`.
    Integer,
    /// `FLOAT?`; an integer argument is converted to a float.
    Float,
    /// A list whose elements have the given type (`LIST? OF INTEGER?`).
    List(Box<CypherType>),
    /// `MAP?`.
    Map,
    /// `NODE?`.
    Node,
    /// `RELATIONSHIP?`.
    Relationship,
    /// `PATH?`.
    Path,
    /// `DATE?`.
    Date,
    /// `LOCALTIME?`.
    LocalTime,
    /// `TIME?` (with a UTC offset).
    Time,
    /// `LOCALDATETIME?`.
    LocalDateTime,
    /// `DATETIME?` (with a time zone).
    DateTime,
    /// `DURATION?`.
    Duration,
    /// `POINT?`.
    Point,
}

impl CypherType {
    /// Parses a type as signatures write it: `INTEGER?`, `INTEGER`, `LIST? OF STRING?`,
    /// `LIST<INTEGER>` (any case; the `?` is optional, as every type admits null).
    pub fn parse(text: &str) -> Option<CypherType> {
        let t = text.trim();
        let t = t.strip_suffix('?').unwrap_or(t).trim();
        let upper = t.to_ascii_uppercase();
        if let Some(rest) = upper.strip_prefix("LIST") {
            let rest = rest.trim_start().strip_prefix('?').unwrap_or(rest.trim_start()).trim();
            if rest.is_empty() {
                return Some(CypherType::List(Box::new(CypherType::Any)));
            }
            let inner = match rest.strip_prefix("OF ") {
                Some(r) => r,
                None => rest.strip_prefix('<')?.strip_suffix('>')?,
            };
            return CypherType::parse(inner).map(|i| CypherType::List(Box::new(i)));
        }
        Some(match upper.as_str() {
            "ANY" => CypherType::Any,
            "BOOLEAN" | "BOOL" => CypherType::Boolean,
            "STRING" => CypherType::String,
            "NUMBER" => CypherType::Number,
            "INTEGER" | "INT" => CypherType::Integer,
            "FLOAT" => CypherType::Float,
            "MAP" => CypherType::Map,
            "NODE" => CypherType::Node,
            "RELATIONSHIP" => CypherType::Relationship,
            "PATH" => CypherType::Path,
            "DATE" => CypherType::Date,
            "LOCALTIME" | "LOCAL TIME" => CypherType::LocalTime,
            "TIME" | "ZONED TIME" => CypherType::Time,
            "LOCALDATETIME" | "LOCAL DATETIME" => CypherType::LocalDateTime,
            "DATETIME" | "ZONED DATETIME" => CypherType::DateTime,
            "DURATION" => CypherType::Duration,
            "POINT" => CypherType::Point,
            _ => return None,
        })
    }

    /// `v` converted to this type (an integer to a float for FLOAT, element-wise in lists),
    /// or `None` when `v` does not have this type. `null` is accepted by every type.
    pub fn coerce(&self, v: Value) -> Option<Value> {
        use CypherType as T;
        Some(match (self, v) {
            (_, Value::Null) => Value::Null,
            (T::Any, v) => v,
            (T::Float, Value::Int(i)) => Value::Float(i as f64),
            (T::List(inner), Value::List(l)) => {
                Value::List(l.into_iter().map(|x| inner.coerce(x)).collect::<Option<Vec<_>>>()?)
            }
            (t, v) if t.admits(&v) => v,
            _ => return None,
        })
    }

    /// Whether `v` has this type as it is (without conversion; `null` always does).
    fn admits(&self, v: &Value) -> bool {
        use CypherType as T;
        matches!(
            (self, v),
            (_, Value::Null)
                | (T::Any, _)
                | (T::Boolean, Value::Bool(_))
                | (T::String, Value::String(_))
                | (T::Number, Value::Int(_) | Value::Float(_))
                | (T::Integer, Value::Int(_))
                | (T::Float, Value::Float(_))
                | (T::Map, Value::Map(_))
                | (T::Node, Value::Node(_))
                | (T::Relationship, Value::Relationship(_))
                | (T::Path, Value::Path(_))
                | (T::Date, Value::Date(_))
                | (T::LocalTime, Value::LocalTime(_))
                | (T::Time, Value::Time(_))
                | (T::LocalDateTime, Value::LocalDateTime(_))
                | (T::DateTime, Value::DateTime(_))
                | (T::Duration, Value::Duration(_))
                | (T::Point, Value::Point(_))
        ) || matches!((self, v), (T::List(i), Value::List(l)) if l.iter().all(|x| i.admits(x)))
    }
}

impl fmt::Display for CypherType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            CypherType::Any => "ANY",
            CypherType::Boolean => "BOOLEAN",
            CypherType::String => "STRING",
            CypherType::Number => "NUMBER",
            CypherType::Integer => "INTEGER",
            CypherType::Float => "FLOAT",
            CypherType::List(inner) => return write!(f, "LIST? OF {inner}"),
            CypherType::Map => "MAP",
            CypherType::Node => "NODE",
            CypherType::Relationship => "RELATIONSHIP",
            CypherType::Path => "PATH",
            CypherType::Date => "DATE",
            CypherType::LocalTime => "LOCALTIME",
            CypherType::Time => "TIME",
            CypherType::LocalDateTime => "LOCALDATETIME",
            CypherType::DateTime => "DATETIME",
            CypherType::Duration => "DURATION",
            CypherType::Point => "POINT",
        };
        write!(f, "{name}?")
    }
}

impl std::str::FromStr for CypherType {
    type Err = CypherError;
    fn from_str(s: &str) -> Result<CypherType> {
        CypherType::parse(s).ok_or_else(|| bad_signature(format!("unknown type `{s}`")))
    }
}

/// A procedure's name and its typed inputs and outputs, in order.
///
/// A user-defined procedure is a signature and a [`ProcedureFn`], registered on a
/// [`QueryEngine`](crate::QueryEngine) with
/// [`register_procedure`](crate::QueryEngine::register_procedure) and called from Cypher
/// like the built-in ones:
///
/// ```
/// use hopdb_cypher::{params, CypherType, ProcedureSignature, QueryEngine, Value};
/// use hopdb_database::Database;
/// use std::sync::Arc;
///
/// let engine = QueryEngine::new(Database::in_memory());
/// let sig = ProcedureSignature::new("my.double")
///     .input("x", CypherType::Integer)
///     .output("doubled", CypherType::Integer);
/// engine
///     .register_procedure(sig, Arc::new(|args: &[Value]| {
///         Ok(match &args[0] {
///             Value::Int(i) => vec![vec![Value::Int(i * 2)]],
///             _ => vec![vec![Value::Null]],
///         })
///     }))
///     .unwrap();
/// let rows = engine
///     .query("UNWIND [1, 2] AS x CALL my.double(x) YIELD doubled RETURN doubled", &params! {})
///     .unwrap()
///     .collect_rows()
///     .unwrap();
/// assert_eq!(rows, vec![vec![Value::Int(2)], vec![Value::Int(4)]]);
/// ```
///
/// Semantics (openCypher's): the arguments are checked against the signature before the
/// query runs (count, and the type of literal and parameter arguments: compile-time
/// `InvalidNumberOfArguments` / `InvalidArgumentType`), and again as they are evaluated
/// (run-time `InvalidArgumentType`); an INTEGER passed to a FLOAT input arrives as a FLOAT.
/// Every type is nullable (`INTEGER?`): `null` is accepted anywhere. A standalone
/// `CALL my.proc` (no parentheses) takes its arguments from the same-named parameters. A
/// procedure with no outputs (`:: ()`, "void") leaves the rows it is called for unchanged;
/// inside a query, a procedure with outputs needs `YIELD`. Rows the closure returns must have
/// one value per output, in the signature's order. Names match ignoring case, like the
/// built-in procedures, and may not shadow one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcedureSignature {
    /// The dotted name Cypher calls it by, e.g. `my.proc`.
    pub name: String,
    /// Input parameters: (name, type), in argument order.
    pub inputs: Vec<(String, CypherType)>,
    /// Output fields: (name, type), in the order of each returned row's values. Empty: a
    /// void procedure.
    pub outputs: Vec<(String, CypherType)>,
}

impl ProcedureSignature {
    /// A signature with no inputs and no outputs yet.
    pub fn new(name: impl Into<String>) -> ProcedureSignature {
        ProcedureSignature {
            name: name.into(),
            inputs: Vec::new(),
            outputs: Vec::new(),
        }
    }

    /// Adds an input parameter (builder style).
    pub fn input(mut self, name: impl Into<String>, ty: CypherType) -> ProcedureSignature {
        self.inputs.push((name.into(), ty));
        self
    }

    /// Adds an output field (builder style).
    pub fn output(mut self, name: impl Into<String>, ty: CypherType) -> ProcedureSignature {
        self.outputs.push((name.into(), ty));
        self
    }

    /// Parses `name(in :: TYPE, ...) :: (out :: TYPE, ...)`, as the TCK and Neo4j write
    /// signatures (`test.my.proc(in :: INTEGER?) :: (out :: STRING?)`; `:: ()` for none).
    pub fn parse(text: &str) -> Result<ProcedureSignature> {
        let text = text.trim();
        let open = text.find('(').ok_or_else(|| bad_signature("missing `(`"))?;
        let name = text[..open].trim();
        if name.is_empty()
            || !name
                .split('.')
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'))
        {
            return Err(bad_signature(format!("bad procedure name `{name}`")));
        }
        let (inputs, rest) = fields(&text[open..])?;
        let rest = rest.trim();
        let rest = rest
            .strip_prefix("::")
            .ok_or_else(|| bad_signature("missing `::` before the outputs"))?;
        let (outputs, rest) = fields(rest.trim_start())?;
        if !rest.trim().is_empty() {
            return Err(bad_signature(format!("unexpected `{}`", rest.trim())));
        }
        Ok(ProcedureSignature {
            name: name.to_string(),
            inputs,
            outputs,
        })
    }
}

/// Parses `(name :: TYPE, ...)` at the start of `s`; returns the fields and the text after.
fn fields(s: &str) -> Result<(Vec<(String, CypherType)>, &str)> {
    let body = s.strip_prefix('(').ok_or_else(|| bad_signature("missing `(`"))?;
    // Types have no parentheses, so the first `)` closes the list.
    let close = body.find(')').ok_or_else(|| bad_signature("missing `)`"))?;
    let mut out = Vec::new();
    let list = body[..close].trim();
    if !list.is_empty() {
        for item in list.split(',') {
            let (n, t) = item
                .split_once("::")
                .ok_or_else(|| bad_signature(format!("`{}` needs `name :: TYPE`", item.trim())))?;
            let n = n.trim();
            if n.is_empty() {
                return Err(bad_signature("a field without a name"));
            }
            out.push((n.to_string(), t.trim().parse()?));
        }
    }
    Ok((out, &body[close + 1..]))
}

impl fmt::Display for ProcedureSignature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |l: &[(String, CypherType)]| {
            l.iter()
                .map(|(n, t)| format!("{n} :: {t}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        write!(f, "{}({}) :: ({})", self.name, list(&self.inputs), list(&self.outputs))
    }
}

fn bad_signature(msg: impl Into<String>) -> CypherError {
    CypherError::compile(
        ErrorClass::ProcedureError,
        "InvalidProcedureSignature",
        format!("invalid procedure signature: {}", msg.into()),
    )
}

/// A procedure's body: called once per row the CALL runs for, with the arguments (one per
/// input, converted to the input types); returns rows of one value per output, in order.
pub type ProcedureFn = Arc<dyn Fn(&[Value]) -> Result<Vec<Vec<Value>>> + Send + Sync>;

/// A registered procedure.
pub(crate) struct UserProcedure {
    pub signature: ProcedureSignature,
    pub body: ProcedureFn,
}

/// The user-defined procedures of an engine, shared by its clones.
#[derive(Clone, Default)]
pub(crate) struct ProcedureRegistry {
    procs: Arc<RwLock<HashMap<String, Arc<UserProcedure>>>>,
}

impl ProcedureRegistry {
    /// Adds (or replaces) a procedure. Names that a built-in procedure has are refused, as
    /// are duplicate input or output names.
    pub fn register(&self, signature: ProcedureSignature, body: ProcedureFn) -> Result<()> {
        if super::is_builtin(&signature.name) {
            return Err(CypherError::compile(
                ErrorClass::ProcedureError,
                "ProcedureRegistrationFailed",
                format!("`{}` is the name of a built-in procedure", signature.name),
            ));
        }
        for (what, list) in [("input", &signature.inputs), ("output", &signature.outputs)] {
            for (i, (n, _)) in list.iter().enumerate() {
                if list[..i].iter().any(|(m, _)| m == n) {
                    return Err(bad_signature(format!("duplicate {what} `{n}`")));
                }
            }
        }
        let key = signature.name.to_lowercase();
        let mut m = self.procs.write().map_err(|_| poisoned())?;
        m.insert(key, Arc::new(UserProcedure { signature, body }));
        Ok(())
    }

    /// Removes a procedure; whether it was registered.
    pub fn unregister(&self, name: &str) -> bool {
        self.procs
            .write()
            .map(|mut m| m.remove(&name.to_lowercase()).is_some())
            .unwrap_or(false)
    }

    /// The procedure named `name` (any case).
    pub fn get(&self, name: &str) -> Option<Arc<UserProcedure>> {
        self.procs.read().ok()?.get(&name.to_lowercase()).cloned()
    }

    /// Every registered signature, by name.
    pub fn signatures(&self) -> Vec<ProcedureSignature> {
        let mut v: Vec<ProcedureSignature> = self
            .procs
            .read()
            .map(|m| m.values().map(|p| p.signature.clone()).collect())
            .unwrap_or_default();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v
    }
}

fn poisoned() -> CypherError {
    CypherError::runtime(
        ErrorClass::ProcedureError,
        "ProcedureRegistrationFailed",
        "the procedure registry's lock is poisoned",
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn parses_types() {
        assert_eq!(CypherType::parse("INTEGER?"), Some(CypherType::Integer));
        assert_eq!(CypherType::parse("float"), Some(CypherType::Float));
        assert_eq!(
            CypherType::parse("LIST? OF STRING?"),
            Some(CypherType::List(Box::new(CypherType::String)))
        );
        assert_eq!(
            CypherType::parse("LIST<LIST<INTEGER>>"),
            Some(CypherType::List(Box::new(CypherType::List(Box::new(
                CypherType::Integer
            )))))
        );
        assert_eq!(CypherType::parse("WHATEVER?"), None);
        assert_eq!(
            CypherType::List(Box::new(CypherType::Integer)).to_string(),
            "LIST? OF INTEGER?"
        );
    }

    #[test]
    fn coerces() {
        assert_eq!(CypherType::Float.coerce(Value::Int(2)), Some(Value::Float(2.0)));
        assert_eq!(CypherType::Number.coerce(Value::Int(2)), Some(Value::Int(2)));
        assert_eq!(CypherType::Integer.coerce(Value::Bool(true)), None);
        assert_eq!(CypherType::Integer.coerce(Value::Null), Some(Value::Null));
        let fl = CypherType::List(Box::new(CypherType::Float));
        assert_eq!(
            fl.coerce(Value::List(vec![Value::Int(1), Value::Null])),
            Some(Value::List(vec![Value::Float(1.0), Value::Null]))
        );
        assert_eq!(fl.coerce(Value::List(vec![Value::from("x")])), None);
    }

    #[test]
    fn parses_signatures() {
        let s =
            ProcedureSignature::parse("test.my.proc(name :: STRING?, in :: INTEGER?) :: (out :: INTEGER?)").unwrap();
        assert_eq!(s.name, "test.my.proc");
        assert_eq!(
            s.inputs,
            vec![("name".into(), CypherType::String), ("in".into(), CypherType::Integer)]
        );
        assert_eq!(s.outputs, vec![("out".into(), CypherType::Integer)]);
        assert_eq!(
            s.to_string(),
            "test.my.proc(name :: STRING?, in :: INTEGER?) :: (out :: INTEGER?)"
        );
        let v = ProcedureSignature::parse("test.doNothing() :: ()").unwrap();
        assert!(v.inputs.is_empty() && v.outputs.is_empty());
        let spaced = ProcedureSignature::parse("p(in :: INTEGER?) :: (a :: INTEGER?, b :: INTEGER?) ").unwrap();
        assert_eq!(spaced.outputs.len(), 2);
        assert!(ProcedureSignature::parse("p(in INTEGER) :: ()").is_err());
        assert!(ProcedureSignature::parse("p() :: (x :: FOO?)").is_err());
        assert!(ProcedureSignature::parse("p()").is_err());
        assert!(ProcedureSignature::parse("(x :: INTEGER) :: ()").is_err());
    }
}
