"""Imports every edge list of ../shared/datasets with `hopdb import --edge-list` and writes a
Markdown table: lines, nodes, edges, seconds, rows/s, input size, store size on disk (median of
--repeat runs).

    python3 -m bench.bulk_import.edgelists [--repeat 3] [--out bench/results/import/edgelists.md]
"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = pathlib.Path(os.environ.get("HOPDB_DATASETS", ROOT.parent / "shared" / "datasets"))
HOPDB = os.environ.get("HOPDB_BIN", str(pathlib.Path.home() / ".cache/hopdb/target/release/hopdb"))

# file, extra flags (as in crates/hopdb-import/tests/edgelists.rs)
CASES = [
    ("snap-web-NotreDame/web-NotreDame.txt.gz", ["--skip-lines=1"]),
    ("snap-soc-Slashdot0902/soc-Slashdot0902.txt.gz", []),
    ("dimacs9-road-NY/USA-road-d.NY.gr.gz", ["--weighted"]),
    ("snap-email-Enron/email-Enron.txt.gz", ["--undirected"]),
    ("snap-cit-HepTh/cit-HepTh.relabeled.txt.gz", []),
    ("biosnap-PP-Pathways/PP-Pathways_ppi.csv.gz", ["--undirected"]),
    ("netrepo-bio-grid-yeast/bio-grid-yeast.edges.gz", ["--undirected"]),
    ("musae-github/git_edges.csv.gz", ["--undirected"]),
    ("facebook100-MIT8/MIT8.edgelist.gz", ["--undirected"]),
    ("netrepo-bio-CE-CX/bio-CE-CX.edges.gz", ["--undirected"]),
    ("snap-ca-HepPh/CA-HepPh.txt.gz", ["--undirected"]),
    ("gemsec-deezer-HU/HU_edges.csv.gz", ["--undirected"]),
    ("musae-facebook-page-page/facebook_edges.csv.gz", ["--undirected"]),
    ("suitesparse-usroads-48/road-usroads-48.mtx.gz", []),
    ("musae-twitch-DE/DE_edges.csv.gz", ["--undirected"]),
    ("dimacs10-luxembourg-osm/luxembourg_osm.edges.gz", ["--undirected"]),
    ("snap-wiki-Vote/wiki-Vote.txt.gz", []),
    ("feather-deezer-europe/deezer_europe_edges.csv.gz", ["--undirected"]),
    ("snap-ego-Facebook/facebook_combined.txt.gz", ["--undirected"]),
    ("snap-soc-sign-bitcoinotc/soc-sign-bitcoinotc.csv.gz", ["--weighted"]),
    ("feather-lastfm-asia/lastfm_asia_edges.csv.gz", ["--undirected"]),
    ("snap-email-Eu-core/email-Eu-core.txt.gz", []),
    ("dimacs9-road-rome99/rome99.gr.gz", ["--weighted"]),
]


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "bench/results/import/edgelists.md"))
    a = ap.parse_args()
    if not DATA.is_dir():
        raise SystemExit(f"no datasets at {DATA} (set HOPDB_DATASETS)")
    rows = []
    for f, flags in CASES:
        path = DATA / f
        runs = []
        for _ in range(a.repeat):
            tmp = tempfile.mkdtemp(prefix="hopdb-el-")
            store = os.path.join(tmp, "s")
            out = subprocess.run([HOPDB, "import", store, f"--edge-list={path}", *flags, "--json"],
                                 check=True, capture_output=True, text=True).stdout
            runs.append(json.loads(out))
            shutil.rmtree(tmp)
        r = runs[-1]
        secs = statistics.median(x["seconds"] for x in runs)
        rows.append((f.split("/")[0], r["rows"], r["nodes"], r["edges"], secs, r["rows"] / secs,
                     path.stat().st_size, r["store_bytes"], " ".join(flags)))
        print(rows[-1], flush=True)

    def mib(b):
        return f"{b / 2**20:.1f}"

    lines = [
        "| dataset | lines | nodes | edges | seconds (median) | lines/s | input MiB (gz) | store MiB | store / input | flags |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for d, n_rows, n, e, s, rate, inp, st, fl in rows:
        lines.append(f"| {d} | {n_rows:,} | {n:,} | {e:,} | {s:.2f} | {rate/1e3:.0f}K | {mib(inp)} | {mib(st)} | {st/inp:.1f}x | {fl} |")
    pathlib.Path(a.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
