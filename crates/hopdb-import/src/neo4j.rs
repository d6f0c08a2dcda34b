//! neo4j-admin import CSV: headers (`:ID(Group)`, `:LABEL`, `:START_ID`, `:END_ID`, `:TYPE`,
//! typed columns such as `age:int` or `tags:string[]`), values, and the files of a group.
//!
//! HopDB additions, used by `hopdb export` so that every value round-trips: `:WEIGHT` (the
//! edge weight), `name:json` (any value as JSON; bytes as `{"$bytes": "<base64>"}`) and
//! `name:bytes` (base64).

use crate::bad::{BadKind, BadLog};
use crate::error::Result;
use base64::Engine as _;
use hopdb_core::spatial::{Point, PointFields};
use hopdb_core::{NodeKey, Props, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// The name of a named `:ID` column that is the node key itself and not also a property:
/// the name HopDB's Cypher gives the key (`n._key`), which `hopdb export` writes as
/// `_key:ID` so that Neo4j keeps the key under that name.
pub const KEY_COLUMN: &str = "_key";

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
    /// One global id space: the id is the key, and the same id in two groups is a duplicate
    /// node (`--id-group-keys=plain`).
    Plain,
    /// neo4j-admin's id spaces: an id of a named group is stored under the key `Group:id` (a
    /// string), so groups may reuse ids; ids of no group stay as they are.
    #[default]
    Prefixed,
}

/// Parses a temporal column's text (`date`, `localtime`, `time`, `localdatetime`,
/// `datetime`, `duration`) into the store's encoding of that value, using the column's
/// default time zone (`{timezone:...}`) when the text names none. The query layer owns the
/// temporal types, so it supplies this (the import layer sits below it).
pub type TemporalParser = fn(kind: &str, text: &str, zone: Option<&str>) -> std::result::Result<Value, String>;

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
    /// Quoted fields may span lines (`--multiline-fields`); otherwise such a field is an error.
    pub multiline_fields: bool,
    /// `\"` inside a quoted field is a quote (`--legacy-style-quoting`).
    pub legacy_quoting: bool,
    /// `""` sets no property, like an empty field (`--ignore-empty-strings`).
    pub ignore_empty_strings: bool,
    /// Leading and trailing whitespace is cut from string values (`--trim-strings`).
    pub trim_strings: bool,
    /// Reads temporal columns; without it they are refused (see [`TemporalParser`]).
    pub temporal: Option<TemporalParser>,
    /// Fields beyond the header's are ignored (and listed in the report) instead of making
    /// the row bad (`--ignore-extra-columns`).
    pub ignore_extra_columns: bool,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            delimiter: b',',
            array_delimiter: b';',
            quote: b'"',
            id_type: IdType::String,
            group_keys: GroupKeys::Prefixed,
            multiline_fields: false,
            legacy_quoting: false,
            ignore_empty_strings: false,
            trim_strings: false,
            temporal: None,
            ignore_extra_columns: false,
        }
    }
}

/// A scalar column type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    /// `string` (the default) and `char`.
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
    /// `date`, `localtime`, `time`, `localdatetime`, `datetime`, `duration`.
    Temporal(&'static str),
    /// `point`: `{x: 1, y: 2}`, `{latitude: 56.7, longitude: 12.8, crs: 'WGS-84'}`, ...
    Point,
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
        /// The header's `{key:value}` options (`timezone` of temporal columns, `crs` of points).
        options: BTreeMap<String, String>,
    },
}

fn scalar(t: &str) -> Option<Scalar> {
    Some(match t.to_ascii_lowercase().as_str() {
        "string" | "char" => Scalar::Str,
        "date" => Scalar::Temporal("date"),
        "localtime" => Scalar::Temporal("localtime"),
        "time" => Scalar::Temporal("time"),
        "localdatetime" => Scalar::Temporal("localdatetime"),
        "datetime" => Scalar::Temporal("datetime"),
        "duration" => Scalar::Temporal("duration"),
        "point" => Scalar::Point,
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

/// Splits a header field's trailing `{key:value, ...}` options off (`at:datetime{timezone:UTC}`).
fn split_options(field: &str) -> std::result::Result<(&str, BTreeMap<String, String>), String> {
    let Some(open) = field.rfind('{').filter(|_| field.ends_with('}')) else {
        return Ok((field, BTreeMap::new()));
    };
    let mut options = BTreeMap::new();
    let body = &field[open + 1..field.len() - 1];
    for part in body.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part
            .split_once(':')
            .ok_or_else(|| format!("header field '{field}': option '{part}' is not key:value"))?;
        let v = v.trim().trim_matches(|c| c == '\'' || c == '"');
        options.insert(k.trim().to_ascii_lowercase(), v.to_string());
    }
    Ok((&field[..open], options))
}

/// Parses one header field.
pub fn parse_field(field: &str) -> std::result::Result<Col, String> {
    let (field_text, options) = split_options(field)?;
    let (name, ty) = match field_text.rfind(':') {
        Some(i) => (&field_text[..i], Some(&field_text[i + 1..])),
        None => (field_text, None),
    };
    let Some(ty) = ty else {
        if name.is_empty() {
            return Err("an empty header field".into());
        }
        return Ok(Col::Prop {
            name: name.into(),
            ty: Scalar::Str,
            array: false,
            options,
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
            Col::Prop {
                name,
                ty,
                array,
                options,
            }
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
        // Exactly `true` or `false`: neo4j-admin reads anything else (`TRUE`, `yes`) as false,
        // which would change what was written.
        Scalar::Bool => match s.trim() {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(format!(
                "'{s}' is not a boolean (true or false, in lower case; neo4j-admin would store false)"
            )),
        },
        Scalar::Json => serde_json::from_str::<serde_json::Value>(s)
            .map_err(|e| format!("not valid JSON: {e}"))
            .and_then(|j| from_json(&j)),
        Scalar::Bytes => base64::engine::general_purpose::STANDARD
            .decode(s.trim())
            .map(Value::Bytes)
            .map_err(|e| format!("not valid base64: {e}")),
        Scalar::Temporal(kind) => Err(format!("a {kind} value needs its column's options (parse_typed)")),
        Scalar::Point => parse_point(s, None),
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

    /// Reads the named columns as JSON and the weight column as the edge weight (a `hopdb
    /// export` manifest says which).
    pub(crate) fn apply(&mut self, json: &[String], weight: Option<&str>) {
        for c in &mut self.cols {
            if let Col::Prop { name, ty, array, .. } = c {
                if weight == Some(name.as_str()) {
                    *c = Col::Weight;
                } else if json.contains(name) {
                    *ty = Scalar::Json;
                    *array = false;
                }
            }
        }
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

/// The value of a named `:ID` column's property: the id as neo4j-admin stores it (an integer
/// under `--id-type=integer`, else the text).
pub(crate) fn id_property(opts: &CsvOptions, id: &str) -> Value {
    match opts.id_type {
        IdType::Integer => id
            .trim()
            .parse::<i64>()
            .map_or_else(|_| Value::Str(id.to_string()), Value::Int),
        _ => Value::Str(id.to_string()),
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

/// One field of a row: its text and whether it was quoted (`""` is the empty string, an
/// unquoted empty field is no value).
#[derive(Clone, Copy)]
pub(crate) struct Field<'a> {
    pub text: &'a str,
    pub quoted: bool,
}

impl Field<'_> {
    /// No value: an unquoted empty field (or a missing trailing one).
    pub(crate) fn is_absent(&self) -> bool {
        self.text.is_empty() && !self.quoted
    }
}

/// Parses a value of a column of type `ty` (one element of an array column).
fn parse_typed(
    ty: Scalar,
    s: &str,
    opts: &CsvOptions,
    col_options: &BTreeMap<String, String>,
) -> std::result::Result<Value, String> {
    match ty {
        Scalar::Temporal(kind) => {
            let parse = opts.temporal.ok_or_else(|| {
                format!("a {kind} column needs the query layer's temporal parser (CsvOptions::temporal)")
            })?;
            parse(kind, s.trim(), col_options.get("timezone").map(String::as_str))
        }
        Scalar::Point => parse_point(s, col_options.get("crs").map(String::as_str)),
        _ => parse_scalar(ty, s),
    }
}

/// Parses the property columns of a row into `props`; Err((column, reason)) on a bad value.
/// Missing trailing fields are absent values, as in neo4j-admin.
pub(crate) fn row_props(
    header: &Header,
    fields: &[Field],
    opts: &CsvOptions,
    props: &mut Props,
) -> std::result::Result<(), (usize, String)> {
    let ad = opts.array_delimiter as char;
    for (i, (col, f)) in header.cols.iter().zip(fields).enumerate() {
        let Col::Prop {
            name,
            ty,
            array,
            options,
        } = col
        else {
            continue;
        };
        // --trim-strings trims unquoted values only (neo4j-admin never trims inside quotes).
        let text = if opts.trim_strings && !f.quoted {
            f.text.trim()
        } else {
            f.text
        };
        if f.is_absent() || (text.is_empty() && (opts.ignore_empty_strings || *array || !matches!(ty, Scalar::Str))) {
            continue; // neo4j-admin: no value sets no property; `""` is a value of string columns only
        }
        let v = if *array {
            let items = if text.is_empty() {
                Vec::new()
            } else {
                text.split(ad).collect()
            };
            Value::List(
                items
                    .into_iter()
                    .map(|x| {
                        let x = if opts.trim_strings && !f.quoted { x.trim() } else { x };
                        parse_typed(*ty, x, opts, options)
                    })
                    .collect::<std::result::Result<_, _>>()
                    .map_err(|e| (i, e))?,
            )
        } else {
            parse_typed(*ty, text, opts, options).map_err(|e| (i, e))?
        };
        props.insert(name.clone(), v);
    }
    Ok(())
}

/// Parses neo4j-admin's point syntax, `{x: 1, y: 2}`, `{latitude: 56.7, longitude: 12.8,
/// height: 100}`, optionally with `crs` or `srid`, into the stored point map
/// ([`Point::to_store`]). The header's `{crs:...}` is the default; a crs of the wrong
/// dimension for the value takes its sibling, as neo4j-admin does.
pub fn parse_point(s: &str, default_crs: Option<&str>) -> std::result::Result<Value, String> {
    let body = s
        .trim()
        .strip_prefix('{')
        .and_then(|b| b.strip_suffix('}'))
        .ok_or_else(|| format!("'{s}' is not a point (expected a map such as {{x: 1, y: 2}})"))?;
    let mut fields = PointFields::default();
    let mut named_crs = None;
    for part in body.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part
            .split_once(':')
            .ok_or_else(|| format!("point '{s}': '{part}' is not key: value"))?;
        let k = k.trim().trim_matches(|c| c == '\'' || c == '"' || c == '`');
        let v = v.trim().trim_matches(|c| c == '\'' || c == '"');
        let done = match k.to_ascii_lowercase().as_str() {
            "crs" => {
                named_crs = Some(v);
                Ok(())
            }
            "srid" => match v.parse::<i64>() {
                Ok(id) => fields.srid(id),
                Err(_) => Err(format!("srid '{v}' is not an integer")),
            },
            _ => match v.parse::<f64>() {
                Ok(x) => fields.coordinate(k, x),
                Err(_) => Err(format!("{k} '{v}' is not a number")),
            },
        };
        done.map_err(|e| format!("point '{s}': {e}"))?;
    }
    if let Some(name) = named_crs.or(default_crs) {
        fields.crs(name).map_err(|e| format!("point '{s}': {e}"))?;
    }
    let point = fields.build_adapting().map_err(|e| format!("point '{s}': {e}"))?;
    Ok(point.to_store())
}

/// A point in neo4j-admin's syntax (`{crs:wgs-84, x:12.5, y:56.7}`).
pub fn point_text(p: &Point) -> String {
    let mut out = format!("{{crs:{}", p.crs.name());
    for (axis, c) in ["x", "y", "z"].into_iter().zip(p.coords()) {
        out.push_str(&format!(", {axis}:{c:?}"));
    }
    out.push('}');
    out
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
                array: true,
                options: BTreeMap::new(),
            }
        );
        assert_eq!(
            parse_field("age:Long").unwrap(),
            Col::Prop {
                name: "age".into(),
                ty: Scalar::Int,
                array: false,
                options: BTreeMap::new(),
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
                array: false,
                options: BTreeMap::new(),
            }
        );
        assert!(parse_field("x:frobnicate").unwrap_err().contains("unknown column type"));
        let Col::Prop { ty, options, .. } = parse_field("at:datetime{timezone:Europe/Stockholm}").unwrap() else {
            panic!("a property")
        };
        assert_eq!(ty, Scalar::Temporal("datetime"));
        assert_eq!(options["timezone"], "Europe/Stockholm");
        let Col::Prop { ty, array, options, .. } = parse_field("loc:point[]{crs:'WGS-84'}").unwrap() else {
            panic!("a property")
        };
        assert_eq!((ty, array, options["crs"].as_str()), (Scalar::Point, true, "WGS-84"));
        assert!(parse_field(":int").is_err());
    }

    #[test]
    fn values_and_json_roundtrip() {
        assert_eq!(parse_scalar(Scalar::Int, " 42").unwrap(), Value::Int(42));
        assert!(parse_scalar(Scalar::Int, "4x").unwrap_err().contains("not an integer"));
        assert_eq!(parse_scalar(Scalar::Bool, " true").unwrap(), Value::Bool(true));
        assert!(parse_scalar(Scalar::Bool, "TRUE").is_err());
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
