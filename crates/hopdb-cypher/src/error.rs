//! Query errors: a class and a detail code as the openCypher TCK names them, the phase they
//! were raised in, a position for compile-time errors, and the Neo4j status code the Bolt
//! server sends.

use std::fmt;

/// Where in the query text an error was found (1-based line and column, 0-based byte offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// 0-based byte offset into the query text.
    pub offset: usize,
}

/// When the error was raised: while compiling (parse, semantic check, planning) or while running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Parsing, semantic analysis or planning: nothing ran.
    Compile,
    /// Execution: the transaction was rolled back.
    Runtime,
}

/// The class of a query error, as the openCypher TCK groups them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// Malformed text or a semantic error the TCK files under SyntaxError (undefined variable, ...).
    SyntaxError,
    /// A semantically invalid query other than the above.
    SemanticError,
    /// A value of the wrong type (`1 + 'a'`, a property of a list, ...).
    TypeError,
    /// A value of the right type but out of range (division by zero, negative LIMIT, ...).
    ArgumentError,
    /// A parameter the query names was not given.
    ParameterMissing,
    /// A write would break a uniqueness constraint, or deleting a node that still has relationships.
    ConstraintVerificationFailed,
    /// Access to a deleted node or relationship.
    EntityNotFound,
    /// An unknown procedure or wrong procedure arguments.
    ProcedureError,
    /// A feature of Cypher this engine does not implement (named in the message).
    FeatureNotSupported,
    /// The per-query timeout or cancel flag stopped the query.
    Timeout,
    /// The per-query memory bound stopped the query.
    MemoryLimit,
    /// The store failed (I/O, corruption, lock).
    Storage,
    /// A concurrent write changed what a transaction on a cluster read; retry it.
    Conflict,
}

impl ErrorClass {
    /// The TCK's name for the class.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorClass::SyntaxError => "SyntaxError",
            ErrorClass::SemanticError => "SemanticError",
            ErrorClass::TypeError => "TypeError",
            ErrorClass::ArgumentError => "ArgumentError",
            ErrorClass::ParameterMissing => "ParameterMissing",
            ErrorClass::ConstraintVerificationFailed => "ConstraintVerificationFailed",
            ErrorClass::EntityNotFound => "EntityNotFound",
            ErrorClass::ProcedureError => "ProcedureError",
            ErrorClass::FeatureNotSupported => "FeatureNotSupported",
            ErrorClass::Timeout => "Timeout",
            ErrorClass::Conflict => "Conflict",
            ErrorClass::MemoryLimit => "MemoryLimit",
            ErrorClass::Storage => "Storage",
        }
    }
}

/// A failed query.
#[derive(Debug, Clone, PartialEq)]
pub struct CypherError {
    /// The error's class.
    pub class: ErrorClass,
    /// The TCK detail code, e.g. `UndefinedVariable`, `InvalidArgumentType`, `DivisionByZero`.
    pub detail: &'static str,
    /// Compile time or run time.
    pub phase: Phase,
    /// What went wrong, for people.
    pub message: String,
    /// Where in the query text, when known.
    pub position: Option<Position>,
}

/// Result of the query layer.
pub type Result<T, E = CypherError> = std::result::Result<T, E>;

impl CypherError {
    /// A new error.
    pub fn new(class: ErrorClass, detail: &'static str, phase: Phase, message: impl Into<String>) -> Self {
        CypherError {
            class,
            detail,
            phase,
            message: message.into(),
            position: None,
        }
    }
    /// A syntax error at `pos` (compile time).
    pub fn syntax(detail: &'static str, message: impl Into<String>, pos: Position) -> Self {
        CypherError {
            position: Some(pos),
            ..CypherError::new(ErrorClass::SyntaxError, detail, Phase::Compile, message)
        }
    }
    /// A compile-time error of `class`.
    pub fn compile(class: ErrorClass, detail: &'static str, message: impl Into<String>) -> Self {
        CypherError::new(class, detail, Phase::Compile, message)
    }
    /// A run-time error of `class`.
    pub fn runtime(class: ErrorClass, detail: &'static str, message: impl Into<String>) -> Self {
        CypherError::new(class, detail, Phase::Runtime, message)
    }
    /// A run-time type error (`InvalidArgumentType`).
    pub fn type_error(message: impl Into<String>) -> Self {
        CypherError::runtime(ErrorClass::TypeError, "InvalidArgumentType", message)
    }
    /// A run-time argument error with a detail code.
    pub fn argument(detail: &'static str, message: impl Into<String>) -> Self {
        CypherError::runtime(ErrorClass::ArgumentError, detail, message)
    }
    /// A feature this engine does not implement (compile time).
    pub fn unsupported(feature: impl Into<String>) -> Self {
        let f = feature.into();
        CypherError::compile(
            ErrorClass::FeatureNotSupported,
            "FeatureNotSupported",
            format!("{f} is not supported by HopDB's Cypher engine"),
        )
    }
    /// Sets the position (builder style).
    pub fn at(mut self, pos: Position) -> Self {
        self.position = Some(pos);
        self
    }

    /// The Neo4j status code a Bolt client receives for this error.
    pub fn neo4j_code(&self) -> &'static str {
        match self.class {
            ErrorClass::SyntaxError => "Neo.ClientError.Statement.SyntaxError",
            ErrorClass::SemanticError => "Neo.ClientError.Statement.SemanticError",
            ErrorClass::TypeError => "Neo.ClientError.Statement.TypeError",
            ErrorClass::ArgumentError => "Neo.ClientError.Statement.ArgumentError",
            ErrorClass::ParameterMissing => "Neo.ClientError.Statement.ParameterMissing",
            ErrorClass::ConstraintVerificationFailed => "Neo.ClientError.Schema.ConstraintValidationFailed",
            ErrorClass::EntityNotFound => "Neo.ClientError.Statement.EntityNotFound",
            ErrorClass::ProcedureError if self.detail == "ProcedureCallFailed" => {
                "Neo.ClientError.Procedure.ProcedureCallFailed"
            }
            ErrorClass::ProcedureError => "Neo.ClientError.Procedure.ProcedureNotFound",
            ErrorClass::FeatureNotSupported if self.detail == "UnsupportedAdministrationCommand" => {
                "Neo.ClientError.Statement.UnsupportedAdministrationCommand"
            }
            ErrorClass::FeatureNotSupported => "Neo.ClientError.Statement.FeatureNotSupported",
            ErrorClass::Timeout if self.detail == "LockAcquisitionTimeout" => {
                "Neo.TransientError.Transaction.LockAcquisitionTimeout"
            }
            // Stopped by its client (RESET, disconnect) or a server shutdown, not a timeout.
            ErrorClass::Timeout if self.detail == "Cancelled" => "Neo.ClientError.Transaction.Terminated",
            ErrorClass::Timeout => "Neo.ClientError.Transaction.TransactionTimedOut",
            ErrorClass::MemoryLimit => "Neo.TransientError.General.MemoryPoolOutOfMemoryError",
            ErrorClass::Storage => "Neo.DatabaseError.General.UnknownError",
            // Drivers retry transient errors in managed transactions.
            ErrorClass::Conflict => "Neo.TransientError.Transaction.Outdated",
        }
    }
}

impl fmt::Display for CypherError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}): {}", self.neo4j_code(), self.detail, self.message)?;
        if let Some(p) = self.position {
            write!(f, " (line {}, column {}, offset {})", p.line, p.column, p.offset)?;
        }
        Ok(())
    }
}

impl std::error::Error for CypherError {}

impl From<hopdb_database::Error> for CypherError {
    fn from(e: hopdb_database::Error) -> Self {
        use hopdb_database::ErrorKind as K;
        let (class, detail) = match e.kind() {
            K::InvalidArgument => (ErrorClass::ArgumentError, "InvalidArgumentValue"),
            K::NotFound => (ErrorClass::EntityNotFound, "EntityNotFound"),
            K::Cancelled => (ErrorClass::Timeout, "Cancelled"),
            K::Conflict => (ErrorClass::Conflict, "Outdated"),
            _ => (ErrorClass::Storage, "Storage"),
        };
        CypherError::runtime(class, detail, e.to_string())
    }
}

impl From<hopdb_database::AnalyticsError> for CypherError {
    fn from(e: hopdb_database::AnalyticsError) -> Self {
        use hopdb_database::ErrorKind as K;
        let (class, detail) = match e.kind() {
            K::InvalidArgument => (ErrorClass::ArgumentError, "InvalidArgumentValue"),
            K::NotFound => (ErrorClass::EntityNotFound, "EntityNotFound"),
            K::Cancelled => (ErrorClass::Timeout, "Cancelled"),
            _ => (ErrorClass::Storage, "Storage"),
        };
        CypherError::runtime(class, detail, e.to_string())
    }
}
