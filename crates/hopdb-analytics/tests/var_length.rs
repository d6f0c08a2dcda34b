//! `var_length_endpoints` (openCypher `(s)-[*min..max]-(n)` with DISTINCT n) against a brute
//! force enumeration of trails, on random small graphs with self-loops, reciprocal pairs and
//! parallel edges of a multi-edge type, on the store and on a projection, with and without a
//! limit. Ends for `min <= 1` come from a breadth-first search; the brute force is the
//! definition.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;

use hopdb_algo::Control;
use hopdb_analytics::{Analytics, PathQuery, ProjectionSpec, Via};
use hopdb_core::{Direction, EdgeTypeOptions, Graph, NodeKey, WriteMode};
use rand::{Rng, SeedableRng};

/// (src, dst) of every relationship, parallel ones included.
type Edges = Vec<(usize, usize)>;

fn random_graph(rng: &mut rand_chacha::ChaCha8Rng) -> (Graph, usize, Edges) {
    let n = rng.random_range(2..9);
    let g = Graph::in_memory();
    g.define_edge_type(
        "M",
        EdgeTypeOptions {
            multi: true,
            undirected: false,
        },
    )
    .unwrap();
    for i in 0..n {
        g.upsert_node(i as i64, &[], Default::default(), WriteMode::Merge)
            .unwrap();
    }
    let mut edges = Vec::new();
    let mut simple = HashSet::new();
    for _ in 0..rng.random_range(0..(2 * n + 3)) {
        let (a, b) = (rng.random_range(0..n), rng.random_range(0..n));
        if rng.random_bool(0.7) {
            if simple.insert((a, b)) {
                g.upsert_edge(a as i64, "R", b as i64, None, Default::default(), WriteMode::Merge)
                    .unwrap();
                edges.push((a, b));
            }
        } else {
            let mut tx = g.write().unwrap();
            tx.add_edge(a as i64, "M", b as i64, None, Default::default()).unwrap();
            tx.commit().unwrap();
            edges.push((a, b));
        }
    }
    (g, n, edges)
}

/// Every end of a trail of `min..=max` relationships from `s` (the definition).
fn brute(edges: &Edges, s: usize, min: u32, max: u32, dir: Direction) -> HashSet<usize> {
    fn go(
        edges: &Edges,
        u: usize,
        depth: u32,
        (min, max): (u32, u32),
        dir: Direction,
        used: &mut Vec<bool>,
        out: &mut HashSet<usize>,
    ) {
        if depth >= min {
            out.insert(u);
        }
        if depth == max {
            return;
        }
        for (i, &(a, b)) in edges.iter().enumerate() {
            if used[i] {
                continue;
            }
            let next = match dir {
                Direction::Out => (a == u).then_some(b),
                Direction::In => (b == u).then_some(a),
                Direction::Both => {
                    if a == u {
                        Some(b)
                    } else if b == u {
                        Some(a)
                    } else {
                        None
                    }
                }
            };
            if let Some(v) = next {
                used[i] = true;
                go(edges, v, depth + 1, (min, max), dir, used, out);
                used[i] = false;
            }
        }
    }
    let mut out = HashSet::new();
    go(edges, s, 0, (min, max), dir, &mut vec![false; edges.len()], &mut out);
    out
}

#[test]
fn endpoints_are_the_ends_of_trails() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(20261125);
    let ctrl = Control::default();
    let mut checked = 0;
    for _ in 0..150 {
        let (g, n, edges) = random_graph(&mut rng);
        let an = Analytics::new(g);
        an.projection(&ProjectionSpec::all(), &ctrl).unwrap();
        for s in 0..n {
            for dir in [Direction::Out, Direction::In, Direction::Both] {
                for (min, max) in [(0, 1), (1, 1), (1, 2), (1, 3), (0, 3), (2, 3), (1, 4)] {
                    let want = brute(&edges, s, min, max, dir);
                    for via in [Via::Store, Via::Projection] {
                        let q = PathQuery {
                            dir,
                            types: None,
                            max_hops: max,
                            via,
                        };
                        let key = NodeKey::Int(s as i64);
                        let all = an.var_length_endpoints(&key, min, &q, None, &ctrl).unwrap().value;
                        let got: HashSet<usize> = all
                            .iter()
                            .map(|k| match k {
                                NodeKey::Int(i) => *i as usize,
                                other => panic!("{other:?}"),
                            })
                            .collect();
                        let ctx = format!("edges {edges:?}, start {s}, {dir:?} {min}..{max}, {via:?}");
                        assert_eq!(got, want, "{ctx}");
                        assert_eq!(got.len(), all.len(), "{ctx}: an end twice");
                        for limit in [1, 2] {
                            let some = an
                                .var_length_endpoints(&key, min, &q, Some(limit), &ctrl)
                                .unwrap()
                                .value;
                            assert_eq!(some.len(), want.len().min(limit), "{ctx}, limit {limit}");
                            assert!(some.iter().all(|k| all.contains(k)), "{ctx}, limit {limit}");
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}
