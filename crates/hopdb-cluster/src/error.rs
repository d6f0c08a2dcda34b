//! The cluster's errors: each says which part failed (metadata, object storage, a partition
//! file, the store) and what was being done.

/// A cluster operation's failure.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// The configuration file is missing, unreadable or wrong.
    #[error("cluster configuration: {0}")]
    Config(String),
    /// PostgreSQL (the metadata) refused or failed.
    #[error("cluster metadata (PostgreSQL) while {doing}: {source}")]
    Metadata {
        /// What the cluster was doing.
        doing: String,
        /// The client's error.
        #[source]
        source: postgres::Error,
    },
    /// The metadata is not what this version of HopDB reads (or not initialised).
    #[error("cluster metadata: {0}")]
    State(String),
    /// The object store failed.
    #[error("object storage while {doing}: {source}")]
    ObjectStore {
        /// What the cluster was doing.
        doing: String,
        /// The store's error.
        #[source]
        source: object_store::Error,
    },
    /// The hot tier (Redis) refused, failed or was too slow.
    #[error("hot tier (Redis) while {doing}: {why}")]
    Hot {
        /// What the cluster was doing.
        doing: String,
        /// Redis's error, or the timeout.
        why: String,
    },
    /// A partition file does not decode as one.
    #[error("partition file {object}: {why}")]
    Corrupt {
        /// The object's key.
        object: String,
        /// What is wrong with it.
        why: String,
    },
    /// A write was refused before anything was written (the batch is all or nothing).
    #[error("write refused at mutation {at} of the batch: {why}")]
    Write {
        /// The index of the mutation refused.
        at: usize,
        /// Why.
        why: String,
    },
    /// A transaction's write would overwrite partitions that a concurrent write changed
    /// after the transaction read them; nothing was written (run the transaction again).
    #[error("partitions {partitions:?} changed after this transaction read them")]
    Conflict {
        /// The partitions that changed.
        partitions: Vec<u32>,
    },
    /// The embedded store (a load's source) failed.
    #[error(transparent)]
    Store(#[from] hopdb_core::Error),
    /// Import files (a load's source) are missing, unreadable or bad.
    #[error(transparent)]
    Import(#[from] hopdb_import::ImportError),
}

/// The cluster's result type.
pub type Result<T> = std::result::Result<T, ClusterError>;

pub(crate) fn meta(doing: impl Into<String>) -> impl FnOnce(postgres::Error) -> ClusterError {
    let doing = doing.into();
    move |source| ClusterError::Metadata { doing, source }
}

pub(crate) fn objects(doing: impl Into<String>) -> impl FnOnce(object_store::Error) -> ClusterError {
    let doing = doing.into();
    move |source| ClusterError::ObjectStore { doing, source }
}
