//! Edge writes and deletions inside a write transaction: endpoints resolved or created,
//! both adjacency entries and the degree counters kept together; a node's deletion takes
//! its edges with it.

use super::*;

impl WriteTxn<'_> {
    pub(super) fn new_id(&mut self, key: &NodeKey) -> NodeId {
        let id = self.next_node;
        self.next_node += 1;
        self.new_keys.insert(key.clone(), id);
        id
    }

    /// The id of a live endpoint, created if missing and the store's policy allows it.
    pub(super) fn endpoint(&mut self, key: &NodeKey) -> Result<NodeId> {
        key.validate()?;
        if let Some(id) = self.resolve(key)? {
            if self.is_live(key, id)? {
                return Ok(id);
            }
        }
        if self.g.cfg.missing_endpoints == MissingEndpoints::Reject {
            return Err(Error::NodeNotFound { key: key.to_string() });
        }
        self.upsert_node_inner(key.clone(), &[], Props::new(), WriteMode::Merge)?;
        self.resolve(key)?
            .ok_or_else(|| Error::NodeNotFound { key: key.to_string() })
    }

    pub(super) fn check_weight(weight: Option<f64>) -> Result<()> {
        match weight {
            Some(w) if !w.is_finite() => Err(Error::invalid("edge weight", format!("{w} is not a finite number"))),
            _ => Ok(()),
        }
    }

    pub(super) fn put_edge(
        &mut self,
        s: NodeId,
        t: &EdgeType,
        d: NodeId,
        eid: u64,
        rec: &EdgeRec,
        src_key: &NodeKey,
    ) -> Result<()> {
        self.put(Cf::Out, &adj_key(s, t.id, d, eid), rec.encode()?);
        let back = rec.with_nbr(src_key.clone()).encode()?;
        if t.options.undirected {
            if s != d {
                self.put(Cf::Out, &adj_key(d, t.id, s, eid), back);
            }
        } else {
            self.put(Cf::In, &adj_key(d, t.id, s, eid), back);
        }
        Ok(())
    }

    pub(super) fn delete_edge_entries(&mut self, s: NodeId, t: &EdgeType, d: NodeId, eid: u64) {
        self.delete(Cf::Out, &adj_key(s, t.id, d, eid));
        if t.options.undirected {
            if s != d {
                self.delete(Cf::Out, &adj_key(d, t.id, s, eid));
            }
        } else {
            self.delete(Cf::In, &adj_key(d, t.id, s, eid));
        }
        if t.options.multi {
            self.delete(Cf::EdgeIds, &id_bytes(eid));
        }
    }

    /// Applies a change of `dc` edges and `dw` weight between `s` and `d` to the counters.
    pub(super) fn bump(&mut self, s: NodeId, t: &EdgeType, d: NodeId, dc: i64, dw: f64) {
        if dc == 0 && dw == 0.0 {
            return;
        }
        if t.options.undirected {
            if s == d {
                self.deg(s, t.id, |x| {
                    x.und += 2 * dc;
                    x.und_w += 2.0 * dw;
                });
            } else {
                for n in [s, d] {
                    self.deg(n, t.id, |x| {
                        x.und += dc;
                        x.und_w += dw;
                    });
                }
            }
        } else {
            self.deg(s, t.id, |x| {
                x.out += dc;
                x.out_w += dw;
            });
            self.deg(d, t.id, |x| {
                x.inn += dc;
                x.in_w += dw;
            });
        }
        if let Some(log) = self.changes.as_mut() {
            let (src, dst, ty, undirected) = (s, d, t.id, t.options.undirected);
            for _ in 0..dc.unsigned_abs() {
                log.push(if dc > 0 {
                    crate::changes::GraphChange::EdgeAdded {
                        src,
                        dst,
                        ty,
                        undirected,
                    }
                } else {
                    crate::changes::GraphChange::EdgeRemoved {
                        src,
                        dst,
                        ty,
                        undirected,
                    }
                });
            }
        }
        if dc != 0 {
            self.count(COUNT_EDGES, dc);
            self.count(&count_type_key(t.id), dc);
        }
    }

    /// Inserts or updates the edge `src -[ty]-> dst` of a simple (non-multi) type. Missing
    /// endpoints are created or rejected per [`crate::MissingEndpoints`].
    pub fn upsert_edge(
        &mut self,
        src: impl Into<NodeKey>,
        ty: &str,
        dst: impl Into<NodeKey>,
        weight: Option<f64>,
        props: Props,
        mode: WriteMode,
    ) -> Result<()> {
        let (src, dst) = (src.into(), dst.into());
        self.run(|t| t.upsert_edge_inner(&src, ty, &dst, weight, props, mode))
    }

    pub(super) fn upsert_edge_inner(
        &mut self,
        src: &NodeKey,
        ty: &str,
        dst: &NodeKey,
        weight: Option<f64>,
        props: Props,
        mode: WriteMode,
    ) -> Result<()> {
        Self::check_weight(weight)?;
        validate_props(&props)?;
        let t = self.edge_type(ty, None)?;
        if t.options.multi {
            return Err(Error::EdgeType {
                ty: ty.into(),
                reason: "allows parallel edges: use add_edge, and update or delete by edge id".into(),
            });
        }
        let s = self.endpoint(src)?;
        let d = self.endpoint(dst)?;
        let old = self
            .get(Cf::Out, &adj_key(s, t.id, d, 0))?
            .map(|v| EdgeRec::decode(&v))
            .transpose()?;
        let rec = match (&old, mode) {
            (Some(o), WriteMode::Merge) => {
                let mut p = o.props.clone();
                p.extend(props);
                EdgeRec {
                    nbr: dst.clone(),
                    weight: weight.or(o.weight),
                    props: p,
                }
            }
            _ => EdgeRec {
                nbr: dst.clone(),
                weight,
                props,
            },
        };
        self.put_edge(s, &t, d, 0, &rec, src)?;
        let dc = i64::from(old.is_none());
        let dw = weight_of(rec.weight) - old.as_ref().map_or(0.0, |o| weight_of(o.weight));
        self.bump(s, &t, d, dc, dw);
        Ok(())
    }

    /// Adds a parallel edge of a multi-edge type and returns its stable edge id.
    pub fn add_edge(
        &mut self,
        src: impl Into<NodeKey>,
        ty: &str,
        dst: impl Into<NodeKey>,
        weight: Option<f64>,
        props: Props,
    ) -> Result<u64> {
        let (src, dst) = (src.into(), dst.into());
        self.run(|tx| {
            Self::check_weight(weight)?;
            validate_props(&props)?;
            let t = tx.edge_type(ty, None)?;
            if !t.options.multi {
                return Err(Error::EdgeType {
                    ty: ty.into(),
                    reason: "is not a multi-edge type (declare it with multi: true); use upsert_edge".into(),
                });
            }
            let s = tx.endpoint(&src)?;
            let d = tx.endpoint(&dst)?;
            let eid = tx.next_edge;
            tx.next_edge += 1;
            let rec = EdgeRec {
                nbr: dst.clone(),
                weight,
                props,
            };
            tx.put_edge(s, &t, d, eid, &rec, &src)?;
            tx.put(Cf::EdgeIds, &id_bytes(eid), edge_id_value(s, t.id, d).to_vec());
            tx.bump(s, &t, d, 1, weight_of(weight));
            Ok(eid)
        })
    }

    pub(super) fn edge_at(&self, eid: u64) -> Result<(NodeId, EdgeType, NodeId, EdgeRec)> {
        let v = self
            .get(Cf::EdgeIds, &id_bytes(eid))?
            .ok_or(Error::EdgeIdNotFound { id: eid })?;
        let (s, ty, d) = parse_edge_id_value(&v).ok_or_else(|| corrupt_rec("edge id entry"))?;
        let t = self
            .cat()
            .type_by_id(ty)
            .cloned()
            .ok_or_else(|| corrupt_rec("edge of an unknown type"))?;
        let rec = self
            .get(Cf::Out, &adj_key(s, ty, d, eid))?
            .ok_or_else(|| corrupt_rec("edge id without its edge"))?;
        Ok((s, t, d, EdgeRec::decode(&rec)?))
    }

    /// Updates a parallel edge by its id.
    pub fn update_edge_by_id(&mut self, eid: u64, weight: Option<f64>, props: Props, mode: WriteMode) -> Result<()> {
        self.run(|tx| {
            Self::check_weight(weight)?;
            validate_props(&props)?;
            let (s, t, d, old) = tx.edge_at(eid)?;
            let src_key = tx
                .node_rec(s)?
                .ok_or_else(|| corrupt_rec("edge from a missing node"))?
                .key;
            let rec = match mode {
                WriteMode::Merge => {
                    let mut p = old.props.clone();
                    p.extend(props);
                    EdgeRec {
                        nbr: old.nbr.clone(),
                        weight: weight.or(old.weight),
                        props: p,
                    }
                }
                WriteMode::Replace => EdgeRec {
                    nbr: old.nbr.clone(),
                    weight,
                    props,
                },
            };
            tx.put_edge(s, &t, d, eid, &rec, &src_key)?;
            tx.bump(s, &t, d, 0, weight_of(rec.weight) - weight_of(old.weight));
            Ok(())
        })
    }

    /// Deletes a parallel edge by its id.
    pub fn delete_edge_by_id(&mut self, eid: u64) -> Result<()> {
        self.run(|tx| {
            let (s, t, d, old) = tx.edge_at(eid)?;
            tx.delete_edge_entries(s, &t, d, eid);
            tx.bump(s, &t, d, -1, -weight_of(old.weight));
            Ok(())
        })
    }

    /// Deletes the edge `src -[ty]-> dst` (every parallel one, for a multi-edge type); for an
    /// undirected type `dst -[ty]- src` is the same edge. Fails with `EdgeNotFound` if absent.
    pub fn delete_edge(&mut self, src: impl Into<NodeKey>, ty: &str, dst: impl Into<NodeKey>) -> Result<()> {
        let (src, dst) = (src.into(), dst.into());
        self.run(|tx| match tx.delete_edge_inner(&src, ty, &dst)? {
            true => Ok(()),
            false => Err(Error::EdgeNotFound {
                src: src.to_string(),
                ty: ty.into(),
                dst: dst.to_string(),
            }),
        })
    }

    /// Like [`WriteTxn::delete_edge`], but an absent edge is not an error. Returns whether
    /// something was deleted.
    pub fn delete_edge_if_exists(
        &mut self,
        src: impl Into<NodeKey>,
        ty: &str,
        dst: impl Into<NodeKey>,
    ) -> Result<bool> {
        let (src, dst) = (src.into(), dst.into());
        self.run(|tx| tx.delete_edge_inner(&src, ty, &dst))
    }

    pub(super) fn delete_edge_inner(&mut self, src: &NodeKey, ty: &str, dst: &NodeKey) -> Result<bool> {
        let Some(t) = self.cat().type_named(ty).cloned() else {
            return Ok(false);
        };
        let (Some(s), Some(d)) = (self.resolve(src)?, self.resolve(dst)?) else {
            return Ok(false);
        };
        let found = self.adjacency(Cf::Out, &pair_prefix(s, t.id, d))?;
        for (a, w) in &found {
            self.delete_edge_entries(s, &t, d, a.eid);
            self.bump(s, &t, d, -1, -weight_of(*w));
        }
        Ok(!found.is_empty())
    }

    /// Deletes a node and every edge touching it. Fails with `NodeNotFound` if absent.
    pub fn delete_node(&mut self, key: impl Into<NodeKey>) -> Result<()> {
        let key = key.into();
        self.run(|tx| match tx.delete_node_inner(&key)? {
            true => Ok(()),
            false => Err(Error::NodeNotFound { key: key.to_string() }),
        })
    }

    /// Like [`WriteTxn::delete_node`], but an absent node is not an error.
    pub fn delete_node_if_exists(&mut self, key: impl Into<NodeKey>) -> Result<bool> {
        let key = key.into();
        self.run(|tx| tx.delete_node_inner(&key))
    }

    pub(super) fn delete_node_inner(&mut self, key: &NodeKey) -> Result<bool> {
        let Some(id) = self.resolve(key)? else { return Ok(false) };
        let Some(rec) = self.node_rec(id)? else {
            return Ok(false);
        };
        let mut adj = Vec::new();
        for cf in [Cf::Out, Cf::In] {
            adj.extend(
                self.adjacency(cf, &node_prefix(id))?
                    .into_iter()
                    .map(|(a, w)| (cf, a, w)),
            );
        }
        for (cf, a, w) in adj {
            let t = self
                .cat()
                .type_by_id(a.ty)
                .cloned()
                .ok_or_else(|| corrupt_rec("edge of an unknown type"))?;
            let (s, d) = match cf {
                Cf::Out => (id, a.nbr),
                _ if a.nbr == id => continue, // a directed self-loop, handled from its out entry
                _ => (a.nbr, id),
            };
            self.delete_edge_entries(s, &t, d, a.eid);
            self.bump(s, &t, d, -1, -weight_of(w));
        }
        self.reindex(id, Some(&rec), None)?;
        // The node's own counters go entirely (the bumps above touched them too).
        self.p.deg.insert(id, (true, DegSet::default()));
        for l in &rec.labels {
            self.delete(Cf::Labels, &label_key(*l, id));
            self.count(&count_label_key(*l), -1);
        }
        self.delete(Cf::Nodes, &id_bytes(id));
        self.put(Cf::Keys, &rec.key.encode(), key_value(id, false).to_vec());
        self.count(COUNT_NODES, -1);
        self.liveness.push((id, false));
        if let Some(log) = self.changes.as_mut() {
            log.push(crate::changes::GraphChange::NodeRemoved { id });
        }
        Ok(true)
    }
}
