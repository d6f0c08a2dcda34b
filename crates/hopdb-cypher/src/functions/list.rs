//! List functions: `head`, `last`, `tail`, `range`, `reverse` (lists and strings), `size`,
//! `isEmpty`, `coalesce`, `nullIf`.

use super::{arg, arg_type_error};
use crate::error::{CypherError, Result};
use crate::value::Value;

/// The longest list `range()` builds.
const MAX_RANGE_LEN: i128 = i32::MAX as i128;

pub(super) fn call(name: &str, args: &[Value]) -> Option<Result<Value>> {
    let x = arg(args, 0);
    Some(match name {
        "head" | "last" | "tail" => match x {
            Value::Null => Ok(Value::Null),
            Value::List(l) => Ok(match name {
                "head" => l.first().cloned().unwrap_or(Value::Null),
                "last" => l.last().cloned().unwrap_or(Value::Null),
                _ => Value::List(l.iter().skip(1).cloned().collect()),
            }),
            v => Err(arg_type_error(name, "a LIST", v)),
        },
        "reverse" => match x {
            Value::Null => Ok(Value::Null),
            Value::String(s) => Ok(Value::String(s.chars().rev().collect())),
            Value::List(l) => Ok(Value::List(l.iter().rev().cloned().collect())),
            v => Err(arg_type_error(name, "a STRING or LIST", v)),
        },
        "size" => match x {
            Value::Null => Ok(Value::Null),
            Value::String(s) => Ok(Value::Int(s.chars().count() as i64)),
            Value::List(l) => Ok(Value::Int(l.len() as i64)),
            Value::Bytes(b) => Ok(Value::Int(b.len() as i64)),
            v => Err(arg_type_error(name, "a STRING or LIST", v)),
        },
        "isempty" => match x {
            Value::Null => Ok(Value::Null),
            Value::String(s) => Ok(Value::Bool(s.is_empty())),
            Value::List(l) => Ok(Value::Bool(l.is_empty())),
            Value::Map(m) => Ok(Value::Bool(m.is_empty())),
            Value::Bytes(b) => Ok(Value::Bool(b.is_empty())),
            v => Err(arg_type_error(name, "a STRING, LIST or MAP", v)),
        },
        "coalesce" => Ok(args.iter().find(|v| !v.is_null()).cloned().unwrap_or(Value::Null)),
        "nullif" => {
            let y = arg(args, 1);
            Ok(if crate::compare::equals(x, y) == Some(true) {
                Value::Null
            } else {
                x.clone()
            })
        }
        "range" => range(args),
        _ => return None,
    })
}

/// An integer argument of `range()`: anything else (floats included) is an argument error,
/// as the TCK expects; `None` for null.
fn range_arg(v: &Value, what: &str) -> Result<Option<i64>> {
    match v {
        Value::Null => Ok(None),
        Value::Int(i) => Ok(Some(*i)),
        v => Err(CypherError::argument(
            "InvalidArgumentType",
            format!("range() expects an INTEGER {what}, got {}", v.type_name()),
        )),
    }
}

/// `range(start, end[, step])`: integers from `start` to `end` inclusive; empty when the step
/// points away from `end`; a zero step is an argument error.
fn range(args: &[Value]) -> Result<Value> {
    let start = range_arg(arg(args, 0), "start")?;
    let end = range_arg(arg(args, 1), "end")?;
    let step = match args.get(2) {
        None => Some(1),
        Some(v) => range_arg(v, "step")?,
    };
    let (Some(start), Some(end), Some(step)) = (start, end, step) else {
        return Ok(Value::Null);
    };
    if step == 0 {
        return Err(CypherError::argument(
            "NumberOutOfRange",
            "range() step must not be zero",
        ));
    }
    let (s, e, st) = (i128::from(start), i128::from(end), i128::from(step));
    let count = if (st > 0 && s > e) || (st < 0 && s < e) {
        0
    } else {
        (e - s) / st + 1
    };
    if count > MAX_RANGE_LEN {
        return Err(CypherError::argument(
            "NumberOutOfRange",
            format!("range() would produce {count} elements, more than {MAX_RANGE_LEN}"),
        ));
    }
    let mut out = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
    let mut v = s;
    for _ in 0..count {
        // Every element lies between start and end, so it fits in an i64.
        out.push(Value::Int(i64::try_from(v).unwrap_or(0)));
        v += st;
    }
    Ok(Value::List(out))
}
