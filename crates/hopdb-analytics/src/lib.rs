//! Traversals and graph algorithms on a HopDB store (decision 0010).
//!
//! Two execution paths, one answer:
//! - **point queries** (k-hop with a limit, shortest path, variable-length endpoints) run
//!   straight on a snapshot of the store, touching only what they visit, or on the cached
//!   projection when one is fresh (it reflects every commit so far) — never on a stale one,
//!   and never paying for a build;
//! - **whole-graph algorithms** (PageRank, components, communities, triangles, centrality,
//!   sampling, LightRAG's subgraph) run on a [`GraphProjection`]: a CSR image of one
//!   snapshot, built on first use, cached, and rebuilt (visibly: [`Projected::rebuilt`]) when
//!   a write has landed since.
//!
//! ```
//! use hopdb_analytics::{Analytics, KHop};
//! use hopdb_core::{Graph, NodeKey, WriteMode};
//! let g = Graph::in_memory();
//! for (a, b) in [("a", "b"), ("b", "c"), ("c", "d")] {
//!     g.upsert_edge(a, "KNOWS", b, None, Default::default(), WriteMode::Merge).unwrap();
//! }
//! let an = Analytics::new(g.clone());
//! let two = an.k_hop(&"a".into(), &KHop::within(2), &Default::default()).unwrap();
//! assert_eq!(two.value, vec![NodeKey::from("b"), NodeKey::from("c")]);
//! let path = an.shortest_path(&"a".into(), &"d".into(), &Default::default(), &Default::default()).unwrap();
//! assert_eq!(path.value.unwrap().len(), 4);
//! let pr = an.pagerank(&Default::default(), &Default::default()).unwrap();
//! assert!(pr.get(&"d".into()).unwrap() > pr.get(&"a".into()).unwrap());
//! ```
#![deny(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

mod algorithms;
mod error;
mod point;
mod projection;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use hopdb_algo::{Control, HopMode};
use hopdb_core::{Direction, Graph, NodeId, NodeKey, ReadTxn};
use parking_lot::Mutex;

pub use algorithms::{ClusterRow, Communities, NodeValues, Sampling, SubgraphKeys};
pub use error::{AnalyticsError, Result};
pub use hopdb_algo::{HierarchicalOptions, LeidenOptions, LouvainOptions, PageRankOptions, Personalization, Quality};
pub use projection::{BuildInfo, GraphProjection, ProjectionSpec, SharedProjection};

use point::{Adjacency, ProjectionAdjacency, StoreAdjacency};

/// Where a point query runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Via {
    /// The cached projection if it is fresh, else the store.
    #[default]
    Auto,
    /// Always the store snapshot.
    Store,
    /// A fresh projection, built now if needed (for query loops on a quiet store).
    Projection,
}

/// Where a point query did run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Used {
    Store,
    Projection { version: u64 },
}

/// A query's answer and the path that produced it.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer<T> {
    pub value: T,
    pub used: Used,
}

/// A k-hop query.
#[derive(Debug, Clone, PartialEq)]
pub struct KHop {
    pub k: u32,
    pub mode: HopMode,
    pub dir: Direction,
    /// Edge types to follow (`None`: all).
    pub types: Option<Vec<String>>,
    pub limit: Option<usize>,
    pub via: Via,
}

impl KHop {
    /// Nodes within `k` hops, both directions, all types, no limit.
    pub fn within(k: u32) -> KHop {
        KHop {
            k,
            mode: HopMode::Within,
            dir: Direction::Both,
            types: None,
            limit: None,
            via: Via::Auto,
        }
    }
    pub fn exactly(k: u32) -> KHop {
        KHop {
            mode: HopMode::Exactly,
            ..KHop::within(k)
        }
    }
    pub fn limit(mut self, n: usize) -> KHop {
        self.limit = Some(n);
        self
    }
    pub fn dir(mut self, d: Direction) -> KHop {
        self.dir = d;
        self
    }
    pub fn types(mut self, t: &[&str]) -> KHop {
        self.types = Some(t.iter().map(|s| s.to_string()).collect());
        self
    }
    pub fn via(mut self, v: Via) -> KHop {
        self.via = v;
        self
    }
}

/// A path query (shortest paths, variable-length paths).
#[derive(Debug, Clone, PartialEq)]
pub struct PathQuery {
    pub dir: Direction,
    pub types: Option<Vec<String>>,
    /// Longest path considered (hops).
    pub max_hops: u32,
    pub via: Via,
}

impl Default for PathQuery {
    fn default() -> PathQuery {
        PathQuery {
            dir: Direction::Both,
            types: None,
            max_hops: u32::MAX,
            via: Via::Auto,
        }
    }
}

/// A projection and whether getting it meant building it.
#[derive(Debug, Clone)]
pub struct Projected {
    pub projection: SharedProjection,
    pub rebuilt: bool,
}

/// Traversals and algorithms over one store. Cheap to share between threads (`Arc` it).
pub struct Analytics {
    graph: Graph,
    cache: Arc<Mutex<HashMap<ProjectionSpec, SharedProjection>>>,
    /// Serialises builds of the same projection (two algorithms asking at once build once).
    building: Mutex<()>,
    background_refresh: bool,
    refreshing: Arc<AtomicBool>,
}

impl Analytics {
    pub fn new(graph: Graph) -> Analytics {
        Analytics {
            graph,
            cache: Arc::new(Mutex::new(HashMap::new())),
            building: Mutex::new(()),
            background_refresh: false,
            refreshing: Arc::new(AtomicBool::new(false)),
        }
    }

    /// When a point query in [`Via::Auto`] finds the cached all-types projection stale, rebuild
    /// it on a background thread (one at a time) so later queries get it back. Off by default:
    /// under a steady writer the rebuilt projection is stale again at once, and the rebuild
    /// costs a core.
    pub fn with_background_refresh(mut self, on: bool) -> Analytics {
        self.background_refresh = on;
        self
    }

    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// A projection reflecting the store as of now: the cached one if no write has landed
    /// since it was built, else a new one (built from a fresh snapshot and cached).
    pub fn projection(&self, spec: &ProjectionSpec, ctrl: &Control) -> Result<Projected> {
        if let Some(p) = self.fresh(spec, self.graph.version()) {
            return Ok(Projected {
                projection: p,
                rebuilt: false,
            });
        }
        let _one = self.building.lock();
        let txn = self.graph.read();
        if let Some(p) = self.fresh(spec, txn.version()) {
            return Ok(Projected {
                projection: p,
                rebuilt: false,
            });
        }
        let p = Arc::new(GraphProjection::build(&txn, spec, ctrl)?);
        self.cache.lock().insert(spec.clone(), p.clone());
        Ok(Projected {
            projection: p,
            rebuilt: true,
        })
    }

    /// The cached projection for `spec` if it reflects every write so far.
    pub fn cached_projection(&self, spec: &ProjectionSpec) -> Option<SharedProjection> {
        self.fresh(spec, self.graph.version())
    }

    /// Drops cached projections (their memory is freed once running queries finish).
    pub fn clear_cache(&self) {
        self.cache.lock().clear();
    }

    fn fresh(&self, spec: &ProjectionSpec, version: u64) -> Option<SharedProjection> {
        self.cache.lock().get(spec).filter(|p| p.version() == version).cloned()
    }

    /// The projection a point query with these types may use, if fresh at the snapshot's
    /// version. A query with a type filter uses a projection of exactly those types or the
    /// store; the all-types projection cannot filter by type.
    fn point_projection(
        &self,
        txn: &ReadTxn,
        types: &Option<Vec<String>>,
        via: Via,
        ctrl: &Control,
    ) -> Result<Option<SharedProjection>> {
        let spec = ProjectionSpec {
            types: types.clone(),
            weighted: false,
        };
        match via {
            Via::Store => Ok(None),
            Via::Projection => Ok(Some(self.projection(&spec, ctrl)?.projection)),
            Via::Auto => {
                let p = self.fresh(&spec, txn.version()).or_else(|| {
                    self.fresh(
                        &ProjectionSpec {
                            weighted: true,
                            ..spec.clone()
                        },
                        txn.version(),
                    )
                });
                if p.is_none() && self.background_refresh && types.is_none() {
                    self.refresh_in_background(spec);
                }
                Ok(p)
            }
        }
    }

    fn refresh_in_background(&self, spec: ProjectionSpec) {
        if self.refreshing.swap(true, Ordering::SeqCst) {
            return;
        }
        let (graph, flag, cache) = (self.graph.clone(), self.refreshing.clone(), self.cache.clone());
        std::thread::spawn(move || {
            let txn = graph.read();
            match GraphProjection::build(&txn, &spec, &Control::default()) {
                Ok(p) => {
                    let mut c = cache.lock();
                    // A foreground build may have finished first with a newer snapshot.
                    if c.get(&spec).is_none_or(|old| old.version() < p.version()) {
                        c.insert(spec, Arc::new(p));
                    }
                }
                Err(e) => tracing::warn!(error = %e, "background projection refresh failed"),
            }
            flag.store(false, Ordering::SeqCst);
        });
    }

    /// Resolves a key on the path the query runs on.
    fn start(&self, txn: &ReadTxn, p: Option<&GraphProjection>, key: &NodeKey) -> Result<u64> {
        let id = txn
            .node_id(key)?
            .ok_or_else(|| AnalyticsError::NodeNotFound { key: key.to_string() })?;
        match p {
            None => Ok(id),
            Some(p) => p
                .index_of(id)
                .map(u64::from)
                .ok_or_else(|| AnalyticsError::NodeNotFound { key: key.to_string() }),
        }
    }

    fn adjacency<'a>(
        &self,
        txn: &'a ReadTxn,
        p: Option<&'a GraphProjection>,
        types: &Option<Vec<String>>,
    ) -> Box<dyn Adjacency + 'a> {
        match p {
            Some(p) => Box::new(ProjectionAdjacency { p }),
            None => {
                let names: Option<Vec<&str>> = types.as_ref().map(|t| t.iter().map(String::as_str).collect());
                Box::new(StoreAdjacency {
                    txn,
                    types: txn.type_filter(names.as_deref()),
                })
            }
        }
    }

    /// Distinct nodes exactly / within `q.k` hops of `start` (excluded), in BFS order,
    /// stopping at `q.limit`. `NodeNotFound` if `start` does not exist.
    pub fn k_hop(&self, start: &NodeKey, q: &KHop, ctrl: &Control) -> Result<Answer<Vec<NodeKey>>> {
        let txn = self.graph.read();
        let p = self.point_projection(&txn, &q.types, q.via, ctrl)?;
        let s = self.start(&txn, p.as_deref(), start)?;
        let adj = self.adjacency(&txn, p.as_deref(), &q.types);
        let found = point::k_hop(&*adj, s, q.k, q.mode, q.dir, q.limit, ctrl)?;
        Ok(Answer {
            value: found.into_iter().map(|(_, k)| k).collect(),
            used: used(&p),
        })
    }

    /// One shortest path (fewest hops) from `a` to `b` as keys, `None` when unreachable
    /// within `q.max_hops`.
    pub fn shortest_path(
        &self,
        a: &NodeKey,
        b: &NodeKey,
        q: &PathQuery,
        ctrl: &Control,
    ) -> Result<Answer<Option<Vec<NodeKey>>>> {
        let txn = self.graph.read();
        let p = self.point_projection(&txn, &q.types, q.via, ctrl)?;
        let (s, t) = (self.start(&txn, p.as_deref(), a)?, self.start(&txn, p.as_deref(), b)?);
        let adj = self.adjacency(&txn, p.as_deref(), &q.types);
        let path = point::shortest_path(&*adj, s, t, q.dir, q.max_hops, ctrl)?;
        let value = path
            .map(|nodes| nodes.into_iter().map(|u| adj.key_of(u)).collect::<Result<Vec<_>>>())
            .transpose()?;
        Ok(Answer { value, used: used(&p) })
    }

    /// Distinct end nodes of the `min_hops..=max_hops` paths from `start` that use no
    /// relationship twice (openCypher `(s)-[*min..max]-(n)`; the start may be an end node).
    pub fn var_length_endpoints(
        &self,
        start: &NodeKey,
        min_hops: u32,
        q: &PathQuery,
        limit: Option<usize>,
        ctrl: &Control,
    ) -> Result<Answer<Vec<NodeKey>>> {
        let txn = self.graph.read();
        let p = self.point_projection(&txn, &q.types, q.via, ctrl)?;
        let s = self.start(&txn, p.as_deref(), start)?;
        let adj = self.adjacency(&txn, p.as_deref(), &q.types);
        let found = point::var_length_endpoints(&*adj, s, min_hops, q.max_hops, q.dir, limit, ctrl)?;
        Ok(Answer {
            value: found.into_iter().map(|(_, k)| k).collect(),
            used: used(&p),
        })
    }

    /// Streams the paths of `min_hops..=q.max_hops` relationships from `start` that use no
    /// relationship twice (openCypher `(s)-[*min..max]-()`), as key sequences, depth-first,
    /// until `visit` returns false or `limit` paths were given. Returns how many were given.
    pub fn var_length_paths(
        &self,
        start: &NodeKey,
        min_hops: u32,
        q: &PathQuery,
        limit: Option<u64>,
        ctrl: &Control,
        visit: &mut dyn FnMut(&[NodeKey]) -> bool,
    ) -> Result<Answer<u64>> {
        let txn = self.graph.read();
        let p = self.point_projection(&txn, &q.types, q.via, ctrl)?;
        let s = self.start(&txn, p.as_deref(), start)?;
        let adj = self.adjacency(&txn, p.as_deref(), &q.types);
        let limit = limit.unwrap_or(u64::MAX);
        let mut given = 0u64;
        if limit > 0 {
            point::trails(&*adj, s, min_hops, q.max_hops, q.dir, ctrl, &mut |path| {
                let keys = path.iter().map(|&u| adj.key_of(u)).collect::<Result<Vec<_>>>()?;
                given += 1;
                Ok(visit(&keys) && given < limit)
            })?;
        }
        Ok(Answer {
            value: given,
            used: used(&p),
        })
    }

    /// The internal id of a live node (for callers mapping results themselves).
    pub fn node_id(&self, key: &NodeKey) -> Result<Option<NodeId>> {
        Ok(self.graph.read().node_id(key)?)
    }
}

fn used(p: &Option<SharedProjection>) -> Used {
    match p {
        Some(p) => Used::Projection { version: p.version() },
        None => Used::Store,
    }
}
