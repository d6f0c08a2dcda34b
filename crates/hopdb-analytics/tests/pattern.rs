//! Path patterns (`Analytics::expand`, `expand_counts`) against references computed without
//! them: on the study's knowledge graph from the generator's own edge stream (the GraphRAG
//! retrieval shapes Q4, Q6 and Q7), and on a real directed graph (wiki-Vote) from walks over
//! the store's 1-hop listings; on the store, a fresh projection and the overlay alike.
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, HashMap, HashSet};

use hopdb_algo::{AlgoError, Control};
use hopdb_analytics::{Analytics, AnalyticsError, ProjectionSpec, Step, Used};
use hopdb_core::{BulkOptions, Direction, EdgeTypeOptions, Graph, GraphRead, NodeKey, Props, WriteMode};
use hopdb_import::{import, EdgeList, ImportSpec, NoProgress};
use hopdb_kg::{KgSpec, TYPE_HAS_CHUNK, TYPE_MENTIONS};
use hopdb_testdata::datasets;
use rand::{Rng, SeedableRng};

/// Adjacency straight from the generator: (src, type, dst) -> out and in lists.
#[derive(Default)]
struct KgRef {
    out: HashMap<(String, &'static str), Vec<String>>,
    inc: HashMap<(String, &'static str), Vec<String>>,
}

impl KgRef {
    fn add(&mut self, src: &str, ty: &'static str, dst: &str) {
        self.out.entry((src.to_string(), ty)).or_default().push(dst.to_string());
        self.inc.entry((dst.to_string(), ty)).or_default().push(src.to_string());
    }

    fn remove(&mut self, src: &str, ty: &'static str, dst: &str) {
        let drop = |v: &mut Vec<String>, x: &str| v.retain(|y| y != x);
        drop(self.out.get_mut(&(src.to_string(), ty)).unwrap(), dst);
        drop(self.inc.get_mut(&(dst.to_string(), ty)).unwrap(), src);
    }

    fn step(&self, from: &str, dir: Direction, ty: &'static str) -> &[String] {
        let m = match dir {
            Direction::Out => &self.out,
            Direction::In => &self.inc,
            Direction::Both => unreachable!("the knowledge graph's patterns are directed"),
        };
        m.get(&(from.to_string(), ty)).map_or(&[], Vec::as_slice)
    }

    /// Walk counts to every end node of `steps` from `seeds` (one walk per seed and path).
    fn walks(&self, seeds: &[&str], steps: &[(Direction, &'static str)]) -> BTreeMap<String, u64> {
        let mut level: BTreeMap<String, u64> = seeds.iter().map(|s| (s.to_string(), 1)).collect();
        for &(dir, ty) in steps {
            let mut next = BTreeMap::new();
            for (u, c) in &level {
                for v in self.step(u, dir, ty) {
                    *next.entry(v.clone()).or_insert(0) += c;
                }
            }
            level = next;
        }
        level
    }
}

fn kg(spec: &KgSpec, g: &Graph) -> KgRef {
    let mut load = g.bulk_load(BulkOptions::default()).unwrap();
    for n in hopdb_kg::nodes(spec) {
        load.add_node(NodeKey::Str(n.key), &[n.label], Props::new()).unwrap();
    }
    let mut r = KgRef::default();
    for e in hopdb_kg::edges(spec) {
        let ty = if e.ty == TYPE_MENTIONS {
            TYPE_MENTIONS
        } else {
            TYPE_HAS_CHUNK
        };
        r.out.entry((e.src.clone(), ty)).or_default().push(e.dst.clone());
        r.inc.entry((e.dst.clone(), ty)).or_default().push(e.src.clone());
        load.add_edge(NodeKey::Str(e.src), e.ty, NodeKey::Str(e.dst), None, Props::new())
            .unwrap();
    }
    load.finish().unwrap();
    r
}

/// A key as the generator writes it (NodeKey's Display quotes strings).
fn name(k: &NodeKey) -> String {
    match k {
        NodeKey::Str(s) => s.clone(),
        NodeKey::Int(i) => i.to_string(),
    }
}

fn strs(keys: &[NodeKey]) -> Vec<String> {
    keys.iter().map(name).collect()
}

fn mentions(dirs: &[Direction]) -> Vec<Step> {
    dirs.iter().map(|&d| Step::new(d, Some(&[TYPE_MENTIONS]))).collect()
}

/// Q4, Q6 and Q7 shapes with and without limits on one source, against the reference.
fn check_kg(an: &Analytics, r: &KgRef, chunks: &[String], entities: &[String], want_used: fn(Used) -> bool) {
    let ctrl = Control::default();
    let co = [(Direction::Out, TYPE_MENTIONS), (Direction::In, TYPE_MENTIONS)];
    let co_steps = mentions(&[Direction::Out, Direction::In]);
    for c in chunks {
        let seed = [NodeKey::from(c.as_str())];
        let mut all = r.walks(&[c], &co);
        all.remove(c);
        // Q4 without a limit: exactly the distinct co-mentioning chunks, each once.
        let got = an.expand(&seed, &co_steps, None, true, &ctrl).unwrap();
        assert!(want_used(got.used), "{:?}", got.used);
        let got = strs(&got.value);
        assert_eq!(got.len(), got.iter().collect::<HashSet<_>>().len(), "{c}: duplicates");
        assert_eq!(
            got.iter().cloned().collect::<HashSet<_>>(),
            all.keys().cloned().collect(),
            "{c}"
        );
        // Q4 with LIMIT 50: min(50, all) valid rows, and a prefix of the unlimited order.
        let lim = strs(&an.expand(&seed, &co_steps, Some(50), true, &ctrl).unwrap().value);
        assert_eq!(lim.len(), all.len().min(50));
        assert_eq!(lim[..], got[..lim.len()]);
        // Q6: walk counts, by count descending then key, top 10 and in full.
        let mut want: Vec<(String, u64)> = all.into_iter().collect();
        want.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let full = an.expand_counts(&seed, &co_steps, None, true, &ctrl).unwrap().value;
        let full: Vec<(String, u64)> = full.iter().map(|(k, n)| (name(k), *n)).collect();
        assert_eq!(full, want, "{c}");
        let top = an.expand_counts(&seed, &co_steps, Some(10), true, &ctrl).unwrap().value;
        let top: Vec<(String, u64)> = top.iter().map(|(k, n)| (name(k), *n)).collect();
        assert_eq!(top[..], want[..want.len().min(10)], "{c}");
    }
    // Q7: five entities -> their chunks -> those chunks' entities (seeds kept).
    let back = [(Direction::In, TYPE_MENTIONS), (Direction::Out, TYPE_MENTIONS)];
    let back_steps = mentions(&[Direction::In, Direction::Out]);
    for five in entities.chunks(5) {
        let seeds: Vec<NodeKey> = five.iter().map(|e| NodeKey::from(e.as_str())).collect();
        let refs: Vec<&str> = five.iter().map(String::as_str).collect();
        let all: HashSet<String> = r.walks(&refs, &back).into_keys().collect();
        let got = strs(&an.expand(&seeds, &back_steps, None, false, &ctrl).unwrap().value);
        assert_eq!(got.len(), all.len());
        assert_eq!(got.into_iter().collect::<HashSet<_>>(), all);
        let lim = strs(&an.expand(&seeds, &back_steps, Some(50), false, &ctrl).unwrap().value);
        assert_eq!(lim.len(), all.len().min(50));
        assert!(lim.iter().all(|k| all.contains(k)));
    }
}

#[test]
fn knowledge_graph_patterns_on_every_source() {
    let spec = KgSpec::new(0.01, 11).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path()).unwrap();
    let mut r = kg(&spec, &g);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let counts = spec.counts();
    let chunks: Vec<String> = (0..60)
        .map(|_| format!("chunk-{}", rng.random_range(1..=counts.chunks)))
        .collect();
    let entities: Vec<String> = (0..60)
        .map(|_| format!("ent-{}", rng.random_range(1..=counts.entities)))
        .collect();
    let an = Analytics::new(g.clone());
    // No projection yet: the store.
    check_kg(&an, &r, &chunks, &entities, |u| u == Used::Store);
    // A fresh projection of the pattern's one type answers it.
    let typed = ProjectionSpec {
        types: Some(vec![TYPE_MENTIONS.to_string()]),
        weighted: false,
    };
    an.projection(&typed, &Control::default()).unwrap();
    check_kg(&an, &r, &chunks, &entities, |u| matches!(u, Used::Projection { .. }));
    // A pattern mixing types needs every type: the store (only MENTIONS is projected).
    check_mixed(&an, &r, |u| u == Used::Store);
    // Every type projected: typed and mixed patterns run on it, filtering edge by edge.
    an.clear_cache(); // drops the MENTIONS projection
    an.projection(&ProjectionSpec::all(), &Control::default()).unwrap();
    check_kg(&an, &r, &chunks, &entities, |u| matches!(u, Used::Projection { .. }));
    check_mixed(&an, &r, |u| matches!(u, Used::Projection { .. }));
    // Writes after the build: edges of another type between the same nodes (the MENTIONS
    // patterns must not follow them), MENTIONS edges removed and added. The overlay answers.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6);
    for (i, c) in chunks.iter().enumerate().take(30) {
        let e = &entities[i];
        g.upsert_edge(c.as_str(), "CITES", e.as_str(), None, Props::new(), WriteMode::Merge)
            .unwrap();
        if let Some(first) = r.step(c, Direction::Out, TYPE_MENTIONS).first().cloned() {
            // The same pair under another type first: removing the MENTIONS edge must leave it.
            g.upsert_edge(
                c.as_str(),
                "CITES",
                first.as_str(),
                None,
                Props::new(),
                WriteMode::Merge,
            )
            .unwrap();
            g.delete_edge(c.as_str(), TYPE_MENTIONS, first.as_str()).unwrap();
            r.remove(c, TYPE_MENTIONS, &first);
        }
        let other = format!("ent-{}", rng.random_range(1..=counts.entities));
        if !r.step(c, Direction::Out, TYPE_MENTIONS).contains(&other) {
            g.upsert_edge(
                c.as_str(),
                TYPE_MENTIONS,
                other.as_str(),
                None,
                Props::new(),
                WriteMode::Merge,
            )
            .unwrap();
            r.add(c, TYPE_MENTIONS, &other);
        }
    }
    check_kg(&an, &r, &chunks, &entities, |u| matches!(u, Used::Overlay { .. }));
    check_mixed(&an, &r, |u| matches!(u, Used::Overlay { .. }));
}

/// Document -> chunks -> entities (two types in one pattern), against the reference.
fn check_mixed(an: &Analytics, r: &KgRef, want_used: fn(Used) -> bool) {
    for i in 1..=20 {
        let d = format!("doc-{i}");
        let steps = [
            Step::new(Direction::Out, Some(&[TYPE_HAS_CHUNK])),
            Step::new(Direction::Out, Some(&[TYPE_MENTIONS])),
        ];
        let got = an
            .expand(&[d.as_str().into()], &steps, None, false, &Control::default())
            .unwrap();
        assert!(want_used(got.used), "{:?}", got.used);
        let want: HashSet<String> = r
            .walks(
                &[&d],
                &[(Direction::Out, TYPE_HAS_CHUNK), (Direction::Out, TYPE_MENTIONS)],
            )
            .into_keys()
            .collect();
        assert_eq!(strs(&got.value).into_iter().collect::<HashSet<_>>(), want);
        let one = an
            .neighbors(
                &d.as_str().into(),
                Direction::Out,
                &Some(vec![TYPE_HAS_CHUNK.into()]),
                None,
                &Control::default(),
            )
            .unwrap();
        assert!(want_used(one.used), "{:?}", one.used);
        let want: HashSet<String> = r.step(&d, Direction::Out, TYPE_HAS_CHUNK).iter().cloned().collect();
        assert_eq!(strs(&one.value).into_iter().collect::<HashSet<_>>(), want);
    }
}

/// Walk counts over the store's own 1-hop listings (the reference for a real graph).
fn walks_by_listing(g: &Graph, seed: &NodeKey, dirs: &[Direction]) -> HashMap<NodeKey, u64> {
    let mut level = HashMap::from([(seed.clone(), 1u64)]);
    for &d in dirs {
        let mut next = HashMap::new();
        for (u, c) in &level {
            for e in g.edges(u, d, None, None).unwrap() {
                let v = if d == Direction::In || (d == Direction::Both && e.dst == *u) {
                    e.src
                } else {
                    e.dst
                };
                *next.entry(v).or_insert(0) += c;
            }
        }
        level = next;
    }
    level
}

#[test]
fn real_graph_co_citation_on_store_and_overlay() {
    let Some(root) = datasets() else { return };
    let g = Graph::in_memory();
    let spec = ImportSpec {
        edge_lists: vec![EdgeList::new(root.join("snap-wiki-Vote/wiki-Vote.txt.gz"))],
        ..ImportSpec::default()
    };
    import(&g, &spec, &NoProgress).unwrap();
    let an = Analytics::new(g.clone());
    let ctrl = Control::default();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    let all: Vec<NodeKey> = g.read().scan_nodes(1024).map(|n| n.unwrap().key).collect();
    let sample: Vec<NodeKey> = (0..80).map(|_| all[rng.random_range(0..all.len())].clone()).collect();
    let patterns: [&[Direction]; 3] = [
        &[Direction::Out, Direction::In],
        &[Direction::In, Direction::Out],
        &[Direction::Both, Direction::Both, Direction::Out],
    ];
    let run = |want_used: fn(Used) -> bool| {
        for seed in &sample {
            for dirs in patterns {
                let steps: Vec<Step> = dirs.iter().map(|&d| Step::new(d, None)).collect();
                let mut want = walks_by_listing(&g, seed, dirs);
                want.remove(seed);
                let got = an
                    .expand_counts(std::slice::from_ref(seed), &steps, None, true, &ctrl)
                    .unwrap();
                assert!(want_used(got.used), "{:?}", got.used);
                assert_eq!(got.value.len(), want.len(), "{seed} {dirs:?}");
                for (k, n) in &got.value {
                    assert_eq!(want.get(k), Some(n), "{seed} {dirs:?} -> {k}");
                }
                let ends = an
                    .expand(std::slice::from_ref(seed), &steps, Some(100), true, &ctrl)
                    .unwrap();
                assert_eq!(ends.value.len(), want.len().min(100));
                assert!(ends.value.iter().all(|k| want.contains_key(k)));
            }
        }
    };
    run(|u| u == Used::Store);
    an.projection(&ProjectionSpec::all(), &ctrl).unwrap();
    // Writes after the build: the all-types overlay answers, with the new edges counted.
    for (a, b) in [(30, 3), (3, 999_999), (28, 30)] {
        g.upsert_edge(
            NodeKey::Int(a),
            "EDGE",
            NodeKey::Int(b),
            None,
            Props::new(),
            WriteMode::Merge,
        )
        .unwrap();
    }
    run(|u| matches!(u, Used::Overlay { .. }));
}

#[test]
fn edge_cases() {
    let g = Graph::in_memory();
    g.define_edge_type(
        "LINK",
        EdgeTypeOptions {
            undirected: true,
            multi: false,
        },
    )
    .unwrap();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "c")] {
        g.upsert_edge(a, "LINK", b, None, Props::new(), WriteMode::Merge)
            .unwrap();
    }
    g.upsert_edge("a", "CITES", "d", None, Props::new(), WriteMode::Merge)
        .unwrap();
    let an = Analytics::new(g.clone());
    let ctrl = Control::default();
    let both = |n: usize| vec![Step::new(Direction::Both, Some(&["LINK"])); n];
    // An undirected type walks from either end; the self-loop is one more walk to c.
    let counts = an
        .expand_counts(&["a".into()], &both(1), None, false, &ctrl)
        .unwrap()
        .value;
    assert_eq!(counts, vec![(NodeKey::from("b"), 1), (NodeKey::from("c"), 1)]);
    let two = an
        .expand_counts(&["a".into()], &both(2), None, false, &ctrl)
        .unwrap()
        .value;
    let want = walks_by_listing_typed(&g, "a", 2);
    assert_eq!(two.iter().map(|(k, n)| (name(k), *n)).collect::<BTreeMap<_, _>>(), want);
    // Missing seeds match nothing; repeated seeds count once; limit 0 gives nothing.
    let seeds: Vec<NodeKey> = vec!["zz".into(), "a".into(), "a".into()];
    let ends = an.expand(&seeds, &both(1), None, false, &ctrl).unwrap().value;
    assert_eq!(ends.len(), 2);
    assert!(an
        .expand(&seeds, &both(1), Some(0), false, &ctrl)
        .unwrap()
        .value
        .is_empty());
    assert!(an
        .expand(&["zz".into()], &both(3), None, false, &ctrl)
        .unwrap()
        .value
        .is_empty());
    // Unknown types follow nothing; exclusion removes the seeds only from the answer.
    let none = [Step::new(Direction::Out, Some(&["NOPE"]))];
    assert!(an
        .expand(&["a".into()], &none, None, false, &ctrl)
        .unwrap()
        .value
        .is_empty());
    let back = an.expand(&["a".into()], &both(2), None, true, &ctrl).unwrap().value;
    assert!(!back.contains(&"a".into()));
    // No steps is an error; a cancelled control stops the walk.
    match an.expand(&["a".into()], &[], None, false, &ctrl) {
        Err(AnalyticsError::Algo(AlgoError::InvalidArgument(_))) => {}
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
    let stopped = Control::default().with_cancel(std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true)));
    match an.expand_counts(&["a".into()], &both(2), None, false, &stopped) {
        Err(AnalyticsError::Algo(AlgoError::Cancelled)) => {}
        other => panic!("expected Cancelled, got {other:?}"),
    }
}

/// Walks of `steps` undirected LINK hops from `seed`, by listing (self-loops listed once).
fn walks_by_listing_typed(g: &Graph, seed: &str, steps: usize) -> BTreeMap<String, u64> {
    let mut level = BTreeMap::from([(seed.to_string(), 1u64)]);
    for _ in 0..steps {
        let mut next = BTreeMap::new();
        for (u, c) in &level {
            for n in g
                .edges(&u.as_str().into(), Direction::Both, Some("LINK"), None)
                .unwrap()
            {
                let v = if name(&n.src) == *u { n.dst } else { n.src };
                *next.entry(name(&v)).or_insert(0) += c;
            }
        }
        level = next;
    }
    level
}
