#!/bin/bash
# shellcheck disable=SC2317 # step functions are called through run_step
# `make check` / `make check-debug`: every test of the lab, one step after the
# other, with progress and elapsed times. Steps print result lines
#   PASS: what | FAIL: what | SKIP: what
# which are counted here (a SKIP is never a pass); a step that fails without a
# FAIL line counts as one failure, a quiet step that succeeds as one pass.
# Closing line: "N passed, N failed" (", N skipped" when any were skipped).
#
# usage: scripts/check.sh [patched|debug]
#   patched  build, then host checks (checkpatch, shellcheck, parser
#            fixtures) beside the reliability boot, boot job `check`: KUnit
#            + in-guest tests, the benchmark steps
#   debug    the same guest tests on the debug kernel (no host checks),
#            beside the benchmark scenario shortened, with the ladder on
set -eu
. "$(dirname "$0")/lib.sh"

passed=0 failed=0 skipped=0 t_start=$(date +%s)
STEP_LOG=$LOGS/check-step.log

# run_step LABEL CMD...: run one step, show its output, count its results.
# Returns CMD's exit status.
run_step() {
	local label=$1 t0 rc=0 p f s
	shift
	t0=$(date +%s)
	echo "== $label"
	"$@" 2>&1 | tee "$STEP_LOG" || true
	rc=${PIPESTATUS[0]}
	p=$(grep -c '^PASS: ' "$STEP_LOG" || true)
	f=$(grep -c '^FAIL: ' "$STEP_LOG" || true)
	s=$(grep -c '^SKIP: ' "$STEP_LOG" || true)
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "FAIL: $label (exit status $rc)"
		f=1
	elif [ "$rc" = 0 ] && [ $((p + f + s)) = 0 ]; then
		p=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	echo "== $label: $p passed, $f failed, $s skipped; $(($(date +%s) - t0)) s" |
		sed 's/ passed, / ok, /; s/ failed, / not ok, /'
	return "$rc"
}

# result_value FILE KEY: one value of a bench result, read by the benchmark's
# own parser (bench/parse.py), so result lines have one parser.
result_value() {
	"$PYTHON" "$LAB_ROOT/bench/parse.py" --get "$2" "$1" 2>>"$LOGS/check-parse.err" || true
}

# finish: the closing line; exit status 1 on any failure.
finish() {
	echo "== total time $(($(date +%s) - t_start)) s"
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" = 0 ]
	exit
}

# series: patch files listed in patches/series.
series() {
	[ -f "$LAB_ROOT/patches/series" ] || return 0
	sed -e 's/#.*//' "$LAB_ROOT/patches/series" | awk 'NF { print $1 }'
}

# checkpatch_series: checkpatch.pl --strict on every patch, one result each.
checkpatch_series() {
	local p out
	if [ -z "$(series)" ]; then
		echo "checkpatch: patches/series lists no patch yet"
		return 0
	fi
	for p in $(series); do
		if out=$(cd "$TREE" && perl scripts/checkpatch.pl --strict --color=never "$LAB_ROOT/patches/$p" 2>&1); then
			echo "PASS: checkpatch --strict $p"
		else
			echo "$out" | grep -E '^(ERROR|WARNING|CHECK):' | head -5
			echo "FAIL: checkpatch --strict $p ($(echo "$out" | grep -E '^total:' || echo 'no summary'))"
		fi
	done
}

# run_shellcheck: shellcheck on the harness and guest shell, one result each.
run_shellcheck() {
	local f
	for f in "$LAB_ROOT"/scripts/*.sh "$LAB_ROOT"/tests/*.sh "$LAB_ROOT"/bench/*.sh "$LAB_ROOT"/.ci/run \
		"$LAB_ROOT"/guest/init "$LAB_ROOT"/guest/jobs/*.sh "$LAB_ROOT"/guest/lib/*.sh; do
		[ -f "$f" ] || continue
		if (cd "$LAB_ROOT" && shellcheck -s "$(shell_of "$f")" "${f#"$LAB_ROOT"/}"); then
			echo "PASS: shellcheck ${f#"$LAB_ROOT"/}"
		else
			echo "FAIL: shellcheck ${f#"$LAB_ROOT"/}"
		fi
	done
}

# shell_of FILE: bash for host scripts, sh for what busybox runs in the guest.
shell_of() {
	case $1 in
	*/guest/*) echo sh ;;
	*) echo bash ;;
	esac
}

# build_guest VARIANT: kernel and initramfs; fails if either fails.
build_guest() {
	run_step "build kernel $1" "$LAB_ROOT/scripts/build-kernel.sh" "$1" &&
		run_step "initramfs $1" "$LAB_ROOT/scripts/initramfs.sh" "$1"
}

# host_checks: the checks that need no guest.
host_checks() {
	run_step "checkpatch --strict" checkpatch_series || true
	run_step "shellcheck" run_shellcheck || true
	run_step "host parser tests" "$LAB_ROOT/tests/run.sh" || true
	run_step "host harness: bad input" "$LAB_ROOT/tests/harness.sh" || true
	run_step "bench parser and report" "$LAB_ROOT/bench/selftest.sh" || true
}

# guest_tests VARIANT TIMEOUT [TESTS]: boot job `check`, count KUnit + TAP;
# TESTS (comma-separated) runs only those in-guest tests (lab.tests=).
guest_tests() {
	local v=$1 timeout=$2 tests=${3:-} console=$LOGS/$1-check.console.log result=$LOGS/$1-check.result
	# The page-cache disk (/dev/vda) that the fragmenter-based tests read.
	run_step "boot $v, job check${tests:+: $tests}" "$LAB_ROOT/scripts/boot.sh" --variant "$v" \
		--job check --timeout "$timeout" --disk "$BUILD/check-disk.img" \
		${tests:+--append "lab.tests=$tests"} || true
	if [ -z "$(series)" ]; then
		run_step "KUnit ($v)" echo "SKIP: kunit: no patches in patches/series yet, so no KUnit suite to run" || true
	else
		run_step "KUnit ($v)" "$LAB_ROOT/scripts/kunit-results.sh" "$console" || true
	fi
	run_step "in-guest tests ($v)" "$LAB_ROOT/scripts/tap-results.sh" "$result" || true
}

# Two guests at a time (2 cores, one TCG guest per core): make check starts
# the longest guest job, reliability, in the background as soon as the
# kernel and initramfs are built, and runs the host checks, the check job
# and the benchmark steps beside it. Each guest keeps its own disk image and
# logs. Guest time follows the host's (-icount shift=auto): a guest that
# shares a core sees a slower machine, so the guest tests compare within
# one boot (L=3 against L=0) or have limits far from what they measure.
# Warm make check, nothing rebuilt: ~690 s one after another, 380 s so.
# make check-debug runs its shortened benchmark scenario beside its check boot.

# The reliability job (issue 5: unreachable ladder, OOM kills, knob flipping
# under load, data integrity), split in two boots to balance the two lanes:
# REL_LONG beside everything else, REL_SHORT after the check job.
REL_LONG=rel_unreachable,rel_oom,rel_integrity
REL_SHORT=rel_knobflip

# background_start NAME CMD...: run CMD beside the next steps, its output
# in build/logs/lane-NAME.log and then its exit status in lane-NAME.rc
# (tagged with this run's pid, so an earlier run's file is never read).
declare -A lane_pid=()
background_start() {
	local name=$1
	shift
	rm -f "$LOGS/lane-$name.log" "$LOGS/lane-$name.rc"
	{
		local rc=0
		"$@" >"$LOGS/lane-$name.log" 2>&1 || rc=$?
		echo "$$ $rc" >"$LOGS/lane-$name.rc.new"
		mv "$LOGS/lane-$name.rc.new" "$LOGS/lane-$name.rc"
	} &
	lane_pid[$name]=$!
	echo "[check] $name: started beside the next steps (log: build/logs/lane-$name.log)"
}

# background_wait NAME: wait until background_start NAME has finished
# (polled: run_step runs this in a pipeline's subshell, where `wait` does
# not see the main shell's jobs), show its output, return its exit status;
# 1 if the lane ended without leaving one.
background_wait() {
	local pid=${lane_pid[$1]} rc
	while [ "$(cut -d' ' -f1 "$LOGS/lane-$1.rc" 2>/dev/null)" != $$ ]; do
		if ! kill -0 "$pid" 2>/dev/null; then
			sleep 1
			[ "$(cut -d' ' -f1 "$LOGS/lane-$1.rc" 2>/dev/null)" = $$ ] && break
			cat "$LOGS/lane-$1.log"
			echo "FAIL: background step $1 ended without an exit status"
			return 1
		fi
		sleep 2
	done
	cat "$LOGS/lane-$1.log"
	rc=$(cut -d' ' -f2 "$LOGS/lane-$1.rc")
	return "$rc"
}

# kill_tree PID: PID and every process under it (a lane's boot.sh, timeout
# and QEMU), children first.
kill_tree() {
	local c
	for c in $(pgrep -P "$1" || true); do
		kill_tree "$c"
	done
	kill "$1" 2>/dev/null || true
}

# stop_lanes: on any exit, no background guest is left running (a rerun
# would find its disk image locked).
stop_lanes() {
	local p
	for p in "${lane_pid[@]}"; do
		kill_tree "$p"
	done
}
trap stop_lanes EXIT

# reliability_boot VARIANT STEM PROGRAMS DISK: boot job `reliability` for
# PROGRAMS (lab.rel=, comma-separated) with its own disk and log stem.
reliability_boot() {
	"$LAB_ROOT/scripts/boot.sh" --variant "$1" --job reliability --name "$2" \
		--timeout 900 --disk "$4" --append "lab.rel=$3"
}

# debug_bench: the benchmark scenario, shortened (bench set "debug": one
# saved state, 10 s, the ladder and its reserve on), on the debug kernel: the
# save and the restores under lockdep/KASAN. Per configuration: the restore
# ended cleanly with no splat (scripts/boot.sh), the fragmenter got memory
# into its state, and the RX ring made atomic attempts.
debug_bench() {
	local out=$BUILD/results/check-debug cfg r rc att frc
	rm -rf "$out"
	"$LAB_ROOT/bench/run.sh" -s debug -n 1 -c 1 -t 10 -a -o "$out" || echo "# bench/run.sh exited $?"
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$LAB_ROOT/bench/sets/debug" | while read -r cfg; do
		r=$out/$cfg.1.result
		rc=$(awk -v c="$cfg" '$1 == c { print $4 }' "$out/runs.tsv" 2>/dev/null)
		att=$(result_value "$r" attempts)
		frc=$(result_value "$r" fragment_rc)
		if [ "${rc:-x}" = 0 ] && [ "$(result_value "$r" "done")" = 1 ] && [ "${att:-0}" -gt 0 ] &&
			{ [ "$frc" = 0 ] || [ "$frc" = 1 ]; }; then
			echo "PASS: debug scenario $cfg: clean boot, no splat, $att atomic attempts, $(result_value "$r" failures) failed, fragmenter rc $frc"
		else
			echo "FAIL: debug scenario $cfg: boot rc ${rc:-none}, attempts ${att:-none}, fragmenter rc ${frc:-none}, done '$(result_value "$r" "done")'; logs: build/results/check-debug"
		fi
	done
}

# bench_paired: the benchmark's save and restore on the patched kernel (bench
# set "check": one saved state, 5 s runs). The control three times (the
# third an exact replay), the ladder and the scatter/gather ring once. Pass
# rules: each run finished from the saved state (one LAB-BEGIN: restored,
# not booted afresh); the exact replay's counters equal the first run's
# (the runs are deterministic, the benchmark's premise); the ladder run
# has the ladder's sysctl and the sg run scatter/gather frames.
bench_paired() {
	local out=$BUILD/results/check-bench r n
	rm -rf "$out"
	"$LAB_ROOT/bench/run.sh" -s check -n 1 -c 3 -t 5 -j 1 -a -o "$out" >"$LOGS/check-bench.log" 2>&1 ||
		echo "# bench/run.sh exited $? (log: build/logs/check-bench.log)"
	for r in ladder-off.1 ladder-off.rep2.1 ladder-off.rep3.1 ladder-o3.1 sg.1; do
		# the result channel is a serial line: CR LF
		n=$(tr -d '\r' <"$out/$r.result" 2>/dev/null | grep -c '^LAB-BEGIN' || true)
		if [ "$(result_value "$out/$r.result" "done")" = 1 ] && [ "$n" = 1 ]; then
			echo "PASS: bench restore $r: finished from the saved state"
		else
			echo "FAIL: bench restore $r: no 'bench: done' or not one LAB-BEGIN ($n); logs: build/results/check-bench"
		fi
	done
	if grep -q '^  run 3 (exact replay) lost  *identical in 1/1 states' "$out/noise.txt" 2>/dev/null &&
		grep -q '^  run 3 (exact replay) daemons_cpu_s  *identical in 1/1 states' "$out/noise.txt"; then
		echo "PASS: bench exact replay: same lost frames and daemon CPU as the first run"
	else
		echo "FAIL: bench exact replay differs from the first run: $(grep 'run 3' "$out/noise.txt" 2>/dev/null | head -n 2 | tr -s ' ')"
	fi
	if [ "$(result_value "$out/ladder-o3.1.result" "sysctl vm.watermark_ladder_order")" = 3 ] &&
		[ "$(result_value "$out/ladder-off.1.result" "sysctl vm.watermark_ladder_order")" = 0 ]; then
		echo "PASS: bench configuration reaches the restored guest (ladder order 3 vs 0)"
	else
		echo "FAIL: bench configuration did not reach the restored guest (vm.watermark_ladder_order)"
	fi
	if [ "$(result_value "$out/sg.1.result" sg)" = 1 ] &&
		[ "$(result_value "$out/sg.1.result" attempts)" -gt 0 ] 2>/dev/null; then
		echo "PASS: bench scatter/gather ring made attempts with sg=1"
	else
		echo "FAIL: bench scatter/gather ring: no 'rxring: sg 1' or no attempts"
	fi
}

# bench_tcp: the kernel's own order-3 user (demand=tcp, bench set
# "check-tcp": iperf3 over loopback TCP, 5 s) from the same saved state,
# with the control and with the admin's net.core.high_order_alloc_disable=1.
# Pass rules: iperf3 moved data; the control's page-frag refills were
# counted at order 3 by the hist triggers (both installed: all and
# failed), with no entry dropped; with the
# knob set, the network asked for no order-3 page frag (the counting tells
# the two apart, and the knob reaches the restored guest).
bench_tcp() {
	local out=$BUILD/results/check-tcp ctl hoad v
	rm -rf "$out"
	"$LAB_ROOT/bench/run.sh" -s check-tcp -n 1 -c 1 -t 5 -a -o "$out" >"$LOGS/check-tcp.log" 2>&1 ||
		echo "# bench/run.sh exited $? (log: build/logs/check-tcp.log)"
	ctl=$out/ladder-off.1.result hoad=$out/hoad.1.result
	for r in "$ctl" "$hoad"; do
		v=$(result_value "$r" tcp_mbit_s)
		if [ "$(result_value "$r" "done")" = 1 ] && awk -v v="${v:-0}" 'BEGIN { exit !(v > 0) }'; then
			echo "PASS: tcp scenario ${r##*/}: iperf3 over loopback ran, ${v%.*} Mbit/s (guest time)"
		else
			echo "FAIL: tcp scenario ${r##*/}: not finished or no throughput ('$v'); logs: build/results/check-tcp"
		fi
	done
	v=$(result_value "$ctl" frag3_attempts)
	if [ "${v:-0}" -gt 0 ] 2>/dev/null && [ "$(result_value "$ctl" hist_dropped)" = 0 ] &&
		[ "$(result_value "$ctl" hist_triggers)" = 2 ]; then
		echo "PASS: tcp scenario: $v order-3 page-frag refills counted ($(result_value "$ctl" frag3_fail) failed), none dropped"
	else
		echo "FAIL: tcp scenario: page-frag refills counted '$v', dropped '$(result_value "$ctl" hist_dropped)', hist triggers '$(result_value "$ctl" hist_triggers)' (want 2)"
	fi
	v=$(result_value "$hoad" frag3_attempts)
	if [ "$v" = 0 ] && [ "$(result_value "$hoad" "sysctl net.core.high_order_alloc_disable")" = 1 ]; then
		echo "PASS: tcp scenario: with high_order_alloc_disable=1 no order-3 page-frag refill"
	else
		echo "FAIL: tcp scenario: with high_order_alloc_disable=1, '$v' order-3 page-frag refills"
	fi
}

# DIST_TESTS: the in-guest tests make check also runs on the distribution-
# like guest (variant patched-thp: kconfig/thp.config, THP and ZONE_DMA as
# Debian builds them), where a small zone sits below the one the demand
# uses: kswapd must still be woken for the ladder of the zone the requests
# are served from (patch 3; 10/10 in v6). About 12 min of cold build on 2
# cores.
DIST_TESTS=ladder_kswapd_test,ladder_zoneinfo_test

# check_lock: one make check or make check-debug at a time. Both boot their
# check job from build/check-disk.img, which QEMU opens for writing and
# refuses to a second guest ("Failed to get write lock"): wait, and say so.
check_lock() {
	exec {CHECK_LOCK_FD}>"$BUILD/check.lock"
	if ! flock -n "$CHECK_LOCK_FD"; then
		echo "[check] another make check or make check-debug is running (both boot from $BUILD/check-disk.img): waiting for it to end"
		flock "$CHECK_LOCK_FD"
	fi
}

main() {
	local variant=${1:-patched}
	mkdir -p "$LOGS"
	check_lock
	run_step "host tools" "$LAB_ROOT/scripts/deps.sh" || finish
	run_step "kernel tree: patches/series applies" "$LAB_ROOT/scripts/tree.sh" || finish
	if ! build_guest "$variant"; then
		# A series that does not build still gets its host checks.
		[ "$variant" != patched ] || host_checks
		finish
	fi
	if [ "$variant" = patched ]; then
		background_start reliability reliability_boot patched patched-reliability "$REL_LONG" \
			"$BUILD/check-disk-rel.img"
		host_checks
		# about 8 min beside the background boots since
		# ladder_reclaim_test came in; the cap leaves room for a busy host
		guest_tests patched "${LAB_CHECK_TIMEOUT:-900}"
		run_step "boot patched, job reliability: $REL_SHORT" reliability_boot patched \
			patched-reliability-short "$REL_SHORT" "$BUILD/check-disk.img" || true
		run_step "reliability tests: $REL_SHORT" "$LAB_ROOT/scripts/tap-results.sh" \
			"$LOGS/patched-reliability-short.result" || true
		run_step "benchmark: save, restore, exact replay" bench_paired || true
		run_step "boot patched, job reliability: $REL_LONG (in the background)" \
			background_wait reliability || true
		run_step "reliability tests: $REL_LONG" "$LAB_ROOT/scripts/tap-results.sh" \
			"$LOGS/patched-reliability.result" || true
		run_step "benchmark: TCP over loopback, the kernel's page-frag refills" bench_tcp || true
		if build_guest patched-thp; then
			guest_tests patched-thp "${LAB_CHECK_TIMEOUT:-900}" "$DIST_TESTS"
		fi
	else
		background_start debug-bench debug_bench
		# KASAN and lockdep slow the fragmenter's runs most: the check
		# boot took 1664 s beside other builds on the 2-core machine
		# once ladder_reclaim_test came in.
		guest_tests debug "${LAB_CHECK_TIMEOUT:-2700}"
		run_step "debug kernel: shortened benchmark scenario, ladder on (in the background)" \
			background_wait debug-bench || true
	fi
	finish
}

main "$@"
