"""Deep-query benchmark: the study's Q8 (distinct nodes within 1..4 hops, LIMIT 100) and Q11
(shortest undirected path length, at most 12 hops) on the knowledge graph, by HopDB and peers.

usage: python3 -m bench.deep.run --scale 1 [--engines hopdb,networkx,postgres,...] [--seeds 500]
                                [--timeout-ms 2000] [--out bench/results/deep] [--popular]

Draws the seeds once (fixed RNG seed), runs every engine (its Deep class in bench/engines) in its
own process (worker.py) on the same seeds, one engine at a time, then checks every answer against
NetworkX (Q11: the exact length; Q8: every id within 4 hops, no duplicates, the right row count)
and writes OUT/deep.jsonl, OUT/deep.md and OUT/deep.png. Exits 1 if any answer is wrong. The
databases are loaded once and kept under DATA_ROOT/deep/sS/ENGINE (--reload to load again). See
README.md.
"""

import argparse
import collections
import csv
import datetime
import json
import math
import os
import random
import signal
import statistics
import subprocess
import sys
import time

from bench import benchlib
from bench.benchlib import module_cmd, module_env
from bench.deep.worker import ENGINES, cache_name
from bench.deep.workload import MAX_HOPS, Q8_HOPS, Q8_LIMIT

HERE = os.path.dirname(os.path.abspath(__file__))

DEFAULT_ENGINES = ["hopdb", "hopdb-store", "hopdb-python", "hopdb-cypher", "networkx", "postgres", "sqlite", "kuzu", "falkordb", "cozo", "neo4j"]
NAMES = {
    "hopdb": "HopDB (auto: projection)",
    "hopdb-store": "HopDB (store)",
    "hopdb-projection": "HopDB (projection)",
    "hopdb-python": "HopDB (Python, native calls)",
    "hopdb-cypher": "HopDB (Python, Cypher)",
    "networkx": "NetworkX",
    "postgres": "PostgreSQL",
    "sqlite": "SQLite",
    "kuzu": "Kuzu",
    "kuzu-params": "Kuzu ($params)",
    "falkordb": "FalkorDB",
    "cozo": "Cozo",
    "neo4j": "Neo4j",
}
# The study's medians from Python on this graph (ms), for a sanity check of the order of magnitude.
STUDY = {
    "networkx": (1.5, 0.59),
    "neo4j": (8.4, 5.3),
    "kuzu": (None, 53),
    "postgres": (3.8, 262),
    "sqlite": (None, 873),
    "falkordb": (2.0, 433),
    "cozo": (None, 1970),
}


def log(msg):
    print(f"[{datetime.datetime.now():%H:%M:%S}] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Seeds


def draw_seeds(data, n, rng_seed, popular):
    """n Q8 seeds (distinct entities) and n Q11 pairs (two distinct entities each).

    Uniform over the entities of entities.csv, or (popular) with probability proportional to
    the entity's degree (its MENTIONS edges, the only edges an entity has)."""
    csv.field_size_limit(1 << 30)
    with open(os.path.join(data, "entities.csv"), newline="", encoding="utf-8") as fh:
        rd = csv.reader(fh)
        next(rd)
        ents = [r[0] for r in rd]
    rng = random.Random(rng_seed)
    if popular:
        deg = collections.Counter()
        with open(os.path.join(data, "mentions.csv"), newline="", encoding="utf-8") as fh:
            rd = csv.reader(fh)
            next(rd)
            for r in rd:
                deg[r[1]] += 1
        weights = [deg[e] for e in ents]

        def pick():
            return rng.choices(ents, weights=weights)[0]

        q8 = []
        seen = set()
        while len(q8) < min(n, sum(1 for w in weights if w)):
            e = pick()
            if e not in seen:
                seen.add(e)
                q8.append(e)
    else:
        q8 = rng.sample(ents, n)

        def pick():
            return ents[rng.randrange(len(ents))]

    q11 = []
    while len(q11) < n:
        a, b = pick(), pick()
        if a != b:
            q11.append([a, b])
    return q8, q11, len(ents)


# ---------------------------------------------------------------------------------------------
# Running the engines


def worker(*args):
    return module_cmd("bench.deep.worker", *args)


def probe(engine, env, cmd=None):
    """The engine's availability, as the JSON line the worker's `probe ENGINE` (or `cmd`) prints."""
    try:
        r = subprocess.run(cmd or worker("probe", engine), capture_output=True, text=True, timeout=1800, env=env)
    except subprocess.TimeoutExpired:
        return {"available": False, "reason": "probe timed out"}
    for line in reversed(r.stdout.strip().splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            pass
    return {"available": False, "reason": f"probe printed nothing (exit {r.returncode}): {r.stderr.strip()[-500:]}"}


def run_engine(engine, data, cache, qpath, rpath, a, env):
    if os.path.exists(rpath):
        os.remove(rpath)
    cmd = worker("run", engine, "--data", data, "--cache", cache, "--queries", qpath, "--out", rpath, "--slow-seeds", str(a.slow_seeds), "--slow-ms", str(a.slow_ms), "--budget", str(a.engine_timeout))
    if a.reload and (a.reload == "all" or cache_name(engine) in a.reload.split(",") or engine in a.reload.split(",")):
        cmd.append("--reload")
    err_path = rpath + ".stderr"
    t0 = time.perf_counter()
    b0 = benchlib.machine_busy_s()
    with open(err_path, "w") as err:
        p = subprocess.Popen(cmd, stdout=err, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        try:
            p.wait(timeout=a.engine_timeout)
            killed = False
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)  # the worker's own process group
            p.wait()
            killed = True
    wall = time.perf_counter() - t0
    busy = (benchlib.machine_busy_s() - b0) / max(wall, 1e-9)
    subprocess.run(worker("cleanup", engine, "--cache", cache), capture_output=True, timeout=300, env=env)
    if killed:
        return {"engine": engine, "status": "failed", "reason": f"killed after {a.engine_timeout:.0f} s (--engine-timeout)"}, wall, busy
    if not os.path.exists(rpath):
        tail = open(err_path, errors="replace").read()[-1500:]
        return {"engine": engine, "status": "failed", "reason": f"worker exited {p.returncode} without a result: {tail}"}, wall, busy
    res = json.load(open(rpath))
    res.setdefault("status", "ok")
    return res, wall, busy


# ---------------------------------------------------------------------------------------------
# Checking the answers against NetworkX


class Reference:
    """NetworkX distances on the same graph, computed once per run (graph built from the CSV files)."""

    def __init__(self, data):
        import networkx as nx

        from bench.engines.networkx import build_graph

        t = time.perf_counter()
        self.nx = nx
        self.G = build_graph(data)
        log(f"reference: NetworkX graph built in {time.perf_counter() - t:.1f} s")
        self._q11 = {}
        self._ball = {}

    def q11(self, a, b):
        key = (a, b)
        if key not in self._q11:
            try:
                d = self.nx.shortest_path_length(self.G, a, b)
            except self.nx.NetworkXNoPath:
                d = None
            self._q11[key] = d if d is not None and d <= MAX_HOPS else None
        return self._q11[key]

    def ball(self, seed):
        """{node: distance} for the nodes within Q8_HOPS of seed (seed included, at 0)."""
        if seed not in self._ball:
            self._ball = {seed: self.nx.single_source_shortest_path_length(self.G, seed, cutoff=Q8_HOPS)}  # keep one
        return self._ball[seed]


def check(results, ref):
    """Per engine: the Q8 answers that are not valid and the Q11 lengths that differ from NetworkX."""
    problems = {e: {"q8": [], "q11": []} for e in results}
    # Q8, seed by seed (one 4-hop ball in memory at a time)
    by_seed = collections.defaultdict(list)
    for e, r in results.items():
        for rec in r.get("q8", []):
            if "error" not in rec:
                by_seed[rec["seed"]].append((e, rec["ids"]))
    for seed, answers in by_seed.items():
        ball = ref.ball(seed)
        n = len(ball) - 1  # nodes within 1..4 hops, the seed excluded
        want = min(Q8_LIMIT, n)
        for e, ids in answers:
            bad = []
            if len(set(ids)) != len(ids):
                bad.append("duplicate ids")
            far = [i for i in ids if i not in ball]
            if far:
                bad.append(f"{len(far)} ids not within {Q8_HOPS} hops (e.g. {far[0]})")
            has_seed = seed in ids
            if not (len(ids) == want or (has_seed and len(ids) == min(Q8_LIMIT, n + 1))):
                bad.append(f"{len(ids)} rows, expected {want}" + (" (+ the seed)" if has_seed else ""))
            if bad:
                problems[e]["q8"].append({"seed": seed, "why": "; ".join(bad)})
    for e, r in results.items():
        for rec in r.get("q11", []):
            if rec.get("error"):
                continue
            want = ref.q11(rec["a"], rec["b"])
            if rec.get("length") != want:
                problems[e]["q11"].append({"a": rec["a"], "b": rec["b"], "got": rec.get("length"), "want": want})
    return problems


# ---------------------------------------------------------------------------------------------
# Statistics


def pct(sorted_vals, p):
    """Linear-interpolated percentile of sorted values; inf where it touches a timed-out query."""
    if not sorted_vals:
        return None
    k = (len(sorted_vals) - 1) * p / 100
    lo, hi = math.floor(k), math.ceil(k)
    a, b = sorted_vals[lo], sorted_vals[hi]
    if math.isinf(a) or math.isinf(b):
        return math.inf
    return a + (b - a) * (k - lo)


def summarize(recs, timeout_ms):
    """Latency figures (ms) of one query kind: timed-out queries count as +inf (above the timeout)."""
    n = len(recs)
    timeouts = sum(1 for r in recs if r.get("error") == "timeout")
    errors = [r["error"] for r in recs if r.get("error") and r["error"] != "timeout"]
    lat = sorted(math.inf if r.get("error") else r["us"] / 1000 for r in recs)
    answered = [r["us"] / 1000 for r in recs if not r.get("error")]

    def fin(x):
        return None if x is None or math.isinf(x) else round(x, 4)

    med = pct(lat, 50)
    s = {
        "queries": n,
        "answered": len(answered),
        "timeouts": timeouts,
        "errors": len(errors),
        "error_examples": errors[:3],
        "median_ms": fin(med),
        "p95_ms": fin(pct(lat, 95)),
        "p99_ms": fin(pct(lat, 99)),
        "mean_ms_answered": round(statistics.fmean(answered), 4) if answered else None,
        "min_ms": round(min(answered), 4) if answered else None,
        "max_ms_answered": round(max(answered), 4) if answered else None,
        "median_over_timeout": med is not None and math.isinf(med),
        "p95_over_timeout": pct(lat, 95) is not None and math.isinf(pct(lat, 95)),
        "p99_over_timeout": pct(lat, 99) is not None and math.isinf(pct(lat, 99)),
    }
    if answered and timeouts and timeouts * 2 <= n:
        s["note"] = f"{timeouts} timed-out queries count as > {timeout_ms} ms in the percentiles"
    return s


# ---------------------------------------------------------------------------------------------
# Report


def fmt_ms(s, key, timeout_ms):
    if s is None or not s.get("queries"):
        return "-"
    if s.get(key.replace("_ms", "_over_timeout")):
        return f"> {timeout_ms / 1000:g} s"
    v = s.get(key)
    if v is None:
        return "-"
    if v >= 1000:
        return f"{v / 1000:.2f} s"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def with_unit(s, timeout_ms):
    t = fmt_ms(s, "median_ms", timeout_ms)
    return t if t.endswith(" s") or t == "-" else t + " ms"


def ratio(s, base, timeout_ms):
    if not s or not base or base.get("median_ms") is None or not s.get("queries"):
        return "-"
    if s.get("median_over_timeout"):
        return f"> {timeout_ms / base['median_ms']:,.0f}x"
    if s.get("median_ms") is None:
        return "-"
    r = s["median_ms"] / base["median_ms"]
    return f"{r:,.0f}x" if r >= 10 else f"{r:.1f}x"


def write_report(lines, out):
    md_path, png_path = os.path.join(out, "deep.md"), os.path.join(out, "deep.png")
    if not lines:
        return
    head = lines[0]
    to = head["timeout_ms"]
    by = {r["engine"]: r for r in lines}
    base = by.get("hopdb") if by.get("hopdb", {}).get("status") == "ok" else None
    host = head.get("host", {})
    md = [f"# Deep queries Q8 and Q11 on the knowledge graph, S={head['scale']:g}", ""]
    md.append(
        f"{head['nodes']:,} nodes, {head['edges']:,} edges (`hopdb generate --scale {head['scale']:g}`). Machine: {host.get('cpu', '?')}, "
        f"{host.get('cores', '?')} cores, {host.get('mem_gib', '?')} GiB (shared with other jobs: medians). Run {head['run_id']}, "
        f"`python3 -m bench.deep.run` (bench/deep/README.md); the figures per engine in `deep.jsonl`, every answer and latency in the files it names (`raw`, outside the repository)."
    )
    md.append("")
    md.append(
        f"Seeds: {head['seeds']['q8']} entities for Q8 and {head['seeds']['q11']} entity pairs for Q11, drawn "
        f"{'with probability proportional to degree' if head['seeds']['popular'] else 'uniformly'} from the {head['seeds']['entities']:,} entities "
        f"(RNG seed {head['seeds']['rng_seed']}); every engine answers the same seeds, after a warm-up pass over the first {head['warmup']} of each list. "
        f"Q8 = `MATCH (e:Entity {{id:$id}})-[*1..4]-(n) RETURN DISTINCT n.id LIMIT 100`; Q11 = length of a shortest undirected path of at most "
        f"{MAX_HOPS} hops (none if longer or unreachable). Per-query timeout {to} ms: a timed-out query counts as slower than the timeout in the "
        f"percentiles, so a median is shown as `> {to / 1000:g} s` when more than half timed out. Time = wall time per query in the engine's natural "
        f"client: Python for the peers (request to last row), the Rust API inside the `hopdb-bench deep` process for HopDB. "
        f"vs HopDB = the engine's median / HopDB (auto)'s median."
    )
    md.append("")
    md.append("| engine | Q8 median ms | Q8 p99 | Q11 median ms | Q11 p99 | timeouts Q8 / Q11 | queries timed Q8 / Q11 | Q8 vs HopDB | Q11 vs HopDB | study Q8 / Q11 ms | answers |")
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    skipped, failed, notes = [], [], []
    for r in lines:
        e = r["engine"]
        name = NAMES.get(e, e)
        if r["status"] != "ok":
            (skipped if r["status"] == "skipped" else failed).append(f"- **{name}**: {r['status']}: {r.get('reason', '')}")
            md.append(f"| {name} | {r['status']} | | | | | | | | | |")
            continue
        q8, q11 = r["q8"], r["q11"]
        st = STUDY.get(cache_name(e))
        study = "-" if not st else f"{st[0] if st[0] is not None else '-'} / {st[1]}"
        v = r["validation"]
        ok = "ok" if not v["q8_invalid"] and not v["q11_mismatch"] else f"**WRONG** (Q8 {len(v['q8_invalid'])}, Q11 {len(v['q11_mismatch'])})"
        slow = []
        if r["runs"]["q8"].get("slow"):
            slow.append("Q8")
        if r["runs"]["q11"].get("slow"):
            slow.append("Q11")
        timed = f"{q8['queries']} / {q11['queries']}" + (" (slow: capped)" if slow else "")
        errs = f" (+{q8['errors']} / {q11['errors']} errors)" if q8["errors"] or q11["errors"] else ""
        md.append(
            f"| {name} | {fmt_ms(q8, 'median_ms', to)} | {fmt_ms(q8, 'p99_ms', to)} | {fmt_ms(q11, 'median_ms', to)} | {fmt_ms(q11, 'p99_ms', to)} | "
            f"{q8['timeouts']} / {q11['timeouts']}{errs} | {timed} | {ratio(q8, base and base['q8'], to)} | {ratio(q11, base and base['q11'], to)} | {study} | {ok} |"
        )
        if slow:
            notes.append(f"- {name}: the median of its first 10 warm-up queries was above {head['slow_ms']:g} ms for {' and '.join(slow)}, so only the first {head['slow_seeds']} seeds were timed there.")
    md.append("")
    md.append("Versions, set-up and load (load = the one-time load of the kept database, `cached` when an earlier run made it):")
    md.append("")
    for r in lines:
        if r["status"] != "ok":
            continue
        p = r.get("prepare", {})
        cl = p.get("cached_load") or {}
        load = f"{cl['load_s']:.1f} s" if cl.get("load_s") is not None else "-"
        load += "" if p.get("load_s") is not None else (" (cached)" if cl else "")
        extra = f"; {p['version_detail']}" if p.get("version_detail") else ""
        md.append(f"- **{NAMES.get(r['engine'], r['engine'])}**: {r['version']}{extra}. Load {load}; start/open {p.get('open_s', 0):.1f} s. {p.get('notes', '')}")
    if notes:
        md.append("")
        md.extend(notes)
    if skipped or failed:
        md.append("")
        md.append("Not measured:")
        md.append("")
        md.extend(skipped + failed)
    wrong = [(r, r["validation"]) for r in lines if r["status"] == "ok" and (r["validation"]["q8_invalid"] or r["validation"]["q11_mismatch"])]
    md.append("")
    if wrong:
        md.append("**Wrong answers** (checked against NetworkX):")
        md.append("")
        for r, v in wrong:
            for x in v["q11_mismatch"][:10]:
                md.append(f"- {NAMES.get(r['engine'], r['engine'])} Q11 {x['a']} - {x['b']}: {x['got']}, NetworkX says {x['want']}")
            for x in v["q8_invalid"][:10]:
                md.append(f"- {NAMES.get(r['engine'], r['engine'])} Q8 {x['seed']}: {x['why']}")
    else:
        md.append(
            f"Answers checked: every Q11 length an engine returned equals NetworkX's (bounded at {MAX_HOPS}); every Q8 answer has no duplicate, "
            f"only nodes within {Q8_HOPS} undirected hops of the seed (NetworkX distances), and min(100, nodes within 1..4 hops) rows. "
            f"The seed itself may be among the rows (Cypher's paths and the SQL walks can come back to it); it then counts as a row."
        )
    md.append("")
    md.append(f"![medians, log scale]({os.path.basename(png_path)})")
    open(md_path, "w").write("\n".join(md) + "\n")
    chart(lines, to, png_path)


def chart(lines, to, png_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ok = [r for r in lines if r["status"] == "ok"]
    if not ok:
        return
    fig, ax = plt.subplots(figsize=(max(7, 1.25 * len(ok) + 2), 5))
    w = 0.38
    vals = []
    for i, r in enumerate(ok):
        for j, (kind, color) in enumerate((("q8", "tab:blue"), ("q11", "tab:orange"))):
            s = r[kind]
            x = i - w / 2 + j * w
            if s["median_over_timeout"]:
                ax.bar(x, to, w * 0.95, color="white", edgecolor=color, hatch="//")
                ax.text(x, to * 1.08, f">{to / 1000:g}s", ha="center", va="bottom", fontsize=7, rotation=90)
                vals.append(to)
            elif s["median_ms"] is not None:
                ax.bar(x, s["median_ms"], w * 0.95, color=color)
                v = s["median_ms"]
                label = f"{v * 1000:.0f}us" if v < 1 else (f"{v:.1f}ms" if v < 1000 else f"{v / 1000:.2f}s")
                ax.text(x, v * 1.08, label, ha="center", va="bottom", fontsize=7, rotation=90)
                vals.append(v)
    handles = [
        Patch(color="tab:blue", label="Q8: nodes within 1..4 hops, LIMIT 100"),
        Patch(color="tab:orange", label=f"Q11: shortest path (<= {MAX_HOPS} hops)"),
        Patch(facecolor="white", edgecolor="gray", hatch="//", label=f"median timed out (> {to / 1000:g} s)"),
    ]
    ax.set_yscale("log")
    lo = min(vals) if vals else 0.01
    ax.set_ylim(10 ** math.floor(math.log10(lo)) / 2, max(vals + [to]) * 8)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v * 1000:g} us" if v < 1 else (f"{v:g} ms" if v < 1000 else f"{v / 1000:g} s")))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(range(len(ok)))
    ax.set_xticklabels([NAMES.get(r["engine"], r["engine"]).replace(" (", "\n(") for r in ok], fontsize=8)
    ax.set_ylabel("median latency per query (log scale), lower is better")
    ax.set_title(f"Q8 and Q11 on the knowledge graph, S={lines[0]['scale']:g} ({lines[0]['nodes']:,} nodes, {lines[0]['edges']:,} edges)")
    ax.legend(handles=handles, fontsize=8, loc="upper left")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)


# ---------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="graph scale (0.1, 1, ...; generated by `hopdb generate` once)")
    ap.add_argument("--engines", default=",".join(DEFAULT_ENGINES), help="comma-separated, from " + ",".join(ENGINES))
    ap.add_argument("--seeds", type=int, default=500, help="Q8 seeds and Q11 pairs (each)")
    ap.add_argument("--rng-seed", type=int, default=20240611)
    ap.add_argument("--popular", action="store_true", help="draw seeds with probability proportional to degree (default: uniform)")
    ap.add_argument("--timeout-ms", type=int, default=2000, help="per query")
    ap.add_argument("--warmup", type=int, default=50, help="untimed queries (the first seeds of each list) before timing")
    ap.add_argument("--slow-seeds", type=int, default=50, help="seeds timed for an engine whose first 10 warm-up queries take > --slow-ms (median); 0 = no cap")
    ap.add_argument("--slow-ms", type=float, default=500)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "results", "deep"))
    ap.add_argument("--data-root", default=os.environ.get("HOPDB_BENCH_DATA") or os.path.expanduser("~/.cache/hopdb/bench-data"))
    ap.add_argument("--reload", default="", help="comma-separated engines whose kept database is loaded again, or 'all'")
    ap.add_argument("--engine-timeout", type=float, default=3600, help="seconds one engine (load + queries) may take before it is killed")
    ap.add_argument("--quiet-wait", type=float, default=60, help="before each engine, wait up to this many seconds for other processes to go idle")
    ap.add_argument("--report-only", action="store_true", help="rebuild deep.md and deep.png from deep.jsonl")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    jsonl = os.path.join(a.out, "deep.jsonl")
    benchlib.ensure_requirements()
    benchlib.ensure_requirements(os.path.join(HERE, "requirements.txt"))
    if a.report_only:
        write_report([json.loads(x) for x in open(jsonl) if x.strip()], a.out)
        log(f"wrote {a.out}/deep.md and deep.png")
        return 0
    engines = [e.strip() for e in a.engines.split(",") if e.strip()]
    bad = [e for e in engines if e not in ENGINES]
    if bad:
        raise SystemExit(f"unknown engines: {bad} (known: {ENGINES})")
    data, counts = benchlib.ensure_data(a.scale, a.data_root)
    sc = benchlib.scale_name(a.scale)
    deep_root = os.path.join(a.data_root, "deep", f"s{sc}")
    os.makedirs(deep_root, exist_ok=True)
    env = module_env(dict(os.environ, HOPDB_BENCH_DATA=a.data_root))
    run_id = datetime.datetime.now().strftime("%Y%m%dT%H%M%S")

    q8, q11, n_ent = draw_seeds(data, a.seeds, a.rng_seed, a.popular)
    queries = {"timeout_ms": a.timeout_ms, "q8": q8, "q11": q11, "warmup": a.warmup, "max_hops": MAX_HOPS}
    qpath = os.path.join(a.out, f"queries-s{sc}.json")
    json.dump(queries, open(qpath, "w"))
    log(f"S={sc}: {counts['nodes']:,} nodes, {counts['edges']:,} edges; {len(q8)} Q8 seeds, {len(q11)} Q11 pairs ({'by degree' if a.popular else 'uniform'}), timeout {a.timeout_ms} ms")
    base = {
        "run_id": run_id,
        "scale": a.scale,
        "nodes": counts["nodes"],
        "edges": counts["edges"],
        "timeout_ms": a.timeout_ms,
        "warmup": a.warmup,
        "slow_seeds": a.slow_seeds,
        "slow_ms": a.slow_ms,
        "max_hops": MAX_HOPS,
        "seeds": {"q8": len(q8), "q11": len(q11), "popular": a.popular, "rng_seed": a.rng_seed, "entities": n_ent, "file": os.path.basename(qpath)},
        "host": benchlib.host_info(),
    }
    raw_dir = os.path.join(deep_root, "raw")  # every answer and latency (megabytes): kept with the databases, not in the repository
    os.makedirs(raw_dir, exist_ok=True)
    results = {}
    meta = {}
    for e in engines:
        log(f"probing {e}")
        p = probe(e, env)
        if not p.get("available"):
            log(f"  {e}: skipped: {p.get('reason')}")
            results[e] = {"engine": e, "status": "skipped", "reason": p.get("reason", ""), "version": p.get("version", "")}
            continue
        cache = os.path.join(deep_root, cache_name(e))
        before = benchlib.wait_quiet(a.quiet_wait) if a.quiet_wait > 0 else None
        log(f"  {e}: {p['version']}; running" + (f" (other processes: {before:.2f} cores)" if before is not None else ""))
        rpath = os.path.join(raw_dir, f"{e}-s{sc}.json")
        res, wall, busy = run_engine(e, data, cache, qpath, rpath, a, env)
        res.setdefault("version", p.get("version", ""))
        results[e] = res
        meta[e] = {"wall_s": round(wall, 1), "machine_busy_cores": round(busy, 2), "others_before_cores": round(before, 2) if before is not None else None}
        if res["status"] != "ok":
            log(f"  {e}: {res['status']}: {res.get('reason', '')[:400]}")
        else:
            s8, s11 = summarize(res["q8"], a.timeout_ms), summarize(res["q11"], a.timeout_ms)
            log(
                f"  {e}: Q8 median {with_unit(s8, a.timeout_ms)} ({s8['timeouts']} timeouts / {s8['queries']}), "
                f"Q11 median {with_unit(s11, a.timeout_ms)} ({s11['timeouts']} timeouts / {s11['queries']}); {wall:.0f} s in all"
            )

    ok = {e: r for e, r in results.items() if r["status"] == "ok"}
    problems = {}
    if ok:
        log("checking answers against NetworkX")
        ref = Reference(data)
        problems = check(ok, ref)
    lines = []
    failed = False
    for e in engines:
        r = results[e]
        rec = dict(base, engine=e, name=NAMES.get(e, e), status=r["status"], version=r.get("version", ""))
        if r["status"] != "ok":
            rec["reason"] = r.get("reason", "")
        else:
            rec["q8"] = summarize(r["q8"], a.timeout_ms)
            rec["q11"] = summarize(r["q11"], a.timeout_ms)
            rec["runs"] = r.get("runs", {})
            rec["prepare"] = r.get("prepare", {})
            rec["load_s"] = (rec["prepare"].get("cached_load") or {}).get("load_s")
            rec["loaded_this_run"] = rec["prepare"].get("load_s") is not None
            rec["timing"] = r.get("timing", "")
            if r.get("notes"):
                rec["engine_notes"] = r["notes"]
            rec["raw"] = os.path.join(raw_dir, f"{e}-s{sc}.json").replace(os.path.expanduser("~"), "~", 1)
            pr = problems.get(e, {"q8": [], "q11": []})
            rec["validation"] = {"q8_checked": sum(1 for x in r["q8"] if "error" not in x), "q11_checked": sum(1 for x in r["q11"] if not x.get("error")), "q8_invalid": pr["q8"], "q11_mismatch": pr["q11"]}
            if pr["q8"] or pr["q11"]:
                failed = True
        rec.update(meta.get(e, {}))
        lines.append(rec)
    with open(jsonl, "w") as f:
        for rec in lines:
            f.write(json.dumps(rec) + "\n")
    write_report(lines, a.out)
    log(f"wrote {jsonl}, {a.out}/deep.md and {a.out}/deep.png")
    if failed:
        for rec in lines:
            v = rec.get("validation")
            if v and (v["q8_invalid"] or v["q11_mismatch"]):
                log(f"WRONG ANSWERS from {rec['engine']}:")
                for x in v["q11_mismatch"]:
                    log(f"  Q11 {x['a']} {x['b']}: got {x['got']}, NetworkX {x['want']}")
                for x in v["q8_invalid"]:
                    log(f"  Q8 {x['seed']}: {x['why']}")
        log("FAILED: some engine returned wrong answers (listed above and in deep.md)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
