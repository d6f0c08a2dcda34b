//! `COUNT { (n)-[:T]->() }`: a bound node's relationship count without listing them.
//!
//! A count over one hop to an anonymous, unlabelled node is the node's degree, which a
//! read-only query takes from a fresh projection (a row length, or a pass over one row when
//! types are named) or from the store's degree counters. The counters count a self-loop
//! twice where Cypher matches it once (in both directions, and for an undirected type in
//! every direction), so the store path subtracts the node's self-loops, one point read per
//! type; a multi-edge type, which may hold several, is counted by matching instead.

use super::ctx::Ctx;
use super::eval::Scope;
use crate::ast::{NodePattern, PathKind, RelDirection, Subquery};
use crate::error::Result;
use crate::value::Value;
use hopdb_database::{Direction, GraphRead, NodeKey, ReadTxn};

/// The count of `sq`'s matches when it is a plain one-hop count from a bound node and the
/// query reads a snapshot; `None` to count by matching.
pub(crate) fn count(ctx: &Ctx, sq: &Subquery, scope: &Scope) -> Result<Option<u64>> {
    let Some((var, types, dir)) = shape(sq) else {
        return Ok(None);
    };
    let Some(Value::Node(n)) = scope.get(var) else {
        return Ok(None);
    };
    let Some(txn) = ctx.snapshot() else { return Ok(None) };
    if let Some(fast) = ctx.fast_adj() {
        // A scanned node knows its id: an array read instead of a hash lookup of its key.
        let u = match &n.stored {
            Some(r) => fast.proj.index_of(r.id),
            None => fast.proj.index_of_key(&n.key),
        };
        return Ok(u.and_then(|u| projected(&fast.proj, txn, u, types, dir)));
    }
    stored(ctx.read(), txn, &n.key, types, dir)
}

/// `(var)-[:T1|T2]->()` (either end bound, any direction): the bound variable, the types and
/// the direction as seen from it.
fn shape(sq: &Subquery) -> Option<(&str, &[String], Direction)> {
    let Subquery::Pattern { pattern, where_: None } = sq else {
        return None;
    };
    let [part] = pattern.as_slice() else { return None };
    let [(rel, end)] = part.element.chain.as_slice() else {
        return None;
    };
    if part.var.is_some() || part.kind != PathKind::Plain {
        return None;
    }
    if rel.var.is_some() || rel.props.is_some() || rel.length.is_some() {
        return None;
    }
    let plain = |np: &NodePattern| np.labels.is_empty() && np.props.is_none();
    let start = &part.element.start;
    if !plain(start) || !plain(end) {
        return None;
    }
    let (var, flipped) = match (&start.var, &end.var) {
        (Some(v), None) => (v.as_str(), false),
        (None, Some(v)) => (v.as_str(), true),
        _ => return None,
    };
    let dir = match (rel.direction, flipped) {
        (RelDirection::Both, _) => Direction::Both,
        (RelDirection::Right, false) | (RelDirection::Left, true) => Direction::Out,
        (RelDirection::Left, false) | (RelDirection::Right, true) => Direction::In,
    };
    Some((var, &rel.types, dir))
}

/// The count from a projection that holds the snapshot exactly. Its `out` and `inc` views
/// list a self-loop once (an undirected one too), `both` twice.
fn projected(
    p: &hopdb_database::GraphProjection,
    txn: &ReadTxn,
    u: u32,
    types: &[String],
    dir: Direction,
) -> Option<u64> {
    let csr = p.view(dir);
    // Naming every declared type is naming none: no check of each edge's type.
    let ids: Option<Vec<u32>> = (!types.is_empty())
        .then(|| {
            types
                .iter()
                .filter_map(|t| txn.edge_type_named(t).map(|t| t.id))
                .collect()
        })
        .filter(|ids: &Vec<u32>| txn.declared_edge_types().any(|t| !ids.contains(&t.id)));
    if ids.is_none() && dir != Direction::Both {
        return Some(csr.degree(u));
    }
    let (mut all, mut loops) = (0u64, 0u64);
    for (i, &v) in csr.neighbors(u).iter().enumerate() {
        if ids
            .as_ref()
            .is_none_or(|ids| ids.contains(&p.edge_type(csr.edge_key(u, i))))
        {
            all += 1;
            loops += u64::from(v == u);
        }
    }
    Some(if dir == Direction::Both { all - loops / 2 } else { all })
}

/// The count from the store's degree counters, less the self-loops they count twice.
fn stored(g: &dyn GraphRead, txn: &ReadTxn, key: &NodeKey, types: &[String], dir: Direction) -> Result<Option<u64>> {
    let declared: Vec<_> = if types.is_empty() {
        txn.declared_edge_types().collect()
    } else {
        types.iter().filter_map(|t| txn.edge_type_named(t)).collect()
    };
    let mut total = 0u64;
    for t in declared {
        let twice = t.options.undirected || dir == Direction::Both;
        if twice && t.options.multi {
            return Ok(None);
        }
        let d = g.degree(key, dir, Some(&t.name))?.count;
        let loops = if twice && d > 0 {
            u64::from(g.has_edge(key, key, Some(&t.name), false)?)
        } else {
            0
        };
        total += d - loops;
    }
    Ok(Some(total))
}
