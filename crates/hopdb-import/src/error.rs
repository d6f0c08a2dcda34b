//! Import errors name the file, line and column and say why.

use std::path::PathBuf;

/// Why an import stopped. Nothing of a failed import is in the store.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A line of an input file that cannot be loaded.
    #[error("{file}:{line}{}: {reason}", column.as_ref().map(|c| format!(" column {c}")).unwrap_or_default())]
    Bad {
        file: PathBuf,
        line: u64,
        column: Option<String>,
        reason: String,
    },
    /// More bad lines than `--bad-tolerance` allows (they are listed in the report file).
    #[error("{count} bad entries, more than the tolerance of {tolerance} (see {report}); nothing was imported")]
    TooManyBad {
        count: u64,
        tolerance: u64,
        report: PathBuf,
    },
    /// A problem with how the import was asked for (options, headers, missing files).
    #[error("{0}")]
    Usage(String),
    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] hopdb_core::Error),
}

pub type Result<T, E = ImportError> = std::result::Result<T, E>;

pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> ImportError + '_ {
    move |source| ImportError::Io {
        path: path.to_owned(),
        source,
    }
}
