//! Reading the real graphs in ../shared/datasets (or $HOPDB_DATASETS), shared by the benches.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;

pub fn datasets() -> PathBuf {
    std::env::var_os("HOPDB_DATASETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(
                std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()),
            )
            .join("../../../shared/datasets")
        })
}

/// Reads a SNAP-style gzipped edge list: `#` comments, an optional `N M` count header.
pub fn read_edges(rel: &str, count_header: bool) -> Option<Vec<(i64, i64)>> {
    let path = datasets().join(rel);
    let Ok(f) = std::fs::File::open(&path) else {
        eprintln!("skipping {rel}: not found at {} (set HOPDB_DATASETS)", path.display());
        return None;
    };
    let mut out = Vec::new();
    for (i, line) in BufReader::new(flate2::read::GzDecoder::new(f)).lines().enumerate() {
        let line = line.expect("readable dataset");
        if line.starts_with('#') || (count_header && i == 0) || line.trim().is_empty() {
            continue;
        }
        let mut it = line
            .split_whitespace()
            .map(|x| x.parse::<i64>().expect("integer node id"));
        out.push((it.next().expect("src"), it.next().expect("dst")));
    }
    Some(out)
}
