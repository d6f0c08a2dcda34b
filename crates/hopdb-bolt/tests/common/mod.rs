//! Test helpers: an in-memory fake [`Backend`], a client that drives a [`ByteSession`], and
//! builders for request messages.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::{HashMap, VecDeque};

use hopdb_bolt::chunk::chunk_into;
use hopdb_bolt::handshake::MAGIC;
use hopdb_bolt::message::msg;
use hopdb_bolt::packstream::{self, DecodeLimits};
use hopdb_bolt::structs::{BoltStruct, DateTime, DateTimeZoneId};
use hopdb_bolt::{
    AuthToken, Backend, BeginResult, BoltFailure, ByteSession, FatalError, Map, PullResult, QueryType, Route, RunExtra,
    RunResult, SessionConfig, Summary, Value, Version,
};

/// A fake database. Queries are a tiny language:
/// * `RANGE n`: one column `x`, rows 0..n;
/// * `CREATE`: a write with one row and `nodes-created: 1`;
/// * `NODE`: one row holding a node without element id;
/// * `DT`: one row holding a UTC DateTime and a zoned DateTime with its offset;
/// * `ZONED`: one row holding a zoned DateTime without its offset;
/// * `FAIL`: a syntax error.
#[derive(Debug, Default)]
pub struct FakeBackend {
    pub log: Vec<String>,
    pub results: HashMap<i64, VecDeque<Vec<Value>>>,
    pub next_qid: i64,
    pub in_tx: bool,
    pub bookmarks: i64,
    pub goodbye: bool,
    pub last_params: Map,
    pub last_extra: Option<RunExtra>,
    pub last_auth: Option<AuthToken>,
}

impl FakeBackend {
    fn summary(&mut self, qid: i64) -> Summary {
        self.results.remove(&qid);
        let bookmark = (!self.in_tx).then(|| {
            self.bookmarks += 1;
            format!("bm:{}", self.bookmarks)
        });
        Summary {
            bookmark,
            t_last: Some(1),
            query_type: Some(QueryType::Read),
            stats: Vec::new(),
            db: Some("neo4j".into()),
            extra: Vec::new(),
        }
    }
}

impl Backend for FakeBackend {
    fn authenticate(&mut self, auth: &AuthToken) -> Result<(), BoltFailure> {
        self.log.push(format!("auth {}", auth.scheme));
        self.last_auth = Some(auth.clone());
        let ok = auth.scheme == "none"
            || (auth.scheme == "basic"
                && auth.principal.as_deref() == Some("neo4j")
                && auth.credentials.as_deref() == Some("secret"));
        if ok {
            Ok(())
        } else {
            Err(BoltFailure::unauthorized("bad credentials"))
        }
    }

    fn logoff(&mut self) -> Result<(), BoltFailure> {
        self.log.push("logoff".into());
        Ok(())
    }

    fn run(&mut self, query: &str, params: Map, extra: &RunExtra, in_tx: bool) -> Result<RunResult, BoltFailure> {
        self.log.push(format!("run {query} tx={in_tx}"));
        self.last_params = params;
        self.last_extra = Some(extra.clone());
        let range = query.strip_prefix("RANGE ").and_then(|n| n.parse::<i64>().ok());
        let rows: Vec<Vec<Value>> = if let Some(n) = range.filter(|n| (0..10_000).contains(n)) {
            (0..n).map(|i| vec![Value::Integer(i)]).collect()
        } else if query == "CREATE" {
            vec![vec![Value::Integer(1)]]
        } else if query == "NODE" {
            let node = Value::Structure {
                tag: 0x4E,
                fields: vec![
                    Value::Integer(7),
                    Value::list(["Person"]),
                    Value::map([("name", "Ada")]),
                ],
            };
            vec![vec![node]]
        } else if query == "DT" {
            let dt = DateTime {
                seconds: 4500,
                nanoseconds: 42,
                tz_offset_seconds: 3600,
            };
            let dz = DateTimeZoneId {
                seconds: 4500,
                nanoseconds: 42,
                tz_id: "Europe/Paris".into(),
                offset_seconds: Some(3600),
            };
            vec![vec![dt.into_value(), dz.into_value()]]
        } else if query == "ZONED" {
            let dz = DateTimeZoneId {
                seconds: 4500,
                nanoseconds: 42,
                tz_id: "Europe/Paris".into(),
                offset_seconds: None,
            };
            vec![vec![dz.into_value()]]
        } else {
            return Err(BoltFailure::new(
                "Neo.ClientError.Statement.SyntaxError",
                format!("Invalid input '{query}'"),
            ));
        };
        let qid = self.next_qid;
        self.next_qid += 1;
        self.results.insert(qid, rows.into());
        Ok(RunResult {
            fields: vec!["x".into()],
            qid,
            t_first: 2,
            db: Some("neo4j".into()),
        })
    }

    fn pull(&mut self, qid: i64, n: i64) -> Result<PullResult, BoltFailure> {
        self.log.push(format!("pull {qid} {n}"));
        let rows = self.results.get_mut(&qid).expect("pull of an open result");
        let take = if n < 0 {
            rows.len()
        } else {
            (n as usize).min(rows.len())
        };
        let records: Vec<Vec<Value>> = rows.drain(..take).collect();
        let summary = rows.is_empty().then(|| self.summary(qid));
        Ok(PullResult { records, summary })
    }

    fn discard(&mut self, qid: i64, n: i64) -> Result<Option<Summary>, BoltFailure> {
        self.log.push(format!("discard {qid} {n}"));
        let rows = self.results.get_mut(&qid).expect("discard of an open result");
        let take = if n < 0 {
            rows.len()
        } else {
            (n as usize).min(rows.len())
        };
        rows.drain(..take);
        Ok(rows.is_empty().then(|| self.summary(qid)))
    }

    fn begin(&mut self, extra: &RunExtra) -> Result<BeginResult, BoltFailure> {
        self.log.push("begin".into());
        self.last_extra = Some(extra.clone());
        assert!(!self.in_tx, "nested transaction");
        self.in_tx = true;
        Ok(BeginResult {
            db: Some("neo4j".into()),
        })
    }

    fn commit(&mut self) -> Result<Option<String>, BoltFailure> {
        self.log.push("commit".into());
        self.in_tx = false;
        self.results.clear();
        self.bookmarks += 1;
        Ok(Some(format!("bm:{}", self.bookmarks)))
    }

    fn rollback(&mut self) -> Result<(), BoltFailure> {
        self.log.push("rollback".into());
        self.in_tx = false;
        self.results.clear();
        Ok(())
    }

    fn reset(&mut self) -> Result<(), BoltFailure> {
        self.log.push("reset".into());
        self.in_tx = false;
        self.results.clear();
        Ok(())
    }

    fn route(&mut self, route: &Route) -> Result<Map, BoltFailure> {
        self.log.push(format!("route {:?}", route.db));
        Ok(vec![
            ("ttl".into(), 300.into()),
            ("db".into(), route.db.clone().unwrap_or("neo4j".into()).into()),
            (
                "servers".into(),
                Value::list(
                    ["ROUTE", "READ", "WRITE"].map(|role| {
                        Value::map([("addresses", Value::list(["localhost:7687"])), ("role", role.into())])
                    }),
                ),
            ),
        ])
    }

    fn telemetry(&mut self, api: i64) -> Result<(), BoltFailure> {
        self.log.push(format!("telemetry {api}"));
        Ok(())
    }

    fn goodbye(&mut self) {
        self.log.push("goodbye".into());
        self.goodbye = true;
    }
}

/// A decoded server message.
#[derive(Debug, Clone, PartialEq)]
pub enum Resp {
    Success(Map),
    Record(Vec<Value>),
    Ignored,
    Failure(Map),
}

impl Resp {
    pub fn meta(&self) -> &Map {
        match self {
            Resp::Success(m) | Resp::Failure(m) => m,
            other => panic!("no metadata in {other:?}"),
        }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        hopdb_bolt::value::map_get(self.meta(), key)
    }

    pub fn is_success(&self) -> bool {
        matches!(self, Resp::Success(_))
    }

    pub fn is_failure(&self) -> bool {
        matches!(self, Resp::Failure(_))
    }

    /// The failure's code, under `code` (before 5.7) or `neo4j_code` (5.7+).
    pub fn code(&self) -> String {
        let v = self.get("code").or_else(|| self.get("neo4j_code"));
        v.and_then(Value::as_str).unwrap_or_default().to_owned()
    }
}

/// Decodes the server's chunked output into messages.
pub fn decode_responses(bytes: &[u8]) -> Vec<Resp> {
    let mut d = hopdb_bolt::Dechunker::default();
    d.push(bytes);
    let mut out = Vec::new();
    while let Some(m) = d.next_message().unwrap() {
        let v = packstream::decode(&m, &DecodeLimits::default()).unwrap();
        let Value::Structure { tag, mut fields } = v else {
            panic!("not a structure: {v:?}")
        };
        out.push(match tag {
            msg::SUCCESS => Resp::Success(take_map(fields.pop())),
            msg::FAILURE => Resp::Failure(take_map(fields.pop())),
            msg::IGNORED => Resp::Ignored,
            msg::RECORD => match fields.pop() {
                Some(Value::List(l)) => Resp::Record(l),
                other => panic!("bad record {other:?}"),
            },
            t => panic!("unexpected message tag {t:#x}"),
        });
    }
    assert!(d.finish().is_ok(), "server output ends inside a message");
    out
}

fn take_map(v: Option<Value>) -> Map {
    match v {
        Some(Value::Map(m)) => m,
        other => panic!("expected a map, got {other:?}"),
    }
}

/// A request message's bytes (unchunked).
pub fn message(tag: u8, fields: Vec<Value>) -> Vec<u8> {
    packstream::to_bytes(&Value::Structure { tag, fields }).unwrap()
}

pub fn hello(extra: Vec<(&str, Value)>) -> Vec<u8> {
    message(msg::HELLO, vec![Value::map(extra)])
}

/// A 5.3+ HELLO with a bolt agent.
pub fn hello5() -> Vec<u8> {
    hello(vec![
        ("user_agent", "test/1.0".into()),
        ("bolt_agent", Value::map([("product", "test-driver/1.0")])),
    ])
}

pub fn logon(user: &str, password: &str) -> Vec<u8> {
    message(
        msg::LOGON,
        vec![Value::map([
            ("scheme", "basic"),
            ("principal", user),
            ("credentials", password),
        ])],
    )
}

pub fn run(query: &str) -> Vec<u8> {
    run_with(query, Vec::new(), Vec::new())
}

pub fn run_with(query: &str, params: Vec<(&str, Value)>, extra: Vec<(&str, Value)>) -> Vec<u8> {
    message(msg::RUN, vec![query.into(), Value::map(params), Value::map(extra)])
}

pub fn pull(n: i64, qid: i64) -> Vec<u8> {
    message(msg::PULL, vec![Value::map([("n", n), ("qid", qid)])])
}

pub fn discard(n: i64, qid: i64) -> Vec<u8> {
    message(msg::DISCARD, vec![Value::map([("n", n), ("qid", qid)])])
}

pub fn begin() -> Vec<u8> {
    message(msg::BEGIN, vec![Value::map(Vec::<(&str, Value)>::new())])
}

pub fn bare(tag: u8) -> Vec<u8> {
    message(tag, Vec::new())
}

/// The 20-byte handshake with these four proposals.
pub fn handshake_bytes(proposals: [[u8; 4]; 4]) -> Vec<u8> {
    let mut b = MAGIC.to_vec();
    for p in proposals {
        b.extend_from_slice(&p);
    }
    b
}

/// Chunks messages back to back.
pub fn chunked(messages: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in messages {
        chunk_into(m, &mut out);
    }
    out
}

/// A client driving a [`ByteSession`] over a [`FakeBackend`].
pub struct Client {
    pub session: ByteSession<FakeBackend>,
}

impl Client {
    /// Handshakes for exactly `version`.
    pub fn connect(version: Version) -> Self {
        let mut session = ByteSession::new(FakeBackend::default(), SessionConfig::default());
        let reply = session
            .receive(&handshake_bytes([version.to_bytes(), [0; 4], [0; 4], [0; 4]]))
            .unwrap();
        assert_eq!(reply, version.to_bytes());
        Self { session }
    }

    /// Connected and authenticated (HELLO, and LOGON from 5.1).
    pub fn ready(version: Version) -> Self {
        let mut c = Self::connect(version);
        let mut extra = vec![("user_agent", Value::from("test/1.0"))];
        if version >= Version::V5_3 {
            extra.push(("bolt_agent", Value::map([("product", "test-driver/1.0")])));
        }
        if version < Version::V5_1 {
            extra.push(("scheme", "basic".into()));
            extra.push(("principal", "neo4j".into()));
            extra.push(("credentials", "secret".into()));
        }
        let r = c.send(&[hello(extra)]);
        assert!(r[0].is_success(), "{r:?}");
        if version >= Version::V5_1 {
            let r = c.send(&[logon("neo4j", "secret")]);
            assert!(r[0].is_success(), "{r:?}");
        }
        c
    }

    /// Sends messages (chunked in one write) and decodes the replies.
    pub fn send(&mut self, messages: &[Vec<u8>]) -> Vec<Resp> {
        let out = self.session.receive(&chunked(messages)).unwrap();
        decode_responses(&out)
    }

    /// Sends raw bytes.
    pub fn send_raw(&mut self, bytes: &[u8]) -> Result<Vec<Resp>, FatalError> {
        self.session.receive(bytes).map(|b| decode_responses(&b))
    }

    pub fn backend(&self) -> &FakeBackend {
        self.session.connection().unwrap().backend()
    }

    pub fn state(&self) -> hopdb_bolt::ServerState {
        self.session.state().unwrap()
    }
}
