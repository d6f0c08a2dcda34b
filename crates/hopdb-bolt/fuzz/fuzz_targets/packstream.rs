//! Feeds arbitrary bytes to the PackStream decoder: it must return a value or a typed error,
//! never panic, and whatever it decodes must re-encode to bytes that decode to the same value.

#![no_main]

use hopdb_bolt::packstream::{decode, to_bytes, DecodeLimits};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let tight = DecodeLimits {
        max_depth: 8,
        max_size: 64,
    };
    let _ = decode(data, &tight);
    if let Ok(value) = decode(data, &DecodeLimits::default()) {
        let bytes = to_bytes(&value).expect("a decoded value re-encodes");
        let again = decode(&bytes, &DecodeLimits::default()).expect("re-encoded bytes decode");
        // Compared through bytes, so NaN floats compare bit for bit.
        assert_eq!(to_bytes(&again).expect("re-encodes"), bytes);
    }
});
