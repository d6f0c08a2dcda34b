//! Where tests and benchmarks find the real graphs: `$HOPDB_DATASETS`, else `../shared/datasets`
//! beside the checkout. The files are never copied into the repository.
//!
//! A test-support crate: only ever a dev-dependency (never published, never linked into a
//! library or binary), so under the workspace lints it may, like integration tests, carry a
//! file-level `#![allow(clippy::unwrap_used, clippy::expect_used)]` when a helper should fail the
//! calling test by panicking. It needs none today: [`datasets`] reports a missing directory as
//! `None` so the caller can skip.

pub mod minio;
pub mod postgres;
pub mod proxy;
pub mod redis;
pub mod s3;
pub mod sampling;

use std::path::{Path, PathBuf};

/// The datasets directory, or `None` after printing why the calling test is skipped.
///
/// Looked for in order: `$HOPDB_DATASETS`; `../shared/datasets` beside the checkout of the
/// test being run (cargo sets `CARGO_MANIFEST_DIR` at run time; this crate's own compile-time
/// path may name another checkout that shares the build directory); beside this crate's
/// checkout; the workplace's `/work/shared/datasets`.
pub fn datasets() -> Option<PathBuf> {
    let beside = |manifest: &Path| manifest.join("../../../shared/datasets");
    let candidates: Vec<PathBuf> = match std::env::var_os("HOPDB_DATASETS") {
        Some(d) => vec![PathBuf::from(d)],
        None => std::env::var_os("CARGO_MANIFEST_DIR")
            .map(|m| beside(Path::new(&m)))
            .into_iter()
            .chain([
                beside(Path::new(env!("CARGO_MANIFEST_DIR"))),
                PathBuf::from("/work/shared/datasets"),
            ])
            .collect(),
    };
    match candidates.iter().find(|d| d.is_dir()) {
        Some(d) => Some(d.clone()),
        None => {
            eprintln!(
                "SKIPPED: no datasets at {} (set HOPDB_DATASETS)",
                candidates
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" or ")
            );
            None
        }
    }
}

/// A number that differs between calls, for names of private servers' directories.
pub(crate) fn unique() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}
