"""Fails when a test or benchmark imports a third-party module that no pinned requirements file
lists, so a package installed by hand on one machine cannot keep a test green that a fresh
machine would fail (issue 18).

Reads the module-level imports (not the lazy ones inside functions, which load optional peer
engines) of python/, bench/ and crates/*/tests, maps each third-party module to the distribution
that provides it in this environment, and checks that the distribution is pinned in
scripts/requirements-test.txt (or, for bench/ code, in a bench/**/requirements.txt, which the
harnesses install into the same environment when they run).

    usage: python scripts/check_requirements.py
"""

import ast
import importlib.metadata as md
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIRST_PARTY = {"hopdb", "_hopdb", "bench"}


def pinned(path: pathlib.Path) -> set[str]:
    names = set()
    if not path.exists():
        return names
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("-r "):
            names |= pinned(path.parent / line[3:].strip())
        elif line:
            names.add(normalize(re.split(r"[\[=<>~! ;]", line, maxsplit=1)[0]))
    return names


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def top_level_imports(path: pathlib.Path):
    try:
        tree = ast.parse(path.read_text(), str(path))
    except SyntaxError as e:
        sys.exit(f"check_requirements: {path}: cannot parse: {e}")
    for node in tree.body:  # module level only
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module.split(".")[0]


def local_modules(path: pathlib.Path) -> set[str]:
    """Modules that are files or packages beside the importing file (test helpers, conftest)."""
    return {p.stem for p in path.parent.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}


def main() -> int:
    tests = pinned(ROOT / "scripts" / "requirements-test.txt")
    benches = set(tests)
    for req in (ROOT / "bench").rglob("requirements.txt"):
        benches |= pinned(req)
    providers = md.packages_distributions()
    problems = []
    roots = [(ROOT / "python", tests), (ROOT / "bench", benches)]
    roots += [(d, tests) for d in (ROOT / "crates").glob("*/tests")]
    for root, allowed in roots:
        for path in sorted(root.rglob("*.py")):
            local = local_modules(path)
            for line, mod in top_level_imports(path):
                if mod in sys.stdlib_module_names or mod in FIRST_PARTY or mod in local:
                    continue
                dists = {normalize(d) for d in providers.get(mod, [])}
                where = f"{path.relative_to(ROOT)}:{line}"
                if not dists:
                    problems.append(f"{where}: imports {mod!r}, which no installed package provides")
                elif not dists & allowed:
                    problems.append(f"{where}: imports {mod!r} (from {', '.join(sorted(dists))}), not pinned in the requirements")
    for p in problems:
        print(f"check_requirements: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
