#!/bin/bash
# Count the KUnit test cases of one boot: the KTAP that built-in suites print
# on the console is parsed with the tree's tools/testing/kunit/kunit.py parse
# (JSON), one line per case: PASS: / FAIL: / SKIP: suite.case.
# No KUnit result at all is a failure ("no KUnit results"): a kernel that ran
# no test has not passed any.
#
# usage: scripts/kunit-results.sh CONSOLE [TREE]
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || { echo "usage: kunit-results.sh CONSOLE [TREE]" >&2; exit 2; }
console=$(realpath "$1")
tree=${2:-$TREE}
json=$(mktemp)
trap 'rm -f "$json"' EXIT

python3 "$tree/tools/testing/kunit/kunit.py" parse --json="$json" "$console" >/dev/null 2>&1 || true
python3 - "$json" <<'PY'
import json, sys

def cases(group, prefix):
    """Yield (name, status) for every test case, suites joined with dots."""
    for sub in group.get("sub_groups", []):
        yield from cases(sub, prefix + sub["name"] + ".")
    for case in group.get("test_cases", []):
        yield prefix + case["name"], case["status"]

try:
    with open(sys.argv[1]) as f:
        root = json.load(f)
except (OSError, ValueError):
    root = {}
n = {"PASS": 0, "FAIL": 0, "SKIP": 0}
for name, status in cases(root, ""):
    kind = {"PASS": "PASS", "SKIP": "SKIP"}.get(status, "FAIL")
    print(f"{kind}: kunit: {name}" + ("" if status in n else f" ({status})"))
    n[kind] += 1
if not any(n.values()):
    print("FAIL: kunit: no KUnit results in the console log")
    n["FAIL"] += 1
print(f"kunit totals: pass={n['PASS']} fail={n['FAIL']} skip={n['SKIP']}")
sys.exit(1 if n["FAIL"] or not n["PASS"] else 0)
PY
