//! Point traversals (k-hop with a limit, shortest path, variable-length endpoints), written
//! once over [`Adjacency`] so the same code runs on a store snapshot and on a projection.
//!
//! Their state is sparse (hash maps sized by what the query touches), not arrays sized by the
//! graph: a `LIMIT 100` query on a 10M-node graph must not clear 40 MB first. A k-hop BFS
//! on a projection moves to a bitmap only once it has visited enough for that to be smaller
//! ([`Visited`]).

use hopdb_algo::{AlgoError, Control, HopMode};
use hopdb_core::{Direction, NodeKey, ReadTxn, TypeFilter};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::error::Result;
use crate::projection::GraphProjection;

/// The identity of one relationship, the same from both of its ends (openCypher's
/// "no relationship twice in one path").
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) struct EdgeIdent(pub u64, pub u64, pub u64);

/// What [`Adjacency::for_each`] calls per neighbour: (neighbour, edge identity, key reader);
/// returning false stops the listing.
pub(crate) type Visit<'a> = dyn FnMut(u64, EdgeIdent, &dyn Fn() -> Result<NodeKey>) -> bool + 'a;

/// What [`Adjacency::for_each_many`] calls per neighbour: [`Visit`]'s arguments after the
/// index of the listed node; returning false stops that node's listing.
pub(crate) type VisitMany<'a> = dyn FnMut(usize, u64, EdgeIdent, &dyn Fn() -> Result<NodeKey>) -> bool + 'a;

/// Neighbour access for point traversals; node handles are `u64` (store node ids, or
/// projection indices).
pub(crate) trait Adjacency {
    /// Visits the neighbours of `u` along `dir` until `f` returns false. `f` gets the
    /// neighbour, the edge's identity and a way to read the neighbour's key cheaply.
    fn for_each(&self, u: u64, dir: Direction, f: &mut Visit<'_>) -> Result<()>;
    /// [`Adjacency::for_each`] for many nodes (the store lists them in one pass).
    fn for_each_many(&self, us: &[u64], dir: Direction, f: &mut VisitMany<'_>) -> Result<()> {
        for (i, &u) in us.iter().enumerate() {
            self.for_each(u, dir, &mut |v, ident, key| f(i, v, ident, key))?;
        }
        Ok(())
    }
    fn key_of(&self, u: u64) -> Result<NodeKey>;
    /// `u`'s key when it is held in memory (no copy, no read); `None` on the store.
    fn key_ref(&self, _u: u64) -> Option<&NodeKey> {
        None
    }
    /// About how many entries `for_each(u, dir)` visits, when that is known without reading
    /// them (to size hash tables up front); 0 when unknown.
    fn degree_hint(&self, _u: u64, _dir: Direction) -> usize {
        0
    }
    /// A bound every handle is below, when handles are dense (a projection's indices).
    fn node_bound(&self) -> Option<u64> {
        None
    }
    /// `u`'s neighbours along `dir` as one slice, when every edge listed is followed (a
    /// projection walked with no type filter): a BFS then reads them without a call per edge.
    fn slice(&self, _u: u64, _dir: Direction) -> Option<&[u32]> {
        None
    }
}

/// The nodes a BFS has reached: a hash set while few, a bitmap over the dense handles once a
/// bitmap is the smaller (past `bound / 192` nodes at 24 bytes an entry), so a LIMIT query
/// clears nothing sized by the graph and a deep one tests a bit per edge instead of hashing.
pub(crate) struct Visited {
    sparse: FxHashSet<u64>,
    bits: Vec<u64>,
    bound: Option<u64>,
}

impl Visited {
    pub(crate) fn new(bound: Option<u64>) -> Visited {
        Visited {
            sparse: FxHashSet::default(),
            bits: Vec::new(),
            bound,
        }
    }

    /// Adds `v`; true when it was not there.
    #[inline]
    pub(crate) fn insert(&mut self, v: u64) -> bool {
        if !self.bits.is_empty() {
            let (w, b) = ((v >> 6) as usize, 1u64 << (v & 63));
            if self.bits[w] & b != 0 {
                return false;
            }
            self.bits[w] |= b;
            return true;
        }
        if !self.sparse.insert(v) {
            return false;
        }
        if let Some(n) = self.bound {
            if self.sparse.len() as u64 > n / 192 + 64 {
                self.bits = vec![0; n.div_ceil(64) as usize];
                for u in self.sparse.drain() {
                    self.bits[(u >> 6) as usize] |= 1 << (u & 63);
                }
                self.sparse = FxHashSet::default();
            }
        }
        true
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.sparse.len() + self.bits.iter().map(|w| w.count_ones() as usize).sum::<usize>()
    }

    /// Bytes held, for the memory bound.
    pub(crate) fn bytes(&self) -> usize {
        self.sparse.len() * ENTRY_BYTES + self.bits.len() * 8
    }
}

/// The store itself: one prefix scan per expanded node and direction.
pub(crate) struct StoreAdjacency<'a> {
    pub txn: &'a ReadTxn,
    pub types: TypeFilter,
}

impl Adjacency for StoreAdjacency<'_> {
    fn for_each(&self, u: u64, dir: Direction, f: &mut Visit<'_>) -> Result<()> {
        self.for_each_many(&[u], dir, &mut |_, v, ident, key| f(v, ident, key))
    }

    fn for_each_many(&self, us: &[u64], dir: Direction, f: &mut VisitMany<'_>) -> Result<()> {
        self.txn.for_each_adjacent_many(us, dir, &self.types, &mut |i, a| {
            let (src, dst) = if a.incoming { (a.nbr, a.node) } else { (a.node, a.nbr) };
            // Undirected edges are stored from both ends: name them by their lower end.
            let (src, dst) = if !a.incoming && self.txn.is_undirected_type(a.ty) {
                (src.min(dst), src.max(dst))
            } else {
                (src, dst)
            };
            let ident = if a.multi_id != 0 {
                EdgeIdent(u64::MAX, a.multi_id, 0)
            } else {
                EdgeIdent(u64::from(a.ty), src, dst)
            };
            let key = || a.nbr_key().map_err(Into::into);
            f(i, a.nbr, ident, &key)
        })?;
        Ok(())
    }

    fn key_of(&self, u: u64) -> Result<NodeKey> {
        self.txn.node_key_of(u)?.ok_or_else(|| {
            hopdb_core::Error::Corruption {
                path: Default::default(),
                detail: format!("node id {u} reached by a traversal has no record"),
            }
            .into()
        })
    }
}

/// A projection: neighbours are slices of its CSR views, of the types `types` lets through.
pub(crate) struct ProjectionAdjacency<'a> {
    pub p: &'a GraphProjection,
    pub types: TypeFilter,
}

/// Whether `types` follows an edge of catalog type `ty`.
pub(crate) fn follows(types: &TypeFilter, ty: u32) -> bool {
    match types {
        TypeFilter::All => true,
        TypeFilter::Only(ids) => ids.contains(&ty),
    }
}

impl Adjacency for ProjectionAdjacency<'_> {
    fn for_each(&self, u: u64, dir: Direction, f: &mut Visit<'_>) -> Result<()> {
        let view = self.p.view(dir);
        let u = u as u32;
        for (i, &v) in view.neighbors(u).iter().enumerate() {
            let edge = view.edge_key(u, i);
            if !follows(&self.types, self.p.edge_type(edge)) {
                continue;
            }
            let key = || Ok(self.p.key(v).clone());
            if !f(u64::from(v), EdgeIdent(0, edge, 0), &key) {
                break;
            }
        }
        Ok(())
    }

    fn key_of(&self, u: u64) -> Result<NodeKey> {
        Ok(self.p.key(u as u32).clone())
    }

    fn key_ref(&self, u: u64) -> Option<&NodeKey> {
        Some(self.p.key(u as u32))
    }

    fn degree_hint(&self, u: u64, dir: Direction) -> usize {
        self.p.view(dir).neighbors(u as u32).len()
    }

    fn node_bound(&self) -> Option<u64> {
        Some(u64::from(self.p.node_count()))
    }

    fn slice(&self, u: u64, dir: Direction) -> Option<&[u32]> {
        if self.types != TypeFilter::All {
            return None;
        }
        Some(self.p.view(dir).neighbors(u as u32))
    }
}

/// The distinct neighbours of each node of `us` along `dir` (a node itself too over a
/// self-loop), at most `limit` each, in listing order.
pub(crate) fn neighbors_many(
    adj: &dyn Adjacency,
    us: &[u64],
    dir: Direction,
    limit: usize,
) -> Result<Vec<Vec<NodeKey>>> {
    let mut seen: Vec<FxHashSet<u64>> = vec![FxHashSet::default(); us.len()];
    let mut out: Vec<Vec<NodeKey>> = vec![Vec::new(); us.len()];
    let mut failed = None;
    if limit > 0 {
        adj.for_each_many(us, dir, &mut |i, v, _, key| {
            if seen[i].insert(v) {
                match key() {
                    Ok(k) => out[i].push(k),
                    Err(e) => {
                        failed = Some(e);
                        return false;
                    }
                }
            }
            out[i].len() < limit
        })?;
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Checks the control every this many visited edges.
const TICK: u32 = 1024;

pub(crate) struct Ticker<'c> {
    ctrl: &'c Control,
    n: u32,
}

impl<'c> Ticker<'c> {
    pub(crate) fn new(ctrl: &'c Control) -> Ticker<'c> {
        Ticker { ctrl, n: 0 }
    }

    pub(crate) fn tick(&mut self, bytes: impl FnOnce() -> usize) -> std::result::Result<(), AlgoError> {
        self.n += 1;
        if self.n.is_multiple_of(TICK) {
            self.ctrl.check()?;
            self.ctrl.check_memory(bytes())?;
        }
        Ok(())
    }
}

/// Bytes a hash-set/map entry of a visited node costs, roughly (key, value, control, slack).
pub(crate) const ENTRY_BYTES: usize = 24;

/// Distinct nodes at shortest distance exactly `k` / within `1..=k` of `start` (excluded), in
/// BFS discovery order, stopping the moment `limit` are found. Returns (handle, key) pairs.
pub(crate) fn k_hop(
    adj: &dyn Adjacency,
    start: u64,
    k: u32,
    mode: HopMode,
    dir: Direction,
    limit: Option<usize>,
    ctrl: &Control,
) -> Result<Vec<(u64, NodeKey)>> {
    if k == 0 {
        return Err(AlgoError::InvalidArgument("k must be at least 1".into()).into());
    }
    ctrl.check()?;
    let limit = limit.unwrap_or(usize::MAX);
    let mut out = Vec::new();
    if limit == 0 {
        return Ok(out);
    }
    let mut ticker = Ticker::new(ctrl);
    let mut visited = Visited::new(adj.node_bound());
    visited.insert(start);
    let mut frontier = vec![start];
    let mut next = Vec::new();
    let mut failed = None;
    'levels: for depth in 1..=k {
        let collect = mode == HopMode::Within || depth == k;
        for &u in &frontier {
            // One neighbour: false stops the walk (an error, or the limit reached).
            let mut reach = |v: u64, key: &dyn Fn() -> Result<NodeKey>| -> bool {
                if let Err(e) = ticker.tick(|| visited.bytes() + out.len() * ENTRY_BYTES) {
                    failed = Some(e.into());
                    return false;
                }
                if !visited.insert(v) {
                    return true;
                }
                if depth < k {
                    next.push(v);
                }
                if collect {
                    match key() {
                        Ok(key) => out.push((v, key)),
                        Err(e) => {
                            failed = Some(e);
                            return false;
                        }
                    }
                    return out.len() < limit;
                }
                true
            };
            let go_on = match adj.slice(u, dir) {
                Some(nbrs) => nbrs.iter().all(|&v| reach(u64::from(v), &|| adj.key_of(u64::from(v)))),
                None => {
                    let mut go_on = true;
                    adj.for_each(u, dir, &mut |v, _, key| {
                        go_on = reach(v, key);
                        go_on
                    })?;
                    go_on
                }
            };
            if let Some(e) = failed {
                return Err(e);
            }
            if !go_on {
                break 'levels;
            }
        }
        if next.is_empty() {
            break;
        }
        std::mem::swap(&mut frontier, &mut next);
        next.clear();
    }
    Ok(out)
}

fn reverse(dir: Direction) -> Direction {
    match dir {
        Direction::Out => Direction::In,
        Direction::In => Direction::Out,
        Direction::Both => Direction::Both,
    }
}

/// One shortest (fewest hops, at most `max_hops`) path from `source` to `target` along
/// `dir`, as node handles, or `None`. Bidirectional BFS growing the smaller frontier.
pub(crate) fn shortest_path(
    adj: &dyn Adjacency,
    source: u64,
    target: u64,
    dir: Direction,
    max_hops: u32,
    ctrl: &Control,
) -> Result<Option<Vec<u64>>> {
    ctrl.check()?;
    if source == target {
        return Ok(Some(vec![source]));
    }
    let mut ticker = Ticker::new(ctrl);
    // pred_f[v]: v's parent toward the source; pred_b[v]: v's next hop toward the target.
    let mut pred_f: FxHashMap<u64, u64> = FxHashMap::default();
    let mut pred_b: FxHashMap<u64, u64> = FxHashMap::default();
    pred_f.insert(source, source);
    pred_b.insert(target, target);
    let (mut front_f, mut front_b) = (vec![source], vec![target]);
    let mut next = Vec::new();
    let mut hops = 0u32;
    while hops < max_hops && !front_f.is_empty() && !front_b.is_empty() {
        let forward = front_f.len() <= front_b.len();
        let (d, frontier, mine, theirs) = if forward {
            (dir, &front_f, &mut pred_f, &pred_b)
        } else {
            (reverse(dir), &front_b, &mut pred_b, &pred_f)
        };
        // Every meeting found while growing one level gives the same length (a node of this
        // frontier was not yet reached by the other side), so the first one is a shortest.
        let mut meet = None;
        let mut failed = None;
        for &u in frontier.iter() {
            adj.for_each(u, d, &mut |v, _, _| {
                if let Err(e) = ticker.tick(|| (mine.len() + theirs.len()) * ENTRY_BYTES) {
                    failed = Some(e);
                    return false;
                }
                if let std::collections::hash_map::Entry::Vacant(slot) = mine.entry(v) {
                    slot.insert(u);
                    next.push(v);
                    if theirs.contains_key(&v) {
                        meet = Some(v);
                        return false;
                    }
                }
                true
            })?;
            if let Some(e) = failed {
                return Err(e.into());
            }
            if meet.is_some() {
                break;
            }
        }
        if let Some(m) = meet {
            return Ok(Some(join(&pred_f, &pred_b, m, source, target)));
        }
        hops += 1;
        if forward {
            std::mem::swap(&mut front_f, &mut next);
        } else {
            std::mem::swap(&mut front_b, &mut next);
        }
        next.clear();
    }
    Ok(None)
}

fn join(pred_f: &FxHashMap<u64, u64>, pred_b: &FxHashMap<u64, u64>, meet: u64, source: u64, target: u64) -> Vec<u64> {
    let mut path = vec![meet];
    let mut v = meet;
    while v != source {
        v = pred_f[&v];
        path.push(v);
    }
    path.reverse();
    v = meet;
    while v != target {
        v = pred_b[&v];
        path.push(v);
    }
    path
}

/// Streams the paths of `min_hops..=max_hops` relationships from `start` that use no
/// relationship twice (openCypher `-[*min..max]-` trails; nodes may repeat), depth-first in
/// adjacency order, as node sequences, until `visit` returns false. Memory is the current path
/// and the unexplored neighbours along it, never the set of paths.
pub(crate) fn trails(
    adj: &dyn Adjacency,
    start: u64,
    min_hops: u32,
    max_hops: u32,
    dir: Direction,
    ctrl: &Control,
    visit: &mut dyn FnMut(&[u64]) -> Result<bool>,
) -> Result<()> {
    if min_hops > max_hops {
        return Err(AlgoError::InvalidArgument(format!("min_hops {min_hops} > max_hops {max_hops}")).into());
    }
    ctrl.check()?;
    let mut nodes = vec![start];
    if min_hops == 0 && !visit(&nodes)? {
        return Ok(());
    }
    if max_hops == 0 {
        return Ok(());
    }
    let mut ticker = Ticker::new(ctrl);
    // The current trail's relationships, and per level the neighbours still to try (gathered
    // when the level is entered, so the store is read once per visited node).
    let mut used: Vec<EdgeIdent> = Vec::new();
    let mut stack: Vec<Vec<(u64, EdgeIdent)>> = Vec::new();
    let expand = |u: u64| -> Result<Vec<(u64, EdgeIdent)>> {
        let mut nb = Vec::new();
        adj.for_each(u, dir, &mut |v, e, _| {
            nb.push((v, e));
            true
        })?;
        nb.reverse(); // popped from the back: visit in adjacency order
        Ok(nb)
    };
    stack.push(expand(start)?);
    while let Some(level) = stack.last_mut() {
        let Some((v, e)) = level.pop() else {
            stack.pop();
            used.pop();
            nodes.pop();
            continue;
        };
        ticker.tick(|| stack.iter().map(Vec::len).sum::<usize>() * ENTRY_BYTES)?;
        if used.contains(&e) {
            continue;
        }
        nodes.push(v);
        if nodes.len() as u32 > min_hops && !visit(&nodes)? {
            return Ok(());
        }
        if (nodes.len() as u32) <= max_hops {
            used.push(e);
            stack.push(expand(v)?);
        } else {
            nodes.pop();
        }
    }
    Ok(())
}

/// Distinct end nodes of the trails of [`trails`], in first-found order, stopping at `limit`.
/// The start itself is an end node when a closed trail returns to it.
pub(crate) fn var_length_endpoints(
    adj: &dyn Adjacency,
    start: u64,
    min_hops: u32,
    max_hops: u32,
    dir: Direction,
    limit: Option<usize>,
    ctrl: &Control,
) -> Result<Vec<(u64, NodeKey)>> {
    let limit = limit.unwrap_or(usize::MAX);
    let mut found: FxHashSet<u64> = FxHashSet::default();
    let mut out = Vec::new();
    if limit == 0 {
        return Ok(out);
    }
    if min_hops <= 1 && max_hops >= 1 {
        // Past the start, the ends of the trails of 1..=max relationships are exactly the
        // nodes within max hops (a shortest walk is a trail): a breadth-first search that
        // stops at the limit, not an enumeration of trails (a hub has millions).
        if min_hops == 0 {
            out.push((start, adj.key_of(start)?));
        }
        let want = limit - out.len();
        let ball = if want > 0 {
            k_hop(adj, start, max_hops, HopMode::Within, dir, Some(want), ctrl)?
        } else {
            Vec::new()
        };
        let full = ball.len() >= want;
        out.extend(ball);
        if full || min_hops == 0 {
            return Ok(out);
        }
        // The start itself is an end when a closed trail leads back to it.
        let mut closed = false;
        trails(adj, start, 1, max_hops, dir, ctrl, &mut |path| {
            closed = path[path.len() - 1] == start;
            Ok(!closed)
        })?;
        if closed {
            out.push((start, adj.key_of(start)?));
        }
        return Ok(out);
    }
    trails(adj, start, min_hops, max_hops, dir, ctrl, &mut |path| {
        let end = path[path.len() - 1];
        if found.insert(end) {
            ctrl.check_memory(found.len() * ENTRY_BYTES)?;
            out.push((end, adj.key_of(end)?));
        }
        Ok(out.len() < limit)
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn visited_answers_as_a_hash_set_before_and_after_it_turns_into_a_bitmap() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for bound in [1u64, 63, 64, 65, 1_000, 200_000] {
            let mut v = Visited::new(Some(bound));
            let mut want = std::collections::HashSet::new();
            for _ in 0..(bound * 2).min(50_000) {
                let x = rng.random_range(0..bound);
                assert_eq!(v.insert(x), want.insert(x), "bound {bound}, {x}");
                assert_eq!(v.len(), want.len());
            }
            // Past bound / 192 + 64 entries it holds a bitmap: bound / 8 bytes, no entries.
            if want.len() as u64 > bound / 192 + 64 {
                assert_eq!(v.bytes(), bound.div_ceil(64) as usize * 8, "bound {bound}");
            }
        }
        let mut unbounded = Visited::new(None);
        for x in 0..10_000u64 {
            assert!(unbounded.insert(x * 7919));
        }
        assert!(!unbounded.insert(7919));
        assert_eq!(unbounded.bytes(), 10_000 * ENTRY_BYTES);
    }
}
