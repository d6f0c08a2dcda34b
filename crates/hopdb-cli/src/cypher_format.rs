//! Cypher values as text and JSON for `hopdb query` and `hopdb shell`: Cypher-style literals
//! in table cells (`(:Person {name: 'Ada'})`, `[:KNOWS {since: 1}]`, `[1, 2]`, `{a: 1}`;
//! strings plain at the top of a cell, quoted inside lists and maps), the aligned table, the
//! update-counter summary, errors with their position, and the JSON forms of values and
//! parameters.

use hopdb_cypher::{CypherError, Map, NodeRef, QueryStats, RelRef, Value};
use hopdb_database::NodeKey;
use serde_json::json;
use std::fmt::Write;

/// A value as it appears in a table cell: top-level strings unquoted (control characters
/// escaped so a cell stays on one line), everything else as a Cypher literal.
pub(crate) fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => escape_controls(s),
        other => literal(other),
    }
}

/// A value as a Cypher literal (strings single-quoted).
pub(crate) fn literal(v: &Value) -> String {
    let mut out = String::new();
    write_literal(&mut out, v);
    out
}

fn escape_controls(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

fn write_string(out: &mut String, s: &str) {
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('\'');
}

/// A float as Cypher prints it: always with a fraction or exponent (`1.0`, `1.5e300`),
/// `NaN`, `Infinity`, `-Infinity`.
pub(crate) fn float(f: f64) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        format!("{f:?}")
    }
}

/// A name as Cypher writes it: bare when it is an identifier, else in backticks.
fn write_name(out: &mut String, name: &str) {
    let mut chars = name.chars();
    let ident =
        chars.next().is_some_and(|c| c.is_alphabetic() || c == '_') && chars.all(|c| c.is_alphanumeric() || c == '_');
    if ident {
        out.push_str(name);
    } else {
        out.push('`');
        out.push_str(&name.replace('`', "``"));
        out.push('`');
    }
}

fn write_map(out: &mut String, m: &Map) {
    out.push('{');
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_name(out, k);
        out.push_str(": ");
        write_literal(out, v);
    }
    out.push('}');
}

fn write_node(out: &mut String, n: &NodeRef) {
    out.push('(');
    match &n.data {
        Some(d) => {
            for l in &d.labels {
                out.push(':');
                write_name(out, l);
            }
            if !d.props.is_empty() {
                if !d.labels.is_empty() {
                    out.push(' ');
                }
                write_map(out, &d.props);
            }
        }
        // Not materialized by the engine: show the key, which is all there is.
        None => {
            out.push_str("{_key: ");
            match &n.key {
                NodeKey::Int(i) => {
                    let _ = write!(out, "{i}");
                }
                NodeKey::Str(s) => write_string(out, s),
            }
            out.push('}');
        }
    }
    out.push(')');
}

fn write_rel(out: &mut String, r: &RelRef) {
    out.push_str("[:");
    write_name(out, &r.ty);
    if let Some(d) = &r.data {
        if !d.props.is_empty() {
            out.push(' ');
            write_map(out, &d.props);
        }
    }
    out.push(']');
}

fn write_literal(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => out.push_str(&float(*f)),
        Value::String(s) => write_string(out, s),
        Value::Bytes(b) => {
            out.push_str("0x");
            for byte in b {
                let _ = write!(out, "{byte:02x}");
            }
        }
        Value::List(l) => {
            out.push('[');
            for (i, x) in l.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_literal(out, x);
            }
            out.push(']');
        }
        Value::Map(m) => write_map(out, m),
        Value::Node(n) => write_node(out, n),
        Value::Relationship(r) => write_rel(out, r),
        Value::Path(p) => {
            for (i, n) in p.nodes.iter().enumerate() {
                if i > 0 {
                    if let Some(r) = p.rels.get(i - 1) {
                        // A relationship points the way the path walks it when it starts at the
                        // node before it.
                        let forward = p.nodes.get(i - 1).is_some_and(|prev| prev.key == r.src);
                        out.push_str(if forward { "-" } else { "<-" });
                        write_rel(out, r);
                        out.push_str(if forward { "->" } else { "-" });
                    }
                }
                write_node(out, n);
            }
        }
        // Temporal values and points as their Cypher text (`point({x: 1.0, y: 2.0, crs: ...})`).
        other => match hopdb_cypher::functions::to_cypher_string(other) {
            Some(s) => out.push_str(&s),
            None => {
                let _ = write!(out, "{other:?}");
            }
        },
    }
}

/// Rows as an aligned table with a header, in a box of `+`, `-` and `|`.
pub(crate) fn table(columns: &[String], rows: &[Vec<String>]) -> String {
    let width = |s: &str| s.chars().count();
    let mut widths: Vec<usize> = columns.iter().map(|c| width(c)).collect();
    for row in rows {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(width(c));
        }
    }
    let mut out = String::new();
    let rule = |out: &mut String| {
        out.push('+');
        for w in &widths {
            out.push_str(&"-".repeat(w + 2));
            out.push('+');
        }
        out.push('\n');
    };
    let line = |out: &mut String, cells: &[String]| {
        out.push('|');
        for (w, c) in widths.iter().zip(cells) {
            let _ = write!(out, " {c}{} |", " ".repeat(w - width(c)));
        }
        out.push('\n');
    };
    rule(&mut out);
    line(&mut out, columns);
    rule(&mut out);
    for row in rows {
        line(&mut out, row);
    }
    if !rows.is_empty() {
        rule(&mut out);
    }
    out
}

/// "1 row" / "3 rows".
pub(crate) fn row_count(n: usize) -> String {
    format!("{n} row{}", if n == 1 { "" } else { "s" })
}

/// The nonzero update counters, e.g. "Nodes created: 2, Properties set: 3"; None when the
/// query changed nothing.
pub(crate) fn stats_line(s: &QueryStats) -> Option<String> {
    let parts: Vec<String> = stats_fields(s)
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| format!("{name}: {n}"))
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// Every update counter with its label.
pub(crate) fn stats_fields(s: &QueryStats) -> [(&'static str, u64); 12] {
    [
        ("Nodes created", s.nodes_created),
        ("Nodes deleted", s.nodes_deleted),
        ("Relationships created", s.relationships_created),
        ("Relationships deleted", s.relationships_deleted),
        ("Properties set", s.properties_set),
        ("Properties removed", s.properties_removed),
        ("Labels added", s.labels_added),
        ("Labels removed", s.labels_removed),
        ("Indexes added", s.indexes_added),
        ("Indexes removed", s.indexes_removed),
        ("Constraints added", s.constraints_added),
        ("Constraints removed", s.constraints_removed),
    ]
}

/// An error for people: status code, detail, position, message, then the offending line of
/// the query with a caret under the position.
pub(crate) fn error(e: &CypherError, text: &str) -> String {
    let mut out = format!("{} ({})", e.neo4j_code(), e.detail);
    if let Some(p) = e.position {
        let _ = write!(out, " at line {}, column {}", p.line, p.column);
    }
    let _ = write!(out, ": {}", e.message);
    if let Some(p) = e.position {
        if let Some(line) = text.lines().nth((p.line as usize).saturating_sub(1)) {
            let caret: String = line
                .chars()
                .take((p.column as usize).saturating_sub(1))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let _ = write!(out, "\n  {line}\n  {caret}^");
        }
    }
    out
}

fn key_json(k: &NodeKey) -> serde_json::Value {
    match k {
        NodeKey::Int(i) => json!(i),
        NodeKey::Str(s) => json!(s),
    }
}

fn map_json(m: &Map) -> serde_json::Value {
    serde_json::Value::Object(m.iter().map(|(k, v)| (k.clone(), to_json(v))).collect())
}

fn node_json(n: &NodeRef) -> serde_json::Value {
    let d = n.data.as_deref();
    json!({
        "id": d.map(|d| d.id),
        "element_id": d.map(|d| d.id.to_string()),
        "key": key_json(&n.key),
        "labels": d.map(|d| d.labels.clone()).unwrap_or_default(),
        "properties": d.map_or_else(|| json!({}), |d| map_json(&d.props)),
    })
}

fn rel_json(r: &RelRef) -> serde_json::Value {
    let d = r.data.as_deref();
    json!({
        "id": d.map(|d| d.id),
        "element_id": d.map(|d| d.id.to_string()),
        "type": &*r.ty,
        "start": d.map(|d| d.start_id),
        "end": d.map(|d| d.end_id),
        "start_key": key_json(&r.src),
        "end_key": key_json(&r.dst),
        "properties": d.map_or_else(|| json!({}), |d| map_json(&d.props)),
    })
}

/// A value as JSON: nodes `{"id", "element_id", "key", "labels", "properties"}`,
/// relationships `{"id", "element_id", "type", "start", "end", "start_key", "end_key",
/// "properties"}` (as the Python package's `to_dict()`), paths as alternating arrays
/// [node, relationship, node, ...], bytes as arrays of numbers, non-finite floats,
/// temporal values and points as their Cypher text.
pub(crate) fn to_json(v: &Value) -> serde_json::Value {
    match v {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => json!(b),
        Value::Int(i) => json!(i),
        Value::Float(f) if f.is_finite() => json!(f),
        Value::Float(f) => json!(float(*f)),
        Value::String(s) => json!(s),
        Value::Bytes(b) => json!(b),
        Value::List(l) => serde_json::Value::Array(l.iter().map(to_json).collect()),
        Value::Map(m) => map_json(m),
        Value::Node(n) => node_json(n),
        Value::Relationship(r) => rel_json(r),
        Value::Path(p) => {
            let mut items = Vec::with_capacity(p.nodes.len() + p.rels.len());
            for (i, n) in p.nodes.iter().enumerate() {
                if i > 0 {
                    if let Some(r) = p.rels.get(i - 1) {
                        items.push(rel_json(r));
                    }
                }
                items.push(node_json(n));
            }
            serde_json::Value::Array(items)
        }
        other => json!(literal(other)),
    }
}

/// One row as a JSON object with the columns in order.
pub(crate) fn row_json(columns: &[String], row: &[Value]) -> String {
    let mut out = String::from("{");
    for (i, (c, v)) in columns.iter().zip(row).enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::Value::String(c.clone()).to_string());
        out.push(':');
        out.push_str(&to_json(v).to_string());
    }
    out.push('}');
    out
}

/// A parameter from JSON: integers as INTEGER, other numbers as FLOAT, arrays as lists,
/// objects as maps.
pub(crate) fn from_json(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        serde_json::Value::String(s) => Value::String(s.clone()),
        serde_json::Value::Array(a) => Value::List(a.iter().map(from_json).collect()),
        serde_json::Value::Object(o) => Value::Map(o.iter().map(|(k, v)| (k.clone(), from_json(v))).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hopdb_cypher::{NodeData, PathValue, Position, RelData};
    use std::sync::Arc;

    fn node(key: &str, labels: &[&str], props: &[(&str, Value)]) -> NodeRef {
        NodeRef {
            key: NodeKey::Str(key.into()),
            data: Some(Arc::new(NodeData {
                id: 7,
                labels: labels.iter().map(|l| l.to_string()).collect(),
                props: props.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
            })),
            stored: None,
        }
    }

    fn rel(src: &str, ty: &str, dst: &str, props: &[(&str, Value)]) -> RelRef {
        RelRef {
            src: NodeKey::Str(src.into()),
            ty: ty.into(),
            dst: NodeKey::Str(dst.into()),
            edge_id: 0,
            data: Some(Arc::new(RelData {
                id: 3,
                start_id: 7,
                end_id: 8,
                props: props.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
            })),
        }
    }

    #[test]
    fn values_print_as_cypher_literals() {
        use hopdb_database::spatial::{Crs, Point};
        assert_eq!(cell(&Value::from("it's")), "it's");
        assert_eq!(cell(&Value::from("a\nb")), "a\\nb");
        assert_eq!(cell(&Value::Null), "null");
        assert_eq!(cell(&Value::Float(1.0)), "1.0");
        assert_eq!(cell(&Value::Float(f64::NEG_INFINITY)), "-Infinity");
        assert_eq!(cell(&Value::Bytes(vec![0, 255])), "0x00ff");
        assert_eq!(
            cell(&Value::List(vec![Value::Int(1), Value::from("it's"), Value::Null])),
            "[1, 'it\\'s', null]"
        );
        let m: Map = [
            ("a".to_string(), Value::Int(1)),
            ("my key".to_string(), Value::Bool(true)),
        ]
        .into();
        assert_eq!(cell(&Value::Map(m)), "{a: 1, `my key`: true}");
        let here = Point::new(Crs::Wgs84, 12.5, 56.0, None).unwrap();
        assert_eq!(
            cell(&Value::List(vec![Value::Point(here)])),
            "[point({x: 12.5, y: 56.0, crs: 'wgs-84'})]"
        );
        let ada = node("ada", &["Person"], &[("name", Value::from("Ada"))]);
        assert_eq!(cell(&Value::Node(ada.clone())), "(:Person {name: 'Ada'})");
        assert_eq!(cell(&Value::Node(node("x", &[], &[]))), "()");
        assert_eq!(
            cell(&Value::Node(NodeRef::new(NodeKey::Int(4)))),
            "({_key: 4})",
            "a node the engine did not fill shows its key"
        );
        let knows = rel("ada", "KNOWS", "bob", &[("since", Value::Int(1))]);
        assert_eq!(cell(&Value::Relationship(knows.clone())), "[:KNOWS {since: 1}]");
        let bob = node("bob", &["Person", "Author"], &[]);
        let carl = node("carl", &[], &[]);
        let path = PathValue {
            nodes: vec![ada, bob, carl],
            rels: vec![knows, rel("carl", "R", "bob", &[])],
        };
        assert_eq!(
            cell(&Value::Path(path)),
            "(:Person {name: 'Ada'})-[:KNOWS {since: 1}]->(:Person:Author)<-[:R]-()"
        );
    }

    #[test]
    fn tables_align_by_characters() {
        let t = table(
            &["name".into(), "n".into()],
            &[vec!["Ädä".into(), "1".into()], vec!["Bob".into(), "100".into()]],
        );
        let want = "\
+------+-----+
| name | n   |
+------+-----+
| Ädä  | 1   |
| Bob  | 100 |
+------+-----+
";
        assert_eq!(t, want);
        assert_eq!(table(&["a".into()], &[]), "+---+\n| a |\n+---+\n");
        assert_eq!(row_count(1), "1 row");
        assert_eq!(row_count(0), "0 rows");
    }

    #[test]
    fn stats_list_only_what_changed() {
        assert_eq!(stats_line(&QueryStats::default()), None);
        let s = QueryStats {
            nodes_created: 2,
            properties_set: 3,
            ..Default::default()
        };
        assert_eq!(stats_line(&s).as_deref(), Some("Nodes created: 2, Properties set: 3"));
    }

    #[test]
    fn errors_show_code_position_and_caret() {
        let e = CypherError::syntax(
            "InvalidExpression",
            "unexpected end of input",
            Position {
                line: 2,
                column: 10,
                offset: 19,
            },
        );
        assert_eq!(
            error(&e, "MATCH (n)\nRETURN n +"),
            "Neo.ClientError.Statement.SyntaxError (InvalidExpression) at line 2, column 10: \
             unexpected end of input\n  RETURN n +\n           ^"
        );
        let e = CypherError::unsupported("the executor");
        assert!(
            error(&e, "RETURN 1").starts_with("Neo.ClientError.Statement.FeatureNotSupported (FeatureNotSupported): ")
        );
    }

    #[test]
    fn json_forms() {
        let ada = node("ada", &["Person"], &[("name", Value::from("Ada"))]);
        assert_eq!(
            to_json(&Value::Node(ada)),
            json!({"id": 7, "element_id": "7", "key": "ada", "labels": ["Person"], "properties": {"name": "Ada"}})
        );
        assert_eq!(
            to_json(&Value::Relationship(rel("ada", "KNOWS", "bob", &[]))),
            json!({"id": 3, "element_id": "3", "type": "KNOWS", "start": 7, "end": 8,
                   "start_key": "ada", "end_key": "bob", "properties": {}})
        );
        assert_eq!(to_json(&Value::Float(f64::NAN)), json!("NaN"));
        assert_eq!(
            row_json(
                &["b".into(), "a".into()],
                &[Value::Int(1), Value::List(vec![Value::Null])]
            ),
            r#"{"b":1,"a":[null]}"#
        );
        let v: serde_json::Value = serde_json::from_str(r#"{"i": 1, "f": 1.5, "l": [true, null, "s"]}"#).unwrap();
        let want: Map = [
            ("i".to_string(), Value::Int(1)),
            ("f".to_string(), Value::Float(1.5)),
            (
                "l".to_string(),
                Value::List(vec![Value::Bool(true), Value::Null, Value::from("s")]),
            ),
        ]
        .into();
        assert_eq!(from_json(&v), Value::Map(want));
    }
}
