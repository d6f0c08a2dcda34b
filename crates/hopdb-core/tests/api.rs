//! Behaviour of the public API, run on both engines (RocksDB on disk and in memory).

// Tests: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_core::*;

/// A store of each kind; the tempdir lives as long as the store.
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

#[test]
fn nodes_upsert_merge_replace_get_delete() {
    for (name, g, _d) in stores() {
        g.upsert_node(
            "a",
            &["Person"],
            props([("x", Value::Int(1)), ("y", Value::from("keep"))]),
            WriteMode::Merge,
        )
        .unwrap();
        g.upsert_node("a", &["Author"], props([("x", Value::Int(2))]), WriteMode::Merge)
            .unwrap();
        let n = g.node(&k("a")).unwrap().unwrap();
        assert_eq!(n.labels, vec!["Person", "Author"], "{name}");
        assert_eq!(
            n.props,
            props([("x", Value::Int(2)), ("y", Value::from("keep"))]),
            "{name}"
        );
        g.upsert_node("a", &["Author"], props([("z", Value::Null)]), WriteMode::Replace)
            .unwrap();
        let n = g.node(&k("a")).unwrap().unwrap();
        assert_eq!(n.labels, vec!["Author"]);
        assert_eq!(n.props, props([("z", Value::Null)]));
        assert_eq!(g.label_count("Person").unwrap(), 0);
        assert_eq!(g.label_count("Author").unwrap(), 1);
        assert_eq!(g.labels().unwrap(), vec![("Author".to_string(), 1)]);
        g.upsert_node(7i64, &[], Props::new(), WriteMode::Merge).unwrap();
        assert!(g.has_node(&NodeKey::Int(7)).unwrap());
        assert!(!g.has_node(&k("7")).unwrap(), "{name}: Int(7) and \"7\" are distinct");
        assert_eq!(g.node_count().unwrap(), 2);
        g.delete_node("a").unwrap();
        assert!(g.node(&k("a")).unwrap().is_none());
        assert!(
            matches!(g.delete_node("a"), Err(Error::NodeNotFound { .. })),
            "{name}: deleting what is absent"
        );
        assert_eq!(g.node_count().unwrap(), 1);
        // Re-creating a deleted key works and starts clean.
        g.upsert_node("a", &[], Props::new(), WriteMode::Merge).unwrap();
        assert!(g.node(&k("a")).unwrap().unwrap().labels.is_empty());
        check_ok(&g);
    }
}

#[test]
fn all_value_kinds_roundtrip() {
    for (name, g, _d) in stores() {
        let mut m = Props::new();
        m.insert("inner".into(), Value::List(vec![Value::Int(1), Value::Float(2.5)]));
        let p = props([
            ("null", Value::Null),
            ("bool", Value::Bool(true)),
            ("int", Value::Int(i64::MIN)),
            ("float", Value::Float(-0.125)),
            ("str", Value::from("ünïcødé ✓")),
            ("bytes", Value::Bytes(vec![0, 255, 7])),
            ("list", Value::List(vec![Value::from("a"), Value::Null])),
            ("map", Value::Map(m)),
        ]);
        g.upsert_node("n", &["L"], p.clone(), WriteMode::Merge).unwrap();
        assert_eq!(g.node(&k("n")).unwrap().unwrap().props, p, "{name}");
        g.upsert_edge("n", "T", "m", Some(1.5), p.clone(), WriteMode::Merge)
            .unwrap();
        assert_eq!(g.edge(&k("n"), "T", &k("m")).unwrap().unwrap().props, p, "{name}");
    }
}

#[test]
fn directed_edges_degrees_and_listing() {
    for (name, g, _d) in stores() {
        g.upsert_edge("a", "R", "b", Some(2.0), Props::new(), WriteMode::Merge)
            .unwrap();
        g.upsert_edge("a", "R", "c", None, Props::new(), WriteMode::Merge)
            .unwrap();
        g.upsert_edge("c", "S", "a", Some(0.5), Props::new(), WriteMode::Merge)
            .unwrap();
        g.upsert_edge("a", "R", "a", Some(3.0), Props::new(), WriteMode::Merge)
            .unwrap(); // self-loop
                       // Endpoints were created implicitly (the default policy).
        assert!(g.has_node(&k("b")).unwrap(), "{name}");
        assert_eq!(g.edge_count().unwrap(), 4);
        let out: Vec<_> = g
            .edges(&k("a"), Direction::Out, None, None)
            .unwrap()
            .into_iter()
            .map(|e| (e.dst.clone(), e.ty.to_string()))
            .collect();
        assert_eq!(out.len(), 3);
        assert!(out.contains(&(k("b"), "R".into())) && out.contains(&(k("a"), "R".into())));
        let inn = g.edges(&k("a"), Direction::In, None, None).unwrap();
        assert_eq!(inn.len(), 2, "{name}: from c and the self-loop");
        assert!(inn.iter().all(|e| e.dst == k("a")));
        let both = g.edges(&k("a"), Direction::Both, None, None).unwrap();
        assert_eq!(both.len(), 4, "{name}: self-loop listed once in Both");
        assert_eq!(g.edges(&k("a"), Direction::Out, Some("R"), Some(2)).unwrap().len(), 2);
        assert!(g.edges(&k("a"), Direction::Out, Some("NOPE"), None).unwrap().is_empty());
        let d = g.degree(&k("a"), Direction::Out, None).unwrap();
        assert_eq!(
            (d.count, d.weight_sum),
            (3, 2.0 + 1.0 + 3.0),
            "{name}: unweighted counts 1.0"
        );
        let d = g.degree(&k("a"), Direction::In, None).unwrap();
        assert_eq!((d.count, d.weight_sum), (2, 3.5));
        assert_eq!(
            g.degree(&k("a"), Direction::Both, None).unwrap().count,
            5,
            "{name}: self-loop counts twice"
        );
        assert_eq!(g.degree(&k("a"), Direction::Out, Some("S")).unwrap().count, 0);
        assert_eq!(g.degree(&k("a"), Direction::In, Some("S")).unwrap().count, 1);
        assert!(g.has_edge(&k("a"), &k("b"), Some("R"), false).unwrap());
        assert!(!g.has_edge(&k("b"), &k("a"), Some("R"), false).unwrap());
        assert!(g.has_edge(&k("b"), &k("a"), None, true).unwrap());
        assert!(!g.has_edge(&k("b"), &k("zz"), None, true).unwrap());
        let mut nb = g.neighbors(&k("a"), Direction::Both, None, None).unwrap();
        nb.sort();
        assert_eq!(nb, vec![k("a"), k("b"), k("c")]);
        // Upsert of an existing edge: merge keeps the weight when none is given.
        g.upsert_edge("a", "R", "b", None, props([("p", Value::Int(1))]), WriteMode::Merge)
            .unwrap();
        let e = g.edge(&k("a"), "R", &k("b")).unwrap().unwrap();
        assert_eq!((e.weight, e.props.len()), (Some(2.0), 1));
        g.upsert_edge("a", "R", "b", Some(5.0), Props::new(), WriteMode::Replace)
            .unwrap();
        let e = g.edge(&k("a"), "R", &k("b")).unwrap().unwrap();
        assert_eq!((e.weight, e.props.len()), (Some(5.0), 0));
        assert_eq!(g.edge_count().unwrap(), 4, "{name}: upsert does not duplicate");
        assert_eq!(
            g.degree(&k("a"), Direction::Out, None).unwrap().weight_sum,
            5.0 + 1.0 + 3.0
        );
        g.delete_edge("a", "R", "b").unwrap();
        assert!(matches!(g.delete_edge("a", "R", "b"), Err(Error::EdgeNotFound { .. })));
        assert_eq!(g.degree(&k("b"), Direction::In, None).unwrap().count, 0);
        assert_eq!(g.edge_count().unwrap(), 3);
        // Deleting a node removes its edges and fixes its neighbours' degrees.
        g.delete_node("a").unwrap();
        assert_eq!(g.edge_count().unwrap(), 0);
        assert_eq!(g.degree(&k("c"), Direction::Both, None).unwrap().count, 0);
        assert!(matches!(
            g.edges(&k("a"), Direction::Both, None, None),
            Err(Error::NodeNotFound { .. })
        ));
        assert!(matches!(
            g.degree(&k("a"), Direction::Both, None),
            Err(Error::NodeNotFound { .. })
        ));
        check_ok(&g);
    }
}

#[test]
fn a_zero_degree_is_told_apart_from_a_deleted_node() {
    // A node with edges in any direction or of any type is alive, so its degree in another
    // direction or type is 0 without a read of its record; only a node with no edge at all
    // must be checked against deletion, one key at a time and in batches.
    for (name, g, _d) in stores() {
        g.upsert_edge("a", "R", "b", Some(2.0), Props::new(), WriteMode::Merge)
            .unwrap();
        g.upsert_edge("c", "S", "a", None, Props::new(), WriteMode::Merge)
            .unwrap();
        g.upsert_node("lonely", &[], Props::new(), WriteMode::Merge).unwrap();
        let zero = |key: &str, dir, ty| g.degree(&k(key), dir, ty).map(|d| (d.count, d.weight_sum));
        assert_eq!(zero("b", Direction::Out, None).unwrap(), (0, 0.0), "{name}");
        assert_eq!(zero("a", Direction::In, Some("R")).unwrap(), (0, 0.0), "{name}");
        assert_eq!(zero("a", Direction::Out, Some("NOPE")).unwrap(), (0, 0.0), "{name}");
        assert_eq!(zero("lonely", Direction::Both, None).unwrap(), (0, 0.0), "{name}");
        let keys = [k("b"), k("lonely"), k("a"), k("never")];
        let batch = |ty| {
            g.degrees_batch(&keys, Direction::Out, ty)
                .unwrap()
                .into_iter()
                .map(|d| d.map(|d| d.count))
                .collect::<Vec<_>>()
        };
        assert_eq!(batch(None), vec![Some(0), Some(0), Some(1), None], "{name}");
        assert_eq!(batch(Some("S")), vec![Some(0), Some(0), Some(0), None], "{name}");
        // Deleting a node deletes its edges: its other end is still alive with degree 0.
        g.delete_node("b").unwrap();
        g.delete_node("lonely").unwrap();
        for key in ["b", "lonely"] {
            assert!(
                matches!(zero(key, Direction::Out, None), Err(Error::NodeNotFound { .. })),
                "{name}: {key}"
            );
        }
        assert_eq!(zero("a", Direction::Out, None).unwrap(), (0, 0.0), "{name}");
        assert_eq!(batch(None), vec![None, None, Some(0), None], "{name}");
        // A node whose last edge is deleted is still alive.
        g.delete_edge("c", "S", "a").unwrap();
        assert_eq!(zero("a", Direction::Both, None).unwrap(), (0, 0.0), "{name}");
        assert_eq!(zero("c", Direction::Both, None).unwrap(), (0, 0.0), "{name}");
        check_ok(&g);
    }
}

#[test]
fn undirected_types_store_one_edge_per_pair() {
    for (name, g, _d) in stores() {
        g.define_edge_type(
            "REL",
            EdgeTypeOptions {
                undirected: true,
                multi: false,
            },
        )
        .unwrap();
        g.upsert_edge(
            "a",
            "REL",
            "b",
            Some(1.0),
            props([("d", Value::from("x"))]),
            WriteMode::Merge,
        )
        .unwrap();
        g.upsert_edge("b", "REL", "a", Some(4.0), Props::new(), WriteMode::Merge)
            .unwrap();
        assert_eq!(g.edge_count().unwrap(), 1, "{name}: (a,b) and (b,a) are one edge");
        let e = g.edge(&k("b"), "REL", &k("a")).unwrap().unwrap();
        assert_eq!(
            (e.weight, e.props.get("d").cloned()),
            (Some(4.0), Some(Value::from("x")))
        );
        for dir in [Direction::Out, Direction::In, Direction::Both] {
            for (me, other) in [("a", "b"), ("b", "a")] {
                let es = g.edges(&k(me), dir, None, None).unwrap();
                assert_eq!(es.len(), 1, "{name} {dir:?}");
                assert_eq!(
                    (es[0].src.clone(), es[0].dst.clone()),
                    (k(me), k(other)),
                    "listed from the queried end"
                );
                assert_eq!(g.degree(&k(me), dir, None).unwrap().count, 1);
                assert_eq!(g.degree(&k(me), dir, Some("REL")).unwrap().weight_sum, 4.0);
            }
        }
        assert!(g.has_edge(&k("b"), &k("a"), Some("REL"), false).unwrap());
        g.upsert_edge("a", "REL", "a", None, Props::new(), WriteMode::Merge)
            .unwrap();
        assert_eq!(
            g.degree(&k("a"), Direction::Both, None).unwrap().count,
            3,
            "{name}: undirected self-loop counts 2"
        );
        assert_eq!(g.edges(&k("a"), Direction::Both, None, None).unwrap().len(), 2);
        assert_eq!(g.edge_count().unwrap(), 2);
        check_ok(&g);
        g.delete_edge("b", "REL", "a").unwrap();
        assert_eq!(g.degree(&k("b"), Direction::Both, None).unwrap().count, 0);
        assert_eq!(g.edge_count().unwrap(), 1);
        g.delete_node("a").unwrap();
        assert_eq!(g.edge_count().unwrap(), 0);
        assert!(matches!(
            g.define_edge_type("REL", EdgeTypeOptions::default()),
            Err(Error::EdgeType { .. })
        ));
        check_ok(&g);
    }
}

#[test]
fn multi_edges_have_stable_ids() {
    for (name, g, _d) in stores() {
        g.define_edge_type(
            "FLIGHT",
            EdgeTypeOptions {
                undirected: false,
                multi: true,
            },
        )
        .unwrap();
        let mut tx = g.write().unwrap();
        let e1 = tx
            .add_edge(
                "JFK",
                "FLIGHT",
                "LHR",
                Some(1.0),
                props([("airline", Value::from("BA"))]),
            )
            .unwrap();
        let e2 = tx
            .add_edge(
                "JFK",
                "FLIGHT",
                "LHR",
                Some(2.0),
                props([("airline", Value::from("AA"))]),
            )
            .unwrap();
        tx.commit().unwrap();
        assert_ne!(e1, e2);
        assert_eq!(g.edge_count().unwrap(), 2, "{name}");
        assert_eq!(g.edges(&k("JFK"), Direction::Out, None, None).unwrap().len(), 2);
        assert_eq!(
            g.degree(&k("LHR"), Direction::In, None).unwrap(),
            Degree {
                count: 2,
                weight_sum: 3.0
            }
        );
        assert_eq!(g.edge_by_id(e2).unwrap().unwrap().props["airline"], Value::from("AA"));
        let mut tx = g.write().unwrap();
        tx.update_edge_by_id(e1, Some(10.0), Props::new(), WriteMode::Merge)
            .unwrap();
        tx.commit().unwrap();
        assert_eq!(g.degree(&k("JFK"), Direction::Out, None).unwrap().weight_sum, 12.0);
        assert!(matches!(
            g.upsert_edge("JFK", "FLIGHT", "LHR", None, Props::new(), WriteMode::Merge),
            Err(Error::EdgeType { .. })
        ));
        let mut tx = g.write().unwrap();
        tx.delete_edge_by_id(e1).unwrap();
        tx.commit().unwrap();
        assert!(g.edge_by_id(e1).unwrap().is_none());
        assert_eq!(g.edge_by_id(e2).unwrap().unwrap().weight, Some(2.0));
        check_ok(&g);
        g.delete_edge("JFK", "FLIGHT", "LHR").unwrap();
        assert_eq!(g.edge_count().unwrap(), 0);
        let mut tx = g.write().unwrap();
        assert!(matches!(tx.delete_edge_by_id(e2), Err(Error::EdgeIdNotFound { .. })));
        check_ok(&g);
    }
}

#[test]
fn reject_policy_and_bad_input() {
    let cfg = Config {
        missing_endpoints: MissingEndpoints::Reject,
        ..Config::default()
    };
    let g = Graph::in_memory_with(cfg);
    assert!(matches!(
        g.upsert_edge("a", "R", "b", None, Props::new(), WriteMode::Merge),
        Err(Error::NodeNotFound { .. })
    ));
    assert_eq!(g.node_count().unwrap(), 0, "nothing half-applied");
    let g = Graph::in_memory();
    type Write = Box<dyn Fn(&Graph) -> Result<()>>;
    let bad: Vec<(Write, &str)> = vec![
        (
            Box::new(|g| g.upsert_node("", &[], Props::new(), WriteMode::Merge)),
            "empty key",
        ),
        (
            Box::new(|g| g.upsert_node("x".repeat(MAX_KEY_BYTES + 1), &[], Props::new(), WriteMode::Merge)),
            "long key",
        ),
        (
            Box::new(|g| g.upsert_node("a", &[""], Props::new(), WriteMode::Merge)),
            "empty label",
        ),
        (
            Box::new(|g| g.upsert_edge("a", "", "b", None, Props::new(), WriteMode::Merge)),
            "empty type",
        ),
        (
            Box::new(|g| g.upsert_edge("a", "R", "b", Some(f64::NAN), Props::new(), WriteMode::Merge)),
            "NaN weight",
        ),
        (
            Box::new(|g| {
                g.upsert_node(
                    "a",
                    &[],
                    props([("big", Value::Bytes(vec![0; MAX_PROPS_BYTES + 1]))]),
                    WriteMode::Merge,
                )
            }),
            "huge value",
        ),
    ];
    for (f, what) in bad {
        let e = f(&g).expect_err(what);
        assert!(!e.to_string().is_empty());
    }
    assert_eq!(g.node_count().unwrap(), 0);
    // A bad item in a batch: nothing of the batch is applied, the error names the item.
    let batch = vec![
        EdgeInput::new("a", "R", "b"),
        EdgeInput::new("b", "R", "c").weight(f64::INFINITY),
    ];
    match g.upsert_edges(&batch, WriteMode::Merge) {
        Err(Error::InBatch { index: 1, .. }) => {}
        other => panic!("expected the error at item 1, got {other:?}"),
    }
    assert_eq!((g.node_count().unwrap(), g.edge_count().unwrap()), (0, 0));
    // After an error the transaction refuses further work and commits nothing.
    let mut tx = g.write().unwrap();
    tx.upsert_node("ok", &[], Props::new(), WriteMode::Merge).unwrap();
    assert!(tx.delete_node("missing").is_err());
    assert!(tx.upsert_node("ok2", &[], Props::new(), WriteMode::Merge).is_err());
    assert!(tx.commit().is_err());
    assert_eq!(g.node_count().unwrap(), 0);
}

#[test]
fn transactions_read_their_writes_and_roll_back() {
    for (name, g, _d) in stores() {
        let mut tx = g.write().unwrap();
        tx.upsert_edge("a", "R", "b", None, Props::new(), WriteMode::Merge)
            .unwrap();
        tx.upsert_edge("a", "R", "b", Some(2.0), Props::new(), WriteMode::Merge)
            .unwrap();
        tx.delete_node("b").unwrap();
        tx.upsert_edge("a", "R", "b", Some(3.0), Props::new(), WriteMode::Merge)
            .unwrap();
        drop(tx);
        assert_eq!(g.node_count().unwrap(), 0, "{name}: dropped transaction leaves nothing");
        let mut tx = g.write().unwrap();
        tx.upsert_edge("a", "R", "b", None, Props::new(), WriteMode::Merge)
            .unwrap();
        tx.delete_node("b").unwrap();
        tx.upsert_edge("a", "R", "b", Some(3.0), Props::new(), WriteMode::Merge)
            .unwrap();
        tx.commit().unwrap();
        assert_eq!(g.edge_count().unwrap(), 1, "{name}");
        assert_eq!(
            g.degree(&k("a"), Direction::Out, None).unwrap(),
            Degree {
                count: 1,
                weight_sum: 3.0
            }
        );
        assert_eq!(
            g.degree(&k("b"), Direction::In, None).unwrap(),
            Degree {
                count: 1,
                weight_sum: 3.0
            }
        );
        check_ok(&g);
    }
}

#[test]
fn snapshots_see_one_state() {
    for (name, g, _d) in stores() {
        g.upsert_edge("a", "R", "b", None, Props::new(), WriteMode::Merge)
            .unwrap();
        let snap = g.read();
        g.upsert_edge("a", "R", "c", None, Props::new(), WriteMode::Merge)
            .unwrap();
        g.delete_node("b").unwrap();
        assert_eq!(
            snap.edges(&k("a"), Direction::Out, None, None).unwrap().len(),
            1,
            "{name}"
        );
        assert!(snap.has_node(&k("b")).unwrap());
        assert!(!snap.has_node(&k("c")).unwrap());
        assert_eq!(snap.edge_count().unwrap(), 1);
        assert_eq!(g.edges(&k("a"), Direction::Out, None, None).unwrap()[0].dst, k("c"));
        let all: Vec<Node> = snap.scan_nodes(1).map(|n| n.unwrap()).collect();
        assert_eq!(all.len(), 2);
    }
}

#[test]
fn batch_reads_mark_missing_items() {
    for (name, g, _d) in stores() {
        g.upsert_edge("a", "R", "b", None, Props::new(), WriteMode::Merge)
            .unwrap();
        g.upsert_node("iso", &[], Props::new(), WriteMode::Merge).unwrap();
        let keys = [k("a"), k("missing"), k("iso")];
        let nodes = g.nodes_batch(&keys).unwrap();
        assert!(nodes[0].is_some() && nodes[1].is_none() && nodes[2].is_some(), "{name}");
        let deg = g.degrees_batch(&keys, Direction::Both, None).unwrap();
        assert_eq!(
            deg.iter().map(|d| d.map(|d| d.count)).collect::<Vec<_>>(),
            vec![Some(1), None, Some(0)]
        );
        let edges = g.edges_batch(&keys, Direction::Both, None, None).unwrap();
        assert_eq!(edges[0].as_ref().unwrap().len(), 1);
        assert!(edges[1].is_none());
        assert_eq!(
            edges[2].as_ref().unwrap().len(),
            0,
            "isolated node: empty list, not None"
        );
        let pairs = [(k("b"), k("a")), (k("a"), k("iso"))];
        let found = g.edges_between_batch(&pairs, None, true).unwrap();
        assert!(found[0].is_some() && found[1].is_none());
    }
}

#[test]
fn scan_streams_every_node() {
    let g = Graph::in_memory();
    let nodes: Vec<NodeInput> = (0..2500i64)
        .map(|i| NodeInput::new(i).label(if i % 2 == 0 { "Even" } else { "Odd" }))
        .collect();
    g.upsert_nodes(&nodes, WriteMode::Merge).unwrap();
    let mut keys: Vec<NodeKey> = g.scan_nodes().map(|n| n.unwrap().key).collect();
    keys.sort();
    assert_eq!(keys, (0..2500i64).map(NodeKey::Int).collect::<Vec<_>>());
    assert_eq!(g.label_count("Even").unwrap(), 1250);
    assert_eq!(
        g.nodes_with_label("Odd", Some(3)).unwrap(),
        vec![NodeKey::Int(1), NodeKey::Int(3), NodeKey::Int(5)]
    );
}

#[test]
fn concurrent_readers_beside_a_writer() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path()).unwrap();
    g.upsert_node("hub", &[], Props::new(), WriteMode::Merge).unwrap();
    std::thread::scope(|s| {
        let w = g.clone();
        s.spawn(move || {
            for i in 0..2000i64 {
                // Each batch adds two edges; readers must never see an odd count.
                let batch = [EdgeInput::new("hub", "R", i * 2), EdgeInput::new("hub", "R", i * 2 + 1)];
                w.upsert_edges(&batch, WriteMode::Merge).unwrap();
            }
        });
        for _ in 0..3 {
            let r = g.clone();
            s.spawn(move || {
                for _ in 0..2000 {
                    let snap = r.read();
                    let d = snap.degree(&k("hub"), Direction::Out, None).unwrap().count;
                    assert_eq!(d % 2, 0, "a batch was seen half-applied");
                    assert_eq!(
                        snap.edges(&k("hub"), Direction::Out, None, None).unwrap().len() as u64,
                        d
                    );
                }
            });
        }
    });
    assert_eq!(g.degree(&k("hub"), Direction::Out, None).unwrap().count, 4000);
    check_ok(&g);
}

#[test]
fn readers_never_see_data_of_types_or_labels_they_do_not_know() {
    // Each batch creates a new edge type and a new label; readers of snapshots and of the
    // latest state must always be able to name the types and labels of what they read.
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path()).unwrap();
    g.upsert_node("hub", &[], Props::new(), WriteMode::Merge).unwrap();
    std::thread::scope(|s| {
        let w = g.clone();
        s.spawn(move || {
            for i in 0..400i64 {
                let mut tx = w.write().unwrap();
                if i % 2 == 0 {
                    tx.define_edge_type(
                        &format!("U{i}"),
                        EdgeTypeOptions {
                            undirected: true,
                            multi: false,
                        },
                    )
                    .unwrap();
                }
                tx.upsert_edge(
                    "hub",
                    &format!("{}{i}", if i % 2 == 0 { "U" } else { "T" }),
                    i,
                    None,
                    Props::new(),
                    WriteMode::Merge,
                )
                .unwrap();
                tx.upsert_node(i, &[&format!("L{i}")], Props::new(), WriteMode::Merge)
                    .unwrap();
                tx.commit().unwrap();
            }
        });
        for reader in 0..2 {
            let r = g.clone();
            s.spawn(move || {
                for round in 0..600 {
                    let latest = r.edges(&k("hub"), Direction::In, None, None).unwrap();
                    let snap = r.read();
                    let snapped = snap.edges(&k("hub"), Direction::Both, None, None).unwrap();
                    assert!(snapped.iter().all(|e| !e.ty.is_empty()));
                    let n = (round as i64 * 7 + reader) % 400;
                    if let Some(node) = snap.node(&NodeKey::Int(n)).unwrap() {
                        assert_eq!(node.labels, vec![format!("L{n}")], "a node read without its label");
                    }
                    if let Some(node) = r.node(&NodeKey::Int(n)).unwrap() {
                        assert_eq!(node.labels, vec![format!("L{n}")], "a node read without its label");
                    }
                    let _ = latest;
                }
            });
        }
    });
    assert_eq!(g.edge_count().unwrap(), 400);
    check_ok(&g);
}

/// The in-memory key index (decision 0014) only ever speeds reads up: with it warm, cold,
/// or too small to hold the keys, every read answers as the store says, including reads of
/// snapshots taken before the keys existed and of keys deleted and created again.
#[test]
fn key_index_never_changes_an_answer() {
    let dir = tempfile::tempdir().unwrap();
    // 16 KiB: a few keys a shard, so reads keep emptying shards and falling back.
    let tiny = Config {
        id_cache_bytes: 16 << 10,
        ..Config::default().with_memory_budget(8 << 20)
    };
    for cfg in [Config::default(), tiny] {
        let path = dir.path().join(format!("s{}", cfg.id_cache_bytes));
        let g = Graph::open_with(&path, cfg.clone()).unwrap();
        let before = g.read();
        let keys: Vec<NodeKey> = (0..3000).map(|i| k(&format!("n{i}"))).collect();
        for w in keys.windows(2).step_by(2) {
            g.upsert_edge(
                w[0].clone(),
                "R",
                w[1].clone(),
                Some(1.0),
                Props::new(),
                WriteMode::Merge,
            )
            .unwrap();
        }
        g.upsert_node(NodeKey::Int(-7), &["I"], Props::new(), WriteMode::Merge)
            .unwrap();
        let long = k(&"x".repeat(300));
        g.upsert_node(long.clone(), &[], Props::new(), WriteMode::Merge)
            .unwrap();
        g.delete_node("n10").unwrap();
        let middle = g.read();
        g.upsert_node("n10", &["Again"], Props::new(), WriteMode::Merge)
            .unwrap();
        assert!(g.warm_key_index().unwrap() > 0);
        let mut probe = keys.clone();
        probe.extend([NodeKey::Int(-7), long.clone(), k("absent"), NodeKey::Int(7)]);
        let check = |what: &str, r: &dyn GraphRead, live: &dyn Fn(&NodeKey) -> bool| {
            let nodes = r.nodes_batch(&probe).unwrap();
            let degs = r.degrees_batch(&probe, Direction::Both, None).unwrap();
            for (i, key) in probe.iter().enumerate() {
                assert_eq!(nodes[i].is_some(), live(key), "{what}: node {key:?}");
                assert_eq!(degs[i].is_some(), live(key), "{what}: degree {key:?}");
                assert_eq!(r.has_node(key).unwrap(), live(key), "{what}: has_node {key:?}");
            }
            let pairs: Vec<(NodeKey, NodeKey)> = keys.chunks(2).map(|c| (c[1].clone(), c[0].clone())).collect();
            let edges = r.edges_between_batch(&pairs, Some("R"), true).unwrap();
            for (p, e) in pairs.iter().zip(&edges) {
                let expect = live(&p.0) && live(&p.1) && p.0 != k("n11") && p.1 != k("n10");
                assert_eq!(e.is_some(), expect, "{what}: edge {p:?}");
            }
        };
        check("before any write", &before, &|_| false);
        let created = |key: &NodeKey| !matches!(key, NodeKey::Str(s) if s == "absent") && *key != NodeKey::Int(7);
        check("after deleting n10", &middle, &|key| created(key) && *key != k("n10"));
        check("latest", &g, &created);
        drop((before, middle, g));
        let g = Graph::open_with(&path, cfg).unwrap();
        check("reopened, cold index", &g, &created);
        g.warm_key_index().unwrap();
        check("reopened, warm index", &g, &created);
    }
}
