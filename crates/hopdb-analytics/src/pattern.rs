//! Fixed-length path patterns from seed nodes: openCypher's
//! `MATCH (s)-[:T1]->()<-[:T2]-(n) WHERE s.id IN $seeds RETURN DISTINCT n LIMIT k` and
//! `... RETURN n, count(*) ORDER BY count(*) DESC, n.id LIMIT k`, the multi-hop shapes of
//! GraphRAG retrieval (a chunk's co-mentioning chunks, a multi-seed expansion).
//!
//! Written over [`Adjacency`], one per step, so a pattern whose steps all follow the same
//! types runs on a fresh projection or the overlay, and any pattern runs on the store.

use hopdb_algo::Control;
use hopdb_core::{Direction, NodeKey};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::error::{AnalyticsError, Result};
use crate::point::{Adjacency, Ticker, ENTRY_BYTES};

/// One step of a path pattern: its direction (`->` Out, `<-` In, `-` Both) and the edge
/// types it may follow (`None`: any).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Which way the step's edges are followed.
    pub dir: Direction,
    /// Edge types the step may follow (`None`: any).
    pub types: Option<Vec<String>>,
}

impl Step {
    /// A step along `dir` over `types` (`None`: any type).
    pub fn new(dir: Direction, types: Option<&[&str]>) -> Step {
        Step {
            dir,
            types: types.map(|t| t.iter().map(|s| s.to_string()).collect()),
        }
    }
}

/// The adjacency a step walks and its direction.
pub(crate) type Walk<'a> = (Box<dyn Adjacency + 'a>, Direction);

struct DistinctState<'c> {
    /// `seen[i]`: nodes already reached by step `i` (expanding one twice adds nothing new).
    seen: Vec<FxHashSet<u64>>,
    /// Entries held in `seen` and `out` (for the memory bound).
    held: usize,
    exclude: &'c FxHashSet<u64>,
    out: Vec<NodeKey>,
    limit: usize,
    ticker: Ticker<'c>,
    failed: Option<AnalyticsError>,
}

/// The distinct end nodes of the walks from `seeds` along `steps`, depth-first in adjacency
/// order, nodes in `exclude` left out, stopping the moment `limit` are found: a LIMIT query
/// reads only the adjacency it needs, however large the intermediate levels are.
pub(crate) fn distinct_ends(
    steps: &[Walk<'_>],
    seeds: &[u64],
    exclude: &FxHashSet<u64>,
    limit: Option<usize>,
    ctrl: &Control,
) -> Result<Vec<NodeKey>> {
    ctrl.check()?;
    let limit = limit.unwrap_or(usize::MAX);
    let mut st = DistinctState {
        seen: vec![FxHashSet::default(); steps.len()],
        held: 0,
        exclude,
        out: Vec::new(),
        limit,
        ticker: Ticker::new(ctrl),
        failed: None,
    };
    if limit == 0 || steps.is_empty() {
        return Ok(st.out);
    }
    for &s in seeds {
        if !walk_distinct(steps, &mut st, 0, s)? {
            break;
        }
    }
    Ok(st.out)
}

/// Expands `u` by step `level`; false once the limit is reached.
fn walk_distinct(steps: &[Walk<'_>], st: &mut DistinctState<'_>, level: usize, u: u64) -> Result<bool> {
    let (adj, dir) = &steps[level];
    let last = level + 1 == steps.len();
    let mut more = true;
    adj.for_each(u, *dir, &mut |v, _, key| {
        let held = st.held;
        if let Err(e) = st.ticker.tick(|| held * ENTRY_BYTES) {
            st.failed = Some(e.into());
            return false;
        }
        if !st.seen[level].insert(v) {
            return true;
        }
        st.held += 1;
        if !last {
            return match walk_distinct(steps, st, level + 1, v) {
                Ok(go) => {
                    more = go;
                    go
                }
                Err(e) => {
                    st.failed = Some(e);
                    false
                }
            };
        }
        if st.exclude.contains(&v) {
            return true;
        }
        match key() {
            Ok(k) => st.out.push(k),
            Err(e) => {
                st.failed = Some(e);
                return false;
            }
        }
        more = st.out.len() < st.limit;
        more
    })?;
    match st.failed.take() {
        Some(e) => Err(e),
        None => Ok(more),
    }
}

/// The end nodes of the walks from `seeds` along `steps` with the number of walks reaching
/// each (openCypher's `count(*)`), nodes in `exclude` left out, by count descending then key
/// (in `key_order`),
/// the first `top`. Counts flow level by level, so a node reached many ways expands once;
/// keys held in memory (a projection's) are only borrowed, and read for the ranked rows alone:
/// copying every end node's key cost more than the walk (cache misses on a hub's thousands).
pub(crate) fn walk_counts(
    steps: &[Walk<'_>],
    seeds: &[u64],
    exclude: &FxHashSet<u64>,
    top: Option<usize>,
    key_order: &dyn Fn(&NodeKey, &NodeKey) -> std::cmp::Ordering,
    ctrl: &Control,
) -> Result<Vec<(NodeKey, u64)>> {
    ctrl.check()?;
    let Some(((last, last_dir), inner)) = steps.split_last() else {
        return Ok(Vec::new());
    };
    let mut ticker = Ticker::new(ctrl);
    let mut failed = None;
    let mut frontier: Vec<(u64, u64)> = seeds.iter().map(|&s| (s, 1)).collect();
    // Tables sized from the frontier's degrees where the adjacency knows them: growing them
    // entry by entry through a hub's thousands of neighbours rehashed several times.
    let hint = |adj: &dyn Adjacency, dir: Direction, frontier: &[(u64, u64)]| -> usize {
        frontier
            .iter()
            .map(|&(u, _)| adj.degree_hint(u, dir))
            .sum::<usize>()
            .min(1 << 20)
    };
    for (adj, dir) in inner {
        let mut next: FxHashMap<u64, u64> =
            FxHashMap::with_capacity_and_hasher(hint(&**adj, *dir, &frontier), Default::default());
        for &(u, walks) in &frontier {
            adj.for_each(u, *dir, &mut |v, _, _| {
                let held = next.len() + frontier.len();
                if let Err(e) = ticker.tick(|| held * ENTRY_BYTES) {
                    failed = Some(e.into());
                    return false;
                }
                let c = next.entry(v).or_insert(0);
                *c = c.saturating_add(walks);
                true
            })?;
            if let Some(e) = failed.take() {
                return Err(e);
            }
        }
        frontier = next.into_iter().collect();
    }
    // The last step: walk counts per end node, with its key when the adjacency cannot lend it
    // (on the store it comes with the adjacency entry; a later read would cost a lookup).
    let mut ends: FxHashMap<u64, (u64, Option<NodeKey>)> =
        FxHashMap::with_capacity_and_hasher(hint(&**last, *last_dir, &frontier), Default::default());
    for &(u, walks) in &frontier {
        last.for_each(u, *last_dir, &mut |v, _, key| {
            let held = ends.len() + frontier.len();
            if let Err(e) = ticker.tick(|| held * ENTRY_BYTES) {
                failed = Some(e.into());
                return false;
            }
            if exclude.contains(&v) {
                return true;
            }
            if let Some(e) = ends.get_mut(&v) {
                e.0 = e.0.saturating_add(walks);
                return true;
            }
            let owned = match last.key_ref(v) {
                Some(_) => None,
                None => match key() {
                    Ok(k) => Some(k),
                    Err(e) => {
                        failed = Some(e);
                        return false;
                    }
                },
            };
            ends.insert(v, (walks, owned));
            true
        })?;
        if let Some(e) = failed.take() {
            return Err(e);
        }
    }
    let mut rows: Vec<(u64, u64, Option<NodeKey>)> = ends.into_iter().map(|(v, (c, k))| (v, c, k)).collect();
    // Only rows counting at least the top-th count can rank: keys are compared for those.
    if let Some(top) = top.filter(|&t| t < rows.len()) {
        if top == 0 {
            return Ok(Vec::new());
        }
        rows.select_nth_unstable_by(top - 1, |a, b| b.1.cmp(&a.1));
        let cut = rows[top - 1].1;
        rows.retain(|r| r.1 >= cut);
    }
    let mut ranked: Vec<(&NodeKey, u64)> = Vec::with_capacity(rows.len());
    for (v, c, owned) in &rows {
        match owned.as_ref().or_else(|| last.key_ref(*v)) {
            Some(k) => ranked.push((k, *c)),
            None => return Err(missing_key(*v)),
        }
    }
    // Selecting before sorting: the rows tied at the cut can be thousands (a hub's chunks
    // all sharing one entity), and sorting them all by key dominated the query.
    let order = |a: &(&NodeKey, u64), b: &(&NodeKey, u64)| b.1.cmp(&a.1).then_with(|| key_order(a.0, b.0));
    if let Some(top) = top.filter(|&t| t > 0 && t < ranked.len()) {
        ranked.select_nth_unstable_by(top - 1, order);
        ranked.truncate(top);
    }
    ranked.sort_unstable_by(order);
    Ok(ranked.into_iter().map(|(k, c)| (k.clone(), c)).collect())
}

fn missing_key(v: u64) -> AnalyticsError {
    hopdb_core::Error::Corruption {
        path: Default::default(),
        detail: format!("node {v} reached by a path pattern has no key"),
    }
    .into()
}
