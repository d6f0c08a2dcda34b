//! Imports neo4j-admin CSV node and relationship files (headers, typed columns, dialect options),
//! built from arbitrary bytes, into a fresh in-memory store: a typed error that leaves the store
//! empty, or a store that passes check(); never a panic. The body is `fuzz_bodies::neo4j_csv` in
//! ../bodies.rs, shared with crates/hopdb-import/tests/fuzz_inputs.rs.

#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../bodies.rs");

fuzz_target!(|data: &[u8]| fuzz_bodies::neo4j_csv(data));
