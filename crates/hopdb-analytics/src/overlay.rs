//! A projection kept fresh under writes (decision 0010): the base CSR of an exact snapshot plus
//! the structural changes committed since, taken from the store's change log and tagged with
//! their version, so a point query at version V sees exactly the state of V without a rebuild.

use std::sync::Arc;

use hopdb_core::{ChangeSet, Direction, GraphChange, NodeId, NodeKey, TypeFilter};
use rustc_hash::FxHashMap;

use crate::error::Result;
use crate::point::{follows, Adjacency, EdgeIdent, Visit};
use crate::projection::{GraphProjection, SharedProjection};

/// Which adjacency views an entry belongs to.
const OUT: u8 = 1;
const IN: u8 = 2;
const BOTH: u8 = 4;

#[derive(Debug, Clone, Copy)]
struct Delta {
    nbr: NodeId,
    /// The edge type's catalog id.
    ty: u32,
    views: u8,
    version: u64,
    /// +1 edge created, -1 edge removed.
    sign: i8,
}

/// The base projection and the deltas after it.
pub(crate) struct Overlay {
    base: SharedProjection,
    /// Every change of versions `base.version() + 1 ..= applied` is in `adj` / `nodes`.
    applied: u64,
    adj: FxHashMap<NodeId, Vec<Delta>>,
    /// Node liveness changes: (version, Some(key) = added, None = removed), in order.
    nodes: FxHashMap<NodeId, Vec<(u64, Option<NodeKey>)>>,
    deltas: usize,
}

impl Overlay {
    pub(crate) fn new(base: SharedProjection) -> Overlay {
        Overlay {
            applied: base.version(),
            base,
            adj: FxHashMap::default(),
            nodes: FxHashMap::default(),
            deltas: 0,
        }
    }

    pub(crate) fn base(&self) -> &SharedProjection {
        &self.base
    }
    pub(crate) fn applied(&self) -> u64 {
        self.applied
    }
    /// Adjacency entries held on top of the base.
    pub(crate) fn deltas(&self) -> usize {
        self.deltas
    }

    /// Applies the change sets of the versions after `applied`, in order.
    pub(crate) fn apply(&mut self, sets: &[Arc<ChangeSet>]) {
        for set in sets {
            if set.version <= self.applied {
                continue;
            }
            let v = set.version;
            for c in set.changes.iter().flatten() {
                match c {
                    GraphChange::NodeAdded { id, key } => {
                        self.nodes.entry(*id).or_default().push((v, Some(key.clone())))
                    }
                    GraphChange::NodeRemoved { id } => self.nodes.entry(*id).or_default().push((v, None)),
                    GraphChange::EdgeAdded {
                        src,
                        dst,
                        ty,
                        undirected,
                    } => self.edge(*src, *dst, *ty, *undirected, v, 1),
                    GraphChange::EdgeRemoved {
                        src,
                        dst,
                        ty,
                        undirected,
                    } => self.edge(*src, *dst, *ty, *undirected, v, -1),
                }
            }
            self.applied = v;
        }
    }

    fn edge(&mut self, src: NodeId, dst: NodeId, ty: u32, undirected: bool, version: u64, sign: i8) {
        let mut push = |node: NodeId, nbr: NodeId, views: u8| {
            self.adj.entry(node).or_default().push(Delta {
                nbr,
                ty,
                views,
                version,
                sign,
            });
            self.deltas += 1;
        };
        // The same entries the projection's views hold for this edge (see projection.rs).
        if undirected {
            if src == dst {
                push(src, dst, OUT | IN);
                push(src, dst, BOTH);
                push(src, dst, BOTH);
            } else {
                push(src, dst, OUT | IN | BOTH);
                push(dst, src, OUT | IN | BOTH);
            }
        } else if src == dst {
            push(src, dst, OUT | IN);
            push(src, dst, BOTH);
            push(src, dst, BOTH);
        } else {
            push(src, dst, OUT | BOTH);
            push(dst, src, IN | BOTH);
        }
    }

    /// Whether node `id` is live at `version`, and its key.
    pub(crate) fn live_key(&self, id: NodeId, version: u64) -> Option<NodeKey> {
        let base = self.base.index_of(id).map(|i| self.base.key(i).clone());
        let mut state = base;
        if let Some(hist) = self.nodes.get(&id) {
            for (_, k) in hist.iter().filter(|(v, _)| *v <= version) {
                state = k.clone();
            }
        }
        state
    }

    /// The adjacency of the state at `version` (which must be `<= applied`), of the edge
    /// types `types` lets through.
    pub(crate) fn at(&self, version: u64, types: TypeFilter) -> OverlayAdjacency<'_> {
        OverlayAdjacency {
            ov: self,
            version,
            types,
        }
    }
}

pub(crate) struct OverlayAdjacency<'a> {
    ov: &'a Overlay,
    version: u64,
    types: TypeFilter,
}

impl Adjacency for OverlayAdjacency<'_> {
    fn for_each(&self, u: u64, dir: Direction, f: &mut Visit<'_>) -> Result<()> {
        let p: &GraphProjection = &self.ov.base;
        let (view, bit) = match dir {
            Direction::Out => (&p.out, OUT),
            Direction::In => (&p.inc, IN),
            Direction::Both => (&p.both, BOTH),
        };
        let deltas: Vec<&Delta> = self
            .ov
            .adj
            .get(&u)
            .map(|d| {
                d.iter()
                    .filter(|d| d.version <= self.version && d.views & bit != 0 && follows(&self.types, d.ty))
                    .collect()
            })
            .unwrap_or_default();
        let key_of = |v: u64| self.key_of(v);
        // Net change per neighbour and type: removals cancel base entries, additions come after.
        let mut net: FxHashMap<(NodeId, u32), i64> = FxHashMap::default();
        for d in &deltas {
            *net.entry((d.nbr, d.ty)).or_default() += i64::from(d.sign);
        }
        if let Some(i) = p.index_of(u) {
            for (k, &v) in view.neighbors(i).iter().enumerate() {
                let (nbr, edge) = (p.node_id(v), view.edge_key(i, k));
                let ty = p.edge_type(edge);
                if !follows(&self.types, ty) {
                    continue;
                }
                if let Some(n) = net.get_mut(&(nbr, ty)) {
                    if *n < 0 {
                        *n += 1;
                        continue;
                    }
                }
                let key = || key_of(nbr);
                if !f(nbr, EdgeIdent(0, edge, 0), &key) {
                    return Ok(());
                }
            }
        }
        for (&(nbr, _), &n) in net.iter().filter(|(_, &n)| n > 0) {
            for c in 0..n {
                let key = || key_of(nbr);
                // Added edges are told apart by endpoints and copy number (trails do not run
                // on the overlay; k-hop and shortest paths only need distinct neighbours).
                if !f(nbr, EdgeIdent(1 + c as u64, u.min(nbr), u.max(nbr)), &key) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    fn key_ref(&self, u: u64) -> Option<&NodeKey> {
        // A base node whose liveness never changed since the build keeps its base key.
        if self.ov.nodes.contains_key(&u) {
            return None;
        }
        self.ov.base.index_of(u).map(|i| self.ov.base.key(i))
    }

    fn key_of(&self, u: u64) -> Result<NodeKey> {
        self.ov.live_key(u, self.version).ok_or_else(|| {
            hopdb_core::Error::Corruption {
                path: Default::default(),
                detail: format!("node id {u} reached through the overlay is not live"),
            }
            .into()
        })
    }
}
