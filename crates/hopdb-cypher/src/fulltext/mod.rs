//! Full-text search over a full-text index's nodes (`db.index.fulltext.queryNodes`), scored
//! as Lucene scores (BM25 with k1 = 1.2, b = 0.75, field lengths quantized as Lucene stores
//! them), so a query ranks nodes as the same query on Neo4j does.
//!
//! The store keeps the index's definition only (decision 0022): a search reads the text of
//! the labelled nodes in the query's snapshot, so results are never stale, at a cost linear
//! in the indexed text (milliseconds for tens of thousands of short values).

pub(crate) mod analyzer;
pub(crate) mod query;

use crate::error::{CypherError, ErrorClass, Result};
use analyzer::Analyzer;
use hopdb_database::{FulltextIndexDef, GraphRead, NodeKey, Value as Stored};
use query::{Clause, Matcher, Occur};
use rustc_hash::{FxHashMap, FxHashSet};

const K1: f32 = 1.2;
const B: f32 = 0.75;

/// A document: one node's terms per indexed property (empty when it has none).
struct Doc {
    key: NodeKey,
    fields: Vec<Vec<String>>,
}

pub(crate) fn failed(msg: impl std::fmt::Display) -> CypherError {
    CypherError::runtime(
        ErrorClass::ProcedureError,
        "ProcedureCallFailed",
        format!("Failed to invoke procedure `db.index.fulltext.queryNodes`: {msg}"),
    )
}

/// The analyzer a definition names.
pub(crate) fn analyzer_of(def: &FulltextIndexDef) -> Result<Analyzer> {
    Analyzer::named(&def.analyzer).ok_or_else(|| failed(format!("unknown analyzer `{}`", def.analyzer)))
}

/// The nodes of `def` matching `text`, best first (ties in node id order), with their scores.
pub(crate) fn search(
    g: &dyn GraphRead,
    def: &FulltextIndexDef,
    text: &str,
    check: &dyn Fn() -> Result<()>,
) -> Result<Vec<(NodeKey, f64)>> {
    let analyzer = analyzer_of(def)?;
    let clauses = query::parse(text, analyzer).map_err(|why| {
        failed(format!(
            "cannot parse the full-text query {text:?}: {why} is not supported by HopDB"
        ))
    })?;
    let docs = documents(g, def, analyzer, check)?;
    let stats = FieldStats::new(&docs, def.properties.len());
    let fields_of = |c: &Clause| -> Vec<usize> {
        match &c.field {
            None => (0..def.properties.len()).collect(),
            Some(f) => def.properties.iter().position(|p| p == f).into_iter().collect(),
        }
    };
    // Document frequencies of the query's plain terms, per field.
    let mut df: FxHashMap<(usize, &str), u32> = FxHashMap::default();
    for c in &clauses {
        let terms: &[String] = match &c.matcher {
            Matcher::Terms(t) | Matcher::Phrase(t) => t,
            Matcher::Pattern(_) => &[],
        };
        for f in fields_of(c) {
            for t in terms {
                df.entry((f, t.as_str()))
                    .or_insert_with(|| docs.iter().filter(|d| d.fields[f].iter().any(|x| x == t)).count() as u32);
            }
        }
    }
    let has_must = clauses.iter().any(|c| c.occur == Occur::Must);
    let mut hits = Vec::new();
    'docs: for d in &docs {
        let mut score = 0f32;
        let mut any = false;
        for c in &clauses {
            let mut s: Option<f32> = None;
            for f in fields_of(c) {
                let field = &d.fields[f];
                if field.is_empty() {
                    continue;
                }
                let part = match &c.matcher {
                    Matcher::Terms(terms) => terms
                        .iter()
                        .filter_map(|t| {
                            let freq = field.iter().filter(|x| *x == t).count();
                            (freq > 0).then(|| stats.bm25(f, df[&(f, t.as_str())], freq, field.len()))
                        })
                        .reduce(|a, b| a + b),
                    Matcher::Phrase(terms) => {
                        let freq = field.windows(terms.len()).filter(|w| *w == terms.as_slice()).count();
                        (freq > 0).then(|| {
                            let idf: f32 = terms.iter().map(|t| stats.idf(f, df[&(f, t.as_str())])).sum();
                            stats.bm25_with_idf(f, idf, freq, field.len())
                        })
                    }
                    // Constant score, as Lucene rewrites a multi-term query.
                    Matcher::Pattern(p) => field.iter().any(|t| query::pattern_matches(p, t)).then_some(1.0),
                };
                if let Some(p) = part {
                    s = Some(s.unwrap_or(0.0) + p);
                }
            }
            match (c.occur, s) {
                (Occur::MustNot, Some(_)) | (Occur::Must, None) => continue 'docs,
                (Occur::MustNot, None) | (Occur::Should, None) => {}
                (_, Some(v)) => {
                    score += v;
                    any = true;
                }
            }
        }
        if any || (has_must && clauses.iter().all(|c| c.occur != Occur::Should)) {
            hits.push((g.node_id(&d.key)?.unwrap_or(u64::MAX), d.key.clone(), f64::from(score)));
        }
    }
    hits.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
    Ok(hits.into_iter().map(|(_, k, s)| (k, s)).collect())
}

/// Every node with one of the index's labels that has an indexed property, analyzed.
fn documents(
    g: &dyn GraphRead,
    def: &FulltextIndexDef,
    analyzer: Analyzer,
    check: &dyn Fn() -> Result<()>,
) -> Result<Vec<Doc>> {
    let mut seen: FxHashSet<NodeKey> = FxHashSet::default();
    let mut docs = Vec::new();
    let mut failure = None;
    for label in &def.labels {
        g.for_each_node(Some(label), &mut |n| {
            if let Err(e) = check() {
                failure = Some(e);
                return false;
            }
            if !seen.insert(n.key.clone()) {
                return true;
            }
            let mut present = false;
            let fields = def
                .properties
                .iter()
                .map(|p| {
                    let mut terms = Vec::new();
                    match n.props.get(p) {
                        Some(Stored::Str(s)) => {
                            present = true;
                            terms = analyzer.terms(s);
                        }
                        Some(Stored::List(items)) => {
                            for i in items {
                                if let Stored::Str(s) = i {
                                    present = true;
                                    terms.extend(analyzer.terms(s));
                                }
                            }
                        }
                        _ => {}
                    }
                    terms
                })
                .collect();
            if present {
                docs.push(Doc { key: n.key, fields });
            }
            true
        })?;
        if let Some(e) = failure.take() {
            return Err(e);
        }
    }
    Ok(docs)
}

/// Per field: documents with at least one term, and the average length.
struct FieldStats {
    doc_count: Vec<u32>,
    avgdl: Vec<f32>,
}

impl FieldStats {
    fn new(docs: &[Doc], fields: usize) -> Self {
        let mut doc_count = vec![0u32; fields];
        let mut total = vec![0u64; fields];
        for d in docs {
            for (f, terms) in d.fields.iter().enumerate() {
                if !terms.is_empty() {
                    doc_count[f] += 1;
                    total[f] += terms.len() as u64;
                }
            }
        }
        let avgdl = (0..fields)
            .map(|f| {
                if doc_count[f] == 0 {
                    1.0
                } else {
                    (total[f] as f64 / f64::from(doc_count[f])) as f32
                }
            })
            .collect();
        Self { doc_count, avgdl }
    }

    /// Lucene's BM25 idf.
    fn idf(&self, field: usize, df: u32) -> f32 {
        let n = f64::from(self.doc_count[field]);
        let df = f64::from(df);
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln() as f32
    }

    fn bm25(&self, field: usize, df: u32, freq: usize, len: usize) -> f32 {
        self.bm25_with_idf(field, self.idf(field, df), freq, len)
    }

    /// `idf * freq / (freq + k1 * (1 - b + b * len / avgdl))`, computed as Lucene 9's
    /// BM25Scorer does (the length as its one-byte norm stores it).
    fn bm25_with_idf(&self, field: usize, idf: f32, freq: usize, len: usize) -> f32 {
        let dl = byte4_to_int(int_to_byte4(len as u32)) as f32;
        let norm_inverse = 1.0f32 / (K1 * ((1.0 - B) + B * dl / self.avgdl[field]));
        let weight = f64::from(idf);
        (weight - weight / (1.0 + freq as f64 * f64::from(norm_inverse))) as f32
    }
}

// Lucene's SmallFloat: field lengths are stored in one byte (exact below 24, then four
// significant bits).
fn long_to_int4(i: u64) -> u32 {
    let bits = 64 - i.leading_zeros();
    if bits < 4 {
        i as u32
    } else {
        let shift = bits - 4;
        ((i >> shift) as u32 & 0x07) | ((shift + 1) << 3)
    }
}

fn int4_to_long(i: u32) -> u64 {
    let bits = u64::from(i & 0x07);
    let shift = (i >> 3) as i32 - 1;
    if shift == -1 {
        bits
    } else {
        (bits | 0x08) << shift
    }
}

fn num_free_values() -> u32 {
    255 - long_to_int4(i32::MAX as u64)
}

fn int_to_byte4(i: u32) -> u32 {
    let free = num_free_values();
    if i < free {
        i
    } else {
        free + long_to_int4(u64::from(i - free))
    }
}

fn byte4_to_int(b: u32) -> u64 {
    let free = num_free_values();
    if b < free {
        u64::from(b)
    } else {
        u64::from(free) + int4_to_long(b - free)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_round_as_lucene_norms() {
        assert_eq!(num_free_values(), 24);
        for n in 0..24 {
            assert_eq!(byte4_to_int(int_to_byte4(n)), u64::from(n));
        }
        // Above 23 the excess over 24 keeps four significant bits: rounded down, by less
        // than an eighth; the mapping never decreases.
        let mut last = 0;
        for n in 24..10_000u32 {
            let r = byte4_to_int(int_to_byte4(n));
            let excess = u64::from(n - 24);
            assert!(r <= u64::from(n) && (r - 24) * 8 >= excess * 7, "{n} -> {r}");
            assert!(r >= last);
            last = r;
        }
    }
}
