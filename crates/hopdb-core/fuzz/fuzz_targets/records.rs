//! Decodes arbitrary bytes as node records and adjacency entry values (whole and head only): a typed
//! (corruption) refusal or a value that round-trips; never a panic. The body is
//! `fuzz_bodies::records` in ../bodies.rs, shared with crates/hopdb-core/tests/fuzz_decoders.rs.

#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../bodies.rs");

fuzz_target!(|data: &[u8]| fuzz_bodies::records(data));
