//! Shortest paths between two bound nodes (`shortestPath`, `allShortestPaths`): a
//! breadth-first search over the query's view of the store, for the matcher.

use super::adjacency::{edge_between, expand, path_query};
use super::ctx::Ctx;
use crate::ast::RelPattern;
use crate::compare;
use crate::error::Result;
use crate::value::{NodeRef, PathValue, RelRef};
use hopdb_database::NodeKey;
use std::collections::{HashMap, HashSet, VecDeque};

/// Shortest paths from `a` to `b` (breadth-first over the query's view of the store).
pub(super) fn shortest_paths(
    ctx: &Ctx,
    a: &NodeKey,
    b: &NodeKey,
    rp: &RelPattern,
    want: Option<&crate::value::Map>,
    (min, max): (u64, u64),
    all: bool,
) -> Result<Vec<PathValue>> {
    if let Some(txn) = ctx
        .snapshot()
        .filter(|_| a != b && !all && rp.props.is_none() && min <= 1)
    {
        let q = path_query(rp, max);
        let found = ctx.analytics.shortest_path_at(txn, a, b, &q, &ctx.control)?.value;
        let Some(keys) = found else { return Ok(Vec::new()) };
        // Name the relationships hop by hop (the analytics layer returns nodes).
        let mut rels = Vec::with_capacity(keys.len().saturating_sub(1));
        for w in keys.windows(2) {
            let hop = edge_between(ctx, &w[0], &w[1], rp)?;
            match hop {
                Some(r) => rels.push(r),
                None => return Ok(Vec::new()),
            }
        }
        return Ok(vec![PathValue {
            nodes: keys.into_iter().map(NodeRef::new).collect(),
            rels,
        }]);
    }
    if a == b {
        return Ok(if min == 0 {
            vec![PathValue {
                nodes: vec![NodeRef::new(a.clone())],
                rels: Vec::new(),
            }]
        } else {
            Vec::new()
        });
    }
    // parents[node] = (depth, [(parent, rel)])
    let mut parents: HashMap<NodeKey, (u64, Vec<(NodeKey, RelRef)>)> = HashMap::new();
    parents.insert(a.clone(), (0, Vec::new()));
    let mut q = VecDeque::from([a.clone()]);
    let mut found_depth = None;
    while let Some(u) = q.pop_front() {
        ctx.check()?;
        let du = parents.get(&u).map(|p| p.0).unwrap_or(0);
        if found_depth.is_some_and(|d| du >= d) || du >= max {
            continue;
        }
        for (rel, v) in expand(ctx, &u, rp.direction, &rp.types)? {
            if let Some(m) = want {
                let mut ok = true;
                for (k, w) in m {
                    if compare::equals(&ctx.rel_property(&rel, k)?, w) != Some(true) {
                        ok = false;
                        break;
                    }
                }
                if !ok {
                    continue;
                }
            }
            match parents.get_mut(&v) {
                Some((dv, ps)) => {
                    if *dv == du + 1 && all {
                        ps.push((u.clone(), rel));
                    }
                }
                None => {
                    parents.insert(v.clone(), (du + 1, vec![(u.clone(), rel)]));
                    if v == *b {
                        found_depth = Some(du + 1);
                    } else {
                        q.push_back(v);
                    }
                }
            }
        }
    }
    let Some(d) = found_depth else { return Ok(Vec::new()) };
    if d < min {
        return Ok(Vec::new());
    }
    // Walk parents back from b.
    let mut out = Vec::new();
    let mut stack: Vec<(NodeKey, Vec<NodeRef>, Vec<RelRef>)> =
        vec![(b.clone(), vec![NodeRef::new(b.clone())], Vec::new())];
    let mut seen = HashSet::new();
    while let Some((u, nodes, rels)) = stack.pop() {
        if u == *a {
            let mut nodes = nodes;
            let mut rels = rels;
            nodes.reverse();
            rels.reverse();
            out.push(PathValue { nodes, rels });
            if !all {
                break;
            }
            continue;
        }
        if let Some((_, ps)) = parents.get(&u) {
            for (p, r) in ps {
                let mut n2 = nodes.clone();
                n2.push(NodeRef::new(p.clone()));
                let mut r2 = rels.clone();
                r2.push(r.clone());
                if seen.insert((n2.iter().map(|n| n.key.clone()).collect::<Vec<_>>(), r2.len())) || all {
                    stack.push((p.clone(), n2, r2));
                }
            }
        }
    }
    Ok(out)
}
