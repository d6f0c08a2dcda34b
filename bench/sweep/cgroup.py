"""A cgroup v1 memory cap for the memory-capped run: a child group of this process's memory cgroup
with memory.limit_in_bytes (and memory.memsw.limit_in_bytes, so swap cannot lift it) set, the
measured process put in it before it execs, and the group's peak usage and failure count read after.

A cgroup v1 memory limit is a hard cap on everything charged to the group: anonymous memory AND
the page cache of the files its processes read or write (RocksDB's SST files, PostgreSQL's
relation files); at the cap the kernel reclaims page cache first, then OOM-kills the group.
"""

import os

MEMORY_ROOT = "/sys/fs/cgroup/memory"


def own_memory_cgroup(proc_cgroup_text):
    """The memory controller's path of a process, from /proc/PID/cgroup ("4:memory:/a/b" -> "/a/b");
    None when there is no cgroup v1 memory hierarchy."""
    for line in proc_cgroup_text.splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3 and "memory" in parts[1].split(","):
            return parts[2]
    return None


def group_dir(own, pid, root=MEMORY_ROOT):
    return os.path.join(root, own.lstrip("/"), f"hopdb-sweep-{pid}")


def create(limit_bytes, root=MEMORY_ROOT):
    """Make the group and set its limits; returns its directory (raises OSError when not allowed)."""
    own = own_memory_cgroup(open("/proc/self/cgroup").read())
    if own is None:
        raise OSError("no cgroup v1 memory controller in /proc/self/cgroup")
    d = group_dir(own, os.getpid(), root)
    os.mkdir(d)
    try:
        write(d, "memory.limit_in_bytes", limit_bytes)
        if os.path.exists(os.path.join(d, "memory.memsw.limit_in_bytes")):
            write(d, "memory.memsw.limit_in_bytes", limit_bytes)  # memsw >= limit: set after it
    except OSError:
        os.rmdir(d)
        raise
    return d


def write(d, name, value):
    with open(os.path.join(d, name), "w") as f:
        f.write(str(value))


def wrap(cmd, d):
    """cmd run inside the group: a shell puts itself in it, then execs cmd (same pid)."""
    return ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', d, *cmd]


def move(d, pid):
    """Move a process into group d (its later children start there; what it already holds stays
    charged where it was). The parent of a group made here is where it came from."""
    write(d, "cgroup.procs", pid)


def stats(d):
    """The group's peak usage and how often the cap was hit (bytes, counts), and OOM kills."""

    def num(name):
        p = os.path.join(d, name)
        return int(open(p).read().split()[0]) if os.path.exists(p) else None

    out = {"limit_bytes": num("memory.limit_in_bytes"), "max_usage_bytes": num("memory.max_usage_in_bytes"), "failcnt": num("memory.failcnt"),
           "memsw_max_usage_bytes": num("memory.memsw.max_usage_in_bytes")}  # fmt: skip
    oom = os.path.join(d, "memory.oom_control")
    if os.path.exists(oom):
        kv = dict(line.split() for line in open(oom) if line.strip())
        out["oom_kill"] = int(kv.get("oom_kill", 0))
    st = os.path.join(d, "memory.stat")
    if os.path.exists(st):
        kv = dict(line.split() for line in open(st) if line.strip())
        out["cache_bytes_after"] = int(kv.get("cache", 0))
        out["rss_bytes_after"] = int(kv.get("rss", 0))
    return out


def reset_peak(d):
    write(d, "memory.max_usage_in_bytes", 0)


def remove(d):
    """Remove the group (its processes must have exited or been moved out; charged page cache goes
    to the parent)."""
    os.rmdir(d)
