#!/bin/bash
# Verdict on one saved guest run, from its files only (so saved logs can be
# replayed as parser fixtures, tests/fixtures/*):
#   CONSOLE  ttyS0 log    scanned for kernel splats
#   RESULT   ttyS1 log    must end the job with "LAB-END rc=0"
# Prints one line per finding and exits non-zero on any:
#   SPLAT: job NAME: <first splat line>
#   NO-RESULT: job NAME: no LAB-END on the result channel (guest crashed?)
#   FAIL: job NAME ended with rc=N
# With --timeout S (QEMU was killed), it says TIMEOUT: job NAME hung after S s.
# "page allocation failure" is not a splat: the benchmark provokes those.
#
# usage: scripts/scan-log.sh [--timeout S] JOB CONSOLE RESULT
set -eu

# Splat patterns, fixed strings, one a line: the same file the guest tests
# read (/lab/lib/splat-patterns, guest/lib/lab.c kmsg_first_splat).
SPLATS=$(dirname "$0")/../guest/lib/splat-patterns

# first_splat CONSOLE: the first console line that reports a kernel splat.
first_splat() {
	grep -a -m1 -F -f "$SPLATS" "$1" | tr -d '\r' || true
}

# end_rc RESULT: N from the last "LAB-END rc=N" line, empty if none.
end_rc() {
	tr -d '\r' <"$1" 2>/dev/null | sed -n 's/^LAB-END rc=\([0-9]*\).*/\1/p' | tail -n1
}

main() {
	local timeout="" job console result splat rc bad=0
	if [ "${1:-}" = --timeout ]; then
		timeout=$2
		shift 2
	fi
	[ $# -eq 3 ] || { echo "usage: scan-log.sh [--timeout S] JOB CONSOLE RESULT" >&2; exit 2; }
	job=$1 console=$2 result=$3
	if [ -n "$timeout" ]; then
		echo "TIMEOUT: job $job hung after $timeout s"
		bad=1
	fi
	splat=$( [ -f "$console" ] && first_splat "$console")
	if [ -n "$splat" ]; then
		echo "SPLAT: job $job: $splat"
		bad=1
	fi
	rc=$(end_rc "$result")
	if [ -z "$rc" ]; then
		[ -n "$timeout" ] || echo "NO-RESULT: job $job: no LAB-END on the result channel (guest crashed?)"
		bad=1
	elif [ "$rc" != 0 ]; then
		echo "FAIL: job $job ended with rc=$rc"
		bad=1
	fi
	[ "$bad" = 0 ] && echo "PASS: job $job"
	return "$bad"
}

main "$@"
