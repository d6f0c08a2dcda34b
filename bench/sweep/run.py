"""Workload 1's concurrency sweep: the retrieval mix (Q1-Q7) and the LightRAG call mix at 1, 10 and
50 concurrent clients (tight loop, no think time, a ramp, a fixed steady window), HopDB against
peers, answers checked first; and a run under a 256 MB memory cap (a cgroup v1 memory limit).

usage: python3 -m bench.sweep.run --profile quick|full [--engines hopdb,postgres,...] [--out DIR]

HopDB, PostgreSQL, SQLite and FalkorDB (and Neo4j once it knows it) are driven by the native load
generator `hopdb-loadgen` (Rust, one OS thread per client), and so is `hopdb-bolt` (opt-in: HopDB's
store served by `hopdb serve --read-only`, queried over Bolt; the retrieval mix only); NetworkX,
Kuzu and Cozo (and Neo4j or FalkorDB when the load generator lacks them) by Python threads
(pyclient.py). Writes DIR/results.jsonl (one line
per engine x mix x clients, plus the capped runs), DIR/report.md and DIR/*.png. Exits 1 if an
engine answered a sample query wrongly. See README.md beside this file.
"""

import argparse
import datetime
import json
import os
import re
import shlex
import subprocess
import sys
import time

from bench import benchlib
from bench.benchlib import module_cmd, module_env
from bench.retrieval import reference
from bench.retrieval.peers import engine_class
from bench.sweep import cgroup, lightrag_mix, loadgen, queries, sweep_report

HERE = os.path.dirname(os.path.abspath(__file__))

PROFILES = {
    "quick": {"scale": 0.1, "cap_scale": 0.1, "ramp_s": 0.5, "window_s": 1.5, "check": 20, "quiet_wait": 5, "warmup_s": 1.0},
    "full": {"scale": 1.0, "cap_scale": 10.0, "ramp_s": 3.0, "window_s": 10.0, "check": 50, "quiet_wait": 30, "warmup_s": 10.0},
}
ENGINES = ["hopdb", "postgres", "sqlite", "falkordb", "neo4j", "networkx", "kuzu", "cozo"]  # the default run
OPT_IN = ["hopdb-bolt"]  # known, run when --engines names them
PYTHON_ONLY = {"networkx", "kuzu", "cozo"}  # in-process Python engines: no native client for them
FALLBACK_PY = {"neo4j", "falkordb"}  # measured from Python when hopdb-loadgen cannot drive them
ASK_LOADGEN = FALLBACK_PY | {"hopdb-bolt"}  # servers: ask the binary whether it drives them before starting one
# Mixes an engine does not support, and why (recorded as skipped; its sample of them is not checked).
UNSUPPORTED_MIXES = {"hopdb-bolt": {"lightrag": "the sweep serves the store read-only (hopdb serve --read-only) and the LightRAG mix writes: over Bolt it is measured by bench/cluster/serve_mix.py --mix lightrag"}}
LOADGEN_CLIENT = "hopdb-loadgen (Rust, one OS thread per client)"
PY_CLIENT = "Python threads (pyclient.py; the GIL serialises them)"
CAP_MB, LOADGEN_MEMORY_MB = 256, 200
UNSUPPORTED = re.compile(r"not (yet )?supported|unsupported|invalid value|unknown engine", re.I)

log = sweep_report.log


class Unsupported(Exception):
    """hopdb-loadgen cannot drive this engine."""


def rag(name):
    """bench/retrieval's engine class (bench/deep's, with its indexes and set-up) for a server or file."""
    return engine_class(name)()


def open_target(engine, data, cache):
    """Open (load if needed, start the server of) an engine for the load generator: (target, engine
    object to close or None, notes)."""
    if engine == "hopdb":
        from bench.engines import hopdb

        store, info, _ = hopdb.ensure_store(data, cache, False)
        return store, None, f"store {store} (hopdb import)"
    if engine == "sqlite":
        eng = rag("sqlite")
        info = eng.prepare(data, cache, False)
        eng.close()
        return os.path.join(cache, "kg.sqlite"), None, info["notes"]
    if engine == "postgres":
        eng = rag("postgres")
        info = eng.prepare(data, cache, False)
        p = eng.con.info
        return f"host=127.0.0.1 port={p.port} user={p.user} dbname={p.dbname}", eng, info["notes"].split(";")[0]
    if engine == "falkordb":
        from bench.engines.falkordb import GRAPH, FalkorDBDeep

        eng = FalkorDBDeep()
        eng.probe()
        info = eng.prepare(data, cache, False)
        return f"redis://127.0.0.1:{eng.port}/{GRAPH}", eng, info["notes"].split(";")[0]
    if engine == "neo4j":
        eng = rag("neo4j")
        info = eng.prepare(data, cache, False)
        port = re.search(r"127\.0\.0\.1:(\d+)", info["notes"]).group(1)
        return f"bolt://127.0.0.1:{port}", eng, info["notes"]
    if engine == "hopdb-bolt":
        from bench.engines.hopdb_bolt import HopDBServe

        hopdb_cache = os.path.join(os.path.dirname(cache), "hopdb")  # the hopdb engine's store
        os.makedirs(hopdb_cache, exist_ok=True)
        srv = HopDBServe(data, hopdb_cache, cache)
        return srv.target, srv, srv.notes
    raise ValueError(engine)


def run_loadgen(cmd, timeout, wrap_dir=None):
    """Run a loadgen command (inside cgroup wrap_dir if given); raise Unsupported / RuntimeError."""
    full = cgroup.wrap(cmd, wrap_dir) if wrap_dir else cmd
    r = subprocess.run(full, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        msg = (r.stderr or r.stdout).strip()[-1500:]
        if UNSUPPORTED.search(msg):
            raise Unsupported(msg)
        raise RuntimeError(f"hopdb-loadgen exited {r.returncode}: {msg}")
    return r


def loadgen_check(e, target, qpath, cpath, wrap_dir=None, memory_mb=None):
    """`hopdb-loadgen check` on the queries file's Q1-Q7 sample and on the LightRAG reads (a file
    of the same form whose sample is lightrag_mix.check_items), its answers compared with the
    reference answers; {mix: {"checked", "problems", "by"}}. Its exit status 1 means some sample
    query failed: its answer is {"error": ...}, reported as a problem."""
    q = json.load(open(qpath))
    lr_items = lightrag_mix.check_items(json.load(open(queries.lightrag_path(qpath))))
    lr_path = cpath + ".lightrag-queries.json"
    json.dump({"pools": q["pools"], "sequence": q["sequence"][:10], "warmup": 0, "check": lr_items}, open(lr_path, "w"))
    out = {}
    for mix, path, sample, check in (("retrieval", qpath, q["check"], reference.check), ("lightrag", lr_path, lr_items, lightrag_mix.check_answer)):
        if mix in UNSUPPORTED_MIXES.get(e, {}):
            continue
        c = f"{cpath}.{mix}.json"
        if os.path.exists(c):
            os.remove(c)
        try:
            run_loadgen(loadgen.check_command(e, target, path, c, memory_mb=memory_mb), 900, wrap_dir)
        except RuntimeError:
            if not os.path.exists(c):
                raise
        problems = loadgen.check_answers(json.load(open(c)), sample, check)
        out[mix] = {"checked": len(sample), "problems": problems[:20], "wrong": len(problems), "by": "hopdb-loadgen check"}
    return out


def note_wrong(e, checks, wrong):
    for mix, c in checks.items():
        if c["problems"]:
            wrong.append((f"{e} {mix}", c["problems"]))
        log(f"{e} {mix}: {c['checked']} sample answers checked, {c['wrong']} wrong")


def loadgen_engine(e, data, cache, qpath, a, lines, wrong, head):
    """Check the answers, then every mix x clients with the native load generator."""
    if e in ASK_LOADGEN and not loadgen.drives(e):  # ask before starting its server
        raise Unsupported(f"`{loadgen.binary()} check --help` does not list {e} among its engines")
    target, eng, notes = open_target(e, data, cache)
    try:
        checks = loadgen_check(e, target, qpath, os.path.join(a.work, f"{e}.check"))
        note_wrong(e, checks, wrong)
        for mix in a.mixes:
            if mix in UNSUPPORTED_MIXES.get(e, {}):
                lines.append(dict(head, engine=e, mix=mix, clients=None, status="skipped", reason=UNSUPPORTED_MIXES[e][mix], client=LOADGEN_CLIENT))
                log(f"{e} {mix}: skipped: {UNSUPPORTED_MIXES[e][mix]}")
                continue
            for n in a.clients:
                rpath = os.path.join(a.work, f"{e}.{mix}.{n}.json")
                cmd = loadgen.run_command(e, target, qpath, mix, n, a.ramp_s, a.window_s, rpath, data=data, timeout_ms=a.timeout_ms)
                try:
                    run_loadgen(cmd, a.ramp_s + a.window_s + 300)
                    res = loadgen.validate(json.load(open(rpath)), e, mix, n)
                except Exception as x:
                    lines.append(dict(head, engine=e, mix=mix, clients=n, status="failed", reason=f"{type(x).__name__}: {str(x)[:1500]}", client=LOADGEN_CLIENT, command=shlex.join(cmd)))
                    log(f"{e} {mix} {n}: failed: {x}")
                    continue
                lines.append(record(head, res, LOADGEN_CLIENT, checks[mix], notes, cmd))
                log(f"{e} {mix} {n} clients: {res['qps']:,.0f} q/s, p99 {res['overall']['p99_us']:,.0f} us, errors {res['error_pct']:.2f}%")
    finally:
        if eng is not None:
            eng.close()


def record(head, res, client, check, notes, cmd=None):
    rec = dict(head, status="ok", reason="", client=client, check=check, setup=notes, command=shlex.join(cmd) if cmd else None)
    rec.update(res)
    rec["client_cpu_share"] = res["client_cpu_s"] / res["window_wall_s"] if res["window_wall_s"] else None
    return rec


def python_engine(e, data, cache, qpath, a, lines, wrong, head, why=None):
    """pyclient.py in its own process: check, then every mix x clients from Python threads."""
    rpath = os.path.join(a.work, f"{e}.py.json")
    if os.path.exists(rpath):
        os.remove(rpath)
    cmd = [*module_cmd("bench.sweep.pyclient"), e, "--data", data, "--cache", cache, "--queries", qpath, "--out", rpath,
           "--mixes", ",".join(a.mixes), "--clients", ",".join(map(str, a.clients)), "--ramp-s", f"{a.ramp_s:g}", "--window-s", f"{a.window_s:g}", "--warmup-s", f"{a.warmup_s:g}"]  # fmt: skip
    budget = len(a.mixes) * len(a.clients) * (a.ramp_s + a.window_s + 30) + 900
    with open(rpath + ".stderr", "w") as err:
        try:
            subprocess.run(cmd, stdout=err, stderr=subprocess.STDOUT, timeout=budget, env=module_env())
        except subprocess.TimeoutExpired:
            err.write(f"\n[killed after {budget:.0f} s, the Python client's time budget]\n")  # the failure reason's tail
    subprocess.run(module_cmd("bench.deep.worker", "cleanup", e, "--cache", cache), capture_output=True, timeout=300, env=module_env())
    if not os.path.exists(rpath):
        tail = open(rpath + ".stderr", errors="replace").read()[-1500:]
        lines.append(dict(head, engine=e, mix=None, clients=None, status="failed", reason=f"pyclient wrote no result: {tail}", client=PY_CLIENT))
        return
    out = json.load(open(rpath))
    if out.get("status") in ("skipped", "failed"):
        lines.append(dict(head, engine=e, mix=None, clients=None, status=out["status"], reason=out["reason"], client=PY_CLIENT))
        log(f"{e}: {out['status']}: {out['reason'][:300]}")
        return
    client = PY_CLIENT + (f"; {why}" if why else "")
    checks = {mix: dict(c, problems=c["problems"][:20], wrong=len(c["problems"]), by="pyclient.py") for mix, c in out["check"].items()}
    note_wrong(e, checks, wrong)
    for res in out["runs"]:
        try:
            loadgen.validate(res, e, res["mix"], res["clients"])
        except ValueError as x:
            lines.append(dict(head, engine=e, mix=res["mix"], clients=res["clients"], status="failed", reason=f"invalid result: {x}", client=client))
            continue
        lines.append(record(head, res, client, checks[res["mix"]], out["prepare"].get("notes", "")))
        log(f"{e} {res['mix']} {res['clients']} clients: {res['qps']:,.0f} q/s (Python client)")
    for mix, reason in out["skipped"].items():
        lines.append(dict(head, engine=e, mix=mix, clients=None, status="skipped", reason=reason, client=PY_CLIENT))
        log(f"{e} {mix}: skipped: {reason}")


def capped_runs(a, lines, wrong, head):
    """The memory-capped runs at the cap scale: HopDB's load generator inside a 256 MB cgroup (both
    mixes), and PostgreSQL with its server inside one (the load generator outside it)."""
    data, counts = benchlib.ensure_data(a.cap_scale, a.data_root)
    sc = benchlib.scale_name(a.cap_scale)
    qpath = ensure_queries(data, a, sc)
    head = dict(head, scale=a.cap_scale, nodes=counts["nodes"], edges=counts["edges"], capped=True)
    for e in a.cap_engines:
        cache = os.path.join(a.data_root, "deep", f"s{sc}", e)
        os.makedirs(cache, exist_ok=True)
        try:
            cg, cap_kind = cgroup.create(CAP_MB << 20), f"cgroup v1 memory.limit_in_bytes = {CAP_MB} MiB (+ memsw): a hard cap that counts page cache"
        except OSError as x:
            cg, cap_kind = None, f"no cap: the cgroup could not be created ({x}); peak RSS only"
        eng = None
        try:
            if e == "hopdb":
                target, _, notes = open_target(e, data, cache)
                opts = {"memory_mb": LOADGEN_MEMORY_MB}
            else:
                _, first, _ = open_target(e, data, cache)  # load it (the first time) outside the cap, then stop it
                first.close()
                if cg:  # the server starts from inside the group: the postmaster and every backend are in it
                    cgroup.move(cg, os.getpid())
                try:
                    target, eng, notes = open_target(e, data, cache)
                finally:
                    if cg:
                        cgroup.move(os.path.dirname(cg), os.getpid())
                opts = {}
            checks = loadgen_check(e, target, qpath, os.path.join(a.work, f"{e}.capped.check"), cg if e == "hopdb" else None, opts.get("memory_mb"))
            note_wrong(f"{e} (capped)", checks, wrong)
            for mix in a.mixes:
                rpath = os.path.join(a.work, f"{e}.capped.{mix}.json")
                cmd = loadgen.run_command(e, target, qpath, mix, a.cap_clients, a.ramp_s, a.window_s, rpath, data=data, timeout_ms=a.timeout_ms, **opts)
                if cg:
                    cgroup.reset_peak(cg)
                try:
                    run_loadgen(cmd, a.ramp_s + a.window_s + 300, cg if e == "hopdb" else None)
                    res = loadgen.validate(json.load(open(rpath)), e, mix, a.cap_clients)
                except Exception as x:
                    st = cgroup.stats(cg) if cg else {}
                    lines.append(dict(head, engine=e, mix=mix, clients=a.cap_clients, status="failed", reason=f"{type(x).__name__}: {str(x)[:1500]}", client=LOADGEN_CLIENT, memory_cap={"kind": cap_kind, **st}))
                    log(f"{e} capped {mix}: failed: {x}")
                    continue
                rec = record(head, res, LOADGEN_CLIENT, checks[mix], notes, cmd)
                where = "the load generator process (HopDB embedded in it)" if e == "hopdb" else "the PostgreSQL server (postmaster and backends; the load generator outside)"
                rec["memory_cap"] = {"kind": cap_kind, "cap_mb": CAP_MB if cg else None, "in_group": where, "loadgen_memory_mb": opts.get("memory_mb"), **(cgroup.stats(cg) if cg else {})}
                if e == "postgres":
                    rec["memory_cap"]["shared_buffers"] = eng.con.execute("SHOW shared_buffers").fetchone()[0]
                lines.append(rec)
                mc = rec["memory_cap"]
                log(f"{e} capped {mix}: {res['qps']:,.0f} q/s; group peak {(mc.get('max_usage_bytes') or 0) / 2**20:.0f} MiB, failcnt {mc.get('failcnt')}, loadgen peak RSS {res['peak_rss_kb'] / 1024:.0f} MiB")
        except Exception as x:
            lines.append(dict(head, engine=e, mix=None, clients=a.cap_clients, status="failed", reason=f"{type(x).__name__}: {str(x)[:1500]}", client=LOADGEN_CLIENT, memory_cap={"kind": cap_kind}))
            log(f"{e} capped: failed: {x}")
        finally:
            if eng is not None:
                eng.close()
            if cg:
                try:
                    cgroup.remove(cg)
                except OSError as x:
                    log(f"could not remove {cg}: {x}")


def ensure_queries(data, a, sc):
    root = os.path.join(a.data_root, "sweep", f"s{sc}")
    os.makedirs(root, exist_ok=True)
    qpath = os.path.join(root, "queries.json")
    t = time.perf_counter()
    queries.build(data, qpath, a.pool, a.check, a.rng_seed, 1000, 20000)
    log(f"S={sc}: queries file {qpath} (reference answers of the sample in {time.perf_counter() - t:.1f} s)")
    return qpath


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", choices=list(PROFILES), default="quick", help="quick: S=0.1, ramp 0.5 s, window 1.5 s; full: S=1 (S=10 capped), ramp 3 s, window 10 s")
    ap.add_argument("--engines", default=",".join(ENGINES), help="comma-separated, from " + ",".join(ENGINES + OPT_IN))
    ap.add_argument("--mix", default="retrieval,lightrag", help="retrieval, lightrag or both")
    ap.add_argument("--clients", default="1,10,50", help="the concurrency sweep")
    ap.add_argument("--ramp-s", type=float, help="override the profile's ramp")
    ap.add_argument("--window-s", type=float, help="override the profile's steady window")
    ap.add_argument("--scale", type=float, help="override the profile's scale of the sweep")
    ap.add_argument("--cap-scale", type=float, help="override the profile's scale of the memory-capped run")
    ap.add_argument("--cap-engines", default="hopdb,postgres", help="engines of the memory-capped run ('' for none): hopdb, postgres")
    ap.add_argument("--cap-clients", type=int, default=10, help="clients of the memory-capped run")
    ap.add_argument("--timeout-ms", type=int, default=10000, help="hopdb-loadgen's per-query timeout")
    ap.add_argument("--pool", type=int, default=500, help="seeds per pool")
    ap.add_argument("--check", type=int, help="sample seeds per kind checked before timing (profile: 20 quick, 50 full)")
    ap.add_argument("--rng-seed", type=int, default=20240611)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "results", "sweep"))
    ap.add_argument("--data-root", default=os.environ.get("HOPDB_BENCH_DATA") or os.path.expanduser("~/.cache/hopdb/bench-data"))
    ap.add_argument("--report-only", action="store_true", help="rebuild report.md and the charts from results.jsonl")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    jsonl = os.path.join(a.out, "results.jsonl")
    if a.report_only:
        sweep_report.write(jsonl, a.out)
        return 0
    for k, v in PROFILES[a.profile].items():
        if getattr(a, k, None) is None:
            setattr(a, k, v)
    a.mixes = [m for m in a.mix.split(",") if m]
    a.clients = [int(n) for n in a.clients.split(",")]
    a.cap_engines = [e for e in a.cap_engines.split(",") if e]
    engines = [e.strip() for e in a.engines.split(",") if e.strip()]
    bad = [e for e in engines if e not in ENGINES + OPT_IN] + [m for m in a.mixes if m not in loadgen.MIX_KINDS] + [e for e in a.cap_engines if e not in ("hopdb", "postgres")]
    if bad:
        raise SystemExit(f"unknown engines, mixes or cap engines: {bad}")
    os.environ["HOPDB_BENCH_DATA"] = a.data_root  # where the engines keep their tools (Neo4j's jars), for every child too
    benchlib.ensure_requirements()
    benchlib.ensure_requirements(os.path.join(benchlib.BENCH, "deep", "requirements.txt"))
    data, counts = benchlib.ensure_data(a.scale, a.data_root)
    sc = benchlib.scale_name(a.scale)
    a.work = os.path.join(a.data_root, "sweep", f"s{sc}", "runs")
    os.makedirs(a.work, exist_ok=True)
    qpath = ensure_queries(data, a, sc)
    head = {"run_id": datetime.datetime.now().strftime("%Y%m%dT%H%M%S"), "profile": a.profile, "scale": a.scale, "nodes": counts["nodes"], "edges": counts["edges"],
            "host": benchlib.host_info(), "ramp_s": a.ramp_s, "window_s": a.window_s, "capped": False, "run_command": shlex.join(["python3", "-m", "bench.sweep.run", *sys.argv[1:]])}  # fmt: skip
    no_loadgen = loadgen.available()
    if no_loadgen:
        log(f"native clients unavailable: {no_loadgen}")
    lines, wrong = [], []
    t_all = time.perf_counter()
    for e in engines:
        cache = os.path.join(a.data_root, "deep", f"s{sc}", e)
        os.makedirs(cache, exist_ok=True)
        others = benchlib.wait_quiet(a.quiet_wait) if a.quiet_wait > 0 else None
        h = dict(head, others_before_cores=others)
        t = time.perf_counter()
        if e in PYTHON_ONLY:
            python_engine(e, data, cache, qpath, a, lines, wrong, h)
        elif no_loadgen:
            if e in FALLBACK_PY:
                python_engine(e, data, cache, qpath, a, lines, wrong, h, why=no_loadgen)
            else:
                lines.append(dict(h, engine=e, mix=None, clients=None, status="skipped", reason=no_loadgen, client=LOADGEN_CLIENT))
        else:
            try:
                loadgen_engine(e, data, cache, qpath, a, lines, wrong, h)
            except Unsupported as x:
                why = f"hopdb-loadgen does not drive {e}: {str(x)[:300]}"
                if e in FALLBACK_PY:
                    python_engine(e, data, cache, qpath, a, lines, wrong, h, why=why)
                else:
                    lines.append(dict(h, engine=e, mix=None, clients=None, status="skipped", reason=why, client=LOADGEN_CLIENT))
                    log(f"{e}: skipped: {why}")
            except Exception as x:
                lines.append(dict(h, engine=e, mix=None, clients=None, status="failed", reason=f"{type(x).__name__}: {str(x)[:1500]}", client=LOADGEN_CLIENT))
                log(f"{e}: failed: {x}")
            subprocess.run(module_cmd("bench.deep.worker", "cleanup", e, "--cache", cache), capture_output=True, timeout=300, env=module_env())
        log(f"{e}: {time.perf_counter() - t:.0f} s")
    if a.cap_engines:
        if no_loadgen:
            lines.append(dict(head, engine="hopdb", mix=None, clients=a.cap_clients, capped=True, status="skipped", reason=no_loadgen))
        else:
            capped_runs(a, lines, wrong, head)
    with open(jsonl, "w") as f:
        for rec in lines:
            f.write(json.dumps(rec) + "\n")
    sweep_report.write(jsonl, a.out)
    log(f"all done in {time.perf_counter() - t_all:.0f} s; {jsonl}")
    for e, probs in wrong:
        log(f"WRONG ANSWERS from {e} ({len(probs)}), e.g.:\n" + "\n".join(f"  {x['kind']} {x['seed']}: {x['why']}" for x in probs[:10]))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
