#!/bin/sh
# bench: the seed's failure case under load (issue 4), one configuration per boot.
#
# Scenario, fixed before any comparison (bench/README.md says why):
#   1. apply the configuration's sysctls;
#   2. fragmenter: free pages above the high watermark, (almost) no free
#      block of order >= 3; it keeps its allocations for the whole run;
#   3. for $SECS seconds, at the same time:
#        rxring     GFP_ATOMIC order-3 refills from softirq, 2000/s, ring 512,
#                   whole ring given back every second
#        streamread streams a file through the page cache (/mnt/big on the
#                   ext2 disk: movable page cache; see pick_disk)
#        monitor    a snapshot every second (time:, buddyinfo, vmstat,
#                   zoneinfo watermarks, rxring counters, kswapd CPU)
#   4. final counters and the module's stats.
# Kernel command line (bench/run.sh sets it from bench/configs/*.conf):
#   lab.cfg=NAME          configuration name, echoed back
#   lab.sysctl=K=V,K=V    sysctls; V may be xN for N times the boot value
#   lab.secs=S            length of the RX-ring run (default 30)
#   lab.frag=0            skip the fragmenter (the control: same load, memory
#                         as it is after boot)
# Output on $RESULT: "bench: key value", fragmenter lines, snapshots between
# "== snap" and "== end", "rxring: key value", "streamread: ..." lines.
set -eu

RESULT=${RESULT:-/dev/ttyS1}
BIN=/lab/bin
MOD=/lab/modules
DBG=/sys/kernel/debug/rxring
RX_ORDER=3
RX_RATE=2000
RX_RING=512
RX_DRAIN_MS=1000

# cmdline_arg NAME DEFAULT: value of NAME=... on the kernel command line.
cmdline_arg() {
	v=$(tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -n 1)
	echo "${v:-$2}"
}

out() {
	echo "$@" >"$RESULT"
}

# pid_of COMM: pid of the (kernel) thread named COMM.
pid_of() {
	for d in /proc/[0-9]*; do
		if [ "$(cat "$d/comm" 2>/dev/null)" = "$1" ]; then
			echo "${d#/proc/}"
			return
		fi
	done
}

# apply_sysctls LIST: K=V,K=V with V a number or xN (N times the current value).
apply_sysctls() {
	for kv in $(echo "$1" | tr ',' ' '); do
		k=${kv%%=*}
		v=${kv#*=}
		case $v in
		x*)
			v=$(($(sysctl -n "$k") * ${v#x}))
			;;
		esac
		if ! sysctl -w "$k=$v" >/dev/null; then
			out "bench: error cannot set $k=$v"
			exit 1
		fi
	done
}

report_knobs() {
	for k in vm.min_free_kbytes vm.watermark_scale_factor vm.watermark_boost_factor \
		vm.compaction_proactiveness vm.extfrag_threshold \
		vm.watermark_ladder_order vm.watermark_ladder_strict; do
		v=$(sysctl -n "$k" 2>/dev/null || echo absent)
		out "bench: sysctl $k $v"
	done
}

cpu_line() {
	for t in kswapd0 kcompactd0; do
		p=$(pid_of "$t")
		if [ -n "$p" ]; then
			# utime stime in clock ticks (fields 14, 15)
			echo "cpu: $t $(cut -d' ' -f14,15 "/proc/$p/stat")"
		fi
	done
}

# snap: one monitor snapshot.
snap() {
	echo "== snap"
	echo "time: $(cut -d' ' -f1 /proc/uptime)"
	echo "== buddyinfo"
	cat /proc/buddyinfo
	echo "== vmstat"
	grep -E '^(nr_free_pages|nr_file_pages|nr_anon_pages|pgscan|pgsteal|pageoutrun|compact_|kswapd_|workingset_refault_file|allocstall|pgmigrate|alloc_nowait|thp_)' /proc/vmstat
	echo "== zoneinfo"
	grep -E '^Node|^ +(pages free|min|low|high|ladder_o)' /proc/zoneinfo
	echo "== rxring"
	grep -E '^(state|attempts|failures) ' "$DBG/stats"
	echo "== cpu"
	cpu_line
	echo "== end"
}

# pick_disk: the file whose page cache the scenario streams, in DISK.
# bench/run.sh makes the disk an ext2 image holding one big sparse file: a
# file's page cache is movable, as on a server reading files, while a raw
# block device's is GFP_USER and fills unmovable pageblocks that compaction
# cannot clear (that case belongs to the unreachable-ladder test).
pick_disk() {
	mkdir -p /mnt
	if mount -t ext2 -o ro /dev/vda /mnt 2>/dev/null && [ -f /mnt/big ]; then
		DISK=/mnt/big
	else
		DISK=/dev/vda
	fi
	out "bench: disk $DISK"
}

monitor() {
	while [ ! -e /tmp/bench.stop ]; do
		snap >"$RESULT"
		sleep 1
	done
}

main() {
	cfg=$(cmdline_arg lab.cfg unnamed)
	sysctls=$(cmdline_arg lab.sysctl "")
	secs=$(cmdline_arg lab.secs 30)
	frag=$(cmdline_arg lab.frag 1)

	out "bench: config $cfg"
	out "bench: kernel $(uname -r)"
	out "bench: memtotal_kb $(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)"
	out "bench: secs $secs"
	out "bench: rxring order $RX_ORDER rate $RX_RATE ring $RX_RING drain_ms $RX_DRAIN_MS"

	apply_sysctls "$sysctls"
	report_knobs

	insmod "$MOD/rxring.ko" order=$RX_ORDER rate=$RX_RATE ring=$RX_RING \
		drain_ms=$RX_DRAIN_MS duration_ms=$((secs * 1000))

	pick_disk
	# The fragmenter wants one page of cache per read: no readahead while
	# it opens the disk (a file takes the device's readahead at open).
	ra=$(blockdev --getra /dev/vda)
	blockdev --setra 0 /dev/vda
	frag_rc=0
	if [ "$frag" = 0 ]; then
		echo "fragmenter: skipped (lab.frag=0)" >/tmp/frag.out
	else
		"$BIN/fragmenter" -D -d "$DISK" >/tmp/frag.out 2>&1 || frag_rc=$?
	fi
	blockdev --setra "$ra" /dev/vda
	cat /tmp/frag.out
	sed 's/^/  /' /tmp/frag.out | grep -v '^  fragmenter: buddyinfo' >"$RESULT" || true
	out "bench: fragment_rc $frag_rc"
	holder=$(sed -n 's/^fragmenter: holder pid //p' /tmp/frag.out)

	out "== begin"
	cat /proc/vmstat >"$RESULT"
	cpu_line >"$RESULT"
	out "== end"

	rm -f /tmp/bench.stop
	monitor &
	mon=$!
	"$BIN/streamread" -d "$DISK" -o 1024 -t $((secs + 60)) >/tmp/stream.out 2>&1 &
	reader=$!
	out "bench: start $(cut -d' ' -f1 /proc/uptime)"
	echo start >"$DBG/control"
	while grep -q '^state running' "$DBG/stats"; do
		sleep 1
	done
	out "bench: stop $(cut -d' ' -f1 /proc/uptime)"
	kill "$reader"
	wait "$reader" || true
	touch /tmp/bench.stop
	wait "$mon" || true

	out "== final"
	cat /proc/vmstat >"$RESULT"
	cpu_line >"$RESULT"
	out "== end"
	sed 's/^/rxring: /' "$DBG/stats" | grep -v ' lat_log2_[0-9]* 0$' >"$RESULT"
	cat /tmp/stream.out >"$RESULT"
	cat /tmp/stream.out

	if [ -n "$holder" ]; then
		kill "$holder" 2>/dev/null || true
	fi
	rmmod rxring
	out "bench: done"
}

main "$@"
