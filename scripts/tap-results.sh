#!/bin/bash
# Count the in-guest TAP results of a `check` job from its result channel
# (build/logs/<variant>-check.result). guest/jobs/check.sh frames each
# program's TAP with "# lab-test: NAME" / "# lab-exit: NAME rc=N".
# One line per test case: PASS: / FAIL: / SKIP: program: description.
# A program that exits with a failure (not 0, not 4 = skip) without a
# "not ok" line, or that never reaches its lab-exit line, is one FAIL.
# A SKIP is never counted as a pass. Exit status 1 if any FAIL or no PASS.
#
# usage: scripts/tap-results.sh RESULT
set -eu

[ $# -eq 1 ] || { echo "usage: tap-results.sh RESULT" >&2; exit 2; }
[ -f "$1" ] || { echo "FAIL: no result file $1"; exit 1; }

tr -d '\r' <"$1" | awk '
function result(kind, what) { print kind ": " prog ": " what; n[kind]++ }
/^# lab-test: / { prog = $3; open = 1; failed = 0; next }
/^# lab-exit: / {
	rc = $4; sub(/^rc=/, "", rc)
	if (rc != 0 && rc != 4 && !failed)
		result("FAIL", "exited with rc=" rc)
	open = 0; prog = ""; next
}
!open { next }
/^(not )?ok [0-9]+/ {
	line = $0
	skip = (line ~ /# *(SKIP|skip)/)
	bad = (line ~ /^not ok/)
	sub(/^(not )?ok [0-9]+ *(- )?/, "", line)
	sub(/^# *(SKIP|skip) */, "", line)
	if (skip)
		result("SKIP", line)
	else if (bad) {
		result("FAIL", line); failed = 1
	} else
		result("PASS", line)
}
END {
	if (open)
		result("FAIL", "did not finish (no lab-exit line)")
	printf "tap totals: pass=%d fail=%d skip=%d\n", n["PASS"], n["FAIL"], n["SKIP"]
	exit (n["FAIL"] > 0 || n["PASS"] == 0)
}'
