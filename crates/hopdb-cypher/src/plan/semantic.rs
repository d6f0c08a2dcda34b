//! Compile-time checks: variables are defined before use and not redefined, aggregates
//! appear only where they may, SKIP / LIMIT are constants, UNION parts agree, functions
//! exist. These errors are raised before anything runs, as the TCK requires.

use crate::ast::*;
use crate::error::{CypherError, ErrorClass, Result};
use crate::functions;
use std::collections::HashMap;

/// What a variable holds, as far as the checker can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Node,
    Rel,
    RelList,
    Path,
    /// A non-entity value (number, string, list, map...).
    Value,
    /// A number, string or boolean written as a literal.
    Scalar,
    /// A list written as a literal.
    List,
    Any,
}

type Scope = HashMap<String, Kind>;

fn err(detail: &'static str, msg: impl Into<String>) -> CypherError {
    CypherError::compile(ErrorClass::SyntaxError, detail, msg)
}

/// Checks a statement.
pub fn check(s: &Statement) -> Result<()> {
    match s {
        Statement::Query(q) => check_query(q, &Scope::new(), false).map(|_| ()),
        Statement::Explain(s) | Statement::Profile(s) => check(s),
        Statement::Schema(_) => Ok(()),
    }
}

/// `subquery`: the body of an `EXISTS { }` / `COUNT { }`, whose RETURN is optional (Neo4j 5):
/// it may end with the MATCH or UNWIND whose rows it counts.
fn check_query(q: &Query, outer: &Scope, subquery: bool) -> Result<Vec<String>> {
    // `YIELD *` only in a standalone CALL (the procedure's fields are not known here).
    if !(q.unions.is_empty() && matches!(q.first.clauses.as_slice(), [Clause::Call(_)])) {
        let parts = std::iter::once(&q.first).chain(q.unions.iter().map(|(_, s)| s));
        if parts
            .flat_map(|p| &p.clauses)
            .any(|c| matches!(c, Clause::Call(c) if c.yield_all))
        {
            return Err(err(
                "UnexpectedSyntax",
                "YIELD * is only allowed in a standalone procedure call",
            ));
        }
    }
    let cols = check_single(&q.first, outer, subquery)?;
    let mut all: Option<bool> = None;
    for (is_all, sq) in &q.unions {
        if all.is_some_and(|a| a != *is_all) {
            return Err(err(
                "InvalidClauseComposition",
                "UNION and UNION ALL cannot be mixed in one query",
            ));
        }
        all = Some(*is_all);
        let c = check_single(sq, outer, subquery)?;
        if c != cols {
            return Err(err(
                "DifferentColumnsInUnion",
                "all sub queries in a UNION must have the same return column names",
            ));
        }
    }
    Ok(cols)
}

fn check_single(q: &SingleQuery, outer: &Scope, subquery: bool) -> Result<Vec<String>> {
    let mut scope = outer.clone();
    let mut cols = Vec::new();
    let n = q.clauses.len();
    for (i, c) in q.clauses.iter().enumerate() {
        if let Clause::Return(_) = c {
            if i + 1 != n {
                return Err(err(
                    "InvalidClauseComposition",
                    "RETURN can only be used at the end of the query",
                ));
            }
        }
        cols = check_clause(c, &mut scope)?;
    }
    match q.clauses.last() {
        Some(Clause::With(_)) => Err(err(
            "InvalidClauseComposition",
            "a query cannot conclude with WITH (use RETURN or an update clause)",
        )),
        Some(Clause::Match { .. }) | Some(Clause::Unwind { .. }) if !subquery => Err(err(
            "InvalidClauseComposition",
            "a query cannot conclude with MATCH or UNWIND (it must end with RETURN or an update clause)",
        )),
        _ => Ok(cols),
    }
}

fn bind(scope: &mut Scope, v: &str, k: Kind) -> Result<()> {
    match scope.get(v) {
        Some(&old)
            if old != k
                && old != Kind::Any
                && k != Kind::Any
                && !(old == Kind::RelList && matches!(k, Kind::Value | Kind::List))
                && !(k == Kind::RelList && matches!(old, Kind::Value | Kind::List)) =>
        {
            Err(err(
                "VariableTypeConflict",
                format!("variable `{v}` is already bound to a {old:?}, cannot use it as a {k:?}"),
            ))
        }
        _ => {
            scope.insert(v.to_string(), k);
            Ok(())
        }
    }
}

/// Binds a MATCH (or MERGE) pattern's variables, checking its expressions.
fn check_pattern(parts: &[PatternPart], scope: &mut Scope, creating: bool) -> Result<()> {
    let before = scope.clone();
    let mut rels_here: Vec<&str> = Vec::new();
    for p in parts {
        let el = &p.element;
        if creating && el.chain.is_empty() {
            if let Some(v) = el.start.var.as_ref().filter(|v| before.contains_key(*v)) {
                return Err(err(
                    "VariableAlreadyBound",
                    format!("variable `{v}` is already declared"),
                ));
            }
        }
        let nodes = std::iter::once(&el.start).chain(el.chain.iter().map(|(_, n)| n));
        for np in nodes {
            if let Some(v) = &np.var {
                if creating && before.contains_key(v) && (!np.labels.is_empty() || np.props.is_some()) {
                    return Err(err(
                        "VariableAlreadyBound",
                        format!("variable `{v}` is already declared"),
                    ));
                }
                bind(scope, v, Kind::Node)?;
            }
            if let Some(e) = &np.props {
                if !creating && matches!(**e, Expr::Parameter(_)) {
                    return Err(err(
                        "InvalidParameterUse",
                        "parameter maps cannot be used in MATCH patterns (use WHERE)",
                    ));
                }
                check_expr(e, if creating { &*scope } else { &before }, false)?;
            }
        }
        for (r, _) in &el.chain {
            if let Some(v) = &r.var {
                if rels_here.contains(&v.as_str()) {
                    return Err(err(
                        "RelationshipUniquenessViolation",
                        format!("cannot use the same relationship variable `{v}` twice in one pattern"),
                    ));
                }
                if creating && before.contains_key(v) {
                    return Err(err(
                        "VariableAlreadyBound",
                        format!("variable `{v}` is already declared"),
                    ));
                }
                rels_here.push(v);
                let k = if r.length.is_some() { Kind::RelList } else { Kind::Rel };
                bind(scope, v, k)?;
            }
            if let Some(e) = &r.props {
                if !creating && matches!(**e, Expr::Parameter(_)) {
                    return Err(err(
                        "InvalidParameterUse",
                        "parameter maps cannot be used in MATCH patterns (use WHERE)",
                    ));
                }
                check_expr(e, if creating { &*scope } else { &before }, false)?;
            }
        }
        if let Some(v) = &p.var {
            if before.contains_key(v) {
                return Err(err(
                    "VariableAlreadyBound",
                    format!("variable `{v}` is already declared"),
                ));
            }
            bind(scope, v, Kind::Path)?;
        }
    }
    Ok(())
}

fn check_clause(c: &Clause, scope: &mut Scope) -> Result<Vec<String>> {
    match c {
        Clause::Match { pattern, where_, .. } => {
            check_pattern(pattern, scope, false)?;
            if let Some(w) = where_ {
                check_expr(w, scope, false)?;
            }
        }
        Clause::Unwind { expr, var } => {
            check_expr(expr, scope, false)?;
            if scope.contains_key(var) {
                return Err(err(
                    "VariableAlreadyBound",
                    format!("variable `{var}` is already declared"),
                ));
            }
            let k = match expr {
                Expr::List(items) if !items.is_empty() && items.iter().all(|i| kind_of(i, scope) == Kind::Scalar) => {
                    Kind::Scalar
                }
                _ => Kind::Any,
            };
            scope.insert(var.clone(), k);
        }
        Clause::With(p) | Clause::Return(p) => {
            let is_with = matches!(c, Clause::With(_));
            return check_projection(p, scope, is_with);
        }
        Clause::Create(parts) => {
            for p in parts {
                for (r, _) in &p.element.chain {
                    if r.types.len() != 1 {
                        return Err(err(
                            "NoSingleRelationshipType",
                            "a relationship created by CREATE needs exactly one type",
                        ));
                    }
                    if r.direction == RelDirection::Both {
                        return Err(err(
                            "RequiresDirectedRelationship",
                            "CREATE needs a direction on every relationship",
                        ));
                    }
                    if r.length.is_some() {
                        return Err(err(
                            "CreatingVarLength",
                            "variable-length relationships cannot be created",
                        ));
                    }
                }
            }
            check_pattern(parts, scope, true)?;
        }
        Clause::Merge {
            part,
            on_create,
            on_match,
        } => {
            for (r, _) in &part.element.chain {
                if r.types.len() != 1 {
                    return Err(err(
                        "NoSingleRelationshipType",
                        "a relationship in MERGE needs exactly one type",
                    ));
                }
                if r.length.is_some() {
                    return Err(err(
                        "CreatingVarLength",
                        "variable-length relationships cannot be merged",
                    ));
                }
            }
            let el = &part.element;
            let param_props = std::iter::once(&el.start.props)
                .chain(el.chain.iter().flat_map(|(r, n)| [&r.props, &n.props]))
                .any(|p| matches!(p.as_deref(), Some(Expr::Parameter(_))));
            if param_props {
                return Err(err(
                    "InvalidParameterUse",
                    "parameter maps cannot be used in MERGE patterns",
                ));
            }
            check_pattern(std::slice::from_ref(part), scope, true)?;
            for it in on_create.iter().chain(on_match) {
                check_set(it, scope)?;
            }
        }
        Clause::Set(items) => {
            for it in items {
                check_set(it, scope)?;
            }
        }
        Clause::Remove(items) => {
            for it in items {
                match it {
                    RemoveItem::Property { target, .. } => check_expr(target, scope, false)?,
                    RemoveItem::Labels { var, dynamic, .. } => {
                        defined(var, scope)?;
                        for e in dynamic {
                            check_expr(e, scope, false)?;
                        }
                    }
                }
            }
        }
        Clause::Delete { exprs, .. } => {
            for e in exprs {
                check_expr(e, scope, false)?;
                if matches!(
                    e,
                    Expr::Literal(_) | Expr::Binary(..) | Expr::List(_) | Expr::Map(_) | Expr::HasLabels(..)
                ) {
                    return Err(err("InvalidDelete", "DELETE needs a node, relationship or path"));
                }
            }
        }
        Clause::Call(call) => {
            if let Some(args) = &call.args {
                for a in args {
                    check_expr(a, scope, false)?;
                }
            }
            if let Some(ys) = &call.yields {
                for (_, v) in ys {
                    if scope.contains_key(v) {
                        return Err(err(
                            "VariableAlreadyBound",
                            format!("variable `{v}` is already declared"),
                        ));
                    }
                    scope.insert(v.clone(), Kind::Any);
                }
            }
            if let Some(w) = &call.where_ {
                check_expr(w, scope, false)?;
            }
        }
        Clause::Foreach { var, list, clauses } => {
            check_expr(list, scope, false)?;
            let mut inner = scope.clone();
            inner.insert(var.clone(), Kind::Any);
            for c in clauses {
                check_clause(c, &mut inner)?;
            }
        }
    }
    Ok(Vec::new())
}

fn check_set(it: &SetItem, scope: &Scope) -> Result<()> {
    match it {
        SetItem::Property { target, value, .. } => {
            if matches!(value, Expr::Pattern(_)) {
                return Err(err("UnexpectedSyntax", "a pattern cannot be a property value"));
            }
            check_expr(target, scope, false)?;
            check_expr(value, scope, false)
        }
        SetItem::Properties { var, value, .. } => {
            defined(var, scope)?;
            check_expr(value, scope, false)
        }
        SetItem::Labels { var, dynamic, .. } => {
            defined(var, scope)?;
            dynamic.iter().try_for_each(|e| check_expr(e, scope, false))
        }
    }
}

fn defined(v: &str, scope: &Scope) -> Result<()> {
    if scope.contains_key(v) {
        Ok(())
    } else {
        Err(err("UndefinedVariable", format!("variable `{v}` not defined")))
    }
}

fn check_projection(p: &Projection, scope: &mut Scope, is_with: bool) -> Result<Vec<String>> {
    let mut out = Scope::new();
    let mut cols = Vec::new();
    if p.star {
        if scope.is_empty() && p.items.is_empty() && !is_with {
            return Err(err(
                "NoVariablesInScope",
                "RETURN * is not allowed when there are no variables in scope",
            ));
        }
        let mut names: Vec<_> = scope.keys().cloned().collect();
        names.sort();
        for n in names {
            out.insert(n.clone(), scope[&n]);
            cols.push(n);
        }
    }
    let mut aggregating = false;
    for it in &p.items {
        if matches!(it.expr, Expr::Pattern(_)) {
            return Err(err(
                "UnexpectedSyntax",
                "a pattern cannot be projected (use COUNT { } or EXISTS { })",
            ));
        }
        check_expr(&it.expr, scope, true)?;
        if is_with && it.alias.is_none() && !matches!(it.expr, Expr::Variable(_)) {
            return Err(err("NoExpressionAlias", "expression in WITH must be aliased (use AS)"));
        }
        let name = it.name().to_string();
        if cols.contains(&name) {
            return Err(err(
                "ColumnNameConflict",
                format!("multiple result columns with the name `{name}`"),
            ));
        }
        let kind = kind_of(&it.expr, scope);
        aggregating |= contains_aggregate(&it.expr);
        if contains_aggregate(&it.expr) {
            let keys: Vec<&Expr> = p
                .items
                .iter()
                .map(|i| &i.expr)
                .filter(|e| !contains_aggregate(e))
                .collect();
            check_ambiguous(&it.expr, &keys)?;
        }
        out.insert(name.clone(), kind);
        cols.push(name);
    }
    for (e, what) in p
        .skip
        .iter()
        .map(|e| (e, "SKIP"))
        .chain(p.limit.iter().map(|e| (e, "LIMIT")))
    {
        if uses_variables(e) {
            return Err(err(
                "NonConstantExpression",
                format!("{what} must be a constant expression (literals and parameters only)"),
            ));
        }
        check_expr(e, &Scope::new(), false)?;
        if let Expr::Literal(Literal::Float(_)) | Expr::Literal(Literal::String(_)) | Expr::Literal(Literal::Bool(_)) =
            e
        {
            return Err(err("InvalidArgumentType", format!("{what} must be an integer")));
        }
        let negative = match e {
            Expr::Literal(Literal::Int(i)) => *i < 0,
            Expr::Unary(UnaryOp::Neg, x) => matches!(**x, Expr::Literal(Literal::Int(_))),
            _ => false,
        };
        if negative {
            return Err(err(
                "NegativeIntegerArgument",
                format!("{what} must be a non-negative integer"),
            ));
        }
    }
    // ORDER BY sees the projection's columns, and (without aggregation or DISTINCT) the
    // variables before it too.
    let mut sort_scope = out.clone();
    if !aggregating && !p.distinct {
        for (k, v) in scope.iter() {
            sort_scope.entry(k.clone()).or_insert(*v);
        }
    }
    for s in &p.order_by {
        let e = s.expr.substitute_items(&p.items);
        if contains_aggregate(&e) {
            return Err(err(
                "InvalidAggregation",
                "ORDER BY may only use aggregates that the projection returns",
            ));
        }
        check_expr(&e, &sort_scope, false)?;
    }
    if let Some(w) = &p.where_ {
        let mut where_scope = out.clone();
        if !aggregating {
            for (k, v) in scope.iter() {
                where_scope.entry(k.clone()).or_insert(*v);
            }
        }
        check_expr(w, &where_scope, false)?;
    }
    *scope = out;
    Ok(cols)
}

/// In an item that aggregates, what is outside the aggregates must be a grouping key: a
/// variable or a property of one that is also projected on its own.
fn check_ambiguous(e: &Expr, keys: &[&Expr]) -> Result<()> {
    let aggregate = match e {
        Expr::CountStar => true,
        Expr::Function { name, .. } => functions::is_aggregate_ignoring_case(name),
        _ => false,
    };
    if aggregate || !uses_variables(e) {
        return Ok(());
    }
    if matches!(e, Expr::Variable(_) | Expr::Property(..)) {
        let simple = match e {
            Expr::Variable(_) => true,
            Expr::Property(b, _) => matches!(**b, Expr::Variable(_)),
            _ => false,
        };
        if simple && keys.contains(&e) {
            return Ok(());
        }
        if simple || !uses_variables(e) {
            return Err(err(
                "AmbiguousAggregationExpression",
                "an expression mixing aggregates with other values may only use projected grouping keys",
            ));
        }
    }
    let mut res = Ok(());
    walk_children(e, &mut |c| {
        if res.is_ok() {
            res = check_ambiguous(c, keys);
        }
    });
    res
}

/// What an expression evaluates to, as far as its form tells.
fn kind_of(e: &Expr, scope: &Scope) -> Kind {
    match e {
        Expr::Variable(v) => scope.get(v).copied().unwrap_or(Kind::Any),
        Expr::Literal(Literal::Null) => Kind::Any,
        Expr::Literal(_) => Kind::Scalar,
        Expr::List(_) => Kind::List,
        Expr::Map(_) | Expr::MapProjection { .. } => Kind::Value,
        Expr::Binary(..) | Expr::Unary(..) | Expr::IsNull(..) | Expr::HasLabels(..) => Kind::Value,
        Expr::ListComprehension { .. } | Expr::PatternComprehension { .. } | Expr::Quantified { .. } => Kind::Value,
        Expr::CountStar | Expr::Exists(_) | Expr::CountSubquery(_) => Kind::Value,
        _ => Kind::Any,
    }
}

fn uses_variables(e: &Expr) -> bool {
    let mut found = false;
    walk(e, &mut |x| {
        if matches!(x, Expr::Variable(_)) {
            found = true;
        }
    });
    found
}

/// Whether `e` calls an aggregating function (or `count(*)`) outside subqueries.
pub(crate) fn contains_aggregate(e: &Expr) -> bool {
    let mut found = false;
    walk(e, &mut |x| match x {
        Expr::CountStar => found = true,
        Expr::Function { name, .. } if functions::is_aggregate_ignoring_case(name) => found = true,
        _ => {}
    });
    found
}

/// Visits `e` and its sub-expressions (not into subqueries or patterns). Recurses directly:
/// no list of children is built (it runs per query, see `contains_aggregate`).
fn walk(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    let mut kid = |x: &Expr| walk(x, &mut *f);
    match e {
        Expr::Property(x, _) | Expr::Unary(_, x) | Expr::IsNull(x, _) | Expr::HasLabels(x, _) => kid(x),
        Expr::List(xs) => xs.iter().for_each(kid),
        Expr::Map(es) => es.iter().for_each(|(_, x)| kid(x)),
        Expr::MapProjection { items, .. } => {
            for it in items {
                if let MapProjectionItem::Literal(_, x) = it {
                    kid(x);
                }
            }
        }
        Expr::Index(a, b) | Expr::Binary(_, a, b) => {
            kid(a);
            kid(b);
        }
        Expr::Slice(a, b, c) => {
            kid(a);
            b.as_deref().into_iter().for_each(&mut kid);
            c.as_deref().into_iter().for_each(&mut kid);
        }
        Expr::Function { args, .. } => args.iter().for_each(kid),
        Expr::Case { operand, whens, else_ } => {
            operand.as_deref().into_iter().for_each(&mut kid);
            for (w, t) in whens {
                kid(w);
                kid(t);
            }
            else_.as_deref().into_iter().for_each(&mut kid);
        }
        Expr::ListComprehension { list, filter, map, .. } => {
            kid(list);
            filter.as_deref().into_iter().for_each(&mut kid);
            map.as_deref().into_iter().for_each(&mut kid);
        }
        Expr::Quantified { list, filter, .. } => {
            kid(list);
            filter.as_deref().into_iter().for_each(&mut kid);
        }
        Expr::Reduce { init, list, expr, .. } => {
            kid(init);
            kid(list);
            kid(expr);
        }
        _ => {}
    }
}

fn function_exists(lname: &str) -> bool {
    struct NoGraph;
    impl functions::GraphAccess for NoGraph {
        fn labels(&self, _: &crate::value::NodeRef) -> Result<Vec<String>> {
            Ok(Vec::new())
        }
        fn node_properties(&self, _: &crate::value::NodeRef) -> Result<crate::value::Map> {
            Ok(Default::default())
        }
        fn rel_properties(&self, _: &crate::value::RelRef) -> Result<crate::value::Map> {
            Ok(Default::default())
        }
        fn node_id(&self, _: &crate::value::NodeRef) -> Result<u64> {
            Ok(0)
        }
        fn rel_id(&self, _: &crate::value::RelRef) -> Result<i64> {
            Ok(0)
        }
    }
    // Asking with no arguments: a known function answers (perhaps with an arity error).
    let clock = crate::temporal::Clock { statement_nanos: 0 };
    functions::is_aggregate(lname)
        || crate::temporal::call(lname, &[], &clock).is_some()
        || functions::call(lname, Vec::new(), &NoGraph).is_some()
}

/// Checks an expression against the variables in scope.
fn check_expr(e: &Expr, scope: &Scope, aggregates_allowed: bool) -> Result<()> {
    match e {
        Expr::Variable(v) => defined(v, scope),
        Expr::MapProjection { var, items } => {
            defined(var, scope)?;
            for it in items {
                match it {
                    MapProjectionItem::Literal(_, x) => check_expr(x, scope, aggregates_allowed)?,
                    MapProjectionItem::Variable(v) => defined(v, scope)?,
                    _ => {}
                }
            }
            Ok(())
        }
        Expr::CountStar => {
            if aggregates_allowed {
                Ok(())
            } else {
                Err(err("InvalidAggregation", "count(*) is not allowed here"))
            }
        }
        Expr::Function { name, args, .. } => {
            let l = name.to_lowercase();
            if functions::is_aggregate(&l) {
                if !aggregates_allowed {
                    return Err(err(
                        "InvalidAggregation",
                        format!("aggregate {name}() is not allowed here"),
                    ));
                }
                for a in args {
                    if contains_aggregate(a) {
                        return Err(err("NestedAggregation", "aggregate functions cannot be nested"));
                    }
                    check_expr(a, scope, false)?;
                }
                return Ok(());
            }
            if !function_exists(&l) {
                return Err(err("UnknownFunction", format!("unknown function '{name}'")));
            }
            if let [a] = args.as_slice() {
                if l == "size" && matches!(a, Expr::Pattern(_)) {
                    return Err(err("UnexpectedSyntax", "size() of a pattern: use COUNT { pattern }"));
                }
                let k = kind_of(a, scope);
                let wrong = match l.as_str() {
                    "labels" => matches!(k, Kind::Rel | Kind::Path | Kind::Scalar | Kind::List),
                    "type" => matches!(k, Kind::Node | Kind::Path | Kind::Scalar | Kind::List),
                    "length" => matches!(k, Kind::Node | Kind::Rel),
                    "size" => matches!(k, Kind::Path | Kind::Node | Kind::Rel),
                    "properties" => matches!(k, Kind::Scalar | Kind::List | Kind::Path),
                    _ => false,
                };
                if wrong {
                    return Err(err("InvalidArgumentType", format!("{name}() cannot take a {k:?}")));
                }
            }
            for a in args {
                check_expr(a, scope, aggregates_allowed)?;
            }
            Ok(())
        }
        Expr::ListComprehension { var, list, filter, map } => {
            check_expr(list, scope, aggregates_allowed)?;
            let mut inner = scope.clone();
            inner.insert(var.clone(), Kind::Any);
            if let Some(f) = filter {
                check_expr(f, &inner, false)?;
            }
            if let Some(m) = map {
                check_expr(m, &inner, false)?;
            }
            Ok(())
        }
        Expr::Quantified { var, list, filter, .. } => {
            check_expr(list, scope, aggregates_allowed)?;
            let mut inner = scope.clone();
            inner.insert(var.clone(), Kind::Any);
            if let Some(f) = filter {
                check_expr(f, &inner, false)?;
            }
            Ok(())
        }
        Expr::Reduce {
            acc,
            init,
            var,
            list,
            expr,
        } => {
            check_expr(init, scope, aggregates_allowed)?;
            check_expr(list, scope, aggregates_allowed)?;
            let mut inner = scope.clone();
            inner.insert(acc.clone(), Kind::Any);
            inner.insert(var.clone(), Kind::Any);
            check_expr(expr, &inner, false)
        }
        Expr::Pattern(el) if el.chain.is_empty() => {
            Err(err("InvalidArgumentType", "a single node is not a pattern predicate"))
        }
        Expr::Pattern(el) => {
            // A pattern predicate may not introduce variables.
            let nodes = std::iter::once(&el.start).chain(el.chain.iter().map(|(_, n)| n));
            for np in nodes {
                if let Some(v) = &np.var {
                    defined(v, scope)?;
                }
            }
            for (r, _) in &el.chain {
                if let Some(v) = &r.var {
                    defined(v, scope)?;
                }
            }
            Ok(())
        }
        Expr::PatternComprehension {
            var,
            pattern,
            filter,
            map,
        } => {
            let mut inner = scope.clone();
            let part = PatternPart {
                var: var.clone(),
                kind: PathKind::Plain,
                element: pattern.clone(),
            };
            check_pattern(std::slice::from_ref(&part), &mut inner, false)?;
            if let Some(f) = filter {
                check_expr(f, &inner, false)?;
            }
            check_expr(map, &inner, false)
        }
        Expr::Exists(sq) | Expr::CountSubquery(sq) => match sq.as_ref() {
            Subquery::Pattern { pattern, where_ } => {
                let mut inner = scope.clone();
                check_pattern(pattern, &mut inner, false)?;
                if let Some(w) = where_ {
                    check_expr(w, &inner, false)?;
                }
                Ok(())
            }
            Subquery::Query(q) => {
                let updates = std::iter::once(&q.first)
                    .chain(q.unions.iter().map(|(_, s)| s))
                    .flat_map(|s| s.clauses.iter())
                    .any(|c| {
                        !matches!(
                            c,
                            Clause::Match { .. } | Clause::Unwind { .. } | Clause::With(_) | Clause::Return(_)
                        )
                    });
                if updates {
                    return Err(err(
                        "InvalidClauseComposition",
                        "an EXISTS or COUNT subquery cannot update the graph",
                    ));
                }
                check_query(q, scope, true).map(|_| ())
            }
        },
        Expr::Property(base, key) if matches!(kind_of(base, scope), Kind::Scalar | Kind::List) => {
            Err(CypherError::compile(
                ErrorClass::TypeError,
                "InvalidArgumentType",
                format!("cannot read property `{key}` of a {:?}", kind_of(base, scope)),
            ))
        }
        Expr::Binary(BinaryOp::In, a, b)
            if matches!(
                **b,
                Expr::Literal(Literal::Int(_) | Literal::Float(_) | Literal::String(_) | Literal::Bool(_))
                    | Expr::Map(_)
            ) =>
        {
            let _ = a;
            Err(err("InvalidArgumentType", "IN needs a list on its right"))
        }
        Expr::Binary(BinaryOp::And | BinaryOp::Or | BinaryOp::Xor, a, b) => {
            not_boolean_literal(a)?;
            not_boolean_literal(b)?;
            check_expr(a, scope, aggregates_allowed)?;
            check_expr(b, scope, aggregates_allowed)
        }
        Expr::Unary(UnaryOp::Not, a) => {
            not_boolean_literal(a)?;
            check_expr(a, scope, aggregates_allowed)
        }
        other => {
            let mut res = Ok(());
            // Check direct children with the same rules.
            walk_children(other, &mut |c| {
                if res.is_ok() {
                    res = check_expr(c, scope, aggregates_allowed);
                }
            });
            res
        }
    }
}

/// A literal that can never be a boolean, used as a boolean operand, is a compile-time error.
fn not_boolean_literal(e: &Expr) -> Result<()> {
    let bad = match e {
        Expr::Literal(Literal::Int(_) | Literal::Float(_) | Literal::String(_)) => true,
        Expr::List(_) | Expr::Map(_) => true,
        Expr::Unary(UnaryOp::Neg | UnaryOp::Pos, x) => matches!(**x, Expr::Literal(_)),
        _ => false,
    };
    if bad {
        return Err(err("InvalidArgumentType", "a boolean operator needs boolean operands"));
    }
    Ok(())
}

fn walk_children(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    let mut top = true;
    walk_shallow(e, &mut |x| {
        if top {
            top = false;
        } else {
            f(x)
        }
    });
}

/// Visits `e` then its direct children only.
fn walk_shallow(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match e {
        Expr::Property(x, _) | Expr::Unary(_, x) | Expr::IsNull(x, _) | Expr::HasLabels(x, _) => f(x),
        Expr::List(xs) => xs.iter().for_each(&mut *f),
        Expr::Map(es) => es.iter().for_each(|(_, x)| f(x)),
        Expr::Index(a, b) | Expr::Binary(_, a, b) => {
            f(a);
            f(b);
        }
        Expr::Slice(a, b, c) => {
            f(a);
            if let Some(b) = b {
                f(b);
            }
            if let Some(c) = c {
                f(c);
            }
        }
        Expr::Case { operand, whens, else_ } => {
            if let Some(o) = operand {
                f(o);
            }
            for (w, t) in whens {
                f(w);
                f(t);
            }
            if let Some(x) = else_ {
                f(x);
            }
        }
        _ => {}
    }
}
