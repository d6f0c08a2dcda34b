//! MATCH clauses the analytics layer answers whole, without a row per path: a one- or
//! two-step chain from a key or a bound node whose only consumer is the next projection,
//! either DISTINCT over the end node or a `count(*)` grouped by it, or a single step whose
//! projection reads only the end node's key. These are GraphRAG's retrieval shapes ("the
//! entities of this chunk", "the entities of these chunks", "the chunks sharing an entity
//! with this one, by count"); a hub's thousands of paths would otherwise each become a row
//! (and a relationship value) first.
//!
//! The walk runs as `Analytics::expand_at` / `expand_counts_ordered_at` on the query's own
//! snapshot (read-only queries only). A count comes back as one row per end node with its
//! number of walks in the hidden column [`WALKS`], which the projection sums for `count(*)`.

use super::ctx::{key_into_value, Ctx};
use super::eval::{eval, Scope};
use super::{key_entry, node_key, MatchSite, Table};
use crate::ast::{BinaryOp, Clause, Expr, NodePattern, PathKind, Projection, RelDirection};
use crate::compare;
use crate::engine::KEY_PROPERTY;
use crate::error::Result;
use crate::functions;
use crate::value::{NodeRef, Value};
use hopdb_database::{NodeKey, ReadTxn, Step};
use std::cmp::Ordering;

/// The hidden column holding each row's number of walks (`count(*)` sums it).
pub(crate) const WALKS: &str = "  walks";

/// A MATCH planned as one walk.
pub(crate) struct WalkPlan<'q> {
    start: WalkStart<'q>,
    /// A new variable naming the start node (bound in the output when there is one seed).
    start_var: Option<&'q str>,
    steps: Vec<Step>,
    /// One variable-length step (`-[*min..max]-`) instead of `steps`: its distinct ends.
    var_length: Option<(u32, hopdb_database::PathQuery)>,
    end_var: &'q str,
    /// Labels the start and the end node must have (checked against the projection's label
    /// masks; without them the MATCH goes to the matcher).
    start_labels: &'q [String],
    end_labels: &'q [String],
    /// `WHERE end <> start`: the seed is left out of the ends.
    exclude: bool,
    /// The next projection's items are the end node, its key or its id only (see
    /// [`super::one_per_node`]).
    one_per_node: bool,
    /// That projection when the walk applies it itself: one that neither sorts nor filters
    /// (see [`project_ends`]), or the ranked `end._key, count(*)` of a `top` count (see
    /// [`project_counts`]).
    direct: Option<&'q Projection>,
    mode: Mode,
    /// Set when this walk is two MATCH clauses chained through `WITH DISTINCT mid` (see
    /// [`chain`]): the variable between them, a null column of the output.
    mid_var: Option<&'q str>,
}

impl WalkPlan<'_> {
    /// How many clauses after the MATCH the walk runs as part of itself (the `WITH` and the
    /// second `MATCH` of a chain), before any projection it applies (`fused`).
    pub(crate) fn chained_clauses(&self) -> usize {
        if self.mid_var.is_some() {
            2
        } else {
            0
        }
    }
}

enum WalkStart<'q> {
    /// A node bound by an earlier clause, at this column of the input.
    Bound(usize),
    /// `({_key: expr})`.
    Key(&'q Expr),
}

enum Mode {
    /// DISTINCT follows: each end node once; at most `limit` are needed.
    Distinct { limit: Option<usize> },
    /// `count(*)` grouped by end-node values follows; the first `top` by (count desc, key)
    /// are all it needs when it orders so (`by_key`: ordered by `end._key`, else by `end`).
    Count { top: Option<(usize, bool)> },
    /// A single step whose projection (neither DISTINCT nor aggregating nor sorting) reads
    /// one value per end node: a row per relationship, the first `limit` (SKIP + LIMIT).
    Each { limit: Option<usize> },
}

/// The walk plan of a MATCH, when it is one.
pub(crate) fn plan<'q>(ctx: &Ctx, site: &MatchSite<'_, 'q>) -> Result<Option<WalkPlan<'q>>> {
    let MatchSite {
        names,
        parts,
        where_,
        optional,
        next,
    } = *site;
    let (Some(txn), Some(p)) = (ctx.snapshot(), next) else {
        return Ok(None);
    };
    // A DISTINCT or a counting projection is answered by a walk; any other only after a
    // single step, when it reads nothing but the end node (checked below).
    let each = !(p.distinct || super::project::aggregates(p));
    if optional || p.star || (each && !(p.order_by.is_empty() && p.where_.is_none())) {
        return Ok(None);
    }
    let [part] = parts else { return Ok(None) };
    let el = &part.element;
    let max_steps = if each { 1 } else { 2 };
    if part.var.is_some() || part.kind != PathKind::Plain || el.chain.is_empty() || el.chain.len() > max_steps {
        return Ok(None);
    }
    let plain = |n: &NodePattern| n.var.is_none() && n.labels.is_empty() && n.props.is_none();
    let mut steps = Vec::with_capacity(el.chain.len());
    let mut var_length = None;
    for (k, (rp, np)) in el.chain.iter().enumerate() {
        if rp.var.is_some() || rp.props.is_some() {
            return Ok(None);
        }
        if let Some((min, max)) = rp.length {
            // The ends of a single variable-length step, each once: the analytics layer's
            // breadth-first search (as the matcher's own `analytics_ends`), not a row per trail.
            if el.chain.len() != 1 || !p.distinct {
                return Ok(None);
            }
            let min = u32::try_from(min.unwrap_or(1)).unwrap_or(u32::MAX);
            var_length = Some((min, super::adjacency::path_query(rp, max.unwrap_or(u64::MAX))));
            continue;
        }
        if !directed_types(txn, &rp.types) {
            return Ok(None);
        }
        // An undirected step lists a self-loop once; the walks would meet it twice.
        if rp.direction == RelDirection::Both {
            return Ok(None);
        }
        let dir = super::adjacency::store_direction(rp.direction);
        if k + 1 < el.chain.len() && !plain(np) {
            return Ok(None);
        }
        steps.push(Step {
            dir,
            types: (!rp.types.is_empty()).then(|| rp.types.clone()),
        });
    }
    let end = &el.chain[el.chain.len() - 1].1;
    let Some(end_var) = end.var.as_deref() else {
        return Ok(None);
    };
    if end.props.is_some() || names.iter().any(|n| n == end_var) {
        return Ok(None);
    }
    let s = &el.start;
    if s.var.as_deref() == Some(end_var) {
        return Ok(None);
    }
    let bound = s.var.as_ref().and_then(|v| names.iter().position(|n| n == v));
    let (start, start_var) = match (bound, s.props.is_some()) {
        (Some(slot), false) => (WalkStart::Bound(slot), None),
        (None, true) => match key_entry(s) {
            Some(e) => (WalkStart::Key(e), s.var.as_deref()),
            None => return Ok(None),
        },
        _ => return Ok(None),
    };
    let exclude = match where_ {
        None => false,
        Some(w) if var_length.is_none() && excludes_start(w, end_var, s.var.as_deref(), &start) => true,
        Some(_) => return Ok(None),
    };
    // Two steps may walk one relationship out and back, which a MATCH never does; such a walk
    // ends at the start, so it matters only when the start is not excluded and the steps'
    // types can meet.
    if steps.len() == 2 && !exclude && !disjoint(&steps[0].types, &steps[1].types) {
        return Ok(None);
    }
    // The projection may read only the end node (and its own columns).
    let mut allowed: Vec<&str> = vec![end_var];
    allowed.extend(p.items.iter().filter_map(|i| i.alias.as_deref()));
    let reads_end_only = p.items.iter().all(|i| i.expr.reads_only(&|v| v == end_var))
        && p.order_by.iter().all(|o| o.expr.reads_only(&|v| allowed.contains(&v)))
        && p.where_
            .as_ref()
            .is_none_or(|w| w.reads_only(&|v| allowed.contains(&v)));
    if !reads_end_only {
        return Ok(None);
    }
    let one_per_node = super::one_per_node(p, end_var);
    let mode = if each {
        if !one_per_node {
            return Ok(None);
        }
        Mode::Each {
            limit: super::project::row_cap(ctx, p)?,
        }
    } else if super::project::aggregates(p) {
        // `count(*)` counts trails, which the ends alone do not give.
        if var_length.is_some() || !p.items.iter().all(|i| only_count_star(&i.expr)) {
            return Ok(None);
        }
        Mode::Count {
            top: count_top(ctx, p, end_var)?,
        }
    } else if p.distinct {
        Mode::Distinct {
            limit: super::distinct_key_limit(ctx, p, parts)?,
        }
    } else {
        return Ok(None);
    };
    Ok(Some(WalkPlan {
        start,
        start_var,
        steps,
        var_length,
        end_var,
        start_labels: &s.labels,
        end_labels: &end.labels,
        exclude,
        one_per_node,
        direct: match mode {
            Mode::Distinct { .. } | Mode::Each { .. } => {
                (one_per_node && p.order_by.is_empty() && p.where_.is_none()).then_some(p)
            }
            // Ranked by count, then by the key's value: the walk's own order.
            Mode::Count { top: Some((_, true)) } => Some(p),
            Mode::Count { .. } => None,
        },
        mode,
        mid_var: None,
    }))
}

/// Chains `first` with the clauses after its MATCH when they are `WITH DISTINCT mid MATCH
/// (mid)-[...]-(end)` with a DISTINCT projection next (the study's Q7: the entities of the
/// chunks of these entities): one walk of both clauses' steps. The analytics layer's walks
/// expand each node once per level, which is what the `WITH DISTINCT` between the clauses
/// does; relationship uniqueness never spans two clauses, so a step may walk back the
/// relationship the one before it came along. Any other shape returns `first` unchanged.
pub(crate) fn chain<'q>(ctx: &Ctx, first: WalkPlan<'q>, rest: &'q [Clause]) -> Result<WalkPlan<'q>> {
    let [Clause::With(with), Clause::Match {
        optional: false,
        pattern,
        where_,
    }, after @ ..] = rest
    else {
        return Ok(first);
    };
    let passes_mid_only = with.distinct
        && !with.star
        && with.order_by.is_empty()
        && with.skip.is_none()
        && with.limit.is_none()
        && with.where_.is_none()
        && matches!(with.items.as_slice(), [item] if item.name() == first.end_var
            && matches!(&item.expr, Expr::Variable(v) if v == first.end_var));
    let simple_first = matches!(first.mode, Mode::Distinct { limit: None })
        && first.end_labels.is_empty()
        && first.var_length.is_none()
        && !first.exclude
        && first.mid_var.is_none();
    if !(passes_mid_only && simple_first) {
        return Ok(first);
    }
    let next = match after.first() {
        Some(Clause::With(p) | Clause::Return(p)) => Some(p),
        _ => None,
    };
    let names = [first.end_var.to_string()];
    let site = MatchSite {
        names: &names,
        parts: pattern,
        where_: where_.as_ref(),
        optional: false,
        next,
    };
    let Some(second) = plan(ctx, &site)? else {
        return Ok(first);
    };
    let simple_second = matches!(second.start, WalkStart::Bound(0))
        && second.start_labels.is_empty()
        && matches!(second.mode, Mode::Distinct { .. })
        && second.var_length.is_none()
        && !second.exclude;
    if !simple_second {
        return Ok(first);
    }
    let mut steps = first.steps;
    steps.extend(second.steps);
    Ok(WalkPlan {
        start: first.start,
        start_labels: first.start_labels,
        // Out of scope after the WITH.
        start_var: None,
        steps,
        mid_var: Some(first.end_var),
        ..second
    })
}

/// Runs the walk over the input table; `None` when this input does not suit it (the caller
/// matches row by row instead): a count or an exclusion needs exactly one input row.
pub(crate) fn run(ctx: &Ctx, plan: &WalkPlan, t: &Table) -> Result<Option<Table>> {
    let Some(txn) = ctx.snapshot() else { return Ok(None) };
    let single = t.rows.len() == 1;
    // A variable-length step's ends come per start: with one input row only.
    if (plan.exclude || plan.var_length.is_some() || matches!(plan.mode, Mode::Count { .. })) && !single {
        return Ok(None);
    }
    let mut seeds = Vec::new();
    for row in &t.rows {
        match &plan.start {
            WalkStart::Bound(slot) => match &row[*slot] {
                Value::Node(n) => seeds.push(n.key.clone()),
                Value::Null => {}
                // Not a node: the row-by-row match reports it.
                _ => return Ok(None),
            },
            WalkStart::Key(e) => seeds.extend(node_key(eval(ctx, e, &Scope::row(&t.names, row))?)),
        }
    }
    if !keep_labelled(ctx, plan.start_labels, &mut seeds, 0, |k| k) {
        return Ok(None);
    }
    // The walks stop at a limit of ends they count before the end labels are checked: with
    // end labels they run to the end, and the labelled ends are cut after.
    let labelled_ends = !plan.end_labels.is_empty();
    // Output columns: the input's (a chain's: its middle variable), then the start variable
    // if new, the end, and the walks.
    let mut names = match plan.mid_var {
        Some(mid) => vec![mid.to_string()],
        None => t.names.clone(),
    };
    let inputs = names.len();
    let start_at = plan.start_var.map(|v| {
        names.push(v.to_string());
        names.len() - 1
    });
    names.push(plan.end_var.to_string());
    let base: Vec<Value> = match (single, t.rows.first()) {
        (true, Some(r)) if plan.mid_var.is_none() => r.clone(),
        // The projection reads only the end node: the other columns stay null.
        _ => vec![Value::Null; inputs],
    };
    let make_row = |end: NodeKey| {
        let mut r = base.clone();
        if start_at.is_some() {
            r.push(match (single, seeds.first()) {
                (true, Some(s)) => Value::Node(NodeRef::new(s.clone())),
                _ => Value::Null,
            });
        }
        r.push(Value::Node(NodeRef::new(end)));
        r
    };
    let mut rows = Vec::new();
    match plan.mode {
        Mode::Each { limit } => {
            let [step] = plan.steps.as_slice() else { return Ok(None) };
            let Some(p) = plan.direct else { return Ok(None) };
            let dir = super::adjacency::pattern_direction(step.dir);
            let types = step.types.as_deref().unwrap_or(&[]);
            let limit = limit.unwrap_or(usize::MAX);
            let mut ends = Vec::new();
            for seed in &seeds {
                let from = ends.len();
                // `WHERE end <> start` (one seed): after one step only a self-loop ends at
                // the start, so list all, drop those, then cut; so with end labels.
                let cap = if plan.exclude || labelled_ends {
                    usize::MAX
                } else {
                    limit - from
                };
                super::adjacency::other_ends(ctx, seed, dir, types, cap, &mut ends)?;
                if plan.exclude {
                    ends.retain(|e| e != seed);
                }
                if !keep_labelled(ctx, plan.end_labels, &mut ends, from, |k| k) {
                    return Ok(None);
                }
                ends.truncate(limit);
                // A whole listing at a time: checked after each, not every 1024th row.
                ctx.check_size(ends.len(), 1)?;
                if ends.len() >= limit {
                    break;
                }
            }
            return project_ends(ctx, p, plan.end_var, ends).map(Some);
        }
        Mode::Distinct { limit } => {
            let walk_limit = if labelled_ends { None } else { limit };
            let mut ends = match (&plan.var_length, seeds.first()) {
                // A start that does not exist matches nothing (the search would fail on it).
                (Some(_), Some(seed)) if !ctx.live(seed)? => Vec::new(),
                (Some((min, q)), Some(seed)) => {
                    ctx.analytics
                        .var_length_endpoints_at(txn, seed, *min, q, walk_limit, &ctx.control)?
                        .value
                }
                (Some(_), None) => Vec::new(),
                (None, _) => {
                    ctx.analytics
                        .expand_at(txn, &seeds, &plan.steps, walk_limit, plan.exclude, &ctx.control)?
                        .value
                }
            };
            if !keep_labelled(ctx, plan.end_labels, &mut ends, 0, |k| k) {
                return Ok(None);
            }
            ends.truncate(limit.unwrap_or(usize::MAX));
            if let Some(p) = plan.direct {
                return project_ends(ctx, p, plan.end_var, ends).map(Some);
            }
            // Each end once, and the projection reads one value per node: its DISTINCT has
            // nothing to remove.
            ctx.distinct_rows.set(plan.one_per_node);
            for end in ends {
                rows.push(make_row(end));
                ctx.check_rows(rows.len(), names.len())?;
            }
        }
        Mode::Count { top } => {
            // Ties on the count go by the key as Cypher orders `end._key` (strings and numbers
            // in their type order), or as it orders the nodes themselves (by key).
            let by_value = |a: &NodeKey, b: &NodeKey| match (a, b) {
                (NodeKey::Str(x), NodeKey::Str(y)) => x.cmp(y),
                (NodeKey::Int(x), NodeKey::Int(y)) => x.cmp(y),
                // One of each type: Cypher's order of the two types.
                _ => compare::order(&type_probe(a), &type_probe(b)),
            };
            let (n, by_key) = top.map_or((None, false), |(n, k)| (Some(n), k));
            let order: &dyn Fn(&NodeKey, &NodeKey) -> Ordering = if by_key { &by_value } else { &NodeKey::cmp };
            let mut counts = ctx
                .analytics
                .expand_counts_ordered_at(
                    txn,
                    &seeds,
                    &plan.steps,
                    if labelled_ends { None } else { n },
                    plan.exclude,
                    order,
                    &ctx.control,
                )?
                .value;
            if labelled_ends {
                // Filtering keeps the ranking's order, so the top ones are the first after it.
                if !keep_labelled(ctx, plan.end_labels, &mut counts, 0, |(e, _)| e) {
                    return Ok(None);
                }
                counts.truncate(n.unwrap_or(usize::MAX));
            }
            if let Some(p) = plan.direct {
                return project_counts(ctx, p, counts).map(Some);
            }
            names.push(WALKS.to_string());
            for (end, walks) in counts {
                let mut r = make_row(end);
                r.push(Value::Int(i64::try_from(walks).unwrap_or(i64::MAX)));
                rows.push(r);
                ctx.check_rows(rows.len(), names.len())?;
            }
        }
    }
    Ok(Some(Table { names, rows }))
}

/// Keeps, of `items[from..]`, those whose node (`key`) has every one of `labels`, read from
/// the fresh projection's label masks; false (items unchanged) when there are no masks to
/// read, and the matcher must check the labels instead.
fn keep_labelled<T>(
    ctx: &Ctx,
    labels: &[String],
    items: &mut Vec<T>,
    from: usize,
    key: impl Fn(&T) -> &NodeKey,
) -> bool {
    if labels.is_empty() {
        return true;
    }
    let Some(has) = ctx.projected_label_check(labels) else {
        return false;
    };
    let mut at = 0;
    items.retain(|x| {
        at += 1;
        at <= from || has(key(x))
    });
    true
}

/// The projection `p` (one value per node, no ORDER BY or WHERE) of end nodes (distinct
/// ones for a DISTINCT `p`, one per relationship otherwise), applied by the walk: a row per
/// end, SKIP and LIMIT as rows come, and a key moved into its row rather than copied. The
/// projection clause is marked as run (`fused`).
fn project_ends(ctx: &Ctx, p: &Projection, end_var: &str, ends: Vec<NodeKey>) -> Result<Table> {
    let names = super::project::column_names(&p.items)?;
    let skip = super::project::skip_of(ctx, p)?;
    let take = super::project::limit_of(ctx, p)?;
    let matched = ends.len() as u64;
    let var = [end_var.to_string()];
    // A projection names at least one item; `*` never comes here.
    let Some((last, init)) = p.items.split_last() else {
        return Ok(Table {
            names,
            rows: Vec::new(),
        });
    };
    // `RETURN end._key` alone: the key itself, with no node value around it.
    let key_only = init.is_empty() && matches!(&last.expr, Expr::Property(_, k) if k == KEY_PROPERTY);
    let project = |end: NodeKey, out: &mut Vec<Value>| -> Result<()> {
        if key_only {
            out.push(key_into_value(end));
            return Ok(());
        }
        let node = [Value::Node(NodeRef::new(end))];
        for item in init {
            out.push(eval(ctx, &item.expr, &Scope::row(&var, &node))?);
        }
        out.push(match (&last.expr, node) {
            // The last item's `end._key` takes the key itself.
            (Expr::Property(_, k), [Value::Node(n)]) if k == KEY_PROPERTY => key_into_value(n.key),
            (e, node) => eval(ctx, e, &Scope::row(&var, &node))?,
        });
        Ok(())
    };
    let kept = ends.len().saturating_sub(skip).min(take);
    let ends = ends.into_iter().skip(skip).take(take);
    ctx.fused.set(Some(matched));
    if ctx.returns_column(p) {
        let mut column = Vec::with_capacity(kept);
        for end in ends {
            project(end, &mut column)?;
            ctx.check_rows(column.len(), 1)?;
        }
        ctx.column.set(Some(column));
        return Ok(Table {
            names,
            rows: Vec::new(),
        });
    }
    let mut rows = Vec::with_capacity(kept);
    for end in ends {
        let mut out = Vec::with_capacity(p.items.len());
        project(end, &mut out)?;
        rows.push(out);
        ctx.check_rows(rows.len(), names.len())?;
    }
    Ok(Table { names, rows })
}

/// The projection `p`, `RETURN end._key, count(*) ORDER BY count(*) DESC, end._key SKIP s
/// LIMIT l` in some spelling (see [`count_top`]), of the walk's ranked (end, walks) pairs,
/// applied by the walk: they come in its order, so a row per pair after SKIP, up to LIMIT.
/// The projection clause is marked as run (`fused`).
fn project_counts(ctx: &Ctx, p: &Projection, ranked: Vec<(NodeKey, u64)>) -> Result<Table> {
    let names = super::project::column_names(&p.items)?;
    let skip = super::project::skip_of(ctx, p)?;
    let limit = super::project::limit_of(ctx, p)?;
    let matched = ranked.len() as u64;
    let mut rows = Vec::with_capacity(ranked.len().saturating_sub(skip).min(limit));
    for (end, walks) in ranked.into_iter().skip(skip).take(limit) {
        let mut key = Some(key_into_value(end));
        let walks = Value::Int(i64::try_from(walks).unwrap_or(i64::MAX));
        let row = p
            .items
            .iter()
            .map(|item| match item.expr {
                Expr::CountStar => walks.clone(),
                _ => key.take().unwrap_or(Value::Null),
            })
            .collect();
        rows.push(row);
    }
    ctx.fused.set(Some(matched));
    Ok(Table { names, rows })
}

/// A value of the key's type (no allocation), for ordering keys of different types.
fn type_probe(k: &NodeKey) -> Value {
    match k {
        NodeKey::Str(_) => Value::String(String::new()),
        NodeKey::Int(_) => Value::Int(0),
    }
}

/// Whether every type named is directed (with none named: every declared type), so the
/// walks list each relationship the way the pattern's direction reads it.
fn directed_types(txn: &ReadTxn, types: &[String]) -> bool {
    if types.is_empty() {
        return txn.declared_edge_types().all(|t| !t.options.undirected);
    }
    types
        .iter()
        .all(|n| txn.edge_type_named(n).is_none_or(|t| !t.options.undirected))
}

fn disjoint(a: &Option<Vec<String>>, b: &Option<Vec<String>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.iter().all(|t| !b.contains(t)),
        _ => false,
    }
}

/// `end <> start`, or `end._key <> <the start's key>`, either way round.
fn excludes_start(w: &Expr, end: &str, start_var: Option<&str>, start: &WalkStart) -> bool {
    let Expr::Binary(BinaryOp::Ne, a, b) = w else {
        return false;
    };
    let is_var = |e: &Expr, v: &str| matches!(e, Expr::Variable(x) if x == v);
    let end_key = |e: &Expr| matches!(e, Expr::Property(x, k) if k == KEY_PROPERTY && is_var(x, end));
    let start_key = |e: &Expr| match (start, e) {
        (WalkStart::Key(k), e) if *k == e => true,
        (_, Expr::Property(x, k)) => k == KEY_PROPERTY && start_var.is_some_and(|s| is_var(x, s)),
        _ => false,
    };
    let pair = |x: &Expr, y: &Expr| {
        (is_var(x, end) && start_var.is_some_and(|s| is_var(y, s))) || (end_key(x) && start_key(y))
    };
    pair(a, b) || pair(b, a)
}

/// Whether the aggregates in `e` are all `count(*)`.
fn only_count_star(e: &Expr) -> bool {
    match e {
        Expr::Function { name, args, .. } => {
            !functions::is_aggregate_ignoring_case(name) && args.iter().all(only_count_star)
        }
        Expr::Property(x, _) | Expr::Unary(_, x) | Expr::IsNull(x, _) | Expr::HasLabels(x, _) => only_count_star(x),
        Expr::Binary(_, a, b) | Expr::Index(a, b) => only_count_star(a) && only_count_star(b),
        Expr::List(xs) => xs.iter().all(only_count_star),
        Expr::Map(es) => es.iter().all(|(_, x)| only_count_star(x)),
        _ => true,
    }
}

/// For `RETURN end._key AS k, count(*) AS n ORDER BY n DESC, k LIMIT m` (or `end` for the
/// key): the number of ranked rows needed, and whether ties go by `_key`'s value order.
fn count_top(ctx: &Ctx, p: &Projection, end_var: &str) -> Result<Option<(usize, bool)>> {
    if p.distinct || p.where_.is_some() || p.items.len() != 2 || p.order_by.len() != 2 || p.limit.is_none() {
        return Ok(None);
    }
    let is_end = |e: &Expr| matches!(e, Expr::Variable(v) if v == end_var);
    let Some(key_item) = p.items.iter().find(|i| !matches!(i.expr, Expr::CountStar)) else {
        return Ok(None);
    };
    let Some(count_item) = p.items.iter().find(|i| matches!(i.expr, Expr::CountStar)) else {
        return Ok(None);
    };
    let by_key = match &key_item.expr {
        Expr::Property(x, k) if k == KEY_PROPERTY && is_end(x) => true,
        e if is_end(e) => false,
        _ => return Ok(None),
    };
    let names = |item: &crate::ast::ProjectionItem, e: &Expr| {
        *e == item.expr || matches!(e, Expr::Variable(v) if v == item.name())
    };
    let (first, second) = (&p.order_by[0], &p.order_by[1]);
    if !(first.descending && names(count_item, &first.expr) && !second.descending && names(key_item, &second.expr)) {
        return Ok(None);
    }
    let skip = super::project::skip_of(ctx, p)?;
    let limit = match &p.limit {
        Some(e) => super::project::count_arg(ctx, e, "LIMIT")?,
        None => return Ok(None),
    };
    Ok(Some((skip.saturating_add(limit), by_key)))
}

/// `MATCH p = shortestPath(({_key: a})-[...*..max]-({_key: b})) RETURN length(p)` (the
/// study's Q11): the analytics layer's search gives the length from its node list, with no
/// relationship named per hop and no path value made, since nothing else reads the path.
pub(crate) struct HopsPlan<'q> {
    from: &'q Expr,
    to: &'q Expr,
    query: hopdb_database::PathQuery,
    min: u64,
    projection: &'q Projection,
}

/// The hops plan of a MATCH, when it is one: a single `shortestPath` between two
/// `{_key: ...}` nodes with no labels, no relationship variable or properties, followed by a
/// plain projection (see [`MatchSite::plain_next`]) of nothing but `length(p)` items.
pub(crate) fn plan_hops<'q>(ctx: &Ctx, site: &MatchSite<'_, 'q>) -> Option<HopsPlan<'q>> {
    let p = site.plain_next(ctx)?;
    let [part] = site.parts else { return None };
    let (Some(path_var), PathKind::Shortest, [(rp, end)]) = (&part.var, part.kind, part.element.chain.as_slice())
    else {
        return None;
    };
    if rp.var.is_some() || rp.props.is_some() {
        return None;
    }
    let (min, max) = rp.length.unwrap_or((Some(1), Some(1)));
    let min = min.unwrap_or(1);
    // A minimum above one takes the matcher's own search.
    if min > 1 {
        return None;
    }
    // A node named by its key alone, under a new variable or none.
    let key_of = |n: &'q NodePattern| -> Option<&'q Expr> {
        let new = n.var.as_ref().is_none_or(|v| !site.names.contains(v) && v != path_var);
        if !n.labels.is_empty() || !new {
            return None;
        }
        key_entry(n)
    };
    let (from, to) = (key_of(&part.element.start)?, key_of(end)?);
    let is_length = |e: &Expr| {
        matches!(e, Expr::Function { name, distinct: false, args }
            if name.eq_ignore_ascii_case("length") && matches!(args.as_slice(), [Expr::Variable(v)] if v == path_var))
    };
    if !p.items.iter().all(|i| is_length(&i.expr)) {
        return None;
    }
    Some(HopsPlan {
        from,
        to,
        query: super::adjacency::path_query(rp, max.unwrap_or(u64::MAX)),
        min,
        projection: p,
    })
}

/// Runs the hops plan over the input: a row per input row whose two nodes exist and are
/// joined within the bound, each item the path's length. The projection is marked as run.
pub(crate) fn run_hops(ctx: &Ctx, plan: &HopsPlan, t: &Table) -> Result<Option<Table>> {
    let Some(txn) = ctx.snapshot() else { return Ok(None) };
    let names = super::project::column_names(&plan.projection.items)?;
    let mut rows = Vec::new();
    for row in &t.rows {
        let scope = Scope::row(&t.names, row);
        let (Some(a), Some(b)) = (
            node_key(eval(ctx, plan.from, &scope)?),
            node_key(eval(ctx, plan.to, &scope)?),
        ) else {
            continue;
        };
        if !ctx.live(&a)? || !ctx.live(&b)? {
            continue;
        }
        let hops = if a == b {
            // The matcher's answer for one node: the empty path when zero hops are allowed.
            (plan.min == 0).then_some(0)
        } else {
            let found = ctx
                .analytics
                .shortest_path_at(txn, &a, &b, &plan.query, &ctx.control)?
                .value;
            found.map(|nodes| nodes.len().saturating_sub(1))
        };
        if let Some(h) = hops {
            let v = Value::Int(i64::try_from(h).unwrap_or(i64::MAX));
            rows.push(vec![v; plan.projection.items.len()]);
            ctx.check_rows(rows.len(), names.len())?;
        }
    }
    ctx.fused.set(Some(rows.len() as u64));
    Ok(Some(Table { names, rows }))
}
