//! Execution: clause by clause over tables of rows, inside one snapshot (read queries) or
//! one write transaction (a query that writes). Each clause sees every change the clauses
//! before it made, as openCypher requires.

mod adjacency;
pub(crate) mod ctx;
mod degree;
pub(crate) mod eval;
pub(crate) mod pattern;
mod point;
pub(crate) mod procedures;
pub(crate) mod project;
mod shortest;
mod walks;
mod write;

use crate::ast::{Clause, Query, SingleQuery};
use crate::compare::GroupKey;
use crate::error::{CypherError, ErrorClass, Result};
use crate::value::Value;
use ctx::Ctx;
use eval::{eval, is_true, Scope};

/// Rows with named columns: what flows between clauses.
#[derive(Debug, Clone, Default)]
pub(crate) struct Table {
    pub names: Vec<String>,
    pub rows: Vec<Vec<Value>>,
}

impl Table {
    /// One empty row: where a query starts.
    pub fn unit() -> Table {
        Table {
            names: Vec::new(),
            rows: vec![Vec::new()],
        }
    }
}

/// Runs a query (with its UNIONs); returns the result columns and rows.
pub(crate) fn run_query(ctx: &mut Ctx, q: &Query, input: Table) -> Result<Table> {
    if q.unions.is_empty() {
        return run_single(ctx, &q.first, input);
    }
    let mut out = run_single(ctx, &q.first, input.clone())?;
    let mut distinct = false;
    for (all, sq) in &q.unions {
        let t = run_single(ctx, sq, input.clone())?;
        if t.names != out.names {
            return Err(CypherError::compile(
                ErrorClass::SyntaxError,
                "DifferentColumnsInUnion",
                "all sub queries in a UNION must have the same return column names",
            ));
        }
        out.rows.extend(t.rows);
        distinct |= !*all;
    }
    if distinct {
        let mut seen = rustc_hash::FxHashSet::default();
        out.rows
            .retain(|r| seen.insert(r.iter().cloned().map(GroupKey).collect::<Vec<_>>()));
    }
    Ok(out)
}

fn run_single(ctx: &mut Ctx, q: &SingleQuery, input: Table) -> Result<Table> {
    let mut t = input;
    let mut returned = false;
    let mut k = 0;
    while let Some(c) = q.clauses.get(k) {
        ctx.check()?;
        // Timed only under PROFILE (a clock read per clause shows in microsecond queries).
        let started = ctx.profile.is_some().then(std::time::Instant::now);
        t = run_clause(ctx, c, t, &q.clauses[k + 1..])?;
        let name = ctx.operator.take().unwrap_or(clause_name(c));
        let nanos = started.map_or(0, |s| s.elapsed().as_nanos() as u64);
        // Clauses a chained walk ran as part of itself.
        k += ctx.chained.take();
        let mut last = &q.clauses[k];
        match ctx.fused.take() {
            // The projection after the clause ran with it (its time is the clause's).
            Some(matched) => {
                k += 1;
                last = &q.clauses[k];
                if let Some(p) = ctx.profile.as_mut() {
                    p.push((name.to_string(), matched, nanos));
                    p.push((clause_name(last).to_string(), t.rows.len() as u64, 0));
                }
            }
            None => {
                if let Some(p) = ctx.profile.as_mut() {
                    p.push((name.to_string(), t.rows.len() as u64, nanos));
                }
            }
        }
        returned = matches!(last, Clause::Return(_));
        k += 1;
    }
    if !returned && !matches!(q.clauses.last(), Some(Clause::Call(_))) {
        // A query ending in an update returns no rows.
        t = Table {
            names: Vec::new(),
            rows: Vec::new(),
        };
    }
    Ok(t)
}

/// The operator name EXPLAIN and PROFILE show for a clause.
pub(crate) fn clause_name(c: &Clause) -> &'static str {
    match c {
        Clause::Match { optional: true, .. } => "OptionalMatch",
        Clause::Match { .. } => "Match",
        Clause::Unwind { .. } => "Unwind",
        Clause::With(_) => "Projection(WITH)",
        Clause::Return(_) => "ProduceResults",
        Clause::Create(_) => "Create",
        Clause::Merge { .. } => "Merge",
        Clause::Set(_) => "SetProperties",
        Clause::Remove(_) => "Remove",
        Clause::Delete { detach: true, .. } => "DetachDelete",
        Clause::Delete { .. } => "Delete",
        Clause::Call(_) => "ProcedureCall",
        Clause::Foreach { .. } => "Foreach",
    }
}

fn run_clause(ctx: &mut Ctx, c: &Clause, t: Table, rest: &[Clause]) -> Result<Table> {
    let t = match read_clause(ctx, c, t, rest)? {
        Ok(done) => return Ok(done),
        Err(t) => t,
    };
    match c {
        Clause::Create(parts) => write::create(ctx, t, parts),
        Clause::Merge {
            part,
            on_create,
            on_match,
        } => write::merge(ctx, t, part, on_create, on_match),
        Clause::Set(items) => write::set(ctx, t, items),
        Clause::Remove(items) => write::remove(ctx, t, items),
        Clause::Delete { detach, exprs } => write::delete(ctx, t, exprs, *detach),
        Clause::Call(call) => procedures::call(ctx, t, call),
        Clause::Match { .. } | Clause::Unwind { .. } | Clause::With(_) | Clause::Return(_) => Ok(t),
        Clause::Foreach { var, list, clauses } => {
            for row in &t.rows {
                let l = match eval(ctx, list, &Scope::row(&t.names, row))? {
                    Value::List(l) => l,
                    Value::Null => Vec::new(),
                    o => return Err(CypherError::type_error(format!("FOREACH over a {}", o.type_name()))),
                };
                for item in l {
                    let mut names = t.names.clone();
                    let mut r = row.clone();
                    match names.iter().position(|n| n == var) {
                        Some(i) => r[i] = item,
                        None => {
                            names.push(var.clone());
                            r.push(item);
                        }
                    }
                    let mut inner = Table { names, rows: vec![r] };
                    let mut k = 0;
                    while let Some(c) = clauses.get(k) {
                        inner = run_clause(ctx, c, inner, &clauses[k + 1..])?;
                        k += 1 + ctx.chained.take() + usize::from(ctx.fused.take().is_some());
                    }
                }
            }
            Ok(t)
        }
    }
}

/// For `MATCH (a)-[*..]-(b) RETURN DISTINCT b._key LIMIT n` (the study's Q8): when every
/// projected item is the end node itself, its key or its id (one value per node) and nothing
/// sorts, each start needs at most SKIP + LIMIT distinct end nodes.
pub(crate) fn distinct_key_limit(
    ctx: &Ctx,
    p: &crate::ast::Projection,
    parts: &[crate::ast::PatternPart],
) -> Result<Option<usize>> {
    let [part] = parts else { return Ok(None) };
    let Some((_, end)) = part.element.chain.last() else {
        return Ok(None);
    };
    let Some(end_var) = &end.var else { return Ok(None) };
    if !p.distinct || !p.order_by.is_empty() || p.star || p.limit.is_none() || project::aggregates(p) {
        return Ok(None);
    }
    if !one_per_node(p, end_var) {
        return Ok(None);
    }
    project::row_cap_but_distinct(ctx, p)
}

/// Whether every item `p` projects is node `end_var` itself, its key or its id: one value
/// per node, so rows of distinct nodes project to distinct rows.
pub(crate) fn one_per_node(p: &crate::ast::Projection, end_var: &str) -> bool {
    use crate::ast::Expr;
    let is_end = |e: &Expr| matches!(e, Expr::Variable(v) if v == end_var);
    !p.star
        && p.items.iter().all(|it| match &it.expr {
            e if is_end(e) => true,
            Expr::Property(b, k) => is_end(b) && k == crate::engine::KEY_PROPERTY,
            Expr::Function { name, args, .. } => {
                matches!(name.to_lowercase().as_str(), "id" | "elementid") && args.len() == 1 && is_end(&args[0])
            }
            _ => false,
        })
}

/// MATCH with the projection after it applied to each match as it is found (see
/// `project::Stream`); `None` when that projection needs all the rows first.
fn stream_match(
    ctx: &Ctx,
    t: &Table,
    parts: &[crate::ast::PatternPart],
    where_: Option<&crate::ast::Expr>,
    optional: bool,
    next: Option<&crate::ast::Projection>,
) -> Result<Option<(Table, u64)>> {
    let Some(p) = next.filter(|_| !optional) else {
        return Ok(None);
    };
    let Some(mut stream) = project::Stream::new(ctx, p)? else {
        return Ok(None);
    };
    let opts = pattern::MatchOptions {
        distinct_ends: p.distinct,
        ends_limit: match where_ {
            None => distinct_key_limit(ctx, p, parts)?,
            Some(_) => None,
        },
        where_,
    };
    let mut matched = 0u64;
    for row in &t.rows {
        if stream.full() {
            break;
        }
        pattern::for_each_match_with(ctx, &t.names, row, parts, opts, &mut |n, r| {
            if let Some(w) = where_ {
                if !is_true(ctx, w, &Scope::row(n, r))? {
                    return Ok(true);
                }
            }
            matched += 1;
            stream.push(ctx, n, r)
        })?;
    }
    Ok(Some((stream.finish(), matched)))
}

/// A MATCH clause as the fast paths plan it: the columns bound before it, its pattern and
/// WHERE, whether it is OPTIONAL, and the WITH/RETURN right after it.
pub(crate) struct MatchSite<'a, 'q> {
    pub names: &'a [String],
    pub parts: &'q [crate::ast::PatternPart],
    pub where_: Option<&'q crate::ast::Expr>,
    pub optional: bool,
    pub next: Option<&'q crate::ast::Projection>,
}

impl<'q> MatchSite<'_, 'q> {
    /// The next projection, when the MATCH reads a snapshot with no WHERE and is not
    /// OPTIONAL, and the projection neither removes duplicates, sorts, filters nor cuts: one
    /// a fast path that makes its rows directly applies as it makes them.
    pub fn plain_next(&self, ctx: &Ctx) -> Option<&'q crate::ast::Projection> {
        let p = self.next?;
        let plain = !p.distinct
            && !p.star
            && p.order_by.is_empty()
            && p.skip.is_none()
            && p.limit.is_none()
            && p.where_.is_none();
        (ctx.snapshot().is_some() && self.where_.is_none() && !self.optional && plain && !p.items.is_empty())
            .then_some(p)
    }
}

/// The node a `{_key: v}` entry names: an integer or a non-empty string; any other value
/// names no node (the pattern matches nothing).
pub(crate) fn node_key(v: Value) -> Option<hopdb_database::NodeKey> {
    match v {
        Value::Int(i) => Some(hopdb_database::NodeKey::Int(i)),
        Value::String(s) if !s.is_empty() => Some(hopdb_database::NodeKey::Str(s)),
        _ => None,
    }
}

/// The expression of a node pattern's property map when it names the node's key alone
/// (`{_key: expr}`).
pub(crate) fn key_entry(n: &crate::ast::NodePattern) -> Option<&crate::ast::Expr> {
    match n.props.as_deref() {
        Some(crate::ast::Expr::Map(entries)) => match entries.as_slice() {
            [(k, e)] if k == crate::engine::KEY_PROPERTY => Some(e),
            _ => None,
        },
        _ => None,
    }
}

/// Runs `EXISTS { query }` / `COUNT { query }` for one outer row; returns its row count.
pub(crate) fn run_subquery(ctx: &Ctx, q: &Query, names: &[String], row: &[Value]) -> Result<usize> {
    // Subqueries only read; run them on a shared borrow through a read-only shim.
    let input = Table {
        names: names.to_vec(),
        rows: vec![row.to_vec()],
    };
    let mut count = 0;
    for sq in std::iter::once(&q.first).chain(q.unions.iter().map(|(_, s)| s)) {
        count += run_read_only(ctx, sq, input.clone())?.rows.len();
    }
    Ok(count)
}

/// Runs read-only clauses with a shared context (subqueries inside expressions).
fn run_read_only(ctx: &Ctx, q: &SingleQuery, input: Table) -> Result<Table> {
    let mut t = input;
    let mut k = 0;
    while let Some(c) = q.clauses.get(k) {
        t = match read_clause(ctx, c, t, &q.clauses[k + 1..])? {
            Ok(done) => {
                ctx.operator.set(None);
                k += 1 + ctx.chained.take() + usize::from(ctx.fused.take().is_some());
                done
            }
            Err(_) => {
                return Err(CypherError::compile(
                    ErrorClass::SyntaxError,
                    "InvalidClauseComposition",
                    "a subquery expression may only read",
                ))
            }
        };
    }
    Ok(t)
}

/// Runs a reading clause (MATCH, UNWIND, WITH, RETURN), given the clauses after it (`rest`);
/// hands any other clause's input back.
fn read_clause(ctx: &Ctx, c: &Clause, t: Table, rest: &[Clause]) -> Result<std::result::Result<Table, Table>> {
    Ok(Ok(match c {
        Clause::Match {
            optional,
            pattern: parts,
            where_,
        } => {
            let next_proj = match rest.first() {
                Some(Clause::With(p) | Clause::Return(p)) => Some(p),
                _ => None,
            };
            let site = MatchSite {
                names: &t.names,
                parts,
                where_: where_.as_ref(),
                optional: *optional,
                next: next_proj,
            };
            if let Some(plan) = point::plan(ctx, &site) {
                ctx.operator.set(Some("NodeByKeySeek"));
                return Ok(Ok(point::run(ctx, &plan, &t)?));
            }
            if let Some(plan) = walks::plan_hops(ctx, &site) {
                if let Some(out) = walks::run_hops(ctx, &plan, &t)? {
                    ctx.operator.set(Some("Walk"));
                    return Ok(Ok(out));
                }
            }
            if let Some(plan) = walks::plan(ctx, &site)? {
                let plan = walks::chain(ctx, plan, rest)?;
                if let Some(out) = walks::run(ctx, &plan, &t)? {
                    ctx.operator.set(Some("Walk"));
                    ctx.chained.set(plan.chained_clauses());
                    return Ok(Ok(out));
                }
            }
            if let Some((out, matched)) = stream_match(ctx, &t, parts, where_.as_ref(), *optional, next_proj)? {
                ctx.fused.set(Some(matched));
                return Ok(Ok(out));
            }
            let new = pattern::new_vars(parts, &t.names);
            let mut names = t.names.clone();
            names.extend(new.iter().cloned());
            // A DISTINCT projection next makes path multiplicity irrelevant.
            let distinct_ends = next_proj.is_some_and(|p| p.distinct);
            // Stop matching once the next projection has all the rows it can use.
            let cap = match next_proj {
                Some(p) => project::row_cap(ctx, p)?,
                None => None,
            };
            let ends_limit = match next_proj {
                Some(p) if where_.is_none() && !*optional => distinct_key_limit(ctx, p, parts)?,
                _ => None,
            };
            let mut rows = Vec::new();
            for row in &t.rows {
                let before = rows.len();
                let opts = pattern::MatchOptions {
                    distinct_ends,
                    ends_limit,
                    where_: where_.as_ref(),
                };
                pattern::for_each_match_with(ctx, &t.names, row, parts, opts, &mut |n, r| {
                    if let Some(w) = where_ {
                        if !is_true(ctx, w, &Scope::row(n, r))? {
                            return Ok(true);
                        }
                    }
                    rows.push(r.to_vec());
                    ctx.check_rows(rows.len(), n.len())?;
                    Ok(cap.is_none_or(|c| rows.len() < c))
                })?;
                if *optional && rows.len() == before {
                    let mut r = row.clone();
                    r.resize(names.len(), Value::Null);
                    rows.push(r);
                }
                if cap.is_some_and(|c| rows.len() >= c) {
                    break;
                }
            }
            Table { names, rows }
        }
        Clause::Unwind { expr, var } => {
            let mut names = t.names.clone();
            names.push(var.clone());
            let mut rows = Vec::new();
            for row in &t.rows {
                let items = match eval(ctx, expr, &Scope::row(&t.names, row))? {
                    Value::List(l) => l,
                    Value::Null => Vec::new(),
                    other => vec![other],
                };
                for it in items {
                    let mut r = row.clone();
                    r.push(it);
                    rows.push(r);
                    ctx.check_rows(rows.len(), names.len())?;
                }
            }
            Table { names, rows }
        }
        Clause::With(p) | Clause::Return(p) => project::project(ctx, t, p)?,
        _ => return Ok(Err(t)),
    }))
}
