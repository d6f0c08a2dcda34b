//! The sorted runs a bulk load writes: keys, node records, adjacency and degree counters
//! built from the loader's arena by parallel threads, with adjacency that outgrew memory
//! spilled to disk as sorted runs and merged back in order.

use super::*;

/// Which counters an adjacency run feeds.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Lane {
    Out,
    In,
}

/// Counter sums of one node and type from one direction's run, in (node, type) order: 24
/// bytes, since there is one per node and type (the lane is known from the run and type).
pub(super) struct LaneSum {
    pub(super) node: u32,
    pub(super) ty: TypeId,
    /// Adjacency count (an undirected self-loop counts 2, as degrees do).
    pub(super) count: u32,
    /// Distinct edges counted here (each edge is counted once, from its `out` side).
    pub(super) edges: u32,
    pub(super) weight: f64,
}

/// What the run-writing threads read (all shared, read-only).
pub(super) struct Source<'a> {
    pub(super) keys: &'a KeyArena,
    pub(super) weights: &'a [u64],
    pub(super) props_at: &'a [u64],
    pub(super) props: &'a [u8],
    pub(super) base: NodeId,
    pub(super) first_eid: u64,
    pub(super) cat: &'a crate::catalog::Catalog,
    /// New node `i`'s labels are `label_ids[label_at[i]..label_at[i + 1]]`.
    pub(super) label_at: &'a [u32],
    pub(super) label_ids: &'a [TypeId],
}

impl Source<'_> {
    pub(super) fn keys_run(&self, run: &mut dyn BulkFile) -> Result<()> {
        let mut order: Vec<u32> = (0..self.keys.len()).collect();
        order.sort_unstable_by(|&a, &b| self.keys.key(a).cmp(self.keys.key(b)));
        for i in order {
            let (a, b) = (self.label_at[i as usize], self.label_at[i as usize + 1]);
            let labels = &self.label_ids[a as usize..b as usize];
            run.put(self.keys.key(i), &key_value_labeled(self.base + u64::from(i), labels))?;
        }
        Ok(())
    }

    /// Writes one direction's run from its entries in sorted order, sending the counter sums
    /// (in node order, in batches) to the degree writer.
    pub(super) fn adjacency(
        &self,
        adj: impl Iterator<Item = Adj>,
        run: &mut dyn BulkFile,
        lane: Lane,
        sums_out: SyncSender<Vec<LaneSum>>,
    ) -> Result<()> {
        let stopped = || Error::invalid("bulk load", "the degree writer stopped");
        let mut adj = Ahead::new(adj, self.keys).peekable();
        let mut sums: Vec<LaneSum> = Vec::with_capacity(SUM_BATCH);
        let mut empty_props = Vec::new();
        encode_props(&mut empty_props, &Props::new())?;
        let mut value = Vec::with_capacity(64);
        let mut group = Vec::new();
        while let Some(a) = adj.next() {
            let ty = a.kind >> 1;
            let t = self
                .cat
                .type_by_id(ty)
                .ok_or_else(|| Error::invalid("bulk load", format!("edge type id {ty} vanished")))?;
            // Simple types: rows repeating the pair are adjacent; later rows merge over earlier.
            group.clear();
            group.push(a);
            if !t.options.multi {
                while let Some(b) = adj.next_if(|b| b.node == a.node && b.kind == a.kind && b.nbr == a.nbr) {
                    group.push(b);
                }
            }
            value.clear();
            put_len_prefixed(&mut value, self.keys.key(a.nbr));
            let weight = self.merged(&group, &empty_props, &mut value)?;
            let eid = if t.options.multi {
                self.first_eid + u64::from(a.edge)
            } else {
                0
            };
            let (node, nbr) = (self.base + u64::from(a.node), self.base + u64::from(a.nbr));
            run.put(&adj_key(node, ty, nbr, eid), &value)?;
            let w = weight_of(weight);
            let (count, edges) = match (t.options.undirected, lane) {
                (true, _) => (if a.nbr == a.node { 2 } else { 1 }, u32::from(a.node <= a.nbr)),
                (false, Lane::In) => (1, 0),
                (false, Lane::Out) => (1, 1),
            };
            match sums.last_mut() {
                Some(s) if s.node == a.node && s.ty == ty => {
                    s.count += count;
                    s.edges += edges;
                    s.weight += w * f64::from(count);
                }
                last => {
                    // A node's sums are complete once the next node starts: ship full batches.
                    if last.is_some_and(|l| l.node != a.node) && sums.len() >= SUM_BATCH {
                        let done = std::mem::replace(&mut sums, Vec::with_capacity(SUM_BATCH));
                        sums_out.send(done).map_err(|_| stopped())?;
                    }
                    sums.push(LaneSum {
                        node: a.node,
                        ty,
                        count,
                        edges,
                        weight: w * f64::from(count),
                    })
                }
            }
        }
        if !sums.is_empty() {
            sums_out.send(sums).map_err(|_| stopped())?;
        }
        Ok(())
    }

    /// Sorts entries by (node, kind, neighbour, edge) in place, without a second copy of the
    /// entries: an American flag sort (count, then permute along cycles) on the node's top
    /// bits into at most 2,048 buckets, whose write fronts stay in cache, then the same by
    /// the node's low bits inside each bucket (a bucket is a few tens of KiB: in cache), then
    /// each node's few entries by comparison. One pass over 1M node buckets instead moves
    /// every entry to a random cache line: on the 1M-node load the sort took 15% of the
    /// samples that way, 5% this way (decision 0039).
    pub(super) fn sort(adj: &mut [Adj], nodes: u32) {
        // Offsets per node cost 4 bytes a node: for few entries over many nodes (the last
        // buffer of a spilled load), a comparison sort is cheaper in time and memory.
        if adj.len() < nodes as usize / 4 || adj.len() >= u32::MAX as usize {
            adj.sort_unstable();
            return;
        }
        let bits = u32::BITS - nodes.max(1).leading_zeros();
        let low = bits.saturating_sub(TOP_BITS);
        let top = permute(adj, 1 << (bits - low), |a| a.node >> low);
        for w in top.windows(2) {
            let bucket = &mut adj[w[0] as usize..w[1] as usize];
            if bucket.len() < 2 {
                continue;
            }
            let starts = permute(bucket, 1 << low, |a| a.node & ((1 << low) - 1));
            for n in starts.windows(2) {
                if n[1] - n[0] > 1 {
                    bucket[n[0] as usize..n[1] as usize].sort_unstable();
                }
            }
        }
    }

    /// Appends the weight flag, weight and properties of one edge (one row, or the rows
    /// repeating a simple edge: later properties win, the last given weight wins) to `value`.
    pub(super) fn merged(&self, rows: &[Adj], empty_props: &[u8], value: &mut Vec<u8>) -> Result<Option<f64>> {
        let weight_of_row = |a: &Adj| {
            let bits = self.weights.get(a.edge as usize).copied().unwrap_or(NO_WEIGHT);
            (bits != NO_WEIGHT).then(|| f64::from_bits(bits))
        };
        let props_of = |a: &Adj| self.props_at.get(a.edge as usize).copied().unwrap_or(0);
        let decode = |at: u64| -> Result<Props> {
            decode_props(&mut Reader::new(
                self.props.get((at - 1) as usize..).unwrap_or_default(),
            ))
        };
        let weight = rows.iter().rev().find_map(weight_of_row);
        match weight {
            Some(w) => {
                value.push(1);
                value.extend_from_slice(&w.to_le_bytes());
            }
            None => value.push(0),
        }
        match rows {
            [one] if props_of(one) == 0 => value.extend_from_slice(empty_props),
            _ => {
                let mut props = Props::new();
                for at in rows.iter().map(props_of).filter(|&at| at != 0) {
                    props.extend(decode(at)?);
                }
                encode_props(value, &props)?;
            }
        }
        Ok(weight)
    }
}

/// Entries in sort order, read 16 ahead: each entry's neighbour key (written into its
/// value) is a lookup at random into the arena, so it is prefetched in two steps, as the
/// reader prefetches endpoints (decision 0039).
struct Ahead<'k, I: Iterator<Item = Adj>> {
    inner: I,
    queue: std::collections::VecDeque<Adj>,
    keys: &'k KeyArena,
}

const AHEAD_FAR: usize = 16;
const AHEAD_NEAR: usize = 8;

impl<'k, I: Iterator<Item = Adj>> Ahead<'k, I> {
    fn new(inner: I, keys: &'k KeyArena) -> Self {
        Ahead {
            inner,
            queue: std::collections::VecDeque::with_capacity(AHEAD_FAR + 1),
            keys,
        }
    }
}

impl<I: Iterator<Item = Adj>> Iterator for Ahead<'_, I> {
    type Item = Adj;
    fn next(&mut self) -> Option<Adj> {
        while self.queue.len() <= AHEAD_FAR {
            let Some(a) = self.inner.next() else { break };
            self.keys.prefetch_position(a.nbr, false);
            self.queue.push_back(a);
        }
        if let Some(a) = self.queue.get(AHEAD_NEAR) {
            self.keys.prefetch_position(a.nbr, true);
        }
        self.queue.pop_front()
    }
}

/// Bits of the node id the first pass of [`Source::sort`] buckets by.
const TOP_BITS: u32 = 11;

/// Permutes `adj` in place so that entries are grouped by `bucket(entry)` (< `buckets`), in
/// bucket order (stable only in grouping); returns the `buckets + 1` group boundaries.
fn permute(adj: &mut [Adj], buckets: usize, bucket: impl Fn(&Adj) -> u32) -> Vec<u32> {
    let mut start = vec![0u32; buckets + 1];
    for a in adj.iter() {
        start[bucket(a) as usize + 1] += 1;
    }
    for i in 0..buckets {
        start[i + 1] += start[i];
    }
    let mut next = start.clone();
    for b in 0..buckets {
        while next[b] < start[b + 1] {
            let at = next[b] as usize;
            let d = bucket(&adj[at]) as usize;
            if d == b {
                next[b] += 1;
            } else {
                adj.swap(at, next[d] as usize);
                next[d] += 1;
            }
        }
    }
    start
}

/// Batches of counter sums from one direction, read as one stream in node order.
pub(super) struct SumStream {
    pub(super) rx: Receiver<Vec<LaneSum>>,
    pub(super) batch: std::vec::IntoIter<LaneSum>,
}

impl Iterator for SumStream {
    type Item = LaneSum;
    fn next(&mut self) -> Option<LaneSum> {
        loop {
            if let Some(s) = self.batch.next() {
                return Some(s);
            }
            self.batch = self.rx.recv().ok()?.into_iter();
        }
    }
}

/// Writes each node's counters (one value for all its types) from the two directions' sums,
/// streamed while the runs are written; returns the number of distinct edges per type.
pub(super) fn write_degrees(
    out: Receiver<Vec<LaneSum>>,
    inn: Receiver<Vec<LaneSum>>,
    src: &Source,
    run: &mut dyn BulkFile,
) -> Result<Vec<(TypeId, i64)>> {
    let stream = |rx| SumStream {
        rx,
        batch: Vec::new().into_iter(),
    };
    let (mut out, mut inn) = (stream(out).peekable(), stream(inn).peekable());
    let mut per_type: FxHashMap<TypeId, i64> = FxHashMap::default();
    loop {
        let node = match (out.peek(), inn.peek()) {
            (Some(a), Some(b)) => a.node.min(b.node),
            (Some(a), None) => a.node,
            (None, Some(b)) => b.node,
            (None, None) => break,
        };
        let mut set = DegSet::default();
        while let Some(s) = out.next_if(|s| s.node == node) {
            let undirected = src.cat.type_by_id(s.ty).is_some_and(|t| t.options.undirected);
            let (c, w) = (i64::from(s.count), s.weight);
            let d = if undirected {
                Deg {
                    und: c,
                    und_w: w,
                    ..Deg::default()
                }
            } else {
                Deg {
                    out: c,
                    out_w: w,
                    ..Deg::default()
                }
            };
            set.add(s.ty, &d);
            *per_type.entry(s.ty).or_default() += i64::from(s.edges);
        }
        while let Some(s) = inn.next_if(|s| s.node == node) {
            let d = Deg {
                inn: i64::from(s.count),
                in_w: s.weight,
                ..Deg::default()
            };
            set.add(s.ty, &d);
        }
        run.put(&deg_key(src.base + u64::from(node)), &set.encode())?;
    }
    let mut v: Vec<(TypeId, i64)> = per_type.into_iter().collect();
    v.sort_unstable();
    Ok(v)
}

/// Writes one direction: its in-memory entries sorted, merged with its spilled runs if any.
#[allow(clippy::too_many_arguments)]
pub(super) fn direction(
    src: &Source,
    runs: &[PathBuf],
    adj: &mut [Adj],
    nodes: u32,
    run: &mut dyn BulkFile,
    lane: Lane,
    sums: SyncSender<Vec<LaneSum>>,
) -> Result<()> {
    Source::sort(adj, nodes);
    if runs.is_empty() {
        return src.adjacency(adj.iter().copied(), run, lane, sums);
    }
    let mut merged = RunMerge::open(runs, adj)?;
    src.adjacency(&mut merged, run, lane, sums)?;
    merged.error.take().map_or(Ok(()), Err)
}

/// Sorted runs of adjacency entries spilled to disk (16 bytes each, little-endian u32s).
#[derive(Default)]
pub(super) struct Spilled {
    pub(super) out: Vec<PathBuf>,
    pub(super) inn: Vec<PathBuf>,
}

pub(super) fn write_run(path: &std::path::Path, adj: &[Adj]) -> Result<()> {
    let io = |source| Error::io(path, source);
    let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path).map_err(io)?);
    for a in adj {
        let mut b = [0u8; 16];
        b[..4].copy_from_slice(&a.node.to_le_bytes());
        b[4..8].copy_from_slice(&a.kind.to_le_bytes());
        b[8..12].copy_from_slice(&a.nbr.to_le_bytes());
        b[12..].copy_from_slice(&a.edge.to_le_bytes());
        w.write_all(&b).map_err(io)?;
    }
    w.flush().map_err(io)
}

/// The k-way merge, in sort order, of spilled runs and the sorted in-memory remainder (the
/// source numbered `readers.len()`). A read error ends the stream and is kept in `error`.
pub(super) struct RunMerge<'a> {
    readers: Vec<std::io::BufReader<std::fs::File>>,
    rest: std::slice::Iter<'a, Adj>,
    heap: std::collections::BinaryHeap<std::cmp::Reverse<(Adj, usize)>>,
    error: Option<Error>,
}

impl<'a> RunMerge<'a> {
    pub(super) fn open(paths: &[PathBuf], rest: &'a [Adj]) -> Result<RunMerge<'a>> {
        let mut m = RunMerge {
            readers: Vec::new(),
            rest: rest.iter(),
            heap: Default::default(),
            error: None,
        };
        for p in paths {
            let f = std::fs::File::open(p).map_err(|source| Error::io(p, source))?;
            m.readers.push(std::io::BufReader::with_capacity(1 << 18, f));
        }
        for i in 0..=m.readers.len() {
            if let Some(a) = m.read(i) {
                m.heap.push(std::cmp::Reverse((a, i)));
            }
        }
        Ok(m)
    }

    pub(super) fn read(&mut self, i: usize) -> Option<Adj> {
        let Some(r) = self.readers.get_mut(i) else {
            return self.rest.next().copied();
        };
        let mut b = [0u8; 16];
        match r.read_exact(&mut b) {
            Ok(()) => {
                let u = |k: usize| u32::from_le_bytes([b[k], b[k + 1], b[k + 2], b[k + 3]]);
                Some(Adj {
                    node: u(0),
                    kind: u(4),
                    nbr: u(8),
                    edge: u(12),
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => None,
            Err(e) => {
                self.error = Some(Error::io("a spilled adjacency run", e));
                None
            }
        }
    }
}

impl Iterator for RunMerge<'_> {
    type Item = Adj;
    fn next(&mut self) -> Option<Adj> {
        let std::cmp::Reverse((a, i)) = self.heap.pop()?;
        if let Some(b) = self.read(i) {
            self.heap.push(std::cmp::Reverse((b, i)));
        }
        Some(a)
    }
}
