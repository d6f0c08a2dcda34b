//! Neo4j over Bolt through bolt.rs's neo4rs client (one connection and current-thread tokio
//! runtime per client). The Cypher of bench/engines/cypher.py with $parameters, auto-commit; the
//! LightRAG calls as falkordb.rs words them. neo4rs 0.8 has no per-transaction timeout:
//! --timeout-ms is accepted and ignored for Neo4j, and the notes say so.

use anyhow::Result;
use serde_json::{json, Value};

use super::bolt::{BoltClient, BoltTarget};
use super::{Client, Engine, Options, QResult};
use crate::workload::{Kind, Op, LIMIT, TOP};

const CO: &str = "MATCH (c:Chunk {id: $id})-[:MENTIONS]->(:Entity)<-[:MENTIONS]-(o:Chunk) WHERE o.id <> $id";

pub fn query(kind: Kind) -> String {
    match kind {
        Kind::Q1 => {
            "MATCH (c:Chunk {id: $id}) RETURN c.doc_id AS a, c.ordinal AS b, c.word_count AS c, c.section_title AS d"
                .into()
        }
        Kind::Q2 => format!("MATCH (c:Chunk {{id: $id}})-[:MENTIONS]->(e:Entity) RETURN e.id AS a LIMIT {LIMIT}"),
        Kind::Q3 => format!("MATCH (e:Entity {{id: $id}})<-[:MENTIONS]-(c:Chunk) RETURN c.id AS a LIMIT {LIMIT}"),
        Kind::Q4 => format!("{CO} RETURN DISTINCT o.id AS a LIMIT {LIMIT}"),
        Kind::Q5 => "MATCH (d:Document {id: $id})-[:HAS_CHUNK]->(c:Chunk) RETURN c.id AS a".into(),
        Kind::Q6 => format!("{CO} RETURN o.id AS a, count(*) AS b ORDER BY b DESC, a LIMIT {TOP}"),
        Kind::Q7 => format!(
            "MATCH (e:Entity)<-[:MENTIONS]-(c:Chunk) WHERE e.id IN $ids WITH DISTINCT c \
             MATCH (c)-[:MENTIONS]->(f:Entity) RETURN DISTINCT f.id AS a LIMIT {LIMIT}"
        ),
        Kind::GetNode => {
            "MATCH (n:Entity {id: $id}) RETURN labels(n)[0] AS a, n.canonical_title AS b, n.entity_type AS c".into()
        }
        Kind::GetNodeEdges => {
            "MATCH (n:Entity {id: $id})-[r]-() RETURN startNode(r).id AS a, endNode(r).id AS b".into()
        }
        Kind::UpsertNode => "MERGE (n:Entity {id: $id}) SET n.canonical_title = $t, n.entity_type = $ty".into(),
        Kind::NodeDegree => "MATCH (n:Entity {id: $id}) RETURN COUNT { (n)--() } AS a".into(),
        Kind::HasNode => "MATCH (n:Entity {id: $id}) RETURN 1 AS a LIMIT 1".into(),
    }
}

pub struct Neo4j {
    target: BoltTarget,
    version: String,
    timeout_ignored: bool,
}

impl Neo4j {
    pub fn open(o: &Options) -> Result<Neo4j> {
        let n = Neo4j {
            target: BoltTarget {
                uri: o.target.clone(),
                user: o.user.clone().unwrap_or_default(),
                password: o.password.clone().unwrap_or_default(),
            },
            version: String::new(),
            timeout_ignored: o.timeout.is_some(),
        };
        let mut c = n.client()?;
        let v = c
            .rows(
                "CALL dbms.components() YIELD name, versions RETURN name + ' ' + versions[0] AS a",
                &[],
                &COLS,
            )
            .map_err(|e| anyhow::anyhow!("Neo4j at {} does not answer: {}", o.target, e.message()))?;
        let version = format!(
            "{} (Rust neo4rs 0.8, Bolt)",
            v.first().and_then(|r| r[0].as_str()).unwrap_or("Neo4j ?")
        );
        Ok(Neo4j { version, ..n })
    }

    fn client(&self) -> Result<BoltClient> {
        self.target.connect()
    }
}

/// Columns are aliased a, b, c, d in order.
const COLS: [&str; 4] = ["a", "b", "c", "d"];

struct NeoClient(BoltClient);

impl Client for NeoClient {
    fn run(&mut self, op: &Op) -> QResult {
        self.0.run_op(op, &query(op.kind), &COLS)
    }
}

impl Engine for Neo4j {
    fn connect(&self) -> Result<Box<dyn Client>> {
        Ok(Box::new(NeoClient(self.client()?)))
    }
    fn version(&self) -> String {
        self.version.clone()
    }
    fn durability(&self) -> Value {
        json!("Neo4j's default (not read back): a commit is in its transaction log, forced to disk, before it returns")
    }
    fn notes(&self) -> String {
        format!(
            "one Bolt connection per client, each on its own current-thread tokio runtime; parameterised Cypher, auto-commit; \
             no per-query timeout (neo4rs 0.8 has none){}",
            if self.timeout_ignored { ": --timeout-ms ignored" } else { "" }
        )
    }
}
