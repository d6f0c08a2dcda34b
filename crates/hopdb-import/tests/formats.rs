//! Parquet, Arrow IPC, LightRAG GraphML and Microsoft GraphRAG inputs, and the Parquet export.
//!
//! - Round trips through `export_parquet` and the Parquet reader, on both engines, of a graph
//!   with every value kind, integer and string keys, labels, weights, simple, multi and
//!   undirected types and self-loops: nodes, labels, properties, edges from both ends,
//!   degrees and counts compared.
//! - Arrow IPC files (file format with lz4, stream format) written here with the arrow crate.
//! - Every LightRAG GraphML in ../shared/datasets against a separate plain-text scan of the
//!   XML; both GraphRAG outputs against their parquet tables read here with the parquet crate.
//! - Bad rows: a null id stops the import naming file, row and column, the store unchanged; a
//!   tolerance skips and counts it.
//!
//! The dataset tests skip, saying so, when the datasets are absent.
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use arrow::array::{
    Array, ArrayRef, BinaryArray, BooleanArray, DictionaryArray, Float32Array, Int32Array, Int64Array, ListBuilder,
    MapBuilder, RecordBatch, StringArray, StringBuilder, StructArray, TimestampSecondArray, UInt8Array,
};
use arrow::datatypes::{DataType, Field, Int8Type, Schema};
use hopdb_core::{Direction, EdgeTypeOptions, Graph, GraphRead, NodeKey, Props, Value, WriteMode};
use hopdb_import::parquet::{export_parquet, parquet_export_spec, Columns, TableInput};
use hopdb_import::{import, BadPolicy, ImportError, ImportSpec, NoProgress};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use hopdb_testdata::datasets;

fn p(pairs: Vec<(&str, Value)>) -> Props {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

fn s(x: &str) -> Value {
    Value::Str(x.into())
}

fn list(v: Vec<Value>) -> Value {
    Value::List(v)
}

fn map(pairs: Vec<(&str, Value)>) -> Value {
    Value::Map(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

// ---------------------------------------------------------------------------------------------
// A graph with everything, and a comparable dump of a graph.

const KNOWS: &str = "KNOWS"; // directed, simple
const LINK: &str = "LINK"; // undirected, simple
const PAR: &str = "PAR"; // directed, multi
const UPAR: &str = "UPAR"; // undirected, multi

fn build(g: &Graph, mixed_keys: bool) {
    let k = |i: i64| -> NodeKey {
        if mixed_keys && i % 2 == 0 {
            NodeKey::Str(format!("n{i}"))
        } else {
            NodeKey::Int(i)
        }
    };
    g.define_edge_type(KNOWS, EdgeTypeOptions::default()).unwrap();
    g.define_edge_type(
        LINK,
        EdgeTypeOptions {
            undirected: true,
            multi: false,
        },
    )
    .unwrap();
    g.define_edge_type(
        PAR,
        EdgeTypeOptions {
            undirected: false,
            multi: true,
        },
    )
    .unwrap();
    g.define_edge_type(
        UPAR,
        EdgeTypeOptions {
            undirected: true,
            multi: true,
        },
    )
    .unwrap();
    let mut tx = g.write().unwrap();
    for i in 0..40i64 {
        let labels: Vec<&str> = match i % 4 {
            0 => vec![],
            1 => vec!["Person"],
            2 => vec!["Person", "Has Space"],
            _ => vec!["Ünïcode"],
        };
        let mut props = p(vec![
            ("int", Value::Int(i * 1_000_000_007 - 17)),
            (
                "float",
                Value::Float(match i {
                    3 => f64::NAN,
                    4 => f64::INFINITY,
                    5 => -0.0,
                    _ => i as f64 / 3.0,
                }),
            ),
            ("bool", Value::Bool(i % 3 == 0)),
            ("str", s(&format!("née \"{i}\",\n; |x|"))),
            (
                "bytes",
                Value::Bytes((0..(i % 5) as u8).map(|b| b.wrapping_mul(97)).collect()),
            ),
            ("ints", list((0..i % 4).map(Value::Int).collect())),
            ("strs", list(vec![s("a"), s(&i.to_string())])),
        ]);
        if i % 2 == 0 {
            // Mixed kinds in one property, nested values, explicit nulls: JSON columns.
            props.insert("mixed".into(), Value::Int(i));
            props.insert(
                "nested".into(),
                map(vec![
                    ("b", Value::Bytes(vec![0, 255])),
                    (
                        "l",
                        list(vec![Value::Int(1), Value::Float(1.5), Value::Null, list(vec![])]),
                    ),
                    ("m", map(vec![("x", s("y"))])),
                ]),
            );
            props.insert("null".into(), Value::Null);
        } else {
            props.insert("mixed".into(), s("odd"));
            props.insert("nested".into(), list(vec![list(vec![Value::Int(i)])]));
        }
        if i == 7 {
            // Names the export's reserved columns use, and one that ends in `:json`.
            props.insert("id".into(), s("not the key"));
            props.insert("labels".into(), list(vec![s("not labels")]));
            props.insert("x:json".into(), Value::Int(5));
            props.insert("max".into(), Value::Int(i64::MAX));
            props.insert("min".into(), Value::Int(i64::MIN));
            props.insert("empty".into(), s(""));
        }
        tx.upsert_node(k(i), &labels, props, WriteMode::Merge).unwrap();
    }
    if mixed_keys {
        // A string key that reads like an integer key, and both next to each other.
        tx.upsert_node(NodeKey::Str("7".into()), &["Str"], Props::new(), WriteMode::Merge)
            .unwrap();
    }
    for i in 0..40i64 {
        let (a, b, c) = (k(i), k((i * 7 + 3) % 40), k((i + 1) % 40));
        let w = if i % 3 == 0 { None } else { Some(i as f64 * 0.25 - 2.0) };
        let eprops = p(vec![("since", Value::Int(1900 + i)), ("note", s(&format!("e{i}")))]);
        tx.upsert_edge(a.clone(), KNOWS, b.clone(), w, eprops.clone(), WriteMode::Merge)
            .unwrap();
        tx.upsert_edge(a.clone(), LINK, c.clone(), w, Props::new(), WriteMode::Merge)
            .unwrap();
        tx.add_edge(a.clone(), PAR, b.clone(), w, eprops.clone()).unwrap();
        if i % 5 == 0 {
            // Parallel edges, self-loops, property names the export reserves.
            tx.add_edge(
                a.clone(),
                PAR,
                b.clone(),
                Some(9.5),
                p(vec![("src", s("x")), ("weight", Value::Int(1))]),
            )
            .unwrap();
            tx.add_edge(a.clone(), PAR, a.clone(), None, Props::new()).unwrap();
            tx.add_edge(a.clone(), UPAR, c.clone(), Some(1.0), Props::new())
                .unwrap();
            tx.add_edge(
                c.clone(),
                UPAR,
                a.clone(),
                Some(2.0),
                p(vec![("dup", Value::Bool(true))]),
            )
            .unwrap();
            tx.add_edge(a.clone(), UPAR, a.clone(), Some(3.0), Props::new())
                .unwrap();
            tx.upsert_edge(
                a.clone(),
                LINK,
                a.clone(),
                Some(4.0),
                p(vec![("loop", Value::Bool(true))]),
                WriteMode::Merge,
            )
            .unwrap();
            tx.upsert_edge(a.clone(), KNOWS, a.clone(), None, Props::new(), WriteMode::Merge)
                .unwrap();
        }
    }
    tx.commit().unwrap();
}

/// Nodes, edges, (label, count), (type, undirected, multi, count).
type Counts = (u64, u64, Vec<(String, u64)>, Vec<(String, bool, bool, u64)>);

#[derive(Debug, PartialEq)]
struct Dump {
    nodes: BTreeMap<NodeKey, String>,
    /// Per node and direction: its edges (without multi-edge ids), sorted.
    edges: BTreeMap<(NodeKey, u8), Vec<String>>,
    degrees: BTreeMap<(NodeKey, u8), (u64, String)>,
    counts: Counts,
}

fn dump(g: &Graph) -> Dump {
    let mut d = Dump {
        nodes: BTreeMap::new(),
        edges: BTreeMap::new(),
        degrees: BTreeMap::new(),
        counts: (0, 0, Vec::new(), Vec::new()),
    };
    for n in g.scan_nodes() {
        let n = n.unwrap();
        let mut labels = n.labels.clone();
        labels.sort();
        d.nodes.insert(n.key.clone(), format!("{labels:?} {:?}", n.props));
        for (i, dir) in [Direction::Out, Direction::In, Direction::Both].into_iter().enumerate() {
            let mut es: Vec<String> = g
                .edges(&n.key, dir, None, None)
                .unwrap()
                .into_iter()
                .map(|e| {
                    format!(
                        "{:?} {} {:?} {:?} {:?}",
                        e.src,
                        e.ty,
                        e.dst,
                        e.weight.map(f64::to_bits),
                        e.props
                    )
                })
                .collect();
            es.sort();
            d.edges.insert((n.key.clone(), i as u8), es);
            let deg = g.degree(&n.key, dir, None).unwrap();
            d.degrees
                .insert((n.key.clone(), i as u8), (deg.count, format!("{:.9}", deg.weight_sum)));
        }
    }
    let st = g.stats().unwrap();
    let mut labels = st.labels.clone();
    labels.sort();
    let mut types: Vec<_> = st
        .edge_types
        .iter()
        .map(|(t, c)| (t.name.to_string(), t.options.undirected, t.options.multi, *c))
        .collect();
    types.sort();
    d.counts = (st.nodes, st.edges, labels, types);
    d
}

fn parquet_schema(path: &Path) -> Arc<Schema> {
    ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(path).unwrap())
        .unwrap()
        .schema()
        .clone()
}

fn roundtrip(src: &Graph, fresh: &Graph, mixed_keys: bool) {
    build(src, mixed_keys);
    let before = dump(src);
    assert!(before.counts.0 >= 40 && before.counts.1 > 100, "{:?}", before.counts);
    let out = tempfile::tempdir().unwrap();
    let sum = export_parquet(src, out.path()).unwrap();
    assert_eq!(sum.nodes, before.counts.0);
    assert_eq!(sum.files.len(), 1 + 4 + 1, "{:?}", sum.files);

    // The column scheme.
    let nodes = parquet_schema(&out.path().join("nodes.parquet"));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("manifest.json")).unwrap()).unwrap();
    let id_col = manifest["nodes"]["id_column"].as_str().unwrap();
    assert_eq!(id_col, "_id", "a property named id moves the key column");
    assert_eq!(manifest["nodes"]["labels_column"], "_labels");
    let ty = |name: &str| nodes.field_with_name(name).unwrap().data_type().clone();
    if mixed_keys {
        assert_eq!(ty("_id:json"), DataType::Utf8);
    } else {
        assert_eq!(ty("_id"), DataType::Int64);
    }
    assert_eq!(ty("int"), DataType::Int64);
    assert_eq!(ty("float"), DataType::Float64);
    assert_eq!(ty("bool"), DataType::Boolean);
    assert_eq!(ty("str"), DataType::Utf8);
    assert_eq!(ty("bytes"), DataType::Binary);
    assert!(matches!(ty("ints"), DataType::List(f) if f.data_type() == &DataType::Int64));
    assert!(matches!(ty("_labels"), DataType::List(f) if f.data_type() == &DataType::Utf8));
    for json in ["mixed:json", "nested:json", "null:json", "x:json:json"] {
        assert_eq!(ty(json), DataType::Utf8, "{json}");
    }
    let rels = manifest["relationships"].as_array().unwrap();
    let upar = rels.iter().find(|r| r["type"] == UPAR).unwrap();
    assert_eq!(
        (upar["undirected"].as_bool(), upar["multi"].as_bool()),
        (Some(true), Some(true))
    );
    let par = rels.iter().find(|r| r["type"] == PAR).unwrap();
    assert_eq!(
        (par["src_column"].as_str(), par["weight_column"].as_str()),
        (Some("_src"), Some("_weight"))
    );
    let edges_written: u64 = rels.iter().map(|r| r["rows"].as_u64().unwrap()).sum();
    assert_eq!(edges_written, before.counts.1, "each edge written once");
    assert_eq!(sum.edges, before.counts.1);

    let spec = parquet_export_spec(out.path()).unwrap();
    let report = import(fresh, &spec, &NoProgress).unwrap();
    assert_eq!(report.nodes, before.counts.0);
    assert_eq!(report.edges, before.counts.1);
    let after = dump(fresh);
    assert_eq!(before.counts, after.counts);
    for (k, v) in &before.nodes {
        assert_eq!(Some(v), after.nodes.get(k), "node {k:?}");
    }
    for (k, v) in &before.edges {
        assert_eq!(Some(v), after.edges.get(k), "edges of {k:?}");
    }
    assert_eq!(before, after);
    assert!(fresh.check().unwrap().is_ok());
}

#[test]
fn parquet_roundtrip_in_memory() {
    roundtrip(&Graph::in_memory(), &Graph::in_memory(), true);
    roundtrip(&Graph::in_memory(), &Graph::in_memory(), false);
}

#[test]
fn parquet_roundtrip_rocksdb() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    roundtrip(&Graph::open(a.path()).unwrap(), &Graph::open(b.path()).unwrap(), true);
    // And the export read back into the other engine.
    let out = tempfile::tempdir().unwrap();
    let src = Graph::open(a.path()).unwrap();
    export_parquet(&src, out.path()).unwrap();
    let mem = Graph::in_memory();
    import(&mem, &parquet_export_spec(out.path()).unwrap(), &NoProgress).unwrap();
    assert_eq!(dump(&src), dump(&mem));
}

/// CSV export and import back: every value kind, mixed or integer keys, all four kinds of
/// edge type; also the export of a store opened through the backup of another.
fn csv_roundtrip(src: &Graph, fresh: &Graph, mixed_keys: bool) {
    build(src, mixed_keys);
    let before = dump(src);
    let out = tempfile::tempdir().unwrap();
    let sum = hopdb_import::export_csv(src, out.path()).unwrap();
    assert_eq!((sum.nodes, sum.edges), (before.counts.0, before.counts.1));
    let header = std::fs::read_to_string(out.path().join("nodes.csv")).unwrap();
    let header = header.lines().next().unwrap();
    // Every header is one neo4j-admin reads: its own types, arrays with the delimiter, and
    // JSON text in string columns the manifest lists.
    for col in [
        "_key:ID",
        "int:long",
        "float:double",
        "bool:boolean",
        "str:string",
        "strs:string[]",
        "bytes:string",
        "nested:string",
        "mixed:string",
    ] {
        assert!(header.split(',').any(|h| h == col), "{col} not in {header}");
    }
    assert!(!header.split(',').any(|h| h.ends_with(":json")), "{header}");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("manifest.json")).unwrap()).unwrap();
    let json_cols: Vec<&str> = manifest["json_columns"]["nodes.csv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    // `ints` holds empty lists (neo4j-admin cannot write one), `null` an explicit null.
    for c in ["bytes", "nested", "mixed", "ints", "null"] {
        assert!(json_cols.contains(&c), "{c} not in {json_cols:?}");
    }
    for r in manifest["relationships"].as_array().unwrap() {
        let file = r["file"].as_str().unwrap();
        let rel_header = std::fs::read_to_string(out.path().join(file)).unwrap();
        let rel_header = rel_header.lines().next().unwrap().to_string();
        assert!(
            !rel_header.contains(":WEIGHT") && !rel_header.split(',').any(|h| h.ends_with(":json")),
            "{rel_header}"
        );
        // The PAR type has a `weight` property: the weight column steps aside.
        let weight = r["weight_column"].as_str().unwrap();
        assert!(rel_header.contains(&format!(",{weight}:double")), "{rel_header}");
    }
    assert_eq!(manifest["neo4j_admin"][0], "neo4j-admin");
    let spec = hopdb_import::csv_export_spec(out.path()).unwrap();
    let report = import(fresh, &spec, &NoProgress).unwrap();
    assert_eq!((report.nodes, report.edges), (before.counts.0, before.counts.1));
    let after = dump(fresh);
    for (k, v) in &before.nodes {
        assert_eq!(Some(v), after.nodes.get(k), "node {k:?}");
    }
    for (k, v) in &before.edges {
        assert_eq!(Some(v), after.edges.get(k), "edges of {k:?}");
    }
    assert_eq!(before, after);
    assert!(fresh.check().unwrap().is_ok());
}

#[test]
fn csv_roundtrip_both_engines() {
    csv_roundtrip(&Graph::in_memory(), &Graph::in_memory(), true);
    csv_roundtrip(&Graph::in_memory(), &Graph::in_memory(), false);
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    csv_roundtrip(&Graph::open(a.path()).unwrap(), &Graph::open(b.path()).unwrap(), true);
}

#[test]
fn backup_while_writing_and_restore() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path().join("live")).unwrap();
    build(&g, true);
    let before = dump(&g);
    // A writer keeps changing the store while the backup runs: the backup is one snapshot.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (g, stop) = (g.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut i = 0i64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                g.upsert_edge(
                    NodeKey::Int(10_000 + i),
                    "LATER",
                    NodeKey::Int(20_000 + i),
                    None,
                    Props::new(),
                    hopdb_core::WriteMode::Merge,
                )
                .unwrap();
                i += 1;
            }
            i
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(20));
    let snapshot_dump = {
        let backup = dir.path().join("backup");
        let r = g.backup(&backup).unwrap();
        assert!(r.records > 0);
        let copy = Graph::open(&backup).unwrap();
        assert!(copy.check().unwrap().is_ok());
        dump(&copy)
    };
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(writer.join().unwrap() > 0);
    // The backup holds the original graph plus some prefix of the writer's edges.
    for (k, v) in &before.nodes {
        assert_eq!(Some(v), snapshot_dump.nodes.get(k), "node {k:?}");
    }
    assert!(snapshot_dump.counts.1 >= before.counts.1);
    // Restore (a backup of the backup) into a new directory gives the same graph; a used
    // directory is refused.
    let backup = Graph::open(dir.path().join("backup")).unwrap();
    backup.backup(dir.path().join("restored")).unwrap();
    assert!(backup.backup(dir.path().join("restored")).is_err());
    assert_eq!(dump(&Graph::open(dir.path().join("restored")).unwrap()), snapshot_dump);
    // An in-memory store can be saved to disk the same way.
    let mem = Graph::in_memory();
    build(&mem, false);
    mem.backup(dir.path().join("saved")).unwrap();
    assert_eq!(dump(&Graph::open(dir.path().join("saved")).unwrap()), dump(&mem));
}

// ---------------------------------------------------------------------------------------------
// Arrow IPC written here.

#[test]
fn arrow_ipc_file_and_stream() {
    let dir = tempfile::tempdir().unwrap();
    // Nodes: an IPC file, lz4-compressed (pyarrow's Feather v2 default).
    let mut labels = ListBuilder::new(StringBuilder::new());
    for ls in [vec!["A", "B"], vec![], vec!["A"]] {
        for l in ls {
            labels.values().append_value(l);
        }
        labels.append(true);
    }
    let dict: DictionaryArray<Int8Type> = vec!["red", "blue", "red"].into_iter().collect();
    let point = StructArray::from(vec![
        (
            Arc::new(Field::new("x", DataType::Int32, true)),
            Arc::new(Int32Array::from(vec![Some(1), None, Some(3)])) as ArrayRef,
        ),
        (
            Arc::new(Field::new("tag", DataType::Utf8, true)),
            Arc::new(StringArray::from(vec!["p", "q", "r"])) as ArrayRef,
        ),
    ]);
    let mut attrs = MapBuilder::new(None, StringBuilder::new(), Int64Array::builder(4));
    attrs.keys().append_value("k");
    attrs.values().append_value(7);
    attrs.append(true).unwrap();
    attrs.append(false).unwrap(); // null map: no property
    attrs.keys().append_value("z");
    attrs.values().append_null();
    attrs.append(true).unwrap();
    let cols: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(Int64Array::from(vec![10, 20, 30]))),
        ("labels", Arc::new(labels.finish())),
        (
            "name",
            Arc::new(StringArray::from(vec![Some("ten"), None, Some("thirty")])),
        ),
        ("score", Arc::new(Float32Array::from(vec![0.5, 1.5, -2.0]))),
        ("small", Arc::new(UInt8Array::from(vec![1, 2, 255]))),
        ("ok", Arc::new(BooleanArray::from(vec![Some(true), Some(false), None]))),
        ("blob", Arc::new(BinaryArray::from(vec![&b"\x00\x01"[..], b"", b"z"]))),
        ("color", Arc::new(dict)),
        ("point", Arc::new(point)),
        ("attrs", Arc::new(attrs.finish())),
        (
            "at",
            Arc::new(TimestampSecondArray::from(vec![0, 86_400, 1_700_000_000])),
        ),
        ("nothing", Arc::new(arrow::array::NullArray::new(3))),
    ];
    let batch = RecordBatch::try_from_iter(cols).unwrap();
    let nodes = dir.path().join("nodes.arrow");
    let opts = arrow::ipc::writer::IpcWriteOptions::default()
        .try_with_compression(Some(arrow::ipc::CompressionType::LZ4_FRAME))
        .unwrap();
    let mut w = arrow::ipc::writer::FileWriter::try_new_with_options(
        std::fs::File::create(&nodes).unwrap(),
        &batch.schema(),
        opts,
    )
    .unwrap();
    // Two batches: rows keep counting across them.
    w.write(&batch.slice(0, 2)).unwrap();
    w.write(&batch.slice(2, 1)).unwrap();
    w.finish().unwrap();

    // Relationships: an IPC stream, custom column names, a type column with a null (the
    // file's type applies), an integer weight.
    let rels = RecordBatch::try_from_iter(vec![
        ("from", Arc::new(Int64Array::from(vec![10, 20, 30])) as ArrayRef),
        ("to", Arc::new(Int64Array::from(vec![20, 30, 10])) as ArrayRef),
        (
            "kind",
            Arc::new(StringArray::from(vec![Some("LIKES"), None, Some("LIKES")])) as ArrayRef,
        ),
        (
            "w",
            Arc::new(Int32Array::from(vec![Some(3), None, Some(-1)])) as ArrayRef,
        ),
        ("note", Arc::new(StringArray::from(vec!["a", "b", "c"])) as ArrayRef),
    ])
    .unwrap();
    let rel_path = dir.path().join("rels.ipc");
    let mut sw =
        arrow::ipc::writer::StreamWriter::try_new(std::fs::File::create(&rel_path).unwrap(), &rels.schema()).unwrap();
    sw.write(&rels).unwrap();
    sw.finish().unwrap();

    let g = Graph::in_memory();
    let spec = ImportSpec {
        parquet_nodes: vec![TableInput {
            spec: Some("Imported".into()),
            ..TableInput::new(&nodes)
        }],
        parquet_edges: vec![TableInput {
            spec: Some("DEFAULT".into()),
            columns: Columns {
                src: "from".into(),
                dst: "to".into(),
                ty: Some("kind".into()),
                weight: Some("w".into()),
                ..Columns::default()
            },
            ..TableInput::new(&rel_path)
        }],
        ..ImportSpec::default()
    };
    let r = import(&g, &spec, &NoProgress).unwrap();
    assert_eq!((r.nodes, r.edges, r.bad), (3, 3, 0));
    let n10 = g.node(&NodeKey::Int(10)).unwrap().unwrap();
    let mut l = n10.labels.clone();
    l.sort();
    assert_eq!(l, vec!["A", "B", "Imported"]);
    assert_eq!(
        n10.props,
        p(vec![
            ("name", s("ten")),
            ("score", Value::Float(0.5)),
            ("small", Value::Int(1)),
            ("ok", Value::Bool(true)),
            ("blob", Value::Bytes(vec![0, 1])),
            ("color", s("red")),
            ("point", map(vec![("x", Value::Int(1)), ("tag", s("p"))])),
            ("attrs", map(vec![("k", Value::Int(7))])),
            ("at", s("1970-01-01T00:00:00")),
        ])
    );
    let n20 = g.node(&NodeKey::Int(20)).unwrap().unwrap();
    assert_eq!(n20.labels, vec!["Imported"]);
    assert_eq!(n20.props.get("name"), None, "null is absent");
    assert_eq!(n20.props.get("attrs"), None);
    assert_eq!(n20.props["point"], map(vec![("tag", s("q"))]));
    assert_eq!(n20.props["blob"], Value::Bytes(vec![]));
    let n30 = g.node(&NodeKey::Int(30)).unwrap().unwrap();
    assert_eq!(n30.props["small"], Value::Int(255));
    assert_eq!(n30.props["color"], s("red"));
    assert_eq!(n30.props["attrs"], map(vec![("z", Value::Null)]));
    assert_eq!(n30.props.get("ok"), None);

    let e = g.edge(&NodeKey::Int(10), "LIKES", &NodeKey::Int(20)).unwrap().unwrap();
    assert_eq!((e.weight, e.props.clone()), (Some(3.0), p(vec![("note", s("a"))])));
    let e = g
        .edge(&NodeKey::Int(20), "DEFAULT", &NodeKey::Int(30))
        .unwrap()
        .unwrap();
    assert_eq!(e.weight, None);
    let e = g.edge(&NodeKey::Int(30), "LIKES", &NodeKey::Int(10)).unwrap().unwrap();
    assert_eq!(e.weight, Some(-1.0));
}

// ---------------------------------------------------------------------------------------------
// Bad rows.

fn write_parquet(path: &Path, batch: &RecordBatch) {
    let mut w =
        parquet::arrow::ArrowWriter::try_new(std::fs::File::create(path).unwrap(), batch.schema(), None).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
}

#[test]
fn null_id_stops_or_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("people.parquet");
    write_parquet(
        &file,
        &RecordBatch::try_from_iter(vec![
            (
                "id",
                Arc::new(StringArray::from(vec![Some("a"), Some("b"), None, Some("d")])) as ArrayRef,
            ),
            ("age", Arc::new(Int64Array::from(vec![1, 2, 3, 4])) as ArrayRef),
        ])
        .unwrap(),
    );
    let rels = dir.path().join("knows.parquet");
    write_parquet(
        &rels,
        &RecordBatch::try_from_iter(vec![
            (
                "src",
                Arc::new(StringArray::from(vec![Some("a"), Some("b"), Some("a")])) as ArrayRef,
            ),
            (
                "dst",
                Arc::new(StringArray::from(vec![Some("b"), None, Some("nobody")])) as ArrayRef,
            ),
        ])
        .unwrap(),
    );
    let store = tempfile::tempdir().unwrap();
    let g = Graph::open(store.path()).unwrap();
    g.upsert_node("old", &["Old"], p(vec![("v", Value::Int(1))]), WriteMode::Merge)
        .unwrap();
    let before = dump(&g);
    let spec = ImportSpec {
        parquet_nodes: vec![TableInput::new(&file)],
        parquet_edges: vec![TableInput {
            spec: Some("KNOWS".into()),
            ..TableInput::new(&rels)
        }],
        ..ImportSpec::default()
    };
    let err = import(&g, &spec, &NoProgress).unwrap_err();
    match &err {
        ImportError::Bad {
            file: f,
            line,
            column,
            reason,
        } => {
            assert_eq!((f.as_path(), *line, column.as_deref()), (file.as_path(), 3, Some("id")));
            assert!(reason.contains("null"), "{reason}");
        }
        other => panic!("unexpected error {other}"),
    }
    let msg = err.to_string();
    assert!(msg.contains("people.parquet:3 column id"), "{msg}");
    assert_eq!(dump(&g), before, "store unchanged");

    // With a tolerance the row is skipped, counted and reported; so are the relationship with
    // a null end and the one to an unknown node.
    let report_file = dir.path().join("bad.report");
    let spec = ImportSpec {
        bad: BadPolicy {
            tolerance: Some(10),
            report: Some(report_file.clone()),
            ..BadPolicy::default()
        },
        ..spec
    };
    let r = import(&g, &spec, &NoProgress).unwrap();
    assert_eq!((r.nodes, r.edges, r.bad), (3, 1, 3));
    let report = std::fs::read_to_string(&report_file).unwrap();
    assert!(report.contains("people.parquet:3 column id"), "{report}");
    assert!(report.contains("knows.parquet:2 column dst"), "{report}");
    assert!(report.contains("knows.parquet:3"), "{report}");
    assert_eq!(g.node_count().unwrap(), 4);
    assert_eq!(g.node(&"d".into()).unwrap().unwrap().props["age"], Value::Int(4));
    assert!(g.has_edge(&"a".into(), &"b".into(), Some("KNOWS"), false).unwrap());

    // A weight that is not a number names its column.
    let wfile = dir.path().join("w.parquet");
    write_parquet(
        &wfile,
        &RecordBatch::try_from_iter(vec![
            ("src", Arc::new(StringArray::from(vec!["a"])) as ArrayRef),
            ("dst", Arc::new(StringArray::from(vec!["b"])) as ArrayRef),
            ("weight", Arc::new(StringArray::from(vec!["heavy"])) as ArrayRef),
        ])
        .unwrap(),
    );
    let spec = ImportSpec {
        parquet_edges: vec![TableInput {
            spec: Some("KNOWS".into()),
            ..TableInput::new(&wfile)
        }],
        ..ImportSpec::default()
    };
    let msg = import(&g, &spec, &NoProgress).unwrap_err().to_string();
    assert!(
        msg.contains("w.parquet:1 column weight") && msg.contains("number"),
        "{msg}"
    );
}

// ---------------------------------------------------------------------------------------------
// LightRAG GraphML, checked against a plain-text scan of the XML.

fn gunzip(path: &Path) -> String {
    let mut out = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut out)
        .unwrap();
    out
}

/// XML text with its five entities and character references resolved.
fn unescape(x: &str) -> String {
    let mut out = String::new();
    let mut rest = x;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let end = rest[i..].find(';').unwrap() + i;
        let ent = &rest[i + 1..end];
        match ent {
            "lt" => out.push('<'),
            "gt" => out.push('>'),
            "amp" => out.push('&'),
            "quot" => out.push('"'),
            "apos" => out.push('\''),
            _ if ent.starts_with("#x") => {
                out.push(char::from_u32(u32::from_str_radix(&ent[2..], 16).unwrap()).unwrap())
            }
            _ if ent.starts_with('#') => out.push(char::from_u32(ent[1..].parse().unwrap()).unwrap()),
            _ => panic!("entity {ent}"),
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

fn attr_of(tag: &str, name: &str) -> Option<String> {
    let pat = format!(" {name}=\"");
    let i = tag.find(&pat)? + pat.len();
    let j = tag[i..].find('"')? + i;
    Some(unescape(&tag[i..j]))
}

/// An element of the scan: its attributes' tag text and its data (attr.name -> text).
struct Elem {
    tag: String,
    data: HashMap<String, String>,
}

/// Splits a LightRAG GraphML file into its `<node>` and `<edge>` elements by plain string
/// search (NetworkX writes one tag per line; `<` in text is always escaped).
fn scan(xml: &str) -> (Vec<Elem>, Vec<Elem>) {
    let mut names = HashMap::new();
    for line in xml.lines().map(str::trim).filter(|l| l.starts_with("<key ")) {
        names.insert(attr_of(line, "id").unwrap(), attr_of(line, "attr.name").unwrap());
    }
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    let mut rest = xml;
    loop {
        let (Some(n), Some(e)) = (
            rest.find("<node ").or(Some(usize::MAX)),
            rest.find("<edge ").or(Some(usize::MAX)),
        ) else {
            unreachable!()
        };
        let (at, is_node) = if n < e { (n, true) } else { (e, false) };
        if at == usize::MAX {
            break;
        }
        let tag_end = rest[at..].find('>').unwrap() + at;
        let tag = &rest[at..=tag_end];
        let close = if is_node { "</node>" } else { "</edge>" };
        let body_end = if tag.ends_with("/>") {
            tag_end + 1
        } else {
            rest[tag_end..].find(close).unwrap() + tag_end
        };
        let body = &rest[tag_end + 1..body_end];
        let mut data = HashMap::new();
        let mut b = body;
        while let Some(i) = b.find("<data key=\"") {
            let k_end = b[i + 11..].find('"').unwrap() + i + 11;
            let key = &b[i + 11..k_end];
            let t_start = b[k_end..].find('>').unwrap() + k_end + 1;
            if b[..t_start].ends_with("/>") {
                data.insert(names[key].clone(), String::new()); // <data key="d6" />
                b = &b[t_start..];
                continue;
            }
            let t_end = b[t_start..].find("</data>").unwrap() + t_start;
            data.insert(names[key].clone(), unescape(&b[t_start..t_end]));
            b = &b[t_end..];
        }
        let el = Elem {
            tag: tag.to_string(),
            data,
        };
        if is_node {
            nodes.push(el);
        } else {
            edges.push(el);
        }
        rest = &rest[body_end..];
    }
    (nodes, edges)
}

fn check_lightrag(file: &Path) {
    let xml = gunzip(file);
    let (xnodes, xedges) = scan(&xml);
    let node_elems = xml.matches("<node ").count();
    let edge_elems = xml.matches("<edge ").count();
    assert_eq!((xnodes.len(), xedges.len()), (node_elems, edge_elems));
    let mut pairs = std::collections::HashSet::new();
    for e in &xedges {
        let (a, b) = (attr_of(&e.tag, "source").unwrap(), attr_of(&e.tag, "target").unwrap());
        pairs.insert(if a <= b { (a, b) } else { (b, a) });
    }
    assert_eq!(
        pairs.len(),
        edge_elems,
        "{}: the data has no repeated pair",
        file.display()
    );

    let g = Graph::in_memory();
    let spec = ImportSpec {
        graphml: vec![file.to_path_buf()],
        ..ImportSpec::default()
    };
    let r = import(&g, &spec, &NoProgress).unwrap();
    assert_eq!(
        (r.nodes, r.edges, r.bad),
        (node_elems as u64, edge_elems as u64, 0),
        "{}",
        file.display()
    );
    assert_eq!(g.node_count().unwrap(), node_elems as u64);
    assert_eq!(g.edge_count().unwrap(), edge_elems as u64);
    let types = g.edge_types().unwrap();
    assert_eq!(types.len(), usize::from(edge_elems > 0));
    if let Some((t, n)) = types.first() {
        assert_eq!(
            (&*t.name, t.options.undirected, t.options.multi, *n),
            ("RELATED", true, false, edge_elems as u64)
        );
    }

    // Spot checks: first, middle and last nodes and edges, and every node with an odd type.
    let mut picks: Vec<usize> = vec![0, 1, xnodes.len() / 2, xnodes.len() - 1];
    picks.extend(
        xnodes
            .iter()
            .enumerate()
            .filter(|(_, n)| {
                n.data
                    .get("entity_type")
                    .is_some_and(|t| hopdb_import::graphml::entity_label(t) != Some(t))
            })
            .map(|(i, _)| i)
            .take(10),
    );
    for i in picks {
        let x = &xnodes[i];
        let key = NodeKey::Str(attr_of(&x.tag, "id").unwrap());
        let n = g.node(&key).unwrap().unwrap_or_else(|| panic!("{key:?} missing"));
        for name in ["description", "entity_type", "source_id", "entity_id", "file_path"] {
            assert_eq!(
                n.props.get(name).cloned(),
                x.data.get(name).map(|v| s(v)),
                "{key:?} {name}"
            );
        }
        if let Some(c) = x.data.get("created_at") {
            assert_eq!(n.props["created_at"], Value::Int(c.parse().unwrap()));
        }
        assert_eq!(n.props.len(), x.data.len(), "{key:?}: every data value is a property");
        let want: Vec<String> = x
            .data
            .get("entity_type")
            .and_then(|t| hopdb_import::graphml::entity_label(t))
            .map(str::to_string)
            .into_iter()
            .collect();
        assert_eq!(n.labels, want, "{key:?}");
    }
    if xedges.is_empty() {
        return;
    }
    for i in [0, 1, xedges.len() / 2, xedges.len() - 1] {
        let x = &xedges[i];
        let (a, b) = (
            NodeKey::Str(attr_of(&x.tag, "source").unwrap()),
            NodeKey::Str(attr_of(&x.tag, "target").unwrap()),
        );
        for (u, v) in [(&a, &b), (&b, &a)] {
            let e = g
                .edge(u, "RELATED", v)
                .unwrap()
                .unwrap_or_else(|| panic!("{u:?} - {v:?} missing"));
            let w: f64 = x.data["weight"].parse().unwrap();
            assert_eq!(e.weight, Some(w));
            assert_eq!(e.props["weight"], Value::Float(w), "weight stays a property");
            assert_eq!(e.props.get("keywords").cloned(), x.data.get("keywords").map(|v| s(v)));
            assert_eq!(
                e.props.get("description").cloned(),
                x.data.get("description").map(|v| s(v))
            );
            assert_eq!(e.props.len(), x.data.len());
        }
    }
}

#[test]
fn lightrag_graphml_datasets() {
    let Some(dir) = datasets() else { return };
    let mut seen = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    entries.sort();
    for d in entries {
        if !d.file_name().unwrap().to_string_lossy().starts_with("lightrag-") {
            continue;
        }
        let f = d.join("graph_chunk_entity_relation.graphml.gz");
        check_lightrag(&f);
        seen += 1;
    }
    assert_eq!(seen, 5, "five LightRAG graphs in {}", dir.display());

    // Uncompressed GraphML reads the same.
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("g.graphml");
    std::fs::write(
        &plain,
        gunzip(&dir.join("lightrag-dickens-full-workdir/graph_chunk_entity_relation.graphml.gz")),
    )
    .unwrap();
    let g = Graph::in_memory();
    let r = import(
        &g,
        &ImportSpec {
            graphml: vec![plain],
            ..ImportSpec::default()
        },
        &NoProgress,
    )
    .unwrap();
    assert_eq!((r.nodes, r.edges), (322, 359));
}

#[test]
fn graphml_details_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("g.graphml");
    std::fs::write(
        &f,
        r#"<?xml version='1.0' encoding='utf-8'?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="d0" for="node" attr.name="entity_type" attr.type="string" />
  <key id="d1" for="node" attr.name="rank" attr.type="int"><default>5</default></key>
  <key id="d2" for="edge" attr.name="weight" attr.type="double" />
  <key id="d3" for="edge" attr.name="ok" attr.type="boolean" />
  <graph edgedefault="directed">
    <edge source="a" target="b"><data key="d2">2.5</data><data key="d3">true</data></edge>
    <node id="a"><data key="d0">"PERSON"</data><data key="d1">7</data></node>
    <node id="b &amp; c"><![CDATA[ignored]]><data key="d0">x&#10;y&lt;</data></node>
    <node id="b"/>
  </graph>
</graphml>
"#,
    )
    .unwrap();
    let g = Graph::in_memory();
    let r = import(
        &g,
        &ImportSpec {
            graphml: vec![f.clone()],
            ..ImportSpec::default()
        },
        &NoProgress,
    )
    .unwrap();
    assert_eq!((r.nodes, r.edges), (3, 1));
    let a = g.node(&"a".into()).unwrap().unwrap();
    assert_eq!(a.labels, vec!["PERSON"]);
    assert_eq!(
        a.props,
        p(vec![("entity_type", s("\"PERSON\"")), ("rank", Value::Int(7))])
    );
    let bc = g.node(&"b & c".into()).unwrap().unwrap();
    assert!(bc.labels.is_empty(), "a type with a newline and '<' is no label");
    assert_eq!(bc.props, p(vec![("entity_type", s("x\ny<")), ("rank", Value::Int(5))]));
    assert_eq!(
        g.node(&"b".into()).unwrap().unwrap().props,
        p(vec![("rank", Value::Int(5))])
    );
    let t = &g.edge_types().unwrap()[0].0;
    assert!(!t.options.undirected, "edgedefault=directed");
    let e = g.edge(&"a".into(), "RELATED", &"b".into()).unwrap().unwrap();
    assert_eq!((e.weight, e.props["ok"].clone()), (Some(2.5), Value::Bool(true)));
    assert!(g.edge(&"b".into(), "RELATED", &"a".into()).unwrap().is_none());

    // A bad typed value and an edge to an undeclared node: errors with lines, store unchanged.
    let bad = dir.path().join("bad.graphml");
    std::fs::write(
        &bad,
        "<graphml>\n<key id=\"r\" for=\"node\" attr.name=\"rank\" attr.type=\"long\"/>\n<graph edgedefault=\"undirected\">\n<node id=\"a\"/>\n<node id=\"b\">\n<data key=\"r\">high</data>\n</node>\n<edge source=\"a\" target=\"zz\"/>\n</graph>\n</graphml>\n",
    )
    .unwrap();
    let g = Graph::in_memory();
    let err = import(
        &g,
        &ImportSpec {
            graphml: vec![bad.clone()],
            ..ImportSpec::default()
        },
        &NoProgress,
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("bad.graphml:6 column rank") && msg.contains("not an integer"),
        "{msg}"
    );
    assert_eq!(g.node_count().unwrap(), 0);
    let spec = ImportSpec {
        graphml: vec![bad],
        bad: BadPolicy {
            tolerance: Some(5),
            report: Some(dir.path().join("r.report")),
            ..BadPolicy::default()
        },
        ..ImportSpec::default()
    };
    let r = import(&g, &spec, &NoProgress).unwrap();
    assert_eq!((r.nodes, r.edges, r.bad), (1, 0, 2));
    let report = std::fs::read_to_string(dir.path().join("r.report")).unwrap();
    assert!(report.contains("bad.graphml:8") && report.contains("zz"), "{report}");
}

// ---------------------------------------------------------------------------------------------
// Microsoft GraphRAG, checked against its parquet tables.

fn read_table(path: &Path) -> Vec<RecordBatch> {
    ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(path).unwrap())
        .unwrap()
        .build()
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn strings(batches: &[RecordBatch], col: &str) -> Vec<String> {
    batches
        .iter()
        .flat_map(|b| {
            let a = b
                .column_by_name(col)
                .unwrap()
                .as_any()
                .downcast_ref::<StringArray>()
                .unwrap()
                .clone();
            (0..a.len()).map(move |i| a.value(i).to_string())
        })
        .collect()
}

fn floats(batches: &[RecordBatch], col: &str) -> Vec<f64> {
    batches
        .iter()
        .flat_map(|b| {
            let a = b
                .column_by_name(col)
                .unwrap()
                .as_any()
                .downcast_ref::<arrow::array::Float64Array>()
                .unwrap()
                .clone();
            (0..a.len()).map(move |i| a.value(i))
        })
        .collect()
}

#[test]
fn graphrag_datasets() {
    let Some(dir) = datasets() else { return };
    for name in ["graphrag-christmas-carol", "graphrag-operation-dulce"] {
        let d = dir.join(name);
        let ents = read_table(&d.join("entities.parquet"));
        let rels = read_table(&d.join("relationships.parquet"));
        let titles = strings(&ents, "title");
        let types = strings(&ents, "type");
        let ids = strings(&ents, "id");
        let (srcs, dsts, weights) = (
            strings(&rels, "source"),
            strings(&rels, "target"),
            floats(&rels, "weight"),
        );

        // GraphRAG keeps relationships to entities it dropped: those endpoints become bare nodes.
        let known: std::collections::HashSet<&String> = titles.iter().collect();
        let missing: std::collections::BTreeSet<&String> =
            srcs.iter().chain(&dsts).filter(|t| !known.contains(t)).collect();
        eprintln!(
            "{name}: {} entities, {} relationships, {} endpoints not entities",
            titles.len(),
            srcs.len(),
            missing.len()
        );

        let g = Graph::in_memory();
        let r = import(
            &g,
            &ImportSpec {
                graphrag: vec![d.clone()],
                ..ImportSpec::default()
            },
            &NoProgress,
        )
        .unwrap();
        let nodes = (titles.len() + missing.len()) as u64;
        assert_eq!((r.nodes, r.edges, r.bad), (nodes, srcs.len() as u64, 0), "{name}");
        assert_eq!(g.node_count().unwrap(), nodes);
        assert_eq!(
            g.stats().unwrap().labels.iter().map(|(_, c)| c).sum::<u64>(),
            titles.len() as u64,
            "entities have a type"
        );
        for t in &missing {
            let n = g.node(&NodeKey::Str((*t).clone())).unwrap().unwrap();
            assert!(n.labels.is_empty());
            assert_eq!(n.props, p(vec![("title", s(t))]));
        }
        assert_eq!(g.edge_count().unwrap(), srcs.len() as u64);
        let (t, n) = &g.edge_types().unwrap()[0];
        assert_eq!(
            (&*t.name, t.options.undirected, t.options.multi, *n),
            ("RELATIONSHIP", true, true, srcs.len() as u64)
        );

        for (i, title) in titles.iter().enumerate() {
            let n = g.node(&NodeKey::Str(title.clone())).unwrap().unwrap();
            assert_eq!(n.props["title"], s(title));
            assert_eq!(n.props["type"], s(&types[i]));
            assert_eq!(n.props["id"], s(&ids[i]));
            assert!(
                matches!(&n.props["text_unit_ids"], Value::List(l) if !l.is_empty()),
                "lists stay lists"
            );
            let want: Vec<String> = if types[i].is_empty() {
                vec![]
            } else {
                vec![types[i].clone()]
            };
            assert_eq!(n.labels, want);
        }
        // Every endpoint resolves, and the weights of each unordered pair are those of its rows.
        let mut want: BTreeMap<(String, String), Vec<u64>> = BTreeMap::new();
        for i in 0..srcs.len() {
            assert!(g.has_node(&NodeKey::Str(srcs[i].clone())).unwrap(), "{}", srcs[i]);
            assert!(g.has_node(&NodeKey::Str(dsts[i].clone())).unwrap(), "{}", dsts[i]);
            let k = if srcs[i] <= dsts[i] {
                (srcs[i].clone(), dsts[i].clone())
            } else {
                (dsts[i].clone(), srcs[i].clone())
            };
            want.entry(k).or_default().push(weights[i].to_bits());
        }
        for ((a, b), mut ws) in want {
            let mut got: Vec<u64> = g
                .edges(&NodeKey::Str(a.clone()), Direction::Out, Some("RELATIONSHIP"), None)
                .unwrap()
                .into_iter()
                .filter(|e| e.dst == NodeKey::Str(b.clone()))
                .map(|e| {
                    assert_eq!(e.props["weight"], Value::Float(e.weight.unwrap()));
                    e.weight.unwrap().to_bits()
                })
                .collect();
            got.sort_unstable();
            ws.sort_unstable();
            assert_eq!(got, ws, "{name}: {a} - {b}");
        }
        // Communities: every level-0 community's entities carry its number first.
        let comms = read_table(&d.join("communities.parquet"));
        let by_id: HashMap<&str, &str> = ids
            .iter()
            .map(String::as_str)
            .zip(titles.iter().map(String::as_str))
            .collect();
        let mut checked = 0;
        for b in &comms {
            let community = b
                .column_by_name("community")
                .unwrap()
                .as_any()
                .downcast_ref::<Int64Array>()
                .unwrap();
            let level = b
                .column_by_name("level")
                .unwrap()
                .as_any()
                .downcast_ref::<Int64Array>()
                .unwrap();
            let members = b
                .column_by_name("entity_ids")
                .unwrap()
                .as_any()
                .downcast_ref::<arrow::array::ListArray>()
                .unwrap();
            for row in 0..b.num_rows() {
                let m = members.value(row);
                let m = m.as_any().downcast_ref::<StringArray>().unwrap();
                for j in 0..m.len() {
                    let title = by_id[m.value(j)];
                    let n = g.node(&NodeKey::Str(title.into())).unwrap().unwrap();
                    let Value::List(cs) = &n.props["communities"] else {
                        panic!("communities of {title}")
                    };
                    assert!(cs.contains(&Value::Int(community.value(row))));
                    if level.value(row) == 0 {
                        assert_eq!(cs[0], Value::Int(community.value(row)), "{title}");
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 0);
    }
}
