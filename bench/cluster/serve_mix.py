"""The Q1-Q7 retrieval mix or LightRAG's storage-call mix over Bolt through a cluster's query
nodes (`hopdb serve --cluster`) against `hopdb serve STORE` on the store the cluster was loaded
from (issue 24: the price of distribution), driven by hopdb-loadgen's `hopdb-bolt` engine.

A private PostgreSQL holds the metadata, the cold tier is a directory under --work; the cluster
(1,024 partitions, a 1 GiB partition cache per query node) is loaded from the store. Three setups
run in turn, each checked first (the 50 sample seeds per kind answered through every server
must be right, against bench/retrieval's reference computed from the CSV files)
and then timed for --window seconds after --ramp: the store's server with --clients clients; one
query node with --clients; two query nodes with --clients / 2 each (two loadgen processes at
once; their throughputs add up). Everything shares the machine's cores.

With --mix lightrag the sample is LightRAG's four read calls on the first 50 entities of the
pool (against the CSV files' answers), and the timed mix writes (upsert_node, 15%: each
entity's own properties written back, so the graph does not drift); through two query nodes
both write the same entities, so writes conflict and are run again (decision 0045).

    python3 -m bench.cluster.serve_mix --store STORE --data CSV_DIR --out DIR [--clients 4] [--mix lightrag]
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

from bench.cluster.pg import PrivatePostgres, free_port
from bench.retrieval import reference
from bench.sweep import lightrag_mix, loadgen, queries

HOPDB = os.path.expanduser(
    os.path.join(os.environ.get("CARGO_TARGET_DIR", "~/.cache/hopdb/target"), "release", "hopdb")
)


def hopdb(*args):
    r = subprocess.run([HOPDB, *map(str, args)], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"hopdb {' '.join(map(str, args))}: {r.stderr}")
    return r.stdout


def serve(args, log):
    port = free_port()
    p = subprocess.Popen(
        [HOPDB, "serve", *map(str, args), "--bolt", f"127.0.0.1:{port}", "--no-http"],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.time() + 120
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return p, f"bolt://127.0.0.1:{port}"
        except OSError:
            if p.poll() is not None or time.time() > deadline:
                raise SystemExit(f"hopdb serve {args} did not start") from None
            time.sleep(0.2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", required=True)
    ap.add_argument("--data", required=True, help="the generator's CSV directory of the same graph")
    ap.add_argument("--out", required=True)
    ap.add_argument("--work", default="/var/tmp")
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--ramp", type=float, default=10)
    ap.add_argument("--window", type=float, default=20)
    ap.add_argument("--mix", choices=["retrieval", "lightrag"], default="retrieval")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="hopdb-serve-mix-", dir=a.work)
    qpath = os.path.join(work, "queries.json")
    queries.build(a.data, qpath, 500, 50, 20240611, 1000, 20000)
    pg = PrivatePostgres()
    results = {}
    try:
        config = os.path.join(work, "cluster.toml")
        with open(config, "w") as f:
            f.write(f'partitions = 1024\n[cold]\nurl = "file://{work}/cold"\n[metadata]\n'
                    f'postgres = "{pg.conn()}"\n[cache]\nmemory_mb = 1024\n')  # fmt: skip
        hopdb("cluster", "init", "--config", config)
        print(hopdb("cluster", "load", "--config", config, a.store, "--workers", "2").strip(), flush=True)
        setups = {
            "store": [[a.store]],
            "cluster, 1 query node": [["--cluster", config]],
            "cluster, 2 query nodes": [["--cluster", config]] * 2,
        }
        sample, check = json.load(open(qpath))["check"], reference.check
        if a.mix == "lightrag":
            # The check runs the queries file's sample: a copy whose sample is the LightRAG calls.
            sample, check = lightrag_mix.check_items(json.load(open(queries.lightrag_path(qpath)))), lightrag_mix.check_answer
            q = json.load(open(qpath))
            q["check"] = sample
            qpath_check = os.path.join(work, "queries-lightrag-check.json")
            json.dump(q, open(qpath_check, "w"))
        else:
            qpath_check = qpath
        checked = 0
        for name, servers in setups.items():
            log = open(os.path.join(work, f"serve-{len(results)}.log"), "wb")
            procs = [serve(s, log) for s in servers]
            try:
                for _p, uri in procs:
                    cpath = os.path.join(work, "check.json")
                    subprocess.run(
                        loadgen.check_command("hopdb-bolt", uri, qpath_check, cpath), check=True, capture_output=True
                    )
                    wrong = loadgen.check_answers(json.load(open(cpath)), sample, check)
                    if wrong:
                        raise SystemExit(f"{name}: wrong sample answers: {wrong[:5]}")
                    checked += 1
                per = max(1, a.clients // len(procs))
                runs = []
                for i, (_p, uri) in enumerate(procs):
                    out = os.path.join(a.out, f"{name.replace(' ', '_').replace(',', '')}-{i}.json")
                    cmd = loadgen.run_command("hopdb-bolt", uri, qpath, a.mix, per, a.ramp, a.window, out, data=a.data)
                    runs.append((subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE), out))
                parts = []
                for r, out in runs:
                    _, err = r.communicate()
                    if r.returncode != 0:
                        raise SystemExit(f"{name}: loadgen failed: {err.decode()[-2000:]}")
                    parts.append(json.load(open(out)))
                results[name] = {
                    "query_nodes": len(procs),
                    "clients": per * len(procs),
                    "qps": sum(p["qps"] for p in parts),
                    "errors": sum(p["errors"] for p in parts),
                    "overall": [p["overall"] for p in parts],
                    "per_kind": [p["per_kind"] for p in parts],
                    "error_samples": [p["error_samples"] for p in parts],
                }
                o = parts[0]["overall"]
                print(f"{name:<24} {results[name]['qps']:>9.0f} queries/s  p50 {o['p50_us']:>8.0f} us  p99 {o['p99_us']:>8.0f} us"
                      f"  errors {results[name]['errors']}", flush=True)  # fmt: skip
            finally:
                for p, _ in procs:
                    p.terminate()
                    p.wait(timeout=60)
                log.close()
        with open(os.path.join(a.out, "summary.json"), "w") as f:
            json.dump({"mix": a.mix, "checked_servers": checked, "sample_queries": len(sample), "setups": results}, f, indent=1)
    finally:
        pg.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
