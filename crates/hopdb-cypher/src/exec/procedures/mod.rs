//! `CALL name(args) YIELD ...`: the built-in procedures, the algorithm procedures
//! (`algo/`) and the user-defined ones (`registry.rs`, registered on the engine).
//!
//! The arguments and YIELD of every CALL in a query are checked against the procedure's
//! signature by [`check_query`] before the query runs, raising compile-time errors (the plan
//! cache is keyed by text and knows no procedures, and procedures can be registered after a
//! plan was cached, so the check runs per execution; it is a walk over the CALL clauses).

use super::ctx::Ctx;
use super::eval::{eval, is_true, Scope};
use super::Table;
use crate::ast::{Clause, Expr, Literal, ProcedureCall, Query, UnaryOp};
use crate::error::{CypherError, ErrorClass, Result};
use crate::value::{Map, Value};
use registry::{CypherType, UserProcedure};
use std::collections::BTreeSet;
use std::sync::Arc;

mod algo;
mod apoc;
pub mod registry;
mod search;

/// A procedure's output: field names and rows.
pub(crate) struct ProcOutput {
    pub fields: Vec<String>,
    pub rows: Vec<Vec<Value>>,
}

fn not_found(name: &str) -> CypherError {
    CypherError::compile(
        ErrorClass::ProcedureError,
        "ProcedureNotFound",
        format!("there is no procedure with the name `{name}` registered"),
    )
}

/// The built-in `db.*` procedures (lower case) and their output fields.
const BUILTINS: &[(&str, &[&str])] = &[
    ("db.labels", &["label"]),
    ("db.relationshiptypes", &["relationshipType"]),
    ("db.propertykeys", &["propertyKey"]),
    ("db.schema.visualization", &["nodes", "relationships"]),
    ("dbms.components", &["name", "versions", "edition"]),
];

/// The Neo4j version whose Cypher and Bolt behaviour HopDB follows (`dbms.components()`:
/// tools check it before using version-dependent syntax).
const NEO4J_COMPATIBLE_VERSION: &str = "5.26.0";

/// Whether a CALL of `name` writes (the APOC merge and create procedures).
pub(crate) fn writes(name: &str) -> bool {
    apoc::writes(&name.to_lowercase())
}

/// Whether `name` is a built-in or algorithm procedure (user procedures may not shadow one).
pub(crate) fn is_builtin(name: &str) -> bool {
    let l = name.to_lowercase();
    algo::spec_of(name).is_some()
        || BUILTINS.iter().any(|(n, _)| *n == l)
        || apoc::PROCEDURES.iter().chain(search::PROCEDURES).any(|(n, _)| *n == l)
}

/// What a CALL needs to know about a procedure before running it.
enum Resolved {
    /// A user-defined procedure.
    User(Arc<UserProcedure>),
    /// A built-in or algorithm procedure: its output fields; its arguments are checked when
    /// it runs (`None`: any; `Some(0)`: none).
    Native { fields: Vec<String>, arity: Option<usize> },
}

impl Resolved {
    fn fields(&self) -> Vec<String> {
        match self {
            Resolved::User(p) => p.signature.outputs.iter().map(|(n, _)| n.clone()).collect(),
            Resolved::Native { fields, .. } => fields.clone(),
        }
    }
}

/// The procedure `name` (any case), or ProcedureNotFound.
fn resolve(ctx: &Ctx, name: &str) -> Result<Resolved> {
    if let Some(fields) = algo::output_fields(name) {
        if ctx.is_remote() {
            // The algorithms run on the local store's projection, which a query node of a
            // cluster does not have.
            return Err(CypherError::compile(
                ErrorClass::SemanticError,
                "ProcedureNotAvailable",
                format!("{name} runs on an embedded store's projection; a cluster's query node (hopdb serve --cluster) does not offer it"),
            ));
        }
        return Ok(Resolved::Native { fields, arity: None });
    }
    let l = name.to_lowercase();
    if let Some((_, fields)) = BUILTINS.iter().find(|(n, _)| *n == l) {
        return Ok(Resolved::Native {
            fields: fields.iter().map(|f| f.to_string()).collect(),
            arity: Some(0),
        });
    }
    if let Some((_, fields)) = apoc::PROCEDURES.iter().chain(search::PROCEDURES).find(|(n, _)| *n == l) {
        return Ok(Resolved::Native {
            fields: fields.iter().map(|f| f.to_string()).collect(),
            arity: None,
        });
    }
    ctx.procedures
        .get(name)
        .map(Resolved::User)
        .ok_or_else(|| not_found(name))
}

fn syntax(detail: &'static str, msg: String) -> CypherError {
    CypherError::compile(ErrorClass::SyntaxError, detail, msg)
}

/// Checks every CALL of `q` against its procedure's signature (compile-time errors): the
/// procedure exists; the number of arguments; the types of literal and parameter
/// arguments; implicit arguments (standalone `CALL p` without parentheses takes them from
/// the same-named parameters, which must be given; inside a query it is an error); YIELD
/// names output fields; inside a query, a procedure with outputs needs YIELD.
pub(crate) fn check_query(ctx: &Ctx, q: &Query) -> Result<()> {
    let standalone = q.unions.is_empty() && matches!(q.first.clauses.as_slice(), [Clause::Call(_)]);
    for sq in std::iter::once(&q.first).chain(q.unions.iter().map(|(_, s)| s)) {
        for c in &sq.clauses {
            check_clause(ctx, c, standalone)?;
        }
    }
    Ok(())
}

fn check_clause(ctx: &Ctx, c: &Clause, standalone: bool) -> Result<()> {
    match c {
        Clause::Call(call) => check_call(ctx, call, standalone),
        Clause::Foreach { clauses, .. } => clauses.iter().try_for_each(|c| check_clause(ctx, c, false)),
        _ => Ok(()),
    }
}

fn check_call(ctx: &Ctx, call: &ProcedureCall, standalone: bool) -> Result<()> {
    let proc = resolve(ctx, &call.name)?;
    let name = &call.name;
    match (&proc, &call.args) {
        (Resolved::User(p), None) => {
            let inputs = &p.signature.inputs;
            if !standalone && !inputs.is_empty() {
                return Err(syntax(
                    "InvalidArgumentPassingMode",
                    format!("a procedure call inside a query must pass its arguments explicitly: {name}(...)"),
                ));
            }
            if standalone {
                for (n, t) in inputs {
                    let Some(v) = ctx.params.get(n) else {
                        return Err(CypherError::compile(
                            ErrorClass::ParameterMissing,
                            "MissingParameter",
                            format!("procedure {name} takes its argument `{n}` from the parameter ${n}, which was not given"),
                        ));
                    };
                    check_type(name, n, t, v.clone())?;
                }
            }
        }
        (Resolved::User(p), Some(args)) => {
            let inputs = &p.signature.inputs;
            if args.len() != inputs.len() {
                return Err(arity_error(&p.signature.to_string(), args.len(), true));
            }
            for (a, (n, t)) in args.iter().zip(inputs) {
                if let Some(v) = constant(ctx, a) {
                    check_type(name, n, t, v)?;
                }
            }
        }
        (Resolved::Native { arity: Some(k), .. }, Some(args)) if args.len() != *k => {
            return Err(arity_error(&format!("{name}()"), args.len(), true));
        }
        _ => {}
    }
    let fields = proc.fields();
    if let Some(ys) = &call.yields {
        for (f, _) in ys {
            if !fields.contains(f) {
                return Err(syntax(
                    "UndefinedVariable",
                    format!("procedure {name} has no output field `{f}`"),
                ));
            }
        }
    } else if !standalone && !call.yield_all && !fields.is_empty() {
        return Err(syntax(
            "MissingYield",
            format!("a call of {name} inside a query must name the fields it uses with YIELD"),
        ));
    }
    Ok(())
}

fn arity_error(sig: &str, given: usize, compile: bool) -> CypherError {
    let msg = format!("procedure {sig} called with {given} argument(s)");
    if compile {
        syntax("InvalidNumberOfArguments", msg)
    } else {
        CypherError::runtime(ErrorClass::SyntaxError, "InvalidNumberOfArguments", msg)
    }
}

fn check_type(name: &str, input: &str, t: &CypherType, v: Value) -> Result<()> {
    let ty = v.type_name();
    match t.coerce(v) {
        Some(_) => Ok(()),
        None => Err(syntax(
            "InvalidArgumentType",
            format!("procedure {name}: argument `{input}` must be {t}, not {ty}"),
        )),
    }
}

/// The value of an argument known before the query runs: a literal (or a list or map of
/// them), or a parameter.
fn constant(ctx: &Ctx, e: &Expr) -> Option<Value> {
    Some(match e {
        Expr::Literal(l) => match l {
            Literal::Null => Value::Null,
            Literal::Bool(b) => Value::Bool(*b),
            Literal::Int(i) => Value::Int(*i),
            Literal::Float(f) => Value::Float(*f),
            Literal::String(s) => Value::String(s.clone()),
        },
        Expr::Parameter(p) => ctx.params.get(p)?.clone(),
        Expr::Unary(UnaryOp::Neg, x) => match constant(ctx, x)? {
            Value::Int(i) => Value::Int(i.checked_neg()?),
            Value::Float(f) => Value::Float(-f),
            _ => return None,
        },
        Expr::List(items) => Value::List(items.iter().map(|i| constant(ctx, i)).collect::<Option<_>>()?),
        Expr::Map(entries) => Value::Map(
            entries
                .iter()
                .map(|(k, v)| Some((k.clone(), constant(ctx, v)?)))
                .collect::<Option<Map>>()?,
        ),
        _ => return None,
    })
}

/// Runs a user-defined procedure: converts the arguments to the input types (run-time
/// `InvalidArgumentType` when one does not fit) and checks the rows' widths.
fn invoke_user(p: &UserProcedure, args: Vec<Value>) -> Result<Vec<Vec<Value>>> {
    let sig = &p.signature;
    if args.len() != sig.inputs.len() {
        return Err(arity_error(&sig.to_string(), args.len(), false));
    }
    let args = args
        .into_iter()
        .zip(&sig.inputs)
        .map(|(v, (n, t))| {
            let ty = v.type_name();
            t.coerce(v).ok_or_else(|| {
                CypherError::type_error(format!("procedure {}: argument `{n}` must be {t}, not {ty}", sig.name))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let rows = (p.body)(&args)?;
    if !sig.outputs.is_empty() {
        if let Some(r) = rows.iter().find(|r| r.len() != sig.outputs.len()) {
            return Err(CypherError::runtime(
                ErrorClass::ProcedureError,
                "ProcedureCallFailed",
                format!(
                    "procedure {} returned a row of {} value(s) for {} output(s)",
                    sig.name,
                    r.len(),
                    sig.outputs.len()
                ),
            ));
        }
    }
    Ok(rows)
}

/// Runs a built-in procedure with evaluated arguments.
fn invoke(ctx: &mut Ctx, name: &str, args: &[Value]) -> Result<ProcOutput> {
    if let Some(r) = algo::invoke(ctx, name, args) {
        return r;
    }
    let lower = name.to_lowercase();
    if let Some(r) = apoc::invoke(ctx, &lower, args) {
        return r;
    }
    if let Some(r) = search::invoke(ctx, &lower, args) {
        return r;
    }
    let g = ctx.read();
    match lower.as_str() {
        "dbms.components" => Ok(ProcOutput {
            fields: vec!["name".into(), "versions".into(), "edition".into()],
            rows: vec![vec![
                Value::String("HopDB".into()),
                Value::List(vec![Value::String(NEO4J_COMPATIBLE_VERSION.into())]),
                Value::String("community".into()),
            ]],
        }),
        "db.labels" => Ok(ProcOutput {
            fields: vec!["label".into()],
            rows: g
                .labels()?
                .into_iter()
                .filter(|(_, c)| *c > 0)
                .map(|(l, _)| vec![Value::String(l)])
                .collect(),
        }),
        "db.relationshiptypes" => Ok(ProcOutput {
            fields: vec!["relationshipType".into()],
            rows: g
                .edge_types()?
                .into_iter()
                .filter(|(_, c)| *c > 0)
                .map(|(t, _)| vec![Value::String(t.name.to_string())])
                .collect(),
        }),
        "db.propertykeys" => {
            // Node and relationship property keys (each relationship read from its start).
            let mut keys = BTreeSet::new();
            let mut nodes = Vec::new();
            g.for_each_node(None, &mut |n| {
                keys.extend(n.props.keys().cloned());
                nodes.push(n.key);
                true
            })?;
            for key in &nodes {
                ctx.check()?;
                for e in g.edges(key, hopdb_database::Direction::Out, None, None)? {
                    keys.extend(e.props.keys().cloned());
                }
            }
            Ok(ProcOutput {
                fields: vec!["propertyKey".into()],
                rows: keys.into_iter().map(|k| vec![Value::String(k)]).collect(),
            })
        }
        "db.schema.visualization" => {
            let labels: Vec<Value> = g
                .labels()?
                .into_iter()
                .map(|(l, c)| {
                    let mut m = Map::new();
                    m.insert("name".into(), Value::String(l));
                    m.insert("count".into(), Value::Int(c as i64));
                    Value::Map(m)
                })
                .collect();
            let types: Vec<Value> = g
                .edge_types()?
                .into_iter()
                .map(|(t, c)| {
                    let mut m = Map::new();
                    m.insert("name".into(), Value::String(t.name.to_string()));
                    m.insert("count".into(), Value::Int(c as i64));
                    Value::Map(m)
                })
                .collect();
            Ok(ProcOutput {
                fields: vec!["nodes".into(), "relationships".into()],
                rows: vec![vec![Value::List(labels), Value::List(types)]],
            })
        }
        _ => Err(not_found(name)),
    }
}

/// The arguments of a CALL for one row: the evaluated expressions, or (written without
/// parentheses) the parameters named like the procedure's inputs.
fn arguments(ctx: &Ctx, c: &ProcedureCall, proc: &Resolved, names: &[String], row: &[Value]) -> Result<Vec<Value>> {
    match (&c.args, proc) {
        (Some(a), _) => {
            let scope = Scope::row(names, row);
            a.iter().map(|e| eval(ctx, e, &scope)).collect()
        }
        (None, Resolved::User(p)) => p
            .signature
            .inputs
            .iter()
            .map(|(n, _)| {
                ctx.params.get(n).cloned().ok_or_else(|| {
                    CypherError::runtime(
                        ErrorClass::ParameterMissing,
                        "MissingParameter",
                        format!("procedure {} needs the parameter ${n}", c.name),
                    )
                })
            })
            .collect(),
        (None, Resolved::Native { .. }) => Ok(Vec::new()),
    }
}

/// A native procedure's rows with their values in `fields` order.
fn in_order(out: ProcOutput, fields: &[String]) -> Vec<Vec<Value>> {
    if out.fields == fields {
        return out.rows;
    }
    let at: Vec<Option<usize>> = fields.iter().map(|f| out.fields.iter().position(|g| g == f)).collect();
    out.rows
        .into_iter()
        .map(|r| {
            at.iter()
                .map(|i| i.and_then(|i| r.get(i).cloned()).unwrap_or(Value::Null))
                .collect()
        })
        .collect()
}

/// Runs a CALL clause for every input row. A procedure without outputs leaves the rows as
/// they are; otherwise each row is repeated for each row the procedure returns, extended
/// with the yielded fields (all of them without YIELD, in a standalone call).
pub(crate) fn call(ctx: &mut Ctx, t: Table, c: &ProcedureCall) -> Result<Table> {
    let proc = resolve(ctx, &c.name)?;
    if let Resolved::User(p) = &proc {
        if p.signature.outputs.is_empty() {
            for row in &t.rows {
                let args = arguments(ctx, c, &proc, &t.names, row)?;
                invoke_user(p, args)?;
            }
            return Ok(t);
        }
    }
    let fields = proc.fields();
    let cols: Vec<(usize, String)> = match (&c.yields, c.yield_all) {
        (Some(y), false) => y
            .iter()
            .map(|(field, var)| {
                fields
                    .iter()
                    .position(|f| f == field)
                    .map(|i| (i, var.clone()))
                    .ok_or_else(|| {
                        CypherError::compile(
                            ErrorClass::SyntaxError,
                            "UndefinedVariable",
                            format!("procedure {} has no output field `{field}`", c.name),
                        )
                    })
            })
            .collect::<Result<_>>()?,
        _ => fields.iter().cloned().enumerate().collect(),
    };
    let mut names = t.names.clone();
    names.extend(cols.iter().map(|(_, v)| v.clone()));
    let mut rows = Vec::new();
    for row in &t.rows {
        let args = arguments(ctx, c, &proc, &t.names, row)?;
        let out = match &proc {
            Resolved::User(p) => invoke_user(p, args)?,
            Resolved::Native { .. } => in_order(invoke(ctx, &c.name, &args)?, &fields),
        };
        for r in out {
            let mut nr = row.clone();
            nr.extend(cols.iter().map(|(i, _)| r.get(*i).cloned().unwrap_or(Value::Null)));
            if let Some(w) = &c.where_ {
                if !is_true(ctx, w, &Scope::row(&names, &nr))? {
                    continue;
                }
            }
            rows.push(nr);
        }
    }
    Ok(Table { names, rows })
}
