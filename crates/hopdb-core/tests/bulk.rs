//! The bulk loader against the ordinary write path: the same rows, loaded in bulk into one
//! store and upserted one by one into another, must give identical graphs (nodes, labels,
//! properties, edges both ways, degrees, counts), on an empty store and on one that already
//! has data (merges, edges to old nodes, revived deleted nodes), on both engines.

// Tests: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_core::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
enum Row {
    Node(NodeKey, Vec<&'static str>, Props),
    Edge(NodeKey, &'static str, NodeKey, Option<f64>, Props),
}

const TYPES: [(&str, EdgeTypeOptions); 4] = [
    (
        "R",
        EdgeTypeOptions {
            undirected: false,
            multi: false,
        },
    ),
    (
        "U",
        EdgeTypeOptions {
            undirected: true,
            multi: false,
        },
    ),
    (
        "M",
        EdgeTypeOptions {
            undirected: false,
            multi: true,
        },
    ),
    (
        "UM",
        EdgeTypeOptions {
            undirected: true,
            multi: true,
        },
    ),
];

fn key(rng: &mut ChaCha8Rng, space: u32) -> NodeKey {
    let i = rng.random_range(0..space);
    if i % 3 == 0 {
        NodeKey::Int(i as i64 - 50)
    } else {
        NodeKey::Str(format!("n{i}"))
    }
}

fn props(rng: &mut ChaCha8Rng, i: usize) -> Props {
    let mut p = Props::new();
    if rng.random_bool(0.5) {
        p.insert("i".into(), Value::Int(i as i64));
    }
    if rng.random_bool(0.3) {
        p.insert(format!("s{}", rng.random_range(0..3)), Value::from(format!("v{i}")));
    }
    p
}

/// Node rows (unique keys from `0..space`) and then edge rows over `0..space + extra` (keys
/// beyond the node rows become implicit nodes), with repeats, self-loops and every type.
fn rows(seed: u64, space: u32, extra: u32, nodes: usize, edges: usize) -> Vec<Row> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for i in 0..nodes {
        let k = key(&mut rng, space);
        if !seen.insert(k.clone()) {
            continue;
        }
        let labels = match rng.random_range(0..4) {
            0 => vec![],
            1 => vec!["A"],
            2 => vec!["B", "A"],
            _ => vec!["C"],
        };
        let p = props(&mut rng, i);
        out.push(Row::Node(k, labels, p));
    }
    for i in 0..edges {
        let s = key(&mut rng, space + extra);
        let d = if rng.random_bool(0.05) {
            s.clone()
        } else {
            key(&mut rng, space + extra)
        };
        let ty = TYPES[rng.random_range(0..TYPES.len())].0;
        let w = rng.random_bool(0.6).then(|| f64::from(rng.random_range(1..20)) / 4.0);
        let p = props(&mut rng, i);
        out.push(Row::Edge(s, ty, d, w, p));
    }
    out
}

fn define_types(g: &Graph) {
    for (name, o) in TYPES {
        g.define_edge_type(name, o).unwrap();
    }
}

fn bulk_options() -> BulkOptions {
    BulkOptions {
        type_options: TYPES.iter().map(|(n, o)| (n.to_string(), *o)).collect(),
        ..BulkOptions::default()
    }
}

fn apply_api(g: &Graph, rows: &[Row]) {
    let mut tx = g.write().unwrap();
    for r in rows {
        match r {
            Row::Node(k, l, p) => tx.upsert_node(k.clone(), l, p.clone(), WriteMode::Merge).unwrap(),
            Row::Edge(s, t, d, w, p) if t.starts_with('M') || *t == "UM" => {
                tx.add_edge(s.clone(), t, d.clone(), *w, p.clone()).unwrap();
            }
            Row::Edge(s, t, d, w, p) => tx
                .upsert_edge(s.clone(), t, d.clone(), *w, p.clone(), WriteMode::Merge)
                .unwrap(),
        }
    }
    tx.commit().unwrap();
}

fn apply_bulk(g: &Graph, rows: &[Row]) -> BulkSummary {
    apply_bulk_with(g, rows, bulk_options())
}

fn apply_bulk_with(g: &Graph, rows: &[Row], opts: BulkOptions) -> BulkSummary {
    let mut load = g.bulk_load(opts).unwrap();
    for r in rows {
        match r {
            Row::Node(k, l, p) => load.add_node(k.clone(), l, p.clone()).unwrap(),
            Row::Edge(s, t, d, w, p) => load.add_edge(s.clone(), t, d.clone(), *w, p.clone()).unwrap(),
        }
    }
    assert_eq!(load.rows(), rows.len() as u64);
    load.finish().unwrap()
}

/// Everything observable about a graph, in a canonical order (edge ids left out: a bulk load
/// numbers parallel edges in its own order).
fn dump(g: &Graph) -> String {
    let mut nodes = BTreeMap::new();
    for n in g.scan_nodes() {
        let n = n.unwrap();
        let mut labels = n.labels.clone();
        labels.sort();
        let mut lines = vec![format!("labels {labels:?} props {:?}", n.props)];
        for dir in [Direction::Out, Direction::In] {
            let mut es: Vec<String> = g
                .edges(&n.key, dir, None, None)
                .unwrap()
                .into_iter()
                .map(|e| format!("{dir:?} {} {} {} {:?} {:?}", e.ty, e.src, e.dst, e.weight, e.props))
                .collect();
            es.sort();
            lines.extend(es);
        }
        for (ty, _) in TYPES {
            for dir in [Direction::Out, Direction::In, Direction::Both] {
                let d = g.degree(&n.key, dir, Some(ty)).unwrap();
                if d.count != 0 || d.weight_sum != 0.0 {
                    lines.push(format!("deg {ty} {dir:?} {} {}", d.count, d.weight_sum));
                }
            }
        }
        nodes.insert(n.key.to_string(), lines);
    }
    let s = g.stats().unwrap();
    let mut labels = s.labels.clone();
    labels.sort();
    let mut types: Vec<(String, u64)> = s.edge_types.iter().map(|(t, c)| (t.name.to_string(), *c)).collect();
    types.sort();
    format!(
        "nodes {} edges {} labels {labels:?} types {types:?}\n{nodes:#?}",
        s.nodes, s.edges
    )
}

fn stores() -> Vec<(Graph, Graph, Vec<tempfile::TempDir>)> {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    vec![
        (Graph::in_memory(), Graph::in_memory(), vec![]),
        (
            Graph::open(a.path().join("s")).unwrap(),
            Graph::open(b.path().join("s")).unwrap(),
            vec![a, b],
        ),
    ]
}

fn assert_same(bulk: &Graph, api: &Graph) {
    let report = bulk.check().unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    let (x, y) = (dump(bulk), dump(api));
    if x != y {
        let diff: Vec<(&str, &str)> = x.lines().zip(y.lines()).filter(|(a, b)| a != b).take(10).collect();
        panic!("bulk and API graphs differ: {diff:#?}");
    }
}

#[test]
fn bulk_load_into_an_empty_store_equals_upserts() {
    for seed in 0..4 {
        for (bulk, api, _dirs) in stores() {
            let rows = rows(seed, 300, 60, 250, 3_000);
            define_types(&api);
            apply_api(&api, &rows);
            let s = apply_bulk(&bulk, &rows);
            assert_eq!(s.nodes_merged, 0);
            assert_eq!(s.edges_replayed, 0);
            assert!(s.implicit_nodes > 0 && s.nodes_created > s.implicit_nodes);
            assert_same(&bulk, &api);
        }
    }
}

#[test]
fn bulk_load_merges_into_a_store_with_data() {
    for seed in 10..13 {
        for (bulk, api, _dirs) in stores() {
            let before = rows(seed, 200, 20, 120, 800);
            for g in [&bulk, &api] {
                define_types(g);
                apply_api(g, &before);
                // Deleted nodes keep their keys: the load must revive them.
                for k in [NodeKey::Str("n1".into()), NodeKey::Str("n2".into()), NodeKey::Int(-50)] {
                    let mut tx = g.write().unwrap();
                    tx.delete_node_if_exists(k).unwrap();
                    tx.commit().unwrap();
                }
            }
            let more = rows(seed + 100, 400, 40, 300, 3_000);
            apply_api(&api, &more);
            let s = apply_bulk(&bulk, &more);
            assert!(
                s.nodes_merged > 0 && s.edges_replayed > 0 && s.nodes_created > 0,
                "{s:?}"
            );
            assert_same(&bulk, &api);
        }
    }
}

#[test]
fn a_load_spilled_to_disk_in_many_runs_equals_upserts() {
    for seed in 20..23 {
        for (bulk, api, _dirs) in stores() {
            let before = rows(seed, 150, 20, 100, 500);
            for g in [&bulk, &api] {
                define_types(g);
                apply_api(g, &before);
            }
            let more = rows(seed + 100, 600, 80, 500, 6_000);
            apply_api(&api, &more);
            // 1 KiB of entries: a run every 64 entries, about 150 runs per direction.
            let opts = BulkOptions {
                memory_budget: 1024,
                ..bulk_options()
            };
            apply_bulk_with(&bulk, &more, opts);
            assert_same(&bulk, &api);
        }
    }
}

#[test]
fn a_bulk_load_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let rows = rows(7, 500, 50, 400, 5_000);
    let api = Graph::in_memory();
    define_types(&api);
    apply_api(&api, &rows);
    {
        let g = Graph::open(dir.path()).unwrap();
        apply_bulk(&g, &rows);
    }
    let g = Graph::open(dir.path()).unwrap();
    assert_same(&g, &api);
    // And the store goes on working: the id counters moved past the loaded nodes.
    let Some(Row::Node(loaded, ..)) = rows.first() else {
        unreachable!()
    };
    g.upsert_node("after", &["A"], Props::new(), WriteMode::Merge).unwrap();
    g.upsert_edge("after", "R", loaded.clone(), None, Props::new(), WriteMode::Merge)
        .unwrap();
    assert!(g.check().unwrap().problems.is_empty());
    assert_eq!(g.stats().unwrap().nodes, api.stats().unwrap().nodes + 1);
}

#[test]
fn bad_rows_leave_the_loader_usable_and_the_store_untouched() {
    for (g, _, _dirs) in stores() {
        g.upsert_node("old", &[], Props::new(), WriteMode::Merge).unwrap();
        let before = dump(&g);
        let mut load = g
            .bulk_load(BulkOptions {
                missing_endpoints: MissingEndpoints::Reject,
                ..BulkOptions::default()
            })
            .unwrap();
        load.add_node("a".into(), &["L"], Props::new()).unwrap();
        assert!(matches!(
            load.add_node("a".into(), &[], Props::new()),
            Err(Error::DuplicateNode { .. })
        ));
        assert!(matches!(
            load.add_edge("a".into(), "R", "nowhere".into(), None, Props::new()),
            Err(Error::NodeNotFound { .. })
        ));
        assert!(load
            .add_edge("a".into(), "R", "a".into(), Some(f64::NAN), Props::new())
            .is_err());
        load.add_edge("a".into(), "R", "old".into(), None, Props::new())
            .unwrap();
        drop(load); // abandoned: nothing happens
        assert_eq!(dump(&g), before);
        g.upsert_node("b", &[], Props::new(), WriteMode::Merge).unwrap();
    }
}

// ---- crashes: a killed load leaves the store exactly as before (or fully loaded) ----

const CHILD_DIR: &str = "HOPDB_BULK_CHILD_DIR";

fn crash_rows() -> Vec<Row> {
    rows(77, 40_000, 5_000, 30_000, 120_000)
}

fn prefill(g: &Graph) {
    define_types(g);
    apply_api(g, &rows(5, 2_000, 100, 1_500, 6_000));
}

/// A cheap but sharp fingerprint: counts per label and type, a full consistency check, and
/// the complete state of a fixed sample of keys.
fn fingerprint(g: &Graph) -> String {
    let report = g.check().unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    let s = g.stats().unwrap();
    let mut labels = s.labels.clone();
    labels.sort();
    let mut types: Vec<(String, u64)> = s.edge_types.iter().map(|(t, c)| (t.name.to_string(), *c)).collect();
    types.sort();
    let mut out = format!("nodes {} edges {} {labels:?} {types:?}\n", s.nodes, s.edges);
    for i in (0..45_000).step_by(397) {
        for k in [NodeKey::Str(format!("n{i}")), NodeKey::Int(i as i64 - 50)] {
            match g.node(&k).unwrap() {
                None => out.push_str(&format!("{k} absent\n")),
                Some(n) => {
                    let d = g.degree(&k, Direction::Both, None).unwrap();
                    out.push_str(&format!(
                        "{k} {:?} {:?} {} {}\n",
                        n.labels, n.props, d.count, d.weight_sum
                    ));
                }
            }
        }
    }
    out
}

/// Not a test on its own: the child process of the crash tests (does nothing unless started
/// by them). Bulk-loads `crash_rows` into the store named by the environment.
#[test]
fn bulk_crash_child() {
    let Some(dir) = std::env::var_os(CHILD_DIR) else { return };
    let g = Graph::open(dir).unwrap();
    apply_bulk(&g, &crash_rows());
    println!("LOADED");
}

fn child(dir: &std::path::Path, crash_at: Option<&str>) -> std::process::Child {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "bulk_crash_child", "--nocapture", "--test-threads=1"])
        .env(CHILD_DIR, dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    if let Some(p) = crash_at {
        cmd.env("HOPDB_TEST_CRASH_AT", p);
    }
    cmd.spawn().unwrap()
}

fn loaded(c: std::process::Child) -> bool {
    let out = c.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout).contains("LOADED")
}

#[test]
fn a_crash_at_any_step_of_the_commit_rolls_the_load_back() {
    let root = tempfile::tempdir().unwrap();
    let before = {
        let g = Graph::open(root.path().join("ref")).unwrap();
        prefill(&g);
        fingerprint(&g)
    };
    let after = {
        let g = Graph::open(root.path().join("full")).unwrap();
        prefill(&g);
        drop(g);
        assert!(loaded(child(&root.path().join("full"), None)));
        fingerprint(&Graph::open(root.path().join("full")).unwrap())
    };
    assert_ne!(before, after);
    for (i, point) in [
        "after-checkpoint",
        "after-header-commit",
        "mid-ingest",
        "after-ingest",
        "after-replay",
    ]
    .into_iter()
    .enumerate()
    {
        let dir = root.path().join(format!("s{i}"));
        prefill(&Graph::open(&dir).unwrap());
        assert!(!loaded(child(&dir, Some(point))), "{point}: the child should have died");
        assert!(
            dir.join("hopdb-rollback").is_dir(),
            "{point}: no rollback checkpoint left"
        );
        if point == "after-ingest" {
            // A crash during the rollback itself: the next open finishes it.
            let opener = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", "bulk_crash_child", "--test-threads=1"])
                .env(CHILD_DIR, &dir)
                .env("HOPDB_TEST_CRASH_AT", "mid-rollback")
                .status()
                .unwrap();
            assert!(!opener.success(), "the rollback should have been interrupted");
        }
        let g = Graph::open(&dir).unwrap();
        assert_eq!(fingerprint(&g), before, "{point}: the store is not as before the load");
        assert!(!dir.join("hopdb-rollback").exists());
        // And it takes the same load again, completely.
        drop(g);
        assert!(loaded(child(&dir, None)));
        assert_eq!(fingerprint(&Graph::open(&dir).unwrap()), after, "{point}: reload");
    }
}

#[test]
fn a_load_killed_at_random_times_is_all_or_nothing() {
    let root = tempfile::tempdir().unwrap();
    let full = root.path().join("full");
    prefill(&Graph::open(&full).unwrap());
    let before = fingerprint(&Graph::open(&full).unwrap());
    let started = std::time::Instant::now();
    assert!(loaded(child(&full, None)));
    let span = started.elapsed();
    let after = fingerprint(&Graph::open(&full).unwrap());
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let (mut rolled_back, mut completed) = (0, 0);
    for i in 0..12 {
        let dir = root.path().join(format!("k{i}"));
        prefill(&Graph::open(&dir).unwrap());
        let mut c = child(&dir, None);
        std::thread::sleep(span.mul_f64(rng.random_range(0.2..1.1)));
        let _ = c.kill(); // SIGKILL
        let done = loaded(c);
        let now = fingerprint(&Graph::open(&dir).unwrap());
        if now == before {
            rolled_back += 1;
            assert!(!done);
        } else {
            assert_eq!(now, after, "kill {i}: a half-loaded store");
            completed += 1;
        }
    }
    eprintln!("random kills: {rolled_back} rolled back, {completed} completed");
    assert!(rolled_back > 0);
}
