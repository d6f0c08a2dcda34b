//! Property indexes and uniqueness constraints (decision 0017): lookups, upkeep by every
//! write path, persistence, snapshots, bulk loads, `check`, and stores made before them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_core::*;
use std::path::Path;

fn stores() -> Vec<(&'static str, Graph, Option<tempfile::TempDir>)> {
    let dir = tempfile::tempdir().unwrap();
    let disk = Graph::open(dir.path()).unwrap();
    vec![("memory", Graph::in_memory(), None), ("rocksdb", disk, Some(dir))]
}

fn k(s: &str) -> NodeKey {
    NodeKey::from(s)
}

fn check_ok(g: &Graph) {
    let r = g.check().unwrap();
    assert!(r.is_ok(), "check failed: {:?}", r.problems);
}

fn person(g: &Graph, key: &str, name: Value) {
    g.upsert_node(key, &["Person"], props([("name", name)]), WriteMode::Merge)
        .unwrap();
}

fn by_name(r: &impl GraphRead, v: Value) -> Option<Vec<NodeKey>> {
    r.nodes_by_property("Person", "name", &v, None).unwrap()
}

fn keys(ks: &[&str]) -> Option<Vec<NodeKey>> {
    Some(ks.iter().map(|s| k(s)).collect())
}

fn entries(r: &impl GraphRead, label: &str, property: &str) -> Option<(bool, u64)> {
    r.indexes()
        .unwrap()
        .into_iter()
        .find(|d| d.label == label && d.property == property)
        .map(|d| (d.unique, d.entries))
}

#[test]
fn an_index_is_filled_from_existing_nodes_and_answers_lookups() {
    for (name, g, _d) in stores() {
        person(&g, "a", Value::from("Ada"));
        person(&g, "b", Value::from("Bob"));
        person(&g, "c", Value::from("Ada"));
        g.upsert_node("x", &["Robot"], props([("name", Value::from("Ada"))]), WriteMode::Merge)
            .unwrap();
        g.upsert_node("n", &["Person"], props([("name", Value::Null)]), WriteMode::Merge)
            .unwrap();
        assert_eq!(by_name(&g, Value::from("Ada")), None, "{name}: no index yet");
        assert!(g.create_index("Person", "name").unwrap());
        assert!(!g.create_index("Person", "name").unwrap(), "{name}: already there");
        assert_eq!(by_name(&g, Value::from("Ada")), keys(&["a", "c"]), "{name}");
        assert_eq!(by_name(&g.read(), Value::from("Bob")), keys(&["b"]));
        assert_eq!(by_name(&g, Value::from("Zed")), keys(&[]));
        assert_eq!(by_name(&g, Value::Null), keys(&[]), "null equals nothing");
        assert_eq!(
            g.nodes_by_property("Person", "name", &Value::from("Ada"), Some(1))
                .unwrap(),
            keys(&["a"])
        );
        assert_eq!(
            g.nodes_by_property("Person", "name", &Value::from("Ada"), Some(0))
                .unwrap(),
            keys(&[])
        );
        assert_eq!(
            g.nodes_by_property("Robot", "name", &Value::from("Ada"), None).unwrap(),
            None
        );
        assert_eq!(
            g.nodes_by_property("Nobody", "name", &Value::from("Ada"), None)
                .unwrap(),
            None
        );
        assert_eq!(
            g.nodes_by_property("Person", "age", &Value::Int(1), None).unwrap(),
            None
        );
        assert_eq!(
            g.indexes().unwrap(),
            vec![IndexDef {
                label: "Person".into(),
                property: "name".into(),
                unique: false,
                entries: 3
            }]
        );
        check_ok(&g);
    }
}

#[test]
fn values_equal_in_cypher_find_each_other() {
    let g = Graph::in_memory();
    g.create_index("N", "v").unwrap();
    let put = |key: &str, v: Value| g.upsert_node(key, &["N"], props([("v", v)]), WriteMode::Merge).unwrap();
    put("int1", Value::Int(1));
    put("float1", Value::Float(1.0));
    put("float1.5", Value::Float(1.5));
    put("true", Value::Bool(true));
    put("str1", Value::from("1"));
    put("nan", Value::Float(f64::NAN));
    put("zero", Value::Float(-0.0));
    put("list", Value::List(vec![Value::Int(1), Value::Float(2.0)]));
    put("list-null", Value::List(vec![Value::Null]));
    put("big", Value::Float(1e300));
    let find = |v: Value| g.nodes_by_property("N", "v", &v, None).unwrap().unwrap();
    assert_eq!(find(Value::Int(1)), vec![k("int1"), k("float1")]);
    assert_eq!(find(Value::Float(1.0)), vec![k("int1"), k("float1")]);
    assert_eq!(find(Value::Float(1.5)), vec![k("float1.5")]);
    assert_eq!(find(Value::Bool(true)), vec![k("true")]);
    assert_eq!(find(Value::from("1")), vec![k("str1")]);
    assert!(find(Value::Float(f64::NAN)).is_empty(), "NaN never matches");
    assert_eq!(find(Value::Int(0)), vec![k("zero")]);
    assert_eq!(
        find(Value::List(vec![Value::Float(1.0), Value::Int(2)])),
        vec![k("list")]
    );
    assert!(find(Value::List(vec![Value::Null])).is_empty());
    assert_eq!(find(Value::Float(1e300)), vec![k("big")]);
    // Eight entries: NaN and the list holding null are not indexed.
    assert_eq!(entries(&g, "N", "v"), Some((false, 8)));
    check_ok(&g);
}

#[test]
fn every_write_path_keeps_the_index() {
    for (name, g, _d) in stores() {
        g.create_index("Person", "name").unwrap();
        person(&g, "a", Value::from("Ada"));
        // Merge changes the value: the old entry goes.
        g.upsert_node("a", &[], props([("name", Value::from("Ann"))]), WriteMode::Merge)
            .unwrap();
        assert_eq!(by_name(&g, Value::from("Ada")), keys(&[]), "{name}");
        assert_eq!(by_name(&g, Value::from("Ann")), keys(&["a"]));
        // Replace without the property, then without the label.
        g.upsert_node("a", &["Person"], props([("age", Value::Int(3))]), WriteMode::Replace)
            .unwrap();
        assert_eq!(by_name(&g, Value::from("Ann")), keys(&[]));
        g.upsert_node(
            "a",
            &["Other"],
            props([("name", Value::from("Ann"))]),
            WriteMode::Replace,
        )
        .unwrap();
        assert_eq!(by_name(&g, Value::from("Ann")), keys(&[]), "{name}: not a Person");
        // Merge adds the label: the existing value becomes indexed.
        g.upsert_node("a", &["Person"], Props::new(), WriteMode::Merge).unwrap();
        assert_eq!(by_name(&g, Value::from("Ann")), keys(&["a"]));
        // Batch upserts, create_node, delete.
        g.upsert_nodes(
            &[
                NodeInput::new("b")
                    .label("Person")
                    .props(props([("name", Value::from("Bo"))])),
                NodeInput::new("c")
                    .label("Person")
                    .props(props([("name", Value::from("Bo"))])),
            ],
            WriteMode::Merge,
        )
        .unwrap();
        assert_eq!(by_name(&g, Value::from("Bo")), keys(&["b", "c"]));
        let mut tx = g.write().unwrap();
        let made = tx
            .create_node(&["Person"], props([("name", Value::from("Cy"))]))
            .unwrap();
        tx.commit().unwrap();
        assert_eq!(by_name(&g, Value::from("Cy")), Some(vec![made]));
        g.delete_node("b").unwrap();
        assert_eq!(by_name(&g, Value::from("Bo")), keys(&["c"]));
        let mut tx = g.write().unwrap();
        tx.delete_node_if_exists("c").unwrap();
        tx.commit().unwrap();
        assert_eq!(by_name(&g, Value::from("Bo")), keys(&[]));
        // Edges create bare endpoints: no labels, nothing indexed.
        g.upsert_edge("a", "KNOWS", "d", None, Props::new(), WriteMode::Merge)
            .unwrap();
        assert_eq!(
            entries(&g, "Person", "name"),
            Some((false, 2)),
            "{name}: a and the created node"
        );
        check_ok(&g);
    }
}

#[test]
fn a_transaction_sees_its_own_index_changes() {
    for (name, g, _d) in stores() {
        person(&g, "a", Value::from("Ada"));
        let mut tx = g.write().unwrap();
        assert!(tx.create_index("Person", "name").unwrap());
        assert_eq!(by_name(&tx, Value::from("Ada")), keys(&["a"]), "{name}");
        tx.upsert_node(
            "b",
            &["Person"],
            props([("name", Value::from("Ada"))]),
            WriteMode::Merge,
        )
        .unwrap();
        tx.upsert_node("a", &[], props([("name", Value::from("Al"))]), WriteMode::Merge)
            .unwrap();
        assert_eq!(by_name(&tx, Value::from("Ada")), keys(&["b"]));
        assert_eq!(by_name(&tx, Value::from("Al")), keys(&["a"]));
        assert_eq!(entries(&tx, "Person", "name"), Some((false, 2)));
        // Not visible outside, and gone with the transaction.
        assert_eq!(by_name(&g, Value::from("Ada")), None);
        drop(tx);
        assert!(g.indexes().unwrap().is_empty(), "{name}");
        assert_eq!(by_name(&g, Value::from("Ada")), None);
        check_ok(&g);
        // A snapshot taken before an index exists does not use it.
        let before = g.read();
        g.create_index("Person", "name").unwrap();
        assert_eq!(by_name(&before, Value::from("Ada")), None);
        assert!(before.indexes().unwrap().is_empty());
        assert_eq!(by_name(&g.read(), Value::from("Ada")), keys(&["a"]));
    }
}

#[test]
fn dropping_and_recreating_an_index() {
    for (name, g, _d) in stores() {
        for i in 0..50 {
            person(&g, &format!("p{i}"), Value::Int(i % 5));
        }
        g.create_index("Person", "name").unwrap();
        g.create_index("Person", "other").unwrap();
        assert_eq!(entries(&g, "Person", "name"), Some((false, 50)));
        assert!(g.drop_index("Person", "name").unwrap(), "{name}");
        assert!(!g.drop_index("Person", "name").unwrap());
        assert!(!g.drop_index("Nobody", "name").unwrap());
        assert_eq!(by_name(&g, Value::Int(1)), None);
        assert_eq!(entries(&g, "Person", "name"), None);
        check_ok(&g);
        // Recreated: filled again.
        g.create_index("Person", "name").unwrap();
        assert_eq!(entries(&g, "Person", "name"), Some((false, 50)), "{name}");
        assert_eq!(by_name(&g, Value::Int(3)).unwrap().len(), 10);
        // Drop both and create in one transaction: id 0 is reused, its counter starts at 0.
        let mut tx = g.write().unwrap();
        tx.drop_index("Person", "name").unwrap();
        tx.drop_index("Person", "other").unwrap();
        tx.create_index("Person", "name").unwrap();
        tx.commit().unwrap();
        assert_eq!(entries(&g, "Person", "name"), Some((false, 50)));
        assert_eq!(by_name(&g, Value::Int(3)).unwrap().len(), 10);
        check_ok(&g);
    }
}

#[test]
fn indexes_persist_and_old_stores_open_without_them() {
    let tmp = tempfile::tempdir().unwrap();
    {
        let g = Graph::open(tmp.path()).unwrap();
        person(&g, "a", Value::from("Ada"));
        g.create_index("Person", "name").unwrap();
        g.create_unique_constraint("Person", "email").unwrap();
    }
    let g = Graph::open(tmp.path()).unwrap();
    assert_eq!(by_name(&g, Value::from("Ada")), keys(&["a"]));
    assert_eq!(entries(&g, "Person", "email"), Some((true, 0)));
    person(&g, "b", Value::from("Ada"));
    assert_eq!(
        by_name(&g, Value::from("Ada")),
        keys(&["a", "b"]),
        "kept after reopening"
    );
    g.upsert_node("a", &[], props([("email", Value::from("x@y"))]), WriteMode::Merge)
        .unwrap();
    let e = g
        .upsert_node("b", &[], props([("email", Value::from("x@y"))]), WriteMode::Merge)
        .unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::ConstraintViolation,
        "enforced after reopening: {e}"
    );
    check_ok(&g);
    drop(g);
    let secondary = Config {
        access: AccessMode::Secondary,
        ..Config::default()
    };
    let r = Graph::open_with(tmp.path(), secondary.clone()).unwrap();
    assert_eq!(by_name(&r, Value::from("Ada")), keys(&["a", "b"]));
    assert!(r.check().unwrap().is_ok());
    drop(r);

    // A store written before property indexes: no `prop_index` family.
    let old = tempfile::tempdir().unwrap();
    let fixture =
        Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()))
            .join("tests/fixtures/format-v1");
    for e in std::fs::read_dir(&fixture).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), old.path().join(e.file_name())).unwrap();
    }
    let families = |p: &Path| rocksdb::DB::list_cf(&rocksdb::Options::default(), p).unwrap();
    assert!(!families(old.path()).contains(&"prop_index".to_string()));
    let r = Graph::open_with(old.path(), secondary.clone()).unwrap();
    assert!(
        r.indexes().unwrap().is_empty(),
        "read-only: the missing family reads as empty"
    );
    assert_eq!(
        r.nodes_by_property("Person", "born", &Value::Int(1815), None).unwrap(),
        None
    );
    assert!(r.check().unwrap().is_ok());
    drop(r);
    let g = Graph::open(old.path()).unwrap();
    assert!(
        families(old.path()).contains(&"prop_index".to_string()),
        "a writer adds it"
    );
    assert!(g.create_index("Person", "born").unwrap());
    assert_eq!(
        g.nodes_by_property("Person", "born", &Value::Float(1815.0), None)
            .unwrap(),
        keys(&["ada"])
    );
    check_ok(&g);
    drop(g);
    // What a build from before property indexes does with the store now: its writable open
    // names nine families and RocksDB refuses it, so it can never write without keeping the
    // indexes; a read-only open of those nine still works.
    let nine: Vec<String> = families(old.path()).into_iter().filter(|n| n != "prop_index").collect();
    match rocksdb::DB::open_cf(&rocksdb::Options::default(), old.path(), &nine) {
        Err(e) => assert!(e.to_string().contains("prop_index"), "{e}"),
        Ok(_) => panic!("an old writer must be refused"),
    }
    let ro = rocksdb::DB::open_cf_for_read_only(&rocksdb::Options::default(), old.path(), &nine, false);
    assert!(ro.is_ok(), "{:?}", ro.err());
}

#[test]
fn a_uniqueness_constraint_refuses_a_second_equal_value() {
    for (name, g, _d) in stores() {
        g.upsert_node("a", &["User"], props([("id", Value::Int(1))]), WriteMode::Merge)
            .unwrap();
        g.upsert_node("b", &["User"], props([("id", Value::Int(2))]), WriteMode::Merge)
            .unwrap();
        // Null and absent values never conflict.
        g.upsert_node("n1", &["User"], props([("id", Value::Null)]), WriteMode::Merge)
            .unwrap();
        g.upsert_node("n2", &["User"], Props::new(), WriteMode::Merge).unwrap();
        g.upsert_node(
            "n3",
            &["User"],
            props([("id", Value::Float(f64::NAN))]),
            WriteMode::Merge,
        )
        .unwrap();
        g.upsert_node(
            "n4",
            &["User"],
            props([("id", Value::Float(f64::NAN))]),
            WriteMode::Merge,
        )
        .unwrap();
        assert!(g.create_unique_constraint("User", "id").unwrap(), "{name}");
        assert!(!g.create_unique_constraint("User", "id").unwrap());
        assert_eq!(entries(&g, "User", "id"), Some((true, 2)));
        assert_eq!(
            g.nodes_by_property("User", "id", &Value::Int(2), None).unwrap(),
            keys(&["b"]),
            "a constraint's index answers lookups"
        );
        // 1.0 equals 1: refused, with a clear error, and the transaction is aborted.
        let mut tx = g.write().unwrap();
        tx.upsert_node("c", &["User"], props([("name", Value::from("c"))]), WriteMode::Merge)
            .unwrap();
        let e = tx
            .upsert_node("d", &["User"], props([("id", Value::Float(1.0))]), WriteMode::Merge)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ConstraintViolation, "{name}: {e}");
        assert_eq!(ErrorKind::ConstraintViolation.as_str(), "constraint_violation");
        match &e {
            Error::ConstraintViolation {
                label,
                property,
                value,
                node,
                existing,
            } => {
                assert_eq!((label.as_str(), property.as_str()), ("User", "id"));
                assert_eq!(**value, Value::Float(1.0));
                assert_eq!((node.as_str(), existing.as_str()), ("\"d\"", "\"a\""));
            }
            other => panic!("{other:?}"),
        }
        let msg = e.to_string();
        assert!(
            msg.contains(":User(id)") && msg.contains("1.0") && msg.contains("\"a\""),
            "{msg}"
        );
        assert!(tx.commit().is_err());
        assert!(
            !g.has_node(&k("c")).unwrap(),
            "{name}: nothing of the transaction landed"
        );
        // Every path: a label added to a node holding a taken value, create_node, a batch.
        g.upsert_node("e", &["Other"], props([("id", Value::Int(2))]), WriteMode::Merge)
            .unwrap();
        let e = g
            .upsert_node("e", &["User"], Props::new(), WriteMode::Merge)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ConstraintViolation);
        let mut tx = g.write().unwrap();
        assert!(tx.create_node(&["User"], props([("id", Value::Int(2))])).is_err());
        drop(tx);
        let e = g
            .upsert_nodes(
                &[
                    NodeInput::new("f").label("User").props(props([("id", Value::Int(9))])),
                    NodeInput::new("g").label("User").props(props([("id", Value::Int(9))])),
                ],
                WriteMode::Merge,
            )
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ConstraintViolation, "batch items keep their class");
        assert!(matches!(e, Error::InBatch { index: 1, .. }), "{e}");
        // Re-writing a node's own value is fine; freeing a value first lets another take it.
        g.upsert_node("a", &["User"], props([("id", Value::Int(1))]), WriteMode::Replace)
            .unwrap();
        let mut tx = g.write().unwrap();
        tx.upsert_node("a", &[], props([("id", Value::Int(10))]), WriteMode::Merge)
            .unwrap();
        tx.upsert_node("c", &["User"], props([("id", Value::Int(1))]), WriteMode::Merge)
            .unwrap();
        tx.delete_node("b").unwrap();
        tx.upsert_node("d", &["User"], props([("id", Value::Int(2))]), WriteMode::Merge)
            .unwrap();
        tx.commit().unwrap();
        assert_eq!(
            g.nodes_by_property("User", "id", &Value::Int(1), None).unwrap(),
            keys(&["c"])
        );
        assert_eq!(
            g.nodes_by_property("User", "id", &Value::Int(2), None).unwrap(),
            keys(&["d"])
        );
        check_ok(&g);
    }
}

#[test]
fn existing_duplicates_refuse_a_new_constraint() {
    for (name, g, _d) in stores() {
        g.upsert_node("a", &["User"], props([("mail", Value::from("x@y"))]), WriteMode::Merge)
            .unwrap();
        g.upsert_node("b", &["User"], props([("mail", Value::from("x@y"))]), WriteMode::Merge)
            .unwrap();
        let e = g.create_unique_constraint("User", "mail").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ConstraintViolation, "{name}");
        assert!(e.to_string().contains("\"x@y\""), "{e}");
        assert!(g.indexes().unwrap().is_empty(), "nothing was created");
        // Over an existing plain index: refused the same way, and the index stays plain.
        g.create_index("User", "mail").unwrap();
        assert!(g.create_unique_constraint("User", "mail").is_err());
        assert_eq!(entries(&g, "User", "mail"), Some((false, 2)));
        g.upsert_node("b", &[], props([("mail", Value::from("b@y"))]), WriteMode::Merge)
            .unwrap();
        assert!(g.create_unique_constraint("User", "mail").unwrap(), "{name}");
        assert_eq!(entries(&g, "User", "mail"), Some((true, 2)));
        // The index was created on its own: it stays when the constraint goes.
        let e = g.drop_index("User", "mail").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
        assert!(g.drop_unique_constraint("User", "mail").unwrap());
        assert!(!g.drop_unique_constraint("User", "mail").unwrap());
        assert_eq!(entries(&g, "User", "mail"), Some((false, 2)));
        g.upsert_node("c", &["User"], props([("mail", Value::from("b@y"))]), WriteMode::Merge)
            .unwrap();
        // A constraint made alone takes its index with it.
        g.create_unique_constraint("User", "nick").unwrap();
        assert_eq!(entries(&g, "User", "nick"), Some((true, 0)));
        assert!(
            !g.create_index("User", "nick").unwrap(),
            "the constraint's index exists"
        );
        assert!(g.drop_unique_constraint("User", "nick").unwrap());
        assert_eq!(entries(&g, "User", "nick"), None);
        check_ok(&g);
    }
}

#[test]
fn long_values_are_indexed_by_hash_and_compared_in_full() {
    for (name, g, _d) in stores() {
        let long = |c: char| Value::from(c.to_string().repeat(2000));
        g.create_unique_constraint("Doc", "text").unwrap();
        g.upsert_node("a", &["Doc"], props([("text", long('a'))]), WriteMode::Merge)
            .unwrap();
        g.upsert_node("b", &["Doc"], props([("text", long('b'))]), WriteMode::Merge)
            .unwrap();
        assert_eq!(
            g.nodes_by_property("Doc", "text", &long('a'), None).unwrap(),
            keys(&["a"]),
            "{name}"
        );
        assert_eq!(g.nodes_by_property("Doc", "text", &long('c'), None).unwrap(), keys(&[]));
        let e = g
            .upsert_node("c", &["Doc"], props([("text", long('b'))]), WriteMode::Merge)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ConstraintViolation);
        assert!(
            e.to_string().contains("..."),
            "long values are shortened in messages: {e}"
        );
        g.upsert_node("a", &[], props([("text", long('c'))]), WriteMode::Merge)
            .unwrap();
        assert_eq!(
            g.nodes_by_property("Doc", "text", &long('c'), None).unwrap(),
            keys(&["a"])
        );
        assert_eq!(g.nodes_by_property("Doc", "text", &long('a'), None).unwrap(), keys(&[]));
        check_ok(&g);
    }
}

#[test]
fn bulk_loads_keep_indexes_and_constraints() {
    for (name, g, _d) in stores() {
        g.create_index("Person", "city").unwrap();
        g.create_unique_constraint("Person", "email").unwrap();
        g.upsert_node(
            "old",
            &["Person"],
            props([("email", Value::from("old@x"))]),
            WriteMode::Merge,
        )
        .unwrap();
        let mut load = g.bulk_load(BulkOptions::default()).unwrap();
        for i in 0..100 {
            load.add_node(
                NodeKey::Int(i),
                &["Person"],
                props([
                    ("city", Value::from(if i % 2 == 0 { "Paris" } else { "Rome" })),
                    ("email", Value::from(format!("p{i}@x"))),
                ]),
            )
            .unwrap();
        }
        // Refused row by row, and the load goes on: a value given earlier in the load, one
        // the store has, and one a replayed row would give an existing node.
        let e = load
            .add_node(NodeKey::Int(100), &["Person"], props([("email", Value::from("p3@x"))]))
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ConstraintViolation, "{name}: {e}");
        let e = load
            .add_node(NodeKey::Int(101), &["Person"], props([("email", Value::from("old@x"))]))
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ConstraintViolation, "{e}");
        let e = load
            .add_node(k("old"), &[], props([("email", Value::from("p4@x"))]))
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ConstraintViolation, "{e}");
        // A replayed row that keeps its own unique value and gains an indexed one.
        load.add_node(k("old"), &[], props([("city", Value::from("Rome"))]))
            .unwrap();
        load.add_edge(NodeKey::Int(0), "KNOWS", NodeKey::Int(1), None, Props::new())
            .unwrap();
        load.finish().unwrap();
        assert_eq!(g.node_count().unwrap(), 101, "{name}: the refused rows left nothing");
        assert_eq!(
            g.nodes_by_property("Person", "city", &Value::from("Rome"), None)
                .unwrap()
                .unwrap()
                .len(),
            51,
            "{name}"
        );
        assert_eq!(
            g.nodes_by_property("Person", "email", &Value::from("p42@x"), None)
                .unwrap(),
            Some(vec![NodeKey::Int(42)])
        );
        assert_eq!(entries(&g, "Person", "email"), Some((true, 101)));
        assert_eq!(entries(&g, "Person", "city"), Some((false, 101)));
        check_ok(&g);
        assert!(g
            .upsert_node(
                NodeKey::Int(7),
                &[],
                props([("email", Value::from("p8@x"))]),
                WriteMode::Merge
            )
            .is_err());
    }
}

#[test]
fn check_finds_broken_index_entries() {
    let tmp = tempfile::tempdir().unwrap();
    {
        let g = Graph::open(tmp.path()).unwrap();
        person(&g, "a", Value::from("Ada"));
        person(&g, "b", Value::from("Bob"));
        g.create_index("Person", "name").unwrap();
        check_ok(&g);
        // Into table files: a plain RocksDB open cannot replay HopDB's merge operands.
        g.flush().unwrap();
    }
    // Remove one entry and add one for a value nobody has, behind HopDB's back.
    {
        let names = rocksdb::DB::list_cf(&rocksdb::Options::default(), tmp.path()).unwrap();
        let db = rocksdb::DB::open_cf(&rocksdb::Options::default(), tmp.path(), names).unwrap();
        let cf = db.cf_handle("prop_index").unwrap();
        let first: Vec<u8> = db
            .iterator_cf(cf, rocksdb::IteratorMode::Start)
            .next()
            .unwrap()
            .unwrap()
            .0
            .to_vec();
        db.delete_cf(cf, &first).unwrap();
        let mut bogus = first[..4].to_vec();
        bogus.extend_from_slice(&[5, 3, b'Z', b'e', b'd']);
        bogus.extend_from_slice(&first[first.len() - 8..]);
        db.put_cf(cf, &bogus, b"").unwrap();
    }
    let g = Graph::open(tmp.path()).unwrap();
    let r = g.check().unwrap();
    assert!(!r.is_ok());
    let all = r.problems.join("\n");
    assert!(all.contains("missing from property index"), "{all}");
    assert!(all.contains("stale entry"), "{all}");
}
