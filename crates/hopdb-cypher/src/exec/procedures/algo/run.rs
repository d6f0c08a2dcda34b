//! The bodies of the `hopdb.algo.*` procedures: read the arguments, call the analytics
//! layer, turn its answer into rows.

use super::args::Args;
use crate::error::{CypherError, ErrorClass, Result};
use crate::exec::ctx::Ctx;
use crate::value::{NodeRef, PathValue, RelRef, Value};
use hopdb_database::{
    AnalyticsError, Communities, Direction, Edge, GraphRead, HierarchicalOptions, HopMode, KHop, LeidenOptions,
    LouvainOptions, NodeKey, NodeValues, PageRankOptions, PathQuery, Quality, Sampling, Via,
};

type Rows = Vec<Vec<Value>>;

/// A node value for a result row (the engine fills in its contents).
fn node(k: &NodeKey) -> Value {
    Value::Node(NodeRef::new(k.clone()))
}

/// Prefixes an analytics error with the procedure's name (class and detail as `From` maps them).
fn fail(a: &Args) -> impl Fn(AnalyticsError) -> CypherError {
    let name = a.name();
    move |e| {
        let mut c = CypherError::from(e);
        c.message = format!("{name}: {}", c.message);
        c
    }
}

fn per_node<T>(nv: &NodeValues<T>, f: impl Fn(&T) -> Value) -> Rows {
    nv.iter().map(|(k, v)| vec![node(k), f(v)]).collect()
}

fn memberships(c: &Communities) -> Rows {
    per_node(&c.membership, |&m| Value::Int(i64::from(m)))
}

const U32_MAX: i64 = u32::MAX as i64;

pub(super) fn page_rank(ctx: &Ctx, a: &Args) -> Result<Rows> {
    let d = PageRankOptions::default();
    let max_iterations = match a.get_any(&["maxIterations", "iterations"])? {
        Some((k, _)) => a.int_opt(k, 1, U32_MAX)?.map_or(d.max_iterations, |i| i as u32),
        None => d.max_iterations,
    };
    let opts = PageRankOptions {
        damping: a.f64("damping", d.damping, |x| (0.0..1.0).contains(&x), "in [0, 1)")?,
        max_iterations,
        tolerance: a.f64("tolerance", d.tolerance, |x| x >= 0.0, ">= 0")?,
        ..d
    };
    let seeds = match a.get_any(&["seeds", "sourceNodes"])? {
        Some((k, _)) => a.node_list(k)?,
        None => Vec::new(),
    };
    let pr = ctx
        .analytics
        .pagerank_with_seeds(&opts, &seeds, &ctx.control)
        .map_err(fail(a))?;
    Ok(per_node(&pr, |&s| Value::Float(s)))
}

pub(super) fn wcc(ctx: &Ctx, a: &Args) -> Result<Rows> {
    let c = ctx
        .analytics
        .weakly_connected_components(&ctx.control)
        .map_err(fail(a))?;
    Ok(memberships(&c))
}

pub(super) fn scc(ctx: &Ctx, a: &Args) -> Result<Rows> {
    let c = ctx
        .analytics
        .strongly_connected_components(&ctx.control)
        .map_err(fail(a))?;
    Ok(memberships(&c))
}

fn resolution(a: &Args, default: f64) -> Result<f64> {
    a.f64("resolution", default, |x| x > 0.0, "> 0")
}

pub(super) fn louvain(ctx: &Ctx, a: &Args) -> Result<Rows> {
    let d = LouvainOptions::default();
    let opts = LouvainOptions {
        resolution: resolution(a, d.resolution)?,
        threshold: a.f64("threshold", d.threshold, |x| x >= 0.0, ">= 0")?,
        seed: a.seed("seed", d.seed)?,
    };
    let c = ctx
        .analytics
        .louvain(&opts, a.bool("weighted", false)?, &ctx.control)
        .map_err(fail(a))?;
    Ok(memberships(&c))
}

/// Leiden's options from the config, over `d`'s defaults.
fn leiden_options(a: &Args, d: LeidenOptions) -> Result<LeidenOptions> {
    let default = match d.quality {
        Quality::Modularity => 0,
        Quality::Cpm => 1,
    };
    let quality = match a.choice("quality", &[&["modularity"], &["cpm"]], default)? {
        0 => Quality::Modularity,
        _ => Quality::Cpm,
    };
    Ok(LeidenOptions {
        quality,
        resolution: resolution(a, d.resolution)?,
        randomness: a.f64("randomness", d.randomness, |x| x > 0.0, "> 0")?,
        iterations: match a.int_opt("iterations", 1, i64::MAX)? {
            Some(i) => Some(i as usize),
            None => d.iterations,
        },
        seed: a.seed("seed", d.seed)?,
    })
}

pub(super) fn leiden(ctx: &Ctx, a: &Args) -> Result<Rows> {
    let opts = leiden_options(a, LeidenOptions::default())?;
    let c = ctx
        .analytics
        .leiden(&opts, a.bool("weighted", false)?, &ctx.control)
        .map_err(fail(a))?;
    Ok(memberships(&c))
}

pub(super) fn hierarchical_leiden(ctx: &Ctx, a: &Args) -> Result<Rows> {
    let d = HierarchicalOptions::graphrag();
    let opts = HierarchicalOptions {
        max_cluster_size: a
            .int_opt("maxClusterSize", 1, i64::MAX)?
            .map_or(d.max_cluster_size, |m| m as usize),
        leiden: leiden_options(a, d.leiden)?,
    };
    let rows = ctx
        .analytics
        .hierarchical_leiden(&opts, a.bool("weighted", false)?, &ctx.control)
        .map_err(fail(a))?;
    Ok(rows
        .into_iter()
        .map(|r| {
            vec![
                node(&r.key),
                Value::Int(i64::from(r.cluster)),
                Value::Int(i64::from(r.level)),
                r.parent_cluster.map_or(Value::Null, |p| Value::Int(i64::from(p))),
                Value::Bool(r.is_final_cluster),
            ]
        })
        .collect())
}

pub(super) fn triangles(ctx: &Ctx, a: &Args) -> Result<Rows> {
    let (_, per) = ctx.analytics.triangles(&ctx.control).map_err(fail(a))?;
    Ok(per_node(&per, |&t| Value::Int(t as i64)))
}

pub(super) fn betweenness(ctx: &Ctx, a: &Args) -> Result<Rows> {
    let samples = a.int_opt("samples", 1, i64::MAX)?.map(|s| s as usize);
    let b = ctx
        .analytics
        .betweenness(a.bool("directed", true)?, samples, a.seed("seed", 0)?, &ctx.control)
        .map_err(fail(a))?;
    Ok(per_node(&b, |&s| Value::Float(s)))
}

pub(super) fn k_hop(ctx: &Ctx, a: &Args) -> Result<Rows> {
    let start = a.node(0)?;
    let k = a.int(1, 1, U32_MAX)? as u32;
    let mode = match a.choice("mode", &[&["WITHIN"], &["EXACTLY", "EXACT"]], 0)? {
        0 => HopMode::Within,
        _ => HopMode::Exactly,
    };
    let q = KHop {
        k,
        mode,
        dir: a.direction("direction", Direction::Both)?,
        types: a.types("types")?,
        limit: a.int_opt("limit", 0, i64::MAX)?.map(|l| l as usize),
        via: Via::Auto,
    };
    if q.limit == Some(0) {
        return Ok(Vec::new());
    }
    let found = ctx.analytics.k_hop(&start, &q, &ctx.control).map_err(fail(a))?;
    Ok(found.value.iter().map(|k| vec![node(k)]).collect())
}

pub(super) fn sample_neighbors(ctx: &Ctx, a: &Args) -> Result<Rows> {
    let seeds = a.nodes(0)?;
    let s = Sampling {
        fanouts: a.counts(1)?,
        dir: a.direction("direction", Direction::Both)?,
        types: a.types("types")?,
        replace: a.bool("replace", false)?,
        seed: a.seed("seed", 0)?,
    };
    let hops = ctx
        .analytics
        .sample_neighbors(&seeds, &s, &ctx.control)
        .map_err(fail(a))?;
    Ok(hops
        .iter()
        .enumerate()
        .flat_map(|(h, pairs)| {
            pairs
                .iter()
                .map(move |(u, v)| vec![Value::Int(h as i64 + 1), node(u), node(v)])
        })
        .collect())
}

/// The relationship a path step `u -> v` took along `dir` over `types`: the first one the
/// store finds, or the lightest one (unset weights weigh 1) for weighted paths.
fn step(
    g: &dyn GraphRead,
    u: &NodeKey,
    v: &NodeKey,
    dir: Direction,
    types: Option<&[String]>,
    lightest: bool,
) -> Result<Option<Edge>> {
    if lightest {
        let edges = g.edges(u, dir, None, None)?;
        let other = |e: &Edge| if e.src == *u { e.dst.clone() } else { e.src.clone() };
        return Ok(edges
            .into_iter()
            .filter(|e| other(e) == *v && types.is_none_or(|t| t.iter().any(|t| **t == *e.ty)))
            .min_by(|x, y| x.weight.unwrap_or(1.0).total_cmp(&y.weight.unwrap_or(1.0))));
    }
    let (s, t, either) = match dir {
        Direction::Out => (u, v, false),
        Direction::In => (v, u, false),
        Direction::Both => (u, v, true),
    };
    match types {
        None => Ok(g.edge_between(s, t, None, either)?),
        Some(ts) => {
            for ty in ts {
                if let Some(e) = g.edge_between(s, t, Some(ty), either)? {
                    return Ok(Some(e));
                }
            }
            Ok(None)
        }
    }
}

/// A path value through `keys`, with the relationships read from this query's snapshot.
fn path(
    ctx: &Ctx,
    a: &Args,
    keys: &[NodeKey],
    dir: Direction,
    types: Option<&[String]>,
    lightest: bool,
) -> Result<Value> {
    let g = ctx.read();
    let mut rels = Vec::with_capacity(keys.len().saturating_sub(1));
    for w in keys.windows(2) {
        ctx.check()?;
        let e = step(g, &w[0], &w[1], dir, types, lightest)?.ok_or_else(|| {
            CypherError::runtime(
                ErrorClass::EntityNotFound,
                "EntityNotFound",
                format!(
                    "{}: the relationship from {} to {} on the path is not in this query's snapshot \
                     (a write landed while the query ran); run it again",
                    a.name(),
                    w[0],
                    w[1]
                ),
            )
        })?;
        rels.push(RelRef {
            src: e.src,
            ty: e.ty,
            dst: e.dst,
            edge_id: e.id,
            data: None,
        });
    }
    Ok(Value::Path(PathValue {
        nodes: keys.iter().map(|k| NodeRef::new(k.clone())).collect(),
        rels,
    }))
}

fn node_list(keys: &[NodeKey]) -> Value {
    Value::List(keys.iter().map(node).collect())
}

pub(super) fn shortest_path(ctx: &Ctx, a: &Args) -> Result<Rows> {
    let (s, t) = (a.node(0)?, a.node(1)?);
    let dir = a.direction("direction", Direction::Both)?;
    if a.bool("weighted", false)? {
        a.forbid(&["types", "maxHops"], "with `weighted: true`")?;
        let Some((cost, keys)) = ctx
            .analytics
            .weighted_shortest_path(&s, &t, dir, &ctx.control)
            .map_err(fail(a))?
        else {
            return Ok(Vec::new());
        };
        let p = path(ctx, a, &keys, dir, None, true)?;
        let len = keys.len().saturating_sub(1) as i64;
        return Ok(vec![vec![p, node_list(&keys), Value::Int(len), Value::Float(cost)]]);
    }
    let q = PathQuery {
        dir,
        types: a.types("types")?,
        max_hops: a.int_opt("maxHops", 0, U32_MAX)?.map_or(u32::MAX, |m| m as u32),
        via: Via::Auto,
    };
    let found = ctx.analytics.shortest_path(&s, &t, &q, &ctx.control).map_err(fail(a))?;
    let Some(keys) = found.value else {
        return Ok(Vec::new());
    };
    let p = path(ctx, a, &keys, dir, q.types.as_deref(), false)?;
    let len = keys.len().saturating_sub(1);
    Ok(vec![vec![
        p,
        node_list(&keys),
        Value::Int(len as i64),
        Value::Float(len as f64),
    ]])
}

pub(super) fn all_shortest_paths(ctx: &Ctx, a: &Args) -> Result<Rows> {
    let (s, t) = (a.node(0)?, a.node(1)?);
    let dir = a.direction("direction", Direction::Both)?;
    let limit = a.int_opt("limit", 0, i64::MAX)?.map(|l| l as usize);
    if limit == Some(0) {
        return Ok(Vec::new());
    }
    let paths = ctx
        .analytics
        .all_shortest_paths(&s, &t, dir, limit, &ctx.control)
        .map_err(fail(a))?;
    paths
        .iter()
        .map(|keys| {
            Ok(vec![
                path(ctx, a, keys, dir, None, false)?,
                node_list(keys),
                Value::Int(keys.len().saturating_sub(1) as i64),
            ])
        })
        .collect()
}

pub(super) fn bfs(ctx: &Ctx, a: &Args) -> Result<Rows> {
    let source = a.node(0)?;
    let dir = a.direction("direction", Direction::Both)?;
    let max_depth = a.int_opt("maxDepth", 0, U32_MAX - 1)?.map(|d| d as u32);
    let d = ctx
        .analytics
        .bfs_distances(&source, dir, max_depth, &ctx.control)
        .map_err(fail(a))?;
    let mut reached: Vec<(&NodeKey, u32)> = d.iter().filter(|(_, &x)| x != u32::MAX).map(|(k, &x)| (k, x)).collect();
    reached.sort_by_key(|&(_, x)| x);
    Ok(reached
        .into_iter()
        .map(|(k, x)| vec![node(k), Value::Int(i64::from(x))])
        .collect())
}

pub(super) fn dijkstra(ctx: &Ctx, a: &Args) -> Result<Rows> {
    let source = a.node(0)?;
    let dir = a.direction("direction", Direction::Both)?;
    let d = ctx
        .analytics
        .dijkstra_distances(&source, dir, &ctx.control)
        .map_err(fail(a))?;
    let mut reached: Vec<(&NodeKey, f64)> = d.iter().filter(|(_, x)| x.is_finite()).map(|(k, &x)| (k, x)).collect();
    reached.sort_by(|x, y| x.1.total_cmp(&y.1));
    Ok(reached
        .into_iter()
        .map(|(k, x)| vec![node(k), Value::Float(x)])
        .collect())
}
