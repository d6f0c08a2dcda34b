//! neo4j-admin CSV import: headers (in the file or a header file), dialect options, id
//! groups, gzip, merging into a store with data, and every kind of bad input: each stops the
//! import with file, line, column and reason and leaves the store exactly as before, or with
//! the skip options goes to the report file and is counted.
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_core::{Direction, Graph, GraphRead, NodeKey, Value, WriteMode};
use hopdb_import::{import, BadPolicy, CsvOptions, FileGroup, GroupKeys, IdType, ImportError, ImportSpec, NoProgress};
use std::io::Write;
use std::path::{Path, PathBuf};

fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

fn group(spec: Option<&str>, files: &[&PathBuf]) -> FileGroup {
    FileGroup::new(spec, files.iter().map(|f| f.to_path_buf()).collect())
}

fn state(g: &Graph) -> String {
    let s = g.stats().unwrap();
    let mut keys: Vec<String> = g.scan_nodes().map(|n| format!("{:?}", n.unwrap())).collect();
    keys.sort();
    format!("{} {} {:?}", s.nodes, s.edges, keys)
}

#[test]
fn header_files_parts_gzip_labels_types_and_arrays() {
    let d = tempfile::tempdir().unwrap();
    let header = write(
        d.path(),
        "people-header.csv",
        "pid:ID(Person)|name|age:int|tags:string[]|score:float|ok:boolean|:LABEL\n",
    );
    let part1 = write(
        d.path(),
        "p1.csv",
        "1|'Ada, Countess'|36|math,poetry|1.5|true|Person,Writer\n2|Bob||x|2|false|\n",
    );
    let gz = d.path().join("p2.csv.gz");
    let mut enc = flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), flate2::Compression::fast());
    enc.write_all(b"3|'multi\nline'|7||||\n").unwrap();
    enc.finish().unwrap();
    let rels = write(
        d.path(),
        "r.csv",
        ":START_ID(Person)|:END_ID(Person)|since:int|:WEIGHT\n1|2|1840|0.5\n2|3||\n",
    );
    let g = Graph::in_memory();
    let spec = ImportSpec {
        nodes: vec![group(Some("Human"), &[&header, &part1, &gz])],
        relationships: vec![group(Some("KNOWS"), &[&rels])],
        csv: CsvOptions {
            delimiter: b'|',
            array_delimiter: b',',
            quote: b'\'',
            id_type: IdType::Integer,
            // One global id space: the ids are the keys.
            group_keys: GroupKeys::Plain,
            multiline_fields: true,
            ..CsvOptions::default()
        },
        ..ImportSpec::default()
    };
    let r = import(&g, &spec, &NoProgress).unwrap();
    assert_eq!((r.nodes, r.edges, r.rows), (3, 2, 5));
    let ada = g.node(&NodeKey::Int(1)).unwrap().unwrap();
    let mut labels = ada.labels.clone();
    labels.sort();
    assert_eq!(labels, ["Human", "Person", "Writer"]);
    assert_eq!(ada.props["name"], Value::from("Ada, Countess"));
    assert_eq!(
        ada.props["pid"],
        Value::Int(1),
        "a named :ID is also a property (an integer under --id-type=integer, as neo4j-admin stores it)"
    );
    assert_eq!(
        ada.props["tags"],
        Value::List(vec![Value::from("math"), Value::from("poetry")])
    );
    assert_eq!(ada.props["score"], Value::Float(1.5));
    assert_eq!(ada.props["ok"], Value::Bool(true));
    let bob = g.node(&NodeKey::Int(2)).unwrap().unwrap();
    assert!(!bob.props.contains_key("age"), "an empty field sets no property");
    assert_eq!(bob.labels, ["Human"]);
    assert_eq!(
        g.node(&NodeKey::Int(3)).unwrap().unwrap().props["name"],
        Value::from("multi\nline")
    );
    let e = g.edges(&NodeKey::Int(1), Direction::Out, Some("KNOWS"), None).unwrap();
    assert_eq!((e[0].weight, &e[0].props["since"]), (Some(0.5), &Value::Int(1840)));
    assert_eq!(g.degree(&NodeKey::Int(2), Direction::Both, None).unwrap().count, 2);
}

#[test]
fn id_groups_plain_and_prefixed() {
    let d = tempfile::tempdir().unwrap();
    let people = write(d.path(), "people.csv", ":ID(Person),name\n1,Ada\n");
    let movies = write(d.path(), "movies.csv", ":ID(Movie),title\n1,Metropolis\n");
    let acted = write(
        d.path(),
        "acted.csv",
        ":START_ID(Person),:END_ID(Movie),:TYPE\n1,1,ACTED_IN\n",
    );
    let spec = |keys| ImportSpec {
        nodes: vec![group(Some("Person"), &[&people]), group(Some("Movie"), &[&movies])],
        relationships: vec![group(None, &[&acted])],
        csv: CsvOptions {
            group_keys: keys,
            ..CsvOptions::default()
        },
        ..ImportSpec::default()
    };
    // Plain keys are global: the same id in two groups is a duplicate node.
    let g = Graph::in_memory();
    let err = import(&g, &spec(GroupKeys::Plain), &NoProgress)
        .unwrap_err()
        .to_string();
    assert!(err.contains("movies.csv:2") && err.contains("defined twice"), "{err}");
    assert_eq!(g.stats().unwrap().nodes, 0);
    import(&g, &spec(GroupKeys::Prefixed), &NoProgress).unwrap();
    assert!(g
        .has_edge(&"Person:1".into(), &"Movie:1".into(), Some("ACTED_IN"), false)
        .unwrap());
    // A relationship file naming a group no node file defines.
    let bad = write(d.path(), "bad.csv", ":START_ID(Person),:END_ID(Film),:TYPE\n1,1,X\n");
    let g = Graph::in_memory();
    let spec = ImportSpec {
        nodes: vec![group(None, &[&people])],
        relationships: vec![group(None, &[&bad])],
        ..ImportSpec::default()
    };
    let err = import(&g, &spec, &NoProgress).unwrap_err().to_string();
    assert!(
        err.contains("bad.csv:1") && err.contains("unknown id group 'Film'"),
        "{err}"
    );
}

struct BadCase {
    name: &'static str,
    nodes: &'static str,
    rels: &'static str,
    /// What the error must say: "FILE:LINE", the column if any, and the reason.
    expect: &'static [&'static str],
}

const BAD: &[BadCase] = &[
    BadCase {
        name: "wrong column count",
        nodes: ":ID,age:int\na,1\nb,2,3\n",
        rels: ":START_ID,:END_ID,:TYPE\na,b,R\n",
        expect: &["nodes.csv:3", "3 fields where the header has 2"],
    },
    BadCase {
        name: "unparsable number",
        nodes: ":ID,age:int\na,1\nb,x2\n",
        rels: ":START_ID,:END_ID,:TYPE\na,b,R\n",
        expect: &["nodes.csv:3", "column age:int", "'x2' is not an integer"],
    },
    BadCase {
        name: "bad float and boolean",
        nodes: ":ID,ok:boolean\na,true\nb,maybe\n",
        rels: ":START_ID,:END_ID,:TYPE\na,b,R\n",
        expect: &["nodes.csv:3", "column ok:boolean", "not a boolean"],
    },
    BadCase {
        name: "edge to an undefined id",
        nodes: ":ID\na\nb\n",
        rels: ":START_ID,:END_ID,:TYPE\na,b,R\na,zz,R\n",
        expect: &["rels.csv:3", "node id \"zz\", which no node file defines"],
    },
    BadCase {
        name: "duplicate node",
        nodes: ":ID\na\nb\na\n",
        rels: ":START_ID,:END_ID,:TYPE\na,b,R\n",
        expect: &["nodes.csv:4", "defined twice"],
    },
    BadCase {
        name: "bad weight",
        nodes: ":ID\na\nb\n",
        rels: ":START_ID,:END_ID,:TYPE,:WEIGHT\na,b,R,heavy\n",
        expect: &["rels.csv:2", "column :WEIGHT", "not a finite number"],
    },
    BadCase {
        name: "bad json",
        nodes: ":ID,m:json\na,{\"x\":1}\nb,{oops}\n",
        rels: ":START_ID,:END_ID,:TYPE\na,b,R\n",
        expect: &["nodes.csv:3", "column m:json", "not valid JSON"],
    },
    BadCase {
        name: "no type",
        nodes: ":ID\na\nb\n",
        rels: ":START_ID,:END_ID\na,b\n",
        expect: &["rels.csv:1", "no :TYPE column"],
    },
];

fn bad_spec(d: &Path, c: &BadCase, bad: BadPolicy) -> ImportSpec {
    ImportSpec {
        nodes: vec![group(None, &[&write(d, "nodes.csv", c.nodes)])],
        relationships: vec![group(None, &[&write(d, "rels.csv", c.rels)])],
        bad,
        ..ImportSpec::default()
    }
}

#[test]
fn bad_input_stops_the_import_and_leaves_the_store_as_it_was() {
    for c in BAD {
        for disk in [false, true] {
            let d = tempfile::tempdir().unwrap();
            let g = if disk {
                Graph::open(d.path().join("s")).unwrap()
            } else {
                Graph::in_memory()
            };
            g.upsert_node("a", &["Old"], Default::default(), WriteMode::Merge)
                .unwrap();
            let before = state(&g);
            let err = import(&g, &bad_spec(d.path(), c, BadPolicy::default()), &NoProgress).unwrap_err();
            let msg = err.to_string();
            for want in c.expect {
                assert!(msg.contains(want), "{}: '{want}' not in: {msg}", c.name);
            }
            assert!(matches!(err, ImportError::Bad { .. }), "{}: {err:?}", c.name);
            assert_eq!(state(&g), before, "{}: the store changed", c.name);
            // The store still takes writes.
            g.upsert_node("after", &[], Default::default(), WriteMode::Merge)
                .unwrap();
        }
    }
}

#[test]
fn bad_quoting_is_reported_with_its_line() {
    let d = tempfile::tempdir().unwrap();
    let nodes = write(d.path(), "nodes.csv", ":ID,name\na,\"fine\"\nb,\"unterminated\nc,x\n");
    let g = Graph::in_memory();
    let spec = ImportSpec {
        nodes: vec![group(None, &[&nodes])],
        ..ImportSpec::default()
    };
    // The csv reader takes an unterminated quote to the end of the file as one field: the row
    // then has the wrong number of fields, reported at the line where it starts.
    let err = import(&g, &spec, &NoProgress).unwrap_err().to_string();
    assert!(err.contains("nodes.csv:3"), "{err}");
    assert_eq!(g.stats().unwrap().nodes, 0);
}

#[test]
fn skip_options_report_and_count_bad_entries() {
    let d = tempfile::tempdir().unwrap();
    let report = d.path().join("import.report");
    let case = BadCase {
        name: "mixed",
        nodes: ":ID,age:int\na,1\nb,2\na,3\nc,oops\n",
        rels: ":START_ID,:END_ID,:TYPE\na,b,R\na,ghost,R\nb,a,R\n",
        expect: &[],
    };
    // Skip flags cover their own kinds only: the malformed age still stops the import.
    let g = Graph::in_memory();
    let policy = BadPolicy {
        skip_duplicate_nodes: true,
        skip_bad_relationships: true,
        report: Some(report.clone()),
        ..BadPolicy::default()
    };
    let err = import(&g, &bad_spec(d.path(), &case, policy.clone()), &NoProgress).unwrap_err();
    assert!(err.to_string().contains("'oops' is not an integer"), "{err}");
    assert_eq!(g.stats().unwrap().nodes, 0);
    // A tolerance skips every kind, up to its count.
    let tolerant = BadPolicy {
        tolerance: Some(3),
        ..policy.clone()
    };
    let r = import(&g, &bad_spec(d.path(), &case, tolerant), &NoProgress).unwrap();
    assert_eq!((r.nodes, r.edges, r.bad), (2, 2, 3));
    assert_eq!(r.report_file.as_deref(), Some(report.as_path()));
    let listed = std::fs::read_to_string(&report).unwrap();
    assert_eq!(listed.lines().count(), 3, "{listed}");
    assert!(listed.contains("nodes.csv:4") && listed.contains("nodes.csv:5") && listed.contains("rels.csv:3"));
    assert_eq!(
        g.node(&"a".into()).unwrap().unwrap().props["age"],
        Value::Int(1),
        "the first row wins"
    );
    // One more bad entry than tolerated fails the whole import.
    let g = Graph::in_memory();
    let strict = BadPolicy {
        tolerance: Some(2),
        ..policy
    };
    let err = import(&g, &bad_spec(d.path(), &case, strict), &NoProgress).unwrap_err();
    assert!(
        matches!(
            err,
            ImportError::TooManyBad {
                count: 3,
                tolerance: 2,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(g.stats().unwrap().nodes, 0);
}

#[test]
fn import_merges_into_a_store_with_data() {
    let d = tempfile::tempdir().unwrap();
    let g = Graph::open(d.path().join("s")).unwrap();
    g.upsert_node(
        "a",
        &["Old"],
        hopdb_core::props([("keep", Value::Int(1)), ("age", Value::Int(0))]),
        WriteMode::Merge,
    )
    .unwrap();
    g.upsert_edge("a", "R", "z", Some(2.0), Default::default(), WriteMode::Merge)
        .unwrap();
    let nodes = write(d.path(), "n.csv", ":ID,age:int,:LABEL\na,41,New\nb,7,New\n");
    let rels = write(
        d.path(),
        "r.csv",
        ":START_ID,:END_ID,:TYPE,:WEIGHT\na,b,R,1\nb,z,R,3\na,z,R,5\n",
    );
    let spec = ImportSpec {
        nodes: vec![group(None, &[&nodes])],
        relationships: vec![group(None, &[&rels])],
        ..ImportSpec::default()
    };
    let r = import(&g, &spec, &NoProgress).unwrap();
    assert_eq!((r.nodes, r.summary.nodes_merged), (1, 1));
    let a = g.node(&"a".into()).unwrap().unwrap();
    assert_eq!(
        (a.props["keep"].clone(), a.props["age"].clone()),
        (Value::Int(1), Value::Int(41))
    );
    let mut labels = a.labels.clone();
    labels.sort();
    assert_eq!(labels, ["New", "Old"]);
    // a-z existed: updated (weight 5), not duplicated; degrees follow.
    let az = g.edges(&"a".into(), Direction::Out, Some("R"), None).unwrap();
    assert_eq!(az.len(), 2);
    let z = g.degree(&"z".into(), Direction::In, Some("R")).unwrap();
    assert_eq!((z.count, z.weight_sum), (2, 8.0));
    assert_eq!(g.stats().unwrap().edges, 3);
    assert!(g.check().unwrap().is_ok());
}
