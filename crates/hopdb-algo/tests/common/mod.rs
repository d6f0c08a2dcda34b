//! Shared by the cross-check tests: real graphs from ../shared/datasets and reference answers
//! computed by NetworkX / igraph through the scripts in tests/reference/.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::Command;

use hopdb_algo::Csr;

/// The datasets directory ($HOPDB_DATASETS, else ../shared/datasets beside the checkout), or
/// `None` after printing why the test is skipped.
pub fn datasets() -> Option<PathBuf> {
    let dir = std::env::var_os("HOPDB_DATASETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets"));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("SKIPPED: no datasets at {} (set HOPDB_DATASETS)", dir.display());
        None
    }
}

/// A real graph loaded as an edge list with dense ids `0..n` in order of first appearance;
/// `ids[i]` is the file's id of node i.
pub struct Loaded {
    pub n: u32,
    pub edges: Vec<(u32, u32)>,
    pub weights: Option<Vec<f64>>,
    pub ids: Vec<String>,
}

impl Loaded {
    pub fn csr(&self) -> Csr {
        Csr::from_edges(self.n, &self.edges, self.weights.as_deref()).unwrap()
    }

    /// Writes the edge list (dense ids, optional weight) for the reference scripts.
    pub fn write_tsv(&self, path: &Path) {
        let mut out = String::with_capacity(self.edges.len() * 16);
        for (i, (s, d)) in self.edges.iter().enumerate() {
            match &self.weights {
                Some(w) => out.push_str(&format!("{s}\t{d}\t{}\n", w[i])),
                None => out.push_str(&format!("{s}\t{d}\n")),
            }
        }
        std::fs::write(path, out).unwrap();
    }
}

/// Reads an edge list: `#`/`%` comments, whitespace/comma separated, DIMACS `a u v w` lines,
/// `skip` leading data lines (count headers), weight from column `weight_col` when given.
pub fn load_edge_list(file: &Path, skip: usize, weight_col: Option<usize>) -> Loaded {
    let raw = std::fs::File::open(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let reader: Box<dyn Read> = if file.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::GzDecoder::new(raw))
    } else {
        Box::new(raw)
    };
    let mut index: HashMap<String, u32> = HashMap::new();
    let mut ids = Vec::new();
    let mut edges = Vec::new();
    let mut weights = weight_col.map(|_| Vec::new());
    let mut intern = |s: &str, ids: &mut Vec<String>| -> u32 {
        *index.entry(s.to_string()).or_insert_with(|| {
            ids.push(s.to_string());
            (ids.len() - 1) as u32
        })
    };
    let mut skipped = 0;
    for line in BufReader::new(reader).lines() {
        let line = line.unwrap();
        let t = line.trim();
        if t.is_empty()
            || t.starts_with('#')
            || t.starts_with('%')
            || t == "c"
            || t.starts_with("c ")
            || t.starts_with("p ")
        {
            continue;
        }
        if skipped < skip {
            skipped += 1;
            continue;
        }
        let mut cols: Vec<&str> = t
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|c| !c.is_empty())
            .collect();
        if cols.first() == Some(&"a") {
            cols.remove(0);
        }
        let s = intern(cols[0], &mut ids);
        let d = intern(cols[1], &mut ids);
        edges.push((s, d));
        if let (Some(w), Some(c)) = (weights.as_mut(), weight_col) {
            w.push(cols[c].parse::<f64>().unwrap());
        }
    }
    Loaded {
        n: ids.len() as u32,
        edges,
        weights,
        ids,
    }
}

/// Runs `tests/reference/<script>` with python3 and parses the JSON it prints. Panics with a
/// clear message when python3 or its packages (networkx, igraph, leidenalg: installed by
/// scripts/setup.sh) are missing: a cross-check that cannot run must not pass.
pub fn reference(script: &str, args: &[&str]) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/reference")
        .join(script);
    let out = Command::new("python3")
        .arg(&path)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3 {}: {e}", path.display()));
    assert!(
        out.status.success(),
        "reference {} failed (are networkx, igraph and leidenalg installed? scripts/setup.sh installs them):\n{}",
        script,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("reference {script} printed bad JSON: {e}"))
}
