//! Expression evaluation over one row, with Cypher's null semantics (ternary logic).

use super::ctx::Ctx;
use super::pattern;
use crate::ast::{BinaryOp, Expr, Literal, MapProjectionItem, Quantifier, Subquery, UnaryOp};
use crate::compare::{self, Arith, CmpOp};
use crate::error::{CypherError, ErrorClass, Result};
use crate::value::{Map, Value};

/// The variables visible to an expression: a row, plus local bindings (comprehension and
/// reduce variables) layered on top.
pub(crate) enum Scope<'a> {
    /// A row and its column names.
    Row { names: &'a [String], row: &'a [Value] },
    /// One local variable over a parent scope.
    Local {
        name: &'a str,
        value: &'a Value,
        parent: &'a Scope<'a>,
    },
}

impl<'a> Scope<'a> {
    pub fn row(names: &'a [String], row: &'a [Value]) -> Scope<'a> {
        Scope::Row { names, row }
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        match self {
            Scope::Row { names, row } => names.iter().position(|n| n == name).and_then(|i| row.get(i)),
            Scope::Local { name: n, value, parent } => {
                if *n == name {
                    Some(value)
                } else {
                    parent.get(name)
                }
            }
        }
    }

    /// Every visible variable, locals shadowing the row (for subqueries).
    pub fn flatten(&self) -> (Vec<String>, Vec<Value>) {
        match self {
            Scope::Row { names, row } => (names.to_vec(), row.to_vec()),
            Scope::Local { name, value, parent } => {
                let (mut n, mut r) = parent.flatten();
                if let Some(i) = n.iter().position(|x| x == name) {
                    r[i] = (*value).clone();
                } else {
                    n.push((*name).to_string());
                    r.push((*value).clone());
                }
                (n, r)
            }
        }
    }
}

/// Ternary truth of a value used as a predicate: `Some(b)` or `None` for null.
pub(crate) fn truth(v: &Value) -> Result<Option<bool>> {
    match v {
        Value::Bool(b) => Ok(Some(*b)),
        Value::Null => Ok(None),
        other => Err(CypherError::type_error(format!(
            "expected a boolean, got {}",
            other.type_name()
        ))),
    }
}

fn opt_bool(b: Option<bool>) -> Value {
    b.map(Value::Bool).unwrap_or(Value::Null)
}

/// Evaluates `e` and returns whether it is true (null and false are both "not true").
pub(crate) fn is_true(ctx: &Ctx, e: &Expr, scope: &Scope) -> Result<bool> {
    Ok(truth(&eval(ctx, e, scope)?)? == Some(true))
}

/// Evaluates an expression.
pub(crate) fn eval(ctx: &Ctx, e: &Expr, scope: &Scope) -> Result<Value> {
    match e {
        Expr::Literal(l) => Ok(match l {
            Literal::Null => Value::Null,
            Literal::Bool(b) => Value::Bool(*b),
            Literal::Int(i) => Value::Int(*i),
            Literal::Float(f) => Value::Float(*f),
            Literal::String(s) => Value::String(s.clone()),
        }),
        Expr::Parameter(p) => ctx.params.get(p).cloned().ok_or_else(|| missing_param(p)),
        Expr::Variable(v) => scope.get(v).cloned().ok_or_else(|| {
            CypherError::compile(
                ErrorClass::SyntaxError,
                "UndefinedVariable",
                format!("variable `{v}` not defined"),
            )
        }),
        Expr::Property(base, key) => match &**base {
            // A variable's property reads the bound value in place (no clone of its key).
            Expr::Variable(v) => match scope.get(v) {
                Some(b) => property(ctx, b, key),
                None => eval(ctx, base, scope),
            },
            _ => property(ctx, &eval(ctx, base, scope)?, key),
        },
        Expr::List(items) => Ok(Value::List(
            items.iter().map(|i| eval(ctx, i, scope)).collect::<Result<_>>()?,
        )),
        Expr::Map(entries) => {
            let mut m = Map::new();
            for (k, v) in entries {
                m.insert(k.clone(), eval(ctx, v, scope)?);
            }
            Ok(Value::Map(m))
        }
        Expr::MapProjection { var, items } => map_projection(ctx, var, items, scope),
        Expr::Index(base, idx) => {
            let b = eval(ctx, base, scope)?;
            let i = eval(ctx, idx, scope)?;
            index(ctx, &b, &i)
        }
        Expr::Slice(base, from, to) => {
            let b = eval(ctx, base, scope)?;
            let f = from.as_ref().map(|x| eval(ctx, x, scope)).transpose()?;
            let t = to.as_ref().map(|x| eval(ctx, x, scope)).transpose()?;
            slice(&b, f, t)
        }
        Expr::Unary(op, x) => {
            let v = eval(ctx, x, scope)?;
            match op {
                UnaryOp::Not => Ok(opt_bool(truth(&v)?.map(|b| !b))),
                UnaryOp::Pos => match v {
                    Value::Int(_) | Value::Float(_) | Value::Null => Ok(v),
                    Value::Duration(_) => Ok(v),
                    o => Err(CypherError::type_error(format!(
                        "cannot apply unary + to {}",
                        o.type_name()
                    ))),
                },
                UnaryOp::Neg => compare::negate(&v),
            }
        }
        Expr::Binary(op, a, b) => binary(ctx, *op, a, b, scope),
        Expr::IsNull(x, negated) => {
            let v = eval(ctx, x, scope)?;
            Ok(Value::Bool(v.is_null() != *negated))
        }
        Expr::HasLabels(x, labels) => match eval(ctx, x, scope)? {
            Value::Null => Ok(Value::Null),
            Value::Node(n) => {
                let node = ctx.live_node(&n)?;
                Ok(Value::Bool(labels.iter().all(|l| node.labels.iter().any(|x| x == l))))
            }
            o => Err(CypherError::type_error(format!(
                "label predicate on {}, expected a node",
                o.type_name()
            ))),
        },
        Expr::Function {
            name,
            distinct: _,
            args,
        } => {
            let lname = name.to_lowercase();
            if crate::functions::is_aggregate(&lname) {
                return Err(CypherError::compile(
                    ErrorClass::SyntaxError,
                    "InvalidAggregation",
                    format!("aggregating function {name}() is not allowed here"),
                ));
            }
            let vals = args.iter().map(|a| eval(ctx, a, scope)).collect::<Result<Vec<_>>>()?;
            call_function(ctx, name, &lname, vals)
        }
        Expr::CountStar => Err(CypherError::compile(
            ErrorClass::SyntaxError,
            "InvalidAggregation",
            "count(*) is not allowed here",
        )),
        Expr::Case { operand, whens, else_ } => {
            match operand {
                Some(op) => {
                    let v = eval(ctx, op, scope)?;
                    for (w, t) in whens {
                        let wv = eval(ctx, w, scope)?;
                        if compare::equals(&v, &wv) == Some(true) {
                            return eval(ctx, t, scope);
                        }
                    }
                }
                None => {
                    for (w, t) in whens {
                        if truth(&eval(ctx, w, scope)?).unwrap_or(None) == Some(true) {
                            return eval(ctx, t, scope);
                        }
                    }
                }
            }
            match else_ {
                Some(x) => eval(ctx, x, scope),
                None => Ok(Value::Null),
            }
        }
        Expr::ListComprehension { var, list, filter, map } => {
            let l = match eval(ctx, list, scope)? {
                Value::Null => return Ok(Value::Null),
                Value::List(l) => l,
                o => {
                    return Err(CypherError::type_error(format!(
                        "list comprehension over {}, expected a list",
                        o.type_name()
                    )))
                }
            };
            let mut out = Vec::new();
            for item in &l {
                let s = Scope::Local {
                    name: var,
                    value: item,
                    parent: scope,
                };
                if let Some(f) = filter {
                    if truth(&eval(ctx, f, &s)?)? != Some(true) {
                        continue;
                    }
                }
                out.push(match map {
                    Some(m) => eval(ctx, m, &s)?,
                    None => item.clone(),
                });
            }
            Ok(Value::List(out))
        }
        Expr::Quantified {
            quantifier,
            var,
            list,
            filter,
        } => {
            let l = match eval(ctx, list, scope)? {
                Value::Null => return Ok(Value::Null),
                Value::List(l) => l,
                o => {
                    return Err(CypherError::type_error(format!(
                        "quantifier over {}, expected a list",
                        o.type_name()
                    )))
                }
            };
            let (mut trues, mut nulls) = (0usize, 0usize);
            for item in &l {
                let s = Scope::Local {
                    name: var,
                    value: item,
                    parent: scope,
                };
                let t = match filter {
                    Some(f) => truth(&eval(ctx, f, &s)?)?,
                    None => truth(item)?,
                };
                match t {
                    Some(true) => trues += 1,
                    None => nulls += 1,
                    Some(false) => {}
                }
            }
            let falses = l.len() - trues - nulls;
            Ok(match quantifier {
                Quantifier::All => {
                    if falses > 0 {
                        Value::Bool(false)
                    } else if nulls > 0 {
                        Value::Null
                    } else {
                        Value::Bool(true)
                    }
                }
                Quantifier::Any => {
                    if trues > 0 {
                        Value::Bool(true)
                    } else if nulls > 0 {
                        Value::Null
                    } else {
                        Value::Bool(false)
                    }
                }
                Quantifier::None => {
                    if trues > 0 {
                        Value::Bool(false)
                    } else if nulls > 0 {
                        Value::Null
                    } else {
                        Value::Bool(true)
                    }
                }
                Quantifier::Single => {
                    if trues > 1 {
                        Value::Bool(false)
                    } else if nulls > 0 {
                        Value::Null
                    } else {
                        Value::Bool(trues == 1)
                    }
                }
            })
        }
        Expr::Reduce {
            acc,
            init,
            var,
            list,
            expr,
        } => {
            let mut a = eval(ctx, init, scope)?;
            let l = match eval(ctx, list, scope)? {
                Value::Null => return Ok(Value::Null),
                Value::List(l) => l,
                o => return Err(CypherError::type_error(format!("reduce over {}", o.type_name()))),
            };
            for item in &l {
                let s1 = Scope::Local {
                    name: acc,
                    value: &a,
                    parent: scope,
                };
                let s2 = Scope::Local {
                    name: var,
                    value: item,
                    parent: &s1,
                };
                a = eval(ctx, expr, &s2)?;
            }
            Ok(a)
        }
        Expr::Pattern(el) => {
            let (names, row) = scope.flatten();
            Ok(Value::Bool(pattern::exists_element(ctx, &names, &row, el)?))
        }
        Expr::PatternComprehension {
            var,
            pattern: el,
            filter,
            map,
        } => {
            let (names, row) = scope.flatten();
            let mut out = Vec::new();
            pattern::for_each_element_match(ctx, &names, &row, el, var.as_deref(), &mut |n, r| {
                let s = Scope::row(n, r);
                if let Some(f) = filter {
                    if truth(&eval(ctx, f, &s)?)? != Some(true) {
                        return Ok(true);
                    }
                }
                out.push(eval(ctx, map, &s)?);
                Ok(true)
            })?;
            Ok(Value::List(out))
        }
        Expr::Exists(sq) => Ok(Value::Bool(subquery_count(ctx, sq, scope, true)? > 0)),
        Expr::CountSubquery(sq) => {
            let n = match super::degree::count(ctx, sq, scope)? {
                Some(n) => n,
                None => subquery_count(ctx, sq, scope, false)?,
            };
            Ok(Value::Int(n as i64))
        }
    }
}

fn missing_param(p: &str) -> CypherError {
    CypherError::runtime(
        ErrorClass::ParameterMissing,
        "MissingParameter",
        format!("expected a parameter named ${p}"),
    )
}

fn subquery_count(ctx: &Ctx, sq: &Subquery, scope: &Scope, stop_at_first: bool) -> Result<u64> {
    let (names, row) = scope.flatten();
    match sq {
        Subquery::Pattern { pattern: parts, where_ } => {
            let mut n = 0u64;
            pattern::for_each_match(ctx, &names, &row, parts, &mut |nn, r| {
                if let Some(w) = where_ {
                    if !is_true(ctx, w, &Scope::row(nn, r))? {
                        return Ok(true);
                    }
                }
                n += 1;
                Ok(!stop_at_first)
            })?;
            Ok(n)
        }
        Subquery::Query(q) => super::run_subquery(ctx, q, &names, &row).map(|rows| rows as u64),
    }
}

pub(crate) fn call_function(ctx: &Ctx, name: &str, lname: &str, vals: Vec<Value>) -> Result<Value> {
    if let Some(r) = crate::temporal::call(lname, &vals, &ctx.clock) {
        return r;
    }
    if let Some(r) = crate::functions::call(lname, vals, ctx) {
        return r;
    }
    Err(CypherError::compile(
        ErrorClass::SyntaxError,
        "UnknownFunction",
        format!("unknown function '{name}'"),
    ))
}

/// `base.key`.
pub(crate) fn property(ctx: &Ctx, base: &Value, key: &str) -> Result<Value> {
    match base {
        Value::Null => Ok(Value::Null),
        Value::Node(n) => ctx.node_property(n, key),
        Value::Relationship(r) => ctx.rel_property(r, key),
        Value::Map(m) => Ok(m.get(key).cloned().unwrap_or(Value::Null)),
        Value::Point(p) => crate::functions::spatial::property(p, key),
        other => match crate::temporal::property(other, key) {
            Some(r) => r,
            None => Err(CypherError::type_error(format!(
                "cannot read property `{key}` of a {}",
                other.type_name()
            ))),
        },
    }
}

fn index(ctx: &Ctx, base: &Value, idx: &Value) -> Result<Value> {
    match (base, idx) {
        (Value::Null, _) | (_, Value::Null) => Ok(Value::Null),
        (Value::List(l), Value::Int(i)) => {
            let n = l.len() as i64;
            let j = if *i < 0 { n + i } else { *i };
            Ok(if j < 0 || j >= n {
                Value::Null
            } else {
                l[j as usize].clone()
            })
        }
        (Value::List(_), o) => Err(CypherError::runtime(
            ErrorClass::TypeError,
            "ListElementAccessByNonInteger",
            format!("list index must be an integer, got {}", o.type_name()),
        )),
        (Value::Map(_) | Value::Node(_) | Value::Relationship(_), Value::String(k)) => property(ctx, base, k),
        (Value::Map(_) | Value::Node(_) | Value::Relationship(_), o) => Err(CypherError::runtime(
            ErrorClass::TypeError,
            "MapElementAccessByNonString",
            format!("map key must be a string, got {}", o.type_name()),
        )),
        (o, _) => Err(CypherError::type_error(format!(
            "cannot index into a {}",
            o.type_name()
        ))),
    }
}

fn slice(base: &Value, from: Option<Value>, to: Option<Value>) -> Result<Value> {
    let l = match base {
        Value::Null => return Ok(Value::Null),
        Value::List(l) => l,
        o => return Err(CypherError::type_error(format!("cannot slice a {}", o.type_name()))),
    };
    let n = l.len() as i64;
    let bound = |v: Option<Value>, default: i64| -> Result<Option<i64>> {
        match v {
            None => Ok(Some(default)),
            Some(Value::Null) => Ok(None),
            Some(Value::Int(i)) => Ok(Some(if i < 0 { (n + i).max(0) } else { i.min(n) })),
            Some(o) => Err(CypherError::type_error(format!(
                "slice bound must be an integer, got {}",
                o.type_name()
            ))),
        }
    };
    let (Some(f), Some(t)) = (bound(from, 0)?, bound(to, n)?) else {
        return Ok(Value::Null);
    };
    if f >= t {
        return Ok(Value::List(Vec::new()));
    }
    Ok(Value::List(l[f as usize..t as usize].to_vec()))
}

fn map_projection(ctx: &Ctx, var: &str, items: &[MapProjectionItem], scope: &Scope) -> Result<Value> {
    let base = scope.get(var).cloned().ok_or_else(|| {
        CypherError::compile(
            ErrorClass::SyntaxError,
            "UndefinedVariable",
            format!("variable `{var}` not defined"),
        )
    })?;
    if base.is_null() {
        return Ok(Value::Null);
    }
    let mut m = Map::new();
    for it in items {
        match it {
            MapProjectionItem::Property(k) => {
                m.insert(k.clone(), property(ctx, &base, k)?);
            }
            MapProjectionItem::AllProperties => {
                let all = match &base {
                    Value::Node(n) => crate::functions::GraphAccess::node_properties(ctx, n)?,
                    Value::Relationship(r) => crate::functions::GraphAccess::rel_properties(ctx, r)?,
                    Value::Map(mm) => mm.clone(),
                    o => {
                        return Err(CypherError::type_error(format!(
                            "map projection of a {}",
                            o.type_name()
                        )))
                    }
                };
                m.extend(all);
            }
            MapProjectionItem::Literal(k, e) => {
                m.insert(k.clone(), eval(ctx, e, scope)?);
            }
            MapProjectionItem::Variable(v) => {
                let val = scope.get(v).cloned().ok_or_else(|| {
                    CypherError::compile(
                        ErrorClass::SyntaxError,
                        "UndefinedVariable",
                        format!("variable `{v}` not defined"),
                    )
                })?;
                m.insert(v.clone(), val);
            }
        }
    }
    Ok(Value::Map(m))
}

fn binary(ctx: &Ctx, op: BinaryOp, a: &Expr, b: &Expr, scope: &Scope) -> Result<Value> {
    // Boolean operators: evaluate both sides (errors on either side surface), ternary logic.
    match op {
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => {
            let x = truth(&eval(ctx, a, scope)?)?;
            if op == BinaryOp::And && x == Some(false) {
                return Ok(Value::Bool(false));
            }
            if op == BinaryOp::Or && x == Some(true) {
                return Ok(Value::Bool(true));
            }
            let y = truth(&eval(ctx, b, scope)?)?;
            return Ok(match op {
                BinaryOp::And => match (x, y) {
                    (_, Some(false)) => Value::Bool(false),
                    (Some(true), Some(true)) => Value::Bool(true),
                    _ => Value::Null,
                },
                BinaryOp::Or => match (x, y) {
                    (_, Some(true)) => Value::Bool(true),
                    (Some(false), Some(false)) => Value::Bool(false),
                    _ => Value::Null,
                },
                _ => match (x, y) {
                    (Some(p), Some(q)) => Value::Bool(p != q),
                    _ => Value::Null,
                },
            });
        }
        _ => {}
    }
    let x = eval(ctx, a, scope)?;
    let y = eval(ctx, b, scope)?;
    if op == BinaryOp::RegexMatch {
        return Ok(match (&x, &y) {
            (Value::String(s), Value::String(p)) => Value::Bool(ctx.regex(p)?.is_match(s)),
            _ => Value::Null,
        });
    }
    binary_values(op, &x, &y)
}

/// A binary operator other than AND / OR / XOR on evaluated operands.
pub(crate) fn binary_values(op: BinaryOp, x: &Value, y: &Value) -> Result<Value> {
    let cmp = |op: CmpOp| -> Value {
        if x.is_null() || y.is_null() {
            return Value::Null;
        }
        opt_bool(compare::compare_op(op, x, y))
    };
    Ok(match op {
        BinaryOp::Eq => opt_bool(compare::equals(x, y)),
        BinaryOp::Ne => opt_bool(compare::equals(x, y).map(|b| !b)),
        BinaryOp::Lt => cmp(CmpOp::Lt),
        BinaryOp::Le => cmp(CmpOp::Le),
        BinaryOp::Gt => cmp(CmpOp::Gt),
        BinaryOp::Ge => cmp(CmpOp::Ge),
        BinaryOp::Add => compare::arithmetic(Arith::Add, x, y)?,
        BinaryOp::Sub => compare::arithmetic(Arith::Sub, x, y)?,
        BinaryOp::Mul => compare::arithmetic(Arith::Mul, x, y)?,
        BinaryOp::Div => compare::arithmetic(Arith::Div, x, y)?,
        BinaryOp::Mod => compare::arithmetic(Arith::Mod, x, y)?,
        BinaryOp::Pow => compare::arithmetic(Arith::Pow, x, y)?,
        BinaryOp::In => match y {
            Value::Null => Value::Null,
            Value::List(_) => opt_bool(compare::in_list(x, y)),
            o => {
                return Err(CypherError::type_error(format!(
                    "IN expects a list, got {}",
                    o.type_name()
                )))
            }
        },
        BinaryOp::StartsWith | BinaryOp::EndsWith | BinaryOp::Contains => match (x, y) {
            (Value::String(s), Value::String(t)) => Value::Bool(match op {
                BinaryOp::StartsWith => s.starts_with(t.as_str()),
                BinaryOp::EndsWith => s.ends_with(t.as_str()),
                _ => s.contains(t.as_str()),
            }),
            _ => Value::Null,
        },
        // Needs the query's regex cache: `binary` handles it.
        BinaryOp::RegexMatch => Value::Null,
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => Value::Null,
    })
}
