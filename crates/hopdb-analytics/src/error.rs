//! One error type for traversals and algorithms on a store.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum AnalyticsError {
    #[error(transparent)]
    Store(#[from] hopdb_core::Error),
    #[error(transparent)]
    Algo(#[from] hopdb_algo::AlgoError),
    #[error("node {key} does not exist")]
    NodeNotFound { key: String },
    #[error("projection: {0}")]
    Projection(#[from] hopdb_algo::CsrError),
    #[error("graph too large: {0}")]
    TooLarge(String),
}

pub type Result<T> = std::result::Result<T, AnalyticsError>;
