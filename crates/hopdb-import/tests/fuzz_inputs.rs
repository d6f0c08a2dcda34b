//! The bounded in-suite run of hopdb-import's fuzz targets (crates/hopdb-import/fuzz): each
//! target's body (the same code, `include!`d from ../fuzz/bodies.rs) over the regression
//! inputs below, seeds (small inputs written here, plus the first lines of real datasets from
//! ../shared/datasets when present, read in place), and a fixed number of deterministic
//! mutants of them (../../hopdb-core/fuzz/mutate.rs). Stable Rust, no libFuzzer; the long
//! coverage-guided runs are scripts/fuzz-long.sh.
//!
//! `HOPDB_FUZZ_SEEDS_DIR=DIR cargo test --release -p hopdb-import --test fuzz_inputs --
//! --ignored write_seeds` writes the seeds as corpus files DIR/import-TARGET/
//! (scripts/fuzz-seeds.sh).
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

include!("../fuzz/bodies.rs");
include!("../../hopdb-core/fuzz/mutate.rs");

use arrow::array::{ArrayRef, Float64Array, Int64Array, ListBuilder, RecordBatch, StringArray, StringBuilder};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// Inputs per target: mutants, on top of the seeds and regressions.
const TEXT_ITERATIONS: usize = 1_500;
const TABLE_ITERATIONS: usize = 1_000;
const TEXT_MAX_LEN: usize = 4096;
const TABLE_MAX_LEN: usize = 32 * 1024;

// ---------------------------------------------------------------------------------------------
// Seeds.

fn with_opts(opts: &[u8], body: &[u8]) -> Vec<u8> {
    [opts, body].concat()
}

/// The first `max` bytes of a dataset file (gunzipped), cut at a line end; `None` when the
/// datasets are absent.
fn dataset_head(rel: &str, max: usize) -> Option<Vec<u8>> {
    let path = hopdb_testdata::datasets()?.join(rel);
    let f = std::fs::File::open(&path).ok()?;
    let mut out = Vec::new();
    let r: Box<dyn Read> = if rel.ends_with(".gz") {
        Box::new(flate2::read::MultiGzDecoder::new(f))
    } else {
        Box::new(f)
    };
    r.take(max as u64).read_to_end(&mut out).ok()?;
    if let Some(i) = out.iter().rposition(|&b| b == b'\n') {
        out.truncate(i + 1);
    }
    Some(out)
}

const PEOPLE: &[u8] = b"id:ID,name,age:int,:LABEL\nada,Ada,36,Person\nbob,Bob,,Person\n";
const KNOWS: &[u8] = b":START_ID,:END_ID,:TYPE,since:int\nada,bob,KNOWS,1840\nbob,ada,KNOWS,1841\nada,bob,KNOWS,1842\n";
const TYPED: &[u8] = b"id:ID(P),score:float,ok:boolean,tags:string[],n:long[],j:json,b:bytes,loc:point{crs:cartesian},at:date,:LABEL,:IGNORE\n\
1,1.5,true,a;b,1;2,\"{\"\"k\"\":[1,2.5,null]}\",AAEC,\"{x:1,y:2}\",2024-01-01,A;B,x\n\
2,-0.0,FALSE,,,\"[\"\"s\"\"]\",,\"{latitude:56.7,longitude:12.8}\",,A,\n";
const TYPED_RELS: &[u8] = b":START_ID(P),:END_ID(P),:TYPE,:WEIGHT,w:double[]\n1,2,R,0.5,1;2\n2,1,R,2,\n2,2,S,,3\n";

fn csv_seeds() -> Vec<Vec<u8>> {
    let mut s = vec![
        with_opts(&[0, 0], &[PEOPLE, b"\0", KNOWS].concat()),
        with_opts(&[0x20, 0x20], &[PEOPLE, b"\0", KNOWS].concat()),
        with_opts(&[0xc0, 0x40], &[PEOPLE, b"\0", KNOWS].concat()),
        with_opts(&[0, 0], &[TYPED, b"\0", TYPED_RELS].concat()),
        with_opts(&[0x1c, 0x10], &[TYPED, b"\0", TYPED_RELS].concat()),
        with_opts(&[0, 0], PEOPLE),
        // Quoting: multiline fields, legacy \" quotes, doubled quotes.
        with_opts(&[1, 0], b"id:ID,text\nx,\"two\nlines\"\ny,\"a \"\"quoted\"\" word\"\n"),
        with_opts(&[2, 0], b"id:ID,text\nx,\"legacy \\\" quote\"\n"),
        // Tab and pipe delimiters, integer and JSON ids.
        with_opts(
            &[0, 0x05],
            b"id:ID\tname\n1\tone\n2\ttwo\n\0:START_ID\t:END_ID\t:TYPE\n1\t2\tT\n",
        ),
        with_opts(
            &[0, 0x0a],
            b"id:ID|v:int\n\"k\"|1\n7|2\n\0:START_ID|:END_ID|:TYPE\n\"k\"|7|T\n",
        ),
        // Id groups and a relationship to an unknown id.
        with_opts(
            &[0x80, 0],
            b"id:ID(A),:LABEL\n1,L\n\0:START_ID(A),:END_ID(B),:TYPE\n1,9,T\n",
        ),
    ];
    if let (Some(nodes), Some(edges)) = (
        dataset_head("musae-github/git_target.csv.gz", 1500),
        dataset_head("musae-github/git_edges.csv.gz", 800),
    ) {
        // The musae tables with neo4j-admin headers in place of their own.
        let body = |b: &[u8]| b[b.iter().position(|&c| c == b'\n').map_or(0, |i| i + 1)..].to_vec();
        let nodes = [b"id:ID,name,ml_target:int\n".as_slice(), &body(&nodes)].concat();
        let edges = [b":START_ID,:END_ID\n".as_slice(), &body(&edges)].concat();
        s.push(with_opts(&[0, 0x04], &[nodes.as_slice(), b"\0", &edges].concat()));
    }
    if let Some(airports) = dataset_head("openflights/airports.dat.gz", 1500) {
        let header =
            b"id:ID(Airport),name,city,country,iata,icao,lat:float,lon:float,alt:int,tz,dst,tzdb,kind,source\n";
        s.push(with_opts(&[0x40, 0], &[header.as_slice(), &airports].concat()));
    }
    s
}

fn edgelist_seeds() -> Vec<Vec<u8>> {
    let mut s = vec![
        with_opts(
            &[0, 0],
            b"# Directed graph\n# FromNodeId\tToNodeId\n0\t1\n1\t2\n2\t0\n2\t2\n",
        ),
        with_opts(&[0x01, 0], b"1 2\n2 3\n3 1\n"),
        with_opts(&[0x06, 0], b"a,b,1.5\nb,c,2\n"),
        with_opts(&[0x16, 0], b"node_1,node_2,weight\nx,y,0.5\ny,z,-1\n"),
        with_opts(&[0x20, 0], b"3 2\n1 2\n2 3\n"),
        with_opts(&[0, 0x09], b"3 3 2\n1 2 0.5\n3 1 2.5\n"),
        with_opts(&[0, 0x0a], b"% comment\n4 4 3\n1 2 1\n2 3 2\n4 4 3\n"),
        with_opts(&[0x08, 0x0b], b"3 3 3\n1 2\n2 3\n1 2\n"),
        with_opts(&[0, 0], b"c DIMACS\np sp 3 2\na 1 2 5\na 2 3 7\n"),
        with_opts(&[0x80, 0], b"1 2\nfoo\n3 x\n4 5 6\n"),
    ];
    for (rel, opts) in [
        ("snap-wiki-Vote/wiki-Vote.txt.gz", [0u8, 0u8]),
        ("dimacs9-road-rome99/rome99.gr.gz", [0, 0]),
        ("suitesparse-usroads-48/road-usroads-48.mtx.gz", [0, 0]),
        ("netrepo-bio-CE-CX/bio-CE-CX.edges.gz", [0x04, 0]),
        ("feather-deezer-europe/deezer_europe_edges.csv.gz", [0x01, 0]),
        ("snap-soc-sign-bitcoinotc/soc-sign-bitcoinotc.csv.gz", [0x04, 0]),
    ] {
        if let Some(head) = dataset_head(rel, 1200) {
            s.push(with_opts(&opts, &head));
        }
    }
    s
}

const GRAPHML: &[u8] = br#"<?xml version='1.0' encoding='utf-8'?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
<key id="d0" for="node" attr.name="entity_type" attr.type="string"/>
<key id="d1" for="node" attr.name="description" attr.type="string"><default>none</default></key>
<key id="d2" for="edge" attr.name="weight" attr.type="double"/>
<key id="d3" for="edge" attr.name="keywords" attr.type="string"/>
<key id="d4" for="node" attr.name="rank" attr.type="int"/>
<key id="d5" for="node" attr.name="ok" attr.type="boolean"/>
<graph edgedefault="undirected">
<node id="SCROOGE"><data key="d0">"PERSON"</data><data key="d1">A miser &amp; more</data><data key="d4">3</data></node>
<node id="MARLEY" labels=":Ghost:Person"><data key="d0">person</data><data key="d5">true</data></node>
<node id="LONDON"/>
<edge source="SCROOGE" target="MARLEY"><data key="d2">2.5</data><data key="d3">partners</data></edge>
<edge source="MARLEY" target="LONDON"><data key="d2">NaN</data></edge>
<edge source="SCROOGE" target="SCROOGE"/>
</graph>
</graphml>
"#;

fn graphml_seeds() -> Vec<Vec<u8>> {
    let mut s = vec![
        with_opts(&[0], GRAPHML),
        with_opts(&[1], GRAPHML),
        with_opts(&[0x0e], GRAPHML),
        with_opts(
            &[0],
            &String::from_utf8_lossy(GRAPHML)
                .replace("undirected", "directed")
                .into_bytes(),
        ),
    ];
    for rel in [
        "lightrag-dickens-v2/graph_chunk_entity_relation.graphml.gz",
        "lightrag-zh-incidents-legacy/graph_chunk_entity_relation.graphml.gz",
    ] {
        // The head of a real file: its declarations and first elements (cut, so unclosed).
        if let Some(head) = dataset_head(rel, 3000) {
            s.push(with_opts(&[2], &head));
        }
    }
    s
}

fn parquet_bytes(batch: &RecordBatch, compression: Compression) -> Vec<u8> {
    let props = WriterProperties::builder().set_compression(compression).build();
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
    out
}

fn ipc_file(batch: &RecordBatch) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = arrow::ipc::writer::FileWriter::try_new(&mut out, &batch.schema()).unwrap();
    w.write(batch).unwrap();
    w.finish().unwrap();
    drop(w);
    out
}

fn ipc_stream(batch: &RecordBatch) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = arrow::ipc::writer::StreamWriter::try_new(&mut out, &batch.schema()).unwrap();
    w.write(batch).unwrap();
    w.finish().unwrap();
    drop(w);
    out
}

fn string_lists(rows: &[&[&str]]) -> ArrayRef {
    let mut b = ListBuilder::new(StringBuilder::new());
    for r in rows {
        for x in *r {
            b.values().append_value(x);
        }
        b.append(true);
    }
    Arc::new(b.finish())
}

fn strings(v: &[&str]) -> ArrayRef {
    Arc::new(StringArray::from(v.to_vec()))
}

/// A table usable both as nodes (id, labels) and as relationships (src, dst, type, weight).
fn sample_table() -> RecordBatch {
    RecordBatch::try_from_iter([
        ("id", strings(&["a", "b", "c"])),
        ("labels", string_lists(&[&["P"], &["P", "Q"], &[]])),
        ("src", strings(&["a", "b", "c"])),
        ("dst", strings(&["b", "c", "a"])),
        ("type", strings(&["T", "T", "U"])),
        (
            "weight",
            Arc::new(Float64Array::from(vec![Some(1.0), None, Some(0.5)])) as ArrayRef,
        ),
        (
            "age",
            Arc::new(Int64Array::from(vec![Some(36), None, Some(-1)])) as ArrayRef,
        ),
        ("w", Arc::new(Float64Array::from(vec![2.0, 3.0, 4.0])) as ArrayRef),
    ])
    .unwrap()
}

fn parquet_seeds() -> Vec<Vec<u8>> {
    let t = sample_table();
    let mut s = Vec::new();
    for opts in [0u8, 1, 2, 0x18, 0x61] {
        s.push(with_opts(&[opts], &parquet_bytes(&t, Compression::UNCOMPRESSED)));
    }
    s.push(with_opts(&[0], &parquet_bytes(&t, Compression::SNAPPY)));
    s.push(with_opts(&[1], &parquet_bytes(&t, Compression::LZ4_RAW)));
    s.push(with_opts(
        &[2],
        &parquet_bytes(&t, Compression::GZIP(Default::default())),
    ));
    s.push(with_opts(&[0], &ipc_file(&t)));
    s.push(with_opts(&[2], &ipc_stream(&t)));
    s
}

/// The first `rows` rows of a dataset's Parquet table, as a small Parquet file.
fn dataset_table(rel: &str, rows: usize) -> Option<Vec<u8>> {
    let f = std::fs::File::open(hopdb_testdata::datasets()?.join(rel)).ok()?;
    let mut r = ParquetRecordBatchReaderBuilder::try_new(f)
        .ok()?
        .with_batch_size(rows)
        .build()
        .ok()?;
    let batch = r.next()?.ok()?;
    Some(parquet_bytes(&batch, Compression::SNAPPY))
}

fn graphrag_seeds() -> Vec<Vec<u8>> {
    let entities = RecordBatch::try_from_iter([
        ("id", strings(&["e1", "e2", "e3"])),
        ("title", strings(&["SCROOGE", "MARLEY", "FRED"])),
        ("type", strings(&["PERSON", "", "PERSON"])),
        ("description", strings(&["a miser", "a ghost", "a nephew"])),
        ("text_unit_ids", string_lists(&[&["t1"], &["t1", "t2"], &[]])),
    ])
    .unwrap();
    let relationships = RecordBatch::try_from_iter([
        ("id", strings(&["r1", "r2", "r3"])),
        ("source", strings(&["SCROOGE", "MARLEY", "SCROOGE"])),
        ("target", strings(&["MARLEY", "SCROOGE", "BOB"])),
        ("weight", Arc::new(Float64Array::from(vec![1.0, 2.0, 0.5])) as ArrayRef),
        ("description", strings(&["partners", "partners", "employs"])),
    ])
    .unwrap();
    let communities = RecordBatch::try_from_iter([
        ("community", Arc::new(Int64Array::from(vec![0, 1])) as ArrayRef),
        ("level", Arc::new(Int64Array::from(vec![0, 1])) as ArrayRef),
        ("entity_ids", string_lists(&[&["e1", "e2"], &["e2", "e9"]])),
    ])
    .unwrap();
    let (e, r, c) = (
        parquet_bytes(&entities, Compression::SNAPPY),
        parquet_bytes(&relationships, Compression::UNCOMPRESSED),
        parquet_bytes(&communities, Compression::SNAPPY),
    );
    let mut s = vec![
        with_opts(&[0], &fuzz_bodies::join_parts(&[&e, &r, &c])),
        with_opts(&[2], &fuzz_bodies::join_parts(&[&e, &r, &[]])),
        with_opts(&[1], &fuzz_bodies::join_parts(&[&e, &r, &r])),
    ];
    for dir in ["graphrag-christmas-carol", "graphrag-operation-dulce"] {
        let t = |name: &str, rows| dataset_table(&format!("{dir}/{name}.parquet"), rows);
        if let (Some(e), Some(r), Some(c)) = (t("entities", 4), t("relationships", 4), t("communities", 2)) {
            s.push(with_opts(&[0], &fuzz_bodies::join_parts(&[&e, &r, &c])));
        }
    }
    s
}

fn seeds(target: &str) -> Vec<Vec<u8>> {
    match target {
        "neo4j_csv" => csv_seeds(),
        "edgelist" => edgelist_seeds(),
        "graphml" => graphml_seeds(),
        "parquet" => parquet_seeds(),
        "graphrag" => graphrag_seeds(),
        _ => unreachable!("no target {target}"),
    }
}

const TEXT_DICT: &[&[u8]] = &[
    b",",
    b"\n",
    b"\"",
    b"\t",
    b";",
    b"|",
    b"\0",
    b":ID",
    b":ID(G)",
    b":LABEL",
    b":START_ID",
    b":END_ID",
    b":TYPE",
    b":WEIGHT",
    b":IGNORE",
    b":int",
    b":long[]",
    b":float",
    b":boolean",
    b":json",
    b":bytes",
    b":point",
    b":date",
    b":string[]",
    b"{crs:wgs-84}",
    b"\"\"",
    b"\\\"",
    b"-9223372036854775808",
    b"9223372036854775807",
    b"99999999999999999999",
    b"1e308",
    b"NaN",
    b"inf",
    b"-0",
    b"%%MatrixMarket matrix coordinate real symmetric\n",
    b"# ",
    b"% ",
    b"a ",
    b"p sp ",
    b"c ",
    b"\r\n",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
];

const XML_DICT: &[&[u8]] = &[
    b"<node id=\"x\">",
    b"</node>",
    b"<edge source=\"x\" target=\"y\">",
    b"</edge>",
    b"<data key=\"d0\">",
    b"</data>",
    b"<key id=\"d9\" for=\"node\" attr.name=\"n\" attr.type=\"long\"/>",
    b"attr.type=\"double\"",
    b"attr.type=\"boolean\"",
    b"<default>",
    b"<graph edgedefault=\"directed\">",
    b"</graph>",
    b"&amp;",
    b"&#0;",
    b"&#x110000;",
    b"<![CDATA[",
    b"]]>",
    b"<!--",
    b"-->",
    b"<?xml version='1.0'?>",
    b"labels=\":A:B\"",
    b"\"",
    b"'",
    b"<",
    b">",
    b"/>",
    b"\n",
];

const TABLE_DICT: &[&[u8]] = &[
    b"PAR1",
    b"ARROW1",
    b"\xff\xff\xff\xff",
    b"\x00\x00\x00\x00",
    b"\x15\x00",
    b"\x18",
    b"\x19\x1c",
    b"\x7f\xff\xff\xff",
    b"id",
    b"src",
    b"dst",
    b"type",
    b"weight",
    b"labels",
    b"title",
    b"source",
    b"target",
    b"entity_ids",
];

/// Inputs that once failed (see each comment); run before the mutants.
fn regressions(target: &str) -> Vec<&'static [u8]> {
    match target {
        // An undirected GraphML edge with a NaN `weight` (kept as a property, not a weight):
        // check() compared the two adjacency entries' properties with `==`, NaN != NaN, and
        // reported "edge differs from its mirror" on a sound store. check() now compares
        // floats bit for bit.
        "graphml" => vec![
            b"\x00<graphml><key id=\"w\" for=\"edge\" attr.name=\"weight\" attr.type=\"double\"/>\
              <graph edgedefault=\"undirected\"><node id=\"a\"/><node id=\"b\"/>\
              <edge source=\"a\" target=\"b\"><data key=\"w\">NaN</data></edge></graph></graphml>",
        ],
        _ => vec![],
    }
}

/// An Arrow IPC stream whose record batch message has a buffer length past the body (the
/// input the `parquet` target found, and every other placement of that damage): arrow-ipc
/// 60 sliced the buffer unchecked and panicked; the import now fails with the file's typed
/// error saying the reader failed, the store untouched.
#[test]
fn ipc_buffer_past_body_is_a_typed_error() {
    let good = ipc_stream(&sample_table());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.arrows");
    let mut caught = 0;
    for at in (8..good.len().saturating_sub(8)).step_by(4) {
        let mut bad = good.clone();
        bad[at..at + 8].fill(0x85);
        let mut input = vec![2u8];
        input.extend_from_slice(&bad);
        // The fuzz body's invariants hold ...
        fuzz_bodies::parquet(&input);
        // ... and the reader's failure is reported as such.
        std::fs::write(&path, &bad).unwrap();
        let g = hopdb_core::Graph::in_memory();
        let spec = hopdb_import::ImportSpec {
            parquet_nodes: vec![hopdb_import::parquet::TableInput::new(&path)],
            ..Default::default()
        };
        if let Err(e) = hopdb_import::import(&g, &spec, &hopdb_import::NoProgress) {
            if e.to_string().contains("the reader failed") {
                assert!(matches!(e, hopdb_import::ImportError::Io { .. }), "{e:?}");
                assert!(e.to_string().contains("t.arrows"), "{e}");
                caught += 1;
            }
        }
    }
    assert!(caught > 0, "no placement of the damage reached the reader's panic");
}

fn fuzz(target: &str, body: fn(&[u8])) {
    let started = std::time::Instant::now();
    let seeds = seeds(target);
    let (dict, iterations, max_len) = match target {
        "neo4j_csv" | "edgelist" => (TEXT_DICT, TEXT_ITERATIONS, TEXT_MAX_LEN),
        "graphml" => (XML_DICT, TEXT_ITERATIONS, TEXT_MAX_LEN),
        _ => (TABLE_DICT, TABLE_ITERATIONS, TABLE_MAX_LEN),
    };
    let before = fuzz_bodies::imported();
    let ran = mutate::run(target, body, &regressions(target), &seeds, dict, iterations, max_len);
    eprintln!(
        "fuzz {target}: {ran} inputs ({} seeds), {} imported, in {:.2} s",
        seeds.len(),
        fuzz_bodies::imported() - before,
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn neo4j_csv() {
    fuzz("neo4j_csv", fuzz_bodies::neo4j_csv);
}

#[test]
fn edgelist() {
    fuzz("edgelist", fuzz_bodies::edgelist);
}

#[test]
fn graphml() {
    fuzz("graphml", fuzz_bodies::graphml);
}

#[test]
fn parquet() {
    fuzz("parquet", fuzz_bodies::parquet);
}

#[test]
fn graphrag() {
    fuzz("graphrag", fuzz_bodies::graphrag);
}

/// The seeds are valid inputs: each imports something (so the mutants start from inputs that
/// reach the loaders, not only the header checks).
#[test]
fn seeds_import() {
    for target in ["neo4j_csv", "edgelist", "graphml", "parquet", "graphrag"] {
        let seeds = seeds(target);
        let mut failed = Vec::new();
        for (i, s) in seeds.iter().enumerate() {
            let before = fuzz_bodies::imported();
            match target {
                "neo4j_csv" => fuzz_bodies::neo4j_csv(s),
                "edgelist" => fuzz_bodies::edgelist(s),
                "graphml" => fuzz_bodies::graphml(s),
                "parquet" => fuzz_bodies::parquet(s),
                _ => fuzz_bodies::graphrag(s),
            }
            if fuzz_bodies::imported() == before {
                failed.push(i);
            }
        }
        eprintln!("{target}: {} seeds, these do not import: {failed:?}", seeds.len());
        assert!(
            failed.len() * 2 <= seeds.len(),
            "{target}: most seeds do not import: {failed:?}"
        );
    }
}

/// Writes each target's seeds to $HOPDB_FUZZ_SEEDS_DIR/import-TARGET/ (scripts/fuzz-seeds.sh).
#[test]
#[ignore = "writes seed corpora; run by scripts/fuzz-seeds.sh"]
fn write_seeds() {
    let Some(dir) = std::env::var_os("HOPDB_FUZZ_SEEDS_DIR") else {
        eprintln!("write_seeds: HOPDB_FUZZ_SEEDS_DIR is not set; nothing written");
        return;
    };
    for target in ["neo4j_csv", "edgelist", "graphml", "parquet", "graphrag"] {
        let d = Path::new(&dir).join(format!("import-{target}"));
        std::fs::create_dir_all(&d).unwrap();
        let mut all = seeds(target);
        all.extend(regressions(target).iter().map(|r| r.to_vec()));
        for (i, s) in all.iter().enumerate() {
            std::fs::write(d.join(format!("seed-{i:03}")), s).unwrap();
        }
        eprintln!("write_seeds: {} seeds in {}", all.len(), d.display());
    }
}
