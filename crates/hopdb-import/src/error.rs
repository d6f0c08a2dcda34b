//! Import errors name the file, line and column and say why.

use std::path::PathBuf;

/// Why an import stopped. Nothing of a failed import is in the store.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A line of an input file that cannot be loaded.
    #[error("{file}:{line}{}: {reason}", column.as_ref().map(|c| format!(" column {c}")).unwrap_or_default())]
    Bad {
        /// The input file.
        file: PathBuf,
        /// Its 1-based line (a row number for Parquet and Arrow tables).
        line: u64,
        /// The column at fault, when one is.
        column: Option<String>,
        /// What is wrong with it.
        reason: String,
    },
    /// More bad lines than `--bad-tolerance` allows (they are listed in the report file).
    #[error("{file}:{line}: {reason}: bad entry number {count}, more than the tolerance of {tolerance} (all are listed in {report}); nothing was imported")]
    TooManyBad {
        /// The file of the entry that crossed the tolerance.
        file: PathBuf,
        /// Its line.
        line: u64,
        /// What is wrong with it (with its column, when one is at fault).
        reason: String,
        /// Bad entries met so far.
        count: u64,
        /// The tolerance they passed.
        tolerance: u64,
        /// The report file listing them.
        report: PathBuf,
    },
    /// A problem with how the import was asked for (options, headers, missing files).
    #[error("{0}")]
    Usage(String),
    /// Reading an input file or writing the report or an export failed.
    #[error("I/O error on {path}: {source}")]
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The store refused the load or failed while writing it.
    #[error(transparent)]
    Store(#[from] hopdb_core::Error),
}

/// Result with [`ImportError`] as the default error.
pub type Result<T, E = ImportError> = std::result::Result<T, E>;

pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> ImportError + '_ {
    move |source| ImportError::Io {
        path: path.to_owned(),
        source,
    }
}
