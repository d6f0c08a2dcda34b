//! Microsoft GraphRAG output: a directory with `entities.parquet` and `relationships.parquet`
//! (GraphRAG v1+ naming; the older `create_final_*.parquet` names are read too), and
//! optionally `communities.parquet`.
//!
//! - Entities are nodes keyed by `title` (`name` in older outputs), the name relationships use
//!   in `source` and `target`. The label is the entity `type` (an empty type gives none). Every
//!   column stays a property, `title` and `type` included; lists such as `text_unit_ids` stay
//!   lists.
//! - Relationships are edges of type [`EDGE_TYPE`] (`RELATIONSHIP`), undirected and multi:
//!   undirected because GraphRAG builds its graph with NetworkX's undirected `Graph` (degrees,
//!   `combined_degree`, Leiden communities all ignore direction); multi because its
//!   relationships table keeps `a -> b` and `b -> a` as separate records with their own id,
//!   description and weight (43 such pairs in the Christmas Carol index), so each row is its
//!   own edge. The `weight` column is the edge weight and, like every other column (`source`
//!   and `target` included, so the extraction's orientation is kept), a property.
//!   (LightRAG GraphML loads into the simple type `RELATED`, so both can share a store.)
//! - Relationship endpoints that are not entities (GraphRAG drops some entities but keeps
//!   their relationships: 84 endpoints in the Christmas Carol index) become nodes without a
//!   label whose only property is `title`, so every relationship loads.
//! - Communities: each entity gets a `communities` property, the list of the `community`
//!   numbers of the communities whose `entity_ids` name it, ordered by `level` (coarsest
//!   first). Community reports, covariates, text units and documents are not read.

use crate::error::{ImportError, Result};
use crate::neo4j::RowCtx;
use crate::parquet::{for_each_batch, read_all, read_with, schema_of, value_at, Columns, TableInput};
use crate::Run;
use hopdb_core::{EdgeTypeOptions, Error as StoreError, NodeKey, Props, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The edge type of GraphRAG relationships.
pub const EDGE_TYPE: &str = "RELATIONSHIP";

/// Its options: undirected, multi.
pub const TYPE_OPTIONS: EdgeTypeOptions = EdgeTypeOptions {
    undirected: true,
    multi: true,
};

/// The files of one GraphRAG output directory.
#[derive(Debug, Clone)]
pub struct GraphragFiles {
    /// `entities.parquet` (or `create_final_entities.parquet`): the nodes.
    pub entities: PathBuf,
    /// `relationships.parquet` (or `create_final_relationships.parquet`): the edges.
    pub relationships: PathBuf,
    /// `communities.parquet` (or `create_final_communities.parquet`), when present.
    pub communities: Option<PathBuf>,
}

impl GraphragFiles {
    /// Every file that will be read.
    pub fn all(&self) -> impl Iterator<Item = &Path> {
        [
            Some(&self.entities),
            Some(&self.relationships),
            self.communities.as_ref(),
        ]
        .into_iter()
        .flatten()
        .map(PathBuf::as_path)
    }
}

fn first_existing(dir: &Path, names: &[&str]) -> Option<PathBuf> {
    names.iter().map(|n| dir.join(n)).find(|p| p.is_file())
}

/// Finds the files of a GraphRAG output directory.
pub fn files(dir: &Path) -> Result<GraphragFiles> {
    let need = |names: &[&str]| {
        first_existing(dir, names).ok_or_else(|| {
            ImportError::Usage(format!(
                "{}: not a GraphRAG output directory (no {})",
                dir.display(),
                names.join(" or ")
            ))
        })
    };
    Ok(GraphragFiles {
        entities: need(&["entities.parquet", "create_final_entities.parquet"])?,
        relationships: need(&["relationships.parquet", "create_final_relationships.parquet"])?,
        communities: first_existing(dir, &["communities.parquet", "create_final_communities.parquet"]),
    })
}

/// Entity id -> the community numbers that contain it, ordered by level.
fn communities(path: &Path) -> Result<HashMap<String, Vec<(i64, i64)>>> {
    let (schema, batches) = read_all(path)?;
    let col = |name: &str| {
        schema
            .index_of(name)
            .map_err(|_| ImportError::Usage(format!("{}: no '{name}' column", path.display())))
    };
    let (c_community, c_level, c_entities) = (col("community")?, col("level")?, col("entity_ids")?);
    let mut out: HashMap<String, Vec<(i64, i64)>> = HashMap::new();
    let bad = |row: usize, column: &str, reason: String| ImportError::Bad {
        file: path.to_owned(),
        line: row as u64 + 1,
        column: Some(column.to_string()),
        reason,
    };
    let mut row = 0;
    for b in &batches {
        for i in 0..b.num_rows() {
            let int = |c: usize, name: &str| match value_at(b.column(c).as_ref(), i) {
                Ok(Some(Value::Int(v))) => Ok(v),
                Ok(Some(Value::Str(s))) => s
                    .trim()
                    .parse::<i64>()
                    .map_err(|_| bad(row, name, format!("'{s}' is not an integer"))),
                Ok(Some(Value::Float(f))) if f.fract() == 0.0 => Ok(f as i64),
                Ok(other) => Err(bad(row, name, format!("expected an integer, found {other:?}"))),
                Err(e) => Err(bad(row, name, e)),
            };
            let (community, level) = (int(c_community, "community")?, int(c_level, "level")?);
            match value_at(b.column(c_entities).as_ref(), i).map_err(|e| bad(row, "entity_ids", e))? {
                Some(Value::List(ids)) => {
                    for id in ids {
                        if let Value::Str(id) = id {
                            out.entry(id).or_default().push((level, community));
                        }
                    }
                }
                None => {}
                Some(other) => return Err(bad(row, "entity_ids", format!("expected a list, found {other:?}"))),
            }
            row += 1;
        }
    }
    for v in out.values_mut() {
        v.sort_unstable();
    }
    Ok(out)
}

/// Reads the entities (and communities) of a GraphRAG output.
pub(crate) fn read_nodes(run: &mut Run, f: &GraphragFiles) -> Result<()> {
    let schema = schema_of(&f.entities)?;
    let key = ["title", "name"]
        .into_iter()
        .find(|c| schema.index_of(c).is_ok())
        .ok_or_else(|| ImportError::Usage(format!("{}: no 'title' or 'name' column", f.entities.display())))?;
    let comm = match &f.communities {
        Some(p) => {
            let c = communities(p)?;
            let size = std::fs::metadata(p).map_or(0, |m| m.len());
            run.bytes.fetch_add(size, std::sync::atomic::Ordering::Relaxed);
            c
        }
        None => HashMap::new(),
    };
    let t = TableInput {
        file: f.entities.clone(),
        spec: None,
        columns: Columns {
            id: key.into(),
            labels: Some("type".into()),
            keep: true,
            ..Columns::default()
        },
        batches: None,
    };
    let mut titles = HashSet::new();
    read_with(run, &t, true, &mut |props| {
        if let Some(Value::Str(title)) = props.get(key) {
            titles.insert(title.clone());
        }
        if let Some(Value::Str(id)) = props.get("id") {
            if let Some(cs) = comm.get(id) {
                let list = cs.iter().map(|&(_, c)| Value::Int(c)).collect();
                props.insert("communities".into(), Value::List(list));
            }
        }
    })?;
    missing_endpoints(run, &f.relationships, titles)
}

/// Adds the relationship endpoints that are not entities, as nodes with only a `title`.
fn missing_endpoints(run: &mut Run, rels: &Path, mut known: HashSet<String>) -> Result<()> {
    let mut row = 0u64;
    for_each_batch(rels, |b| {
        let cols = ["source", "target"].map(|c| (c, b.column_by_name(c)));
        for i in 0..b.num_rows() {
            row += 1;
            for (name, col) in &cols {
                let Some(col) = col else { continue }; // the edge pass reports the missing column
                let Ok(Some(Value::Str(title))) = value_at(col.as_ref(), i) else {
                    continue;
                };
                if title.is_empty() || known.contains(&title) {
                    continue;
                }
                known.insert(title.clone());
                let props = Props::from([("title".to_string(), Value::Str(title.clone()))]);
                match run.load.add_node(NodeKey::Str(title), &[], props) {
                    Ok(()) => {}
                    Err(StoreError::DuplicateNode { .. }) => {} // defined by another input
                    Err(e) => RowCtx { file: rels, line: row }.malformed(&mut run.bad, Some(name), e.to_string())?,
                }
            }
        }
        Ok(())
    })
}

/// Reads the relationships of a GraphRAG output.
pub(crate) fn read_edges(run: &mut Run, f: &GraphragFiles) -> Result<()> {
    let t = TableInput {
        file: f.relationships.clone(),
        spec: Some(EDGE_TYPE.into()),
        columns: Columns {
            src: "source".into(),
            dst: "target".into(),
            ty: None,
            weight: Some("weight".into()),
            keep: true,
            ..Columns::default()
        },
        batches: None,
    };
    read_with(run, &t, false, &mut |_| {})
}
