//! The benchmark side of HopDB in Rust: what is specific to the eight-engine GraphRAG study and
//! the benchmark suite, kept out of the product (`hopdb`, crates/hopdb-cli).
//!
//! - [`kg`]: the study's LightRAG-shaped knowledge graph loaded into a store, its Q1-Q7
//!   retrieval queries and LightRAG's storage-call mix over the store's read API;
//! - [`demo`]: `hopdb-bench demo`, the README's main job (generate, load, answer, time);
//! - [`deep`]: `hopdb-bench deep`, the study's Q8/Q11 deep queries for bench/deep and
//!   bench/deep_rust.
//!
//! Workload 1's multi-client load generator is its own crate, crates/hopdb-loadgen (it carries
//! the peers' database clients); its tests load the knowledge graph with [`kg::load`].

pub mod deep;
pub mod demo;
pub mod kg;
