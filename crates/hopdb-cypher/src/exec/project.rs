//! WITH and RETURN: projection, DISTINCT, aggregation, ORDER BY, SKIP and LIMIT.

use super::ctx::Ctx;
use super::eval::{eval, is_true, Scope};
use super::Table;
use crate::ast::{Expr, Projection, ProjectionItem, SortItem};
use crate::compare::{self, GroupKey};
use crate::error::{CypherError, ErrorClass, Result};
use crate::functions::{self, Aggregator};
use crate::value::Value;
use std::borrow::Cow;

/// One aggregation group: its key values, a representative input row, its aggregators.
type Group = (Vec<Value>, Vec<Value>, Vec<Box<dyn Aggregator>>);

/// One aggregate call found in a projection item.
struct AggCall {
    name: String,
    distinct: bool,
    count_star: bool,
    args: Vec<Expr>,
}

/// Replaces aggregate calls in `e` with `  aggN` variables, collecting them.
fn extract_aggs(e: &Expr, aggs: &mut Vec<AggCall>) -> Expr {
    let slot = |call: AggCall, aggs: &mut Vec<AggCall>| {
        aggs.push(call);
        Expr::Variable(format!("  agg{}", aggs.len() - 1))
    };
    match e {
        Expr::CountStar => slot(
            AggCall {
                name: "count".into(),
                distinct: false,
                count_star: true,
                args: Vec::new(),
            },
            aggs,
        ),
        Expr::Function { name, distinct, args } if functions::is_aggregate_ignoring_case(name) => slot(
            AggCall {
                name: name.to_lowercase(),
                distinct: *distinct,
                count_star: false,
                args: args.clone(),
            },
            aggs,
        ),
        _ => e.map_children(&mut |c| extract_aggs(c, aggs)),
    }
}

/// `count(*)` over rows that each stand for [`super::walks::WALKS`] matches: their sum.
fn weigh(e: &Expr) -> Expr {
    match e {
        Expr::CountStar => Expr::Function {
            name: "sum".into(),
            distinct: false,
            args: vec![Expr::Variable(super::walks::WALKS.into())],
        },
        _ => e.map_children(&mut weigh),
    }
}

/// Whether a projection aggregates.
pub(crate) fn aggregates(p: &Projection) -> bool {
    p.items.iter().any(|it| crate::plan::contains_aggregate(&it.expr))
}

/// The most input rows a projection can use, when it neither sorts, deduplicates nor
/// aggregates: SKIP + LIMIT. `None`: it may need them all.
pub(crate) fn row_cap(ctx: &Ctx, p: &Projection) -> Result<Option<usize>> {
    if p.distinct {
        return Ok(None);
    }
    row_cap_but_distinct(ctx, p)
}

/// [`row_cap`] as if `p` were not DISTINCT.
pub(crate) fn row_cap_but_distinct(ctx: &Ctx, p: &Projection) -> Result<Option<usize>> {
    let Some(limit) = &p.limit else { return Ok(None) };
    if !p.order_by.is_empty() || p.star || aggregates(p) {
        return Ok(None);
    }
    let skip = skip_of(ctx, p)?;
    Ok(Some(skip.saturating_add(count_arg(ctx, limit, "LIMIT")?)))
}

/// A projection's SKIP (0 when absent).
pub(crate) fn skip_of(ctx: &Ctx, p: &Projection) -> Result<usize> {
    p.skip.as_ref().map_or(Ok(0), |e| count_arg(ctx, e, "SKIP"))
}

/// A projection's LIMIT (`usize::MAX` when absent).
pub(crate) fn limit_of(ctx: &Ctx, p: &Projection) -> Result<usize> {
    p.limit.as_ref().map_or(Ok(usize::MAX), |e| count_arg(ctx, e, "LIMIT"))
}

/// Visible variable names of a table (internal ones start with a space).
pub(crate) fn visible(names: &[String]) -> Vec<String> {
    let mut v: Vec<String> = names.iter().filter(|n| !n.starts_with(' ')).cloned().collect();
    v.sort();
    v
}

/// Evaluates a SKIP or LIMIT expression: a non-negative integer.
pub(crate) fn count_arg(ctx: &Ctx, e: &Expr, what: &str) -> Result<usize> {
    let empty: [String; 0] = [];
    let v = eval(ctx, e, &Scope::row(&empty, &[]))?;
    match v {
        Value::Int(i) if i >= 0 => Ok(i as usize),
        Value::Int(_) => Err(CypherError::new(
            ErrorClass::SyntaxError,
            "NegativeIntegerArgument",
            crate::error::Phase::Runtime,
            format!("{what} must be a non-negative integer"),
        )),
        Value::Float(f) if f.fract() == 0.0 && f >= 0.0 => Ok(f as usize),
        o => Err(CypherError::new(
            ErrorClass::SyntaxError,
            "InvalidArgumentType",
            crate::error::Phase::Runtime,
            format!("{what} must be an integer, got {}", o.type_name()),
        )),
    }
}

/// The columns a projection's items name; two of one name are an error.
pub(crate) fn column_names(items: &[ProjectionItem]) -> Result<Vec<String>> {
    let out_names: Vec<String> = items.iter().map(|i| i.name().to_string()).collect();
    for (k, n) in out_names.iter().enumerate() {
        if out_names[..k].contains(n) {
            return Err(CypherError::compile(
                ErrorClass::SyntaxError,
                "ColumnNameConflict",
                format!("multiple result columns with the name `{n}`"),
            ));
        }
    }
    Ok(out_names)
}

/// A projection applied to rows as a MATCH finds them, for one that neither sorts,
/// aggregates nor filters: no table of the match's rows is built, DISTINCT drops repeats as
/// they come, and the match stops once SKIP + LIMIT rows are out.
pub(crate) struct Stream<'p> {
    p: &'p Projection,
    names: Vec<String>,
    rows: Vec<Vec<Value>>,
    seen: rustc_hash::FxHashSet<Vec<GroupKey>>,
    skip: usize,
    limit: Option<usize>,
}

impl<'p> Stream<'p> {
    /// The stream for `p`, or `None` when `p` needs all its input first.
    pub(crate) fn new(ctx: &Ctx, p: &'p Projection) -> Result<Option<Stream<'p>>> {
        if p.star || !p.order_by.is_empty() || p.where_.is_some() || aggregates(p) {
            return Ok(None);
        }
        let skip = skip_of(ctx, p)?;
        let limit = p.limit.as_ref().map(|e| count_arg(ctx, e, "LIMIT")).transpose()?;
        Ok(Some(Stream {
            p,
            names: column_names(&p.items)?,
            rows: Vec::new(),
            seen: Default::default(),
            skip,
            limit,
        }))
    }

    /// Whether every row the projection can return is out.
    pub(crate) fn full(&self) -> bool {
        self.limit.is_some_and(|l| self.rows.len() >= l)
    }

    /// Projects one input row; false once no more are needed.
    pub(crate) fn push(&mut self, ctx: &Ctx, names: &[String], row: &[Value]) -> Result<bool> {
        if self.full() {
            return Ok(false);
        }
        let scope = Scope::row(names, row);
        let out = self
            .p
            .items
            .iter()
            .map(|i| eval(ctx, &i.expr, &scope))
            .collect::<Result<Vec<_>>>()?;
        if self.p.distinct && !self.seen.insert(out.iter().cloned().map(GroupKey).collect()) {
            return Ok(true);
        }
        if self.skip > 0 {
            self.skip -= 1;
            return Ok(true);
        }
        self.rows.push(out);
        ctx.check_rows(self.rows.len() + self.seen.len(), self.names.len())?;
        Ok(!self.full())
    }

    /// The projected table.
    pub(crate) fn finish(self) -> Table {
        Table {
            names: self.names,
            rows: self.rows,
        }
    }
}

/// Runs one WITH or RETURN over `t`.
pub(crate) fn project(ctx: &Ctx, t: Table, p: &Projection) -> Result<Table> {
    let already_distinct = ctx.distinct_rows.take();
    // A walk's rows stand for `  walks` matches each: `count(*)` sums them.
    let weighted = t.names.iter().any(|n| n == super::walks::WALKS);
    // The written items, borrowed unless `*` adds to them or the walk's weights rewrite them.
    let items: Cow<[ProjectionItem]> = if p.star || weighted {
        let mut items: Vec<ProjectionItem> = Vec::new();
        if p.star {
            for n in visible(&t.names) {
                items.push(ProjectionItem {
                    expr: Expr::Variable(n.clone()),
                    alias: None,
                    text: n,
                });
            }
        }
        items.extend(p.items.iter().cloned());
        if weighted {
            for it in items.iter_mut() {
                it.expr = weigh(&it.expr);
            }
        }
        Cow::Owned(items)
    } else {
        Cow::Borrowed(&p.items)
    };
    let items = &*items;
    let out_names = column_names(items)?;

    let mut aggs = Vec::new();
    let aggregating = items.iter().any(|i| crate::plan::contains_aggregate(&i.expr));
    let rewritten: Vec<Expr> = if aggregating {
        items.iter().map(|i| extract_aggs(&i.expr, &mut aggs)).collect()
    } else {
        Vec::new()
    };

    // (out row, the row it came from) pairs; ORDER BY may read both when not aggregating.
    let mut rows: Vec<(Vec<Value>, Vec<Value>)> = Vec::new();
    let mut in_names = t.names.clone();
    if !aggregating {
        for row in t.rows {
            ctx.check()?;
            let scope = Scope::row(&t.names, &row);
            let out = items
                .iter()
                .map(|i| eval(ctx, &i.expr, &scope))
                .collect::<Result<Vec<_>>>()?;
            rows.push((out, row));
        }
    } else {
        let key_idx: Vec<usize> = (0..items.len()).filter(|&k| rewritten[k] == items[k].expr).collect();
        let mut groups: Vec<Group> = Vec::new();
        let mut index: rustc_hash::FxHashMap<Vec<GroupKey>, usize> = Default::default();
        let new_aggs = || -> Result<Vec<Box<dyn Aggregator>>> {
            aggs.iter()
                .map(|a| {
                    functions::aggregator(&a.name, a.distinct, a.count_star).ok_or_else(|| {
                        CypherError::compile(
                            ErrorClass::SyntaxError,
                            "UnknownFunction",
                            format!("unknown aggregating function {}", a.name),
                        )
                    })
                })
                .collect()
        };
        // One buffer for every row's aggregate arguments; a row's key values are cloned only
        // when they start a group.
        let mut args = Vec::new();
        for row in t.rows {
            ctx.check()?;
            let scope = Scope::row(&t.names, &row);
            let gk = key_idx
                .iter()
                .map(|&k| eval(ctx, &items[k].expr, &scope).map(GroupKey))
                .collect::<Result<Vec<_>>>()?;
            let g = match index.get(&gk) {
                Some(&g) => g,
                None => {
                    let keys = gk.iter().map(|k| k.0.clone()).collect();
                    groups.push((keys, row.clone(), new_aggs()?));
                    index.insert(gk, groups.len() - 1);
                    groups.len() - 1
                }
            };
            for (a, call) in groups[g].2.iter_mut().zip(&aggs) {
                args.clear();
                for x in &call.args {
                    args.push(eval(ctx, x, &scope)?);
                }
                a.update(&args)?;
            }
        }
        if groups.is_empty() && key_idx.is_empty() {
            groups.push((Vec::new(), vec![Value::Null; t.names.len()], new_aggs()?));
        }
        for n in 0..aggs.len() {
            in_names.push(format!("  agg{n}"));
        }
        for (keys, mut repr, mut ags) in groups {
            for a in ags.iter_mut() {
                repr.push(a.finish()?);
            }
            let scope = Scope::row(&in_names, &repr);
            let mut out = Vec::with_capacity(items.len());
            let mut ki = keys.into_iter();
            for (k, e) in rewritten.iter().enumerate() {
                if *e == items[k].expr {
                    out.push(ki.next().unwrap_or(Value::Null));
                } else {
                    out.push(eval(ctx, e, &scope)?);
                }
            }
            rows.push((out, repr));
        }
    }

    if p.distinct && !already_distinct {
        let mut seen = rustc_hash::FxHashSet::default();
        rows.retain(|(out, _)| seen.insert(out.iter().cloned().map(GroupKey).collect::<Vec<_>>()));
    }

    if !p.order_by.is_empty() {
        let sort: Vec<SortItem> = p
            .order_by
            .iter()
            .map(|s| SortItem {
                expr: if weighted {
                    weigh(&s.expr).substitute_items(items)
                } else {
                    s.expr.substitute_items(items)
                },
                descending: s.descending,
            })
            .collect();
        // Sort scope: the projected columns first, then (when allowed) the input row.
        let keep_input = !aggregating && !p.distinct;
        let mut names = out_names.clone();
        if keep_input || aggregating {
            names.extend(in_names.iter().cloned());
        }
        let mut keyed = Vec::with_capacity(rows.len());
        for (out, inp) in rows {
            let mut full = out.clone();
            if keep_input || aggregating {
                full.extend(inp.iter().cloned());
            }
            let scope = Scope::row(&names, &full);
            let mut ks = Vec::with_capacity(sort.len());
            for s in &sort {
                ks.push(eval(ctx, &s.expr, &scope)?);
            }
            keyed.push((ks, out, inp));
        }
        keyed.sort_by(|a, b| {
            for (k, s) in sort.iter().enumerate() {
                let o = compare::order(&a.0[k], &b.0[k]);
                let o = if s.descending { o.reverse() } else { o };
                if o != std::cmp::Ordering::Equal {
                    return o;
                }
            }
            std::cmp::Ordering::Equal
        });
        rows = keyed.into_iter().map(|(_, o, i)| (o, i)).collect();
    }

    let skip = skip_of(ctx, p)?;
    let limit = limit_of(ctx, p)?;
    let rows: Vec<(Vec<Value>, Vec<Value>)> = rows.into_iter().skip(skip).take(limit).collect();
    // WITH ... WHERE sees the projected columns and, without aggregation, the variables
    // before the projection too (`WITH c WHERE r IS NOT NULL`).
    let mut out_rows = Vec::with_capacity(rows.len());
    match &p.where_ {
        None => out_rows.extend(rows.into_iter().map(|(o, _)| o)),
        Some(w) => {
            let mut names = out_names.clone();
            if !aggregating {
                names.extend(in_names.iter().cloned());
            }
            for (o, i) in rows {
                let mut full = o.clone();
                if !aggregating {
                    full.extend(i);
                }
                if is_true(ctx, w, &Scope::row(&names, &full))? {
                    out_rows.push(o);
                }
            }
        }
    }
    Ok(Table {
        names: out_names,
        rows: out_rows,
    })
}
