//! Conversion functions: `toInteger`, `toFloat`, `toBoolean`, `toString`, their `...OrNull`
//! forms, the `to...List` forms, and `valueType`. Unparsable strings give null; values of a
//! type that never converts are a type error (`...OrNull` gives null instead).

use super::{arg, arg_type_error};
use crate::compare::is_temporal;
use crate::error::Result;
use crate::temporal;
use crate::value::Value;

pub(super) fn call(name: &str, args: &[Value]) -> Option<Result<Value>> {
    let x = arg(args, 0);
    Some(match name {
        "tointeger" => to_integer(x).ok_or_else(|| arg_type_error(name, "a STRING, number or BOOLEAN", x)),
        "tofloat" => to_float(x).ok_or_else(|| arg_type_error(name, "a STRING or number", x)),
        "toboolean" => to_boolean(x).ok_or_else(|| arg_type_error(name, "a STRING, BOOLEAN or INTEGER", x)),
        "tostring" => {
            to_string_value(x).ok_or_else(|| arg_type_error(name, "a STRING, number, BOOLEAN or temporal value", x))
        }
        "tointegerornull" => Ok(to_integer(x).unwrap_or(Value::Null)),
        "tofloatornull" => Ok(to_float(x).unwrap_or(Value::Null)),
        "tobooleanornull" => Ok(to_boolean(x).unwrap_or(Value::Null)),
        "tostringornull" => Ok(to_string_value(x).unwrap_or(Value::Null)),
        "tointegerlist" => map_list(name, x, to_integer),
        "tofloatlist" => map_list(name, x, to_float),
        "tobooleanlist" => map_list(name, x, to_boolean),
        "tostringlist" => map_list(name, x, to_string_value),
        "valuetype" => Ok(Value::String(value_type(x))),
        _ => return None,
    })
}

fn map_list(name: &str, x: &Value, f: fn(&Value) -> Option<Value>) -> Result<Value> {
    match x {
        Value::Null => Ok(Value::Null),
        Value::List(l) => Ok(Value::List(l.iter().map(|v| f(v).unwrap_or(Value::Null)).collect())),
        v => Err(arg_type_error(name, "a LIST", v)),
    }
}

/// Parses a float the way Java's `Double.parseDouble` does (surrounding whitespace allowed).
fn parse_float(s: &str) -> Option<f64> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    // Rust also accepts "inf" and "infinity" in any case; Java only "Infinity" and "NaN".
    if body.starts_with("inf") || body.starts_with("nan") {
        return match t.trim_start_matches(['+', '-']) {
            "Infinity" | "NaN" => t.parse().ok(),
            _ => None,
        };
    }
    t.parse().ok()
}

/// `toInteger(x)`: `Some(Null)` for null or an unparsable string; `None` when `x`'s type
/// never converts.
fn to_integer(x: &Value) -> Option<Value> {
    Some(match x {
        Value::Null => Value::Null,
        Value::Int(i) => Value::Int(*i),
        // Truncates towards zero, saturating (as Java's `(long)` cast).
        Value::Float(f) => Value::Int(*f as i64),
        Value::Bool(b) => Value::Int(i64::from(*b)),
        Value::String(s) => match s.trim().parse::<i64>() {
            Ok(i) => Value::Int(i),
            Err(_) => match parse_float(s) {
                Some(f) if f.is_finite() => Value::Int(f as i64),
                _ => Value::Null,
            },
        },
        _ => return None,
    })
}

/// `toFloat(x)`; see [`to_integer`].
fn to_float(x: &Value) -> Option<Value> {
    Some(match x {
        Value::Null => Value::Null,
        Value::Int(i) => Value::Float(*i as f64),
        Value::Float(f) => Value::Float(*f),
        Value::String(s) => parse_float(s).map_or(Value::Null, Value::Float),
        _ => return None,
    })
}

/// `toBoolean(x)`: strings `'true'`/`'false'` (any case), integers (non-zero is true).
fn to_boolean(x: &Value) -> Option<Value> {
    Some(match x {
        Value::Null => Value::Null,
        Value::Bool(b) => Value::Bool(*b),
        Value::Int(i) => Value::Bool(*i != 0),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => Value::Null,
        },
        _ => return None,
    })
}

fn to_string_value(x: &Value) -> Option<Value> {
    match x {
        Value::Null => Some(Value::Null),
        v => to_cypher_string(v).map(Value::String),
    }
}

/// The string form `toString()` gives a scalar (string, number, boolean, temporal value);
/// `None` for null, lists, maps, entities and bytes.
pub fn to_cypher_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Int(i) => Some(i.to_string()),
        Value::Float(f) => Some(format_float(*f)),
        Value::Bool(b) => Some(b.to_string()),
        Value::Point(p) => Some(super::spatial::to_cypher_string(p)),
        _ if is_temporal(v) => temporal::to_cypher_string(v),
        _ => None,
    }
}

/// Formats a float as Java's `Double.toString` (and so Neo4j) does: `1.0`, `0.001`,
/// `1234567.0`, `1.0E7`, `1.5E-4`, `NaN`, `Infinity`, `-0.0`; shortest round-trip digits.
pub fn format_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.to_owned();
    }
    let a = f.abs();
    if (1e-3..1e7).contains(&a) {
        let s = format!("{f}");
        if s.contains('.') {
            s
        } else {
            s + ".0"
        }
    } else {
        let s = format!("{f:e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let mantissa = if mantissa.contains('.') {
            mantissa.to_owned()
        } else {
            format!("{mantissa}.0")
        };
        format!("{mantissa}E{exp}")
    }
}

/// Neo4j's `valueType()`: the value's type name, e.g. `INTEGER NOT NULL`,
/// `LIST<STRING NOT NULL> NOT NULL`, `NULL`.
fn value_type(v: &Value) -> String {
    if v.is_null() {
        return "NULL".to_owned();
    }
    format!("{} NOT NULL", base_type(v))
}

fn base_type(v: &Value) -> String {
    match v {
        Value::Null => "NULL".to_owned(),
        Value::List(items) => {
            let mut inner: Vec<String> = Vec::new();
            let mut has_null = false;
            for it in items {
                if it.is_null() {
                    has_null = true;
                    continue;
                }
                let t = base_type(it);
                if !inner.contains(&t) {
                    inner.push(t);
                }
            }
            if inner.is_empty() {
                return if has_null { "LIST<NULL>" } else { "LIST<NOTHING>" }.to_owned();
            }
            inner.sort();
            if inner.len() > 1 {
                return format!("LIST<ANY{}>", if has_null { "" } else { " NOT NULL" });
            }
            let nn = if has_null { "" } else { " NOT NULL" };
            format!("LIST<{}{nn}>", inner.join(" | "))
        }
        Value::Bytes(_) => "BYTES".to_owned(),
        v => v.type_name().to_owned(),
    }
}
