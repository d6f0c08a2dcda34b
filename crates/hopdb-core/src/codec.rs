//! The stored encodings of node keys and property maps (docs/format.md), for layers that keep
//! HopDB's data outside RocksDB, such as the cluster's partition files. One encoding
//! everywhere, so every value (temporal, spatial, nested) moves between tiers unchanged.

use crate::error::Result;
use crate::value::{self, NodeKey, Props, Reader};

/// A node key's memcomparable encoding: byte order is key order.
pub fn encode_key(k: &NodeKey) -> Vec<u8> {
    k.encode()
}

/// The key [`encode_key`] encoded (`Corruption` when the bytes are not one).
pub fn decode_key(b: &[u8]) -> Result<NodeKey> {
    NodeKey::decode(b)
}

/// A property map's encoding (refused over [`crate::MAX_PROPS_BYTES`]).
pub fn encode_props(p: &Props) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    value::encode_props(&mut out, p)?;
    Ok(out)
}

/// [`encode_props`] of the empty map (a zero count), for layers that write many rows without
/// properties and should not encode it for each.
pub const EMPTY_PROPS: &[u8] = &[0];

/// The map [`encode_props`] encoded (`Corruption` when the bytes are not one).
pub fn decode_props(b: &[u8]) -> Result<Props> {
    value::decode_props(&mut Reader::new(b))
}

/// Checks a property map as the store's writes check it (names, nesting), for layers that
/// write outside RocksDB and must refuse exactly what the store refuses.
pub fn validate_props(p: &Props) -> Result<()> {
    value::validate_props(p)
}

/// Checks a label or edge type name as the store's writes check it; `what` names it in the
/// error ("label", "edge type").
pub fn validate_name(what: &'static str, name: &str) -> Result<()> {
    value::validate_name(what, name)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_empty_map_encodes_as_empty_props() {
        let empty = super::encode_props(&super::Props::new()).unwrap();
        assert_eq!(empty, super::EMPTY_PROPS);
        assert!(super::decode_props(super::EMPTY_PROPS).unwrap().is_empty());
    }
}
