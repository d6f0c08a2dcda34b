//! `hopdb query` and `hopdb shell`, run as the built binary on temporary stores: the table,
//! JSON lines, parameters, errors with code and position, the shell's commands and
//! multi-line statements read from piped stdin (no terminal: rustyline is not used).
//!
//! Tests that run queries need the Cypher engine (hopdb-cypher's executor); those that only
//! exercise the command line do not.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

struct Out {
    ok: bool,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn hopdb(args: &[&str], stdin: &str) -> Out {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hopdb"))
        .args(args)
        .env("HOPDB_HISTORY", "/nonexistent/hopdb-test-history")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    Out {
        ok: o.status.success(),
        code: o.status.code(),
        stdout: String::from_utf8(o.stdout).unwrap(),
        stderr: String::from_utf8(o.stderr).unwrap(),
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A store with two people who know each other.
fn people(dir: &Path) {
    let o = hopdb(
        &[
            "query",
            "--create",
            s(dir),
            "CREATE (:Person {_key: 'ada', name: 'Ada', born: 1815})-[:KNOWS {since: 1833}]->(:Person {_key: 'charles', name: 'Charles'})",
        ],
        "",
    );
    assert!(o.ok, "{}", o.stderr);
    assert!(
        o.stdout.starts_with("0 rows, ") && o.stdout.contains("Nodes created: 2, Relationships created: 1"),
        "{}",
        o.stdout
    );
}

// --- Without the engine. ---

#[test]
fn query_needs_a_store_or_create() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let o = hopdb(&["query", s(&dir), "RETURN 1"], "");
    assert!(
        !o.ok && o.stderr.contains("no store here") && o.stderr.contains("--create"),
        "{}",
        o.stderr
    );
    assert!(!dir.exists(), "nothing is created without --create");
    let o = hopdb(&["query", "--read-only", s(&dir), "RETURN 1"], "");
    assert!(!o.ok && o.stderr.contains("no store here"), "{}", o.stderr);
    let o = hopdb(&["query", "--create", s(&dir), "--param", "novalue", "RETURN 1"], "");
    assert!(!o.ok && o.stderr.contains("NAME=VALUE"), "{}", o.stderr);
    let o = hopdb(&["query", "--create", s(&dir), "// nothing"], "");
    assert!(!o.ok && o.stderr.contains("no statement"), "{}", o.stderr);
}

#[test]
fn query_errors_carry_the_neo4j_code() {
    let tmp = tempfile::tempdir().unwrap();
    let o = hopdb(&["query", "--create", s(tmp.path()), "RETURN 1 +"], "");
    assert!(!o.ok, "{}", o.stdout);
    assert!(o.stderr.contains("Neo.ClientError.Statement."), "{}", o.stderr);
}

#[test]
fn shell_help_params_and_quit() {
    let tmp = tempfile::tempdir().unwrap();
    let input = ":help\n:params {\"a\": 1}\n:param b => [1, \"x\"]\n:params\n:nonsense\n:quit\nRETURN 1 +;\n";
    let o = hopdb(&["shell", "--create", s(tmp.path())], input);
    assert!(
        o.stdout.contains(":param NAME => VALUE") && o.stdout.contains(":quit"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains(r#"{"a":1,"b":[1,"x"]}"#), "{}", o.stdout);
    assert!(o.stderr.contains("unknown command :nonsense"), "{}", o.stderr);
    assert!(!o.stderr.contains("Neo."), "nothing runs after :quit: {}", o.stderr);
    assert!(!o.stdout.contains("hopdb>"), "no prompt without a terminal");
    assert_eq!(o.code, Some(1), "piped input with a failure exits 1");
}

#[test]
fn shell_runs_a_multi_line_statement_once() {
    let tmp = tempfile::tempdir().unwrap();
    // The ';' inside the string and the comment do not end the statement; the last line does.
    let input = "MATCH (n)\nWHERE n.name <> ';' // not the end;\nRETURN count(n) AS c\n;\n";
    let o = hopdb(&["shell", "--create", s(tmp.path())], input);
    // With the engine a one-row table; with the placeholder executor one error.
    let results = o.stdout.matches("1 row, ").count() + o.stderr.matches("Neo.ClientError").count();
    assert_eq!(results, 1, "stdout: {}\nstderr: {}", o.stdout, o.stderr);
}

// --- With the engine. ---

#[test]
fn query_prints_an_aligned_table() {
    let tmp = tempfile::tempdir().unwrap();
    people(tmp.path());
    let o = hopdb(
        &[
            "query",
            s(tmp.path()),
            "MATCH (a:Person)-[r:KNOWS]->(b) RETURN a.name AS name, r, b, [a.born, 'x'] AS l",
        ],
        "",
    );
    assert!(o.ok, "{}", o.stderr);
    let want = "\
+------+------------------------+-----------------------------+-------------+
| name | r                      | b                           | l           |
+------+------------------------+-----------------------------+-------------+
| Ada  | [:KNOWS {since: 1833}] | (:Person {name: 'Charles'}) | [1815, 'x'] |
+------+------------------------+-----------------------------+-------------+
1 row, ";
    assert!(o.stdout.starts_with(want), "{}", o.stdout);
    assert!(o.stdout.trim_end().ends_with(" ms"), "{}", o.stdout);
    // Several statements; a parameter; an empty result still has its header.
    let o = hopdb(
        &[
            "query",
            s(tmp.path()),
            "--param",
            "n=Ada",
            "MATCH (p {name: $n}) RETURN p.born AS born; MATCH (p:Nobody) RETURN p",
        ],
        "",
    );
    assert!(o.ok, "{}", o.stderr);
    assert!(
        o.stdout
            .starts_with("+------+\n| born |\n+------+\n| 1815 |\n+------+\n1 row, "),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("\n\n+---+\n| p |\n+---+\n0 rows, "), "{}", o.stdout);
}

#[test]
fn query_json_lines() {
    let tmp = tempfile::tempdir().unwrap();
    people(tmp.path());
    let o = hopdb(
        &[
            "query",
            "--json",
            s(tmp.path()),
            "--params",
            r#"{"since": 1833}"#,
            "MATCH p = (a)-[r:KNOWS {since: $since}]->(b) RETURN b.name AS name, a, r, p ORDER BY name",
        ],
        "",
    );
    assert!(o.ok, "{}", o.stderr);
    let lines: Vec<serde_json::Value> = o.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 1);
    let row = &lines[0];
    assert!(
        o.stdout.starts_with(r#"{"name":"Charles","a":{"#),
        "columns keep their order: {}",
        o.stdout
    );
    assert_eq!(row["name"], "Charles");
    assert_eq!(row["a"]["key"], "ada");
    assert_eq!(row["a"]["labels"], serde_json::json!(["Person"]));
    assert_eq!(row["a"]["properties"], serde_json::json!({"name": "Ada", "born": 1815}));
    assert_eq!(row["r"]["type"], "KNOWS");
    assert_eq!(row["r"]["start"], row["a"]["id"]);
    assert_eq!(
        (&row["r"]["start_key"], &row["r"]["end_key"]),
        (&"ada".into(), &"charles".into())
    );
    let p = row["p"].as_array().unwrap();
    assert_eq!(p.len(), 3);
    assert_eq!((&p[0], &p[1]), (&row["a"], &row["r"]));
    assert_eq!(p[2]["key"], "charles");
    assert!(
        o.stderr.starts_with("1 row, "),
        "the summary goes to stderr: {}",
        o.stderr
    );
}

#[test]
fn query_errors_show_line_and_column() {
    let tmp = tempfile::tempdir().unwrap();
    people(tmp.path());
    let o = hopdb(&["query", s(tmp.path()), "MATCH (n)\nRETURN n +"], "");
    assert!(!o.ok);
    assert!(
        o.stderr.contains("Neo.ClientError.Statement.SyntaxError (") && o.stderr.contains(") at line 2, column "),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr.contains("\n  RETURN n +\n  "),
        "the line with a caret: {}",
        o.stderr
    );
    // A write through a read-only open fails; reads work.
    let o = hopdb(&["query", "--read-only", s(tmp.path()), "CREATE (:X)"], "");
    assert!(!o.ok, "{}", o.stdout);
    let o = hopdb(
        &["query", "--read-only", s(tmp.path()), "MATCH (n) RETURN count(n) AS c"],
        "",
    );
    assert!(o.ok && o.stdout.contains("| 2 |"), "{}\n{}", o.stdout, o.stderr);
}

#[test]
fn shell_runs_statements_with_parameters_and_reports_errors() {
    let tmp = tempfile::tempdir().unwrap();
    people(tmp.path());
    let input = "\
:param who => 'Ad' + 'a'
MATCH (p:Person)
WHERE p.name = $who
RETURN p.name AS name,
       p.born AS born;
RETURN 1 +;
CREATE (:Person {name: 'Bob'}); MATCH (p:Person) RETURN count(p) AS people
";
    let o = hopdb(&["shell", s(tmp.path())], input);
    assert!(
        o.stdout.contains("| name | born |\n+------+------+\n| Ada  | 1815 |\n"),
        "{}\n{}",
        o.stdout,
        o.stderr
    );
    assert!(
        o.stderr.contains("error: Neo.ClientError.Statement.SyntaxError") && o.stderr.contains("at line 1, column "),
        "{}",
        o.stderr
    );
    assert!(o.stdout.contains("Nodes created: 1"), "{}", o.stdout);
    assert!(
        o.stdout.contains("| people |\n+--------+\n| 3      |"),
        "the last statement runs at the end of input: {}",
        o.stdout
    );
    assert_eq!(o.code, Some(1));
}
