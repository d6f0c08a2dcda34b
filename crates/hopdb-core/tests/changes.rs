//! The store version and the change log: what a commit records, in order, and when the log
//! cannot answer (tracking off, trimmed, a bulk load in the range).

// Tests: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_core::{
    ChangesUnavailable, EdgeTypeOptions, Graph, GraphChange, GraphRead, NodeKey, Props, Value, WriteMode,
};

fn edge(g: &Graph, a: &str, ty: &str, b: &str) {
    g.upsert_edge(a, ty, b, None, Default::default(), WriteMode::Merge)
        .unwrap();
}

#[test]
fn versions_move_with_commits_and_snapshots_are_exact_when_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path()).unwrap();
    let v0 = g.version();
    edge(&g, "a", "R", "b");
    assert_eq!(g.version(), v0 + 1);
    // An update that changes nothing structural is still a commit.
    g.upsert_edge("a", "R", "b", Some(2.0), Default::default(), WriteMode::Merge)
        .unwrap();
    assert_eq!(g.version(), v0 + 2);
    let r = g.read();
    assert_eq!(r.version(), v0 + 2);
    assert!(r.is_exact());
    // A failed commit leaves the version, and later snapshots stay exact.
    g.inject_commit_failures(1);
    assert!(g.upsert_node("x", &[], Default::default(), WriteMode::Merge).is_err());
    assert_eq!(g.version(), v0 + 2);
    assert!(g.read().is_exact());
}

#[test]
fn the_log_records_structural_changes_in_order() {
    let g = Graph::in_memory();
    assert_eq!(g.changes_between(0, 1).unwrap_err(), ChangesUnavailable::NotTracked);
    edge(&g, "before", "R", "tracking");
    g.track_changes(100);
    let v0 = g.version();
    assert_eq!(g.changes_between(0, v0).unwrap_err(), ChangesUnavailable::Trimmed);
    g.define_edge_type(
        "U",
        EdgeTypeOptions {
            undirected: true,
            ..Default::default()
        },
    )
    .unwrap();
    edge(&g, "a", "R", "b");
    g.upsert_edge("a", "R", "b", Some(3.0), Default::default(), WriteMode::Merge)
        .unwrap();
    edge(&g, "b", "U", "c");
    g.delete_node("b").unwrap();
    let sets = g.changes_between(v0, g.version()).unwrap();
    let r = g.read();
    let id = |k: &str| r.mapped_id(&NodeKey::from(k)).unwrap().unwrap();
    let (a, b, c) = (id("a"), id("b"), id("c"));
    let all: Vec<&GraphChange> = sets.iter().flat_map(|s| s.changes.as_ref().unwrap()).collect();
    let versions: Vec<u64> = sets.iter().map(|s| s.version).collect();
    assert!(versions.windows(2).all(|w| w[0] < w[1]), "{versions:?}");
    let ty = |name: &str| r.edge_type_ids().into_iter().find(|t| t.1 == name).unwrap().0;
    let (tr, tu) = (ty("R"), ty("U"));
    let added = |src, dst, ty, undirected| GraphChange::EdgeAdded {
        src,
        dst,
        ty,
        undirected,
    };
    let removed = |src, dst, ty, undirected| GraphChange::EdgeRemoved {
        src,
        dst,
        ty,
        undirected,
    };
    let node = |id, k: &str| GraphChange::NodeAdded { id, key: k.into() };
    let mut want = vec![
        node(a, "a"),
        node(b, "b"),
        added(a, b, tr, false),
        // the weight update: no structural change
        node(c, "c"),
        added(b, c, tu, true),
    ];
    let tail: Vec<&GraphChange> = all[want.len()..].to_vec();
    assert_eq!(all[..want.len()].iter().map(|c| (*c).clone()).collect::<Vec<_>>(), want);
    // Deleting b removes both its edges (in either order) and then b itself.
    assert_eq!(tail.len(), 3);
    assert_eq!(tail[2], &GraphChange::NodeRemoved { id: b });
    let mut gone = vec![tail[0].clone(), tail[1].clone()];
    gone.sort_by_key(|c| format!("{c:?}"));
    want = vec![removed(a, b, tr, false), removed(b, c, tu, true)];
    want.sort_by_key(|c| format!("{c:?}"));
    assert_eq!(gone, want);
    assert!(!g.has_node(&"b".into()).unwrap());
}

#[test]
fn bulk_loads_and_trimming_make_the_log_unavailable() {
    let g = Graph::in_memory();
    g.track_changes(4);
    let v0 = g.version();
    edge(&g, "a", "R", "b"); // 3 changes, and the commit's own entry
    let v1 = g.version();
    assert_eq!(g.changes_between(v0, v1).unwrap().len(), 1);
    edge(&g, "c", "R", "d"); // 4 more: the first commit no longer fits
    assert_eq!(
        g.changes_between(v0, g.version()).unwrap_err(),
        ChangesUnavailable::Trimmed
    );
    assert_eq!(g.changes_between(v1, g.version()).unwrap().len(), 1);

    let g = Graph::in_memory();
    g.track_changes(1000);
    edge(&g, "a", "R", "b");
    let before = g.version();
    let mut bl = g.bulk_load(Default::default()).unwrap();
    bl.add_edge("x".into(), "R", "y".into(), None, Default::default())
        .unwrap();
    bl.finish().unwrap();
    assert!(g.version() > before);
    assert!(matches!(
        g.changes_between(before, g.version()),
        Err(ChangesUnavailable::Unrecorded { .. })
    ));
    edge(&g, "y", "R", "z");
    let after = g.version();
    assert_eq!(g.changes_between(after - 1, after).unwrap().len(), 1);
}

/// A commit with no structural change (a property update) still takes an entry in the log,
/// and the log's bound counts it: a stream of them is trimmed like any other, instead of
/// growing the log for as long as the process runs.
#[test]
fn commits_without_structural_changes_are_trimmed_too() {
    let g = Graph::in_memory();
    g.track_changes(10);
    edge(&g, "a", "R", "b");
    let v0 = g.version();
    for i in 0..1000 {
        let mut p = Props::new();
        p.insert("n".into(), Value::Int(i));
        g.upsert_node("a", &[], p, WriteMode::Merge).unwrap();
    }
    let v = g.version();
    assert_eq!(v - v0, 1000);
    assert_eq!(g.changes_between(v0, v).unwrap_err(), ChangesUnavailable::Trimmed);
    let recent = g.changes_between(v - 5, v).unwrap();
    assert_eq!(recent.len(), 5);
    assert!(recent.iter().all(|s| s.changes.as_deref() == Some(&[][..])));
}
