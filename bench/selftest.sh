#!/bin/bash
# Host-side tests of the benchmark's parser, statistics, report and runner,
# on saved guest runs and known answers:
#   bench/fixtures/<config>.<rep>.result    raw result channel of a real boot
#   bench/fixtures/<config>.<rep>.expected  bench/parse.py's summary of it
#   bench/fixtures/paired/                  a real bench/run.sh folder: 2
#                                           saved states per kernel, the
#                                           control 3 times per state
#   bench/fixtures/fastpath-*.result        bench-fastpath runs
#   bench/test_stats.py                     bench/stats.py on known answers
# One PASS:/FAIL: line per check. `bench/selftest.sh --update` rewrites the
# expected files (review the diff before committing).
set -eu
BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/../scripts/lib.sh"
FIX=$BENCH/fixtures
pass=0 fail=0

result() {
	if [ "$1" = 0 ]; then
		echo "PASS: $2"
		pass=$((pass + 1))
	else
		echo "FAIL: $2"
		fail=$((fail + 1))
	fi
}

for f in "$FIX"/*.[0-9]*.result; do
	exp=${f%.result}.expected
	[ "${1:-}" = --update ] && "$PYTHON" "$BENCH/parse.py" "$f" >"$exp"
	rc=0
	diff -u "$exp" <("$PYTHON" "$BENCH/parse.py" "$f") || rc=$?
	result "$rc" "bench parse $(basename "$f")"
done

# demand=tcp: the hist triggers' counts and iperf3's JSON, read back from
# the TCP fixture (iperf3 over loopback, ladder-o3: 71009 order-3 page-frag
# refills, 2 of them failed; 1884 Mbit/s).
rc=0
"$PYTHON" "$BENCH/parse.py" "$FIX/tcp-ladder-o3.1.result" >"$LOGS/selftest-tcp.txt" || rc=1
for kv in "frag3_attempts	71009" "frag3_fail	2" "hist_dropped	0" "demand	tcp"; do
	grep -qx "$kv" "$LOGS/selftest-tcp.txt" || rc=1
done
grep -q '^tcp_mbit_s	18[0-9][0-9]\.' "$LOGS/selftest-tcp.txt" || rc=1
result "$rc" "bench parse: page-frag refills and failures from the hist triggers, TCP Mbit/s from iperf3"

# frag=stressng: the state's report and stress-ng's liveness are read from
# the stress-ng fixture (control run, state 1: 90701 refills, 980 fell
# back), and a run whose stress-ng had died by the end is not counted.
rc=0
"$PYTHON" "$BENCH/parse.py" "$FIX/stressng-ladder-off.1.result" >"$LOGS/selftest-sng.txt" || rc=1
for kv in "frag3_attempts	90701" "frag3_fail	980" "frag_free_ge3	1544" "stressng_alive	1.0"; do
	grep -qx "$kv" "$LOGS/selftest-sng.txt" || rc=1
done
"$PYTHON" - "$BENCH" <<'PY' || rc=1
import sys
sys.path.insert(0, sys.argv[1])
import report
run = {"rc": 0, "summary": {"done": 1, "lab_end_rc": 0, "stressng_alive": 1}}
assert report.counted(run)
run["summary"]["stressng_alive"] = 0
assert not report.counted(run)
PY
result "$rc" "bench parse: stress-ng's state report and liveness; a run without stress-ng alive is not counted"

# The THP user (set thp, on the THP guest): what its faults got and waited
# for, read back from the THP fixture (control run, 10 s: 544 chunks, 529
# huge, 15 fell back; first touches up to 274 ms; 83 direct compactions).
rc=0
"$PYTHON" "$BENCH/parse.py" "$FIX/thp-ladder-off.1.result" >"$LOGS/selftest-thp.txt" || rc=1
for kv in "thp_chunks	544" "thp_huge	529" "thp_fallback	15" "thp_fault_alloc	529" \
	"thp_rc	0.0" "compact_stall	83" "thp_lat_p99_us	268435.456" "thp_slow_1ms	539"; do
	grep -qx "$kv" "$LOGS/selftest-thp.txt" || rc=1
done
grep -q '^thp_success_pct	97\.2' "$LOGS/selftest-thp.txt" || rc=1
result "$rc" "bench parse: the THP user's huge pages, fallbacks and first-touch latency"

# The gfp bits bench/parse.py classifies page-frag refills by are the tree's.
rc=0
"$PYTHON" -c '
import re, sys
sys.path.insert(0, sys.argv[1])
import parse
text = open(sys.argv[2]).read()
enum = text[text.index("enum {"):]
names = re.findall(r"___GFP_(\w+)_BIT,", enum[:enum.index("};")])
for name in ("DIRECT_RECLAIM", "KSWAPD_RECLAIM", "NORETRY", "COMP", "NOMEMALLOC"):
    want = 1 << names.index(name)
    got = getattr(parse, "GFP_" + name)
    if got != want:
        sys.exit(f"GFP_{name}: parse.py {got:#x}, tree {want:#x}")
' "$BENCH" "$TREE/include/linux/gfp_types.h" || rc=1
result "$rc" "bench parse: gfp bits match the tree's include/linux/gfp_types.h"

# The statistics, on known answers (each check prints its own line).
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
rc=0
"$PYTHON" "$BENCH/test_stats.py" >"$out/stats.txt" 2>&1 || rc=$?
grep -E '^(PASS|FAIL): ' "$out/stats.txt" || true
pass=$((pass + $(grep -c '^PASS: ' "$out/stats.txt" || true)))
fail=$((fail + $(grep -c '^FAIL: ' "$out/stats.txt" || true)))
if [ "$rc" != 0 ] && ! grep -q '^FAIL: ' "$out/stats.txt"; then
	result 1 "bench/test_stats.py ran (rc=$rc): $(tail -n 1 "$out/stats.txt")"
fi

# The report on a real paired folder.
cp -r "$FIX/paired" "$out/r"
cp "$FIX"/fastpath-*.result "$out/r/"
rc=0
"$PYTHON" "$BENCH/report.py" "$out/r" >"$out/report.txt" 2>&1 || rc=$?
result "$rc" "bench report runs on the paired fixture"
rc=0
for c in baseline ladder-off ladder-o3 wsf-100; do
	grep -q "^$c  *2 " "$out/r/table.txt" || rc=1
done
grep -q '^ladder-off .* control ' "$out/r/table.txt" || rc=1
result "$rc" "bench table: one row per configuration, 2 states each, the control named"
rc=0
head -n 1 "$out/r/summary.csv" | grep -q "^config,kind,metric,n,median,ci_low,ci_high,vs,n_compared,ratio,ratio_ci_low,ratio_ci_high,p,verdict$" || rc=1
grep -q '^baseline,stock-kernel,lost,2,.*,ladder-off (two-sample),' "$out/r/summary.csv" || rc=1
grep -q '^wsf-100,stock,lost,2,.*,ladder-off (paired),' "$out/r/summary.csv" || rc=1
result "$rc" "bench summary.csv: intervals, paired and two-sample comparisons"
# n = 2 cannot give a 95% interval on a median, and the paired interval of
# such a small sample must span 1: the report has to say it cannot tell.
rc=0
grep -q '^ladder-o3,ladder,lost,2,[0-9.]*,,,' "$out/r/summary.csv" || rc=1
grep -q '^ladder-o3,ladder,lost,.*,no change shown$' "$out/r/summary.csv" || rc=1
result "$rc" "bench summary.csv: n=2 has no median interval and says 'no change shown'"
rc=0
grep -q 'run 3 (exact replay) lost  *identical in 2/2 states' "$out/r/noise.txt" || rc=1
grep -q 'run 2 (nudged by 1) lost ' "$out/r/noise.txt" || rc=1
result "$rc" "bench noise floor: exact replays identical, nudged runs reported"
rc=0
grep -q '^ladder-o3: lost ' "$out/r/frontier.txt" || rc=1
grep -q 'best stock costing <= ' "$out/r/frontier.txt" || rc=1
result "$rc" "bench frontier: the ladder against the stock settings"
# Throughput is a cost read the other way: the stock settings that cost no
# more are those whose reader read at least as fast (wsf-100 at 188 MiB/s
# against the ladder's 182; read as a cost that is cheaper when lower, no
# stock setting would qualify, ladder-off read 183).
rc=0
grep -q '^  reader MiB/s (higher is cheaper) .*best stock at >= 182: wsf-100 ' "$out/r/frontier.txt" || rc=1
result "$rc" "bench frontier: throughput as a cost, higher is cheaper"
rc=0
grep -q '^ratio_on_off	3	-	1\.0757' "$out/r/fastpath.tsv" || rc=1
result "$rc" "bench fast-path ratio from the fixture"
rc=0
grep -q '^ratio_on_off	3-atomic	-	1\.1000' "$out/r/fastpath.tsv" || rc=1
grep -q '^ratio_on_stock	3-atomic' "$out/r/fastpath.tsv" && rc=1
result "$rc" "bench fast-path GFP_ATOMIC ratio from the fixture (no stock row to divide by)"
if command -v gnuplot >/dev/null; then
	rc=0
	for p in frontier.png free-ge3.png; do
		[ -s "$out/r/$p" ] || rc=1
	done
	result "$rc" "bench plots (gnuplot)"
fi

# A run whose boot failed (bench/run.sh recorded rc != 0 in runs.tsv: a
# splat, no LAB-END rc=0) is not counted, even with its numbers in place.
cp -r "$FIX/paired" "$out/bad"
sed -i 's/^wsf-100\t2\tpatched\t0$/wsf-100\t2\tpatched\t1/' "$out/bad/runs.tsv"
rc=0
"$PYTHON" "$BENCH/report.py" "$out/bad" >"$out/bad-report.txt" 2>&1 || rc=1
grep -q '^wsf-100  *1 ' "$out/bad/table.txt" || rc=1
grep -q '^ladder-off  *2 ' "$out/bad/table.txt" || rc=1
result "$rc" "bench report: a run whose boot failed is not counted"

# The runner refuses bad input in one line, before it builds or boots.
mkdir -p "$out/used" && : >"$out/used/runs.tsv"
for args in "-n 0" "-n x" "-s no-such-set" "-c 0" "-d udp" "-m 100" "-p 9" "-p 0" "-p 2" "-s check -o $out/used"; do
	rc=0
	# shellcheck disable=SC2086 # the arguments are meant to split
	"$BENCH/run.sh" $args >"$out/bad.txt" 2>&1 || rc=$?
	if [ "$rc" != 0 ] && [ "$(wc -l <"$out/bad.txt")" = 1 ] && grep -q 'error' "$out/bad.txt"; then
		result 0 "bench/run.sh $args: one error line, exit $rc"
	else
		result 1 "bench/run.sh $args: rc=$rc, output: $(head -c 200 "$out/bad.txt")"
	fi
done

# A configuration whose ring cannot be run is refused the same way: a rate
# that is not a number, a ring above the module's 65536 buffers.
for kv in "rx_rate=abc" "rx_ring=65537" "rx_rate=0"; do
	conf_file=$BENCH/configs/.selftest-$$.conf set_file=$BENCH/sets/.selftest-$$
	printf 'variant=patched\n%s\n' "$kv" >"$conf_file"
	printf '.selftest-%s\n' "$$" >"$set_file"
	rc=0
	"$BENCH/run.sh" -s ".selftest-$$" -o "$out/rx" >"$out/bad.txt" 2>&1 || rc=$?
	rm -f "$conf_file" "$set_file"
	if [ "$rc" != 0 ] && [ "$(wc -l <"$out/bad.txt")" = 1 ] &&
		grep -q "error: bench/configs/.selftest-$$.conf: ${kv%%=*}=" "$out/bad.txt" &&
		[ ! -e "$out/rx" ]; then
		result 0 "bench/run.sh: a configuration with '$kv' is refused in one error line, nothing made"
	else
		result 1 "bench/run.sh: a configuration with '$kv': rc=$rc, output: $(head -c 200 "$out/bad.txt")"
	fi
done

# A set whose lines cannot be run is refused the same way: a THP user on a
# guest without THP, a kernel kind that does not exist, a THP user of odd
# MiB (it maps whole 2 MiB chunks) or not a number, a fragmenter that does
# not exist.
for lines in "thp=32" "kernel=xyz" "kernel=thp thp=3" "kernel=thp thp=abc" "frag=xyz"; do
	set_file=$BENCH/sets/.selftest-$$
	# shellcheck disable=SC2086 # one set line per word
	printf '%s\nladder-off\n' $lines >"$set_file"
	rc=0
	"$BENCH/run.sh" -s ".selftest-$$" >"$out/bad.txt" 2>&1 || rc=$?
	rm -f "$set_file"
	if [ "$rc" != 0 ] && [ "$(wc -l <"$out/bad.txt")" = 1 ] && grep -q "error: set '.selftest-$$'" "$out/bad.txt"; then
		result 0 "bench/run.sh: a set with '$lines' is refused in one error line"
	else
		result 1 "bench/run.sh: a set with '$lines': rc=$rc, output: $(head -c 200 "$out/bad.txt")"
	fi
done

echo "bench selftest: $pass passed, $fail failed"
[ "$fail" = 0 ]
