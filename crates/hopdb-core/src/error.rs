//! One error type for the whole store. Every variant says what went wrong and where.

use std::path::PathBuf;

/// Everything a HopDB operation can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: not a HopDB store: {reason}")]
    NotAStore { path: PathBuf, reason: String },

    #[error("{path}: the store is already open for writing by another process or handle (RocksDB lock held); open it read-only (secondary) instead")]
    StoreLocked { path: PathBuf },

    #[error(
        "{path}: on-disk format version {found} is not supported by this build (it reads version {supported}){hint}"
    )]
    UnsupportedFormat {
        path: PathBuf,
        found: u32,
        supported: u32,
        hint: &'static str,
    },

    #[error("{path}: corruption detected: {detail}")]
    Corruption { path: PathBuf, detail: String },

    #[error("storage error in {context}: {detail}")]
    Storage { context: &'static str, detail: String },

    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("invalid {what}: {reason}")]
    Invalid { what: &'static str, reason: String },

    #[error("{what} is {len} bytes, over the limit of {max} bytes")]
    TooLarge { what: &'static str, len: usize, max: usize },

    #[error("node {key} does not exist")]
    NodeNotFound { key: String },

    #[error("edge {src} -[{ty}]-> {dst} does not exist")]
    EdgeNotFound { src: String, ty: String, dst: String },

    #[error("edge id {id} does not exist")]
    EdgeIdNotFound { id: u64 },

    #[error("edge type {ty}: {reason}")]
    EdgeType { ty: String, reason: String },

    #[error("the store was opened read-only; {op} needs a writable open")]
    ReadOnly { op: &'static str },

    #[error("node {key} is given twice in one bulk load")]
    DuplicateNode { key: String },

    #[error("a bulk load failed while committing ({reason}); this handle accepts no more writes: reopen the store, which rolls it back to its state before the load")]
    BulkInterrupted { reason: String },

    #[error("item {index} of the batch: {source}")]
    InBatch {
        index: usize,
        #[source]
        source: Box<Error>,
    },
}

/// Result with HopDB's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn invalid(what: &'static str, reason: impl Into<String>) -> Self {
        Error::Invalid {
            what,
            reason: reason.into(),
        }
    }

    pub(crate) fn corrupt(path: impl Into<PathBuf>, detail: impl Into<String>) -> Self {
        Error::Corruption {
            path: path.into(),
            detail: detail.into(),
        }
    }

    /// Wraps an error with the position of the batch item that caused it.
    pub(crate) fn at(self, index: usize) -> Self {
        Error::InBatch {
            index,
            source: Box::new(self),
        }
    }

    /// The innermost error, looking through batch positions.
    pub fn root(&self) -> &Error {
        match self {
            Error::InBatch { source, .. } => source.root(),
            e => e,
        }
    }
}
