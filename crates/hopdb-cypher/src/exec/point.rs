//! `MATCH (n:Label {_key: $k}) RETURN n.a, n.b` (the study's Q1, GraphRAG's most frequent
//! call): one node read per input row and its properties projected straight from the record,
//! without the matcher's bindings, the per-query node cache or an evaluation per item.

use super::ctx::{key_value, stored_value_ref, Ctx};
use super::eval::{eval, Scope};
use super::{key_entry, node_key, MatchSite, Table};
use crate::ast::{Expr, PathKind, Projection};
use crate::engine::KEY_PROPERTY;
use crate::error::Result;
use crate::value::Value;

/// A MATCH of one node by its key whose next projection reads only its properties.
pub(crate) struct PointPlan<'q> {
    key: &'q Expr,
    labels: &'q [String],
    /// The property each projected item reads, in order.
    props: Vec<&'q str>,
    projection: &'q Projection,
}

/// The point plan of a MATCH, when it is one: a single node pattern `(n:Labels {_key: expr})`
/// under a new variable, followed by a plain projection (see [`MatchSite::plain_next`]) of
/// `n.property` items only.
pub(crate) fn plan<'q>(ctx: &Ctx, site: &MatchSite<'_, 'q>) -> Option<PointPlan<'q>> {
    let p = site.plain_next(ctx)?;
    let [part] = site.parts else { return None };
    let n = &part.element.start;
    if part.var.is_some() || part.kind != PathKind::Plain || !part.element.chain.is_empty() {
        return None;
    }
    let var = n.var.as_ref().filter(|v| !site.names.contains(v))?;
    let key = key_entry(n)?;
    let props = p
        .items
        .iter()
        .map(|i| match &i.expr {
            Expr::Property(x, k) if matches!(&**x, Expr::Variable(v) if v == var) => Some(k.as_str()),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some(PointPlan {
        key,
        labels: &n.labels,
        props,
        projection: p,
    })
}

/// Runs the point plan: for each input row whose key names a node with the labels, a row of
/// its properties (null where it has none). The projection is marked as run (`fused`).
pub(crate) fn run(ctx: &Ctx, plan: &PointPlan, t: &Table) -> Result<Table> {
    let names = super::project::column_names(&plan.projection.items)?;
    let mut rows = Vec::new();
    for row in &t.rows {
        let Some(key) = node_key(eval(ctx, plan.key, &Scope::row(&t.names, row))?) else {
            continue;
        };
        let Some(node) = ctx.read().node(&key)? else { continue };
        if !plan.labels.iter().all(|l| node.labels.contains(l)) {
            continue;
        }
        rows.push(
            plan.props
                .iter()
                .map(|&k| match k {
                    KEY_PROPERTY => key_value(&node.key),
                    k => node.props.get(k).map_or(Value::Null, stored_value_ref),
                })
                .collect(),
        );
        ctx.check_rows(rows.len(), names.len())?;
    }
    ctx.fused.set(Some(rows.len() as u64));
    Ok(Table { names, rows })
}
