//! Full-text indexes: `CREATE FULLTEXT INDEX`, `SHOW` / `DROP`, and
//! `db.index.fulltext.queryNodes`: which nodes match (words, prefixes, phrases, AND / NOT,
//! fields, several labels), the BM25 ranking against the formula computed here, the
//! analyzers, persistence in a store directory, and the errors.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_cypher::{params, Params, QueryEngine, Value};
use hopdb_database::Database;

fn rows(e: &QueryEngine, q: &str, p: &Params) -> Vec<Vec<Value>> {
    e.query(q, p)
        .unwrap_or_else(|err| panic!("{q}: {err}"))
        .collect_rows()
        .unwrap()
}

fn s(x: &str) -> Value {
    Value::String(x.into())
}

/// The names the search finds, best first.
fn names(e: &QueryEngine, index: &str, q: &str) -> Vec<String> {
    let p = params! { "i" => index, "q" => q };
    rows(
        e,
        "CALL db.index.fulltext.queryNodes($i, $q) YIELD node RETURN node.name",
        &p,
    )
    .into_iter()
    .map(|r| match &r[0] {
        Value::String(x) => x.clone(),
        o => panic!("{o:?}"),
    })
    .collect()
}

fn corpus() -> QueryEngine {
    let e = QueryEngine::new(Database::in_memory());
    rows(
        &e,
        "CREATE (:Doc {name: 'a', text: 'the quick brown fox'}), \
                (:Doc {name: 'b', text: 'quick quick fox'}), \
                (:Doc {name: 'c', text: 'a lazy brown dog sleeps all day long under the tree'}), \
                (:Doc {name: 'd', text: 'Foxes and dogs'}), \
                (:Note {name: 'e', text: 'brown paper', title: 'Quick notes'}), \
                (:Other {name: 'f', text: 'quick fox'}), \
                (:Doc {name: 'g', text: 42})",
        &params! {},
    );
    rows(
        &e,
        "CREATE FULLTEXT INDEX docs FOR (n:Doc|Note) ON EACH [n.text, n.title]",
        &params! {},
    );
    e
}

#[test]
fn matching() {
    let e = corpus();
    // Words (any case), several labels, both properties; other labels and non-strings ignored.
    assert_eq!(sorted(names(&e, "docs", "QUICK")), ["a", "b", "e"]);
    assert_eq!(sorted(names(&e, "docs", "fox")), ["a", "b"]);
    // Prefix and wildcard patterns.
    assert_eq!(sorted(names(&e, "docs", "fox*")), ["a", "b", "d"]);
    assert_eq!(sorted(names(&e, "docs", "d?g*")), ["c", "d"]);
    // Default OR; + and AND require; - and NOT exclude.
    assert_eq!(sorted(names(&e, "docs", "lazy paper")), ["c", "e"]);
    assert_eq!(sorted(names(&e, "docs", "+brown +fox")), ["a"]);
    assert_eq!(sorted(names(&e, "docs", "brown AND fox")), ["a"]);
    assert_eq!(sorted(names(&e, "docs", "brown -fox")), ["c", "e"]);
    assert_eq!(sorted(names(&e, "docs", "brown NOT paper")), ["a", "c"]);
    // Phrases need the words in order, adjacent.
    assert_eq!(sorted(names(&e, "docs", "\"brown fox\"")), ["a"]);
    assert_eq!(sorted(names(&e, "docs", "\"fox brown\"")), Vec::<String>::new());
    // A field.
    assert_eq!(sorted(names(&e, "docs", "title:quick")), ["e"]);
    assert_eq!(sorted(names(&e, "docs", "text:quick")), ["a", "b"]);
    // Nothing matches an unknown word; options skip and limit page the ranked hits.
    assert!(names(&e, "docs", "zebra").is_empty());
    let paged = rows(
        &e,
        "CALL db.index.fulltext.queryNodes('docs', 'quick', {skip: 1, limit: 1}) YIELD node RETURN node.name",
        &params! {},
    );
    assert_eq!(paged, vec![vec![s(&names(&e, "docs", "quick")[1])]]);
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// Lucene's BM25 for one term in a field: idf * tf / (tf + k1 (1 - b + b dl / avgdl)).
fn bm25(n_docs: f64, df: f64, tf: f64, dl: f64, avgdl: f64) -> f64 {
    let idf = (1.0 + (n_docs - df + 0.5) / (df + 0.5)).ln();
    idf * tf / (tf + 1.2 * (1.0 - 0.75 + 0.75 * dl / avgdl))
}

#[test]
fn ranking_is_bm25() {
    let e = corpus();
    let got = rows(
        &e,
        "CALL db.index.fulltext.queryNodes('docs', 'fox') YIELD node, score RETURN node.name, score",
        &params! {},
    );
    // The `text` field: docs a, b, c, d, e have it (4 + 3 + 11 + 3 + 2 terms; "the" and "a"
    // count: the default analyzer keeps stop words); `fox` is in a (once) and b (once).
    let avgdl = (4.0 + 3.0 + 11.0 + 3.0 + 2.0) / 5.0;
    let want_b = bm25(5.0, 2.0, 1.0, 3.0, avgdl);
    let want_a = bm25(5.0, 2.0, 1.0, 4.0, avgdl);
    assert_eq!(got[0][0], s("b"), "the shorter field ranks first");
    assert_eq!(got[1][0], s("a"));
    let score = |v: &Value| match v {
        Value::Float(f) => *f,
        o => panic!("{o:?}"),
    };
    assert!((score(&got[0][1]) - want_b).abs() < 1e-5, "{got:?} vs {want_b}");
    assert!((score(&got[1][1]) - want_a).abs() < 1e-5, "{got:?} vs {want_a}");
    // Two occurrences outrank one; a rarer term outranks a common one; prefix matches all score 1.
    let q = rows(
        &e,
        "CALL db.index.fulltext.queryNodes('docs', 'quick') YIELD node RETURN node.name LIMIT 1",
        &params! {},
    );
    assert_eq!(q, vec![vec![s("b")]]);
    let pref = rows(
        &e,
        "CALL db.index.fulltext.queryNodes('docs', 'fox*') YIELD score RETURN collect(DISTINCT score)",
        &params! {},
    );
    assert_eq!(pref, vec![vec![Value::List(vec![Value::Float(1.0)])]]);
    // Equal scores come in creation order.
    assert_eq!(names(&e, "docs", "fox*"), ["a", "b", "d"]);
}

#[test]
fn analyzers() {
    let e = QueryEngine::new(Database::in_memory());
    rows(
        &e,
        "CREATE (:E {name: '北京大学'}), (:E {name: 'Université de Paris'}), (:E {name: 'The Who'})",
        &params! {},
    );
    rows(
        &e,
        "CREATE FULLTEXT INDEX cjk FOR (n:E) ON EACH [n.name] OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk', `fulltext.eventually_consistent`: true}}",
        &params! {},
    );
    rows(
        &e,
        "CREATE FULLTEXT INDEX std FOR (n:E) ON EACH [n.name] OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard'}}",
        &params! {},
    );
    rows(
        &e,
        "CREATE FULLTEXT INDEX plain FOR (n:E) ON EACH [n.name]",
        &params! {},
    );
    assert_eq!(names(&e, "cjk", "大学"), ["北京大学"]);
    assert_eq!(names(&e, "cjk", "京大"), ["北京大学"]);
    assert_eq!(names(&e, "plain", "université"), ["Université de Paris"]);
    // `standard` drops English stop words; the default keeps them.
    assert!(names(&e, "std", "the").is_empty());
    assert_eq!(names(&e, "plain", "the"), ["The Who"]);
    let shown = rows(&e, "SHOW FULLTEXT INDEXES", &params! {});
    assert_eq!(shown.len(), 3);
    let analyzers = rows(
        &e,
        "CALL db.index.fulltext.listAvailableAnalyzers() YIELD analyzer RETURN analyzer",
        &params! {},
    );
    assert!(analyzers.contains(&vec![s("cjk")]));
}

#[test]
fn schema_commands_and_errors() {
    let e = corpus();
    // Equivalent: refused, or a no-op with IF NOT EXISTS.
    let err = e
        .query("CREATE FULLTEXT INDEX docs FOR (n:Doc) ON EACH [n.text]", &params! {})
        .unwrap_err();
    assert!(
        err.neo4j_code().starts_with("Neo.ClientError.Schema")
            || err.neo4j_code().starts_with("Neo.ClientError.Statement"),
        "{err}"
    );
    rows(
        &e,
        "CREATE FULLTEXT INDEX docs IF NOT EXISTS FOR (n:Doc) ON EACH [n.text]",
        &params! {},
    );
    for (q, code) in [
        ("CALL db.index.fulltext.queryNodes('nope', 'x') YIELD node RETURN node", "Neo.ClientError.Procedure.ProcedureCallFailed"),
        ("CALL db.index.fulltext.queryNodes('docs', 'a~2') YIELD node RETURN node", "Neo.ClientError.Procedure.ProcedureCallFailed"),
        ("CALL db.index.fulltext.queryNodes('docs', '(a OR b)') YIELD node RETURN node", "Neo.ClientError.Procedure.ProcedureCallFailed"),
        ("CREATE FULLTEXT INDEX x FOR (n:Doc) ON EACH [n.text] OPTIONS {indexConfig: {`fulltext.analyzer`: 'klingon'}}", "Neo.ClientError.Statement.FeatureNotSupported"),
        ("CREATE FULLTEXT INDEX x FOR ()-[r:T]-() ON EACH [r.text]", "Neo.ClientError.Statement.FeatureNotSupported"),
    ] {
        let err = e.query(q, &params! {}).and_then(|r| r.collect_rows()).unwrap_err();
        assert_eq!(err.neo4j_code(), code, "{q}: {err}");
    }
    // A write transaction's search sees its own writes; the snapshot before it does not.
    let mut tx = e.begin().unwrap();
    tx.query("CREATE (:Doc {name: 'z', text: 'zebra'})", &params! {})
        .unwrap();
    let inside = tx
        .query(
            "CALL db.index.fulltext.queryNodes('docs', 'zebra') YIELD node RETURN node.name",
            &params! {},
        )
        .unwrap()
        .collect_rows()
        .unwrap();
    assert_eq!(inside, vec![vec![s("z")]]);
    assert!(names(&e, "docs", "zebra").is_empty());
    tx.rollback();
    // Nothing to wait for: the index is complete at commit; a void call keeps its input rows.
    assert!(rows(&e, "CALL db.awaitIndexes(10)", &params! {}).is_empty());
    assert_eq!(
        rows(&e, "UNWIND [1, 2] AS x CALL db.awaitIndexes() RETURN x", &params! {}).len(),
        2
    );
    rows(&e, "DROP INDEX docs", &params! {});
    assert!(rows(&e, "SHOW FULLTEXT INDEXES", &params! {}).is_empty());
    rows(&e, "DROP INDEX docs IF EXISTS", &params! {});
}

#[test]
fn definitions_persist_in_a_store_directory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    {
        let e = QueryEngine::new(Database::open(&path).unwrap());
        rows(&e, "CREATE (:P {name: 'Ada Lovelace'})", &params! {});
        rows(&e, "CREATE FULLTEXT INDEX people FOR (n:P) ON EACH [n.name] OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}}", &params! {});
    }
    let e = QueryEngine::new(Database::open(&path).unwrap());
    assert_eq!(names(&e, "people", "lovelace"), ["Ada Lovelace"]);
    let shown = rows(&e, "SHOW FULLTEXT INDEXES", &params! {});
    assert_eq!(shown[0][1], s("people"));
}
