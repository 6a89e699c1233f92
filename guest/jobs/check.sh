# check: run every in-guest functional test, /lab/bin/*_test (TAP via
# kselftest.h), one after another. Each program's TAP goes to the console and
# to the result channel between "# lab-test: NAME" and "# lab-exit: NAME rc=N"
# lines; the host counts ok / not ok / SKIP lines from there. kselftest exit
# codes: 0 pass, 1 fail, 4 skip. The job fails if any program failed.

# run_test PROG: one test program, TAP copied to the result channel.
run_test() {
	name=${1##*/}
	echo "# lab-test: $name" >>"$RESULT"
	"$1" >/tmp/tap 2>&1
	rc=$?
	cat /tmp/tap
	cat /tmp/tap >>"$RESULT"
	echo "# lab-exit: $name rc=$rc" >>"$RESULT"
	return $rc
}

pass=0 skip=0 fail=0
for t in /lab/bin/*_test; do
	[ -x "$t" ] || continue
	run_test "$t"
	case $? in
	0) pass=$((pass + 1)) ;;
	4) skip=$((skip + 1)) ;;
	*) fail=$((fail + 1)) ;;
	esac
done
echo "SUMMARY: PASS=$pass SKIP=$skip FAIL=$fail" | tee -a "$RESULT"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
