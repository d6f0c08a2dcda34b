//! Where tests and benchmarks find the real graphs: `$HOPDB_DATASETS`, else `../shared/datasets`
//! beside the checkout. The files are never copied into the repository.
//!
//! A test-support crate: only ever a dev-dependency (never published, never linked into a
//! library or binary), so under the workspace lints it may, like integration tests, carry a
//! file-level `#![allow(clippy::unwrap_used, clippy::expect_used)]` when a helper should fail the
//! calling test by panicking. It needs none today: [`datasets`] reports a missing directory as
//! `None` so the caller can skip.

use std::path::{Path, PathBuf};

/// The datasets directory, or `None` after printing why the calling test is skipped.
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
