//! Opening a RocksDB store fixes glibc's mmap threshold (decision 0036), so a large block freed
//! by RocksDB (a memtable's arena block at each flush) does not move the threshold up and send
//! the next large blocks to the heap, where they fragment it. Its own test binary: the
//! threshold is process-wide.
#![cfg(all(target_os = "linux", target_env = "gnu"))]
#![allow(clippy::unwrap_used, unsafe_code)]

use hopdb_core::Graph;

/// Bytes glibc holds in mapped blocks (`mallinfo2().hblkhd`).
fn mapped() -> usize {
    // SAFETY: mallinfo2 takes nothing and returns a plain struct.
    unsafe { libc::mallinfo2() }.hblkhd
}

/// Bytes held free in glibc's arenas (`mallinfo2().fordblks`).
fn free_in_heap() -> usize {
    // SAFETY: as above.
    unsafe { libc::mallinfo2() }.fordblks
}

/// Whether 1 MiB blocks allocated now are mapped rather than carved from the heap: enough of
/// them to use up the heap's free space first, kept until all are counted.
fn one_mib_blocks_are_mapped() -> bool {
    let before = mapped();
    let n = (free_in_heap() >> 20) + 3;
    // SAFETY: malloc'd blocks, each freed once below and not used otherwise.
    let blocks: Vec<_> = (0..n)
        .map(|_| std::hint::black_box(unsafe { libc::malloc(1 << 20) }))
        .collect();
    assert!(blocks.iter().all(|p| !p.is_null()));
    let grew = mapped().saturating_sub(before);
    for p in blocks {
        // SAFETY: `p` came from malloc above and is freed once.
        unsafe { libc::free(p) };
    }
    grew >= 2 << 20
}

#[test]
fn large_blocks_stay_mapped_after_a_store_opens() {
    if std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_some() {
        eprintln!("skipped: MALLOC_MMAP_THRESHOLD_ is set, and HopDB leaves it alone");
        return;
    }
    // glibc's dynamic threshold: freeing a mapped block raises the threshold past its size
    // (or it is already higher), so 1 MiB blocks now come from the heap.
    // SAFETY: a malloc'd block, freed once and not used otherwise.
    unsafe { libc::free(std::hint::black_box(libc::malloc(4 << 20))) };
    assert!(!one_mib_blocks_are_mapped(), "glibc's threshold did not move up");
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path().join("store")).unwrap();
    g.upsert_edge("a", "R", "b", None, Default::default(), Default::default())
        .unwrap();
    assert!(
        one_mib_blocks_are_mapped(),
        "the store's open did not fix the threshold"
    );
}
