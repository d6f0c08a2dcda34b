//! HopDB against real graphs from the shared datasets folder (see its SOURCES.md for each
//! file's origin, format and measured statistics).
//!
//! Each graph is parsed here, loaded into a RocksDB store in a tempdir, and compared with a
//! reference computed straightforwardly from the parsed lines: node and edge counts, the
//! exact node set, every node's out/in/both degree and weight sum, and for a sample (the
//! highest-degree hubs plus seeded random nodes) the exact neighbour sets and edge lists.
//!
//! The datasets directory is `$HOPDB_DATASETS`, else `<workspace root>/../shared/datasets`.
//! A missing dataset file makes its test print a message and pass. Dataset files are read
//! in place, never copied. Tests run one at a time (a shared lock) so that the printed load
//! rates are not distorted by a concurrent load; timings are informational only.
//!
//! Run: `cargo test --release -p hopdb-core --test real_graphs -- --nocapture`

// Tests: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use flate2::read::GzDecoder;
use hopdb_core::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Edges per write batch (per `upsert_edges` call or `WriteTxn`).
const BATCH: usize = 5_000;
/// Highest-degree nodes whose neighbours and edges are compared exactly.
const HUBS: usize = 50;
/// Random nodes (seeded) whose neighbours and edges are compared exactly.
const RANDOM_NODES: usize = 500;

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    // A failed test must not poison the others.
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

// ---------------------------------------------------------------------------------------
// Locating and parsing the datasets
// ---------------------------------------------------------------------------------------

fn datasets_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("HOPDB_DATASETS").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let root =
        Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()))
            .join("../..");
    match root.canonicalize().ok().as_deref().and_then(Path::parent) {
        Some(parent) => parent.join("shared/datasets"),
        None => root.join("../shared/datasets"),
    }
}

/// The dataset file `rel` (relative to the datasets directory), or None after printing
/// why the test is skipped.
fn dataset(name: &str, rel: &str) -> Option<PathBuf> {
    let p = datasets_dir().join(rel);
    if p.is_file() {
        Some(p)
    } else {
        println!(
            "skipping: dataset {name} not found at {}; set HOPDB_DATASETS",
            p.display()
        );
        None
    }
}

/// Calls `f(line_number, line)` for every line of a gzipped text file, with the line
/// terminator (LF or CRLF: some of these files use CRLF) removed.
fn for_each_line(path: &Path, mut f: impl FnMut(usize, &str)) {
    let file = File::open(path).unwrap_or_else(|e| panic!("opening {}: {e}", path.display()));
    let mut r = BufReader::with_capacity(1 << 16, GzDecoder::new(file));
    let mut line = String::new();
    let mut no = 0;
    loop {
        line.clear();
        let n = r
            .read_line(&mut line)
            .unwrap_or_else(|e| panic!("reading {} after line {no}: {e}", path.display()));
        if n == 0 {
            break;
        }
        no += 1;
        f(no, line.trim_end_matches(['\n', '\r']));
    }
}

fn int(field: Option<&str>, path: &Path, no: usize, line: &str) -> i64 {
    field
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{}:{no}: malformed line {line:?}", path.display()))
}

/// A header's `(nodes, edges)`.
type Counts = (i64, i64);

/// A two-column edge list `u v` (tab- or space-separated). Lines starting with `#` are
/// comments. With `count_header`, the first line is a `nodes edges` header, returned.
fn read_pairs(path: &Path, count_header: bool) -> (Option<Counts>, Vec<(i64, i64)>) {
    let mut header = None;
    let mut pairs = Vec::new();
    for_each_line(path, |no, line| {
        let mut it = line.split_whitespace();
        if count_header && no == 1 {
            header = Some((int(it.next(), path, no, line), int(it.next(), path, no, line)));
            return;
        }
        if line.trim().is_empty() || line.starts_with('#') {
            return;
        }
        let u = int(it.next(), path, no, line);
        let v = int(it.next(), path, no, line);
        assert!(
            it.next().is_none(),
            "{}:{no}: more than two columns in {line:?}",
            path.display()
        );
        pairs.push((u, v));
    });
    (header, pairs)
}

/// A DIMACS shortest-path `.gr` file: `c` comments, one `p sp NODES ARCS` line and
/// `a u v w` arc lines. Returns the header and the arcs.
fn read_dimacs_arcs(path: &Path) -> (Counts, Vec<(i64, i64, i64)>) {
    let mut header = None;
    let mut arcs = Vec::new();
    for_each_line(path, |no, line| {
        let mut it = line.split_whitespace();
        match it.next() {
            None | Some("c") => {}
            Some("p") => {
                assert_eq!(it.next(), Some("sp"), "{}:{no}: problem line {line:?}", path.display());
                assert!(header.is_none(), "{}:{no}: second problem line", path.display());
                header = Some((int(it.next(), path, no, line), int(it.next(), path, no, line)));
            }
            Some("a") => {
                let (u, v, w) = (
                    int(it.next(), path, no, line),
                    int(it.next(), path, no, line),
                    int(it.next(), path, no, line),
                );
                arcs.push((u, v, w));
            }
            Some(_) => panic!("{}:{no}: unexpected line {line:?}", path.display()),
        }
    });
    (
        header.unwrap_or_else(|| panic!("{}: no `p sp` line", path.display())),
        arcs,
    )
}

/// Facts about the parsed lines themselves, checked against SOURCES.md so that a parser
/// mistake is not mistaken for a HopDB one.
fn line_stats(pairs: impl Iterator<Item = (i64, i64)> + Clone) -> (usize, usize, usize) {
    let lines = pairs.clone().count();
    let nodes: HashSet<i64> = pairs.clone().flat_map(|(u, v)| [u, v]).collect();
    let loops = pairs.filter(|(u, v)| u == v).count();
    (lines, nodes.len(), loops)
}

// ---------------------------------------------------------------------------------------
// The reference: what HopDB must hold after loading the lines
// ---------------------------------------------------------------------------------------

type Nbrs = Vec<(i64, Option<f64>)>;

struct Expected {
    ty: &'static str,
    options: EdgeTypeOptions,
    /// Every stored edge as listed from a node: directed types list it from the source
    /// only; undirected types from both ends (a self-loop once). `(neighbour, weight)`.
    out: HashMap<i64, Nbrs>,
    /// Directed types only: every stored edge listed from its target, `(source, weight)`.
    inn: HashMap<i64, Nbrs>,
    /// Sorted node keys.
    nodes: Vec<i64>,
    edges: u64,
}

fn w1(w: Option<f64>) -> f64 {
    w.unwrap_or(1.0)
}

impl Expected {
    /// Applies the input edges with HopDB's documented semantics: a simple type keeps one
    /// edge per (src, type, dst) (per unordered pair if undirected), a Merge upsert without
    /// a weight keeps the old weight; a multi-edge type keeps every edge.
    fn build(ty: &'static str, options: EdgeTypeOptions, input: &[(i64, i64, Option<f64>)]) -> Expected {
        let mut stored: Vec<(i64, i64, Option<f64>)> = Vec::new();
        if options.multi {
            stored.extend_from_slice(input);
        } else {
            let mut at: HashMap<(i64, i64), usize> = HashMap::with_capacity(input.len());
            for &(u, v, w) in input {
                let pair = if options.undirected {
                    (u.min(v), u.max(v))
                } else {
                    (u, v)
                };
                match at.get(&pair) {
                    Some(&i) => {
                        if w.is_some() {
                            stored[i] = (u, v, w);
                        }
                    }
                    None => {
                        at.insert(pair, stored.len());
                        stored.push((u, v, w));
                    }
                }
            }
        }
        let mut out: HashMap<i64, Nbrs> = HashMap::new();
        let mut inn: HashMap<i64, Nbrs> = HashMap::new();
        for &(u, v, w) in &stored {
            out.entry(u).or_default().push((v, w));
            if options.undirected {
                if u != v {
                    out.entry(v).or_default().push((u, w));
                }
            } else {
                inn.entry(v).or_default().push((u, w));
            }
        }
        let mut nodes: Vec<i64> = input
            .iter()
            .flat_map(|&(u, v, _)| [u, v])
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        nodes.sort_unstable();
        Expected {
            ty,
            options,
            out,
            inn,
            nodes,
            edges: stored.len() as u64,
        }
    }

    fn out_of(&self, n: i64) -> &[(i64, Option<f64>)] {
        self.out.get(&n).map_or(&[], Vec::as_slice)
    }
    fn in_of(&self, n: i64) -> &[(i64, Option<f64>)] {
        self.inn.get(&n).map_or(&[], Vec::as_slice)
    }

    /// (count, weight sum): unweighted edges weigh 1.0; a directed self-loop counts once in
    /// Out, once in In and twice in Both; an undirected self-loop counts twice everywhere.
    fn degree(&self, n: i64, dir: Direction) -> (u64, f64) {
        let sum = |l: &[(i64, Option<f64>)]| (l.len() as u64, l.iter().map(|e| w1(e.1)).sum::<f64>());
        if self.options.undirected {
            let l = self.out_of(n);
            let loops: Vec<_> = l.iter().filter(|e| e.0 == n).copied().collect();
            let (c, w) = sum(l);
            let (lc, lw) = sum(&loops);
            return (c + lc, w + lw);
        }
        let (oc, ow) = sum(self.out_of(n));
        let (ic, iw) = sum(self.in_of(n));
        match dir {
            Direction::Out => (oc, ow),
            Direction::In => (ic, iw),
            Direction::Both => (oc + ic, ow + iw),
        }
    }

    fn neighbors(&self, n: i64, dir: Direction) -> BTreeSet<i64> {
        let mut s = BTreeSet::new();
        if self.options.undirected || dir != Direction::In {
            s.extend(self.out_of(n).iter().map(|e| e.0));
        }
        if !self.options.undirected && dir != Direction::Out {
            s.extend(self.in_of(n).iter().map(|e| e.0));
        }
        s
    }

    /// The edge list as `(src, dst, weight bits)`, sorted. Undirected edges are listed from
    /// the queried end; a directed self-loop appears once in Both.
    fn edges(&self, n: i64, dir: Direction) -> Vec<(i64, i64, Option<u64>)> {
        let bits = |w: Option<f64>| w.map(f64::to_bits);
        let mut l = Vec::new();
        if self.options.undirected || dir != Direction::In {
            l.extend(self.out_of(n).iter().map(|&(v, w)| (n, v, bits(w))));
        }
        if !self.options.undirected && dir != Direction::Out {
            l.extend(
                self.in_of(n)
                    .iter()
                    .filter(|e| !(dir == Direction::Both && e.0 == n))
                    .map(|&(u, w)| (u, n, bits(w))),
            );
        }
        l.sort_unstable();
        l
    }

    /// The `HUBS` nodes of highest Both degree, then `RANDOM_NODES` others, seeded.
    fn sample(&self, seed: u64) -> Vec<i64> {
        let mut by_degree: Vec<(u64, i64)> = self
            .nodes
            .iter()
            .map(|&n| (self.degree(n, Direction::Both).0, n))
            .collect();
        by_degree.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let hubs: Vec<i64> = by_degree.iter().take(HUBS).map(|x| x.1).collect();
        let rest: Vec<i64> = by_degree.iter().skip(HUBS).map(|x| x.1).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let picked = rand::seq::index::sample(&mut rng, rest.len(), RANDOM_NODES.min(rest.len()));
        hubs.into_iter().chain(picked.into_iter().map(|i| rest[i])).collect()
    }
}

// ---------------------------------------------------------------------------------------
// Comparing HopDB with the reference
// ---------------------------------------------------------------------------------------

/// Collects mismatches so a failure reports how many there were and the first few.
#[derive(Default)]
struct Mismatches {
    count: usize,
    first: String,
}

impl Mismatches {
    fn note(&mut self, msg: impl FnOnce() -> String) {
        self.count += 1;
        if self.count <= 10 {
            let _ = writeln!(self.first, "  {}", msg());
        }
    }
    fn assert_none(&self, graph: &str, what: &str) {
        assert!(
            self.count == 0,
            "{graph}: {} mismatches in {what}; the first ones:\n{}",
            self.count,
            self.first
        );
    }
}

const DIRS: [Direction; 3] = [Direction::Out, Direction::In, Direction::Both];

fn int_key(k: &NodeKey) -> i64 {
    match k {
        NodeKey::Int(i) => *i,
        other => panic!("expected an integer node key, got {other}"),
    }
}

fn verify_counts(name: &str, g: &impl GraphRead, exp: &Expected) {
    assert_eq!(g.node_count().unwrap(), exp.nodes.len() as u64, "{name}: node_count");
    assert_eq!(g.edge_count().unwrap(), exp.edges, "{name}: edge_count");
    let types = g.edge_types().unwrap();
    assert_eq!(types.len(), 1, "{name}: edge types {types:?}");
    assert_eq!(
        (&*types[0].0.name, types[0].0.options, types[0].1),
        (exp.ty, exp.options, exp.edges),
        "{name}: edge type and its count"
    );
    for absent in [exp.nodes[0] - 1, exp.nodes[exp.nodes.len() - 1] + 1] {
        assert!(
            !g.has_node(&NodeKey::Int(absent)).unwrap(),
            "{name}: node {absent} should not exist"
        );
        assert!(
            !g.has_node(&NodeKey::Str(exp.nodes[0].to_string())).unwrap(),
            "{name}: Str keys are distinct from Int keys"
        );
    }
}

/// Exact node set (a full scan) and every node's degree and weight sum in every direction.
fn verify_all_nodes(name: &str, g: &Graph, exp: &Expected) {
    let mut keys: Vec<i64> = g.scan_nodes().map(|n| int_key(&n.unwrap().key)).collect();
    keys.sort_unstable();
    if keys != exp.nodes {
        let got: HashSet<i64> = keys.iter().copied().collect();
        let want: HashSet<i64> = exp.nodes.iter().copied().collect();
        let missing: Vec<_> = want.difference(&got).take(10).collect();
        let extra: Vec<_> = got.difference(&want).take(10).collect();
        panic!(
            "{name}: scanned {} node keys, expected {}; missing e.g. {missing:?}, unexpected e.g. {extra:?}",
            keys.len(),
            exp.nodes.len()
        );
    }
    let mut bad = Mismatches::default();
    for &n in &exp.nodes {
        let k = NodeKey::Int(n);
        for dir in DIRS {
            let want = exp.degree(n, dir);
            match g.degree(&k, dir, None) {
                Ok(d) if (d.count, d.weight_sum) == want => {}
                got => bad.note(|| format!("node {n} {dir:?}: degree {got:?}, expected (count, weight_sum) {want:?}")),
            }
        }
    }
    bad.assert_none(name, "degrees of all nodes");
}

/// Neighbour sets and edge lists (with weights) of the sampled nodes, plus per-type degrees.
fn verify_sample(name: &str, g: &impl GraphRead, exp: &Expected, sample: &[i64]) {
    let mut bad = Mismatches::default();
    let mut multi_ids = HashSet::new();
    for &n in sample {
        let k = NodeKey::Int(n);
        for dir in DIRS {
            let want = exp.neighbors(n, dir);
            let got = g.neighbors(&k, dir, None, None).unwrap();
            let got_set: BTreeSet<i64> = got.iter().map(int_key).collect();
            if got_set != want || got.len() != got_set.len() {
                let missing: Vec<_> = want.difference(&got_set).take(5).collect();
                let extra: Vec<_> = got_set.difference(&want).take(5).collect();
                bad.note(|| format!("node {n} {dir:?}: neighbors gave {} keys ({} distinct), expected {}; missing e.g. {missing:?}, unexpected e.g. {extra:?}", got.len(), got_set.len(), want.len()));
            }

            let want = exp.edges(n, dir);
            let es = g.edges(&k, dir, None, None).unwrap();
            let mut got: Vec<(i64, i64, Option<u64>)> = Vec::with_capacity(es.len());
            for e in &es {
                got.push((int_key(&e.src), int_key(&e.dst), e.weight.map(f64::to_bits)));
                if &*e.ty != exp.ty || !e.props.is_empty() {
                    bad.note(|| format!("node {n} {dir:?}: edge {e:?} has the wrong type or properties"));
                }
                if exp.options.multi {
                    if e.id == 0 {
                        bad.note(|| format!("node {n} {dir:?}: multi-edge {e:?} without an edge id"));
                    }
                    multi_ids.insert((e.id, int_key(&e.src), int_key(&e.dst)));
                } else if e.id != 0 {
                    bad.note(|| format!("node {n} {dir:?}: simple edge {e:?} with an edge id"));
                }
            }
            got.sort_unstable();
            if got != want {
                let (gs, ws): (HashSet<_>, HashSet<_>) = (got.iter().collect(), want.iter().collect());
                let missing: Vec<_> = ws.difference(&gs).take(3).collect();
                let extra: Vec<_> = gs.difference(&ws).take(3).collect();
                bad.note(|| format!("node {n} {dir:?}: edges gave {} edges, expected {}; missing e.g. {missing:?}, unexpected e.g. {extra:?}", got.len(), want.len()));
            }

            // Filtering by the one type changes nothing; an unknown type matches nothing.
            let wd = exp.degree(n, dir);
            match g.degree(&k, dir, Some(exp.ty)) {
                Ok(d) if (d.count, d.weight_sum) == wd => {}
                got => bad.note(|| {
                    format!(
                        "node {n} {dir:?}: degree of type {} is {got:?}, expected {wd:?}",
                        exp.ty
                    )
                }),
            }
            let typed = g.edges(&k, dir, Some(exp.ty), None).unwrap().len();
            if typed != es.len() {
                bad.note(|| {
                    format!(
                        "node {n} {dir:?}: {typed} edges of type {}, {} of any type",
                        exp.ty,
                        es.len()
                    )
                });
            }
            if !g.edges(&k, dir, Some("NO_SUCH_TYPE"), None).unwrap().is_empty() {
                bad.note(|| format!("node {n} {dir:?}: edges of an unknown type"));
            }
        }
    }
    if exp.options.multi {
        // The same edge seen from both ends carries the same id; different edges never do.
        let ids: HashSet<u64> = multi_ids.iter().map(|x| x.0).collect();
        let ends: HashSet<(u64, i64, i64)> = multi_ids;
        if ids.len() != ends.len() {
            bad.note(|| {
                format!(
                    "{} distinct edge ids for {} distinct (id, src, dst) triples",
                    ids.len(),
                    ends.len()
                )
            });
        }
    }
    bad.assert_none(name, &format!("the sample of {} nodes", sample.len()));
}

// ---------------------------------------------------------------------------------------
// Loading and the per-graph driver
// ---------------------------------------------------------------------------------------

fn load(g: &Graph, exp: &Expected, input: &[(i64, i64, Option<f64>)]) -> Duration {
    let started = Instant::now();
    if exp.options != EdgeTypeOptions::default() {
        g.define_edge_type(exp.ty, exp.options).unwrap();
    }
    for chunk in input.chunks(BATCH) {
        if exp.options.multi {
            let mut tx = g.write().unwrap();
            for &(u, v, w) in chunk {
                tx.add_edge(u, exp.ty, v, w, Props::new()).unwrap();
            }
            tx.commit().unwrap();
        } else {
            let batch: Vec<EdgeInput> = chunk
                .iter()
                .map(|&(u, v, w)| EdgeInput {
                    src: NodeKey::Int(u),
                    ty: exp.ty.to_string(),
                    dst: NodeKey::Int(v),
                    weight: w,
                    props: Props::new(),
                })
                .collect();
            g.upsert_edges(&batch, WriteMode::Merge).unwrap();
        }
    }
    started.elapsed()
}

fn secs(d: Duration) -> String {
    format!("{:.2}s", d.as_secs_f64())
}

/// Loads `input` into a fresh RocksDB store and verifies it against the reference, then
/// runs the consistency check, reopens the store and verifies again. `stored_edges` is the
/// edge count SOURCES.md implies for the type's semantics (a cross-check of the reference).
fn run(
    name: &str,
    ty: &'static str,
    options: EdgeTypeOptions,
    input: &[(i64, i64, Option<f64>)],
    stored_edges: u64,
    seed: u64,
) {
    let total = Instant::now();
    let exp = Expected::build(ty, options, input);
    assert_eq!(exp.edges, stored_edges, "{name}: the reference's edge count");
    let sample = exp.sample(seed);
    let reference_time = total.elapsed();

    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path()).unwrap();
    let load_time = load(&g, &exp, input);
    println!(
        "{name}: loaded {} input edges in {} ({:.0} edges/s): {} nodes, {} edges stored (batches of {BATCH}; reference built in {})",
        input.len(),
        secs(load_time),
        input.len() as f64 / load_time.as_secs_f64(),
        exp.nodes.len(),
        exp.edges,
        secs(reference_time),
    );

    let t = Instant::now();
    verify_counts(name, &g, &exp);
    verify_all_nodes(name, &g, &exp);
    let all_time = t.elapsed();
    let t = Instant::now();
    verify_sample(name, &g, &exp, &sample);
    // The same answers from a snapshot.
    verify_sample(name, &g.read(), &exp, &sample[..HUBS.min(sample.len())]);
    let sample_time = t.elapsed();

    let t = Instant::now();
    let report = g.check().unwrap();
    assert!(report.is_ok(), "{name}: check found problems: {:?}", report.problems);
    let check_time = t.elapsed();

    let t = Instant::now();
    drop(g);
    let g = Graph::open(dir.path()).unwrap();
    verify_counts(name, &g, &exp);
    verify_sample(name, &g, &exp, &sample);
    let reopen_time = t.elapsed();
    println!(
        "{name}: verified counts, node set and all {} nodes' degrees in {}; {} sampled nodes' neighbours and edges in {}; check() in {}; reopen + re-verify in {}; total {}",
        exp.nodes.len(),
        secs(all_time),
        sample.len(),
        secs(sample_time),
        secs(check_time),
        secs(reopen_time),
        secs(total.elapsed()),
    );
}

fn unweighted(pairs: &[(i64, i64)]) -> Vec<(i64, i64, Option<f64>)> {
    pairs.iter().map(|&(u, v)| (u, v, None)).collect()
}

// ---------------------------------------------------------------------------------------
// The graphs
// ---------------------------------------------------------------------------------------

/// web-NotreDame: 1.5M directed edges, very skewed (in-degree up to 10,721), 27,455
/// self-loops. Its first line is a `nodes edges` count header; lines end in CRLF.
#[test]
fn web_notredame_directed() {
    let Some(path) = dataset("snap-web-NotreDame", "snap-web-NotreDame/web-NotreDame.txt.gz") else {
        return;
    };
    let _serial = serial();
    let (header, pairs) = read_pairs(&path, true);
    let (lines, nodes, loops) = line_stats(pairs.iter().copied());
    assert_eq!(
        header,
        Some((nodes as i64, lines as i64)),
        "the count header matches the lines"
    );
    assert_eq!(
        (lines, nodes, loops),
        (1_497_134, 325_729, 27_455),
        "parsed as SOURCES.md describes"
    );
    // No line is repeated, so every line is one stored edge.
    run(
        "web-NotreDame",
        "LINK",
        EdgeTypeOptions::default(),
        &unweighted(&pairs),
        1_497_134,
        1,
    );
}

/// soc-Slashdot0902: 0.95M directed edges with 78,303 self-loops, `#` comment lines.
#[test]
fn soc_slashdot_directed() {
    let Some(path) = dataset("snap-soc-Slashdot0902", "snap-soc-Slashdot0902/soc-Slashdot0902.txt.gz") else {
        return;
    };
    let _serial = serial();
    let (_, pairs) = read_pairs(&path, false);
    assert_eq!(
        line_stats(pairs.iter().copied()),
        (948_464, 82_168, 78_303),
        "parsed as SOURCES.md describes"
    );
    // No line is repeated, so every line is one stored edge.
    run(
        "soc-Slashdot0902",
        "LINK",
        EdgeTypeOptions::default(),
        &unweighted(&pairs),
        948_464,
        2,
    );
}

/// USA-road-d.NY: 733,846 weighted arcs including 3,746 parallel ones, into a multi-edge
/// type so every arc is kept with its own weight.
#[test]
fn road_ny_weighted_multi_edges() {
    let Some(path) = dataset("dimacs9-road-NY", "dimacs9-road-NY/USA-road-d.NY.gr.gz") else {
        return;
    };
    let _serial = serial();
    let ((n, m), arcs) = read_dimacs_arcs(&path);
    let (lines, nodes, _) = line_stats(arcs.iter().map(|a| (a.0, a.1)));
    assert_eq!(
        (lines as i64, nodes as i64),
        (m, n),
        "the `p sp` header matches the arcs"
    );
    let distinct: HashSet<(i64, i64)> = arcs.iter().map(|a| (a.0, a.1)).collect();
    assert_eq!(lines - distinct.len(), 3_746, "parallel arcs, as SOURCES.md says");
    let input: Vec<_> = arcs.iter().map(|&(u, v, w)| (u, v, Some(w as f64))).collect();
    let options = EdgeTypeOptions {
        undirected: false,
        multi: true,
    };
    // Every arc line is an edge, parallel ones included.
    run("dimacs9-road-NY", "ROAD", options, &input, lines as u64, 3);
}

/// ca-HepPh: each undirected co-authorship is listed in both directions (a self-loop
/// once); an undirected type must store one edge per unordered pair.
#[test]
fn ca_hepph_undirected() {
    let Some(path) = dataset("snap-ca-HepPh", "snap-ca-HepPh/CA-HepPh.txt.gz") else {
        return;
    };
    let _serial = serial();
    let (_, pairs) = read_pairs(&path, false);
    assert_eq!(
        line_stats(pairs.iter().copied()),
        (237_010, 12_008, 32),
        "parsed as SOURCES.md describes"
    );
    let options = EdgeTypeOptions {
        undirected: true,
        multi: false,
    };
    // One edge per distinct unordered pair (SOURCES.md: 118,521), not one per line.
    run("ca-HepPh", "COAUTHOR", options, &unweighted(&pairs), 118_521, 4);
}

/// facebook100 MIT8: a dense undirected graph (average degree about 78), each edge listed
/// once, in an undirected type.
#[test]
fn facebook100_mit8_undirected() {
    let Some(path) = dataset("facebook100-MIT8", "facebook100-MIT8/MIT8.edgelist.gz") else {
        return;
    };
    let _serial = serial();
    let (_, pairs) = read_pairs(&path, false);
    assert_eq!(
        line_stats(pairs.iter().copied()),
        (251_252, 6_440, 0),
        "parsed as SOURCES.md describes"
    );
    let options = EdgeTypeOptions {
        undirected: true,
        multi: false,
    };
    run("facebook100-MIT8", "FRIEND", options, &unweighted(&pairs), 251_252, 5);
}
