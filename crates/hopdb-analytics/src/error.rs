//! One error type for traversals and algorithms on a store.

use hopdb_algo::AlgoError;
use hopdb_core::ErrorKind;
use thiserror::Error;

/// Everything a traversal or algorithm on a store can fail with. New variants may come: match
/// on [`AnalyticsError::kind`] for a stable class.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AnalyticsError {
    /// Reading the store failed.
    #[error(transparent)]
    Store(#[from] hopdb_core::Error),
    /// The algorithm stopped: cancelled, deadline, memory bound or a bad argument.
    #[error(transparent)]
    Algo(#[from] AlgoError),
    /// A node named by key (a start, a seed) is not in the store or the projection.
    #[error("node {key} does not exist")]
    NodeNotFound {
        /// The key, as text.
        key: String,
    },
    /// The snapshot's records could not make a projection (they disagree with each other).
    #[error("projection: {0}")]
    Projection(#[from] hopdb_algo::CsrError),
    /// The graph has more nodes than a projection can index.
    #[error("graph too large: {0}")]
    TooLarge(String),
}

impl AnalyticsError {
    /// The stable class of this error, shared with the store's errors.
    pub fn kind(&self) -> ErrorKind {
        match self {
            AnalyticsError::Store(e) => e.kind(),
            AnalyticsError::NodeNotFound { .. } | AnalyticsError::Algo(AlgoError::NodeOutOfRange { .. }) => {
                ErrorKind::NotFound
            }
            AnalyticsError::Algo(AlgoError::InvalidArgument(_)) | AnalyticsError::TooLarge(_) => {
                ErrorKind::InvalidArgument
            }
            AnalyticsError::Algo(_) => ErrorKind::Cancelled,
            // A projection is built from the store's own records: edges naming missing nodes
            // mean the records disagree with each other.
            AnalyticsError::Projection(_) => ErrorKind::Corruption,
        }
    }
}

/// Result with [`AnalyticsError`].
pub type Result<T> = std::result::Result<T, AnalyticsError>;
