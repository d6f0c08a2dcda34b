"""The soak's summary (from the worker's JSONL) and its chart (PNG: RSS and cgroup usage, p99
latency, throughput over time)."""
import json
import statistics

KINDS = ("q1q7", "lightrag", "writer")

# Thresholds (see README.md for why these values):
RSS_SLOPE_MIB_PER_H = 16.0  # worker RSS growth trend after the warm-up, least squares
P99_DRIFT = 2.0  # median p99 of the last quarter / of the first quarter, per kind
WRITER_HELD = 0.97  # writes/s after the warm-up as a fraction of the target rate
MIN_TREND_SPAN_S = 900  # shorter analysed spans report slope and drift but do not judge them


def load(path):
    start, samples, done, crash = None, [], None, None
    for line in open(path):
        d = json.loads(line)
        ev = d.get("event")
        if ev == "start":
            start = d
        elif ev == "done":
            done = d
        elif ev == "crash":
            crash = d
        elif not d.get("final"):
            samples.append(d)
    return start, samples, done, crash


def slope_per_hour(ts, ys):
    """Least-squares slope of ys over ts (seconds), per hour."""
    if len(ts) < 2:
        return None
    mt, my = statistics.fmean(ts), statistics.fmean(ys)
    den = sum((t - mt) ** 2 for t in ts)
    if den == 0:
        return None
    return sum((t - mt) * (y - my) for t, y in zip(ts, ys, strict=True)) / den * 3600


def summarize(path, warmup_s, write_rate, cg_stats=None, exit_code=None, thresholds=None):
    th = {"rss_slope_mib_per_h": RSS_SLOPE_MIB_PER_H, "p99_drift": P99_DRIFT, "writer_held": WRITER_HELD, "min_trend_span_s": MIN_TREND_SPAN_S}
    th.update(thresholds or {})
    start, samples, done, crash = load(path)
    after = [s for s in samples if s["t"] > warmup_s]
    span = (after[-1]["t"] - after[0]["t"]) if len(after) > 1 else 0
    judged = span >= th["min_trend_span_s"]
    out = {"samples": len(samples), "samples_after_warmup": len(after), "warmup_s": warmup_s, "analysed_span_s": round(span, 1), "trend_judged": judged}
    if samples:
        out["rss_mib"] = {"first": samples[0]["vmrss"], "start_after_warmup": after[0]["vmrss"] if after else None, "end": samples[-1]["vmrss"],
                          "max": max(s["vmrss"] for s in samples), "hwm": samples[-1].get("vmhwm")}  # fmt: skip
        cg = [s.get("cgroup_mib") for s in samples if s.get("cgroup_mib") is not None]
        if cg:
            out["cgroup_mib"] = {"first": cg[0], "end": cg[-1], "max": max(cg)}
    rs = slope_per_hour([s["t"] for s in after], [s["vmrss"] for s in after]) if len(after) > 2 else None
    out["rss_slope_mib_per_h"] = None if rs is None else round(rs, 2)
    if after and any(s.get("cgroup_mib") is not None for s in after):
        cs = slope_per_hour([s["t"] for s in after if s.get("cgroup_mib") is not None], [s["cgroup_mib"] for s in after if s.get("cgroup_mib") is not None])
        out["cgroup_slope_mib_per_h"] = None if cs is None else round(cs, 2)
    parts = [s for s in after if "memory" in s]
    if len(parts) > 2:  # each owner's slope: which part grows (worker.memory_parts)
        ts = [s["t"] for s in parts]
        out["memory_slopes_mib_per_h"] = {k: round(slope_per_hour(ts, [s["memory"][k] for s in parts]), 2) for k in parts[0]["memory"]}
        out["memory_end_mib"] = parts[-1]["memory"]
    q = max(1, len(after) // 4)
    kinds = {}
    for k in KINDS:
        p99 = [s[k]["p99_us"] for s in after if s[k]["p99_us"] is not None]
        first, last = p99[:q], p99[-q:]
        d = {
            "calls": sum(s[k]["n"] for s in samples),
            "errors": sum(s[k]["errors"] for s in samples),
            "per_s_after_warmup": round(sum(s[k]["n"] for s in after) / max(1e-9, sum(s["window_s"] for s in after)), 1) if after else None,
            "p50_us_median": round(statistics.median([s[k]["p50_us"] for s in after if s[k]["p50_us"] is not None]), 1) if p99 else None,
            "p99_us_first_quarter": round(statistics.median(first), 1) if first else None,
            "p99_us_last_quarter": round(statistics.median(last), 1) if last else None,
            "p99_us_max_window": max(p99) if p99 else None,
        }
        d["p99_drift"] = round(d["p99_us_last_quarter"] / d["p99_us_first_quarter"], 3) if first and d["p99_us_first_quarter"] else None
        msgs = [m for s in samples for m in s[k].get("error_messages", [])]
        if msgs:
            d["error_messages"] = msgs[:10]
        kinds[k] = d
    out["kinds"] = kinds
    if after:
        out["writer_max_behind"] = max(s["writer"].get("behind", 0) for s in after)
        out["writer_max_lag_s"] = max(s["writer"].get("lag_s", 0) for s in after)
    w = kinds["writer"]["per_s_after_warmup"]
    out["writer_target_per_s"] = write_rate
    out["writer_held"] = w is not None and w >= th["writer_held"] * write_rate
    out["cgroup"] = cg_stats
    out["worker_exit_code"] = exit_code
    out["done"] = done
    out["thresholds"] = th
    problems = []
    if crash:
        problems.append("worker crashed: " + crash["error"].strip().splitlines()[-1])
    if exit_code not in (0, None):
        problems.append(f"worker exited {exit_code}")
    if done is None:
        problems.append("worker did not finish (no 'done' record)")
    elif done.get("threads_still_running"):
        problems.append(f"threads still running at the end: {done['threads_still_running']}")
    errs = sum(d["errors"] for d in kinds.values())
    if errs:
        problems.append(f"{errs} errors")
    if cg_stats and (cg_stats.get("oom_kill") or 0) > 0:
        problems.append(f"OOM kills in the cgroup: {cg_stats['oom_kill']}")
    if not out["writer_held"]:
        problems.append(f"writer did not hold its rate: {w} writes/s after the warm-up (target {write_rate}, at least {th['writer_held']:.0%})")
    if judged:
        if rs is not None and rs > th["rss_slope_mib_per_h"]:
            problems.append(f"RSS grows {rs:.1f} MiB/h after the warm-up (threshold {th['rss_slope_mib_per_h']})")
        for k, d in kinds.items():
            if d["p99_drift"] is not None and d["p99_drift"] > th["p99_drift"]:
                problems.append(f"{k} p99 drifted x{d['p99_drift']} (last quarter {d['p99_us_last_quarter']} us vs first {d['p99_us_first_quarter']} us; threshold x{th['p99_drift']})")
    out["problems"] = problems
    out["ok"] = not problems
    return out


def chart(path, png, title, warmup_s=None, limit_mib=None):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _, samples, _, _ = load(path)
    t = [s["t"] / 60 for s in samples]
    parts = [s for s in samples if "memory" in s]
    fig, ax = plt.subplots(4 if parts else 3, 1, figsize=(10, 13 if parts else 10), sharex=True)
    ax[0].plot(t, [s["vmrss"] for s in samples], label="worker RSS (VmRSS)")
    if any("rssanon" in s for s in samples):
        ax[0].plot(t, [s.get("rssanon") for s in samples], label="worker anonymous RSS (RssAnon)", linewidth=0.8)
    if any(s.get("cgroup_mib") is not None for s in samples):
        ax[0].plot(t, [s.get("cgroup_mib") for s in samples], label="cgroup usage (incl. page cache)")
    if limit_mib:
        ax[0].axhline(limit_mib, color="red", linestyle="--", linewidth=1, label=f"cap {limit_mib:g} MiB")
    ax[0].set_ylabel("MiB")
    ax[0].set_ylim(bottom=0)
    ax[0].legend(loc="lower right")
    for k in KINDS:
        ax[1].plot(t, [None if s[k]["p99_us"] is None else s[k]["p99_us"] / 1000 for s in samples], label=f"{k} p99")
    ax[1].set_yscale("log")
    ax[1].set_ylabel("p99 latency per window (ms)")
    ax[1].legend(loc="upper right")
    for k in KINDS:
        ax[2].plot(t, [s[k]["per_s"] for s in samples], label=f"{k} calls/s" if k != "writer" else "writer durable writes/s")
    ax[2].set_ylabel("per second")
    ax[2].set_ylim(bottom=0)
    ax[2].legend(loc="lower right")
    if parts:
        tp = [s["t"] / 60 for s in parts]
        for k in parts[0]["memory"]:
            if k != "python_blocks":
                ax[3].plot(tp, [s["memory"][k] for s in parts], label=k, linewidth=0.9)
        ax[3].set_ylabel("MiB, by owner")
        ax[3].set_ylim(bottom=0)
        ax[3].legend(loc="upper left", fontsize="small", ncol=3)
    ax[-1].set_xlabel("minutes")
    for a in ax:
        a.grid(True, alpha=0.3)
        if warmup_s:
            a.axvline(warmup_s / 60, color="gray", linestyle=":", linewidth=1)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(png, dpi=90)
    plt.close(fig)
