//! Small shared pieces: a visited bitset, argument checks, the periodic
//! cancel/deadline/memory check, dense relabelling and path reconstruction.

use crate::control::{AlgoError, Control};
use crate::csr::Csr;

/// "No node" marker in per-node u32 tables (parents, distances).
pub(crate) const NONE: u32 = u32::MAX;

/// How many steps pass between two [`Control`] checks.
const CHECK_EVERY: u64 = 4096;

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

/// Counts steps and consults the [`Control`]: the cancel flag and deadline every
/// [`CHECK_EVERY`] steps, the memory bound (when there is one) on every step that reports its
/// memory, so growing buffers cannot pass the bound unnoticed.
pub(crate) struct Ticker(u64);

impl Ticker {
    /// Checks once right away, so a run that is already cancelled (or past its deadline) does
    /// no work.
    pub(crate) fn start(ctrl: &Control) -> Result<Ticker, AlgoError> {
        ctrl.check()?;
        Ok(Ticker(0))
    }

    /// [`Ticker::start`], and checks the `fixed` bytes the run is about to allocate (per-node
    /// tables, bitsets) against the memory bound before allocating them.
    pub(crate) fn start_with(ctrl: &Control, fixed: usize) -> Result<Ticker, AlgoError> {
        ctrl.check()?;
        ctrl.check_memory(fixed)?;
        Ok(Ticker(0))
    }

    /// One step that allocates nothing: cancel and deadline only.
    #[inline]
    pub(crate) fn step(&mut self, ctrl: &Control) -> Result<(), AlgoError> {
        self.0 += 1;
        if self.0.is_multiple_of(CHECK_EVERY) {
            ctrl.check()?;
        }
        Ok(())
    }

    /// `count` steps at once (a row sorted, a block of work done): checks when they cross a
    /// multiple of [`CHECK_EVERY`].
    pub(crate) fn advance(&mut self, ctrl: &Control, count: usize) -> Result<(), AlgoError> {
        let before = self.0 / CHECK_EVERY;
        self.0 += count as u64;
        if self.0 / CHECK_EVERY != before {
            ctrl.check()?;
        }
        Ok(())
    }

    /// One step; `memory` is the working memory in bytes right now, evaluated only when the
    /// run has a memory bound.
    #[inline]
    pub(crate) fn tick(&mut self, ctrl: &Control, memory: impl FnOnce() -> usize) -> Result<(), AlgoError> {
        if ctrl.max_memory().is_some() {
            ctrl.check_memory(memory())?;
        }
        self.step(ctrl)
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

/// Renumbers labels densely `0..count` in order of first appearance by node; returns `count`.
/// `scratch` must have one entry per possible label, all [`NONE`] (reset on return).
pub(crate) fn renumber(labels: &mut [u32], scratch: &mut [u32]) -> usize {
    let mut next = 0u32;
    for c in labels.iter_mut() {
        let s = &mut scratch[*c as usize];
        if *s == NONE {
            *s = next;
            next += 1;
        }
        *c = *s;
    }
    for c in scratch.iter_mut() {
        *c = NONE;
    }
    next as usize
}

/// Follows `pred` from `to` back to `from` and returns the path `from .. to` (every node on
/// the way must have a predecessor, `from` excluded).
pub(crate) fn walk_back(pred: &[u32], from: u32, to: u32) -> Vec<u32> {
    let mut path = vec![to];
    let mut v = to;
    while v != from {
        v = pred[v as usize];
        path.push(v);
    }
    path.reverse();
    path
}

/// Collects what a streaming run hands to its callback while keeping the answer within the
/// memory bound: [`Bounded::admit`] says whether one more item of `bytes` still fits (else the
/// callback breaks the stream), [`Bounded::finish`] turns an overflow into the error.
pub(crate) struct Bounded<'c> {
    ctrl: &'c Control,
    /// Bytes held before the first item (tables the caller keeps alongside).
    base: usize,
    stored: usize,
    overflow: Option<AlgoError>,
}

impl<'c> Bounded<'c> {
    pub(crate) fn new(ctrl: &'c Control, base: usize) -> Bounded<'c> {
        Bounded {
            ctrl,
            base,
            stored: 0,
            overflow: None,
        }
    }

    /// Accounts `bytes` more for an item about to be kept (`transient`: bytes the stream
    /// holds right now, e.g. its current path); `Break` when that passes the bound.
    pub(crate) fn admit(&mut self, bytes: usize, transient: usize) -> std::ops::ControlFlow<()> {
        self.stored += bytes;
        match self.ctrl.check_memory(self.base + self.stored + transient) {
            Ok(()) => std::ops::ControlFlow::Continue(()),
            Err(e) => {
                self.overflow = Some(e);
                std::ops::ControlFlow::Break(())
            }
        }
    }

    /// `collected` unless an item did not fit.
    pub(crate) fn finish<T>(self, collected: T) -> Result<T, AlgoError> {
        match self.overflow {
            Some(e) => Err(e),
            None => Ok(collected),
        }
    }
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
