//! Weakly and strongly connected components.
//!
//! Component ids are numbered in order of each component's smallest node (the component of
//! node 0 is 0), so results are deterministic and comparable across algorithms.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use rayon::prelude::*;

use crate::control::{AlgoError, Control};
use crate::csr::Csr;
use crate::util::{renumber, u32s, BitSet, Ticker, NONE};

/// A component id per node and the number of components.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Components {
    /// Component id of each node, in `0..count`.
    pub component: Vec<u32>,
    /// Number of components (isolated nodes count as one each).
    pub count: u32,
}

/// Component ids numbered `0..count` in order of each component's smallest node; `labels`
/// are node ids (`< n`) naming each node's component.
fn renumber_components(mut labels: Vec<u32>) -> Components {
    let mut scratch = vec![NONE; labels.len()];
    let count = renumber(&mut labels, &mut scratch) as u32;
    Components {
        component: labels,
        count,
    }
}

/// Weakly connected components by union-find over the edges (one view is enough: direction
/// does not matter). Chosen over [`weakly_connected_components_lp`] by measurement: one
/// sequential pass beats label propagation's many parallel rounds on 2 cores, and road graphs
/// (long diameters) are where label propagation suffers most (see examples/algo_bench.rs).
pub fn weakly_connected_components(graph: &Csr, ctrl: &Control) -> Result<Components, AlgoError> {
    let n = graph.node_count();
    let mut ticker = Ticker::start_with(ctrl, u32s(2 * n as usize))?;
    let mut parent: Vec<u32> = (0..n).collect();
    for (u, v) in graph.edges() {
        ticker.step(ctrl)?;
        let (a, b) = (find(&mut parent, u), find(&mut parent, v));
        // Link the larger root under the smaller: a root is always its set's smallest node.
        match a.cmp(&b) {
            std::cmp::Ordering::Less => parent[b as usize] = a,
            std::cmp::Ordering::Greater => parent[a as usize] = b,
            std::cmp::Ordering::Equal => {}
        }
    }
    let roots: Vec<u32> = (0..n).map(|v| find(&mut parent, v)).collect();
    Ok(renumber_components(roots))
}

/// Root of `v`'s set, halving the path on the way.
fn find(parent: &mut [u32], mut v: u32) -> u32 {
    while parent[v as usize] != v {
        let grand = parent[parent[v as usize] as usize];
        parent[v as usize] = grand;
        v = grand;
    }
    v
}

/// Weakly connected components by parallel min-label propagation with pointer jumping
/// (labels are node ids, each label is never above its node, so `label[label[v]]` is a
/// shortcut). Same result as [`weakly_connected_components`]; kept for measurement.
pub fn weakly_connected_components_lp(graph: &Csr, ctrl: &Control) -> Result<Components, AlgoError> {
    let n = graph.node_count();
    ctrl.check()?;
    ctrl.check_memory(u32s(2 * n as usize))?;
    let label: Vec<AtomicU32> = (0..n).map(AtomicU32::new).collect();
    loop {
        ctrl.check()?;
        let changed = AtomicBool::new(false);
        (0..n).into_par_iter().with_min_len(1024).for_each(|u| {
            for &v in graph.neighbors(u) {
                let (lu, lv) = (
                    label[u as usize].load(Ordering::Relaxed),
                    label[v as usize].load(Ordering::Relaxed),
                );
                if lu < lv {
                    label[v as usize].fetch_min(lu, Ordering::Relaxed);
                    changed.store(true, Ordering::Relaxed);
                } else if lv < lu {
                    label[u as usize].fetch_min(lv, Ordering::Relaxed);
                    changed.store(true, Ordering::Relaxed);
                }
            }
        });
        (0..n).into_par_iter().with_min_len(1024).for_each(|v| {
            let mut l = label[v as usize].load(Ordering::Relaxed);
            loop {
                let up = label[l as usize].load(Ordering::Relaxed);
                if up == l {
                    break;
                }
                l = up;
            }
            label[v as usize].fetch_min(l, Ordering::Relaxed);
        });
        if !changed.load(Ordering::Relaxed) {
            break;
        }
    }
    let labels: Vec<u32> = label.into_iter().map(AtomicU32::into_inner).collect();
    Ok(renumber_components(labels))
}

/// Strongly connected components by Tarjan's algorithm with an explicit call stack (road
/// graphs have DFS paths hundreds of thousands deep; recursion would overflow the stack).
pub fn strongly_connected_components(graph: &Csr, ctrl: &Control) -> Result<Components, AlgoError> {
    let n = graph.node_count();
    let fixed = u32s(3 * n as usize) + BitSet::new(n).bytes();
    let mut ticker = Ticker::start_with(ctrl, fixed)?;
    let mut t = Tarjan {
        index: vec![NONE; n as usize],
        low: vec![0; n as usize],
        on_stack: BitSet::new(n),
        stack: Vec::new(),
        calls: Vec::new(),
        counter: 0,
    };
    let mut comp = vec![NONE; n as usize];
    for root in 0..n {
        if t.index[root as usize] != NONE {
            continue;
        }
        t.discover(root);
        while let Some(&(v, i)) = t.calls.last() {
            ticker.tick(ctrl, || fixed + u32s(t.stack.len()) + 16 * t.calls.len())?;
            let row = graph.neighbors(v);
            if i < row.len() {
                if let Some(top) = t.calls.last_mut() {
                    top.1 += 1;
                }
                let w = row[i];
                if t.index[w as usize] == NONE {
                    t.discover(w);
                } else if t.on_stack.contains(w) {
                    t.low[v as usize] = t.low[v as usize].min(t.index[w as usize]);
                }
                continue;
            }
            t.calls.pop();
            if t.low[v as usize] == t.index[v as usize] {
                while let Some(w) = t.stack.pop() {
                    t.on_stack.remove(w);
                    comp[w as usize] = v;
                    if w == v {
                        break;
                    }
                }
            }
            if let Some(&(parent, _)) = t.calls.last() {
                t.low[parent as usize] = t.low[parent as usize].min(t.low[v as usize]);
            }
        }
    }
    Ok(renumber_components(comp))
}

/// Tarjan's per-run state: DFS numbers, low links, the component stack and the explicit call
/// stack of (node, next row position).
struct Tarjan {
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: BitSet,
    stack: Vec<u32>,
    calls: Vec<(u32, usize)>,
    counter: u32,
}

impl Tarjan {
    /// "strongconnect(w)": numbers `w` and pushes it on both stacks.
    fn discover(&mut self, w: u32) {
        self.index[w as usize] = self.counter;
        self.low[w as usize] = self.counter;
        self.counter += 1;
        self.stack.push(w);
        self.on_stack.insert(w);
        self.calls.push((w, 0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_components() {
        // 0 -> 1 -> 2 -> 0 cycle, 2 -> 3, 4 <- 5, 6 isolated, self-loop on 6.
        let g = Csr::from_edges(7, &[(0, 1), (1, 2), (2, 0), (2, 3), (5, 4), (6, 6)], None).unwrap();
        let c = Control::unbounded();
        let w = weakly_connected_components(&g, &c).unwrap();
        assert_eq!(w.component, vec![0, 0, 0, 0, 1, 1, 2]);
        assert_eq!(w.count, 3);
        assert_eq!(weakly_connected_components_lp(&g, &c).unwrap(), w);
        let s = strongly_connected_components(&g, &c).unwrap();
        assert_eq!(s.component, vec![0, 0, 0, 1, 2, 3, 4]);
        assert_eq!(s.count, 5);
        let empty = Csr::from_edges(0, &[], None).unwrap();
        assert_eq!(strongly_connected_components(&empty, &c).unwrap().count, 0);
        assert_eq!(weakly_connected_components(&empty, &c).unwrap().count, 0);
    }
}
