"""A private PostgreSQL for the cluster's Python tests and benches: initdb into a fresh directory
under /var/tmp, started on 127.0.0.1 at a free port with trust authentication for the user
``hopdb`` and ``fsync = off``; as root the server runs as the ``postgres`` user (PostgreSQL
refuses root). Binaries from ``$PG_BIN`` or Debian's ``/usr/lib/postgresql/15/bin``
(``scripts/setup.sh`` installs them). Only the standard library: no client driver needed, the
cluster connects by itself."""

import os
import shutil
import socket
import subprocess
import tempfile


def bindir():
    for d in [os.environ.get("PG_BIN"), "/usr/lib/postgresql/15/bin"]:
        if d and os.access(os.path.join(d, "initdb"), os.X_OK):
            return d
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrivatePostgres:
    """Started by the constructor, stopped and removed by ``stop()``; ``conn()`` is the libpq
    connection string of its ``postgres`` database."""

    def __init__(self):
        self.bin = bindir()
        if self.bin is None:
            raise RuntimeError("no PostgreSQL server binaries (apt-get install postgresql, or set PG_BIN)")
        self.user = "postgres" if os.geteuid() == 0 else None
        self.root = tempfile.mkdtemp(prefix="hopdb-pg-", dir="/var/tmp")
        if self.user:
            shutil.chown(self.root, self.user)
        self.data = os.path.join(self.root, "data")
        self._run("initdb", "-D", self.data, "-U", "hopdb", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync")
        self.port = free_port()
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write(f"\nport = {self.port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{self.root}'\nfsync = off\n")
        self._run("pg_ctl", "-D", self.data, "-l", os.path.join(self.root, "server.log"), "-w", "-t", "60", "start")

    def _run(self, tool, *args):
        cmd = [os.path.join(self.bin, tool), *args]
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True, cwd="/")

    def conn(self) -> str:
        return f"host=127.0.0.1 port={self.port} user=hopdb dbname=postgres"

    def stop(self):
        try:
            self._run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
