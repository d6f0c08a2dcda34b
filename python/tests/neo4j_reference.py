"""A real Neo4j 5.26 (Community, embedded, with APOC core) on loopback, the reference the
differential tests compare ``hopdb serve`` with (test_lightrag_vs_neo4j.py,
test_langchain_neo4j.py), and a ``hopdb serve`` beside it.

Neo4j: no distribution can be downloaded here, but its jars and APOC's are on Maven Central.
neo4j_server/pom.xml lists them; Maven resolves the classpath once (minutes on a fresh machine,
mostly downloads into ~/.m2) and it is cached in ~/.cache/hopdb/neo4j-reference/ (keyed by the
pom's content). neo4j_server/Neo4jTestServer.java, run by Java's single-file source launcher, opens
an embedded DBMS over a fresh home directory (an empty database), with Bolt on 127.0.0.1:PORT, no
TLS, no authentication, the APOC jars as its plugin directory and ``apoc.*`` unrestricted; it
prints READY when the database is up and the APOC procedures are registered, and exits when its
standard input closes. The JVM gets a small heap (-Xmx768m) and the serial collector, for a
2-core machine shared with others.

``unavailable_reason()`` says why Neo4j cannot be started (no java, no mvn) so the tests can
skip, saying so; anything else going wrong fails them.

Importing this module imports neither the Neo4j driver nor LightRAG."""

from __future__ import annotations

import hashlib
import os
import pathlib
import shutil
import socket
import subprocess
import threading
import time
from typing import Optional

HERE = pathlib.Path(__file__).resolve().parent
JAVA_DIR = HERE / "neo4j_server"
POM = JAVA_DIR / "pom.xml"
LAUNCHER = JAVA_DIR / "Neo4jTestServer.java"
HEAP = os.environ.get("HOPDB_NEO4J_HEAP", "768m")
START_TIMEOUT = 300  # seconds: JVM start, source compilation, store creation, procedure compilation


def cache_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("HOPDB_NEO4J_CACHE") or os.path.expanduser("~/.cache/hopdb/neo4j-reference"))


def unavailable_reason(pom: pathlib.Path = POM) -> Optional[str]:
    """Why the reference Neo4j cannot be started here, or None when it can (as far as the tools go).

    `pom` is the Maven project whose jars are needed (neo4j_admin.py passes its own)."""
    if not shutil.which("java"):
        return "no java on PATH: the reference Neo4j 5.26 needs Java 17 or 21 (apt-get install openjdk-17-jdk-headless)"
    if not shutil.which("mvn") and not _cached_classpath_file(pom).exists():
        return "no mvn on PATH: Maven resolves the reference Neo4j's jars from Maven Central (apt-get install maven)"
    return None


def _cached_classpath_file(pom: pathlib.Path = POM) -> pathlib.Path:
    digest = hashlib.sha256(pom.read_bytes()).hexdigest()[:16]
    return cache_dir() / f"classpath-{digest}.txt"


_resolve_lock = threading.Lock()


def classpath(pom: pathlib.Path = POM) -> str:
    """The jars' classpath (Neo4j, apoc-common, apoc-core), resolved by Maven once and cached.

    `pom` is another Maven project to resolve the same way (neo4j_admin.py's, with the import tool)."""
    cp_file = _cached_classpath_file(pom)
    with _resolve_lock:
        if cp_file.exists():
            cp = cp_file.read_text().strip()
            if all(os.path.exists(j) for j in cp.split(os.pathsep)):
                return cp
            cp_file.unlink()  # ~/.m2 was cleaned: resolve again
        if not shutil.which("mvn"):
            raise RuntimeError("mvn not found (apt-get install maven)")
        cp_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = cp_file.with_suffix(f".tmp{os.getpid()}")
        r = subprocess.run(
            ["mvn", "-q", "-B", "-f", str(pom), "dependency:build-classpath", f"-Dmdep.outputFile={tmp}"],
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if r.returncode != 0 or not tmp.exists():
            raise RuntimeError("Maven could not resolve the reference Neo4j's jars: " + (r.stdout + r.stderr)[-2000:])
        os.replace(tmp, cp_file)
        return cp_file.read_text().strip()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Neo4jReference:
    """Neo4j 5.26 + APOC on 127.0.0.1 over a fresh home directory under `work`.

    ``uri`` is its bolt:// address (no authentication: any credentials are accepted);
    ``startup_s`` how long the start took (JVM to READY, after the classpath is known)."""

    def __init__(self, work: pathlib.Path):
        cp = classpath()
        work = pathlib.Path(work)
        self.home = work / "neo4j-home"
        plugins = work / "neo4j-plugins"
        self.home.mkdir(parents=True)
        plugins.mkdir(parents=True)
        # The plugin directory holds the APOC jars (links into ~/.m2): Neo4j registers the
        # procedures and functions it finds in them, as a server with the plugin installed does.
        for jar in cp.split(os.pathsep):
            if "/org/neo4j/procedure/apoc-" in jar.replace(os.sep, "/"):
                os.symlink(jar, plugins / os.path.basename(jar))
        self.port = free_port()
        self.log_path = work / "neo4j.log"
        self._log = open(self.log_path, "wb")
        t = time.perf_counter()
        self.proc = subprocess.Popen(
            [
                "java", f"-Xmx{HEAP}", "-Xss2m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dfile.encoding=UTF-8", "-cp", cp, str(LAUNCHER), str(self.home), str(self.port), str(plugins),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env=dict(os.environ, NEO4J_HOME=str(self.home)),
            cwd=str(work),
            text=True,
        )
        line = self._wait_ready()
        self.startup_s = time.perf_counter() - t
        self.ready_line = line

    def _wait_ready(self) -> str:
        result: list[str] = []

        def read() -> None:
            for line in self.proc.stdout:
                if line.startswith(("READY", "FAILED")):
                    result.append(line.strip())
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(START_TIMEOUT)
        if not result or not result[0].startswith("READY"):
            said = result[0] if result else f"no READY within {START_TIMEOUT} s"
            self.stop()
            raise RuntimeError(f"the reference Neo4j did not start ({said}):\n{self.output()[-3000:]}")
        return result[0]

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.port}"

    def output(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        """Closes its standard input (it shuts down cleanly), killing it after 60 s."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


# ---- hopdb serve ----------------------------------------------------------------------------


def hopdb_binary() -> Optional[pathlib.Path]:
    """The release `hopdb` binary ($CARGO_TARGET_DIR/release/hopdb), or None when not built."""
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.expanduser("~/.cache/hopdb/target")
    path = pathlib.Path(target) / "release" / "hopdb"
    return path if path.is_file() and os.access(path, os.X_OK) else None


class HopDBServer:
    """``hopdb serve STORE --create --bolt 127.0.0.1:PORT --no-http`` on a fresh store under
    `work`, its stderr in a file (test_server.py's Server, without HTTP)."""

    def __init__(self, work: pathlib.Path, binary: Optional[pathlib.Path] = None):
        binary = binary or hopdb_binary()
        if binary is None:
            raise RuntimeError("the hopdb binary is not built (cargo build --release -p hopdb-cli)")
        work = pathlib.Path(work)
        work.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.log_path = work / f"hopdb-serve-{self.port}.log"
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [str(binary), "serve", str(work / "store"), "--create", "--bolt", f"127.0.0.1:{self.port}", "--no-http"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._log,
        )
        deadline = time.monotonic() + 30
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"hopdb serve exited with {self.proc.returncode}:\n{self.output()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"hopdb serve did not listen within 30 s:\n{self.output()}") from None
                time.sleep(0.05)

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.port}"

    def output(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self) -> Optional[int]:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        return self.proc.returncode


def subject() -> str:
    """The differential tests' subject: "hopdb" (``hopdb serve``), or "neo4j" with
    HOPDB_DIFF_SUBJECT=neo4j (a second Neo4j, against which the tests must pass too)."""
    return os.environ.get("HOPDB_DIFF_SUBJECT", "hopdb")


def skip_marks() -> list:
    """pytest marks that skip a differential test, saying why, when the hopdb binary is not
    built (and it is the subject) or the reference Neo4j cannot be started here."""
    import pytest

    reason = unavailable_reason()
    return [
        pytest.mark.skipif(
            subject() == "hopdb" and hopdb_binary() is None,
            reason="the hopdb binary is not built: run `cargo build --release -p hopdb-cli` (looked for $CARGO_TARGET_DIR/release/hopdb)",
        ),
        pytest.mark.skipif(reason is not None, reason=str(reason)),
    ]


def start_pair(tmp: pathlib.Path, subject: str):
    """(reference, subject): a Neo4j, and beside it ``hopdb serve`` (``subject`` "hopdb") or a
    second Neo4j (``subject`` "neo4j": the differential tests must pass then). The caller
    stops both."""
    neo = Neo4jReference(tmp / "neo4j")
    try:
        sub = Neo4jReference(tmp / "neo4j-subject") if subject == "neo4j" else HopDBServer(tmp / "hopdb")
    except BaseException:
        neo.stop()
        raise
    return neo, sub
