//! Neo4j's HTTP query API (`POST /db/{name}/query/v2`) over the Cypher engine: one
//! auto-commit statement per request, with JSON parameters, answered in the API's default
//! *plain JSON* format.
//!
//! * Request: `{"statement": "...", "parameters": {...}, "includeCounters": true,
//!   "accessMode": "Read" | "Write", "bookmarks": [...]}`; only `statement` is required.
//!   JSON numbers without a fraction or exponent that fit 64 bits are integers, the others
//!   floats. Bookmarks are accepted and ignored (one server: every commit is visible to the
//!   next statement), as over Bolt.
//! * Success, `202 Accepted`: `{"data": {"fields": [...], "values": [[...], ...]},
//!   "bookmarks": ["hopdb:<version>"]}`, plus `"counters"` (every counter, zeros included)
//!   when `includeCounters` is true.
//! * Failure: `{"errors": [{"code": "Neo.ClientError...", "message": "..."}]}` with `400`
//!   for client errors, `404` for an unknown database (`DatabaseNotFound`), `401`/`403` for
//!   security errors, `503` for transient errors and `500` for database errors.
//! * Values: null, booleans, numbers, strings and lists as themselves; maps as objects; byte
//!   arrays as base64 strings; temporal values as ISO-8601 strings (`2015-03-26`,
//!   `12:50:35.556+01:00`, `P14DT16H12M`); points as extended WKT (`SRID=4326;POINT (12.5 56.25)`); nodes as `{"elementId", "labels", "properties"}`;
//!   relationships as `{"elementId", "startNodeElementId", "endNodeElementId", "type",
//!   "properties"}`; paths as the array of their nodes and relationships in walk order.
//! * `EXPLAIN` adds `"queryPlan"`, `PROFILE` `"profiledQueryPlan"`, as Neo4j's API does: a
//!   tree of `{"operatorType", "arguments", "identifiers", "children"}`, profiled operators
//!   with `"records"`, `"time"` (ns, children excluded) and `"dbHits"` (HopDB counts none: 0).
//!   Element ids and properties are those Bolt clients see (the node key `_key` is not a
//!   property; return `n._key` for it).
//!
//! Not supported: explicit transactions (`/db/{name}/query/v2/tx`) and the typed JSON format
//! (`Accept: application/vnd.neo4j.query`), refused with `406`.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use base64::Engine as _;
use hopdb_cypher::ast::Statement;
use hopdb_cypher::{
    CypherError, Map, NodeRef, Params, PathValue, PlanDescription, QueryEngine, QueryOptions, QueryStats, RelRef, Value,
};
use hopdb_database::Control;
use serde_json::{json, Value as Json};

use crate::backend::{cypher_failure, query_type, DATABASE_NAME};
use crate::metrics::{Kind, Metrics, Protocol};
use hopdb_cypher::KEY_PROPERTY;

/// The media type of the typed JSON format, which is not supported.
const TYPED_JSON: &str = "application/vnd.neo4j.query";

/// An HTTP status and a JSON body.
#[derive(Debug)]
pub(crate) struct Reply {
    /// The HTTP status.
    pub(crate) status: u16,
    /// The JSON body.
    pub(crate) body: Json,
}

/// A failure: a Neo4j status code and a message.
#[derive(Debug)]
pub(crate) struct ApiError {
    pub(crate) code: String,
    pub(crate) message: String,
}

impl ApiError {
    pub(crate) fn new(code: &str, message: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            message: message.into(),
        }
    }

    /// The HTTP status for the code.
    pub(crate) fn status(&self) -> u16 {
        let c = self.code.as_str();
        if c == "Neo.ClientError.Database.DatabaseNotFound" {
            404
        } else if c == "Neo.ClientError.Security.Unauthorized"
            || c == "Neo.ClientError.Security.AuthenticationRateLimit"
        {
            401
        } else if c.starts_with("Neo.ClientError.Security.") {
            403
        } else if c.starts_with("Neo.ClientError.") {
            400
        } else if c.starts_with("Neo.TransientError.") {
            503
        } else {
            500
        }
    }

    /// The reply: `{"errors": [{"code", "message"}]}` with the status for the code.
    pub(crate) fn reply(&self) -> Reply {
        Reply {
            status: self.status(),
            body: json!({ "errors": [{ "code": self.code, "message": self.message }] }),
        }
    }
}

/// What a request asks for.
struct Request {
    statement: String,
    params: Params,
    counters: bool,
    read_only: bool,
}

fn invalid(message: impl Into<String>) -> ApiError {
    ApiError::new("Neo.ClientError.Request.Invalid", message)
}

fn parse(body: &[u8]) -> Result<Request, ApiError> {
    let json: Json = serde_json::from_slice(body).map_err(|e| {
        ApiError::new(
            "Neo.ClientError.Request.InvalidFormat",
            format!("the request body is not valid JSON: {e}"),
        )
    })?;
    let Json::Object(mut obj) = json else {
        return Err(invalid("the request body must be a JSON object with a \"statement\""));
    };
    let statement = match obj.remove("statement") {
        Some(Json::String(s)) => s,
        Some(_) => return Err(invalid("\"statement\" must be a string")),
        None => return Err(invalid("the request has no \"statement\"")),
    };
    let params = match obj.remove("parameters") {
        None | Some(Json::Null) => Params::new(),
        Some(Json::Object(m)) => m.into_iter().map(|(k, v)| (k, from_json(v))).collect(),
        Some(_) => return Err(invalid("\"parameters\" must be a JSON object")),
    };
    let counters = match obj.get("includeCounters") {
        None | Some(Json::Null) => false,
        Some(Json::Bool(b)) => *b,
        Some(_) => return Err(invalid("\"includeCounters\" must be true or false")),
    };
    let read_only = match obj.get("accessMode") {
        None | Some(Json::Null) => false,
        Some(Json::String(m)) if m.eq_ignore_ascii_case("write") => false,
        Some(Json::String(m)) if m.eq_ignore_ascii_case("read") => true,
        Some(other) => {
            return Err(invalid(format!(
                "\"accessMode\" must be \"Read\" or \"Write\", not {other}"
            )))
        }
    };
    Ok(Request {
        statement,
        params,
        counters,
        read_only,
    })
}

/// A JSON parameter as a Cypher value.
fn from_json(v: Json) -> Value {
    match v {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => Value::String(s),
        Json::Array(a) => Value::List(a.into_iter().map(from_json).collect()),
        Json::Object(o) => Value::Map(o.into_iter().map(|(k, v)| (k, from_json(v))).collect()),
    }
}

/// Whether the `Accept` header asks only for a format other than plain JSON.
fn wants_typed_json(accept: Option<&str>) -> bool {
    accept.is_some_and(|a| {
        a.split(',').all(|part| {
            let media = part.split(';').next().unwrap_or("").trim();
            media.eq_ignore_ascii_case(TYPED_JSON)
        })
    })
}

/// Answers one request to `/db/{db}/query/v2`. `cancel` stops a running statement (the
/// server's stop flag).
pub(crate) fn handle(
    engine: &QueryEngine,
    metrics: &Metrics,
    cancel: &Arc<AtomicBool>,
    db: &str,
    accept: Option<&str>,
    body: &[u8],
) -> Reply {
    let outcome = run(engine, metrics, cancel, db, accept, body);
    match outcome {
        Ok(reply) => reply,
        Err(e) => {
            metrics.error(Protocol::Http, &e.code);
            if e.code.starts_with("Neo.ClientError.") {
                tracing::debug!(code = %e.code, error = %e.message, "HTTP query failed");
            } else {
                tracing::warn!(code = %e.code, error = %e.message, "HTTP query failed");
            }
            e.reply()
        }
    }
}

fn run(
    engine: &QueryEngine,
    metrics: &Metrics,
    cancel: &Arc<AtomicBool>,
    db: &str,
    accept: Option<&str>,
    body: &[u8],
) -> Result<Reply, ApiError> {
    if !db.eq_ignore_ascii_case(DATABASE_NAME) {
        return Err(ApiError::new(
            "Neo.ClientError.Database.DatabaseNotFound",
            format!("Database does not exist. Database name: '{db}'. HopDB serves one database, '{DATABASE_NAME}'."),
        ));
    }
    if wants_typed_json(accept) {
        let e = invalid(format!(
            "HopDB answers the query API in plain JSON only (Accept: application/json), not {TYPED_JSON}"
        ));
        metrics.error(Protocol::Http, &e.code);
        return Ok(Reply {
            status: 406,
            body: e.reply().body,
        });
    }
    let req = parse(body)?;
    let started = Instant::now();
    let engine_error = |e: &CypherError| {
        let f = cypher_failure(e);
        ApiError {
            code: f.code,
            message: f.message,
        }
    };
    let plan = match engine.plan_cache().get(&req.statement) {
        Ok((plan, cached)) => {
            metrics.plan_cache(cached);
            plan
        }
        Err(e) => {
            metrics.query(Protocol::Http, None, started.elapsed());
            return Err(engine_error(&e));
        }
    };
    let kind = Kind::from(query_type(&plan));
    let profile = matches!(plan.statement, Statement::Profile(_));
    if req.read_only && !plan.read_only {
        return Err(ApiError::new(
            "Neo.ClientError.Statement.AccessMode",
            format!("Writing in read access mode not allowed. Attempted write to database '{DATABASE_NAME}'."),
        ));
    }
    let opts = QueryOptions {
        control: Control::default().with_cancel(cancel.clone()),
        ..Default::default()
    };
    let outcome = engine
        .query_with(&req.statement, &req.params, &opts)
        .and_then(|mut result| {
            let mut rows = Vec::new();
            while let Some(row) = result.next_row()? {
                rows.push(row);
            }
            Ok((result, rows))
        });
    metrics.query(Protocol::Http, Some(kind), started.elapsed());
    let (result, rows) = outcome.map_err(|e| engine_error(&e))?;
    let values = rows
        .iter()
        .map(|row| {
            row.iter()
                .map(to_json)
                .collect::<Result<Vec<Json>, ApiError>>()
                .map(Json::Array)
        })
        .collect::<Result<Vec<Json>, ApiError>>()?;
    let mut body = serde_json::Map::new();
    body.insert("data".into(), json!({ "fields": result.columns(), "values": values }));
    if req.counters {
        body.insert("counters".into(), counters(result.stats()));
    }
    if let Some(p) = result.plan() {
        let key = if profile { "profiledQueryPlan" } else { "queryPlan" };
        body.insert(key.into(), plan_json(p, profile));
    }
    body.insert(
        "bookmarks".into(),
        json!([format!("hopdb:{}", engine.database().graph().version())]),
    );
    Ok(Reply {
        status: 202,
        body: Json::Object(body),
    })
}

/// A plan operator and its inputs, as Neo4j's query API describes them.
fn plan_json(p: &PlanDescription, profile: bool) -> Json {
    let mut args = serde_json::Map::new();
    args.insert("EstimatedRows".into(), float(p.estimated_rows));
    if !p.details.is_empty() {
        args.insert("Details".into(), json!(p.details));
    }
    let mut m = serde_json::Map::new();
    m.insert("operatorType".into(), json!(p.operator));
    m.insert("arguments".into(), Json::Object(args));
    m.insert("identifiers".into(), json!([]));
    m.insert(
        "children".into(),
        Json::Array(p.children.iter().map(|c| plan_json(c, profile)).collect()),
    );
    if profile {
        m.insert("records".into(), json!(p.rows.unwrap_or(0)));
        m.insert("time".into(), json!(p.time_ns.unwrap_or(0)));
        m.insert("dbHits".into(), json!(0));
    }
    Json::Object(m)
}

/// The query API's counters: every one, zeros included (removed properties count as set, as
/// Neo4j counts them).
fn counters(s: &QueryStats) -> Json {
    json!({
        "containsUpdates": s.contains_updates(),
        "nodesCreated": s.nodes_created,
        "nodesDeleted": s.nodes_deleted,
        "propertiesSet": s.properties_set.saturating_add(s.properties_removed),
        "relationshipsCreated": s.relationships_created,
        "relationshipsDeleted": s.relationships_deleted,
        "labelsAdded": s.labels_added,
        "labelsRemoved": s.labels_removed,
        "indexesAdded": s.indexes_added,
        "indexesRemoved": s.indexes_removed,
        "constraintsAdded": s.constraints_added,
        "constraintsRemoved": s.constraints_removed,
        "containsSystemUpdates": false,
        "systemUpdates": 0,
    })
}

fn unmaterialized(what: &str) -> ApiError {
    ApiError::new(
        "Neo.DatabaseError.General.UnknownError",
        format!("a {what} left the engine without its contents"),
    )
}

/// A float as JSON: a number, or for the values JSON has no number for, `"NaN"`,
/// `"Infinity"`, `"-Infinity"`.
fn float(f: f64) -> Json {
    match serde_json::Number::from_f64(f) {
        Some(n) => Json::Number(n),
        None if f.is_nan() => Json::String("NaN".into()),
        None if f > 0.0 => Json::String("Infinity".into()),
        None => Json::String("-Infinity".into()),
    }
}

/// A Cypher value in the query API's plain JSON.
pub(crate) fn to_json(v: &Value) -> Result<Json, ApiError> {
    Ok(match v {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::from(*i),
        Value::Float(f) => float(*f),
        Value::String(s) => Json::String(s.clone()),
        Value::Bytes(b) => Json::String(base64::engine::general_purpose::STANDARD.encode(b)),
        Value::List(l) => Json::Array(l.iter().map(to_json).collect::<Result<_, _>>()?),
        Value::Map(m) => Json::Object(map(m, false)?),
        Value::Node(n) => node(n)?,
        Value::Relationship(r) => relationship(r)?,
        Value::Path(p) => path(p)?,
        Value::Date(d) => Json::String(d.to_string()),
        Value::LocalTime(t) => Json::String(t.to_string()),
        Value::Time(t) => Json::String(t.to_string()),
        Value::LocalDateTime(t) => Json::String(t.to_string()),
        Value::DateTime(t) => Json::String(t.to_string()),
        Value::Duration(d) => Json::String(d.to_string()),
        Value::Point(p) => Json::String(wkt(p)),
    })
}

/// A point as extended well-known text, `SRID=7203;POINT (1.0 2.0)` (`POINT Z` in 3-D), the
/// form Neo4j's query API gives points.
fn wkt(p: &hopdb_database::spatial::Point) -> String {
    let coords: Vec<String> = p.coords().map(|c| format!("{c:?}")).collect();
    let z = if p.z.is_some() { " Z" } else { "" };
    format!("SRID={};POINT{z} ({})", p.crs.srid(), coords.join(" "))
}

/// A map as a JSON object; `properties`: without the node key.
fn map(m: &Map, properties: bool) -> Result<serde_json::Map<String, Json>, ApiError> {
    m.iter()
        .filter(|(k, _)| !properties || k.as_str() != KEY_PROPERTY)
        .map(|(k, v)| Ok((k.clone(), to_json(v)?)))
        .collect()
}

fn node(n: &NodeRef) -> Result<Json, ApiError> {
    let data = n.data.as_ref().ok_or_else(|| unmaterialized("node"))?;
    Ok(json!({
        "elementId": data.id.to_string(),
        "labels": data.labels,
        "properties": Json::Object(map(&data.props, true)?),
    }))
}

fn relationship(r: &RelRef) -> Result<Json, ApiError> {
    let data = r.data.as_ref().ok_or_else(|| unmaterialized("relationship"))?;
    Ok(json!({
        "elementId": format!("r{}", data.id),
        "startNodeElementId": data.start_id.to_string(),
        "endNodeElementId": data.end_id.to_string(),
        "type": &*r.ty,
        "properties": Json::Object(map(&data.props, true)?),
    }))
}

/// A path: its nodes and relationships in walk order, `[n0, r0, n1, r1, ..., nk]`.
fn path(p: &PathValue) -> Result<Json, ApiError> {
    let mut out = Vec::with_capacity(p.nodes.len() + p.rels.len());
    for (i, n) in p.nodes.iter().enumerate() {
        out.push(node(n)?);
        if let Some(r) = p.rels.get(i) {
            out.push(relationship(r)?);
        }
    }
    Ok(Json::Array(out))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use hopdb_database::Database;

    fn call(engine: &QueryEngine, db: &str, body: &str) -> Reply {
        let metrics = Metrics::new(1).unwrap();
        handle(
            engine,
            &metrics,
            &Arc::new(AtomicBool::new(false)),
            db,
            None,
            body.as_bytes(),
        )
    }

    #[test]
    fn parameters_in_values_out() {
        let engine = QueryEngine::new(Database::in_memory());
        let r = call(
            &engine,
            "neo4j",
            r#"{"statement": "RETURN $i AS i, $f AS f, $s AS s, $l AS l, $m AS m, $n AS n, date('2015-03-26') AS d",
                "parameters": {"i": 7, "f": 1.5, "s": "x", "l": [1, "a"], "m": {"k": true}, "n": null}}"#,
        );
        assert_eq!(r.status, 202, "{}", r.body);
        assert_eq!(r.body["data"]["fields"], json!(["i", "f", "s", "l", "m", "n", "d"]));
        assert_eq!(
            r.body["data"]["values"],
            json!([[7, 1.5, "x", [1, "a"], {"k": true}, null, "2015-03-26"]])
        );
        assert!(r.body["bookmarks"][0].as_str().unwrap().starts_with("hopdb:"));
        assert!(r.body.get("counters").is_none());
    }

    #[test]
    fn graph_values_and_counters() {
        let engine = QueryEngine::new(Database::in_memory());
        let r = call(
            &engine,
            "NEO4J",
            r#"{"statement": "CREATE p = (a:Person {name: 'A'})-[r:KNOWS {since: 2020}]->(b:Person {name: 'B'}) RETURN a, r, p",
                "includeCounters": true}"#,
        );
        assert_eq!(r.status, 202, "{}", r.body);
        let row = &r.body["data"]["values"][0];
        let a = &row[0];
        assert_eq!(a["labels"], json!(["Person"]));
        assert_eq!(a["properties"], json!({"name": "A"}));
        let rel = &row[1];
        assert_eq!(rel["type"], "KNOWS");
        assert_eq!(rel["properties"], json!({"since": 2020}));
        assert_eq!(rel["startNodeElementId"], a["elementId"]);
        assert!(rel["elementId"].as_str().unwrap().starts_with('r'));
        let p = row[2].as_array().unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[0], *a);
        assert_eq!(p[1], *rel);
        assert_eq!(p[2]["elementId"], rel["endNodeElementId"]);
        let c = &r.body["counters"];
        assert_eq!(c["nodesCreated"], 2);
        assert_eq!(c["relationshipsCreated"], 1);
        assert_eq!(c["labelsAdded"], 2);
        assert_eq!(c["propertiesSet"], 3);
        assert_eq!(c["containsUpdates"], true);
        assert_eq!(c["indexesAdded"], 0);
    }

    #[test]
    fn explain_and_profile_carry_their_plans() {
        let engine = QueryEngine::new(Database::in_memory());
        let r = call(
            &engine,
            "neo4j",
            r#"{"statement": "UNWIND range(1, 5) AS x CREATE (:N {x: x})"}"#,
        );
        assert_eq!(r.status, 202, "{}", r.body);
        let statement = "MATCH (n:N) WHERE n.x > 2 RETURN n.x ORDER BY n.x";
        let r = call(
            &engine,
            "neo4j",
            &json!({ "statement": format!("EXPLAIN {statement}") }).to_string(),
        );
        assert_eq!(r.status, 202, "{}", r.body);
        assert!(r.body.get("profiledQueryPlan").is_none());
        let plan = &r.body["queryPlan"];
        assert!(
            plan["operatorType"].as_str().unwrap().contains("ProduceResults"),
            "{plan}"
        );
        assert!(plan["children"].as_array().is_some_and(|c| !c.is_empty()), "{plan}");
        assert!(plan.get("records").is_none(), "EXPLAIN runs nothing: {plan}");
        assert_eq!(r.body["data"]["values"], json!([]));

        let r = call(
            &engine,
            "neo4j",
            &json!({ "statement": format!("PROFILE {statement}") }).to_string(),
        );
        assert_eq!(r.status, 202, "{}", r.body);
        assert!(r.body.get("queryPlan").is_none());
        let plan = &r.body["profiledQueryPlan"];
        assert_eq!(plan["records"], 3, "the root produced the 3 rows: {plan}");
        assert_eq!(r.body["data"]["values"], json!([[3], [4], [5]]));
        // Every operator down the tree carries its own figures.
        let mut stack = vec![plan];
        while let Some(op) = stack.pop() {
            assert!(op["time"].is_u64() && op["records"].is_u64(), "{op}");
            stack.extend(op["children"].as_array().unwrap());
        }
        let plain = call(&engine, "neo4j", &json!({ "statement": statement }).to_string());
        assert!(plain.body.get("queryPlan").is_none() && plain.body.get("profiledQueryPlan").is_none());
    }

    #[test]
    fn errors_and_their_statuses() {
        let engine = QueryEngine::new(Database::in_memory());
        let cases = [
            (
                "neo4j",
                r#"{"statement": "RETURN 1 +"}"#,
                400,
                "Neo.ClientError.Statement.SyntaxError",
            ),
            (
                "system",
                r#"{"statement": "RETURN 1"}"#,
                404,
                "Neo.ClientError.Database.DatabaseNotFound",
            ),
            ("neo4j", "not json", 400, "Neo.ClientError.Request.InvalidFormat"),
            ("neo4j", r#"{"parameters": {}}"#, 400, "Neo.ClientError.Request.Invalid"),
            (
                "neo4j",
                r#"{"statement": "CREATE (n)", "accessMode": "Read"}"#,
                400,
                "Neo.ClientError.Statement.AccessMode",
            ),
            (
                "neo4j",
                r#"{"statement": "RETURN $x"}"#,
                400,
                "Neo.ClientError.Statement.ParameterMissing",
            ),
        ];
        for (db, body, status, code) in cases {
            let r = call(&engine, db, body);
            assert_eq!(r.status, status, "{body}: {}", r.body);
            assert_eq!(r.body["errors"][0]["code"], code, "{body}: {}", r.body);
            assert!(r.body["errors"][0]["message"].as_str().is_some_and(|m| !m.is_empty()));
        }
        // Nothing was written by the refused statement.
        let r = call(&engine, "neo4j", r#"{"statement": "MATCH (n) RETURN count(n) AS c"}"#);
        assert_eq!(r.body["data"]["values"], json!([[0]]));
    }

    #[test]
    fn typed_json_is_refused_and_plain_json_accepted() {
        assert!(wants_typed_json(Some("application/vnd.neo4j.query")));
        assert!(!wants_typed_json(Some("application/json")));
        assert!(!wants_typed_json(Some("application/vnd.neo4j.query, application/json")));
        assert!(!wants_typed_json(Some("*/*")));
        assert!(!wants_typed_json(None));
    }

    #[test]
    fn floats_without_a_json_number() {
        assert_eq!(float(f64::NAN), json!("NaN"));
        assert_eq!(float(f64::INFINITY), json!("Infinity"));
        assert_eq!(float(f64::NEG_INFINITY), json!("-Infinity"));
        assert_eq!(to_json(&Value::Bytes(vec![3, 111, 191])).unwrap(), json!("A2+/"));
    }
}
