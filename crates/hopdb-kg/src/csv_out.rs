//! neo4j-admin import CSV output (also accepted by Kuzu's and Memgraph's importers).

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use crate::{edges, nodes, GenValue, KgError, KgSpec, LABEL_CHUNK, LABEL_DOCUMENT, TYPE_HAS_CHUNK};

/// Buffer size of each output file.
const BUFFER: usize = 1 << 20;

/// One CSV file written by [`write_csv`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvFile {
    /// Where it is.
    pub path: PathBuf,
    /// Data rows, not counting the header.
    pub rows: u64,
}

/// The five files written by [`write_csv`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvFiles {
    /// `documents.csv`: `:ID,title,:LABEL`.
    pub documents: CsvFile,
    /// `chunks.csv`: `:ID,doc_id,ordinal:int,word_count:int,section_title,:LABEL`.
    pub chunks: CsvFile,
    /// `entities.csv`: `:ID,canonical_title,entity_type,:LABEL`.
    pub entities: CsvFile,
    /// `has_chunk.csv`: `:START_ID,:END_ID,:TYPE`.
    pub has_chunk: CsvFile,
    /// `mentions.csv`: `:START_ID,:END_ID,:TYPE`.
    pub mentions: CsvFile,
}

impl CsvFiles {
    /// The node files (documents, chunks, entities).
    pub fn node_files(&self) -> [&CsvFile; 3] {
        [&self.documents, &self.chunks, &self.entities]
    }

    /// The relationship files (has_chunk, mentions).
    pub fn edge_files(&self) -> [&CsvFile; 2] {
        [&self.has_chunk, &self.mentions]
    }
}

/// File names and headers, in the order of [`CsvFiles`]' fields.
pub(crate) const FILES: [(&str, &[&str]); 5] = [
    ("documents.csv", &[":ID", "title", ":LABEL"]),
    (
        "chunks.csv",
        &[
            ":ID",
            "doc_id",
            "ordinal:int",
            "word_count:int",
            "section_title",
            ":LABEL",
        ],
    ),
    ("entities.csv", &[":ID", "canonical_title", "entity_type", ":LABEL"]),
    ("has_chunk.csv", &[":START_ID", ":END_ID", ":TYPE"]),
    ("mentions.csv", &[":START_ID", ":END_ID", ":TYPE"]),
];

struct Out {
    path: PathBuf,
    writer: csv::Writer<BufWriter<File>>,
    rows: u64,
}

impl Out {
    fn create(dir: &Path, name: &str, header: &[&str]) -> Result<Self, KgError> {
        let path = dir.join(name);
        let file = File::create(&path).map_err(|source| KgError::Io {
            path: path.clone(),
            source,
        })?;
        let mut writer = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(BufWriter::with_capacity(BUFFER, file));
        writer.write_record(header).map_err(|source| csv_error(&path, source))?;
        Ok(Out { path, writer, rows: 0 })
    }

    fn field(&mut self, value: &str) -> Result<(), KgError> {
        self.writer
            .write_field(value)
            .map_err(|source| csv_error(&self.path, source))
    }

    fn value(&mut self, value: &GenValue, scratch: &mut String) -> Result<(), KgError> {
        match value {
            GenValue::Str(s) => self.field(s),
            GenValue::Int(i) => {
                use std::fmt::Write;
                scratch.clear();
                // `fmt::Write for String` never returns `Err` (it only appends), so this cannot fail.
                #[allow(clippy::expect_used)]
                write!(scratch, "{i}").expect("writing to a String cannot fail");
                self.field(scratch)
            }
        }
    }

    fn end_row(&mut self) -> Result<(), KgError> {
        self.rows += 1;
        self.writer
            .write_record(None::<&[u8]>)
            .map_err(|source| csv_error(&self.path, source))
    }

    fn finish(self) -> Result<CsvFile, KgError> {
        let Out { path, writer, rows } = self;
        let mut inner = writer.into_inner().map_err(|e| KgError::Io {
            path: path.clone(),
            source: std::io::Error::other(e.to_string()),
        })?;
        use std::io::Write;
        inner.flush().map_err(|source| KgError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(CsvFile { path, rows })
    }
}

fn csv_error(path: &Path, source: csv::Error) -> KgError {
    KgError::Csv {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes the graph as neo4j-admin import CSV files into `dir` (created if missing;
/// existing files of the same names are replaced) and returns their paths and row
/// counts:
///
/// | file | header |
/// | --- | --- |
/// | `documents.csv` | `:ID,title,:LABEL` |
/// | `chunks.csv` | `:ID,doc_id,ordinal:int,word_count:int,section_title,:LABEL` |
/// | `entities.csv` | `:ID,canonical_title,entity_type,:LABEL` |
/// | `has_chunk.csv` | `:START_ID,:END_ID,:TYPE` |
/// | `mentions.csv` | `:START_ID,:END_ID,:TYPE` |
///
/// Keys are unique across all node files (`doc-`, `chunk-`, `ent-` prefixes), so one
/// global ID space works. Fields are quoted by the `csv` crate where needed; rows are
/// written in the order of [`nodes`] and [`edges`].
///
/// ```
/// use hopdb_kg::{write_csv, KgSpec};
///
/// let dir = tempfile::tempdir()?;
/// let spec = KgSpec::new(0.001, 42)?;
/// let files = write_csv(&spec, dir.path())?;
/// assert_eq!(files.chunks.rows, spec.counts().chunks);
/// assert_eq!(files.mentions.rows, spec.counts().mentions);
/// let text = std::fs::read_to_string(&files.has_chunk.path)?;
/// assert!(text.starts_with(":START_ID,:END_ID,:TYPE\ndoc-1,chunk-1,HAS_CHUNK\n"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_csv(spec: &KgSpec, dir: &Path) -> Result<CsvFiles, KgError> {
    spec.validate()?;
    std::fs::create_dir_all(dir).map_err(|source| KgError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut scratch = String::new();

    let mut docs = Out::create(dir, FILES[0].0, FILES[0].1)?;
    let mut chunks = Out::create(dir, FILES[1].0, FILES[1].1)?;
    let mut ents = Out::create(dir, FILES[2].0, FILES[2].1)?;
    for node in nodes(spec) {
        let out = match node.label {
            LABEL_DOCUMENT => &mut docs,
            LABEL_CHUNK => &mut chunks,
            _ => &mut ents,
        };
        out.field(&node.key)?;
        for (_, value) in &node.props {
            out.value(value, &mut scratch)?;
        }
        out.field(node.label)?;
        out.end_row()?;
    }
    let documents = docs.finish()?;
    let chunks = chunks.finish()?;
    let entities = ents.finish()?;

    let mut has = Out::create(dir, FILES[3].0, FILES[3].1)?;
    let mut mentions = Out::create(dir, FILES[4].0, FILES[4].1)?;
    for edge in edges(spec) {
        let out = if edge.ty == TYPE_HAS_CHUNK {
            &mut has
        } else {
            &mut mentions
        };
        out.field(&edge.src)?;
        out.field(&edge.dst)?;
        out.field(edge.ty)?;
        out.end_row()?;
    }
    Ok(CsvFiles {
        documents,
        chunks,
        entities,
        has_chunk: has.finish()?,
        mentions: mentions.finish()?,
    })
}
