//! Shared by the cross-check tests: real graphs from ../shared/datasets and reference answers
//! computed by NetworkX / igraph through the scripts in tests/reference/.
#![allow(dead_code)]

mod edgelist;

use std::path::Path;
use std::process::Command;

/// The datasets directory ($HOPDB_DATASETS, else ../shared/datasets beside the checkout), or
/// `None` after printing why the test is skipped.
pub use hopdb_testdata::datasets;

pub use edgelist::Loaded;

/// [`edgelist::read_edge_list`], panicking with the reason when the file cannot be read.
pub fn load_edge_list(file: &Path, skip: usize, weight_col: Option<usize>) -> Loaded {
    edgelist::read_edge_list(file, skip, weight_col).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `tests/reference/<script>` with python3 (or `$HOPDB_REFERENCE_PYTHON`, e.g. a venv
/// that also has `lightrag-hku`) and parses the JSON it prints. Panics with a clear message
/// when python3 or its packages (networkx, igraph, leidenalg: installed by scripts/setup.sh)
/// are missing: a cross-check that cannot run must not pass.
pub fn reference(script: &str, args: &[&str]) -> serde_json::Value {
    let path =
        Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()))
            .join("tests/reference")
            .join(script);
    let python = std::env::var_os("HOPDB_REFERENCE_PYTHON").unwrap_or_else(|| "python3".into());
    let out = Command::new(&python)
        .arg(&path)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {} {}: {e}", python.to_string_lossy(), path.display()));
    assert!(
        out.status.success(),
        "reference {} failed (are networkx, igraph and leidenalg installed? scripts/setup.sh installs them):\n{}",
        script,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("reference {script} printed bad JSON: {e}"))
}
