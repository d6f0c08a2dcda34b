//! Variable-length paths `(a)-[*min..max]->(b)` with openCypher relationship uniqueness: no
//! edge twice within one path, nodes may repeat (trails).
//!
//! A step from a node is one entry of one of its rows, in view order then row order. Edges are
//! told apart by [`Csr::edge_key`]: with several views every view must carry edge ids
//! ([`crate::csr::Projection`] gives out and in views that share them), so an edge seen from
//! both ends is still one edge. A self-loop that shows up more than once at the same node (in
//! the out and in views, or twice in an [`Csr::undirected`] row) is one step, as in an
//! undirected openCypher pattern. A single view without edge ids treats each row entry as its
//! own edge, which is right for a directed view; an undirected traversal must use a view with
//! ids such as [`Csr::undirected`] (both copies of an edge share its id) or `[out, inc]` of a
//! [`crate::csr::Projection`], never [`Csr::simple_undirected`].
//!
//! Results stream: [`var_length_paths`] hands each path to a callback and holds only the
//! current path; [`collect_var_length_paths`] is the collecting convenience (its stored paths
//! count against the memory bound).

use std::ops::ControlFlow;

use crate::control::{AlgoError, Control};
use crate::csr::Csr;
use crate::traverse::{k_hop, HopMode};
use crate::util::{check_node, u32s, view_nodes, BitSet, Bounded, Ticker, NONE};

/// One path: `nodes.len() == edges.len() + 1`; `edges[i]` (an edge key) joins `nodes[i]`
/// and `nodes[i + 1]`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Path {
    /// The nodes visited, start first.
    pub nodes: Vec<u32>,
    /// The edge keys ([`Csr::edge_key`]) of the hops, in order.
    pub edges: Vec<u64>,
}

fn check_views(views: &[&Csr], start: u32, min_hops: u32, max_hops: u32) -> Result<(), AlgoError> {
    let n = view_nodes(views)?;
    check_node(start, n)?;
    if views.len() > 1 && views.iter().any(|v| !v.has_edge_ids()) {
        return Err(AlgoError::InvalidArgument(
            "paths over several views need edge ids shared by the views (Projection::from_edges)".into(),
        ));
    }
    if min_hops > max_hops {
        return Err(AlgoError::InvalidArgument(format!(
            "min hops {min_hops} > max hops {max_hops}"
        )));
    }
    Ok(())
}

/// True when the self-loop at row position `pos` of `views[view]` at `v` already showed up
/// earlier at `v` (an earlier view, or earlier in the same row), so it is not a new step.
fn repeated_loop(views: &[&Csr], view: usize, v: u32, pos: usize, key: u64) -> bool {
    for (j, csr) in views.iter().enumerate().take(view + 1) {
        let row = csr.neighbors(v);
        let lo = row.partition_point(|&t| t < v);
        let hi = if j == view {
            pos
        } else {
            row.partition_point(|&t| t <= v)
        };
        if (lo..hi).any(|k| csr.edge_key(v, k) == key) {
            return true;
        }
    }
    false
}

/// Streams every trail from `start` with `min_hops..=max_hops` edges to `visit`, depth-first
/// (explicit stack: memory is O(max_hops) whatever the graph), in step order. Stops after
/// `limit` paths or when `visit` breaks; returns how many paths were delivered. `min_hops = 0`
/// delivers the one-node path first.
pub fn var_length_paths<F>(
    views: &[&Csr],
    start: u32,
    min_hops: u32,
    max_hops: u32,
    limit: Option<u64>,
    ctrl: &Control,
    mut visit: F,
) -> Result<u64, AlgoError>
where
    F: FnMut(&Path) -> ControlFlow<()>,
{
    check_views(views, start, min_hops, max_hops)?;
    let mut ticker = Ticker::start(ctrl)?;
    let limit = limit.unwrap_or(u64::MAX);
    let mut delivered = 0u64;
    if limit == 0 {
        return Ok(0);
    }
    let mut path = Path {
        nodes: vec![start],
        edges: Vec::new(),
    };
    if min_hops == 0 {
        delivered += 1;
        if visit(&path).is_break() || delivered >= limit {
            return Ok(delivered);
        }
    }
    if max_hops == 0 {
        return Ok(delivered);
    }
    // Frame: (node, view index, position in that view's row): the next step to try.
    let mut frames: Vec<(u32, usize, usize)> = vec![(start, 0, 0)];
    while let Some(top) = frames.last_mut() {
        ticker.tick(ctrl, || path_memory(&path))?;
        let (v, view, pos) = *top;
        if view >= views.len() {
            frames.pop();
            path.nodes.pop();
            path.edges.pop();
            continue;
        }
        let row = views[view].neighbors(v);
        if pos >= row.len() {
            *top = (v, view + 1, 0);
            continue;
        }
        top.2 += 1;
        let w = row[pos];
        let key = views[view].edge_key(v, pos);
        if path.edges.contains(&key) || (w == v && repeated_loop(views, view, v, pos, key)) {
            continue;
        }
        path.nodes.push(w);
        path.edges.push(key);
        if path.edges.len() as u32 >= min_hops {
            delivered += 1;
            if visit(&path).is_break() || delivered >= limit {
                return Ok(delivered);
            }
        }
        if (path.edges.len() as u32) < max_hops {
            frames.push((w, 0, 0));
        } else {
            path.nodes.pop();
            path.edges.pop();
        }
    }
    Ok(delivered)
}

/// Working memory of the enumeration: one frame per path node, plus the path.
fn path_memory(path: &Path) -> usize {
    std::mem::size_of::<(u32, usize, usize)>() * path.nodes.len() + u32s(path.nodes.len()) + 8 * path.edges.len()
}

/// [`var_length_paths`] collected into a vector (at most `limit` paths). The stored paths count
/// against the [`Control`]'s memory bound, so an unexpectedly large answer is
/// [`AlgoError::MemoryLimit`] rather than an exhausted machine; stream with
/// [`var_length_paths`] when the answer may be large.
pub fn collect_var_length_paths(
    views: &[&Csr],
    start: u32,
    min_hops: u32,
    max_hops: u32,
    limit: Option<u64>,
    ctrl: &Control,
) -> Result<Vec<Path>, AlgoError> {
    let mut paths = Vec::new();
    let mut bound = Bounded::new(ctrl, 0);
    var_length_paths(views, start, min_hops, max_hops, limit, ctrl, |p| {
        let bytes = std::mem::size_of::<Path>() + u32s(p.nodes.len()) + 8 * p.edges.len();
        bound.admit(bytes, path_memory(p))?;
        paths.push(p.clone());
        ControlFlow::Continue(())
    })?;
    bound.finish(paths)
}

/// Distinct end nodes of the trails from `start` with `min_hops..=max_hops` edges (`RETURN
/// DISTINCT b`), at most `limit` of them, in discovery order.
///
/// For `min_hops <= 1` no enumeration is needed: a shortest path never repeats an edge, so
/// the other end nodes are exactly the nodes within `max_hops` (BFS), and the start is one
/// when a closed trail of at most `max_hops` edges runs through it (found by one BFS, see
/// [`shortest_closed_trail`]). Larger `min_hops` enumerate trails (exponential in the worst
/// case, bounded by the [`Control`]).
pub fn var_length_endpoints(
    views: &[&Csr],
    start: u32,
    min_hops: u32,
    max_hops: u32,
    limit: Option<usize>,
    ctrl: &Control,
) -> Result<Vec<u32>, AlgoError> {
    check_views(views, start, min_hops, max_hops)?;
    ctrl.check()?;
    let limit = limit.unwrap_or(usize::MAX);
    if limit == 0 {
        return Ok(Vec::new());
    }
    if min_hops <= 1 {
        let mut ends = Vec::new();
        let with_start = min_hops == 0 || shortest_closed_trail(views, start, max_hops, ctrl)?.is_some();
        if with_start {
            ends.push(start);
        }
        if max_hops > 0 && ends.len() < limit {
            ends.extend(k_hop(
                views,
                start,
                max_hops,
                HopMode::Within,
                Some(limit - ends.len()),
                ctrl,
            )?);
        }
        return Ok(ends);
    }
    let n = views[0].node_count();
    ctrl.check_memory(BitSet::new(n).bytes())?;
    let mut seen = BitSet::new(n);
    let mut ends = Vec::new();
    let mut bound = Bounded::new(ctrl, seen.bytes());
    var_length_paths(views, start, min_hops, max_hops, None, ctrl, |p| {
        let Some(&end) = p.nodes.last() else {
            return ControlFlow::Continue(());
        };
        if seen.insert(end) {
            // The path enumeration counts its own stack; this adds the answer being built.
            bound.admit(u32s(1), path_memory(p))?;
            ends.push(end);
            if ends.len() >= limit {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    })?;
    bound.finish(ends)
}

/// Length of the shortest closed trail through `start` (at most `max_hops` edges), or `None`.
///
/// A shortest closed trail has no repeated inner node (a repeat could be cut out), so it is a
/// self-loop (1), a step out and a different edge back (2), or `start -> a ... b -> start`
/// with `a != b` and a simple path `a ... b` avoiding `start` (3+, its edges all distinct
/// because consecutive node pairs are). The last case is one BFS from all `a` at once that
/// keeps the two nearest distinct sources per node (a node's nearest source may be itself).
pub fn shortest_closed_trail(
    views: &[&Csr],
    start: u32,
    max_hops: u32,
    ctrl: &Control,
) -> Result<Option<u32>, AlgoError> {
    let n = view_nodes(views)?;
    check_node(start, n)?;
    let mut ticker = Ticker::start(ctrl)?;
    let steps = |v: u32| {
        views.iter().flat_map(move |c| {
            c.neighbors(v)
                .iter()
                .enumerate()
                .map(move |(i, &w)| (w, c.edge_key(v, i)))
        })
    };
    if max_hops == 0 {
        return Ok(None);
    }
    if steps(start).any(|(w, _)| w == start) {
        return Ok(Some(1));
    }
    if max_hops == 1 {
        return Ok(None);
    }
    for (a, key) in steps(start) {
        ticker.step(ctrl)?;
        if steps(a).any(|(w, k)| w == start && k != key) {
            return Ok(Some(2));
        }
    }
    if max_hops == 2 {
        return Ok(None);
    }
    // Two labels per node; the queue holds each node at most twice.
    let fixed = u32s(2 * n as usize);
    ctrl.check_memory(fixed)?;
    // Does `x` step straight back to start? Rows are sorted: one binary search per view.
    let steps_back = |x: u32| views.iter().any(|c| c.neighbors(x).binary_search(&start).is_ok());
    // Up to two (source, distance) labels per node; BFS queue of (node, source, distance).
    let mut label = vec![[NONE; 2]; n as usize];
    let mut queue = std::collections::VecDeque::new();
    for (a, _) in steps(start) {
        if a != start && label[a as usize][0] == NONE {
            label[a as usize][0] = a;
            queue.push_back((a, a, 0u32));
        }
    }
    while let Some((x, src, d)) = queue.pop_front() {
        if src != x && steps_back(x) {
            return Ok(Some(d + 2));
        }
        if u64::from(d) + 3 > u64::from(max_hops) {
            continue;
        }
        for (y, _) in steps(x) {
            ticker.tick(ctrl, || fixed + queue.len() * 12)?;
            if y == start {
                continue;
            }
            let l = &mut label[y as usize];
            if l[0] == src || l[1] == src {
                continue;
            }
            if l[0] == NONE {
                l[0] = src;
            } else if l[1] == NONE {
                l[1] = src;
            } else {
                continue;
            }
            queue.push_back((y, src, d + 1));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::Projection;

    fn count(views: &[&Csr], start: u32, min: u32, max: u32) -> u64 {
        var_length_paths(views, start, min, max, None, &Control::unbounded(), |_| {
            ControlFlow::Continue(())
        })
        .unwrap()
    }

    #[test]
    fn trails_do_not_reuse_edges() {
        // Triangle 0->1->2->0 and a self-loop on 1.
        let p = Projection::from_edges(3, &[(0, 1), (1, 2), (2, 0), (1, 1)], None).unwrap();
        let out = [&p.out];
        // From 0 out: 0-1, 0-1-1, 0-1-2, 0-1-1-2, 0-1-2-0, 0-1-1-2-0, 0-1-2-0-1, ... bounded by edges.
        assert_eq!(count(&out, 0, 1, 1), 1);
        assert_eq!(count(&out, 0, 1, 2), 3);
        assert_eq!(count(&out, 0, 1, 10), 6);
        assert_eq!(count(&out, 0, 0, 0), 1);
        // Undirected: the self-loop is one step although it is in both views.
        let both = [&p.out, &p.inc];
        assert_eq!(count(&both, 1, 1, 1), 3);
        let und = p.out.undirected();
        assert_eq!(count(&[&und], 1, 1, 1), 3);
        let c = Control::unbounded();
        assert_eq!(shortest_closed_trail(&out, 0, 5, &c).unwrap(), Some(3));
        assert_eq!(shortest_closed_trail(&out, 1, 5, &c).unwrap(), Some(1));
        assert_eq!(shortest_closed_trail(&out, 0, 2, &c).unwrap(), None);
        let mut ends = var_length_endpoints(&out, 0, 1, 3, None, &c).unwrap();
        ends.sort();
        assert_eq!(ends, vec![0, 1, 2]);
        assert_eq!(var_length_endpoints(&out, 0, 4, 4, None, &c).unwrap(), vec![0]);
        let mut got = Vec::new();
        var_length_paths(&out, 0, 2, 2, Some(1), &c, |p| {
            got.push(p.clone());
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(
            got,
            vec![Path {
                nodes: vec![0, 1, 1],
                edges: vec![0, 3]
            }]
        );
        let plain = Csr::from_edges(3, &[(0, 1)], None).unwrap();
        assert!(matches!(
            var_length_paths(&[&plain, &plain], 0, 1, 2, None, &c, |_| ControlFlow::Continue(())),
            Err(AlgoError::InvalidArgument(_))
        ));
        assert!(matches!(
            var_length_endpoints(&out, 0, 3, 2, None, &c),
            Err(AlgoError::InvalidArgument(_))
        ));
    }
}
