#!/bin/bash
# Host-side tests of the bench parser and report, on saved guest runs:
#   bench/fixtures/<config>.<rep>.result    raw result channel of a real boot
#   bench/fixtures/<config>.<rep>.expected  bench/parse.py's summary of it
#   bench/fixtures/fastpath-*.result        bench-fastpath runs
# One PASS:/FAIL: line per check. `bench/selftest.sh --update` rewrites the
# expected files (review the diff before committing).
set -eu
BENCH=$(cd "$(dirname "$0")" && pwd)
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
	[ "${1:-}" = --update ] && python3 "$BENCH/parse.py" "$f" >"$exp"
	rc=0
	diff -u "$exp" <(python3 "$BENCH/parse.py" "$f") || rc=$?
	result "$rc" "bench parse $(basename "$f")"
done

# The report on the fixtures: table columns, baseline at 0.00%, fast-path
# ratio, CSV and both plots.
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cp "$FIX"/*.result "$FIX/meta.tsv" "$out/"
rc=0
python3 "$BENCH/report.py" "$out" >"$out/report.txt" 2>&1 || rc=$?
result "$rc" "bench report runs"
rc=0
head -n 1 "$out/table.txt" | grep -q 'baseline *ladder-strict' || rc=1
grep -q '^atomic failure rate % *val *[0-9.]* (+0.00%)' "$out/table.txt" || rc=1
result "$rc" "bench table: one column per configuration, baseline delta 0.00%"
rc=0
grep -q '^ratio_on_off	3	-	1\.0757' "$out/fastpath.tsv" || rc=1
result "$rc" "bench fast-path ratio from the fixture"
rc=0
grep -q '^ladder-strict,fail_rate_pct,1,' "$out/summary.csv" || rc=1
[ "$(wc -l <"$out/series/baseline.1.tsv")" -gt 10 ] || rc=1
result "$rc" "bench CSV and per-second series"
if command -v gnuplot >/dev/null; then
	rc=0
	for p in free-ge3.png failures.png; do
		[ -s "$out/$p" ] || rc=1
	done
	result "$rc" "bench plots (gnuplot)"
fi

echo "bench selftest: $pass passed, $fail failed"
[ "$fail" = 0 ]
