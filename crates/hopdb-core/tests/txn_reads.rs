//! Reads inside a write transaction (read-your-writes), node scans on every kind of reader,
//! internal ids, and keys the store chooses (`WriteTxn::create_node`). On both engines.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_core::*;
use std::collections::BTreeSet;

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

/// Every node key `r` lists through `for_each_node`, in order.
fn scanned(r: &impl GraphRead, label: Option<&str>) -> Vec<NodeKey> {
    let mut out = Vec::new();
    r.for_each_node(label, &mut |n| {
        out.push(n.key);
        true
    })
    .unwrap();
    out
}

#[test]
fn a_transaction_reads_its_own_writes() {
    for (name, g, _d) in stores() {
        g.upsert_node("a", &["Person"], props([("age", Value::Int(30))]), WriteMode::Merge)
            .unwrap();
        g.upsert_edge("a", "KNOWS", "b", Some(1.0), Props::new(), WriteMode::Merge)
            .unwrap();
        g.define_edge_type(
            "ROUTE",
            EdgeTypeOptions {
                undirected: false,
                multi: true,
            },
        )
        .unwrap();

        let mut tx = g.write().unwrap();
        // Committed state is visible.
        assert_eq!(tx.node_count().unwrap(), 2, "{name}");
        assert_eq!(tx.degree(&k("a"), Direction::Out, None).unwrap().count, 1);
        // New node, merged properties, a new label.
        tx.upsert_node(
            "c",
            &["Person", "Robot"],
            props([("x", Value::from("y"))]),
            WriteMode::Merge,
        )
        .unwrap();
        tx.upsert_node("a", &["Author"], props([("age", Value::Int(31))]), WriteMode::Merge)
            .unwrap();
        let c = tx.node(&k("c")).unwrap().expect("created in the transaction");
        assert_eq!(c.labels, vec!["Person", "Robot"], "{name}");
        assert_eq!(c.props, props([("x", Value::from("y"))]));
        assert!(tx.has_node(&k("c")).unwrap());
        let a = tx.node(&k("a")).unwrap().unwrap();
        assert_eq!(a.labels, vec!["Person", "Author"]);
        assert_eq!(a.props["age"], Value::Int(31));
        assert_eq!(tx.node_count().unwrap(), 3);
        assert_eq!(tx.label_count("Person").unwrap(), 2);
        assert_eq!(tx.label_count("Robot").unwrap(), 1);
        assert_eq!(
            tx.labels().unwrap(),
            vec![
                ("Author".to_string(), 1),
                ("Person".to_string(), 2),
                ("Robot".to_string(), 1)
            ]
        );
        assert_eq!(tx.nodes_with_label("Person", None).unwrap(), vec![k("a"), k("c")]);
        // Edges added in the transaction appear in listings, degrees and counts.
        tx.upsert_edge(
            "a",
            "KNOWS",
            "c",
            Some(2.5),
            props([("since", Value::Int(2020))]),
            WriteMode::Merge,
        )
        .unwrap();
        tx.upsert_edge("c", "LIKES", "d", None, Props::new(), WriteMode::Merge)
            .unwrap();
        let eid = tx.add_edge("a", "ROUTE", "c", Some(4.0), Props::new()).unwrap();
        let out = tx.edges(&k("a"), Direction::Out, Some("KNOWS"), None).unwrap();
        assert_eq!(out.len(), 2, "{name}");
        assert_eq!(out[1].dst, k("c"));
        assert_eq!(out[1].weight, Some(2.5));
        assert_eq!(out[1].props, props([("since", Value::Int(2020))]));
        assert_eq!(
            tx.degree(&k("a"), Direction::Out, None).unwrap(),
            Degree {
                count: 3,
                weight_sum: 7.5
            }
        );
        assert_eq!(tx.degree(&k("c"), Direction::Both, None).unwrap().count, 3);
        assert_eq!(tx.neighbors(&k("c"), Direction::In, None, None).unwrap(), vec![k("a")]);
        assert_eq!(tx.edge_count().unwrap(), 4);
        assert_eq!(tx.node_count().unwrap(), 4, "d was created as an endpoint");
        assert!(tx.has_edge(&k("c"), &k("a"), Some("KNOWS"), true).unwrap());
        assert_eq!(tx.edge(&k("a"), "KNOWS", &k("c")).unwrap().unwrap().weight, Some(2.5));
        assert_eq!(tx.edge_by_id(eid).unwrap().unwrap().weight, Some(4.0));
        let types: Vec<(String, u64)> = tx
            .edge_types()
            .unwrap()
            .into_iter()
            .map(|(t, c)| (t.name.to_string(), c))
            .collect();
        assert_eq!(
            types,
            vec![
                ("KNOWS".to_string(), 2),
                ("LIKES".to_string(), 1),
                ("ROUTE".to_string(), 1)
            ]
        );
        // Batch forms.
        let keys = [k("a"), k("zz"), k("c")];
        let nodes = tx.nodes_batch(&keys).unwrap();
        assert!(nodes[0].is_some() && nodes[1].is_none() && nodes[2].is_some());
        let degs = tx.degrees_batch(&keys, Direction::Both, None).unwrap();
        assert_eq!(degs[2].map(|d| d.count), Some(3));
        assert!(degs[1].is_none());
        let lists = tx.edges_batch(&keys, Direction::Out, None, None).unwrap();
        assert_eq!(lists[2].as_ref().map(Vec::len), Some(1));
        let between = tx
            .edges_between_batch(&[(k("a"), k("c")), (k("c"), k("a"))], Some("KNOWS"), false)
            .unwrap();
        assert!(between[0].is_some() && between[1].is_none());
        // The committed state does not see any of it yet.
        assert!(!g.has_node(&k("c")).unwrap(), "{name}");
        assert_eq!(g.read().edge_count().unwrap(), 1);
        tx.commit().unwrap();
        assert_eq!(g.edge_count().unwrap(), 4);
        assert_eq!(g.node(&k("a")).unwrap().unwrap().props["age"], Value::Int(31));
        check_ok(&g);
    }
}

#[test]
fn a_dropped_transaction_leaves_nothing_not_even_in_the_key_index() {
    for (name, g, _d) in stores() {
        g.upsert_node("base", &[], Props::new(), WriteMode::Merge).unwrap();
        let mut tx = g.write().unwrap();
        tx.upsert_node("ghost", &["Ghost"], Props::new(), WriteMode::Merge)
            .unwrap();
        tx.upsert_edge("ghost", "HAUNTS", "base", None, Props::new(), WriteMode::Merge)
            .unwrap();
        // Reads that resolve the new key (and could have cached its id).
        let ghost_id = tx.node_id(&k("ghost")).unwrap().expect("live in the transaction");
        assert!(tx.node(&k("ghost")).unwrap().is_some());
        assert_eq!(
            tx.nodes_batch(&[k("ghost")]).unwrap()[0].as_ref().unwrap().key,
            k("ghost")
        );
        assert_eq!(
            tx.edges_batch(&[k("ghost")], Direction::Out, None, None).unwrap()[0]
                .as_ref()
                .unwrap()
                .len(),
            1
        );
        drop(tx);
        assert!(g.node(&k("ghost")).unwrap().is_none(), "{name}");
        assert_eq!(g.node_count().unwrap(), 1);
        assert_eq!(g.label_count("Ghost").unwrap(), 0);
        assert_eq!(g.degree(&k("base"), Direction::Both, None).unwrap().count, 0);
        // The id the dropped transaction used goes to the next new key: the old key must not
        // resolve to it.
        g.upsert_node("real", &[], Props::new(), WriteMode::Merge).unwrap();
        assert_eq!(
            g.node_id(&k("real")).unwrap(),
            Some(ghost_id),
            "{name}: ids are reused after a rollback"
        );
        assert!(
            g.node(&k("ghost")).unwrap().is_none(),
            "{name}: a stale cached id would find \"real\""
        );
        assert!(!g.has_node(&k("ghost")).unwrap());
        assert_eq!(g.node_id(&k("ghost")).unwrap(), None);
        check_ok(&g);
    }
}

#[test]
fn a_node_deleted_in_the_transaction_is_gone_from_its_reads() {
    for (name, g, _d) in stores() {
        g.upsert_node("a", &["P"], Props::new(), WriteMode::Merge).unwrap();
        g.upsert_edge("a", "R", "b", Some(2.0), Props::new(), WriteMode::Merge)
            .unwrap();
        g.upsert_edge("c", "R", "a", None, Props::new(), WriteMode::Merge)
            .unwrap();
        let mut tx = g.write().unwrap();
        tx.delete_node("a").unwrap();
        assert!(tx.node(&k("a")).unwrap().is_none(), "{name}");
        assert!(!tx.has_node(&k("a")).unwrap());
        assert_eq!(tx.node_id(&k("a")).unwrap(), None);
        assert!(matches!(
            tx.edges(&k("a"), Direction::Both, None, None),
            Err(Error::NodeNotFound { .. })
        ));
        assert!(matches!(
            tx.degree(&k("a"), Direction::Both, None),
            Err(Error::NodeNotFound { .. })
        ));
        assert!(tx.neighbors(&k("b"), Direction::Both, None, None).unwrap().is_empty());
        assert_eq!(tx.degree(&k("c"), Direction::Out, None).unwrap().count, 0);
        assert_eq!(tx.edge_count().unwrap(), 0);
        assert_eq!(tx.node_count().unwrap(), 2);
        assert_eq!(tx.label_count("P").unwrap(), 0);
        assert!(tx.nodes_with_label("P", None).unwrap().is_empty());
        assert_eq!(scanned(&tx, None), vec![k("b"), k("c")]);
        assert!(scanned(&tx, Some("P")).is_empty());
        // Still there for everyone else until commit.
        assert!(g.has_node(&k("a")).unwrap());
        // Re-created in the same transaction: back, with its old id and no edges.
        let old_id = g.node_id(&k("a")).unwrap();
        tx.upsert_node("a", &[], Props::new(), WriteMode::Merge).unwrap();
        assert_eq!(tx.node_id(&k("a")).unwrap(), old_id);
        assert!(tx.edges(&k("a"), Direction::Both, None, None).unwrap().is_empty());
        tx.commit().unwrap();
        assert!(g.edges(&k("a"), Direction::Both, None, None).unwrap().is_empty());
        check_ok(&g);
    }
}

#[test]
fn for_each_node_is_the_same_on_every_reader() {
    for (name, g, _d) in stores() {
        // More nodes than one read chunk (256), with labels on some.
        let nodes: Vec<NodeInput> = (0..700i64)
            .map(|i| {
                let n = NodeInput::new(i).props(props([("i", Value::Int(i)), ("s", Value::from("x"))]));
                let n = if i % 3 == 0 { n.label("Three") } else { n };
                // Most nodes: read by a scan of every record, not the label index.
                if i % 5 != 0 {
                    n.label("Most")
                } else {
                    n
                }
            })
            .collect();
        g.upsert_nodes(&nodes, WriteMode::Merge).unwrap();
        let all: Vec<NodeKey> = (0..700).map(NodeKey::Int).collect();
        let threes: Vec<NodeKey> = (0..700).filter(|i| i % 3 == 0).map(NodeKey::Int).collect();
        let most: Vec<NodeKey> = (0..700).filter(|i| i % 5 != 0).map(NodeKey::Int).collect();
        assert_eq!(scanned(&g, None), all, "{name}");
        assert_eq!(scanned(&g.read(), None), all);
        assert_eq!(scanned(&g, Some("Three")), threes);
        assert_eq!(scanned(&g.read(), Some("Three")), threes);
        assert_eq!(scanned(&g, Some("Most")), most);
        assert_eq!(scanned(&g.read(), Some("Most")), most);
        // Records hold what the decoded nodes hold, one property at a time too.
        for label in [None, Some("Three"), Some("Most")] {
            let mut nodes = Vec::new();
            g.for_each_node(label, &mut |n| {
                nodes.push(n);
                true
            })
            .unwrap();
            let mut records = Vec::new();
            g.for_each_node_record(label, &mut |r| {
                records.push(r);
                true
            })
            .unwrap();
            assert_eq!(records.len(), nodes.len(), "{name} {label:?}");
            for (r, n) in records.iter().zip(&nodes) {
                assert_eq!(&r.to_node().unwrap(), n);
                assert_eq!(g.node_id(&n.key).unwrap(), Some(r.id));
                assert_eq!(r.property("i").unwrap().as_ref(), n.props.get("i"));
                assert_eq!(r.property("s").unwrap(), Some(Value::from("x")));
                assert_eq!(r.property("absent").unwrap(), None);
                assert_eq!(r.has_label("Most"), n.labels.iter().any(|l| l == "Most"));
            }
        }
        assert!(scanned(&g, Some("Nope")).is_empty());
        // Stopping early.
        let mut seen = 0;
        g.for_each_node(None, &mut |_| {
            seen += 1;
            seen < 10
        })
        .unwrap();
        assert_eq!(seen, 10);

        let mut tx = g.write().unwrap();
        assert_eq!(scanned(&tx, None), all);
        // Deletes, label changes, updates and new nodes, scattered over the id range.
        let mut want_all = BTreeSet::new();
        let mut want_three = BTreeSet::new();
        for i in 0..700i64 {
            if i % 7 == 0 {
                tx.delete_node(i).unwrap();
                continue;
            }
            want_all.insert(i);
            let three = if i % 5 == 0 {
                // Replace: the label goes (or comes).
                let l: &[&str] = if i % 3 == 0 { &[] } else { &["Three"] };
                tx.upsert_node(i, l, Props::new(), WriteMode::Replace).unwrap();
                i % 3 != 0
            } else {
                i % 3 == 0
            };
            if three {
                want_three.insert(i);
            }
        }
        for i in 700..1000i64 {
            tx.upsert_node(i, &["Three"], Props::new(), WriteMode::Merge).unwrap();
            want_all.insert(i);
            want_three.insert(i);
        }
        // Node ids follow creation order, which is key order here.
        let ints = |v: &BTreeSet<i64>| v.iter().map(|i| NodeKey::Int(*i)).collect::<Vec<_>>();
        assert_eq!(scanned(&tx, None), ints(&want_all), "{name}");
        assert_eq!(scanned(&tx, Some("Three")), ints(&want_three), "{name}");
        let want_most: BTreeSet<i64> = want_all.iter().copied().filter(|&i| i < 700 && i % 5 != 0).collect();
        assert_eq!(scanned(&tx, Some("Most")), ints(&want_most), "{name}");
        let mut props_ok = true;
        tx.for_each_node(Some("Three"), &mut |n| {
            props_ok &= n.labels.iter().any(|l| l == "Three");
            true
        })
        .unwrap();
        assert!(props_ok);
        // Readers of the committed state still see the old one.
        assert_eq!(scanned(&g, None), all);
        tx.commit().unwrap();
        assert_eq!(scanned(&g, None), ints(&want_all));
        assert_eq!(scanned(&g.read(), Some("Three")), ints(&want_three));
        check_ok(&g);
    }
}

#[test]
fn reads_after_a_failed_operation_fail() {
    let g = Graph::in_memory();
    let mut tx = g.write().unwrap();
    tx.upsert_node("a", &[], Props::new(), WriteMode::Merge).unwrap();
    assert!(tx.node(&k("a")).unwrap().is_some());
    assert!(tx.delete_node("missing").is_err());
    let e = tx.node(&k("a")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    assert!(e.to_string().contains("aborted"), "{e}");
    assert!(tx.for_each_node(None, &mut |_| true).is_err());
    assert!(tx.upsert_node("b", &[], Props::new(), WriteMode::Merge).is_err());
}

#[test]
fn internal_ids_map_both_ways() {
    for (name, g, _d) in stores() {
        g.upsert_node("a", &["L"], props([("v", Value::Int(1))]), WriteMode::Merge)
            .unwrap();
        g.upsert_node("b", &[], Props::new(), WriteMode::Merge).unwrap();
        let a = g.node_id(&k("a")).unwrap().unwrap();
        let b = g.node_id(&k("b")).unwrap().unwrap();
        assert_ne!(a, b, "{name}");
        assert_eq!(g.node_key(a).unwrap(), Some(k("a")));
        assert_eq!(g.read().node_key(b).unwrap(), Some(k("b")));
        assert_eq!(g.read().node_id(&k("b")).unwrap(), Some(b));
        assert_eq!(g.node_by_id(a).unwrap().unwrap().props["v"], Value::Int(1));
        assert_eq!(g.node_id(&k("nope")).unwrap(), None);
        assert_eq!(g.node_key(0).unwrap(), None);
        assert_eq!(g.node_key(b + 100).unwrap(), None);
        g.delete_node("a").unwrap();
        assert_eq!(g.node_id(&k("a")).unwrap(), None, "a deleted node has no id");
        assert_eq!(g.node_key(a).unwrap(), None);
        assert!(g.node_by_id(a).unwrap().is_none());
        // In a transaction: new nodes have their final ids, deleted ones none.
        let mut tx = g.write().unwrap();
        tx.upsert_node("c", &[], Props::new(), WriteMode::Merge).unwrap();
        let c = tx.node_id(&k("c")).unwrap().unwrap();
        assert_eq!(tx.node_key(c).unwrap(), Some(k("c")));
        tx.upsert_node("a", &[], Props::new(), WriteMode::Merge).unwrap();
        assert_eq!(tx.node_id(&k("a")).unwrap(), Some(a), "re-created: the same id");
        tx.delete_node("b").unwrap();
        assert_eq!(tx.node_id(&k("b")).unwrap(), None);
        assert_eq!(tx.node_key(b).unwrap(), None);
        tx.commit().unwrap();
        assert_eq!(g.node_id(&k("c")).unwrap(), Some(c), "{name}");
        assert_eq!(g.node_key(a).unwrap(), Some(k("a")));
    }
}

#[test]
fn create_node_chooses_free_integer_keys() {
    for (name, g, _d) in stores() {
        let mut tx = g.write().unwrap();
        let first = tx.create_node(&["Auto"], props([("n", Value::Int(0))])).unwrap();
        let second = tx.create_node(&[], Props::new()).unwrap();
        assert_eq!(
            first,
            NodeKey::Int(1),
            "{name}: the next internal id, on an empty store"
        );
        assert_eq!(second, NodeKey::Int(2));
        assert_eq!(
            tx.node_id(&first).unwrap(),
            Some(1),
            "key == id while only create_node makes keys"
        );
        assert_eq!(tx.node(&first).unwrap().unwrap().labels, vec!["Auto"]);
        tx.commit().unwrap();
        // User integer keys ahead of the counter are skipped, committed or pending.
        g.upsert_node(3i64, &[], Props::new(), WriteMode::Merge).unwrap();
        let mut tx = g.write().unwrap();
        tx.upsert_node(5i64, &["Mine"], Props::new(), WriteMode::Merge).unwrap();
        // Next id is 5; key 5 is taken in this transaction.
        let k1 = tx.create_node(&[], Props::new()).unwrap();
        assert_eq!(k1, NodeKey::Int(6), "{name}");
        let k2 = tx.create_node(&[], Props::new()).unwrap();
        assert_eq!(k2, NodeKey::Int(7));
        tx.commit().unwrap();
        assert_eq!(
            g.node(&NodeKey::Int(5)).unwrap().unwrap().labels,
            vec!["Mine"],
            "never overwritten"
        );
        assert_eq!(g.node_count().unwrap(), 6);
        // A string key does not block its integer look-alike.
        g.upsert_node("8", &[], Props::new(), WriteMode::Merge).unwrap();
        let mut tx = g.write().unwrap();
        let k3 = tx.create_node(&[], Props::new()).unwrap();
        assert_eq!(k3, NodeKey::Int(8));
        tx.commit().unwrap();
        check_ok(&g);
        // Dropped: nothing stays, and the same key is offered again.
        let mut tx = g.write().unwrap();
        let k4 = tx.create_node(&[], Props::new()).unwrap();
        drop(tx);
        assert!(!g.has_node(&k4).unwrap());
        let mut tx = g.write().unwrap();
        assert_eq!(tx.create_node(&[], Props::new()).unwrap(), k4);
        tx.commit().unwrap();
    }
}
