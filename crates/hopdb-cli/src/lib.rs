//! Library side of the `hopdb` command: loading the generated knowledge graph into a store
//! and the eight-engine study's query shapes over it, shared with the benchmarks.

pub mod kg;
