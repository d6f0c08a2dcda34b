"""The README's ``hopdb serve`` example (its Python block that uses the Neo4j driver), run as
written against a served store on a free port."""

import pathlib

import pytest
from test_server import BINARY, Server

pytestmark = pytest.mark.skipif(BINARY is None, reason="the hopdb binary is not built: run `cargo build --release -p hopdb-cli`")


def test_readme_bolt_example_runs(tmp_path, capsys):
    readme = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text()
    blocks = [b.split("```", 1)[0] for b in readme.split("```python\n")[1:]]
    block = next(b for b in blocks if "GraphDatabase.driver" in b)
    server = Server(tmp_path / "store", tmp_path)
    try:
        exec(compile(block.replace("127.0.0.1:7687", f"127.0.0.1:{server.port}"), "README.md", "exec"), {})
    finally:
        assert server.stop() == 0, server.output()
    assert "['Ada']" in capsys.readouterr().out
