"""The real ``neo4j-admin database import full`` of Neo4j Community 5.26, and the graph it makes,
for tests that compare HopDB's import of neo4j-admin CSV files with Neo4j's own.

``neo4j_admin_import(work_dir, nodes, relationships, options)`` runs what the distribution's
``bin/neo4j-admin`` launcher runs (bench/engines/neo4j.py's import_kg does the same)::

    java -cp JARS:CONF/* org.neo4j.cli.AdminTool database import full neo4j OPTIONS \\
        --nodes=N ... --relationships=R ...

with NEO4J_HOME and NEO4J_CONF on a fresh home under ``work_dir`` (an empty neo4j.conf, so the
defaults: ``db.temporal.timezone`` is UTC), then, when it succeeds, opens the database embedded with
neo4j_server/Neo4jAdminDump.java and returns every node and relationship with typed property values
(the JSON shape that file describes). ``canonical()`` turns such a dump, or a HopDB dump of the same
shape, into a form independent of internal ids that two graphs can be compared in;
``describe_difference()`` says how two differ.

The jars: neo4j_server/neo4j-admin-pom.xml (Neo4j plus neo4j-import-tool), resolved by Maven once
and cached in ~/.cache/hopdb/neo4j-reference/ keyed by the pom's content (neo4j_reference.py's
scheme and functions). Beside it, in neo4j-admin-KEY/: Neo4jAdminDump.java compiled into a jar, and
a class data sharing archive per JVM (import.jsa, dump.jsa, written by the first successful run:
about 70 and 30 MB; they save a good part of each JVM's start; HOPDB_NEO4J_CDS=0 turns them off).
Both JVMs get a small heap (-Xmx512m), the serial collector and C1 only, for a 2-core machine shared
with others; the importer is also given ``--max-off-heap-memory=256m`` (its default is 90% of the
machine's memory), ``--verbose`` (else a rejected file says only "Error in input data") and a
report file in ``work_dir``, unless told otherwise. One import plus its dump takes about 9 s here
(import 4 s, dump 5 s; 12 s without the archives; the very first run, which writes them, 40 s).

What neo4j-admin 5.26 was seen to do (the harness's own test checks the documented part):

- An unquoted empty field sets no property, whatever the type. A quoted ``""`` sets the empty
  string on a string column (no property with ``--ignore-empty-strings=true``) and no property on
  any other column (int, float, boolean, date, point, string[]). Unquoted whitespace around a string
  is kept (``--trim-strings=true`` trims it; never inside quotes); around a number it is ignored.
  ``a;;b`` in string[] is ["a", "", "b"], ``;`` is ["", ""], ``x; y`` is ["x", " y"]; an empty
  element in int[] (``1;;2``) rejects the import ("Not an integer").
- A row with fewer fields than the header: the missing ones set nothing (no error). A row with more:
  rejected ("Extra column not present in header"), unless ``--ignore-extra-columns=true`` (then
  the extra value goes to the report).
- Identical relationship rows make as many relationships; identical rows of a node file without an
  ``:ID`` column make as many nodes (they can be imported but not connected). A relationship file
  while no node file has an ``:ID`` in that id space: rejected (HeaderException "Group 'null' not
  found. Available groups are: []"), even with ``--skip-bad-relationships``.
- ``:ID(Group)`` spaces are separate (the same id in two spaces is two nodes; ``:START_ID`` with no
  group is the global space, and referring to it when only named spaces exist is rejected like
  the above); an unnamed ``:ID`` stores no property, ``name:ID`` a string (a long with
  ``--id-type=integer``, which also reads ``0002`` as 2).
- A relationship to a missing id: rejected ("a (global id space)-[R]->zzz (global id space)
  referring to missing node zzz"), or skipped into the report with
  ``--skip-bad-relationships=true``. A duplicate node id: rejected ("Id 'a' is defined more than
  once in group 'global id space'"), or the first kept with ``--skip-duplicate-nodes=true``.
- ``boolean`` is true only for exactly ``true`` (``TRUE`` and ``yes`` are false); int and float
  become long and double; a float[] element is the float widened (1.1 -> 1.100000023841858).

``unavailable_reason()`` says why neither can run here (no java, javac or mvn) so tests can skip."""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import tempfile
import time
import zipfile
from collections import Counter
from typing import Any, Iterable, Optional, Sequence

import neo4j_reference

HERE = pathlib.Path(__file__).resolve().parent
POM = HERE / "neo4j_server" / "neo4j-admin-pom.xml"
DUMP = HERE / "neo4j_server" / "Neo4jAdminDump.java"
HEAP = os.environ.get("HOPDB_NEO4J_ADMIN_HEAP", "512m")
JVM_FLAGS = [f"-Xmx{HEAP}", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dfile.encoding=UTF-8"]
TIMEOUT = 600  # seconds, per JVM


def unavailable_reason() -> Optional[str]:
    """Why neo4j-admin cannot be run here, or None when it can (as far as the tools go)."""
    reason = neo4j_reference.unavailable_reason(POM)
    if reason:
        return reason.replace("the reference Neo4j", "neo4j-admin")
    if not os.path.exists(_javac()):
        return "no javac beside java: the neo4j-admin harness compiles Neo4jAdminDump.java with the JDK's javac (apt-get install openjdk-17-jdk-headless)"
    return None


def _javac() -> str:
    return os.path.join(os.path.dirname(os.path.realpath(shutil.which("java") or "java")), "javac")


def classpath() -> str:
    """Neo4j's and the import tool's jars, resolved by Maven once and cached."""
    return neo4j_reference.classpath(POM)


def _fresh(work: pathlib.Path, name: str) -> pathlib.Path:
    path, n = work / name, 1
    while path.exists():
        n += 1
        path = work / f"{name}-{n}"
    return path


def _tools() -> tuple[str, pathlib.Path]:
    """(classpath, the dump program's jar): Neo4jAdminDump.java compiled once into the cache
    (keyed by its source, the classpath and the JDK), so the dump JVM neither compiles it at every
    start, as the source launcher does, nor has a directory on its classpath (class data sharing
    archives only classes from jars)."""
    cp = classpath()
    java = os.path.realpath(shutil.which("java") or "java")
    key = hashlib.sha256("\0".join([DUMP.read_text(), cp, java]).encode()).hexdigest()[:16]
    cache = neo4j_reference.cache_dir() / f"neo4j-admin-{key}"
    jar = cache / "Neo4jAdminDump.jar"
    if not jar.exists():
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache) as tmp:
            r = subprocess.run(
                [_javac(), "-nowarn", "-cp", cp, "-d", tmp, str(DUMP)],
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
            )
            if r.returncode != 0:
                raise RuntimeError(f"javac could not compile {DUMP}:\n{r.stdout}{r.stderr}")
            part = jar.with_suffix(f".tmp{os.getpid()}")
            with zipfile.ZipFile(part, "w") as z:
                for f in sorted(pathlib.Path(tmp).glob("*.class")):
                    z.write(f, f.name)
            os.replace(part, jar)
    return cp, jar


def _java(name: str, jar: pathlib.Path, cp: str, args: list[str], **kw: Any) -> subprocess.CompletedProcess:
    """Runs a JVM with JVM_FLAGS on the classpath `jar`:`cp`, sharing the class data of an earlier
    run (`name`.jsa beside the jar: a dynamic CDS archive the first successful run writes, which
    saves the class loading, a good part of each JVM's few seconds). HOPDB_NEO4J_CDS=0 turns it
    off; a JVM that cannot use the archive ignores it."""
    flags = list(JVM_FLAGS)
    archive = jar.with_name(f"{name}.jsa")
    part = archive.with_suffix(f".tmp{os.getpid()}")
    cds = os.environ.get("HOPDB_NEO4J_CDS", "1") != "0"
    if cds and archive.exists():
        flags.append(f"-XX:SharedArchiveFile={archive}")
    elif cds:
        flags += [f"-XX:ArchiveClassesAtExit={part}", "-Xlog:cds*=off"]
    r = subprocess.run(["java", *flags, "-cp", f"{jar}{os.pathsep}{cp}", *args], timeout=TIMEOUT, **kw)
    if part.exists():
        if r.returncode == 0:
            os.replace(part, archive)
        else:
            part.unlink()
    return r


def neo4j_admin_import(
    work_dir: os.PathLike | str,
    nodes: Sequence[str],
    relationships: Sequence[str] = (),
    options: Iterable[str] = (),
    verbose: bool = True,
) -> dict[str, Any]:
    """Imports with neo4j-admin into a fresh home under `work_dir` and dumps the result.

    `nodes` and `relationships` are what follows each ``--nodes=`` / ``--relationships=``
    (``"Person=/abs/people.csv"``, ``"/abs/header.csv,/abs/part.csv"``; relative paths are taken
    from `work_dir`); `options` are further command-line options (``"--id-type=integer"``,
    ``"--skip-bad-relationships=true"``, ...). `verbose` adds ``--verbose``: without it
    neo4j-admin says only "Error in input data" when it rejects a file; with it the output has the
    reason (``InputException: ERROR in input ... original error: ...``, with stack traces).

    Returns ``{"ok": True, "graph": DUMP, "output": TEXT, "report": TEXT, ...}`` when the import
    succeeds, ``{"ok": False, "output": TEXT, "report": TEXT, ...}`` when neo4j-admin exits
    non-zero (no exception: tests assert on rejections too), with "error" then the reason (see
    _error). TEXT is neo4j-admin's stdout and
    stderr together, "report" its report file (the bad entries it skipped), "home" the Neo4j home,
    "exit_code", "import_s" / "dump_s" the JVMs' wall times. A dump that fails raises
    RuntimeError (that is the harness failing, not neo4j-admin)."""
    cp, jar = _tools()
    work = pathlib.Path(work_dir).resolve()
    work.mkdir(parents=True, exist_ok=True)
    home = _fresh(work, "neo4j-home")
    conf = home / "conf"
    conf.mkdir(parents=True)
    (home / "plugins").mkdir()
    (conf / "neo4j.conf").write_text("")
    options = list(options) + (["--verbose"] if verbose and "--verbose" not in options else [])
    report = work / f"{home.name}.import.report"
    if not any(o.startswith("--report-file") for o in options):
        options.append(f"--report-file={report}")
    if not any(o.startswith("--max-off-heap-memory") for o in options):
        options.append("--max-off-heap-memory=256m")
    # The launcher's CONF/* (jars in the conf directory: none) goes last, after the jars, so the
    # class path starts as the archive's does.
    args = ["org.neo4j.cli.AdminTool", "database", "import", "full", "neo4j", *options]
    args += [f"--nodes={n}" for n in nodes]
    args += [f"--relationships={r}" for r in relationships]
    env = dict(os.environ, NEO4J_HOME=str(home), NEO4J_CONF=str(conf))
    t = time.perf_counter()
    r = _java("import", jar, f"{cp}{os.pathsep}{conf}/*", args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=str(work))
    import_s = time.perf_counter() - t
    result: dict[str, Any] = {
        "ok": r.returncode == 0,
        "exit_code": r.returncode,
        "output": r.stdout.decode("utf-8", errors="replace"),
        "report": report.read_text(errors="replace") if report.exists() else "",
        "home": str(home),
        "command": r.args,
        "import_s": import_s,
    }
    if r.returncode != 0:
        result["error"] = _error(result["output"])
        return result
    t = time.perf_counter()
    d = _java("dump", jar, cp, ["Neo4jAdminDump", str(home)], capture_output=True, env=dict(os.environ, NEO4J_HOME=str(home)), cwd=str(work))
    result["dump_s"] = time.perf_counter() - t
    lines = d.stdout.decode("ascii", errors="replace").strip().splitlines()
    if d.returncode != 0 or not lines:
        raise RuntimeError(
            f"Neo4jAdminDump failed (exit {d.returncode}) on {home}:\n"
            + (d.stdout + d.stderr).decode("utf-8", errors="replace")[-3000:]
        )
    result["graph"] = json.loads(lines[-1])
    return result


def _error(output: str) -> str:
    """Why neo4j-admin failed, from its (verbose) output: the first cause under its "Error
    importing csv file." (the exception's message with its indented lines: for a bad input row the
    ``ERROR in input`` block with the file, line, field, raw value and "original error"), else
    the output's last lines."""
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Caused by: "):
            block = [line[len("Caused by: "):]]
            for more in lines[i + 1:]:
                if not more.startswith("  "):
                    break
                block.append(more.strip())
            return "\n".join(block)
    useful = [x for x in lines if x.strip() and not x.startswith(("..", "\tat ", "-."))]
    return "\n".join(useful[-15:])


# ---- canonical form -------------------------------------------------------------------------


def _value(typed: dict[str, Any]) -> tuple:
    t, v = typed["t"], typed["v"]
    if t == "list":
        return ("list", tuple(_value(x) for x in v))
    if t == "point":
        return ("point", tuple(sorted(v.items())))
    if t == "double" and not isinstance(v, str):
        return ("double", float(v))
    return (t, v)


def _props(props: dict[str, Any]) -> tuple:
    return tuple(sorted((k, _value(v)) for k, v in props.items()))


def sort_signatures(items: Iterable[tuple]) -> tuple:
    """Signatures in canonical()'s order (for building an expected canonical graph by hand).
    Sorted by repr: values of one type can differ in Python type ("NaN" and 1.5 are both doubles),
    which tuples cannot be ordered by."""
    return tuple(sorted(items, key=repr))


def canonical(graph: dict[str, Any]) -> tuple[tuple, tuple]:
    """(node signatures, relationship signatures), each sorted: a multiset form of the graph
    without internal ids. A node is (sorted labels, sorted (key, value) properties); a
    relationship (start node, type, end node, sorted properties), its ends as node signatures. A
    value is (type, value) as in the dump, a list ("list", (values...)), a point ("point",
    sorted (field, number) pairs). Everything is a tuple (hashable)."""
    sig = {}
    for n in graph["nodes"]:
        sig[n["id"]] = (tuple(sorted(n["labels"])), _props(n.get("props", {})))
    rels = ((sig[r["start"]], r["type"], sig[r["end"]], _props(r.get("props", {}))) for r in graph["relationships"])
    return sort_signatures(sig.values()), sort_signatures(rels)


def _fmt_value(v: tuple) -> str:
    t, x = v
    if t == "list":
        return "[" + ", ".join(_fmt_value(e) for e in x) + "]"
    if t == "point":
        return "point(" + ", ".join(f"{k}: {val}" for k, val in x) + ")"
    return f"{t} {x!r}"


def _fmt_props(props: tuple) -> str:
    return "{" + ", ".join(f"{k}: {_fmt_value(v)}" for k, v in props) + "}" if props else ""


def format_node(sig: tuple) -> str:
    labels, props = sig
    return "(" + "".join(":" + label for label in labels) + (" " if labels and props else "") + _fmt_props(props) + ")"


def format_relationship(sig: tuple) -> str:
    start, rtype, end, props = sig
    return f"{format_node(start)}-[:{rtype}{' ' + _fmt_props(props) if props else ''}]->{format_node(end)}"


def describe_difference(a: tuple, b: tuple, limit: int = 20, names: tuple[str, str] = ("a", "b")) -> str:
    """What differs between two canonical graphs: nodes and relationships only in one (with how
    many more times it occurs there), at most `limit` of each kind; "" when they are equal."""
    out = []
    for kind, index, fmt in (("nodes", 0, format_node), ("relationships", 1, format_relationship)):
        ca, cb = Counter(a[index]), Counter(b[index])
        for mine, theirs, name in ((ca, cb, names[0]), (cb, ca, names[1])):
            extra = mine - theirs
            if not extra:
                continue
            total = sum(extra.values())
            out.append(f"{kind} only in {name} ({total}; {name} has {sum(mine.values())} in all):")
            for i, (s, k) in enumerate(sorted(extra.items(), key=lambda e: repr(e[0]))):
                if i == limit:
                    out.append(f"  ... {len(extra) - limit} more")
                    break
                out.append(f"  {fmt(s)}" + (f"  x{k}" if k > 1 else ""))
    return "\n".join(out)
