// The bodies of the hopdb-import fuzz targets, shared word for word by the cargo-fuzz targets
// (crates/hopdb-import/fuzz/fuzz_targets/*.rs, `include!("../bodies.rs")`) and the bounded
// in-suite run (crates/hopdb-import/tests/fuzz_inputs.rs, `include!("../fuzz/bodies.rs")`),
// so the two cannot drift. Not a module of its own: it is included into each crate root.
//
// Each body turns the fuzzer's bytes into input files in a per-thread scratch directory (the
// first one or two bytes pick the import's options, the rest is the file content), imports
// them into a fresh in-memory store through the public `hopdb_import::import`, and asserts:
// - no panic (a panic is the failure libFuzzer and the test report);
// - a failed import is a typed error that says where and why (file and line, or a usage or
//   I/O message), and leaves the store empty ("nothing of a failed import is in the store");
// - a successful import leaves a store that passes `check()`, holding the nodes it reports.
//
// The targets: `neo4j_csv` (node and relationship files, header in the file or a separate
// header file, the dialect options), `edgelist` (SNAP / networkrepository / DIMACS text,
// MatrixMarket with any banner, gzip or not), `graphml` (LightRAG, gzip or not), `parquet`
// (Parquet and Arrow IPC file and stream tables, as nodes or relationships) and `graphrag`
// (a GraphRAG output directory: entities, relationships and optionally communities tables).

#[allow(dead_code)]
mod fuzz_bodies {
    use hopdb_core::Graph;
    use hopdb_import::edgelist::EdgeList;
    use hopdb_import::parquet::{Columns, TableInput};
    use hopdb_import::{
        import, BadPolicy, CsvOptions, FileGroup, GroupKeys, IdType, ImportError, ImportReport, ImportSpec, NoProgress,
    };
    use std::io::Write;
    use std::path::{Path, PathBuf};

    thread_local! {
        /// Imports that succeeded on this thread (the in-suite run reports how deep its
        /// mutants get).
        static IMPORTED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
        static SCRATCH: tempfile::TempDir = match tempfile::tempdir() {
            Ok(d) => d,
            Err(e) => panic!("fuzz scratch directory: {e}"),
        };
    }

    /// Imports that succeeded on this thread so far.
    pub fn imported() -> u64 {
        IMPORTED.with(std::cell::Cell::get)
    }

    /// Runs `f` with this thread's scratch directory (reused by every input: files are
    /// overwritten, and stale ones removed by the body that wrote them).
    fn with_dir<R>(f: impl FnOnce(&Path) -> R) -> R {
        SCRATCH.with(|d| f(d.path()))
    }

    fn write(path: &Path, bytes: &[u8]) {
        if let Err(e) = std::fs::write(path, bytes) {
            panic!("writing {}: {e}", path.display());
        }
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        match enc.write_all(bytes).and_then(|()| enc.finish()) {
            Ok(v) => v,
            Err(e) => panic!("gzip in memory: {e}"),
        }
    }

    /// The bad-entry policy bit: stop at the first bad entry, or skip up to a few of them.
    fn policy(dir: &Path, tolerant: bool, skip_flags: bool) -> BadPolicy {
        BadPolicy {
            skip_duplicate_nodes: skip_flags,
            skip_bad_relationships: skip_flags,
            tolerance: tolerant.then_some(4),
            report: Some(dir.join("import.report")),
        }
    }

    /// Imports `spec` into a fresh in-memory store and checks the outcome.
    fn import_and_check(spec: &ImportSpec) {
        let g = Graph::in_memory();
        let result = import(&g, spec, &NoProgress);
        verdict(&g, result);
    }

    /// The invariants every import target asserts.
    pub fn verdict(g: &Graph, result: Result<ImportReport, ImportError>) {
        let report = match g.check() {
            Ok(r) => r,
            Err(e) => panic!("check() failed to run after the import ({result:?}): {e}"),
        };
        assert!(
            report.is_ok(),
            "the store fails check() after the import ({result:?}): {:?}",
            report.problems
        );
        match result {
            Ok(r) => {
                assert_eq!(
                    report.nodes, r.nodes,
                    "the import reports {} nodes, the store holds {}",
                    r.nodes, report.nodes
                );
                IMPORTED.with(|c| c.set(c.get() + 1));
            }
            Err(e) => {
                assert_eq!(
                    (report.nodes, report.edges),
                    (0, 0),
                    "a failed import left data in the store: {e}"
                );
                match &e {
                    ImportError::Bad { reason, .. } => {
                        assert!(!reason.is_empty(), "a bad-line error without a reason: {e:?}")
                    }
                    ImportError::TooManyBad {
                        reason,
                        count,
                        tolerance,
                        ..
                    } => {
                        assert!(!reason.is_empty() && count > tolerance, "{e:?}")
                    }
                    ImportError::Usage(m) => assert!(!m.is_empty(), "a usage error without a message"),
                    ImportError::Io { .. } => {}
                    ImportError::Store(s) => assert!(
                        s.kind() != hopdb_core::ErrorKind::Corruption,
                        "the import reported a corrupt store: {s}"
                    ),
                }
                assert!(!e.to_string().is_empty());
            }
        }
    }

    fn bit(b: u8, i: u32) -> bool {
        b >> i & 1 == 1
    }

    /// neo4j-admin CSV. Byte 0: multiline fields, legacy quoting, ignore empty strings, trim
    /// strings, ignore extra columns, multi-edges, tolerance, skip flags. Byte 1: delimiter
    /// (2 bits), id type (2 bits), plain group keys, the nodes' header line in a separate file,
    /// labels / type given with the files, `|` as the array delimiter. The rest: the node file,
    /// then (after the first NUL byte, if any) the relationship file.
    pub fn neo4j_csv(data: &[u8]) {
        let Some((&[a, b], rest)) = data.split_first_chunk::<2>() else {
            return;
        };
        with_dir(|dir| {
            let (nodes, rels) = match rest.iter().position(|&c| c == 0) {
                Some(i) => (&rest[..i], Some(&rest[i + 1..])),
                None => (rest, None),
            };
            let csv = CsvOptions {
                delimiter: [b',', b'\t', b'|', b';'][usize::from(b & 3)],
                array_delimiter: if bit(b, 7) { b'|' } else { b';' },
                quote: b'"',
                id_type: [IdType::String, IdType::Integer, IdType::Json, IdType::String][usize::from(b >> 2 & 3)],
                group_keys: if bit(b, 4) {
                    GroupKeys::Plain
                } else {
                    GroupKeys::Prefixed
                },
                multiline_fields: bit(a, 0),
                legacy_quoting: bit(a, 1),
                ignore_empty_strings: bit(a, 2),
                trim_strings: bit(a, 3),
                temporal: None,
                ignore_extra_columns: bit(a, 4),
            };
            let mut spec = ImportSpec {
                csv,
                bad: policy(dir, bit(a, 6), bit(a, 7)),
                multi_relationships: bit(a, 5),
                ..ImportSpec::default()
            };
            let labels = bit(b, 6).then_some("Fuzz:Other");
            if !nodes.is_empty() || rels.is_none() {
                let mut files = Vec::new();
                let body = if bit(b, 5) {
                    let end = nodes.iter().position(|&c| c == b'\n').map_or(nodes.len(), |i| i + 1);
                    write(&dir.join("nodes-header.csv"), &nodes[..end]);
                    files.push(dir.join("nodes-header.csv"));
                    &nodes[end..]
                } else {
                    nodes
                };
                write(&dir.join("nodes.csv"), body);
                files.push(dir.join("nodes.csv"));
                spec.nodes.push(FileGroup::new(labels, files));
            }
            if let Some(rels) = rels {
                write(&dir.join("rels.csv"), rels);
                spec.relationships
                    .push(FileGroup::new(labels.map(|_| "FUZZ"), vec![dir.join("rels.csv")]));
            }
            import_and_check(&spec);
        })
    }

    /// The MatrixMarket banners the `edgelist` body may put in front of its text.
    const BANNERS: [&str; 8] = [
        "%%MatrixMarket matrix coordinate pattern general\n",
        "%%MatrixMarket matrix coordinate real general\n",
        "%%MatrixMarket matrix coordinate integer symmetric\n",
        "%%MatrixMarket matrix coordinate pattern symmetric\n",
        "%%MatrixMarket matrix coordinate real skew-symmetric\n",
        "%%MatrixMarket matrix coordinate complex hermitian\n",
        "%%matrixmarket matrix array real general\n",
        "%%MatrixMarket\n",
    ];

    /// Edge lists. Byte 0: gzip the file, undirected, weighted, multi, string ids, skip lines
    /// (2 bits), tolerance. Byte 1: 0 to 7 no banner, 8 to 15 a MatrixMarket banner first
    /// (`BANNERS`), bit 4 the edge type option given with the import too. The rest: the text.
    pub fn edgelist(data: &[u8]) {
        let Some((&[a, b], text)) = data.split_first_chunk::<2>() else {
            return;
        };
        with_dir(|dir| {
            let mut content = Vec::with_capacity(text.len() + 64);
            if b & 8 != 0 {
                content.extend_from_slice(BANNERS[usize::from(b & 7)].as_bytes());
            }
            content.extend_from_slice(text);
            let path: PathBuf = dir.join(if bit(a, 0) { "edges.txt.gz" } else { "edges.txt" });
            write(&path, &if bit(a, 0) { gzip(&content) } else { content });
            let mut e = EdgeList::new(&path);
            e.undirected = bit(a, 1);
            e.weighted = bit(a, 2);
            e.multi = bit(a, 3);
            e.id_type = if bit(a, 4) { IdType::String } else { IdType::Integer };
            e.skip_lines = u64::from(a >> 5 & 3);
            let mut spec = ImportSpec {
                edge_lists: vec![e],
                bad: policy(dir, bit(a, 7), false),
                ..ImportSpec::default()
            };
            if bit(b, 4) {
                spec.type_options.insert(
                    "EDGE".into(),
                    hopdb_core::EdgeTypeOptions {
                        undirected: !bit(a, 1),
                        multi: bit(a, 3),
                    },
                );
            }
            import_and_check(&spec);
            let _ = std::fs::remove_file(&path);
        })
    }

    /// LightRAG GraphML. Byte 0: gzip the file, tolerance, the `RELATED` type's options given
    /// with the import (undirected, multi). The rest: the XML.
    pub fn graphml(data: &[u8]) {
        let Some((&a, xml)) = data.split_first() else {
            return;
        };
        with_dir(|dir| {
            let path = dir.join("graph.graphml");
            write(&path, &if bit(a, 0) { gzip(xml) } else { xml.to_vec() });
            let mut spec = ImportSpec {
                graphml: vec![path],
                bad: policy(dir, bit(a, 1), false),
                ..ImportSpec::default()
            };
            if bit(a, 2) {
                spec.type_options.insert(
                    hopdb_import::graphml::EDGE_TYPE.into(),
                    hopdb_core::EdgeTypeOptions {
                        undirected: bit(a, 3),
                        multi: bit(a, 4),
                    },
                );
            }
            import_and_check(&spec);
        })
    }

    /// A Parquet or Arrow IPC table (told apart by content). Byte 0: read as nodes, as
    /// relationships, or both (2 bits), tolerance, keep the role columns as properties, a
    /// label / type given with the file, no labels or type column, a weight column named `w`.
    /// The rest: the file.
    pub fn parquet(data: &[u8]) {
        let Some((&a, file)) = data.split_first() else {
            return;
        };
        defer_reader_panics();
        with_dir(|dir| {
            let path = dir.join("table.bin");
            write(&path, file);
            let columns = Columns {
                keep: bit(a, 3),
                labels: (!bit(a, 5)).then(|| "labels".into()),
                ty: (!bit(a, 5)).then(|| "type".into()),
                weight: Some(if bit(a, 6) { "w" } else { "weight" }.into()),
                ..Columns::default()
            };
            let mut table = TableInput::new(&path);
            table.columns = columns;
            let mut spec = ImportSpec {
                bad: policy(dir, bit(a, 2), bit(a, 7)),
                ..ImportSpec::default()
            };
            match a & 3 {
                0 => spec.parquet_nodes.push(TableInput {
                    spec: bit(a, 4).then(|| "Fuzz".into()),
                    ..table
                }),
                1 => spec.parquet_edges.push(TableInput {
                    spec: bit(a, 4).then(|| "FUZZ".into()),
                    ..table
                }),
                _ => {
                    spec.parquet_nodes.push(table.clone());
                    // The same table's rows as relationships (src/dst columns), endpoints
                    // from the node rows.
                    spec.parquet_edges.push(table);
                }
            }
            import_and_check(&spec);
        })
    }

    /// hopdb-import catches panics inside the arrow and parquet readers (which trust some
    /// offsets of a damaged file) and turns them into the file's typed error. libFuzzer's
    /// panic hook aborts at any panic, caught or not: this hook lets those unwind to
    /// hopdb-import's catch (one that escapes still fails the run, where `fuzz_target!` sees
    /// it) and keeps the previous hook for every other panic.
    fn defer_reader_panics() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let prev = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                let reader = info.location().is_some_and(|l| {
                    let f = l.file();
                    f.contains("/arrow-") || f.contains("/parquet-")
                });
                if !reader {
                    prev(info)
                }
            }));
        });
    }

    /// Splits `data` into `n` parts, each but the last prefixed by its length (u32 LE, cut to
    /// what is left).
    pub fn split_parts(mut data: &[u8], n: usize) -> Vec<&[u8]> {
        let mut parts = Vec::with_capacity(n);
        for _ in 1..n {
            let len = match data.split_first_chunk::<4>() {
                Some((l, rest)) => {
                    data = rest;
                    (u32::from_le_bytes(*l) as usize).min(data.len())
                }
                None => 0,
            };
            let (part, rest) = data.split_at(len);
            parts.push(part);
            data = rest;
        }
        parts.push(data);
        parts
    }

    /// Joins parts as `split_parts` splits them.
    pub fn join_parts(parts: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, p) in parts.iter().enumerate() {
            if i + 1 < parts.len() {
                out.extend_from_slice(&(p.len() as u32).to_le_bytes());
            }
            out.extend_from_slice(p);
        }
        out
    }

    /// A GraphRAG output directory. Byte 0: tolerance, the old `create_final_*` file names.
    /// The rest, split by `split_parts` into three: entities, relationships and communities
    /// tables (no communities file when that part is empty).
    pub fn graphrag(data: &[u8]) {
        let Some((&a, rest)) = data.split_first() else {
            return;
        };
        defer_reader_panics();
        with_dir(|dir| {
            let out = dir.join("graphrag");
            let _ = std::fs::remove_dir_all(&out);
            if let Err(e) = std::fs::create_dir_all(&out) {
                panic!("{}: {e}", out.display());
            }
            let prefix = if bit(a, 1) { "create_final_" } else { "" };
            let parts = split_parts(rest, 3);
            write(&out.join(format!("{prefix}entities.parquet")), parts[0]);
            write(&out.join(format!("{prefix}relationships.parquet")), parts[1]);
            if !parts[2].is_empty() {
                write(&out.join(format!("{prefix}communities.parquet")), parts[2]);
            }
            let spec = ImportSpec {
                graphrag: vec![out],
                bad: policy(dir, bit(a, 0), false),
                ..ImportSpec::default()
            };
            import_and_check(&spec);
        })
    }
}
