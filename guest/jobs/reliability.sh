#!/bin/sh
# reliability: the long in-guest reliability tests of issue 5, one after
# another, each a static TAP program (guest/src/rel_*.c; the short one,
# rel_modparam_test, runs in the `check` job instead):
#   rel_unreachable  kswapd gives up on an unreachable ladder (2 x lab.rel_secs)
#   rel_oom          no extra OOM kills at the edge of memory (4 rounds)
#   rel_knobflip     knobs flipped 100/s under rxring + fragmenter
#   rel_integrity    file set bit-identical under reclaim + compaction
# Each program's TAP goes to the console and to the result channel between
# "# lab-test: NAME" and "# lab-exit: NAME rc=N" lines, as in check.sh, so
# scripts/tap-results.sh counts it. kselftest exit codes: 0 pass, 1 fail,
# 4 skip. Boot with a disk: scripts/boot.sh --job reliability --disk IMG.
# lab.rel=NAME[,NAME] on the kernel command line runs only those programs.
# The job fails if any program failed or none passed.

RESULT=${RESULT:-/dev/ttyS1}
ALL="rel_unreachable rel_oom rel_knobflip rel_integrity"

# cmdline_arg NAME: value of NAME=... on the kernel command line.
cmdline_arg() {
	tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -n 1
}

# run_test PROG: one test program, TAP copied to the result channel.
run_test() {
	name=${1##*/}
	echo "# lab-test: $name" >>"$RESULT"
	t0=$(cut -d' ' -f1 /proc/uptime)
	"$1" >"/tmp/$name.tap" 2>&1
	rc=$?
	cat "/tmp/$name.tap"
	{
		cat "/tmp/$name.tap"
		echo "# $name: guest seconds $t0 -> $(cut -d' ' -f1 /proc/uptime)"
		echo "# lab-exit: $name rc=$rc"
	} >>"$RESULT"
	return $rc
}

tests=$(cmdline_arg lab.rel | tr ',' ' ')
pass=0 skip=0 fail=0
for name in ${tests:-$ALL}; do
	t=/lab/bin/$name
	if [ ! -x "$t" ]; then
		echo "# lab-test: $name" >>"$RESULT"
		echo "# lab-exit: $name rc=127" >>"$RESULT"
		fail=$((fail + 1))
		continue
	fi
	run_test "$t"
	case $? in
	0) pass=$((pass + 1)) ;;
	4) skip=$((skip + 1)) ;;
	*) fail=$((fail + 1)) ;;
	esac
done
echo "SUMMARY: PASS=$pass SKIP=$skip FAIL=$fail" | tee -a "$RESULT"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
