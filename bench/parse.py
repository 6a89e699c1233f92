#!/usr/bin/env python3
"""Parse the raw result channel of guest/jobs/bench.sh into numbers.

One bench boot writes (see the job's header): "bench: key value" lines,
the fragmenter's report, a "== begin" and a "== final" block (full
/proc/vmstat and kswapd/kcompactd CPU), monitor snapshots ("== snap",
"time: T", buddyinfo, vmstat subset, zoneinfo watermarks, rxring
counters, CPU, "== end"), "rxring: key value" lines and the streaming
reader's "streamread:" line. With demand=tcp, instead of the ring: a
"== hist" block (the hist triggers on kmem:mm_page_alloc: allocations of
order > 0 by order and gfp mask, all and failed) and a "== iperf3" block
(iperf3's JSON). With the THP user (thp=MiB): "thpuser: key value" lines
(guest/tools/thpuser.c).

parse_run(path) -> dict with 'summary' (metric -> number) and 'series'
(list of per-snapshot dicts).  Run as a script, prints the summary of
each file given as key<TAB>value lines (used by tests/ fixtures);
`parse.py --get KEY FILE` prints one value (scripts/check.sh reads results
through it, so result lines have one parser).
"""
import json
import re
import sys

USER_HZ = 100
FRAG_ORDER = 3

# gfp bits of 6.12 (include/linux/gfp_types.h, the enum of ___GFP_*_BIT;
# bench/selftest.sh checks them against the tree). Bits below
# ___GFP_ZEROTAGS do not depend on the configuration.
GFP_DIRECT_RECLAIM = 1 << 10
GFP_KSWAPD_RECLAIM = 1 << 11
GFP_NORETRY = 1 << 16
GFP_COMP = 1 << 18
GFP_NOMEMALLOC = 1 << 19

# vmstat counters reported as deltas over the RX-ring run (final - begin).
VMSTAT_DELTAS = [
    "pageoutrun", "pgscan_kswapd", "pgscan_direct", "pgsteal_kswapd",
    "pgsteal_direct", "compact_migrate_scanned", "compact_free_scanned",
    "compact_isolated", "compact_stall", "compact_fail", "compact_success",
    "compact_daemon_wake", "compact_daemon_migrate_scanned",
    "compact_daemon_free_scanned", "pgmigrate_success",
    "workingset_refault_file", "allocstall_normal", "allocstall_dma32",
    "kswapd_low_wmark_hit_quickly", "kswapd_high_wmark_hit_quickly",
    "kswapd_ladder_wake", "kswapd_ladder_met", "kswapd_ladder_giveup",
    "alloc_nowait_highorder_fail", "thp_fault_alloc", "thp_fault_fallback",
    "allocstall_movable", "compact_daemon_ladder_reclaimed",
    "compact_daemon_ladder_blocks", "ladder_reserve_grow",
    "ladder_reserve_serve",
]

# late_failures: the ring's failures after the first snapshot at least this
# many seconds into the run, when its first fills (and the reserve's learning
# of them) are over; a setting can lose its frames early or all along.
LATE_S = 3.0


def buddy_ge(rows, order=FRAG_ORDER):
    """Pages and blocks in free blocks of order >= @order, all zones."""
    pages = blocks = 0
    for counts in rows:
        for o, n in enumerate(counts):
            if o >= order:
                pages += n << o
                blocks += n
    return pages, blocks


def parse_buddy_line(line):
    m = re.match(r"Node\s+\d+,\s+zone\s+(\S+)\s+(.*)", line.strip())
    if not m:
        return None
    return [int(x) for x in m.group(2).split()]


def is_frag_refill(order, gfp):
    """An order-3 page-frag refill: skb_page_frag_refill() (TCP sends,
    virtio-net RX buffers) and page_frag_cache_refill() both ask with
    __GFP_COMP | __GFP_NORETRY and without direct reclaim, keeping the
    caller's kswapd wakeup. Slab's opportunistic high-order tries drop
    both reclaim bits when the caller could reclaim (GFP_KERNEL: told
    apart), but keep a GFP_ATOMIC caller's mask, which then looks like
    virtio-net's refill: in demand=net the hoad row (no order-3 page frag
    asked for) shows how many such slab tries there are."""
    want = GFP_COMP | GFP_NORETRY | GFP_KSWAPD_RECLAIM
    return order == 3 and gfp & want == want and not gfp & GFP_DIRECT_RECLAIM


HIST_ROW = re.compile(r"\{ order:\s*(\d+), gfp_flags:\s*(0x[0-9a-fA-F]+|\d+)\s*\}"
                      r"\s*hitcount:\s*(\d+)")


def hist_summary(lines):
    """Counters from the "== hist" block: the trigger whose filter tests
    pfn counts failures, the other every attempt."""
    out = {"frag3_attempts": 0, "frag3_fail": 0, "other3_attempts": 0,
           "other3_fail": 0, "order9_attempts": 0, "order9_fail": 0,
           "hist_dropped": 0, "hist_triggers": 0}
    which = None
    for s in lines:
        if s.startswith("# trigger info:"):
            which = "fail" if "pfn ==" in s else "attempts"
            out["hist_triggers"] += 1
            continue
        m = re.match(r"\s*Dropped:\s*(\d+)", s)
        if m:
            out["hist_dropped"] += int(m.group(1))
            continue
        m = HIST_ROW.search(s)
        if not m or which is None:
            continue
        order, gfp, hits = int(m.group(1)), int(m.group(2), 0), int(m.group(3))
        if is_frag_refill(order, gfp):
            out["frag3_" + which] += hits
        elif order == 3:
            out["other3_" + which] += hits
        elif order == 9:
            out["order9_" + which] += hits
    return out


def log2_p99_ns(counters):
    """The p99 of a log2 histogram given as lat_log2_K -> count (K: the
    bucket of 2^K..2^(K+1) ns), as the top of its bucket in ns; None when
    the histogram is empty. The RX ring and the THP user report latency
    this way."""
    lat = {int(k[9:]): v for k, v in counters.items() if k.startswith("lat_log2_")}
    total = sum(lat.values())
    acc = 0
    for bkt in sorted(lat):
        acc += lat[bkt]
        if acc * 100 >= total * 99:
            return 2 ** (bkt + 1)
    return None


def thp_summary(t):
    """The THP user's figures: huge pages got, fallbacks, and its first
    touches' latency (mean, p99 from the log2 histogram, max, over 1 ms)."""
    out = {}
    if "chunks" not in t:
        return out
    out["thp_chunks"] = t["chunks"]
    out["thp_huge"] = t.get("huge", 0)
    out["thp_fallback"] = t.get("fallback", 0)
    asked = out["thp_huge"] + out["thp_fallback"]
    if asked:
        out["thp_success_pct"] = 100.0 * out["thp_huge"] / asked
    out["thp_slow_1ms"] = t.get("slow_1ms", 0)
    if t["chunks"]:
        out["thp_lat_mean_us"] = t.get("lat_sum_ns", 0) / t["chunks"] / 1000.0
    out["thp_lat_max_ms"] = t.get("lat_max_ns", 0) / 1e6
    p99 = log2_p99_ns(t)
    if p99 is not None:
        out["thp_lat_p99_us"] = p99 / 1000.0
    return out


def iperf3_summary(text):
    """Throughput and retransmits from iperf3's JSON (guest time)."""
    out = {}
    try:
        end = json.loads(text)["end"]
    except (ValueError, KeyError, TypeError):
        return out
    recv = end.get("sum_received", {})
    sent = end.get("sum_sent", {})
    if "bits_per_second" in recv:
        out["tcp_mbit_s"] = recv["bits_per_second"] / 1e6
    if "bytes" in recv:
        out["tcp_mib"] = recv["bytes"] / 2**20
    if "retransmits" in sent:
        out["tcp_retransmits"] = sent["retransmits"]
    cpu = end.get("cpu_utilization_percent", {})
    if "host_total" in cpu:
        out["iperf3_cpu_pct"] = cpu["host_total"]
    return out


def parse_run(path):
    summary = {}
    series = []
    blocks = {"begin": {}, "final": {}}
    cpu = {"begin": {}, "final": {}}
    rx = {}
    thp = {}
    section = None      # begin / final / snap
    sub = None          # buddyinfo / vmstat / zoneinfo / rxring / cpu
    snap = None
    lab_end = None
    blockbuf = {"hist": [], "iperf3": []}
    net = {"begin": {}, "final": {}}

    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\r\n")
            s = line.strip()
            if s.startswith("LAB-END"):
                m = re.search(r"rc=(-?\d+)", s)
                lab_end = int(m.group(1)) if m else -1
                continue
            if s.startswith("bench: "):
                parts = s.split()
                if len(parts) >= 3 and parts[1] in ("start", "stop", "fragment_rc",
                                                    "secs", "memtotal_kb", "nudge",
                                                    "ready_at", "restored",
                                                    "stressng_alive", "thp_rc"):
                    summary[parts[1]] = float(parts[2])
                elif len(parts) >= 4 and parts[1] == "sysctl":
                    summary["sysctl " + parts[2]] = parts[3]
                elif len(parts) >= 3 and parts[1] in ("config", "kernel", "demand"):
                    summary[parts[1]] = parts[2]
                elif parts[1:2] == ["done"]:
                    summary["done"] = 1
                continue
            if s.startswith("fragmenter: result"):
                summary["fragment_ok"] = 1 if s.endswith(" ok") else 0
                continue
            m = re.match(r"(?:fragmenter|stressng): after zone (\S+) free (\d+) min (\d+) low (\d+) "
                         r"high (\d+) free_ge3 (\d+)", s)
            if m:
                summary["frag_free"] = int(m.group(2))
                summary["frag_high"] = int(m.group(5))
                summary["frag_free_ge3"] = int(m.group(6))
                continue
            m = re.match(r"net: (begin_)?(\w+) (-?\d+)$", s)
            if m:
                net["begin" if m.group(1) else "final"][m.group(2)] = int(m.group(3))
                continue
            m = re.match(r"thpuser: (\w+) (\d+)$", s)
            if m:
                thp[m.group(1)] = int(m.group(2))
                continue
            if s.startswith("rxring: "):
                parts = s.split()
                if len(parts) == 3:
                    try:
                        rx[parts[1]] = int(parts[2])
                    except ValueError:
                        rx[parts[1]] = parts[2]
                continue
            m = re.match(r"streamread: bytes (\d+) secs ([\d.]+) mib_per_s ([\d.]+)", s)
            if m:
                summary["reader_mib_s"] = float(m.group(3))
                summary["reader_mib"] = int(m.group(1)) / 2**20
                continue
            if s in ("== begin", "== final"):
                section, sub = s[3:], "vmstat"
                continue
            if s in ("== hist", "== iperf3"):
                section, sub = s[3:], None
                continue
            if section in blockbuf and s != "== end":
                blockbuf[section].append(line)
                continue
            if s == "== snap":
                section, sub = "snap", None
                snap = {"vmstat": {}, "buddy": [], "rx": {}, "cpu": {}}
                continue
            if s == "== end":
                if section == "snap" and snap is not None and "time" in snap:
                    series.append(snap)
                section, sub, snap = None, None, None
                continue
            if section == "snap" and snap is not None:
                if s.startswith("time: "):
                    snap["time"] = float(s.split()[1])
                elif s.startswith("== "):
                    sub = s[3:]
                elif sub == "buddyinfo":
                    row = parse_buddy_line(s)
                    if row is not None:
                        snap["buddy"].append(row)
                elif sub == "vmstat":
                    kv = s.split()
                    if len(kv) == 2 and kv[1].isdigit():
                        snap["vmstat"][kv[0]] = int(kv[1])
                elif sub == "rxring":
                    kv = s.split()
                    if len(kv) == 2:
                        snap["rx"][kv[0]] = kv[1]
                elif sub == "cpu" and s.startswith("cpu: "):
                    kv = s.split()
                    if len(kv) == 4:
                        snap["cpu"][kv[1]] = int(kv[2]) + int(kv[3])
                continue
            if section in ("begin", "final"):
                if s.startswith("cpu: "):
                    kv = s.split()
                    if len(kv) == 4:
                        cpu[section][kv[1]] = int(kv[2]) + int(kv[3])
                else:
                    kv = s.split()
                    if len(kv) == 2 and kv[1].lstrip("-").isdigit():
                        blocks[section][kv[0]] = int(kv[1])

    summary["lab_end_rc"] = lab_end if lab_end is not None else -999
    if blockbuf["hist"]:
        summary.update(hist_summary(blockbuf["hist"]))
        if summary["frag3_attempts"]:
            summary["frag3_fail_pct"] = (100.0 * summary["frag3_fail"]
                                         / summary["frag3_attempts"])
    for k, v in net["final"].items():
        if k in net["begin"] and v >= 0:
            summary["net_" + k] = v - net["begin"][k]
    if blockbuf["iperf3"]:
        summary.update(iperf3_summary("\n".join(blockbuf["iperf3"])))
    summary.update(thp_summary(thp))
    b, e = blocks["begin"], blocks["final"]
    for k in VMSTAT_DELTAS:
        if k in b and k in e:
            summary[k] = e[k] - b[k]
    # A level, not a delta: MIGRATE_HIGHATOMIC pageblocks at the end.
    if "highatomic_blocks" in e:
        summary["highatomic_blocks"] = e["highatomic_blocks"]
    for t in ("kswapd0", "kcompactd0"):
        if t in cpu["begin"] and t in cpu["final"]:
            summary[t + "_cpu_s"] = (cpu["final"][t] - cpu["begin"][t]) / USER_HZ
    if "kswapd0_cpu_s" in summary:
        summary["daemons_cpu_s"] = summary["kswapd0_cpu_s"] + summary.get("kcompactd0_cpu_s", 0)
    # The same costs per unit of the reader's work: a setting under which
    # the reader reads more also reclaims and refaults more, for that.
    if summary.get("reader_mib", 0) > 0:
        gib = summary["reader_mib"] / 1024
        if "daemons_cpu_s" in summary:
            summary["daemons_cpu_s_per_gib"] = summary["daemons_cpu_s"] / gib
        if "workingset_refault_file" in summary:
            summary["refaults_per_mib"] = summary["workingset_refault_file"] / summary["reader_mib"]

    if "sg" in rx:
        summary["sg"] = rx["sg"]
    if "attempts" in rx:
        summary["attempts"] = rx["attempts"]
        summary["failures"] = rx.get("failures", 0)
        summary["fail_rate_pct"] = (100.0 * summary["failures"] / rx["attempts"]
                                    if rx["attempts"] else 0.0)
        summary["first_fail_ms"] = rx.get("first_fail_ms", -1)
        summary["max_fail_streak"] = rx.get("max_fail_streak", 0)
        summary["dropped_attempts"] = rx.get("dropped_attempts", 0)
        # A frame lost is a failed refill or an attempt the starved timer
        # never made: a configuration whose reclaim starves the softirq
        # must not look better for attempting less.
        summary["lost"] = summary["failures"] + summary["dropped_attempts"]
        if "first_fill_failures" in rx:
            summary["first_fill_failures"] = rx["first_fill_failures"]
            summary["steady_failures"] = summary["failures"] - rx["first_fill_failures"]
        if "attempt_ns" in rx and rx["attempts"]:
            summary["ns_per_attempt"] = rx["attempt_ns"] / rx["attempts"]
        p99 = log2_p99_ns(rx)
        if p99 is not None:
            summary["lat_p99_ns"] = p99
    if summary.get("pgscan_kswapd"):
        summary["kswapd_efficiency_pct"] = (100.0 * summary.get("pgsteal_kswapd", 0)
                                            / summary["pgscan_kswapd"])
    if "start" in summary and "stop" in summary and summary["stop"] > summary["start"]:
        dur = summary["stop"] - summary["start"]
        if "pgscan_kswapd" in summary:
            summary["kswapd_velocity"] = summary["pgscan_kswapd"] / dur

    rows = []
    t0 = summary.get("start", series[0]["time"] if series else 0.0)
    for sn in series:
        pages, nblocks = buddy_ge(sn["buddy"])
        vm = sn["vmstat"]
        rows.append({
            "t": sn["time"] - t0,
            "free_ge3_pages": pages,
            "free_ge3_blocks": nblocks,
            "nr_free_pages": vm.get("nr_free_pages", 0),
            "attempts": int(sn["rx"].get("attempts", 0)),
            "failures": int(sn["rx"].get("failures", 0)),
            "pageoutrun": vm.get("pageoutrun", 0),
            "pgscan_kswapd": vm.get("pgscan_kswapd", 0),
            "compact_daemon_wake": vm.get("compact_daemon_wake", 0),
            "kswapd_ladder_wake": vm.get("kswapd_ladder_wake", 0),
            "kswapd_cpu_ticks": sn["cpu"].get("kswapd0", 0),
        })
    late = [r for r in rows if r["t"] >= LATE_S and r["attempts"]]
    if late and "failures" in summary:
        summary["late_failures"] = max(0, summary["failures"] - late[0]["failures"])
    in_run = [r for r in rows if r["t"] >= 0]
    if in_run:
        summary["free_mib_mean"] = (sum(r["nr_free_pages"] for r in in_run)
                                    / len(in_run) / 256.0)
        summary["free_ge3_pages_mean"] = sum(r["free_ge3_pages"] for r in in_run) / len(in_run)
        summary["free_ge3_pages_min"] = min(r["free_ge3_pages"] for r in in_run)
    return {"summary": summary, "series": rows}


def get(key, path):
    """One summary value, integers without a fraction; "" when absent."""
    v = parse_run(path)["summary"].get(key, "")
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v)


def main(argv):
    if len(argv) == 4 and argv[1] == "--get":
        print(get(argv[2], argv[3]))
        return
    for path in argv[1:]:
        run = parse_run(path)
        for k in sorted(run["summary"]):
            print(f"{k}\t{run['summary'][k]}")
        print(f"snapshots\t{len(run['series'])}")


if __name__ == "__main__":
    main(sys.argv)
