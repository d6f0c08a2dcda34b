//! The front-end layer: one [`Database`] handle that opens a store together with its
//! analytics, and is what every front end holds (the Python package, the `hopdb` command,
//! the benchmark load generator; next the Cypher engine and `hopdb serve`).
//!
//! Front ends import from here only: the store's types ([`Graph`], [`Value`], [`NodeKey`],
//! ...), the analytics' ([`KHop`], [`PathQuery`], [`Control`], ...), the import and export
//! readers ([`import`]), and one error classification ([`ErrorKind`]) to map into their own
//! error surfaces (Python exceptions, exit messages, Bolt status codes).
//!
//! ```
//! use hopdb_database::{Database, KHop, WriteMode};
//! let db = Database::in_memory();
//! for (a, b) in [("a", "b"), ("b", "c")] {
//!     db.graph().upsert_edge(a, "KNOWS", b, None, Default::default(), WriteMode::Merge).unwrap();
//! }
//! let near = db.analytics().k_hop(&"a".into(), &KHop::within(2), &Default::default()).unwrap();
//! assert_eq!(near.value.len(), 2);
//! ```

use std::path::Path;
use std::sync::Arc;

pub use hopdb_algo::{AlgoError, Control, Csr, HopMode};
pub use hopdb_analytics::{
    after_projection_builds, Analytics, AnalyticsError, Answer, BuildInfo, ClusterRow, Communities, GraphProjection,
    HierarchicalOptions, KHop, LeidenOptions, LouvainOptions, NodeValues, PageRankOptions, PathQuery, Personalization,
    Projected, ProjectionSpec, Quality, Sampling, SharedProjection, Step, SubgraphKeys, Used, Via,
};
pub use hopdb_core::*;
/// Readers (neo4j-admin CSV, edge lists, Parquet/Arrow, GraphML, GraphRAG) and exporters.
pub use hopdb_import as import;

/// A store opened with its analytics. Cloning is cheap (both halves are shared), and every
/// clone sees the same store, cached projection and change log.
#[derive(Clone)]
pub struct Database {
    /// The analytics hold the store they run on: the one store of this database.
    analytics: Arc<Analytics>,
}

impl Database {
    /// Opens (or creates) a durable store in `path` with the default configuration.
    pub fn open(path: impl AsRef<Path>) -> Result<Database> {
        Graph::open(path).map(Database::from_graph)
    }

    /// Opens (or creates) a durable store in `path`.
    pub fn open_with(path: impl AsRef<Path>, cfg: Config) -> Result<Database> {
        Graph::open_with(path, cfg).map(Database::from_graph)
    }

    /// A store that lives in memory (tests, scratch work).
    pub fn in_memory() -> Database {
        Database::from_graph(Graph::in_memory())
    }

    /// A store that lives in memory, with a configuration.
    pub fn in_memory_with(cfg: Config) -> Database {
        Database::from_graph(Graph::in_memory_with(cfg))
    }

    /// Wraps an open store with fresh analytics, which build the adjacency projection in the
    /// background when reads want it and its build fits `Config::auto_projection_bytes`.
    pub fn from_graph(graph: Graph) -> Database {
        let budget = graph.config().auto_projection_bytes;
        Database::from_analytics(Analytics::new(graph).with_auto_projection(budget))
    }

    /// Wraps analytics configured by the caller (for example with background refresh on).
    pub fn from_analytics(analytics: Analytics) -> Database {
        Database {
            analytics: Arc::new(analytics),
        }
    }

    /// The store: reads, writes, transactions, bulk loads, maintenance.
    pub fn graph(&self) -> &Graph {
        self.analytics.graph()
    }

    /// Traversals and algorithms over the store.
    pub fn analytics(&self) -> &Arc<Analytics> {
        &self.analytics
    }
}

/// The README's Rust examples (the store's and the front end's), compiled and run as doc tests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_store_and_the_analytics() {
        let db = Database::in_memory();
        let other = db.clone();
        db.graph()
            .upsert_edge("a", "KNOWS", "b", None, Default::default(), WriteMode::Merge)
            .unwrap();
        assert_eq!(other.graph().node_count().unwrap(), 2);
        assert!(Arc::ptr_eq(db.analytics(), other.analytics()));
        let path = other
            .analytics()
            .shortest_path(&"a".into(), &"b".into(), &Default::default(), &Default::default())
            .unwrap();
        assert_eq!(path.value.map(|p| p.len()), Some(2));
    }

    #[test]
    fn a_store_reopens_through_the_database() {
        let dir = tempfile::tempdir().unwrap();
        {
            let db = Database::open(dir.path()).unwrap();
            db.graph()
                .upsert_node("n", &["Person"], Default::default(), WriteMode::Merge)
                .unwrap();
        }
        let db = Database::open(dir.path()).unwrap();
        assert!(db.graph().node(&"n".into()).unwrap().is_some());
        let locked = Database::open(dir.path()).err().map(|e| e.kind());
        assert_eq!(locked, Some(ErrorKind::Locked));
    }
}
