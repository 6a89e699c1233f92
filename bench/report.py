#!/usr/bin/env python3
"""Turn one bench/run.sh results folder into tables with intervals and plots.

usage: bench/report.py OUTDIR

Reads OUTDIR/manifest.tsv and OUTDIR/<name>.<seed>.result (one run of
configuration <name> from saved state <seed>; <cfg>.repN is the Nth run of
the control from the same state).  Writes:
  runs.csv       one row per run: config, seed, every metric
  summary.csv    per configuration and metric: n, median and its 95%
                 interval, and against the control (paired, same states;
                 two-sample for the stock kernel): ratio, interval, p, verdict
  noise.txt      the noise floor: the control run twice from each state
  frontier.txt   for each ladder setting, the stock settings it must beat
  table.txt      one row per configuration (table.md the same for README)
  frontier.png   failures against each cost, stock frontier drawn
  free-ge3.png   free memory in blocks >= order 3 over one run, per config
  fastpath.tsv   (when fast-path boots ran) ns per alloc+free pair
and prints table.txt, the noise floor and the frontier.
Statistics: bench/stats.py.  Which runs count: a run that finished
("bench: done") from a state whose fragmenter reached its target.
"""
import csv
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parse import parse_run  # noqa: E402
import stats  # noqa: E402

# (metric, label, add for ratios: 1 for counts, a tick for CPU seconds).
METRICS = [
    ("lost", "frames lost (failed + never attempted)", 1.0),
    ("failures", "atomic order-3 failures", 1.0),
    ("first_fill_failures", "failures in the first ring fill", 1.0),
    ("steady_failures", "failures after the first fill", 1.0),
    ("late_failures", "failures after the run's first 3 s", 1.0),
    ("attempts", "refill attempts", 1.0),
    ("daemons_cpu_s", "kswapd + kcompactd CPU s", 0.01),
    ("kswapd0_cpu_s", "kswapd CPU s", 0.01),
    ("kcompactd0_cpu_s", "kcompactd CPU s", 0.01),
    ("workingset_refault_file", "file refaults", 1.0),
    ("pgscan_kswapd", "pages scanned by kswapd", 1.0),
    ("pgscan_direct", "pages scanned in direct reclaim", 1.0),
    ("compact_daemon_migrate_scanned", "kcompactd pages scanned", 1.0),
    ("free_mib_mean", "free memory during the run, MiB", 0.0),
    ("reader_mib_s", "reader MiB/s (guest time)", 0.0),
    ("daemons_cpu_s_per_gib", "kswapd + kcompactd CPU s per GiB the reader read", 0.0),
    ("refaults_per_mib", "file refaults per MiB the reader read", 0.0),
    ("ns_per_attempt", "ns per refill attempt", 0.0),
    ("free_ge3_pages_mean", "free pages in blocks >= order 3", 1.0),
    ("first_fail_ms", "first failure ms (-1 none)", None),
    ("kswapd_ladder_wake", "kswapd_ladder_wake", 1.0),
    ("alloc_nowait_highorder_fail", "alloc_nowait_highorder_fail", 1.0),
    ("compact_daemon_ladder_reclaimed", "pages kcompactd reclaimed for ladder blocks", 1.0),
]
METRIC_ADD = {m: a for m, _, a in METRICS}
# The costs a ladder setting is weighed by: (metric, label, higher is
# cheaper). A throughput is a cost read the other way: the work the guest
# got done beside the demand (the reader) or, with demand=tcp/net, the
# demand's own (use_demand() swaps it in).
COSTS = [
    ("daemons_cpu_s", "kswapd+kcompactd CPU s", False),
    ("workingset_refault_file", "file refaults", False),
    ("free_mib_mean", "free MiB held", False),
    ("reader_mib_s", "reader MiB/s (higher is cheaper)", True),
]
MAIN = "lost"
# How the main metric reads in sentences: "<config>: lost 12", "loses fewer".
MAIN_WORD, MAIN_VERB = "lost", "loses"

# demand=tcp (iperf3 over loopback) and demand=net (the host's iperf3 into
# the guest through virtio-net): the failures are the kernel's own order-3
# page-frag refills, each falling back to order 0; the cost of a failure
# there is throughput and CPU, so throughput is a column too.
TCP_METRICS = [
    ("frag3_fail", "order-3 page-frag refills that fell back to order 0", 1.0),
    ("frag3_attempts", "order-3 page-frag refills tried", 1.0),
    ("frag3_fail_pct", "page-frag fallbacks, % of refills", None),
    ("tcp_mbit_s", "TCP Mbit/s received (guest time)", 0.0),
    ("tcp_retransmits", "TCP retransmits (the sender's: net: the host's)", 1.0),
    ("iperf3_cpu_pct", "guest iperf3 CPU % (tcp: the sender, net: the receiver)", 0.0),
    ("net_rx_dropped", "virtio-net RX packets dropped (net)", 1.0),
    ("highatomic_blocks", "HighAtomic pageblocks at the end", 1.0),
    ("other3_fail", "other order-3 failures (slab's tries)", 1.0),
] + [m for m in METRICS if m[0] in (
    "daemons_cpu_s", "kswapd0_cpu_s", "kcompactd0_cpu_s", "workingset_refault_file",
    "pgscan_kswapd", "pgscan_direct", "compact_daemon_migrate_scanned", "free_mib_mean",
    "reader_mib_s", "free_ge3_pages_mean", "kswapd_ladder_wake",
    "alloc_nowait_highorder_fail")]


# With the THP user beside the demand (a set's thp= line, on the THP guest):
# what THP faults got and waited for, and direct compaction.
THP_METRICS = [
    ("thp_success_pct", "THP faults served with a huge page, %", None),
    ("thp_fallback", "THP faults fallen back to 4 KiB pages", 1.0),
    ("thp_huge", "THP faults served with a huge page", 1.0),
    ("thp_lat_mean_us", "THP first-touch latency, mean us (guest time)", 0.0),
    ("thp_lat_p99_us", "THP first-touch latency, p99 us (log2 bucket top)", 0.0),
    ("thp_lat_max_ms", "THP first-touch latency, max ms", 0.0),
    ("thp_slow_1ms", "THP first touches over 1 ms", 1.0),
    ("compact_stall", "direct compaction stalls", 1.0),
    ("compact_fail", "direct compactions that failed", 1.0),
    ("compact_success", "direct compactions that succeeded", 1.0),
    ("highatomic_blocks", "HighAtomic pageblocks at the end", 1.0),
]
# A header starting with "vs": the metric's ratio to the control, not its
# median.
THP_TABLE_COLS = [
    ("thp_success_pct", "THP huge %"),
    ("thp_fallback", "vs: THP fallbacks"),
    ("thp_lat_mean_us", "THP mean us"),
    ("compact_stall", "compact stalls"),
]


def read_manifest(outdir):
    meta = {}
    path = os.path.join(outdir, "manifest.tsv")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("\t")
                meta[k] = v
    return meta


def conf(cfg):
    """KEY=value pairs of bench/configs/CFG.conf ({} if there is none)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs",
                        cfg + ".conf")
    out = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if "=" in line and not line.startswith("#"):
                    k, _, v = line.strip().partition("=")
                    out[k] = v
    return out


def kind(cfg):
    """stock-kernel, stock (a stock knob on the patched kernel), ladder,
    sg (a demand-side reference: the scatter/gather ring, or the network's
    high_order_alloc_disable) or healthy (no fragmenter)."""
    r = role(cfg)
    if r != "stock-kernel" and conf(cfg).get("frag", "1") == "0":
        return "healthy"
    return r


def role(cfg):
    """What a configuration is, whatever memory it runs on: kind() with a
    healthy-system configuration named for its setting."""
    c = conf(cfg)
    if c.get("variant") == "baseline":
        return "stock-kernel"
    if c.get("sg", "0") == "1" or "high_order_alloc_disable=1" in c.get("sysctl", ""):
        return "sg"
    if "watermark_ladder_order" in c.get("sysctl", ""):
        return "ladder"
    return "stock"


def collect(outdir):
    """Every run of the folder, with bench/run.sh's exit status of its boot
    (runs.tsv: name, seed, variant, rc) where it was recorded."""
    rcs = {}
    tsv = os.path.join(outdir, "runs.tsv")
    if os.path.exists(tsv):
        with open(tsv) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 4 and parts[3].lstrip("-").isdigit():
                    rcs[(parts[0], int(parts[1]))] = int(parts[3])
    runs = []
    pat = re.compile(r"^((.+?)(?:\.rep(\d+))?)\.(\d+)\.result$")
    for name in sorted(os.listdir(outdir)):
        m = pat.match(name)
        if not m:
            continue
        run = parse_run(os.path.join(outdir, name))
        run["config"] = m.group(2)
        run["rep"] = int(m.group(3) or 1)
        run["seed"] = int(m.group(4))
        run["rc"] = rcs.get((m.group(1), run["seed"]), 0)
        runs.append(run)
    return runs


ANY_STATE = False     # bench/run.sh -a: a state counts whatever it reached


def counted(run):
    """A run counts if it finished cleanly (boot.sh rc 0: no splat, LAB-END
    rc=0) from a state whose fragmenter reached its target; with stress-ng
    as the fragmenter, if stress-ng was still running when the demand
    ended."""
    s = run["summary"]
    return (s.get("done") == 1 and s.get("lab_end_rc") == 0 and run.get("rc", 0) == 0
            and (ANY_STATE or s.get("fragment_ok", 1) == 1)
            and s.get("stressng_alive", 1) == 1)


def values(runs, cfg, metric, rep=1):
    """{seed: value} of the counted runs of cfg (its rep-th run per state)."""
    out = {}
    for r in runs:
        if r["config"] == cfg and r["rep"] == rep and counted(r):
            v = r["summary"].get(metric)
            if isinstance(v, (int, float)):
                out[r["seed"]] = float(v)
    return out


def control_of(cfg, control):
    c = conf(cfg).get("control")
    return c or control


def scenario(cfg):
    """What a configuration is measured against: its fragmenter and its
    ring (frag, and rx_rate, rx_ring as the configuration sets them; the
    ring's defaults live in the guest). The frontier compares within one."""
    c = conf(cfg)
    return (c.get("frag", "1"), c.get("rx_rate"), c.get("rx_ring"))


def state_kind(cfg):
    """The saved states a configuration runs from: (variant, frag)."""
    c = conf(cfg)
    return (c.get("variant", ""), c.get("frag", "1"))


def compare(runs, cfg, other, metric, add):
    """cfg against other: paired over the states they share if they run
    from the same kind of state, else two-sample; (label, result)."""
    v = values(runs, cfg, metric)
    c = values(runs, other, metric)
    if state_kind(cfg) != state_kind(other):
        return (f"{other} (two-sample)",
                stats.two_sample_ratio(list(v.values()), list(c.values()), add))
    seeds = sorted(set(v) & set(c))
    return (f"{other} (paired)",
            stats.paired_ratio([v[s] for s in seeds], [c[s] for s in seeds], add))


def cheapness(value, higher_cheaper):
    """@value of a cost turned so that lower is cheaper, for comparing and
    sorting costs of either direction."""
    return -value if higher_cheaper else value


def fmt(v, digits=None):
    if v is None:
        return "-"
    if digits is not None:
        return f"{v:.{digits}f}"
    if abs(v) >= 100 or float(v).is_integer():
        return f"{v:.0f}"
    return f"{v:.2f}" if abs(v) < 10 else f"{v:.1f}"


def fmt_ratio(r):
    if r is None or r.get("ratio") is None:
        return "-"
    lo, hi = r.get("lo"), r.get("hi")
    iv = f"[{lo:.3g},{hi:.3g}]" if lo is not None else "[n too small]"
    mark = {"lower": " <", "higher": " >"}.get(r["verdict"], " =")
    n = f" n={r['n']}" if "n" in r else ""
    return f"x{r['ratio']:.3g} {iv}{mark}{n}"


def summarize(runs, configs, control):
    """{cfg: {metric: {...}}}: median with interval, ratio to the control."""
    out = {}
    for cfg in configs:
        out[cfg] = {}
        ctl = control_of(cfg, control)
        for metric, _, add in METRICS:
            v = values(runs, cfg, metric)
            if not v:
                continue
            med, lo, hi, cov = stats.median_ci(list(v.values()))
            row = {"n": len(v), "median": med, "lo": lo, "hi": hi, "coverage": cov,
                   "vs": "", "cmp": None}
            if add is not None and cfg != ctl:
                row["vs"], row["cmp"] = compare(runs, cfg, ctl, metric, add)
            out[cfg][metric] = row
    return out


def write_runs(outdir, runs):
    keys = sorted({k for r in runs for k, v in r["summary"].items()
                   if isinstance(v, (int, float))})
    with open(os.path.join(outdir, "runs.csv"), "w", newline="") as f:
        wr = csv.writer(f, lineterminator="\n")
        wr.writerow(["config", "rep", "seed", "counted"] + keys)
        for r in sorted(runs, key=lambda r: (r["config"], r["rep"], r["seed"])):
            wr.writerow([r["config"], r["rep"], r["seed"], int(counted(r))]
                        + [r["summary"].get(k, "") for k in keys])


def write_summary(outdir, configs, summ):
    with open(os.path.join(outdir, "summary.csv"), "w", newline="") as f:
        wr = csv.writer(f, lineterminator="\n")
        wr.writerow(["config", "kind", "metric", "n", "median", "ci_low", "ci_high",
                     "vs", "n_compared", "ratio", "ratio_ci_low", "ratio_ci_high", "p",
                     "verdict"])
        for cfg in configs:
            for metric, _, _ in METRICS:
                row = summ[cfg].get(metric)
                if not row:
                    continue
                c = row["cmp"] or {}
                wr.writerow([cfg, kind(cfg), metric, row["n"], row["median"],
                             row["lo"] if row["lo"] is not None else "",
                             row["hi"] if row["hi"] is not None else "",
                             row["vs"], c.get("n", c.get("ny", "")) if c else "",
                             c.get("ratio", ""),
                             c.get("lo", "") if c.get("lo") is not None else "",
                             c.get("hi", "") if c.get("hi") is not None else "",
                             c.get("p", "") if c.get("p") is not None else "",
                             c.get("verdict", "")])


def cell(row):
    if not row:
        return "-"
    s = fmt(row["median"])
    if row["lo"] is not None:
        s += f" [{fmt(row['lo'])},{fmt(row['hi'])}]"
    return s


TABLE_COLS = [
    (MAIN, "lost frames, median [95%]"),
    (MAIN, "vs control"),
    ("first_fill_failures", "1st fill"),
    ("steady_failures", "steady"),
    ("daemons_cpu_s", "daemons CPU s"),
    ("workingset_refault_file", "refaults"),
    ("free_mib_mean", "free MiB"),
    ("reader_mib_s", "reader MiB/s"),
]
# Columns 0 and 1 are the main metric and its ratio to the control.
TCP_TABLE_COLS = [
    ("frag3_fail", "order-3 fallbacks, median [95%]"),
    ("frag3_fail", "vs control"),
    ("frag3_attempts", "refills"),
    ("tcp_mbit_s", "TCP Mbit/s"),
    ("daemons_cpu_s", "daemons CPU s"),
    ("workingset_refault_file", "refaults"),
    ("free_mib_mean", "free MiB"),
    ("reader_mib_s", "reader MiB/s"),
]
# Noise-floor metrics per demand (the main one first).
NOISE_METRICS = ["first_fill_failures", "steady_failures", "daemons_cpu_s",
                 "workingset_refault_file", "free_mib_mean"]


DEMAND = "rx"
# -i off (bench/run.sh): guest time is the host's, so no repeat replays
HOST_TIMED = False


def use_demand(demand):
    """Switch the metrics, table and wording to the manifest's demand."""
    global METRICS, METRIC_ADD, MAIN, MAIN_WORD, MAIN_VERB, TABLE_COLS, NOISE_METRICS, DEMAND
    global COSTS
    DEMAND = demand
    if demand not in ("tcp", "net"):
        return
    COSTS = [c for c in COSTS if c[0] != "reader_mib_s"] + [
        ("tcp_mbit_s", "TCP Mbit/s (higher is cheaper)", True)]
    METRICS = TCP_METRICS
    METRIC_ADD = {m: a for m, _, a in METRICS}
    MAIN, MAIN_WORD, MAIN_VERB = "frag3_fail", "fallbacks", "falls back"
    TABLE_COLS = TCP_TABLE_COLS
    NOISE_METRICS = ["tcp_mbit_s", "daemons_cpu_s", "workingset_refault_file",
                     "free_mib_mean"]


def use_thp(thp_mib):
    """With the THP user, its metrics join the demand's, and its huge-page
    success, latency and the compaction stalls join the table."""
    global METRICS, METRIC_ADD, TABLE_COLS, NOISE_METRICS
    if not thp_mib or thp_mib == "0":
        return
    have = {m for m, _, _ in METRICS}
    METRICS = METRICS + [m for m in THP_METRICS if m[0] not in have]
    METRIC_ADD = {m: a for m, _, a in METRICS}
    TABLE_COLS = TABLE_COLS[:2] + THP_TABLE_COLS + [
        c for c in TABLE_COLS[2:] if c[0] not in ("first_fill_failures", "steady_failures",
                                                   "reader_mib_s", "frag3_attempts")]
    NOISE_METRICS = NOISE_METRICS + ["thp_fallback", "thp_lat_mean_us", "compact_stall"]


def write_table(outdir, configs, summ, meta, notes):
    rows = []
    for cfg in configs:
        s = summ[cfg]
        n = s.get(MAIN, {}).get("n", 0)
        line = [cfg, str(n)]
        for i, (metric, head) in enumerate(TABLE_COLS):
            row = s.get(metric)
            if i == 1 or head.startswith("vs: "):
                line.append(fmt_ratio(row["cmp"]) if row and row["cmp"] else "control")
            elif i == 0:
                line.append(cell(row))
            else:
                line.append(fmt(row["median"]) if row else "-")
        rows.append(line)
    head = ["config", "n"] + [h for _, h in TABLE_COLS]
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    txt = ["  ".join(h.ljust(w) if i == 0 else h.rjust(w)
                     for i, (h, w) in enumerate(zip(head, widths)))]
    for r in rows:
        txt.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                             for i, (c, w) in enumerate(zip(r, widths))))
    foot = footer(meta)
    legend = ("vs control: geometric mean of (x+1)/(control+1) over the same saved "
              "states (n pairs), 95% t interval; < fewer, > more (the interval "
              "excludes 1 and the signed-rank p < 0.05), = no change shown. "
              "baseline is the stock kernel on its own states: two-sample "
              "(Welch on the logs, Mann-Whitney), so it can show a difference "
              "from ladder-off but not prove there is none. CPU and refaults "
              "cover the settle and the run, free MiB and reader MiB/s the run.")
    if any(h.startswith("vs: ") for _, h in TABLE_COLS):
        legend += (" A column headed \"vs: X\" is X's ratio to the control, read "
                   "the same way; THP columns are the THP user's faults (huge %, "
                   "mean first-touch latency in guest us) and the direct "
                   "compaction stalls.")
    txt += ["", legend, foot] + notes
    with open(os.path.join(outdir, "table.txt"), "w") as f:
        f.write("\n".join(txt) + "\n")
    md = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    md += ["| " + " | ".join(r) + " |" for r in rows]
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write("\n".join(md) + "\n\n" + legend + " " + foot + "\n")
    return "\n".join(txt)


def footer(meta):
    # manifests before -p have no vcpus line: their guests had one
    vcpus = meta.get('vcpus', '1')
    icount = meta.get('icount', '?')
    clock = ("no -icount (host-timed)" if icount == "off"
             else f"-icount {icount}")
    return (f"Debian linux-source-6.12 {meta.get('debian_kernel', '?')}; "
            f"guest {meta.get('mem_mib', '?')} MiB, {vcpus} vCPU"
            f"{'' if vcpus == '1' else 's'}, TCG {clock} "
            f"-rtc {meta.get('rtc', '?')}; "
            f"{meta.get('states', '?')} saved states per kernel; run "
            f"{meta.get('secs', '?')} s after {meta.get('settle', '?')} s settle; "
            f"{meta.get('date', '')}; lab {meta.get('lab_commit', '?')}")


def noise_floor(outdir, runs, control):
    """The control run again from each state: an exact replay must give the
    same numbers; a nudged run (started microseconds later) shows how far
    such a shift alone moves a run: the noise in any paired comparison."""
    lines = [f"noise floor: {control} run again from the same saved state"]
    reps = sorted({r["rep"] for r in runs if r["config"] == control})
    if len(reps) < 2:
        lines.append("  (one run per state: bench/run.sh -c 3 measures it)")
    nudge = {}
    for r in runs:
        if r["config"] == control and counted(r):
            nudge.setdefault(r["rep"], r["summary"].get("nudge", 0))
    for rep in reps[1:]:
        what = "exact replay" if not nudge.get(rep) else f"nudged by {nudge[rep]:g}"
        if (DEMAND == "net" or HOST_TIMED) and not nudge.get(rep):
            what = "repeat, not nudged (host timing enters)"
        for metric in [MAIN] + NOISE_METRICS:
            a = values(runs, control, metric, 1)
            b = values(runs, control, metric, rep)
            seeds = sorted(set(a) & set(b))
            if not seeds:
                continue
            diffs = [abs(b[s] - a[s]) / max(abs(a[s]), abs(b[s]), 1e-9) * 100
                     for s in seeds]
            r = stats.paired_ratio([b[s] for s in seeds], [a[s] for s in seeds],
                                   METRIC_ADD[metric])
            same = sum(1 for s in seeds if a[s] == b[s])
            pairs = " ".join(f"{fmt(a[s])}/{fmt(b[s])}" for s in seeds)
            lines.append(f"  run {rep} ({what}) {metric:<24} identical in {same}/{len(seeds)} "
                         f"states; median |diff| {statistics.median(diffs):.1f}%, max "
                         f"{max(diffs):.1f}%; ratio {fmt_ratio(r)}; per state {pairs}")
    text = "\n".join(lines)
    with open(os.path.join(outdir, "noise.txt"), "w") as f:
        f.write(text + "\n")
    return text


def frontier(outdir, runs, configs, summ):
    """For each ladder setting and cost: the cheapest stock setting that
    loses no more frames, and the stock setting with the fewest losses
    among those that cost no more (both by median); then the ladder against
    the latter, paired over the states they share, with intervals: only an
    interval that excludes 1 (and a rank test that agrees) says who is ahead.
    Within one scenario(): the healthy system's ladder against its stock
    knobs, the fragmented one's against theirs."""
    stock = [c for c in configs if role(c) == "stock" and MAIN in summ[c]]
    # With demand=tcp/net the demand-side row (hoad) asks for no order 3 at
    # all: no fallbacks by construction, paid in throughput, which is not
    # one of the frontier's costs; the table shows it.
    sides = ("ladder", "sg") if MAIN == "lost" else ("ladder",)
    ladders = [c for c in configs if role(c) in sides and MAIN in summ[c]]
    lines = ["frontier: each ladder setting against the stock settings (medians; "
             f"'vs' is paired: {MAIN_WORD}, then the cost, ratio [95%])"]
    rows = []
    for lad in ladders:
        f_l = summ[lad][MAIN]["median"]
        lines.append(f"{lad}: {MAIN_WORD} {fmt(f_l)}"
                     + "".join(f", {lab} {fmt(summ[lad][m]['median'])}"
                               for m, lab, _ in COSTS if m in summ[lad]))
        for m, lab, up in COSTS:
            if m not in summ[lad]:
                continue
            c_l = summ[lad][m]["median"]
            peers = [s for s in stock if scenario(s) == scenario(lad)]
            cand = [s for s in peers if m in summ[s] and summ[s][MAIN]["median"] <= f_l]
            cheap = (min(cand, key=lambda s: cheapness(summ[s][m]["median"], up))
                     if cand else None)
            same = [s for s in peers if m in summ[s]
                    and cheapness(summ[s][m]["median"], up) <= cheapness(c_l, up)]
            best = min(same, key=lambda s: summ[s][MAIN]["median"]) if same else None
            a = (f"cheapest stock with {MAIN_WORD} <= {fmt(f_l)}: "
                 + (f"{cheap} ({fmt(summ[cheap][m]['median'])}, {MAIN_WORD} "
                    f"{fmt(summ[cheap][MAIN]['median'])})" if cheap else "none"))
            b = (f"best stock {'at >=' if up else 'costing <='} {fmt(c_l)}: "
                 + (f"{best} ({MAIN_WORD} {fmt(summ[best][MAIN]['median'])})"
                    if best else "none"))
            verdict = "no stock setting costs no more"
            lost_r = cost_r = None
            if best:
                _, lost_r = compare(runs, lad, best, MAIN, METRIC_ADD[MAIN])
                _, cost_r = compare(runs, lad, best, m, METRIC_ADD[m])
                verdict = {"lower": f"{lad} {MAIN_VERB} less",
                           "higher": f"stock {MAIN_VERB} less"}.get(lost_r["verdict"],
                                                                    "not distinguishable")
                verdict += (f"; vs {best}: {MAIN_WORD} {fmt_ratio(lost_r)}, {lab} "
                            f"{fmt_ratio(cost_r)}")
            lines.append(f"  {lab:<24} {a}; {b}; {verdict}")
            rows.append([lad, m, c_l, f_l, cheap or "", best or "",
                         summ[best][MAIN]["median"] if best else "",
                         lost_r["ratio"] if lost_r else "",
                         lost_r["lo"] if lost_r and lost_r["lo"] is not None else "",
                         lost_r["hi"] if lost_r and lost_r["hi"] is not None else "",
                         lost_r["verdict"] if lost_r else ""])
    text = "\n".join(lines)
    with open(os.path.join(outdir, "frontier.txt"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(outdir, "frontier.csv"), "w", newline="") as f:
        wr = csv.writer(f, lineterminator="\n")
        wr.writerow(["config", "cost", "cost_median", "lost_median",
                     "cheapest_stock_no_worse", "best_stock_no_costlier",
                     "its_lost_median", "lost_ratio_vs_it", "ratio_ci_low",
                     "ratio_ci_high", "verdict"])
        wr.writerows(rows)
    return text


def gnuplot(script):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True,
                       capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        err = getattr(e, "stderr", "") or str(e)
        print(f"report: gnuplot failed: {err.strip()}", file=sys.stderr)


def plot_frontier(outdir, configs, summ):
    """Lost frames (+1, log) against each cost; the stock frontier is the
    envelope of the stock settings from the cheapest on. False, and no
    plot, when no configuration has a point (a set of healthy-system
    configurations only: gnuplot has no range to draw). Each group of
    points and each frontier line is a data set of frontier.dat, written
    only when it has points (gnuplot folds an empty data set into the
    next one's index)."""
    data = os.path.join(outdir, "frontier.dat")
    png = os.path.join(outdir, "frontier.png")
    styles = {
        "stock": ("pt 7 lc rgb '#1f77b4'", "stock knobs", "offset 0,0.6"),
        "ladder": ("pt 9 ps 1.3 lc rgb '#d62728'", "ladder",
                   "offset 0,-0.6 tc rgb '#d62728'"),
        "sg": ("pt 5 lc rgb '#2ca02c'", "scatter/gather", None),
        "stock-kernel": ("pt 4 lc rgb 'black'", "stock kernel", None),
    }
    groups = {g: [] for g in styles}
    for c in configs:
        g = kind(c)
        if g not in groups or MAIN not in summ[c]:
            continue
        vals = [summ[c].get(m, {}).get("median") for m, _, _ in COSTS]
        if None not in vals:
            groups[g].append((c, vals))
    if not any(groups.values()):
        if os.path.exists(png):
            os.remove(png)
        return False
    index = {}
    with open(data, "w") as f:
        n = 0
        for g, pts in groups.items():
            if not pts:
                continue
            for c, vals in pts:
                f.write(f"{c}\t{summ[c][MAIN]['median'] + 1}\t"
                        + "\t".join(str(v) for v in vals) + "\n")
            f.write("\n\n")
            index[g] = n
            n += 1
        # The frontier per cost: stock points from the cheapest on (a
        # throughput: from the highest), running min.
        for ci, (m, _, up) in enumerate(COSTS):
            pts = sorted(((vals[ci], summ[c][MAIN]["median"] + 1)
                          for c, vals in groups["stock"]),
                         key=lambda p: cheapness(p[0], up))
            best = None
            for x, y in pts:
                if best is None or y < best:
                    best = y
                    f.write(f"{x}\t{y}\n")
            if best is not None:
                f.write("\n\n")
                index[("line", ci)] = n
                n += 1
    s = ["set terminal pngcairo noenhanced size 1900,480 font ',10'",
         f"set output '{png}'",
         f"set multiplot layout 1,{len(COSTS)} title '{MAIN_WORD} (median over saved states) "
         "against what it costs; line: stock frontier'",
         "set datafile separator '\\t'", "set logscale y", "set grid",
         f"set ylabel '{MAIN_WORD} + 1 (log)'", "set key bottom left font ',9'"]
    for ci, (m, lab, _) in enumerate(COSTS):
        col = 3 + ci
        items = []
        for g, (style, title, label) in styles.items():
            if g not in index:
                continue
            items.append(f"'{data}' index {index[g]} using {col}:2 with points "
                         f"{style} title '{title}'")
            if label:
                items.append(f"'{data}' index {index[g]} using {col}:2:1 with labels "
                             f"font ',7' {label} notitle")
            if g == "stock" and ("line", ci) in index:
                items.append(f"'{data}' index {index[('line', ci)]} using 1:2 with steps "
                             "lw 2 lc rgb '#1f77b4' title 'stock frontier'")
        s.append(f"set xlabel '{lab}'")
        s.append("plot " + ", ".join(items))
    s.append("unset multiplot")
    gnuplot("\n".join(s) + "\n")
    return True


def plot_series(outdir, runs, configs, control):
    """Free memory in blocks >= order 3 and failures over one run (the
    first counted state), for the control, the order-3 ladder with and
    without its reserve, and watermark_scale_factor 100."""
    want = [c for c in (control, "ladder-o3", "ladder-o3-r0", "wsf-100")
            if c in configs]
    seeds = [set(r["seed"] for r in runs if r["config"] == c and r["rep"] == 1
                 and counted(r)) for c in want]
    common = sorted(set.intersection(*seeds)) if seeds else []
    if not common:
        return
    seed = common[0]
    sdir = os.path.join(outdir, "series")
    os.makedirs(sdir, exist_ok=True)
    plots = []
    for c in want:
        run = next(r for r in runs if r["config"] == c and r["seed"] == seed
                   and r["rep"] == 1)
        path = os.path.join(sdir, f"{c}.{seed}.tsv")
        with open(path, "w") as f:
            f.write("t\tfree_ge3_mib\tfailures\n")
            for row in run["series"]:
                f.write(f"{row['t']:.2f}\t{row['free_ge3_pages'] / 256:.2f}\t"
                        f"{row['failures']}\n")
        plots.append((c, path))
    s = ["set terminal pngcairo noenhanced size 1000,420 font ',10'",
         f"set output '{os.path.join(outdir, 'free-ge3.png')}'",
         "set datafile separator '\\t'", "set grid", "set key top left",
         f"set title 'one saved state (seed {seed}), each configuration restored from it'",
         "set xlabel 'seconds since the demand started'",
         "set ylabel 'free in blocks >= order 3 (MiB)'",
         "set y2label 'failures so far'", "set y2tics", "set ytics nomirror"]
    parts = []
    for i, (c, path) in enumerate(plots):
        parts.append(f"'{path}' every ::1 using 1:2 with lines lw 2 lc {i + 1} title '{c}'")
        parts.append(f"'{path}' every ::1 using 1:3 axes x1y2 with lines dt 2 lc {i + 1} "
                     f"title '{c} failures'")
    s.append("plot " + ", ".join(parts))
    gnuplot("\n".join(s) + "\n")


def fastpath(outdir):
    vals = {}
    for name in sorted(os.listdir(outdir)):
        if not (name.startswith("fastpath-") and name.endswith(".result")):
            continue
        with open(os.path.join(outdir, name), errors="replace") as f:
            for line in f:
                # "order 3 gfp atomic": GFP_ATOMIC, reported as order "3-atomic"
                m = re.search(r"fastpath: rep \d+ ladder (\S+) order (\d+)(?: gfp (\w+))? "
                              r"ns_per_pair ([\d.]+)", line)
                if m:
                    order = m.group(2)
                    if m.group(3) and m.group(3) != "kernel":
                        order += "-" + m.group(3)
                    vals.setdefault((m.group(1), order), []).append(float(m.group(4)))
    if not vals:
        return ""
    med = {k: statistics.median(v) for k, v in vals.items()}
    lines = ["ladder\torder\tn\tmedian_ns_per_pair"]
    lines += [f"{lad}\t{o}\t{len(vals[(lad, o)])}\t{med[(lad, o)]:.3f}"
              for lad, o in sorted(vals)]
    for order in sorted({o for _, o in vals}):
        for a, b, name in (("3", "0", "ratio_on_off"), ("0", "none", "ratio_off_stock"),
                           ("3", "none", "ratio_on_stock")):
            if (a, order) in med and (b, order) in med and med[(b, order)]:
                lines.append(f"{name}\t{order}\t-\t{med[(a, order)] / med[(b, order)]:.4f}")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(outdir, "fastpath.tsv"), "w") as f:
        f.write(text)
    return text


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: bench/report.py OUTDIR")
    outdir = argv[1]
    global ANY_STATE, HOST_TIMED
    meta = read_manifest(outdir)
    ANY_STATE = meta.get("any_state") == "1"
    HOST_TIMED = meta.get("icount") == "off"
    use_demand(meta.get("demand", "rx"))
    use_thp(meta.get("thp_mib", "0"))
    control = meta.get("control", "ladder-off")
    runs = collect(outdir)
    if not runs:
        sys.exit(f"report: no bench results in {outdir}")
    configs = meta.get("configs", "").split() or sorted({r["config"] for r in runs})
    configs = [c for c in configs if any(r["config"] == c and counted(r) for r in runs)]
    notes = []
    broken = [f"{r['config']}.{r['seed']}" for r in runs if r["summary"].get("done") != 1]
    missed = sorted({f"{r['config']}.{r['seed']}" for r in runs
                     if r["summary"].get("done") == 1 and not counted(r)})
    if broken:
        notes.append("not counted, unfinished: " + " ".join(broken))
    if missed:
        notes.append("not counted, the state's fragmenter missed its target (or "
                     "stress-ng had died by the end of the demand): " + " ".join(missed))
    summ = summarize(runs, configs, control)
    write_runs(outdir, runs)
    write_summary(outdir, configs, summ)
    print(write_table(outdir, configs, summ, meta, notes))
    print()
    print(noise_floor(outdir, runs, control))
    print()
    print(frontier(outdir, runs, configs, summ))
    drawn = plot_frontier(outdir, configs, summ)
    if not drawn:
        print("frontier.png: not drawn, every configuration runs on the healthy "
              "system (the frontier is drawn for fragmented memory)")
    plot_series(outdir, runs, configs, control)
    fp = fastpath(outdir)
    if fp:
        print("\nfast path (ns per alloc+free pair, median):\n" + fp)
    print(f"\nresults: {outdir} (table.txt, summary.csv, noise.txt, frontier.txt, "
          f"{'frontier.png, ' if drawn else ''}free-ge3.png)")


if __name__ == "__main__":
    main(sys.argv)
