//! Crash safety: a writer process is SIGKILLed at random points (mid-transaction, during
//! memtable flushes and compactions, even during its own recovery) over and over on the same
//! store. After every kill the store is reopened and must hold exactly the acknowledged
//! prefix of a deterministic operation sequence (plus, possibly, the one in-flight
//! transaction), and `check()` must find nothing wrong.
//!
//! No extra binary: the writer is this test binary re-executed with a filter selecting the
//! ignored test `crash_child_writer`, which does nothing unless its environment says so.
//!
//! Knobs (environment of the parent test): `HOPDB_CRASH_SEED` (operation sequence and kill
//! delays), `HOPDB_CRASH_KILLS` (default 120), `HOPDB_CRASH_DURABILITY` (`process`, the
//! default; `none` is a negative control that must fail), `HOPDB_TORN_WAL_KILLS` (default 40: the
//! kills of the torn-WAL test).

// Tests: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_core::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Environment of the writer process.
const ENV_DIR: &str = "HOPDB_CRASH_CHILD_DIR";
const ENV_SEED: &str = "HOPDB_CRASH_CHILD_SEED";
const ENV_WRITE_BUFFER: &str = "HOPDB_CRASH_CHILD_WRITE_BUFFER_BYTES";
const ENV_TOTAL_WRITE_BUFFER: &str = "HOPDB_CRASH_CHILD_TOTAL_WRITE_BUFFER_BYTES";
const ENV_DURABILITY: &str = "HOPDB_CRASH_CHILD_DURABILITY";

/// Small memtables, so flushes and compactions run all the time.
const WRITE_BUFFER_BYTES: usize = 256 << 10;
const TOTAL_WRITE_BUFFER_BYTES: usize = 1 << 20;

/// The node whose `op` property is the number of the last committed operation; every
/// operation's transaction updates it, so the store itself says how far the writer got.
const COUNTER_KEY: &str = "__crash_counter__";
const DIRECTED: &str = "R";
const UNDIRECTED: &str = "U";
const LABELS: [&str; 4] = ["Person", "Place", "Thing", "Event"];
/// The key space: Int(0..INT_NODES) (the first HUBS of them drawn more often) and
/// Str("s0".."s{STR_NODES-1}").
const INT_NODES: i64 = 1000;
const HUBS: i64 = 10;
const STR_NODES: i64 = 100;

const DEFAULT_SEED: u64 = 0x5EED_C0DE_2025;
const DEFAULT_KILLS: u32 = 120;
const DEFAULT_TORN_KILLS: u32 = 40;
const KILL_AFTER_MS: std::ops::RangeInclusive<u64> = 20..=300;
const MAX_REOPEN: Duration = Duration::from_secs(5);
/// The signal `Child::kill` sends on Unix.
const SIGKILL: i32 = 9;

fn crash_config(write_buffer_bytes: usize, total_write_buffer_bytes: usize, durability: Durability) -> Config {
    Config {
        write_buffer_bytes,
        total_write_buffer_bytes,
        durability,
        ..Config::default()
    }
}

/// `Process` (the default) is the level whose promise is "survives kill -9". `none` is a
/// negative control: without a WAL, acknowledged writes are lost and the test must fail.
fn parse_durability(s: &str) -> Durability {
    match s {
        "process" => Durability::Process,
        "sync" => Durability::Sync,
        "none" => Durability::None,
        other => panic!("unknown durability {other:?} (process, sync or none)"),
    }
}

// ---------------------------------------------------------------------------------------
// The deterministic operation sequence. Operation i (from 1) is one transaction: the steps
// below, then the counter update. It is a pure function of (seed, i).
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum Step {
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

fn op_rng(seed: u64, i: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

fn node_key(rng: &mut ChaCha8Rng) -> NodeKey {
    match rng.random_range(0..10) {
        0 => NodeKey::Str(format!("s{}", rng.random_range(0..STR_NODES))),
        1 => NodeKey::Int(rng.random_range(0..HUBS)),
        _ => NodeKey::Int(rng.random_range(0..INT_NODES)),
    }
}

/// A neighbour for `k`: mostly close by (so edges get updated and deleted again), sometimes
/// anywhere, sometimes `k` itself.
fn near(rng: &mut ChaCha8Rng, k: &NodeKey) -> NodeKey {
    match (rng.random_range(0..50), k) {
        (0, _) => k.clone(),
        (1..=8, _) => node_key(rng),
        (_, NodeKey::Int(x)) => NodeKey::Int((x + rng.random_range(-10..=10)).rem_euclid(INT_NODES)),
        (_, NodeKey::Str(_)) => NodeKey::Str(format!("s{}", rng.random_range(0..STR_NODES))),
    }
}

/// Exact in binary floating point, so weight sums do not depend on summation order.
fn weight(rng: &mut ChaCha8Rng) -> Option<f64> {
    if rng.random_bool(0.2) {
        None
    } else {
        Some(f64::from(rng.random_range(1..=40u32)) * 0.25)
    }
}

fn mode(rng: &mut ChaCha8Rng) -> WriteMode {
    if rng.random_bool(0.2) {
        WriteMode::Replace
    } else {
        WriteMode::Merge
    }
}

fn blob(rng: &mut ChaCha8Rng, i: u64) -> String {
    let n = rng.random_range(50..400);
    format!("{i}:").chars().cycle().take(n).collect()
}

fn edge_props(rng: &mut ChaCha8Rng, i: u64) -> Props {
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

fn node_props(rng: &mut ChaCha8Rng, i: u64) -> Props {
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

fn node_labels(rng: &mut ChaCha8Rng) -> Vec<&'static str> {
    (0..rng.random_range(0..=3))
        .map(|_| LABELS[rng.random_range(0..LABELS.len())])
        .collect()
}

fn upsert_edge(rng: &mut ChaCha8Rng, i: u64, src: NodeKey, dst: NodeKey) -> Step {
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

fn upsert_node(rng: &mut ChaCha8Rng, i: u64, key: NodeKey) -> Step {
    Step::UpsertNode {
        key,
        labels: node_labels(rng),
        props: node_props(rng, i),
        mode: mode(rng),
    }
}

/// The edge upserts of operation `j`, if it is an edge batch (45% of operations).
fn edge_batch(seed: u64, j: u64) -> Option<Vec<Step>> {
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

fn steps(seed: u64, i: u64) -> Vec<Step> {
    let mut s = Vec::new();
    if i == 1 {
        s.push(Step::DefineUndirected);
    }
    if let Some(batch) = edge_batch(seed, i) {
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

fn apply(tx: &mut WriteTxn<'_>, s: &Step) -> Result<()> {
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

/// The last committed operation according to the store (0: none yet).
fn reached_op(g: &Graph) -> u64 {
    let node = g.node(&NodeKey::from(COUNTER_KEY)).expect("reading the counter node");
    match node.as_ref().and_then(|n| n.props.get("op")) {
        None => 0,
        Some(Value::Int(i)) if *i > 0 => *i as u64,
        Some(other) => panic!("the counter node holds {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// The writer process.
// ---------------------------------------------------------------------------------------

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).map_or(default, |v| {
        v.parse().unwrap_or_else(|_| panic!("{name}={v} is not a number"))
    })
}

/// The writer: runs only when re-executed by `kill9_writer_recovers_every_acknowledged_write`.
/// Continues the operation sequence from where the store says it stopped, printing `ACK i`
/// after each commit returns, until it is killed.
#[test]
#[ignore = "the writer process of kill9_writer_recovers_every_acknowledged_write"]
fn crash_child_writer() {
    let Some(dir) = std::env::var_os(ENV_DIR) else {
        return;
    };
    let seed: u64 = std::env::var(ENV_SEED).expect("seed").parse().expect("numeric seed");
    let cfg = crash_config(
        env_usize(ENV_WRITE_BUFFER, WRITE_BUFFER_BYTES),
        env_usize(ENV_TOTAL_WRITE_BUFFER, TOTAL_WRITE_BUFFER_BYTES),
        parse_durability(&std::env::var(ENV_DURABILITY).unwrap_or_else(|_| "process".into())),
    );
    let g = Graph::open_with(&dir, cfg).expect("writer: opening the store");
    let start = reached_op(&g);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut say = |line: String| writeln!(out, "{line}").and_then(|()| out.flush()).is_ok();
    if !say(format!("START {start}")) {
        return;
    }
    // Never outlive a parent that died without killing us.
    let deadline = Instant::now() + Duration::from_secs(60);
    for i in start + 1.. {
        let mut tx = g.write().expect("writer: starting a transaction");
        for s in steps(seed, i) {
            apply(&mut tx, &s).unwrap_or_else(|e| panic!("writer: op {i}: {s:?} failed: {e}"));
        }
        tx.commit()
            .unwrap_or_else(|e| panic!("writer: op {i}: commit failed: {e}"));
        if !say(format!("ACK {i}")) || Instant::now() > deadline {
            return;
        }
    }
}

// ---------------------------------------------------------------------------------------
// The model: a plain, independent implementation of the same semantics.
// ---------------------------------------------------------------------------------------

/// An edge's identity: `(type, a, b)`, with `a <= b` for the undirected type.
type EdgeId = (&'static str, NodeKey, NodeKey);

#[derive(Default)]
struct Model {
    /// The last operation applied.
    op: u64,
    nodes: HashMap<NodeKey, (Vec<String>, Props)>,
    edges: HashMap<EdgeId, (Option<f64>, Props)>,
    /// Edges touching each node.
    adj: HashMap<NodeKey, HashSet<EdgeId>>,
    /// How much the sequence really deleted (deletes of absent things are no-ops).
    edge_deletes_hit: u64,
    node_deletes_hit: u64,
    edges_deleted_with_nodes: u64,
}

#[derive(Default, Clone, Copy, PartialEq, Debug)]
struct Lanes {
    out: u64,
    out_w: f64,
    inn: u64,
    in_w: f64,
}

impl Model {
    fn edge_id(ty: &'static str, a: &NodeKey, b: &NodeKey) -> EdgeId {
        if ty == UNDIRECTED && b < a {
            (ty, b.clone(), a.clone())
        } else {
            (ty, a.clone(), b.clone())
        }
    }

    fn advance_to(&mut self, seed: u64, n: u64) {
        while self.op < n {
            self.op += 1;
            for s in steps(seed, self.op) {
                self.apply(&s);
            }
        }
    }

    fn apply(&mut self, s: &Step) {
        match s {
            Step::DefineUndirected => {}
            Step::UpsertNode {
                key,
                labels,
                props,
                mode,
            } => {
                let mut dedup: Vec<String> = Vec::new();
                for l in labels {
                    if !dedup.iter().any(|d| d == l) {
                        dedup.push(l.to_string());
                    }
                }
                match (self.nodes.get_mut(key), mode) {
                    (Some((ls, ps)), WriteMode::Merge) => {
                        for l in dedup {
                            if !ls.contains(&l) {
                                ls.push(l);
                            }
                        }
                        ps.extend(props.clone());
                    }
                    _ => {
                        self.nodes.insert(key.clone(), (dedup, props.clone()));
                    }
                }
            }
            Step::UpsertEdge {
                src,
                ty,
                dst,
                weight,
                props,
                mode,
            } => {
                for k in [src, dst] {
                    self.nodes.entry(k.clone()).or_default();
                }
                let id = Self::edge_id(ty, src, dst);
                match (self.edges.get_mut(&id), mode) {
                    (Some((w, ps)), WriteMode::Merge) => {
                        *w = weight.or(*w);
                        ps.extend(props.clone());
                    }
                    _ => {
                        self.edges.insert(id.clone(), (*weight, props.clone()));
                    }
                }
                for k in [src, dst] {
                    self.adj.entry(k.clone()).or_default().insert(id.clone());
                }
            }
            Step::DeleteEdge { src, ty, dst } => {
                let id = Self::edge_id(ty, src, dst);
                if self.edges.remove(&id).is_some() {
                    self.edge_deletes_hit += 1;
                    for k in [src, dst] {
                        self.adj
                            .get_mut(k)
                            .expect("an edge's endpoints are indexed")
                            .remove(&id);
                    }
                }
            }
            Step::DeleteNode { key } => {
                if self.nodes.remove(key).is_some() {
                    self.node_deletes_hit += 1;
                    for id in self.adj.remove(key).unwrap_or_default() {
                        self.edges.remove(&id);
                        self.edges_deleted_with_nodes += 1;
                        let other = if id.1 == *key { &id.2 } else { &id.1 };
                        if let Some(set) = self.adj.get_mut(other) {
                            set.remove(&id);
                        }
                    }
                }
            }
        }
    }

    /// What `edges(key, Both, None, None)` must list, in a canonical order.
    fn edges_of(&self, key: &NodeKey) -> Vec<Edge> {
        let mut out: Vec<Edge> = self
            .adj
            .get(key)
            .into_iter()
            .flatten()
            .map(|id| {
                let (ty, a, b) = id;
                let (w, p) = &self.edges[id];
                let (src, dst) = if *ty == UNDIRECTED {
                    // Listed from the queried end.
                    (key.clone(), if a == key { b.clone() } else { a.clone() })
                } else {
                    (a.clone(), b.clone())
                };
                Edge {
                    src,
                    ty: (*ty).into(),
                    dst,
                    id: 0,
                    weight: *w,
                    props: p.clone(),
                }
            })
            .collect();
        sort_edges(&mut out);
        out
    }

    /// Degree lanes of `key` for one type (or all): (directed out/in, undirected).
    fn lanes(&self, key: &NodeKey, ty: Option<&str>) -> (Lanes, u64, f64) {
        let (mut d, mut und, mut und_w) = (Lanes::default(), 0, 0.0);
        for id in self.adj.get(key).into_iter().flatten() {
            let (t, a, b) = id;
            if ty.is_some_and(|ty| ty != *t) {
                continue;
            }
            let w = self.edges[id].0.unwrap_or(1.0);
            if *t == UNDIRECTED {
                let times = if a == b { 2 } else { 1 };
                und += times;
                und_w += w * times as f64;
            } else {
                if a == key {
                    d.out += 1;
                    d.out_w += w;
                }
                if b == key {
                    d.inn += 1;
                    d.in_w += w;
                }
            }
        }
        (d, und, und_w)
    }

    fn degree(&self, key: &NodeKey, dir: Direction, ty: Option<&str>) -> Degree {
        let (d, und, und_w) = self.lanes(key, ty);
        let (count, weight_sum) = match dir {
            Direction::Out => (d.out + und, d.out_w + und_w),
            Direction::In => (d.inn + und, d.in_w + und_w),
            Direction::Both => (d.out + d.inn + und, d.out_w + d.in_w + und_w),
        };
        Degree { count, weight_sum }
    }
}

fn sort_edges(v: &mut [Edge]) {
    v.sort_by(|x, y| (&x.src, &*x.ty, &x.dst).cmp(&(&y.src, &*y.ty, &y.dst)));
}

/// Every key the operation sequence can touch.
fn key_space() -> impl Iterator<Item = NodeKey> {
    (0..INT_NODES)
        .map(NodeKey::Int)
        .chain((0..STR_NODES).map(|s| NodeKey::Str(format!("s{s}"))))
}

/// Differences between the store and the model (at most a few dozen).
fn compare(g: &Graph, m: &Model) -> Result<Vec<String>> {
    const MAX: usize = 40;
    let mut diffs = Vec::new();
    let mut diff = |d: String| {
        if diffs.len() < MAX {
            diffs.push(d);
        }
    };
    let (nc, ec) = (g.node_count()?, g.edge_count()?);
    if nc != m.nodes.len() as u64 {
        diff(format!("node_count() = {nc}, model has {}", m.nodes.len()));
    }
    if ec != m.edges.len() as u64 {
        diff(format!("edge_count() = {ec}, model has {}", m.edges.len()));
    }
    // Nodes, by a full scan.
    let mut seen = HashSet::new();
    for n in g.scan_nodes() {
        let n = n?;
        if !seen.insert(n.key.clone()) {
            diff(format!("scan_nodes() lists {} twice", n.key));
        }
        match m.nodes.get(&n.key) {
            None => diff(format!("node {} is in the store, not in the model: {n:?}", n.key)),
            Some((labels, props)) if (labels, props) != (&n.labels, &n.props) => diff(format!(
                "node {}: store has labels {:?} props {:?}, model {labels:?} {props:?}",
                n.key, n.labels, n.props
            )),
            Some(_) => {}
        }
    }
    for k in m.nodes.keys().filter(|k| !seen.contains(*k)) {
        diff(format!("node {k} is in the model, missing from scan_nodes()"));
    }
    // Each live node's edges and degrees.
    let types = [None, Some(DIRECTED), Some(UNDIRECTED)];
    for k in m.nodes.keys() {
        match g.edges(k, Direction::Both, None, None) {
            Err(e) => diff(format!("edges({k}): {e}")),
            Ok(mut got) => {
                sort_edges(&mut got);
                let want = m.edges_of(k);
                if got != want {
                    let only_store: Vec<_> = got.iter().filter(|e| !want.contains(e)).collect();
                    let only_model: Vec<_> = want.iter().filter(|e| !got.contains(e)).collect();
                    diff(format!(
                        "edges({k}, Both): store-only {only_store:?}, model-only {only_model:?}"
                    ));
                }
            }
        }
        for ty in types {
            for dir in [Direction::Out, Direction::In, Direction::Both] {
                if ty.is_some() && dir != Direction::Both {
                    continue;
                }
                let want = m.degree(k, dir, ty);
                match g.degree(k, dir, ty) {
                    Ok(got) if got == want => {}
                    got => diff(format!("degree({k}, {dir:?}, {ty:?}) = {got:?}, model {want:?}")),
                }
            }
        }
    }
    // Dead keys stay dead.
    for k in key_space().filter(|k| !m.nodes.contains_key(k)) {
        if g.has_node(&k)? {
            diff(format!(
                "node {k} is deleted or never written in the model, but the store has it"
            ));
        }
        match g.degree(&k, Direction::Both, None) {
            Err(Error::NodeNotFound { .. }) => {}
            other => diff(format!("degree of absent node {k}: {other:?}")),
        }
    }
    // Maintained per-label and per-type counters.
    let mut want_labels: BTreeMap<String, u64> = BTreeMap::new();
    for (labels, _) in m.nodes.values() {
        for l in labels {
            *want_labels.entry(l.clone()).or_default() += 1;
        }
    }
    let got_labels: BTreeMap<String, u64> = g.labels()?.into_iter().collect();
    if got_labels != want_labels {
        diff(format!("labels() = {got_labels:?}, model {want_labels:?}"));
    }
    let mut want_types: BTreeMap<&str, u64> = BTreeMap::new();
    for (ty, _, _) in m.edges.keys() {
        *want_types.entry(*ty).or_default() += 1;
    }
    for (t, count) in g.edge_types()? {
        let want = want_types.remove(&*t.name).unwrap_or(0);
        if count != want {
            diff(format!("edge_types(): {} has {count} edges, model {want}", t.name));
        }
        if &*t.name == UNDIRECTED && !t.options.undirected {
            diff(format!("edge type {UNDIRECTED} lost its undirected option: {t:?}"));
        }
    }
    for (t, want) in want_types {
        diff(format!("edge_types() lacks {t}, the model has {want} such edges"));
    }
    Ok(diffs)
}

// ---------------------------------------------------------------------------------------
// The parent: spawn, kill, reopen, verify, repeat.
// ---------------------------------------------------------------------------------------

/// What the writer printed before it died.
#[derive(Default)]
struct ChildOutput {
    start: Option<u64>,
    last_ack: Option<u64>,
    acks: u64,
    problems: Vec<String>,
}

fn read_child_output(stdout: impl Read) -> ChildOutput {
    let mut o = ChildOutput::default();
    let mut r = BufReader::new(stdout);
    let mut line = String::new();
    loop {
        line.clear();
        match r.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        // A line cut short by the kill is not an acknowledgement.
        let Some(l) = line.strip_suffix('\n') else {
            break;
        };
        // libtest's "test crash_child_writer ... " precedes START on its line.
        if let Some((_, n)) = l.split_once("START ") {
            o.start = n.parse().ok();
            if o.start.is_none() || o.acks > 0 {
                o.problems.push(format!("unexpected line {l:?}"));
            }
        } else if let Some(n) = l.strip_prefix("ACK ") {
            let n: Option<u64> = n.parse().ok();
            let expected = o.last_ack.or(o.start).map(|p| p + 1);
            if n.is_none() || n != expected {
                o.problems
                    .push(format!("ACK out of sequence: {l:?} (expected {expected:?})"));
            }
            o.last_ack = n;
            o.acks += 1;
        }
    }
    o
}

fn sst_files(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".sst"))
                .collect()
        })
        .unwrap_or_default()
}

/// Keeps the store directory if the test fails, for post-mortem inspection.
struct KeepOnPanic(Option<tempfile::TempDir>);

impl Drop for KeepOnPanic {
    fn drop(&mut self) {
        if std::thread::panicking() {
            if let Some(d) = self.0.take() {
                eprintln!("crash test: the store is kept for inspection in {}", d.keep().display());
            }
        }
    }
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| {
        let v = v.trim();
        let parsed = match v.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => v.parse(),
        };
        parsed.unwrap_or_else(|_| panic!("{name}={v} is not a number"))
    })
}

/// The command that runs `crash_child_writer` on `store` in a child process.
fn writer_command(exe: &Path, store: &Path, seed: u64) -> Command {
    let mut c = Command::new(exe);
    c.args([
        "--ignored",
        "--exact",
        "crash_child_writer",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(ENV_DIR, store)
    .env(ENV_SEED, seed.to_string())
    .stdin(Stdio::null());
    c
}

#[test]
fn kill9_writer_recovers_every_acknowledged_write() {
    let seed = env_u64("HOPDB_CRASH_SEED").unwrap_or(DEFAULT_SEED);
    let kills = env_u64("HOPDB_CRASH_KILLS").map_or(DEFAULT_KILLS, |k| k as u32);
    crash_loop(seed, kills, false);
}

/// A power loss drops the WAL's unsynced tail: after each kill the newest WAL file is cut at a
/// random offset (possibly mid-record) before the reopen. Acknowledged writes of the default
/// durability may then be lost (they were only in the OS's buffers), but the store must open
/// and hold exactly the operations up to some point: no half-applied transaction, nothing
/// that was not acknowledged beyond the one in flight, and `check()` clean.
#[test]
fn a_torn_wal_tail_recovers_a_consistent_prefix() {
    let seed = env_u64("HOPDB_CRASH_SEED").unwrap_or(DEFAULT_SEED) ^ 0x7042_4E57;
    let kills = env_u64("HOPDB_TORN_WAL_KILLS").map_or(DEFAULT_TORN_KILLS, |k| k as u32);
    crash_loop(seed, kills, true);
}

/// Cuts the newest WAL file of `store` at a random offset; returns the bytes cut off.
fn tear_wal_tail(store: &Path, rng: &mut ChaCha8Rng) -> u64 {
    let newest = std::fs::read_dir(store)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let number: u64 = name.strip_suffix(".log")?.parse().ok()?;
            Some((number, e.path()))
        })
        .max();
    let Some((_, path)) = newest else { return 0 };
    let len = std::fs::metadata(&path).unwrap().len();
    let keep = rng.random_range(0..=len);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(keep)
        .unwrap();
    len - keep
}

/// Kills the writer `kills` times and verifies the store after each kill (see the module
/// comment); with `tear`, the newest WAL file also loses a random tail before each reopen.
fn crash_loop(seed: u64, kills: u32, tear: bool) {
    let tmp = KeepOnPanic(Some(tempfile::Builder::new().prefix("hopdb-crash-").tempdir().unwrap()));
    let store: PathBuf = tmp.0.as_ref().unwrap().path().join("store");
    let exe = std::env::current_exe().unwrap();
    let durability = std::env::var("HOPDB_CRASH_DURABILITY").unwrap_or_else(|_| "process".into());
    let cfg = crash_config(
        WRITE_BUFFER_BYTES,
        TOTAL_WRITE_BUFFER_BYTES,
        parse_durability(&durability),
    );
    let mut rng = ChaCha8Rng::seed_from_u64(seed.rotate_left(17) ^ 0xC4A5_11ED);
    let mut model = Model::default();
    let started = Instant::now();
    let (mut acked, mut in_flight_kept, mut before_start, mut no_ack, mut orphaned) = (0u64, 0u32, 0u32, 0u32, 0u32);
    let (mut torn_bytes, mut acks_lost, mut kills_losing_acks) = (0u64, 0u64, 0u32);
    let (mut max_open, mut compare_time, mut check_time) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);

    for kill in 1..=kills {
        let verified = model.op;
        let ctx = |what: &str| format!("seed {seed:#x}, kill {kill}/{kills}, last verified op {verified}: {what}");
        let mut child = writer_command(&exe, &store, seed)
            .env(ENV_WRITE_BUFFER, WRITE_BUFFER_BYTES.to_string())
            .env(ENV_TOTAL_WRITE_BUFFER, TOTAL_WRITE_BUFFER_BYTES.to_string())
            .env(ENV_DURABILITY, &durability)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawning the writer");
        let out = child.stdout.take().unwrap();
        let mut err = child.stderr.take().unwrap();
        let out_thread = std::thread::spawn(move || read_child_output(out));
        let err_thread = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            s
        });
        std::thread::sleep(Duration::from_millis(rng.random_range(KILL_AFTER_MS)));
        let exited_early = child.try_wait().unwrap();
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        let output = out_thread.join().unwrap();
        let stderr = err_thread.join().unwrap();
        if exited_early.is_some() || status.signal() != Some(SIGKILL) {
            panic!(
                "{}\nstderr:\n{stderr}",
                ctx(&format!("the writer was not killed but exited by itself: {status}"))
            );
        }
        assert!(
            output.problems.is_empty(),
            "{}",
            ctx(&format!("bad writer output: {:?}", output.problems))
        );
        match output.start {
            None => before_start += 1,
            Some(s) => assert_eq!(
                s,
                model.op,
                "{}",
                ctx("the writer resumed from another op than the last verified state")
            ),
        }
        acked += output.acks;
        if output.acks == 0 {
            no_ack += 1;
        }
        // Every acknowledged op, and at most the one in flight after it.
        let last_ack = output.last_ack.unwrap_or(model.op);
        let ssts_before = sst_files(&store);
        if tear {
            torn_bytes += tear_wal_tail(&store, &mut rng);
        }

        let t = Instant::now();
        let g =
            Graph::open_with(&store, cfg.clone()).unwrap_or_else(|e| panic!("{}", ctx(&format!("reopen failed: {e}"))));
        let open_time = t.elapsed();
        max_open = max_open.max(open_time);
        assert!(open_time < MAX_REOPEN, "{}", ctx(&format!("reopen took {open_time:?}")));
        if ssts_before.difference(&sst_files(&store)).next().is_some() {
            // Table files the recovery threw away (never installed, or obsolete and not yet
            // deleted): the kill hit a flush or compaction. Cross-checked once against a
            // secondary open's live-file count: the same numbers.
            orphaned += 1;
        }

        let t = Instant::now();
        let reached = reached_op(&g);
        if tear && reached < last_ack {
            // The cut took acknowledged writes with it: the model starts again from op 0.
            acks_lost += last_ack - reached;
            kills_losing_acks += 1;
            model = Model::default();
        }
        assert!(
            tear || reached >= last_ack,
            "{}",
            ctx(&format!(
                "LOST ACKNOWLEDGED WRITES: op {last_ack} was acknowledged, the store has only up to op {reached}"
            ))
        );
        assert!(
            reached <= last_ack + 1,
            "{}",
            ctx(&format!(
                "the store has op {reached}, but only op {last_ack} was acknowledged (one may be in flight)"
            ))
        );
        if reached > last_ack {
            in_flight_kept += 1;
        }
        model.advance_to(seed, reached);
        // check() runs beside the comparison: both only read.
        let (diffs, (report, check_took)) = std::thread::scope(|s| {
            let checker = s.spawn(|| {
                let t = Instant::now();
                (g.check(), t.elapsed())
            });
            (compare(&g, &model), checker.join().unwrap())
        });
        compare_time += t.elapsed();
        check_time += check_took;
        let diffs = diffs.unwrap_or_else(|e| panic!("{}", ctx(&format!("reading the store failed: {e}"))));
        assert!(
            diffs.is_empty(),
            "{}",
            ctx(&format!(
                "the store differs from the model of ops 1..={reached} (last ack {last_ack}):\n  {}",
                diffs.join("\n  ")
            ))
        );
        let report = report.unwrap_or_else(|e| panic!("{}", ctx(&format!("check failed to run: {e}"))));
        assert!(
            report.is_ok(),
            "{}",
            ctx(&format!(
                "check found {} problems: {:?}",
                report.problem_count, report.problems
            ))
        );
        drop(g);
    }

    let g = Graph::open_with(&store, cfg).unwrap();
    let storage = g.stats().unwrap().storage;
    println!(
        "crash test: seed {seed:#x}: {kills} kills, {acked} ops acknowledged (store at op {}, {} nodes, {} edges, {} sst files), \
         in-flight op durable after {in_flight_kept} kills, {before_start} kills before the writer was up, {no_ack} kills with no ack, \
         {orphaned} kills hit a flush/compaction (left table files the reopen discarded); \
         {} edge deletes and {} node deletes (with {} edges) took effect; reopen max {max_open:.1?}, compare avg {:.1?}, check avg {:.1?}; total {:.1?}",
        model.op,
        model.nodes.len(),
        model.edges.len(),
        storage.sst_files,
        model.edge_deletes_hit,
        model.node_deletes_hit,
        model.edges_deleted_with_nodes,
        compare_time / kills.max(1),
        check_time / kills.max(1),
        started.elapsed(),
    );
    assert!(acked > 0, "the writer never acknowledged anything");
    if tear {
        println!(
            "torn WAL: {torn_bytes} bytes cut over {kills} kills; {kills_losing_acks} kills lost acknowledged ops \
             ({acks_lost} ops, each time a consistent prefix)"
        );
        assert!(
            kills_losing_acks > 0,
            "no cut reached an acknowledged write: the test tested nothing"
        );
    }
}

/// A writer killed while it creates a store (the first milliseconds of its life) must never
/// leave a directory that HopDB refuses to open: creation is atomic.
#[test]
fn kill9_during_store_creation_leaves_an_openable_store() {
    let tmp = tempfile::Builder::new().prefix("hopdb-create-").tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(0xC7EA7E);
    for trial in 0..40 {
        let store = tmp.path().join(format!("store-{trial}"));
        let mut child = writer_command(&exe, &store, 1)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawning the writer");
        // Spread the kills over process start-up and store creation.
        std::thread::sleep(Duration::from_micros(rng.random_range(0..15_000)));
        child.kill().unwrap();
        child.wait().unwrap();
        let g = Graph::open(&store)
            .unwrap_or_else(|e| panic!("trial {trial}: the store cannot be opened after a kill during creation: {e}"));
        assert!(g.check().unwrap().is_ok(), "trial {trial}");
        g.upsert_node("after", &[], Props::new(), WriteMode::Merge).unwrap();
    }
    // Leftovers of interrupted creations are hidden siblings, never the store itself.
    for e in std::fs::read_dir(tmp.path()).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().to_string();
        assert!(
            name.starts_with("store-") || name.contains(".hopdb-creating-"),
            "unexpected {name}"
        );
    }
}
