//! Every edge list in ../shared/datasets imported with `hopdb_import`, against an independent
//! reading of the same file in this test: node count, distinct edges (directed pairs, or
//! unordered pairs for undirected graphs), and degrees and weight sums of the highest-degree
//! and of sampled nodes. Each file's quirks (count header lines, MatrixMarket banners, DIMACS
//! `a u v w` lines, CSV column-name headers, both-direction duplicates, self-loops, parallel
//! arcs) are exercised by the real files. Skips, saying so, when the datasets are absent.
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_core::{Direction, Graph, GraphRead, NodeKey};
use hopdb_import::{import, EdgeList, ImportSpec, NoProgress};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::Path;

use hopdb_testdata::datasets;

struct Case {
    file: &'static str,
    undirected: bool,
    weighted: bool,
    skip_lines: u64,
}

const fn case(file: &'static str, undirected: bool, weighted: bool, skip_lines: u64) -> Case {
    Case {
        file,
        undirected,
        weighted,
        skip_lines,
    }
}

const CASES: &[Case] = &[
    case("snap-web-NotreDame/web-NotreDame.txt.gz", false, false, 1),
    case("snap-soc-Slashdot0902/soc-Slashdot0902.txt.gz", false, false, 0),
    case("snap-email-Enron/email-Enron.txt.gz", true, false, 0),
    case("snap-cit-HepTh/cit-HepTh.relabeled.txt.gz", false, false, 0),
    case("biosnap-PP-Pathways/PP-Pathways_ppi.csv.gz", true, false, 0),
    case("netrepo-bio-grid-yeast/bio-grid-yeast.edges.gz", true, false, 0),
    case("musae-github/git_edges.csv.gz", true, false, 0),
    case("facebook100-MIT8/MIT8.edgelist.gz", true, false, 0),
    case("netrepo-bio-CE-CX/bio-CE-CX.edges.gz", true, false, 0),
    case("snap-ca-HepPh/CA-HepPh.txt.gz", true, false, 0),
    case("gemsec-deezer-HU/HU_edges.csv.gz", true, false, 0),
    case("musae-facebook-page-page/facebook_edges.csv.gz", true, false, 0),
    case("suitesparse-usroads-48/road-usroads-48.mtx.gz", false, false, 0), // the banner says symmetric
    case("musae-twitch-DE/DE_edges.csv.gz", true, false, 0),
    case("dimacs10-luxembourg-osm/luxembourg_osm.edges.gz", true, false, 0),
    case("snap-wiki-Vote/wiki-Vote.txt.gz", false, false, 0),
    case("feather-deezer-europe/deezer_europe_edges.csv.gz", true, false, 0),
    case("snap-ego-Facebook/facebook_combined.txt.gz", true, false, 0),
    case("snap-soc-sign-bitcoinotc/soc-sign-bitcoinotc.csv.gz", false, true, 0),
    case("feather-lastfm-asia/lastfm_asia_edges.csv.gz", true, false, 0),
    case("snap-email-Eu-core/email-Eu-core.txt.gz", false, false, 0),
    case("dimacs9-road-NY/USA-road-d.NY.gr.gz", false, true, 0),
    case("dimacs9-road-rome99/rome99.gr.gz", false, true, 0),
];

/// The test's own reading: (src, dst, weight) per data line, and whether the file declares
/// itself symmetric (MatrixMarket).
fn reference(path: &Path, c: &Case) -> (Vec<(i64, i64, Option<f64>)>, bool) {
    let r = BufReader::new(flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap()));
    let mut out = Vec::new();
    let mut symmetric = false;
    let mut size_line_pending = false;
    let mut skip = c.skip_lines;
    for (i, line) in r.lines().enumerate() {
        let line = line.unwrap();
        if i == 0 && line.starts_with("%%MatrixMarket") {
            symmetric = line.contains("symmetric");
            size_line_pending = true;
            continue;
        }
        let t = line.trim();
        if t.is_empty() || t.starts_with(['#', '%', 'c', 'p']) {
            continue;
        }
        if size_line_pending {
            size_line_pending = false;
            continue;
        }
        if skip > 0 {
            skip -= 1;
            continue;
        }
        let cols: Vec<&str> = t.split([' ', '\t', ',']).filter(|s| !s.is_empty()).collect();
        let cols = if cols[0] == "a" { &cols[1..] } else { &cols[..] };
        let (Ok(a), Ok(b)) = (cols[0].parse::<i64>(), cols[1].parse::<i64>()) else {
            continue; // a column-name header
        };
        // DIMACS arcs carry a weight; other files only when the case says so.
        let weighted = c.weighted || t.starts_with('a');
        let w = weighted.then(|| cols[2].parse::<f64>().unwrap());
        out.push((a, b, w));
    }
    (out, symmetric)
}

#[test]
fn every_real_edge_list_imports_exactly() {
    let Some(root) = datasets() else { return };
    for c in CASES {
        let path = root.join(c.file);
        let (lines, symmetric) = reference(&path, c);
        let undirected = c.undirected || symmetric;
        let dir = tempfile::tempdir().unwrap();
        let g = Graph::open(dir.path().join("s")).unwrap();
        let spec = ImportSpec {
            edge_lists: vec![EdgeList {
                undirected: c.undirected,
                weighted: c.weighted,
                skip_lines: c.skip_lines,
                ..EdgeList::new(&path)
            }],
            ..ImportSpec::default()
        };
        let report = import(&g, &spec, &NoProgress).unwrap();
        assert_eq!(report.rows, lines.len() as u64, "{}: rows", c.file);

        // Distinct edges, last weight wins; degrees and weight sums per node.
        let mut edges: HashMap<(i64, i64), Option<f64>> = HashMap::new();
        for &(a, b, w) in &lines {
            let k = if undirected { (a.min(b), a.max(b)) } else { (a, b) };
            edges.insert(k, w);
        }
        let nodes: HashSet<i64> = lines.iter().flat_map(|&(a, b, _)| [a, b]).collect();
        let mut deg: HashMap<i64, [(u64, f64); 2]> = HashMap::new();
        for (&(a, b), &w) in &edges {
            let w = w.unwrap_or(1.0);
            if undirected {
                let k = if a == b { 2 } else { 1 };
                for n in if a == b { vec![a] } else { vec![a, b] } {
                    let e = &mut deg.entry(n).or_default()[0];
                    e.0 += k;
                    e.1 += w * k as f64;
                }
            } else {
                let e = &mut deg.entry(a).or_default()[0];
                e.0 += 1;
                e.1 += w;
                let e = &mut deg.entry(b).or_default()[1];
                e.0 += 1;
                e.1 += w;
            }
        }
        let stats = g.stats().unwrap();
        assert_eq!(stats.nodes, nodes.len() as u64, "{}: nodes", c.file);
        assert_eq!(stats.edges, edges.len() as u64, "{}: edges", c.file);
        assert_eq!(report.nodes, nodes.len() as u64);
        assert_eq!(stats.edge_types[0].0.options.undirected, undirected, "{}", c.file);

        // The 20 highest-degree nodes and every 997th node.
        let mut by_degree: Vec<(&i64, &[(u64, f64); 2])> = deg.iter().collect();
        by_degree.sort_by(|x, y| (y.1[0].0 + y.1[1].0, x.0).cmp(&(x.1[0].0 + x.1[1].0, y.0)));
        let sample: BTreeMap<i64, [(u64, f64); 2]> = by_degree
            .iter()
            .take(20)
            .chain(by_degree.iter().step_by(997))
            .map(|(n, d)| (**n, **d))
            .collect();
        for (n, d) in sample {
            let key = NodeKey::Int(n);
            let (out_dir, in_dir) = if undirected {
                (Direction::Both, None)
            } else {
                (Direction::Out, Some(Direction::In))
            };
            let got = g.degree(&key, out_dir, None).unwrap();
            assert_eq!(got.count, d[0].0, "{}: degree of {n}", c.file);
            assert!((got.weight_sum - d[0].1).abs() < 1e-6, "{}: weight sum of {n}", c.file);
            if let Some(dir) = in_dir {
                let got = g.degree(&key, dir, None).unwrap();
                assert_eq!(
                    (got.count, got.weight_sum),
                    (d[1].0, d[1].1),
                    "{}: in-degree of {n}",
                    c.file
                );
            }
            let listed = g.edges(&key, out_dir, None, None).unwrap();
            assert_eq!(
                listed.len() as u64,
                d[0].0 - u64::from(undirected && edges.contains_key(&(n, n))),
                "{}: edges of {n}",
                c.file
            );
        }
        eprintln!(
            "{}: {} lines, {} nodes, {} edges, {:.0} rows/s",
            c.file,
            lines.len(),
            nodes.len(),
            edges.len(),
            report.rows_per_second()
        );
    }
}
