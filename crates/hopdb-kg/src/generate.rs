//! The node and edge streams.

use std::collections::HashSet;

use crate::names::{self, NameKey, ENTITY_TYPES};
use crate::rng::{rng, Rng, Stream};
use crate::zipf::Zipf;
use crate::{
    GenEdge, GenNode, GenValue, KgCounts, KgSpec, Kind, LABEL_CHUNK, LABEL_DOCUMENT, LABEL_ENTITY, TYPE_HAS_CHUNK,
    TYPE_MENTIONS,
};

/// Words per chunk: uniform in this range.
const WORD_COUNT: (u64, u64) = (150, 600);

fn checked_counts(spec: &KgSpec) -> KgCounts {
    match spec.validate() {
        Ok(c) => c,
        Err(e) => panic!("invalid KgSpec (build it with KgSpec::new): {e}"),
    }
}

/// Chunks per document: 1 each, then the other `chunks - documents` spread uniformly.
/// Document `d` owns the next `counts[d]` chunk numbers, in document order.
fn chunks_per_document(spec: &KgSpec, c: &KgCounts) -> Vec<u32> {
    let mut per_doc = vec![1u32; c.documents as usize];
    let mut r = rng(spec.seed, Stream::ChunkAssign);
    for _ in 0..c.chunks - c.documents {
        per_doc[r.below(c.documents) as usize] += 1;
    }
    per_doc
}

/// Mentions per entity (indexed by entity): 1 each, plus `mentions - entities` Zipf(0.75)
/// draws over ranks, capped at the number of chunks (a draw at the cap is redrawn, so
/// the total stays exact), then moved from ranks to entities by a seeded shuffle.
fn mentions_per_entity(spec: &KgSpec, c: &KgCounts) -> Vec<u32> {
    let cap = c.chunks as u32;
    let mut per_rank = vec![1u32; c.entities as usize];
    let zipf = Zipf::new(c.entities);
    let mut r = rng(spec.seed, Stream::MentionCounts);
    for _ in 0..c.mentions - c.entities {
        loop {
            let rank = (zipf.sample(&mut r) - 1) as usize;
            if per_rank[rank] < cap {
                per_rank[rank] += 1;
                break;
            }
        }
    }
    r.shuffle(&mut per_rank);
    per_rank
}

/// Fills `out` with `m` distinct chunk indexes in `0..n`, uniformly (Floyd's
/// algorithm), sorted ascending. `seen` is scratch space for large `m`.
fn distinct_sorted(r: &mut Rng, n: u64, m: u32, out: &mut Vec<u32>, seen: &mut HashSet<u32>) {
    out.clear();
    if m == 1 {
        out.push(r.below(n) as u32);
        return;
    }
    // A short vector beats hashing for the (many) entities with few mentions. The set
    // is only queried, never iterated, so its random hasher cannot leak into the output.
    let use_set = m > 32;
    seen.clear();
    for j in n - u64::from(m)..n {
        let t = r.below(j + 1) as u32;
        let taken = if use_set { seen.contains(&t) } else { out.contains(&t) };
        let pick = if taken { j as u32 } else { t };
        out.push(pick);
        if use_set {
            seen.insert(pick);
        }
    }
    out.sort_unstable();
}

/// All nodes: documents, then chunks, then entities, each in key order.
///
/// The stream keeps one `u32` per document. Documents have a `title`; chunks a
/// `doc_id` (their document's key), an `ordinal` (0-based position in the document),
/// a `word_count` (150..=600) and a `section_title`; entities a `canonical_title`
/// (unique) and an `entity_type`. A document's chunks have consecutive numbers.
///
/// # Panics
/// If `spec` is invalid (see [`KgSpec::new`]).
///
/// ```
/// use hopdb_kg::{nodes, GenValue, KgSpec};
///
/// let spec = KgSpec::new(0.001, 42)?;
/// let all: Vec<_> = nodes(&spec).collect();
/// assert_eq!(all.len(), 50 + 108 + 587);
/// assert_eq!((all[0].key.as_str(), all[0].label), ("doc-1", "Document"));
/// let first_chunk = &all[50];
/// assert_eq!((first_chunk.key.as_str(), first_chunk.label), ("chunk-1", "Chunk"));
/// assert_eq!(first_chunk.prop("doc_id"), Some(&GenValue::Str("doc-1".into())));
/// assert_eq!(first_chunk.prop("ordinal"), Some(&GenValue::Int(0)));
/// assert_eq!(all.last().unwrap().key, "ent-587");
/// # Ok::<(), hopdb_kg::KgError>(())
/// ```
pub fn nodes(spec: &KgSpec) -> impl Iterator<Item = GenNode> {
    let counts = checked_counts(spec);
    NodeIter {
        counts,
        name_key: NameKey::new(spec.seed),
        doc_rng: rng(spec.seed, Stream::DocProps),
        chunk_rng: rng(spec.seed, Stream::ChunkProps),
        entity_rng: rng(spec.seed, Stream::EntityProps),
        chunks_per_doc: chunks_per_document(spec, &counts),
        docs_done: 0,
        chunks_done: 0,
        chunk_doc: 0,
        chunk_ordinal: 0,
        entities_done: 0,
    }
}

struct NodeIter {
    counts: KgCounts,
    name_key: NameKey,
    doc_rng: Rng,
    chunk_rng: Rng,
    entity_rng: Rng,
    chunks_per_doc: Vec<u32>,
    docs_done: u64,
    chunks_done: u64,
    /// Document (0-based) and ordinal of the next chunk.
    chunk_doc: usize,
    chunk_ordinal: u32,
    entities_done: u64,
}

impl Iterator for NodeIter {
    type Item = GenNode;

    fn next(&mut self) -> Option<GenNode> {
        if self.docs_done < self.counts.documents {
            self.docs_done += 1;
            return Some(GenNode {
                key: Kind::Document.key(self.docs_done),
                label: LABEL_DOCUMENT,
                props: vec![("title", GenValue::Str(names::document_title(&mut self.doc_rng)))],
            });
        }
        if self.chunks_done < self.counts.chunks {
            while self.chunk_ordinal == self.chunks_per_doc[self.chunk_doc] {
                self.chunk_doc += 1;
                self.chunk_ordinal = 0;
            }
            let ordinal = self.chunk_ordinal;
            self.chunk_ordinal += 1;
            self.chunks_done += 1;
            let r = &mut self.chunk_rng;
            let word_count = r.range_inclusive(WORD_COUNT.0, WORD_COUNT.1) as i64;
            let section = names::section_title(r, ordinal);
            return Some(GenNode {
                key: Kind::Chunk.key(self.chunks_done),
                label: LABEL_CHUNK,
                props: vec![
                    ("doc_id", GenValue::Str(Kind::Document.key(self.chunk_doc as u64 + 1))),
                    ("ordinal", GenValue::Int(i64::from(ordinal))),
                    ("word_count", GenValue::Int(word_count)),
                    ("section_title", GenValue::Str(section)),
                ],
            });
        }
        if self.entities_done < self.counts.entities {
            let index = self.entities_done as u32;
            self.entities_done += 1;
            let r = &mut self.entity_rng;
            let ty = names::entity_type(r);
            let title = names::entity_title(r, self.name_key, index, ty);
            return Some(GenNode {
                key: Kind::Entity.key(self.entities_done),
                label: LABEL_ENTITY,
                props: vec![
                    ("canonical_title", GenValue::Str(title)),
                    ("entity_type", GenValue::Str(ENTITY_TYPES[ty].0.to_string())),
                ],
            });
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.counts.nodes() - self.docs_done - self.chunks_done - self.entities_done;
        (left as usize, Some(left as usize))
    }
}

/// All edges: the `HAS_CHUNK` edges (document → chunk, in chunk order), then the
/// `MENTIONS` edges (chunk → entity), grouped by entity in entity order, each
/// entity's chunks in ascending order.
///
/// The stream keeps one `u32` per document and one per entity (its mention count),
/// plus the chunk list of the entity being emitted; it never holds the edges.
/// Creating it draws every entity's mention count, a small part of the stream's cost.
///
/// # Panics
/// If `spec` is invalid (see [`KgSpec::new`]).
///
/// ```
/// use hopdb_kg::{edges, KgSpec};
///
/// let spec = KgSpec::new(0.001, 42)?;
/// let c = spec.counts();
/// let all: Vec<_> = edges(&spec).collect();
/// assert_eq!(all.len() as u64, c.has_chunk + c.mentions);
/// assert_eq!((all[0].src.as_str(), all[0].dst.as_str(), all[0].ty), ("doc-1", "chunk-1", "HAS_CHUNK"));
/// let mentions = &all[c.has_chunk as usize..];
/// assert!(mentions.iter().all(|e| e.ty == "MENTIONS" && e.src.starts_with("chunk-") && e.dst.starts_with("ent-")));
/// # Ok::<(), hopdb_kg::KgError>(())
/// ```
pub fn edges(spec: &KgSpec) -> impl Iterator<Item = GenEdge> {
    let counts = checked_counts(spec);
    EdgeIter {
        counts,
        chunks_per_doc: chunks_per_document(spec, &counts),
        doc: 0,
        ordinal: 0,
        has_chunk_done: 0,
        mentions_per_entity: mentions_per_entity(spec, &counts),
        target_rng: rng(spec.seed, Stream::MentionTargets),
        entity: 0,
        targets: Vec::new(),
        next_target: 0,
        seen: HashSet::new(),
        mentions_done: 0,
    }
}

struct EdgeIter {
    counts: KgCounts,
    chunks_per_doc: Vec<u32>,
    /// Document (0-based) and ordinal of the next `HAS_CHUNK` edge's chunk.
    doc: usize,
    ordinal: u32,
    has_chunk_done: u64,
    mentions_per_entity: Vec<u32>,
    target_rng: Rng,
    /// Entity whose chunks are in `targets`, 0-based (`entity - 1` once started).
    entity: usize,
    targets: Vec<u32>,
    next_target: usize,
    seen: HashSet<u32>,
    mentions_done: u64,
}

impl Iterator for EdgeIter {
    type Item = GenEdge;

    fn next(&mut self) -> Option<GenEdge> {
        if self.has_chunk_done < self.counts.has_chunk {
            while self.ordinal == self.chunks_per_doc[self.doc] {
                self.doc += 1;
                self.ordinal = 0;
            }
            self.ordinal += 1;
            self.has_chunk_done += 1;
            return Some(GenEdge {
                src: Kind::Document.key(self.doc as u64 + 1),
                dst: Kind::Chunk.key(self.has_chunk_done),
                ty: TYPE_HAS_CHUNK,
            });
        }
        while self.next_target == self.targets.len() {
            if self.entity == self.mentions_per_entity.len() {
                return None;
            }
            distinct_sorted(
                &mut self.target_rng,
                self.counts.chunks,
                self.mentions_per_entity[self.entity],
                &mut self.targets,
                &mut self.seen,
            );
            self.next_target = 0;
            self.entity += 1;
        }
        let chunk = self.targets[self.next_target];
        self.next_target += 1;
        self.mentions_done += 1;
        Some(GenEdge {
            src: Kind::Chunk.key(u64::from(chunk) + 1),
            dst: Kind::Entity.key(self.entity as u64),
            ty: TYPE_MENTIONS,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.counts.edges() - self.has_chunk_done - self.mentions_done;
        (left as usize, Some(left as usize))
    }
}

/// `n` distinct keys of `kind`, chosen uniformly at random and returned in random
/// order; all of them (shuffled) if the graph has at most `n`. Depends only on the
/// number of nodes of `kind` in `spec` (not on `spec.seed`), on `n` and on `seed`,
/// so a benchmark's seed pools are the same for every graph seed.
///
/// ```
/// use hopdb_kg::{sample_keys, KgSpec, Kind};
///
/// let spec = KgSpec::new(1.0, 42)?;
/// let pool = sample_keys(&spec, Kind::Entity, 100, 7);
/// assert_eq!(pool.len(), 100);
/// assert!(pool.iter().all(|k| k.starts_with("ent-")));
/// assert_eq!(pool, sample_keys(&spec, Kind::Entity, 100, 7));
/// assert_ne!(pool, sample_keys(&spec, Kind::Entity, 100, 8));
/// # Ok::<(), hopdb_kg::KgError>(())
/// ```
pub fn sample_keys(spec: &KgSpec, kind: Kind, n: usize, seed: u64) -> Vec<String> {
    let population = kind.count(&spec.counts());
    let stream = match kind {
        Kind::Document => Stream::SampleDocuments,
        Kind::Chunk => Stream::SampleChunks,
        Kind::Entity => Stream::SampleEntities,
    };
    let mut r = rng(seed, stream);
    let mut picked: Vec<u64> = if n as u64 >= population {
        (0..population).collect()
    } else {
        // Floyd's algorithm; the set is only queried, so its hasher cannot matter.
        let mut seen = HashSet::with_capacity(n);
        let mut picked = Vec::with_capacity(n);
        for j in population - n as u64..population {
            let t = r.below(j + 1);
            let pick = if seen.contains(&t) { j } else { t };
            seen.insert(pick);
            picked.push(pick);
        }
        picked
    };
    r.shuffle(&mut picked);
    picked.into_iter().map(|i| kind.key(i + 1)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_sorted_is_distinct_sorted_and_in_range() {
        let mut r = rng(5, Stream::MentionTargets);
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        for (n, m) in [(1u64, 1u32), (10, 10), (100, 33), (100, 5), (1000, 999), (50, 49)] {
            distinct_sorted(&mut r, n, m, &mut out, &mut seen);
            assert_eq!(out.len(), m as usize);
            assert!(out.windows(2).all(|w| w[0] < w[1]), "{out:?}");
            assert!(out.iter().all(|&c| u64::from(c) < n));
        }
    }

    #[test]
    fn distinct_sorted_is_roughly_uniform() {
        let mut r = rng(9, Stream::MentionTargets);
        let (mut out, mut seen) = (Vec::new(), HashSet::new());
        let mut hits = [0u32; 50];
        for round in 0..20_000 {
            // Both paths: a short vector (m <= 32) and the hash set (m > 32).
            let m = if round % 2 == 0 { 3 } else { 40 };
            distinct_sorted(&mut r, 50, m, &mut out, &mut seen);
            for &c in &out {
                hits[c as usize] += 1;
            }
        }
        // Each slot: 10,000 * 3/50 + 10,000 * 40/50 = 8,600 expected (sd about 47).
        assert!(hits.iter().all(|&h| (8_350..8_850).contains(&h)), "{hits:?}");
    }

    #[test]
    fn mention_counts_respect_the_cap_and_the_total() {
        let spec = KgSpec::new(0.001, 3).unwrap();
        let c = spec.counts();
        let per = mentions_per_entity(&spec, &c);
        assert_eq!(per.len() as u64, c.entities);
        assert_eq!(per.iter().map(|&m| u64::from(m)).sum::<u64>(), c.mentions);
        assert!(per.iter().all(|&m| m >= 1 && u64::from(m) <= c.chunks));
    }

    #[test]
    fn capped_mention_counts_stay_exact() {
        // A made-up tiny graph where the cap binds hard: 3 chunks, 4 entities,
        // 11 mentions out of 12 possible pairs.
        let spec = KgSpec { scale: 1.0, seed: 1 };
        let c = KgCounts {
            documents: 1,
            chunks: 3,
            entities: 4,
            mentions: 11,
            has_chunk: 3,
        };
        let per = mentions_per_entity(&spec, &c);
        assert_eq!(per.iter().sum::<u32>(), 11);
        assert!(per.iter().all(|&m| (1..=3).contains(&m)));
    }
}
