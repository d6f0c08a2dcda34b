//! Reading real edge lists (shared by the tests, through tests/common, and by the examples,
//! which include this file with `#[path]`): `#`/`%` comments, DIMACS `c`/`p` lines,
//! whitespace or comma separated columns, DIMACS `a u v w` arc lines (the `a` dropped),
//! gzip when the name ends in `.gz`; node ids made dense in order of first appearance.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use hopdb_algo::Csr;

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
        Csr::from_edges(self.n, &self.edges, self.weights.as_deref()).expect("dense ids are in range")
    }

    /// Writes the edge list (dense ids, optional weight) for the reference scripts.
    pub fn write_tsv(&self, path: &Path) -> std::io::Result<()> {
        let mut out = String::with_capacity(self.edges.len() * 16);
        for (i, (s, d)) in self.edges.iter().enumerate() {
            match &self.weights {
                Some(w) => out.push_str(&format!("{s}\t{d}\t{}\n", w[i])),
                None => out.push_str(&format!("{s}\t{d}\n")),
            }
        }
        std::fs::write(path, out)
    }
}

/// Reads `file`, skipping `skip` leading data lines (count headers), taking the weight from
/// column `weight_col` when given.
pub fn read_edge_list(file: &Path, skip: usize, weight_col: Option<usize>) -> Result<Loaded, String> {
    let raw = std::fs::File::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let reader: Box<dyn Read> = if file.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::GzDecoder::new(raw))
    } else {
        Box::new(raw)
    };
    let mut index: HashMap<String, u32> = HashMap::new();
    let mut ids = Vec::new();
    let mut edges = Vec::new();
    let mut weights = weight_col.map(|_| Vec::new());
    let mut skipped = 0;
    for line in BufReader::new(reader).lines() {
        let line = line.map_err(|e| format!("{}: {e}", file.display()))?;
        let t = line.trim();
        let comment =
            t.starts_with('#') || t.starts_with('%') || t == "c" || t.starts_with("c ") || t.starts_with("p ");
        if t.is_empty() || comment {
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
        if cols.len() < 2 {
            return Err(format!("{}: bad line: {t}", file.display()));
        }
        let mut intern = |s: &str| {
            *index.entry(s.to_string()).or_insert_with(|| {
                ids.push(s.to_string());
                (ids.len() - 1) as u32
            })
        };
        let (s, d) = (intern(cols[0]), intern(cols[1]));
        edges.push((s, d));
        if let (Some(w), Some(c)) = (weights.as_mut(), weight_col) {
            let x = cols
                .get(c)
                .and_then(|x| x.parse::<f64>().ok())
                .ok_or(format!("{}: no weight in column {c}: {t}", file.display()))?;
            w.push(x);
        }
    }
    Ok(Loaded {
        n: ids.len() as u32,
        edges,
        weights,
        ids,
    })
}
