//! A full disk (issue 23): the store lives on a small tmpfs the test mounts, and is written
//! until the file system is full. The failing write returns `Error::NoSpace`, nothing
//! acknowledged is lost, a batch is all or nothing, reads go on, and once space is freed the
//! reopened store takes writes again with `check()` clean.
//!
//! Mounting needs root (CI runs as root on its machine); elsewhere the test says why it skips.

// Tests: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_core::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A tmpfs of `mib` MiB mounted on a fresh directory, unmounted on drop (a panic too).
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(mib: u32) -> Result<SmallDisk, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={mib}m"), "tmpfs"])
            .arg(dir.path())
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("running mount: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount -t tmpfs failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(SmallDisk { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

fn node_batch(from: i64, n: i64) -> Vec<NodeInput> {
    (from..from + n)
        .map(|i| {
            // Incompressible enough that the disk fills in a few thousand batches.
            let blob: String = (0..400)
                .map(|j| char::from(b'a' + ((i * 31 + j * 7) % 26) as u8))
                .collect();
            NodeInput::new(i).label("N").props(props([("blob", Value::from(blob))]))
        })
        .collect()
}

#[test]
fn a_full_disk_fails_writes_with_a_typed_error_and_loses_nothing() {
    let disk = match SmallDisk::mount(16) {
        Ok(d) => d,
        Err(why) => {
            eprintln!("full-disk test skipped: it mounts a 16 MiB tmpfs and cannot here ({why}); run it as root");
            return;
        }
    };
    // Space to free later, so the store can write again.
    let ballast: PathBuf = disk.path().join("ballast");
    std::fs::write(&ballast, vec![7u8; 4 << 20]).unwrap();
    let store = disk.path().join("store");
    let cfg = Config {
        write_buffer_bytes: 1 << 20,
        total_write_buffer_bytes: 3 << 20,
        ..Config::default()
    };
    const BATCH: i64 = 20;
    let g = Graph::open_with(&store, cfg.clone()).unwrap();
    let mut acked: i64 = 0;
    let err = loop {
        match g.upsert_nodes(&node_batch(acked, BATCH), WriteMode::Merge) {
            Ok(()) => acked += BATCH,
            Err(e) => break e,
        }
        assert!(acked < 1_000_000, "16 MiB never filled up");
    };
    assert!(matches!(err, Error::NoSpace { .. }), "a full disk must say so: {err:?}");
    assert_eq!(err.kind(), ErrorKind::Storage);
    assert!(err.to_string().contains("free space, then reopen"), "{err}");
    assert!(acked > 0, "no write succeeded before the disk filled");

    // Reads go on, and see every acknowledged write and nothing of the failed batch.
    let expected = node_batch(0, acked);
    let failed: Vec<NodeKey> = (acked..acked + BATCH).map(NodeKey::Int).collect();
    let check_contents = |g: &Graph, what: &str| {
        for n in &expected {
            let got = g
                .node(&n.key)
                .unwrap()
                .unwrap_or_else(|| panic!("{what}: acknowledged node {} lost", n.key));
            assert_eq!(got.props, n.props, "{what}: node {}", n.key);
        }
        let present = failed.iter().filter(|k| g.has_node(k).unwrap()).count();
        assert!(
            present == 0 || present == failed.len(),
            "{what}: {present} of the failed batch's {} nodes exist: half a batch",
            failed.len()
        );
    };
    check_contents(&g, "while the disk is full");
    // Writes keep failing, with the same typed error, until the store is reopened.
    let again = g.upsert_node(-1, &[], Props::new(), WriteMode::Merge).unwrap_err();
    assert!(matches!(again, Error::NoSpace { .. }), "{again:?}");
    drop(g);

    std::fs::remove_file(&ballast).unwrap();
    let g = Graph::open_with(&store, cfg).unwrap();
    check_contents(&g, "after freeing space and reopening");
    g.upsert_nodes(&node_batch(-BATCH, BATCH), WriteMode::Merge)
        .expect("writes succeed again once space is freed");
    assert!(g.has_node(&NodeKey::Int(-1)).unwrap());
    let report = g.check().unwrap();
    assert!(report.is_ok(), "check after a full disk: {:?}", report.problems);
    eprintln!("full disk: {acked} nodes acknowledged before the 16 MiB tmpfs filled; all kept");
}
