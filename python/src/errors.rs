//! The exception hierarchy of `hopdb` and the one place HopDB's errors become exceptions: by
//! their stable [`ErrorKind`], not by enum variant.

use hopdb_database::import::ImportError;
use hopdb_database::{AnalyticsError, ErrorKind};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(_hopdb, Error, PyException, "Base class of every HopDB error.");
create_exception!(
    _hopdb,
    NotFound,
    Error,
    "A node or edge named by the call does not exist."
);
create_exception!(
    _hopdb,
    InvalidArgument,
    Error,
    "Bad input: a value, name, key or option HopDB cannot accept."
);
create_exception!(
    _hopdb,
    StoreLocked,
    Error,
    "The store is open for writing elsewhere (one writer process at a time)."
);
create_exception!(_hopdb, ReadOnlyError, Error, "A write on a store opened read-only.");
create_exception!(
    _hopdb,
    StorageError,
    Error,
    "The storage engine or the file system failed."
);
create_exception!(
    _hopdb,
    CorruptionError,
    StorageError,
    "The store's files are damaged or not a HopDB store."
);
create_exception!(
    _hopdb,
    Cancelled,
    Error,
    "A traversal or algorithm stopped by its timeout, cancel flag or memory bound."
);
create_exception!(_hopdb, ClosedError, Error, "The graph was closed.");
create_exception!(
    _hopdb,
    CypherError,
    Error,
    "A Cypher query failed (to parse, to check or to run; a query that fails changes nothing).\n\n\
     Attributes: ``code`` (the Neo4j status code, e.g. \"Neo.ClientError.Statement.SyntaxError\"), \
     ``classification`` (the openCypher TCK error class, e.g. \"SyntaxError\"), ``detail`` (the TCK \
     detail code, e.g. \"UndefinedVariable\"), ``phase`` (\"compile\" or \"runtime\"), ``message``, \
     and ``line``, ``column`` (1-based) and ``offset`` (0-based, in bytes) of the error in the query \
     text, or None when it has no position (run-time errors)."
);

/// Adds the exception classes to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    for (name, ty) in [
        ("Error", py.get_type::<Error>()),
        ("NotFound", py.get_type::<NotFound>()),
        ("InvalidArgument", py.get_type::<InvalidArgument>()),
        ("StoreLocked", py.get_type::<StoreLocked>()),
        ("ReadOnlyError", py.get_type::<ReadOnlyError>()),
        ("StorageError", py.get_type::<StorageError>()),
        ("CorruptionError", py.get_type::<CorruptionError>()),
        ("Cancelled", py.get_type::<Cancelled>()),
        ("ClosedError", py.get_type::<ClosedError>()),
        ("CypherError", py.get_type::<CypherError>()),
    ] {
        m.add(name, ty)?;
    }
    Ok(())
}

/// The exception of an error class, with the error's message.
fn kind_err(kind: ErrorKind, msg: String) -> PyErr {
    match kind {
        ErrorKind::NotFound => NotFound::new_err(msg),
        ErrorKind::InvalidArgument => InvalidArgument::new_err(msg),
        ErrorKind::Locked => StoreLocked::new_err(msg),
        ErrorKind::ReadOnly => ReadOnlyError::new_err(msg),
        ErrorKind::Corruption => CorruptionError::new_err(msg),
        ErrorKind::Cancelled => Cancelled::new_err(msg),
        ErrorKind::Storage => StorageError::new_err(msg),
        // A class added later: still a HopDB error.
        _ => Error::new_err(msg),
    }
}

/// A store error (a batch item's error keeps its item's class; the message names the item).
pub(crate) fn core_err(e: hopdb_database::Error) -> PyErr {
    kind_err(e.kind(), e.to_string())
}

/// A traversal or algorithm error.
pub(crate) fn an_err(e: AnalyticsError) -> PyErr {
    kind_err(e.kind(), e.to_string())
}

/// An import or export error: the store's keep their class, every other one is bad input.
pub(crate) fn import_err(e: ImportError) -> PyErr {
    match e {
        ImportError::Store(e) => core_err(e),
        other => InvalidArgument::new_err(other.to_string()),
    }
}

/// A Cypher error: `CypherError` with the status code, classes and position as attributes.
pub(crate) fn cypher_err(py: Python<'_>, e: hopdb_cypher::CypherError) -> PyErr {
    let err = CypherError::new_err(e.to_string());
    let set = |err: &PyErr| -> PyResult<()> {
        let v = err.value(py);
        v.setattr("code", e.neo4j_code())?;
        v.setattr("classification", e.class.as_str())?;
        v.setattr("detail", e.detail)?;
        v.setattr(
            "phase",
            match e.phase {
                hopdb_cypher::Phase::Compile => "compile",
                hopdb_cypher::Phase::Runtime => "runtime",
            },
        )?;
        v.setattr("message", &e.message)?;
        v.setattr("line", e.position.map(|p| p.line))?;
        v.setattr("column", e.position.map(|p| p.column))?;
        v.setattr("offset", e.position.map(|p| p.offset))?;
        Ok(())
    };
    match set(&err) {
        Ok(()) => err,
        Err(other) => other,
    }
}
