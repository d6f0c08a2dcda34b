//! A Bolt client over a real socket, speaking bytes built with hopdb-bolt's encoder, and a
//! server over an in-memory database.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use hopdb_bolt::chunk::chunk_into;
use hopdb_bolt::handshake::MAGIC;
use hopdb_bolt::message::msg;
use hopdb_bolt::packstream::{self, DecodeLimits};
use hopdb_bolt::{Dechunker, Map, Value, Version};
use hopdb_cypher::QueryEngine;
use hopdb_database::Database;
use hopdb_server::{serve, ServerConfig, ServerHandle};

/// A server on a free loopback port over a fresh in-memory database.
pub fn start() -> ServerHandle {
    start_with(ServerConfig::default())
}

pub fn start_with(config: ServerConfig) -> ServerHandle {
    let engine = QueryEngine::new(Database::in_memory());
    serve(
        engine,
        ServerConfig {
            bolt_listen: "127.0.0.1:0".into(),
            shutdown_grace: Duration::from_secs(10),
            ..config
        },
    )
    .unwrap()
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

    pub fn str(&self, key: &str) -> &str {
        self.get(key).and_then(Value::as_str).unwrap_or_default()
    }

    pub fn is_success(&self) -> bool {
        matches!(self, Resp::Success(_))
    }

    pub fn is_failure(&self) -> bool {
        matches!(self, Resp::Failure(_))
    }

    /// The failure's code (`code` before 5.7, `neo4j_code` from 5.7).
    pub fn code(&self) -> String {
        let v = self.get("code").or_else(|| self.get("neo4j_code"));
        v.and_then(Value::as_str).unwrap_or_default().to_owned()
    }

    pub fn stat(&self, name: &str) -> Option<&Value> {
        self.get("stats").and_then(|s| s.get(name))
    }
}

/// A request message's bytes (unchunked).
pub fn message(tag: u8, fields: Vec<Value>) -> Vec<u8> {
    packstream::to_bytes(&Value::Structure { tag, fields }).unwrap()
}

pub fn hello() -> Vec<u8> {
    message(
        msg::HELLO,
        vec![Value::map([
            ("user_agent", Value::from("hopdb-test/1.0")),
            ("bolt_agent", Value::map([("product", "hopdb-test/1.0")])),
        ])],
    )
}

pub fn logon() -> Vec<u8> {
    message(
        msg::LOGON,
        vec![Value::map([
            ("scheme", "basic"),
            ("principal", "neo4j"),
            ("credentials", "anything"),
        ])],
    )
}

pub fn run(query: &str) -> Vec<u8> {
    run_with(query, Vec::new(), Vec::new())
}

pub fn run_params(query: &str, params: Vec<(&str, Value)>) -> Vec<u8> {
    run_with(query, params, Vec::new())
}

pub fn run_with(query: &str, params: Vec<(&str, Value)>, extra: Vec<(&str, Value)>) -> Vec<u8> {
    message(msg::RUN, vec![query.into(), Value::map(params), Value::map(extra)])
}

pub fn pull(n: i64) -> Vec<u8> {
    message(msg::PULL, vec![Value::map([("n", n)])])
}

pub fn pull_qid(n: i64, qid: i64) -> Vec<u8> {
    message(msg::PULL, vec![Value::map([("n", n), ("qid", qid)])])
}

pub fn discard(n: i64) -> Vec<u8> {
    message(msg::DISCARD, vec![Value::map([("n", n)])])
}

pub fn begin() -> Vec<u8> {
    begin_with(Vec::new())
}

pub fn begin_with(extra: Vec<(&str, Value)>) -> Vec<u8> {
    message(msg::BEGIN, vec![Value::map(extra)])
}

pub fn commit() -> Vec<u8> {
    message(msg::COMMIT, Vec::new())
}

pub fn rollback() -> Vec<u8> {
    message(msg::ROLLBACK, Vec::new())
}

pub fn reset() -> Vec<u8> {
    message(msg::RESET, Vec::new())
}

pub fn goodbye() -> Vec<u8> {
    message(msg::GOODBYE, Vec::new())
}

pub fn route(db: Option<&str>) -> Vec<u8> {
    let extra = match db {
        Some(d) => Value::map([("db", d)]),
        None => Value::map(Vec::<(&str, Value)>::new()),
    };
    message(
        msg::ROUTE,
        vec![
            Value::map([("address", "localhost:9999")]),
            Value::List(Vec::new()),
            extra,
        ],
    )
}

/// A client connection.
pub struct Client {
    pub stream: TcpStream,
    dechunker: Dechunker,
    pub version: Version,
}

impl Client {
    /// Connects and handshakes, proposing 5.8 down to 5.0 (or exactly `version` if given).
    pub fn handshake(addr: SocketAddr, version: Option<Version>) -> Self {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut hs = MAGIC.to_vec();
        match version {
            None => hs.extend_from_slice(&[0x00, 0x08, 0x08, 0x05]),
            Some(v) => hs.extend_from_slice(&v.to_bytes()),
        }
        hs.extend_from_slice(&[0; 12]);
        stream.write_all(&hs).unwrap();
        let mut reply = [0u8; 4];
        stream.read_exact(&mut reply).unwrap();
        let version = Version::new(reply[3], reply[2]);
        assert!(version.major > 0, "no version agreed: {reply:?}");
        Self {
            stream,
            dechunker: Dechunker::default(),
            version,
        }
    }

    /// Connected, HELLO'd and logged on over Bolt 5.x.
    pub fn ready(addr: SocketAddr) -> Self {
        let mut c = Self::handshake(addr, None);
        assert_eq!(c.version, Version::V5_8);
        let r = c.request(&[hello(), logon()]);
        assert!(r.iter().all(Resp::is_success), "{r:?}");
        c
    }

    /// Sends messages, chunked, in one write.
    pub fn send(&mut self, messages: &[Vec<u8>]) {
        let mut out = Vec::new();
        for m in messages {
            chunk_into(m, &mut out);
        }
        self.stream.write_all(&out).unwrap();
    }

    /// The next server message; `None` when the server closed the connection.
    pub fn recv(&mut self) -> Option<Resp> {
        loop {
            if let Some(m) = self.dechunker.next_message().unwrap() {
                return Some(decode(&m));
            }
            let mut buf = [0u8; 8192];
            let n = match self.stream.read(&mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => 0,
                Err(e) => panic!("read failed: {e}"),
            };
            if n == 0 {
                return None;
            }
            self.dechunker.push(&buf[..n]);
        }
    }

    /// Sends messages and reads the responses up to one summary per message.
    pub fn request(&mut self, messages: &[Vec<u8>]) -> Vec<Resp> {
        self.send(messages);
        let mut out = Vec::new();
        let mut summaries = 0;
        while summaries < messages.len() {
            let r = self.recv().unwrap_or_else(|| panic!("connection closed after {out:?}"));
            if !matches!(r, Resp::Record(_)) {
                summaries += 1;
            }
            out.push(r);
        }
        out
    }

    /// RUN and PULL everything; panics unless both succeed. Returns (RUN's SUCCESS, records,
    /// PULL's summary).
    pub fn query(&mut self, query: &str, params: Vec<(&str, Value)>) -> (Resp, Vec<Vec<Value>>, Resp) {
        let r = self.request(&[run_params(query, params), pull(-1)]);
        let run = r[0].clone();
        assert!(run.is_success(), "{query}: {r:?}");
        let summary = r.last().unwrap().clone();
        assert!(summary.is_success(), "{query}: {r:?}");
        let records = records(&r);
        (run, records, summary)
    }

    /// The single value of a one-row, one-column query.
    pub fn scalar(&mut self, query: &str) -> Value {
        let (_, rows, _) = self.query(query, Vec::new());
        assert_eq!(rows.len(), 1, "{query}: {rows:?}");
        rows[0][0].clone()
    }

    /// Whether the server has closed the connection (reads EOF or a reset).
    pub fn closed_by_server(&mut self) -> bool {
        let mut buf = [0u8; 256];
        loop {
            match self.stream.read(&mut buf) {
                Ok(0) => return true,
                Ok(_) => continue,
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return true,
                Err(_) => return false,
            }
        }
    }
}

pub fn records(r: &[Resp]) -> Vec<Vec<Value>> {
    r.iter()
        .filter_map(|m| match m {
            Resp::Record(v) => Some(v.clone()),
            _ => None,
        })
        .collect()
}

/// One response message, decoded.
pub fn decode(m: &[u8]) -> Resp {
    let v = packstream::decode(m, &DecodeLimits::default()).unwrap();
    let Value::Structure { tag, mut fields } = v else {
        panic!("not a structure: {v:?}")
    };
    let map = |v: Option<Value>| match v {
        Some(Value::Map(m)) => m,
        other => panic!("expected a map, got {other:?}"),
    };
    match tag {
        msg::SUCCESS => Resp::Success(map(fields.pop())),
        msg::FAILURE => Resp::Failure(map(fields.pop())),
        msg::IGNORED => Resp::Ignored,
        msg::RECORD => match fields.pop() {
            Some(Value::List(l)) => Resp::Record(l),
            other => panic!("bad record {other:?}"),
        },
        t => panic!("unexpected message tag {t:#x}"),
    }
}
