//! Schema commands: `SHOW INDEXES | CONSTRAINTS | DATABASES` on a snapshot (or a transaction),
//! and `CREATE` / `DROP` of indexes, uniqueness constraints and full-text indexes inside a
//! write transaction, with Neo4j 5's result columns.

use crate::ast::{SchemaCommand, SchemaTarget};
use crate::error::{CypherError, ErrorClass, Result};
use crate::result::{QueryResult, QueryStats, Row};
use crate::value::Value;
use hopdb_database::{FulltextIndexDef, GraphRead, WriteTxn};
use std::collections::VecDeque;

/// Neo4j 5's `SHOW INDEXES` columns.
const INDEX_COLUMNS: &[&str] = &[
    "id",
    "name",
    "state",
    "populationPercent",
    "type",
    "entityType",
    "labelsOrTypes",
    "properties",
    "indexProvider",
    "owningConstraint",
    "lastRead",
    "readCount",
];

/// Neo4j 5's `SHOW CONSTRAINTS` columns.
const CONSTRAINT_COLUMNS: &[&str] = &[
    "id",
    "name",
    "type",
    "entityType",
    "labelsOrTypes",
    "properties",
    "ownedIndex",
    "propertyType",
];

/// Neo4j 5's `SHOW DATABASES` columns.
const DATABASE_COLUMNS: &[&str] = &[
    "name",
    "type",
    "aliases",
    "access",
    "role",
    "writer",
    "requestedStatus",
    "currentStatus",
    "statusMessage",
    "default",
    "home",
    "constituents",
];

/// The name SHOW gives an index or constraint (names given at creation are not stored;
/// DROP accepts these). A uniqueness constraint's index carries the constraint's name, as
/// in Neo4j.
pub(crate) fn schema_name(label: &str, property: &str, constraint: bool) -> String {
    let kind = if constraint { "constraint" } else { "index" };
    format!("{kind}_{label}_{property}")
}

fn result(columns: &[&str], rows: VecDeque<Row>, stats: QueryStats) -> QueryResult {
    QueryResult {
        columns: columns.iter().map(|c| c.to_string()).collect::<Vec<_>>().into(),
        rows: Box::new(rows),
        stats,
        plan: None,
    }
}

fn strings(v: &[String]) -> Value {
    Value::List(v.iter().map(|x| Value::String(x.clone())).collect())
}

fn s(x: &str) -> Value {
    Value::String(x.into())
}

/// A SHOW command.
pub(crate) fn show(g: &dyn GraphRead, cmd: &SchemaCommand) -> Result<QueryResult> {
    let mut rows: VecDeque<Row> = VecDeque::new();
    match cmd {
        SchemaCommand::ShowDatabases => {
            rows.push_back(vec![
                s("neo4j"),
                s("standard"),
                Value::List(Vec::new()),
                s("read-write"),
                s("primary"),
                Value::Bool(true),
                s("online"),
                s("online"),
                s(""),
                Value::Bool(true),
                Value::Bool(true),
                Value::List(Vec::new()),
            ]);
            Ok(result(DATABASE_COLUMNS, rows, QueryStats::default()))
        }
        SchemaCommand::ShowConstraints => {
            for (i, d) in g.indexes()?.into_iter().filter(|d| d.unique).enumerate() {
                let name = schema_name(&d.label, &d.property, true);
                rows.push_back(vec![
                    Value::Int(i as i64 + 1),
                    s(&name),
                    s("UNIQUENESS"),
                    s("NODE"),
                    strings(std::slice::from_ref(&d.label)),
                    strings(std::slice::from_ref(&d.property)),
                    s(&name),
                    Value::Null,
                ]);
            }
            Ok(result(CONSTRAINT_COLUMNS, rows, QueryStats::default()))
        }
        SchemaCommand::ShowIndexes | SchemaCommand::ShowIndexesOfKind(_) => {
            // HopDB builds RANGE and FULLTEXT indexes: another kind lists nothing.
            let kind = match cmd {
                SchemaCommand::ShowIndexesOfKind(k) => Some(k.as_str()),
                _ => None,
            };
            let mut listed: Vec<(String, Row)> = Vec::new();
            let row = |name: &str, kind: &str, labels: &[String], props: &[String], provider: &str, owner: Value| {
                vec![
                    Value::Null,
                    s(name),
                    s("ONLINE"),
                    Value::Float(100.0),
                    s(kind),
                    s("NODE"),
                    strings(labels),
                    strings(props),
                    s(provider),
                    owner,
                    Value::Null,
                    Value::Int(0),
                ]
            };
            if kind.is_none_or(|k| k == "RANGE") {
                for d in g.indexes()? {
                    let name = schema_name(&d.label, &d.property, d.unique);
                    let owner = if d.unique { s(&name) } else { Value::Null };
                    let r = row(&name, "RANGE", &[d.label], &[d.property], "range-1.0", owner);
                    listed.push((name, r));
                }
            }
            if kind.is_none_or(|k| k == "FULLTEXT") {
                for d in g.fulltext_indexes()? {
                    let r = row(
                        &d.name,
                        "FULLTEXT",
                        &d.labels,
                        &d.properties,
                        "fulltext-1.0",
                        Value::Null,
                    );
                    listed.push((d.name, r));
                }
            }
            listed.sort_by(|a, b| a.0.cmp(&b.0));
            for (i, (_, mut r)) in listed.into_iter().enumerate() {
                r[0] = Value::Int(i as i64 + 1);
                rows.push_back(r);
            }
            Ok(result(INDEX_COLUMNS, rows, QueryStats::default()))
        }
        _ => Err(CypherError::unsupported("this schema command as a read")),
    }
}

fn exists_err(what: &str) -> CypherError {
    CypherError::runtime(
        ErrorClass::SemanticError,
        "EquivalentSchemaRuleAlreadyExists",
        format!("an equivalent {what} already exists"),
    )
}

fn missing_err(what: &str, name: &str) -> CypherError {
    CypherError::runtime(
        ErrorClass::SemanticError,
        "SchemaRuleNotFound",
        format!("no {what} named {name}"),
    )
}

/// The (label, property) a DROP names, if it exists.
fn resolve(tx: &WriteTxn, target: &SchemaTarget, unique: bool) -> Result<Option<(String, String)>> {
    Ok(match target {
        SchemaTarget::LabelProperty(l, p) => Some((l.clone(), p.clone())),
        SchemaTarget::Name(n) => tx
            .indexes()?
            .into_iter()
            .find(|d| d.unique == unique && schema_name(&d.label, &d.property, d.unique) == *n)
            .map(|d| (d.label, d.property)),
    })
}

/// A command that changes the schema, in `tx` (committed by the caller).
pub(crate) fn change(tx: &mut WriteTxn, cmd: &SchemaCommand) -> Result<QueryResult> {
    let mut stats = QueryStats::default();
    match cmd {
        SchemaCommand::CreateIndex {
            if_not_exists,
            label,
            properties,
            ..
        } => {
            let [p] = properties.as_slice() else {
                return Err(CypherError::unsupported(
                    "composite indexes (HopDB indexes one property)",
                ));
            };
            if tx.create_index(label, p)? {
                stats.indexes_added = 1;
            } else if !if_not_exists {
                return Err(exists_err("index"));
            }
        }
        SchemaCommand::CreateFulltextIndex {
            name,
            if_not_exists,
            labels,
            properties,
            analyzer,
        } => {
            let def = FulltextIndexDef {
                name: name
                    .clone()
                    .unwrap_or_else(|| format!("fulltext_{}_{}", labels.join("_"), properties.join("_"))),
                labels: labels.clone(),
                properties: properties.clone(),
                analyzer: analyzer
                    .clone()
                    .unwrap_or_else(|| crate::fulltext::analyzer::DEFAULT.into()),
            };
            if tx.create_fulltext_index(&def)? {
                stats.indexes_added = 1;
            } else if !if_not_exists {
                return Err(exists_err("index"));
            }
        }
        SchemaCommand::DropIndex {
            target: SchemaTarget::Name(n),
            ..
        } if tx.fulltext_indexes()?.iter().any(|d| &d.name == n) => {
            if tx.drop_fulltext_index(n)? {
                stats.indexes_removed = 1;
            }
        }
        SchemaCommand::DropIndex { target, if_exists } => match resolve(tx, target, false)? {
            Some((l, p)) => {
                if tx.drop_index(&l, &p)? {
                    stats.indexes_removed = 1;
                } else if !if_exists {
                    return Err(missing_err("index", &format!(":{l}({p})")));
                }
            }
            None if *if_exists => {}
            None => return Err(missing_err("index", &format!("{target:?}"))),
        },
        SchemaCommand::CreateUniqueConstraint {
            if_not_exists,
            label,
            property,
            ..
        } => {
            if tx.create_unique_constraint(label, property)? {
                stats.constraints_added = 1;
            } else if !if_not_exists {
                return Err(exists_err("constraint"));
            }
        }
        SchemaCommand::DropConstraint { target, if_exists } => match resolve(tx, target, true)? {
            Some((l, p)) => {
                if tx.drop_unique_constraint(&l, &p)? {
                    stats.constraints_removed = 1;
                } else if !if_exists {
                    return Err(missing_err("constraint", &format!(":{l}({p})")));
                }
            }
            None if *if_exists => {}
            None => return Err(missing_err("constraint", &format!("{target:?}"))),
        },
        show => return self::show(tx, show),
    }
    Ok(result(&[], VecDeque::new(), stats))
}
