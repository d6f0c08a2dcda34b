// The bodies of the hopdb-core fuzz targets, shared word for word by the cargo-fuzz targets
// (crates/hopdb-core/fuzz/fuzz_targets/*.rs, `include!("../bodies.rs")`) and the bounded
// in-suite run (crates/hopdb-core/tests/fuzz_decoders.rs, `include!("../fuzz/bodies.rs")`),
// so the two cannot drift. Not a module of its own: it is included into each crate root.
//
// They feed arbitrary bytes to the decoders the store runs on what it reads back from disk
// (crate-private; reached through the `#[doc(hidden)] hopdb_core::fuzzing` wrappers) and
// assert: no panic; a refusal is a typed error of kind Corruption (or `None` where the store
// itself turns `None` into that error); whatever decodes re-encodes to bytes that decode to
// the same thing (a fixed point, compared through bytes so NaN compares), exactly the input
// for the fixed-width formats; the canonical encoding is never longer than what it came from.
//
// The targets: `value` (property values, property maps, node keys), `records` (node records
// and adjacency entry values, whole and their heads), `counters` (degree counter sets and the
// `deg` / `counts` merge operators, against a checked reference sum) and `keys` (adjacency
// keys, key-mapping values, edge-id values, property index definitions and entries,
// full-text index definitions).

#[allow(dead_code)]
mod fuzz_bodies {
    use hopdb_core::fuzzing as f;
    use hopdb_core::{Error, ErrorKind};

    fn corrupt<T: std::fmt::Debug>(what: &str, r: &Result<T, Error>) {
        if let Err(e) = r {
            assert_eq!(
                e.kind(),
                ErrorKind::Corruption,
                "{what}: a refusal that is not corruption: {e:?}"
            );
            assert!(!e.to_string().is_empty(), "{what}: an error without a message");
        }
    }

    fn ok<T>(what: &str, r: Result<T, Error>) -> T {
        match r {
            Ok(v) => v,
            Err(e) => panic!("{what}: {e}"),
        }
    }

    /// Property values, maps and node keys.
    pub fn value(data: &[u8]) {
        let v = f::decode_value(data);
        corrupt("value", &v);
        if let Ok(v) = v {
            let bytes = f::encode_value(&v);
            assert!(
                bytes.len() <= data.len(),
                "a value re-encodes longer than its input: {v:?}"
            );
            let again = ok("a re-encoded value decodes", f::decode_value(&bytes));
            assert_eq!(f::encode_value(&again), bytes, "value round trip: {v:?}");
        }
        let p = f::decode_props(data);
        corrupt("property map", &p);
        if let Ok(p) = p {
            // Maps the store itself could not have written (over the size limit) are refused
            // by the encoder, never by a panic.
            if let Ok(bytes) = f::encode_props(&p) {
                assert!(
                    bytes.len() <= data.len(),
                    "a property map re-encodes longer than its input"
                );
                let again = ok("a re-encoded property map decodes", f::decode_props(&bytes));
                assert_eq!(
                    ok("re-encodes", f::encode_props(&again)),
                    bytes,
                    "property map round trip"
                );
            }
        }
        let k = f::decode_node_key(data);
        corrupt("node key", &k);
        if let Ok(k) = k {
            assert_eq!(f::encode_node_key(&k), data, "node key round trip: {k:?}");
        }
    }

    /// Node records and adjacency entry values.
    pub fn records(data: &[u8]) {
        let n = f::decode_node_record(data);
        corrupt("node record", &n);
        let head = f::decode_node_record_key(data);
        corrupt("node record key", &head);
        if let Ok((key, labels, props)) = n {
            assert_eq!(head.as_ref().ok(), Some(&key), "the key-only decoder disagrees");
            if let Ok(bytes) = f::encode_node_record(key.clone(), labels.clone(), props.clone()) {
                assert!(
                    bytes.len() <= data.len(),
                    "a node record re-encodes longer than its input"
                );
                let again = ok("a re-encoded node record decodes", f::decode_node_record(&bytes));
                assert_eq!((&again.0, &again.1), (&key, &labels), "node record round trip");
                assert_eq!(
                    ok("re-encodes", f::encode_node_record(again.0, again.1, again.2)),
                    bytes,
                    "node record round trip"
                );
            }
        }
        let e = f::decode_edge_record(data);
        corrupt("edge record", &e);
        let listed = f::decode_edge_record_listed(data);
        match (&e, &listed) {
            (Ok(a), Ok(b)) => assert!(
                a.0 == b.0 && a.1.map(f64::to_bits) == b.1.map(f64::to_bits) && a.2.len() == b.2.len(),
                "the listing decoder disagrees"
            ),
            (Err(_), Err(_)) => {}
            _ => panic!("the listing decoder and the general one disagree on whether {data:?} decodes"),
        }
        let head = f::decode_edge_record_head(data);
        corrupt("edge record head", &head);
        if let Ok((nbr, weight, props)) = e {
            match &head {
                Ok((k, w)) => assert!(
                    k == &nbr && w.map(f64::to_bits) == weight.map(f64::to_bits),
                    "the head decoder disagrees"
                ),
                Err(err) => panic!("a record decodes but not its head: {err}"),
            }
            if let Ok(bytes) = f::encode_edge_record(nbr.clone(), weight, props) {
                assert!(
                    bytes.len() <= data.len(),
                    "an edge record re-encodes longer than its input"
                );
                let again = ok("a re-encoded edge record decodes", f::decode_edge_record(&bytes));
                assert_eq!(again.0, nbr, "edge record round trip");
                assert_eq!(
                    ok("re-encodes", f::encode_edge_record(again.0, again.1, again.2)),
                    bytes,
                    "edge record round trip"
                );
            }
        }
        segment(data);
    }

    /// An adjacency segment: refused as corruption, or entries that every reader agrees on
    /// and that re-encode to the same bytes when in order.
    fn segment(data: &[u8]) {
        let s = f::decode_segment(data);
        corrupt("adjacency segment", &s);
        let Ok(entries) = s else { return };
        let mut seen = Vec::new();
        ok(
            "a decoded segment visits",
            f::visit_segment(data, None, |t, n, e, r| seen.push((t, n, e, r.to_vec()))),
        );
        let count = ok("a decoded segment counts", f::segment_len(data));
        assert_eq!((count, &seen), (entries.len(), &entries), "the visitor disagrees");
        let sorted = entries.windows(2).all(|w| (w[0].0, w[0].1, w[0].2) < (w[1].0, w[1].1, w[1].2));
        if let (true, Some(first)) = (sorted, entries.first()) {
            let found = ok("a decoded segment searches", f::segment_find(data, first.0, first.1));
            assert_eq!(found.first(), Some(&first.2), "the search misses an entry");
            let inputs: Vec<(u32, u64, u64, &[u8])> =
                entries.iter().map(|(t, n, e, r)| (*t, *n, *e, r.as_slice())).collect();
            assert_eq!(f::encode_segment(&inputs), data, "segment round trip");
        }
    }

    /// The reference `deg` merge: per type, lanes summed (counts with overflow refused as
    /// corruption), types kept sorted; `prune` drops types with no edges left.
    fn reference_deg(parts: &[&[u8]], prune: bool) -> Option<Vec<u8>> {
        let mut acc: std::collections::BTreeMap<u32, [u64; 6]> = Default::default();
        for p in parts {
            for (t, l) in f::decode_deg_set(p)? {
                let std::collections::btree_map::Entry::Occupied(mut a) = acc.entry(t) else {
                    acc.insert(t, l);
                    continue;
                };
                let a = a.get_mut();
                for i in [0, 2, 4] {
                    a[i] = (a[i] as i64).checked_add(l[i] as i64)? as u64;
                }
                for i in [1, 3, 5] {
                    a[i] = (f64::from_bits(a[i]) + f64::from_bits(l[i])).to_bits();
                }
            }
        }
        let set: Vec<f::Lanes> = acc
            .into_iter()
            .filter(|(_, l)| !prune || l[0] != 0 || l[2] != 0 || l[4] != 0)
            .collect();
        Some(f::encode_deg_set(&set))
    }

    /// Splits `data` into pieces at the bytes `sep` (the separator is not part of a piece).
    fn pieces(data: &[u8], sep: u8) -> Vec<&[u8]> {
        data.split(|&b| b == sep).collect()
    }

    /// Degree counter sets and the merge operators. Byte 0: the separator byte that splits
    /// the rest into base and operands.
    pub fn counters(data: &[u8]) {
        if let Some(set) = f::decode_deg_set(data) {
            assert_eq!(f::encode_deg_set(&set), data, "degree counters round trip");
        }
        let Some((&sep, rest)) = data.split_first() else {
            return;
        };
        let parts = pieces(rest, sep);
        let (base, ops) = (parts[0], &parts[1..]);
        // A set whose types are not strictly increasing does not decode (the store writes
        // them sorted), so the merges and the reference agree on refusing it too.
        let mut all = vec![base];
        all.extend_from_slice(ops);
        assert_eq!(f::merge_deg(Some(base), ops), reference_deg(&all, true), "full deg merge");
        assert_eq!(f::merge_deg_operands(ops), reference_deg(ops, false), "partial deg merge");
        let c = f::merge_count(Some(base), ops);
        let mut want = f::decode_count(base);
        for op in ops {
            want = want.and_then(|a| a.checked_add(f::decode_count(op)?));
        }
        assert_eq!(c, want.map(|w| w.to_le_bytes().to_vec()), "count merge");
        let _ = f::merge_count(None, &parts);
        let _ = f::merge_deg(None, &parts);
    }

    /// Fixed-layout keys and values, and index definitions.
    pub fn keys(data: &[u8]) {
        if let Some((n, t, m, e)) = f::parse_adj_key(data) {
            assert_eq!(f::adj_key(n, t, m, e), data, "adjacency key round trip");
        }
        if let Some((id, live)) = f::parse_key_value(data) {
            let labels = f::key_labels(data);
            assert!(labels.is_none() || live, "labels on a deleted node's key");
            assert_eq!(f::key_value(id, live, labels.as_deref()), data, "key mapping round trip");
        }
        if let Some((s, t, d)) = f::parse_edge_id_value(data) {
            assert_eq!(f::adj_key(s, t, d, 0)[..20], *data, "edge id value round trip");
        }
        if let Some((index, part, node)) = f::parse_index_entry(data) {
            let mut k = index.to_be_bytes().to_vec();
            k.extend_from_slice(&part);
            k.extend_from_slice(&node.to_be_bytes());
            assert_eq!(k, data, "index entry round trip");
        }
        // Meta definitions: the key and the value split at the first 0xff byte.
        let (k, v) = match data.iter().position(|&b| b == 0xff) {
            Some(i) => (&data[..i], &data[i + 1..]),
            None => (data, &[][..]),
        };
        if let Some((id, label, property, unique, declared)) = f::parse_index_def(k, v) {
            assert!(!property.is_empty());
            let mut key = b"index\0".to_vec();
            key.extend_from_slice(&label.to_be_bytes());
            key.extend_from_slice(property.as_bytes());
            assert_eq!(key, k, "index definition key round trip");
            assert_eq!(&v[..4], id.to_be_bytes(), "index definition id");
            let _ = (unique, declared);
        }
        for key in [k, &[b"fulltext\0".as_slice(), k].concat()[..]] {
            if let Some(def) = f::decode_fulltext_def(key, v) {
                assert_eq!(f::encode_fulltext_def(&def), v, "full-text definition round trip");
            }
        }
        // Node keys compare as their encodings do (memcomparable), whatever two decode to.
        let (a, b) = data.split_at(data.len() / 2);
        if let (Ok(x), Ok(y)) = (f::decode_node_key(a), f::decode_node_key(b)) {
            assert_eq!(
                x.cmp(&y),
                a.cmp(b),
                "node key order differs from its encoding's: {x:?} {y:?}"
            );
        }
    }
}
