//! HopDB core: a durable property-graph store on RocksDB, with an in-memory twin.
//!
//! Nodes have a unique user key ([`NodeKey`]: string or i64), labels and properties; edges
//! are typed, directed (or of an undirected type), with properties and an optional weight.
//! Every operation is in [`Graph`] (writes, maintenance), [`GraphRead`] (reads, on the latest
//! state, a [`ReadTxn`] snapshot, or a [`WriteTxn`] with its own changes) and [`WriteTxn`]
//! (atomic multi-operation writes). Property indexes and uniqueness constraints on
//! (label, property) are kept by the store ([`WriteTxn::create_index`],
//! [`GraphRead::nodes_by_property`]).
//!
//! Storage layout, id scheme and format version are recorded in `docs/decisions/`.

// `unsafe` lives in one audited place (the owned RocksDB snapshot in engine/rocks.rs); the
// workspace lints deny it everywhere else.

mod bulk;
mod catalog;
mod changes;
mod check;
pub mod codec;
mod config;
mod counters;
mod engine;
mod error;
mod fulltext;
// Not API: the decoders of stored bytes, for the fuzz targets and their in-suite run.
#[doc(hidden)]
pub mod fuzzing;
mod graph;
mod graph_read;
mod index;
mod key_index;
mod model;
mod parallel;
mod read;
mod records;
mod segment;
pub mod spatial;
mod state;
mod topology;
mod value;
mod warm;
mod write;

pub use bulk::{BulkLoader, BulkOptions, BulkSummary};
pub use catalog::{EdgeType, EdgeTypeOptions};
pub use changes::{ChangeSet, ChangesUnavailable, GraphChange};
pub use check::CheckReport;
pub use config::{AccessMode, Compression, Config, Durability, MissingEndpoints};
pub use engine::StorageStats;
pub use error::{Error, ErrorKind, Result};
pub use fulltext::FulltextIndexDef;
/// What [`GraphRead`]'s default methods read through; a graph kept elsewhere (a cluster)
/// implements `GraphRead` by overriding the methods and failing this one.
#[doc(hidden)]
pub use graph::{BackupReport, Graph, MemoryUsage, Stats, FORMAT_VERSION};
pub use graph_read::ViewGuard;
pub use graph_read::{GraphRead, NodeScan, ReadTxn};
pub use index::IndexDef;
pub use model::{Degree, Direction, Edge, EdgeInput, Node, NodeInput, NodeRecord, WriteMode};
pub use parallel::split_batch;
pub use records::NodeId;
pub use topology::{Adjacent, TypeFilter};
pub use value::{props, KeyRef, NodeKey, Props, Value, MAX_KEY_BYTES, MAX_NAME_BYTES, MAX_PROPS_BYTES, TEMPORAL_KEY};
pub use write::{EdgeAt, GraphWrite, RemoteGraph, WriteTxn};
