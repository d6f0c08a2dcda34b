//! String functions: `toUpper`, `toLower`, `trim` and friends, `replace`, `substring`,
//! `left`, `right`, `split`, `char_length`. Positions and lengths count Unicode code points.

use super::{arg, arg_range_error, arg_type_error};
use crate::error::Result;
use crate::value::Value;

pub(super) fn call(name: &str, args: &[Value]) -> Option<Result<Value>> {
    Some(match name {
        "toupper" | "upper" => map_str(name, args, |s| s.to_uppercase()),
        "tolower" | "lower" => map_str(name, args, |s| s.to_lowercase()),
        "trim" => map_str(name, args, |s| s.trim().to_owned()),
        "ltrim" | "rtrim" | "btrim" => trim(name, args),
        "replace" => replace(args),
        "substring" => substring(args),
        "left" | "right" => left_right(name, args),
        "split" => split(args),
        "char_length" | "character_length" => match arg(args, 0) {
            Value::Null => Ok(Value::Null),
            Value::String(s) => Ok(Value::Int(s.chars().count() as i64)),
            v => Err(arg_type_error(name, "a STRING", v)),
        },
        _ => return None,
    })
}

fn map_str(name: &str, args: &[Value], f: impl FnOnce(&str) -> String) -> Result<Value> {
    match arg(args, 0) {
        Value::Null => Ok(Value::Null),
        Value::String(s) => Ok(Value::String(f(s))),
        v => Err(arg_type_error(name, "a STRING", v)),
    }
}

/// `ltrim(s)`, `rtrim(s)`, `btrim(s)`: whitespace; with a second argument, any of its characters.
fn trim(name: &str, args: &[Value]) -> Result<Value> {
    let s = match arg(args, 0) {
        Value::Null => return Ok(Value::Null),
        Value::String(s) => s,
        v => return Err(arg_type_error(name, "a STRING", v)),
    };
    let chars: Option<Vec<char>> = match args.get(1) {
        None => None,
        Some(Value::Null) => return Ok(Value::Null),
        Some(Value::String(c)) => Some(c.chars().collect()),
        Some(v) => return Err(arg_type_error(name, "a STRING of characters to trim", v)),
    };
    let pred = |c: char| match &chars {
        None => c.is_whitespace(),
        Some(set) => set.contains(&c),
    };
    let out = match name {
        "ltrim" => s.trim_start_matches(pred),
        "rtrim" => s.trim_end_matches(pred),
        _ => s.trim_matches(pred),
    };
    Ok(Value::String(out.to_owned()))
}

fn string_arg<'a>(func: &str, v: &'a Value) -> Result<Option<&'a str>> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        v => Err(arg_type_error(func, "a STRING", v)),
    }
}

fn replace(args: &[Value]) -> Result<Value> {
    let s = string_arg("replace", arg(args, 0))?;
    let from = string_arg("replace", arg(args, 1))?;
    let to = string_arg("replace", arg(args, 2))?;
    Ok(match (s, from, to) {
        (Some(s), Some(from), Some(to)) => Value::String(s.replace(from, to)),
        _ => Value::Null,
    })
}

/// An integer length/position argument: must be a non-null, non-negative integer.
fn count_arg(func: &str, what: &str, v: &Value) -> Result<usize> {
    match v {
        Value::Int(i) if *i >= 0 => Ok(usize::try_from(*i).unwrap_or(usize::MAX)),
        Value::Int(i) => Err(arg_range_error(func, format!("{what} must not be negative, got {i}"))),
        v => Err(arg_type_error(func, &format!("an INTEGER {what}"), v)),
    }
}

/// Byte offset of the `n`th code point of `s` (the length if beyond the end).
fn byte_offset(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(i, _)| i)
}

fn substring(args: &[Value]) -> Result<Value> {
    let Some(s) = string_arg("substring", arg(args, 0))? else {
        return Ok(Value::Null);
    };
    let start = count_arg("substring", "start", arg(args, 1))?;
    let begin = byte_offset(s, start);
    let rest = &s[begin..];
    let out = match args.get(2) {
        None => rest,
        Some(len) => {
            let len = count_arg("substring", "length", len)?;
            &rest[..byte_offset(rest, len)]
        }
    };
    Ok(Value::String(out.to_owned()))
}

fn left_right(name: &str, args: &[Value]) -> Result<Value> {
    let Some(s) = string_arg(name, arg(args, 0))? else {
        return Ok(Value::Null);
    };
    let n = count_arg(name, "length", arg(args, 1))?;
    let out = if name == "left" {
        &s[..byte_offset(s, n)]
    } else {
        let total = s.chars().count();
        &s[byte_offset(s, total.saturating_sub(n))..]
    };
    Ok(Value::String(out.to_owned()))
}

/// `split(s, delimiter)`: the delimiter is a string or a list of strings (split at any of
/// them); an empty delimiter splits into single characters; empty pieces are kept.
fn split(args: &[Value]) -> Result<Value> {
    let Some(s) = string_arg("split", arg(args, 0))? else {
        return Ok(Value::Null);
    };
    let delims: Vec<&str> = match arg(args, 1) {
        Value::Null => return Ok(Value::Null),
        Value::String(d) => vec![d.as_str()],
        Value::List(items) => {
            let mut out = Vec::with_capacity(items.len());
            for it in items {
                match it {
                    Value::Null => return Ok(Value::Null),
                    Value::String(d) => out.push(d.as_str()),
                    v => return Err(arg_type_error("split", "a STRING or LIST<STRING> delimiter", v)),
                }
            }
            out
        }
        v => return Err(arg_type_error("split", "a STRING or LIST<STRING> delimiter", v)),
    };
    let to_list = |parts: Vec<&str>| Value::List(parts.into_iter().map(|p| Value::String(p.to_owned())).collect());
    if delims.iter().all(|d| d.is_empty()) {
        if s.is_empty() {
            return Ok(to_list(vec![""]));
        }
        return Ok(to_list(
            s.char_indices().map(|(i, c)| &s[i..i + c.len_utf8()]).collect(),
        ));
    }
    let delims: Vec<&str> = delims.into_iter().filter(|d| !d.is_empty()).collect();
    let mut parts = Vec::new();
    let mut piece_start = 0;
    let mut i = 0;
    while i < s.len() {
        let hit = delims.iter().filter(|d| s[i..].starts_with(**d)).map(|d| d.len()).max();
        match hit {
            Some(len) => {
                parts.push(&s[piece_start..i]);
                i += len;
                piece_start = i;
            }
            None => {
                i += s[i..].chars().next().map_or(1, char::len_utf8);
            }
        }
    }
    parts.push(&s[piece_start..]);
    Ok(to_list(parts))
}
