//! Community detection: modularity, Louvain, Leiden and GraphRAG-style hierarchical Leiden.
//!
//! All of them work on the *symmetrised* weighted graph built from the [`Csr`]:
//! - every stored edge `u -> v` of weight `w` (1 when the projection is unweighted) adds `w`
//!   to the undirected edge `{u, v}`; so a reciprocal pair becomes one edge of weight `2w`
//!   and parallel edges add up (igraph keeps multi-edges, which is the same for modularity);
//! - a self-loop `u -> u` of weight `w` is an undirected loop of weight `w`: it adds `2w` to
//!   the strength of `u` and `w` to the weight inside `u`'s community, exactly as
//!   `networkx.community.modularity` and igraph's `modularity` count it;
//! - an undirected graph stored in both directions (or [`Csr::undirected`]) therefore has
//!   every weight doubled, loops included, which leaves modularity unchanged.
//!
//! Weights must be finite and non-negative. A graph without edge weight has modularity NaN
//! (igraph's answer; NetworkX raises ZeroDivisionError). Partitions are `Vec<u32>` labels,
//! one per node; the algorithms return dense labels `0..count`.

mod graph;
mod hierarchical;
mod leiden;
mod louvain;

pub use hierarchical::{hierarchical_leiden, HierarchicalCluster, HierarchicalOptions};
pub use leiden::{leiden, LeidenOptions, LeidenResult, Quality};
pub use louvain::{louvain, LouvainOptions, LouvainResult};

use crate::control::{AlgoError, Control};
use crate::csr::Csr;
use graph::{dense_labels, modularity_of, UGraph};

/// Modularity of `partition` (one label per node, any u32 values) on the symmetrised graph:
/// `Q = sum_c [ L_c / m - resolution * (K_c / 2m)^2 ]`, `L_c` the weight inside `c` and
/// `K_c` its total strength; equal to NetworkX's and igraph's value with the same resolution.
pub fn modularity(graph: &Csr, partition: &[u32], resolution: f64, ctrl: &Control) -> Result<f64, AlgoError> {
    check_resolution(resolution)?;
    check_partition(graph, partition)?;
    let g = UGraph::from_csr(graph, ctrl)?;
    let (labels, count) = dense_labels(partition);
    Ok(modularity_of(&g, &labels, count, resolution))
}

pub(crate) fn check_resolution(resolution: f64) -> Result<(), AlgoError> {
    if !(resolution.is_finite() && resolution > 0.0) {
        return Err(AlgoError::InvalidArgument(format!(
            "resolution must be positive and finite, got {resolution}"
        )));
    }
    Ok(())
}

fn check_partition(graph: &Csr, partition: &[u32]) -> Result<(), AlgoError> {
    if partition.len() != graph.node_count() as usize {
        return Err(AlgoError::InvalidArgument(format!(
            "partition has {} labels for {} nodes",
            partition.len(),
            graph.node_count()
        )));
    }
    Ok(())
}
