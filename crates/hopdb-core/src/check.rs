//! `hopdb check`: verifies the store's invariants on one snapshot.
//!
//! 1. every node record decodes, its key maps back to its id, its labels are indexed;
//! 2. every adjacency entry names live nodes and a known type, records the right neighbour
//!    key, and has its mirror (the `in` entry of a directed edge, the reverse `out` entry
//!    of an undirected one) with the same weight and properties;
//! 3. degree counters equal the counts recomputed from adjacency, per node and type;
//! 4. global node, edge, label and type counters match; id counters exceed every used id;
//! 5. property indexes: every indexable value of a node has its entry, every entry belongs
//!    to a live node with the label and that value, counters match, unique ones hold no
//!    value twice.
//!
//! Work is per node (a few prefix scans each), so memory stays O(types) whatever the size.

use crate::counters::{Deg, DegSet};
use crate::engine::Cf;
use crate::error::Result;
use crate::index::{entry_key, parse_entry, IndexSpec, Probe};
use crate::read::View;
use crate::records::*;
use crate::value::{NodeKey, Props, Value};
use std::collections::HashMap;

/// The result of [`crate::Graph::check`].
#[derive(Debug, Clone, Default)]
pub struct CheckReport {
    /// Nodes whose record decodes.
    pub nodes: u64,
    /// Edges found in adjacency, each counted once (an undirected one too, though listed twice).
    pub edges: u64,
    /// Up to [`CheckReport::MAX_PROBLEMS`] descriptions of broken invariants.
    pub problems: Vec<String>,
    /// Problems found in all, including those not listed.
    pub problem_count: u64,
}

impl CheckReport {
    /// How many problem descriptions a report keeps, so a badly damaged store gives a short one.
    pub const MAX_PROBLEMS: usize = 100;
    /// Whether the store passed: no problem found.
    pub fn is_ok(&self) -> bool {
        self.problem_count == 0
    }
    fn problem(&mut self, p: String) {
        self.problem_count += 1;
        if self.problems.len() < Self::MAX_PROBLEMS {
            self.problems.push(p);
        }
    }
}

/// Property maps equal, floats compared bit for bit: a NaN property (which the store keeps)
/// equals itself in an edge's mirror.
fn same_props(a: &Props, b: &Props) -> bool {
    fn same(x: &Value, y: &Value) -> bool {
        match (x, y) {
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::List(a), Value::List(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y)),
            (Value::Map(a), Value::Map(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|((k, x), (l, y))| k == l && same(x, y))
            }
            _ => x == y,
        }
    }
    a.len() == b.len() && a.iter().zip(b).all(|((k, x), (l, y))| k == l && same(x, y))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

pub(crate) fn check(v: &View<'_>, next_node: NodeId, next_edge: u64) -> Result<CheckReport> {
    let mut r = CheckReport::default();
    let mut label_counts: HashMap<TypeId, i64> = HashMap::new();
    let mut type_counts: HashMap<TypeId, i64> = HashMap::new();
    let specs = v.index_specs()?;
    let mut on_label: HashMap<TypeId, Vec<&IndexSpec>> = HashMap::new();
    for s in &specs {
        if v.cat.label_name(s.label).is_none() {
            r.problem(format!("property index {} names unknown label id {}", s.id, s.label));
        }
        on_label.entry(s.label).or_default().push(s);
    }
    let mut index_counts: HashMap<u32, i64> = HashMap::new();
    let mut ids = Vec::new();
    v.kv.scan(Cf::Nodes, &[], &[], &mut |k, _| {
        if let Some(id) = parse_id(k) {
            ids.push(id);
        }
        true
    })?;
    for &id in &ids {
        if id >= next_node {
            r.problem(format!("node id {id} is not below the next-id counter {next_node}"));
        }
        let Some(rec) = v.node_rec(id).ok().flatten() else {
            r.problem(format!("node {id}: record does not decode"));
            continue;
        };
        r.nodes += 1;
        match v.kv.get(Cf::Keys, &rec.key.encode())? {
            Some(m) if parse_key_value(&m) == Some((id, true)) => {
                // Labels in the key entry, when it carries them, must be the record's:
                // a replace trusts them instead of reading the record.
                if let Some(l) = key_labels(&m).filter(|l| *l != rec.labels) {
                    r.problem(format!(
                        "node {id} ({}): key entry carries labels {l:?}, the record {:?}",
                        rec.key, rec.labels
                    ));
                }
            }
            other => r.problem(format!(
                "node {id} ({}): key entry is {:?}, not (id {id}, live)",
                rec.key,
                other.as_deref().and_then(parse_key_value)
            )),
        }
        for &l in &rec.labels {
            *label_counts.entry(l).or_default() += 1;
            if v.cat.label_name(l).is_none() {
                r.problem(format!("node {}: unknown label id {l}", rec.key));
            }
            if v.kv.get(Cf::Labels, &label_key(l, id))?.is_none() {
                r.problem(format!("node {}: label {l} missing from the label index", rec.key));
            }
            for s in on_label.get(&l).into_iter().flatten() {
                if let Some(p) = rec.props.get(&*s.property).and_then(Probe::of) {
                    *index_counts.entry(s.id).or_default() += 1;
                    if v.kv.get(Cf::PropIndex, &entry_key(s.id, &p.part, id))?.is_none() {
                        r.problem(format!(
                            "node {}: its {} is missing from property index {}",
                            rec.key, s.property, s.id
                        ));
                    }
                }
            }
        }
        check_node_edges(v, id, &rec.key, &mut r, &mut type_counts)?;
    }
    // Entries that belong to no live node.
    for cf in [Cf::Out, Cf::In, Cf::Deg] {
        let mut last = None;
        let mut orphans = Vec::new();
        v.kv.scan(cf, &[], &[], &mut |k, _| {
            if let Some(id) = k.get(..8).and_then(parse_id) {
                if last != Some(id) {
                    last = Some(id);
                    if ids.binary_search(&id).is_err() {
                        orphans.push(id);
                    }
                }
            }
            true
        })?;
        for id in orphans {
            r.problem(format!(
                "{} entries of node id {id}, which does not exist (dangling id)",
                cf.name()
            ));
        }
    }
    let mut orphans = Vec::new();
    v.kv.scan(Cf::Labels, &[], &[], &mut |k, _| {
        if let Some(id) = k.get(4..).and_then(parse_id) {
            if ids.binary_search(&id).is_err() {
                orphans.push(id);
            }
        }
        true
    })?;
    for id in orphans {
        r.problem(format!("label index entry of node id {id}, which does not exist"));
    }
    // Key entries flagged live must have a record (the reverse was checked per node).
    let mut bad_keys = Vec::new();
    v.kv.scan(Cf::Keys, &[], &[], &mut |k, val| {
        match parse_key_value(val) {
            Some((id, true)) if ids.binary_search(&id).is_err() => bad_keys.push(format!(
                "key {:?} is flagged live but node id {id} does not exist",
                NodeKey::decode(k).ok()
            )),
            Some(_) => {}
            None => bad_keys.push("malformed key entry".to_string()),
        }
        true
    })?;
    bad_keys.into_iter().for_each(|p| r.problem(p));
    let mut multi_edges = 0u64;
    let mut bad_ids = Vec::new();
    v.kv.scan(Cf::EdgeIds, &[], &[], &mut |k, val| {
        multi_edges += 1;
        match (parse_id(k), parse_edge_id_value(val)) {
            (Some(eid), Some((s, t, d))) => {
                if eid >= next_edge {
                    bad_ids.push(format!(
                        "edge id {eid} is not below the next-edge-id counter {next_edge}"
                    ));
                }
                if !matches!(v.kv.get(Cf::Out, &adj_key(s, t, d, eid)), Ok(Some(_))) {
                    bad_ids.push(format!("edge id {eid} points at a missing edge"));
                }
            }
            _ => bad_ids.push("malformed edge id entry".to_string()),
        }
        true
    })?;
    bad_ids.into_iter().for_each(|p| r.problem(p));
    let _ = multi_edges;
    check_index_entries(v, &specs, &index_counts, &mut r)?;
    // Global counters.
    let stored_nodes = v.count(COUNT_NODES)?;
    if stored_nodes != r.nodes {
        r.problem(format!("node counter says {stored_nodes}, found {}", r.nodes));
    }
    let stored_edges = v.count(COUNT_EDGES)?;
    if stored_edges != r.edges {
        r.problem(format!("edge counter says {stored_edges}, found {}", r.edges));
    }
    for (name, l) in v.cat.labels() {
        let (stored, found) = (
            v.count(&count_label_key(l))?,
            label_counts.get(&l).copied().unwrap_or(0),
        );
        if stored as i64 != found {
            r.problem(format!("label {name}: counter says {stored}, found {found}"));
        }
    }
    for t in v.cat.types() {
        let (stored, found) = (
            v.count(&count_type_key(t.id))?,
            type_counts.get(&t.id).copied().unwrap_or(0),
        );
        if stored as i64 != found {
            r.problem(format!("edge type {}: counter says {stored}, found {found}", t.name));
        }
    }
    Ok(r)
}

fn check_node_edges(
    v: &View<'_>,
    id: NodeId,
    key: &crate::value::NodeKey,
    r: &mut CheckReport,
    type_counts: &mut HashMap<TypeId, i64>,
) -> Result<()> {
    let mut deg: HashMap<TypeId, Deg> = HashMap::new();
    let mut entries = Vec::new();
    for cf in [Cf::Out, Cf::In] {
        v.kv.scan(cf, &node_prefix(id), &node_prefix(id), &mut |k, val| {
            entries.push((cf, k.to_vec(), val.to_vec()));
            true
        })?;
    }
    for (cf, k, val) in entries {
        let Some(a) = parse_adj_key(&k) else {
            r.problem(format!("node {key}: malformed {} key", cf.name()));
            continue;
        };
        let Some(t) = v.cat.type_by_id(a.ty) else {
            r.problem(format!("node {key}: edge of unknown type id {}", a.ty));
            continue;
        };
        let Ok(rec) = EdgeRec::decode(&val) else {
            r.problem(format!(
                "node {key}: {} entry to node id {} does not decode",
                cf.name(),
                a.nbr
            ));
            continue;
        };
        let nbr_key = match v.node_rec(a.nbr) {
            Ok(Some(n)) => n.key,
            _ => {
                r.problem(format!(
                    "node {key}: {} edge to node id {}, which does not exist (dangling)",
                    cf.name(),
                    a.nbr
                ));
                continue;
            }
        };
        if rec.nbr != nbr_key {
            r.problem(format!(
                "node {key}: edge records neighbour {} but node id {} is {nbr_key}",
                rec.nbr, a.nbr
            ));
        }
        if t.options.multi != (a.eid != 0) {
            r.problem(format!("node {key}: edge id {} does not fit type {}", a.eid, t.name));
        }
        let w = weight_of(rec.weight);
        let d = deg.entry(a.ty).or_default();
        let (mirror_cf, counted) = match (cf, t.options.undirected) {
            (Cf::In, true) => {
                r.problem(format!("node {key}: undirected type {} has an in entry", t.name));
                continue;
            }
            (Cf::Out, true) => {
                let self_loop = a.nbr == id;
                d.und += if self_loop { 2 } else { 1 };
                d.und_w += if self_loop { 2.0 * w } else { w };
                (if self_loop { None } else { Some(Cf::Out) }, id <= a.nbr)
            }
            (Cf::Out, false) => {
                d.out += 1;
                d.out_w += w;
                (Some(Cf::In), true)
            }
            _ => {
                d.inn += 1;
                d.in_w += w;
                (Some(Cf::Out), false)
            }
        };
        if counted {
            r.edges += 1;
            *type_counts.entry(a.ty).or_default() += 1;
        }
        if let Some(mcf) = mirror_cf {
            match v.kv.get(mcf, &adj_key(a.nbr, a.ty, id, a.eid))? {
                None => r.problem(format!(
                    "node {key}: {} edge to {nbr_key} has no mirror in {}",
                    cf.name(),
                    mcf.name()
                )),
                Some(m) => match EdgeRec::decode(&m) {
                    Ok(m)
                        if m.nbr == *key
                            && same_props(&m.props, &rec.props)
                            && m.weight.map(f64::to_bits) == rec.weight.map(f64::to_bits) => {}
                    _ => r.problem(format!("node {key}: edge to {nbr_key} differs from its mirror")),
                },
            }
        }
    }
    let stored = match v.kv.get(Cf::Deg, &deg_key(id))? {
        None => DegSet::default(),
        Some(b) => DegSet::decode(&b).unwrap_or_else(|| {
            r.problem(format!("node {key}: malformed degree counters"));
            DegSet::default()
        }),
    };
    for (t, want) in &deg {
        let got = stored.of_type(*t);
        let same = got.out == want.out
            && got.inn == want.inn
            && got.und == want.und
            && close(got.out_w, want.out_w)
            && close(got.in_w, want.in_w)
            && close(got.und_w, want.und_w);
        if !same {
            r.problem(format!(
                "node {key}: degree counters for type id {t} are {got:?}, recomputed {want:?}"
            ));
        }
    }
    for (t, got) in &stored.0 {
        if !deg.contains_key(t) {
            r.problem(format!(
                "node {key}: degree counters for type id {t} are {got:?} but it has no such edges"
            ));
        }
    }
    Ok(())
}

/// Every property index entry names a live node that has the index's label and the value the
/// entry holds; unique indexes hold no value twice; entry counters match `expected` (the
/// indexable values found on the nodes).
fn check_index_entries(
    v: &View<'_>,
    specs: &[IndexSpec],
    expected: &HashMap<u32, i64>,
    r: &mut CheckReport,
) -> Result<()> {
    let by_id: HashMap<u32, &IndexSpec> = specs.iter().map(|s| (s.id, s)).collect();
    let mut entries = Vec::new();
    v.kv.scan(Cf::PropIndex, &[], &[], &mut |k, _| {
        entries.push(k.to_vec());
        true
    })?;
    let mut found: HashMap<u32, i64> = HashMap::new();
    // (index, value part, probe) of the previous entry, to find values held twice.
    let mut prev: Option<(u32, Vec<u8>, Option<Probe>, NodeId)> = None;
    for k in entries {
        let Some((index, part, node)) = parse_entry(&k) else {
            r.problem("malformed property index entry".to_string());
            continue;
        };
        let Some(spec) = by_id.get(&index) else {
            r.problem(format!("property index entry of unknown index {index}"));
            continue;
        };
        *found.entry(index).or_default() += 1;
        let rec = match v.node_rec(node) {
            Ok(Some(rec)) => rec,
            _ => {
                r.problem(format!(
                    "property index {index}: entry of node id {node}, which does not exist"
                ));
                continue;
            }
        };
        let probe = rec.props.get(&*spec.property).and_then(Probe::of);
        let holds = rec.labels.contains(&spec.label) && probe.as_ref().is_some_and(|p| p.part == part);
        if !holds {
            r.problem(format!(
                "property index {index}: stale entry for node {} (label or {} differs)",
                rec.key, spec.property
            ));
        }
        if let Some((pi, pp, pprobe, pnode)) = &prev {
            if spec.unique && *pi == index && pp.as_slice() == part && probe.is_some() && *pprobe == probe {
                r.problem(format!(
                    "unique property index {index}: node ids {pnode} and {node} hold the same {}",
                    spec.property
                ));
            }
        }
        prev = Some((index, part.to_vec(), probe, node));
    }
    for s in specs {
        let (want, got) = (
            expected.get(&s.id).copied().unwrap_or(0),
            found.get(&s.id).copied().unwrap_or(0),
        );
        let stored = v.count(&count_index_key(s.id))? as i64;
        if want != got || stored != want {
            r.problem(format!(
                "property index {} on {}: {want} indexable values, {got} entries, counter says {stored}",
                s.id, s.property
            ));
        }
    }
    Ok(())
}
