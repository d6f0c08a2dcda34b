//! Weakly and strongly connected components.
//!
//! Component ids are numbered in order of each component's smallest node (the component of
//! node 0 is 0), so results are deterministic and comparable across algorithms.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use rayon::prelude::*;

use crate::control::{AlgoError, Control};
use crate::csr::Csr;
use crate::util::{u32s, BitSet, Ticker, NONE};

/// A component id per node and the number of components.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Components {
    pub component: Vec<u32>,
    pub count: u32,
}

/// Renumbers arbitrary labels to 0.. in order of first appearance by node.
fn renumber(labels: &[u32]) -> Components {
    let mut map = vec![NONE; labels.len()];
    let mut count = 0u32;
    let component = labels
        .iter()
        .map(|&l| {
            if map[l as usize] == NONE {
                map[l as usize] = count;
                count += 1;
            }
            map[l as usize]
        })
        .collect();
    Components { component, count }
}

/// Weakly connected components by union-find over the edges (one view is enough: direction
/// does not matter). Chosen over [`weakly_connected_components_lp`] by measurement: one
/// sequential pass beats label propagation's many parallel rounds on 2 cores, and road graphs
/// (long diameters) are where label propagation suffers most (see examples/algo_bench.rs).
pub fn weakly_connected_components(graph: &Csr, ctrl: &Control) -> Result<Components, AlgoError> {
    let n = graph.node_count();
    let mut ticker = Ticker::start(ctrl)?;
    ctrl.check_memory(u32s(2 * n as usize))?;
    let mut parent: Vec<u32> = (0..n).collect();
    for (u, v) in graph.edges() {
        ticker.tick(ctrl, || u32s(2 * n as usize))?;
        let (a, b) = (find(&mut parent, u), find(&mut parent, v));
        // Link the larger root under the smaller: a root is always its set's smallest node.
        match a.cmp(&b) {
            std::cmp::Ordering::Less => parent[b as usize] = a,
            std::cmp::Ordering::Greater => parent[a as usize] = b,
            std::cmp::Ordering::Equal => {}
        }
    }
    let roots: Vec<u32> = (0..n).map(|v| find(&mut parent, v)).collect();
    Ok(renumber(&roots))
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
    Ok(renumber(&labels))
}

/// Strongly connected components by Tarjan's algorithm with an explicit call stack (road
/// graphs have DFS paths hundreds of thousands deep; recursion would overflow the stack).
pub fn strongly_connected_components(graph: &Csr, ctrl: &Control) -> Result<Components, AlgoError> {
    let n = graph.node_count();
    let mut ticker = Ticker::start(ctrl)?;
    let fixed = u32s(3 * n as usize) + BitSet::new(n).bytes();
    ctrl.check_memory(fixed)?;
    let mut index = vec![NONE; n as usize];
    let mut low = vec![0u32; n as usize];
    let mut comp = vec![NONE; n as usize];
    let mut on_stack = BitSet::new(n);
    let mut stack: Vec<u32> = Vec::new();
    let mut calls: Vec<(u32, usize)> = Vec::new();
    let mut counter = 0u32;
    for root in 0..n {
        if index[root as usize] != NONE {
            continue;
        }
        index[root as usize] = counter;
        low[root as usize] = counter;
        counter += 1;
        stack.push(root);
        on_stack.insert(root);
        calls.push((root, 0));
        while let Some(&(v, i)) = calls.last() {
            ticker.tick(ctrl, || fixed + u32s(stack.len()) + 16 * calls.len())?;
            let row = graph.neighbors(v);
            if i < row.len() {
                if let Some(top) = calls.last_mut() {
                    top.1 += 1;
                }
                let w = row[i];
                if index[w as usize] == NONE {
                    index[w as usize] = counter;
                    low[w as usize] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack.insert(w);
                    calls.push((w, 0));
                } else if on_stack.contains(w) {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            calls.pop();
            if low[v as usize] == index[v as usize] {
                while let Some(w) = stack.pop() {
                    on_stack.remove(w);
                    comp[w as usize] = v;
                    if w == v {
                        break;
                    }
                }
            }
            if let Some(&(parent, _)) = calls.last() {
                low[parent as usize] = low[parent as usize].min(low[v as usize]);
            }
        }
    }
    Ok(renumber(&comp))
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
