"""``hopdb serve`` for the run: started on a fresh store on a free loopback port, stopped with
SIGTERM; a watchdog kills it when a scenario runs past its deadline (a hung query would
otherwise block the driver's read forever), after which the run starts a new one."""

from __future__ import annotations

import os
import pathlib
import signal
import socket
import subprocess
import threading
import time

AUTH = ("neo4j", "any password: authentication is disabled")


def binary() -> pathlib.Path | None:
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.expanduser("~/.cache/hopdb/target")
    path = pathlib.Path(target) / "release" / "hopdb"
    return path if path.is_file() and os.access(path, os.X_OK) else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``hopdb serve STORE --create --bolt 127.0.0.1:PORT --no-http``, stderr in a log file."""

    def __init__(self, exe: pathlib.Path, workdir: pathlib.Path, n: int):
        self.port = free_port()
        self.store = workdir / f"store-{n}"
        self.log_path = workdir / f"serve-{n}.log"
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [str(exe), "serve", str(self.store), "--create", "--bolt", f"127.0.0.1:{self.port}", "--no-http"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
        )
        self._wait_listening()

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.port}"

    def output(self, tail: int = 4000) -> str:
        if not self.log.closed:
            self.log.flush()
        return self.log_path.read_text(errors="replace")[-tail:]

    def _wait_listening(self):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"hopdb serve exited with {self.proc.returncode}:\n{self.output()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        self.proc.kill()
        raise RuntimeError(f"hopdb serve did not listen within 30 s:\n{self.output()}")

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()

    def stop(self) -> int | None:
        try:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            return self.proc.returncode
        finally:
            self.log.close()


class Watchdog:
    """Kills the current server when ``deadline`` (time.monotonic()) passes; one thread for the run."""

    def __init__(self):
        self.server: Server | None = None
        self.deadline: float | None = None
        self.fired = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="tck-bolt-watchdog", daemon=True)
        self._thread.start()

    def arm(self, server: Server, seconds: float):
        self.fired = False
        self.server = server
        self.deadline = time.monotonic() + seconds

    def disarm(self):
        self.deadline = None

    def _loop(self):
        while not self._stop.wait(0.25):
            d, s = self.deadline, self.server
            if d is not None and s is not None and time.monotonic() > d:
                self.fired = True
                self.deadline = None
                s.kill()

    def close(self):
        self._stop.set()
        self._thread.join()
