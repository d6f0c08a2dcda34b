//! HTTP beside Bolt over real sockets: `/health`, `/metrics` and Neo4j's query API
//! (`POST /db/{name}/query/v2`), against an in-memory store.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use common::{begin, run, Client};
use hopdb_bolt::Value;
use hopdb_cypher::QueryEngine;
use hopdb_database::Database;
use hopdb_server::{serve, AuthConfig, ServerConfig, ServerError, ServerHandle, Users};
use serde_json::{json, Value as Json};

fn config() -> ServerConfig {
    ServerConfig {
        bolt_listen: "127.0.0.1:0".into(),
        http_listen: Some("127.0.0.1:0".into()),
        shutdown_grace: Duration::from_secs(10),
        ..ServerConfig::default()
    }
}

fn start_http() -> ServerHandle {
    serve(QueryEngine::new(Database::in_memory()), config()).unwrap()
}

/// A server whose users file (in `dir`) lists `ada`, password `s3cret`.
fn start_with_ada(dir: &std::path::Path) -> ServerHandle {
    let path = dir.join("users.json");
    let mut users = Users::default();
    users.set_password("ada", "s3cret").unwrap();
    users.save(&path).unwrap();
    let auth = AuthConfig::UsersFile(path);
    serve(
        QueryEngine::new(Database::in_memory()),
        ServerConfig { auth, ..config() },
    )
    .unwrap()
}

/// An HTTP response: status, headers (lower-case names) and body.
struct Http {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Http {
    fn json(&self) -> Json {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.text()))
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// One request on a fresh connection (`Connection: close`), the whole response read.
fn request(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Http {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body.as_bytes()).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("no end of headers");
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = |h: &Vec<(String, String)>| {
        h.iter()
            .any(|(k, v)| k == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"))
    };
    if chunked(&headers) {
        body = dechunk(&body);
    }
    Http { status, headers, body }
}

/// A chunked body's bytes (large responses are sent chunked).
fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line = raw.windows(2).position(|w| w == b"\r\n").expect("a chunk size line");
        let size = usize::from_str_radix(std::str::from_utf8(&raw[..line]).unwrap().trim(), 16).unwrap();
        raw = &raw[line + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&raw[..size]);
        raw = &raw[size + 2..];
    }
}

fn get(addr: SocketAddr, path: &str) -> Http {
    request(addr, "GET", path, &[], "")
}

fn query(addr: SocketAddr, db: &str, body: Json) -> Http {
    request(
        addr,
        "POST",
        &format!("/db/{db}/query/v2"),
        &[("Content-Type", "application/json")],
        &body.to_string(),
    )
}

/// The value of the sample `series` (name and labels exactly as rendered) in `/metrics`.
fn sample(metrics: &str, series: &str) -> Option<f64> {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

#[test]
fn health_answers_while_serving() {
    let server = start_http();
    let http = server.http_addr().unwrap();
    for path in ["/health", "/health/live", "/health/ready", "/health?verbose=1"] {
        let r = get(http, path);
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        assert_eq!(r.header("content-type"), Some("application/json"));
        let body = r.json();
        assert_eq!(body["status"], "ok");
        assert_eq!(body["bolt"], server.local_addr().to_string());
    }
    assert_eq!(request(http, "POST", "/health", &[], "").status, 405);
    let r = get(http, "/nowhere");
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["errors"][0]["code"], "Neo.ClientError.Request.Invalid");
    let discovery = get(http, "/").json();
    assert_eq!(discovery["bolt_direct"], format!("bolt://{}", server.local_addr()));
    assert!(server.shutdown());
}

#[test]
fn the_query_api_reads_and_writes() {
    let server = start_http();
    let http = server.http_addr().unwrap();
    let r = query(
        http,
        "neo4j",
        json!({
            "statement": "CREATE (a:Person {name: $name, born: $born})-[k:KNOWS {since: 2020}]->(b:Person {name: 'Bo'}) RETURN a, k, a.name AS name",
            "parameters": {"name": "Ada", "born": 1815},
            "includeCounters": true
        }),
    );
    assert_eq!(r.status, 202, "{}", r.text());
    let body = r.json();
    assert_eq!(body["data"]["fields"], json!(["a", "k", "name"]));
    let row = &body["data"]["values"][0];
    assert_eq!(row[0]["labels"], json!(["Person"]));
    assert_eq!(row[0]["properties"], json!({"name": "Ada", "born": 1815}));
    assert!(row[0]["elementId"].is_string());
    assert_eq!(row[1]["type"], "KNOWS");
    assert_eq!(row[1]["startNodeElementId"], row[0]["elementId"]);
    assert_eq!(row[2], "Ada");
    assert_eq!(body["counters"]["nodesCreated"], 2);
    assert_eq!(body["counters"]["relationshipsCreated"], 1);
    assert!(body["bookmarks"][0].as_str().unwrap().starts_with("hopdb:"));

    // The write is visible to the next request and to Bolt.
    let r = query(
        http,
        "neo4j",
        json!({"statement": "MATCH (p:Person) RETURN p.name AS n ORDER BY n"}),
    );
    assert_eq!(r.status, 202, "{}", r.text());
    assert_eq!(r.json()["data"]["values"], json!([["Ada"], ["Bo"]]));
    assert!(r.json().get("counters").is_none());
    let mut c = Client::ready(server.local_addr());
    assert_eq!(c.scalar("MATCH (p:Person) RETURN count(p) AS c"), Value::Integer(2));
    assert!(server.shutdown());
}

#[test]
fn query_api_errors_come_with_neo4j_codes_and_statuses() {
    let server = start_http();
    let http = server.http_addr().unwrap();
    let cases = [
        (
            "neo4j",
            json!({"statement": "MATCH (n RETURN n"}),
            400,
            "Neo.ClientError.Statement.SyntaxError",
        ),
        (
            "system",
            json!({"statement": "RETURN 1"}),
            404,
            "Neo.ClientError.Database.DatabaseNotFound",
        ),
        (
            "neo4j",
            json!({"statment": "RETURN 1"}),
            400,
            "Neo.ClientError.Request.Invalid",
        ),
        (
            "neo4j",
            json!({"statement": "CREATE (:X)", "accessMode": "Read"}),
            400,
            "Neo.ClientError.Statement.AccessMode",
        ),
    ];
    for (db, body, status, code) in cases {
        let r = query(http, db, body.clone());
        assert_eq!(r.status, status, "{body}: {}", r.text());
        assert_eq!(r.json()["errors"][0]["code"], code, "{body}: {}", r.text());
    }
    let r = request(http, "POST", "/db/neo4j/query/v2", &[], "{not json");
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["errors"][0]["code"], "Neo.ClientError.Request.InvalidFormat");
    assert_eq!(get(http, "/db/neo4j/query/v2").status, 405);
    let r = query(http, "neo4j", json!({"statement": "MATCH (x:X) RETURN count(x) AS c"}));
    assert_eq!(
        r.json()["data"]["values"],
        json!([[0]]),
        "the refused write left nothing"
    );
    assert!(server.shutdown());
}

#[test]
fn metrics_count_bolt_and_http_statements() {
    let server = start_http();
    let http = server.http_addr().unwrap();
    let mut c = Client::ready(server.local_addr());
    c.scalar("RETURN 1 AS one");
    c.scalar("RETURN 1 AS one");
    c.scalar("CREATE (n:M) RETURN count(n) AS c");
    let r = c.request(&[run("RETURN 1 +")]);
    assert!(r[0].is_failure(), "{r:?}");
    query(http, "neo4j", json!({"statement": "MATCH (m:M) RETURN count(m) AS c"}));
    query(http, "neo4j", json!({"statement": "CREATE INDEX FOR (m:M) ON (m.x)"}));
    // An explicit write transaction stays open while the metrics are read.
    let mut tx = Client::ready(server.local_addr());
    let r = tx.request(&[begin(), run("CREATE (:T)")]);
    assert!(r.iter().all(|m| m.is_success()), "{r:?}");

    let r = get(http, "/metrics");
    assert_eq!(r.status, 200);
    assert!(r
        .header("content-type")
        .unwrap()
        .starts_with("text/plain; version=0.0.4"));
    let m = r.text();
    let at = |series: &str| sample(&m, series).unwrap_or_else(|| panic!("no {series} in\n{m}"));
    assert_eq!(
        at("hopdb_query_duration_seconds_count{kind=\"read\",protocol=\"bolt\"}"),
        2.0
    );
    assert_eq!(
        at("hopdb_query_duration_seconds_count{kind=\"write\",protocol=\"bolt\"}"),
        2.0
    );
    assert_eq!(
        at("hopdb_query_duration_seconds_count{kind=\"other\",protocol=\"bolt\"}"),
        1.0
    );
    assert_eq!(
        at("hopdb_query_duration_seconds_count{kind=\"read\",protocol=\"http\"}"),
        1.0
    );
    assert_eq!(
        at("hopdb_query_duration_seconds_count{kind=\"schema\",protocol=\"http\"}"),
        1.0
    );
    assert!(at("hopdb_query_duration_seconds_sum{kind=\"read\",protocol=\"bolt\"}") > 0.0);
    assert_eq!(
        at("hopdb_query_errors_total{class=\"ClientError\",code=\"Neo.ClientError.Statement.SyntaxError\",protocol=\"bolt\"}"),
        1.0
    );
    // "RETURN 1 AS one" twice: one miss, one hit.
    assert!(at("hopdb_plan_cache_hits_total") >= 1.0);
    assert!(at("hopdb_plan_cache_misses_total") >= 4.0);
    assert_eq!(at("hopdb_bolt_connections"), 2.0);
    assert_eq!(at("hopdb_bolt_max_connections"), 256.0);
    assert_eq!(at("hopdb_bolt_open_transactions{mode=\"write\"}"), 1.0);
    assert_eq!(at("hopdb_bolt_open_transactions{mode=\"read\"}"), 0.0);
    assert_eq!(
        at("hopdb_store_nodes"),
        1.0,
        "the open transaction's node is not counted yet"
    );
    assert!(at("hopdb_plan_cache_entries") >= 1.0);
    for gauge in [
        "hopdb_store_relationships",
        "hopdb_rocksdb_sst_bytes",
        "hopdb_rocksdb_live_data_bytes",
        "hopdb_rocksdb_memtable_bytes",
        "hopdb_rocksdb_block_cache_usage_bytes",
        "hopdb_rocksdb_sst_files",
        "hopdb_rocksdb_wal_bytes",
        "hopdb_rocksdb_compactions_running",
        "hopdb_rocksdb_compaction_pending_bytes",
        "hopdb_rocksdb_flushes_running",
        "hopdb_rocksdb_immutable_memtables",
    ] {
        assert_eq!(at(gauge), 0.0, "{gauge}: an in-memory store has no RocksDB");
    }
    assert_eq!(
        sample(&m, "hopdb_rocksdb_block_cache_hits_total"),
        None,
        "an in-memory store keeps no cache statistics, so none is reported"
    );
    assert!(at("hopdb_http_requests_total{endpoint=\"query\",status=\"202\"}") >= 2.0);

    // The transaction ends with its connection: the gauge goes down.
    drop(tx);
    let mut left = 1.0;
    for _ in 0..500 {
        left = sample(
            &get(http, "/metrics").text(),
            "hopdb_bolt_open_transactions{mode=\"write\"}",
        )
        .unwrap();
        if left == 0.0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(left, 0.0);
    assert!(server.shutdown());
}

#[test]
fn shutdown_closes_the_http_port() {
    let server = start_http();
    let http = server.http_addr().unwrap();
    assert_eq!(get(http, "/health").status, 200);
    assert!(server.shutdown(), "no clone of the engine is left behind");
    // tiny_http's accept thread lets go of the listener just after the shutdown.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while TcpStream::connect_timeout(&http, Duration::from_secs(1)).is_ok() {
        assert!(std::time::Instant::now() < deadline, "the HTTP port is still open");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_taken_http_port_fails_the_start_unless_best_effort() {
    let first = start_http();
    let taken = first.http_addr().unwrap().to_string();
    let strict = serve(
        QueryEngine::new(Database::in_memory()),
        ServerConfig {
            http_listen: Some(taken.clone()),
            ..config()
        },
    );
    match strict {
        Err(ServerError::HttpBind { addr, .. }) => assert_eq!(addr, taken),
        other => panic!("expected HttpBind, got {other:?}"),
    }
    let lenient = serve(
        QueryEngine::new(Database::in_memory()),
        ServerConfig {
            http_listen: Some(taken),
            http_best_effort: true,
            ..config()
        },
    )
    .unwrap();
    assert_eq!(lenient.http_addr(), None);
    let mut c = Client::ready(lenient.local_addr());
    assert_eq!(c.scalar("RETURN 2 AS two"), Value::Integer(2));
    assert!(lenient.shutdown());
    assert!(first.shutdown());
    // No HTTP unless asked for.
    let plain = serve(
        QueryEngine::new(Database::in_memory()),
        ServerConfig {
            http_listen: None,
            ..config()
        },
    )
    .unwrap();
    assert_eq!(plain.http_addr(), None);
}

#[test]
fn with_users_the_query_api_wants_basic_credentials() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_with_ada(dir.path());
    let http = server.http_addr().unwrap();
    let body = json!({"statement": "RETURN 1 AS one"}).to_string();
    let post = |headers: &[(&str, &str)]| request(http, "POST", "/db/neo4j/query/v2", headers, &body);

    let r = post(&[]);
    assert_eq!(r.status, 401, "{}", r.text());
    assert_eq!(r.json()["errors"][0]["code"], "Neo.ClientError.Security.Unauthorized");
    assert!(r.header("www-authenticate").unwrap().starts_with("Basic"));
    // "ada:wrong" and "ada:s3cret".
    assert_eq!(post(&[("Authorization", "Basic YWRhOndyb25n")]).status, 401);
    let r = post(&[("Authorization", "Basic YWRhOnMzY3JldA==")]);
    assert_eq!(r.status, 202, "{}", r.text());
    assert_eq!(r.json()["data"]["values"], json!([[1]]));
    // Health and metrics need no credentials.
    assert_eq!(get(http, "/health").status, 200);
    assert_eq!(get(http, "/metrics").status, 200);
    assert!(server.shutdown());
}

#[test]
fn the_explorer_page_is_served_and_its_code_only_with_credentials() {
    // Without users: every file of the page, with its type; a browser at / is sent there.
    let open = start_http();
    let http = open.http_addr().unwrap();
    for a in hopdb_explorer::ASSETS {
        let r = get(http, &format!("/browser/{}", a.name));
        assert_eq!(r.status, 200, "{}", a.name);
        assert!(
            r.body == a.bytes,
            "{}: {} bytes served, {} embedded",
            a.name,
            r.body.len(),
            a.bytes.len()
        );
        assert_eq!(r.header("content-type"), Some(a.content_type));
    }
    let page = get(http, "/browser/");
    assert_eq!(page.status, 200);
    assert!(page.body == hopdb_explorer::asset("index.html").unwrap().bytes);
    let r = get(http, "/browser");
    assert_eq!((r.status, r.header("location")), (301, Some("/browser/")));
    let r = request(http, "GET", "/", &[("Accept", "text/html,application/xhtml+xml")], "");
    assert_eq!((r.status, r.header("location")), (301, Some("/browser/")));
    assert!(
        get(http, "/").json()["bolt_direct"].is_string(),
        "drivers still get the discovery document"
    );
    let r = get(http, "/browser/../Cargo.toml");
    assert_eq!(r.status, 404, "{}", r.text());
    let m = get(http, "/metrics").text();
    assert!(
        sample(&m, "hopdb_http_requests_total{endpoint=\"browser\",status=\"200\"}").unwrap_or(0.0) >= 5.0,
        "{m}"
    );
    assert!(open.shutdown());

    // With users: the login page is public, the rest wants the credentials a query wants.
    let dir = tempfile::tempdir().unwrap();
    let server = start_with_ada(dir.path());
    let http = server.http_addr().unwrap();
    assert_eq!(get(http, "/browser/").status, 200);
    for a in hopdb_explorer::ASSETS.iter().filter(|a| !a.public) {
        let path = format!("/browser/{}", a.name);
        let r = get(http, &path);
        assert_eq!(r.status, 401, "{path}: {}", r.text());
        assert!(
            r.header("www-authenticate").is_none(),
            "no browser dialog: the page has a form"
        );
        assert!(r.body.len() < 512 && r.body != a.bytes);
        let wrong = request(http, "GET", &path, &[("Authorization", "Basic YWRhOndyb25n")], "");
        assert_eq!(wrong.status, 401);
        let ok = request(http, "GET", &path, &[("Authorization", "Basic YWRhOnMzY3JldA==")], "");
        assert_eq!(ok.status, 200, "{path}");
        assert!(ok.body == a.bytes, "{path}: {} bytes", ok.body.len());
    }
    assert!(server.shutdown());
}

#[test]
fn metrics_report_cache_hits_and_misses_of_a_store_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    // As `hopdb serve` opens it.
    let cfg = hopdb_database::Config {
        cache_statistics: true,
        ..Default::default()
    };
    let db = Database::open_with(dir.path().join("store"), cfg).unwrap();
    let chain: Vec<_> = (0..200)
        .map(|i| hopdb_database::EdgeInput::new(format!("n{i}"), "R", format!("n{}", i + 1)))
        .collect();
    db.graph().upsert_edges(&chain, Default::default()).unwrap();
    // Reads of flushed data go through the block cache (a memtable read does not).
    db.graph().flush().unwrap();
    let server = serve(QueryEngine::new(db), config()).unwrap();
    let http = server.http_addr().unwrap();
    let lookups = |m: &str| {
        let hits = sample(m, "hopdb_rocksdb_block_cache_hits_total").expect("block-cache hits");
        let misses = sample(m, "hopdb_rocksdb_block_cache_misses_total").expect("block-cache misses");
        (hits, misses)
    };
    let (h0, m0) = lookups(&get(http, "/metrics").text());
    for i in (0..200).step_by(7) {
        let r = query(
            http,
            "neo4j",
            json!({"statement": "MATCH (n {_key: $k})-->(m) RETURN m._key", "parameters": {"k": format!("n{i}")}}),
        );
        assert_eq!(r.status, 202, "{}", r.text());
    }
    let text = get(http, "/metrics").text();
    let (h1, m1) = lookups(&text);
    assert!(
        h1 + m1 > h0 + m0,
        "reads of flushed data use the block cache: {h0}/{m0} -> {h1}/{m1}"
    );
    assert!(h1 > h0, "repeated reads of a small store hit the cache: {h0} -> {h1}");
    for series in [
        "hopdb_rocksdb_row_cache_hits_total",
        "hopdb_rocksdb_row_cache_misses_total",
    ] {
        assert!(
            sample(&text, series).is_some(),
            "{series} is reported with the default row cache"
        );
    }
    server.shutdown();
}

#[test]
fn benchmark_charts_are_listed_and_served_from_the_charts_directory() {
    // HopDB's own benchmark results: real charts, one folder per benchmark.
    let results = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/results");
    let dir = tempfile::tempdir().unwrap();
    let users = dir.path().join("users.json");
    let mut u = Users::default();
    u.set_password("ada", "s3cret").unwrap();
    u.save(&users).unwrap();
    let server = serve(
        QueryEngine::new(Database::in_memory()),
        ServerConfig {
            auth: AuthConfig::UsersFile(users),
            charts_dir: Some(results.clone()),
            ..config()
        },
    )
    .unwrap();
    let http = server.http_addr().unwrap();
    let ada = [("Authorization", "Basic YWRhOnMzY3JldA==")];
    assert_eq!(get(http, "/browser/charts/index.json").status, 401);
    let index = request(http, "GET", "/browser/charts/index.json", &ada, "").json();
    let charts = index["charts"].as_array().unwrap();
    assert!(!charts.is_empty(), "{index}");
    let modified: Vec<u64> = charts.iter().map(|c| c["modified"].as_u64().unwrap()).collect();
    assert!(modified.windows(2).all(|w| w[0] >= w[1]), "newest first: {modified:?}");
    for c in charts.iter().take(3) {
        let path = c["path"].as_str().unwrap();
        let url = format!("/browser/charts/{path}");
        assert_eq!(get(http, &url).status, 401, "{url} wants credentials");
        let r = request(http, "GET", &url, &ada, "");
        assert_eq!((r.status, r.header("content-type")), (200, Some("image/png")), "{url}");
        assert!(
            r.body == std::fs::read(results.join(path)).unwrap(),
            "{url}: the file's bytes"
        );
        assert!(r.body.starts_with(b"\x89PNG"), "{url}");
    }
    for bad in ["../../Cargo.toml", "../README.md", "nope/none.png", "%2e%2e/x.png"] {
        let r = request(http, "GET", &format!("/browser/charts/{bad}"), &ada, "");
        assert_eq!(r.status, 404, "{bad}: {}", r.text());
    }
    assert!(server.shutdown());

    // Without a directory: an empty listing that says how to get one.
    let plain = start_http();
    let http = plain.http_addr().unwrap();
    let index = get(http, "/browser/charts/index.json").json();
    assert_eq!(index["charts"], json!([]));
    assert!(index["reason"].as_str().unwrap().contains("--charts"));
    assert_eq!(get(http, "/browser/charts/x.png").status, 404);
    assert!(plain.shutdown());
}
