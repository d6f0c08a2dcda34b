//! The crash tests' model: a plain, independent implementation of the workload's semantics,
//! and the comparison of a store with it.

use crate::workload::*;
use hopdb_core::*;
use std::collections::{BTreeMap, HashMap, HashSet};

/// An edge's identity: `(type, a, b)`, with `a <= b` for the undirected type.
pub(crate) type EdgeId = (&'static str, NodeKey, NodeKey);

#[derive(Default, Clone)]
pub(crate) struct Model {
    /// The last operation applied.
    pub(crate) op: u64,
    pub(crate) nodes: HashMap<NodeKey, (Vec<String>, Props)>,
    pub(crate) edges: HashMap<EdgeId, (Option<f64>, Props)>,
    /// Edges touching each node.
    pub(crate) adj: HashMap<NodeKey, HashSet<EdgeId>>,
    /// How much the sequence really deleted (deletes of absent things are no-ops).
    pub(crate) edge_deletes_hit: u64,
    pub(crate) node_deletes_hit: u64,
    pub(crate) edges_deleted_with_nodes: u64,
}

#[derive(Default, Clone, Copy, PartialEq, Debug)]
pub(crate) struct Lanes {
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

    pub(crate) fn advance_to(&mut self, seed: u64, n: u64) {
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

pub(crate) fn sort_edges(v: &mut [Edge]) {
    v.sort_by(|x, y| (&x.src, &*x.ty, &x.dst).cmp(&(&y.src, &*y.ty, &y.dst)));
}

/// Every key the operation sequence can touch.
pub(crate) fn key_space() -> impl Iterator<Item = NodeKey> {
    (0..INT_NODES)
        .map(NodeKey::Int)
        .chain((0..STR_NODES).map(|s| NodeKey::Str(format!("s{s}"))))
}

/// Differences between the store and the model (at most a few dozen).
pub(crate) fn compare(g: &Graph, m: &Model) -> Result<Vec<String>> {
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
