//! The operations the clients run: bench/retrieval's Q1-Q7 sequence from its queries file, or
//! the LightRAG storage-call mix over the file's entity pool, and where each client starts.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

/// LIMIT of Q2, Q3, Q4 and Q7 (bench/retrieval/workload.py).
pub const LIMIT: usize = 50;
/// Rows of Q6.
pub const TOP: usize = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Q1,
    Q2,
    Q3,
    Q4,
    Q5,
    Q6,
    Q7,
    GetNode,
    GetNodeEdges,
    UpsertNode,
    NodeDegree,
    HasNode,
}

pub const KINDS: [Kind; 12] = [
    Kind::Q1,
    Kind::Q2,
    Kind::Q3,
    Kind::Q4,
    Kind::Q5,
    Kind::Q6,
    Kind::Q7,
    Kind::GetNode,
    Kind::GetNodeEdges,
    Kind::UpsertNode,
    Kind::NodeDegree,
    Kind::HasNode,
];

/// LightRAG's storage-call mix (issue 6): the share of each call, in percent.
pub const LIGHTRAG_MIX: [(Kind, u32); 5] = [
    (Kind::GetNode, 35),
    (Kind::GetNodeEdges, 25),
    (Kind::UpsertNode, 15),
    (Kind::NodeDegree, 15),
    (Kind::HasNode, 10),
];

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Q1 => "q1",
            Kind::Q2 => "q2",
            Kind::Q3 => "q3",
            Kind::Q4 => "q4",
            Kind::Q5 => "q5",
            Kind::Q6 => "q6",
            Kind::Q7 => "q7",
            Kind::GetNode => "get_node",
            Kind::GetNodeEdges => "get_node_edges",
            Kind::UpsertNode => "upsert_node",
            Kind::NodeDegree => "node_degree",
            Kind::HasNode => "has_node",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    fn parse(s: &str) -> Result<Kind> {
        match KINDS.iter().find(|k| k.name() == s) {
            Some(&k) => Ok(k),
            None => bail!("unknown query kind {s:?} (expected q1..q7)"),
        }
    }

    /// The queries file's pool a retrieval kind draws its seed from.
    fn pool(self) -> &'static str {
        match self {
            Kind::Q3 => "entity",
            Kind::Q5 => "document",
            Kind::Q7 => "entity_set",
            _ => "chunk",
        }
    }
}

/// An entity's current properties, written back unchanged by the LightRAG upsert.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityProps {
    pub canonical_title: String,
    pub entity_type: String,
}

/// One operation: its kind, its seed ids (five for Q7, else one) and, for an upsert, the
/// properties it writes.
#[derive(Debug, Clone)]
pub struct Op {
    pub kind: Kind,
    pub ids: Vec<String>,
    pub props: Option<EntityProps>,
}

#[cfg(test)]
impl Op {
    pub fn id(&self) -> &str {
        &self.ids[0]
    }
}

#[derive(Debug, Deserialize)]
pub struct Pools {
    pub chunk: Vec<String>,
    pub entity: Vec<String>,
    pub document: Vec<String>,
    pub entity_set: Vec<Vec<String>>,
}

/// bench/retrieval's queries.json (run.py build_queries): the seed pools, the (kind, pool
/// index) sequence and the sample of seeds with their reference answers.
#[derive(Debug, Deserialize)]
pub struct QueriesFile {
    pub pools: Pools,
    pub sequence: Vec<(String, usize)>,
    pub check: Vec<(String, serde_json::Value, serde_json::Value)>,
}

impl QueriesFile {
    pub fn read(path: &Path) -> Result<QueriesFile> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the queries file {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| {
            format!(
                "{}: not a bench/retrieval queries file (pools, sequence, check)",
                path.display()
            )
        })
    }

    /// The retrieval sequence as operations, in the file's order.
    pub fn retrieval_ops(&self) -> Result<Vec<Op>> {
        if self.sequence.is_empty() {
            bail!("the queries file's sequence is empty");
        }
        self.sequence
            .iter()
            .map(|(k, i)| {
                let kind = Kind::parse(k)?;
                let ids = self.seed_ids(kind, *i)?;
                Ok(Op { kind, ids, props: None })
            })
            .collect()
    }

    fn seed_ids(&self, kind: Kind, i: usize) -> Result<Vec<String>> {
        let p = &self.pools;
        let got = match kind.pool() {
            "entity" => p.entity.get(i).map(|s| vec![s.clone()]),
            "document" => p.document.get(i).map(|s| vec![s.clone()]),
            "entity_set" => p.entity_set.get(i).cloned(),
            _ => p.chunk.get(i).map(|s| vec![s.clone()]),
        };
        match got {
            Some(ids) if !ids.is_empty() => Ok(ids),
            _ => bail!("{}: pool index {i} is outside the {} pool", kind.name(), kind.pool()),
        }
    }

    /// The check sample: (kind, the seed as in the file, the seed ids).
    pub fn check_ops(&self) -> Result<Vec<(Op, serde_json::Value)>> {
        self.check
            .iter()
            .map(|(k, seed, _full)| {
                let kind = Kind::parse(k)?;
                let ids = match seed {
                    serde_json::Value::String(s) => vec![s.clone()],
                    serde_json::Value::Array(a) => a
                        .iter()
                        .map(|v| v.as_str().map(str::to_owned))
                        .collect::<Option<Vec<_>>>()
                        .with_context(|| format!("check seed {seed} of {k} is not a list of ids"))?,
                    other => bail!("check seed {other} of {k} is neither an id nor a list of ids"),
                };
                Ok((Op { kind, ids, props: None }, seed.clone()))
            })
            .collect()
    }
}

/// canonical_title and entity_type of the wanted entities, from the generator's entities.csv
/// (`:ID,canonical_title,entity_type,:LABEL`).
pub fn entity_props(data: &Path, wanted: &[String]) -> Result<HashMap<String, EntityProps>> {
    let path = data.join("entities.csv");
    let mut rd = csv::Reader::from_path(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let head: Vec<String> = rd.headers()?.iter().map(str::to_owned).collect();
    if head.first().map(String::as_str) != Some(":ID")
        || head.get(1).map(String::as_str) != Some("canonical_title")
        || head.get(2).map(String::as_str) != Some("entity_type")
    {
        bail!(
            "{}: header {head:?}, expected :ID,canonical_title,entity_type,...",
            path.display()
        );
    }
    let want: std::collections::HashSet<&str> = wanted.iter().map(String::as_str).collect();
    let mut out = HashMap::new();
    for r in rd.records() {
        let r = r.with_context(|| format!("{}: bad row", path.display()))?;
        if want.contains(&r[0]) {
            out.insert(
                r[0].to_owned(),
                EntityProps {
                    canonical_title: r[1].to_owned(),
                    entity_type: r[2].to_owned(),
                },
            );
        }
    }
    if let Some(missing) = wanted.iter().find(|w| !out.contains_key(*w)) {
        bail!(
            "entity {missing} of the queries file's pool is not in {}",
            path.display()
        );
    }
    Ok(out)
}

/// SplitMix64: a fixed, tiny generator, so the LightRAG sequence is the same on every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in 0..n (n > 0; the modulo bias is below 2^-40 for the sizes used here).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// The mix's kind for a roll in 0..100.
pub fn lightrag_kind(roll: u32) -> Kind {
    let mut acc = 0;
    for (k, pct) in LIGHTRAG_MIX {
        acc += pct;
        if roll < acc {
            return k;
        }
    }
    LIGHTRAG_MIX[LIGHTRAG_MIX.len() - 1].0
}

/// Length of the LightRAG sequence the clients cycle through.
pub const LIGHTRAG_OPS: usize = 10_000;
pub const LIGHTRAG_SEED: u64 = 20_240_611;

/// `n` LightRAG calls: the kind drawn by the mix's weights, the entity uniform in the pool.
pub fn lightrag_ops(entities: &[String], props: &HashMap<String, EntityProps>, n: usize, seed: u64) -> Result<Vec<Op>> {
    if entities.is_empty() {
        bail!("the queries file's entity pool is empty");
    }
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let kind = lightrag_kind(rng.below(100) as u32);
            let id = entities[rng.below(entities.len() as u64) as usize].clone();
            let props = if kind == Kind::UpsertNode {
                Some(
                    props
                        .get(&id)
                        .cloned()
                        .with_context(|| format!("no properties for entity {id}"))?,
                )
            } else {
                None
            };
            Ok(Op {
                kind,
                ids: vec![id],
                props,
            })
        })
        .collect()
}

/// Where client `i` of `n` starts in a sequence of `len`: spread evenly, so the clients do not
/// all ask the same seeds at the same moment.
pub fn client_offset(i: usize, n: usize, len: usize) -> usize {
    i * len / n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lightrag_mix_proportions() {
        let ents: Vec<String> = (0..500).map(|i| format!("ent-{i}")).collect();
        let props: HashMap<String, EntityProps> = ents
            .iter()
            .map(|e| {
                (
                    e.clone(),
                    EntityProps {
                        canonical_title: format!("T {e}"),
                        entity_type: "CONCEPT".into(),
                    },
                )
            })
            .collect();
        let n = 100_000;
        let ops = lightrag_ops(&ents, &props, n, LIGHTRAG_SEED).unwrap();
        for (k, pct) in LIGHTRAG_MIX {
            let got = ops.iter().filter(|o| o.kind == k).count() as f64 / n as f64 * 100.0;
            assert!((got - pct as f64).abs() < 0.6, "{}: {got:.2}% vs {pct}%", k.name());
        }
        // Upserts carry the entity's own properties; the seeds cover the pool.
        for o in ops.iter().filter(|o| o.kind == Kind::UpsertNode) {
            assert_eq!(o.props.as_ref(), props.get(o.id()));
        }
        let seen: std::collections::HashSet<&str> = ops.iter().map(|o| o.id()).collect();
        assert_eq!(seen.len(), 500);
        // Deterministic.
        let again = lightrag_ops(&ents, &props, 1000, LIGHTRAG_SEED).unwrap();
        assert!(again.iter().zip(&ops).all(|(a, b)| a.kind == b.kind && a.ids == b.ids));
    }

    #[test]
    fn kind_rolls_cover_the_mix() {
        assert_eq!(lightrag_kind(0), Kind::GetNode);
        assert_eq!(lightrag_kind(34), Kind::GetNode);
        assert_eq!(lightrag_kind(35), Kind::GetNodeEdges);
        assert_eq!(lightrag_kind(60), Kind::UpsertNode);
        assert_eq!(lightrag_kind(75), Kind::NodeDegree);
        assert_eq!(lightrag_kind(90), Kind::HasNode);
        assert_eq!(lightrag_kind(99), Kind::HasNode);
    }

    #[test]
    fn offsets_spread_clients_over_the_sequence() {
        assert_eq!(client_offset(0, 1, 1200), 0);
        let offs: Vec<usize> = (0..10).map(|i| client_offset(i, 10, 1200)).collect();
        assert_eq!(offs, (0..10).map(|i| i * 120).collect::<Vec<_>>());
        // More clients than operations: every offset stays in range.
        assert!((0..50).all(|i| client_offset(i, 50, 7) < 7));
        let offs: Vec<usize> = (0..50).map(|i| client_offset(i, 50, 1200)).collect();
        assert!(offs.windows(2).all(|w| w[1] - w[0] == 24));
    }

    #[test]
    fn queries_file_resolves_pools() {
        let q: QueriesFile = serde_json::from_str(
            r#"{"pools": {"chunk": ["chunk-1", "chunk-2"], "entity": ["ent-1"], "document": ["doc-1"],
                "entity_set": [["ent-1", "ent-2", "ent-3", "ent-4", "ent-5"]]},
                "sequence": [["q1", 1], ["q3", 0], ["q5", 0], ["q7", 0], ["q6", 0]],
                "check": [["q2", "chunk-1", ["ent-1"]], ["q7", ["ent-1", "ent-2"], []]], "warmup": 0}"#,
        )
        .unwrap();
        let ops = q.retrieval_ops().unwrap();
        let got: Vec<(&str, Vec<String>)> = ops.iter().map(|o| (o.kind.name(), o.ids.clone())).collect();
        assert_eq!(got[0], ("q1", vec!["chunk-2".to_string()]));
        assert_eq!(got[1], ("q3", vec!["ent-1".to_string()]));
        assert_eq!(got[2], ("q5", vec!["doc-1".to_string()]));
        assert_eq!(got[3].1.len(), 5);
        assert_eq!(got[4], ("q6", vec!["chunk-1".to_string()]));
        let chk = q.check_ops().unwrap();
        assert_eq!(chk[1].0.ids, vec!["ent-1", "ent-2"]);
        let bad: QueriesFile = serde_json::from_str(
            r#"{"pools": {"chunk": [], "entity": [], "document": [], "entity_set": []},
                "sequence": [["q1", 3]], "check": []}"#,
        )
        .unwrap();
        assert!(bad
            .retrieval_ops()
            .unwrap_err()
            .to_string()
            .contains("outside the chunk pool"));
    }
}
