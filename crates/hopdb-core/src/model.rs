//! The public record types returned by reads and accepted by batch writes.

use crate::value::{NodeKey, Props};
use std::sync::Arc;

/// Which edges of a node to follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    /// Edges leaving the node (and every edge of an undirected type).
    Out,
    /// Edges entering the node (and every edge of an undirected type).
    In,
    /// Both; a directed self-loop is listed once (degrees count it twice, as NetworkX does).
    #[default]
    Both,
}

/// Whether an upsert merges into or replaces what is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WriteMode {
    /// New properties overwrite same-named old ones, others are kept; labels are added; an
    /// edge weight of `None` keeps the old weight.
    #[default]
    Merge,
    /// Labels, properties and weight become exactly the given ones.
    Replace,
}

/// A node as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The node's unique user key.
    pub key: NodeKey,
    /// Its labels, without duplicates.
    pub labels: Vec<String>,
    /// Its properties.
    pub props: Props,
}

/// A node as stored, its properties left encoded until asked for, so a scan that reads one
/// property of each node decodes only that one ([`crate::GraphRead::for_each_node_record`]).
#[derive(Debug, Clone)]
pub struct NodeRecord {
    /// The node's internal id ([`crate::GraphRead::node_id`]).
    pub id: crate::NodeId,
    /// The node's unique user key.
    pub key: NodeKey,
    /// Its labels, without duplicates.
    pub labels: Arc<[Arc<str>]>,
    /// The encoded property map.
    props: Vec<u8>,
}

impl NodeRecord {
    /// A record from its parts, the properties in the stored encoding
    /// ([`crate::codec::encode_props`]): for graphs kept outside the store (a cluster).
    pub fn new(id: crate::NodeId, key: NodeKey, labels: Arc<[Arc<str>]>, props: Vec<u8>) -> NodeRecord {
        NodeRecord { id, key, labels, props }
    }
    /// Whether the node has this label.
    pub fn has_label(&self, name: &str) -> bool {
        self.labels.iter().any(|l| &**l == name)
    }
    /// One property, decoding no other (`Corruption` when the record does not decode).
    pub fn property(&self, name: &str) -> crate::Result<Option<crate::Value>> {
        crate::value::find_prop(&self.props, name)
    }
    /// The property map as stored ([`crate::codec::decode_props`] decodes it).
    pub fn encoded_props(&self) -> &[u8] {
        &self.props
    }
    /// Every property.
    pub fn props(&self) -> crate::Result<Props> {
        crate::value::decode_props(&mut crate::value::Reader::new(&self.props))
    }
    /// The node, decoded.
    pub fn to_node(&self) -> crate::Result<Node> {
        Ok(Node {
            key: self.key.clone(),
            labels: self.labels.iter().map(|l| l.to_string()).collect(),
            props: self.props()?,
        })
    }
}

/// An edge as read. For undirected types `src` is the node the edge was listed from.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    /// The source node's key (for undirected types, the node listed from).
    pub src: NodeKey,
    /// The edge type's name.
    pub ty: Arc<str>,
    /// The target node's key (for undirected types, the other end).
    pub dst: NodeKey,
    /// Stable id of an edge of a multi-edge type; 0 for simple types.
    pub id: u64,
    /// The edge's weight; None for an unweighted edge (which weighs 1.0 in degree sums).
    pub weight: Option<f64>,
    /// Its properties.
    pub props: Props,
}

/// Degree and weight sum of a node (unweighted edges weigh 1.0).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Degree {
    /// Number of edges in the direction asked; a self-loop counts twice under
    /// [`Direction::Both`] (an undirected one, in every direction).
    pub count: u64,
    /// Sum of those edges' weights, counted as `count` counts them.
    pub weight_sum: f64,
}

/// A node for batch upserts.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeInput {
    /// The node's unique user key.
    pub key: NodeKey,
    /// Labels to add (merge) or to set (replace).
    pub labels: Vec<String>,
    /// Properties to merge in or to set.
    pub props: Props,
}

impl NodeInput {
    /// A node with this key and no labels or properties.
    pub fn new(key: impl Into<NodeKey>) -> Self {
        NodeInput {
            key: key.into(),
            labels: Vec::new(),
            props: Props::new(),
        }
    }
    /// Adds a label (builder style).
    pub fn label(mut self, l: impl Into<String>) -> Self {
        self.labels.push(l.into());
        self
    }
    /// Sets the properties, replacing any given before (builder style).
    pub fn props(mut self, p: Props) -> Self {
        self.props = p;
        self
    }
}

/// An edge for batch upserts.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeInput {
    /// The source node's key.
    pub src: NodeKey,
    /// The edge type's name (created as directed and simple on first use).
    pub ty: String,
    /// The target node's key.
    pub dst: NodeKey,
    /// The weight to set; None keeps the old weight on merge, and leaves a new edge unweighted.
    pub weight: Option<f64>,
    /// Properties to merge in or to set.
    pub props: Props,
}

impl EdgeInput {
    /// An unweighted edge `src -[ty]-> dst` with no properties.
    pub fn new(src: impl Into<NodeKey>, ty: impl Into<String>, dst: impl Into<NodeKey>) -> Self {
        EdgeInput {
            src: src.into(),
            ty: ty.into(),
            dst: dst.into(),
            weight: None,
            props: Props::new(),
        }
    }
    /// Sets the weight (builder style).
    pub fn weight(mut self, w: f64) -> Self {
        self.weight = Some(w);
        self
    }
    /// Sets the properties, replacing any given before (builder style).
    pub fn props(mut self, p: Props) -> Self {
        self.props = p;
        self
    }
}
