#!/usr/bin/env python3
"""Turn one bench/run.sh output folder into CSV, a table and plots.

usage: bench/report.py OUTDIR

Reads OUTDIR/meta.tsv, OUTDIR/<config>.<rep>.result (bench job) and
OUTDIR/fastpath-*.result (bench-fastpath job).  Writes:
  runs.csv          one row per boot, every metric
  series/<config>.<rep>.tsv   per-second snapshot rows (plots)
  summary.csv       per config and metric: n, min, median, max, delta % vs baseline
  table.txt         side-by-side table (one column per configuration; the
                    baseline's median delta is 0.00%, others signed %)
  table.md          the same for README
  fastpath.tsv      medians of ns per alloc+free pair, ladder off vs on, ratio
  free-ge3.png      free pages in blocks >= order 3 over time, kswapd CPU and
                    atomic failures marked; ladder off vs on
  failures.png      atomic failure rate per configuration (median, min..max)
and prints table.txt.
"""
import csv
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parse import parse_run  # noqa: E402

# (metric, label, lower is better?) in table order.
METRICS = [
    ("failures", "atomic order-3 failures", True),
    ("fail_rate_pct", "atomic failure rate %", True),
    ("attempts", "atomic attempts", None),
    ("first_fail_ms", "first failure ms (-1 none)", None),
    ("max_fail_streak", "longest failure streak", True),
    ("lat_p99_ns", "attempt latency p99 ns (log2)", True),
    ("pageoutrun", "kswapd wakes (pageoutrun)", None),
    ("kswapd0_cpu_s", "kswapd CPU s", True),
    ("kcompactd0_cpu_s", "kcompactd CPU s", True),
    ("pgscan_kswapd", "pgscan_kswapd", None),
    ("pgsteal_kswapd", "pgsteal_kswapd", None),
    ("pgscan_direct", "pgscan_direct", None),
    ("pgsteal_direct", "pgsteal_direct", None),
    ("kswapd_efficiency_pct", "kswapd efficiency %", None),
    ("kswapd_velocity", "kswapd velocity pages/s", None),
    ("compact_migrate_scanned", "compact_migrate_scanned", None),
    ("compact_free_scanned", "compact_free_scanned", None),
    ("pgmigrate_success", "pgmigrate_success", None),
    ("compact_stall", "compact_stall", True),
    ("compact_daemon_wake", "compact_daemon_wake", None),
    ("workingset_refault_file", "workingset_refault_file", True),
    ("reader_mib_s", "reader MiB/s", False),
    ("free_ge3_pages_mean", "free pages in order>=3 blocks, mean", False),
    ("free_ge3_pages_min", "free pages in order>=3 blocks, min", False),
    ("kswapd_ladder_wake", "kswapd_ladder_wake", None),
    ("kswapd_ladder_met", "kswapd_ladder_met", None),
    ("kswapd_ladder_giveup", "kswapd_ladder_giveup", None),
    ("alloc_nowait_highorder_fail", "alloc_nowait_highorder_fail", None),
    ("fragment_ok", "fragmenter reached target (1/0)", None),
]


def read_meta(outdir):
    meta = {}
    path = os.path.join(outdir, "meta.tsv")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("\t")
                meta[k] = v
    return meta


def collect(outdir, configs):
    runs = []
    pat = re.compile(r"^(.+)\.(\d+)\.result$")
    for name in sorted(os.listdir(outdir)):
        m = pat.match(name)
        if not m or m.group(1) not in configs:
            continue
        run = parse_run(os.path.join(outdir, name))
        run["config"], run["rep"] = m.group(1), int(m.group(2))
        runs.append(run)
    return runs


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:.2f}" if abs(v) < 1000 else f"{v:.0f}"
    return str(int(v))


def pct(v, base):
    if v is None or base is None:
        return ""
    if base == 0:
        return "(0.00%)" if v == 0 else "(n/a)"
    return f"({100.0 * (v - base) / abs(base):+.2f}%)"


def stats_by_config(runs, configs):
    out = {}
    for cfg in configs:
        vals = {}
        for r in runs:
            if r["config"] != cfg:
                continue
            for k, _, _ in METRICS:
                v = r["summary"].get(k)
                if isinstance(v, (int, float)):
                    vals.setdefault(k, []).append(float(v))
        out[cfg] = {k: (len(v), min(v), statistics.median(v), max(v))
                    for k, v in vals.items()}
    return out


def write_tables(outdir, configs, st, meta):
    base = configs[0]
    w = max(18, max(len(c) for c in configs) + 2)
    lines = []
    hdr = f"{'metric':<38}{'':<5}" + "".join(f"{c:>{w}}" for c in configs)
    lines.append(hdr)
    md = ["| metric | | " + " | ".join(configs) + " |",
          "|---|---|" + "---|" * len(configs)]
    rows_csv = []
    single = all(s[0] == 1 for c in configs for s in st[c].values())
    rows = ((2, "val"),) if single else ((1, "min"), (2, "med"), (3, "max"))
    for k, label, _ in METRICS:
        if not any(k in st[c] for c in configs):
            continue
        for i, name in rows:
            cells, mdcells = [], []
            for c in configs:
                s = st[c].get(k)
                v = s[i] if s else None
                cell = fmt(v)
                if i == 2 and s and base in st and k in st[base]:
                    cell += " " + pct(v, st[base][k][2])
                cells.append(cell)
                mdcells.append(cell)
            lines.append(f"{label if i == rows[0][0] else '':<38}{name:<5}"
                         + "".join(f"{x:>{w}}" for x in cells))
            if i == 2:
                md.append(f"| {label} | median | " + " | ".join(mdcells) + " |")
        for c in configs:
            s = st[c].get(k)
            if s:
                b = st[base].get(k) if base in st else None
                d = ""
                if b and b[2]:
                    d = f"{100.0 * (s[2] - b[2]) / abs(b[2]):.2f}"
                elif b:
                    d = "0.00" if s[2] == 0 else ""
                rows_csv.append([c, k, s[0], s[1], s[2], s[3], d])
    foot = (f"kernel: Debian linux-source-6.12 {meta.get('debian_kernel', '?')}; "
            f"guest {meta.get('mem_mib', '?')} MiB, 1 vCPU, TCG -icount shift="
            f"{meta.get('icount_shift', 'auto')}; "
            f"RX-ring run {meta.get('secs', '?')} s; repeats {meta.get('repeats', '?')}; "
            f"{meta.get('date', '')}")
    ns = "  ".join(f"{c} {int(max((v[0] for v in st[c].values()), default=0))}" for c in configs)
    lines.append("")
    lines.append("boots counted: " + ns)
    lines.append(foot)
    with open(os.path.join(outdir, "table.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write("\n".join(md) + "\n\nboots counted: " + ns + ". " + foot + "\n")
    with open(os.path.join(outdir, "summary.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["config", "metric", "n", "min", "median", "max", "delta_pct_vs_baseline"])
        wr.writerows(rows_csv)
    return "\n".join(lines)


def write_runs(outdir, runs):
    keys = sorted({k for r in runs for k, v in r["summary"].items()
                   if isinstance(v, (int, float))})
    with open(os.path.join(outdir, "runs.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["config", "rep"] + keys)
        for r in runs:
            wr.writerow([r["config"], r["rep"]] + [r["summary"].get(k, "") for k in keys])
    sdir = os.path.join(outdir, "series")
    os.makedirs(sdir, exist_ok=True)
    cols = ["t", "free_ge3_pages", "free_ge3_blocks", "nr_free_pages", "attempts",
            "failures", "fail_per_s", "pageoutrun", "kswapd_cpu_pct", "fail_pct",
            "compact_daemon_wake", "kswapd_ladder_wake"]
    for r in runs:
        path = os.path.join(sdir, f"{r['config']}.{r['rep']}.tsv")
        with open(path, "w") as f:
            f.write("\t".join(cols) + "\n")
            prev = None
            for row in r["series"]:
                d = dict(row)
                if prev is not None and row["t"] > prev["t"]:
                    dt = row["t"] - prev["t"]
                    d["fail_per_s"] = (row["failures"] - prev["failures"]) / dt
                    d["kswapd_cpu_pct"] = (row["kswapd_cpu_ticks"]
                                           - prev["kswapd_cpu_ticks"]) / dt
                    da = row["attempts"] - prev["attempts"]
                    d["fail_pct"] = (100.0 * (row["failures"] - prev["failures"]) / da
                                     if da > 0 else 0.0)
                else:
                    d["fail_per_s"] = 0
                    d["kswapd_cpu_pct"] = 0
                    d["fail_pct"] = 0.0
                f.write("\t".join(f"{d.get(c, 0):.3f}" if isinstance(d.get(c, 0), float)
                                  else str(d.get(c, 0)) for c in cols) + "\n")
                prev = row


def fastpath(outdir):
    vals = {}
    kernel = ""
    for name in sorted(os.listdir(outdir)):
        if not (name.startswith("fastpath-") and name.endswith(".result")):
            continue
        with open(os.path.join(outdir, name), errors="replace") as f:
            for line in f:
                m = re.search(r"fastpath: rep \d+ ladder (\S+) order (\d+) ns_per_pair "
                              r"([\d.]+)", line)
                if m:
                    vals.setdefault((m.group(1), int(m.group(2))), []).append(
                        float(m.group(3)))
                m = re.search(r"fastpath: kernel (\S+)", line)
                if m:
                    kernel = m.group(1)
    if not vals:
        return ""
    lines = ["ladder\torder\tn\tmedian_ns_per_pair\tmin\tmax"]
    med = {}
    for (lad, order), v in sorted(vals.items()):
        med[(lad, order)] = statistics.median(v)
        lines.append(f"{lad}\t{order}\t{len(v)}\t{med[(lad, order)]:.3f}\t{min(v):.3f}"
                     f"\t{max(v):.3f}")
    for order in (0, 3):
        if ("0", order) in med and ("3", order) in med and med[("0", order)]:
            r = med[("3", order)] / med[("0", order)]
            lines.append(f"ratio_on_off\t{order}\t-\t{r:.4f}\t({100 * (r - 1):+.2f}%)\t")
        for lad in ("0", "3"):
            if ("none", order) in med and (lad, order) in med and med[("none", order)]:
                r = med[(lad, order)] / med[("none", order)]
                name = "ratio_off_stock" if lad == "0" else "ratio_on_stock"
                lines.append(f"{name}\t{order}\t-\t{r:.4f}\t({100 * (r - 1):+.2f}%)\t")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(outdir, "fastpath.tsv"), "w") as f:
        f.write(f"# kernel {kernel}\n" + text)
    return text


def gnuplot(script):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True,
                       capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        err = getattr(e, "stderr", "") or str(e)
        print(f"report: gnuplot failed: {err.strip()}", file=sys.stderr)


def plot_series(outdir, configs):
    off = next((c for c in ("ladder-off", "baseline") if c in configs), None)
    ons = [c for c in ("ladder-relaxed", "ladder-strict") if c in configs]
    panels = []
    for c in [off] + ons:
        reps = sorted(int(m.group(1)) for m in
                      (re.match(re.escape(str(c)) + r"\.(\d+)\.tsv$", n)
                       for n in os.listdir(os.path.join(outdir, "series"))) if m)
        if c and reps:
            panels.append((c, reps[0]))
    if not panels:
        return
    h = 300 * len(panels)
    s = [f"set terminal pngcairo noenhanced size 1000,{h} font ',10'",
         f"set output '{os.path.join(outdir, 'free-ge3.png')}'",
         f"set multiplot layout {len(panels)},1",
         "set datafile separator '\\t'", "set key top left opaque font ',9'",
         "set grid", "set xlabel 'seconds since the RX ring started'",
         "set ylabel 'free in blocks >= order 3 (MiB)'",
         "set y2label 'failures %, kswapd CPU %'", "set y2tics",
         "set ytics nomirror", "set xrange [0:*]", "set yrange [0:*]", "set y2range [0:105]"]
    for c, rep in panels:
        f = os.path.join(outdir, "series", f"{c}.{rep}.tsv")
        s.append(f"set title '{c} (rep {rep})'")
        s.append(f"plot '{f}' every ::1 using 1:($2/256) with lines lw 2 lc rgb '#1f77b4' "
                 f"title 'free >= order 3', "
                 f"'' every ::1 using 1:9 axes x1y2 with lines dt 2 lc rgb '#2ca02c' "
                 f"title 'kswapd CPU %', "
                 f"'' every ::1 using 1:10 axes x1y2 with impulses lw 4 lc rgb '#d62728' "
                 f"title 'atomic failures % (per sample)'")
    s.append("unset multiplot")
    gnuplot("\n".join(s) + "\n")


def plot_failures(outdir, configs, st):
    data = os.path.join(outdir, "failures.dat")
    with open(data, "w") as f:
        for i, c in enumerate(configs):
            s = st[c].get("fail_rate_pct")
            if s:
                f.write(f"{i}\t{c}\t{s[2]}\t{s[1]}\t{s[3]}\n")
    n = len(configs)
    s = ["set terminal pngcairo noenhanced size 1000,450 font ',10'",
         f"set output '{os.path.join(outdir, 'failures.png')}'",
         "set datafile separator '\\t'", "set style fill solid 0.6", "set boxwidth 0.6",
         "set grid ytics", f"set xrange [-0.7:{n - 0.3}]", "set yrange [0:*]",
         "set ylabel 'GFP_ATOMIC order-3 failure rate % (median, min..max)'",
         "set xtics rotate by -30 font ',9'", "unset key",
         "set title 'Atomic order-3 refill failures per configuration'",
         f"plot '{data}' using 1:3:xtic(2) with boxes lc rgb '#1f77b4', "
         f"'' using 1:3:4:5 with yerrorbars lc rgb 'black' pt 0"]
    gnuplot("\n".join(s) + "\n")


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: bench/report.py OUTDIR")
    outdir = argv[1]
    meta = read_meta(outdir)
    configs = meta.get("configs", "").split()
    if not configs:
        configs = sorted({re.sub(r"\.\d+\.result$", "", n) for n in os.listdir(outdir)
                          if re.search(r"\.\d+\.result$", n)})
    every = collect(outdir, configs)
    # A boot that did not finish (no "bench: done", e.g. killed or crashed)
    # is listed, never counted.
    # Nor is a boot whose fragmenter did not reach the fragmented state: that
    # is another, easier scenario (control-nofrag has no fragmenter at all).
    runs = [r for r in every if r["summary"].get("done") == 1
            and r["summary"].get("fragment_ok", 1) == 1]
    broken = [f"{r['config']}.{r['rep']}" for r in every if r["summary"].get("done") != 1]
    unfragmented = [f"{r['config']}.{r['rep']}" for r in every
                    if r["summary"].get("done") == 1 and r["summary"].get("fragment_ok", 1) != 1]
    configs = [c for c in configs if any(r["config"] == c for r in runs)]
    if not runs:
        sys.exit(f"report: no bench results in {outdir}")
    st = stats_by_config(runs, configs)
    write_runs(outdir, runs)
    table = write_tables(outdir, configs, st, meta)
    fp = fastpath(outdir)
    plot_series(outdir, configs)
    plot_failures(outdir, configs, st)
    print(table)
    if fp:
        print("\nfast path (ns per alloc+free pair, median):")
        print(fp)
    if broken:
        print("note: unfinished boots, not counted: " + " ".join(broken))
    if unfragmented:
        print("note: fragmenter missed its target, not counted: " + " ".join(unfragmented))
    bad = [f"{r['config']}.{r['rep']}" for r in runs if r["summary"].get("lab_end_rc") != 0]
    if bad:
        print("note: counted, but no LAB-END rc=0 (a splat?): " + " ".join(bad))
    print(f"\nresults: {outdir}")


if __name__ == "__main__":
    main(sys.argv)
