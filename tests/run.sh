#!/bin/bash
# Host-side parser tests: replay saved guest runs through the parsers and
# compare with the expected output kept beside them.
#   tests/fixtures/<case>/console.log  ttyS0 of a real run
#   tests/fixtures/<case>/result       ttyS1 of that run (may be missing)
#   tests/fixtures/<case>/args         "JOB [--timeout S]" for scan-log.sh
#   tests/fixtures/<case>/expected     scan-log.sh, tap-results.sh and
#                                      kunit-results.sh output + exit codes
# KUnit parsing is also checked on the KTAP logs the tree ships for kunit.py
# (tools/testing/kunit/test_data), counting their cases.
# One PASS:/FAIL: line per case. `tests/run.sh --update` rewrites expected
# files (review the diff before committing).
set -eu
. "$(dirname "$0")/../scripts/lib.sh"

FIX=$LAB_ROOT/tests/fixtures
S=$LAB_ROOT/scripts

# replay DIR: every parser on one saved run, with exit codes.
replay() {
	local d=$1 job timeout=""
	read -r job timeout <"$d/args" || true
	echo "# scan-log"
	"$S/scan-log.sh" ${timeout:+--timeout "$timeout"} "$job" "$d/console.log" "$d/result" || echo "rc=$?"
	echo "# tap-results"
	"$S/tap-results.sh" "$d/result" || echo "rc=$?"
	echo "# kunit-results"
	"$S/kunit-results.sh" "$d/console.log" || echo "rc=$?"
}

# check_fixture DIR: replay matches DIR/expected.
check_fixture() {
	local d=$1 name=${1##*/}
	if [ "${UPDATE:-0}" = 1 ]; then
		replay "$d" >"$d/expected" 2>&1
	fi
	if diff -u "$d/expected" <(replay "$d" 2>&1) >"$LOGS/fixture-$name.diff"; then
		echo "PASS: fixture $name"
	else
		cat "$LOGS/fixture-$name.diff"
		echo "FAIL: fixture $name"
	fi
}

# check_kunit_sample LOG PASS FAIL SKIP RC: kunit-results.sh on a KTAP sample
# from the tree counts these cases and exits with RC.
check_kunit_sample() {
	local log=$TREE/tools/testing/kunit/test_data/$1 out rc=0 want got
	[ -f "$log" ] || { echo "SKIP: kunit sample $1 (not in this tree)"; return; }
	out=$("$S/kunit-results.sh" "$log") || rc=$?
	want="pass=$2 fail=$3 skip=$4 rc=$5"
	got="$(sed -n 's/^kunit totals: //p' <<<"$out") rc=$rc"
	if [ "$got" = "$want" ]; then
		echo "PASS: kunit sample $1 ($want)"
	else
		echo "FAIL: kunit sample $1: want $want, got $got"
	fi
}

main() {
	[ "${1:-}" = --update ] && UPDATE=1
	mkdir -p "$LOGS"
	local d
	for d in "$FIX"/*/; do
		[ -f "$d/args" ] && check_fixture "${d%/}"
	done
	check_kunit_sample test_is_test_passed-all_passed.log 10 0 0 0
	check_kunit_sample test_is_test_passed-failure.log 9 1 0 1
	check_kunit_sample test_skip_tests.log 4 0 1 0
	check_kunit_sample test_kernel_panic_interrupt.log 8 2 0 1
	check_kunit_sample test_is_test_passed-no_tests_run_with_header.log 0 1 0 1
}

main "$@"
