//! Drives a whole ByteSession with arbitrary bytes after a valid handshake (the first input
//! byte picks the version proposal and how the rest is split into writes): it must answer or
//! fail with a typed error, never panic, and everything it sends must be well-chunked.

#![no_main]

use hopdb_bolt::handshake::{manifest_offer, MAGIC};
use hopdb_bolt::{
    AuthToken, Backend, BeginResult, BoltFailure, ByteSession, Dechunker, Map, PullResult, Route, RunExtra, RunResult,
    SessionConfig, Summary, Value, SUPPORTED_VERSIONS,
};
use libfuzzer_sys::fuzz_target;

/// Accepts everything; every query yields two rows.
#[derive(Default)]
struct Stub {
    next_qid: i64,
    left: Vec<(i64, usize)>,
}

impl Backend for Stub {
    fn authenticate(&mut self, _: &AuthToken) -> Result<(), BoltFailure> {
        Ok(())
    }
    fn run(&mut self, q: &str, _: Map, _: &RunExtra, _: bool) -> Result<RunResult, BoltFailure> {
        if q.is_empty() {
            return Err(BoltFailure::new("Neo.ClientError.Statement.SyntaxError", "empty"));
        }
        self.next_qid += 1;
        self.left.push((self.next_qid, 2));
        Ok(RunResult {
            fields: vec!["x".into()],
            qid: self.next_qid,
            t_first: 0,
            db: None,
        })
    }
    fn pull(&mut self, qid: i64, n: i64) -> Result<PullResult, BoltFailure> {
        let entry = self.left.iter_mut().find(|(q, _)| *q == qid);
        let Some((_, left)) = entry else {
            panic!("pull of a result that is not open");
        };
        let take = if n < 0 { *left } else { (*left).min(n as usize) };
        *left -= take;
        let done = *left == 0;
        if done {
            self.left.retain(|(q, _)| *q != qid);
        }
        Ok(PullResult {
            records: vec![vec![Value::Integer(1)]; take],
            summary: done.then(Summary::default),
        })
    }
    fn discard(&mut self, qid: i64, n: i64) -> Result<Option<Summary>, BoltFailure> {
        self.pull(qid, n).map(|r| r.summary)
    }
    fn begin(&mut self, _: &RunExtra) -> Result<BeginResult, BoltFailure> {
        Ok(BeginResult::default())
    }
    fn commit(&mut self) -> Result<Option<String>, BoltFailure> {
        self.left.clear();
        Ok(Some("bm".into()))
    }
    fn rollback(&mut self) -> Result<(), BoltFailure> {
        self.left.clear();
        Ok(())
    }
    fn reset(&mut self) -> Result<(), BoltFailure> {
        self.left.clear();
        Ok(())
    }
    fn route(&mut self, _: &Route) -> Result<Map, BoltFailure> {
        Ok(Vec::new())
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let proposals: [[u8; 4]; 3] = [[0, 8, 8, 5], [0, 0, 4, 4], [0, 0, 1, 0xFF]];
    let mut input = MAGIC.to_vec();
    input.extend_from_slice(&proposals[usize::from(first % 3)]);
    input.extend_from_slice(&[0; 12]);
    input.extend_from_slice(rest);
    let step = usize::from(first / 3).max(1);
    let mut session = ByteSession::new(Stub::default(), SessionConfig::default());
    let mut sent = Vec::new();
    for piece in input.chunks(step) {
        match session.receive(piece) {
            Ok(out) => sent.extend(out),
            Err(e) => {
                sent.extend(e.reply);
                break;
            }
        }
        if session.closed() {
            break;
        }
    }
    let _ = session.finish();
    // Past the handshake reply, the server only ever sends whole chunked messages.
    let reply_len = if first % 3 == 2 {
        manifest_offer(SUPPORTED_VERSIONS, 0).len()
    } else {
        4
    };
    let mut d = Dechunker::new(usize::MAX);
    d.push(sent.get(reply_len..).unwrap_or_default());
    while let Ok(Some(_)) = d.next_message() {}
    assert!(d.finish().is_ok(), "the server sent a partial message");
});
