//! Breadth-first neighbourhoods: k-hop sets with early termination, and LightRAG's bounded
//! BFS subgraph (`get_knowledge_graph`).
//!
//! Directions are chosen by the caller through the adjacency views it passes: `[&out]`,
//! `[&inc]` or `[&out, &inc]` (or one symmetric view such as [`Csr::undirected`]). A [`Csr`]
//! carries no edge types: an edge-type filter is applied by building the views from the
//! edges of the wanted types (one projection per type set).

use std::cmp::Reverse;

use crate::control::{AlgoError, Control};
use crate::csr::Csr;
use crate::util::{check_node, u32s, view_nodes, BitSet, Ticker};

/// Which nodes a k-hop query returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HopMode {
    /// Nodes whose shortest distance from the start is exactly k.
    Exactly,
    /// Nodes at shortest distance 1..=k.
    Within,
}

/// Distinct nodes whose shortest hop distance from `start` over `views` is exactly / at most
/// `k` (`k >= 1`), start excluded, in BFS discovery order (level by level, rows in view order
/// then neighbour order). Self-loops and parallel edges change nothing; a node reached
/// through several views or edges is returned once.
///
/// With `limit`, the search stops the moment `limit` nodes are found, without finishing the
/// level or touching the rest of the ball: a `LIMIT 100` query next to a hub reads a few
/// hundred edges, not the 4-hop ball, and its buffers hold about `limit` nodes. Which nodes are
/// returned under a limit is deterministic (the first ones in the order above). For
/// openCypher's `-[*k]->` (walks that may revisit nodes) see [`crate::var_length_endpoints`].
pub fn k_hop(
    views: &[&Csr],
    start: u32,
    k: u32,
    mode: HopMode,
    limit: Option<usize>,
    ctrl: &Control,
) -> Result<Vec<u32>, AlgoError> {
    let n = view_nodes(views)?;
    check_node(start, n)?;
    if k == 0 {
        return Err(AlgoError::InvalidArgument("k must be at least 1".into()));
    }
    let fixed = BitSet::new(n).bytes();
    let mut ticker = Ticker::start_with(ctrl, fixed)?;
    let limit = limit.unwrap_or(usize::MAX);
    let mut result = Vec::new();
    if limit == 0 {
        return Ok(result);
    }
    let mut visited = BitSet::new(n);
    visited.insert(start);
    let mut frontier = vec![start];
    let mut next = Vec::new();
    for depth in 1..=k {
        let collect = mode == HopMode::Within || depth == k;
        for &u in &frontier {
            for view in views {
                for &v in view.neighbors(u) {
                    ticker.tick(ctrl, || fixed + u32s(frontier.len() + next.len() + result.len()))?;
                    if !visited.insert(v) {
                        continue;
                    }
                    if depth < k {
                        next.push(v);
                    }
                    if collect {
                        result.push(v);
                        if result.len() >= limit {
                            return Ok(result);
                        }
                    }
                }
            }
        }
        if next.is_empty() {
            break;
        }
        std::mem::swap(&mut frontier, &mut next);
        next.clear();
    }
    Ok(result)
}

/// A bounded BFS subgraph, as LightRAG's `get_knowledge_graph` returns it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Subgraph {
    /// Kept nodes in the order LightRAG visits them (by depth, then degree descending, then
    /// tie rank); for the `'*'` case, in ranking order.
    pub nodes: Vec<u32>,
    /// Every edge of the simple undirected graph among the kept nodes, once, as `(u, v)` with
    /// `u <= v` (self-loops included), sorted. LightRAG orients each edge by comparing labels
    /// as strings; do that with the labels when rendering.
    pub edges: Vec<(u32, u32)>,
    /// LightRAG's `is_truncated`.
    pub truncated: bool,
}

/// LightRAG's bounded BFS (`NetworkXStorage.get_knowledge_graph(node_label, max_depth,
/// max_nodes)`, lightrag-hku 1.5.x), reproduced rule for rule on `graph`, which must be the
/// symmetric (undirected) adjacency, e.g. [`Csr::simple_undirected`]`(true)` or
/// [`Csr::undirected`]: multi-edges collapse, as in LightRAG's `nx.Graph`.
///
/// Rules reproduced:
/// * Level by level from `start` (depth 0); each level (the unvisited neighbours enqueued by the
///   previous level) is sorted by NetworkX degree descending (distinct neighbours, a self-loop
///   counting 2), then label ascending. `tie_rank[v]` is the position of v's label in ascending
///   string order (Python `str` order = Rust `str` byte order); `None` ranks by node number.
/// * A node counts toward `max_nodes` when it is visited; the walk stops as soon as
///   `max_nodes` nodes are kept, mid-level; neighbours are expanded only below `max_depth`.
/// * `truncated` is set only when `max_nodes` was reached and something was left out: an
///   unvisited node later in the cut level, an unvisited node already enqueued for the next
///   level, or an unvisited neighbour of a node at `max_depth` (LightRAG counts neighbours at
///   the same depth that had not yet been visited). Stopping at `max_depth` alone does not set
///   it (LightRAG only logs that case).
/// * The caller applies LightRAG's clamp `max_nodes = min(max_nodes, max_graph_nodes)`; a
///   missing label is the caller's (LightRAG returns an empty graph; here a start outside the
///   graph is [`AlgoError::NodeOutOfRange`]).
pub fn lightrag_subgraph(
    graph: &Csr,
    start: u32,
    max_depth: u32,
    max_nodes: usize,
    tie_rank: Option<&[u32]>,
    ctrl: &Control,
) -> Result<Subgraph, AlgoError> {
    let n = graph.node_count();
    check_node(start, n)?;
    check_rank(tie_rank, n)?;
    let fixed = 2 * BitSet::new(n).bytes();
    let mut ticker = Ticker::start_with(ctrl, fixed)?;
    let rank = |v: u32| tie_rank.map_or(v, |r| r[v as usize]);
    let mut visited = BitSet::new(n);
    let mut queued = BitSet::new(n);
    let mut kept: Vec<u32> = Vec::new();
    let mut level = vec![start];
    let mut next: Vec<u32> = Vec::new();
    let mut depth = 0u32;
    let mut unexplored_neighbors = false;
    let mut unprocessed_level_nodes = false;
    let mut stopped_at_max = false;
    // Kept nodes, the level being processed (with its 16-byte sort keys) and the next one.
    let memory = |kept: &[u32], level: &[u32], next: &[u32]| fixed + u32s(kept.len() + next.len()) + 20 * level.len();
    while !level.is_empty() && kept.len() < max_nodes {
        ctrl.check_memory(memory(&kept, &level, &next))?;
        let mut keyed: Vec<(Reverse<u64>, u32, u32)> = Vec::with_capacity(level.len());
        for &v in &level {
            ticker.step(ctrl)?;
            keyed.push((Reverse(nx_degree(graph, v)), rank(v), v));
        }
        keyed.sort_unstable();
        for (idx, &(_, _, v)) in keyed.iter().enumerate() {
            ticker.step(ctrl)?;
            if visited.insert(v) {
                kept.push(v);
                if depth < max_depth {
                    for w in distinct(graph.neighbors(v)) {
                        ticker.step(ctrl)?;
                        if !visited.contains(w) && queued.insert(w) {
                            next.push(w);
                            ctrl.check_memory(memory(&kept, &level, &next))?;
                        }
                    }
                } else if graph.neighbors(v).iter().any(|&w| !visited.contains(w)) {
                    unexplored_neighbors = true;
                }
            }
            if kept.len() >= max_nodes {
                unprocessed_level_nodes = keyed[idx + 1..].iter().any(|&(_, _, w)| !visited.contains(w));
                stopped_at_max = true;
                break;
            }
        }
        if stopped_at_max {
            break;
        }
        for &w in &next {
            queued.remove(w);
        }
        std::mem::swap(&mut level, &mut next);
        next.clear();
        depth += 1;
    }
    // What is still in LightRAG's queue: the next level when it stopped mid-level, else the
    // level it did not start.
    let queue = if stopped_at_max { &next } else { &level };
    let unvisited_in_queue = queue.iter().any(|&w| !visited.contains(w));
    let truncated = kept.len() >= max_nodes && (unvisited_in_queue || unprocessed_level_nodes || unexplored_neighbors);
    let edges = induced_edges(graph, &kept, &visited, fixed + u32s(kept.len()), &mut ticker, ctrl)?;
    Ok(Subgraph {
        nodes: kept,
        edges,
        truncated,
    })
}

/// LightRAG's `'*'` case: the `max_nodes` nodes of highest NetworkX degree (ties by
/// `tie_rank`, as in [`lightrag_subgraph`]; LightRAG sorts by label, then stably by degree
/// descending, which is the same order), the edges among them, and `truncated` when the graph
/// has more than `max_nodes` nodes.
pub fn lightrag_top_degree(
    graph: &Csr,
    max_nodes: usize,
    tie_rank: Option<&[u32]>,
    ctrl: &Control,
) -> Result<Subgraph, AlgoError> {
    let n = graph.node_count();
    check_rank(tie_rank, n)?;
    // The ranking keys, then the kept list and its bitset.
    let mut ticker = Ticker::start_with(ctrl, 16 * n as usize + BitSet::new(n).bytes())?;
    let rank = |v: u32| tie_rank.map_or(v, |r| r[v as usize]);
    let mut keyed: Vec<(Reverse<u64>, u32, u32)> = Vec::with_capacity(n as usize);
    for v in 0..n {
        ticker.step(ctrl)?;
        keyed.push((Reverse(nx_degree(graph, v)), rank(v), v));
    }
    keyed.sort_unstable();
    ctrl.check()?;
    let nodes: Vec<u32> = keyed.iter().take(max_nodes).map(|&(_, _, v)| v).collect();
    let mut kept = BitSet::new(n);
    for &v in &nodes {
        kept.insert(v);
    }
    let edges = induced_edges(
        graph,
        &nodes,
        &kept,
        u32s(nodes.len()) + kept.bytes(),
        &mut ticker,
        ctrl,
    )?;
    Ok(Subgraph {
        nodes,
        edges,
        truncated: n as usize > max_nodes,
    })
}

fn check_rank(tie_rank: Option<&[u32]>, n: u32) -> Result<(), AlgoError> {
    match tie_rank {
        Some(r) if r.len() != n as usize => Err(AlgoError::InvalidArgument(format!(
            "tie_rank has {} entries for {n} nodes",
            r.len()
        ))),
        _ => Ok(()),
    }
}

/// NetworkX `Graph.degree`: distinct neighbours, a self-loop counting twice.
fn nx_degree(graph: &Csr, v: u32) -> u64 {
    distinct(graph.neighbors(v)).map(|w| if w == v { 2 } else { 1 }).sum()
}

/// The values of a sorted slice, each once.
fn distinct(row: &[u32]) -> impl Iterator<Item = u32> + '_ {
    row.iter()
        .enumerate()
        .filter(move |&(i, &w)| i == 0 || row[i - 1] != w)
        .map(|(_, &w)| w)
}

/// The edges among `nodes` (flagged in `kept`), each once as `(u, v)`, `u <= v`, sorted;
/// `fixed` is the memory the caller already holds.
fn induced_edges(
    graph: &Csr,
    nodes: &[u32],
    kept: &BitSet,
    fixed: usize,
    ticker: &mut Ticker,
    ctrl: &Control,
) -> Result<Vec<(u32, u32)>, AlgoError> {
    let mut edges = Vec::new();
    for &v in nodes {
        for w in distinct(graph.neighbors(v)) {
            ticker.tick(ctrl, || fixed + 8 * edges.len())?;
            if v <= w && kept.contains(w) {
                edges.push((v, w));
            }
        }
    }
    edges.sort_unstable();
    Ok(edges)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: u32, edges: &[(u32, u32)]) -> Csr {
        Csr::from_edges(n, edges, None).unwrap().simple_undirected(true)
    }

    #[test]
    fn k_hop_levels_limits_and_errors() {
        // 0 -> 1 -> 2 -> 3, 0 -> 2 (so 2 is at distance 1), 4 isolated, self-loop on 1.
        let out = Csr::from_edges(5, &[(0, 1), (1, 2), (2, 3), (0, 2), (1, 1), (1, 2)], None).unwrap();
        let c = Control::unbounded();
        assert_eq!(k_hop(&[&out], 0, 1, HopMode::Exactly, None, &c).unwrap(), vec![1, 2]);
        assert_eq!(k_hop(&[&out], 0, 2, HopMode::Exactly, None, &c).unwrap(), vec![3]);
        assert_eq!(
            k_hop(&[&out], 0, 3, HopMode::Exactly, None, &c).unwrap(),
            Vec::<u32>::new()
        );
        assert_eq!(k_hop(&[&out], 0, 6, HopMode::Within, None, &c).unwrap(), vec![1, 2, 3]);
        assert_eq!(k_hop(&[&out], 0, 6, HopMode::Within, Some(2), &c).unwrap(), vec![1, 2]);
        assert_eq!(
            k_hop(&[&out], 4, 3, HopMode::Within, None, &c).unwrap(),
            Vec::<u32>::new()
        );
        let inc = out.transpose();
        assert_eq!(k_hop(&[&inc], 3, 2, HopMode::Within, None, &c).unwrap(), vec![2, 0, 1]);
        assert_eq!(k_hop(&[&out, &inc], 3, 1, HopMode::Within, None, &c).unwrap(), vec![2]);
        assert_eq!(
            k_hop(&[&out], 5, 1, HopMode::Within, None, &c),
            Err(AlgoError::NodeOutOfRange { node: 5, n: 5 })
        );
        assert!(matches!(
            k_hop(&[&out], 0, 0, HopMode::Within, None, &c),
            Err(AlgoError::InvalidArgument(_))
        ));
        let empty = Csr::from_edges(0, &[], None).unwrap();
        assert!(matches!(
            k_hop(&[&empty], 0, 1, HopMode::Within, None, &c),
            Err(AlgoError::NodeOutOfRange { .. })
        ));
    }

    #[test]
    fn lightrag_orders_by_degree_then_rank_and_flags_truncation() {
        // Star 0 - {1,2,3}, 1 - 4, 3 - 5, 3 - 6: degrees 0:3, 1:2, 2:1, 3:3, 4:1, 5:1, 6:1.
        let g = graph(7, &[(0, 1), (0, 2), (0, 3), (1, 4), (3, 5), (3, 6)]);
        let c = Control::unbounded();
        let all = lightrag_subgraph(&g, 0, 3, 100, None, &c).unwrap();
        assert_eq!(all.nodes, vec![0, 3, 1, 2, 4, 5, 6]);
        assert!(!all.truncated);
        assert_eq!(all.edges.len(), 6);
        let cut = lightrag_subgraph(&g, 0, 3, 3, None, &c).unwrap();
        assert_eq!(cut.nodes, vec![0, 3, 1]);
        assert_eq!(cut.edges, vec![(0, 1), (0, 3)]);
        assert!(cut.truncated);
        // Depth limit alone does not set the flag.
        let shallow = lightrag_subgraph(&g, 0, 1, 100, None, &c).unwrap();
        assert_eq!(shallow.nodes, vec![0, 3, 1, 2]);
        assert!(!shallow.truncated);
        // Ranks reverse the tie between 1-degree nodes.
        let rank: Vec<u32> = (0..7).rev().collect();
        let r = lightrag_subgraph(&g, 0, 3, 100, Some(&rank), &c).unwrap();
        assert_eq!(r.nodes, vec![0, 3, 1, 2, 6, 5, 4]);
        let top = lightrag_top_degree(&g, 2, None, &c).unwrap();
        assert_eq!(top.nodes, vec![0, 3]);
        assert_eq!(top.edges, vec![(0, 3)]);
        assert!(top.truncated);
        assert!(matches!(
            lightrag_subgraph(&g, 9, 1, 1, None, &c),
            Err(AlgoError::NodeOutOfRange { .. })
        ));
        assert!(matches!(
            lightrag_subgraph(&g, 0, 1, 1, Some(&[0]), &c),
            Err(AlgoError::InvalidArgument(_))
        ));
    }
}
