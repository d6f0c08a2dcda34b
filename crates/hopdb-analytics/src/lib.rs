//! Traversals and graph algorithms on a HopDB store (decision 0010).
//!
//! Two execution paths, one answer:
//! - **point queries** (k-hop with a limit, shortest path, variable-length endpoints) run on
//!   the cached projection when it is fresh (it reflects every commit so far), else on the
//!   projection brought forward by the store's change log (the overlay: exactly the state of
//!   the query's version), else straight on a snapshot of the store, touching only what they
//!   visit — never on a stale projection, and never paying for a build (with
//!   [`Analytics::with_auto_projection`], finding none fresh starts one in the background:
//!   decision 0034);
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

mod algorithms;
mod auto;
mod error;
mod overlay;
mod pattern;
mod point;
mod projection;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use hopdb_algo::{AlgoError, Control, HopMode};
use hopdb_core::{Direction, Graph, NodeId, NodeKey, ReadTxn, TypeFilter};
use parking_lot::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

pub use algorithms::{ClusterRow, Communities, NodeValues, Sampling, SubgraphKeys};
pub use auto::estimated_build_bytes;
pub use error::{AnalyticsError, Result};
pub use hopdb_algo::{HierarchicalOptions, LeidenOptions, LouvainOptions, PageRankOptions, Personalization, Quality};
pub use pattern::Step;
pub use projection::{BuildInfo, GraphProjection, ProjectionSpec, SharedProjection};

use auto::AutoProjection;
use overlay::Overlay;
use point::{Adjacency, ProjectionAdjacency, StoreAdjacency};

/// What runs after every projection build (see [`after_projection_builds`]).
static AFTER_BUILD: OnceLock<fn()> = OnceLock::new();

/// Registers `hook` to run on the building thread after every projection build, asked for
/// or not (the first registration in a process wins). The binary that owns the allocator
/// passes a function that returns the build's freed scratch to the system: mimalloc keeps it
/// mapped otherwise, about a third of the projection's size in RSS (decision 0033).
pub fn after_projection_builds(hook: fn()) {
    let _ = AFTER_BUILD.set(hook);
}

fn built() {
    if let Some(hook) = AFTER_BUILD.get() {
        hook();
    }
}

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
    /// A store snapshot.
    Store,
    /// A fresh projection.
    Projection {
        /// The store version the projection reflects.
        version: u64,
    },
    /// The projection built at `base`, brought to `version` by the change log.
    Overlay {
        /// The store version the projection was built at.
        base: u64,
        /// The store version the overlay brought it to.
        version: u64,
    },
}

/// A query's answer and the path that produced it.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer<T> {
    /// The result.
    pub value: T,
    /// Where it was computed, and at which store version.
    pub used: Used,
}

/// A k-hop query.
#[derive(Debug, Clone, PartialEq)]
pub struct KHop {
    /// Hops from the start (`>= 1`).
    pub k: u32,
    /// Nodes at exactly `k` hops, or at 1 to `k` hops.
    pub mode: HopMode,
    /// Which way edges are followed.
    pub dir: Direction,
    /// Edge types to follow (`None`: all).
    pub types: Option<Vec<String>>,
    /// Stop as soon as this many nodes are found (the first ones in BFS order).
    pub limit: Option<usize>,
    /// Where the query runs.
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
    /// Nodes at exactly `k` hops, both directions, all types, no limit.
    pub fn exactly(k: u32) -> KHop {
        KHop {
            mode: HopMode::Exactly,
            ..KHop::within(k)
        }
    }
    /// At most `n` nodes.
    pub fn limit(mut self, n: usize) -> KHop {
        self.limit = Some(n);
        self
    }
    /// Follows edges in direction `d` only.
    pub fn dir(mut self, d: Direction) -> KHop {
        self.dir = d;
        self
    }
    /// Follows edges of these types only.
    pub fn types(mut self, t: &[&str]) -> KHop {
        self.types = Some(t.iter().map(|s| s.to_string()).collect());
        self
    }
    /// Runs on the store, a projection, or whichever is fresh.
    pub fn via(mut self, v: Via) -> KHop {
        self.via = v;
        self
    }
}

/// A path query (shortest paths, variable-length paths).
#[derive(Debug, Clone, PartialEq)]
pub struct PathQuery {
    /// Which way edges are followed.
    pub dir: Direction,
    /// Edge types to follow (`None`: all).
    pub types: Option<Vec<String>>,
    /// Longest path considered (hops).
    pub max_hops: u32,
    /// Where the query runs.
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
    /// The projection, fresh as of the call.
    pub projection: SharedProjection,
    /// True when it was built by this call (the cached one was missing or stale).
    pub rebuilt: bool,
}

/// Store-path neighbour lists of at least this many nodes run in two halves on two threads
/// (`hopdb_core::split_batch`). A listing costs 10-15 us on a cold store, twice a point read,
/// so the split pays from fewer items: medians of 21 alternated samples on the LightRAG-shaped
/// store gave 0.98x at 16 nodes, 1.10x at 24, 1.30x at 32, 1.25x at 64 (decision 0015).
const SPLIT_LISTS_MIN: usize = 32;

/// Traversals and algorithms over one store. Cheap to share between threads (`Arc` it).
pub struct Analytics {
    graph: Graph,
    cache: Arc<Mutex<HashMap<ProjectionSpec, SharedProjection>>>,
    /// Serialises builds of the same projection (two algorithms asking at once build once;
    /// a background build and a `projection` call too).
    building: Arc<Mutex<()>>,
    /// Builds the all-types projection in the background when reads want it (decision 0034).
    auto: AutoProjection,
    /// The all-types projection brought forward by the change log (decision 0010).
    overlay: Arc<RwLock<Option<Overlay>>>,
}

/// Structural changes the store's change log keeps for the overlay to catch up with (about
/// 40 bytes each); an overlay further behind is dropped and the projection rebuilt.
const CHANGE_LOG_CAPACITY: usize = 200_000;

/// The overlay is dropped (and the projection must be rebuilt) past this many adjacency
/// entries, or a tenth of the base's edges if more: beyond that a rebuild is cheaper than
/// the per-node delta merging.
const MIN_OVERLAY_DELTAS: usize = 100_000;

/// Where one point query runs.
enum Source<'a> {
    Store,
    Projection(SharedProjection),
    /// The overlay at this version.
    Overlay(RwLockReadGuard<'a, Option<Overlay>>, u64),
}

impl Source<'_> {
    fn used(&self) -> Used {
        match self {
            Source::Store => Used::Store,
            Source::Projection(p) => Used::Projection { version: p.version() },
            Source::Overlay(g, v) => Used::Overlay {
                base: g.as_ref().map_or(0, |o| o.base().version()),
                version: *v,
            },
        }
    }

    /// The handle of `key`'s node on this path (`NodeNotFound` if it is not live there).
    fn start(&self, txn: &ReadTxn, key: &NodeKey) -> Result<u64> {
        let missing = || AnalyticsError::NodeNotFound { key: key.to_string() };
        match self {
            Source::Store => txn.node_id(key)?.ok_or_else(missing),
            // A fresh projection holds exactly the snapshot's live nodes: no store read.
            Source::Projection(p) => p.index_of_key(key).map(u64::from).ok_or_else(missing),
            Source::Overlay(g, v) => {
                let base = g.as_ref().and_then(|o| o.base().index_of_key(key));
                let id = match base {
                    Some(i) => g.as_ref().map(|o| o.base().node_id(i)).ok_or_else(missing)?,
                    None => txn.mapped_id(key)?.ok_or_else(missing)?,
                };
                match g.as_ref().and_then(|o| o.live_key(id, *v)) {
                    Some(_) => Ok(id),
                    None => Err(missing()),
                }
            }
        }
    }

    /// The handles of many keys' nodes on this path (`None`: not live there); on the store in
    /// two batched reads.
    fn starts(&self, txn: &ReadTxn, keys: &[NodeKey]) -> Result<Vec<Option<u64>>> {
        if let Source::Store = self {
            return Ok(txn.node_ids(keys)?);
        }
        keys.iter()
            .map(|k| match self.start(txn, k) {
                Ok(u) => Ok(Some(u)),
                Err(AnalyticsError::NodeNotFound { .. }) => Ok(None),
                Err(e) => Err(e),
            })
            .collect()
    }

    /// The adjacency of edges of `types` (`None`: all) on this path: a projection of exactly
    /// those types walks all its edges, one of every type (or the overlay) filters by type.
    fn adjacency<'s>(&'s self, txn: &'s ReadTxn, types: &Option<Vec<String>>) -> Box<dyn Adjacency + Sync + 's> {
        let names: Option<Vec<&str>> = types.as_ref().map(|t| t.iter().map(String::as_str).collect());
        let filter = txn.type_filter(names.as_deref());
        match self {
            Source::Projection(p) => Box::new(ProjectionAdjacency {
                p,
                types: if p.spec().types == *types {
                    TypeFilter::All
                } else {
                    filter
                },
            }),
            Source::Overlay(g, v) => match g.as_ref() {
                Some(o) => Box::new(o.at(*v, filter)),
                None => unreachable!("an overlay source always holds an overlay"),
            },
            Source::Store => Box::new(StoreAdjacency { txn, types: filter }),
        }
    }
}

impl Analytics {
    /// Traversals and algorithms over `graph`. The store's change log, which lets a projection
    /// follow writes, is turned on by the first projection build: a store that never builds
    /// one does not pay for it (up to 200,000 changes held).
    pub fn new(graph: Graph) -> Analytics {
        Analytics {
            graph,
            cache: Arc::new(Mutex::new(HashMap::new())),
            building: Arc::new(Mutex::new(())),
            auto: AutoProjection::new(0),
            overlay: Arc::new(RwLock::new(None)),
        }
    }

    /// When a read that could run on the all-types projection ([`Via::Auto`] point queries,
    /// [`Analytics::fresh_projection`]) finds none fresh, build one on a background thread if
    /// its build takes at most `budget` bytes at its peak; 0 (the default of `new`) never
    /// builds unasked. Builds are spaced so they take at most a fifth of a core, and further
    /// apart while a writer keeps making them stale (decision 0034). `hopdb_database`'s
    /// `Database` turns this on with the store's `Config::auto_projection_bytes`.
    pub fn with_auto_projection(mut self, budget: u64) -> Analytics {
        self.auto = AutoProjection::new(budget);
        self
    }

    /// The peak bytes an unasked build may take (0: none is built).
    pub fn auto_projection_budget(&self) -> u64 {
        self.auto.budget()
    }

    /// Whether an unasked projection build is running now.
    pub fn is_building_in_background(&self) -> bool {
        self.auto.is_building()
    }

    /// The store these analytics read.
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
        build_fresh(&self.graph, &self.cache, &self.overlay, &self.building, spec, ctrl)
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

    /// Where a point query with these types runs: a fresh projection of exactly these types
    /// or of every type (filtered per edge), else the overlay (every type, filtered) brought
    /// to the snapshot's version, else the store.
    fn source(
        &self,
        txn: &ReadTxn,
        types: &Option<Vec<String>>,
        via: Via,
        overlay_ok: bool,
        ctrl: &Control,
    ) -> Result<Source<'_>> {
        let spec = ProjectionSpec {
            types: types.clone(),
            weighted: false,
        };
        match via {
            Via::Store => Ok(Source::Store),
            Via::Projection => Ok(Source::Projection(self.projection(&spec, ctrl)?.projection)),
            Via::Auto => {
                let v = txn.version();
                // Exactly these types (unweighted, then weighted), then every type if filtered.
                let weighted = ProjectionSpec {
                    weighted: true,
                    ..spec.clone()
                };
                let every = types
                    .is_some()
                    .then(|| [ProjectionSpec::all(), ProjectionSpec::weighted()]);
                let found = [&spec, &weighted]
                    .into_iter()
                    .chain(every.iter().flatten())
                    .find_map(|s| self.fresh(s, v));
                if let Some(p) = found {
                    return Ok(Source::Projection(p));
                }
                if overlay_ok {
                    if let Some(g) = self.overlay_at(v) {
                        return Ok(Source::Overlay(g, v));
                    }
                }
                self.want_projection();
                Ok(Source::Store)
            }
        }
    }

    /// The overlay brought forward to `version`, or `None` when it cannot be (no exact base,
    /// changes trimmed from the log or unrecorded, or grown past its bound: then it is
    /// dropped until the next projection build).
    fn overlay_at(&self, version: u64) -> Option<RwLockReadGuard<'_, Option<Overlay>>> {
        let covers = |o: &Overlay| o.base().version() <= version && o.applied() >= version;
        {
            let g = self.overlay.read();
            match g.as_ref() {
                None => return None,
                Some(o) if covers(o) => return Some(g),
                Some(_) => {}
            }
        }
        let mut w = self.overlay.write();
        if let Some(o) = w.as_mut() {
            if o.applied() < version {
                match self.graph.changes_between(o.applied(), version) {
                    Ok(sets) => {
                        o.apply(&sets);
                        let bound = MIN_OVERLAY_DELTAS.max(o.base().info().edges as usize / 10);
                        if o.deltas() > bound {
                            tracing::info!(
                                deltas = o.deltas(),
                                "overlay past its bound: dropped until the next build"
                            );
                            *w = None;
                        }
                    }
                    Err(why) => {
                        tracing::info!(
                            ?why,
                            "overlay cannot follow the change log: dropped until the next build"
                        );
                        *w = None;
                    }
                }
            }
        }
        let r = RwLockWriteGuard::downgrade(w);
        r.as_ref().is_some_and(covers).then_some(r)
    }

    /// A read found no fresh all-types projection: let the automatic build decide. The build
    /// waits for any other build of it, and is skipped if that one left it fresh.
    fn want_projection(&self) {
        self.auto.wanted(&self.graph, || {
            let (graph, cache, overlay, building) = (
                self.graph.clone(),
                self.cache.clone(),
                self.overlay.clone(),
                self.building.clone(),
            );
            move |ctrl: &Control| -> Result<()> {
                build_fresh(&graph, &cache, &overlay, &building, &ProjectionSpec::all(), ctrl).map(drop)
            }
        });
    }

    /// Distinct nodes exactly / within `q.k` hops of `start` (excluded), in BFS order,
    /// stopping at `q.limit`. `NodeNotFound` if `start` does not exist.
    pub fn k_hop(&self, start: &NodeKey, q: &KHop, ctrl: &Control) -> Result<Answer<Vec<NodeKey>>> {
        let txn = self.graph.read();
        let src = self.source(&txn, &q.types, q.via, true, ctrl)?;
        let s = src.start(&txn, start)?;
        let adj = src.adjacency(&txn, &q.types);
        let found = point::k_hop(&*adj, s, q.k, q.mode, q.dir, q.limit, ctrl)?;
        Ok(Answer {
            value: found.into_iter().map(|(_, k)| k).collect(),
            used: src.used(),
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
        self.shortest_path_at(&self.graph.read(), a, b, q, ctrl)
    }

    /// [`Analytics::shortest_path`] on the snapshot `txn` (a query engine's own snapshot).
    pub fn shortest_path_at(
        &self,
        txn: &ReadTxn,
        a: &NodeKey,
        b: &NodeKey,
        q: &PathQuery,
        ctrl: &Control,
    ) -> Result<Answer<Option<Vec<NodeKey>>>> {
        let src = self.source(txn, &q.types, q.via, true, ctrl)?;
        let (s, t) = (src.start(txn, a)?, src.start(txn, b)?);
        let adj = src.adjacency(txn, &q.types);
        let path = point::shortest_path(&*adj, s, t, q.dir, q.max_hops, ctrl)?;
        let value = path
            .map(|nodes| nodes.into_iter().map(|u| adj.key_of(u)).collect::<Result<Vec<_>>>())
            .transpose()?;
        Ok(Answer {
            value,
            used: src.used(),
        })
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
        self.var_length_endpoints_at(&self.graph.read(), start, min_hops, q, limit, ctrl)
    }

    /// [`Analytics::var_length_endpoints`] on the snapshot `txn`.
    pub fn var_length_endpoints_at(
        &self,
        txn: &ReadTxn,
        start: &NodeKey,
        min_hops: u32,
        q: &PathQuery,
        limit: Option<usize>,
        ctrl: &Control,
    ) -> Result<Answer<Vec<NodeKey>>> {
        // Trails tell relationships apart, which the overlay's added edges do only roughly:
        // they run on a fresh projection or the store.
        let src = self.source(txn, &q.types, q.via, false, ctrl)?;
        let s = src.start(txn, start)?;
        let adj = src.adjacency(txn, &q.types);
        let found = point::var_length_endpoints(&*adj, s, min_hops, q.max_hops, q.dir, limit, ctrl)?;
        Ok(Answer {
            value: found.into_iter().map(|(_, k)| k).collect(),
            used: src.used(),
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
        // Trails tell relationships apart, which the overlay's added edges do only roughly:
        // they run on a fresh projection or the store.
        let src = self.source(&txn, &q.types, q.via, false, ctrl)?;
        let s = src.start(&txn, start)?;
        let adj = src.adjacency(&txn, &q.types);
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
            used: src.used(),
        })
    }

    /// The distinct neighbours of `key` along `dir` over edges of `types` (`None`: all), the
    /// node itself included when it has a self-loop, at most `limit`, in the order of the
    /// path that answers (storage order; unspecified): `GraphRead::neighbors` served from a
    /// fresh projection or the overlay when there is one. `NodeNotFound` if `key` is absent.
    pub fn neighbors(
        &self,
        key: &NodeKey,
        dir: Direction,
        types: &Option<Vec<String>>,
        limit: Option<usize>,
        ctrl: &Control,
    ) -> Result<Answer<Vec<NodeKey>>> {
        let got = self.neighbors_batch(std::slice::from_ref(key), dir, types, limit, ctrl)?;
        match got.value.into_iter().next().flatten() {
            Some(value) => Ok(Answer { value, used: got.used }),
            None => Err(AnalyticsError::NodeNotFound { key: key.to_string() }),
        }
    }

    /// [`Analytics::neighbors`] for many keys on one snapshot; `None` where a node is absent.
    pub fn neighbors_batch(
        &self,
        keys: &[NodeKey],
        dir: Direction,
        types: &Option<Vec<String>>,
        limit: Option<usize>,
        ctrl: &Control,
    ) -> Result<Answer<Vec<Option<Vec<NodeKey>>>>> {
        let txn = self.graph.read();
        let src = self.source(&txn, types, Via::Auto, true, ctrl)?;
        let adj = src.adjacency(&txn, types);
        let limit = limit.unwrap_or(usize::MAX);
        // On the store, keys map to ids without reading the node records (the largest family,
        // a cold read per key); a node with edges is live (a delete removes its edges in the
        // same batch), so only those that listed nothing are checked, in one batched read.
        let on_store = matches!(src, Source::Store);
        let starts = if on_store {
            txn.mapped_ids(keys)?
        } else {
            src.starts(&txn, keys)?
        };
        let found: Vec<u64> = starts.iter().flatten().copied().collect();
        let lists = if on_store {
            // A cold block read or two per node: large batches take two threads, each half
            // with its own iterators on the same snapshot.
            hopdb_core::split_batch(&found, SPLIT_LISTS_MIN, |half| {
                point::neighbors_many(&*adj, half, dir, limit)
            })?
        } else {
            point::neighbors_many(&*adj, &found, dir, limit)?
        };
        let mut lists = lists.into_iter();
        let mut value: Vec<Option<Vec<NodeKey>>> = starts.iter().map(|u| u.and_then(|_| lists.next())).collect();
        if on_store {
            let unsure: Vec<Option<u64>> = starts
                .iter()
                .zip(&value)
                .map(|(u, l)| u.filter(|_| l.as_ref().is_some_and(Vec::is_empty)))
                .collect();
            for ((list, u), live) in value.iter_mut().zip(&unsure).zip(txn.live(&unsure)?) {
                if u.is_some() && !live {
                    *list = None;
                }
            }
        }
        Ok(Answer {
            value,
            used: src.used(),
        })
    }

    /// The distinct end nodes of the walks from `seeds` that follow `steps` (openCypher
    /// `MATCH (s)-[:A]->()<-[:B]-(n) WHERE s.id IN $seeds RETURN DISTINCT n LIMIT k`), in
    /// depth-first discovery order, the seeds themselves left out when `exclude_seeds`. Seeds
    /// that do not exist match nothing (as in a MATCH); the walk stops at `limit`.
    pub fn expand(
        &self,
        seeds: &[NodeKey],
        steps: &[Step],
        limit: Option<usize>,
        exclude_seeds: bool,
        ctrl: &Control,
    ) -> Result<Answer<Vec<NodeKey>>> {
        self.expand_at(&self.graph.read(), seeds, steps, limit, exclude_seeds, ctrl)
    }

    /// [`Analytics::expand`] on the snapshot `txn` (a query engine's own snapshot).
    pub fn expand_at(
        &self,
        txn: &ReadTxn,
        seeds: &[NodeKey],
        steps: &[Step],
        limit: Option<usize>,
        exclude_seeds: bool,
        ctrl: &Control,
    ) -> Result<Answer<Vec<NodeKey>>> {
        self.pattern(txn, seeds, steps, exclude_seeds, ctrl, |walks, ids, exclude| {
            pattern::distinct_ends(walks, ids, exclude, limit, ctrl)
        })
    }

    /// The end nodes of the walks from `seeds` along `steps`, each with the number of walks
    /// reaching it (openCypher `RETURN n, count(*) ORDER BY count(*) DESC, n.id LIMIT top`),
    /// by count descending, then key; the seeds left out when `exclude_seeds`.
    pub fn expand_counts(
        &self,
        seeds: &[NodeKey],
        steps: &[Step],
        top: Option<usize>,
        exclude_seeds: bool,
        ctrl: &Control,
    ) -> Result<Answer<Vec<(NodeKey, u64)>>> {
        self.expand_counts_at(&self.graph.read(), seeds, steps, top, exclude_seeds, ctrl)
    }

    /// [`Analytics::expand_counts`] on the snapshot `txn`.
    pub fn expand_counts_at(
        &self,
        txn: &ReadTxn,
        seeds: &[NodeKey],
        steps: &[Step],
        top: Option<usize>,
        exclude_seeds: bool,
        ctrl: &Control,
    ) -> Result<Answer<Vec<(NodeKey, u64)>>> {
        self.expand_counts_ordered_at(txn, seeds, steps, top, exclude_seeds, &NodeKey::cmp, ctrl)
    }

    /// [`Analytics::expand_counts_at`] with ties on the count broken by `key_order` (a query
    /// language's own order of the keys' values) instead of the keys' natural order.
    #[allow(clippy::too_many_arguments)]
    pub fn expand_counts_ordered_at(
        &self,
        txn: &ReadTxn,
        seeds: &[NodeKey],
        steps: &[Step],
        top: Option<usize>,
        exclude_seeds: bool,
        key_order: &dyn Fn(&NodeKey, &NodeKey) -> std::cmp::Ordering,
        ctrl: &Control,
    ) -> Result<Answer<Vec<(NodeKey, u64)>>> {
        self.pattern(txn, seeds, steps, exclude_seeds, ctrl, |walks, ids, exclude| {
            pattern::walk_counts(walks, ids, exclude, top, key_order, ctrl)
        })
    }

    /// Whether an edge `src -> dst` of any type exists (or `dst -> src`, when `either`),
    /// answered by the all-types projection when it holds the latest state; `None` when none
    /// does (one may then be built for later calls), when it does not hold both nodes, or when
    /// it cannot tell cheaply: then the store answers, alike.
    pub fn has_edge_now(&self, src: &NodeKey, dst: &NodeKey, either: bool) -> Option<bool> {
        let Some(p) = self.fresh(&ProjectionSpec::all(), self.graph.version()) else {
            self.want_projection();
            return None;
        };
        let (s, d) = (p.index_of_key(src)?, p.index_of_key(dst)?);
        match p.has_edge(s, d)? {
            false if either => p.has_edge(d, s),
            found => Some(found),
        }
    }

    /// The cached projection of every edge type when it holds exactly `txn`'s snapshot (no
    /// build, no overlay): what a query engine lists adjacency from instead of the store.
    /// When there is none, the automatic build may start one for later queries.
    pub fn fresh_projection(&self, txn: &ReadTxn) -> Option<SharedProjection> {
        let p = self.fresh(&ProjectionSpec::all(), txn.version());
        if p.is_none() {
            self.want_projection();
        }
        p
    }

    /// Runs a path pattern on a fresh projection, the overlay or the store (see `source`).
    fn pattern<T>(
        &self,
        txn: &ReadTxn,
        seeds: &[NodeKey],
        steps: &[Step],
        exclude_seeds: bool,
        ctrl: &Control,
        run: impl FnOnce(&[pattern::Walk<'_>], &[u64], &rustc_hash::FxHashSet<u64>) -> Result<T>,
    ) -> Result<Answer<T>> {
        if steps.is_empty() {
            return Err(AlgoError::InvalidArgument("a path pattern needs at least one step".into()).into());
        }
        // Steps of one type set may use a projection of exactly those types; mixed steps
        // need one of every type (or the overlay, or the store), each step filtering its own.
        let same_types = steps.windows(2).all(|w| w[0].types == w[1].types);
        let types = if same_types { steps[0].types.clone() } else { None };
        let src = self.source(txn, &types, Via::Auto, true, ctrl)?;
        let mut ids = Vec::with_capacity(seeds.len());
        let mut seen = rustc_hash::FxHashSet::default();
        for id in src.starts(txn, seeds)?.into_iter().flatten() {
            if seen.insert(id) {
                ids.push(id);
            }
        }
        let exclude = if exclude_seeds { seen } else { Default::default() };
        let walks: Vec<pattern::Walk<'_>> = steps
            .iter()
            .map(|s| (src.adjacency(txn, &s.types) as Box<dyn point::Adjacency + '_>, s.dir))
            .collect();
        Ok(Answer {
            value: run(&walks, &ids, &exclude)?,
            used: src.used(),
        })
    }

    /// The internal id of a live node (for callers mapping results themselves).
    pub fn node_id(&self, key: &NodeKey) -> Result<Option<NodeId>> {
        Ok(self.graph.read().node_id(key)?)
    }
}

/// A snapshot holding exactly the commits up to its version, if one comes within a few tries
/// (a commit being published makes a snapshot inexact); else the last one taken.
pub(crate) fn exact_snapshot(g: &Graph) -> ReadTxn {
    let mut txn = g.read();
    for _ in 0..100 {
        if txn.is_exact() {
            break;
        }
        std::thread::yield_now();
        txn = g.read();
    }
    txn
}

/// Under the build lock, the projection of `spec` at a fresh exact snapshot: the cached one
/// if a build that held the lock before left it fresh, else one built now, cached (with the
/// overlay restarted on it) and followed by the `after_projection_builds` hook.
fn build_fresh(
    graph: &Graph,
    cache: &Mutex<HashMap<ProjectionSpec, SharedProjection>>,
    overlay: &RwLock<Option<Overlay>>,
    building: &Mutex<()>,
    spec: &ProjectionSpec,
    ctrl: &Control,
) -> Result<Projected> {
    let _one = building.lock();
    // Before the snapshot: every commit after it is then recorded, so the overlay installed
    // on this projection can follow them. A commit already under way when the log starts is
    // published before the exact snapshot is taken.
    graph.track_changes(CHANGE_LOG_CAPACITY);
    let txn = exact_snapshot(graph);
    if let Some(p) = cache.lock().get(spec).filter(|p| p.version() == txn.version()) {
        return Ok(Projected {
            projection: p.clone(),
            rebuilt: false,
        });
    }
    let p = Arc::new(GraphProjection::build(&txn, spec, ctrl)?);
    install(cache, overlay, spec, p.clone());
    built();
    Ok(Projected {
        projection: p,
        rebuilt: true,
    })
}

/// Caches a newly built projection (unless a newer one is there) and, for the all-types
/// projection of an exact snapshot, restarts the overlay on it.
fn install(
    cache: &Mutex<HashMap<ProjectionSpec, SharedProjection>>,
    overlay: &RwLock<Option<Overlay>>,
    spec: &ProjectionSpec,
    p: SharedProjection,
) {
    {
        let mut c = cache.lock();
        if c.get(spec).is_some_and(|old| old.version() > p.version()) {
            return;
        }
        c.insert(spec.clone(), p.clone());
    }
    if *spec == ProjectionSpec::all() && p.info().exact {
        let mut o = overlay.write();
        if o.as_ref().is_none_or(|o| o.base().version() <= p.version()) {
            *o = Some(Overlay::new(p));
        }
    }
}
