//! Sustained writes with compaction included: the generator's knowledge graph at scale S
//! (default 10: 7.45M nodes, 12.5M edges) written in durable batches of 500, then single-edge
//! upserts on the loaded store. One engine per process so peak RSS is the engine's own.
//!
//!   cargo bench -p hopdb-core --bench sustained_writes -- hopdb  [SCALE]
//!   cargo bench -p hopdb-core --bench sustained_writes -- sqlite [SCALE]
//!
//! Prints a human summary and one JSON line (`RESULT {...}`).

// Benchmarks: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_core::{EdgeInput, Graph, NodeInput, Props, Value, WriteMode};
use hopdb_kg::{GenValue, KgSpec};
use rusqlite::{params, Connection};
use std::time::Instant;

const BATCH: usize = 500;
const WINDOW: u64 = 1_000_000;

trait Sink {
    fn nodes(&mut self, batch: &[hopdb_kg::GenNode]);
    fn edges(&mut self, batch: &[hopdb_kg::GenEdge]);
    fn single_edge(&mut self, src: &str, dst: &str);
    fn bytes_on_disk(&self) -> u64;
}

struct Hop(Graph, tempfile::TempDir);
struct Sql(Connection, tempfile::TempDir);

fn props_of(n: &hopdb_kg::GenNode) -> Props {
    n.props
        .iter()
        .map(|(k, v)| {
            let v = match v {
                GenValue::Int(i) => Value::Int(*i),
                GenValue::Str(s) => Value::Str(s.clone()),
            };
            (k.to_string(), v)
        })
        .collect()
}

fn props_json(n: &hopdb_kg::GenNode) -> String {
    let fields: Vec<String> = n
        .props
        .iter()
        .map(|(k, v)| match v {
            GenValue::Int(i) => format!("\"{k}\":{i}"),
            GenValue::Str(s) => format!("\"{k}\":\"{}\"", s.replace('"', "\\\"")),
        })
        .collect();
    format!("{{{}}}", fields.join(","))
}

fn dir_size(p: &std::path::Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(p) else { return 0 };
    rd.filter_map(|e| e.ok())
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => dir_size(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

impl Sink for Hop {
    fn nodes(&mut self, batch: &[hopdb_kg::GenNode]) {
        let b: Vec<NodeInput> = batch
            .iter()
            .map(|n| NodeInput::new(n.key.as_str()).label(n.label).props(props_of(n)))
            .collect();
        self.0.upsert_nodes(&b, WriteMode::Merge).expect("nodes");
    }
    fn edges(&mut self, batch: &[hopdb_kg::GenEdge]) {
        let b: Vec<EdgeInput> = batch
            .iter()
            .map(|e| EdgeInput::new(e.src.as_str(), e.ty, e.dst.as_str()))
            .collect();
        self.0.upsert_edges(&b, WriteMode::Merge).expect("edges");
    }
    fn single_edge(&mut self, src: &str, dst: &str) {
        self.0
            .upsert_edge(src, "MENTIONS", dst, Some(1.0), Props::new(), WriteMode::Merge)
            .expect("upsert");
    }
    fn bytes_on_disk(&self) -> u64 {
        dir_size(self.1.path())
    }
}

impl Sink for Sql {
    fn nodes(&mut self, batch: &[hopdb_kg::GenNode]) {
        self.0.execute_batch("BEGIN").expect("begin");
        {
            let mut s = self
                .0
                .prepare_cached("INSERT INTO nodes VALUES (?1, ?2, ?3) ON CONFLICT(key) DO UPDATE SET label = excluded.label, props = excluded.props")
                .expect("prep");
            for n in batch {
                s.execute(params![n.key, n.label, props_json(n)]).expect("node");
            }
        }
        self.0.execute_batch("COMMIT").expect("commit");
    }
    fn edges(&mut self, batch: &[hopdb_kg::GenEdge]) {
        self.0.execute_batch("BEGIN").expect("begin");
        for e in batch {
            self.upsert(&e.src, e.ty, &e.dst, None);
        }
        self.0.execute_batch("COMMIT").expect("commit");
    }
    fn single_edge(&mut self, src: &str, dst: &str) {
        self.upsert(src, "MENTIONS", dst, Some(1.0));
    }
    fn bytes_on_disk(&self) -> u64 {
        dir_size(self.1.path())
    }
}

impl Sql {
    fn upsert(&self, src: &str, ty: &str, dst: &str, w: Option<f64>) {
        let mut s = self
            .0
            .prepare_cached("INSERT INTO edges VALUES (?1, ?2, ?3, ?4) ON CONFLICT(src, type, dst) DO UPDATE SET weight = excluded.weight")
            .expect("prep");
        s.execute(params![src, ty, dst, w]).expect("edge");
    }
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let engine = args.first().map(String::as_str).unwrap_or("hopdb").to_string();
    let scale: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10.0);
    let spec = KgSpec::new(scale, hopdb_kg::DEFAULT_SEED).expect("scale");
    let dir = tempfile::tempdir_in(
        std::env::var("HOPDB_BENCH_DIR").unwrap_or_else(|_| std::env::temp_dir().display().to_string()),
    )
    .expect("tempdir");
    let mut sink: Box<dyn Sink> = match engine.as_str() {
        "hopdb" => Box::new(Hop(Graph::open(dir.path().join("store")).expect("open"), dir)),
        "sqlite" => {
            let c = Connection::open(dir.path().join("g.db")).expect("sqlite");
            c.execute_batch(
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-65536;
                 CREATE TABLE nodes(key TEXT PRIMARY KEY, label TEXT, props TEXT) WITHOUT ROWID;
                 CREATE TABLE edges(src TEXT NOT NULL, type TEXT NOT NULL, dst TEXT NOT NULL, weight REAL, PRIMARY KEY(src, type, dst)) WITHOUT ROWID;
                 CREATE INDEX edges_in ON edges(dst, type, src);",
            )
            .expect("schema");
            Box::new(Sql(c, dir))
        }
        other => panic!("unknown engine {other}: use hopdb or sqlite"),
    };
    let counts = spec.counts();
    eprintln!(
        "{engine}: writing S={scale}: {} nodes, {} edges in durable batches of {BATCH}",
        counts.nodes(),
        counts.edges()
    );
    let started = Instant::now();
    let (mut rows, mut window_start, mut window_rows) = (0u64, Instant::now(), 0u64);
    let mut windows = Vec::new();
    let mut tick = |n: u64, windows: &mut Vec<f64>| {
        rows += n;
        window_rows += n;
        if window_rows >= WINDOW {
            windows.push(window_rows as f64 / window_start.elapsed().as_secs_f64());
            window_rows = 0;
            window_start = Instant::now();
        }
    };
    let mut buf = Vec::with_capacity(BATCH);
    for n in hopdb_kg::nodes(&spec) {
        buf.push(n);
        if buf.len() == BATCH {
            sink.nodes(&buf);
            tick(buf.len() as u64, &mut windows);
            buf.clear();
        }
    }
    sink.nodes(&buf);
    let node_secs = started.elapsed().as_secs_f64();
    let node_windows = windows.len();
    let edges_started = Instant::now();
    let mut ebuf = Vec::with_capacity(BATCH);
    for e in hopdb_kg::edges(&spec) {
        ebuf.push(e);
        if ebuf.len() == BATCH {
            sink.edges(&ebuf);
            tick(ebuf.len() as u64, &mut windows);
            ebuf.clear();
        }
    }
    sink.edges(&ebuf);
    let edge_secs = edges_started.elapsed().as_secs_f64();
    let edge_windows: Vec<f64> = windows[node_windows..].to_vec();
    // Single durable upserts of new MENTIONS edges on the loaded store.
    let chunks = hopdb_kg::sample_keys(&spec, hopdb_kg::Kind::Chunk, 1000, 5);
    let ents = hopdb_kg::sample_keys(&spec, hopdb_kg::Kind::Entity, 1000, 6);
    let single_started = Instant::now();
    let mut singles = 0u64;
    while single_started.elapsed().as_secs_f64() < 10.0 {
        for _ in 0..1000 {
            let (c, e) = (
                &chunks[(singles % 1000) as usize],
                &ents[((singles / 1000 + singles * 7) % 1000) as usize],
            );
            sink.single_edge(c, e);
            singles += 1;
        }
    }
    let single_rate = singles as f64 / single_started.elapsed().as_secs_f64();
    let edge_rate = counts.edges() as f64 / edge_secs;
    let node_rate = counts.nodes() as f64 / node_secs;
    let (rss, disk) = (peak_rss_mib(), sink.bytes_on_disk());
    println!(
        "{engine} S={scale}: nodes {node_rate:.0}/s, edges {edge_rate:.0}/s overall (median 1M-row window {:.0}/s, min {:.0}/s), single upserts {single_rate:.0}/s, peak RSS {rss:.0} MiB, {:.0} MiB on disk",
        median(edge_windows.clone()),
        edge_windows.iter().copied().fold(f64::INFINITY, f64::min),
        disk as f64 / (1 << 20) as f64
    );
    println!(
        "RESULT {{\"engine\":\"{engine}\",\"scale\":{scale},\"nodes_per_s\":{node_rate:.0},\"edges_per_s\":{edge_rate:.0},\"edge_window_median_per_s\":{:.0},\"single_upserts_per_s\":{single_rate:.0},\"peak_rss_mib\":{rss:.0},\"disk_mib\":{:.0}}}",
        median(edge_windows),
        disk as f64 / (1 << 20) as f64
    );
}
