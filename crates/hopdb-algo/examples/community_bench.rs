//! Times HopDB's Leiden and Louvain (modularity, resolution 1) on real graphs against igraph's
//! `community_leiden` (n_iterations=-1), igraph's multilevel and leidenalg, in the same run.
//!
//! usage: cargo run -p hopdb-algo --release --example community_bench -- [DATASETS_DIR] [--no-leidenalg] [--no-reference]
//! Needs python3 with igraph and leidenalg for the reference columns.
// A benchmark program, not library code: a failed unwrap/expect aborts the run with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/common/edgelist.rs"]
mod edgelist;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use hopdb_algo::{leiden, louvain, modularity, Control, LeidenOptions, LouvainOptions};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()))
                .join("../../../shared/datasets")
        });
    let mut methods = "ig_leiden,ig_multilevel".to_string();
    if !args.iter().any(|a| a == "--no-leidenalg") {
        methods.push_str(",leidenalg");
    }
    let ctrl = Control::unbounded();
    for (name, file, skip) in [
        (
            "snap-web-NotreDame (symmetrised)",
            "snap-web-NotreDame/web-NotreDame.txt.gz",
            1,
        ),
        ("dimacs9-road-NY (unweighted)", "dimacs9-road-NY/USA-road-d.NY.gr.gz", 0),
    ] {
        let g = edgelist::read_edge_list(&dir.join(file), skip, None).unwrap_or_else(|e| panic!("{e}"));
        let (n, csr) = (g.n, g.csr());
        println!("== {name}: {n} nodes, {} edges", g.edges.len());
        for seed in [1u64, 2, 3] {
            let t = Instant::now();
            let r = leiden(
                &csr,
                &LeidenOptions {
                    seed,
                    ..LeidenOptions::default()
                },
                &ctrl,
            )
            .unwrap();
            let secs = t.elapsed().as_secs_f64();
            let check = modularity(&csr, &r.partition, 1.0, &ctrl).unwrap();
            assert!((check - r.quality).abs() < 1e-9);
            println!(
                "hopdb leiden   seed {seed}: {secs:7.2} s  modularity {:.5}  communities {}  iterations {}",
                r.quality, r.community_count, r.iterations
            );
        }
        let t = Instant::now();
        let r = louvain(&csr, &LouvainOptions::default(), &ctrl).unwrap();
        println!(
            "hopdb louvain        : {:7.2} s  modularity {:.5}  communities {}",
            t.elapsed().as_secs_f64(),
            r.modularity,
            r.community_count
        );
        if args.iter().any(|a| a == "--no-reference") {
            continue;
        }
        let tsv = std::env::temp_dir().join("hopdb-community-bench.tsv");
        g.write_tsv(&tsv).unwrap();
        let script =
            Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()))
                .join("tests/reference/comm_reference.py");
        let o = Command::new("python3")
            .arg(&script)
            .args([tsv.to_str().unwrap(), &n.to_string(), "1.0", &methods])
            .output()
            .expect("python3");
        if !o.status.success() {
            println!("reference failed: {}", String::from_utf8_lossy(&o.stderr));
            continue;
        }
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        for (m, r) in v.as_object().unwrap() {
            println!(
                "{m:<21}: {:7.2} s  modularity {:.5}  communities {}",
                r["seconds"].as_f64().unwrap(),
                r["modularity"].as_f64().unwrap(),
                r["count"]
            );
        }
    }
}
