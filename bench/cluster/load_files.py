"""Loading a cluster straight from import files against the store path (issue 24, decision 0046).

For each run, side by side on one machine and one private PostgreSQL:
  files: ``hopdb cluster load --config C FILES...`` (no store);
  store: ``hopdb import STORE FILES...`` then ``hopdb cluster load --config C STORE``.
Each load goes into a fresh cluster of 1,024 partitions with its cold tier on local disk; the
result (nodes, edges, Parquet bytes) must be the same for both. Writes one JSON per dataset
under --out with every run's times and the medians.

    python3 -m bench.cluster.load_files --name rmat25 --runs 1 --out bench/results/issue24-load-files \\
        -- --edge-list /var/tmp/rmat25/rmat.txt.gz --type LINKS
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

from bench.cluster import serve_mix as sm
from bench.cluster.pg import PrivatePostgres


def cluster(pg, work, name):
    """A fresh 1,024-partition cluster's configuration file (its cold tier under ``work``)."""
    conn = pg.conn()
    config = os.path.join(work, f"{name}.toml")
    with open(config, "w") as f:
        f.write(f'partitions = 1024\n[cold]\nurl = "file://{work}/{name}-cold"\n[metadata]\npostgres = "{conn}"\n')
    sm.hopdb("cluster", "init", "--config", config)
    return config


def timed(*args):
    started = time.monotonic()
    out = sm.hopdb(*args)
    return time.monotonic() - started, out


def chart(out):
    """``load.png`` beside the results: each dataset's median times, stacked by phase."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib: no chart")
        return
    results = []
    for name in sorted(os.listdir(out)):
        if name.endswith(".json"):
            with open(os.path.join(out, name)) as f:
                results.append(json.load(f))
    fig, axes = plt.subplots(1, len(results), figsize=(4.5 * len(results), 4), squeeze=False)
    for ax, r in zip(axes[0], results, strict=True):
        m = r["median"]
        files_write = m["files_seconds"] - m["files_read_seconds"]
        ax.bar(
            ["from files", "import + load"],
            [m["files_read_seconds"], m["store_import_seconds"]],
            label="reading the files (import)",
            color="#4c72b0",
        )
        ax.bar(
            ["from files", "import + load"],
            [files_write, m["store_load_seconds"]],
            bottom=[m["files_read_seconds"], m["store_import_seconds"]],
            label="writing partitions (load)",
            color="#dd8452",
        )
        ax.set_title(f"{r['dataset']}: {r['nodes']:,} nodes, {r['edges']:,} edges", fontsize=9)
        ax.set_ylabel("seconds (median)")
        ax.text(0, m["files_seconds"], f"x{m['ratio']:.2f} faster", ha="center", va="bottom", fontsize=9)
    axes[0][0].legend(fontsize=8)
    fig.suptitle("hopdb cluster load: straight from import files vs through a store (2 workers, 2 cores)", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "load.png"), dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--name", help="the dataset's name in the results (required unless --chart)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--scratch", default="/var/tmp", help="where stores, cold tiers and spill files go")
    ap.add_argument("--out", default="bench/results/issue24-load-files")
    ap.add_argument("--chart", action="store_true", help="only draw load.png from the results in --out")
    ap.add_argument("inputs", nargs=argparse.REMAINDER, help="-- then the import options")
    a = ap.parse_args()
    if a.chart:
        return chart(a.out)
    inputs = [x for x in a.inputs if x != "--"]
    if not inputs or not a.name:
        sys.exit("give --name and the import options after --")
    runs = []
    for run in range(a.runs):
        work = tempfile.mkdtemp(prefix="load-files-", dir=a.scratch)
        pg = None
        try:
            loads = ["--workers", a.workers, "--json"]
            # Files first and store second on odd runs, the other way round on even ones.
            order = ["files", "store"] if run % 2 == 0 else ["store", "files"]
            r = {}
            for path in order:
                pg = PrivatePostgres()
                config = cluster(pg, work, f"c{path}")
                if path == "files":
                    secs, out = timed("cluster", "load", "--config", config, "--scratch", work, *loads, *inputs)
                    r["files"] = {"seconds": secs, "load": json.loads(out)}
                else:
                    store = os.path.join(work, "store")
                    isecs, _ = timed("import", store, "--quiet", *inputs)
                    lsecs, out = timed("cluster", "load", "--config", config, store, *loads)
                    r["store"] = {
                        "import_seconds": isecs,
                        "load_seconds": lsecs,
                        "seconds": isecs + lsecs,
                        "load": json.loads(out),
                    }
                    shutil.rmtree(store)
                shutil.rmtree(os.path.join(work, f"c{path}-cold"))
                pg.stop()
                pg = None
            same = all(r["files"]["load"][k] == r["store"]["load"][k] for k in ("nodes", "edges", "bytes"))
            if not same:
                sys.exit(f"the two loads differ: {r}")
            r["ratio"] = r["store"]["seconds"] / r["files"]["seconds"]
            print(
                f"run {run + 1}: files {r['files']['seconds']:.1f} s, store {r['store']['import_seconds']:.1f} "
                f"+ {r['store']['load_seconds']:.1f} s, x{r['ratio']:.2f}",
                flush=True,
            )
            runs.append(r)
        finally:
            if pg:
                pg.stop()
            shutil.rmtree(work, ignore_errors=True)
    med = lambda f: statistics.median(f(r) for r in runs)  # noqa: E731
    summary = {
        "dataset": a.name,
        "inputs": inputs,
        "workers": a.workers,
        "runs": runs,
        "nodes": runs[0]["files"]["load"]["nodes"],
        "edges": runs[0]["files"]["load"]["edges"],
        "parquet_bytes": runs[0]["files"]["load"]["bytes"],
        "median": {
            "files_seconds": med(lambda r: r["files"]["seconds"]),
            "files_read_seconds": med(lambda r: r["files"]["load"]["scan_seconds"]),
            "spill_bytes": med(lambda r: r["files"]["load"]["spill_bytes"]),
            "store_import_seconds": med(lambda r: r["store"]["import_seconds"]),
            "store_load_seconds": med(lambda r: r["store"]["load_seconds"]),
            "store_seconds": med(lambda r: r["store"]["seconds"]),
            "ratio": med(lambda r: r["ratio"]),
        },
    }
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, f"{a.name}.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(json.dumps(summary["median"]))
    chart(a.out)


if __name__ == "__main__":
    main()
