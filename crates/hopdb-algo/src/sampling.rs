//! Neighbour sampling for GNN mini-batches (DGL's `sample_neighbors` / PyG's `NeighborLoader`).

use rand::seq::index;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::control::{AlgoError, Control};
use crate::csr::Csr;
use crate::util::{check_node, u32s, BitSet, Ticker};

/// Samples `fanouts[h]` neighbours per frontier node at hop `h` over `graph`'s rows.
///
/// Returns, per hop, the sampled `(node, neighbour)` pairs: each is an edge `node ->
/// neighbour` of `graph` with `node` in that hop's frontier. Pass the in-view to sample
/// in-neighbours for message passing (then a pair is `(dst, src)` of the real edge, DGL's
/// block orientation reversed). Hop 0's frontier is the distinct `seeds`; hop `h + 1`'s is the
/// neighbours first sampled at hop `h` that no earlier frontier held (PyG style), in sampling
/// order.
///
/// Without replacement a node with at most `k` neighbours contributes all of them (DGL's
/// rule), else `k` distinct row positions; with replacement `k` independent draws (none for a
/// node without neighbours). Parallel edges are separate positions, so they weigh more. The
/// same `seed` gives the same sample (ChaCha8, drawn sequentially).
pub fn sample_neighbors(
    graph: &Csr,
    seeds: &[u32],
    fanouts: &[usize],
    replace: bool,
    seed: u64,
    ctrl: &Control,
) -> Result<Vec<Vec<(u32, u32)>>, AlgoError> {
    let n = graph.node_count();
    for &s in seeds {
        check_node(s, n)?;
    }
    let mut ticker = Ticker::start_with(ctrl, BitSet::new(n).bytes())?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen = BitSet::new(n);
    let mut frontier: Vec<u32> = seeds.iter().copied().filter(|&s| seen.insert(s)).collect();
    let mut hops = Vec::with_capacity(fanouts.len());
    // Pairs of earlier hops, plus the seen set and the current frontier.
    let mut stored = seen.bytes();
    for &k in fanouts {
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let mut next = Vec::new();
        let fixed = stored + u32s(frontier.len());
        for &u in &frontier {
            let row = graph.neighbors(u);
            // Every draw is a step: a fanout with replacement can be far larger than the row.
            let mut take = |v: u32, ticker: &mut Ticker| {
                ticker.tick(ctrl, || fixed + 8 * pairs.len() + u32s(next.len()))?;
                pairs.push((u, v));
                if seen.insert(v) {
                    next.push(v);
                }
                Ok::<(), AlgoError>(())
            };
            if replace {
                if !row.is_empty() {
                    for _ in 0..k {
                        take(row[rng.random_range(0..row.len())], &mut ticker)?;
                    }
                }
            } else if row.len() <= k {
                for &v in row {
                    take(v, &mut ticker)?;
                }
            } else {
                let mut picked = index::sample(&mut rng, row.len(), k).into_vec();
                picked.sort_unstable();
                for i in picked {
                    take(row[i], &mut ticker)?;
                }
            }
        }
        stored += 8 * pairs.len();
        ctrl.check_memory(stored)?;
        hops.push(pairs);
        frontier = next;
    }
    Ok(hops)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_all_when_few_and_respects_fanouts() {
        let g = Csr::from_edges(5, &[(0, 1), (0, 2), (0, 3), (1, 4), (2, 4)], None).unwrap();
        let c = Control::unbounded();
        let s = sample_neighbors(&g, &[0, 0], &[5, 5], false, 7, &c).unwrap();
        assert_eq!(s[0], vec![(0, 1), (0, 2), (0, 3)]);
        assert_eq!(s[1], vec![(1, 4), (2, 4)]);
        let r = sample_neighbors(&g, &[0], &[2], false, 7, &c).unwrap();
        assert_eq!(r[0].len(), 2);
        assert_ne!(r[0][0], r[0][1]);
        let w = sample_neighbors(&g, &[0, 4], &[4], true, 7, &c).unwrap();
        assert_eq!(w[0].len(), 4);
        assert!(matches!(
            sample_neighbors(&g, &[5], &[1], true, 7, &c),
            Err(AlgoError::NodeOutOfRange { .. })
        ));
    }
}
