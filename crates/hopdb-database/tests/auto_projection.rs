//! A `Database` builds the adjacency projection when reads want it (decision 0034), within
//! the store's configured budget, and a build never keeps a closed store open.
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_database::import::{import, EdgeList, ImportSpec, NoProgress};
use hopdb_database::{Config, Control, Database, Direction, ErrorKind, ProjectionSpec};
use hopdb_testdata::datasets;

#[test]
fn the_budget_comes_from_the_store_config() {
    let on = Database::in_memory();
    assert_eq!(
        on.analytics().auto_projection_budget(),
        Config::default().auto_projection_bytes
    );
    assert!(on.analytics().auto_projection_budget() > 0);
    let budget = Database::in_memory_with(Config::default().with_memory_budget(64 << 20));
    assert_eq!(budget.analytics().auto_projection_budget(), 64 << 20);
    let off = Database::in_memory_with(Config {
        auto_projection_bytes: 0,
        ..Config::default()
    });
    off.graph()
        .upsert_edge(
            "a",
            "R",
            "b",
            None,
            Default::default(),
            hopdb_database::WriteMode::Merge,
        )
        .unwrap();
    off.analytics()
        .neighbors(&"a".into(), Direction::Out, &None, None, &Control::default())
        .unwrap();
    assert!(!off.analytics().is_building_in_background());
    assert!(off.analytics().cached_projection(&ProjectionSpec::all()).is_none());
}

/// web-NotreDame (1.5M edges) on disk: a read starts a build of a few hundred milliseconds;
/// closing the database mid-build cancels it, and the store opens again at once.
#[test]
fn closing_mid_build_lets_the_store_open_again_at_once() {
    let Some(root) = datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Database::open(dir.path()).unwrap();
        let spec = ImportSpec {
            edge_lists: vec![EdgeList::new(root.join("snap-web-NotreDame/web-NotreDame.txt.gz"))],
            ..ImportSpec::default()
        };
        import(db.graph(), &spec, &NoProgress).unwrap();
    }
    for _ in 0..3 {
        let db = Database::open(dir.path()).unwrap();
        let an = db.analytics();
        an.neighbors(&0.into(), Direction::Out, &None, None, &Control::default())
            .unwrap();
        assert!(
            an.is_building_in_background() || an.cached_projection(&ProjectionSpec::all()).is_some(),
            "the read started no build"
        );
        drop(db);
        let again = Database::open(dir.path()).map(|_| ()).map_err(|e| e.kind());
        assert_ne!(again, Err(ErrorKind::Locked), "the build kept the closed store open");
        again.unwrap();
    }
}
