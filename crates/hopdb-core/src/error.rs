//! One error type for the whole store. Every variant says what went wrong and where.

use std::path::PathBuf;

/// Everything a HopDB operation can fail with. New variants may come: match on [`Error::kind`]
/// for a stable class.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The path holds something other than a HopDB store (or nothing, for a read-only open).
    #[error("{path}: not a HopDB store: {reason}")]
    NotAStore {
        /// The directory that was to be opened.
        path: PathBuf,
        /// What was found there instead, or why it cannot be opened yet.
        reason: String,
    },

    /// Another process or handle holds the store's write lock.
    #[error("{path}: the store is already open for writing by another process or handle (RocksDB lock held); open it read-only (secondary) instead")]
    StoreLocked {
        /// The store directory whose lock is held.
        path: PathBuf,
    },

    /// The store was written in a format version this build does not read.
    #[error(
        "{path}: on-disk format version {found} is not supported by this build (it reads version {supported}){hint}"
    )]
    UnsupportedFormat {
        /// The store directory.
        path: PathBuf,
        /// The format version recorded in the store's meta column family.
        found: u32,
        /// The one format version this build reads ([`crate::FORMAT_VERSION`]).
        supported: u32,
        /// Whether a newer or an older HopDB wrote the store, and what to do (starts with a space).
        hint: &'static str,
    },

    /// RocksDB reported damaged files, or the store's format marker does not decode.
    #[error("{path}: corruption detected: {detail}")]
    Corruption {
        /// The store directory.
        path: PathBuf,
        /// RocksDB's message, or which marker is malformed.
        detail: String,
    },

    /// The file system holding the store is full. RocksDB then refuses every write (its
    /// background error) while reads go on; the Rust binding offers no `Resume`, so writes
    /// succeed again after space is freed and the store reopened. Acknowledged writes are kept.
    #[error("{path}: the disk is full ({detail}); the store stays readable: free space, then reopen the store to write again (acknowledged writes are kept)")]
    NoSpace {
        /// The store directory, or the file HopDB was writing (a bulk load's spill file).
        path: PathBuf,
        /// RocksDB's or the operating system's message.
        detail: String,
    },

    /// A stored record (key mapping, adjacency key, counter, ...) does not decode.
    #[error("corruption detected: malformed {what} ({context}); run `hopdb check` on the store")]
    MalformedRecord {
        /// The kind of record that failed to decode, e.g. "key mapping" or "degree counter".
        what: String,
        /// The operation that met it, e.g. "reading" or "loading the catalog".
        context: &'static str,
    },

    /// The storage engine failed for a reason other than corruption or the lock.
    #[error("storage error in {context}: {detail}")]
    Storage {
        /// The engine operation that failed, e.g. "committing a write batch".
        context: &'static str,
        /// The engine's message, prefixed by the store directory.
        detail: String,
    },

    /// A file-system call on a store, backup or bulk-load file failed.
    #[error("I/O error on {path}: {source}")]
    Io {
        /// The file or directory the call was on.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// An argument HopDB cannot accept: an empty key or name, a non-finite weight, a bad path...
    #[error("invalid {what}: {reason}")]
    Invalid {
        /// The argument at fault, e.g. "node key", "edge weight" or "store path".
        what: &'static str,
        /// Why it is refused.
        reason: String,
    },

    /// A key, name or encoded property map is over its size limit.
    #[error("{what} is {len} bytes, over the limit of {max} bytes")]
    TooLarge {
        /// The oversized item, e.g. "node key", "label" or "encoded property map".
        what: &'static str,
        /// Its size in bytes.
        len: usize,
        /// The limit in bytes: [`crate::MAX_KEY_BYTES`], [`crate::MAX_NAME_BYTES`] or
        /// [`crate::MAX_PROPS_BYTES`].
        max: usize,
    },

    /// An operation named a node that is not in the store.
    #[error("node {key} does not exist")]
    NodeNotFound {
        /// The node's key as displayed by [`crate::NodeKey`] (strings quoted).
        key: String,
    },

    /// An operation named an edge, by its endpoints and type, that is not in the store.
    #[error("edge {src} -[{ty}]-> {dst} does not exist")]
    EdgeNotFound {
        /// The source node's key, as displayed by [`crate::NodeKey`].
        src: String,
        /// The edge type's name.
        ty: String,
        /// The target node's key, as displayed by [`crate::NodeKey`].
        dst: String,
    },

    /// An operation named an edge id (of a multi-edge type) that is not in the store.
    #[error("edge id {id} does not exist")]
    EdgeIdNotFound {
        /// The edge id asked for.
        id: u64,
    },

    /// An edge type used against its declaration (multi versus single), redeclared differently,
    /// or one past the most the store supports.
    #[error("edge type {ty}: {reason}")]
    EdgeType {
        /// The edge type's name.
        ty: String,
        /// The conflict, and what to use instead where there is an alternative.
        reason: String,
    },

    /// A write on a handle opened read-only.
    #[error("the store was opened read-only; {op} needs a writable open")]
    ReadOnly {
        /// The refused operation, e.g. "writing" or "bulk loading".
        op: &'static str,
    },

    /// A bulk load was given the same node key twice.
    #[error("node {key} is given twice in one bulk load")]
    DuplicateNode {
        /// The repeated key, as displayed by [`crate::NodeKey`].
        key: String,
    },

    /// A bulk load failed part-way through its commit, so this handle refuses further writes.
    #[error("a bulk load failed while committing ({reason}); this handle accepts no more writes: reopen the store, which rolls it back to its state before the load")]
    BulkInterrupted {
        /// The commit's own error, or a note that an earlier load on this handle failed.
        reason: String,
    },

    /// A write, or a new uniqueness constraint, would give two live nodes with the label the
    /// same value of a property constrained unique (values equal as in Cypher: `1 = 1.0`).
    #[error(
        "uniqueness constraint on :{label}({property}) violated: nodes {node} and {existing} would both have {property} = {}",
        crate::value::literal(.value)
    )]
    ConstraintViolation {
        /// The constraint's label.
        label: String,
        /// The constraint's property.
        property: String,
        /// The value the two nodes share (boxed: errors stay small).
        value: Box<crate::value::Value>,
        /// The node being written (for a new constraint: one of the two holding the value),
        /// as displayed by [`crate::NodeKey`].
        node: String,
        /// The other node that has the value, as displayed by [`crate::NodeKey`].
        existing: String,
    },

    /// A write transaction on a graph kept elsewhere (a cluster) read something that a
    /// concurrent write changed before it committed; nothing of it was written. Retry it.
    #[error("write conflict: {detail}; nothing was written, retry the transaction")]
    Conflict {
        /// What changed under the transaction.
        detail: String,
    },

    /// An error from one item of a batch call, with the item's position.
    #[error("item {index} of the batch: {source}")]
    InBatch {
        /// The failing item's zero-based position in the batch.
        index: usize,
        /// The item's own error.
        #[source]
        source: Box<Error>,
    },
}

/// The stable class of an error, what front ends (Python exceptions, CLI exit messages, Bolt
/// status codes) map from. Variants of [`Error`] may be added; their kinds stay these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A node, edge or other named thing does not exist.
    NotFound,
    /// Bad input: a value, name, key or option HopDB cannot accept.
    InvalidArgument,
    /// The store is open for writing elsewhere.
    Locked,
    /// A write on a store opened read-only.
    ReadOnly,
    /// The store's files are damaged, not a HopDB store, or of an unsupported format.
    Corruption,
    /// A long call stopped by its timeout, cancel flag or memory bound.
    Cancelled,
    /// The storage engine or the file system failed.
    Storage,
    /// A write would break a uniqueness constraint (or existing data breaks a new one).
    ConstraintViolation,
    /// A concurrent write changed what a transaction read: retry it.
    Conflict,
}

impl ErrorKind {
    /// A short stable name (`not_found`, `invalid_argument`, ...), for logs and wire protocols.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::NotFound => "not_found",
            ErrorKind::InvalidArgument => "invalid_argument",
            ErrorKind::Locked => "locked",
            ErrorKind::ReadOnly => "read_only",
            ErrorKind::Corruption => "corruption",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Storage => "storage",
            ErrorKind::ConstraintViolation => "constraint_violation",
            ErrorKind::Conflict => "conflict",
        }
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A stored record that does not decode, found while reading.
pub(crate) fn corrupt_rec(what: &str) -> Error {
    Error::malformed(what, "reading")
}

/// Result with HopDB's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A failed file-system call on `path`: [`Error::NoSpace`] when the disk (or the user's
    /// quota) is full, so a caller sees one kind for a full disk whether RocksDB or HopDB's
    /// own files (a bulk load's spill runs, a new store's directory) met it; [`Error::Io`]
    /// otherwise.
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        let path = path.into();
        match source.kind() {
            std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded => Error::NoSpace {
                path,
                detail: source.to_string(),
            },
            _ => Error::Io { path, source },
        }
    }

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

    /// A stored record that does not decode: damage, reported as corruption.
    pub(crate) fn malformed(what: impl Into<String>, context: &'static str) -> Self {
        Error::MalformedRecord {
            what: what.into(),
            context,
        }
    }

    /// Wraps an error with the position of the batch item that caused it.
    pub(crate) fn at(self, index: usize) -> Self {
        Error::InBatch {
            index,
            source: Box::new(self),
        }
    }

    /// The stable class of this error (a batch item's error keeps its item's class).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::NodeNotFound { .. } | Error::EdgeNotFound { .. } | Error::EdgeIdNotFound { .. } => {
                ErrorKind::NotFound
            }
            Error::Invalid { .. } | Error::TooLarge { .. } | Error::EdgeType { .. } | Error::DuplicateNode { .. } => {
                ErrorKind::InvalidArgument
            }
            Error::StoreLocked { .. } => ErrorKind::Locked,
            Error::ReadOnly { .. } => ErrorKind::ReadOnly,
            Error::Corruption { .. }
            | Error::MalformedRecord { .. }
            | Error::NotAStore { .. }
            | Error::UnsupportedFormat { .. } => ErrorKind::Corruption,
            Error::Storage { .. } | Error::NoSpace { .. } | Error::Io { .. } | Error::BulkInterrupted { .. } => {
                ErrorKind::Storage
            }
            Error::ConstraintViolation { .. } => ErrorKind::ConstraintViolation,
            Error::Conflict { .. } => ErrorKind::Conflict,
            Error::InBatch { source, .. } => source.kind(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_is_no_space_whoever_met_it() {
        // ENOSPC as the operating system reports it (28 on Linux) and EDQUOT by its kind.
        let full = std::io::Error::from_raw_os_error(28);
        assert_eq!(full.kind(), std::io::ErrorKind::StorageFull);
        for source in [full, std::io::Error::from(std::io::ErrorKind::QuotaExceeded)] {
            let e = Error::io("/s/hopdb-bulk-1/run-0", source);
            assert!(
                matches!(&e, Error::NoSpace { path, .. } if path.ends_with("run-0")),
                "{e:?}"
            );
            assert_eq!(e.kind(), ErrorKind::Storage);
            assert!(e.to_string().contains("the disk is full"), "{e}");
        }
        let other = Error::io("/s/x", std::io::Error::from(std::io::ErrorKind::PermissionDenied));
        assert!(matches!(other, Error::Io { .. }), "{other:?}");
    }
}
