//! A small generated knowledge graph and brute-force answers, for the engines' tests.

use std::collections::{BTreeMap, HashMap, HashSet};

use hopdb_database::Database;
use hopdb_kg::{GenValue, KgSpec};
use serde_json::{json, Value as Json};

use super::hopdb::Q1_PROPS;
use super::Answer;
use crate::workload::{EntityProps, Kind, Op, LIMIT, TOP};

/// The generated graph as plain maps: the brute-force side of the comparison.
pub struct Reference {
    pub props: HashMap<String, Vec<(&'static str, GenValue)>>,
    pub out: HashMap<(String, &'static str), Vec<String>>,
    pub inc: HashMap<(String, &'static str), Vec<String>>,
    pub chunks: Vec<String>,
    pub entities: Vec<String>,
    pub documents: Vec<String>,
}

impl Reference {
    pub fn new(spec: &KgSpec) -> Reference {
        let mut r = Reference {
            props: HashMap::new(),
            out: HashMap::new(),
            inc: HashMap::new(),
            chunks: vec![],
            entities: vec![],
            documents: vec![],
        };
        for n in hopdb_kg::nodes(spec) {
            match n.label {
                "Chunk" => r.chunks.push(n.key.clone()),
                "Entity" => r.entities.push(n.key.clone()),
                _ => r.documents.push(n.key.clone()),
            }
            r.props.insert(n.key, n.props);
        }
        for e in hopdb_kg::edges(spec) {
            r.out.entry((e.src.clone(), e.ty)).or_default().push(e.dst.clone());
            r.inc.entry((e.dst, e.ty)).or_default().push(e.src);
        }
        r
    }
    pub fn adj(&self, m: &HashMap<(String, &'static str), Vec<String>>, k: &str, ty: &'static str) -> Vec<String> {
        m.get(&(k.to_string(), ty)).cloned().unwrap_or_default()
    }
    /// The whole answer (before LIMIT) of a retrieval query.
    pub fn full(&self, kind: Kind, ids: &[String]) -> Answer {
        let c = &ids[0];
        let co = || -> Vec<String> {
            let mut v = vec![];
            for e in self.adj(&self.out, c, "MENTIONS") {
                v.extend(self.adj(&self.inc, &e, "MENTIONS").into_iter().filter(|o| o != c));
            }
            v
        };
        match kind {
            Kind::Q1 => Answer::Row(self.props.get(c).map(|p| {
                Q1_PROPS
                    .iter()
                    .map(|name| match p.iter().find(|(n, _)| n == name).map(|(_, v)| v) {
                        Some(GenValue::Int(i)) => json!(i),
                        Some(GenValue::Str(s)) => json!(s),
                        None => Json::Null,
                    })
                    .collect()
            })),
            Kind::Q2 => Answer::Ids(self.adj(&self.out, c, "MENTIONS")),
            Kind::Q3 => Answer::Ids(self.adj(&self.inc, c, "MENTIONS")),
            Kind::Q4 => Answer::Ids(co()),
            Kind::Q5 => Answer::Ids(self.adj(&self.out, c, "HAS_CHUNK")),
            Kind::Q6 => {
                let mut n: BTreeMap<String, i64> = BTreeMap::new();
                for o in co() {
                    *n.entry(o).or_default() += 1;
                }
                let mut v: Vec<(String, i64)> = n.into_iter().collect();
                v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                v.truncate(TOP);
                Answer::Counts(v)
            }
            Kind::Q7 => {
                let mut v = vec![];
                for e in ids {
                    for ch in self.adj(&self.inc, e, "MENTIONS") {
                        v.extend(self.adj(&self.out, &ch, "MENTIONS"));
                    }
                }
                Answer::Ids(v)
            }
            _ => unreachable!(),
        }
    }
}

/// bench/retrieval/reference.py's check: exact for Q1, Q5 (as a set) and Q6; for the LIMIT
/// kinds no duplicates, every row in the whole answer, min(50, distinct size) rows.
pub fn check(kind: Kind, got: &Answer, full: &Answer) -> Result<(), String> {
    match (kind, got, full) {
        (Kind::Q1 | Kind::Q6, g, f) => (g == f).then_some(()).ok_or(format!("{g:?} != {f:?}")),
        (_, Answer::Ids(g), Answer::Ids(f)) => {
            let allowed: HashSet<&String> = f.iter().collect();
            let mine: HashSet<&String> = g.iter().collect();
            let want = if kind == Kind::Q5 {
                allowed.len()
            } else {
                allowed.len().min(LIMIT)
            };
            if mine.len() != g.len() || !mine.is_subset(&allowed) || g.len() != want {
                return Err(format!("{} rows of {} allowed, want {want}", g.len(), allowed.len()));
            }
            Ok(())
        }
        (_, g, f) => Err(format!("{g:?} vs {f:?}")),
    }
}

/// The graph loaded into an in-memory store by the demo's loader (hopdb_bench::kg).
pub fn loaded(spec: &KgSpec) -> Database {
    let db = Database::in_memory();
    hopdb_bench::kg::load(db.graph(), spec, |_| {}).unwrap();
    db
}

/// canonical_title and entity_type of the generated entities.
pub fn entity_props(r: &Reference, ents: &[String]) -> HashMap<String, EntityProps> {
    ents.iter()
        .map(|e| {
            let p = &r.props[e];
            let s = |name| match p.iter().find(|(n, _)| *n == name) {
                Some((_, GenValue::Str(s))) => s.clone(),
                other => panic!("{e}: {name} is {other:?}"),
            };
            let props = EntityProps {
                canonical_title: s("canonical_title"),
                entity_type: s("entity_type"),
            };
            (e.clone(), props)
        })
        .collect()
}

/// One of every retrieval query over the graph: Q1, Q2, Q4, Q6 per chunk, Q3 per entity, Q5
/// per document, Q7 per five entities, and Q1 of a missing chunk.
pub fn retrieval_ops(r: &Reference) -> Vec<Op> {
    let one = |kind, id: &String| Op {
        kind,
        ids: vec![id.clone()],
        props: None,
    };
    let mut ops: Vec<Op> = vec![];
    for c in &r.chunks {
        ops.extend([Kind::Q1, Kind::Q2, Kind::Q4, Kind::Q6].map(|k| one(k, c)));
    }
    ops.extend(r.entities.iter().map(|e| one(Kind::Q3, e)));
    ops.extend(r.documents.iter().map(|d| one(Kind::Q5, d)));
    ops.extend(r.entities.chunks_exact(5).map(|es| Op {
        kind: Kind::Q7,
        ids: es.to_vec(),
        props: None,
    }));
    ops.push(one(Kind::Q1, &"chunk-missing".to_string()));
    // Some answers must be cut by LIMIT, or the check would not test it.
    assert!(ops
        .iter()
        .any(|o| o.kind == Kind::Q4 && matches!(r.full(o.kind, &o.ids), Answer::Ids(v) if v.len() > 60)));
    ops
}

/// The graph in a SQLite file as bench/engines' adapter lays it out: flat tables, a UNIQUE
/// index on nodes(id), B-tree indexes on edges(src) and edges(dst), WAL.
pub fn sqlite_db(spec: &KgSpec, path: &std::path::Path) {
    let mut c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(
        "PRAGMA journal_mode=WAL;
         CREATE TABLE nodes (id TEXT, title TEXT, label TEXT, doc_id TEXT, ordinal INTEGER, word_count INTEGER,
                             section_title TEXT, canonical_title TEXT, entity_type TEXT);
         CREATE TABLE edges (src TEXT NOT NULL, dst TEXT NOT NULL, type TEXT NOT NULL);",
    )
    .unwrap();
    let tx = c.transaction().unwrap();
    for n in hopdb_kg::nodes(spec) {
        tx.execute("INSERT INTO nodes (id, label) VALUES (?1, ?2)", (&n.key, n.label))
            .unwrap();
        for (name, v) in &n.props {
            let v: rusqlite::types::Value = match v {
                GenValue::Int(i) => (*i).into(),
                GenValue::Str(s) => s.clone().into(),
            };
            tx.execute(&format!("UPDATE nodes SET {name} = ?1 WHERE id = ?2"), (v, &n.key))
                .unwrap();
        }
    }
    for e in hopdb_kg::edges(spec) {
        tx.execute("INSERT INTO edges VALUES (?1, ?2, ?3)", (&e.src, &e.dst, e.ty))
            .unwrap();
    }
    tx.commit().unwrap();
    c.execute_batch(
        "CREATE UNIQUE INDEX nodes_id ON nodes (id); CREATE INDEX edges_src ON edges (src);
         CREATE INDEX edges_dst ON edges (dst); ANALYZE;",
    )
    .unwrap();
}
