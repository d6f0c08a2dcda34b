"""Neo4j Community: the offline `neo4j-admin database import full`, the tool these CSV files are made for.

No Neo4j distribution can be downloaded here, but its jars are on Maven Central: ../neo4j/pom.xml
resolves the Community DBMS plus neo4j-import-tool with Maven (once; the classpath is cached under
the data root). The adapter then runs exactly the JVM command line that the distribution's
`bin/neo4j-admin` launcher (org.neo4j.server.startup.Neo4jAdminCommand) execs:

    java -cp CONF_DIR/*:JARS -Dfile.encoding=UTF-8 org.neo4j.cli.AdminTool \
        database import full neo4j --nodes=F ... --relationships=F ...

with NEO4J_HOME and NEO4J_CONF pointing at a fresh home (empty neo4j.conf: default heap, default
thread count, default store format). The files go in unchanged. The timed region is the whole
JVM process (start to exit, so it includes JVM start-up, about 1 s); the importer's own
"IMPORT DONE in" figure is kept in the notes. Counts are verified afterwards by opening the
database embedded (../neo4j/Count.java, MATCH count queries; not timed).
"""

import os
import re
import shutil
import subprocess
import sys

# Replace this script's own directory on the path (adapters/kuzu.py would shadow the kuzu package).
sys.path[0] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
from common import EDGE_FILES, NODE_FILES, Timer, adapter_main, dir_bytes  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
POM = os.path.join(HERE, "..", "neo4j", "pom.xml")
COUNT = os.path.join(HERE, "..", "neo4j", "Count.java")


def neo4j_version():
    return re.search(r"<neo4j.version>([^<]+)</neo4j.version>", open(POM).read()).group(1)


def cache_dir():
    root = os.environ.get("HOPDB_BENCH_DATA") or os.path.expanduser("~/.cache/hopdb/bench-data")
    return os.path.join(root, "neo4j")


def classpath():
    """The jars' classpath, resolved by Maven once and cached."""
    cp_file = os.path.join(cache_dir(), f"classpath-{neo4j_version()}.txt")
    if not os.path.exists(cp_file):
        if not shutil.which("mvn"):
            raise RuntimeError("mvn not found (apt-get install maven)")
        os.makedirs(cache_dir(), exist_ok=True)
        tmp = cp_file + ".tmp"
        r = subprocess.run(
            ["mvn", "-q", "-B", "-f", POM, "dependency:build-classpath", f"-Dmdep.outputFile={tmp}"],
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if r.returncode != 0 or not os.path.exists(tmp):
            raise RuntimeError("maven could not resolve the Neo4j jars: " + (r.stdout + r.stderr)[-1500:])
        os.replace(tmp, cp_file)
    cp = open(cp_file).read().strip()
    missing = [j for j in cp.split(":") if not os.path.exists(j)]
    if missing:
        os.remove(cp_file)
        raise RuntimeError(f"cached classpath lists missing jars (e.g. {missing[0]}); run again to re-resolve")
    return cp


def java_version():
    r = subprocess.run(["java", "-version"], capture_output=True, text=True)
    return (r.stderr.strip().splitlines() or ["?"])[0]


def probe():
    if not shutil.which("java"):
        return {"available": False, "reason": "no java on PATH (Neo4j 5.26 needs Java 17 or 21)"}
    classpath()
    return {"available": True, "version": f"Neo4j Community {neo4j_version()} neo4j-admin database import full ({java_version()})"}


def run(data, work, ctl, opts):
    cp = classpath()
    home = os.path.join(work, "neo4j-home")
    conf = os.path.join(home, "conf")
    os.makedirs(conf)
    os.makedirs(os.path.join(home, "plugins"))
    open(os.path.join(conf, "neo4j.conf"), "w").close()
    env = dict(os.environ, NEO4J_HOME=home, NEO4J_CONF=conf)
    cmd = ["java", "-cp", f"{conf}/*:{cp}", "-Dfile.encoding=UTF-8", "org.neo4j.cli.AdminTool", "database", "import", "full", "neo4j"]
    cmd += [f"--nodes={os.path.join(data, f)}" for f in NODE_FILES]
    cmd += [f"--relationships={os.path.join(data, f)}" for f in EDGE_FILES]
    log = os.path.join(work, "import.log")
    ctl.noself()
    ctl.phase("load")
    t = Timer()
    with open(log, "w") as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=work)
        ctl.pid(p.pid)
        p.wait()
    load_s = t.lap()
    text = open(log, errors="replace").read()
    if p.returncode != 0:
        return {"status": "failed", "error": f"neo4j-admin exited {p.returncode}: {text[-2000:]}", "load_s": load_s}
    done = re.search(r"IMPORT DONE in ([^\n]+?)\.\s", text)
    peak = re.search(r"Peak memory usage: ([^\n]+)", text)
    reported = re.search(r"Imported:\s+(\d+) nodes\s+(\d+) relationships", text)
    disk = dir_bytes(os.path.join(home, "data"))
    ctl.phase("verify")
    r = subprocess.run(["java", "-cp", cp, COUNT, home, "neo4j"], capture_output=True, text=True, env=env, timeout=1800)
    m = re.search(r'\{"nodes": (\d+), "edges": (\d+)\}', r.stdout)
    if not m:
        return {"status": "failed", "error": f"count check failed: {(r.stdout + r.stderr)[-1500:]}", "load_s": load_s}
    notes = "offline neo4j-admin import (JVM wall time)"
    if done:
        notes += f"; importer says IMPORT DONE in {done.group(1)}"
    return {
        "status": "ok",
        "nodes": int(m.group(1)),
        "edges": int(m.group(2)),
        "load_s": load_s,
        "index_s": 0.0,
        "disk_bytes": disk,
        "notes": notes,
        "extra": {
            "importer_done": done.group(1) if done else None,
            "importer_peak_memory": peak.group(1).strip() if peak else None,
            "importer_reported": [int(reported.group(1)), int(reported.group(2))] if reported else None,
        },
    }


if __name__ == "__main__":
    adapter_main(probe, run)
