//! Connected components against igraph (NotreDame, road-NY: deep DFS) and triangle counts
//! against NetworkX (MIT8, email-Eu-core) and igraph (NotreDame).
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod algo_support;
mod common;

use algo_support::*;
use common::{datasets, reference, Loaded};
use hopdb_algo::components::weakly_connected_components_lp;
use hopdb_algo::{strongly_connected_components, triangles, weakly_connected_components, AlgoError, Control};

/// Compares WCC and SCC partitions with igraph; returns (weak count, strong count).
fn check_components(g: &Loaded, name: &str) -> (u32, u32) {
    let out = g.csr();
    let tsv = TempFile::tsv(g, &format!("cc-{name}.tsv"));
    let reply = reference("ig_components.py", &["components", tsv.arg()]);
    let c = Control::unbounded();
    let weak = weakly_connected_components(&out, &c).unwrap();
    let strong = strongly_connected_components(&out, &c).unwrap();
    let (ig_weak, ig_strong) = (u64s(&reply["weak"]), u64s(&reply["strong"]));
    assert_same_partition(&weak.component, &ig_weak, &format!("{name} WCC"));
    assert_same_partition(&strong.component, &ig_strong, &format!("{name} SCC"));
    assert_eq!(weak.count as u64, ig_weak.iter().max().map_or(0, |m| m + 1));
    assert_eq!(strong.count as u64, ig_strong.iter().max().map_or(0, |m| m + 1));
    assert_eq!(
        weakly_connected_components_lp(&out, &c).unwrap(),
        weak,
        "{name}: label propagation disagrees"
    );
    // Numbered by smallest node: node 0 is in component 0 and ids appear in increasing order.
    let mut next = 0;
    for &id in &strong.component {
        assert!(id <= next);
        next = next.max(id + 1);
    }
    (weak.count, strong.count)
}

#[test]
fn components_match_igraph_on_notredame() {
    let Some(dir) = datasets() else { return };
    let (weak, strong) = check_components(&notredame(&dir), "notredame");
    assert!(
        strong > weak * 10,
        "NotreDame has many more SCCs ({strong}) than WCCs ({weak})"
    );
}

#[test]
fn components_match_igraph_on_road_ny_without_recursion() {
    let Some(dir) = datasets() else { return };
    let g = road_ny(&dir);
    let (weak, strong) = check_components(&g, "road-ny");
    assert!(weak >= 1 && strong >= weak);
    // Deep DFS on a road graph runs on a small thread stack: nothing is recursive.
    let out = g.csr();
    let small = std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(move || strongly_connected_components(&out, &Control::unbounded()).map(|c| c.count))
        .unwrap()
        .join()
        .unwrap();
    assert!(small.unwrap() > 0);
}

#[test]
fn component_errors() {
    let Some(dir) = datasets() else { return };
    let out = notredame(&dir).csr();
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let cancelled = Control::unbounded().with_cancel(flag);
    assert_eq!(
        strongly_connected_components(&out, &cancelled),
        Err(AlgoError::Cancelled)
    );
    let tight = Control::unbounded().with_max_memory(1 << 16);
    assert!(matches!(
        weakly_connected_components(&out, &tight),
        Err(AlgoError::MemoryLimit { .. })
    ));
}

#[test]
fn triangles_match_networkx_and_igraph() {
    let Some(dir) = datasets() else { return };
    let c = Control::unbounded();
    for (g, name) in [(mit8(&dir), "mit8"), (eu_core(&dir), "eu-core")] {
        let tsv = TempFile::tsv(&g, &format!("tri-{name}.tsv"));
        let want = u64s(&reference("nx_triangles.py", &[tsv.arg()]));
        let got = triangles(&g.csr(), &c).unwrap();
        assert_eq!(got.per_node, want, "{name} per-node triangles");
        assert_eq!(got.total, want.iter().sum::<u64>() / 3, "{name} total");
        assert!(got.total > 0);
    }
    let g = notredame(&dir);
    let tsv = TempFile::tsv(&g, "tri-notredame.tsv");
    let want = u64s(&reference("ig_components.py", &["triangles", tsv.arg()]));
    let got = triangles(&g.csr(), &c).unwrap();
    assert_eq!(got.per_node, want, "NotreDame per-node triangles");
    assert_eq!(got.total * 3, want.iter().sum::<u64>());
    // Direction does not matter: the transpose has the same triangles.
    assert_eq!(triangles(&g.csr().transpose(), &c).unwrap(), got);
}
