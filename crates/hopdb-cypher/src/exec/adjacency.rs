//! A node's relationships as the matcher sees them: from the fresh projection of a read-only
//! query's snapshot when it lists them exactly as the store would, else from the store
//! (which a write transaction reads with its own changes).

use super::ctx::{Ctx, FastAdj};
use crate::ast::{RelDirection, RelPattern};
use crate::error::Result;
use crate::value::RelRef;
use hopdb_database::{Direction, NodeKey};
use std::sync::Arc;

/// One relationship of `rp` joining `a` to `b` (a point lookup per type).
pub(crate) fn edge_between(ctx: &Ctx, a: &NodeKey, b: &NodeKey, rp: &RelPattern) -> Result<Option<RelRef>> {
    if let Some(found) = edge_between_projected(ctx, a, b, rp) {
        return Ok(found);
    }
    let g = ctx.read();
    let types: Vec<Option<&str>> = if rp.types.is_empty() {
        vec![None]
    } else {
        rp.types.iter().map(|t| Some(t.as_str())).collect()
    };
    for ty in types {
        let e = match rp.direction {
            RelDirection::Right => g.edge_between(a, b, ty, false)?,
            RelDirection::Left => g.edge_between(b, a, ty, false)?,
            RelDirection::Both => g.edge_between(a, b, ty, true)?,
        };
        if let Some(e) = e {
            return Ok(Some(RelRef {
                src: e.src,
                ty: e.ty,
                dst: e.dst,
                edge_id: e.id,
                data: None,
            }));
        }
    }
    Ok(None)
}

/// The projection-backed adjacency when it lists every one of `types` (every type when empty)
/// exactly as the store does, with those types' catalog ids (`None`: any type).
fn listable<'c>(ctx: &'c Ctx, types: &[String]) -> Option<(&'c FastAdj, Option<Vec<u32>>)> {
    let fast = ctx.fast_adj()?;
    let ids = if types.is_empty() {
        if !fast.all_listable {
            return None;
        }
        None
    } else {
        Some(fast.type_ids(ctx.snapshot()?, types)?)
    };
    Some((fast, ids))
}

/// [`edge_between`] from the fresh projection of a read-only query: a binary search in the
/// sorted neighbour list of `a` (a shortest path's hops, named one by one) instead of a store
/// read per type; `None` when a type asked for is not listed there exactly (use the store).
fn edge_between_projected(ctx: &Ctx, a: &NodeKey, b: &NodeKey, rp: &RelPattern) -> Option<Option<RelRef>> {
    rels_between_projected(ctx, a, b, rp).map(|rels| rels.into_iter().next())
}

/// The relationships of `rp` joining `a` and `b` in the fresh projection, outgoing ones first
/// (under `Both`, a self-loop appears in both halves); `None` when a type asked for is not
/// listed there exactly (use the store).
fn rels_between_projected(ctx: &Ctx, a: &NodeKey, b: &NodeKey, rp: &RelPattern) -> Option<Vec<RelRef>> {
    let (fast, ids) = listable(ctx, &rp.types)?;
    let p = &fast.proj;
    let (Some(u), Some(v)) = (p.index_of_key(a), p.index_of_key(b)) else {
        return Some(Vec::new());
    };
    let mut out = Vec::new();
    // Every `from -> to` edge of an asked-for type, as a relationship value.
    let mut add = |from: u32, to: u32, src: &NodeKey, dst: &NodeKey| {
        let csr = p.out();
        let list = csr.neighbors(from);
        let first = list.partition_point(|&x| x < to);
        for k in 0..list[first..].iter().take_while(|&&x| x == to).count() {
            let ty = p.edge_type(csr.edge_key(from, first + k));
            if ids.as_ref().is_some_and(|ids| !ids.contains(&ty)) {
                continue;
            }
            if let Some(name) = fast.types.get(ty as usize).cloned().flatten() {
                out.push(RelRef {
                    src: src.clone(),
                    ty: name,
                    dst: dst.clone(),
                    edge_id: 0,
                    data: None,
                });
            }
        }
    };
    if matches!(rp.direction, RelDirection::Right | RelDirection::Both) {
        add(u, v, a, b);
    }
    if matches!(rp.direction, RelDirection::Left | RelDirection::Both) {
        add(v, u, b, a);
    }
    Some(out)
}

/// Whether [`rels_between`] can answer for `rp` in this query: a read-only one (its snapshot
/// has the catalog) with types named.
pub(crate) fn can_expand_into(ctx: &Ctx, rp: &RelPattern) -> bool {
    ctx.snapshot().is_some() && !rp.types.is_empty()
}

/// Every relationship of `rp` between `a` and `b` (two different nodes), exactly the ones
/// [`expand`] from `a` lists that end at `b`, found without listing `a`'s others: an
/// expand-into, for a pattern whose two ends are both known. `None` where that is not exact
/// (see [`can_expand_into`]; an undirected type read against its direction, or with
/// parallel edges): list `a`'s.
pub(crate) fn rels_between(ctx: &Ctx, a: &NodeKey, b: &NodeKey, rp: &RelPattern) -> Result<Option<Vec<RelRef>>> {
    if a == b || !can_expand_into(ctx, rp) {
        return Ok(None);
    }
    if let Some(rels) = rels_between_projected(ctx, a, b, rp) {
        return Ok(Some(rels));
    }
    let (Some(txn), g) = (ctx.snapshot(), ctx.read()) else {
        return Ok(None);
    };
    let mut out = Vec::new();
    for (k, name) in rp.types.iter().enumerate() {
        // `[:T|T]` names T once; an undeclared type has no relationships.
        let Some(t) = txn.edge_type_named(name).filter(|_| !rp.types[..k].contains(name)) else {
            continue;
        };
        // An undirected relationship is listed from each end as leaving it.
        let (forward, backward) = match (rp.direction, t.options.undirected) {
            (RelDirection::Left, true) => return Ok(None),
            (_, true) if t.options.multi => return Ok(None),
            (_, true) | (RelDirection::Right, false) => (true, false),
            (RelDirection::Left, false) => (false, true),
            (RelDirection::Both, false) => (true, true),
        };
        for (s, d) in [(forward, a, b), (backward, b, a)]
            .into_iter()
            .filter_map(|(on, s, d)| on.then_some((s, d)))
        {
            out.extend(g.edges_from_to(s, name, d)?.into_iter().map(|e| RelRef {
                src: e.src,
                ty: e.ty,
                dst: e.dst,
                edge_id: e.id,
                data: None,
            }));
        }
    }
    Ok(Some(out))
}

/// The store's direction for a pattern's, read from the pattern's first node.
pub(crate) fn store_direction(d: RelDirection) -> Direction {
    match d {
        RelDirection::Right => Direction::Out,
        RelDirection::Left => Direction::In,
        RelDirection::Both => Direction::Both,
    }
}

/// The pattern's direction for the store's (the inverse of [`store_direction`]).
pub(crate) fn pattern_direction(d: Direction) -> RelDirection {
    match d {
        Direction::Out => RelDirection::Right,
        Direction::In => RelDirection::Left,
        Direction::Both => RelDirection::Both,
    }
}

/// The analytics layer's path query for a relationship pattern.
pub(crate) fn path_query(rp: &RelPattern, max: u64) -> hopdb_database::PathQuery {
    hopdb_database::PathQuery {
        dir: store_direction(rp.direction),
        types: (!rp.types.is_empty()).then(|| rp.types.clone()),
        max_hops: u32::try_from(max).unwrap_or(u32::MAX),
        via: hopdb_database::Via::Auto,
    }
}

/// A node's relationships with the node at their other end, produced as they are read.
pub(crate) type Rels<'c> = Box<dyn Iterator<Item = (RelRef, NodeKey)> + 'c>;

/// The relationships from `key` in `dir` of `types` (any when empty), with the other end.
pub(crate) fn expand(ctx: &Ctx, key: &NodeKey, dir: RelDirection, types: &[String]) -> Result<Vec<(RelRef, NodeKey)>> {
    Ok(expand_lazily(ctx, key, dir, types)?.collect())
}

/// [`expand`] as an iterator: from the projection, each relationship is made only when the
/// matcher asks for it (a LIMIT stops after a hub's first few, not after all of them).
pub(crate) fn expand_lazily<'c>(ctx: &'c Ctx, key: &NodeKey, dir: RelDirection, types: &[String]) -> Result<Rels<'c>> {
    if let Some(rels) = expand_projected(ctx, key, dir, types) {
        return Ok(rels);
    }
    let d = store_direction(dir);
    let g = ctx.read();
    let mut out = Vec::new();
    let mut push = |edges: Vec<hopdb_database::Edge>| {
        for e in edges {
            let other = if e.src == *key { e.dst.clone() } else { e.src.clone() };
            // A self-loop listed under Both is one relationship; the store lists it once.
            out.push((
                RelRef {
                    src: e.src,
                    ty: e.ty,
                    dst: e.dst,
                    edge_id: e.id,
                    data: None,
                },
                other,
            ));
        }
    };
    let edges_of = |ty: Option<&str>| -> Result<Vec<hopdb_database::Edge>> {
        match g.edges(key, d, ty, None) {
            Ok(e) => Ok(e),
            Err(e) if e.kind() == hopdb_database::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e.into()),
        }
    };
    if types.is_empty() {
        push(edges_of(None)?);
    } else {
        for (k, t) in types.iter().enumerate() {
            // `[:T|T]` names T once.
            if !types[..k].contains(t) {
                push(edges_of(Some(t))?);
            }
        }
    }
    Ok(Box::new(out.into_iter()))
}

/// [`expand_lazily`] from the fresh projection of a read-only query (no store read), when
/// every type asked for is listed there exactly as the store lists it; `None`: use the store.
fn expand_projected<'c>(ctx: &'c Ctx, key: &NodeKey, dir: RelDirection, types: &[String]) -> Option<Rels<'c>> {
    let listed = listed_projected(ctx, key, dir, types)?;
    let key = key.clone();
    Some(Box::new(listed.map(move |(other, ty, outgoing)| {
        let (src, dst) = if outgoing {
            (key.clone(), other.clone())
        } else {
            (other.clone(), key.clone())
        };
        let rel = RelRef {
            src,
            ty: ty.clone(),
            dst,
            edge_id: 0,
            data: None,
        };
        (rel, other.clone())
    })))
}

/// The node at the other end of each relationship of `key` in `dir` of `types` (any when
/// empty), one per relationship as [`expand`] lists them, the first `limit` of them: what a
/// single-step MATCH projecting only its end node needs, without a relationship value each.
pub(crate) fn other_ends(
    ctx: &Ctx,
    key: &NodeKey,
    dir: RelDirection,
    types: &[String],
    limit: usize,
    out: &mut Vec<NodeKey>,
) -> Result<()> {
    match listed_projected(ctx, key, dir, types) {
        Some(listed) => out.extend(listed.take(limit).map(|(other, _, _)| other.clone())),
        None => out.extend(expand_lazily(ctx, key, dir, types)?.take(limit).map(|(_, other)| other)),
    }
    Ok(())
}

/// A node's relationships in the fresh projection as (the other end, the type's name,
/// whether the relationship leaves `key`), when every type asked for is listed there exactly
/// as the store lists it; `None`: list from the store.
fn listed_projected<'c>(
    ctx: &'c Ctx,
    key: &NodeKey,
    dir: RelDirection,
    types: &[String],
) -> Option<impl Iterator<Item = (&'c NodeKey, &'c Arc<str>, bool)> + 'c> {
    let (fast, ids) = listable(ctx, types)?;
    let p = &fast.proj;
    // Not in the snapshot: no relationships (the store's listing says the same).
    let u = p.index_of_key(key);
    let sides = [
        (u.is_some() && matches!(dir, RelDirection::Right | RelDirection::Both)).then(|| (p.out(), true)),
        (u.is_some() && matches!(dir, RelDirection::Left | RelDirection::Both)).then(|| (p.inc(), false)),
    ];
    let u = u.unwrap_or(0);
    Some(sides.into_iter().flatten().flat_map(move |(csr, outgoing)| {
        let ids = ids.clone();
        csr.neighbors(u).iter().enumerate().filter_map(move |(i, &v)| {
            // Under `Both` a self-loop is one relationship: taken from the outgoing side.
            if !outgoing && v == u && dir == RelDirection::Both {
                return None;
            }
            let ty = p.edge_type(csr.edge_key(u, i));
            if ids.as_ref().is_some_and(|ids| !ids.contains(&ty)) {
                return None;
            }
            let name = fast.types.get(ty as usize)?.as_ref()?;
            Some((p.key(v), name, outgoing))
        })
    }))
}
