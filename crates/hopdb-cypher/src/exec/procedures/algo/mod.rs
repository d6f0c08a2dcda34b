//! The analytics layer's algorithms as procedures: the `hopdb.algo.*` namespace.
//!
//! Every procedure takes its required arguments positionally, then an optional config map
//! (GDS style): `CALL hopdb.algo.pageRank({damping: 0.85, maxIterations: 20}) YIELD node, score`.
//! Unknown config keys are an error that lists the allowed ones; keys match ignoring case
//! and underscores; a `null` value keeps the default. A node argument is a node value or a
//! node key (a string or an integer: the `_key` property). Rows stream one per node (or per
//! node and level, per pair, per path), in the algorithm's order: sort with `ORDER BY`.
//!
//! Whole-graph algorithms run on the analytics layer's cached projection of the committed
//! store (rebuilt when a write has landed since); point queries (k-hop, shortest path) on
//! the freshest source of the same committed state. Inside a query that writes, the
//! procedures do not see that query's own uncommitted changes.
//!
//! `CALL hopdb.algo.list()` lists the procedures with their signatures; the user-facing
//! reference is the "Procedures" section of `docs/cypher.md`.

mod args;
mod run;

use super::ProcOutput;
use crate::error::Result;
use crate::exec::ctx::Ctx;
use crate::value::Value;
use args::Args;

/// One procedure: its name, arguments, config keys, output fields and body.
pub(super) struct Spec {
    /// The name as documented (matched case-insensitively).
    pub name: &'static str,
    /// Required positional arguments, in order.
    pub params: &'static [&'static str],
    /// Config keys accepted in the trailing map (canonical spelling).
    pub config: &'static [&'static str],
    /// Output fields, in row order.
    pub fields: &'static [&'static str],
    /// One line for `hopdb.algo.list()`.
    pub description: &'static str,
    run: fn(&Ctx, &Args) -> Result<Vec<Vec<Value>>>,
}

impl Spec {
    /// `name(arg, ..., config = {key, ...}) :: (field, ...)`.
    pub fn signature(&self) -> String {
        let mut params: Vec<String> = self.params.iter().map(|p| p.to_string()).collect();
        if !self.config.is_empty() {
            params.push(format!("config = {{{}}}", self.config.join(", ")));
        }
        format!("{}({}) :: ({})", self.name, params.join(", "), self.fields.join(", "))
    }
}

/// The catalog, in documentation order.
static SPECS: &[Spec] = &[
    Spec {
        name: "hopdb.algo.pageRank",
        params: &[],
        config: &[
            "damping",
            "maxIterations",
            "iterations",
            "tolerance",
            "seeds",
            "sourceNodes",
        ],
        fields: &["node", "score"],
        description: "PageRank over directed edges (undirected ones count both ways); personalised with seeds",
        run: run::page_rank,
    },
    Spec {
        name: "hopdb.algo.wcc",
        params: &[],
        config: &[],
        fields: &["node", "componentId"],
        description: "Weakly connected components (edges taken in either direction)",
        run: run::wcc,
    },
    Spec {
        name: "hopdb.algo.scc",
        params: &[],
        config: &[],
        fields: &["node", "componentId"],
        description: "Strongly connected components (undirected edges count both ways)",
        run: run::scc,
    },
    Spec {
        name: "hopdb.algo.louvain",
        params: &[],
        config: &["weighted", "resolution", "threshold", "seed"],
        fields: &["node", "communityId"],
        description: "Louvain communities of the undirected graph (modularity)",
        run: run::louvain,
    },
    Spec {
        name: "hopdb.algo.leiden",
        params: &[],
        config: &["weighted", "quality", "resolution", "randomness", "iterations", "seed"],
        fields: &["node", "communityId"],
        description: "Leiden communities of the undirected graph (modularity or CPM)",
        run: run::leiden,
    },
    Spec {
        name: "hopdb.algo.hierarchicalLeiden",
        params: &[],
        config: &[
            "maxClusterSize",
            "weighted",
            "quality",
            "resolution",
            "randomness",
            "iterations",
            "seed",
        ],
        fields: &["node", "cluster", "level", "parentCluster", "isFinalCluster"],
        description: "Hierarchical Leiden as GraphRAG runs it: one row per node and level",
        run: run::hierarchical_leiden,
    },
    Spec {
        name: "hopdb.algo.triangles",
        params: &[],
        config: &[],
        fields: &["node", "triangles"],
        description: "Triangles through each node of the simple undirected graph",
        run: run::triangles,
    },
    Spec {
        name: "hopdb.algo.betweenness",
        params: &[],
        config: &["directed", "samples", "seed"],
        fields: &["node", "score"],
        description: "Normalised betweenness centrality, exact or sampled",
        run: run::betweenness,
    },
    Spec {
        name: "hopdb.algo.kHop",
        params: &["start", "k"],
        config: &["direction", "types", "limit", "mode"],
        fields: &["node"],
        description: "Distinct nodes within (or exactly) k hops of start, in BFS order",
        run: run::k_hop,
    },
    Spec {
        name: "hopdb.algo.sampleNeighbors",
        params: &["seeds", "fanouts"],
        config: &["direction", "types", "replace", "seed"],
        fields: &["hop", "node", "neighbor"],
        description: "Seeded neighbour sampling (GNN style): fanouts[h] neighbours per frontier node at hop h+1",
        run: run::sample_neighbors,
    },
    Spec {
        name: "hopdb.algo.shortestPath",
        params: &["source", "target"],
        config: &["direction", "types", "maxHops", "weighted"],
        fields: &["path", "nodes", "length", "cost"],
        description: "One shortest path (fewest hops, or lightest when weighted); no row when unreachable",
        run: run::shortest_path,
    },
    Spec {
        name: "hopdb.algo.allShortestPaths",
        params: &["source", "target"],
        config: &["direction", "limit"],
        fields: &["path", "nodes", "length"],
        description: "Every fewest-hop path from source to target",
        run: run::all_shortest_paths,
    },
    Spec {
        name: "hopdb.algo.bfs",
        params: &["source"],
        config: &["direction", "maxDepth"],
        fields: &["node", "distance"],
        description: "Hop distance from source to every node it reaches (itself at 0)",
        run: run::bfs,
    },
    Spec {
        name: "hopdb.algo.dijkstra",
        params: &["source"],
        config: &["direction"],
        fields: &["node", "distance"],
        description: "Weighted distance from source to every node it reaches (edge weight, 1 when unset)",
        run: run::dijkstra,
    },
    Spec {
        name: "hopdb.algo.list",
        params: &[],
        config: &[],
        fields: &["name", "signature", "description"],
        description: "These procedures, with their signatures",
        run: list,
    },
];

/// The procedure named `name` (any case).
pub(super) fn spec_of(name: &str) -> Option<&'static Spec> {
    SPECS.iter().find(|s| s.name.eq_ignore_ascii_case(name))
}

fn list(_ctx: &Ctx, _args: &Args) -> Result<Vec<Vec<Value>>> {
    Ok(SPECS
        .iter()
        .map(|s| {
            vec![
                Value::String(s.name.to_string()),
                Value::String(s.signature()),
                Value::String(s.description.to_string()),
            ]
        })
        .collect())
}

/// Runs `name` if it is an algorithm procedure; `None` otherwise.
pub(crate) fn invoke(ctx: &Ctx, name: &str, args: &[Value]) -> Option<Result<ProcOutput>> {
    let spec = spec_of(name)?;
    Some((|| {
        let args = Args::parse(spec, args)?;
        ctx.check()?;
        let rows = (spec.run)(ctx, &args)?;
        Ok(ProcOutput {
            fields: spec.fields.iter().map(|f| f.to_string()).collect(),
            rows,
        })
    })())
}

/// The output fields of the algorithm procedure `name`, without running it (`None`: not
/// one of them). For resolving a CALL's columns when it has no input rows (`call` in
/// `procedures/mod.rs` invokes the procedure with no arguments then, which for a procedure
/// with required arguments is an arity error, and for the others runs the algorithm).
pub(crate) fn output_fields(name: &str) -> Option<Vec<String>> {
    spec_of(name).map(|s| s.fields.iter().map(|f| f.to_string()).collect())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_in_the_namespace() {
        for (i, s) in SPECS.iter().enumerate() {
            assert!(s.name.starts_with("hopdb.algo."), "{}", s.name);
            assert!(
                SPECS[..i].iter().all(|o| !o.name.eq_ignore_ascii_case(s.name)),
                "{}",
                s.name
            );
            assert!(!s.fields.is_empty());
        }
        assert!(spec_of("HOPDB.ALGO.PAGERANK").is_some());
        assert!(spec_of("db.labels").is_none());
        assert_eq!(output_fields("hopdb.algo.wcc").unwrap(), vec!["node", "componentId"]);
    }

    #[test]
    fn signatures_show_arguments_config_and_fields() {
        let s = spec_of("hopdb.algo.khop").unwrap();
        assert_eq!(
            s.signature(),
            "hopdb.algo.kHop(start, k, config = {direction, types, limit, mode}) :: (node)"
        );
        assert_eq!(
            spec_of("hopdb.algo.wcc").unwrap().signature(),
            "hopdb.algo.wcc() :: (node, componentId)"
        );
    }
}
