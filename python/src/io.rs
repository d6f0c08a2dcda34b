//! Import and export: bulk loads from files and from Arrow tables, and exports that import
//! back exactly.

use hopdb_database::import;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::IntoPyObjectExt;

use crate::errors::{import_err, InvalidArgument};
use crate::graph::GraphHandle;

#[pymethods]
impl GraphHandle {
    /// Writes the graph as files that `import_files` (or `hopdb import --from-export`) reads
    /// back exactly: "csv" (neo4j-admin CSV) or "parquet" (one nodes file, one file per edge
    /// type), plus manifest.json, in `dest`. Returns {"nodes", "edges"}. Works while writers
    /// write (one snapshot).
    #[pyo3(signature = (dest, format="parquet"))]
    fn export(&self, py: Python<'_>, dest: std::path::PathBuf, format: &str) -> PyResult<Py<PyAny>> {
        let db = self.db()?;
        let (nodes, edges) = match format {
            "parquet" => py
                .detach(|| import::parquet::export_parquet(db.graph(), &dest))
                .map(|r| (r.nodes, r.edges)),
            "csv" => py
                .detach(|| import::export::export_csv(db.graph(), &dest))
                .map(|r| (r.nodes, r.edges)),
            other => {
                return Err(InvalidArgument::new_err(format!(
                    "format is 'parquet' or 'csv', not {other:?}"
                )))
            }
        }
        .map_err(import_err)?;
        let d = PyDict::new(py);
        d.set_item("nodes", nodes)?;
        d.set_item("edges", edges)?;
        d.into_py_any(py)
    }

    /// Bulk-loads files atomically (see `hopdb import --help`): neo4j-admin CSV `nodes` and
    /// `relationships` (lists of "[LABEL=]file,..." specs), `edge_lists` (paths), Parquet /
    /// Arrow IPC tables, LightRAG GraphML files, GraphRAG output directories. CSV options as
    /// neo4j-admin's: `multi_edges` (every relationship row its own relationship; default: rows
    /// repeating a start, type and end merge and are listed in `report_file`),
    /// `multiline_fields`, `id_group_keys` ("prefixed": `Group:id` keys, or "plain"),
    /// `id_type` ("string" or "integer"). Returns a dict of counts and timings.
    #[pyo3(signature = (*, nodes=Vec::new(), relationships=Vec::new(), edge_lists=Vec::new(), undirected=false, weighted=false, parquet_nodes=Vec::new(), parquet_edges=Vec::new(), graphml=Vec::new(), graphrag=Vec::new(), multi_edges=false, multiline_fields=false, id_group_keys="prefixed", id_type="string", report_file=std::path::PathBuf::from("import.report")))]
    #[allow(clippy::too_many_arguments)]
    fn import_files(
        &self,
        py: Python<'_>,
        nodes: Vec<String>,
        relationships: Vec<String>,
        edge_lists: Vec<std::path::PathBuf>,
        undirected: bool,
        weighted: bool,
        parquet_nodes: Vec<String>,
        parquet_edges: Vec<String>,
        graphml: Vec<std::path::PathBuf>,
        graphrag: Vec<std::path::PathBuf>,
        multi_edges: bool,
        multiline_fields: bool,
        id_group_keys: &str,
        id_type: &str,
        report_file: std::path::PathBuf,
    ) -> PyResult<Py<PyAny>> {
        use import::{parquet::Columns, parquet::TableInput, EdgeList, FileGroup, ImportSpec};
        let csv = import::CsvOptions {
            group_keys: match id_group_keys {
                "prefixed" => import::GroupKeys::Prefixed,
                "plain" => import::GroupKeys::Plain,
                other => {
                    return Err(InvalidArgument::new_err(format!(
                        "id_group_keys is 'prefixed' or 'plain', not {other:?}"
                    )))
                }
            },
            id_type: match id_type {
                "string" => import::IdType::String,
                "integer" => import::IdType::Integer,
                other => {
                    return Err(InvalidArgument::new_err(format!(
                        "id_type is 'string' or 'integer', not {other:?}"
                    )))
                }
            },
            multiline_fields,
            temporal: Some(hopdb_cypher::temporal::import_value),
            ..import::CsvOptions::default()
        };
        let spec = ImportSpec {
            csv,
            multi_relationships: multi_edges,
            bad: import::BadPolicy {
                report: Some(report_file),
                ..import::BadPolicy::default()
            },
            nodes: nodes.iter().map(|s| FileGroup::parse(s)).collect(),
            relationships: relationships.iter().map(|s| FileGroup::parse(s)).collect(),
            edge_lists: edge_lists
                .iter()
                .map(|p| EdgeList {
                    undirected,
                    weighted,
                    ..EdgeList::new(p)
                })
                .collect(),
            parquet_nodes: parquet_nodes
                .iter()
                .map(|s| TableInput::parse(s, Columns::default()))
                .collect(),
            parquet_edges: parquet_edges
                .iter()
                .map(|s| TableInput::parse(s, Columns::default()))
                .collect(),
            graphml,
            graphrag,
            ..ImportSpec::default()
        };
        let db = self.db()?;
        let r = py
            .detach(|| import::import(db.graph(), &spec, &import::NoProgress))
            .map_err(import_err)?;
        let d = PyDict::new(py);
        d.set_item("nodes", r.nodes)?;
        d.set_item("edges", r.edges)?;
        d.set_item("rows", r.rows)?;
        d.set_item("bad", r.bad)?;
        d.set_item("merged_relationships", r.merged_relationships)?;
        d.set_item("report_file", r.report_file)?;
        d.set_item("seconds", r.seconds)?;
        d.into_py_any(py)
    }

    /// Bulk-loads Arrow tables atomically, like Parquet files: `nodes` and `edges` are lists
    /// of tables, or of (spec, table) pairs where spec gives the labels of every node row
    /// ("A:B") or the type of edge rows without a type column. A table is anything with
    /// `__arrow_c_stream__` (pyarrow Table / RecordBatchReader, Polars and pandas DataFrames),
    /// read without copying. Columns: `id` / `src`, `dst` (str or int keys), `labels`,
    /// `type`, `weight`; every other column is a property.
    #[pyo3(signature = (*, nodes=Vec::new(), edges=Vec::new(), id="id", src="src", dst="dst", labels="labels", r#type="type", weight="weight"))]
    #[allow(clippy::too_many_arguments)]
    fn import_tables(
        &self,
        py: Python<'_>,
        nodes: Vec<Bound<'_, PyAny>>,
        edges: Vec<Bound<'_, PyAny>>,
        id: &str,
        src: &str,
        dst: &str,
        labels: &str,
        r#type: &str,
        weight: &str,
    ) -> PyResult<Py<PyAny>> {
        use import::{parquet::Columns, parquet::TableInput, ImportSpec};
        let columns = Columns {
            id: id.into(),
            src: src.into(),
            dst: dst.into(),
            labels: Some(labels.into()),
            ty: Some(r#type.into()),
            weight: Some(weight.into()),
            ..Columns::default()
        };
        let tables = |items: &[Bound<'_, PyAny>], what: &str| -> PyResult<Vec<TableInput>> {
            items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let (spec, table) = match item.extract::<(String, Bound<'_, PyAny>)>() {
                        Ok((spec, t)) => (Some(spec), t),
                        Err(_) => (None, item.clone()),
                    };
                    let (schema, batches) = arrow_stream(&table)?;
                    let mut t = TableInput::from_batches(&format!("<{what} table {}>", i + 1), schema, batches);
                    t.spec = spec;
                    t.columns = columns.clone();
                    Ok(t)
                })
                .collect()
        };
        let spec = ImportSpec {
            parquet_nodes: tables(&nodes, "nodes")?,
            parquet_edges: tables(&edges, "edges")?,
            ..ImportSpec::default()
        };
        let db = self.db()?;
        let r = py
            .detach(|| import::import(db.graph(), &spec, &import::NoProgress))
            .map_err(import_err)?;
        let d = PyDict::new(py);
        d.set_item("nodes", r.nodes)?;
        d.set_item("edges", r.edges)?;
        d.set_item("rows", r.rows)?;
        d.set_item("seconds", r.seconds)?;
        d.into_py_any(py)
    }
}

/// The record batches of anything exporting the Arrow C stream interface, imported without
/// copying the buffers.
fn arrow_stream(
    obj: &Bound<'_, PyAny>,
) -> PyResult<(arrow::datatypes::SchemaRef, Vec<arrow::record_batch::RecordBatch>)> {
    use arrow::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
    use arrow::record_batch::RecordBatchReader;
    use pyo3::types::PyCapsule;
    if !obj.hasattr("__arrow_c_stream__")? {
        return Err(InvalidArgument::new_err(format!(
            "{} is not an Arrow table (no __arrow_c_stream__; pass a pyarrow Table, a Polars or pandas DataFrame)",
            obj.get_type().name()?
        )));
    }
    let capsule = obj.call_method0("__arrow_c_stream__")?;
    let capsule = capsule
        .cast::<PyCapsule>()
        .map_err(|_| InvalidArgument::new_err("__arrow_c_stream__ did not return a capsule"))?;
    // Checks the capsule's name, as the Arrow PyCapsule interface specifies.
    let ptr = capsule
        .pointer_checked(Some(c"arrow_array_stream"))
        .map_err(|_| InvalidArgument::new_err("__arrow_c_stream__ did not return an arrow_array_stream capsule"))?
        .as_ptr() as *mut FFI_ArrowArrayStream;
    // SAFETY: a capsule of that name holds a valid FFI_ArrowArrayStream; `from_raw` moves the stream out and leaves a
    // released one behind, so the capsule's destructor does not release it twice.
    #[allow(unsafe_code)]
    let reader =
        unsafe { RecordBatchStreamReader::from_raw(ptr) }.map_err(|e| InvalidArgument::new_err(e.to_string()))?;
    let schema = reader.schema();
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| InvalidArgument::new_err(format!("reading the Arrow stream: {e}")))?;
    Ok((schema, batches))
}
