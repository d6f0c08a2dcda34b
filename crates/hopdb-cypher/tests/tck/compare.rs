//! Comparing the engine's results to the TCK's expectations, and printing actual values in
//! the TCK's notation for failure reports.

use super::values::{ENode, ERel, Expected};
use hopdb_cypher::{temporal, NodeRef, RelRef, Value};

/// How lists compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListOrder {
    /// Element order matters.
    Strict,
    /// Lists are multisets (the TCK's "ignoring element order for lists"), at every depth.
    Ignore,
}

/// Whether `actual` is the value `expected` describes.
pub fn matches(expected: &Expected, actual: &Value, lists: ListOrder) -> bool {
    match (expected, actual) {
        (Expected::Null, Value::Null) => true,
        (Expected::Bool(e), Value::Bool(a)) => e == a,
        (Expected::Int(e), Value::Int(a)) => e == a,
        (Expected::Float(e, text), Value::Float(a)) => float_matches(*e, text, *a),
        (Expected::String(e), Value::String(a)) => e == a,
        // Temporal values are written as their string form.
        (
            Expected::String(e),
            Value::Date(_)
            | Value::LocalTime(_)
            | Value::Time(_)
            | Value::LocalDateTime(_)
            | Value::DateTime(_)
            | Value::Duration(_),
        ) => temporal::to_cypher_string(actual).is_some_and(|s| s == *e),
        (Expected::List(e), Value::List(a)) => list_matches(e, a, lists),
        (Expected::Map(e), Value::Map(a)) => {
            e.len() == a.len()
                && e.iter()
                    .all(|(k, ev)| a.get(k).is_some_and(|av| matches(ev, av, lists)))
        }
        (Expected::Node(e), Value::Node(a)) => node_matches(e, a, lists),
        (Expected::Rel(e), Value::Relationship(a)) => rel_matches(e, a, lists),
        (Expected::Path(start, steps), Value::Path(p)) => {
            if p.nodes.len() != steps.len() + 1 || p.rels.len() != steps.len() {
                return false;
            }
            if !node_matches(start, &p.nodes[0], lists) {
                return false;
            }
            steps.iter().enumerate().all(|(i, (er, forwards, en))| {
                let (from, to, r) = (&p.nodes[i], &p.nodes[i + 1], &p.rels[i]);
                let dir_ok = if *forwards {
                    r.src == from.key && r.dst == to.key
                } else {
                    r.src == to.key && r.dst == from.key
                };
                dir_ok && rel_matches(er, r, lists) && node_matches(en, to, lists)
            })
        }
        _ => false,
    }
}

/// Floats: NaN matches NaN; otherwise equal as parsed, or equal once the actual value is
/// rounded to the number of significant digits the TCK printed (when it printed fewer than 15).
pub fn float_matches(e: f64, text: &str, a: f64) -> bool {
    if e.is_nan() || a.is_nan() {
        return e.is_nan() && a.is_nan();
    }
    if e == a {
        return true;
    }
    if !e.is_finite() || !a.is_finite() {
        return false;
    }
    let digits = significant_digits(text);
    if digits == 0 || digits >= 15 {
        return false;
    }
    let round = |x: f64| format!("{:.*e}", digits - 1, x);
    round(a) == round(e)
}

fn significant_digits(text: &str) -> usize {
    let mantissa = text.split(['e', 'E']).next().unwrap_or("");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let trimmed = digits.trim_start_matches('0');
    if trimmed.is_empty() {
        0
    } else {
        trimmed.len()
    }
}

fn props_match(e: &[(String, Expected)], a: &hopdb_cypher::Map, lists: ListOrder) -> bool {
    e.len() == a.len()
        && e.iter()
            .all(|(k, ev)| a.get(k).is_some_and(|av| matches(ev, av, lists)))
}

fn node_matches(e: &ENode, a: &NodeRef, lists: ListOrder) -> bool {
    let Some(d) = &a.data else { return false };
    let mut el: Vec<&str> = e.labels.iter().map(String::as_str).collect();
    let mut al: Vec<&str> = d.labels.iter().map(String::as_str).collect();
    el.sort_unstable();
    el.dedup();
    al.sort_unstable();
    al.dedup();
    el == al && props_match(&e.props, &d.props, lists)
}

fn rel_matches(e: &ERel, a: &RelRef, lists: ListOrder) -> bool {
    let Some(d) = &a.data else { return false };
    *e.ty == *a.ty && props_match(&e.props, &d.props, lists)
}

fn list_matches(e: &[Expected], a: &[Value], lists: ListOrder) -> bool {
    if e.len() != a.len() {
        return false;
    }
    match lists {
        ListOrder::Strict => e.iter().zip(a).all(|(ev, av)| matches(ev, av, lists)),
        ListOrder::Ignore => multiset_match(e, a, |ev, av| matches(ev, av, lists)),
    }
}

/// Whether there is a one-to-one pairing of `e` and `a` under `m` (both the same length):
/// a bipartite matching by augmenting paths, so a non-transitive `m` is no problem.
pub fn multiset_match<E, A>(e: &[E], a: &[A], m: impl Fn(&E, &A) -> bool) -> bool {
    if e.len() != a.len() {
        return false;
    }
    let adj: Vec<Vec<usize>> = e
        .iter()
        .map(|ev| (0..a.len()).filter(|&j| m(ev, &a[j])).collect())
        .collect();
    if adj.iter().any(Vec::is_empty) {
        return false;
    }
    let mut owner: Vec<Option<usize>> = vec![None; a.len()];
    fn augment(i: usize, adj: &[Vec<usize>], owner: &mut [Option<usize>], seen: &mut [bool]) -> bool {
        for &j in &adj[i] {
            if seen[j] {
                continue;
            }
            seen[j] = true;
            if owner[j].is_none_or(|k| augment(k, adj, owner, seen)) {
                owner[j] = Some(i);
                return true;
            }
        }
        false
    }
    for i in 0..e.len() {
        // Fast path: a free candidate.
        if let Some(&j) = adj[i].iter().find(|&&j| owner[j].is_none()) {
            owner[j] = Some(i);
            continue;
        }
        let mut seen = vec![false; a.len()];
        if !augment(i, &adj, &mut owner, &mut seen) {
            return false;
        }
    }
    true
}

/// Whether a row matches column by column.
pub fn row_matches(e: &[Expected], a: &[Value], lists: ListOrder) -> bool {
    e.len() == a.len() && e.iter().zip(a).all(|(ev, av)| matches(ev, av, lists))
}

/// Compares result rows: as multisets or in order.
pub fn rows_match(e: &[Vec<Expected>], a: &[Vec<Value>], ordered: bool, lists: ListOrder) -> bool {
    if e.len() != a.len() {
        return false;
    }
    if ordered {
        e.iter().zip(a).all(|(er, ar)| row_matches(er, ar, lists))
    } else {
        multiset_match(e, a, |er, ar| row_matches(er, ar, lists))
    }
}

/// An actual value in the TCK's notation (nodes without materialized data print as `(?)`).
pub fn render(v: &Value) -> String {
    let mut out = String::new();
    render_into(v, &mut out);
    out
}

fn render_string(s: &str, out: &mut String) {
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out.push('\'');
}

fn render_key(k: &str, out: &mut String) {
    if !k.is_empty()
        && k.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !k.starts_with(|c: char| c.is_ascii_digit())
    {
        out.push_str(k);
    } else {
        out.push('`');
        out.push_str(&k.replace('`', "``"));
        out.push('`');
    }
}

fn render_map(m: &hopdb_cypher::Map, out: &mut String) {
    out.push('{');
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        render_key(k, out);
        out.push_str(": ");
        render_into(v, out);
    }
    out.push('}');
}

fn render_node(n: &NodeRef, out: &mut String) {
    out.push('(');
    match &n.data {
        None => out.push('?'),
        Some(d) => {
            for l in &d.labels {
                out.push(':');
                render_key(l, out);
            }
            if !d.props.is_empty() {
                if !d.labels.is_empty() {
                    out.push(' ');
                }
                render_map(&d.props, out);
            }
        }
    }
    out.push(')');
}

fn render_rel(r: &RelRef, out: &mut String) {
    out.push_str("[:");
    render_key(&r.ty, out);
    match &r.data {
        None => out.push_str(" ?"),
        Some(d) => {
            if !d.props.is_empty() {
                out.push(' ');
                render_map(&d.props, out);
            }
        }
    }
    out.push(']');
}

fn render_into(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&render_float(*f)),
        Value::String(s) => render_string(s, out),
        Value::Bytes(b) => out.push_str(&format!("bytes{b:?}")),
        Value::List(l) => {
            out.push('[');
            for (i, x) in l.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                render_into(x, out);
            }
            out.push(']');
        }
        Value::Map(m) => render_map(m, out),
        Value::Node(n) => render_node(n, out),
        Value::Relationship(r) => render_rel(r, out),
        Value::Path(p) if p.nodes.len() != p.rels.len() + 1 => {
            out.push_str(&format!(
                "<malformed path: {} nodes, {} relationships: ",
                p.nodes.len(),
                p.rels.len()
            ));
            for n in &p.nodes {
                render_node(n, out);
            }
            for r in &p.rels {
                render_rel(r, out);
            }
            out.push('>');
        }
        Value::Path(p) => {
            out.push('<');
            if let Some(first) = p.nodes.first() {
                render_node(first, out);
            }
            for (i, r) in p.rels.iter().enumerate() {
                let (Some(from), Some(to)) = (p.nodes.get(i), p.nodes.get(i + 1)) else {
                    out.push_str("<malformed path>");
                    break;
                };
                let backwards = r.src != from.key && r.src == to.key;
                out.push_str(if backwards { "<-" } else { "-" });
                render_rel(r, out);
                out.push_str(if backwards { "-" } else { "->" });
                render_node(to, out);
            }
            out.push('>');
        }
        other => match temporal::to_cypher_string(other) {
            Some(s) => render_string(&s, out),
            None => out.push_str(&format!("{other:?}")),
        },
    }
}

/// A float as the TCK prints it: always with a `.` or exponent; `NaN`, `Infinity`.
pub fn render_float(f: f64) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        let s = format!("{f:?}");
        if s.contains(['.', 'e', 'E']) {
            s
        } else {
            format!("{s}.0")
        }
    }
}
