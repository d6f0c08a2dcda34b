//! Compaction pressure through HopDB's own write path (the RocksDB graph study's workload):
//! K node keys, each round upserts every key once, in a fresh random permutation, with a fresh
//! incompressible 1 KiB property, in write batches of B nodes; R rounds. Then a read probe
//! (present keys, and absent keys inside the written key range, where bloom filters matter) and the store's SST figures at
//! the end, after a settle (flush, then wait until the SST count stops changing) and after a
//! manual full compaction.
//!
//!   cargo run --release -p hopdb-core --example compaction_pressure -- --dir /tmp/cp \
//!       --keys 200000 --rounds 5 [--batch 1000] [--value-bytes 1024] [--write-buffer-mib 16]
//!       [--background-jobs 2] [--bloom-bits 10] [--durability process|sync|none] [--probes 20000]
//!
//! Prints one JSON line on stdout. `--dir` must be absent or empty.

// An example run by hand: a panic, with its message, is the error report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_core::{Config, Durability, Graph, GraphRead, NodeInput, NodeKey, Props, Value, WriteMode};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::{Duration, Instant};

struct Args {
    dir: String,
    keys: usize,
    rounds: usize,
    batch: usize,
    value_bytes: usize,
    write_buffer_mib: usize,
    background_jobs: i32,
    bloom_bits: f64,
    durability: String,
    probes: usize,
    seed: u64,
}

/// Bad arguments end the run with a message and exit status 2 (no panic backtrace).
fn fail(msg: String) -> ! {
    eprintln!("compaction_pressure: {msg} (see the usage at the top of examples/compaction_pressure.rs)");
    std::process::exit(2)
}

fn num<T: std::str::FromStr>(flag: &str, v: &str) -> T {
    v.parse()
        .unwrap_or_else(|_| fail(format!("bad value for {flag}: {v:?}")))
}

fn parse() -> Args {
    let mut a = Args {
        dir: String::new(),
        keys: 200_000,
        rounds: 5,
        batch: 1000,
        value_bytes: 1024,
        write_buffer_mib: 16,
        background_jobs: 2,
        bloom_bits: 10.0,
        durability: "process".into(),
        probes: 20_000,
        seed: 42,
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    for pair in argv.chunks(2) {
        let [flag, v] = pair else {
            fail(format!("flag without a value: {pair:?}"))
        };
        match flag.as_str() {
            "--dir" => a.dir = v.clone(),
            "--keys" => a.keys = num(flag, v),
            "--rounds" => a.rounds = num(flag, v),
            "--batch" => a.batch = num(flag, v),
            "--value-bytes" => a.value_bytes = num(flag, v),
            "--write-buffer-mib" => a.write_buffer_mib = num(flag, v),
            "--background-jobs" => a.background_jobs = num(flag, v),
            "--bloom-bits" => a.bloom_bits = num(flag, v),
            "--durability" => a.durability = v.clone(),
            "--probes" => a.probes = num(flag, v),
            "--seed" => a.seed = num(flag, v),
            _ => fail(format!("unknown flag {flag}")),
        }
    }
    if a.dir.is_empty() {
        fail("--dir is required".into());
    }
    a
}

fn key(i: usize) -> NodeKey {
    NodeKey::from(format!("k{i:09}"))
}

fn dir_bytes(p: &std::path::Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(p) else { return 0 };
    rd.filter_map(|e| e.ok())
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => dir_bytes(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn sst(g: &Graph, dir: &str) -> Res<String> {
    let s = g.stats()?.storage;
    Ok(format!(
        "{{\"sst_files\":{},\"sst_bytes\":{},\"wal_bytes\":{},\"dir_bytes\":{}}}",
        s.sst_files,
        s.sst_bytes,
        s.wal_bytes,
        dir_bytes(std::path::Path::new(dir))
    ))
}

fn main() {
    if let Err(e) = run(parse()) {
        eprintln!("compaction_pressure: {e}");
        std::process::exit(1);
    }
}

fn run(a: Args) -> Res<()> {
    let durability = match a.durability.as_str() {
        "process" => Durability::Process,
        "sync" => Durability::Sync,
        "none" => Durability::None,
        d => fail(format!("--durability: process, sync or none, not {d:?}")),
    };
    let wb = a.write_buffer_mib << 20;
    let cfg = Config {
        durability,
        write_buffer_bytes: wb,
        // The memtables' shared cap (default 48 MiB) must not hide a larger write buffer.
        total_write_buffer_bytes: Config::default().total_write_buffer_bytes.max(3 * wb),
        background_jobs: a.background_jobs,
        bloom_bits_per_key: a.bloom_bits,
        ..Config::default()
    };
    let g = Graph::open_with(&a.dir, cfg)?;
    let mut rng = ChaCha8Rng::seed_from_u64(a.seed);
    let mut order: Vec<usize> = (0..a.keys).collect();
    let mut rounds = Vec::new();
    let started = Instant::now();
    for _ in 0..a.rounds {
        // Fisher-Yates: every key exactly once per round, in a new order.
        for i in (1..order.len()).rev() {
            order.swap(i, rng.random_range(0..=i));
        }
        let t = Instant::now();
        for chunk in order.chunks(a.batch) {
            let batch: Vec<NodeInput> = chunk
                .iter()
                .map(|&i| {
                    let mut v = vec![0u8; a.value_bytes];
                    rng.fill_bytes(&mut v);
                    let mut props = Props::new();
                    props.insert("v".into(), Value::Bytes(v));
                    NodeInput {
                        key: key(i),
                        labels: Vec::new(),
                        props,
                    }
                })
                .collect();
            g.upsert_nodes(&batch, WriteMode::Replace)?;
        }
        let secs = t.elapsed().as_secs_f64();
        rounds.push(format!(
            "{{\"secs\":{secs:.4},\"writes_per_s\":{:.1},\"after\":{}}}",
            a.keys as f64 / secs,
            sst(&g, &a.dir)?
        ));
    }
    let write_secs = started.elapsed().as_secs_f64();
    let at_end = sst(&g, &a.dir)?;

    // Reads before the settle, on the store as the writes left it.
    let t = Instant::now();
    let mut found = 0usize;
    for _ in 0..a.probes {
        let k = key(rng.random_range(0..a.keys));
        let n = g.node(&k)?.ok_or("a written key is missing")?;
        if let Some(Value::Bytes(v)) = n.props.get("v") {
            found += (v.len() == a.value_bytes) as usize;
        }
    }
    if found != a.probes {
        return Err(format!("{} of {} reads returned a wrong value size", a.probes - found, a.probes).into());
    }
    let hit_secs = t.elapsed().as_secs_f64();
    let t = Instant::now();
    for _ in 0..a.probes {
        // Between two written keys, inside every table's key range: only a bloom filter (or
        // reading the block) can tell it is absent.
        let k = NodeKey::from(format!("k{:09}x", rng.random_range(0..a.keys)));
        if g.has_node(&k)? {
            return Err(format!("the absent key {k:?} was found").into());
        }
    }
    let miss_secs = t.elapsed().as_secs_f64();

    // Settle: flush the memtables, then wait for background compaction to go quiet.
    let t = Instant::now();
    g.flush()?;
    let (mut last, mut calm) = (u64::MAX, 0);
    while calm < 4 && t.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(250));
        let n = g.stats()?.storage.sst_files;
        calm = if n == last { calm + 1 } else { 0 };
        last = n;
    }
    let settle_secs = t.elapsed().as_secs_f64();
    let settled = sst(&g, &a.dir)?;
    let t = Instant::now();
    g.compact()?;
    let compact_secs = t.elapsed().as_secs_f64();
    let compacted = sst(&g, &a.dir)?;
    let writes = (a.keys * a.rounds) as f64;
    println!(
        "{{\"keys\":{},\"rounds\":{},\"batch\":{},\"value_bytes\":{},\"write_buffer_mib\":{},\"background_jobs\":{},\
\"bloom_bits\":{},\"durability\":\"{}\",\"writes\":{},\"write_secs\":{write_secs:.4},\"writes_per_s\":{:.1},\
\"per_round\":[{}],\"at_end\":{at_end},\"probes\":{},\"hit_reads_per_s\":{:.1},\"miss_reads_per_s\":{:.1},\
\"settle_secs\":{settle_secs:.3},\"settled\":{settled},\"compact_secs\":{compact_secs:.3},\"compacted\":{compacted}}}",
        a.keys,
        a.rounds,
        a.batch,
        a.value_bytes,
        a.write_buffer_mib,
        a.background_jobs,
        a.bloom_bits,
        a.durability,
        writes,
        writes / write_secs,
        rounds.join(","),
        a.probes,
        a.probes as f64 / hit_secs,
        a.probes as f64 / miss_secs,
    );
    Ok(())
}
