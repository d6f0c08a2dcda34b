"""A power-law graph for the cluster's memo-scale figures (issue 24): R-MAT edges (the Graph500
generator's recursive quadrant choice, a=0.57, b=c=0.19) written as a gzip'd edge list that
`hopdb import --edge-list` reads. Vertex ids are scrambled by a fixed permutation so hubs are
not the small ids; self-loops are dropped; duplicate pairs stay (the store keeps one edge).

    python3 bench/cluster/rmat.py OUT.txt.gz --scale 24 --edges 110000000 [--seed 1]
"""

import argparse
import gzip

import numpy as np

A, B, C = 0.57, 0.19, 0.19
CHUNK = 5_000_000


def rmat_chunk(rng, n, scale):
    src = np.zeros(n, dtype=np.int64)
    dst = np.zeros(n, dtype=np.int64)
    for bit in range(scale):
        r = rng.random(n)
        right = (r >= A) & (r < A + B) | (r >= A + B + C)
        down = r >= A + B
        src |= down.astype(np.int64) << bit
        dst |= right.astype(np.int64) << bit
    return src, dst


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--scale", type=int, default=24, help="2^scale vertex ids")
    ap.add_argument("--edges", type=int, default=110_000_000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    perm = rng.permutation(1 << a.scale)
    written = 0
    with gzip.open(a.out, "wt", compresslevel=1) as f:
        while written < a.edges:
            n = min(CHUNK, a.edges - written)
            s, d = rmat_chunk(rng, n, a.scale)
            s, d = perm[s], perm[d]
            keep = s != d
            lines = np.char.add(np.char.add(s[keep].astype(str), " "), d[keep].astype(str))
            f.write("\n".join(lines.tolist()))
            f.write("\n")
            written += n
            print(f"{written:,} edges", flush=True)


if __name__ == "__main__":
    main()
