//! The bounded in-suite run of hopdb-core's fuzz targets (crates/hopdb-core/fuzz): each
//! target's body (the same code, `include!`d from ../fuzz/bodies.rs) over the regression
//! inputs below, seeds made with the store's own encoders, and a fixed number of
//! deterministic mutants of them (../fuzz/mutate.rs). Stable Rust, no libFuzzer; the long
//! coverage-guided runs are scripts/fuzz-long.sh.
//!
//! `HOPDB_FUZZ_SEEDS_DIR=DIR cargo test --release -p hopdb-core --test fuzz_decoders --
//! --ignored write_seeds` writes the seeds as corpus files DIR/core-TARGET/ (scripts/fuzz-seeds.sh).
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

include!("../fuzz/bodies.rs");
include!("../fuzz/mutate.rs");

use hopdb_core::fuzzing as f;
use hopdb_core::{FulltextIndexDef, NodeKey, Props, Value};
use std::collections::BTreeMap;

/// Mutants per target: a few seconds each in release.
const ITERATIONS: usize = 500_000;
const MAX_LEN: usize = 512;

fn sample_values() -> Vec<Value> {
    let mut m = BTreeMap::new();
    m.insert("a".to_string(), Value::Int(-1));
    m.insert("b".to_string(), Value::List(vec![Value::Null, Value::Bool(true)]));
    let mut deep = Value::Int(7);
    for _ in 0..31 {
        deep = Value::List(vec![deep]);
    }
    vec![
        Value::Null,
        Value::Bool(false),
        Value::Bool(true),
        Value::Int(0),
        Value::Int(i64::MIN),
        Value::Int(i64::MAX),
        Value::Int(300),
        Value::Float(1.5),
        Value::Float(f64::NAN),
        Value::Float(-0.0),
        Value::Str("".into()),
        Value::Str("héllo, wörld".into()),
        Value::Bytes(vec![0, 1, 2, 255]),
        Value::List(vec![Value::Int(1), Value::Str("x".into()), Value::Float(2.0)]),
        Value::Map(m.clone()),
        Value::Map(BTreeMap::from([
            ("$hopdb.temporal".to_string(), Value::Str("date".into())),
            ("v".to_string(), Value::Int(19000)),
        ])),
        deep,
    ]
}

fn sample_props() -> Vec<Props> {
    let vals = sample_values();
    vec![
        Props::new(),
        Props::from([("name".to_string(), Value::Str("Ada".into()))]),
        vals.iter()
            .enumerate()
            .map(|(i, v)| (format!("p{i}"), v.clone()))
            .collect(),
    ]
}

fn sample_keys() -> Vec<NodeKey> {
    vec![
        NodeKey::Int(0),
        NodeKey::Int(-1),
        NodeKey::Int(i64::MAX),
        NodeKey::Str("ada".into()),
        NodeKey::Str("日本".into()),
    ]
}

fn lanes(t: u32, out: i64, inn: i64, und: i64, w: f64) -> f::Lanes {
    (
        t,
        [
            out as u64,
            w.to_bits(),
            inn as u64,
            (w / 2.0).to_bits(),
            und as u64,
            0f64.to_bits(),
        ],
    )
}

fn seeds(target: &str) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    match target {
        "value" => {
            out.extend(sample_values().iter().map(f::encode_value));
            out.extend(sample_props().iter().map(|p| f::encode_props(p).unwrap()));
            out.extend(sample_keys().iter().map(f::encode_node_key));
        }
        "records" => {
            for (k, p) in sample_keys().into_iter().zip(sample_props().into_iter().cycle()) {
                out.push(f::encode_node_record(k.clone(), vec![0, 3, 70_000], p.clone()).unwrap());
                out.push(f::encode_edge_record(k.clone(), Some(0.25), p.clone()).unwrap());
                out.push(f::encode_edge_record(k, None, p).unwrap());
            }
            let recs: Vec<Vec<u8>> = sample_keys()
                .into_iter()
                .map(|k| f::encode_edge_record(k, Some(1.5), Props::new()).unwrap())
                .collect();
            let entries: Vec<(u32, u64, u64, &[u8])> = recs
                .iter()
                .enumerate()
                .map(|(i, r)| ((i / 3) as u32, 10 + i as u64, 0, r.as_slice()))
                .collect();
            out.push(f::encode_segment(&entries));
            out.push(f::encode_segment(&entries[..1]));
            out.push(f::encode_segment(&[]));
        }
        "counters" => {
            let a = f::encode_deg_set(&[lanes(0, 1, 0, 0, 1.0), lanes(2, 0, 3, 1, 2.5)]);
            let b = f::encode_deg_set(&[lanes(2, 0, -3, 0, -2.5), lanes(9, 4, 4, 4, 0.5)]);
            let c = 5i64.to_le_bytes().to_vec();
            for sep in [b'|', 0] {
                for parts in [
                    vec![&a[..], &b[..]],
                    vec![&a[..]],
                    vec![&c[..], &c[..], &c[..]],
                    vec![&b[..], &a[..], &b[..]],
                ] {
                    let mut s = vec![sep];
                    for (i, p) in parts.iter().enumerate() {
                        if i > 0 {
                            s.push(sep);
                        }
                        s.extend_from_slice(p);
                    }
                    out.push(s);
                }
            }
            out.push(a);
        }
        "keys" => {
            out.push(f::adj_key(1, 2, 3, 4));
            out.push(f::adj_key(u64::MAX, 0, 7, 0));
            out.push(f::key_value(42, true, None));
            out.push(f::key_value(42, false, None));
            out.push(f::key_value(42, true, Some(&[3, 70_000])));
            out.push(f::key_value(42, true, Some(&[])));
            out.push(f::adj_key(5, 1, 6, 0)[..20].to_vec());
            let mut def = b"index\0\0\0\0\x01name".to_vec();
            def.push(0xff);
            def.extend_from_slice(&[0, 0, 0, 3, 1]);
            out.push(def);
            let ft = FulltextIndexDef {
                name: "docs".into(),
                labels: vec!["Doc".into(), "Note".into()],
                properties: vec!["text".into()],
                analyzer: "standard".into(),
            };
            let mut s = b"fulltext\0docs".to_vec();
            s.push(0xff);
            s.extend_from_slice(&f::encode_fulltext_def(&ft));
            out.push(s);
            let mut s = b"\0\0\0\x02".to_vec();
            s.extend_from_slice(&f::encode_value(&Value::Str("x".into())));
            s.extend_from_slice(&9u64.to_be_bytes());
            out.push(s);
            // Two node keys, for the order check.
            out.push(
                [
                    f::encode_node_key(&NodeKey::Int(5)),
                    f::encode_node_key(&NodeKey::Int(-5)),
                ]
                .concat(),
            );
            out.push(
                [
                    f::encode_node_key(&NodeKey::Str("ab".into())),
                    f::encode_node_key(&NodeKey::Str("b".into())),
                ]
                .concat(),
            );
        }
        _ => unreachable!("no target {target}"),
    }
    out
}

const DICT: &[&[u8]] = &[
    b"\x00",
    b"\x01",
    b"\x02",
    b"\x03",
    b"\x04",
    b"\x05",
    b"\x06",
    b"\x07",
    b"\x08",
    b"\x09",
    b"\xff",
    b"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01",
    b"index\0",
    b"fulltext\0",
    b"\xff\xff\xff\xff",
];

/// Inputs that once failed (see each comment); run before the mutants.
fn regressions(target: &str) -> Vec<&'static [u8]> {
    match target {
        "counters" => vec![
            // Two count operands summing past i64::MAX: the merge overflowed (a panic in a
            // build with overflow checks, a silently wrapped count otherwise); now refused as
            // corruption, like any undecodable operand.
            b"|\xff\xff\xff\xff\xff\xff\xff\x7f|\x01\x00\x00\x00\x00\x00\x00\x00",
        ],
        _ => vec![],
    }
}

fn fuzz(target: &str, body: fn(&[u8])) {
    let started = std::time::Instant::now();
    let seeds = seeds(target);
    let ran = mutate::run(target, body, &regressions(target), &seeds, DICT, ITERATIONS, MAX_LEN);
    eprintln!(
        "fuzz {target}: {ran} inputs in {:.2} s",
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn value() {
    fuzz("value", fuzz_bodies::value);
}

#[test]
fn records() {
    fuzz("records", fuzz_bodies::records);
}

#[test]
fn counters() {
    fuzz("counters", fuzz_bodies::counters);
}

#[test]
fn keys() {
    fuzz("keys", fuzz_bodies::keys);
}

/// A deg-counter operand summing past i64::MAX with another is refused, in every build.
#[test]
fn counter_overflow_is_corruption() {
    let a = f::encode_deg_set(&[lanes(1, i64::MAX, 0, 0, 1.0)]);
    let b = f::encode_deg_set(&[lanes(1, 1, 0, 0, 1.0)]);
    assert_eq!(f::merge_deg(Some(&a), &[&b]), None);
    assert_eq!(f::merge_deg_operands(&[&a, &b]), None);
    assert_eq!(
        f::merge_count(Some(&i64::MAX.to_le_bytes()), &[&1i64.to_le_bytes()]),
        None
    );
}

/// Writes each target's seeds to $HOPDB_FUZZ_SEEDS_DIR/core-TARGET/ (scripts/fuzz-seeds.sh).
#[test]
#[ignore = "writes seed corpora; run by scripts/fuzz-seeds.sh"]
fn write_seeds() {
    let Some(dir) = std::env::var_os("HOPDB_FUZZ_SEEDS_DIR") else {
        eprintln!("write_seeds: HOPDB_FUZZ_SEEDS_DIR is not set; nothing written");
        return;
    };
    for target in ["value", "records", "counters", "keys"] {
        let d = std::path::Path::new(&dir).join(format!("core-{target}"));
        std::fs::create_dir_all(&d).unwrap();
        let mut all = seeds(target);
        all.extend(regressions(target).iter().map(|r| r.to_vec()));
        for (i, s) in all.iter().enumerate() {
            std::fs::write(d.join(format!("seed-{i:03}")), s).unwrap();
        }
        eprintln!("write_seeds: {} seeds in {}", all.len(), d.display());
    }
}
