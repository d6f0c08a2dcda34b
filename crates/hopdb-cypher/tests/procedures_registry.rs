#![allow(clippy::unwrap_used, clippy::expect_used)]
//! User-defined procedures: `QueryEngine::register_procedure` and how CALL runs them.

use hopdb_cypher::{
    params, CypherError, CypherType, ErrorClass, Params, Phase, ProcedureFn, ProcedureSignature, QueryEngine, Value,
};
use hopdb_database::Database;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

fn engine() -> QueryEngine {
    QueryEngine::new(Database::in_memory())
}

fn body(f: impl Fn(&[Value]) -> hopdb_cypher::Result<Vec<Vec<Value>>> + Send + Sync + 'static) -> ProcedureFn {
    Arc::new(f)
}

/// `my.pairs(n :: INTEGER?) :: (i :: INTEGER?, sq :: INTEGER?)`: rows (i, i*i) for i in 0..n.
fn pairs(e: &QueryEngine) {
    let sig = ProcedureSignature::parse("my.pairs(n :: INTEGER?) :: (i :: INTEGER?, sq :: INTEGER?)").unwrap();
    e.register_procedure(
        sig,
        body(|args| {
            let n = match &args[0] {
                Value::Int(n) => *n,
                _ => 0,
            };
            Ok((0..n).map(|i| vec![Value::Int(i), Value::Int(i * i)]).collect())
        }),
    )
    .unwrap();
}

fn run(e: &QueryEngine, q: &str, p: &Params) -> (Vec<String>, Vec<Vec<Value>>) {
    let r = e.query(q, p).unwrap_or_else(|err| panic!("{q}: {err}"));
    let cols = r.columns().to_vec();
    (cols, r.collect_rows().unwrap())
}

fn fail(e: &QueryEngine, q: &str, p: &Params) -> CypherError {
    match e.query(q, p) {
        Ok(r) => match r.collect_rows() {
            Ok(rows) => panic!("{q}: expected an error, got {rows:?}"),
            Err(err) => err,
        },
        Err(err) => err,
    }
}

fn ints(v: &[i64]) -> Vec<Value> {
    v.iter().map(|i| Value::Int(*i)).collect()
}

#[test]
fn in_query_and_standalone_calls() {
    let e = engine();
    pairs(&e);
    let (cols, rows) = run(
        &e,
        "UNWIND [2, 3] AS n CALL my.pairs(n) YIELD sq WHERE sq > 0 RETURN n, sq",
        &params! {},
    );
    assert_eq!(cols, vec!["n", "sq"]);
    assert_eq!(rows, vec![ints(&[2, 1]), ints(&[3, 1]), ints(&[3, 4])]);
    // Standalone: every output field, named as in the signature.
    let (cols, rows) = run(&e, "CALL my.pairs(2)", &params! {});
    assert_eq!(cols, vec!["i", "sq"]);
    assert_eq!(rows, vec![ints(&[0, 0]), ints(&[1, 1])]);
    let (cols, _) = run(&e, "CALL my.pairs(2) YIELD *", &params! {});
    assert_eq!(cols, vec!["i", "sq"]);
    // Renaming, in any order.
    let (cols, rows) = run(&e, "CALL my.pairs(2) YIELD sq AS i, i AS sq RETURN i, sq", &params! {});
    assert_eq!(cols, vec!["i", "sq"]);
    assert_eq!(rows, vec![ints(&[0, 0]), ints(&[1, 1])]);
    // No input rows: the procedure does not run, the columns are still there.
    let (cols, rows) = run(&e, "MATCH (n) CALL my.pairs(3) YIELD i RETURN n, i", &params! {});
    assert_eq!((cols, rows.len()), (vec!["n".to_string(), "i".to_string()], 0));
}

#[test]
fn implicit_arguments_come_from_parameters() {
    let e = engine();
    pairs(&e);
    let (_, rows) = run(&e, "CALL my.pairs", &params! {"n" => 3});
    assert_eq!(rows.len(), 3);
    let err = fail(&e, "CALL my.pairs", &params! {});
    assert_eq!(
        (err.class, err.detail, err.phase),
        (ErrorClass::ParameterMissing, "MissingParameter", Phase::Compile)
    );
    let err = fail(&e, "CALL my.pairs", &params! {"n" => "three"});
    assert_eq!(
        (err.class, err.detail),
        (ErrorClass::SyntaxError, "InvalidArgumentType")
    );
    // Inside a query, arguments must be explicit.
    let err = fail(&e, "CALL my.pairs YIELD i RETURN i", &params! {"n" => 3});
    assert_eq!((err.detail, err.phase), ("InvalidArgumentPassingMode", Phase::Compile));
}

#[test]
fn compile_time_checks() {
    let e = engine();
    pairs(&e);
    let cases: &[(&str, ErrorClass, &str)] = &[
        ("CALL my.pairs()", ErrorClass::SyntaxError, "InvalidNumberOfArguments"),
        (
            "CALL my.pairs(1, 2) YIELD i RETURN i",
            ErrorClass::SyntaxError,
            "InvalidNumberOfArguments",
        ),
        ("CALL my.pairs(true)", ErrorClass::SyntaxError, "InvalidArgumentType"),
        (
            "CALL my.pairs([1]) YIELD i RETURN i",
            ErrorClass::SyntaxError,
            "InvalidArgumentType",
        ),
        (
            "CALL my.pairs(1) YIELD nope RETURN nope",
            ErrorClass::SyntaxError,
            "UndefinedVariable",
        ),
        (
            "CALL my.pairs(1) YIELD * RETURN i",
            ErrorClass::SyntaxError,
            "UnexpectedSyntax",
        ),
        ("CALL my.pairs(1) RETURN 1", ErrorClass::SyntaxError, "MissingYield"),
        ("CALL my.nothing()", ErrorClass::ProcedureError, "ProcedureNotFound"),
        (
            "CALL my.nothing() YIELD x RETURN x",
            ErrorClass::ProcedureError,
            "ProcedureNotFound",
        ),
        (
            "CALL my.pairs(1) YIELD i, sq AS i RETURN i",
            ErrorClass::SyntaxError,
            "VariableAlreadyBound",
        ),
    ];
    for (q, class, detail) in cases {
        let err = fail(&e, q, &params! {});
        assert_eq!(
            (err.class, err.detail, err.phase),
            (*class, *detail, Phase::Compile),
            "{q}: {err}"
        );
    }
    // A parameter's type is checked before the query runs too.
    let err = fail(&e, "CALL my.pairs($n) YIELD i RETURN i", &params! {"n" => "x"});
    assert_eq!((err.detail, err.phase), ("InvalidArgumentType", Phase::Compile));
    // A CREATE before a failing CALL never ran.
    let _ = fail(
        &e,
        "CREATE (:X) WITH 1 AS one CALL my.pairs(true) YIELD i RETURN i",
        &params! {},
    );
    assert!(run(&e, "MATCH (n) RETURN n", &params! {}).1.is_empty());
}

#[test]
fn run_time_argument_types_and_coercion() {
    let e = engine();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let sig = ProcedureSignature::new("my.echo")
        .input("x", CypherType::Float)
        .input("xs", CypherType::List(Box::new(CypherType::Float)))
        .output("x", CypherType::Float);
    e.register_procedure(
        sig,
        body(move |args| {
            s.lock().unwrap().push(args.to_vec());
            Ok(vec![vec![args[0].clone()]])
        }),
    )
    .unwrap();
    let (_, rows) = run(
        &e,
        "WITH 2 AS two CALL my.echo(two, [1, null]) YIELD x RETURN x",
        &params! {},
    );
    assert_eq!(rows, vec![vec![Value::Float(2.0)]]);
    assert_eq!(
        seen.lock().unwrap()[0],
        vec![Value::Float(2.0), Value::List(vec![Value::Float(1.0), Value::Null])]
    );
    // null fits every type.
    let (_, rows) = run(&e, "CALL my.echo(null, null)", &params! {});
    assert_eq!(rows, vec![vec![Value::Null]]);
    // A value known only at run time is checked when the call runs.
    let err = fail(&e, "WITH 'a' AS s CALL my.echo(s, []) YIELD x RETURN x", &params! {});
    assert_eq!(
        (err.class, err.detail, err.phase),
        (ErrorClass::TypeError, "InvalidArgumentType", Phase::Runtime)
    );
}

#[test]
fn void_procedures_keep_the_rows() {
    let e = engine();
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    e.register_procedure(
        ProcedureSignature::parse("my.tick() :: ()").unwrap(),
        body(move |_| {
            c.fetch_add(1, Ordering::SeqCst);
            Ok(Vec::new())
        }),
    )
    .unwrap();
    let (cols, rows) = run(&e, "CALL my.tick()", &params! {});
    assert!(cols.is_empty() && rows.is_empty());
    let (cols, rows) = run(&e, "CALL my.tick", &params! {});
    assert!(cols.is_empty() && rows.is_empty());
    let (cols, rows) = run(&e, "UNWIND [1, 2, 3] AS x CALL my.tick() RETURN x", &params! {});
    assert_eq!(cols, vec!["x"]);
    assert_eq!(rows, vec![ints(&[1]), ints(&[2]), ints(&[3])]);
    assert_eq!(calls.load(Ordering::SeqCst), 5);
    let err = fail(&e, "CALL my.tick() YIELD x RETURN x", &params! {});
    assert_eq!(err.detail, "UndefinedVariable");
}

#[test]
fn the_registry_is_shared_by_clones_and_independent_of_the_plan_cache() {
    let e = engine();
    let q = "CALL my.pairs(1) YIELD i RETURN i";
    assert_eq!(fail(&e, q, &params! {}).detail, "ProcedureNotFound");
    let clone = e.clone();
    pairs(&clone);
    assert_eq!(run(&e, q, &params! {}).1, vec![ints(&[0])]);
    assert_eq!(
        e.procedures().iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        vec!["my.pairs(n :: INTEGER?) :: (i :: INTEGER?, sq :: INTEGER?)"]
    );
    // Names match ignoring case, like the built-ins.
    assert_eq!(run(&e, "CALL MY.PAIRS(2) YIELD i RETURN i", &params! {}).1.len(), 2);
    assert!(e.unregister_procedure("my.pairs"));
    assert!(!e.unregister_procedure("my.pairs"));
    assert_eq!(fail(&e, q, &params! {}).detail, "ProcedureNotFound");
    // Other engines do not see it.
    pairs(&e);
    assert_eq!(fail(&engine(), q, &params! {}).detail, "ProcedureNotFound");
}

#[test]
fn registration_errors() {
    let e = engine();
    let err = e
        .register_procedure(ProcedureSignature::new("db.labels"), body(|_| Ok(Vec::new())))
        .unwrap_err();
    assert_eq!(err.detail, "ProcedureRegistrationFailed");
    let dup = ProcedureSignature::new("my.p")
        .output("a", CypherType::Any)
        .output("a", CypherType::Any);
    assert!(e.register_procedure(dup, body(|_| Ok(Vec::new()))).is_err());
    assert!(ProcedureSignature::parse("my.p(x :: WIDGET?) :: ()").is_err());
    // The built-ins still work.
    run(&e, "CALL db.labels() YIELD label RETURN label", &params! {});
}

#[test]
fn procedure_failures_surface() {
    let e = engine();
    e.register_procedure(
        ProcedureSignature::parse("my.bad() :: (a :: INTEGER?, b :: INTEGER?)").unwrap(),
        body(|_| Ok(vec![vec![Value::Int(1)]])),
    )
    .unwrap();
    let err = fail(&e, "CALL my.bad()", &params! {});
    assert_eq!(
        (err.class, err.detail),
        (ErrorClass::ProcedureError, "ProcedureCallFailed")
    );
    e.register_procedure(
        ProcedureSignature::parse("my.boom() :: (a :: INTEGER?)").unwrap(),
        body(|_| Err(CypherError::argument("Boom", "it broke"))),
    )
    .unwrap();
    assert_eq!(fail(&e, "CALL my.boom()", &params! {}).detail, "Boom");
}

#[test]
fn works_inside_transactions_and_with_graph_values() {
    let e = engine();
    e.register_procedure(
        ProcedureSignature::parse("my.id(x :: NODE?) :: (x :: NODE?)").unwrap(),
        body(|args| Ok(vec![args.to_vec()])),
    )
    .unwrap();
    let mut tx = e.begin().unwrap();
    tx.query("CREATE (:P {name: 'a'})", &params! {}).unwrap();
    let rows = tx
        .query("MATCH (p:P) CALL my.id(p) YIELD x RETURN x.name AS name", &params! {})
        .unwrap()
        .collect_rows()
        .unwrap();
    assert_eq!(rows, vec![vec![Value::from("a")]]);
    let err = tx.query("CALL my.id(1)", &params! {}).unwrap_err();
    assert_eq!(err.detail, "InvalidArgumentType");
}
