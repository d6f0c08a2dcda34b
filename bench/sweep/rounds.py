"""Medians and ratios over repeated sweep rounds, one or more labelled variants of HopDB.

    python3 -m bench.sweep.rounds --label before DIR DIR --label after DIR DIR DIR \
        [--engine hopdb-bolt] [--mix retrieval] [--md OUT.md] [--chart OUT.png]

Each DIR is one `bench.sweep.run` output (its results.jsonl). For every label: per client count,
HopDB's q/s and p99 in each round and their medians, each peer's q/s, and HopDB/peer per round
(HopDB's q/s over the peer's in the same round, so the machine's drift cancels) with the median
of those ratios; the load generator's CPU share with HopDB. The chart draws HopDB/peer at each
client count (median, with the rounds' range) and HopDB's p99, one group per label.
"""

import argparse
import json
import os
import statistics


def load(d, mix):
    """{(engine, clients): row} of one run directory's uncapped, successful points."""
    out = {}
    with open(os.path.join(d, "results.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if r.get("status") == "ok" and r.get("mix") == mix and not r.get("capped"):
                out[(r["engine"], r["clients"])] = r
    return out


def summarize(groups, engine, mix):
    """[(label, {clients: {...}})] with per-round figures and medians."""
    result = []
    for label, dirs in groups:
        runs = [load(d, mix) for d in dirs]
        clients = sorted({c for run in runs for (e, c) in run if e == engine})
        peers = sorted({e for run in runs for (e, _) in run if e != engine})
        per = {}
        for c in clients:
            qps = [run[(engine, c)]["qps"] for run in runs if (engine, c) in run]
            p99 = [run[(engine, c)]["overall"]["p99_us"] / 1000 for run in runs if (engine, c) in run]
            cpu = [run[(engine, c)].get("client_cpu_share") for run in runs if (engine, c) in run]
            ratios = {}
            peer_qps = {}
            for p in peers:
                rs = [run[(engine, c)]["qps"] / run[(p, c)]["qps"] for run in runs if (engine, c) in run and (p, c) in run]
                pq = [run[(p, c)]["qps"] for run in runs if (p, c) in run]
                if rs:
                    ratios[p] = rs
                    peer_qps[p] = pq
            per[c] = {"qps": qps, "p99_ms": p99, "cpu": [x for x in cpu if x is not None], "ratios": ratios, "peer_qps": peer_qps}
        result.append((label, per))
    return result


def fmt_list(xs, f):
    return " / ".join(f.format(x) for x in xs)


def markdown(summary, engine):
    lines = []
    for label, per in summary:
        lines.append(f"**{label}** ({engine}):\n")
        lines.append("| clients | q/s (rounds) | median | p99 ms (rounds) | median | client CPU (cores) | peer q/s (rounds) | HopDB/peer (rounds) | median |")
        lines.append("|---:|---|---:|---|---:|---|---|---|---:|")
        for c, v in per.items():
            peers = sorted(v["ratios"])
            for i, p in enumerate(peers or [None]):
                head = (
                    f"| {c} | {fmt_list(v['qps'], '{:,.0f}')} | {statistics.median(v['qps']):,.0f} | "
                    f"{fmt_list(v['p99_ms'], '{:.1f}')} | {statistics.median(v['p99_ms']):.1f} | "
                    f"{fmt_list(v['cpu'], '{:.2f}')} |"
                    if i == 0
                    else "| | | | | | |"
                )
                if p is None:
                    lines.append(head + " | | |")
                else:
                    rs = v["ratios"][p]
                    lines.append(
                        f"{head} {p}: {fmt_list(v['peer_qps'][p], '{:,.0f}')} | {fmt_list(rs, '{:.2f}')} | "
                        f"**{statistics.median(rs):.2f}x** |"
                    )
        lines.append("")
    return "\n".join(lines)


def chart(summary, peer, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
    labels = [label for label, _ in summary]
    clients = sorted({c for _, per in summary for c in per})
    width = 0.8 / max(1, len(labels))
    for i, (label, per) in enumerate(summary):
        xs = [clients.index(c) + i * width for c in per]
        med = [statistics.median(per[c]["ratios"].get(peer, [0])) for c in per]
        lo = [m - min(per[c]["ratios"].get(peer, [0])) for m, c in zip(med, per, strict=True)]
        hi = [max(per[c]["ratios"].get(peer, [0])) - m for m, c in zip(med, per, strict=True)]
        a1.bar(xs, med, width, yerr=[lo, hi], capsize=3, label=label)
        p99 = [statistics.median(per[c]["p99_ms"]) for c in per]
        a2.bar(xs, p99, width, label=label)
    for a in (a1, a2):
        a.set_xticks([k + 0.4 - width / 2 for k in range(len(clients))])
        a.set_xticklabels([f"{c} clients" for c in clients])
        a.legend(fontsize=8)
    a1.set_title(f"HopDB over Bolt / {peer}, q/s (median; bars: rounds' range)")
    a1.axhline(1, color="grey", lw=0.8)
    a2.set_title("HopDB over Bolt, p99 latency (ms, median of rounds)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--label", nargs="+", action="append", metavar=("LABEL", "DIR"), required=True)
    ap.add_argument("--engine", default="hopdb-bolt")
    ap.add_argument("--mix", default="retrieval")
    ap.add_argument("--peer", default="postgres", help="the peer the chart compares with")
    ap.add_argument("--md")
    ap.add_argument("--chart")
    a = ap.parse_args()
    groups = [(g[0], g[1:]) for g in a.label]
    s = summarize(groups, a.engine, a.mix)
    text = markdown(s, a.engine)
    print(text)
    if a.md:
        with open(a.md, "w") as f:
            f.write(text + "\n")
    if a.chart:
        chart(s, a.peer, a.chart)


if __name__ == "__main__":
    main()
