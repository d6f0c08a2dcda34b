//! Where neo4j-admin 5.26 and HopDB could read the same CSV files differently: each test says
//! what neo4j-admin does (its documentation, checked with the real tool by
//! python/tests/test_neo4j_admin_compat.py) and that HopDB makes the same graph, or says
//! where HopDB is deliberately stricter. Temporal values are parsed by the query layer
//! (tested in hopdb-cypher); here a stand-in parser checks what reaches it.
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_core::{Direction, Graph, GraphRead, NodeKey, Value};
use hopdb_import::{import, BadPolicy, CsvOptions, FileGroup, GroupKeys, ImportError, ImportSpec, NoProgress};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

fn files(spec: Option<&str>, f: &Path) -> FileGroup {
    FileGroup::new(spec, vec![f.to_path_buf()])
}

fn node(g: &Graph, key: &str) -> hopdb_core::Node {
    g.node(&NodeKey::from(key))
        .unwrap()
        .unwrap_or_else(|| panic!("no node {key}"))
}

fn s(x: &str) -> Value {
    Value::Str(x.into())
}

#[test]
fn missing_trailing_fields_are_absent_and_extra_fields_are_bad() {
    // neo4j-admin: a row with fewer fields than the header sets no property for the missing
    // columns; a row with more is an error ("Extra column not present in header") unless
    // --ignore-extra-columns.
    let d = tempfile::tempdir().unwrap();
    let f = write(d.path(), "p.csv", "id:ID,name,age:int,city\na,Ada,36\nb\nc,Cy,1,Oslo\n");
    let g = Graph::in_memory();
    let spec = ImportSpec {
        nodes: vec![files(Some("P"), &f)],
        ..ImportSpec::default()
    };
    import(&g, &spec, &NoProgress).unwrap();
    let a = node(&g, "a");
    assert_eq!(a.props.len(), 3, "{a:?}"); // id, name, age
    assert_eq!(a.props["age"], Value::Int(36));
    assert_eq!(node(&g, "b").props.keys().collect::<Vec<_>>(), ["id"]);
    assert_eq!(node(&g, "c").props["city"], s("Oslo"));

    let extra = write(d.path(), "x.csv", "id:ID,name\na,Ada,surplus\n");
    let g = Graph::in_memory();
    let mut spec = ImportSpec {
        nodes: vec![files(None, &extra)],
        ..ImportSpec::default()
    };
    let err = import(&g, &spec, &NoProgress).unwrap_err().to_string();
    assert!(
        err.contains("x.csv:2") && err.contains("3 fields where the header has 2"),
        "{err}"
    );
    assert_eq!(g.stats().unwrap().nodes, 0);
    spec.csv.ignore_extra_columns = true;
    spec.bad.report = Some(d.path().join("report.txt"));
    import(&g, &spec, &NoProgress).unwrap();
    assert_eq!(node(&g, "a").props["name"], s("Ada"));
    let report = std::fs::read_to_string(d.path().join("report.txt")).unwrap();
    assert!(report.contains("x.csv:2") && report.contains("ignored"), "{report}");
}

#[test]
fn id_groups_are_separate_id_spaces_by_default() {
    // neo4j-admin: each :ID(Group) is its own id space; `p1` of Person and `p1` of Company
    // are two nodes, and relationships name the group of each end.
    let d = tempfile::tempdir().unwrap();
    let people = write(d.path(), "people.csv", "uid:ID(Person),name\np1,Ada\np2,Bob\n");
    let firms = write(d.path(), "firms.csv", ":ID(Company),name\np1,Acme\n");
    let works = write(
        d.path(),
        "works.csv",
        ":START_ID(Person),:END_ID(Company),:TYPE\np1,p1,WORKS_AT\np2,p1,WORKS_AT\n",
    );
    let g = Graph::in_memory();
    let spec = ImportSpec {
        nodes: vec![files(Some("Person"), &people), files(Some("Company"), &firms)],
        relationships: vec![files(None, &works)],
        ..ImportSpec::default()
    };
    let r = import(&g, &spec, &NoProgress).unwrap();
    assert_eq!((r.nodes, r.edges), (3, 2));
    // The documented key scheme: `Group:id`; a named id column keeps the id as written.
    let ada = node(&g, "Person:p1");
    assert_eq!(
        (ada.labels.clone(), ada.props["uid"].clone()),
        (vec!["Person".to_string()], s("p1"))
    );
    assert_eq!(node(&g, "Company:p1").props.get("uid"), None);
    assert!(g
        .has_edge(&"Person:p2".into(), &"Company:p1".into(), Some("WORKS_AT"), false)
        .unwrap());
    // The global mode: one id space, so the second `p1` is a duplicate.
    let g = Graph::in_memory();
    let mut global = spec.clone();
    global.csv.group_keys = GroupKeys::Plain;
    let err = import(&g, &global, &NoProgress).unwrap_err().to_string();
    assert!(err.contains("firms.csv:2") && err.contains("defined twice"), "{err}");
}

#[test]
fn node_files_without_an_id_column_load() {
    // neo4j-admin: a node file without :ID loads every row as a node nothing refers to
    // (identical rows are two nodes).
    let d = tempfile::tempdir().unwrap();
    let tags = write(d.path(), "tags.csv", "name,:LABEL\nred,Tag\nred,Tag\nblue,\n");
    let people = write(d.path(), "people.csv", ":ID,name\na,Ada\n");
    let g = Graph::in_memory();
    let spec = ImportSpec {
        nodes: vec![files(Some("Person"), &people), files(None, &tags)],
        ..ImportSpec::default()
    };
    let r = import(&g, &spec, &NoProgress).unwrap();
    assert_eq!(r.nodes, 4);
    // Keys `_:N:R`: the R-th row of the N-th --nodes group.
    assert_eq!(node(&g, "_:2:1").labels, ["Tag"]);
    assert_eq!(node(&g, "_:2:2").props["name"], s("red"));
    assert!(node(&g, "_:2:3").labels.is_empty());
}

#[test]
fn quoted_empty_strings_are_strings_and_empty_fields_are_absent() {
    // neo4j-admin: `""` on a string column is the empty string; an unquoted empty field sets
    // nothing; `""` on other types and on arrays sets nothing; --ignore-empty-strings makes
    // `""` nothing too; --trim-strings trims unquoted values only.
    let d = tempfile::tempdir().unwrap();
    let f = write(
        d.path(),
        "p.csv",
        "id:ID,s,n:int,l:string[],t\na,\"\",\"\",\"\",  padded  \nb,,,,\" kept \"\n",
    );
    let g = Graph::in_memory();
    let mut spec = ImportSpec {
        nodes: vec![files(None, &f)],
        ..ImportSpec::default()
    };
    import(&g, &spec, &NoProgress).unwrap();
    let a = node(&g, "a");
    assert_eq!(a.props.get("s"), Some(&s("")), "{a:?}");
    assert_eq!((a.props.get("n"), a.props.get("l")), (None, None), "{a:?}");
    assert_eq!(a.props["t"], s("  padded  "), "kept as written by default");
    let b = node(&g, "b");
    assert_eq!((b.props.get("s"), b.props.get("n")), (None, None), "{b:?}");

    spec.csv.ignore_empty_strings = true;
    spec.csv.trim_strings = true;
    let g = Graph::in_memory();
    import(&g, &spec, &NoProgress).unwrap();
    let a = node(&g, "a");
    assert_eq!((a.props.get("s"), &a.props["t"]), (None, &s("padded")), "{a:?}");
    assert_eq!(node(&g, "b").props["t"], s(" kept "), "quoted values are not trimmed");
}

#[test]
fn multiline_and_legacy_quoting_only_when_asked() {
    // neo4j-admin: a line break inside quotes is an error unless --multiline-fields=true;
    // `\"` is an inner quote only with --legacy-style-quoting=true.
    let d = tempfile::tempdir().unwrap();
    let f = write(d.path(), "p.csv", "id:ID,text\na,\"one\ntwo\"\nb,\"say \\\"hi\\\"\"\n");
    let g = Graph::in_memory();
    let mut spec = ImportSpec {
        nodes: vec![files(None, &f)],
        ..ImportSpec::default()
    };
    let err = import(&g, &spec, &NoProgress).unwrap_err().to_string();
    assert!(
        err.contains("p.csv:2") && err.contains("text") && err.contains("--multiline-fields"),
        "{err}"
    );
    assert_eq!(g.stats().unwrap().nodes, 0);
    spec.csv.multiline_fields = true;
    import(&g, &spec, &NoProgress).unwrap();
    assert_eq!(node(&g, "a").props["text"], s("one\ntwo"));
    // Without legacy quoting `\"` closes the field and the rest follows it as written.
    assert_eq!(node(&g, "b").props["text"], s("say \\hi\\\"\""));
    spec.csv.legacy_quoting = true;
    let g = Graph::in_memory();
    import(&g, &spec, &NoProgress).unwrap();
    assert_eq!(node(&g, "b").props["text"], s("say \"hi\""));
}

#[test]
fn repeated_relationship_rows_are_kept_or_merged_and_reported() {
    // neo4j-admin: every row is a relationship (two identical rows are two, self-loops too).
    // HopDB: with multi_relationships the same; by default one per (start, type, end), each
    // merged row counted and listed in the report.
    let d = tempfile::tempdir().unwrap();
    let people = write(d.path(), "p.csv", ":ID\na\nb\n");
    let rels = write(
        d.path(),
        "r.csv",
        ":START_ID,:END_ID,:TYPE,since:int\na,b,KNOWS,1\na,b,KNOWS,2\na,a,SELF,\na,a,SELF,\nb,a,KNOWS,3\n",
    );
    let mut spec = ImportSpec {
        nodes: vec![files(None, &people)],
        relationships: vec![files(None, &rels)],
        bad: BadPolicy {
            report: Some(d.path().join("report.txt")),
            ..BadPolicy::default()
        },
        ..ImportSpec::default()
    };
    let g = Graph::in_memory();
    let r = import(&g, &spec, &NoProgress).unwrap();
    assert_eq!((r.edges, r.merged_relationships), (3, 2));
    let ab = g.edges(&"a".into(), Direction::Out, Some("KNOWS"), None).unwrap();
    assert_eq!(ab[0].props["since"], Value::Int(2), "the later row's properties win");
    let report = std::fs::read_to_string(d.path().join("report.txt")).unwrap();
    assert!(
        report.contains("r.csv:3") && report.contains("repeats") && report.contains("r.csv:2"),
        "{report}"
    );
    assert!(report.contains("r.csv:5"), "{report}");

    spec.multi_relationships = true;
    let g = Graph::in_memory();
    let r = import(&g, &spec, &NoProgress).unwrap();
    assert_eq!((r.edges, r.merged_relationships), (5, 0));
    let mut since: Vec<Value> = g
        .edges(&"a".into(), Direction::Out, Some("KNOWS"), None)
        .unwrap()
        .into_iter()
        .map(|e| e.props["since"].clone())
        .collect();
    since.sort_by_key(|v| format!("{v:?}"));
    assert_eq!(since, [Value::Int(1), Value::Int(2)]);
    assert_eq!(
        g.edges(&"a".into(), Direction::Out, Some("SELF"), None).unwrap().len(),
        2
    );
}

/// A stand-in for the query layer's parser: records the type, text and zone it was given.
fn tagging_parser(kind: &str, text: &str, zone: Option<&str>) -> Result<Value, String> {
    if text == "bad" {
        return Err(format!("'{text}' is not a valid {kind}"));
    }
    Ok(Value::List(vec![s(kind), s(text), zone.map_or(Value::Null, s)]))
}

#[test]
fn temporal_and_point_columns_are_typed() {
    let d = tempfile::tempdir().unwrap();
    let f = write(
        d.path(),
        "p.csv",
        "id:ID,at:datetime{timezone:Europe/Stockholm},days:date[],loc:point{crs:WGS-84},xy:point,h:point{crs:wgs-84}\n\
         a,2020-06-01T12:30,2020-01-01;2020-01-02,\"{latitude: 56.7, longitude: 12.8}\",\"{x:1,y:2}\",\"{x:1,y:2,z:3}\"\n",
    );
    let g = Graph::in_memory();
    let mut spec = ImportSpec {
        nodes: vec![files(None, &f)],
        ..ImportSpec::default()
    };
    // Without the query layer's parser, a temporal column is refused with a clear error.
    let err = import(&g, &spec, &NoProgress).unwrap_err().to_string();
    assert!(err.contains("p.csv:2") && err.contains("temporal parser"), "{err}");
    spec.csv.temporal = Some(tagging_parser);
    import(&g, &spec, &NoProgress).unwrap();
    let a = node(&g, "a");
    assert_eq!(
        a.props["at"],
        Value::List(vec![s("datetime"), s("2020-06-01T12:30"), s("Europe/Stockholm")])
    );
    assert_eq!(
        a.props["days"],
        Value::List(vec![
            Value::List(vec![s("date"), s("2020-01-01"), Value::Null]),
            Value::List(vec![s("date"), s("2020-01-02"), Value::Null]),
        ])
    );
    let point = |crs: &str, srid: i64, xyz: &[f64]| {
        let mut m = BTreeMap::from([("crs".to_string(), s(crs)), ("srid".to_string(), Value::Int(srid))]);
        for (axis, v) in ["x", "y", "z"].iter().zip(xyz) {
            m.insert(axis.to_string(), Value::Float(*v));
        }
        Value::Map(m)
    };
    // Geographic: x is the longitude, y the latitude (Neo4j's order).
    assert_eq!(a.props["loc"], point("wgs-84", 4326, &[12.8, 56.7]));
    assert_eq!(a.props["xy"], point("cartesian", 7203, &[1.0, 2.0]));
    // A 2-D crs named in the header takes its 3-D form for three coordinates.
    assert_eq!(a.props["h"], point("wgs-84-3d", 4979, &[1.0, 2.0, 3.0]));

    let bad = write(d.path(), "b.csv", "id:ID,at:date,loc:point\na,bad,\nb,,\"{x: 1}\"\n");
    let g = Graph::in_memory();
    spec.nodes = vec![files(None, &bad)];
    let err = import(&g, &spec, &NoProgress).unwrap_err().to_string();
    assert!(
        err.contains("b.csv:2 column at:date") && err.contains("not a valid date"),
        "{err}"
    );
    spec.bad.tolerance = Some(5);
    spec.bad.report = Some(d.path().join("report.txt"));
    import(&g, &spec, &NoProgress).unwrap();
    let report = std::fs::read_to_string(d.path().join("report.txt")).unwrap();
    assert!(
        report.contains("b.csv:3 column loc:point") && report.contains("needs x and y"),
        "{report}"
    );
}

#[test]
fn booleans_are_exactly_true_or_false() {
    // neo4j-admin stores false for anything but `true` (`TRUE`, `yes`): HopDB refuses them
    // rather than change what was written (kept on purpose, README).
    let d = tempfile::tempdir().unwrap();
    let f = write(d.path(), "p.csv", "id:ID,ok:boolean\na,true\nb,false\nc,TRUE\n");
    let g = Graph::in_memory();
    let spec = ImportSpec {
        nodes: vec![files(None, &f)],
        ..ImportSpec::default()
    };
    let err = import(&g, &spec, &NoProgress).unwrap_err().to_string();
    assert!(
        err.contains("p.csv:4 column ok:boolean") && err.contains("'TRUE' is not a boolean"),
        "{err}"
    );
    assert_eq!(g.stats().unwrap().nodes, 0);
}

#[test]
fn the_entry_over_the_tolerance_is_named() {
    let d = tempfile::tempdir().unwrap();
    let people = write(d.path(), "p.csv", ":ID\na\n");
    let rels = write(d.path(), "r.csv", ":START_ID,:END_ID,:TYPE\na,x,R\na,a,R\na,y,R\n");
    let g = Graph::in_memory();
    let spec = ImportSpec {
        nodes: vec![files(None, &people)],
        relationships: vec![files(None, &rels)],
        bad: BadPolicy {
            skip_bad_relationships: true,
            tolerance: Some(1),
            report: Some(d.path().join("report.txt")),
            ..BadPolicy::default()
        },
        ..ImportSpec::default()
    };
    let err = import(&g, &spec, &NoProgress).unwrap_err();
    assert!(matches!(err, ImportError::TooManyBad { line: 4, .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("r.csv:4") && msg.contains("node id \"y\"") && msg.contains("tolerance of 1"),
        "{msg}"
    );
    assert_eq!(g.stats().unwrap().nodes, 0);
}

#[test]
fn defaults_are_neo4j_admins() {
    let o = CsvOptions::default();
    assert_eq!((o.delimiter, o.array_delimiter, o.quote), (b',', b';', b'"'));
    assert_eq!(o.group_keys, GroupKeys::Prefixed);
    assert!(!o.multiline_fields && !o.legacy_quoting && !o.ignore_empty_strings && !o.trim_strings);
}
