//! Degree and count counters, kept exact under concurrent-free merges (decision 0004).
//!
//! Each `(node, type)` in the `deg` column family holds six lanes: out/in/undirected edge
//! counts and their weight sums. An edge change writes a delta as a merge operand, so no
//! read-modify-write of the counter is needed. `counts` holds single i64 lanes.

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

    pub(crate) fn is_zero(&self) -> bool {
        *self == Deg::default()
    }
}

/// Merges a base value and operands of the `deg` column family. `None` (a malformed value)
/// makes RocksDB report corruption instead of silently producing a wrong count.
pub(crate) fn merge_deg<'a>(base: Option<&[u8]>, operands: impl Iterator<Item = &'a [u8]>) -> Option<Vec<u8>> {
    let mut acc = match base {
        Some(b) => Deg::decode(b)?,
        None => Deg::default(),
    };
    for op in operands {
        acc.add(&Deg::decode(op)?);
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
        acc += decode_count(op)?;
    }
    Some(acc.to_le_bytes().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deg_merge_adds_lanes_and_rejects_garbage() {
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
        let merged = merge_deg(Some(&a.encode()), [b.encode().as_slice()].into_iter()).unwrap();
        let m = Deg::decode(&merged).unwrap();
        assert_eq!((m.out, m.out_w, m.inn, m.in_w), (1, 1.5, 3, 2.0));
        assert!(merge_deg(Some(b"short"), std::iter::empty()).is_none());
        assert!(merge_count(None, [b"bad".as_slice()].into_iter()).is_none());
        let c = merge_count(None, [5i64.to_le_bytes().as_slice()].into_iter()).unwrap();
        assert_eq!(decode_count(&c), Some(5));
    }
}
