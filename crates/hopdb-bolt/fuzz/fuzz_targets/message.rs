//! Feeds arbitrary bytes to the request decoder under every supported version and wire
//! format: it must return a request or a typed error, never panic.

#![no_main]

use hopdb_bolt::packstream::DecodeLimits;
use hopdb_bolt::{decode_request, StructFormat, SUPPORTED_VERSIONS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for &version in SUPPORTED_VERSIONS {
        for format in [StructFormat::V5, StructFormat::V4_4] {
            let _ = decode_request(data, version, format, &DecodeLimits::default());
        }
    }
});
