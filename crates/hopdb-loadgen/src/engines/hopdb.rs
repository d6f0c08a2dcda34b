//! HopDB in-process, through the Rust API the Python package wraps (python/src/lib.rs): one
//! `Database` (the store and its `Analytics`) shared by every client thread. The retrieval mix
//! opens the store read-only (a RocksDB secondary, as `hopdb.Graph(store, read_only=True)`) and
//! builds the in-memory CSR projection first (`g.project()`), from which Q2-Q7 are served; Q1
//! reads the node from the store. The LightRAG mix opens it read-write (durability "process").

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use hopdb_database::{
    AccessMode, AlgoError, AnalyticsError, Config, Control, Database, Direction, Durability, GraphRead, NodeKey,
    ProjectionSpec, Step, Value, WriteMode,
};
use serde_json::{json, Value as Json};

use super::{seeds, Answer, Client, Engine, Options, QResult, QueryError};
use crate::workload::{Kind, Op, LIMIT, TOP};

pub const Q1_PROPS: [&str; 4] = ["doc_id", "ordinal", "word_count", "section_title"];

/// The store with its analytics, and the pattern steps, shared by the clients.
pub struct Shared {
    pub db: Database,
    mentions: Option<Vec<String>>,
    has_chunk: Option<Vec<String>>,
    /// chunk -> entities -> chunks (Q4, Q6).
    c2c: [Step; 2],
    /// entities -> chunks -> entities (Q7).
    e2e: [Step; 2],
    timeout: Option<std::time::Duration>,
}

impl Shared {
    pub fn new(db: Database, timeout: Option<std::time::Duration>) -> Shared {
        let m = Some(["MENTIONS"].as_slice());
        Shared {
            db,
            mentions: Some(vec!["MENTIONS".into()]),
            has_chunk: Some(vec!["HAS_CHUNK".into()]),
            c2c: [Step::new(Direction::Out, m), Step::new(Direction::In, m)],
            e2e: [Step::new(Direction::In, m), Step::new(Direction::Out, m)],
            timeout,
        }
    }

    fn ctrl(&self) -> Control {
        match self.timeout {
            Some(t) => Control::default().with_timeout(t),
            None => Control::default(),
        }
    }

    pub fn run(&self, op: &Op) -> QResult {
        let ids = seeds(op)?;
        let key = NodeKey::from(ids[0].as_str());
        let ctrl = self.ctrl();
        let (g, analytics) = (self.db.graph(), self.db.analytics());
        let keys = |v: Vec<NodeKey>| Answer::Ids(v.into_iter().map(key_string).collect());
        Ok(match op.kind {
            Kind::Q1 => Answer::Row(g.node(&key).map_err(store_err)?.map(|n| {
                Q1_PROPS
                    .iter()
                    .map(|p| n.props.get(*p).map_or(Json::Null, to_json))
                    .collect()
            })),
            Kind::Q2 => keys(self.neighbors(&key, Direction::Out, &self.mentions, Some(LIMIT), &ctrl)?),
            Kind::Q3 => keys(self.neighbors(&key, Direction::In, &self.mentions, Some(LIMIT), &ctrl)?),
            Kind::Q4 => keys(an(analytics.expand(&[key], &self.c2c, Some(LIMIT), true, &ctrl))?.value),
            Kind::Q5 => keys(self.neighbors(&key, Direction::Out, &self.has_chunk, None, &ctrl)?),
            Kind::Q6 => Answer::Counts(
                an(analytics.expand_counts(&[key], &self.c2c, Some(TOP), true, &ctrl))?
                    .value
                    .into_iter()
                    .map(|(k, n)| (key_string(k), n as i64))
                    .collect(),
            ),
            Kind::Q7 => {
                let ks: Vec<NodeKey> = ids.iter().map(|s| NodeKey::from(s.as_str())).collect();
                keys(an(analytics.expand(&ks, &self.e2e, Some(LIMIT), false, &ctrl))?.value)
            }
            Kind::GetNode => Answer::Row(g.node(&key).map_err(store_err)?.map(|n| {
                vec![
                    json!(n.labels),
                    Json::Object(n.props.iter().map(|(k, v)| (k.clone(), to_json(v))).collect()),
                ]
            })),
            Kind::GetNodeEdges => Answer::Pairs(
                g.edges(&key, Direction::Both, None, None)
                    .map_err(store_err)?
                    .into_iter()
                    .map(|e| (key_string(e.src), key_string(e.dst)))
                    .collect(),
            ),
            Kind::UpsertNode => {
                let p = op
                    .props
                    .as_ref()
                    .ok_or_else(|| QueryError::Failed("upsert_node without properties".into()))?;
                let props = hopdb_database::props([
                    ("canonical_title", Value::from(p.canonical_title.as_str())),
                    ("entity_type", Value::from(p.entity_type.as_str())),
                ]);
                g.upsert_node(key, &["Entity"], props, WriteMode::Merge)
                    .map_err(store_err)?;
                Answer::Written
            }
            Kind::NodeDegree => Answer::Count(g.degree(&key, Direction::Both, None).map_err(store_err)?.count as i64),
            Kind::HasNode => Answer::Bool(g.has_node(&key).map_err(store_err)?),
        })
    }

    fn neighbors(
        &self,
        key: &NodeKey,
        dir: Direction,
        types: &Option<Vec<String>>,
        limit: Option<usize>,
        ctrl: &Control,
    ) -> std::result::Result<Vec<NodeKey>, QueryError> {
        Ok(an(self.db.analytics().neighbors(key, dir, types, limit, ctrl))?.value)
    }
}

fn key_string(k: NodeKey) -> String {
    match k {
        NodeKey::Str(s) => s,
        NodeKey::Int(i) => i.to_string(),
    }
}

pub fn to_json(v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => json!(b),
        Value::Int(i) => json!(i),
        Value::Float(f) => json!(f),
        Value::Str(s) => json!(s),
        Value::Bytes(b) => json!(b),
        Value::List(l) => Json::Array(l.iter().map(to_json).collect()),
        Value::Map(m) => Json::Object(m.iter().map(|(k, v)| (k.clone(), to_json(v))).collect()),
    }
}

fn store_err(e: hopdb_database::Error) -> QueryError {
    QueryError::Failed(e.to_string())
}

fn an<T>(r: std::result::Result<T, AnalyticsError>) -> std::result::Result<T, QueryError> {
    r.map_err(|e| match e {
        AnalyticsError::Algo(AlgoError::DeadlineExceeded(_)) => QueryError::Timeout,
        e => QueryError::Failed(e.to_string()),
    })
}

pub struct HopDB {
    shared: Arc<Shared>,
    writes: bool,
    notes: String,
}

impl HopDB {
    pub fn open(o: &Options) -> Result<HopDB> {
        let path = std::path::Path::new(&o.target);
        if !path.join("CURRENT").exists() {
            anyhow::bail!(
                "{}: not a HopDB store directory (no RocksDB CURRENT file)",
                path.display()
            );
        }
        let mut cfg = Config {
            access: if o.writes {
                AccessMode::ReadWrite
            } else {
                AccessMode::Secondary
            },
            durability: Durability::Process,
            ..Config::default()
        };
        if let Some(mb) = o.memory_mb {
            cfg = cfg.with_memory_budget(mb << 20);
        }
        let db = Database::open_with(path, cfg)
            .with_context(|| format!("cannot open the HopDB store {}", path.display()))?;
        let shared = Shared::new(db, o.timeout);
        let mut notes = format!(
            "in-process Rust API, one Graph shared by the client threads, opened {}",
            if o.writes {
                "read-write"
            } else {
                "read-only (secondary)"
            }
        );
        if let Some(mb) = o.memory_mb {
            notes += &format!(", Config::with_memory_budget({mb} MiB)");
        }
        if o.memory_mb.is_some() {
            // A memory-capped run serves every query from the store through its bounded
            // caches: the projection (about 160 bytes a node at S=10) would not fit the cap.
            notes += "; no projection: Q1-Q7 read the store";
        } else if !o.writes {
            let t = Instant::now();
            let p = shared
                .db
                .analytics()
                .projection(&ProjectionSpec::all(), &Control::default())
                .context("building the CSR projection")?;
            let i = p.projection.info();
            notes += &format!(
                "; projection of every edge type built up front ({:.0} MiB, {:.2} s), serving Q2-Q7; Q1 reads the store",
                i.bytes as f64 / 1048576.0,
                t.elapsed().as_secs_f64()
            );
        }
        Ok(HopDB {
            shared: Arc::new(shared),
            writes: o.writes,
            notes,
        })
    }
}

struct HopClient(Arc<Shared>);

impl Client for HopClient {
    fn run(&mut self, op: &Op) -> QResult {
        self.0.run(op)
    }
}

impl Engine for HopDB {
    fn connect(&self) -> Result<Box<dyn Client>> {
        Ok(Box::new(HopClient(self.shared.clone())))
    }
    fn version(&self) -> String {
        format!("HopDB {} (Rust crates, in-process)", env!("CARGO_PKG_VERSION"))
    }
    fn durability(&self) -> Json {
        if self.writes {
            json!("process: each upsert is in RocksDB's write-ahead log before it returns (survives kill -9, not power loss; no fsync)")
        } else {
            json!("read-only (no writes)")
        }
    }
    fn notes(&self) -> String {
        self.notes.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::testkg::{check, entity_props, loaded, retrieval_ops, Reference};
    use hopdb_kg::KgSpec;

    #[test]
    fn retrieval_answers_match_brute_force() {
        let spec = KgSpec::new(0.002, 7).unwrap();
        let r = Reference::new(&spec);
        let sh = Shared::new(loaded(&spec), None);
        let ops = retrieval_ops(&r);
        // First on the store, then on the projection the retrieval mix builds up front.
        for pass in ["store", "projection"] {
            if pass == "projection" {
                sh.db
                    .analytics()
                    .projection(&ProjectionSpec::all(), &Control::default())
                    .unwrap();
            }
            for op in &ops {
                let got = sh.run(op).unwrap();
                if let Err(why) = check(op.kind, &got, &r.full(op.kind, &op.ids)) {
                    panic!("{pass}: {} {:?}: {why}", op.kind.name(), op.ids);
                }
            }
        }
    }

    #[test]
    fn lightrag_calls_and_the_upsert_leave_nodes_unchanged() {
        let spec = KgSpec::new(0.002, 7).unwrap();
        let r = Reference::new(&spec);
        let db = loaded(&spec);
        let g = db.graph();
        let sh = Shared::new(db.clone(), None);
        let ents = &r.entities[..50];
        let props = entity_props(&r, ents);
        let before: Vec<_> = ents
            .iter()
            .map(|e| g.node(&NodeKey::from(e.as_str())).unwrap())
            .collect();
        let (nodes, edges, version) = (g.node_count().unwrap(), g.edge_count().unwrap(), g.version());
        let ops = crate::workload::lightrag_ops(ents, &props, 2000, 1).unwrap();
        for op in &ops {
            let got = sh.run(op).unwrap();
            let e = &op.ids[0];
            let mentions = r.adj(&r.inc, e, "MENTIONS");
            match (op.kind, got) {
                (Kind::GetNode, Answer::Row(Some(row))) => {
                    assert_eq!(row[0], json!(["Entity"]));
                    assert_eq!(row[1]["canonical_title"], json!(props[e].canonical_title));
                }
                (Kind::GetNodeEdges, Answer::Pairs(p)) => {
                    assert!(p.iter().all(|(_, d)| d == e));
                    let mut got: Vec<String> = p.into_iter().map(|(s, _)| s).collect();
                    let mut want = mentions.clone();
                    got.sort();
                    want.sort();
                    assert_eq!(got, want);
                }
                (Kind::NodeDegree, Answer::Count(n)) => assert_eq!(n as usize, mentions.len()),
                (Kind::HasNode, Answer::Bool(b)) => assert!(b),
                (Kind::UpsertNode, Answer::Written) => {}
                (k, a) => panic!("{}: {a:?}", k.name()),
            }
        }
        // The upserts were real writes, and left every node as it was.
        assert!(g.version() > version);
        let after: Vec<_> = ents
            .iter()
            .map(|e| g.node(&NodeKey::from(e.as_str())).unwrap())
            .collect();
        assert_eq!(before, after);
        assert_eq!((g.node_count().unwrap(), g.edge_count().unwrap()), (nodes, edges));
    }

    #[test]
    fn a_timeout_is_reported_as_such() {
        let spec = KgSpec::new(0.002, 7).unwrap();
        let r = Reference::new(&spec);
        let sh = Shared::new(loaded(&spec), Some(std::time::Duration::ZERO));
        let op = Op {
            kind: Kind::Q4,
            ids: vec![r.chunks[0].clone()],
            props: None,
        };
        assert!(matches!(sh.run(&op), Err(QueryError::Timeout)));
    }
}
