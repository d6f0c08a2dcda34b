//! Degree and count counters maintained by merge operators (decision 0004).
//!
//! A node's entry in the `deg` column family holds, per edge type, six lanes: out/in/
//! undirected edge counts and their weight sums. An edge change writes a delta as a merge
//! operand (one per endpoint), so no read-modify-write of the counter is needed. `counts`
//! holds single i64 lanes.

use crate::records::TypeId;

/// Counters of one node for one edge type (or for all types).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Deg {
    pub out: i64,
    pub out_w: f64,
    pub inn: i64,
    pub in_w: f64,
    pub und: i64,
    pub und_w: f64,
}

pub(crate) const DEG_BYTES: usize = 48;

impl Deg {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(DEG_BYTES);
        v.extend_from_slice(&self.out.to_le_bytes());
        v.extend_from_slice(&self.out_w.to_le_bytes());
        v.extend_from_slice(&self.inn.to_le_bytes());
        v.extend_from_slice(&self.in_w.to_le_bytes());
        v.extend_from_slice(&self.und.to_le_bytes());
        v.extend_from_slice(&self.und_w.to_le_bytes());
        v
    }

    pub(crate) fn decode(b: &[u8]) -> Option<Deg> {
        if b.len() != DEG_BYTES {
            return None;
        }
        let lane = |i: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[i * 8..i * 8 + 8]);
            a
        };
        Some(Deg {
            out: i64::from_le_bytes(lane(0)),
            out_w: f64::from_le_bytes(lane(1)),
            inn: i64::from_le_bytes(lane(2)),
            in_w: f64::from_le_bytes(lane(3)),
            und: i64::from_le_bytes(lane(4)),
            und_w: f64::from_le_bytes(lane(5)),
        })
    }

    pub(crate) fn add(&mut self, o: &Deg) {
        self.out += o.out;
        self.out_w += o.out_w;
        self.inn += o.inn;
        self.in_w += o.in_w;
        self.und += o.und;
        self.und_w += o.und_w;
    }

    /// `self + o`, `None` when a count overflows i64: only damaged counters can, and the merge
    /// operators then report corruption instead of a wrapped count (or, with overflow checks
    /// on, a panic inside RocksDB's merge callback).
    fn checked_add(&self, o: &Deg) -> Option<Deg> {
        Some(Deg {
            out: self.out.checked_add(o.out)?,
            out_w: self.out_w + o.out_w,
            inn: self.inn.checked_add(o.inn)?,
            in_w: self.in_w + o.in_w,
            und: self.und.checked_add(o.und)?,
            und_w: self.und_w + o.und_w,
        })
    }

    pub(crate) fn is_zero(&self) -> bool {
        *self == Deg::default()
    }
}

/// Every counter of one node: `(type, lanes)` sorted by type.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct DegSet(pub Vec<(TypeId, Deg)>);

const ENTRY_BYTES: usize = 4 + DEG_BYTES;

impl DegSet {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.0.len() * ENTRY_BYTES);
        for (t, d) in &self.0 {
            v.extend_from_slice(&t.to_le_bytes());
            v.extend_from_slice(&d.encode());
        }
        v
    }

    pub(crate) fn decode(b: &[u8]) -> Option<DegSet> {
        if !b.len().is_multiple_of(ENTRY_BYTES) {
            return None;
        }
        let mut out: Vec<(TypeId, Deg)> = Vec::with_capacity(b.len() / ENTRY_BYTES);
        for e in b.chunks_exact(ENTRY_BYTES) {
            let t = TypeId::from_le_bytes(e[..4].try_into().ok()?);
            // The store writes types strictly increasing and every lookup binary-searches
            // them: any other order is damage, not a set to merge.
            if out.last().is_some_and(|(last, _)| *last >= t) {
                return None;
            }
            out.push((t, Deg::decode(&e[4..])?));
        }
        Some(DegSet(out))
    }

    pub(crate) fn add(&mut self, ty: TypeId, d: &Deg) {
        match self.0.binary_search_by_key(&ty, |(t, _)| *t) {
            Ok(i) => self.0[i].1.add(d),
            Err(i) => self.0.insert(i, (ty, *d)),
        }
    }

    pub(crate) fn merge(&mut self, o: &DegSet) {
        for (t, d) in &o.0 {
            self.add(*t, d);
        }
    }

    /// [`DegSet::merge`] for the merge operators: `None` when a count overflows.
    fn checked_merge(&mut self, o: &DegSet) -> Option<()> {
        for (t, d) in &o.0 {
            match self.0.binary_search_by_key(t, |(t, _)| *t) {
                Ok(i) => self.0[i].1 = self.0[i].1.checked_add(d)?,
                Err(i) => self.0.insert(i, (*t, *d)),
            }
        }
        Some(())
    }

    /// Drops types left with no edges (their weight sums are then float residue of zero).
    pub(crate) fn prune(&mut self) {
        self.0.retain(|(_, d)| d.out != 0 || d.inn != 0 || d.und != 0);
    }

    pub(crate) fn of_type(&self, ty: TypeId) -> Deg {
        self.0
            .iter()
            .find(|(t, _)| *t == ty)
            .map(|(_, d)| *d)
            .unwrap_or_default()
    }

    /// Whether the node has an edge of any type in any direction: then it is alive
    /// (deleting a node deletes its edges in the same batch), with no read of its record.
    pub(crate) fn has_edges(&self) -> bool {
        self.0.iter().any(|(_, d)| d.out != 0 || d.inn != 0 || d.und != 0)
    }

    pub(crate) fn total(&self) -> Deg {
        let mut acc = Deg::default();
        self.0.iter().for_each(|(_, d)| acc.add(d));
        acc
    }
}

/// Full merge of the `deg` column family: base plus operands, empty types pruned. `None`
/// (a malformed value) makes RocksDB report corruption instead of a silently wrong count.
pub(crate) fn merge_deg<'a>(base: Option<&[u8]>, operands: impl Iterator<Item = &'a [u8]>) -> Option<Vec<u8>> {
    let mut acc = match base {
        Some(b) => DegSet::decode(b)?,
        None => DegSet::default(),
    };
    for op in operands {
        acc.checked_merge(&DegSet::decode(op)?)?;
    }
    acc.prune();
    Some(acc.encode())
}

/// Partial merge (operands only): nothing is pruned, since a weight-only delta must survive.
pub(crate) fn merge_deg_operands<'a>(operands: impl Iterator<Item = &'a [u8]>) -> Option<Vec<u8>> {
    let mut acc = DegSet::default();
    for op in operands {
        acc.checked_merge(&DegSet::decode(op)?)?;
    }
    Some(acc.encode())
}

pub(crate) fn decode_count(b: &[u8]) -> Option<i64> {
    let a: [u8; 8] = b.try_into().ok()?;
    Some(i64::from_le_bytes(a))
}

/// Merges a base value and operands of the `counts` column family.
pub(crate) fn merge_count<'a>(base: Option<&[u8]>, operands: impl Iterator<Item = &'a [u8]>) -> Option<Vec<u8>> {
    let mut acc = match base {
        Some(b) => decode_count(b)?,
        None => 0,
    };
    for op in operands {
        acc = acc.checked_add(decode_count(op)?)?;
    }
    Some(acc.to_le_bytes().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deg_merge_adds_lanes_per_type_and_rejects_garbage() {
        let set = |t: TypeId, d: Deg| DegSet(vec![(t, d)]).encode();
        let a = Deg {
            out: 2,
            out_w: 1.5,
            ..Deg::default()
        };
        let b = Deg {
            out: -1,
            inn: 3,
            in_w: 2.0,
            ..Deg::default()
        };
        let merged = merge_deg(
            Some(&set(1, a)),
            [set(1, b).as_slice(), set(0, a).as_slice()].into_iter(),
        )
        .unwrap();
        let m = DegSet::decode(&merged).unwrap();
        let one = m.of_type(1);
        assert_eq!((one.out, one.out_w, one.inn, one.in_w), (1, 1.5, 3, 2.0));
        assert_eq!(m.total().out, 3);
        assert_eq!(m.0.iter().map(|e| e.0).collect::<Vec<_>>(), vec![0, 1]);
        // A full merge drops a type left without edges; a partial merge keeps weight-only deltas.
        let gone = Deg {
            out: -1,
            out_w: -1.0,
            ..Deg::default()
        };
        let back = merge_deg(
            Some(&set(
                2,
                Deg {
                    out: 1,
                    out_w: 1.0,
                    ..Deg::default()
                },
            )),
            [set(2, gone).as_slice()].into_iter(),
        )
        .unwrap();
        assert!(DegSet::decode(&back).unwrap().0.is_empty());
        let w = Deg {
            out_w: 2.0,
            ..Deg::default()
        };
        let partial = merge_deg_operands([set(3, w).as_slice()].into_iter()).unwrap();
        assert_eq!(DegSet::decode(&partial).unwrap().of_type(3).out_w, 2.0);
        assert!(merge_deg(Some(b"short"), std::iter::empty()).is_none());
        assert!(merge_count(None, [b"bad".as_slice()].into_iter()).is_none());
        let c = merge_count(None, [5i64.to_le_bytes().as_slice()].into_iter()).unwrap();
        assert_eq!(decode_count(&c), Some(5));
    }

    #[test]
    fn counter_sets_out_of_type_order_are_damage() {
        let one = Deg {
            out: 1,
            ..Deg::default()
        };
        let sorted = DegSet(vec![(1, one), (4, one)]).encode();
        assert_eq!(DegSet::decode(&sorted).unwrap().0.len(), 2);
        for bad in [vec![(4, one), (1, one)], vec![(3, one), (3, one)]] {
            let enc = DegSet(bad).encode();
            assert!(DegSet::decode(&enc).is_none());
            assert!(merge_deg(Some(&sorted), [enc.as_slice()].into_iter()).is_none());
        }
    }
}
