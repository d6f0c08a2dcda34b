//! Graph algorithms over a compact CSR (compressed sparse row) projection.
//!
//! This crate knows nothing about storage: `hopdb-core` (or a test) builds a [`Csr`] from a
//! snapshot, with nodes numbered densely `0..n`, and the algorithms here index arrays by that
//! number. Keeping the algorithms storage-free makes them testable on their own against
//! NetworkX and igraph, and lets the projection strategy change without touching them.

pub mod centrality;
pub mod community;
pub mod components;
pub mod control;
pub mod csr;
pub mod pagerank;
pub mod paths;
pub mod sampling;
pub mod traverse;
pub mod triangles;
mod util;
pub mod varlen;

pub use centrality::{
    betweenness_centrality, betweenness_centrality_sampled, degree_centrality, sampled_betweenness_error_bound,
    BetweennessOptions, DegreeDirection, SampledBetweenness,
};
pub use community::{
    hierarchical_leiden, leiden, louvain, modularity, HierarchicalCluster, HierarchicalOptions, LeidenOptions,
    LeidenResult, LouvainOptions, LouvainResult, Quality,
};
pub use components::{strongly_connected_components, weakly_connected_components, Components};
pub use control::{AlgoError, Control};
pub use csr::{Csr, CsrError, Projection};
pub use pagerank::{pagerank, PageRankOptions, Personalization};
pub use paths::{
    all_shortest_paths, bfs_distances, dijkstra, dijkstra_distances, for_each_shortest_path, shortest_path,
};
pub use sampling::sample_neighbors;
pub use traverse::{k_hop, lightrag_subgraph, lightrag_top_degree, HopMode, Subgraph};
pub use triangles::{triangles, Triangles};
pub use varlen::{collect_var_length_paths, var_length_endpoints, var_length_paths, Path};
