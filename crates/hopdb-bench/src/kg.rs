//! The LightRAG-shaped knowledge graph in a HopDB store: loading it from the generator, and
//! the eight-engine study's retrieval queries (Q1-Q7) and LightRAG's storage-call mix, written
//! against the store's read API (the demo times them; the load generator's tests load with it).

use hopdb_database::{BulkOptions, Direction, Graph, GraphRead, Node, NodeKey, Props, Result, Value, WriteMode};
use hopdb_kg::{GenNode, GenValue, KgSpec, TYPE_HAS_CHUNK, TYPE_MENTIONS};
use std::collections::{HashMap, HashSet};

fn props_of(n: GenNode) -> (NodeKey, &'static str, Props) {
    let props: Props = n
        .props
        .into_iter()
        .map(|(k, v)| {
            let v = match v {
                GenValue::Int(i) => Value::Int(i),
                GenValue::Str(s) => Value::Str(s),
            };
            (k.to_string(), v)
        })
        .collect();
    (NodeKey::Str(n.key), n.label, props)
}

/// Loads the generated graph with the bulk loader (atomic: all or nothing); `progress` gets
/// rows added so far.
pub fn load(g: &Graph, spec: &KgSpec, mut progress: impl FnMut(u64)) -> Result<(u64, u64)> {
    let mut load = g.bulk_load(BulkOptions::default())?;
    for n in hopdb_kg::nodes(spec) {
        let (key, label, props) = props_of(n);
        load.add_node(key, &[label], props)?;
        if load.rows() % 65_536 == 0 {
            progress(load.rows());
        }
    }
    for e in hopdb_kg::edges(spec) {
        load.add_edge(NodeKey::Str(e.src), e.ty, NodeKey::Str(e.dst), None, Props::new())?;
        if load.rows() % 65_536 == 0 {
            progress(load.rows());
        }
    }
    progress(load.rows());
    let s = load.finish()?;
    Ok((s.nodes_created, s.edges_created))
}

/// Q1: point lookup of a chunk.
pub fn q1_chunk(g: &impl GraphRead, chunk: &NodeKey) -> Result<Option<Node>> {
    g.node(chunk)
}

/// Q2: the entities a chunk mentions, LIMIT 50.
pub fn q2_chunk_entities(g: &impl GraphRead, chunk: &NodeKey) -> Result<Vec<NodeKey>> {
    g.neighbors(chunk, Direction::Out, Some(TYPE_MENTIONS), Some(50))
}

/// Q3: the chunks mentioning an entity, LIMIT 50.
pub fn q3_entity_chunks(g: &impl GraphRead, entity: &NodeKey) -> Result<Vec<NodeKey>> {
    g.neighbors(entity, Direction::In, Some(TYPE_MENTIONS), Some(50))
}

/// Q4: chunk -> entities -> other chunks, DISTINCT, LIMIT 50.
pub fn q4_two_hop(g: &impl GraphRead, chunk: &NodeKey) -> Result<Vec<NodeKey>> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for e in g.neighbors(chunk, Direction::Out, Some(TYPE_MENTIONS), None)? {
        for c in g.neighbors(&e, Direction::In, Some(TYPE_MENTIONS), Some(51))? {
            if c != *chunk && seen.insert(c.clone()) {
                out.push(c);
                if out.len() == 50 {
                    return Ok(out);
                }
            }
        }
    }
    Ok(out)
}

/// Q5: the chunks of a document.
pub fn q5_doc_chunks(g: &impl GraphRead, doc: &NodeKey) -> Result<Vec<NodeKey>> {
    g.neighbors(doc, Direction::Out, Some(TYPE_HAS_CHUNK), None)
}

/// Q6: chunks sharing entities with a chunk, with the number shared, top 10 (ties by key).
pub fn q6_co_entity(g: &impl GraphRead, chunk: &NodeKey) -> Result<Vec<(NodeKey, u64)>> {
    let mut counts: HashMap<NodeKey, u64> = HashMap::new();
    for e in g.neighbors(chunk, Direction::Out, Some(TYPE_MENTIONS), None)? {
        for c in g.neighbors(&e, Direction::In, Some(TYPE_MENTIONS), None)? {
            if c != *chunk {
                *counts.entry(c).or_default() += 1;
            }
        }
    }
    let mut v: Vec<(NodeKey, u64)> = counts.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v.truncate(10);
    Ok(v)
}

/// Q7: 5 seed entities -> their chunks -> the entities of those chunks, DISTINCT, LIMIT 50.
pub fn q7_multi_seed(g: &impl GraphRead, seeds: &[NodeKey]) -> Result<Vec<NodeKey>> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for s in seeds {
        for c in g.neighbors(s, Direction::In, Some(TYPE_MENTIONS), None)? {
            for e in g.neighbors(&c, Direction::Out, Some(TYPE_MENTIONS), None)? {
                if seen.insert(e.clone()) {
                    out.push(e);
                    if out.len() == 50 {
                        return Ok(out);
                    }
                }
            }
        }
    }
    Ok(out)
}

/// One call of LightRAG's storage mix (get_node 35%, get_node_edges 25%, upsert_node 15%,
/// node_degree 15%, has_node 10%), chosen by `dice` in 0..100. Returns the items touched.
pub fn lightrag_call(g: &Graph, dice: u32, entity: &NodeKey) -> Result<usize> {
    Ok(match dice {
        0..35 => g.node(entity)?.map_or(0, |_| 1),
        35..60 => g.edges(entity, Direction::Both, None, None)?.len(),
        60..75 => {
            g.upsert_node(
                entity.clone(),
                &["Entity"],
                hopdb_database::props([("description", Value::from("updated by the LightRAG mix"))]),
                WriteMode::Merge,
            )?;
            1
        }
        75..90 => g.degree(entity, Direction::Both, None)?.count as usize,
        _ => usize::from(g.has_node(entity)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_agree_with_the_generated_edges() {
        let spec = KgSpec::new(0.002, 7).unwrap();
        let g = Graph::in_memory();
        let (n, e) = load(&g, &spec, |_| {}).unwrap();
        let counts = spec.counts();
        assert_eq!((n, e), (counts.nodes(), counts.edges()));
        assert_eq!((g.node_count().unwrap(), g.edge_count().unwrap()), (n, e));
        // Reference adjacency straight from the generator.
        let mut mentions: HashMap<String, Vec<String>> = HashMap::new();
        let mut mentioned_by: HashMap<String, Vec<String>> = HashMap::new();
        let mut chunks_of: HashMap<String, Vec<String>> = HashMap::new();
        for e in hopdb_kg::edges(&spec) {
            if e.ty == TYPE_MENTIONS {
                mentions.entry(e.src.clone()).or_default().push(e.dst.clone());
                mentioned_by.entry(e.dst).or_default().push(e.src);
            } else {
                chunks_of.entry(e.src).or_default().push(e.dst);
            }
        }
        let sorted = |mut v: Vec<String>| {
            v.sort();
            v
        };
        let keys = |v: Vec<NodeKey>| {
            sorted(
                v.into_iter()
                    .map(|k| if let NodeKey::Str(s) = k { s } else { unreachable!() })
                    .collect(),
            )
        };
        for (chunk, ents) in mentions.iter().take(50) {
            let ck = NodeKey::from(chunk.as_str());
            let got = q2_chunk_entities(&g, &ck).unwrap();
            assert_eq!(got.len(), ents.len().min(50));
            if ents.len() <= 50 {
                assert_eq!(keys(got), sorted(ents.clone()));
            }
            // Q6 against a direct count.
            let mut want: HashMap<&String, u64> = HashMap::new();
            for e in ents {
                for c in &mentioned_by[e] {
                    if c != chunk {
                        *want.entry(c).or_default() += 1;
                    }
                }
            }
            let got6 = q6_co_entity(&g, &ck).unwrap();
            for (c, n) in &got6 {
                let NodeKey::Str(c) = c else { unreachable!() };
                assert_eq!(want[c], *n);
            }
            let best = want.values().max().copied().unwrap_or(0);
            assert_eq!(got6.first().map_or(0, |x| x.1), best);
            let q4 = q4_two_hop(&g, &ck).unwrap();
            assert_eq!(q4.len(), want.len().min(50));
        }
        for (doc, chunks) in chunks_of.iter().take(20) {
            assert_eq!(
                keys(q5_doc_chunks(&g, &NodeKey::from(doc.as_str())).unwrap()),
                sorted(chunks.clone())
            );
        }
        for (ent, chunks) in mentioned_by.iter().take(20) {
            let got = q3_entity_chunks(&g, &NodeKey::from(ent.as_str())).unwrap();
            assert_eq!(got.len(), chunks.len().min(50));
        }
        let seeds: Vec<NodeKey> = mentioned_by.keys().take(5).map(|s| NodeKey::from(s.as_str())).collect();
        let q7 = q7_multi_seed(&g, &seeds).unwrap();
        let mut reach = HashSet::new();
        for s in &seeds {
            let NodeKey::Str(s) = s else { unreachable!() };
            for c in &mentioned_by[s] {
                reach.extend(mentions[c].iter().cloned());
            }
        }
        assert_eq!(q7.len(), reach.len().min(50));
        assert!(q7.iter().all(|k| matches!(k, NodeKey::Str(s) if reach.contains(s))));
        assert!(g.check().unwrap().is_ok());
    }
}
