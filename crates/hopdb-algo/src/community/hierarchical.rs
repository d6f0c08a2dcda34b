//! Hierarchical Leiden as Microsoft GraphRAG runs it (graspologic's `hierarchical_leiden`,
//! implemented in graspologic-native): Leiden on the whole graph gives level 0; every
//! community with `>= max_cluster_size` members is cut out as its own graph (only the edges
//! inside it) and clustered again with Leiden, its parts becoming level-1 clusters with the
//! community as parent; this repeats level by level until no community that can still be
//! split has `max_cluster_size` or more members.

use std::collections::VecDeque;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::graph::UGraph;
use super::leiden::{check_options, run, LeidenOptions};
use crate::control::{AlgoError, Control};
use crate::csr::Csr;
use crate::util::renumber;

/// When hierarchical Leiden splits a community further, and the Leiden run it uses.
#[derive(Debug, Clone, PartialEq)]
pub struct HierarchicalOptions {
    /// Communities with at least this many members are split further (graspologic's `>=`).
    pub max_cluster_size: usize,
    /// The Leiden run used at every level. Level 0 uses `leiden.seed`; the run that splits
    /// cluster `c` uses `leiden.seed.wrapping_add(c + 1)`, so each split can be reproduced
    /// alone (with [`super::leiden`] on the cluster's subgraph, nodes in ascending order).
    pub leiden: LeidenOptions,
}

impl HierarchicalOptions {
    /// GraphRAG's call: `max_cluster_size=10`, `random_seed=0xDEADBEEF`, modularity with
    /// resolution 1, randomness 0.001 and one Leiden iteration per clustering.
    pub fn graphrag() -> HierarchicalOptions {
        HierarchicalOptions {
            max_cluster_size: 10,
            leiden: LeidenOptions {
                resolution: 1.0,
                randomness: 0.001,
                iterations: Some(1),
                seed: 0xDEAD_BEEF,
                ..LeidenOptions::default()
            },
        }
    }
}

/// One row of the result, as graspologic's `HierarchicalCluster`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HierarchicalCluster {
    /// The node this row places.
    pub node: u32,
    /// Unique across all levels.
    pub cluster: u32,
    /// Depth of the split that made `cluster`: 0 for the first clustering.
    pub level: u32,
    /// The level-(l-1) cluster this one was split from; `None` at level 0.
    pub parent_cluster: Option<u32>,
    /// True when this cluster was not split further (the node's finest cluster).
    pub is_final_cluster: bool,
}

/// Rows in graspologic's order: level 0 sorted by (cluster, node), then each split in the
/// order it ran, sorted by (cluster, node). Every node with an edge (a self-loop counts) has a
/// level-0 row and exactly one final row; nodes without any edge get no row (graspologic
/// takes an edge list and never sees them). A community Leiden leaves whole (one community
/// on its own subgraph) cannot be split: it stays final even when too large. In LLM-extracted
/// knowledge graphs these are mostly stars (an entity and its leaf entities), which no split
/// improves; with one Leiden iteration (GraphRAG's setting) a few others stay whole too.
pub fn hierarchical_leiden(
    graph: &Csr,
    opts: &HierarchicalOptions,
    ctrl: &Control,
) -> Result<Vec<HierarchicalCluster>, AlgoError> {
    check_options(&opts.leiden)?;
    if opts.max_cluster_size == 0 {
        return Err(AlgoError::InvalidArgument("max_cluster_size must be at least 1".into()));
    }
    let g = UGraph::from_csr(graph, ctrl)?;
    let n = g.node_count();
    let mut rng = ChaCha8Rng::seed_from_u64(opts.leiden.seed);
    let (mut top, _, _) = run(&g, &opts.leiden, &mut rng, ctrl)?;
    // Number level-0 clusters over the nodes that have edges only.
    let present: Vec<u32> = (0..n as u32).filter(|&v| !g.is_isolated(v as usize)).collect();
    let mut labels: Vec<u32> = present.iter().map(|&v| top[v as usize]).collect();
    let mut scratch = vec![u32::MAX; n];
    let top_count = renumber(&mut labels, &mut scratch);
    for (&v, &c) in present.iter().zip(&labels) {
        top[v as usize] = c;
    }

    let mut h = Hierarchy::default();
    let pairs: Vec<(u32, u32)> = present.iter().map(|&v| (top[v as usize], v)).collect();
    h.add_clusters(&pairs, top_count, 0, None);

    let mut local = vec![u32::MAX; n];
    let mut queue: VecDeque<u32> = h.too_large(opts.max_cluster_size, false).into();
    let mut level = 1u32;
    while let Some(parent) = queue.pop_front() {
        ctrl.check()?;
        let nodes = h.members[parent as usize].clone();
        let sub = g.induced(&nodes, &mut local);
        let mut rng = ChaCha8Rng::seed_from_u64(opts.leiden.seed.wrapping_add(u64::from(parent) + 1));
        let (sub_memb, sub_count, _) = run(&sub, &opts.leiden, &mut rng, ctrl)?;
        if sub_count <= 1 {
            h.unsplittable[parent as usize] = true;
        } else {
            let offset = h.members.len() as u32;
            let pairs: Vec<(u32, u32)> = nodes.iter().zip(&sub_memb).map(|(&v, &c)| (offset + c, v)).collect();
            h.add_clusters(&pairs, sub_count, level, Some(parent));
        }
        if queue.is_empty() {
            level += 1;
            queue.extend(h.too_large(opts.max_cluster_size, true));
        }
    }
    Ok(h.rows)
}

#[derive(Default)]
struct Hierarchy {
    rows: Vec<HierarchicalCluster>,
    /// Per cluster id: its rows (contiguous, at the level it was made), and its nodes.
    row_range: Vec<(usize, usize)>,
    members: Vec<Vec<u32>>,
    /// Split into smaller clusters (no longer holds nodes).
    split: Vec<bool>,
    unsplittable: Vec<bool>,
}

impl Hierarchy {
    /// Adds clusters `first..first+count` given as (cluster, node) pairs, where
    /// `first == members.len()`; marks the parent's rows as no longer final.
    fn add_clusters(&mut self, pairs: &[(u32, u32)], count: usize, level: u32, parent: Option<u32>) {
        let first = self.members.len();
        let mut sorted = pairs.to_vec();
        sorted.sort_unstable();
        for _ in 0..count {
            self.row_range.push((0, 0));
            self.members.push(Vec::new());
            self.split.push(false);
            self.unsplittable.push(false);
        }
        for (cluster, node) in sorted {
            let c = cluster as usize;
            if self.members[c].is_empty() {
                self.row_range[c].0 = self.rows.len();
            }
            self.members[c].push(node);
            self.rows.push(HierarchicalCluster {
                node,
                cluster,
                level,
                parent_cluster: parent,
                is_final_cluster: true,
            });
            self.row_range[c].1 = self.rows.len();
        }
        debug_assert!(self.members[first..].iter().all(|m| !m.is_empty()));
        if let Some(p) = parent {
            let (lo, hi) = self.row_range[p as usize];
            for row in &mut self.rows[lo..hi] {
                row.is_final_cluster = false;
            }
            self.split[p as usize] = true;
        }
    }

    /// Clusters still holding nodes with at least `max` members, in id order; at later levels
    /// (`rescan`) only those with more than one member that Leiden has not failed to split.
    fn too_large(&self, max: usize, rescan: bool) -> Vec<u32> {
        (0..self.members.len())
            .filter(|&c| {
                let size = self.members[c].len();
                !self.split[c] && size >= max && (!rescan || (size > 1 && !self.unsplittable[c]))
            })
            .map(|c| c as u32)
            .collect()
    }
}
