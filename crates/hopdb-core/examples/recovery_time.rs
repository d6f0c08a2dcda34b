//! Recovery time after a kill (issue 23): how long `Graph::open` takes when the writer was
//! SIGKILLed with DATA of live data in table files and a WAL tail of WAL bytes not yet flushed.
//! The open must cost in the WAL tail (it is replayed), not in the data size (table files are
//! only listed, never read through).
//!
//! ```text
//! cargo run --release -p hopdb-core --example recovery_time -- [DIR] [--data-mb 256,1024] [--wal-mb 0,16,64] [--repeat 3]
//! ```
//!
//! For each data size a base store is built once in DIR (default: a temporary directory) by
//! bulk loads of nodes carrying 1 KB of random (incompressible) bytes. For each WAL size and
//! repetition the base is checkpointed (hard links), a child process writes the WAL tail into
//! it (1 MB transactions; memtables large enough that nothing is flushed), says READY and is
//! SIGKILLed; then the parent times the reopen and checks the last transaction is there.
//! Prints one line per (data, WAL) with the median and every repetition.

// A measuring tool: a failed step is reported by a panic with its context.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_core::*;
use rand::{RngCore, SeedableRng};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BLOB: usize = 1000;
const NODES_PER_TXN: usize = 1000;
/// The child's memtables: far above the largest WAL tail, so the tail stays in the WAL.
const WRITE_BUFFER: usize = 1 << 30;

fn blob(rng: &mut rand_chacha::ChaCha8Rng) -> Value {
    let mut b = vec![0u8; BLOB];
    rng.fill_bytes(&mut b);
    Value::Bytes(b)
}

fn config() -> Config {
    Config {
        write_buffer_bytes: WRITE_BUFFER,
        total_write_buffer_bytes: 2 * WRITE_BUFFER,
        ..Config::default()
    }
}

/// The child: writes `mb` MB of node upserts into the store at `dir`, says READY, waits.
fn child(dir: &Path, mb: usize) {
    let g = Graph::open_with(dir, config()).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    for t in 0..mb {
        let mut tx = g.write().unwrap();
        for i in 0..NODES_PER_TXN {
            let key = NodeKey::Str(format!("tail-{t}-{i}"));
            tx.upsert_node(&key, &["Tail"], props([("b", blob(&mut rng))]), WriteMode::Replace)
                .unwrap();
        }
        tx.commit().unwrap();
    }
    println!("READY");
    std::io::stdout().flush().unwrap();
    std::thread::sleep(Duration::from_secs(600));
}

fn build_base(dir: &Path, mb: usize) {
    if dir.exists() {
        return;
    }
    let started = Instant::now();
    let building = dir.with_extension("building");
    let _ = std::fs::remove_dir_all(&building);
    let g = Graph::open(&building).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let nodes = mb * 1000;
    for chunk in 0..nodes.div_ceil(100_000) {
        let mut load = g.bulk_load(BulkOptions::default()).unwrap();
        for i in chunk * 100_000..((chunk + 1) * 100_000).min(nodes) {
            load.add_node(NodeKey::Int(i as i64), &["Data"], props([("b", blob(&mut rng))]))
                .unwrap();
        }
        load.finish().unwrap();
    }
    g.compact().unwrap();
    drop(g);
    std::fs::rename(&building, dir).unwrap();
    eprintln!("base store of {mb} MB built in {:.0?}", started.elapsed());
}

fn dir_bytes(dir: &Path, suffix: &str) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(suffix))
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

/// One measurement: checkpoint the base, write the tail in a child, kill it, time the reopen.
fn measure(base: &Path, work: &Path, wal_mb: usize) -> (Duration, u64) {
    let _ = std::fs::remove_dir_all(work);
    Graph::open(base).unwrap().checkpoint(work).unwrap();
    let mut c = Command::new(std::env::current_exe().unwrap())
        .args(["--child", &work.to_string_lossy(), &wal_mb.to_string()])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(c.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "READY", "the child did not finish its writes");
    c.kill().unwrap();
    c.wait().unwrap();
    let wal = dir_bytes(work, ".log");
    let t = Instant::now();
    let g = Graph::open_with(work, config()).unwrap();
    let took = t.elapsed();
    if wal_mb > 0 {
        let last = NodeKey::Str(format!("tail-{}-{}", wal_mb - 1, NODES_PER_TXN - 1));
        assert!(g.has_node(&last).unwrap(), "the last acknowledged write is missing");
    }
    drop(g);
    std::fs::remove_dir_all(work).unwrap();
    (took, wal)
}

fn list(args: &[String], flag: &str, default: &[usize]) -> Vec<usize> {
    args.iter()
        .position(|a| a == flag)
        .map(|i| args[i + 1].split(',').map(|v| v.parse().unwrap()).collect())
        .unwrap_or_else(|| default.to_vec())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        return child(Path::new(&args[1]), args[2].parse().unwrap());
    }
    let data = list(&args, "--data-mb", &[256, 1024]);
    let wals = list(&args, "--wal-mb", &[0, 16, 64]);
    let repeat = list(&args, "--repeat", &[3])[0];
    let tmp = tempfile::tempdir().unwrap();
    let root: PathBuf = match args.first().filter(|a| !a.starts_with("--")) {
        Some(d) => PathBuf::from(d),
        None => tmp.path().to_owned(),
    };
    std::fs::create_dir_all(&root).unwrap();
    println!("data_mb,sst_mb,wal_mb,wal_bytes,median_ms,runs_ms");
    for &mb in &data {
        let base = root.join(format!("base-{mb}mb"));
        build_base(&base, mb);
        let sst_mb = dir_bytes(&base, ".sst") >> 20;
        for &wal_mb in &wals {
            let runs: Vec<(Duration, u64)> = (0..repeat)
                .map(|_| measure(&base, &root.join("work"), wal_mb))
                .collect();
            let mut ms: Vec<f64> = runs.iter().map(|(d, _)| d.as_secs_f64() * 1e3).collect();
            ms.sort_by(f64::total_cmp);
            let shown: Vec<String> = ms.iter().map(|m| format!("{m:.0}")).collect();
            println!(
                "{mb},{sst_mb},{wal_mb},{},{:.0},{}",
                runs[0].1,
                ms[ms.len() / 2],
                shown.join(" ")
            );
        }
    }
}
