# shellcheck shell=sh
# Sourced by the guest jobs that run TAP programs (check, reliability); it
# is /lab/lib/tap.sh in the initramfs. Each program's TAP goes to the console
# and to the result channel between "# lab-test: NAME" and
# "# lab-exit: NAME rc=N" lines, with the guest seconds it took, so the host
# (scripts/tap-results.sh) counts it. kselftest exit codes: 0 pass, 1 fail,
# 4 skip; a program that is not there counts as failed (rc=127).

RESULT=${RESULT:-/dev/ttyS1}

# run_tap PROG: one program, TAP copied to the result channel.
run_tap() {
	name=${1##*/}
	echo "# lab-test: $name" >>"$RESULT"
	if [ ! -x "$1" ]; then
		echo "# $name: not in this initramfs" | tee -a "$RESULT"
		echo "# lab-exit: $name rc=127" >>"$RESULT"
		return 127
	fi
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

# run_tap_all PROG...: every program in turn, then a SUMMARY line. Fails if
# any program failed or none passed.
run_tap_all() {
	pass=0 skip=0 fail=0
	for t in "$@"; do
		run_tap "$t"
		case $? in
		0) pass=$((pass + 1)) ;;
		4) skip=$((skip + 1)) ;;
		*) fail=$((fail + 1)) ;;
		esac
	done
	echo "SUMMARY: PASS=$pass SKIP=$skip FAIL=$fail" | tee -a "$RESULT"
	[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
}
