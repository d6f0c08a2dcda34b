//! The projection reads build on their own (decision 0034), on real graphs: a read on the
//! store starts it in the background when its estimated build fits the budget, later reads
//! run on it and answer as the store does, and a graph over the budget is left on the store.
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::time::{Duration, Instant};

use hopdb_algo::Control;
use hopdb_analytics::{estimated_build_bytes, Analytics, KHop, ProjectionSpec, Used, Via};
use hopdb_core::{Direction, Graph, GraphRead, NodeKey, WriteMode};
use hopdb_import::{import, EdgeList, ImportSpec, NoProgress};
use hopdb_testdata::datasets;

/// The dataset file loaded into a new in-memory store, or `None` (skipped) without datasets.
fn load(file: &str, undirected: bool) -> Option<Graph> {
    let path = datasets()?.join(file);
    let g = Graph::in_memory();
    let spec = ImportSpec {
        edge_lists: vec![EdgeList {
            undirected,
            ..EdgeList::new(&path)
        }],
        ..ImportSpec::default()
    };
    import(&g, &spec, &NoProgress).unwrap();
    Some(g)
}

fn estimate(g: &Graph) -> u64 {
    estimated_build_bytes(&g.read()).unwrap()
}

/// Waits for the background build a read started; fails if it ends with no projection (a
/// build over its memory bound gives up).
fn wait_for_projection(an: &Analytics) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while an.is_building_in_background() {
        assert!(Instant::now() < deadline, "the background build still runs after 120 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        an.cached_projection(&ProjectionSpec::all()).is_some(),
        "no projection came of the background build"
    );
}

/// Some nodes of the graph, spread over its id range.
fn starts(g: &Graph, n: usize) -> Vec<NodeKey> {
    let mut keys = Vec::new();
    g.read()
        .for_each_node(None, &mut |node| {
            keys.push(node.key);
            true
        })
        .unwrap();
    keys.iter().step_by((keys.len() / n).max(1)).take(n).cloned().collect()
}

fn as_set(v: Vec<NodeKey>) -> HashSet<NodeKey> {
    v.into_iter().collect()
}

fn unasked_build_serves_later_reads(file: &str, undirected: bool) {
    let Some(g) = load(file, undirected) else { return };
    let budget = estimate(&g);
    let an = Analytics::new(g.clone()).with_auto_projection(budget);
    let seeds = starts(&g, 12);
    let q = KHop::within(3).dir(Direction::Both);
    let first = an.k_hop(&seeds[0], &q, &Control::default()).unwrap();
    assert_eq!(
        first.used,
        Used::Store,
        "{file}: nothing was built before the first read"
    );
    wait_for_projection(&an);
    let p = an.cached_projection(&ProjectionSpec::all()).unwrap();
    // The estimate bounds the build's own peak accounting, within twice what it holds after.
    let held = p.info().bytes as u64;
    assert!(
        held <= budget && budget <= 2 * held + (1 << 20),
        "{file}: estimate {budget}, held {held}"
    );
    for s in &seeds {
        for dir in [Direction::Out, Direction::In, Direction::Both] {
            let q = KHop::within(3).dir(dir);
            let auto = an.k_hop(s, &q, &Control::default()).unwrap();
            assert!(matches!(auto.used, Used::Projection { .. }), "{file}: {:?}", auto.used);
            let store = an.k_hop(s, &q.clone().via(Via::Store), &Control::default()).unwrap();
            assert_eq!(as_set(auto.value), as_set(store.value), "{file}: {s} {dir:?}");
        }
    }
    // A write leaves it behind: the overlay follows the change log, answers follow the store.
    let (a, b) = (&seeds[1], &seeds[2]);
    g.upsert_edge(
        a.clone(),
        "ADDED",
        b.clone(),
        None,
        Default::default(),
        WriteMode::Merge,
    )
    .unwrap();
    let one = KHop::within(1).dir(Direction::Out);
    let after = an.k_hop(a, &one, &Control::default()).unwrap();
    assert!(matches!(after.used, Used::Overlay { .. }), "{file}: {:?}", after.used);
    assert!(after.value.contains(b), "{file}: the new edge {a} -> {b}");
}

#[test]
fn reads_build_the_projection_unasked_on_email_eu_core() {
    unasked_build_serves_later_reads("snap-email-Eu-core/email-Eu-core.txt.gz", false);
}

#[test]
fn reads_build_the_projection_unasked_on_ca_hepph_undirected() {
    unasked_build_serves_later_reads("snap-ca-HepPh/CA-HepPh.txt.gz", true);
}

#[test]
fn a_graph_over_the_budget_stays_on_the_store() {
    let Some(g) = load("snap-email-Eu-core/email-Eu-core.txt.gz", false) else {
        return;
    };
    let start = starts(&g, 1).remove(0);
    for budget in [0, estimate(&g) - 1] {
        let an = Analytics::new(g.clone()).with_auto_projection(budget);
        for _ in 0..3 {
            let r = an.k_hop(&start, &KHop::within(2), &Control::default()).unwrap();
            assert_eq!(r.used, Used::Store);
            assert!(!an.is_building_in_background(), "budget {budget}: a build started");
            assert!(an.cached_projection(&ProjectionSpec::all()).is_none());
        }
        // Asked for, it is built whatever the budget.
        an.projection(&ProjectionSpec::all(), &Control::default()).unwrap();
    }
}

#[test]
fn a_query_engine_asking_for_a_fresh_projection_starts_one() {
    let Some(g) = load("snap-email-Eu-core/email-Eu-core.txt.gz", false) else {
        return;
    };
    let an = Analytics::new(g.clone()).with_auto_projection(u64::MAX);
    assert!(an.fresh_projection(&g.read()).is_none());
    wait_for_projection(&an);
    let txn = g.read();
    let p = an.fresh_projection(&txn).expect("fresh after the build");
    assert_eq!(u64::from(p.node_count()), txn.node_count().unwrap());
}

/// Edge tests answered by a fresh projection (sorted rows on a directed graph of one type;
/// short rows only on an undirected one) agree with the store's, and a write sends them back
/// to the store until the projection is rebuilt.
fn edge_tests_answer_as_the_store(file: &str, undirected: bool) {
    let Some(g) = load(file, undirected) else { return };
    let an = Analytics::new(g.clone());
    let keys = starts(&g, 400);
    assert!(
        an.has_edge_now(&keys[0], &keys[1], false).is_none(),
        "no projection yet"
    );
    an.projection(&ProjectionSpec::all(), &Control::default()).unwrap();
    let txn = g.read();
    let (mut answered, mut found) = (0, 0);
    // Every pair of the sample (mostly absent), and every real edge of its first nodes.
    let mut pairs: Vec<(NodeKey, NodeKey)> = keys
        .iter()
        .zip(keys.iter().rev())
        .map(|(a, b)| (a.clone(), b.clone()))
        .collect();
    for k in &keys[..40] {
        for n in txn.neighbors(k, Direction::Both, None, None).unwrap() {
            pairs.push((k.clone(), n));
        }
    }
    for (a, b) in &pairs {
        for either in [false, true] {
            let store = txn.has_edge(a, b, None, either).unwrap();
            if let Some(p) = an.has_edge_now(a, b, either) {
                assert_eq!(p, store, "{file}: {a} -> {b}, either {either}");
                answered += 1;
                found += usize::from(p);
            }
        }
    }
    // Two tests a pair: more than half of them answered without the store.
    assert!(
        answered > pairs.len(),
        "{file}: the projection answered {answered} of {}",
        pairs.len() * 2
    );
    assert!(found > 0, "{file}: no edge found");
    g.upsert_edge(
        keys[0].clone(),
        "ADDED",
        keys[1].clone(),
        None,
        Default::default(),
        WriteMode::Merge,
    )
    .unwrap();
    assert!(
        an.has_edge_now(&keys[0], &keys[1], false).is_none(),
        "{file}: stale projection answered"
    );
}

#[test]
fn edge_tests_from_the_projection_on_email_eu_core() {
    edge_tests_answer_as_the_store("snap-email-Eu-core/email-Eu-core.txt.gz", false);
}

#[test]
fn edge_tests_from_the_projection_on_ca_hepph_undirected() {
    edge_tests_answer_as_the_store("snap-ca-HepPh/CA-HepPh.txt.gz", true);
}
