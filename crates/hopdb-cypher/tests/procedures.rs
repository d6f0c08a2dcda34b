//! The `hopdb.algo.*` procedures through the text API, each cross-checked against an
//! independent computation written here (union-find, brute force, power iteration, BFS,
//! Dijkstra, Brandes), on small and medium graphs built with the native API, and on a real
//! dataset when `/work/shared/datasets` (or `$HOPDB_DATASETS`) is present.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_cypher::{params, ErrorClass, QueryEngine, Value};
use hopdb_database::{Database, EdgeInput, NodeKey, WriteMode};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

// ---------------------------------------------------------------- helpers

/// A deterministic pseudo-random generator (xorshift64*), so the graphs need no extra crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `m` random directed edges among nodes `0..n` (self-loops and repeats included).
fn random_edges(n: i64, m: usize, seed: u64) -> Vec<(i64, i64)> {
    let mut r = Rng(seed | 1);
    (0..m)
        .map(|_| (r.below(n as u64) as i64, r.below(n as u64) as i64))
        .collect()
}

/// An engine over a store holding nodes `0..n` and `edges` of type `ty` (directed, simple).
fn engine(n: i64, edges: &[(i64, i64)], ty: &str) -> QueryEngine {
    let db = Database::in_memory();
    add(&db, n, edges, ty);
    QueryEngine::new(db)
}

fn add(db: &Database, n: i64, edges: &[(i64, i64)], ty: &str) {
    let g = db.graph();
    for i in 0..n {
        g.upsert_node(i, &["N"], Default::default(), WriteMode::Merge).unwrap();
    }
    let input: Vec<EdgeInput> = edges.iter().map(|&(a, b)| EdgeInput::new(a, ty, b)).collect();
    for chunk in input.chunks(10_000) {
        g.upsert_edges(chunk, WriteMode::Merge).unwrap();
    }
}

fn rows(e: &QueryEngine, q: &str) -> Vec<Vec<Value>> {
    e.query(q, &params! {})
        .unwrap_or_else(|err| panic!("{q}: {err}"))
        .collect_rows()
        .unwrap()
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        other => panic!("expected an integer, got {other:?}"),
    }
}

fn float(v: &Value) -> f64 {
    match v {
        Value::Float(f) => *f,
        other => panic!("expected a float, got {other:?}"),
    }
}

/// `RETURN node._key, x` rows as a map key -> value.
fn by_key(rs: &[Vec<Value>]) -> BTreeMap<i64, Value> {
    let mut m = BTreeMap::new();
    for r in rs {
        assert!(
            m.insert(int(&r[0]), r[1].clone()).is_none(),
            "a node appears twice: {r:?}"
        );
    }
    m
}

fn err(e: &QueryEngine, q: &str) -> hopdb_cypher::CypherError {
    match e.query(q, &params! {}).and_then(|r| r.collect_rows()) {
        Ok(r) => panic!("{q} should fail, gave {r:?}"),
        Err(e) => e,
    }
}

/// Simple adjacency (no self-loops, no repeats) of the directed graph.
fn out_adj(n: i64, edges: &[(i64, i64)]) -> Vec<BTreeSet<i64>> {
    let mut a = vec![BTreeSet::new(); n as usize];
    for &(u, v) in edges {
        if u != v {
            a[u as usize].insert(v);
        }
    }
    a
}

fn undirected_adj(n: i64, edges: &[(i64, i64)]) -> Vec<BTreeSet<i64>> {
    let mut a = vec![BTreeSet::new(); n as usize];
    for &(u, v) in edges {
        if u != v {
            a[u as usize].insert(v);
            a[v as usize].insert(u);
        }
    }
    a
}

/// Adjacency along a direction: "OUT", "IN" or "BOTH".
fn adj_dir(n: i64, edges: &[(i64, i64)], dir: &str) -> Vec<BTreeSet<i64>> {
    match dir {
        "OUT" => out_adj(n, edges),
        "IN" => out_adj(n, &edges.iter().map(|&(a, b)| (b, a)).collect::<Vec<_>>()),
        _ => undirected_adj(n, edges),
    }
}

/// Hop distances from `s` (`None`: unreachable).
fn bfs(adj: &[BTreeSet<i64>], s: i64) -> Vec<Option<u32>> {
    let mut d = vec![None; adj.len()];
    d[s as usize] = Some(0);
    let mut q = VecDeque::from([s]);
    while let Some(u) = q.pop_front() {
        let du = d[u as usize].unwrap();
        for &v in &adj[u as usize] {
            if d[v as usize].is_none() {
                d[v as usize] = Some(du + 1);
                q.push_back(v);
            }
        }
    }
    d
}

struct UnionFind(Vec<usize>);

impl UnionFind {
    fn new(n: usize) -> Self {
        UnionFind((0..n).collect())
    }
    fn find(&mut self, x: usize) -> usize {
        let mut r = x;
        while self.0[r] != r {
            r = self.0[r];
        }
        let mut x = x;
        while self.0[x] != r {
            let next = self.0[x];
            self.0[x] = r;
            x = next;
        }
        r
    }
    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.0[ra] = rb;
        }
    }
}

/// Asserts that two labellings of nodes `0..n` are the same partition.
fn same_partition(n: usize, got: &BTreeMap<i64, i64>, mut want: impl FnMut(usize) -> usize) {
    assert_eq!(got.len(), n, "one row per node");
    let mut g2w: HashMap<i64, usize> = HashMap::new();
    let mut w2g: HashMap<usize, i64> = HashMap::new();
    for u in 0..n {
        let (g, w) = (got[&(u as i64)], want(u));
        assert_eq!(
            *g2w.entry(g).or_insert(w),
            w,
            "node {u}: component {g} splits a reference class"
        );
        assert_eq!(*w2g.entry(w).or_insert(g), g, "node {u}: reference class {w} is split");
    }
}

/// `src dst` lines of a (possibly gzipped) edge list.
fn read_edge_list(path: &std::path::Path) -> Vec<(i64, i64)> {
    use std::io::Read;
    let mut r = hopdb_database::import::input::open(path, Default::default()).unwrap();
    let mut text = String::new();
    r.read_to_string(&mut text).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#') && !l.starts_with('%'))
        .map(|l| {
            let mut it = l.split_whitespace().map(|x| x.parse::<i64>().unwrap());
            (it.next().unwrap(), it.next().unwrap())
        })
        .collect()
}

// ---------------------------------------------------------------- parsing and the catalog

#[test]
fn the_parser_accepts_call() {
    hopdb_cypher::parser::parse("CALL db.labels() YIELD label RETURN label").unwrap();
    hopdb_cypher::parser::parse("CALL hopdb.algo.pageRank({damping: 0.85, iterations: 20}) YIELD node, score").unwrap();
}

#[test]
fn list_names_every_procedure_with_its_signature() {
    let e = engine(0, &[], "T");
    let rs = rows(
        &e,
        "CALL hopdb.algo.list() YIELD name, signature RETURN name, signature",
    );
    let names: BTreeSet<String> = rs
        .iter()
        .map(|r| match &r[0] {
            Value::String(s) => s.clone(),
            v => panic!("{v:?}"),
        })
        .collect();
    for n in [
        "hopdb.algo.pageRank",
        "hopdb.algo.wcc",
        "hopdb.algo.scc",
        "hopdb.algo.louvain",
        "hopdb.algo.leiden",
        "hopdb.algo.hierarchicalLeiden",
        "hopdb.algo.triangles",
        "hopdb.algo.betweenness",
        "hopdb.algo.kHop",
        "hopdb.algo.sampleNeighbors",
        "hopdb.algo.shortestPath",
        "hopdb.algo.allShortestPaths",
        "hopdb.algo.bfs",
        "hopdb.algo.dijkstra",
    ] {
        assert!(names.contains(n), "{n} missing from {names:?}");
    }
    assert!(rs
        .iter()
        .any(|r| r[1] == Value::from("hopdb.algo.kHop(start, k, config = {direction, types, limit, mode}) :: (node)")));
}

#[test]
fn names_are_case_insensitive_and_a_standalone_call_gives_every_field() {
    let e = engine(3, &[(0, 1)], "T");
    // A standalone CALL returns every field. (`YIELD * RETURN *` is refused by the planner's
    // scope check, which does not know a procedure's fields.)
    let r = e.query("CALL HOPDB.ALGO.WCC()", &params! {}).unwrap();
    let cols = r.columns().to_vec();
    assert!(
        cols.contains(&"node".to_string()) && cols.contains(&"componentId".to_string()),
        "{cols:?}"
    );
    assert_eq!(r.collect_rows().unwrap().len(), 3);
}

#[test]
fn an_empty_graph_gives_no_rows() {
    let e = engine(0, &[], "T");
    for q in [
        "CALL hopdb.algo.pageRank() YIELD node RETURN node",
        "CALL hopdb.algo.wcc() YIELD node RETURN node",
        "CALL hopdb.algo.triangles() YIELD node RETURN node",
        "CALL hopdb.algo.louvain() YIELD node RETURN node",
    ] {
        assert!(rows(&e, q).is_empty(), "{q}");
    }
}

// ---------------------------------------------------------------- components

#[test]
fn wcc_matches_a_union_find() {
    for (n, m, seed) in [(12, 8, 1), (300, 220, 2), (2000, 1500, 3)] {
        let edges = random_edges(n, m, seed);
        let e = engine(n, &edges, "T");
        let got: BTreeMap<i64, i64> = by_key(&rows(
            &e,
            "CALL hopdb.algo.wcc() YIELD node, componentId RETURN node._key, componentId",
        ))
        .into_iter()
        .map(|(k, v)| (k, int(&v)))
        .collect();
        let mut uf = UnionFind::new(n as usize);
        for &(a, b) in &edges {
            uf.union(a as usize, b as usize);
        }
        same_partition(n as usize, &got, |u| uf.find(u));
        // The component count, through Cypher's aggregation.
        let count = rows(
            &e,
            "CALL hopdb.algo.wcc() YIELD componentId RETURN count(DISTINCT componentId)",
        );
        let roots: BTreeSet<usize> = (0..n as usize).map(|u| uf.find(u)).collect();
        assert_eq!(int(&count[0][0]), roots.len() as i64);
    }
}

#[test]
fn scc_matches_mutual_reachability() {
    for (n, m, seed) in [(10, 14, 4), (120, 180, 5)] {
        let edges = random_edges(n, m, seed);
        let e = engine(n, &edges, "T");
        let got: BTreeMap<i64, i64> = by_key(&rows(
            &e,
            "CALL hopdb.algo.scc() YIELD node, componentId RETURN node._key, componentId",
        ))
        .into_iter()
        .map(|(k, v)| (k, int(&v)))
        .collect();
        let adj = out_adj(n, &edges);
        let reach: Vec<Vec<Option<u32>>> = (0..n).map(|s| bfs(&adj, s)).collect();
        // Reference class: the smallest node mutually reachable with u.
        let class = |u: usize| {
            (0..n as usize)
                .find(|&v| reach[u][v].is_some() && reach[v][u].is_some())
                .unwrap()
        };
        same_partition(n as usize, &got, class);
    }
}

// ---------------------------------------------------------------- triangles

fn brute_force_triangles(n: i64, edges: &[(i64, i64)]) -> Vec<i64> {
    let adj = undirected_adj(n, edges);
    let mut t = vec![0i64; n as usize];
    for u in 0..n {
        for &v in adj[u as usize].range(u + 1..) {
            for &w in adj[v as usize].range(v + 1..) {
                if adj[u as usize].contains(&w) {
                    for x in [u, v, w] {
                        t[x as usize] += 1;
                    }
                }
            }
        }
    }
    t
}

#[test]
fn triangles_match_brute_force() {
    // Dense enough for many triangles; self-loops and both-way pairs included (they add none).
    for (n, m, seed) in [(6, 12, 6), (80, 600, 7), (400, 3000, 8)] {
        let mut edges = random_edges(n, m, seed);
        edges.push((1, 1));
        edges.push((2, 3));
        edges.push((3, 2));
        let e = engine(n, &edges, "T");
        let got = by_key(&rows(
            &e,
            "CALL hopdb.algo.triangles() YIELD node, triangles RETURN node._key, triangles",
        ));
        let want = brute_force_triangles(n, &edges);
        for u in 0..n {
            assert_eq!(int(&got[&u]), want[u as usize], "node {u} (n={n})");
        }
        let total = rows(
            &e,
            "CALL hopdb.algo.triangles() YIELD triangles RETURN sum(triangles) / 3",
        );
        assert_eq!(int(&total[0][0]), want.iter().sum::<i64>() / 3);
    }
}

// ---------------------------------------------------------------- PageRank

/// PageRank by plain power iteration (NetworkX's conventions: dangling rank and the jump go
/// to `restart`), iterated far past convergence.
fn power_iteration(n: i64, edges: &[(i64, i64)], damping: f64, restart: &[f64]) -> Vec<f64> {
    // A simple directed type keeps one edge per ordered pair; self-loops are edges.
    let out: Vec<BTreeSet<i64>> = {
        let mut a = vec![BTreeSet::new(); n as usize];
        for &(u, v) in edges {
            a[u as usize].insert(v);
        }
        a
    };
    let nu = n as usize;
    let mut x = restart.to_vec();
    for _ in 0..10_000 {
        let dangling: f64 = (0..nu).filter(|&u| out[u].is_empty()).map(|u| x[u]).sum();
        let mut y: Vec<f64> = restart
            .iter()
            .map(|r| (1.0 - damping) * r + damping * dangling * r)
            .collect();
        for u in 0..nu {
            let share = x[u] / out[u].len().max(1) as f64;
            for &v in &out[u] {
                y[v as usize] += damping * share;
            }
        }
        let delta: f64 = x.iter().zip(&y).map(|(a, b)| (a - b).abs()).sum();
        x = y;
        if delta < 1e-15 {
            break;
        }
    }
    x
}

fn check_ranking(got: &BTreeMap<i64, Value>, want: &[f64]) {
    let sum: f64 = got.values().map(float).sum();
    assert!((sum - 1.0).abs() < 1e-6, "scores sum to {sum}");
    for (u, w) in want.iter().enumerate() {
        let g = float(&got[&(u as i64)]);
        assert!((g - w).abs() < 1e-7, "node {u}: {g} vs {w}");
    }
    // Same order wherever the reference scores are clearly apart.
    let mut order: Vec<usize> = (0..want.len()).collect();
    order.sort_by(|&a, &b| want[b].total_cmp(&want[a]));
    for w in order.windows(2) {
        if want[w[0]] - want[w[1]] > 1e-6 {
            assert!(float(&got[&(w[0] as i64)]) > float(&got[&(w[1] as i64)]));
        }
    }
}

#[test]
fn pagerank_matches_a_power_iteration() {
    for (n, m, seed, damping) in [(5, 6, 9, 0.85), (200, 800, 10, 0.85), (150, 300, 11, 0.5)] {
        let edges = random_edges(n, m, seed);
        let e = engine(n, &edges, "LINK");
        let q = format!(
            "CALL hopdb.algo.pageRank({{damping: {damping}, maxIterations: 1000, tolerance: 1e-13}}) \
             YIELD node, score RETURN node._key, score"
        );
        let got = by_key(&rows(&e, &q));
        assert_eq!(got.len(), n as usize);
        let want = power_iteration(n, &edges, damping, &vec![1.0 / n as f64; n as usize]);
        check_ranking(&got, &want);
    }
}

#[test]
fn personalised_pagerank_matches_a_power_iteration() {
    let (n, edges) = (100, random_edges(100, 400, 12));
    let e = engine(n, &edges, "LINK");
    let mut restart = vec![0.0; n as usize];
    restart[3] = 0.5;
    restart[17] = 0.5;
    let want = power_iteration(n, &edges, 0.85, &restart);
    // Seeds as keys and as nodes; `sourceNodes` is the GDS spelling.
    for q in [
        "CALL hopdb.algo.pageRank({seeds: [3, 17], tolerance: 1e-13, maxIterations: 1000}) YIELD node, score \
         RETURN node._key, score",
        "MATCH (a {_key: 3}), (b {_key: 17}) \
         CALL hopdb.algo.pageRank({sourceNodes: [a, b], tolerance: 1e-13, max_iterations: 1000}) YIELD node, score \
         RETURN node._key, score",
    ] {
        check_ranking(&by_key(&rows(&e, q)), &want);
    }
}

#[test]
fn pagerank_iterations_bound_the_run_and_compose_with_cypher() {
    let (n, edges) = (50, random_edges(50, 200, 13));
    let e = engine(n, &edges, "LINK");
    // The brief's spelling: `iterations` is `maxIterations`.
    let one = by_key(&rows(
        &e,
        "CALL hopdb.algo.pageRank({damping: 0.85, iterations: 1}) YIELD node, score RETURN node._key, score",
    ));
    let full = power_iteration(n, &edges, 0.85, &vec![1.0 / n as f64; n as usize]);
    let max_diff = (0..n)
        .map(|u| (float(&one[&u]) - full[u as usize]).abs())
        .fold(0.0, f64::max);
    assert!(max_diff > 1e-6, "one iteration should not have converged");
    let top = rows(
        &e,
        "CALL hopdb.algo.pageRank() YIELD node, score WHERE score > 0 \
         RETURN node._key AS k ORDER BY score DESC, k LIMIT 3",
    );
    let mut order: Vec<usize> = (0..n as usize).collect();
    order.sort_by(|&a, &b| full[b].total_cmp(&full[a]));
    assert_eq!(int(&top[0][0]), order[0] as i64);
}

// ---------------------------------------------------------------- traversals

#[test]
fn k_hop_matches_bfs() {
    let (n, edges) = (300, random_edges(300, 500, 14));
    let e = engine(n, &edges, "T");
    for dir in ["OUT", "IN", "BOTH"] {
        let adj = adj_dir(n, &edges, dir);
        for s in [0, 7, 150] {
            let d = bfs(&adj, s);
            for k in 1..=3u32 {
                let within: BTreeSet<i64> = (0..n)
                    .filter(|&v| v != s && d[v as usize].is_some_and(|x| x <= k))
                    .collect();
                let exactly: BTreeSet<i64> = (0..n).filter(|&v| d[v as usize] == Some(k)).collect();
                let q = format!("CALL hopdb.algo.kHop({s}, {k}, {{direction: '{dir}'}}) YIELD node RETURN node._key");
                let got: Vec<i64> = rows(&e, &q).iter().map(|r| int(&r[0])).collect();
                assert_eq!(got.iter().copied().collect::<BTreeSet<_>>(), within, "{q}");
                assert_eq!(got.len(), within.len(), "distinct: {q}");
                // BFS order: distances never decrease.
                assert!(got.windows(2).all(|w| d[w[0] as usize] <= d[w[1] as usize]), "{q}");
                let q = format!(
                    "MATCH (s {{_key: {s}}}) CALL hopdb.algo.kHop(s, {k}, {{direction: '{dir}', mode: 'exactly'}}) \
                     YIELD node RETURN node._key"
                );
                let got: BTreeSet<i64> = rows(&e, &q).iter().map(|r| int(&r[0])).collect();
                assert_eq!(got, exactly, "{q}");
                let q = format!(
                    "CALL hopdb.algo.kHop({s}, {k}, {{direction: '{dir}', limit: 5}}) YIELD node RETURN node._key"
                );
                let got: Vec<i64> = rows(&e, &q).iter().map(|r| int(&r[0])).collect();
                assert_eq!(got.len(), within.len().min(5), "{q}");
                assert!(got.iter().all(|v| within.contains(v)), "{q}");
            }
        }
    }
}

#[test]
fn k_hop_follows_only_the_given_types() {
    let db = Database::in_memory();
    let (n, a, b) = (100, random_edges(100, 120, 15), random_edges(100, 120, 16));
    add(&db, n, &a, "A");
    add(&db, n, &b, "B");
    let e = QueryEngine::new(db);
    let adj = undirected_adj(n, &a);
    let d = bfs(&adj, 0);
    let want: BTreeSet<i64> = (1..n).filter(|&v| d[v as usize].is_some_and(|x| x <= 2)).collect();
    for types in ["['A']", "'A'"] {
        let q = format!("CALL hopdb.algo.kHop(0, 2, {{types: {types}}}) YIELD node RETURN node._key");
        let got: BTreeSet<i64> = rows(&e, &q).iter().map(|r| int(&r[0])).collect();
        assert_eq!(got, want, "{q}");
    }
    let both: Vec<(i64, i64)> = a.iter().chain(&b).copied().collect();
    let d = bfs(&undirected_adj(n, &both), 0);
    let want: BTreeSet<i64> = (1..n).filter(|&v| d[v as usize].is_some_and(|x| x <= 2)).collect();
    let got: BTreeSet<i64> = rows(
        &e,
        "CALL hopdb.algo.kHop(0, 2, {types: ['A', 'B']}) YIELD node RETURN node._key",
    )
    .iter()
    .map(|r| int(&r[0]))
    .collect();
    assert_eq!(got, want);
}

#[test]
fn bfs_distances_match() {
    let (n, edges) = (250, random_edges(250, 400, 17));
    let e = engine(n, &edges, "T");
    for dir in ["OUT", "IN", "BOTH"] {
        let want = bfs(&adj_dir(n, &edges, dir), 5);
        let q =
            format!("CALL hopdb.algo.bfs(5, {{direction: '{dir}'}}) YIELD node, distance RETURN node._key, distance");
        let rs = rows(&e, &q);
        let got = by_key(&rs);
        let reached: BTreeMap<i64, i64> = (0..n)
            .filter_map(|v| want[v as usize].map(|x| (v, i64::from(x))))
            .collect();
        assert_eq!(
            got.into_iter().map(|(k, v)| (k, int(&v))).collect::<BTreeMap<_, _>>(),
            reached,
            "{q}"
        );
        assert!(
            rs.windows(2).all(|w| int(&w[0][1]) <= int(&w[1][1])),
            "sorted by distance"
        );
        let q = format!(
            "CALL hopdb.algo.bfs(5, {{direction: '{dir}', maxDepth: 2}}) YIELD node, distance RETURN node._key, distance"
        );
        let got = by_key(&rows(&e, &q));
        assert_eq!(got.len(), reached.values().filter(|&&x| x <= 2).count(), "{q}");
    }
}

#[test]
fn shortest_paths_are_valid_and_as_short_as_bfs_says() {
    let (n, edges) = (200, random_edges(200, 260, 18));
    let e = engine(n, &edges, "T");
    for dir in ["OUT", "BOTH"] {
        let adj = adj_dir(n, &edges, dir);
        for (s, t) in [(0, 1), (3, 150), (10, 10), (42, 199), (7, 77)] {
            let d = bfs(&adj, s)[t as usize];
            let q = format!(
                "CALL hopdb.algo.shortestPath({s}, {t}, {{direction: '{dir}'}}) YIELD path, nodes, length \
                 RETURN [x IN nodes | x._key], length, length(path), [r IN relationships(path) | type(r)]"
            );
            let rs = rows(&e, &q);
            match d {
                None => assert!(rs.is_empty(), "{q}: unreachable, got {rs:?}"),
                Some(d) => {
                    assert_eq!(rs.len(), 1, "{q}");
                    assert_eq!(int(&rs[0][1]), i64::from(d), "{q}");
                    assert_eq!(int(&rs[0][2]), i64::from(d), "{q}");
                    let Value::List(keys) = &rs[0][0] else { panic!() };
                    let keys: Vec<i64> = keys.iter().map(int).collect();
                    assert_eq!((keys[0], *keys.last().unwrap()), (s, t));
                    assert!(
                        keys.windows(2).all(|w| adj[w[0] as usize].contains(&w[1])),
                        "{q}: {keys:?}"
                    );
                    assert_eq!(rs[0][3], Value::List(vec![Value::from("T"); d as usize]));
                }
            }
        }
    }
    // A path value's relationships join its nodes.
    let rs = rows(
        &e,
        "CALL hopdb.algo.shortestPath(3, 150) YIELD path \
         UNWIND range(0, length(path) - 1) AS i \
         WITH nodes(path)[i] AS a, nodes(path)[i + 1] AS b, relationships(path)[i] AS r \
         RETURN (startNode(r) = a AND endNode(r) = b) OR (startNode(r) = b AND endNode(r) = a)",
    );
    assert!(rs.iter().all(|r| r[0] == Value::Bool(true)), "{rs:?}");
    // maxHops below the distance: no path.
    let d = bfs(&undirected_adj(n, &edges), 3)[150].unwrap();
    if d > 1 {
        let q = format!(
            "CALL hopdb.algo.shortestPath(3, 150, {{maxHops: {}}}) YIELD path RETURN path",
            d - 1
        );
        assert!(rows(&e, &q).is_empty());
    }
}

/// Dijkstra distances from `s` over `(a, b, w)` edges (both ways when `undirected`).
fn dijkstra_ref(n: usize, edges: &[(i64, i64, f64)], s: i64, undirected: bool) -> Vec<f64> {
    let mut adj: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    for &(a, b, w) in edges {
        adj[a as usize].push((b as usize, w));
        if undirected {
            adj[b as usize].push((a as usize, w));
        }
    }
    let mut d = vec![f64::INFINITY; n];
    let mut done = vec![false; n];
    d[s as usize] = 0.0;
    for _ in 0..n {
        let Some(u) = (0..n)
            .filter(|&u| !done[u] && d[u].is_finite())
            .min_by(|&a, &b| d[a].total_cmp(&d[b]))
        else {
            break;
        };
        done[u] = true;
        for &(v, w) in &adj[u] {
            if d[u] + w < d[v] {
                d[v] = d[u] + w;
            }
        }
    }
    d
}

#[test]
fn weighted_paths_and_distances_match_dijkstra() {
    let n = 120;
    let mut r = Rng(19);
    // One weighted edge per ordered pair (the type is simple: a repeat would overwrite).
    let mut seen = BTreeSet::new();
    let mut edges = Vec::new();
    while edges.len() < 400 {
        let (a, b) = (r.below(n as u64) as i64, r.below(n as u64) as i64);
        if a != b && seen.insert((a, b)) {
            edges.push((a, b, 1.0 + r.below(20) as f64));
        }
    }
    let db = Database::in_memory();
    for i in 0..n {
        db.graph()
            .upsert_node(i, &[], Default::default(), WriteMode::Merge)
            .unwrap();
    }
    for &(a, b, w) in &edges {
        db.graph()
            .upsert_edge(a, "ROAD", b, Some(w), Default::default(), WriteMode::Merge)
            .unwrap();
    }
    let e = QueryEngine::new(db);
    for (dir, undirected) in [("OUT", false), ("BOTH", true)] {
        let want = dijkstra_ref(n as usize, &edges, 0, undirected);
        let q = format!(
            "CALL hopdb.algo.dijkstra(0, {{direction: '{dir}'}}) YIELD node, distance RETURN node._key, distance"
        );
        let got = by_key(&rows(&e, &q));
        assert_eq!(got.len(), want.iter().filter(|x| x.is_finite()).count(), "{q}");
        for (k, v) in &got {
            assert!((float(v) - want[*k as usize]).abs() < 1e-9, "{q}: node {k}");
        }
        for t in [5, 60, 119] {
            let q = format!(
                "CALL hopdb.algo.shortestPath(0, {t}, {{direction: '{dir}', weighted: true}}) YIELD path, cost \
                 RETURN cost, length(path)"
            );
            let rs = rows(&e, &q);
            if want[t].is_infinite() {
                assert!(rs.is_empty(), "{q}");
                continue;
            }
            assert_eq!(rs.len(), 1, "{q}");
            assert!((float(&rs[0][0]) - want[t]).abs() < 1e-9, "{q}: {rs:?}");
        }
    }
    let err = err(
        &e,
        "CALL hopdb.algo.shortestPath(0, 5, {weighted: true, maxHops: 3}) YIELD path RETURN path",
    );
    assert_eq!(err.class, ErrorClass::ArgumentError);
    assert!(err.message.contains("maxHops"), "{}", err.message);
}

/// Number of fewest-hop paths from `s` to every node (BFS path counting).
fn path_counts(adj: &[BTreeSet<i64>], s: i64) -> Vec<u64> {
    let d = bfs(adj, s);
    let mut order: Vec<usize> = (0..adj.len()).filter(|&v| d[v].is_some()).collect();
    order.sort_by_key(|&v| d[v]);
    let mut sigma = vec![0u64; adj.len()];
    sigma[s as usize] = 1;
    for u in order {
        for &v in &adj[u] {
            if d[v as usize] == d[u].map(|x| x + 1) {
                sigma[v as usize] += sigma[u];
            }
        }
    }
    sigma
}

#[test]
fn all_shortest_paths_are_all_there() {
    let (n, edges) = (60, random_edges(60, 150, 20));
    let e = engine(n, &edges, "T");
    let adj = undirected_adj(n, &edges);
    for (s, t) in [(0, 30), (1, 59), (5, 6)] {
        let want = path_counts(&adj, s)[t as usize];
        let q = format!(
            "CALL hopdb.algo.allShortestPaths({s}, {t}) YIELD nodes, length RETURN [x IN nodes | x._key], length"
        );
        let rs = rows(&e, &q);
        assert_eq!(rs.len() as u64, want, "{q}");
        let distinct: BTreeSet<String> = rs.iter().map(|r| format!("{:?}", r[0])).collect();
        assert_eq!(distinct.len(), rs.len());
        let q = format!("CALL hopdb.algo.allShortestPaths({s}, {t}, {{limit: 1}}) YIELD path RETURN path");
        assert_eq!(rows(&e, &q).len() as u64, want.min(1));
    }
}

#[test]
fn sampled_neighbours_are_real_edges_and_reproducible() {
    let (n, edges) = (200, random_edges(200, 1500, 21));
    let e = engine(n, &edges, "T");
    let adj = undirected_adj(n, &edges);
    let q = "CALL hopdb.algo.sampleNeighbors([0, 1, 2], [3, 2], {seed: 7}) YIELD hop, node, neighbor \
             RETURN hop, node._key, neighbor._key";
    let rs = rows(&e, q);
    assert!(!rs.is_empty());
    let mut hop1: BTreeMap<i64, usize> = BTreeMap::new();
    let mut frontier: BTreeSet<i64> = BTreeSet::new();
    for r in &rs {
        let (h, u, v) = (int(&r[0]), int(&r[1]), int(&r[2]));
        assert!(adj[u as usize].contains(&v) || u == v, "{u}-{v} is not an edge");
        match h {
            1 => {
                assert!([0, 1, 2].contains(&u));
                *hop1.entry(u).or_default() += 1;
                frontier.insert(v);
            }
            2 => assert!(frontier.contains(&u), "hop-2 rows start from hop-1 samples"),
            _ => panic!("hop {h}"),
        }
    }
    for (u, c) in hop1 {
        assert_eq!(
            c,
            adj[u as usize].len().min(3),
            "node {u}: fanout 3 without replacement"
        );
    }
    assert_eq!(rows(&e, q), rs, "same seed, same sample");
}

// ---------------------------------------------------------------- communities and centrality

/// `k` cliques of size `s`, joined in a ring by one edge each.
fn ring_of_cliques(k: i64, s: i64) -> Vec<(i64, i64)> {
    let mut edges = Vec::new();
    for c in 0..k {
        for i in 0..s {
            for j in i + 1..s {
                edges.push((c * s + i, c * s + j));
            }
        }
        edges.push((c * s, ((c + 1) % k) * s + 1));
    }
    edges
}

#[test]
fn louvain_and_leiden_find_the_cliques() {
    let (k, s) = (6, 5);
    let e = engine(k * s, &ring_of_cliques(k, s), "T");
    for q in [
        "CALL hopdb.algo.louvain() YIELD node, communityId RETURN node._key, communityId",
        "CALL hopdb.algo.louvain({weighted: false, resolution: 1.0, seed: 3}) YIELD node, communityId RETURN node._key, communityId",
        "CALL hopdb.algo.leiden() YIELD node, communityId RETURN node._key, communityId",
        "CALL hopdb.algo.leiden({quality: 'modularity', iterations: 2, randomness: 0.01}) YIELD node, communityId RETURN node._key, communityId",
        "CALL hopdb.algo.leiden({weighted: true}) YIELD node, communityId RETURN node._key, communityId",
    ] {
        let got: BTreeMap<i64, i64> = by_key(&rows(&e, q)).into_iter().map(|(k, v)| (k, int(&v))).collect();
        same_partition((k * s) as usize, &got, |u| u / s as usize);
    }
    // CPM with a resolution above every edge density splits everything into singletons.
    let q = "CALL hopdb.algo.leiden({quality: 'CPM', resolution: 2.0}) YIELD communityId RETURN count(DISTINCT communityId)";
    assert_eq!(int(&rows(&e, q)[0][0]), k * s);
}

#[test]
fn hierarchical_leiden_rows_form_a_hierarchy() {
    // A random graph's Leiden communities are larger than 10: they get split.
    let (n, mut edges) = (300, random_edges(300, 1200, 23));
    edges.retain(|&(a, b)| a != b);
    let e = engine(n + 1, &edges, "T"); // node 300 has no edge: no row (as graspologic)
    let q = "CALL hopdb.algo.hierarchicalLeiden({maxClusterSize: 10}) \
             YIELD node, cluster, level, parentCluster, isFinalCluster \
             RETURN node._key, cluster, level, parentCluster, isFinalCluster";
    let rs = rows(&e, q);
    let mut finals: BTreeMap<i64, usize> = BTreeMap::new();
    let mut cluster_level: BTreeMap<i64, i64> = BTreeMap::new();
    let mut members: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
    let mut level0: BTreeMap<i64, i64> = BTreeMap::new();
    for r in &rs {
        let (node, cluster, level) = (int(&r[0]), int(&r[1]), int(&r[2]));
        assert_eq!(
            *cluster_level.entry(cluster).or_insert(level),
            level,
            "a cluster has one level"
        );
        members.entry(cluster).or_default().insert(node);
        if level == 0 {
            assert_eq!(r[3], Value::Null);
            assert!(level0.insert(node, cluster).is_none());
        }
        if r[4] == Value::Bool(true) {
            *finals.entry(node).or_default() += 1;
        }
    }
    assert_eq!(level0.len(), n as usize, "every node with an edge has a level-0 row");
    assert_eq!(finals.len(), n as usize, "every node with an edge has a final cluster");
    assert!(finals.values().all(|&c| c == 1), "exactly one");
    assert!(cluster_level.values().any(|&l| l >= 1), "something was split");
    // A child cluster lies inside its parent, one level up.
    for r in rs.iter().filter(|r| int(&r[2]) > 0) {
        let (node, cluster, parent) = (int(&r[0]), int(&r[1]), int(&r[3]));
        assert_eq!(cluster_level[&parent] + 1, cluster_level[&cluster]);
        assert!(members[&parent].contains(&node));
    }
    // Level 0 is the Leiden run with the same (GraphRAG) settings.
    let flat: BTreeMap<i64, i64> = by_key(&rows(
        &e,
        "CALL hopdb.algo.leiden({randomness: 0.001, iterations: 1, seed: 3735928559}) \
         YIELD node, communityId WHERE node._key < 300 RETURN node._key, communityId",
    ))
    .into_iter()
    .map(|(k, v)| (k, int(&v)))
    .collect();
    let l0 = level0.clone();
    same_partition(n as usize, &flat, |u| l0[&(u as i64)] as usize);
    // With a large maxClusterSize nothing is split: one final level-0 row per node.
    let rs = rows(
        &e,
        "CALL hopdb.algo.hierarchicalLeiden({maxClusterSize: 100000}) YIELD node, level, isFinalCluster \
         RETURN node, level, isFinalCluster",
    );
    assert_eq!(rs.len(), n as usize);
    assert!(rs.iter().all(|r| r[1] == Value::Int(0) && r[2] == Value::Bool(true)));
}

/// Brandes' betweenness, normalised as NetworkX does (divided by (n-1)(n-2), every ordered
/// source counted; for an undirected graph that counts each pair from both ends).
fn brandes(adj: &[BTreeSet<i64>]) -> Vec<f64> {
    let n = adj.len();
    let mut bc = vec![0.0; n];
    for s in 0..n {
        let mut stack = Vec::new();
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut sigma = vec![0.0f64; n];
        let mut dist = vec![-1i64; n];
        sigma[s] = 1.0;
        dist[s] = 0;
        let mut q = VecDeque::from([s]);
        while let Some(v) = q.pop_front() {
            stack.push(v);
            for &w in &adj[v] {
                let w = w as usize;
                if dist[w] < 0 {
                    dist[w] = dist[v] + 1;
                    q.push_back(w);
                }
                if dist[w] == dist[v] + 1 {
                    sigma[w] += sigma[v];
                    preds[w].push(v);
                }
            }
        }
        let mut delta = vec![0.0; n];
        while let Some(w) = stack.pop() {
            for &v in &preds[w] {
                delta[v] += sigma[v] / sigma[w] * (1.0 + delta[w]);
            }
            if w != s {
                bc[w] += delta[w];
            }
        }
    }
    let scale = 1.0 / ((n - 1) * (n - 2)) as f64;
    bc.iter().map(|b| b * scale).collect()
}

#[test]
fn betweenness_matches_brandes() {
    let (n, edges) = (60, random_edges(60, 150, 22));
    let e = engine(n, &edges, "T");
    for (directed, adj) in [(true, out_adj(n, &edges)), (false, undirected_adj(n, &edges))] {
        let want = brandes(&adj);
        let q =
            format!("CALL hopdb.algo.betweenness({{directed: {directed}}}) YIELD node, score RETURN node._key, score");
        let got = by_key(&rows(&e, &q));
        for u in 0..n {
            let g = float(&got[&u]);
            assert!(
                (g - want[u as usize]).abs() < 1e-9,
                "{q}: node {u}: {g} vs {}",
                want[u as usize]
            );
        }
    }
    // Sampling every node as a source is exact up to the estimator's scaling; a smaller
    // sample gives a score per node, reproducibly.
    let q = "CALL hopdb.algo.betweenness({samples: 20, seed: 1}) YIELD node, score RETURN node._key, score";
    let a = rows(&e, q);
    assert_eq!(a.len(), n as usize);
    assert_eq!(rows(&e, q), a);
}

// ---------------------------------------------------------------- errors

#[test]
fn bad_arguments_name_the_procedure_and_the_argument() {
    let e = engine(5, &[(0, 1), (1, 2)], "T");
    let cases: &[(&str, ErrorClass, &[&str])] = &[
        (
            "CALL hopdb.algo.pageRank({dampingFactor: 0.5}) YIELD node RETURN node",
            ErrorClass::ProcedureError,
            &[
                "hopdb.algo.pageRank",
                "dampingFactor",
                "damping",
                "maxIterations",
                "tolerance",
            ],
        ),
        (
            "CALL hopdb.algo.pageRank({damping: 1.5}) YIELD node RETURN node",
            ErrorClass::ArgumentError,
            &["hopdb.algo.pageRank", "`damping`", "[0, 1)"],
        ),
        (
            "CALL hopdb.algo.kHop(0) YIELD node RETURN node",
            ErrorClass::ProcedureError,
            &["hopdb.algo.kHop", "start, k"],
        ),
        (
            "CALL hopdb.algo.kHop(0, 0) YIELD node RETURN node",
            ErrorClass::ArgumentError,
            &["hopdb.algo.kHop", "argument `k`", "from 1 to"],
        ),
        (
            "CALL hopdb.algo.kHop(0, 'two') YIELD node RETURN node",
            ErrorClass::ArgumentError,
            &["argument `k`", "'two'"],
        ),
        (
            "CALL hopdb.algo.kHop([0], 2) YIELD node RETURN node",
            ErrorClass::ArgumentError,
            &["argument `start`", "node"],
        ),
        (
            "CALL hopdb.algo.kHop(0, 2, {direction: 'sideways'}) YIELD node RETURN node",
            ErrorClass::ArgumentError,
            &["`direction`", "'OUTGOING'", "'sideways'"],
        ),
        (
            "CALL hopdb.algo.kHop(0, 2, 'BOTH') YIELD node RETURN node",
            ErrorClass::ArgumentError,
            &["config map", "STRING"],
        ),
        (
            "CALL hopdb.algo.wcc({concurrency: 4}) YIELD node RETURN node",
            ErrorClass::ProcedureError,
            &["hopdb.algo.wcc", "concurrency", "no config keys"],
        ),
        (
            "CALL hopdb.algo.louvain({weighted: 'yes'}) YIELD node RETURN node",
            ErrorClass::ArgumentError,
            &["`weighted`", "boolean"],
        ),
        (
            "CALL hopdb.algo.leiden({quality: 'surprise'}) YIELD node RETURN node",
            ErrorClass::ArgumentError,
            &["`quality`", "'modularity'", "'cpm'"],
        ),
        (
            "CALL hopdb.algo.sampleNeighbors(0, [-1]) YIELD node RETURN node",
            ErrorClass::ArgumentError,
            &["argument `fanouts`"],
        ),
    ];
    for (q, class, words) in cases {
        let e = err(&e, q);
        assert_eq!(e.class, *class, "{q}: {e}");
        for w in *words {
            assert!(e.message.contains(w), "{q}: `{w}` not in: {}", e.message);
        }
    }
    // A missing node is the analytics layer's NodeNotFound, named with the procedure.
    let e2 = err(&e, "CALL hopdb.algo.kHop('nobody', 2) YIELD node RETURN node");
    assert_eq!(e2.class, ErrorClass::EntityNotFound, "{e2}");
    assert!(
        e2.message.contains("hopdb.algo.kHop") && e2.message.contains("nobody"),
        "{e2}"
    );
    let e3 = err(&e, "CALL hopdb.algo.bfs(99) YIELD node RETURN node");
    assert_eq!(e3.class, ErrorClass::EntityNotFound, "{e3}");
    // An output field the procedure does not have.
    let e4 = err(&e, "CALL hopdb.algo.wcc() YIELD node, score RETURN node");
    assert!(e4.message.contains("score"), "{e4}");
}

#[test]
fn arguments_may_be_parameters_and_nodes() {
    let e = engine(6, &[(0, 1), (1, 2), (2, 3), (4, 5)], "T");
    let got: BTreeSet<i64> = e
        .query(
            "CALL hopdb.algo.kHop($start, $k, $config) YIELD node RETURN node._key",
            &params! {"start" => 1i64, "k" => 2i64, "config" => Value::Map([("direction".to_string(), Value::from("OUT"))].into_iter().collect())},
        )
        .unwrap()
        .collect_rows()
        .unwrap()
        .iter()
        .map(|r| int(&r[0]))
        .collect();
    assert_eq!(got, BTreeSet::from([2, 3]));
    // Per input row: every node's 1-hop neighbourhood size.
    let rs = rows(
        &e,
        "MATCH (n:N) CALL hopdb.algo.kHop(n, 1) YIELD node \
         RETURN n._key AS k, count(node) AS c ORDER BY k",
    );
    let counts: Vec<(i64, i64)> = rs.iter().map(|r| (int(&r[0]), int(&r[1]))).collect();
    assert_eq!(counts, vec![(0, 1), (1, 2), (2, 2), (3, 1), (4, 1), (5, 1)]);
    // String keys.
    let db = Database::in_memory();
    db.graph()
        .upsert_edge("ada", "KNOWS", "bob", None, Default::default(), WriteMode::Merge)
        .unwrap();
    let e = QueryEngine::new(db);
    let rs = rows(&e, "CALL hopdb.algo.kHop('ada', 1) YIELD node RETURN node._key");
    assert_eq!(rs, vec![vec![Value::from("bob")]]);
    let _ = NodeKey::from("ada");
}

#[test]
fn a_cancelled_or_timed_out_query_stops_the_algorithm() {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    let (n, edges) = (100, random_edges(100, 300, 24));
    let e = engine(n, &edges, "T");
    let flag = Arc::new(AtomicBool::new(true));
    for control in [
        hopdb_database::Control::default().with_cancel(flag),
        hopdb_database::Control::default().with_timeout(std::time::Duration::ZERO),
    ] {
        for q in [
            "CALL hopdb.algo.pageRank() YIELD node RETURN node",
            "CALL hopdb.algo.betweenness() YIELD node RETURN node",
            "CALL hopdb.algo.kHop(0, 3) YIELD node RETURN node",
        ] {
            let opts = hopdb_cypher::QueryOptions {
                control: control.clone(),
                ..Default::default()
            };
            let got = e.query_with(q, &params! {}, &opts).and_then(|r| r.collect_rows());
            let err = got.err().unwrap_or_else(|| panic!("{q} should stop"));
            assert_eq!(err.class, ErrorClass::Timeout, "{q}: {err}");
        }
    }
}

// ---------------------------------------------------------------- a real dataset

#[test]
fn real_dataset_wcc_and_triangles_match_the_references() {
    let Some(dir) = hopdb_testdata::datasets() else {
        println!("SKIPPED: no datasets folder (set HOPDB_DATASETS or provide /work/shared/datasets)");
        return;
    };
    let file = dir.join("snap-email-Eu-core/email-Eu-core.txt.gz");
    if !file.is_file() {
        println!("SKIPPED: {} is absent", file.display());
        return;
    }
    let edges = read_edge_list(&file);
    assert_eq!(edges.len(), 25_571, "SOURCES.md's line count");
    let n = edges.iter().map(|&(a, b)| a.max(b)).max().unwrap() + 1;
    let e = engine(n, &edges, "EMAIL");
    // Nodes 0..n were all created; those no edge names are singletons.
    let mut uf = UnionFind::new(n as usize);
    for &(a, b) in &edges {
        uf.union(a as usize, b as usize);
    }
    let got: BTreeMap<i64, i64> = by_key(&rows(
        &e,
        "CALL hopdb.algo.wcc() YIELD node, componentId RETURN node._key, componentId",
    ))
    .into_iter()
    .map(|(k, v)| (k, int(&v)))
    .collect();
    same_partition(n as usize, &got, |u| uf.find(u));
    let roots: BTreeSet<usize> = (0..n as usize).map(|u| uf.find(u)).collect();
    let count = rows(
        &e,
        "CALL hopdb.algo.wcc() YIELD componentId RETURN count(DISTINCT componentId)",
    );
    assert_eq!(int(&count[0][0]), roots.len() as i64);
    println!("email-Eu-core: {n} nodes, {} weakly connected components", roots.len());
    // Triangles (642 self-loops and 8,865 reciprocal pairs in the file add none).
    let want = brute_force_triangles(n, &edges);
    let got = by_key(&rows(
        &e,
        "CALL hopdb.algo.triangles() YIELD node, triangles RETURN node._key, triangles",
    ));
    for u in 0..n {
        assert_eq!(int(&got[&u]), want[u as usize], "node {u}");
    }
    // PageRank (self-loops are edges) against the power iteration.
    let got = by_key(&rows(
        &e,
        "CALL hopdb.algo.pageRank({tolerance: 1e-13, maxIterations: 1000}) YIELD node, score RETURN node._key, score",
    ));
    check_ranking(
        &got,
        &power_iteration(n, &edges, 0.85, &vec![1.0 / n as f64; n as usize]),
    );
    // SCC against mutual reachability from a sample of nodes.
    let scc: BTreeMap<i64, i64> = by_key(&rows(
        &e,
        "CALL hopdb.algo.scc() YIELD node, componentId RETURN node._key, componentId",
    ))
    .into_iter()
    .map(|(k, v)| (k, int(&v)))
    .collect();
    let adj = out_adj(n, &edges);
    let radj = adj_dir(n, &edges, "IN");
    for s in [0, 1, 100, 500, 1000] {
        let (f, b) = (bfs(&adj, s), bfs(&radj, s));
        for v in 0..n {
            let same = f[v as usize].is_some() && b[v as usize].is_some();
            assert_eq!(scc[&v] == scc[&s], same, "nodes {s} and {v}");
        }
    }
}
