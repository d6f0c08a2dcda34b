"""The real graphs of ../shared/datasets, parsed once into one normalised edge file per dataset.

Every engine imports the same normalised file (`src,dst,weight` CSV with a header, integer ids,
one row per directed pair): the raw files differ in ways some loaders cannot express (a
`NODES EDGES` count line in web-NotreDame, DIMACS `c`/`p`/`a` lines, parallel arcs in road-NY),
and a benchmark of stores, not of parsers, should feed them identical input. Parsing rules:
`#` and `%` lines are comments; DIMACS `c` and `p` lines are skipped and an `a U V W` line is an
arc; a first data line whose two fields are not integers is a header; fields are split on
whitespace or commas; the third field is the weight where the dataset has one, else the weight
is 1.0; a pair seen again keeps the last weight (as an upsert would). Self-loops are kept.
"""

import gzip
import json
import os
import re

# name -> (file under the data root, data lines to skip at the start, what the weight is)
DATASETS = {
    "snap-wiki-Vote": ("snap-wiki-Vote/wiki-Vote.txt.gz", 0, "none (1.0)"),
    "snap-email-Enron": ("snap-email-Enron/email-Enron.txt.gz", 0, "none (1.0)"),
    "snap-web-NotreDame": ("snap-web-NotreDame/web-NotreDame.txt.gz", 1, "none (1.0)"),  # first line: "325729 1497134"
    "dimacs9-road-NY": ("dimacs9-road-NY/USA-road-d.NY.gr.gz", 0, "distance (USA-road-d)"),
    "musae-github": ("musae-github/git_edges.csv.gz", 0, "none (1.0)"),
}
PROFILE_DATASETS = {
    "quick": ["snap-wiki-Vote"],
    "full": ["snap-wiki-Vote", "snap-email-Enron", "snap-web-NotreDame", "dimacs9-road-NY", "musae-github"],
}
SPLIT = re.compile(r"[\s,]+")
FORMAT = 1  # bump when the parsing rules change, so cached normalised files are rebuilt


def default_root():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.environ.get("HOPDB_DATASETS") or os.path.abspath(os.path.join(here, "..", "..", "..", "shared", "datasets"))


def open_text(path):
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    return gzip.open(path, "rt", encoding="utf-8") if gz else open(path, encoding="utf-8")


def parse_lines(lines, skip=0):
    """(src, dst, weight) for every data line, in file order (duplicates not merged)."""
    first = True
    for line in lines:
        t = line.strip()
        if not t or t[0] in "#%" or t == "c" or t.startswith(("c ", "p ")):
            continue
        if skip:
            skip -= 1
            continue
        f = [x for x in SPLIT.split(t) if x]
        if f[0] == "a":
            f = f[1:]
        if len(f) < 2:
            raise ValueError(f"expected two node ids: {t!r}")
        try:
            s, d = int(f[0]), int(f[1])
        except ValueError:
            if first:
                first = False
                continue  # a header of column names
            raise ValueError(f"node ids are not integers: {t!r}") from None
        first = False
        yield s, d, float(f[2]) if len(f) > 2 else 1.0


def merge(rows):
    """{(src, dst): weight}, the last weight of a repeated pair winning; and the number of rows."""
    out = {}
    n = 0
    for s, d, w in rows:
        out[(s, d)] = w
        n += 1
    return out, n


class Dataset:
    """One graph: `edges` {(src, dst): weight}, `nodes` (sorted ids), `csv` (the normalised file)."""

    def __init__(self, name, csv_path, edges, info):
        self.name, self.csv, self.edges = name, csv_path, edges
        self.nodes = sorted({v for e in edges for v in e})
        self.info = dict(info, nodes=len(self.nodes))


def load(name, root, cache):
    """Parse the dataset (or read the normalised file cached under `cache`); None if it is absent."""
    rel, skip, weight = DATASETS[name]
    src = os.path.join(root, rel)
    if not os.path.exists(src):
        return None
    d = os.path.join(cache, name)
    csv_path, meta_path = os.path.join(d, "edges.csv"), os.path.join(d, "meta.json")
    st = os.stat(src)
    stamp = {"source": src, "bytes": st.st_size, "mtime": st.st_mtime, "format": FORMAT}
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else None
    if meta and meta.get("stamp") == stamp and os.path.exists(csv_path):
        with open(csv_path) as f:
            edges, _ = merge(parse_lines(f))
        return Dataset(name, csv_path, edges, meta["info"])
    with open_text(src) as f:
        edges, lines = merge(parse_lines(f, skip))
    os.makedirs(d, exist_ok=True)
    with open(csv_path + ".tmp", "w") as f:
        f.write("src,dst,weight\n")
        for (s, t), w in edges.items():
            f.write(f"{s},{t},{w!r}\n")
    os.replace(csv_path + ".tmp", csv_path)
    info = {
        "file": rel,
        "lines": lines,
        "edges": len(edges),
        "duplicates_merged": lines - len(edges),
        "self_loops": sum(1 for s, t in edges if s == t),
        "weight": weight,
    }
    json.dump({"stamp": stamp, "info": info}, open(meta_path, "w"), indent=1)
    return Dataset(name, csv_path, edges, info)
