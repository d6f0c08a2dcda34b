//! The crash tests' workload: a deterministic sequence of write transactions (operation i is a
//! pure function of the seed and i), how to apply it to a store, and how far a store got.

use hopdb_core::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The node whose `op` property is the number of the last committed operation; every
/// operation's transaction updates it, so the store itself says how far the writer got.
pub(crate) const COUNTER_KEY: &str = "__crash_counter__";
pub(crate) const DIRECTED: &str = "R";
pub(crate) const UNDIRECTED: &str = "U";
pub(crate) const LABELS: [&str; 4] = ["Person", "Place", "Thing", "Event"];
/// The key space: Int(0..INT_NODES) (the first HUBS of them drawn more often) and
/// Str("s0".."s{STR_NODES-1}").
pub(crate) const INT_NODES: i64 = 1000;
pub(crate) const HUBS: i64 = 10;
pub(crate) const STR_NODES: i64 = 100;

#[derive(Debug, Clone)]
pub(crate) enum Step {
    DefineUndirected,
    UpsertNode {
        key: NodeKey,
        labels: Vec<&'static str>,
        props: Props,
        mode: WriteMode,
    },
    UpsertEdge {
        src: NodeKey,
        ty: &'static str,
        dst: NodeKey,
        weight: Option<f64>,
        props: Props,
        mode: WriteMode,
    },
    DeleteEdge {
        src: NodeKey,
        ty: &'static str,
        dst: NodeKey,
    },
    /// Deletes the node and every edge touching it.
    DeleteNode {
        key: NodeKey,
    },
}

pub(crate) fn op_rng(seed: u64, i: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

pub(crate) fn node_key(rng: &mut ChaCha8Rng) -> NodeKey {
    match rng.random_range(0..10) {
        0 => NodeKey::Str(format!("s{}", rng.random_range(0..STR_NODES))),
        1 => NodeKey::Int(rng.random_range(0..HUBS)),
        _ => NodeKey::Int(rng.random_range(0..INT_NODES)),
    }
}

/// A neighbour for `k`: mostly close by (so edges get updated and deleted again), sometimes
/// anywhere, sometimes `k` itself.
pub(crate) fn near(rng: &mut ChaCha8Rng, k: &NodeKey) -> NodeKey {
    match (rng.random_range(0..50), k) {
        (0, _) => k.clone(),
        (1..=8, _) => node_key(rng),
        (_, NodeKey::Int(x)) => NodeKey::Int((x + rng.random_range(-10..=10)).rem_euclid(INT_NODES)),
        (_, NodeKey::Str(_)) => NodeKey::Str(format!("s{}", rng.random_range(0..STR_NODES))),
    }
}

/// Exact in binary floating point, so weight sums do not depend on summation order.
pub(crate) fn weight(rng: &mut ChaCha8Rng) -> Option<f64> {
    if rng.random_bool(0.2) {
        None
    } else {
        Some(f64::from(rng.random_range(1..=40u32)) * 0.25)
    }
}

pub(crate) fn mode(rng: &mut ChaCha8Rng) -> WriteMode {
    if rng.random_bool(0.2) {
        WriteMode::Replace
    } else {
        WriteMode::Merge
    }
}

pub(crate) fn blob(rng: &mut ChaCha8Rng, i: u64) -> String {
    let n = rng.random_range(50..400);
    format!("{i}:").chars().cycle().take(n).collect()
}

pub(crate) fn edge_props(rng: &mut ChaCha8Rng, i: u64) -> Props {
    let mut p = props([("op", Value::Int(i as i64))]);
    if rng.random_bool(0.5) {
        p.insert("p".into(), Value::Float(f64::from(rng.random_range(0..100u32)) * 0.5));
    }
    if rng.random_bool(0.3) {
        p.insert("q".into(), Value::from(format!("q{}", rng.random_range(0..1000))));
    }
    if rng.random_bool(0.1) {
        p.insert("blob".into(), Value::from(blob(rng, i)));
    }
    p
}

pub(crate) fn node_props(rng: &mut ChaCha8Rng, i: u64) -> Props {
    let mut p = props([("op", Value::Int(i as i64))]);
    if rng.random_bool(0.5) {
        p.insert("name".into(), Value::from(format!("n{}", rng.random_range(0..1000))));
    }
    if rng.random_bool(0.3) {
        p.insert(
            "score".into(),
            Value::Float(f64::from(rng.random_range(0..100u32)) * 0.125),
        );
    }
    if rng.random_bool(0.2) {
        let tags = (0..rng.random_range(0..4)).map(|t| Value::Int(t * 7)).collect();
        p.insert("tags".into(), Value::List(tags));
    }
    if rng.random_bool(0.1) {
        p.insert("blob".into(), Value::from(blob(rng, i)));
    }
    p
}

pub(crate) fn node_labels(rng: &mut ChaCha8Rng) -> Vec<&'static str> {
    (0..rng.random_range(0..=3))
        .map(|_| LABELS[rng.random_range(0..LABELS.len())])
        .collect()
}

pub(crate) fn upsert_edge(rng: &mut ChaCha8Rng, i: u64, src: NodeKey, dst: NodeKey) -> Step {
    let ty = if rng.random_bool(0.5) { DIRECTED } else { UNDIRECTED };
    Step::UpsertEdge {
        src,
        ty,
        dst,
        weight: weight(rng),
        props: edge_props(rng, i),
        mode: mode(rng),
    }
}

pub(crate) fn upsert_node(rng: &mut ChaCha8Rng, i: u64, key: NodeKey) -> Step {
    Step::UpsertNode {
        key,
        labels: node_labels(rng),
        props: node_props(rng, i),
        mode: mode(rng),
    }
}

/// The edge upserts of operation `j`, if it is an edge batch (45% of operations).
pub(crate) fn edge_batch(seed: u64, j: u64) -> Option<Vec<Step>> {
    if j == 0 {
        return None;
    }
    let mut rng = op_rng(seed, j);
    if rng.random_range(0..100) >= 45 {
        return None;
    }
    let n = rng.random_range(1..=40);
    Some(
        (0..n)
            .map(|_| {
                let src = node_key(&mut rng);
                let dst = near(&mut rng, &src);
                upsert_edge(&mut rng, j, src, dst)
            })
            .collect(),
    )
}

/// One edge batch in a few hundred ops goes through the bulk loader (`Graph::bulk_load`) instead of a
/// transaction: its rows merge into what the store has, so its steps are all `Merge`.
/// (A small bulk load costs far more than a transaction, about a kill window's time.)
const BULK_EVERY: u64 = 150;

pub(crate) fn is_bulk(seed: u64, i: u64) -> bool {
    i.is_multiple_of(BULK_EVERY) && edge_batch(seed, i).is_some()
}

pub(crate) fn steps(seed: u64, i: u64) -> Vec<Step> {
    let mut s = Vec::new();
    if i == 1 {
        s.push(Step::DefineUndirected);
    }
    if let Some(mut batch) = edge_batch(seed, i) {
        if is_bulk(seed, i) {
            for step in &mut batch {
                if let Step::UpsertEdge { mode, .. } = step {
                    *mode = WriteMode::Merge;
                }
            }
        }
        s.extend(batch);
    } else {
        let mut rng = op_rng(seed, i);
        // Not an edge batch: one of the other kinds, drawn afresh from the op's stream.
        let kind = rng.random_range(45..100);
        match kind {
            45..65 => {
                for _ in 0..rng.random_range(1..=10) {
                    let k = node_key(&mut rng);
                    s.push(upsert_node(&mut rng, i, k));
                }
            }
            65..85 => {
                // Edge deletes, mostly of edges written by a recent batch, so most hit.
                for _ in 0..rng.random_range(1..=8) {
                    let back = rng.random_range(1..=64);
                    let picked = i.checked_sub(back).and_then(|j| edge_batch(seed, j)).map(|b| {
                        let e = b[rng.random_range(0..b.len())].clone();
                        let Step::UpsertEdge { src, ty, dst, .. } = e else {
                            unreachable!("edge batches hold edge upserts")
                        };
                        (src, ty, dst)
                    });
                    let (src, ty, dst) = picked.unwrap_or_else(|| {
                        let a = node_key(&mut rng);
                        let b = near(&mut rng, &a);
                        (a, DIRECTED, b)
                    });
                    // Reversed endpoints: the same edge for the undirected type, another
                    // (usually absent) one for the directed type.
                    let (src, dst) = if rng.random_bool(0.3) { (dst, src) } else { (src, dst) };
                    s.push(Step::DeleteEdge { src, ty, dst });
                }
            }
            85..90 => {
                // Node deletes: sometimes a hub, which takes many edges with it.
                for _ in 0..rng.random_range(1..=2) {
                    let key = if rng.random_bool(0.3) {
                        NodeKey::Int(rng.random_range(0..HUBS))
                    } else {
                        node_key(&mut rng)
                    };
                    s.push(Step::DeleteNode { key });
                }
            }
            _ => {
                // Mixed: read-your-writes inside one transaction, delete and re-create.
                let a = node_key(&mut rng);
                let b = near(&mut rng, &a);
                let c = near(&mut rng, &b);
                s.push(upsert_edge(&mut rng, i, a.clone(), b.clone()));
                s.push(upsert_edge(&mut rng, i, b.clone(), a.clone()));
                s.push(upsert_node(&mut rng, i, a.clone()));
                s.push(Step::DeleteEdge {
                    src: b.clone(),
                    ty: UNDIRECTED,
                    dst: a.clone(),
                });
                if rng.random_bool(0.5) {
                    s.push(Step::DeleteNode { key: b.clone() });
                }
                s.push(upsert_edge(&mut rng, i, c, b.clone()));
                s.push(upsert_node(&mut rng, i, b));
                s.push(Step::DeleteEdge {
                    src: a.clone(),
                    ty: DIRECTED,
                    dst: a,
                });
            }
        }
    }
    s.push(Step::UpsertNode {
        key: NodeKey::from(COUNTER_KEY),
        labels: Vec::new(),
        props: props([("op", Value::Int(i as i64))]),
        mode: WriteMode::Merge,
    });
    s
}

pub(crate) fn apply(tx: &mut WriteTxn<'_>, s: &Step) -> Result<()> {
    match s {
        Step::DefineUndirected => tx
            .define_edge_type(
                UNDIRECTED,
                EdgeTypeOptions {
                    undirected: true,
                    multi: false,
                },
            )
            .map(drop),
        Step::UpsertNode {
            key,
            labels,
            props,
            mode,
        } => tx.upsert_node(key, labels, props.clone(), *mode),
        Step::UpsertEdge {
            src,
            ty,
            dst,
            weight,
            props,
            mode,
        } => tx.upsert_edge(src, ty, dst, *weight, props.clone(), *mode),
        Step::DeleteEdge { src, ty, dst } => tx.delete_edge_if_exists(src, ty, dst).map(drop),
        Step::DeleteNode { key } => tx.delete_node_if_exists(key).map(drop),
    }
}

/// Applies a bulk operation's steps (edge upserts and the counter) through the bulk loader:
/// one atomic load.
pub(crate) fn apply_bulk(g: &Graph, steps: &[Step]) -> Result<()> {
    let mut load = g.bulk_load(BulkOptions::default())?;
    for s in steps {
        match s {
            Step::UpsertEdge {
                src,
                ty,
                dst,
                weight,
                props,
                ..
            } => load.add_edge(src.clone(), ty, dst.clone(), *weight, props.clone())?,
            Step::UpsertNode { key, labels, props, .. } => load.add_node(key.clone(), labels, props.clone())?,
            other => unreachable!("a bulk operation holds upserts only, not {other:?}"),
        }
    }
    load.finish().map(drop)
}

/// The last committed operation according to the store (0: none yet).
pub(crate) fn reached_op(g: &Graph) -> u64 {
    let node = g.node(&NodeKey::from(COUNTER_KEY)).expect("reading the counter node");
    match node.as_ref().and_then(|n| n.props.get("op")) {
        None => 0,
        Some(Value::Int(i)) if *i > 0 => *i as u64,
        Some(other) => panic!("the counter node holds {other:?}"),
    }
}
