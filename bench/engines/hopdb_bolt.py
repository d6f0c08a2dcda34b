"""HopDB over Bolt for the concurrency sweep (bench/sweep): `hopdb serve STORE --read-only
--no-http --no-auth --bolt 127.0.0.1:PORT` on the kept store of bench/engines/hopdb.py (`hopdb
import`, under DATA_ROOT/deep/sS/hopdb/store), driven by hopdb-loadgen's `hopdb-bolt` engine
(crates/hopdb-loadgen/src/engines/hopdb_bolt.rs: the lean Cypher of hopdb_cypher.py over a Bolt 4.4
connection per client). The server serves connections from a worker pool and builds the adjacency
projection in the background once it listens; its peak RSS is logged when it stops.
"""

import os
import socket
import subprocess
import time

from bench.benchlib import hopdb_bin, log

from .base import Unavailable, free_port
from .hopdb import ensure_store

NOTES = "HopDB over Bolt (hopdb serve, worker pool)"


def serve_bin():
    """The release `hopdb`: $HOPDB_BIN, else $CARGO_TARGET_DIR/release/hopdb, else hopdb_bin()."""
    if os.environ.get("HOPDB_BIN"):
        return os.environ["HOPDB_BIN"]
    t = os.environ.get("CARGO_TARGET_DIR")
    return os.path.join(t, "release", "hopdb") if t else hopdb_bin()


class HopDBServe:
    """A `hopdb serve --read-only` of the hopdb engine's store on a free loopback port; close()
    stops it with SIGTERM (SIGKILL after the grace)."""

    def __init__(self, data, hopdb_cache, log_dir, reload=False, wait_s=120.0):
        b = serve_bin()
        if not os.access(b, os.X_OK):
            raise Unavailable(f"no hopdb binary at {b} (`source scripts/env.sh && cargo build --release -p hopdb-cli`)")
        self.store, info, _ = ensure_store(data, hopdb_cache, reload)
        self.version = subprocess.run([b, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
        self.port = free_port()
        self.log_path = os.path.join(log_dir, "serve.log")
        self.cmd = [b, "serve", self.store, "--read-only", "--no-http", "--no-auth", "--bolt", f"127.0.0.1:{self.port}"]
        self.log = open(self.log_path, "w")
        t = time.perf_counter()
        self.proc = subprocess.Popen(self.cmd, stdout=self.log, stderr=subprocess.STDOUT)
        try:
            self._wait(wait_s)
        except BaseException:
            self.close()
            raise
        self.start_s = time.perf_counter() - t
        self.target = f"bolt://127.0.0.1:{self.port}"
        self.notes = (
            f"{NOTES}: {self.version}; `{' '.join(self.cmd)}` on the hopdb engine's store ({info.get('nodes', '?')} nodes, "
            f"{info.get('edges', '?')} edges), listening in {self.start_s:.1f} s; the adjacency projection built in the "
            "background at start"
        )
        #: The server's peak resident memory (VmHWM, MiB), read when it stops.
        self.peak_rss_mb = None

    def _wait(self, wait_s):
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"hopdb serve exited {self.proc.returncode}: {self._tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"hopdb serve did not listen on 127.0.0.1:{self.port} within {wait_s:.0f} s: {self._tail()}")

    def _tail(self):
        self.log.flush()
        return open(self.log_path, errors="replace").read()[-1500:]

    def peak_rss(self):
        """The server's peak resident set so far, in MiB (Linux /proc), or None."""
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            return None
        return None

    def close(self):
        if self.proc.poll() is None:
            self.peak_rss_mb = self.peak_rss()
            if self.peak_rss_mb is not None:
                log(f"hopdb serve: peak RSS {self.peak_rss_mb:.0f} MiB ({self.store})")
            self.proc.terminate()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
