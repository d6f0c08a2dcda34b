//! Whole-graph algorithms on a fresh projection, with results keyed by node key.

use hopdb_algo::{Control, HierarchicalOptions, LeidenOptions, LouvainOptions, PageRankOptions, Personalization};
use hopdb_core::{Direction, NodeKey};

use crate::error::{AnalyticsError, Result};
use crate::projection::{GraphProjection, ProjectionSpec, SharedProjection};
use crate::Analytics;

/// One value per node of a projection: `values[i]` belongs to `projection.keys()[i]`.
#[derive(Debug, Clone)]
pub struct NodeValues<T> {
    /// The projection the values were computed on; it maps indexes to keys.
    pub projection: SharedProjection,
    /// One value per dense node index.
    pub values: Vec<T>,
}

impl<T> NodeValues<T> {
    /// The value of the node with this key (a node the projection does not hold: `None`).
    pub fn get(&self, key: &NodeKey) -> Option<&T> {
        self.projection.index_of_key(key).map(|i| &self.values[i as usize])
    }
    /// (key, value) pairs in projection order.
    pub fn iter(&self) -> impl Iterator<Item = (&NodeKey, &T)> {
        self.projection.keys().iter().zip(self.values.iter())
    }
    /// Number of values: the projection's node count.
    pub fn len(&self) -> usize {
        self.values.len()
    }
    /// Whether the projection had no nodes.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// A partition: community (or component) number per node, their count and the quality.
#[derive(Debug, Clone)]
pub struct Communities {
    /// Each node's community (or component) number, in `0..count`.
    pub membership: NodeValues<u32>,
    /// Number of communities (or components).
    pub count: usize,
    /// Modularity (or the chosen quality) for communities; 0 for components.
    pub quality: f64,
}

/// One row of hierarchical Leiden: a node's cluster at one level.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterRow {
    /// The node this row places.
    pub key: NodeKey,
    /// Its cluster at `level`, unique across all levels.
    pub cluster: u32,
    /// Depth of the split that made `cluster`: 0 for the first clustering.
    pub level: u32,
    /// The level-(l-1) cluster this one was split from; `None` at level 0.
    pub parent_cluster: Option<u32>,
    /// True when this cluster was not split further (the node's finest cluster).
    pub is_final_cluster: bool,
}

/// Neighbour sampling parameters (see [`Analytics::sample_neighbors`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Sampling {
    /// Neighbours drawn per frontier node at each hop.
    pub fanouts: Vec<usize>,
    /// Which way neighbours are taken.
    pub dir: Direction,
    /// Edge types to sample from (`None`: all).
    pub types: Option<Vec<String>>,
    /// Draw with replacement.
    pub replace: bool,
    /// Seed of the draws: same seed and store, same sample.
    pub seed: u64,
}

/// A subgraph by keys (LightRAG's `get_knowledge_graph` answer).
#[derive(Debug, Clone, PartialEq)]
pub struct SubgraphKeys {
    /// Kept nodes in the order LightRAG visits them (for `'*'`, by degree ranking).
    pub nodes: Vec<NodeKey>,
    /// Each edge among the kept nodes once (simple, undirected), in the algorithm's order.
    pub edges: Vec<(NodeKey, NodeKey)>,
    /// LightRAG's `is_truncated`: `max_nodes` was reached and some reachable node left out.
    pub truncated: bool,
}

impl Analytics {
    fn whole(&self, ctrl: &Control) -> Result<SharedProjection> {
        Ok(self.projection(&ProjectionSpec::all(), ctrl)?.projection)
    }

    fn index(&self, p: &GraphProjection, key: &NodeKey) -> Result<u32> {
        p.index_of_key(key)
            .ok_or_else(|| AnalyticsError::NodeNotFound { key: key.to_string() })
    }

    /// PageRank over the directed graph (undirected edges count both ways). Seeds for
    /// personalised PageRank are given by key in `seeds` (they replace `opts.personalization`
    /// when non-empty).
    pub fn pagerank_with_seeds(
        &self,
        opts: &PageRankOptions,
        seeds: &[NodeKey],
        ctrl: &Control,
    ) -> Result<NodeValues<f64>> {
        let p = self.whole(ctrl)?;
        let mut opts = opts.clone();
        if !seeds.is_empty() {
            let idx = seeds.iter().map(|k| self.index(&p, k)).collect::<Result<Vec<_>>>()?;
            opts.personalization = Personalization::Seeds(idx);
        }
        let values = hopdb_algo::pagerank(p.out(), p.inc(), &opts, ctrl)?;
        Ok(NodeValues { projection: p, values })
    }

    /// PageRank over the directed graph (undirected edges count both ways), with
    /// `opts.personalization` as given.
    pub fn pagerank(&self, opts: &PageRankOptions, ctrl: &Control) -> Result<NodeValues<f64>> {
        self.pagerank_with_seeds(opts, &[], ctrl)
    }

    /// Weakly connected components of the whole graph (edges taken in either direction).
    pub fn weakly_connected_components(&self, ctrl: &Control) -> Result<Communities> {
        let p = self.whole(ctrl)?;
        let c = hopdb_algo::weakly_connected_components(p.out(), ctrl)?;
        Ok(components(p, c))
    }

    /// Strongly connected components of the whole graph (undirected edges count both ways).
    pub fn strongly_connected_components(&self, ctrl: &Control) -> Result<Communities> {
        let p = self.whole(ctrl)?;
        let c = hopdb_algo::strongly_connected_components(p.out(), ctrl)?;
        Ok(components(p, c))
    }

    /// Louvain on the undirected graph (each relationship one undirected edge; weights used
    /// when `weighted`).
    pub fn louvain(&self, opts: &LouvainOptions, weighted: bool, ctrl: &Control) -> Result<Communities> {
        let p = self.spec_projection(weighted, ctrl)?;
        let r = hopdb_algo::louvain(p.both(), opts, ctrl)?;
        let count = r.community_count;
        Ok(Communities {
            membership: NodeValues {
                projection: p,
                values: r.partition,
            },
            count,
            quality: r.modularity,
        })
    }

    /// Leiden on the undirected graph (see [`Analytics::louvain`]).
    pub fn leiden(&self, opts: &LeidenOptions, weighted: bool, ctrl: &Control) -> Result<Communities> {
        let p = self.spec_projection(weighted, ctrl)?;
        let r = hopdb_algo::leiden(p.both(), opts, ctrl)?;
        Ok(Communities {
            count: r.community_count,
            quality: r.quality,
            membership: NodeValues {
                projection: p,
                values: r.partition,
            },
        })
    }

    /// Hierarchical Leiden (Microsoft GraphRAG's `hierarchical_leiden`): one row per node and
    /// level.
    pub fn hierarchical_leiden(
        &self,
        opts: &HierarchicalOptions,
        weighted: bool,
        ctrl: &Control,
    ) -> Result<Vec<ClusterRow>> {
        let p = self.spec_projection(weighted, ctrl)?;
        let rows = hopdb_algo::hierarchical_leiden(p.both(), opts, ctrl)?;
        Ok(rows
            .into_iter()
            .map(|c| ClusterRow {
                key: p.key(c.node).clone(),
                cluster: c.cluster,
                level: c.level,
                parent_cluster: c.parent_cluster,
                is_final_cluster: c.is_final_cluster,
            })
            .collect())
    }

    /// Triangles of the simple undirected graph: (total, per node).
    pub fn triangles(&self, ctrl: &Control) -> Result<(u64, NodeValues<u64>)> {
        let p = self.whole(ctrl)?;
        let t = hopdb_algo::triangles(p.out(), ctrl)?;
        Ok((
            t.total,
            NodeValues {
                projection: p,
                values: t.per_node,
            },
        ))
    }

    /// Betweenness centrality, exact (`samples: None`) or estimated from that many random
    /// sources (seeded).
    pub fn betweenness(
        &self,
        directed: bool,
        samples: Option<usize>,
        seed: u64,
        ctrl: &Control,
    ) -> Result<NodeValues<f64>> {
        let p = self.whole(ctrl)?;
        let opts = hopdb_algo::BetweennessOptions {
            directed,
            weighted: false,
            normalized: true,
        };
        let g = if directed { p.out() } else { p.both() };
        let values = match samples {
            None => hopdb_algo::betweenness_centrality(g, opts, ctrl)?,
            Some(k) => hopdb_algo::betweenness_centrality_sampled(g, opts, k, seed, ctrl)?.scores,
        };
        Ok(NodeValues { projection: p, values })
    }

    /// Typed neighbour sampling for GNN training: per hop, `fanouts[h]` random neighbours of
    /// each frontier node along `dir` over `types`, reproducible by `seed`. Returns per hop
    /// the sampled (node, neighbour) key pairs.
    pub fn sample_neighbors(
        &self,
        seeds: &[NodeKey],
        s: &Sampling,
        ctrl: &Control,
    ) -> Result<Vec<Vec<(NodeKey, NodeKey)>>> {
        let spec = ProjectionSpec {
            types: s.types.clone(),
            weighted: false,
        };
        let p = self.projection(&spec, ctrl)?.projection;
        let idx = seeds.iter().map(|k| self.index(&p, k)).collect::<Result<Vec<_>>>()?;
        let hops = hopdb_algo::sample_neighbors(p.view(s.dir), &idx, &s.fanouts, s.replace, s.seed, ctrl)?;
        Ok(hops
            .into_iter()
            .map(|h| {
                h.into_iter()
                    .map(|(a, b)| (p.key(a).clone(), p.key(b).clone()))
                    .collect()
            })
            .collect())
    }

    /// LightRAG's `get_knowledge_graph(label, max_depth, max_nodes)` on the undirected graph:
    /// a BFS subgraph from `start`, or with `start = None` (LightRAG's `'*'`) the `max_nodes`
    /// nodes of highest degree; ties by key, as LightRAG breaks them.
    pub fn lightrag_subgraph(
        &self,
        start: Option<&NodeKey>,
        max_depth: u32,
        max_nodes: usize,
        ctrl: &Control,
    ) -> Result<SubgraphKeys> {
        let p = self.whole(ctrl)?;
        let rank = p.key_rank();
        let s = match start {
            None => hopdb_algo::lightrag_top_degree(p.both(), max_nodes, Some(rank), ctrl)?,
            Some(k) => {
                let i = self.index(&p, k)?;
                hopdb_algo::lightrag_subgraph(p.both(), i, max_depth, max_nodes, Some(rank), ctrl)?
            }
        };
        Ok(SubgraphKeys {
            nodes: s.nodes.iter().map(|&v| p.key(v).clone()).collect(),
            edges: s
                .edges
                .iter()
                .map(|&(a, b)| (p.key(a).clone(), p.key(b).clone()))
                .collect(),
            truncated: s.truncated,
        })
    }

    /// The lightest path from `a` to `b` by edge weight (Dijkstra; an edge without a weight
    /// weighs 1, a negative or NaN weight met on the way is an error), as (length, keys), or
    /// `None` when unreachable. Runs on the weighted projection (built if stale).
    pub fn weighted_shortest_path(
        &self,
        a: &NodeKey,
        b: &NodeKey,
        dir: Direction,
        ctrl: &Control,
    ) -> Result<Option<(f64, Vec<NodeKey>)>> {
        let p = self.spec_projection(true, ctrl)?;
        let (s, t) = (self.index(&p, a)?, self.index(&p, b)?);
        Ok(hopdb_algo::dijkstra(p.view(dir), s, t, ctrl)?
            .map(|(len, nodes)| (len, nodes.iter().map(|&v| p.key(v).clone()).collect())))
    }

    /// Every fewest-hop path from `a` to `b` (parallel edges give one path), at most `limit`.
    pub fn all_shortest_paths(
        &self,
        a: &NodeKey,
        b: &NodeKey,
        dir: Direction,
        limit: Option<usize>,
        ctrl: &Control,
    ) -> Result<Vec<Vec<NodeKey>>> {
        let p = self.whole(ctrl)?;
        let (s, t) = (self.index(&p, a)?, self.index(&p, b)?);
        let (fwd, back) = match dir {
            Direction::Out => (p.out(), p.inc()),
            Direction::In => (p.inc(), p.out()),
            Direction::Both => (p.both(), p.both()),
        };
        let paths = hopdb_algo::all_shortest_paths(fwd, back, s, t, limit, ctrl)?;
        Ok(paths
            .into_iter()
            .map(|path| path.iter().map(|&v| p.key(v).clone()).collect())
            .collect())
    }

    /// Hop distance from `source` to every node within `max_depth` (`u32::MAX`: not reached).
    pub fn bfs_distances(
        &self,
        source: &NodeKey,
        dir: Direction,
        max_depth: Option<u32>,
        ctrl: &Control,
    ) -> Result<NodeValues<u32>> {
        let p = self.whole(ctrl)?;
        let s = self.index(&p, source)?;
        let values = hopdb_algo::bfs_distances(&[p.view(dir)], s, max_depth, ctrl)?;
        Ok(NodeValues { projection: p, values })
    }

    /// Weighted distance from `source` to every node (`f64::INFINITY`: unreachable).
    pub fn dijkstra_distances(&self, source: &NodeKey, dir: Direction, ctrl: &Control) -> Result<NodeValues<f64>> {
        let p = self.spec_projection(true, ctrl)?;
        let s = self.index(&p, source)?;
        let values = hopdb_algo::dijkstra_distances(p.view(dir), s, ctrl)?;
        Ok(NodeValues { projection: p, values })
    }

    fn spec_projection(&self, weighted: bool, ctrl: &Control) -> Result<SharedProjection> {
        let spec = if weighted {
            ProjectionSpec::weighted()
        } else {
            ProjectionSpec::all()
        };
        Ok(self.projection(&spec, ctrl)?.projection)
    }
}

fn components(p: SharedProjection, c: hopdb_algo::Components) -> Communities {
    Communities {
        count: c.count as usize,
        quality: 0.0,
        membership: NodeValues {
            projection: p,
            values: c.component,
        },
    }
}
