"""The process under the cap: opens the soak's store with the `hopdb` package and runs, closed
loop, until --duration has passed:

- "q1q7": one reader thread on the study's Q1-Q7 retrieval mix (bench/pyapi/query_mix_threads's
  calls and proportions: Q1 node 30%, Q2 chunk->entities 30%, Q3 entity->chunks 20%, Q4
  chunk->entity->chunk expand 10%, Q5 document->chunks 3%, Q6 expand_counts 4%, Q7 5-entity
  expand 3%), seeds drawn uniformly from every chunk, entity and document of the store;
- "lightrag": one reader thread on LightRAG's graph-storage reads, the native calls
  hopdb.lightrag.HopDBGraphStorage makes for them (get_node, has_node, node_degree,
  get_node_edges, edge_degree, get_edge, the 40-id batch reads; and get_knowledge_graph once
  every --kg-interval seconds when given), with the KG's MENTIONS type in place of the storage's
  own edge type; entities drawn from the store's and, one time in ten, from those the writer
  added;
- "writer": one thread, durable writes paced at --write-rate per second on a fixed schedule
  (write i is due at start + i / rate), committed as they fall due in durable transactions
  (Graph.apply on the store opened with durability="sync": fsynced before the call returns),
  so a write is durable within one fsync of being due; a write is an upsert of a new Entity
  (1/3), an upsert merging new properties into an existing Entity (1/3), or an upsert of a
  Chunk-MENTIONS->Entity edge (1/3, half of them to an entity the writer added).

Every --interval seconds a sampler thread appends one JSON line to --out: the process's VmRSS
and VmHWM, the cgroup's usage (--usage-file), and per kind the calls, calls/s, p50/p99/max
latency and errors of the window; the writer's schedule lag too.
"""
import argparse
import collections
import ctypes
import json
import os
import random
import sys
import threading
import time
import traceback
from array import array

import hopdb
from bench.pyapi.query_mix_threads import C2C, E2E, LIMIT, TOP

KINDS = ("q1q7", "lightrag", "writer")
ENTITY_TYPES = ("PERSON", "ORGANIZATION", "LOCATION", "CONCEPT", "EVENT")


class Recorder:
    """Latencies (seconds) and errors of one kind over the current window."""

    def __init__(self):
        self.lock = threading.Lock()
        self.lat = array("d")
        self.errors = 0
        self.total = 0
        self.total_errors = 0
        self.messages = []

    def ok(self, dt):
        with self.lock:
            self.lat.append(dt)

    def ok_many(self, dts):
        with self.lock:
            self.lat.extend(dts)

    def error(self, what, x):
        with self.lock:
            self.errors += 1
            if len(self.messages) < 5:
                self.messages.append(f"{what}: {type(x).__name__}: {str(x)[:300]}")

    def swap(self):
        with self.lock:
            lat, err, msgs = self.lat, self.errors, self.messages
            self.lat, self.errors, self.messages = array("d"), 0, []
        self.total += len(lat)
        self.total_errors += err
        return lat, err, msgs


def pct(sorted_vals, p):
    if not sorted_vals:
        return None
    return sorted_vals[min(len(sorted_vals) - 1, int(p * len(sorted_vals)))]


def vm_status(pid="self"):
    out = {}
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(("VmRSS:", "VmHWM:", "RssAnon:", "RssFile:")):
            k, v = line.split(":", 1)
            out[k] = int(v.split()[0]) / 1024  # kB -> MiB
    return out


class _Mallinfo2(ctypes.Structure):
    """glibc's struct mallinfo2 (glibc 2.33+): the C/C++ heap RocksDB allocates from."""

    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


def _glibc_mallinfo():
    try:
        f = ctypes.CDLL(None).mallinfo2
    except (OSError, AttributeError):
        return None
    f.restype = _Mallinfo2
    return f


MALLINFO2 = _glibc_mallinfo()


def memory_parts(g):
    """The process's memory by owner, MiB: the store's parts (Graph.memory_usage), glibc's heap
    (RocksDB's C++ and CPython's large objects: in use, held free, mmapped), and CPython's
    live blocks. What RSS holds beyond their sum is allocator slack and thread stacks."""
    mib = 1 / 2**20
    out = {k: round(v * mib, 2) for k, v in g.memory_usage().items() if k != "key_index_keys"}
    if MALLINFO2 is not None:
        m = MALLINFO2()
        out["glibc_in_use"] = round((m.uordblks + m.hblkhd) * mib, 2)
        out["glibc_free"] = round(m.fordblks * mib, 2)
    out["python_blocks"] = sys.getallocatedblocks()
    return out


class Soak:
    def __init__(self, a):
        self.a = a
        self.stop = threading.Event()
        self.rec = {k: Recorder() for k in KINDS}
        self.g = hopdb.Graph(a.store, durability="sync", memory_mb=a.memory_mb)
        counts = dict(self.g.labels())
        self.n_chunk, self.n_ent, self.n_doc = counts["Chunk"], counts["Entity"], counts["Document"]
        self.added = collections.deque(maxlen=10_000)  # entities the writer added (keys)
        self.write_seq = 0  # writes committed (or failed) so far
        self.batches = 0
        self.batches_prev = 0
        self.kg_lat = []  # get_knowledge_graph latencies of the window (also in "lightrag")
        self.t0 = None
        self.lag = 0.0
        self.tag = a.tag or f"{os.getpid()}"

    # -- readers --

    def q1q7(self):
        g, rng, rec = self.g, random.Random(self.a.seed), self.rec["q1q7"]
        nc, ne, nd = self.n_chunk, self.n_ent, self.n_doc
        kinds = [
            (30, "q1", lambda c, e, d, es: g.node(c)),
            (30, "q2", lambda c, e, d, es: g.neighbors(c, "out", "MENTIONS", LIMIT)),
            (20, "q3", lambda c, e, d, es: g.neighbors(e, "in", "MENTIONS", LIMIT)),
            (10, "q4", lambda c, e, d, es: g.expand(c, C2C, limit=LIMIT, exclude_seeds=True)),
            (3, "q5", lambda c, e, d, es: g.neighbors(d, "out", "HAS_CHUNK")),
            (4, "q6", lambda c, e, d, es: g.expand_counts(c, C2C, top=TOP, exclude_seeds=True)),
            (3, "q7", lambda c, e, d, es: g.expand(es, E2E, limit=LIMIT)),
        ]
        weighted = [(name, f) for w, name, f in kinds for _ in range(w)]
        while not self.stop.is_set():
            name, f = rng.choice(weighted)
            c, e, d = f"chunk-{rng.randint(1, nc)}", f"ent-{rng.randint(1, ne)}", f"doc-{rng.randint(1, nd)}"
            es = [f"ent-{rng.randint(1, ne)}" for _ in range(5)] if name == "q7" else None
            t = time.perf_counter()
            try:
                f(c, e, d, es)
                rec.ok(time.perf_counter() - t)
            except Exception as x:
                rec.error(name, x)

    def entity(self, rng):
        if self.added and rng.random() < 0.1:
            return rng.choice(self.added)
        return f"ent-{rng.randint(1, self.n_ent)}"

    def lightrag(self):
        g, rng, rec = self.g, random.Random(self.a.seed + 1), self.rec["lightrag"]
        T = "MENTIONS"

        def kg(e):
            # HopDBGraphStorage.get_knowledge_graph (hopdb.lightrag._knowledge_graph): the native
            # BFS, then the nodes' properties and the edges between them.
            sub = g.knowledge_graph(e, self.a.kg_depth, self.a.kg_max_nodes)
            g.nodes(sub["nodes"])
            g.edges_between([tuple(p) for p in sub["edges"]], T)

        calls = [
            (25, "get_node", lambda: g.node(self.entity(rng))),
            (10, "has_node", lambda: g.has_node(self.entity(rng))),
            (15, "node_degree", lambda: g.degrees([self.entity(rng)], "both", T)[0]),
            (20, "get_node_edges", lambda: g.neighbors_of([self.entity(rng)], "both", T)[0]),
            (10, "edge_degree", lambda: g.degrees([self.entity(rng), self.entity(rng)], "both", T)),
            (5, "get_edge", lambda: g.edge(f"chunk-{rng.randint(1, self.n_chunk)}", self.entity(rng), T)),
            (5, "get_nodes_batch", lambda: g.nodes([self.entity(rng) for _ in range(40)])),
            (5, "node_degrees_batch", lambda: g.degrees([self.entity(rng) for _ in range(40)], "both", T)),
            (5, "get_nodes_edges_batch", lambda: g.neighbors_of([self.entity(rng) for _ in range(40)], "both", T)),
        ]
        weighted = [(name, f) for w, name, f in calls for _ in range(w)]
        kg_every = self.a.kg_interval
        next_kg = time.perf_counter() + kg_every if kg_every > 0 else float("inf")
        while not self.stop.is_set():
            t = time.perf_counter()
            if t >= next_kg:
                next_kg = t + kg_every
                e = self.entity(rng)
                try:
                    kg(e)
                    dt = time.perf_counter() - t
                    rec.ok(dt)
                    self.kg_lat.append(dt)
                except Exception as x:
                    rec.error("get_knowledge_graph", x)
                continue
            name, f = rng.choice(weighted)
            try:
                f()
                rec.ok(time.perf_counter() - t)
            except Exception as x:
                rec.error(name, x)

    # -- writer --

    def write_op(self, i, rng):
        """Write i as an operation of Graph.apply: a new Entity, a merge into an existing one, or
        a Chunk-MENTIONS->Entity edge (half of them to an entity the writer added)."""
        op = i % 3
        if op == 0:
            k = f"ent-soak-{self.tag}-{i}"
            self.added.append(k)
            return ("node", k, ["Entity"], {"canonical_title": f"Soak Entity {i}", "entity_type": rng.choice(ENTITY_TYPES)}, False)
        if op == 1:
            props = {"description": f"merged by soak write {i}", "source_id": f"chunk-{rng.randint(1, self.n_chunk)}"}
            return ("node", f"ent-{rng.randint(1, self.n_ent)}", ["Entity"], props, False)
        dst = rng.choice(self.added) if self.added and rng.random() < 0.5 else f"ent-{rng.randint(1, self.n_ent)}"
        return ("edge", f"chunk-{rng.randint(1, self.n_chunk)}", "MENTIONS", dst, None, {}, False)

    def writer(self):
        """Write i is due at t0 + i / rate. The writer commits every write that is due (at most
        --max-batch) in one durable transaction (Graph.apply on a durability="sync" store: fsynced
        before it returns), then sleeps until the next one is due: group commit done by the
        application, since concurrent synced writers do not share an fsync here (see README).
        A write's latency is from when it was due to when its transaction returned."""
        g, rng, rec = self.g, random.Random(self.a.seed + 100), self.rec["writer"]
        rate, max_batch = self.a.write_rate, self.a.max_batch
        done = 0
        while not self.stop.is_set():
            now = time.perf_counter()
            due = int((now - self.t0) * rate) + 1  # writes 0..due-1 are due by now
            if due <= done:
                if self.stop.wait(self.t0 + done / rate - now):
                    break
                continue
            n = min(due - done, max_batch)
            self.lag = max(0.0, now - (self.t0 + done / rate))
            ops = [self.write_op(i, rng) for i in range(done, done + n)]
            try:
                g.apply(ops)
                end = time.perf_counter()
                rec.ok_many([end - (self.t0 + i / rate) for i in range(done, done + n)])
                self.batches += 1
            except Exception as x:
                for _ in range(n):
                    rec.error("apply", x)
            done += n
            self.write_seq = done

    # -- sampling --

    def sample(self, out, t_prev, final=False):
        now = time.perf_counter()
        win = max(now - t_prev, 1e-9)
        line = {"t": round(now - self.t0, 3), "wall": time.time(), "window_s": round(win, 3), "final": final}
        line.update({k.lower(): round(v, 2) for k, v in vm_status().items()})
        cpu = os.times()
        line["cpu_s"] = round(cpu.user + cpu.system, 2)  # the worker's CPU seconds so far
        if hasattr(self.g, "memory_usage"):
            line["memory"] = memory_parts(self.g)
        try:
            line["loadavg1"] = float(open("/proc/loadavg").read().split()[0])  # the machine's (other jobs too)
        except (OSError, ValueError):
            pass
        if self.a.usage_file:
            try:
                line["cgroup_mib"] = round(int(open(self.a.usage_file).read()) / 2**20, 2)
            except (OSError, ValueError):
                line["cgroup_mib"] = None
        for k, r in self.rec.items():
            lat, err, msgs = r.swap()
            s = sorted(lat)
            line[k] = {
                "n": len(s),
                "per_s": round(len(s) / win, 1),
                "p50_us": None if not s else round(pct(s, 0.50) * 1e6, 1),
                "p99_us": None if not s else round(pct(s, 0.99) * 1e6, 1),
                "max_us": None if not s else round(s[-1] * 1e6, 1),
                "errors": err,
            }
            if msgs:
                line[k]["error_messages"] = msgs
        kg, self.kg_lat = self.kg_lat, []
        if self.a.kg_interval > 0:
            line["lightrag"]["get_knowledge_graph"] = {"n": len(kg), "max_us": round(max(kg) * 1e6, 1) if kg else None}
        due = int((now - self.t0) * self.a.write_rate)
        line["writer"]["behind"] = max(0, due - self.write_seq)
        line["writer"]["lag_s"] = round(self.lag, 3)
        line["writer"]["commits"] = self.batches - self.batches_prev
        self.batches_prev = self.batches
        out.write(json.dumps(line) + "\n")
        out.flush()
        return now

    def run(self):
        a = self.a
        out = open(a.out, "a")
        start = {"event": "start", "pid": os.getpid(), "store": a.store, "nodes_by_label": dict(self.g.labels()), "memory_mb": a.memory_mb,
                 "write_rate": a.write_rate, "max_batch": a.max_batch, "interval_s": a.interval, "duration_s": a.duration,
                 "kg_interval_s": a.kg_interval, "hopdb_version": getattr(hopdb, "__version__", None), **{k.lower(): v for k, v in vm_status().items()}}  # fmt: skip
        out.write(json.dumps(start) + "\n")
        out.flush()
        self.t0 = time.perf_counter()
        threads = [threading.Thread(target=self.q1q7, name="q1q7", daemon=True), threading.Thread(target=self.lightrag, name="lightrag", daemon=True)]
        threads.append(threading.Thread(target=self.writer, name="writer", daemon=True))
        for t in threads:
            t.start()
        t_prev = self.t0
        end = self.t0 + a.duration
        while True:
            nxt = min(end, t_prev + a.interval)
            time.sleep(max(0.0, nxt - time.perf_counter()))
            t_prev = self.sample(out, t_prev)
            if time.perf_counter() >= end - 1e-3:
                break
        self.stop.set()
        for t in threads:
            t.join(timeout=60)
        alive = [t.name for t in threads if t.is_alive()]
        self.sample(out, t_prev, final=True)
        self.g.close()
        done = {"event": "done", "elapsed_s": round(time.perf_counter() - self.t0, 3), "writes_issued": self.write_seq,
                "totals": {k: {"calls": r.total, "errors": r.total_errors} for k, r in self.rec.items()}, "threads_still_running": alive,
                **{k.lower(): v for k, v in vm_status().items()}}  # fmt: skip
        out.write(json.dumps(done) + "\n")
        out.close()


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__.splitlines()[0])
    ap.add_argument("--store", required=True)
    ap.add_argument("--out", required=True, help="JSONL file to append samples to")
    ap.add_argument("--duration", type=float, required=True, help="seconds")
    ap.add_argument("--interval", type=float, default=10.0)
    ap.add_argument("--write-rate", type=float, default=1000.0)
    ap.add_argument("--max-batch", type=int, default=200, help="most writes one durable transaction carries")
    ap.add_argument("--memory-mb", type=float, default=64.0)
    ap.add_argument("--kg-interval", type=float, default=0.0, help="seconds between get_knowledge_graph calls (0: none)")
    ap.add_argument("--kg-depth", type=int, default=2)
    ap.add_argument("--kg-max-nodes", type=int, default=1000)
    ap.add_argument("--usage-file")
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--tag")
    a = ap.parse_args()
    try:
        Soak(a).run()
    except Exception:
        with open(a.out, "a") as f:
            f.write(json.dumps({"event": "crash", "error": traceback.format_exc()[-3000:]}) + "\n")
        raise


if __name__ == "__main__":
    sys.exit(main())
