//! Damaged records are reported as corruption (`ErrorKind::Corruption`), naming what failed to
//! decode, never as a generic storage error and never as wrong data.

// Tests: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_core::*;
use std::path::Path;

/// Overwrites one raw record of a closed store, bypassing HopDB (as a bad disk or a stray
/// writer would).
fn overwrite(store: &Path, cf: &str, key: &[u8], value: &[u8]) {
    let cfs = rocksdb::DB::list_cf(&rocksdb::Options::default(), store).unwrap();
    let db = rocksdb::DB::open_cf(&rocksdb::Options::default(), store, cfs).unwrap();
    db.put_cf(db.cf_handle(cf).unwrap(), key, value).unwrap();
}

fn store_with_one_node() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let g = Graph::open(tmp.path()).unwrap();
    g.upsert_node("a", &["Person"], props([("age", Value::Int(42))]), WriteMode::Merge)
        .unwrap();
    let id = g.read().node_id(&"a".into()).unwrap().expect("a has an id");
    assert_eq!(id, 1, "the first node's id (the key below is its record's)");
    tmp
}

#[test]
fn a_node_record_that_does_not_decode_is_corruption() {
    let tmp = store_with_one_node();
    // Node records are keyed by the id, 8 bytes big-endian, and start with the node key, length
    // prefixed (docs/format.md): this prefix says 127 bytes follow, and none do.
    overwrite(tmp.path(), "nodes", &1u64.to_be_bytes(), &[0xff, 0x00]);
    let g = Graph::open(tmp.path()).unwrap();
    let err = g.node(&"a".into()).expect_err("a damaged record must not read as data");
    assert_eq!(err.kind(), ErrorKind::Corruption, "{err}");
    assert!(matches!(err.root(), Error::MalformedRecord { .. }), "{err:?}");
    assert!(err.to_string().contains("corruption"), "{err}");
    // The check finds it too.
    assert!(!g.check().unwrap().is_ok());
}

#[test]
fn a_degree_counter_that_does_not_decode_is_corruption() {
    let tmp = store_with_one_node();
    overwrite(tmp.path(), "deg", &1u64.to_be_bytes(), &[0xde, 0xad]);
    let g = Graph::open(tmp.path()).unwrap();
    let err = g
        .degree(&"a".into(), Direction::Both, None)
        .expect_err("a damaged counter must not read as a degree");
    assert_eq!(err.kind(), ErrorKind::Corruption, "{err}");
}

#[test]
fn error_kinds_classify_the_store_errors() {
    let g = Graph::in_memory();
    g.upsert_edge("a", "R", "b", None, Props::new(), WriteMode::Merge)
        .unwrap();
    let missing = g.delete_edge("a", "R", "zzz").err();
    assert_eq!(missing.map(|e| e.kind()), Some(ErrorKind::NotFound));
    let invalid = g.upsert_node("", &[], Props::new(), WriteMode::Merge).err();
    assert_eq!(invalid.map(|e| e.kind()), Some(ErrorKind::InvalidArgument));
    let tmp = tempfile::tempdir().unwrap();
    let _writer = Graph::open(tmp.path()).unwrap();
    assert_eq!(Graph::open(tmp.path()).err().map(|e| e.kind()), Some(ErrorKind::Locked));
    assert_eq!(ErrorKind::Corruption.to_string(), "corruption");
}
