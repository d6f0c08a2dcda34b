//! Cypher's run-time values: the store's property values plus nodes, relationships, paths
//! and the temporal and spatial types.
//!
//! Nodes and relationships are references (the node's key; a relationship's endpoints, type
//! and edge id) so that reads inside a write transaction always see the latest state; the
//! executor fills `data` when a value leaves the engine in a result row.

use crate::temporal::{Date, DateTime, Duration, LocalDateTime, LocalTime, Time};
use hopdb_database::spatial::Point;
use hopdb_database::NodeKey;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A map value, ordered by key.
pub type Map = BTreeMap<String, Value>;

/// A Cypher value. `==` here is structural (as in tests); Cypher's `=` is [`crate::compare::equals`].
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A 64-bit integer.
    Int(i64),
    /// A 64-bit float.
    Float(f64),
    /// A string.
    String(String),
    /// Raw bytes (stored byte properties).
    Bytes(Vec<u8>),
    /// A list.
    List(Vec<Value>),
    /// A map.
    Map(Map),
    /// A node.
    Node(NodeRef),
    /// A relationship.
    Relationship(RelRef),
    /// A path: nodes and the relationships between them.
    Path(PathValue),
    /// A date.
    Date(Date),
    /// A time of day without time zone.
    LocalTime(LocalTime),
    /// A time of day with a UTC offset.
    Time(Time),
    /// A date and time without time zone.
    LocalDateTime(LocalDateTime),
    /// A date and time with a time zone.
    DateTime(DateTime),
    /// A duration.
    Duration(Duration),
    /// A spatial point (stored as the map [`Point::to_store`] makes).
    Point(Point),
}

/// A node: its unique key, and once materialized for a result, its id, labels and properties.
#[derive(Debug, Clone)]
pub struct NodeRef {
    /// The node's key in the store (its identity).
    pub key: NodeKey,
    /// Filled when the node leaves the engine in a result.
    pub data: Option<Arc<NodeData>>,
    /// The node's record as a read-only query's scan read it (its snapshot never changes),
    /// so its properties and labels are read without a lookup.
    pub stored: Option<Arc<hopdb_database::NodeRecord>>,
}

/// A node's contents as of the end of the query.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeData {
    /// The store's internal id (Cypher's `id(n)`).
    pub id: u64,
    /// Labels.
    pub labels: Vec<String>,
    /// Properties.
    pub props: Map,
}

/// A relationship: endpoints, type and edge id (its identity), and once materialized its
/// id and properties.
#[derive(Debug, Clone)]
pub struct RelRef {
    /// Start node's key.
    pub src: NodeKey,
    /// The type.
    pub ty: Arc<str>,
    /// End node's key.
    pub dst: NodeKey,
    /// The store's edge id for multi-edge types; 0 for simple types (identified by endpoints and type).
    pub edge_id: u64,
    /// Filled when the relationship leaves the engine in a result.
    pub data: Option<Arc<RelData>>,
}

impl RelRef {
    /// The multi-edge as the write interface takes it.
    pub fn at(&self) -> hopdb_database::EdgeAt<'_> {
        hopdb_database::EdgeAt {
            id: self.edge_id,
            src: &self.src,
            ty: &self.ty,
            dst: &self.dst,
        }
    }
}

/// A relationship's contents as of the end of the query.
#[derive(Debug, Clone, PartialEq)]
pub struct RelData {
    /// Cypher's `id(r)`: the edge id for multi-edge types; for simple types a stable number
    /// derived from (start id, type, end id) with bit 61 set (positive, and never a multi-edge id).
    pub id: i64,
    /// Start node's internal id.
    pub start_id: u64,
    /// End node's internal id.
    pub end_id: u64,
    /// Properties.
    pub props: Map,
}

/// A path: `nodes.len() == rels.len() + 1`.
#[derive(Debug, Clone, PartialEq)]
pub struct PathValue {
    /// Nodes in order.
    pub nodes: Vec<NodeRef>,
    /// Relationships in order; `rels[i]` joins `nodes[i]` and `nodes[i + 1]` (in either direction).
    pub rels: Vec<RelRef>,
}

impl PartialEq for NodeRef {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for NodeRef {}
impl std::hash::Hash for NodeRef {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.key.hash(h)
    }
}

impl PartialEq for RelRef {
    fn eq(&self, other: &Self) -> bool {
        self.edge_id == other.edge_id && self.ty == other.ty && self.src == other.src && self.dst == other.dst
    }
}
impl Eq for RelRef {}
impl std::hash::Hash for RelRef {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.src.hash(h);
        self.ty.hash(h);
        self.dst.hash(h);
        self.edge_id.hash(h);
    }
}

impl NodeRef {
    /// A reference to the node with this key.
    pub fn new(key: NodeKey) -> NodeRef {
        NodeRef {
            key,
            data: None,
            stored: None,
        }
    }
}

impl Value {
    /// The Cypher type name, for error messages (`INTEGER`, `STRING`, `NODE`, ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "NULL",
            Value::Bool(_) => "BOOLEAN",
            Value::Int(_) => "INTEGER",
            Value::Float(_) => "FLOAT",
            Value::String(_) => "STRING",
            Value::Bytes(_) => "BYTES",
            Value::List(_) => "LIST",
            Value::Map(_) => "MAP",
            Value::Node(_) => "NODE",
            Value::Relationship(_) => "RELATIONSHIP",
            Value::Path(_) => "PATH",
            Value::Date(_) => "DATE",
            Value::LocalTime(_) => "LOCAL TIME",
            Value::Time(_) => "ZONED TIME",
            Value::LocalDateTime(_) => "LOCAL DATETIME",
            Value::DateTime(_) => "ZONED DATETIME",
            Value::Duration(_) => "DURATION",
            Value::Point(_) => "POINT",
        }
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Converts a stored property value (a map of the stored point shape is a point).
    pub fn from_store(v: hopdb_database::Value) -> Value {
        use hopdb_database::Value as S;
        match v {
            S::Null => Value::Null,
            S::Bool(b) => Value::Bool(b),
            S::Int(i) => Value::Int(i),
            S::Float(f) => Value::Float(f),
            S::Str(s) => Value::String(s),
            S::Bytes(b) => Value::Bytes(b),
            S::List(l) => Value::List(l.into_iter().map(Value::from_store).collect()),
            S::Map(m) => match Point::from_store(&m) {
                Some(p) => Value::Point(p),
                None => Value::Map(m.into_iter().map(|(k, v)| (k, Value::from_store(v))).collect()),
            },
        }
    }

    /// Converts to a storable property value; `None` for values the store cannot hold
    /// (nodes, relationships, paths, maps inside lists are allowed by the store but not by
    /// Cypher, which the caller checks).
    pub fn to_store(&self) -> Option<hopdb_database::Value> {
        use hopdb_database::Value as S;
        Some(match self {
            Value::Null => S::Null,
            Value::Bool(b) => S::Bool(*b),
            Value::Int(i) => S::Int(*i),
            Value::Float(f) => S::Float(*f),
            Value::String(s) => S::Str(s.clone()),
            Value::Bytes(b) => S::Bytes(b.clone()),
            Value::List(l) => S::List(l.iter().map(Value::to_store).collect::<Option<Vec<_>>>()?),
            Value::Map(m) => S::Map(
                m.iter()
                    .map(|(k, v)| Some((k.clone(), v.to_store()?)))
                    .collect::<Option<BTreeMap<_, _>>>()?,
            ),
            Value::Point(p) => p.to_store(),
            _ => return None,
        })
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Float(v)
    }
}
impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::String(v.to_owned())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::String(v)
    }
}
impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(v: Vec<T>) -> Self {
        Value::List(v.into_iter().map(Into::into).collect())
    }
}
