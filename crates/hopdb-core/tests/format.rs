//! The on-disk format: a store written by format 1 still opens, and directories that are not
//! (usable) HopDB stores are refused with a clear, typed error.

// Tests: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_core::*;
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()))
        .join("tests/fixtures/format-v1")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// The content of the fixture; `write_format_v1_fixture` wrote exactly this.
fn fill(g: &Graph) {
    g.define_edge_type(
        "FRIEND",
        EdgeTypeOptions {
            undirected: true,
            multi: false,
        },
    )
    .unwrap();
    g.define_edge_type(
        "ROUTE",
        EdgeTypeOptions {
            undirected: false,
            multi: true,
        },
    )
    .unwrap();
    g.upsert_node(
        "ada",
        &["Person"],
        props([
            ("born", Value::Int(1815)),
            ("tags", Value::List(vec![Value::from("math")])),
        ]),
        WriteMode::Merge,
    )
    .unwrap();
    g.upsert_node(
        42i64,
        &["Number"],
        props([("bytes", Value::Bytes(vec![1, 2, 3]))]),
        WriteMode::Merge,
    )
    .unwrap();
    g.upsert_edge(
        "ada",
        "KNOWS",
        "charles",
        Some(0.5),
        props([("since", Value::Int(1833))]),
        WriteMode::Merge,
    )
    .unwrap();
    g.upsert_edge("ada", "FRIEND", 42i64, None, Props::new(), WriteMode::Merge)
        .unwrap();
    let mut tx = g.write().unwrap();
    tx.add_edge("ada", "ROUTE", "charles", Some(1.0), Props::new()).unwrap();
    tx.add_edge("ada", "ROUTE", "charles", Some(2.0), Props::new()).unwrap();
    tx.commit().unwrap();
}

/// Regenerates the checked-in fixture (run by hand only when a new format is introduced:
/// `cargo test --release -p hopdb-core --test format -- --ignored write_format_v1_fixture`).
#[test]
#[ignore]
fn write_format_v1_fixture() {
    let dir = fixture();
    let _ = std::fs::remove_dir_all(&dir);
    {
        let g = Graph::open(&dir).unwrap();
        fill(&g);
        g.flush().unwrap();
        g.compact().unwrap();
    }
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("LOG") || name == "LOCK" {
            std::fs::remove_file(p).unwrap();
        }
    }
}

#[test]
fn a_format_v1_store_still_opens_with_its_data() {
    let src = fixture();
    assert!(src.join("CURRENT").exists(), "fixture missing at {}", src.display());
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&src, tmp.path());
    let g = Graph::open(tmp.path()).unwrap();
    let fresh = Graph::in_memory();
    fill(&fresh);
    assert_eq!(g.node_count().unwrap(), fresh.node_count().unwrap());
    assert_eq!(g.edge_count().unwrap(), fresh.edge_count().unwrap());
    for k in [NodeKey::from("ada"), NodeKey::Int(42), NodeKey::from("charles")] {
        assert_eq!(g.node(&k).unwrap(), fresh.node(&k).unwrap(), "{k}");
        let mut a = g.edges(&k, Direction::Both, None, None).unwrap();
        let mut b = fresh.edges(&k, Direction::Both, None, None).unwrap();
        let key = |e: &Edge| format!("{e:?}");
        a.sort_by_key(key);
        b.sort_by_key(key);
        assert_eq!(a, b, "{k}");
        assert_eq!(
            g.degree(&k, Direction::Both, None).unwrap(),
            fresh.degree(&k, Direction::Both, None).unwrap()
        );
    }
    assert!(g.check().unwrap().is_ok());
    // The writable open upgraded it in place.
    assert_eq!(g.stats().unwrap().format_version, FORMAT_VERSION);
    // And it keeps working: new writes on the old store. Its key entries carry no labels,
    // so a replace reads the record (and the entry then gains them).
    g.upsert_edge("charles", "KNOWS", "ada", None, Props::new(), WriteMode::Merge)
        .unwrap();
    g.upsert_node("ada", &["Person", "Author"], Props::new(), WriteMode::Replace)
        .unwrap();
    g.upsert_node(42i64, &[], Props::new(), WriteMode::Replace).unwrap();
    let counts = |g: &Graph| {
        let s = g.stats().unwrap();
        (s.nodes, s.labels)
    };
    let (nodes, labels) = counts(&g);
    assert_eq!(nodes, 3);
    assert_eq!(labels, vec![("Author".to_string(), 1), ("Person".to_string(), 1)]);
    assert_eq!(
        g.node(&NodeKey::from("ada")).unwrap().unwrap().labels,
        ["Person", "Author"]
    );
    assert!(g.check().unwrap().is_ok());
    drop(g);
    // Reopened: the labels now come from the key entries, and agree.
    let g = Graph::open(tmp.path()).unwrap();
    g.upsert_node("ada", &["Person"], Props::new(), WriteMode::Replace)
        .unwrap();
    assert_eq!(counts(&g).1, vec![("Person".to_string(), 1)]);
    assert!(g.check().unwrap().is_ok());
}

#[test]
fn a_format_v1_store_opened_read_only_is_read_as_it_is() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), tmp.path());
    let cfg = Config {
        access: AccessMode::Secondary,
        ..Config::default()
    };
    let g = Graph::open_with(tmp.path(), cfg).unwrap();
    assert_eq!(g.stats().unwrap().format_version, 1, "a reader does not upgrade");
    assert_eq!(g.node_count().unwrap(), 3);
    assert!(g.check().unwrap().is_ok());
}

fn all_cf_names(store: &Path) -> Vec<String> {
    rocksdb::DB::list_cf(&rocksdb::Options::default(), store).unwrap()
}

#[test]
fn a_newer_format_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    drop(Graph::open(tmp.path()).unwrap());
    {
        let db = rocksdb::DB::open_cf(&rocksdb::Options::default(), tmp.path(), all_cf_names(tmp.path())).unwrap();
        let meta = db.cf_handle("meta").unwrap();
        db.put_cf(meta, b"format_version", (FORMAT_VERSION + 1).to_le_bytes())
            .unwrap();
    }
    match Graph::open(tmp.path()) {
        Err(e @ Error::UnsupportedFormat { found, supported, .. }) => {
            assert_eq!((found, supported), (FORMAT_VERSION + 1, FORMAT_VERSION));
            assert!(e.to_string().contains("newer HopDB"), "{e}")
        }
        other => panic!("expected UnsupportedFormat, got {:?}", other.err()),
    }
}

#[test]
fn directories_that_are_not_stores_are_refused_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("notes.txt"), b"hello").unwrap();
    assert!(matches!(Graph::open(tmp.path()), Err(Error::NotAStore { .. })));
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1, "nothing was written");
    let file = tmp.path().join("notes.txt");
    assert!(matches!(Graph::open(&file), Err(Error::NotAStore { .. })));
    // A RocksDB database that is not HopDB's.
    let other = tmp.path().join("other");
    {
        let mut o = rocksdb::Options::default();
        o.create_if_missing(true);
        rocksdb::DB::open(&o, &other).unwrap().put(b"k", b"v").unwrap();
    }
    let e = Graph::open(&other).err().expect("must refuse");
    assert!(
        matches!(e, Error::NotAStore { .. }) && e.to_string().contains("column families"),
        "{e}"
    );
    // Nothing there for a read-only open.
    let missing = tmp.path().join("missing");
    let cfg = Config {
        access: AccessMode::Secondary,
        ..Config::default()
    };
    assert!(matches!(Graph::open_with(&missing, cfg), Err(Error::NotAStore { .. })));
    assert!(!missing.exists());
}

#[test]
fn a_second_writer_gets_a_clear_error_and_readers_still_open() {
    let tmp = tempfile::tempdir().unwrap();
    let g = Graph::open(tmp.path()).unwrap();
    g.upsert_edge("a", "R", "b", None, Props::new(), WriteMode::Merge)
        .unwrap();
    let e = Graph::open(tmp.path()).err().expect("second writer must fail");
    assert!(matches!(e, Error::StoreLocked { .. }), "{e}");
    assert!(e.to_string().contains("already open for writing"), "{e}");
    let reader = Graph::open_with(
        tmp.path(),
        Config {
            access: AccessMode::Secondary,
            ..Config::default()
        },
    )
    .unwrap();
    assert_eq!(reader.edge_count().unwrap(), 1);
    assert!(matches!(
        reader.upsert_node("x", &[], Props::new(), WriteMode::Merge),
        Err(Error::ReadOnly { .. })
    ));
    g.upsert_edge("b", "R", "c", None, Props::new(), WriteMode::Merge)
        .unwrap();
    assert_eq!(
        reader.edge_count().unwrap(),
        1,
        "a secondary sees the state as of its open"
    );
    g.flush().unwrap();
    g.upsert_edge("c", "R", "d", None, Props::new(), WriteMode::Merge)
        .unwrap();
    // A new secondary sees everything committed: flushed tables plus the writer's WAL tail.
    let reader2 = Graph::open_with(
        tmp.path(),
        Config {
            access: AccessMode::Secondary,
            ..Config::default()
        },
    )
    .unwrap();
    assert_eq!(reader2.edge_count().unwrap(), 3);
    assert_eq!(reader2.degree(&"c".into(), Direction::Both, None).unwrap().count, 2);
    assert!(reader2.check().unwrap().is_ok());
    drop(g);
    assert!(Graph::open(tmp.path()).is_ok(), "the lock goes with the writer");
}

#[test]
fn a_corrupted_table_file_is_reported_as_corruption() {
    let tmp = tempfile::tempdir().unwrap();
    {
        let g = Graph::open(tmp.path()).unwrap();
        let nodes: Vec<NodeInput> = (0..5000i64)
            .map(|i| NodeInput::new(i).props(props([("v", Value::from("x".repeat(50)))])))
            .collect();
        g.upsert_nodes(&nodes, WriteMode::Merge).unwrap();
        g.flush().unwrap();
        g.compact().unwrap();
    }
    // Overwrite the middle of every table file (data blocks) with garbage.
    for e in std::fs::read_dir(tmp.path()).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "sst") {
            let mut b = std::fs::read(&p).unwrap();
            if b.len() > 4096 {
                let mid = b.len() / 3;
                b[mid..mid + 512].fill(0xAB);
                std::fs::write(&p, b).unwrap();
            }
        }
    }
    let result = Graph::open(tmp.path()).and_then(|g| {
        for i in 0..5000i64 {
            g.node(&NodeKey::Int(i))?;
        }
        g.check().map(|_| ())
    });
    match result {
        Err(e @ Error::Corruption { .. }) => assert!(e.to_string().contains("corruption"), "{e}"),
        other => panic!("expected a Corruption error, got {other:?}"),
    }
}

#[test]
fn a_checkpoint_is_a_consistent_openable_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let g = Graph::open(tmp.path().join("live")).unwrap();
    let edges: Vec<EdgeInput> = (0..2000i64)
        .map(|i| EdgeInput::new(i, "R", (i * 7) % 2000).weight(1.5))
        .collect();
    g.upsert_edges(&edges, WriteMode::Merge).unwrap();
    let copy = tmp.path().join("copy");
    g.checkpoint(&copy).unwrap();
    // Writes after the checkpoint do not reach the copy.
    g.delete_node(5i64).unwrap();
    g.upsert_edge("late", "R", 1i64, None, Props::new(), WriteMode::Merge)
        .unwrap();
    let c = Graph::open(&copy).unwrap();
    assert_eq!(c.edge_count().unwrap(), 2000);
    assert!(c.has_node(&NodeKey::Int(5)).unwrap());
    assert!(!c.has_node(&"late".into()).unwrap());
    assert_eq!(
        c.degree(&NodeKey::Int(7), Direction::Both, None).unwrap(),
        g.read().degree(&NodeKey::Int(7), Direction::Both, None).unwrap()
    );
    assert!(c.check().unwrap().is_ok());
    assert!(matches!(
        Graph::in_memory().checkpoint(tmp.path().join("mem")),
        Err(Error::Invalid { .. })
    ));
}
