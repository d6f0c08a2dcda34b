//! `hopdb query STORE 'MATCH ...'`: runs Cypher statements against a store and prints an
//! aligned table (or JSON lines), and what `hopdb shell` shares with it: opening the store,
//! parameters, splitting text into statements, running one and printing its result.

use crate::cypher_format as fmt;
use anyhow::{anyhow, bail, Context, Result};
use hopdb_cypher::{CypherError, Params, QueryEngine, QueryOptions, QueryStats, Row};
use hopdb_database::{AccessMode, Config, Control, Database, ErrorKind};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How to open the store, shared by `query` and `shell`.
#[derive(clap::Args)]
pub struct StoreArgs {
    /// The store directory.
    pub dir: PathBuf,
    /// Create a new, empty store when the directory holds none.
    #[arg(long)]
    pub create: bool,
    /// Open the store read-only, as a secondary: works while another process writes to it
    /// (a view as of the open); statements that write fail.
    #[arg(long)]
    pub read_only: bool,
    /// A query parameter, NAME=VALUE (repeatable): VALUE is read as JSON when it parses
    /// (42, 1.5, true, null, "42", [1, 2], {"a": 1}), else taken as a string (--param name=Ada).
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE")]
    pub param: Vec<String>,
    /// Query parameters as one JSON object (applied before the --param ones).
    #[arg(long, value_name = "JSON")]
    pub params: Option<String>,
    /// Stop a statement that runs longer than this many seconds.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
}

/// `hopdb query`'s arguments.
#[derive(clap::Args)]
pub struct QueryArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// The Cypher text: one statement, or several separated by `;` (run in order, each its own
    /// transaction, stopping at the first error). `-` reads it from stdin.
    pub text: String,
    /// Print each row as a JSON object on its own line (JSON lines; nodes, relationships and
    /// paths as structured values); the summary goes to stderr.
    #[arg(long)]
    pub json: bool,
}

/// Opens the store read-write (Cypher may write), or as a secondary with `--read-only`;
/// `auto_projection` lets reads build the adjacency projection in the background (worth it
/// in a long-lived process, not for one query).
pub(crate) fn open_store(a: &StoreArgs, auto_projection: bool, cache_statistics: bool) -> Result<Database> {
    let dir = &a.dir;
    let exists = dir.join("CURRENT").is_file();
    if !exists && (a.read_only || !a.create) {
        bail!(
            "{}: no store here{}",
            dir.display(),
            if a.read_only {
                ""
            } else {
                " (pass --create to make a new one)"
            }
        );
    }
    let mut cfg = Config {
        cache_statistics,
        ..Config::default()
    };
    if !auto_projection {
        cfg.auto_projection_bytes = 0;
    }
    if a.read_only {
        cfg.access = AccessMode::Secondary;
        return Database::open_with(dir, cfg).with_context(|| format!("opening {}", dir.display()));
    }
    match Database::open_with(dir, cfg) {
        Err(e) if e.kind() == ErrorKind::Locked => bail!(
            "{}: the store is open for writing in another process; pass --read-only to query it \
             (reads only, as of the open)",
            dir.display()
        ),
        other => other.with_context(|| format!("opening {}", dir.display())),
    }
}

/// The parameters of `--params` and `--param`.
pub(crate) fn initial_params(a: &StoreArgs) -> Result<Params> {
    let mut params = Params::new();
    if let Some(j) = &a.params {
        params = params_object(j)?;
    }
    for p in &a.param {
        let (name, value) = p
            .split_once('=')
            .ok_or_else(|| anyhow!("--param takes NAME=VALUE, not {p:?}"))?;
        let name = name.trim();
        if name.is_empty() {
            bail!("--param takes NAME=VALUE, not {p:?}");
        }
        params.insert(name.to_owned(), param_value(value));
    }
    Ok(params)
}

/// A JSON object of parameters.
pub(crate) fn params_object(text: &str) -> Result<Params> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(o)) => Ok(o.iter().map(|(k, v)| (k.clone(), fmt::from_json(v))).collect()),
        Ok(_) => bail!("parameters are a JSON object, like {{\"name\": \"Ada\", \"limit\": 10}}"),
        Err(e) => bail!("parameters are a JSON object: {e}"),
    }
}

/// A parameter value: JSON when it parses, else the text as a string.
pub(crate) fn param_value(text: &str) -> hopdb_cypher::Value {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => fmt::from_json(&v),
        Err(_) => hopdb_cypher::Value::String(text.to_owned()),
    }
}

/// The per-statement limits.
pub(crate) fn options(timeout: Option<f64>) -> Result<QueryOptions> {
    let control = match timeout {
        None => Control::default(),
        Some(t) if t.is_finite() && t >= 0.0 => Control::default().with_timeout(Duration::from_secs_f64(t)),
        Some(t) => bail!("--timeout is a non-negative number of seconds, not {t}"),
    };
    Ok(QueryOptions {
        control,
        ..Default::default()
    })
}

/// Splits text into statements at `;` outside string literals, backquoted names and comments.
/// Returns the complete (`;`-terminated) statements, trimmed and without the `;`, and the
/// unterminated rest (trimmed; empty when the text ends with a statement's `;`).
pub(crate) fn split_statements(text: &str) -> (Vec<String>, String) {
    #[derive(PartialEq)]
    enum St {
        Code,
        Quote(char),
        LineComment,
        BlockComment,
    }
    let mut stmts = Vec::new();
    let mut start = 0;
    let mut st = St::Code;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match st {
            St::Code => match c {
                '\'' | '"' | '`' => st = St::Quote(c),
                '/' if chars.peek().map(|p| p.1) == Some('/') => {
                    chars.next();
                    st = St::LineComment;
                }
                '/' if chars.peek().map(|p| p.1) == Some('*') => {
                    chars.next();
                    st = St::BlockComment;
                }
                ';' => {
                    let s = text[start..i].trim();
                    if !s.is_empty() {
                        stmts.push(s.to_owned());
                    }
                    start = i + 1;
                }
                _ => {}
            },
            St::Quote(q) => {
                if c == '\\' && q != '`' {
                    chars.next();
                } else if c == q {
                    st = St::Code;
                }
            }
            St::LineComment => {
                if c == '\n' {
                    st = St::Code;
                }
            }
            St::BlockComment => {
                if c == '*' && chars.peek().map(|p| p.1) == Some('/') {
                    chars.next();
                    st = St::Code;
                }
            }
        }
    }
    (stmts, text[start..].trim().to_owned())
}

/// Whether a statement is only comments (nothing to run).
pub(crate) fn is_blank(stmt: &str) -> bool {
    stmt.lines().all(|l| {
        let l = l.trim();
        l.is_empty() || l.starts_with("//")
    }) && !stmt.contains("/*")
}

/// A statement run to its end.
pub(crate) struct Executed {
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
    pub stats: QueryStats,
    pub plan: Option<String>,
    pub elapsed: Duration,
}

/// Runs one statement and collects its rows.
pub(crate) fn execute(
    engine: &QueryEngine,
    text: &str,
    params: &Params,
    opts: &QueryOptions,
) -> Result<Executed, CypherError> {
    let started = Instant::now();
    let mut r = engine.query_with(text, params, opts)?;
    let columns = r.columns().to_vec();
    let mut rows = Vec::new();
    while let Some(row) = r.next_row()? {
        rows.push(row);
    }
    Ok(Executed {
        columns,
        stats: *r.stats(),
        plan: r.plan().map(|p| p.render()),
        rows,
        elapsed: started.elapsed(),
    })
}

/// "3 rows, 1.2 ms", then the update counters when the statement changed anything.
pub(crate) fn summary(rows: usize, stats: &QueryStats, elapsed: Duration) -> String {
    let mut s = format!("{}, {:.1} ms", fmt::row_count(rows), elapsed.as_secs_f64() * 1e3);
    if let Some(st) = fmt::stats_line(stats) {
        s.push('\n');
        s.push_str(&st);
    }
    s
}

/// Prints a result as a table (no table when the statement has no columns), the plan if any,
/// and the summary.
pub(crate) fn print_table(out: &mut impl Write, x: &Executed) -> std::io::Result<()> {
    if !x.columns.is_empty() {
        let cells: Vec<Vec<String>> = x.rows.iter().map(|r| r.iter().map(fmt::cell).collect()).collect();
        out.write_all(fmt::table(&x.columns, &cells).as_bytes())?;
    }
    if let Some(p) = &x.plan {
        out.write_all(p.as_bytes())?;
    }
    writeln!(out, "{}", summary(x.rows.len(), &x.stats, x.elapsed))
}

/// `hopdb query`.
pub fn run(a: &QueryArgs) -> Result<()> {
    let text = if a.text == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading the query from stdin")?;
        s
    } else {
        a.text.clone()
    };
    let (mut stmts, rest) = split_statements(&text);
    if !rest.is_empty() {
        stmts.push(rest);
    }
    stmts.retain(|s| !is_blank(s));
    if stmts.is_empty() {
        bail!("no statement to run");
    }
    let params = initial_params(&a.store)?;
    let opts = options(a.store.timeout)?;
    let engine = QueryEngine::new(open_store(&a.store, false, false)?);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for (i, stmt) in stmts.iter().enumerate() {
        if a.json {
            run_json(&mut out, &engine, stmt, &params, &opts)?;
        } else {
            if i > 0 {
                writeln!(out)?;
            }
            let x = execute(&engine, stmt, &params, &opts).map_err(|e| anyhow!("{}", fmt::error(&e, stmt)))?;
            print_table(&mut out, &x)?;
        }
        out.flush()?;
    }
    Ok(())
}

/// Streams rows as JSON lines; the summary to stderr.
fn run_json(
    out: &mut impl Write,
    engine: &QueryEngine,
    stmt: &str,
    params: &Params,
    opts: &QueryOptions,
) -> Result<()> {
    let started = Instant::now();
    let err = |e: CypherError| anyhow!("{}", fmt::error(&e, stmt));
    let mut r = engine.query_with(stmt, params, opts).map_err(err)?;
    let columns = r.columns().to_vec();
    let mut n = 0;
    while let Some(row) = r.next_row().map_err(err)? {
        writeln!(out, "{}", fmt::row_json(&columns, &row))?;
        n += 1;
    }
    out.flush()?;
    eprintln!("{}", summary(n, r.stats(), started.elapsed()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hopdb_cypher::Value;

    #[test]
    fn statements_split_at_semicolons_outside_strings_and_comments() {
        let (s, rest) = split_statements("RETURN ';' AS a; // c;\nRETURN \"x\\\";\" /* ; */ ;\nMATCH (n)");
        assert_eq!(s, vec!["RETURN ';' AS a", "// c;\nRETURN \"x\\\";\" /* ; */"]);
        assert_eq!(rest, "MATCH (n)");
        let (s, rest) = split_statements("MATCH (n)\nRETURN n\n;  \n");
        assert_eq!((s, rest.as_str()), (vec!["MATCH (n)\nRETURN n".to_string()], ""));
        let (s, rest) = split_statements("RETURN 'open;\n");
        assert!(s.is_empty() && rest == "RETURN 'open;");
        assert!(is_blank("// only a comment") && !is_blank("// c\nRETURN 1"));
    }

    #[test]
    fn params_are_json_or_strings() {
        assert_eq!(param_value("42"), Value::Int(42));
        assert_eq!(param_value("\"42\""), Value::from("42"));
        assert_eq!(param_value("Ada"), Value::from("Ada"));
        assert_eq!(
            param_value("[1, 2.5]"),
            Value::List(vec![Value::Int(1), Value::Float(2.5)])
        );
        let a = StoreArgs {
            dir: PathBuf::new(),
            create: false,
            read_only: false,
            param: vec!["b=2".into(), "s= x".into()],
            params: Some(r#"{"a": null, "b": 1}"#.into()),
            timeout: None,
        };
        let p = initial_params(&a).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(
            (&p["a"], &p["b"], &p["s"]),
            (&Value::Null, &Value::Int(2), &Value::from(" x"))
        );
        let bad = StoreArgs {
            param: vec!["novalue".into()],
            params: None,
            ..a
        };
        assert!(initial_params(&bad).is_err());
        assert!(params_object("[1]").is_err());
    }
}
