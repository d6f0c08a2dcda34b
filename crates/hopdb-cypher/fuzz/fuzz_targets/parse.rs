//! Feeds arbitrary UTF-8 to the Cypher parser: it must return (Ok or a syntax error with a
//! position), never panic or overflow the stack.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(e) = hopdb_cypher::parser::parse(text) {
            assert!(e.position.is_some(), "parse error without a position: {e}");
        }
    }
});
