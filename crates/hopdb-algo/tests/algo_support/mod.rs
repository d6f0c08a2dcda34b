//! Helpers shared by the algorithm cross-check tests (on top of tests/common): the datasets,
//! LightRAG GraphML graphs, temp files for the reference scripts, seeded node picks and
//! partition comparison.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use hopdb_algo::Csr;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common::{load_edge_list, reference, Loaded};

/// The graphs the tests use, with their format quirks (see shared/datasets/SOURCES.md).
pub fn notredame(dir: &Path) -> Loaded {
    load_edge_list(&dir.join("snap-web-NotreDame/web-NotreDame.txt.gz"), 1, None)
}

pub fn mit8(dir: &Path) -> Loaded {
    load_edge_list(&dir.join("facebook100-MIT8/MIT8.edgelist.gz"), 0, None)
}

/// The file has two bare `c` comment lines, which `load_edge_list` only skips as "c " (with a
/// space); they come before any arc, so skipping two data lines drops exactly them.
pub fn road_ny(dir: &Path) -> Loaded {
    load_edge_list(&dir.join("dimacs9-road-NY/USA-road-d.NY.gr.gz"), 2, Some(2))
}

pub fn rome99(dir: &Path) -> Loaded {
    load_edge_list(&dir.join("dimacs9-road-rome99/rome99.gr.gz"), 0, Some(2))
}

pub fn eu_core(dir: &Path) -> Loaded {
    load_edge_list(&dir.join("snap-email-Eu-core/email-Eu-core.txt.gz"), 0, None)
}

pub fn lastfm(dir: &Path) -> Loaded {
    load_edge_list(&dir.join("feather-lastfm-asia/lastfm_asia_edges.csv.gz"), 1, None)
}

pub fn hepph(dir: &Path) -> Loaded {
    load_edge_list(&dir.join("snap-ca-HepPh/CA-HepPh.txt.gz"), 0, None)
}

/// A LightRAG knowledge graph (`<dataset>/graph_chunk_entity_relation.graphml.gz`, read by
/// NetworkX as LightRAG reads it) as an undirected edge list, each edge once, with weights.
pub fn lightrag_graphml(dir: &Path, dataset: &str) -> Loaded {
    let path = dir.join(dataset).join("graph_chunk_entity_relation.graphml.gz");
    let r = reference("comm_graphml.py", &[path.to_str().unwrap()]);
    let ids: Vec<String> = r["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let (mut edges, mut weights) = (Vec::new(), Vec::new());
    for e in r["edges"].as_array().unwrap() {
        edges.push((e[0].as_u64().unwrap() as u32, e[1].as_u64().unwrap() as u32));
        weights.push(e[2].as_f64().unwrap());
    }
    Loaded {
        n: ids.len() as u32,
        edges,
        weights: Some(weights),
        ids,
    }
}

/// A temp file that is removed when dropped.
pub struct TempFile(pub PathBuf);

impl TempFile {
    pub fn new(name: &str) -> TempFile {
        TempFile(std::env::temp_dir().join(format!("hopdb-algo-{}-{name}", std::process::id())))
    }

    pub fn tsv(g: &Loaded, name: &str) -> TempFile {
        let t = TempFile::new(name);
        g.write_tsv(&t.0).unwrap();
        t
    }

    pub fn arg(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `count` distinct nodes drawn with a fixed seed among those that pass `keep`.
pub fn pick(n: u32, count: usize, seed: u64, keep: impl Fn(u32) -> bool) -> Vec<u32> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    let mut tries = 0;
    while out.len() < count && tries < 1_000_000 {
        tries += 1;
        let v = rng.random_range(0..n);
        if keep(v) && !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

pub fn join(nodes: &[u32]) -> String {
    nodes.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(",")
}

pub fn join_pairs(pairs: &[(u32, u32)]) -> String {
    pairs
        .iter()
        .map(|(s, t)| format!("{s}-{t}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// True when `row` (sorted) holds `v`.
pub fn has_edge(g: &Csr, u: u32, v: u32) -> bool {
    g.neighbors(u).binary_search(&v).is_ok()
}

/// Asserts that two labelings describe the same partition (ids may differ).
pub fn assert_same_partition(ours: &[u32], theirs: &[u64], what: &str) {
    assert_eq!(ours.len(), theirs.len(), "{what}: node counts differ");
    let mut fwd = std::collections::HashMap::new();
    let mut back = std::collections::HashMap::new();
    for (v, (&a, &b)) in ours.iter().zip(theirs).enumerate() {
        assert_eq!(
            *fwd.entry(a).or_insert(b),
            b,
            "{what}: node {v} splits our component {a}"
        );
        assert_eq!(
            *back.entry(b).or_insert(a),
            a,
            "{what}: node {v} splits the reference component {b}"
        );
    }
}

pub fn u64s(v: &serde_json::Value) -> Vec<u64> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect()
}

pub fn f64s(v: &serde_json::Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}
