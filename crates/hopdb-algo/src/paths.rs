//! Shortest paths: BFS hop distances, bidirectional BFS between two nodes, Dijkstra, and the
//! full set of unweighted shortest paths between two nodes.

use std::collections::BinaryHeap;
use std::ops::ControlFlow;

use crate::control::{AlgoError, Control};
use crate::csr::Csr;
use crate::util::{check_node, u32s, view_nodes, walk_back, BitSet, Bounded, HeapEntry as Entry, Ticker, NONE};

/// Hop distance from `start` to every node over `views` (`u32::MAX` when unreachable or
/// beyond `max_depth`).
pub fn bfs_distances(
    views: &[&Csr],
    start: u32,
    max_depth: Option<u32>,
    ctrl: &Control,
) -> Result<Vec<u32>, AlgoError> {
    let n = view_nodes(views)?;
    check_node(start, n)?;
    // The distance table and, at most, every node once in the queue.
    let fixed = u32s(2 * n as usize);
    let mut ticker = Ticker::start_with(ctrl, fixed)?;
    let max_depth = max_depth.unwrap_or(u32::MAX - 1);
    let mut dist = vec![NONE; n as usize];
    dist[start as usize] = 0;
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(u) = queue.pop_front() {
        let d = dist[u as usize];
        if d >= max_depth {
            continue;
        }
        for view in views {
            for &v in view.neighbors(u) {
                ticker.step(ctrl)?;
                if dist[v as usize] == NONE {
                    dist[v as usize] = d + 1;
                    queue.push_back(v);
                }
            }
        }
    }
    Ok(dist)
}

/// One shortest (fewest hops) path from `source` to `target` as a node sequence, or `None`
/// when unreachable. Bidirectional BFS: `out` is searched forward from the source, `inc`
/// (its transpose) backward from the target, always growing the smaller frontier, so a query
/// between two well-connected nodes meets in the middle instead of flooding the graph. For an
/// undirected graph pass the same symmetric view twice.
pub fn shortest_path(
    out: &Csr,
    inc: &Csr,
    source: u32,
    target: u32,
    ctrl: &Control,
) -> Result<Option<Vec<u32>>, AlgoError> {
    let n = view_nodes(&[out, inc])?;
    check_node(source, n)?;
    check_node(target, n)?;
    let fixed = u32s(2 * n as usize);
    let mut ticker = Ticker::start_with(ctrl, fixed)?;
    if source == target {
        return Ok(Some(vec![source]));
    }
    // pred_f[v]: v's parent on the way from the source; pred_b[v]: its next hop toward the target.
    let mut pred_f = vec![NONE; n as usize];
    let mut pred_b = vec![NONE; n as usize];
    pred_f[source as usize] = source;
    pred_b[target as usize] = target;
    let mut front_f = vec![source];
    let mut front_b = vec![target];
    let mut next = Vec::new();
    loop {
        if front_f.is_empty() || front_b.is_empty() {
            return Ok(None);
        }
        let forward = front_f.len() <= front_b.len();
        let (view, frontier, mine, theirs, other) = if forward {
            (out, &front_f, &mut pred_f, &pred_b, front_b.len())
        } else {
            (inc, &front_b, &mut pred_b, &pred_f, front_f.len())
        };
        // Returning at the first meeting node is exact: before this level no node was reached
        // from both sides, so no path is shorter than the one through it.
        let mut meet = None;
        'level: for &u in frontier.iter() {
            for &v in view.neighbors(u) {
                ticker.tick(ctrl, || fixed + u32s(frontier.len() + other + next.len()))?;
                if mine[v as usize] == NONE {
                    mine[v as usize] = u;
                    next.push(v);
                    if theirs[v as usize] != NONE {
                        meet = Some(v);
                        break 'level;
                    }
                }
            }
        }
        if let Some(m) = meet {
            let mut path = walk_back(&pred_f, source, m);
            let mut v = m;
            while v != target {
                v = pred_b[v as usize];
                path.push(v);
            }
            return Ok(Some(path));
        }
        if forward {
            std::mem::swap(&mut front_f, &mut next);
        } else {
            std::mem::swap(&mut front_b, &mut next);
        }
        next.clear();
    }
}

/// Refuses weights Dijkstra would silently get wrong: negative or NaN. Checked for the whole
/// projection up front (recorded when it was built), not only for the edges a search happens
/// to relax: a search that stops at its target may never meet the edge that makes it wrong.
fn check_weights(graph: &Csr) -> Result<(), AlgoError> {
    match graph.first_invalid_weight() {
        Some((u, v, w)) => Err(AlgoError::InvalidArgument(format!(
            "edge {u} -> {v} has weight {w}: Dijkstra needs non-negative weights"
        ))),
        None => Ok(()),
    }
}

/// Dijkstra from `source`, stopping once `target` is settled. Returns (distances, parents).
fn dijkstra_run(
    graph: &Csr,
    source: u32,
    target: Option<u32>,
    ctrl: &Control,
) -> Result<(Vec<f64>, Vec<u32>), AlgoError> {
    let n = graph.node_count();
    check_weights(graph)?;
    let fixed = (n as usize) * 12 + BitSet::new(n).bytes();
    let mut ticker = Ticker::start_with(ctrl, fixed)?;
    let mut dist = vec![f64::INFINITY; n as usize];
    let mut pred = vec![NONE; n as usize];
    let mut done = BitSet::new(n);
    let mut heap = BinaryHeap::new();
    dist[source as usize] = 0.0;
    heap.push(Entry {
        dist: 0.0,
        node: source,
    });
    while let Some(Entry { dist: d, node: u }) = heap.pop() {
        if !done.insert(u) {
            continue;
        }
        if Some(u) == target {
            break;
        }
        let weights = graph.weights(u);
        for (i, &v) in graph.neighbors(u).iter().enumerate() {
            ticker.tick(ctrl, || fixed + heap.len() * std::mem::size_of::<Entry>())?;
            let nd = d + weights.map_or(1.0, |w| w[i]);
            if nd < dist[v as usize] {
                dist[v as usize] = nd;
                pred[v as usize] = u;
                heap.push(Entry { dist: nd, node: v });
            }
        }
    }
    Ok((dist, pred))
}

/// Weighted shortest path from `source` to `target`: `(length, node sequence)`, or `None`
/// when unreachable. An unweighted projection counts 1 per edge; a projection with any
/// negative or NaN weight is [`AlgoError::InvalidArgument`] (Dijkstra would be silently wrong).
pub fn dijkstra(graph: &Csr, source: u32, target: u32, ctrl: &Control) -> Result<Option<(f64, Vec<u32>)>, AlgoError> {
    let n = graph.node_count();
    check_node(source, n)?;
    check_node(target, n)?;
    let (dist, pred) = dijkstra_run(graph, source, Some(target), ctrl)?;
    let d = dist[target as usize];
    if d.is_infinite() {
        return Ok(None);
    }
    Ok(Some((d, walk_back(&pred, source, target))))
}

/// Weighted distance from `source` to every node (`f64::INFINITY` when unreachable); same
/// weight rules as [`dijkstra`].
pub fn dijkstra_distances(graph: &Csr, source: u32, ctrl: &Control) -> Result<Vec<f64>, AlgoError> {
    check_node(source, graph.node_count())?;
    Ok(dijkstra_run(graph, source, None, ctrl)?.0)
}

/// Every fewest-hop path from `source` to `target` (node sequences; parallel edges give one
/// path), in lexicographic node order, at most `limit` of them, collected. There can be
/// exponentially many: the [`Control`]'s memory bound covers the stored paths, and
/// [`for_each_shortest_path`] streams them instead. `inc` must be `out`'s transpose (the same
/// symmetric view twice for undirected graphs).
pub fn all_shortest_paths(
    out: &Csr,
    inc: &Csr,
    source: u32,
    target: u32,
    limit: Option<usize>,
    ctrl: &Control,
) -> Result<Vec<Vec<u32>>, AlgoError> {
    let mut paths = Vec::new();
    let mut bound = Bounded::new(ctrl, 0);
    for_each_shortest_path(out, inc, source, target, limit.map(|l| l as u64), ctrl, |p| {
        bound.admit(u32s(p.len()) + std::mem::size_of::<Vec<u32>>(), 0)?;
        paths.push(p.to_vec());
        ControlFlow::Continue(())
    })?;
    bound.finish(paths)
}

/// Streams every fewest-hop path from `source` to `target` to `visit` (as in
/// [`all_shortest_paths`], same order), stopping after `limit` paths or when `visit` breaks;
/// returns how many were delivered. Working memory is O(n) whatever the number of paths: a
/// forward BFS up to the target's level, a backward pass over `inc` that keeps only the nodes
/// on some shortest path (so the enumeration never walks into a dead end), then a depth-first
/// walk along them.
pub fn for_each_shortest_path<F>(
    out: &Csr,
    inc: &Csr,
    source: u32,
    target: u32,
    limit: Option<u64>,
    ctrl: &Control,
    mut visit: F,
) -> Result<u64, AlgoError>
where
    F: FnMut(&[u32]) -> ControlFlow<()>,
{
    let n = view_nodes(&[out, inc])?;
    check_node(source, n)?;
    check_node(target, n)?;
    // Distances, the BFS frontiers (every node at most once) and the on-path bitset.
    let fixed = u32s(2 * n as usize) + BitSet::new(n).bytes();
    let mut ticker = Ticker::start_with(ctrl, fixed)?;
    let limit = limit.unwrap_or(u64::MAX);
    if limit == 0 {
        return Ok(0);
    }
    if source == target {
        let _ = visit(&[source]);
        return Ok(1);
    }
    // Forward BFS until the target is reached: levels before the target's are complete.
    let mut dist = vec![NONE; n as usize];
    dist[source as usize] = 0;
    let mut frontier = vec![source];
    let mut next = Vec::new();
    'bfs: while !frontier.is_empty() {
        for &u in &frontier {
            for &v in out.neighbors(u) {
                ticker.step(ctrl)?;
                if dist[v as usize] == NONE {
                    dist[v as usize] = dist[u as usize] + 1;
                    next.push(v);
                    if v == target {
                        break 'bfs;
                    }
                }
            }
        }
        std::mem::swap(&mut frontier, &mut next);
        next.clear();
    }
    if dist[target as usize] == NONE {
        return Ok(0);
    }
    drop((frontier, next));
    // Backward over the BFS DAG: the nodes from which the target is reached along it.
    let mut on_path = BitSet::new(n);
    on_path.insert(target);
    let mut stack = vec![target];
    while let Some(v) = stack.pop() {
        for &u in inc.neighbors(v) {
            ticker.step(ctrl)?;
            if dist[u as usize] != NONE && dist[u as usize] + 1 == dist[v as usize] && on_path.insert(u) {
                stack.push(u);
            }
        }
    }
    // Depth-first enumeration along the DAG with an explicit stack of (node, next row index).
    let mut delivered = 0u64;
    let mut path = vec![source];
    let mut frames: Vec<(u32, usize)> = vec![(source, 0)];
    while let Some(top) = frames.last_mut() {
        let (u, i) = *top;
        let row = out.neighbors(u);
        if i >= row.len() {
            frames.pop();
            path.pop();
            continue;
        }
        top.1 += 1;
        ticker.tick(ctrl, || fixed + 16 * frames.len() + u32s(path.len()))?;
        let v = row[i];
        let fresh = i == 0 || row[i - 1] != v;
        if !fresh || !on_path.contains(v) || dist[v as usize] != dist[u as usize] + 1 {
            continue;
        }
        path.push(v);
        if v == target {
            delivered += 1;
            if visit(&path).is_break() || delivered >= limit {
                break;
            }
            path.pop();
        } else {
            frames.push((v, 0));
        }
    }
    Ok(delivered)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_cases() {
        // Diamond 0->1->3, 0->2->3 (twice), 3->4, 5 isolated, self-loop on 3.
        let out = Csr::from_edges(
            6,
            &[(0, 1), (0, 2), (1, 3), (2, 3), (2, 3), (3, 4), (3, 3)],
            Some(&[1.0, 5.0, 1.0, 0.5, 0.1, 2.0, 0.0]),
        )
        .unwrap();
        let inc = out.transpose();
        let c = Control::unbounded();
        assert_eq!(shortest_path(&out, &inc, 0, 4, &c).unwrap().unwrap().len(), 4);
        assert_eq!(shortest_path(&out, &inc, 4, 0, &c).unwrap(), None);
        assert_eq!(shortest_path(&out, &inc, 5, 0, &c).unwrap(), None);
        assert_eq!(shortest_path(&out, &inc, 2, 2, &c).unwrap(), Some(vec![2]));
        assert_eq!(dijkstra(&out, 0, 4, &c).unwrap(), Some((4.0, vec![0, 1, 3, 4])));
        assert_eq!(dijkstra(&out, 0, 5, &c).unwrap(), None);
        let d = dijkstra_distances(&out, 0, &c).unwrap();
        assert_eq!(d[2], 5.0);
        assert_eq!(d[3], 2.0);
        assert!(d[5].is_infinite());
        assert_eq!(bfs_distances(&[&out], 0, None, &c).unwrap(), vec![0, 1, 1, 2, 3, NONE]);
        assert_eq!(
            bfs_distances(&[&out], 0, Some(1), &c).unwrap(),
            vec![0, 1, 1, NONE, NONE, NONE]
        );
        assert_eq!(
            all_shortest_paths(&out, &inc, 0, 4, None, &c).unwrap(),
            vec![vec![0, 1, 3, 4], vec![0, 2, 3, 4]]
        );
        assert_eq!(all_shortest_paths(&out, &inc, 0, 4, Some(1), &c).unwrap().len(), 1);
        assert!(all_shortest_paths(&out, &inc, 4, 0, None, &c).unwrap().is_empty());
        assert!(matches!(
            dijkstra(&out, 0, 6, &c),
            Err(AlgoError::NodeOutOfRange { node: 6, n: 6 })
        ));
        let neg = Csr::from_edges(2, &[(0, 1)], Some(&[-1.0])).unwrap();
        assert!(matches!(dijkstra(&neg, 0, 1, &c), Err(AlgoError::InvalidArgument(_))));
    }
}
