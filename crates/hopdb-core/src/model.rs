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
    pub key: NodeKey,
    pub labels: Vec<String>,
    pub props: Props,
}

/// An edge as read. For undirected types `src` is the node the edge was listed from.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    pub src: NodeKey,
    pub ty: Arc<str>,
    pub dst: NodeKey,
    /// Stable id of an edge of a multi-edge type; 0 for simple types.
    pub id: u64,
    pub weight: Option<f64>,
    pub props: Props,
}

/// Degree and weight sum of a node (unweighted edges weigh 1.0).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Degree {
    pub count: u64,
    pub weight_sum: f64,
}

/// A node for batch upserts.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeInput {
    pub key: NodeKey,
    pub labels: Vec<String>,
    pub props: Props,
}

impl NodeInput {
    pub fn new(key: impl Into<NodeKey>) -> Self {
        NodeInput {
            key: key.into(),
            labels: Vec::new(),
            props: Props::new(),
        }
    }
    pub fn label(mut self, l: impl Into<String>) -> Self {
        self.labels.push(l.into());
        self
    }
    pub fn props(mut self, p: Props) -> Self {
        self.props = p;
        self
    }
}

/// An edge for batch upserts.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeInput {
    pub src: NodeKey,
    pub ty: String,
    pub dst: NodeKey,
    pub weight: Option<f64>,
    pub props: Props,
}

impl EdgeInput {
    pub fn new(src: impl Into<NodeKey>, ty: impl Into<String>, dst: impl Into<NodeKey>) -> Self {
        EdgeInput {
            src: src.into(),
            ty: ty.into(),
            dst: dst.into(),
            weight: None,
            props: Props::new(),
        }
    }
    pub fn weight(mut self, w: f64) -> Self {
        self.weight = Some(w);
        self
    }
    pub fn props(mut self, p: Props) -> Self {
        self.props = p;
        self
    }
}
