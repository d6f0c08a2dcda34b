//! HopDB's openCypher engine.
//!
//! Text is parsed ([`parser`]) into a syntax tree ([`ast`]), checked and planned ([`plan`])
//! once per distinct query text (the plan cache), and run by pull-style operators
//! ([`exec`]) over a snapshot of the store (read queries) or one write transaction (a query
//! that writes is atomic: all of it or nothing).
//!
//! ```
//! use hopdb_cypher::{params, QueryEngine, Value};
//! use hopdb_database::Database;
//! let engine = QueryEngine::new(Database::in_memory());
//! engine.query("CREATE (:Person {name: 'Ada'})-[:KNOWS]->(:Person {name: 'Bob'})", &params! {}).unwrap();
//! let rows = engine
//!     .query("MATCH (a:Person {name: $n})-[:KNOWS]->(b) RETURN b.name AS friend", &params! {"n" => "Ada"})
//!     .unwrap()
//!     .collect_rows()
//!     .unwrap();
//! assert_eq!(rows, vec![vec![Value::from("Bob")]]);
//! ```

pub mod ast;
pub mod compare;
mod engine;
pub mod error;
pub mod exec;
mod fulltext;
pub mod functions;
pub mod parser;
pub mod plan;
mod result;
mod schema;
pub mod temporal;
pub mod value;

pub use engine::{Params, QueryEngine, QueryOptions, ReadTransaction, Transaction, KEY_PROPERTY};
pub use error::{CypherError, ErrorClass, Phase, Position, Result};
pub use exec::procedures::registry::{CypherType, ProcedureFn, ProcedureSignature};
pub use result::{PlanDescription, QueryResult, QueryStats, Row};
pub use value::{Map, NodeData, NodeRef, PathValue, RelData, RelRef, Value};

/// Builds a [`Params`] map: `params! {"name" => "Ada", "age" => 36}`.
#[macro_export]
macro_rules! params {
    () => { $crate::Params::new() };
    ($($k:expr => $v:expr),+ $(,)?) => {{
        let mut p = $crate::Params::new();
        $( p.insert(::std::string::String::from($k), $crate::Value::from($v)); )+
        p
    }};
}
