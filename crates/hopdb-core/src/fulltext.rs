//! Full-text index definitions. The store keeps each definition (name, labels, properties,
//! analyzer) in its `meta` column family, written and read in transactions like any other
//! schema entry; hopdb-cypher analyses the text and answers `db.index.fulltext.queryNodes`.

use crate::error::{Error, Result};
use crate::records::META_FULLTEXT_PREFIX;

/// A full-text index over the string properties of the nodes with any of its labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FulltextIndexDef {
    /// The index's name (unique among full-text indexes).
    pub name: String,
    /// The labels whose nodes it covers (a node with any of them).
    pub labels: Vec<String>,
    /// The properties it reads (string values, and lists of strings).
    pub properties: Vec<String>,
    /// The analyzer's name (how text becomes terms).
    pub analyzer: String,
}

const VERSION: u8 = 1;

pub(crate) fn def_key(name: &str) -> Vec<u8> {
    let mut k = META_FULLTEXT_PREFIX.to_vec();
    k.extend_from_slice(name.as_bytes());
    k
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_be_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn put_list(out: &mut Vec<u8>, items: &[String]) {
    out.extend_from_slice(&(items.len() as u32).to_be_bytes());
    for i in items {
        put_str(out, i);
    }
}

pub(crate) fn encode(def: &FulltextIndexDef) -> Vec<u8> {
    let mut out = vec![VERSION];
    put_list(&mut out, &def.labels);
    put_list(&mut out, &def.properties);
    put_str(&mut out, &def.analyzer);
    out
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn u32(&mut self) -> Option<usize> {
        let (head, rest) = self.0.split_first_chunk::<4>()?;
        self.0 = rest;
        Some(u32::from_be_bytes(*head) as usize)
    }
    fn str(&mut self) -> Option<String> {
        let n = self.u32()?;
        let bytes = self.0.get(..n)?;
        self.0 = self.0.get(n..)?;
        String::from_utf8(bytes.to_vec()).ok()
    }
    fn list(&mut self) -> Option<Vec<String>> {
        let n = self.u32()?;
        if n > self.0.len() {
            return None;
        }
        (0..n).map(|_| self.str()).collect()
    }
}

pub(crate) fn decode(key: &[u8], value: &[u8]) -> Option<FulltextIndexDef> {
    let name = std::str::from_utf8(key.strip_prefix(META_FULLTEXT_PREFIX)?).ok()?;
    let (&version, rest) = value.split_first()?;
    if version != VERSION {
        return None;
    }
    let mut r = Reader(rest);
    let def = FulltextIndexDef {
        name: name.to_string(),
        labels: r.list()?,
        properties: r.list()?,
        analyzer: r.str()?,
    };
    r.0.is_empty().then_some(def)
}

/// Checks a definition before it is stored.
pub(crate) fn validate(def: &FulltextIndexDef) -> Result<()> {
    let bad = |what: &'static str, why: &str| Err(Error::invalid(what, why));
    if def.name.is_empty() {
        return bad("full-text index name", "must not be empty");
    }
    if def.labels.is_empty() || def.labels.iter().any(String::is_empty) {
        return bad("full-text index labels", "need at least one label, none empty");
    }
    if def.properties.is_empty() || def.properties.iter().any(String::is_empty) {
        return bad("full-text index properties", "need at least one property, none empty");
    }
    if def.analyzer.is_empty() {
        return bad("full-text index analyzer", "must not be empty");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_damage() {
        let def = FulltextIndexDef {
            name: "entity_id_fulltext_idx_base".into(),
            labels: vec!["base".into(), "Other label".into()],
            properties: vec!["entity_id".into()],
            analyzer: "cjk".into(),
        };
        let (k, v) = (def_key(&def.name), encode(&def));
        assert_eq!(decode(&k, &v), Some(def));
        for cut in 0..v.len() {
            assert_eq!(decode(&k, &v[..cut]), None, "cut at {cut}");
        }
        let mut longer = v.clone();
        longer.push(0);
        assert_eq!(decode(&k, &longer), None);
    }
}
