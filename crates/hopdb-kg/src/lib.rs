//! A seeded, deterministic generator of the LightRAG-shaped knowledge graph used by
//! HopDB's GraphRAG benchmarks (the graph of a published eight-engine GraphRAG study).
//!
//! At scale factor `S = 1` the graph has exactly:
//!
//! | what | count | label / type | key |
//! | --- | ---: | --- | --- |
//! | documents | 50,000 | `Document` | `doc-1` .. |
//! | chunks | 108,076 | `Chunk` | `chunk-1` .. |
//! | entities | 587,428 | `Entity` | `ent-1` .. |
//! | document → chunk | 108,076 | `HAS_CHUNK` | |
//! | chunk → entity | 1,144,177 | `MENTIONS` | |
//!
//! and at other scales each count is the `S = 1` count times `S`, rounded
//! ([`KgSpec::counts`]).
//!
//! Shape:
//! - every chunk belongs to exactly one document, every document has at least one
//!   chunk, and the other chunks are spread over the documents uniformly at random;
//!   a document's chunks have consecutive keys, and `ordinal`s `0..n`;
//! - every entity is mentioned at least once; the remaining mentions are spread over
//!   the entities by a Zipf law of exponent 0.75 (at `S = 1` the most mentioned
//!   entity is in about 5,000 chunks, the mean is about 2 chunks per entity and 10.6
//!   entities per chunk); the Zipf ranks go to entities through a seeded permutation,
//!   so hubs are scattered over the key space; each entity's chunks are distinct and
//!   uniformly chosen, so `(chunk, entity)` pairs are unique.
//!
//! Generation streams: [`nodes`] and [`edges`] hold only a few small arrays
//! (one `u32` per document and one per entity, plus a 1/64-size Zipf table), never
//! the edges, so scale 20 (25 million edges) runs in a few hundred megabytes.
//!
//! Determinism: the same `(scale, seed)` gives the same output, byte for byte, on any
//! machine and with any version of `rand`: randomness comes from ChaCha8 streams
//! (one per purpose), integers are drawn with Lemire's unbiased method implemented
//! here, and the Zipf weights use only correctly rounded IEEE operations.
//!
//! ```
//! use hopdb_kg::{edges, nodes, KgSpec};
//!
//! let spec = KgSpec::new(0.01, 42)?;
//! let c = spec.counts();
//! assert_eq!((c.documents, c.chunks, c.entities), (500, 1_081, 5_874));
//! assert_eq!(nodes(&spec).count() as u64, c.documents + c.chunks + c.entities);
//! assert_eq!(edges(&spec).count() as u64, c.has_chunk + c.mentions);
//! # Ok::<(), hopdb_kg::KgError>(())
//! ```

mod csv_out;
mod generate;
mod names;
mod rng;
mod zipf;

use std::path::PathBuf;

pub use csv_out::{write_csv, CsvFile, CsvFiles};
pub use generate::{edges, nodes, sample_keys};
pub use names::ENTITY_TYPE_NAMES;

/// The seed used when none is given.
pub const DEFAULT_SEED: u64 = 42;

/// Counts at scale 1: documents.
pub const BASE_DOCUMENTS: u64 = 50_000;
/// Counts at scale 1: chunks (and `HAS_CHUNK` edges).
pub const BASE_CHUNKS: u64 = 108_076;
/// Counts at scale 1: entities.
pub const BASE_ENTITIES: u64 = 587_428;
/// Counts at scale 1: `MENTIONS` edges.
pub const BASE_MENTIONS: u64 = 1_144_177;

/// Node label of documents.
pub const LABEL_DOCUMENT: &str = "Document";
/// Node label of chunks.
pub const LABEL_CHUNK: &str = "Chunk";
/// Node label of entities.
pub const LABEL_ENTITY: &str = "Entity";
/// Edge type document → chunk.
pub const TYPE_HAS_CHUNK: &str = "HAS_CHUNK";
/// Edge type chunk → entity.
pub const TYPE_MENTIONS: &str = "MENTIONS";

/// Largest node count the generator accepts (ids are kept as `u32`): about `S = 7,300`.
pub const MAX_NODES_PER_KIND: u64 = u32::MAX as u64;

/// Why a spec was rejected or output could not be written.
#[derive(Debug, thiserror::Error)]
pub enum KgError {
    /// The scale is zero, negative, infinite or NaN.
    #[error("invalid scale {0}: it must be a finite number > 0")]
    InvalidScale(f64),
    /// The scale is so small that the rounded counts cannot make a valid graph.
    #[error("scale {scale} is too small: {reason}")]
    ScaleTooSmall {
        /// The rejected scale.
        scale: f64,
        /// Which constraint the rounded counts break.
        reason: String,
    },
    /// The scale is so large that some count exceeds [`MAX_NODES_PER_KIND`].
    #[error("scale {scale} is too large: {what} would exceed {max}", max = MAX_NODES_PER_KIND)]
    ScaleTooLarge {
        /// The rejected scale.
        scale: f64,
        /// Which count is too large.
        what: &'static str,
    },
    /// Creating or writing an output file failed.
    #[error("I/O error on {}: {source}", path.display())]
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Writing a CSV record failed.
    #[error("CSV error on {}: {source}", path.display())]
    Csv {
        /// The file concerned.
        path: PathBuf,
        /// The underlying error.
        source: csv::Error,
    },
}

/// What to generate: a scale factor and a seed.
///
/// Build it with [`KgSpec::new`], which validates the scale. The fields are public
/// for convenience; [`nodes`] and [`edges`] panic on a spec that [`KgSpec::new`]
/// would have rejected, and [`write_csv`] returns the error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KgSpec {
    /// Scale factor: 1.0 is the benchmark's graph (about 1.25 M edges).
    pub scale: f64,
    /// Seed of every random choice.
    pub seed: u64,
}

impl Default for KgSpec {
    /// Scale 1, seed [`DEFAULT_SEED`].
    fn default() -> Self {
        KgSpec {
            scale: 1.0,
            seed: DEFAULT_SEED,
        }
    }
}

/// Node and edge counts of a spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KgCounts {
    /// `Document` nodes.
    pub documents: u64,
    /// `Chunk` nodes.
    pub chunks: u64,
    /// `Entity` nodes.
    pub entities: u64,
    /// `MENTIONS` edges (chunk → entity).
    pub mentions: u64,
    /// `HAS_CHUNK` edges (document → chunk); always equal to `chunks`.
    pub has_chunk: u64,
}

impl KgCounts {
    /// All nodes.
    pub fn nodes(&self) -> u64 {
        self.documents + self.chunks + self.entities
    }

    /// All edges.
    pub fn edges(&self) -> u64 {
        self.has_chunk + self.mentions
    }
}

impl KgSpec {
    /// A validated spec.
    ///
    /// Rejects a scale that is not finite and `> 0`, a scale so small that the rounded
    /// counts break the graph's invariants (no document, fewer chunks than documents,
    /// fewer mentions than entities, or more mentions than distinct `(chunk, entity)`
    /// pairs), and a scale so large that a count exceeds [`MAX_NODES_PER_KIND`].
    ///
    /// ```
    /// use hopdb_kg::{KgError, KgSpec};
    ///
    /// assert_eq!(KgSpec::new(1.0, 42)?.counts().mentions, 1_144_177);
    /// assert!(matches!(KgSpec::new(0.0, 42), Err(KgError::InvalidScale(_))));
    /// assert!(matches!(KgSpec::new(f64::NAN, 42), Err(KgError::InvalidScale(_))));
    /// assert!(matches!(KgSpec::new(1e-6, 42), Err(KgError::ScaleTooSmall { .. })));
    /// # Ok::<(), KgError>(())
    /// ```
    pub fn new(scale: f64, seed: u64) -> Result<Self, KgError> {
        let spec = KgSpec { scale, seed };
        spec.validate()?;
        Ok(spec)
    }

    /// The counts at this scale: each scale-1 count times `scale`, rounded half away
    /// from zero; `has_chunk == chunks`. Meaningful only for a valid spec.
    ///
    /// ```
    /// use hopdb_kg::{KgCounts, KgSpec};
    ///
    /// let c = KgSpec::new(0.1, 7)?.counts();
    /// assert_eq!(
    ///     c,
    ///     KgCounts { documents: 5_000, chunks: 10_808, entities: 58_743, mentions: 114_418, has_chunk: 10_808 }
    /// );
    /// # Ok::<(), hopdb_kg::KgError>(())
    /// ```
    pub fn counts(&self) -> KgCounts {
        let scaled = |base: u64| scaled(base, self.scale) as u64;
        let chunks = scaled(BASE_CHUNKS);
        KgCounts {
            documents: scaled(BASE_DOCUMENTS),
            chunks,
            entities: scaled(BASE_ENTITIES),
            mentions: scaled(BASE_MENTIONS),
            has_chunk: chunks,
        }
    }

    /// Checks the spec as [`KgSpec::new`] does and returns its counts.
    pub fn validate(&self) -> Result<KgCounts, KgError> {
        let scale = self.scale;
        if !scale.is_finite() || scale <= 0.0 {
            return Err(KgError::InvalidScale(scale));
        }
        for (what, base) in [
            ("documents", BASE_DOCUMENTS),
            ("chunks", BASE_CHUNKS),
            ("entities", BASE_ENTITIES),
        ] {
            if scaled(base, scale) > MAX_NODES_PER_KIND as f64 {
                return Err(KgError::ScaleTooLarge { scale, what });
            }
        }
        let c = self.counts();
        let too_small = |reason: String| Err(KgError::ScaleTooSmall { scale, reason });
        if c.documents == 0 {
            return too_small("it rounds to 0 documents".into());
        }
        if c.chunks < c.documents {
            return too_small(format!(
                "{} chunks cannot give each of {} documents a chunk",
                c.chunks, c.documents
            ));
        }
        if c.mentions < c.entities {
            return too_small(format!(
                "{} mentions cannot mention each of {} entities",
                c.mentions, c.entities
            ));
        }
        if c.mentions > c.entities.saturating_mul(c.chunks) {
            return too_small(format!(
                "{} mentions exceed the {} distinct (chunk, entity) pairs",
                c.mentions,
                c.entities * c.chunks
            ));
        }
        Ok(c)
    }
}

fn scaled(base: u64, scale: f64) -> f64 {
    (base as f64 * scale).round()
}

/// A node kind, for [`sample_keys`] and key formatting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// `Document` nodes, keys `doc-N`.
    Document,
    /// `Chunk` nodes, keys `chunk-N`.
    Chunk,
    /// `Entity` nodes, keys `ent-N`.
    Entity,
}

impl Kind {
    /// The node label.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Document => LABEL_DOCUMENT,
            Kind::Chunk => LABEL_CHUNK,
            Kind::Entity => LABEL_ENTITY,
        }
    }

    /// The key prefix, including the dash: `"doc-"`, `"chunk-"`, `"ent-"`.
    pub fn key_prefix(self) -> &'static str {
        match self {
            Kind::Document => "doc-",
            Kind::Chunk => "chunk-",
            Kind::Entity => "ent-",
        }
    }

    /// The key of the node numbered `number` (1-based): `Kind::Chunk.key(3) == "chunk-3"`.
    pub fn key(self, number: u64) -> String {
        format!("{}{number}", self.key_prefix())
    }

    /// How many nodes of this kind `counts` has.
    pub fn count(self, counts: &KgCounts) -> u64 {
        match self {
            Kind::Document => counts.documents,
            Kind::Chunk => counts.chunks,
            Kind::Entity => counts.entities,
        }
    }
}

/// A property value.
#[derive(Debug, Clone, PartialEq)]
pub enum GenValue {
    /// A 64-bit integer.
    Int(i64),
    /// A string.
    Str(String),
}

impl GenValue {
    /// The integer, if this is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            GenValue::Int(i) => Some(*i),
            GenValue::Str(_) => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            GenValue::Str(s) => Some(s),
            GenValue::Int(_) => None,
        }
    }
}

/// A generated node: a unique key, a label and properties in a fixed order.
///
/// - `Document`: `title`;
/// - `Chunk`: `doc_id`, `ordinal`, `word_count`, `section_title`;
/// - `Entity`: `canonical_title`, `entity_type` (one of [`ENTITY_TYPE_NAMES`]).
#[derive(Debug, Clone, PartialEq)]
pub struct GenNode {
    /// Unique key, such as `doc-1`, `chunk-1` or `ent-1`.
    pub key: String,
    /// `Document`, `Chunk` or `Entity`.
    pub label: &'static str,
    /// Properties, always in the order listed above.
    pub props: Vec<(&'static str, GenValue)>,
}

impl GenNode {
    /// The property called `name`.
    pub fn prop(&self, name: &str) -> Option<&GenValue> {
        self.props.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }
}

/// A generated edge between two node keys.
#[derive(Debug, Clone, PartialEq)]
pub struct GenEdge {
    /// Key of the source node.
    pub src: String,
    /// Key of the destination node.
    pub dst: String,
    /// `HAS_CHUNK` or `MENTIONS`.
    pub ty: &'static str,
}
