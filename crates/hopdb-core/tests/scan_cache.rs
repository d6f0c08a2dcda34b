//! A scan of a whole column family (a projection build, an export, a check) reads its blocks
//! without keeping them in the block cache (decision 0033), so it neither evicts the point
//! reads' blocks nor grows the cache to its bound; point reads still fill it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_core::*;

fn cached(g: &Graph) -> u64 {
    g.stats().unwrap().storage.block_cache_bytes
}

#[test]
fn whole_family_scans_leave_the_block_cache_alone() {
    let dir = tempfile::tempdir().unwrap();
    let n = 30_000u32;
    {
        let g = Graph::open(dir.path()).unwrap();
        let mut tx = g.write().unwrap();
        for i in 0..n {
            let p = props([("text", Value::Str(format!("node {i} {}", "x".repeat(40))))]);
            tx.upsert_node(format!("n{i}"), &["N"], p, WriteMode::Merge).unwrap();
        }
        for i in 0..n {
            let dst = format!("n{}", (i * 7 + 1) % n);
            tx.upsert_edge(format!("n{i}"), "E", dst, None, Props::new(), WriteMode::Merge)
                .unwrap();
        }
        tx.commit().unwrap();
        // Into table files: a scan of the memtable would not touch the block cache at all.
        g.flush().unwrap();
    }
    let g = Graph::open(dir.path()).unwrap();
    let before = cached(&g);
    let r = g.read();
    let mut nodes = 0u32;
    r.scan_node_keys_labels(&mut |_, _| {
        nodes += 1;
        true
    })
    .unwrap();
    let mut edges = 0u32;
    r.scan_out_edges(&mut |_| {
        edges += 1;
        true
    })
    .unwrap();
    assert_eq!((nodes, edges), (n, n));
    let after_scans = cached(&g);
    // Point reads of every node do fill the cache (the check that it is measured at all).
    for i in 0..n {
        assert!(r.node(&NodeKey::from(format!("n{i}").as_str())).unwrap().is_some());
    }
    let after_reads = cached(&g);
    assert!(
        after_reads > after_scans + (1 << 20),
        "point reads should cache blocks: {after_scans} -> {after_reads} bytes"
    );
    assert!(
        after_scans < before + (256 << 10),
        "two whole-family scans cached {} bytes (before {before}, reads later {after_reads})",
        after_scans - before
    );
}
