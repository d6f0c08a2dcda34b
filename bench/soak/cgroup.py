"""The memory cap the soak's worker runs under: a cgroup the harness creates itself (no systemd).

- cgroup v2 (the unified hierarchy mounted at /sys/fs/cgroup, /sys/fs/cgroup/cgroup.controllers
  exists): a child of this process's group with memory.max (and memory.swap.max = 0); OOM kills
  read from memory.events, peak from memory.peak when the kernel has it.
- cgroup v1 (memory controller at /sys/fs/cgroup/memory): a child of this process's memory group
  with memory.limit_in_bytes (and memory.memsw.limit_in_bytes, so swap cannot lift it); hits of
  the cap from memory.failcnt, OOM kills from memory.oom_control, peak from
  memory.max_usage_in_bytes.

Either way the cap counts anonymous memory AND the page cache of the files the group reads and
writes (RocksDB's SST and WAL files): at the cap the kernel reclaims page cache first, then
OOM-kills. failcnt (v1; v2: memory.events "max") is recorded, but on this machine it stayed 0
while usage sat at the cap for most of an hour, so it is not a count of reclaims; an OOM kill
is the failure.

The worker is put in the group by a shell that writes its own pid to cgroup.procs and then execs
the worker (same pid), so everything the worker allocates is charged to the group from its
first byte. remove() deletes the group after the worker has exited.
"""

import os

# The v1 pieces the memory-capped sweep already has (its own group, writing a control file,
# starting a command inside a group); this module adds cgroup v2 and the soak's statistics.
from bench.sweep import cgroup as sweep_cgroup

ROOT = "/sys/fs/cgroup"
V1_MEMORY = os.path.join(ROOT, "memory")


class Unavailable(Exception):
    """No memory cgroup can be created here (the message says why)."""


def _own(version, text=None):
    """This process's group path in the hierarchy (v1: the memory controller's line, as the
    sweep's cap reads it; v2: the '0::' line)."""
    text = text if text is not None else open("/proc/self/cgroup").read()
    if version == 1:
        return sweep_cgroup.own_memory_cgroup(text)
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3 and parts[0] == "0" and parts[1] == "":
            return parts[2]
    return None


def _read(d, name):
    p = os.path.join(d, name)
    try:
        return open(p).read()
    except OSError:
        return None


def _num(d, name):
    t = _read(d, name)
    if t is None or not t.strip():
        return None
    t = t.split()[0]
    return None if t == "max" else int(t)


def _kv(d, name):
    t = _read(d, name)
    return {} if t is None else dict(line.split()[:2] for line in t.splitlines() if len(line.split()) >= 2)


class Group:
    """A memory cgroup with a limit; `version` 1 or 2, `dir` its directory."""

    def __init__(self, version, d, limit_bytes):
        self.version, self.dir, self.limit_bytes = version, d, limit_bytes

    @property
    def mechanism(self):
        if self.version == 2:
            return f"cgroup v2, {self.dir}: memory.max = {self.limit_bytes >> 20} MiB, memory.swap.max = 0 (created by the harness)"
        return f"cgroup v1, {self.dir}: memory.limit_in_bytes = {self.limit_bytes >> 20} MiB (+ memory.memsw.limit_in_bytes) (created by the harness)"

    @property
    def usage_file(self):
        """The file that holds the group's current usage in bytes (page cache included)."""
        return os.path.join(self.dir, "memory.current" if self.version == 2 else "memory.usage_in_bytes")

    def wrap(self, cmd):
        """cmd run inside the group: a shell puts itself in it, then execs cmd (same pid)."""
        return sweep_cgroup.wrap(cmd, self.dir)

    def stats(self):
        """Limit, peak usage, cap hits and OOM kills, read after (or during) the run."""
        d = self.dir
        if self.version == 2:
            ev = _kv(d, "memory.events")
            st = _kv(d, "memory.stat")
            return {
                "version": 2,
                "limit_bytes": _num(d, "memory.max"),
                "usage_bytes": _num(d, "memory.current"),
                "max_usage_bytes": _num(d, "memory.peak"),
                "failcnt": int(ev.get("max", 0)),  # times usage hit memory.max (the v1 failcnt's analogue)
                "oom": int(ev.get("oom", 0)),
                "oom_kill": int(ev.get("oom_kill", 0)),
                "file_bytes": int(st.get("file", 0)),
                "anon_bytes": int(st.get("anon", 0)),
            }
        oc = _kv(d, "memory.oom_control")
        st = _kv(d, "memory.stat")
        return {
            "version": 1,
            "limit_bytes": _num(d, "memory.limit_in_bytes"),
            "usage_bytes": _num(d, "memory.usage_in_bytes"),
            "max_usage_bytes": _num(d, "memory.max_usage_in_bytes"),
            "failcnt": _num(d, "memory.failcnt"),
            "memsw_failcnt": _num(d, "memory.memsw.failcnt"),
            "oom": int(oc.get("under_oom", 0)),
            "oom_kill": int(oc.get("oom_kill", 0)),
            "file_bytes": int(st.get("cache", 0)),
            "anon_bytes": int(st.get("rss", 0)),
        }

    def procs(self):
        t = _read(self.dir, "cgroup.procs") or ""
        return [int(x) for x in t.split()]

    def remove(self):
        """Remove the group (its processes must have exited; charged page cache goes to the parent)."""
        try:
            os.rmdir(self.dir)
        except FileNotFoundError:
            pass


def create(limit_bytes, name=None):
    """A new child group of this process's memory cgroup with the limit set; prefers cgroup v2
    when the unified hierarchy is mounted at /sys/fs/cgroup. Raises Unavailable saying why not."""
    name = name or f"hopdb-soak-{os.getpid()}"
    why = []
    if os.path.exists(os.path.join(ROOT, "cgroup.controllers")):
        try:
            return _create_v2(limit_bytes, name)
        except OSError as x:
            why.append(f"cgroup v2 at {ROOT}: {x}")
    else:
        why.append(f"cgroup v2: {ROOT}/cgroup.controllers missing (not the unified hierarchy)")
    if os.path.isdir(V1_MEMORY):
        try:
            return _create_v1(limit_bytes, name)
        except OSError as x:
            why.append(f"cgroup v1 at {V1_MEMORY}: {x}")
    else:
        why.append(f"cgroup v1: no memory controller at {V1_MEMORY}")
    raise Unavailable("no memory cgroup could be created: " + "; ".join(why))


def _create_v1(limit_bytes, name):
    own = _own(1)
    if own is None:
        raise OSError("no memory controller line in /proc/self/cgroup")
    d = os.path.join(V1_MEMORY, own.lstrip("/"), name)
    os.mkdir(d)
    try:
        sweep_cgroup.write(d, "memory.limit_in_bytes", limit_bytes)
        if os.path.exists(os.path.join(d, "memory.memsw.limit_in_bytes")):
            sweep_cgroup.write(d, "memory.memsw.limit_in_bytes", limit_bytes)  # memsw >= limit: set after it
    except OSError:
        os.rmdir(d)
        raise
    return Group(1, d, limit_bytes)


def _create_v2(limit_bytes, name):
    own = _own(2)
    if own is None:
        raise OSError("no '0::' line in /proc/self/cgroup")
    parent = os.path.join(ROOT, own.lstrip("/"))
    if "memory" not in (_read(parent, "cgroup.subtree_control") or "").split():
        # Fails when the parent has processes of its own and is not the root (no internal
        # processes rule): then there is no group this process may make.
        sweep_cgroup.write(parent, "cgroup.subtree_control", "+memory")
    d = os.path.join(parent, name)
    os.mkdir(d)
    try:
        sweep_cgroup.write(d, "memory.max", limit_bytes)
        if os.path.exists(os.path.join(d, "memory.swap.max")):
            sweep_cgroup.write(d, "memory.swap.max", 0)
    except OSError:
        os.rmdir(d)
        raise
    return Group(2, d, limit_bytes)
