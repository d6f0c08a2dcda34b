//! Imports SNAP / networkrepository / DIMACS edge lists and MatrixMarket files, gzip or not, built
//! from arbitrary bytes, into a fresh in-memory store: a typed error that leaves the store empty,
//! or a store that passes check(); never a panic. The body is `fuzz_bodies::edgelist` in
//! ../bodies.rs, shared with crates/hopdb-import/tests/fuzz_inputs.rs.

#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../bodies.rs");

fuzz_target!(|data: &[u8]| fuzz_bodies::edgelist(data));
