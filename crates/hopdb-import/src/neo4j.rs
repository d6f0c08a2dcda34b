//! neo4j-admin import CSV: headers (`:ID(Group)`, `:LABEL`, `:START_ID`, `:END_ID`, `:TYPE`,
//! typed columns such as `age:int` or `tags:string[]`), values, and the files of a group.
//!
//! HopDB additions, used by `hopdb export` so that every value round-trips: `:WEIGHT` (the
//! edge weight), `name:json` (any value as JSON; bytes as `{"$bytes": "<base64>"}`) and
//! `name:bytes` (base64).

use crate::bad::{BadKind, BadLog};
use crate::error::Result;
use base64::Engine as _;
use hopdb_core::{NodeKey, Props, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// How node ids are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IdType {
    /// Ids are strings (neo4j-admin's default): keys are strings.
    #[default]
    String,
    /// Ids are 64-bit integers: keys are integers.
    Integer,
    /// Ids are JSON: a number is an integer key, a string a string key (HopDB exports of
    /// stores with both kinds of keys).
    Json,
}

/// How ids of an `:ID(Group)` become keys. HopDB keys are global, while neo4j-admin ids are
/// unique per group only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GroupKeys {
    /// The id is the key; the same id in two groups is a duplicate node.
    #[default]
    Plain,
    /// The key is `Group:id` (a string), so groups may reuse ids.
    Prefixed,
}

/// CSV dialect and id handling.
#[derive(Debug, Clone)]
pub struct CsvOptions {
    /// Field separator (`--delimiter`, default `,`).
    pub delimiter: u8,
    /// Separator of array elements and of labels within a field (`--array-delimiter`, default `;`).
    pub array_delimiter: u8,
    /// Quote character (`--quote`, default `"`).
    pub quote: u8,
    /// How node ids are read (`--id-type`).
    pub id_type: IdType,
    /// How ids of an `:ID(Group)` become keys.
    pub group_keys: GroupKeys,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            delimiter: b',',
            array_delimiter: b';',
            quote: b'"',
            id_type: IdType::String,
            group_keys: GroupKeys::Plain,
        }
    }
}

/// A scalar column type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    /// `string` (the default), and the temporal and spatial types, kept as their text.
    Str,
    /// `int`, `long`, `short`, `byte`: a 64-bit integer.
    Int,
    /// `float`, `double`: a 64-bit float.
    Float,
    /// `boolean`: `true` or `false`, any case.
    Bool,
    /// `json` (HopDB): any value as JSON, bytes as `{"$bytes": "<base64>"}`.
    Json,
    /// `bytes` (HopDB): base64.
    Bytes,
}

/// What a header field says its column holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Col {
    /// `name:ID(Group)`: the node's id.
    Id {
        /// The id group, if named.
        group: Option<String>,
        /// The property that also keeps the id (as a string), if the field has a name.
        prop: Option<String>,
    },
    /// `:LABEL`: labels, split on the array delimiter.
    Label,
    /// `:START_ID(Group)`: the relationship's start node.
    StartId {
        /// The id group the start node is in, if named.
        group: Option<String>,
    },
    /// `:END_ID(Group)`: the relationship's end node.
    EndId {
        /// The id group the end node is in, if named.
        group: Option<String>,
    },
    /// `:TYPE`: the relationship type.
    Type,
    /// `:WEIGHT` (HopDB): the edge weight.
    Weight,
    /// `:IGNORE`: a column that is not loaded.
    Ignore,
    /// `name:type` or `name:type[]`: a property.
    Prop {
        /// The property name.
        name: String,
        /// The type of the value (of each element for an array).
        ty: Scalar,
        /// Whether the field is a list split on the array delimiter.
        array: bool,
    },
}

fn scalar(t: &str) -> Option<Scalar> {
    Some(match t.to_ascii_lowercase().as_str() {
        "string" | "char" | "date" | "localtime" | "time" | "localdatetime" | "datetime" | "duration" | "point" => {
            Scalar::Str
        }
        "int" | "long" | "short" | "byte" => Scalar::Int,
        "float" | "double" => Scalar::Float,
        "boolean" => Scalar::Bool,
        "json" => Scalar::Json,
        "bytes" => Scalar::Bytes,
        _ => return None,
    })
}

/// `ID(Group)` -> ("ID", Some("Group")).
fn split_group(t: &str) -> (&str, Option<String>) {
    match (t.find('('), t.ends_with(')')) {
        (Some(i), true) => (&t[..i], Some(t[i + 1..t.len() - 1].to_string())),
        _ => (t, None),
    }
}

/// Parses one header field.
pub fn parse_field(field: &str) -> std::result::Result<Col, String> {
    let (name, ty) = match field.rfind(':') {
        Some(i) => (&field[..i], Some(&field[i + 1..])),
        None => (field, None),
    };
    let Some(ty) = ty else {
        if name.is_empty() {
            return Err("an empty header field".into());
        }
        return Ok(Col::Prop {
            name: name.into(),
            ty: Scalar::Str,
            array: false,
        });
    };
    let (kind, group) = split_group(ty);
    let named = (!name.is_empty()).then(|| name.to_string());
    Ok(match kind.to_ascii_uppercase().as_str() {
        "ID" => Col::Id { group, prop: named },
        "LABEL" => Col::Label,
        "START_ID" => Col::StartId { group },
        "END_ID" => Col::EndId { group },
        "TYPE" => Col::Type,
        "WEIGHT" => Col::Weight,
        "IGNORE" => Col::Ignore,
        _ => {
            let (base, array) = match kind.strip_suffix("[]") {
                Some(b) => (b, true),
                None => (kind, false),
            };
            let ty = scalar(base).ok_or_else(|| format!("unknown column type '{kind}' in header field '{field}'"))?;
            let name = named.ok_or_else(|| format!("header field '{field}' has a type but no property name"))?;
            Col::Prop { name, ty, array }
        }
    })
}

/// Parses one value of a scalar column.
pub fn parse_scalar(ty: Scalar, s: &str) -> std::result::Result<Value, String> {
    match ty {
        Scalar::Str => Ok(Value::Str(s.to_string())),
        Scalar::Int => s
            .trim()
            .parse::<i64>()
            .map(Value::Int)
            .map_err(|_| format!("'{s}' is not an integer")),
        Scalar::Float => s
            .trim()
            .parse::<f64>()
            .map(Value::Float)
            .map_err(|_| format!("'{s}' is not a number")),
        Scalar::Bool => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(format!("'{s}' is not a boolean (true or false)")),
        },
        Scalar::Json => serde_json::from_str::<serde_json::Value>(s)
            .map_err(|e| format!("not valid JSON: {e}"))
            .and_then(|j| from_json(&j)),
        Scalar::Bytes => base64::engine::general_purpose::STANDARD
            .decode(s.trim())
            .map(Value::Bytes)
            .map_err(|e| format!("not valid base64: {e}")),
    }
}

/// JSON to a value: integers stay integers, `{"$bytes": "<base64>"}` is bytes.
pub fn from_json(j: &serde_json::Value) -> std::result::Result<Value, String> {
    use serde_json::Value as J;
    Ok(match j {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().ok_or_else(|| format!("number {n} out of range"))?),
        },
        J::String(s) => Value::Str(s.clone()),
        J::Array(a) => Value::List(a.iter().map(from_json).collect::<std::result::Result<_, _>>()?),
        J::Object(o) => {
            if let (1, Some(J::String(b))) = (o.len(), o.get("$bytes")) {
                return base64::engine::general_purpose::STANDARD
                    .decode(b)
                    .map(Value::Bytes)
                    .map_err(|e| format!("bad $bytes: {e}"));
            }
            Value::Map(
                o.iter()
                    .map(|(k, v)| Ok((k.clone(), from_json(v)?)))
                    .collect::<std::result::Result<BTreeMap<_, _>, String>>()?,
            )
        }
    })
}

/// A value to JSON (the inverse of [`from_json`]). Non-finite floats have no JSON form.
pub fn to_json(v: &Value) -> std::result::Result<serde_json::Value, String> {
    use serde_json::Value as J;
    Ok(match v {
        Value::Null => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Int(i) => J::from(*i),
        Value::Float(f) => J::Number(serde_json::Number::from_f64(*f).ok_or_else(|| format!("{f} has no JSON form"))?),
        Value::Str(s) => J::String(s.clone()),
        Value::Bytes(b) => {
            let mut m = serde_json::Map::new();
            m.insert(
                "$bytes".into(),
                J::String(base64::engine::general_purpose::STANDARD.encode(b)),
            );
            J::Object(m)
        }
        Value::List(l) => J::Array(l.iter().map(to_json).collect::<std::result::Result<_, _>>()?),
        Value::Map(m) => J::Object(
            m.iter()
                .map(|(k, v)| Ok((k.clone(), to_json(v)?)))
                .collect::<std::result::Result<serde_json::Map<_, _>, String>>()?,
        ),
    })
}

/// A parsed header plus where its special columns are.
pub(crate) struct Header {
    pub cols: Vec<Col>,
    pub names: Vec<String>,
}

impl Header {
    pub(crate) fn parse(fields: &[&str]) -> std::result::Result<Header, (usize, String)> {
        let cols = fields
            .iter()
            .enumerate()
            .map(|(i, f)| parse_field(f).map_err(|e| (i, e)))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(Header {
            cols,
            names: fields.iter().map(|s| s.to_string()).collect(),
        })
    }

    pub(crate) fn count(&self, f: impl Fn(&Col) -> bool) -> usize {
        self.cols.iter().filter(|c| f(c)).count()
    }
}

/// Reads a key from an id field.
pub(crate) fn key_of(opts: &CsvOptions, group: Option<&str>, id: &str) -> std::result::Result<NodeKey, String> {
    if let (GroupKeys::Prefixed, Some(g)) = (opts.group_keys, group) {
        return Ok(NodeKey::Str(format!("{g}:{id}")));
    }
    match opts.id_type {
        IdType::String => Ok(NodeKey::Str(id.to_string())),
        IdType::Integer => id
            .trim()
            .parse::<i64>()
            .map(NodeKey::Int)
            .map_err(|_| format!("id '{id}' is not an integer (--id-type=integer)")),
        IdType::Json => match serde_json::from_str::<serde_json::Value>(id) {
            Ok(serde_json::Value::String(s)) => Ok(NodeKey::Str(s)),
            Ok(serde_json::Value::Number(n)) if n.is_i64() => Ok(NodeKey::Int(n.as_i64().unwrap_or_default())),
            _ => Err(format!("id '{id}' is not a JSON string or integer (--id-type=json)")),
        },
    }
}

/// One data row of a node or relationship file, parsed.
pub(crate) struct RowCtx<'a> {
    pub file: &'a Path,
    pub line: u64,
}

impl RowCtx<'_> {
    pub(crate) fn malformed(&self, bad: &mut BadLog, column: Option<&str>, reason: String) -> Result<()> {
        bad.bad(
            BadKind::Malformed,
            self.file,
            self.line,
            column.map(str::to_string),
            reason,
        )
    }
}

/// Parses the property columns of a row into `props`; Err((column, reason)) on a bad value.
pub(crate) fn row_props(
    header: &Header,
    fields: &[&str],
    array_delimiter: char,
    props: &mut Props,
) -> std::result::Result<(), (usize, String)> {
    for (i, (col, raw)) in header.cols.iter().zip(fields).enumerate() {
        if let Col::Prop { name, ty, array } = col {
            if raw.is_empty() {
                continue; // neo4j-admin: an empty field sets no property
            }
            let v = if *array {
                Value::List(
                    raw.split(array_delimiter)
                        .map(|x| parse_scalar(*ty, x))
                        .collect::<std::result::Result<_, _>>()
                        .map_err(|e| (i, e))?,
                )
            } else {
                parse_scalar(*ty, raw).map_err(|e| (i, e))?
            };
            props.insert(name.clone(), v);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_fields() {
        assert_eq!(
            parse_field(":ID(Person)").unwrap(),
            Col::Id {
                group: Some("Person".into()),
                prop: None
            }
        );
        assert_eq!(
            parse_field("pid:ID").unwrap(),
            Col::Id {
                group: None,
                prop: Some("pid".into())
            }
        );
        assert_eq!(
            parse_field("tags:string[]").unwrap(),
            Col::Prop {
                name: "tags".into(),
                ty: Scalar::Str,
                array: true
            }
        );
        assert_eq!(
            parse_field("age:Long").unwrap(),
            Col::Prop {
                name: "age".into(),
                ty: Scalar::Int,
                array: false
            }
        );
        assert_eq!(
            parse_field(":START_ID(P)").unwrap(),
            Col::StartId {
                group: Some("P".into())
            }
        );
        assert_eq!(
            parse_field("title").unwrap(),
            Col::Prop {
                name: "title".into(),
                ty: Scalar::Str,
                array: false
            }
        );
        assert!(parse_field("x:frobnicate").unwrap_err().contains("unknown column type"));
        assert!(parse_field(":int").is_err());
    }

    #[test]
    fn values_and_json_roundtrip() {
        assert_eq!(parse_scalar(Scalar::Int, " 42").unwrap(), Value::Int(42));
        assert!(parse_scalar(Scalar::Int, "4x").unwrap_err().contains("not an integer"));
        assert_eq!(parse_scalar(Scalar::Bool, "TRUE").unwrap(), Value::Bool(true));
        assert!(parse_scalar(Scalar::Bool, "yes").is_err());
        let v = Value::Map(BTreeMap::from([
            ("b".to_string(), Value::Bytes(vec![0, 255, 7])),
            (
                "l".to_string(),
                Value::List(vec![Value::Int(1), Value::Float(1.5), Value::Null]),
            ),
            ("s".to_string(), Value::Str("x\"y".into())),
        ]));
        let j = to_json(&v).unwrap().to_string();
        assert_eq!(parse_scalar(Scalar::Json, &j).unwrap(), v);
        assert!(to_json(&Value::Float(f64::NAN)).is_err());
    }
}
