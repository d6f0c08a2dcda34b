//! Adjacency segments (decision 0055): one node's edges in one direction as one value, so a
//! listing is a point read and a sequential decode instead of an iterator step per edge.
//!
//! Layout, all integers little-endian and fixed-width so a segment is read in place:
//! ```text
//! n: u32            entries
//! t: u32            type runs
//! t x (ty: u32, end: u32)   each run's type id and the index one past its last entry
//! n x nbr: u64      neighbour ids, sorted within a run
//! n x eid: u64      edge ids (0 for simple types), sorted within a neighbour
//! n x end: u32      the end of each entry's record in the blob
//! blob              the records, each an adjacency value byte for byte (`EdgeRec`)
//! ```
//! Columns keep an edge test's binary search on the neighbour ids alone, and the record ends
//! let a listing slice each record without decoding the ones before it.

use crate::error::{corrupt_rec, Result};
use crate::model::Edge;
use crate::read::Side;
use crate::records::{EdgeRec, NodeId, TypeId};
use crate::value::NodeKey;
use std::ops::Range;
use std::sync::Arc;

/// One entry to encode: type, neighbour, edge id, record.
pub(crate) type SegmentInput<'a> = (TypeId, NodeId, u64, &'a [u8]);

/// Encodes entries sorted by (type, neighbour, edge id); the order is the caller's to keep
/// (debug builds assert it).
pub(crate) fn encode(entries: &[SegmentInput<'_>]) -> Vec<u8> {
    debug_assert!(entries
        .windows(2)
        .all(|w| (w[0].0, w[0].1, w[0].2) < (w[1].0, w[1].1, w[1].2)));
    let n = entries.len();
    let mut runs: Vec<(TypeId, u32)> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        match runs.last_mut() {
            Some((ty, end)) if *ty == e.0 => *end = i as u32 + 1,
            _ => runs.push((e.0, i as u32 + 1)),
        }
    }
    let blob_len: usize = entries.iter().map(|e| e.3.len()).sum();
    let mut v = Vec::with_capacity(8 + 8 * runs.len() + 20 * n + blob_len);
    v.extend_from_slice(&(n as u32).to_le_bytes());
    v.extend_from_slice(&(runs.len() as u32).to_le_bytes());
    for (ty, end) in &runs {
        v.extend_from_slice(&ty.to_le_bytes());
        v.extend_from_slice(&end.to_le_bytes());
    }
    for e in entries {
        v.extend_from_slice(&e.1.to_le_bytes());
    }
    for e in entries {
        v.extend_from_slice(&e.2.to_le_bytes());
    }
    let mut end = 0u32;
    for e in entries {
        end += e.3.len() as u32;
        v.extend_from_slice(&end.to_le_bytes());
    }
    for e in entries {
        v.extend_from_slice(e.3);
    }
    v
}

/// One decoded entry, borrowing its record from the segment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Entry<'a> {
    pub ty: TypeId,
    pub nbr: NodeId,
    pub eid: u64,
    pub record: &'a [u8],
}

/// A segment checked for shape (lengths, runs of increasing types, run and record ends in
/// range and in order), read in place. Entry order within a run is not checked here (`hopdb check` compares segments with the per-edge
/// entries they copy).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Segment<'a> {
    b: &'a [u8],
    n: usize,
    runs: usize,
    nbr_at: usize,
    eid_at: usize,
    end_at: usize,
    blob_at: usize,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

impl<'a> Segment<'a> {
    pub(crate) fn parse(b: &'a [u8]) -> Result<Segment<'a>> {
        let bad = || corrupt_rec("adjacency segment");
        if b.len() < 8 {
            return Err(bad());
        }
        let n = u32_at(b, 0) as usize;
        let runs = u32_at(b, 4) as usize;
        // Sizes in u64 so a damaged count cannot wrap the arithmetic.
        let fixed = 8 + 8 * runs as u64 + 20 * n as u64;
        if fixed > b.len() as u64 || (runs == 0) != (n == 0) {
            return Err(bad());
        }
        let nbr_at = 8 + 8 * runs;
        let eid_at = nbr_at + 8 * n;
        let end_at = eid_at + 8 * n;
        let blob_at = end_at + 4 * n;
        // Runs hold distinct types in increasing order, each at least one entry long.
        let mut prev = 0;
        for r in 0..runs {
            let end = u32_at(b, 12 + 8 * r) as usize;
            if end <= prev || end > n || (r > 0 && u32_at(b, 8 + 8 * r) <= u32_at(b, 8 * r)) {
                return Err(bad());
            }
            prev = end;
        }
        if prev != n {
            return Err(bad());
        }
        let mut prev = 0;
        for i in 0..n {
            let end = u32_at(b, end_at + 4 * i) as usize;
            if end < prev {
                return Err(bad());
            }
            prev = end;
        }
        if blob_at + prev != b.len() {
            return Err(bad());
        }
        Ok(Segment {
            b,
            n,
            runs,
            nbr_at,
            eid_at,
            end_at,
            blob_at,
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.n
    }

    fn run_ty(&self, r: usize) -> TypeId {
        u32_at(self.b, 8 + 8 * r)
    }

    fn run_end(&self, r: usize) -> usize {
        u32_at(self.b, 12 + 8 * r) as usize
    }

    fn entry_of(&self, i: usize, ty: TypeId) -> Entry<'a> {
        let start = if i == 0 {
            0
        } else {
            u32_at(self.b, self.end_at + 4 * (i - 1)) as usize
        };
        let end = u32_at(self.b, self.end_at + 4 * i) as usize;
        Entry {
            ty,
            nbr: self.nbr(i),
            eid: u64_at(self.b, self.eid_at + 8 * i),
            record: &self.b[self.blob_at + start..self.blob_at + end],
        }
    }

    fn nbr(&self, i: usize) -> NodeId {
        u64_at(self.b, self.nbr_at + 8 * i)
    }

    /// The entries of type `ty` (every type when `None`), in order.
    pub(crate) fn entries(&self, ty: Option<TypeId>) -> Entries<'a> {
        let run = match ty {
            None => 0,
            Some(t) => self.run_of(t).unwrap_or(self.runs),
        };
        let range = self.run_range(run);
        Entries {
            seg: *self,
            all: ty.is_none(),
            run,
            i: range.start,
            end: range.end,
        }
    }

    /// The run holding type `ty`'s entries.
    fn run_of(&self, ty: TypeId) -> Option<usize> {
        (0..self.runs).find(|&r| self.run_ty(r) == ty)
    }

    /// The index range of run `r`'s entries (empty past the last run).
    fn run_range(&self, r: usize) -> Range<usize> {
        if r >= self.runs {
            return 0..0;
        }
        let start = if r == 0 { 0 } else { self.run_end(r - 1) };
        start..self.run_end(r)
    }

    /// The entries of type `ty` to `nbr` (several for a multi-edge type), by binary search.
    pub(crate) fn find(&self, ty: TypeId, nbr: NodeId) -> impl Iterator<Item = Entry<'a>> + '_ {
        let range = self.run_range(self.run_of(ty).unwrap_or(self.runs));
        let lo = partition_point(range.clone(), |i| self.nbr(i) < nbr);
        let hi = partition_point(lo..range.end, |i| self.nbr(i) <= nbr);
        (lo..hi).map(move |i| self.entry_of(i, ty))
    }
}

/// A listing: the entries of type `ty` (every type when `None`) as the `Edge`s they are, seen
/// from `me` on `side`, in a vector sized from the segment's count.
pub(crate) fn edges(
    seg: &Segment<'_>,
    me: &NodeKey,
    side: Side,
    ty: Option<TypeId>,
    type_name: &dyn Fn(TypeId) -> Result<Arc<str>>,
) -> Result<Vec<Edge>> {
    let mut out = Vec::with_capacity(seg.len());
    let mut name: Option<(TypeId, Arc<str>)> = None;
    for e in seg.entries(ty) {
        let ty_name = match &name {
            Some((t, n)) if *t == e.ty => n.clone(),
            _ => {
                let n = type_name(e.ty)?;
                name = Some((e.ty, n.clone()));
                n
            }
        };
        let (nbr, weight, props) = EdgeRec::decode_parts(e.record)?;
        // The same as `View::make_edge`, built in place: a `Result<Edge>` per edge from a
        // shared helper measured 15% slower on this path.
        let (src, dst) = match side {
            Side::Out => (me.clone(), nbr),
            Side::In => (nbr, me.clone()),
        };
        out.push(Edge {
            src,
            ty: ty_name,
            dst,
            id: e.eid,
            weight,
            props,
        });
    }
    Ok(out)
}

/// The entries of one type or of all, in order (a loop over indexes, not nested iterators:
/// listings call `next` per edge).
pub(crate) struct Entries<'a> {
    seg: Segment<'a>,
    all: bool,
    run: usize,
    i: usize,
    end: usize,
}

impl<'a> Iterator for Entries<'a> {
    type Item = Entry<'a>;

    fn next(&mut self) -> Option<Entry<'a>> {
        while self.i == self.end {
            if !self.all || self.run + 1 >= self.seg.runs {
                return None;
            }
            self.run += 1;
            self.end = self.seg.run_end(self.run);
        }
        let e = self.seg.entry_of(self.i, self.seg.run_ty(self.run));
        self.i += 1;
        Some(e)
    }
}

/// The first index in `r` for which `below` is false (`below` true on a prefix of `r`).
fn partition_point(r: Range<usize>, below: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (r.start, r.end);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if below(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    type Owned = (TypeId, NodeId, u64, Vec<u8>);

    fn sorted_entries() -> impl Strategy<Value = Vec<Owned>> {
        proptest::collection::btree_map(
            (0u32..4, 0u64..40, 0u64..3),
            proptest::collection::vec(any::<u8>(), 0..12),
            0..60,
        )
        .prop_map(|m| m.into_iter().map(|((t, n, e), r)| (t, n, e, r)).collect())
    }

    fn inputs(v: &[Owned]) -> Vec<SegmentInput<'_>> {
        v.iter().map(|(t, n, e, r)| (*t, *n, *e, r.as_slice())).collect()
    }

    fn as_entry(o: &Owned) -> Entry<'_> {
        Entry {
            ty: o.0,
            nbr: o.1,
            eid: o.2,
            record: &o.3,
        }
    }

    proptest! {
        #[test]
        fn entries_come_back_in_order_and_by_type(v in sorted_entries(), ty in 0u32..5) {
            let bytes = encode(&inputs(&v));
            let s = Segment::parse(&bytes).unwrap();
            prop_assert_eq!(s.len(), v.len());
            prop_assert_eq!(s.entries(None).collect::<Vec<_>>(), v.iter().map(as_entry).collect::<Vec<_>>());
            let want: Vec<Entry<'_>> = v.iter().filter(|o| o.0 == ty).map(as_entry).collect();
            prop_assert_eq!(s.entries(Some(ty)).collect::<Vec<_>>(), want);
        }

        #[test]
        fn find_matches_a_linear_search(v in sorted_entries(), ty in 0u32..5, nbr in 0u64..42) {
            let bytes = encode(&inputs(&v));
            let s = Segment::parse(&bytes).unwrap();
            let want: Vec<Entry<'_>> = v.iter().filter(|o| o.0 == ty && o.1 == nbr).map(as_entry).collect();
            prop_assert_eq!(s.find(ty, nbr).collect::<Vec<_>>(), want);
        }

        /// Damaged bytes parse to an error or to a segment every accessor reads without a
        /// panic.
        #[test]
        fn damaged_bytes_never_panic(v in sorted_entries(), cut in any::<prop::sample::Index>(),
                                     flip in any::<prop::sample::Index>(), bit in 0u8..8) {
            let mut bytes = encode(&inputs(&v));
            if !bytes.is_empty() {
                let i = flip.index(bytes.len());
                bytes[i] ^= 1 << bit;
            }
            for b in [&bytes[..], &bytes[..cut.index(bytes.len() + 1)]] {
                if let Ok(s) = Segment::parse(b) {
                    let all: Vec<Entry<'_>> = s.entries(None).collect();
                    prop_assert_eq!(all.len(), s.len());
                    let _ = s.find(1, 7).count();
                }
            }
        }
    }

    #[test]
    fn an_empty_segment_is_eight_bytes() {
        let bytes = encode(&[]);
        assert_eq!(bytes.len(), 8);
        let s = Segment::parse(&bytes).unwrap();
        assert_eq!(s.len(), 0);
        assert_eq!(s.entries(None).count(), 0);
        assert_eq!(s.find(0, 0).count(), 0);
    }

    #[test]
    fn shapes_that_cannot_be_a_segment_are_refused() {
        let good = encode(&[(1, 5, 0, b"ab"), (2, 3, 0, b"c")]);
        assert!(Segment::parse(&good).is_ok());
        // Too short, a count past the end, run ends or types not increasing, a blob longer
        // than its ends say.
        assert!(Segment::parse(&good[..7]).is_err());
        let mut big = good.clone();
        big[0] = 0xff;
        assert!(Segment::parse(&big).is_err());
        let mut runs = good.clone();
        runs[12] = 2; // first run's end: 2, then the second's 2: not increasing
        assert!(Segment::parse(&runs).is_err());
        let mut same = good.clone();
        same[16] = 1; // the second run's type: 1 again (found by the decoder fuzz loop)
        assert!(Segment::parse(&same).is_err());
        let mut long = good.clone();
        long.push(0);
        assert!(Segment::parse(&long).is_err());
    }
}
