//! Whole-graph properties of the generator, checked on its actual output.
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;

use hopdb_kg::{
    edges, nodes, sample_keys, write_csv, GenEdge, GenNode, GenValue, KgError, KgSpec, Kind, BASE_CHUNKS,
    BASE_DOCUMENTS, BASE_ENTITIES, BASE_MENTIONS, ENTITY_TYPE_NAMES,
};

/// The 1-based number in a key such as `chunk-17`, checking the prefix.
fn number(key: &str, kind: Kind) -> u64 {
    let digits = key
        .strip_prefix(kind.key_prefix())
        .unwrap_or_else(|| panic!("{key:?} is not a {kind:?} key"));
    let n: u64 = digits.parse().unwrap_or_else(|_| panic!("bad key {key:?}"));
    assert!(n >= 1, "key {key:?} is not 1-based");
    n
}

fn str_prop<'a>(node: &'a GenNode, name: &str) -> &'a str {
    node.prop(name)
        .and_then(GenValue::as_str)
        .unwrap_or_else(|| panic!("{} has no string {name}", node.key))
}

fn int_prop(node: &GenNode, name: &str) -> i64 {
    node.prop(name)
        .and_then(GenValue::as_int)
        .unwrap_or_else(|| panic!("{} has no int {name}", node.key))
}

/// What [`check_graph`] measured.
struct Stats {
    max_entity_in_degree: u64,
    /// 0-based index of the most mentioned entity.
    top_entity: usize,
    mean_entities_per_chunk: f64,
    mean_chunks_per_entity: f64,
}

/// Walks the whole graph once and asserts every structural invariant.
fn check_graph(spec: &KgSpec) -> Stats {
    let c = spec.counts();
    let (nd, nc, ne) = (c.documents as usize, c.chunks as usize, c.entities as usize);

    // Nodes: order, keys, labels, properties.
    let mut chunk_doc = vec![0u32; nc]; // 1-based document number, from `doc_id`
    let mut chunk_ordinal = vec![0u32; nc];
    let mut titles = HashSet::with_capacity(ne);
    let mut seen = [0usize; 3];
    for (i, node) in nodes(spec).enumerate() {
        if i < nd {
            assert_eq!(node.label, "Document");
            assert_eq!(number(&node.key, Kind::Document), i as u64 + 1);
            assert_eq!(node.props.len(), 1);
            assert!(!str_prop(&node, "title").is_empty());
            seen[0] += 1;
        } else if i < nd + nc {
            let ci = i - nd;
            assert_eq!(node.label, "Chunk");
            assert_eq!(number(&node.key, Kind::Chunk), ci as u64 + 1);
            let names: Vec<&str> = node.props.iter().map(|p| p.0).collect();
            assert_eq!(names, ["doc_id", "ordinal", "word_count", "section_title"]);
            let doc = number(str_prop(&node, "doc_id"), Kind::Document);
            assert!(doc <= c.documents, "{} points at missing {doc}", node.key);
            chunk_doc[ci] = doc as u32;
            let ordinal = int_prop(&node, "ordinal");
            assert!(ordinal >= 0);
            chunk_ordinal[ci] = ordinal as u32;
            assert!((150..=600).contains(&int_prop(&node, "word_count")));
            assert!(!str_prop(&node, "section_title").is_empty());
            seen[1] += 1;
        } else {
            let ei = i - nd - nc;
            assert_eq!(node.label, "Entity");
            assert_eq!(number(&node.key, Kind::Entity), ei as u64 + 1);
            assert!(ENTITY_TYPE_NAMES.contains(&str_prop(&node, "entity_type")));
            let title = str_prop(&node, "canonical_title").to_string();
            assert!(titles.insert(title), "duplicate title on {}", node.key);
            seen[2] += 1;
        }
    }
    assert_eq!(seen, [nd, nc, ne], "node counts");

    // Ordinals: within each document they are exactly 0..n-1.
    let mut by_doc: Vec<(u32, u32)> = chunk_doc.iter().zip(&chunk_ordinal).map(|(&d, &o)| (d, o)).collect();
    by_doc.sort_unstable();
    let mut expected_next = (0u32, 0u32); // (document, next ordinal)
    for &(d, o) in &by_doc {
        if d != expected_next.0 {
            assert_eq!(d, expected_next.0 + 1, "document {} has no chunk", expected_next.0 + 1);
            expected_next = (d, 0);
        }
        assert_eq!(o, expected_next.1, "doc-{d}: ordinals are not 0..n-1");
        expected_next.1 += 1;
    }
    assert_eq!(expected_next.0 as usize, nd, "the last documents have no chunk");

    // Edges: HAS_CHUNK first, then MENTIONS.
    let mut has_chunk_of = vec![0u32; nc];
    let mut chunks_of_doc = vec![0u32; nd];
    let mut pairs: Vec<u64> = Vec::with_capacity(c.mentions as usize);
    let mut in_degree = vec![0u32; ne];
    let mut out_degree = vec![0u32; nc];
    let (mut n_has, mut n_men) = (0u64, 0u64);
    for GenEdge { src, dst, ty } in edges(spec) {
        match ty {
            "HAS_CHUNK" => {
                assert_eq!(n_men, 0, "HAS_CHUNK after MENTIONS");
                n_has += 1;
                let d = number(&src, Kind::Document) as usize;
                let ch = number(&dst, Kind::Chunk) as usize;
                assert!(d <= nd && ch <= nc);
                assert_eq!(has_chunk_of[ch - 1], 0, "chunk-{ch} has two HAS_CHUNK edges");
                has_chunk_of[ch - 1] = d as u32;
                chunks_of_doc[d - 1] += 1;
            }
            "MENTIONS" => {
                n_men += 1;
                let ch = number(&src, Kind::Chunk);
                let e = number(&dst, Kind::Entity);
                assert!(ch <= c.chunks && e <= c.entities);
                pairs.push((ch << 32) | e);
                in_degree[e as usize - 1] += 1;
                out_degree[ch as usize - 1] += 1;
            }
            other => panic!("unexpected edge type {other}"),
        }
    }
    assert_eq!(n_has, c.has_chunk, "HAS_CHUNK count");
    assert_eq!(n_men, c.mentions, "MENTIONS count");

    // Every chunk has exactly one document, the one its `doc_id` names.
    assert_eq!(has_chunk_of, chunk_doc, "HAS_CHUNK disagrees with doc_id");
    assert!(chunks_of_doc.iter().all(|&n| n >= 1), "a document has no chunk");

    // MENTIONS pairs are unique; every entity is mentioned.
    pairs.sort_unstable();
    let dup = pairs.windows(2).find(|w| w[0] == w[1]);
    assert!(
        dup.is_none(),
        "duplicate MENTIONS pair {:?}",
        dup.map(|w| (w[0] >> 32, w[0] as u32))
    );
    assert!(in_degree.iter().all(|&d| d >= 1), "an entity is never mentioned");
    assert!(in_degree.iter().all(|&d| u64::from(d) <= c.chunks));
    assert_eq!(out_degree.iter().map(|&d| u64::from(d)).sum::<u64>(), c.mentions);

    let (top_entity, &max) = in_degree
        .iter()
        .enumerate()
        .max_by_key(|&(i, d)| (*d, std::cmp::Reverse(i)))
        .unwrap();
    Stats {
        max_entity_in_degree: u64::from(max),
        top_entity,
        mean_entities_per_chunk: n_men as f64 / nc as f64,
        mean_chunks_per_entity: n_men as f64 / ne as f64,
    }
}

#[test]
fn scale_one_has_exact_counts_and_the_study_shape() {
    let spec = KgSpec::new(1.0, 42).unwrap();
    let c = spec.counts();
    assert_eq!(
        (c.documents, c.chunks, c.entities, c.has_chunk, c.mentions),
        (50_000, 108_076, 587_428, 108_076, 1_144_177)
    );
    let s = check_graph(&spec);
    assert!(
        (3_500..=7_000).contains(&s.max_entity_in_degree),
        "largest entity in-degree {}",
        s.max_entity_in_degree
    );
    assert!(
        (10.0..=11.2).contains(&s.mean_entities_per_chunk),
        "mean entities per chunk {}",
        s.mean_entities_per_chunk
    );
    assert!((1.8..=2.1).contains(&s.mean_chunks_per_entity));
    // Hubs go through a seeded permutation, so the top entity is not simply ent-1.
    assert_ne!(s.top_entity, 0, "the most mentioned entity is ent-1");
}

#[test]
fn hubs_are_scattered_over_the_key_space() {
    let spec = KgSpec::new(0.1, 42).unwrap();
    let ne = spec.counts().entities as usize;
    let mut in_degree = vec![0u32; ne];
    for e in edges(&spec).filter(|e| e.ty == "MENTIONS") {
        in_degree[number(&e.dst, Kind::Entity) as usize - 1] += 1;
    }
    let mut order: Vec<usize> = (0..ne).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(in_degree[i]));
    // Of the 100 biggest hubs, about 100 * 1000 / ne = 1.7 would be among the first
    // 1,000 keys by chance; with ranks mapped to keys in order, all 100 would be.
    let early = order[..100].iter().filter(|&&i| i < 1_000).count();
    assert!(early < 10, "{early} of the top 100 hubs are among the first 1000 keys");
    // Zipf: the top hub is far above the mean of ~2 mentions.
    assert!(
        in_degree[order[0]] > 100,
        "top hub has {} mentions",
        in_degree[order[0]]
    );
}

#[test]
fn smaller_scales_are_rounded_proportions_and_valid() {
    for scale in [0.1, 0.01, 0.001] {
        let spec = KgSpec::new(scale, 42).unwrap();
        let c = spec.counts();
        let r = |base: u64| (base as f64 * scale).round() as u64;
        assert_eq!(c.documents, r(BASE_DOCUMENTS));
        assert_eq!(c.chunks, r(BASE_CHUNKS));
        assert_eq!(c.has_chunk, r(BASE_CHUNKS));
        assert_eq!(c.entities, r(BASE_ENTITIES));
        assert_eq!(c.mentions, r(BASE_MENTIONS));
        // check_graph counts what the iterators actually yield.
        check_graph(&spec);
    }
    let c = KgSpec::new(0.1, 1).unwrap().counts();
    assert_eq!(
        (c.documents, c.chunks, c.entities, c.mentions),
        (5_000, 10_808, 58_743, 114_418)
    );
    let c = KgSpec::new(0.01, 1).unwrap().counts();
    assert_eq!(
        (c.documents, c.chunks, c.entities, c.mentions),
        (500, 1_081, 5_874, 11_442)
    );
}

#[test]
fn odd_scales_and_seeds_are_valid_graphs() {
    for (scale, seed) in [(0.0123, 0), (0.3, u64::MAX), (0.002, 7)] {
        check_graph(&KgSpec::new(scale, seed).unwrap());
    }
}

/// FNV-1a, 64 bit: a stable hash, unlike `DefaultHasher`, so it can be pinned.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 = (self.0 ^ u64::from(x)).wrapping_mul(0x100_0000_01b3);
        }
        self.0 = (self.0 ^ 0xff).wrapping_mul(0x100_0000_01b3); // field separator
    }
}

fn hash_nodes(spec: &KgSpec) -> u64 {
    let mut h = Fnv::new();
    for n in nodes(spec) {
        h.bytes(n.key.as_bytes());
        h.bytes(n.label.as_bytes());
        for (name, value) in &n.props {
            h.bytes(name.as_bytes());
            match value {
                GenValue::Int(i) => h.bytes(&i.to_le_bytes()),
                GenValue::Str(s) => h.bytes(s.as_bytes()),
            }
        }
    }
    h.0
}

fn hash_edges(spec: &KgSpec) -> u64 {
    let mut h = Fnv::new();
    for e in edges(spec) {
        h.bytes(e.src.as_bytes());
        h.bytes(e.dst.as_bytes());
        h.bytes(e.ty.as_bytes());
    }
    h.0
}

#[test]
fn same_seed_gives_identical_output() {
    let spec = KgSpec::new(1.0, 42).unwrap();
    let first = (hash_nodes(&spec), hash_edges(&spec));
    let again = (hash_nodes(&spec), hash_edges(&spec));
    assert_eq!(first, again);
}

#[test]
fn a_different_seed_gives_different_nodes_and_edges() {
    let a = KgSpec::new(0.1, 42).unwrap();
    let b = KgSpec::new(0.1, 43).unwrap();
    assert_ne!(hash_nodes(&a), hash_nodes(&b));
    assert_ne!(hash_edges(&a), hash_edges(&b));
    // Same counts, though.
    assert_eq!(a.counts(), b.counts());
}

/// The output at (0.01, 42), pinned: a change here means every machine's graph changed.
/// Update the constants only on purpose, and say so in the change log of the benchmark.
#[test]
fn output_is_pinned_across_machines_and_versions() {
    let spec = KgSpec::new(0.01, 42).unwrap();
    assert_eq!(
        (hash_nodes(&spec), hash_edges(&spec)),
        (4_085_784_340_545_808_499, 7_458_168_716_753_589_152),
        "the generated graph changed"
    );
}

#[test]
fn bad_scales_are_rejected() {
    for scale in [0.0, -0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        match KgSpec::new(scale, 42) {
            Err(KgError::InvalidScale(_)) => {}
            other => panic!("scale {scale}: {other:?}"),
        }
    }
    // Rounds to 0 documents; then to 1 chunk and 6 entities with 11 mentions (> 6 pairs).
    for scale in [1e-6, 1e-5] {
        match KgSpec::new(scale, 42) {
            Err(e @ KgError::ScaleTooSmall { .. }) => {
                assert!(e.to_string().contains("too small"), "{e}")
            }
            other => panic!("scale {scale}: {other:?}"),
        }
    }
    match KgSpec::new(1e6, 42) {
        Err(e @ KgError::ScaleTooLarge { .. }) => assert!(e.to_string().contains("too large")),
        other => panic!("{other:?}"),
    }
    assert!(KgSpec::new(20.0, 42).is_ok());
    assert_eq!(KgSpec::new(20.0, 42).unwrap().counts().edges(), 25_045_060);
    // The smallest scale the brief names is fine.
    assert!(KgSpec::new(0.001, 42).is_ok());
    // And an invalid hand-built spec fails where it can report it.
    let bad = KgSpec { scale: -2.0, seed: 1 };
    assert!(bad.validate().is_err());
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(write_csv(&bad, dir.path()), Err(KgError::InvalidScale(_))));
}

#[test]
#[should_panic(expected = "invalid KgSpec")]
fn iterating_an_invalid_spec_panics() {
    let bad = KgSpec {
        scale: f64::NAN,
        seed: 1,
    };
    let _ = nodes(&bad).count();
}

fn read_csv(path: &std::path::Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

fn node_row(n: &GenNode) -> Vec<String> {
    let mut row = vec![n.key.clone()];
    for (_, v) in &n.props {
        row.push(match v {
            GenValue::Int(i) => i.to_string(),
            GenValue::Str(s) => s.clone(),
        });
    }
    row.push(n.label.to_string());
    row
}

#[test]
fn csv_files_parse_back_to_the_same_rows() {
    let spec = KgSpec::new(0.01, 42).unwrap();
    let c = spec.counts();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("nested/kg");
    let files = write_csv(&spec, &out).unwrap();

    let (mut want_docs, mut want_chunks, mut want_ents) = (vec![], vec![], vec![]);
    for n in nodes(&spec) {
        match n.label {
            "Document" => want_docs.push(node_row(&n)),
            "Chunk" => want_chunks.push(node_row(&n)),
            _ => want_ents.push(node_row(&n)),
        }
    }
    let (mut want_has, mut want_men) = (vec![], vec![]);
    for e in edges(&spec) {
        let row = vec![e.src, e.dst, e.ty.to_string()];
        if e.ty == "HAS_CHUNK" {
            want_has.push(row)
        } else {
            want_men.push(row)
        }
    }

    let checks = [
        (
            &files.documents,
            "documents.csv",
            ":ID,title,:LABEL",
            want_docs,
            c.documents,
        ),
        (
            &files.chunks,
            "chunks.csv",
            ":ID,doc_id,ordinal:int,word_count:int,section_title,:LABEL",
            want_chunks,
            c.chunks,
        ),
        (
            &files.entities,
            "entities.csv",
            ":ID,canonical_title,entity_type,:LABEL",
            want_ents,
            c.entities,
        ),
        (
            &files.has_chunk,
            "has_chunk.csv",
            ":START_ID,:END_ID,:TYPE",
            want_has,
            c.has_chunk,
        ),
        (
            &files.mentions,
            "mentions.csv",
            ":START_ID,:END_ID,:TYPE",
            want_men,
            c.mentions,
        ),
    ];
    for (file, name, header, want, count) in checks {
        assert_eq!(file.path, out.join(name));
        assert_eq!(file.rows, count, "{name}");
        let (got_header, rows) = read_csv(&file.path);
        assert_eq!(got_header.join(","), header, "{name}");
        assert_eq!(rows.len() as u64, count, "{name}");
        assert_eq!(rows, want, "{name}");
    }

    // Titles with commas were really quoted (and so survived the round trip above).
    let raw = std::fs::read_to_string(&files.documents.path).unwrap();
    assert!(
        raw.lines().any(|l| l.contains(",\"") && l.contains(", ")),
        "no quoted title"
    );
    assert!(raw.starts_with(":ID,title,:LABEL\ndoc-1,"));

    // Writing again replaces the files with the same bytes.
    let before = std::fs::read(&files.mentions.path).unwrap();
    write_csv(&spec, &out).unwrap();
    assert_eq!(std::fs::read(&files.mentions.path).unwrap(), before);
}

#[test]
fn write_csv_reports_an_unwritable_directory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    let spec = KgSpec::new(0.001, 42).unwrap();
    match write_csv(&spec, &file.join("sub")) {
        Err(e @ KgError::Io { .. }) => assert!(e.to_string().contains("not-a-dir"), "{e}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn sample_keys_are_distinct_valid_and_deterministic() {
    let spec = KgSpec::new(0.01, 42).unwrap();
    let c = spec.counts();
    for kind in [Kind::Document, Kind::Chunk, Kind::Entity] {
        let population = kind.count(&c);
        let keys = sample_keys(&spec, kind, 300, 9);
        assert_eq!(keys.len(), 300);
        let numbers: HashSet<u64> = keys.iter().map(|k| number(k, kind)).collect();
        assert_eq!(numbers.len(), 300, "{kind:?}: duplicates");
        assert!(numbers.iter().all(|&n| n <= population));
        assert_eq!(keys, sample_keys(&spec, kind, 300, 9));
        assert_ne!(keys, sample_keys(&spec, kind, 300, 10));
        // Not simply the first keys, nor sorted.
        assert!(numbers.iter().any(|&n| n > 300));
        assert!(keys.windows(2).any(|w| number(&w[0], kind) > number(&w[1], kind)));
        // Does not depend on the graph's seed.
        let other_graph = KgSpec::new(0.01, 7).unwrap();
        assert_eq!(keys, sample_keys(&other_graph, kind, 300, 9));
    }
    // Asking for more than there are gives all of them, once each.
    let all = sample_keys(&spec, Kind::Document, 10_000, 1);
    assert_eq!(all.len() as u64, c.documents);
    let distinct: HashSet<&String> = all.iter().collect();
    assert_eq!(distinct.len(), all.len());
    assert!(sample_keys(&spec, Kind::Entity, 0, 1).is_empty());
    // Every key sampled exists in the graph.
    let entity_keys: HashSet<String> = nodes(&spec).filter(|n| n.label == "Entity").map(|n| n.key).collect();
    assert!(sample_keys(&spec, Kind::Entity, 1_000, 3)
        .iter()
        .all(|k| entity_keys.contains(k)));
}

#[test]
fn sample_keys_are_uniform_enough() {
    // 20,000 draws of 10 documents out of 500: each is expected 400 times.
    let spec = KgSpec::new(0.01, 42).unwrap();
    let mut hits = vec![0u32; 500];
    for seed in 0..20_000 {
        for k in sample_keys(&spec, Kind::Document, 10, seed) {
            hits[number(&k, Kind::Document) as usize - 1] += 1;
        }
    }
    assert!(
        hits.iter().all(|&h| (300..=500).contains(&h)),
        "{:?}",
        hits.iter().minmax()
    );
}

trait MinMax {
    fn minmax(self) -> (u32, u32);
}

impl<'a, I: Iterator<Item = &'a u32>> MinMax for I {
    fn minmax(self) -> (u32, u32) {
        self.fold((u32::MAX, 0), |(lo, hi), &x| (lo.min(x), hi.max(x)))
    }
}
