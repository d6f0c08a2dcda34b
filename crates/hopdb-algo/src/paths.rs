//! Shortest paths: BFS hop distances, bidirectional BFS between two nodes, Dijkstra, and the
//! full set of unweighted shortest paths between two nodes.

use std::collections::BinaryHeap;

use crate::control::{AlgoError, Control};
use crate::csr::Csr;
use crate::util::{check_node, u32s, view_nodes, BitSet, HeapEntry as Entry, Ticker, NONE};

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
    let mut ticker = Ticker::start(ctrl)?;
    ctrl.check_memory(u32s(2 * n as usize))?;
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
                ticker.tick(ctrl, || u32s(2 * n as usize))?;
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
    let mut ticker = Ticker::start(ctrl)?;
    if source == target {
        return Ok(Some(vec![source]));
    }
    ctrl.check_memory(u32s(2 * n as usize))?;
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
        let (view, frontier, mine, theirs) = if forward {
            (out, &front_f, &mut pred_f, &pred_b)
        } else {
            (inc, &front_b, &mut pred_b, &pred_f)
        };
        // Returning at the first meeting node is exact: before this level no node was reached
        // from both sides, so no path is shorter than the one through it.
        let mut meet = None;
        'level: for &u in frontier.iter() {
            for &v in view.neighbors(u) {
                ticker.tick(ctrl, || u32s(2 * n as usize + frontier.len() + next.len()))?;
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
            return Ok(Some(join(&pred_f, &pred_b, m, source, target)));
        }
        if forward {
            std::mem::swap(&mut front_f, &mut next);
        } else {
            std::mem::swap(&mut front_b, &mut next);
        }
        next.clear();
    }
}

fn join(pred_f: &[u32], pred_b: &[u32], meet: u32, source: u32, target: u32) -> Vec<u32> {
    let mut path = vec![meet];
    let mut v = meet;
    while v != source {
        v = pred_f[v as usize];
        path.push(v);
    }
    path.reverse();
    v = meet;
    while v != target {
        v = pred_b[v as usize];
        path.push(v);
    }
    path
}

/// Dijkstra from `source`, stopping once `target` is settled. Returns (distances, parents).
fn dijkstra_run(
    graph: &Csr,
    source: u32,
    target: Option<u32>,
    ctrl: &Control,
) -> Result<(Vec<f64>, Vec<u32>), AlgoError> {
    let n = graph.node_count();
    let mut ticker = Ticker::start(ctrl)?;
    let fixed = (n as usize) * 12;
    ctrl.check_memory(fixed)?;
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
            ticker.tick(ctrl, || fixed + heap.len() * 16)?;
            let w = weights.map_or(1.0, |w| w[i]);
            if w.is_nan() || w < 0.0 {
                return Err(AlgoError::InvalidArgument(format!(
                    "edge {u} -> {v} has weight {w}: Dijkstra needs non-negative weights"
                )));
            }
            let nd = d + w;
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
/// when unreachable. An unweighted projection counts 1 per edge; a negative or NaN weight met
/// during the search is [`AlgoError::InvalidArgument`] (Dijkstra would be silently wrong).
pub fn dijkstra(graph: &Csr, source: u32, target: u32, ctrl: &Control) -> Result<Option<(f64, Vec<u32>)>, AlgoError> {
    let n = graph.node_count();
    check_node(source, n)?;
    check_node(target, n)?;
    let (dist, pred) = dijkstra_run(graph, source, Some(target), ctrl)?;
    let d = dist[target as usize];
    if d.is_infinite() {
        return Ok(None);
    }
    let mut path = vec![target];
    let mut v = target;
    while v != source {
        v = pred[v as usize];
        path.push(v);
    }
    path.reverse();
    Ok(Some((d, path)))
}

/// Weighted distance from `source` to every node (`f64::INFINITY` when unreachable); same
/// weight rules as [`dijkstra`].
pub fn dijkstra_distances(graph: &Csr, source: u32, ctrl: &Control) -> Result<Vec<f64>, AlgoError> {
    check_node(source, graph.node_count())?;
    Ok(dijkstra_run(graph, source, None, ctrl)?.0)
}

/// Every fewest-hop path from `source` to `target` (node sequences; parallel edges give one
/// path), in lexicographic node order, at most `limit` of them. `inc` must be `out`'s
/// transpose (the same symmetric view twice for undirected graphs): it prunes the search to
/// nodes that lie on some shortest path, so enumeration never walks into dead ends.
pub fn all_shortest_paths(
    out: &Csr,
    inc: &Csr,
    source: u32,
    target: u32,
    limit: Option<usize>,
    ctrl: &Control,
) -> Result<Vec<Vec<u32>>, AlgoError> {
    let n = view_nodes(&[out, inc])?;
    check_node(source, n)?;
    check_node(target, n)?;
    let mut ticker = Ticker::start(ctrl)?;
    let limit = limit.unwrap_or(usize::MAX);
    if limit == 0 {
        return Ok(Vec::new());
    }
    if source == target {
        return Ok(vec![vec![source]]);
    }
    // Forward BFS until the target is reached: levels before the target's are complete.
    let fixed = u32s(2 * n as usize);
    ctrl.check_memory(fixed)?;
    let mut dist = vec![NONE; n as usize];
    dist[source as usize] = 0;
    let mut frontier = vec![source];
    let mut next = Vec::new();
    'bfs: while !frontier.is_empty() {
        for &u in &frontier {
            for &v in out.neighbors(u) {
                ticker.tick(ctrl, || fixed + u32s(frontier.len() + next.len()))?;
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
        return Ok(Vec::new());
    }
    // Backward over the BFS DAG: the nodes from which the target is reached along it.
    let mut on_path = BitSet::new(n);
    on_path.insert(target);
    let mut stack = vec![target];
    while let Some(v) = stack.pop() {
        for &u in inc.neighbors(v) {
            ticker.tick(ctrl, || fixed + u32s(stack.len()))?;
            if dist[u as usize] != NONE && dist[u as usize] + 1 == dist[v as usize] && on_path.insert(u) {
                stack.push(u);
            }
        }
    }
    // Depth-first enumeration along the DAG with an explicit stack of (node, next row index).
    let mut paths = Vec::new();
    let mut path = vec![source];
    let mut frames: Vec<(u32, usize)> = vec![(source, 0)];
    let mut stored = 0usize;
    while let Some(top) = frames.last_mut() {
        let (u, i) = *top;
        let row = out.neighbors(u);
        if i >= row.len() {
            frames.pop();
            path.pop();
            continue;
        }
        top.1 += 1;
        ticker.tick(ctrl, || fixed + stored)?;
        let v = row[i];
        let fresh = i == 0 || row[i - 1] != v;
        if !fresh || !on_path.contains(v) || dist[v as usize] != dist[u as usize] + 1 {
            continue;
        }
        if v == target {
            path.push(v);
            stored += u32s(path.len()) + 24;
            ctrl.check_memory(fixed + stored)?;
            paths.push(path.clone());
            path.pop();
            if paths.len() >= limit {
                break;
            }
        } else {
            path.push(v);
            frames.push((v, 0));
        }
    }
    Ok(paths)
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
