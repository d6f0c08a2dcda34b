//! Property tests over whole sessions: no input makes the session panic, and a well-formed
//! request always gets exactly one summary while the connection stays open.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{
    bare, begin, chunked, decode_responses, discard, handshake_bytes, hello5, logon, message, pull, run, FakeBackend,
    Resp,
};
use hopdb_bolt::message::msg;
use hopdb_bolt::{ByteSession, SessionConfig, Value};
use proptest::prelude::*;

fn session() -> ByteSession<FakeBackend> {
    ByteSession::new(FakeBackend::default(), SessionConfig::default())
}

fn preamble() -> Vec<u8> {
    let mut b = handshake_bytes([[0, 8, 8, 5], [0, 0, 4, 4], [0; 4], [0; 4]]);
    b.extend(chunked(&[hello5(), logon("neo4j", "secret")]));
    b
}

fn arb_request() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        (0i64..4).prop_map(|k| run(&format!("RANGE {k}"))),
        Just(run("FAIL")),
        (prop_oneof![Just(-1i64), 1i64..4], -1i64..3).prop_map(|(n, q)| pull(n, q)),
        (prop_oneof![Just(-1i64), 1i64..4], -1i64..3).prop_map(|(n, q)| discard(n, q)),
        Just(begin()),
        Just(bare(msg::COMMIT)),
        Just(bare(msg::ROLLBACK)),
        Just(bare(msg::RESET)),
        Just(bare(msg::LOGOFF)),
        Just(logon("neo4j", "secret")),
        (0i64..5).prop_map(|api| message(msg::TELEMETRY, vec![api.into()])),
        Just(message(
            msg::ROUTE,
            vec![Value::Map(vec![]), Value::List(vec![]), Value::Null]
        )),
        Just(message(msg::RUN, vec!["RANGE 1".into()])),
        Just(hello5()),
        Just(bare(msg::GOODBYE)),
    ]
}

proptest! {
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let mut s = session();
        let _ = s.receive(&bytes);
        let _ = s.finish();
    }

    #[test]
    fn random_messages_after_the_handshake_never_panic(
        messages in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..64), 0..8),
    ) {
        let mut s = session();
        s.receive(&preamble()).unwrap();
        if let Ok(out) = s.receive(&chunked(&messages)) {
            // Whatever comes back is well-formed.
            decode_responses(&out);
        }
    }

    #[test]
    fn mutated_sessions_never_panic(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let mut bytes = preamble();
        bytes.extend(chunked(&[run("RANGE 3"), pull(2, -1), begin(), run("RANGE 1"), bare(msg::COMMIT)]));
        for (i, b) in flips {
            let at = i.index(bytes.len());
            bytes[at] = b;
        }
        let mut s = session();
        let _ = s.receive(&bytes);
    }

    #[test]
    fn every_request_gets_one_summary(
        requests in proptest::collection::vec(arb_request(), 1..24),
        one_write in any::<bool>(),
    ) {
        let mut s = session();
        let hs = s.receive(&preamble()).unwrap();
        prop_assert_eq!(decode_responses(&hs[4..]).len(), 2);
        let mut responses: Vec<Resp> = Vec::new();
        if one_write {
            responses = decode_responses(&s.receive(&chunked(&requests)).unwrap());
        } else {
            for r in &requests {
                if s.closed() {
                    break;
                }
                responses.extend(decode_responses(&s.receive(&chunked(std::slice::from_ref(r))).unwrap()));
            }
        }
        let summaries = responses.iter().filter(|r| !matches!(r, Resp::Record(_))).count();
        if s.closed() {
            prop_assert!(summaries <= requests.len());
        } else {
            prop_assert_eq!(summaries, requests.len());
        }
    }
}
