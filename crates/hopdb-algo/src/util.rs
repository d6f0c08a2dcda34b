//! Small shared pieces for the traversals: a visited bitset, argument checks and the
//! periodic cancel/deadline/memory check.

use crate::control::{AlgoError, Control};
use crate::csr::Csr;

/// "No node" marker in per-node u32 tables (parents, distances).
pub(crate) const NONE: u32 = u32::MAX;

/// How many steps pass between two [`Control`] checks.
const CHECK_EVERY: u32 = 4096;

/// One bit per node: 40 KB for 325k nodes, so allocating it per query is cheap.
pub(crate) struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    pub(crate) fn new(n: u32) -> BitSet {
        BitSet {
            words: vec![0; (n as usize).div_ceil(64)],
        }
    }

    /// Sets the bit; true when it was not set before.
    #[inline]
    pub(crate) fn insert(&mut self, v: u32) -> bool {
        let (w, b) = ((v / 64) as usize, v % 64);
        let fresh = self.words[w] & (1 << b) == 0;
        self.words[w] |= 1 << b;
        fresh
    }

    #[inline]
    pub(crate) fn remove(&mut self, v: u32) {
        self.words[(v / 64) as usize] &= !(1 << (v % 64));
    }

    #[inline]
    pub(crate) fn contains(&self, v: u32) -> bool {
        self.words[(v / 64) as usize] & (1 << (v % 64)) != 0
    }

    pub(crate) fn bytes(&self) -> usize {
        self.words.len() * 8
    }
}

/// Counts steps and consults the [`Control`] every few thousand of them.
pub(crate) struct Ticker(u32);

impl Ticker {
    /// Checks once right away, so a run that is already cancelled does no work.
    pub(crate) fn start(ctrl: &Control) -> Result<Ticker, AlgoError> {
        ctrl.check()?;
        Ok(Ticker(0))
    }

    /// `memory` is the working memory in bytes right now (only evaluated on a check).
    #[inline]
    pub(crate) fn tick(&mut self, ctrl: &Control, memory: impl FnOnce() -> usize) -> Result<(), AlgoError> {
        self.0 = self.0.wrapping_add(1);
        if self.0.is_multiple_of(CHECK_EVERY) {
            ctrl.check()?;
            ctrl.check_memory(memory())?;
        }
        Ok(())
    }
}

pub(crate) fn check_node(node: u32, n: u32) -> Result<(), AlgoError> {
    if node >= n {
        return Err(AlgoError::NodeOutOfRange { node, n });
    }
    Ok(())
}

/// The common node count of `views` (at least one view, all over the same nodes).
pub(crate) fn view_nodes(views: &[&Csr]) -> Result<u32, AlgoError> {
    let Some(first) = views.first() else {
        return Err(AlgoError::InvalidArgument(
            "at least one adjacency view is needed".into(),
        ));
    };
    let n = first.node_count();
    if views.iter().any(|v| v.node_count() != n) {
        return Err(AlgoError::InvalidArgument(
            "adjacency views disagree on the node count".into(),
        ));
    }
    Ok(n)
}

/// Bytes of a `Vec<u32>`-like buffer of `len` entries.
#[inline]
pub(crate) fn u32s(len: usize) -> usize {
    len * 4
}

/// A Dijkstra heap entry ordered so that `BinaryHeap` pops the smallest distance first, then
/// the smallest node (a deterministic order).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct HeapEntry {
    pub dist: f64,
    pub node: u32,
}

impl Eq for HeapEntry {}

impl Ord for HeapEntry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.dist.total_cmp(&self.dist).then(other.node.cmp(&self.node))
    }
}

impl PartialOrd for HeapEntry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
