//! Model-based property tests: random operation sequences run against HopDB (both engines)
//! and against a plain reference model (ordered maps, no HopDB code), which must give the
//! same answers after every step.
//!
//! The model follows the documented semantics (src/model.rs, src/write.rs):
//! - nodes: Merge adds new labels after the old ones (input de-duplicated, first occurrence
//!   wins) and overwrites same-named properties; Replace (or a new / re-created node) takes
//!   exactly the given labels and properties;
//! - edges of a simple type are unique per (src, type, dst), per unordered pair if the type is
//!   undirected; Merge keeps the old weight when none is given; missing endpoints are created
//!   as empty nodes; multi-edge types get a fresh edge id per `add_edge`;
//! - listing: `Both` lists a directed self-loop once; undirected edges are listed from the
//!   queried node as src in every direction; degrees count unweighted edges as 1.0, a
//!   directed self-loop twice in `Both`, an undirected self-loop 2 in every direction;
//! - any error aborts the whole transaction; nothing of a failed or dropped one is visible.
//!
//! Case count: `HOPDB_MODEL_CASES` (default 64); sequence length: `HOPDB_MODEL_OPS` (default 60).

// Tests: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_core::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

// ---------------------------------------------------------------- vocabulary

/// The key universe; each case uses the first 8..=12 of these.
fn key_pool() -> Vec<NodeKey> {
    vec![
        NodeKey::Int(0),
        NodeKey::Str("a".into()),
        NodeKey::Int(7),
        NodeKey::Str("7".into()),
        NodeKey::Int(-1),
        NodeKey::Str("b".into()),
        NodeKey::Int(i64::MIN),
        NodeKey::Str("ab".into()),
        NodeKey::Int(i64::MAX),
        NodeKey::Str("ünï ✓".into()),
        NodeKey::Int(1),
        NodeKey::Str("a\0".into()),
    ]
}

/// A key selector: an index into the case's key space, or `BAD_KEY` for the invalid key "".
type KeySel = u8;
const BAD_KEY: KeySel = u8::MAX;

const LABELS: [&str; 4] = ["A", "B", "C", ""]; // "" is invalid
const BAD_LABEL: u8 = 3;
const PROP_NAMES: [&str; 3] = ["x", "y", "z"];

fn prop_value(i: u8) -> Value {
    match i {
        0 => Value::Null,
        1 => Value::Int(1),
        2 => Value::Int(-2),
        3 => Value::from("s"),
        4 => Value::Float(0.5),
        5 => Value::Bool(true),
        _ => Value::List(vec![Value::Int(1), Value::from("t")]),
    }
}

/// Dyadic weights, so every weight sum is exact whatever the order of additions.
const WEIGHTS: [Option<f64>; 10] = [
    None,
    Some(1.0),
    Some(0.5),
    Some(2.0),
    Some(-1.5),
    Some(0.0),
    Some(3.25),
    // invalid ones
    Some(f64::NAN),
    Some(f64::INFINITY),
    Some(f64::NEG_INFINITY),
];
const GOOD_WEIGHTS: u8 = 7;

/// Edge types. U, M and UM are declared at the start of every sequence; D and X are created
/// by first use or by a `DefineType` op (X with random options); "NOPE" never exists.
const TYPES: [&str; 6] = ["D", "U", "M", "UM", "X", "NOPE"];
const T_D: u8 = 0;
const T_U: u8 = 1;
const T_M: u8 = 2;
const T_UM: u8 = 3;
const T_X: u8 = 4;

fn opts(undirected: bool, multi: bool) -> EdgeTypeOptions {
    EdgeTypeOptions { undirected, multi }
}

fn predeclared() -> Vec<(&'static str, EdgeTypeOptions)> {
    vec![
        ("U", opts(true, false)),
        ("M", opts(false, true)),
        ("UM", opts(true, true)),
    ]
}

// ---------------------------------------------------------------- generated operations

#[derive(Debug, Clone)]
struct PropsGen(Vec<(u8, u8)>);

impl PropsGen {
    fn get(&self) -> Props {
        self.0
            .iter()
            .map(|&(n, v)| (PROP_NAMES[n as usize].to_string(), prop_value(v)))
            .collect()
    }
}

/// One write operation, abstract: keys are selectors, existing edges are chosen by `pick`
/// against the model's state when the op runs.
#[derive(Debug, Clone)]
enum WOp {
    UpsertNode {
        key: KeySel,
        labels: Vec<u8>,
        props: PropsGen,
        replace: bool,
    },
    UpsertEdge {
        src: KeySel,
        ty: u8,
        dst: KeySel,
        w: u8,
        props: PropsGen,
        replace: bool,
    },
    AddEdge {
        src: KeySel,
        ty: u8,
        dst: KeySel,
        w: u8,
        props: PropsGen,
    },
    UpdateEdgeById {
        pick: usize,
        w: u8,
        props: PropsGen,
        replace: bool,
    },
    DeleteEdgeById {
        pick: usize,
    },
    /// `pick`: delete an existing simple or multi edge (if any) instead of src/ty/dst.
    /// `reverse`: swap the ends (0 never, 1 if the edge is undirected, 2 always).
    DeleteEdge {
        pick: Option<usize>,
        src: KeySel,
        ty: u8,
        dst: KeySel,
        reverse: u8,
    },
    /// `pick`: delete an existing node (if any) instead of `key`.
    DeleteNode {
        pick: Option<usize>,
        key: KeySel,
    },
    DefineType {
        ty: u8,
        undirected: bool,
        multi: bool,
    },
}

#[derive(Debug, Clone)]
enum Op {
    /// One operation in its own transaction (through the `Graph` method where one exists).
    Single(WOp),
    /// Several operations in one `g.write()` transaction, committed or dropped.
    Txn { ops: Vec<WOp>, commit: bool },
    /// `upsert_nodes`; `bad`: make item `i` invalid (empty key if the flag, else empty label).
    NodeBatch {
        items: Vec<(KeySel, Vec<u8>, PropsGen)>,
        bad: Option<(usize, bool)>,
        replace: bool,
    },
    /// `upsert_edges`; `bad`: make item `i` invalid (0 NaN, 1 infinite weight, 2 multi type, 3 empty key).
    EdgeBatch {
        items: Vec<(KeySel, u8, KeySel, u8, PropsGen)>,
        bad: Option<(usize, u8)>,
        replace: bool,
    },
    /// `delete_edges`: all or nothing.
    DeleteEdges {
        items: Vec<(Option<usize>, KeySel, u8, KeySel)>,
    },
    /// The next commit fails (as if the disk refused it), then run `op`.
    FailCommit(Box<Op>),
    /// Drop the store and open it again (RocksDB; a no-op in memory).
    Reopen,
    /// Take a snapshot (after checking the previous one still shows its state).
    Snapshot,
}

/// Generators take `bad`: whether invalid input (empty key or label, non-finite weight, a
/// type of the wrong kind) may appear. Transactions mostly use clean ops, so that most of
/// them get as far as their commit.
fn key_sel(bad: bool) -> BoxedStrategy<KeySel> {
    if bad {
        prop_oneof![60 => 0u8..12, 1 => Just(BAD_KEY)].boxed()
    } else {
        (0u8..12).boxed()
    }
}

fn labels_gen(bad: bool) -> impl Strategy<Value = Vec<u8>> {
    let label = if bad {
        prop_oneof![40 => 0u8..3, 1 => Just(BAD_LABEL)].boxed()
    } else {
        (0u8..3).boxed()
    };
    prop::collection::vec(label, 0..4)
}

fn props_gen() -> impl Strategy<Value = PropsGen> {
    prop::collection::vec((0u8..3, 0u8..7), 0..3).prop_map(PropsGen)
}

fn weight_gen(bad: bool) -> BoxedStrategy<u8> {
    if bad {
        prop_oneof![50 => 0u8..GOOD_WEIGHTS, 1 => GOOD_WEIGHTS..WEIGHTS.len() as u8].boxed()
    } else {
        (0u8..GOOD_WEIGHTS).boxed()
    }
}

fn mode_gen() -> impl Strategy<Value = bool> {
    prop_oneof![2 => Just(false), 1 => Just(true)]
}

/// Types for `upsert_edge` (M and UM are multi: an error; X may have been declared multi).
fn simple_type(bad: bool) -> BoxedStrategy<u8> {
    if bad {
        prop_oneof![6 => Just(T_D), 4 => Just(T_U), 2 => Just(T_X), 1 => Just(T_M), 1 => Just(T_UM)].boxed()
    } else {
        prop_oneof![6 => Just(T_D), 4 => Just(T_U), 1 => Just(T_X)].boxed()
    }
}

/// Types for `add_edge` (D and U are simple: an error).
fn multi_type(bad: bool) -> BoxedStrategy<u8> {
    if bad {
        prop_oneof![5 => Just(T_M), 4 => Just(T_UM), 1 => Just(T_X), 1 => Just(T_D)].boxed()
    } else {
        prop_oneof![5 => Just(T_M), 4 => Just(T_UM)].boxed()
    }
}

fn any_type() -> impl Strategy<Value = u8> {
    prop_oneof![4 => Just(T_D), 3 => Just(T_U), 2 => Just(T_M), 2 => Just(T_UM), 1 => Just(T_X), 1 => Just(5u8)]
}

fn wop(bad: bool) -> impl Strategy<Value = WOp> {
    // Without `bad`, deletes mostly target what exists (absent ones still occur).
    let existing = if bad { 0.75 } else { 0.95 };
    let by_id = if bad { 4 } else { 2 };
    prop_oneof![
        14 => (key_sel(bad), labels_gen(bad), props_gen(), mode_gen())
            .prop_map(|(key, labels, props, replace)| WOp::UpsertNode { key, labels, props, replace }),
        18 => (key_sel(bad), simple_type(bad), key_sel(bad), weight_gen(bad), props_gen(), mode_gen())
            .prop_map(|(src, ty, dst, w, props, replace)| WOp::UpsertEdge { src, ty, dst, w, props, replace }),
        9 => (key_sel(bad), multi_type(bad), key_sel(bad), weight_gen(bad), props_gen())
            .prop_map(|(src, ty, dst, w, props)| WOp::AddEdge { src, ty, dst, w, props }),
        by_id => (any::<usize>(), weight_gen(bad), props_gen(), mode_gen())
            .prop_map(|(pick, w, props, replace)| WOp::UpdateEdgeById { pick, w, props, replace }),
        by_id => any::<usize>().prop_map(|pick| WOp::DeleteEdgeById { pick }),
        9 => (
            prop::option::weighted(existing, any::<usize>()),
            key_sel(bad),
            any_type(),
            key_sel(bad),
            0u8..if bad { 3 } else { 2 },
        )
            .prop_map(|(pick, src, ty, dst, reverse)| WOp::DeleteEdge { pick, src, ty, dst, reverse }),
        6 => (prop::option::weighted(existing - 0.25, any::<usize>()), key_sel(bad))
            .prop_map(|(pick, key)| WOp::DeleteNode { pick, key }),
        2 => (prop_oneof![3 => Just(T_X), 1 => Just(T_D), 1 => Just(T_U), 1 => Just(T_M)], any::<bool>(), any::<bool>())
            .prop_map(|(ty, undirected, multi)| WOp::DefineType { ty, undirected, multi }),
    ]
}

fn batch_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (
            prop::collection::vec((key_sel(false), labels_gen(false), props_gen()), 1..5),
            prop::option::of((any::<usize>(), any::<bool>())),
            mode_gen()
        )
            .prop_map(|(items, bad, replace)| Op::NodeBatch { items, bad, replace }),
        (
            prop::collection::vec(
                (
                    0u8..12,
                    prop_oneof![Just(T_D), Just(T_U), Just(T_X)],
                    0u8..12,
                    0u8..GOOD_WEIGHTS,
                    props_gen()
                ),
                1..6
            ),
            prop::option::of((any::<usize>(), 0u8..4)),
            mode_gen()
        )
            .prop_map(|(items, bad, replace)| Op::EdgeBatch { items, bad, replace }),
        prop::collection::vec(
            (
                prop::option::weighted(0.8, any::<usize>()),
                0u8..12,
                any_type(),
                0u8..12
            ),
            1..4
        )
        .prop_map(|items| Op::DeleteEdges { items }),
    ]
}

fn txn_op() -> impl Strategy<Value = Op> {
    let ops = prop_oneof![3 => prop::collection::vec(wop(false), 1..7), 1 => prop::collection::vec(wop(true), 1..7)];
    (ops, prop_oneof![3 => Just(true), 1 => Just(false)]).prop_map(|(ops, commit)| Op::Txn { ops, commit })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        50 => wop(true).prop_map(Op::Single),
        10 => txn_op(),
        10 => batch_op(),
        5 => prop_oneof![3 => wop(false).prop_map(Op::Single), 3 => txn_op(), 1 => batch_op()]
            .prop_map(|o| Op::FailCommit(Box::new(o))),
        2 => Just(Op::Reopen),
        2 => Just(Op::Snapshot),
    ]
}

// ---------------------------------------------------------------- the reference model

/// Error kinds compared between HopDB and the model (the message text is not).
#[derive(Debug, Clone, PartialEq)]
enum Ek {
    Invalid,
    EdgeType,
    NodeNotFound,
    EdgeNotFound,
    EdgeIdNotFound,
    Storage,
    InBatch(usize, Box<Ek>),
    Other(String),
}

fn ek(e: &Error) -> Ek {
    match e {
        Error::Invalid { .. } => Ek::Invalid,
        Error::EdgeType { .. } => Ek::EdgeType,
        Error::NodeNotFound { .. } => Ek::NodeNotFound,
        Error::EdgeNotFound { .. } => Ek::EdgeNotFound,
        Error::EdgeIdNotFound { .. } => Ek::EdgeIdNotFound,
        Error::Storage { .. } => Ek::Storage,
        Error::InBatch { index, source } => Ek::InBatch(*index, Box::new(ek(source))),
        e => Ek::Other(e.to_string()),
    }
}

#[derive(Debug, Clone, PartialEq)]
struct MNode {
    labels: Vec<String>,
    props: Props,
}

#[derive(Debug, Clone, PartialEq)]
struct MEdge {
    weight: Option<f64>,
    props: Props,
}

#[derive(Debug, Clone, PartialEq)]
struct MMulti {
    ty: String,
    src: NodeKey,
    dst: NodeKey,
    e: MEdge,
}

#[derive(Debug, Clone, Default)]
struct Model {
    nodes: BTreeMap<NodeKey, MNode>,
    types: BTreeMap<String, EdgeTypeOptions>,
    /// Simple-type edges by (type, src, dst); undirected ones with src <= dst.
    simple: BTreeMap<(String, NodeKey, NodeKey), MEdge>,
    /// Multi-type edges by edge id, as added (src, dst).
    multi: BTreeMap<u64, MMulti>,
    /// Order in which keys were first created. A key's node id is fixed then (re-created
    /// nodes keep it), so this is the "id order" of scans and label listings.
    created: BTreeMap<NodeKey, u64>,
}

/// A concrete write, as sent to HopDB.
#[derive(Debug, Clone)]
enum C {
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
        w: Option<f64>,
        props: Props,
        mode: WriteMode,
    },
    AddEdge {
        src: NodeKey,
        ty: &'static str,
        dst: NodeKey,
        w: Option<f64>,
        props: Props,
    },
    UpdateEdgeById {
        eid: u64,
        w: Option<f64>,
        props: Props,
        mode: WriteMode,
    },
    DeleteEdgeById {
        eid: u64,
    },
    DeleteEdge {
        src: NodeKey,
        ty: String,
        dst: NodeKey,
    },
    DeleteNode {
        key: NodeKey,
    },
    DefineType {
        ty: &'static str,
        o: EdgeTypeOptions,
    },
}

fn mode(replace: bool) -> WriteMode {
    if replace {
        WriteMode::Replace
    } else {
        WriteMode::Merge
    }
}

fn weight_of(w: Option<f64>) -> f64 {
    w.unwrap_or(1.0)
}

fn valid_key(k: &NodeKey) -> bool {
    !matches!(k, NodeKey::Str(s) if s.is_empty())
}

impl Model {
    fn canon(&self, ty: &str, a: &NodeKey, b: &NodeKey) -> (String, NodeKey, NodeKey) {
        let und = self.types.get(ty).is_some_and(|o| o.undirected);
        if und && b < a {
            (ty.to_string(), b.clone(), a.clone())
        } else {
            (ty.to_string(), a.clone(), b.clone())
        }
    }

    /// Whether the multi edge `m` connects `a` to `b` (either way if its type is undirected).
    fn multi_joins(&self, m: &MMulti, a: &NodeKey, b: &NodeKey) -> bool {
        let und = self.types[&m.ty].undirected;
        (m.src == *a && m.dst == *b) || (und && m.src == *b && m.dst == *a)
    }

    fn edge_count(&self) -> usize {
        self.simple.len() + self.multi.len()
    }

    fn ensure_endpoint(&mut self, k: &NodeKey) -> Result<(), Ek> {
        if !valid_key(k) {
            return Err(Ek::Invalid);
        }
        if !self.nodes.contains_key(k) {
            self.create(k, Vec::new(), Props::new());
        }
        Ok(())
    }

    /// Inserts or replaces a node, giving a new key the next id.
    fn create(&mut self, k: &NodeKey, labels: Vec<String>, props: Props) {
        let next = self.created.len() as u64;
        self.created.entry(k.clone()).or_insert(next);
        self.nodes.insert(k.clone(), MNode { labels, props });
    }

    /// Live node keys in id order.
    fn keys_in_id_order(&self) -> Vec<NodeKey> {
        let mut v: Vec<(u64, NodeKey)> = self.nodes.keys().map(|k| (self.created[k], k.clone())).collect();
        v.sort();
        v.into_iter().map(|(_, k)| k).collect()
    }

    fn type_for_use(&mut self, ty: &str) -> EdgeTypeOptions {
        *self.types.entry(ty.to_string()).or_default()
    }

    /// Applies a concrete write. `new_eid` is the id HopDB returned for an `AddEdge` (checked
    /// for freshness by the caller). Returns whether the op changed anything.
    fn apply(&mut self, c: &C, new_eid: u64) -> Result<bool, Ek> {
        match c {
            C::UpsertNode {
                key,
                labels,
                props,
                mode,
            } => {
                if !valid_key(key) || labels.iter().any(|l| l.is_empty()) {
                    return Err(Ek::Invalid);
                }
                let mut given: Vec<String> = Vec::new();
                for l in labels {
                    if !given.iter().any(|g| g == l) {
                        given.push(l.to_string());
                    }
                }
                match (self.nodes.get_mut(key), mode) {
                    (Some(n), WriteMode::Merge) => {
                        for l in given {
                            if !n.labels.contains(&l) {
                                n.labels.push(l);
                            }
                        }
                        n.props.extend(props.clone());
                    }
                    _ => self.create(key, given, props.clone()),
                }
                Ok(true)
            }
            C::UpsertEdge {
                src,
                ty,
                dst,
                w,
                props,
                mode,
            } => {
                if w.is_some_and(|w| !w.is_finite()) {
                    return Err(Ek::Invalid);
                }
                if self.type_for_use(ty).multi {
                    return Err(Ek::EdgeType);
                }
                self.ensure_endpoint(src)?;
                self.ensure_endpoint(dst)?;
                let k = self.canon(ty, src, dst);
                let new = match (self.simple.get(&k), mode) {
                    (Some(old), WriteMode::Merge) => {
                        let mut p = old.props.clone();
                        p.extend(props.clone());
                        MEdge {
                            weight: w.or(old.weight),
                            props: p,
                        }
                    }
                    _ => MEdge {
                        weight: *w,
                        props: props.clone(),
                    },
                };
                self.simple.insert(k, new);
                Ok(true)
            }
            C::AddEdge { src, ty, dst, w, props } => {
                if w.is_some_and(|w| !w.is_finite()) {
                    return Err(Ek::Invalid);
                }
                if !self.type_for_use(ty).multi {
                    return Err(Ek::EdgeType);
                }
                self.ensure_endpoint(src)?;
                self.ensure_endpoint(dst)?;
                let e = MEdge {
                    weight: *w,
                    props: props.clone(),
                };
                self.multi.insert(
                    new_eid,
                    MMulti {
                        ty: ty.to_string(),
                        src: src.clone(),
                        dst: dst.clone(),
                        e,
                    },
                );
                Ok(true)
            }
            C::UpdateEdgeById { eid, w, props, mode } => {
                if w.is_some_and(|w| !w.is_finite()) {
                    return Err(Ek::Invalid);
                }
                let m = self.multi.get_mut(eid).ok_or(Ek::EdgeIdNotFound)?;
                match mode {
                    WriteMode::Merge => {
                        m.e.weight = w.or(m.e.weight);
                        m.e.props.extend(props.clone());
                    }
                    WriteMode::Replace => {
                        m.e = MEdge {
                            weight: *w,
                            props: props.clone(),
                        }
                    }
                }
                Ok(true)
            }
            C::DeleteEdgeById { eid } => {
                self.multi.remove(eid).ok_or(Ek::EdgeIdNotFound)?;
                Ok(true)
            }
            C::DeleteEdge { src, ty, dst } => {
                let Some(o) = self.types.get(ty.as_str()).copied() else {
                    return Err(Ek::EdgeNotFound);
                };
                if o.multi {
                    let ids: Vec<u64> = self
                        .multi
                        .iter()
                        .filter(|(_, m)| m.ty == *ty && self.multi_joins(m, src, dst))
                        .map(|(id, _)| *id)
                        .collect();
                    if ids.is_empty() {
                        return Err(Ek::EdgeNotFound);
                    }
                    for id in ids {
                        self.multi.remove(&id);
                    }
                } else {
                    let k = self.canon(ty, src, dst);
                    self.simple.remove(&k).ok_or(Ek::EdgeNotFound)?;
                }
                Ok(true)
            }
            C::DeleteNode { key } => {
                self.nodes.remove(key).ok_or(Ek::NodeNotFound)?;
                self.simple.retain(|(_, a, b), _| a != key && b != key);
                self.multi.retain(|_, m| m.src != *key && m.dst != *key);
                Ok(true)
            }
            C::DefineType { ty, o } => match self.types.get(*ty) {
                Some(old) if old == o => Ok(false),
                Some(_) => Err(Ek::EdgeType),
                None => {
                    self.types.insert(ty.to_string(), *o);
                    Ok(true)
                }
            },
        }
    }

    // ---- reads ----

    /// Every edge (simple and multi) as (type, src, dst, id, edge).
    fn all_edges(&self) -> impl Iterator<Item = (&str, &NodeKey, &NodeKey, u64, &MEdge)> {
        self.simple.iter().map(|((t, a, b), e)| (t.as_str(), a, b, 0, e)).chain(
            self.multi
                .iter()
                .map(|(id, m)| (m.ty.as_str(), &m.src, &m.dst, *id, &m.e)),
        )
    }

    fn mk(src: &NodeKey, ty: &str, dst: &NodeKey, id: u64, e: &MEdge) -> Edge {
        Edge {
            src: src.clone(),
            ty: ty.into(),
            dst: dst.clone(),
            id,
            weight: e.weight,
            props: e.props.clone(),
        }
    }

    /// The edges HopDB lists for `k`, sorted; Err(NodeNotFound) if `k` is absent.
    fn edges(&self, k: &NodeKey, dir: Direction, ty: Option<&str>) -> Result<Vec<Edge>, Ek> {
        if !self.nodes.contains_key(k) {
            return Err(Ek::NodeNotFound);
        }
        let mut out = Vec::new();
        for (t, a, b, id, e) in self.all_edges() {
            if ty.is_some_and(|ty| ty != t) {
                continue;
            }
            if self.types[t].undirected {
                if a == k {
                    out.push(Self::mk(a, t, b, id, e));
                } else if b == k {
                    out.push(Self::mk(b, t, a, id, e));
                }
            } else {
                let hit = match dir {
                    Direction::Out => a == k,
                    Direction::In => b == k,
                    Direction::Both => a == k || b == k,
                };
                if hit {
                    out.push(Self::mk(a, t, b, id, e));
                }
            }
        }
        sort_edges(&mut out);
        Ok(out)
    }

    fn neighbors(&self, k: &NodeKey, dir: Direction) -> Result<Vec<NodeKey>, Ek> {
        let set: BTreeSet<NodeKey> = self
            .edges(k, dir, None)?
            .into_iter()
            .map(|e| if e.src == *k { e.dst } else { e.src })
            .collect();
        Ok(set.into_iter().collect())
    }

    fn degree(&self, k: &NodeKey, dir: Direction, ty: Option<&str>) -> Result<Degree, Ek> {
        if !self.nodes.contains_key(k) {
            return Err(Ek::NodeNotFound);
        }
        let (mut out, mut inn, mut und) = ((0u64, 0.0f64), (0u64, 0.0f64), (0u64, 0.0f64));
        for (t, a, b, _, e) in self.all_edges() {
            if ty.is_some_and(|ty| ty != t) {
                continue;
            }
            let w = weight_of(e.weight);
            if self.types[t].undirected {
                if a == k && b == k {
                    und.0 += 2;
                    und.1 += 2.0 * w;
                } else if a == k || b == k {
                    und.0 += 1;
                    und.1 += w;
                }
            } else {
                if a == k {
                    out.0 += 1;
                    out.1 += w;
                }
                if b == k {
                    inn.0 += 1;
                    inn.1 += w;
                }
            }
        }
        let (count, weight_sum) = match dir {
            Direction::Out => (out.0 + und.0, out.1 + und.1),
            Direction::In => (inn.0 + und.0, inn.1 + und.1),
            Direction::Both => (out.0 + inn.0 + und.0, out.1 + inn.1 + und.1),
        };
        Ok(Degree { count, weight_sum })
    }

    /// The edge `edge_between(a, b, Some(ty), either)` returns: a -> b first (lowest edge id
    /// for multi types), then b -> a when `either` (directed types only).
    fn edge_between_typed(&self, a: &NodeKey, b: &NodeKey, ty: &str, either: bool) -> Option<Edge> {
        let o = *self.types.get(ty)?;
        let mut dirs = vec![(a, b)];
        if either && !o.undirected && a != b {
            dirs.push((b, a));
        }
        for (x, y) in dirs {
            if o.multi {
                if let Some((id, m)) = self.multi.iter().find(|(_, m)| m.ty == ty && self.multi_joins(m, x, y)) {
                    return Some(Self::mk(x, ty, y, *id, &m.e));
                }
            } else if let Some(e) = self.simple.get(&self.canon(ty, x, y)) {
                return Some(Self::mk(x, ty, y, 0, e));
            }
        }
        None
    }

    fn has_edge(&self, a: &NodeKey, b: &NodeKey, ty: Option<&str>, either: bool) -> bool {
        match ty {
            Some(t) => self.edge_between_typed(a, b, t, either).is_some(),
            None => self
                .types
                .keys()
                .any(|t| self.edge_between_typed(a, b, t, either).is_some()),
        }
    }

    fn type_counts(&self) -> Vec<(String, EdgeTypeOptions, u64)> {
        self.types
            .iter()
            .map(|(t, o)| (t.clone(), *o, self.all_edges().filter(|e| e.0 == t).count() as u64))
            .collect()
    }

    fn label_counts(&self) -> Vec<(String, u64)> {
        let mut m: BTreeMap<String, u64> = BTreeMap::new();
        for n in self.nodes.values() {
            for l in &n.labels {
                *m.entry(l.clone()).or_default() += 1;
            }
        }
        m.into_iter().collect()
    }

    fn node(&self, k: &NodeKey) -> Option<Node> {
        self.nodes.get(k).map(|n| Node {
            key: k.clone(),
            labels: n.labels.clone(),
            props: n.props.clone(),
        })
    }
}

fn sort_edges(v: &mut [Edge]) {
    v.sort_by(|x, y| (&x.src, &x.ty, &x.dst, x.id).cmp(&(&y.src, &y.ty, &y.dst, y.id)));
}

fn sorted_keys(mut v: Vec<NodeKey>) -> Vec<NodeKey> {
    v.sort();
    v.dedup();
    v
}

fn res<T>(r: Result<T>) -> Result<T, Ek> {
    r.map_err(|e| ek(&e))
}

// ---------------------------------------------------------------- comparing

const DIRS: [Direction; 3] = [Direction::Out, Direction::In, Direction::Both];

/// Compares every read of `r` with the model. `salt` rotates which typed queries are made.
fn compare<R: GraphRead>(r: &R, m: &Model, keys: &[NodeKey], salt: usize, trace: &str) -> Result<(), TestCaseError> {
    let ctx = || format!(" (left: HopDB, right: model)\n--- operations so far (concrete) ---\n{trace}");
    prop_assert_eq!(r.node_count().unwrap(), m.nodes.len() as u64, "node_count{}", ctx());
    prop_assert_eq!(r.edge_count().unwrap(), m.edge_count() as u64, "edge_count{}", ctx());

    // Catalog: types with their options and counts; labels in use.
    let mut types: Vec<(String, EdgeTypeOptions, u64)> = r
        .edge_types()
        .unwrap()
        .into_iter()
        .map(|(t, c)| (t.name.to_string(), t.options, c))
        .collect();
    types.sort_by(|a, b| a.0.cmp(&b.0));
    prop_assert_eq!(types, m.type_counts(), "edge_types{}", ctx());
    prop_assert_eq!(r.labels().unwrap(), m.label_counts(), "labels{}", ctx());
    for l in &LABELS[..3] {
        let want: Vec<NodeKey> = m
            .keys_in_id_order()
            .into_iter()
            .filter(|k| m.nodes[k].labels.iter().any(|x| x == l))
            .collect();
        prop_assert_eq!(
            r.label_count(l).unwrap(),
            want.len() as u64,
            "label_count({}){}",
            l,
            ctx()
        );
        prop_assert_eq!(
            &r.nodes_with_label(l, None).unwrap(),
            &want,
            "nodes_with_label({}){}",
            l,
            ctx()
        );
        prop_assert_eq!(
            &r.nodes_with_label(l, Some(2)).unwrap()[..],
            &want[..want.len().min(2)],
            "nodes_with_label({}, limit 2){}",
            l,
            ctx()
        );
    }

    for (ki, k) in keys.iter().enumerate() {
        prop_assert_eq!(
            r.has_node(k).unwrap(),
            m.nodes.contains_key(k),
            "has_node({}){}",
            k,
            ctx()
        );
        prop_assert_eq!(r.node(k).unwrap(), m.node(k), "node({}){}", k, ctx());
        for dir in DIRS {
            let mut got = res(r.edges(k, dir, None, None));
            if let Ok(v) = &mut got {
                sort_edges(v);
            }
            let want = m.edges(k, dir, None);
            prop_assert_eq!(&got, &want, "edges({}, {:?}){}", k, dir, ctx());
            prop_assert_eq!(
                res(r.degree(k, dir, None)),
                m.degree(k, dir, None),
                "degree({}, {:?}){}",
                k,
                dir,
                ctx()
            );
            prop_assert_eq!(
                res(r.neighbors(k, dir, None, None)).map(sorted_keys),
                m.neighbors(k, dir),
                "neighbors({}, {:?}){}",
                k,
                dir,
                ctx()
            );
            // A limit returns a prefix of the full listing.
            if let (Ok(all), Ok(lim)) = (&want, res(r.edges(k, dir, None, Some(1)))) {
                prop_assert_eq!(lim.len(), all.len().min(1), "edges({}, {:?}, limit 1){}", k, dir, ctx());
                prop_assert!(
                    lim.iter().all(|e| all.contains(e)),
                    "edges({}, {:?}, limit 1) lists an unknown edge{}",
                    k,
                    dir,
                    ctx()
                );
            }
            // Typed queries: two types per key and step, rotating.
            for j in 0..2 {
                let ty = TYPES[(salt + ki * 2 + j) % TYPES.len()];
                let mut got = res(r.edges(k, dir, Some(ty), None));
                if let Ok(v) = &mut got {
                    sort_edges(v);
                }
                prop_assert_eq!(
                    got,
                    m.edges(k, dir, Some(ty)),
                    "edges({}, {:?}, {}){}",
                    k,
                    dir,
                    ty,
                    ctx()
                );
                prop_assert_eq!(
                    res(r.degree(k, dir, Some(ty))),
                    m.degree(k, dir, Some(ty)),
                    "degree({}, {:?}, {}){}",
                    k,
                    dir,
                    ty,
                    ctx()
                );
            }
        }
    }

    // Batch reads agree with the single ones.
    let want_nodes: Vec<Option<Node>> = keys.iter().map(|k| m.node(k)).collect();
    prop_assert_eq!(r.nodes_batch(keys).unwrap(), want_nodes, "nodes_batch{}", ctx());
    let dir = DIRS[salt % 3];
    let want_deg: Vec<Option<Degree>> = keys.iter().map(|k| m.degree(k, dir, None).ok()).collect();
    prop_assert_eq!(
        r.degrees_batch(keys, dir, None).unwrap(),
        want_deg,
        "degrees_batch({:?}){}",
        dir,
        ctx()
    );
    // Typed (the batched counter read), every type including one that does not exist.
    for ty in TYPES {
        let want: Vec<Option<Degree>> = keys.iter().map(|k| m.degree(k, dir, Some(ty)).ok()).collect();
        prop_assert_eq!(
            r.degrees_batch(keys, dir, Some(ty)).unwrap(),
            want,
            "degrees_batch({:?}, {}){}",
            dir,
            ty,
            ctx()
        );
    }
    // Every ordered pair of the keys, both ways of matching, every type (the batched edge
    // read serves one non-multi type; the others go pair by pair).
    let pairs: Vec<(NodeKey, NodeKey)> = keys
        .iter()
        .flat_map(|a| keys.iter().map(move |b| (a.clone(), b.clone())))
        .collect();
    for ty in TYPES {
        for either in [false, true] {
            let want: Vec<Option<Edge>> = pairs
                .iter()
                .map(|(a, b)| m.edge_between_typed(a, b, ty, either))
                .collect();
            prop_assert_eq!(
                r.edges_between_batch(&pairs, Some(ty), either).unwrap(),
                want,
                "edges_between_batch({}, either={}){}",
                ty,
                either,
                ctx()
            );
        }
    }
    let mut got_edges = r.edges_batch(keys, dir, None, None).unwrap();
    for v in got_edges.iter_mut().flatten() {
        sort_edges(v);
    }
    let want_edges: Vec<Option<Vec<Edge>>> = keys.iter().map(|k| m.edges(k, dir, None).ok()).collect();
    prop_assert_eq!(got_edges, want_edges, "edges_batch({:?}){}", dir, ctx());

    // Pairs: has_edge of any type both ways; one rotating type with the edge itself.
    let mut by_id: Vec<(u32, String)> = r
        .edge_types()
        .unwrap()
        .into_iter()
        .map(|(t, _)| (t.id, t.name.to_string()))
        .collect();
    by_id.sort();
    for (ai, a) in keys.iter().enumerate() {
        for (bi, b) in keys.iter().enumerate() {
            for either in [false, true] {
                prop_assert_eq!(
                    r.has_edge(a, b, None, either).unwrap(),
                    m.has_edge(a, b, None, either),
                    "has_edge({}, {}, any, either={}){}",
                    a,
                    b,
                    either,
                    ctx()
                );
            }
            let ty = TYPES[(salt + ai + 3 * bi) % TYPES.len()];
            let either = (salt + ai) % 2 == 1;
            let want = m.edge_between_typed(a, b, ty, either);
            prop_assert_eq!(
                r.has_edge(a, b, Some(ty), either).unwrap(),
                want.is_some(),
                "has_edge({}, {}, {}, either={}){}",
                a,
                b,
                ty,
                either,
                ctx()
            );
            prop_assert_eq!(
                r.edge_between(a, b, Some(ty), either).unwrap(),
                want.clone(),
                "edge_between({}, {}, {}, either={}){}",
                a,
                b,
                ty,
                either,
                ctx()
            );
            if !either {
                prop_assert_eq!(r.edge(a, ty, b).unwrap(), want, "edge({}, {}, {}){}", a, ty, b, ctx());
            }
            // Untyped: the first type (by type id) that has one.
            if (ai + bi + salt).is_multiple_of(4) {
                let want = by_id.iter().find_map(|(_, t)| m.edge_between_typed(a, b, t, either));
                prop_assert_eq!(
                    r.edge_between(a, b, None, either).unwrap(),
                    want,
                    "edge_between({}, {}, any, either={}){}",
                    a,
                    b,
                    either,
                    ctx()
                );
            }
        }
    }

    // Node scans, all and by label; internal ids both ways.
    let want_all: Vec<Node> = m.keys_in_id_order().iter().filter_map(|k| m.node(k)).collect();
    let mut got_all = Vec::new();
    r.for_each_node(None, &mut |n| {
        got_all.push(n);
        true
    })
    .unwrap();
    prop_assert_eq!(&got_all, &want_all, "for_each_node(all){}", ctx());
    let l = LABELS[salt % 3];
    let mut got_l = Vec::new();
    r.for_each_node(Some(l), &mut |n| {
        got_l.push(n);
        true
    })
    .unwrap();
    let want_l: Vec<Node> = want_all
        .iter()
        .filter(|n| n.labels.iter().any(|x| x == l))
        .cloned()
        .collect();
    prop_assert_eq!(got_l, want_l, "for_each_node({}){}", l, ctx());
    for k in keys {
        let id = r.node_id(k).unwrap();
        prop_assert_eq!(id.is_some(), m.nodes.contains_key(k), "node_id({}){}", k, ctx());
        if let Some(id) = id {
            prop_assert_eq!(
                r.node_key(id).unwrap(),
                Some(k.clone()),
                "node_key(node_id({})){}",
                k,
                ctx()
            );
        }
    }

    // Multi edges by id.
    for (id, mm) in &m.multi {
        let want = Model::mk(&mm.src, &mm.ty, &mm.dst, *id, &mm.e);
        prop_assert_eq!(r.edge_by_id(*id).unwrap(), Some(want), "edge_by_id({}){}", id, ctx());
    }
    let absent = m.multi.keys().next_back().map_or(1, |x| x + 1);
    prop_assert_eq!(
        r.edge_by_id(absent).unwrap(),
        None,
        "edge_by_id({}) of no edge{}",
        absent,
        ctx()
    );
    prop_assert_eq!(r.edge_by_id(0).unwrap(), None, "edge_by_id(0){}", ctx());
    Ok(())
}

/// A full node scan: the live nodes, in id order.
fn compare_scan(nodes: Vec<Node>, m: &Model, what: &str, trace: &str) -> Result<(), TestCaseError> {
    let want: Vec<Node> = m.keys_in_id_order().iter().filter_map(|k| m.node(k)).collect();
    prop_assert_eq!(
        nodes,
        want,
        "{} scan (left: HopDB, right: model)\n--- operations so far ---\n{}",
        what,
        trace
    );
    Ok(())
}

fn check_ok(g: &Graph, trace: &str) -> Result<(), TestCaseError> {
    let r = g.check().unwrap();
    prop_assert!(
        r.is_ok(),
        "check failed: {:?}\n--- operations so far ---\n{}",
        r.problems,
        trace
    );
    Ok(())
}

// ---------------------------------------------------------------- running a sequence

struct Harness {
    g: Option<Graph>,
    dir: Option<tempfile::TempDir>,
    keys: Vec<NodeKey>,
    m: Model,
    /// Every edge id ever committed: a new edge must never reuse one.
    committed_eids: BTreeSet<u64>,
    snap: Option<(ReadTxn, Model, usize)>,
    trace: String,
    step: usize,
}

/// The result of running one write on HopDB.
type Got = Result<u64, Ek>;

impl Harness {
    fn g(&self) -> &Graph {
        self.g.as_ref().expect("store open")
    }

    fn key(&self, s: KeySel) -> NodeKey {
        if s == BAD_KEY {
            NodeKey::Str(String::new())
        } else {
            self.keys[s as usize % self.keys.len()].clone()
        }
    }

    /// Resolves an abstract op against model state `m`.
    fn concretize(&self, m: &Model, op: &WOp) -> C {
        match op {
            WOp::UpsertNode {
                key,
                labels,
                props,
                replace,
            } => C::UpsertNode {
                key: self.key(*key),
                labels: labels.iter().map(|l| LABELS[*l as usize]).collect(),
                props: props.get(),
                mode: mode(*replace),
            },
            WOp::UpsertEdge {
                src,
                ty,
                dst,
                w,
                props,
                replace,
            } => C::UpsertEdge {
                src: self.key(*src),
                ty: TYPES[*ty as usize],
                dst: self.key(*dst),
                w: WEIGHTS[*w as usize],
                props: props.get(),
                mode: mode(*replace),
            },
            WOp::AddEdge { src, ty, dst, w, props } => C::AddEdge {
                src: self.key(*src),
                ty: TYPES[*ty as usize],
                dst: self.key(*dst),
                w: WEIGHTS[*w as usize],
                props: props.get(),
            },
            WOp::UpdateEdgeById {
                pick,
                w,
                props,
                replace,
            } => C::UpdateEdgeById {
                eid: self.pick_eid(m, *pick),
                w: WEIGHTS[*w as usize],
                props: props.get(),
                mode: mode(*replace),
            },
            WOp::DeleteEdgeById { pick } => C::DeleteEdgeById {
                eid: self.pick_eid(m, *pick),
            },
            WOp::DeleteEdge {
                pick,
                src,
                ty,
                dst,
                reverse,
            } => {
                let (s, t, d) = self.pick_edge(m, *pick, *src, *ty, *dst);
                let undirected = m.types.get(&t).is_some_and(|o| o.undirected);
                if *reverse == 2 || (*reverse == 1 && undirected) {
                    C::DeleteEdge { src: d, ty: t, dst: s }
                } else {
                    C::DeleteEdge { src: s, ty: t, dst: d }
                }
            }
            WOp::DeleteNode { pick, key } => match pick {
                Some(p) if !m.nodes.is_empty() => C::DeleteNode {
                    key: m.nodes.keys().nth(p % m.nodes.len()).expect("in range").clone(),
                },
                _ => C::DeleteNode { key: self.key(*key) },
            },
            WOp::DefineType { ty, undirected, multi } => C::DefineType {
                ty: TYPES[*ty as usize],
                o: opts(*undirected, *multi),
            },
        }
    }

    /// A live multi edge's id (mostly), a deleted one, or one never used.
    fn pick_eid(&self, m: &Model, pick: usize) -> u64 {
        let live: Vec<u64> = m.multi.keys().copied().collect();
        let dead: Vec<u64> = self
            .committed_eids
            .iter()
            .copied()
            .filter(|id| !m.multi.contains_key(id))
            .collect();
        match pick % 10 {
            0..8 if !live.is_empty() => live[pick / 10 % live.len()],
            8 if !dead.is_empty() => dead[pick / 10 % dead.len()],
            _ => 1_000_000 + (pick % 7) as u64,
        }
    }

    /// An existing edge (if `pick` and there is one), else the given endpoints and type.
    fn pick_edge(
        &self,
        m: &Model,
        pick: Option<usize>,
        src: KeySel,
        ty: u8,
        dst: KeySel,
    ) -> (NodeKey, String, NodeKey) {
        let all: Vec<(String, NodeKey, NodeKey)> = m
            .all_edges()
            .map(|(t, a, b, _, _)| (t.to_string(), a.clone(), b.clone()))
            .collect();
        match pick {
            Some(p) if !all.is_empty() => {
                let (t, a, b) = all[p % all.len()].clone();
                (a, t, b)
            }
            _ => (self.key(src), TYPES[ty as usize].to_string(), self.key(dst)),
        }
    }

    fn run_in(tx: &mut WriteTxn<'_>, c: &C) -> Got {
        match c.clone() {
            C::UpsertNode {
                key,
                labels,
                props,
                mode,
            } => res(tx.upsert_node(key, &labels, props, mode)).map(|_| 0),
            C::UpsertEdge {
                src,
                ty,
                dst,
                w,
                props,
                mode,
            } => res(tx.upsert_edge(src, ty, dst, w, props, mode)).map(|_| 0),
            C::AddEdge { src, ty, dst, w, props } => res(tx.add_edge(src, ty, dst, w, props)),
            C::UpdateEdgeById { eid, w, props, mode } => res(tx.update_edge_by_id(eid, w, props, mode)).map(|_| 0),
            C::DeleteEdgeById { eid } => res(tx.delete_edge_by_id(eid)).map(|_| 0),
            C::DeleteEdge { src, ty, dst } => res(tx.delete_edge(src, &ty, dst)).map(|_| 0),
            C::DeleteNode { key } => res(tx.delete_node(key)).map(|_| 0),
            C::DefineType { ty, o } => res(tx.define_edge_type(ty, o)).map(|_| 0),
        }
    }

    /// Runs one write as its own transaction, through the `Graph` method where one exists.
    fn run_single(&self, c: &C) -> Got {
        let g = self.g();
        match c.clone() {
            C::UpsertNode {
                key,
                labels,
                props,
                mode,
            } => res(g.upsert_node(key, &labels, props, mode)).map(|_| 0),
            C::UpsertEdge {
                src,
                ty,
                dst,
                w,
                props,
                mode,
            } => res(g.upsert_edge(src, ty, dst, w, props, mode)).map(|_| 0),
            C::DeleteEdge { src, ty, dst } => res(g.delete_edge(src, &ty, dst)).map(|_| 0),
            C::DeleteNode { key } => res(g.delete_node(key)).map(|_| 0),
            C::DefineType { ty, o } => res(g.define_edge_type(ty, o)).map(|_| 0),
            c => {
                let mut tx = g.write().unwrap();
                let got = Self::run_in(&mut tx, &c)?;
                res(tx.commit()).map(|_| got)
            }
        }
    }

    /// Applies `c` to model `m` given HopDB's answer `got` (whose new edge id is checked for
    /// freshness against `taken`), and compares the outcomes.
    fn expect(
        &mut self,
        m: &mut Model,
        c: &C,
        got: &Got,
        taken: &BTreeSet<u64>,
    ) -> Result<Result<bool, Ek>, TestCaseError> {
        let new_eid = match (c, got) {
            (C::AddEdge { .. }, Ok(id)) => {
                prop_assert!(
                    *id != 0 && !m.multi.contains_key(id) && !taken.contains(id),
                    "add_edge returned edge id {} which is in use or was used before\n{}",
                    id,
                    self.trace
                );
                *id
            }
            _ => 0,
        };
        let want = m.apply(c, new_eid);
        let _ = writeln!(self.trace, "       -> {:?}", got);
        prop_assert_eq!(
            got.clone().map(|_| ()),
            want.clone().map(|_| ()),
            "result of {:?} (left: HopDB, right: model)\n--- operations so far ---\n{}",
            c,
            self.trace
        );
        Ok(want)
    }

    fn log(&mut self, s: impl AsRef<str>) {
        let _ = writeln!(self.trace, "{:3}: {}", self.step, s.as_ref());
    }

    fn compare_now(&self) -> Result<(), TestCaseError> {
        compare(self.g(), &self.m, &self.keys, self.step, &self.trace)
    }

    fn verify_snapshot(&self) -> Result<(), TestCaseError> {
        if let Some((snap, sm, at)) = &self.snap {
            let trace = format!("{}(checking the snapshot taken at step {at})\n", self.trace);
            compare(snap, sm, &self.keys, *at, &trace)?;
            compare_scan(snap.scan_nodes(3).map(|n| n.unwrap()).collect(), sm, "snapshot", &trace)?;
        }
        Ok(())
    }

    /// Runs `op`; with `fail_commit` the commit that would publish its changes must fail.
    fn run(&mut self, op: &Op, fail_commit: bool) -> Result<(), TestCaseError> {
        let committed = self.committed_eids.clone();
        match op {
            Op::Single(w) => {
                let c = self.concretize(&self.m, w);
                self.log(format!("{}{c:?}", if fail_commit { "[commit fails] " } else { "" }));
                let got = self.run_single(&c);
                let mut m2 = self.m.clone();
                if fail_commit {
                    // The op itself behaves as usual; only a commit with changes fails.
                    let want = match m2.apply(&c, u64::MAX) {
                        Ok(true) => Err(Ek::Storage),
                        Ok(false) => Ok(()),
                        Err(e) => Err(e),
                    };
                    self.log(format!("  -> {got:?}"));
                    prop_assert_eq!(
                        got.clone().map(|_| ()),
                        want.clone(),
                        "result of {:?} with a failing commit (left: HopDB, right: model)\n--- operations so far ---\n{}",
                        c,
                        self.trace
                    );
                    if want.is_ok() {
                        self.publish(m2);
                    }
                } else if self.expect(&mut m2, &c, &got, &committed)?.is_ok() {
                    self.publish(m2);
                }
            }
            Op::Txn { ops, commit } => {
                let tag = if fail_commit { " [commit fails]" } else { "" };
                self.log(format!("begin{tag}"));
                let g = self.g.clone().expect("store open");
                let mut tx = g.write().unwrap();
                let mut m2 = self.m.clone();
                let mut taken = committed.clone();
                let (mut failed, mut dirty) = (false, false);
                for w in ops {
                    let c = self.concretize(&m2, w);
                    self.log(format!("  tx.{c:?}"));
                    let got = Self::run_in(&mut tx, &c);
                    if failed {
                        // An aborted transaction refuses further work.
                        prop_assert_eq!(
                            got,
                            Err(Ek::Invalid),
                            "operation after a failed one (left: HopDB, right: model)\n{}",
                            self.trace
                        );
                        break;
                    }
                    match self.expect(&mut m2, &c, &got, &taken)? {
                        Ok(ch) => dirty |= ch,
                        Err(_) => failed = true,
                    }
                    if let (C::AddEdge { .. }, Ok(id)) = (&c, &got) {
                        taken.insert(*id);
                    }
                }
                // The transaction reads its own writes: the model with them applied.
                if !failed {
                    compare(
                        &tx,
                        &m2,
                        &self.keys,
                        self.step,
                        &format!("{}(read inside the open transaction)\n", self.trace),
                    )?;
                }
                // Nothing of an open transaction is visible.
                compare(
                    &g,
                    &self.m,
                    &self.keys,
                    self.step,
                    &format!("{}(transaction still open)\n", self.trace),
                )?;
                if *commit {
                    self.log(format!("commit{tag}"));
                    let got = res(tx.commit());
                    self.log(format!("  -> {got:?}"));
                    if failed {
                        prop_assert_eq!(
                            got,
                            Err(Ek::Invalid),
                            "commit after a failed operation (left: HopDB, right: model)\n{}",
                            self.trace
                        );
                    } else if fail_commit && dirty {
                        prop_assert_eq!(
                            got,
                            Err(Ek::Storage),
                            "the injected commit failure did not surface (left: HopDB, right: model)\n{}",
                            self.trace
                        );
                    } else {
                        prop_assert_eq!(got, Ok(()), "commit (left: HopDB, right: model)\n{}", self.trace);
                        self.publish(m2);
                    }
                } else {
                    self.log("drop (rollback)");
                    drop(tx);
                }
            }
            Op::NodeBatch { items, bad, replace } => {
                let mut inputs: Vec<NodeInput> = items
                    .iter()
                    .map(|(k, ls, p)| NodeInput {
                        key: self.key(*k),
                        labels: ls.iter().map(|l| LABELS[*l as usize].to_string()).collect(),
                        props: p.get(),
                    })
                    .collect();
                if let Some((i, empty_key)) = bad {
                    let n = inputs.len();
                    let it = &mut inputs[i % n];
                    if *empty_key {
                        it.key = NodeKey::Str(String::new());
                    } else {
                        it.labels.push(String::new());
                    }
                }
                let mode = mode(*replace);
                self.log(format!(
                    "{}upsert_nodes({inputs:?}, {mode:?})",
                    if fail_commit { "[commit fails] " } else { "" }
                ));
                let got = res(self.g().upsert_nodes(&inputs, mode));
                let mut m2 = self.m.clone();
                let mut want = Ok(());
                for (i, n) in inputs.iter().enumerate() {
                    let c = C::UpsertNode {
                        key: n.key.clone(),
                        labels: n
                            .labels
                            .iter()
                            .map(|l| LABELS.iter().find(|x| **x == l.as_str()).copied().expect("pool label"))
                            .collect(),
                        props: n.props.clone(),
                        mode,
                    };
                    if let Err(e) = m2.apply(&c, 0) {
                        want = Err(Ek::InBatch(i, Box::new(e)));
                        break;
                    }
                }
                self.finish_batch(got, want, m2, fail_commit)?;
            }
            Op::EdgeBatch { items, bad, replace } => {
                let mut inputs: Vec<EdgeInput> = items
                    .iter()
                    .map(|(s, t, d, w, p)| EdgeInput {
                        src: self.key(*s),
                        ty: TYPES[*t as usize].to_string(),
                        dst: self.key(*d),
                        weight: WEIGHTS[*w as usize],
                        props: p.get(),
                    })
                    .collect();
                if let Some((i, kind)) = bad {
                    let n = inputs.len();
                    let it = &mut inputs[i % n];
                    match kind {
                        0 => it.weight = Some(f64::NAN),
                        1 => it.weight = Some(f64::INFINITY),
                        2 => it.ty = "M".into(),
                        _ => it.dst = NodeKey::Str(String::new()),
                    }
                }
                let mode = mode(*replace);
                self.log(format!(
                    "{}upsert_edges({inputs:?}, {mode:?})",
                    if fail_commit { "[commit fails] " } else { "" }
                ));
                let got = res(self.g().upsert_edges(&inputs, mode));
                let mut m2 = self.m.clone();
                let mut want = Ok(());
                for (i, e) in inputs.iter().enumerate() {
                    let ty = TYPES.iter().find(|x| **x == e.ty.as_str()).copied().expect("pool type");
                    let c = C::UpsertEdge {
                        src: e.src.clone(),
                        ty,
                        dst: e.dst.clone(),
                        w: e.weight,
                        props: e.props.clone(),
                        mode,
                    };
                    if let Err(e) = m2.apply(&c, 0) {
                        want = Err(Ek::InBatch(i, Box::new(e)));
                        break;
                    }
                }
                self.finish_batch(got, want, m2, fail_commit)?;
            }
            Op::DeleteEdges { items } => {
                let list: Vec<(NodeKey, String, NodeKey)> = items
                    .iter()
                    .map(|(p, s, t, d)| self.pick_edge(&self.m, *p, *s, *t, *d))
                    .collect();
                self.log(format!(
                    "{}delete_edges({list:?})",
                    if fail_commit { "[commit fails] " } else { "" }
                ));
                let got = res(self.g().delete_edges(&list));
                let mut m2 = self.m.clone();
                let mut want = Ok(());
                for (i, (s, t, d)) in list.iter().enumerate() {
                    if let Err(e) = m2.apply(
                        &C::DeleteEdge {
                            src: s.clone(),
                            ty: t.clone(),
                            dst: d.clone(),
                        },
                        0,
                    ) {
                        want = Err(Ek::InBatch(i, Box::new(e)));
                        break;
                    }
                }
                self.finish_batch(got, want, m2, fail_commit)?;
            }
            Op::FailCommit(inner) => {
                self.g().inject_commit_failures(1);
                let r = self.run(inner, true);
                // Whatever did not reach a commit leaves the injection pending: clear it.
                self.g().inject_commit_failures(0);
                r?;
            }
            Op::Reopen => {
                self.verify_snapshot()?;
                self.snap = None;
                if let Some(path) = self.dir.as_ref().map(|d| d.path().to_owned()) {
                    self.log("reopen");
                    self.g = None;
                    self.g = Some(Graph::open(&path).unwrap());
                    check_ok(self.g(), &self.trace)?;
                    compare_scan(
                        self.g().scan_nodes().map(|n| n.unwrap()).collect(),
                        &self.m,
                        "after reopen",
                        &self.trace,
                    )?;
                }
            }
            Op::Snapshot => {
                self.verify_snapshot()?;
                self.log("snapshot");
                self.snap = Some((self.g().read(), self.m.clone(), self.step));
            }
        }
        Ok(())
    }

    fn finish_batch(
        &mut self,
        got: Result<(), Ek>,
        want: Result<(), Ek>,
        m2: Model,
        fail_commit: bool,
    ) -> Result<(), TestCaseError> {
        self.log(format!("  -> {got:?}"));
        if fail_commit && want.is_ok() {
            prop_assert_eq!(
                got,
                Err(Ek::Storage),
                "the injected commit failure did not surface (left: HopDB, right: model)\n{}",
                self.trace
            );
        } else {
            prop_assert_eq!(
                got,
                want.clone(),
                "batch result (left: HopDB, right: model)\n{}",
                self.trace
            );
            if want.is_ok() {
                self.publish(m2);
            }
        }
        Ok(())
    }

    fn publish(&mut self, m: Model) {
        self.committed_eids.extend(m.multi.keys().copied());
        self.m = m;
    }
}

fn run_sequence(disk: bool, nkeys: usize, ops: &[Op]) -> Result<(), TestCaseError> {
    let dir = disk.then(|| tempfile::tempdir().unwrap());
    let g = match &dir {
        Some(d) => Graph::open(d.path()).unwrap(),
        None => Graph::in_memory(),
    };
    let mut m = Model::default();
    for (name, o) in predeclared() {
        g.define_edge_type(name, o).unwrap();
        m.types.insert(name.to_string(), o);
    }
    let mut h = Harness {
        g: Some(g),
        dir,
        keys: key_pool()[..nkeys].to_vec(),
        m,
        committed_eids: BTreeSet::new(),
        snap: None,
        trace: format!(
            "engine: {}, keys: {:?}\n",
            if disk { "rocksdb" } else { "memory" },
            &key_pool()[..nkeys]
        ),
        step: 0,
    };
    h.compare_now()?;
    for (i, op) in ops.iter().enumerate() {
        h.step = i;
        h.run(op, false)?;
        h.compare_now()?;
        check_ok(h.g(), &h.trace)?;
    }
    h.verify_snapshot()?;
    h.snap = None;
    check_ok(h.g(), &h.trace)?;
    compare_scan(
        h.g().scan_nodes().map(|n| n.unwrap()).collect(),
        &h.m,
        "final",
        &h.trace,
    )?;
    let st = h.g().stats().unwrap();
    prop_assert_eq!(
        (st.nodes, st.edges),
        (h.m.nodes.len() as u64, h.m.edge_count() as u64),
        "stats (left: HopDB, right: model)\n{}",
        h.trace
    );
    prop_assert_eq!(
        st.labels,
        h.m.label_counts(),
        "stats labels (left: HopDB, right: model)\n{}",
        h.trace
    );
    Ok(())
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: env_or("HOPDB_MODEL_CASES", 64) as u32,
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..ProptestConfig::default()
    })]

    /// Random sequences on both engines against the reference model.
    #[test]
    fn matches_reference_model(
        nkeys in 8usize..=12,
        ops in prop::collection::vec(op(), 1..=env_or("HOPDB_MODEL_OPS", 60)),
    ) {
        run_sequence(false, nkeys, &ops)?;
        run_sequence(true, nkeys, &ops)?;
    }
}
