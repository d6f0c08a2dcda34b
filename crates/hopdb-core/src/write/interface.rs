//! The write interface a query engine writes through: the embedded store's [`WriteTxn`], or a
//! transaction on a graph kept elsewhere (a cluster's query node), so one executor serves both.

use crate::catalog::{EdgeType, EdgeTypeOptions};
use crate::error::Result;
use crate::graph_read::GraphRead;
use crate::model::WriteMode;
use crate::value::{NodeKey, Props};
use crate::write::WriteTxn;

/// A multi-edge as a caller holds it: its id and the ends and type it was read with. A store
/// finds it by id alone; a cluster, which has no edge-id index, in the partitions of its ends.
#[derive(Debug, Clone, Copy)]
pub struct EdgeAt<'a> {
    /// The edge's id.
    pub id: u64,
    /// Its source (for undirected types, either end).
    pub src: &'a NodeKey,
    /// Its type.
    pub ty: &'a str,
    /// Its target (the other end).
    pub dst: &'a NodeKey,
}

/// Writes of a transaction that reads its own changes through [`GraphRead`]. Each has the
/// meaning of the [`WriteTxn`] method of the same name.
pub trait GraphWrite: GraphRead {
    /// Creates a node under a fresh integer key.
    fn create_node(&mut self, labels: &[&str], props: Props) -> Result<NodeKey>;
    /// Creates or updates a node.
    fn upsert_node(&mut self, key: NodeKey, labels: &[&str], props: Props, mode: WriteMode) -> Result<()>;
    /// Creates or updates the edge `src -[ty]-> dst` of a simple type.
    fn upsert_edge(
        &mut self,
        src: NodeKey,
        ty: &str,
        dst: NodeKey,
        weight: Option<f64>,
        props: Props,
        mode: WriteMode,
    ) -> Result<()>;
    /// Adds a parallel edge of a multi-edge type; returns its id.
    fn add_edge(&mut self, src: NodeKey, ty: &str, dst: NodeKey, weight: Option<f64>, props: Props) -> Result<u64>;
    /// Declares an edge type (or returns the existing declaration when it matches).
    fn define_edge_type(&mut self, name: &str, options: EdgeTypeOptions) -> Result<EdgeType>;
    /// Deletes the edge `src -[ty]-> dst`; `EdgeNotFound` if there is none.
    fn delete_edge(&mut self, src: NodeKey, ty: &str, dst: NodeKey) -> Result<()>;
    /// Deletes this multi-edge; `EdgeIdNotFound` if it is gone.
    fn delete_edge_by_id(&mut self, edge: EdgeAt<'_>) -> Result<()>;
    /// Updates this multi-edge; `EdgeIdNotFound` if it is gone.
    fn update_edge_by_id(&mut self, edge: EdgeAt<'_>, weight: Option<f64>, props: Props, mode: WriteMode)
        -> Result<()>;
    /// Deletes a node and every edge touching it; `NodeNotFound` if there is none.
    fn delete_node(&mut self, key: NodeKey) -> Result<()>;
    /// Makes every change durable and visible, or none of them.
    fn commit_boxed(self: Box<Self>) -> Result<()>;
}

/// A graph kept elsewhere (a cluster) that a query engine reads and writes through these
/// interfaces instead of a local store.
pub trait RemoteGraph: GraphRead + Send + Sync {
    /// Starts a write transaction: it reads the graph plus its own changes, and writes
    /// nothing until [`GraphWrite::commit_boxed`].
    fn begin_write(&self) -> Result<Box<dyn GraphWrite + Send>>;
}

impl GraphWrite for WriteTxn<'_> {
    fn create_node(&mut self, labels: &[&str], props: Props) -> Result<NodeKey> {
        WriteTxn::create_node(self, labels, props)
    }
    fn upsert_node(&mut self, key: NodeKey, labels: &[&str], props: Props, mode: WriteMode) -> Result<()> {
        WriteTxn::upsert_node(self, key, labels, props, mode)
    }
    fn upsert_edge(
        &mut self,
        src: NodeKey,
        ty: &str,
        dst: NodeKey,
        weight: Option<f64>,
        props: Props,
        mode: WriteMode,
    ) -> Result<()> {
        WriteTxn::upsert_edge(self, src, ty, dst, weight, props, mode)
    }
    fn add_edge(&mut self, src: NodeKey, ty: &str, dst: NodeKey, weight: Option<f64>, props: Props) -> Result<u64> {
        WriteTxn::add_edge(self, src, ty, dst, weight, props)
    }
    fn define_edge_type(&mut self, name: &str, options: EdgeTypeOptions) -> Result<EdgeType> {
        WriteTxn::define_edge_type(self, name, options)
    }
    fn delete_edge(&mut self, src: NodeKey, ty: &str, dst: NodeKey) -> Result<()> {
        WriteTxn::delete_edge(self, src, ty, dst)
    }
    fn delete_edge_by_id(&mut self, edge: EdgeAt<'_>) -> Result<()> {
        WriteTxn::delete_edge_by_id(self, edge.id)
    }
    fn update_edge_by_id(
        &mut self,
        edge: EdgeAt<'_>,
        weight: Option<f64>,
        props: Props,
        mode: WriteMode,
    ) -> Result<()> {
        WriteTxn::update_edge_by_id(self, edge.id, weight, props, mode)
    }
    fn delete_node(&mut self, key: NodeKey) -> Result<()> {
        WriteTxn::delete_node(self, key)
    }
    fn commit_boxed(self: Box<Self>) -> Result<()> {
        WriteTxn::commit(*self)
    }
}
