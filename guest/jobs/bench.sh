#!/bin/sh
# bench: the seed's failure case under load, from a saved fragmented state.
#
# Scenario, fixed before any comparison (bench/README.md says why):
#   1. fragmenter: free pages above the high watermark, (almost) no free
#      block of order >= 3; it keeps its allocations for the whole run;
#   2. the guest is saved; each restore applies one configuration's sysctls
#      and lets the system settle for $settle seconds (counted in the costs);
#   3. for $SECS seconds, at the same time, the demand (demand=rx, default):
#        rxring     GFP_ATOMIC order-3 refills from softirq, 2000/s, ring 512
#                   (a configuration's rx_rate= and rx_ring= change them),
#                   whole ring given back every second (sg=1: each frame
#                   from 8 order-0 pages, the scatter/gather reference)
#      or (demand=tcp) the kernel's own order-3 user:
#        iperf3     Debian's iperf3 over loopback TCP: every send fills
#                   skb_page_frag_refill()'s order-3 page frags (no direct
#                   reclaim, order-0 fallback); counted by hist triggers on
#                   kmem:mm_page_alloc, the same on stock and patched kernels
#      or (demand=net) the same from outside: the host's iperf3 client sends
#        through QEMU user networking (hostfwd on the host's 127.0.0.1) to
#        an iperf3 server in the guest, so virtio-net's NAPI refills its
#        mergeable RX buffers (GFP_ATOMIC page frags) from softirq: the
#        real RX ring rxring.ko stands for. The host's timing enters here:
#        these runs do not replay exactly.
#      and, when the go line says thp=MiB (sets with a thp= line; the THP
#      guest of kconfig/thp.config),
#        thpuser    maps MiB of anonymous memory with MADV_HUGEPAGE, touches
#                   it, unmaps it, every THP_PAUSE_MS: huge-page faults that
#                   enter direct reclaim and compaction (guest/tools/thpuser.c)
#      and
#        streamread streams a file through the page cache (/mnt/big on the
#                   ext2 disk: movable page cache; see pick_disk)
#        monitor    a snapshot every second (time:, buddyinfo, vmstat,
#                   zoneinfo watermarks, rxring counters, kswapd CPU)
#   4. final counters and the module's stats.
# The guest is saved once fragmented and restored once per configuration
# (bench/run.sh, bench/state.py); see wait_for_go. Kernel command line:
#   lab.seed=N            the fragmenter's seed (0: its fixed pattern)
#   lab.frag=0            skip the fragmenter (the control: same load, memory
#                         as it is after boot)
#   lab.frag=stressng     Debian's stress-ng instead of the lab's fragmenter
#                         (fragment_stressng)
#   lab.frag=raw          the lab's fragmenter with its page cache read from
#                         the raw block device (/dev/vda: GFP_USER cache in
#                         unmovable pageblocks, which compaction cannot
#                         clear); the reader still streams the file
# Output on $RESULT: "bench: key value", fragmenter lines, snapshots between
# "== snap" and "== end", "rxring: key value", "streamread: ..." lines,
# "thpuser: key value" lines (thp=MiB);
# demand=tcp and net: "== hist" (the hist file) and "== iperf3" (its JSON)
# blocks; net also "net: [begin_]KEY N" (the interface's RX statistics).
set -eu

RESULT=${RESULT:-/dev/ttyS1}
BIN=/lab/bin
MOD=/lab/modules
DBG=/sys/kernel/debug/rxring
# Debian's iperf3 with its libraries (scripts/initramfs.sh, HOST_PROGRAMS).
IPERF3=/usr/bin/iperf3
RX_ORDER=3
RX_RATE=2000
RX_RING=512
RX_DRAIN_MS=1000
THP_PAUSE_MS=100
thpu=""

# shellcheck disable=SC1091 # /lab/lib/cmdline.sh is guest/lib/cmdline.sh
. /lab/lib/cmdline.sh

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
		vm.watermark_ladder_order vm.watermark_ladder_reserve_kbytes \
		vm.watermark_ladder_reserve_min_kbytes vm.watermark_ladder_serve_ms \
		vm.watermark_ladder_reclaim_kbytes \
		net.core.high_order_alloc_disable; do
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
	grep -E '^Node|^ +(pages free|min|low|high|ladder_o|ladder_reserve)' /proc/zoneinfo
	if [ -d "$DBG" ]; then
		echo "== rxring"
		grep -E '^(state|attempts|failures) ' "$DBG/stats"
	fi
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

# The independent fragmenter (frag=stressng, issue 18): Debian's stress-ng
# from its own read-only disk (/dev/vdb, made by bench/run.sh), beside the
# streaming reader, which fills memory with movable page cache meanwhile.
# Its stressors hold kernel memory that stays put while in use (unix
# socket-pair buffers, pipe pages, dentries) and churn anonymous memory. It is not
# stopped for the save: it runs on through every restore (a busy machine,
# not a prepared state) until stop_load. It has no target: the free blocks
# of order >= 3 at the save are reported, whatever they are.
STRESSNG_WARM=60
STRESSNG_ARGS="--timeout 3600s --temp-path /tmp --sockpair 1 --pipe 1 --dentry 1 --vm 1 --vm-bytes 25% --vm-keep"

# fragment_stressng SEED: start stress-ng (its --seed SEED), let it and the
# reader run for STRESSNG_WARM seconds, report; sets sng.
fragment_stressng() {
	mkdir -p /sng
	if ! mount -t ext2 -o ro /dev/vdb /sng 2>/dev/null || [ ! -x /sng/bin/stress-ng ]; then
		echo "stressng: error no stress-ng disk at /dev/vdb (bench/run.sh adds it for frag=stressng)"
		return 1
	fi
	echo "stressng: image $(cat /sng/VERSION)"
	echo "stressng: args --seed $1 $STRESSNG_ARGS"
	# Copied into the rootfs (RAM, never evicted) and the disk let go: a
	# text page evicted under the scenario's pressure and read back from
	# the disk brings the host's disk timing into the guest, and the runs
	# no longer replay exactly (one major fault per run was enough at
	# -icount shift=3: 1 of 4 exact replays identical).
	mkdir -p /tmp/sng
	cp -a /sng/bin /sng/lib /tmp/sng/
	umount /sng
	# Its own loader and libraries, none of the initramfs's glibc; its own
	# session and process group, so one signal reaches every stressor.
	# shellcheck disable=SC2086 # STRESSNG_ARGS is a list of words
	setsid /tmp/sng/lib/ld-linux-x86-64.so.2 --library-path /tmp/sng/lib \
		/tmp/sng/bin/stress-ng --seed "$1" $STRESSNG_ARGS >/tmp/stressng.out 2>&1 &
	sng=$!
	"$BIN/streamread" -d "$DISK" -o 0 -t "$STRESSNG_WARM" >/tmp/warm.out 2>&1 || true
	sed 's/^/stressng: warm-up /' /tmp/warm.out
	"$BIN/fragmenter" -r | sed 's/^fragmenter: /stressng: /'
	# A stressor that failed (e.g. a socket family the guest lacks) would
	# leave a different mix running under the same name.
	if grep -q 'fail:\|error:' /tmp/stressng.out; then
		echo "stressng: result failed: $(grep -m 2 'fail:\|error:' /tmp/stressng.out | tr '\n' ' ')"
		return 1
	fi
	if kill -0 "$sng" 2>/dev/null; then
		echo "stressng: result running"
		return 0
	fi
	echo "stressng: result exited: $(tail -n 3 /tmp/stressng.out | tr '\n' ' ')"
	sng=""
	return 1
}

# freeze_stressng: stress-ng's process group stopped (SIGSTOP) at the end of
# the demand, so that its teardown does not land in the final counters;
# says whether it was still running then (a run whose stress-ng died is
# not the scenario).
freeze_stressng() {
	[ -n "$sng" ] || return 0
	if kill -0 "$sng" 2>/dev/null; then
		out "bench: stressng_alive 1"
	else
		out "bench: stressng_alive 0"
	fi
	kill -STOP -- "-$sng" 2>/dev/null || true
}

# stop_stressng: after the final counters, stress-ng let go and ended
# (SIGTERM to stress-ng itself, which stops its stressors in order; SIGCONT
# to its group; SIGKILL to the group after 30 s), its last lines on the
# result channel.
stop_stressng() {
	[ -n "$sng" ] || return 0
	kill -TERM "$sng" 2>/dev/null || true
	kill -CONT -- "-$sng" 2>/dev/null || true
	i=0
	while kill -0 "$sng" 2>/dev/null && [ "$i" -lt 30 ]; do
		sleep 1
		i=$((i + 1))
	done
	kill -KILL -- "-$sng" 2>/dev/null || true
	wait "$sng" || true
	tail -n 20 /tmp/stressng.out | sed 's/^/stressng: out /' >"$RESULT"
	sng=""
}

# fragment FRAG SEED: put memory into the scenario's state (FRAG=0: leave it
# as it is after boot, the control; FRAG=stressng: stress-ng, above;
# FRAG=raw: the fragmenter's cache from the raw device) and report how it
# went; sets holder.
fragment() {
	pick_disk
	sng="" frag_rc=0
	case $1 in
	0) echo "fragmenter: skipped (lab.frag=0)" >/tmp/frag.out ;;
	stressng) fragment_stressng "$2" >/tmp/frag.out 2>&1 || frag_rc=$? ;;
	*)
		# The fragmenter wants one page of cache per read: no readahead
		# while it opens the disk (a file takes the device's readahead at
		# open).
		src=$DISK
		[ "$1" != raw ] || src=/dev/vda
		ra=$(blockdev --getra /dev/vda)
		blockdev --setra 0 /dev/vda
		{
			echo "fragmenter: cache from $src"
			"$BIN/fragmenter" -D -d "$src" -s "$2"
		} >/tmp/frag.out 2>&1 || frag_rc=$?
		blockdev --setra "$ra" /dev/vda
		;;
	esac
	cat /tmp/frag.out
	sed 's/^/  /' /tmp/frag.out | grep -v '^  fragmenter: buddyinfo' >"$RESULT" || true
	out "bench: fragment_rc $frag_rc"
	holder=$(sed -n 's/^fragmenter: holder pid //p' /tmp/frag.out)
}

# go_field LINE KEY DEFAULT: value of KEY=... in a "go" line.
go_field() {
	v=$(echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | tail -n 1)
	echo "${v:-$3}"
}

# wait_for_go: the saved state waits here, in waitgo (guest/tools/waitgo.c),
# which spins on the shared memory of the ivshmem device. The host pauses
# and saves the whole guest (bench/state.py) once "bench: state-ready" is
# out, then restores it once per configuration, writing into that memory,
# before the guest runs again, a line
#   go cfg=NAME nudge=N secs=S settle=S sg=0|1 rxrate=N rxring=N demand=rx|tcp|net thp=MiB sysctl=K=V,K=V
# Sets cfg, nudge, sysctls, secs, settle, sg, RX_RATE, RX_RING (the module
# refuses values out of its range), demand, thp.
wait_for_go() {
	line=$("$BIN/waitgo")
	cfg=$(go_field "$line" cfg unnamed)
	nudge=$(go_field "$line" nudge 0)
	secs=$(go_field "$line" secs 30)
	settle=$(go_field "$line" settle 5)
	sg=$(go_field "$line" sg 0)
	RX_RATE=$(go_field "$line" rxrate "$RX_RATE")
	RX_RING=$(go_field "$line" rxring "$RX_RING")
	demand=$(go_field "$line" demand rx)
	thp=$(go_field "$line" thp 0)
	sysctls=$(go_field "$line" sysctl "")
}

header() {
	out "bench: config $cfg"
	out "bench: nudge $nudge"
	out "bench: kernel $(uname -r)"
	out "bench: memtotal_kb $(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)"
	out "bench: secs $secs"
	out "bench: demand $demand"
	[ "$demand" != rx ] ||
		out "bench: rxring order $RX_ORDER sg $sg rate $RX_RATE ring $RX_RING drain_ms $RX_DRAIN_MS"
	[ "$thp" = 0 ] || out "bench: thpuser mib $thp pause_ms $THP_PAUSE_MS"
}

# start_thpuser: the THP user beside the demand (thp=MiB); sets thpu.
start_thpuser() {
	thpu=""
	[ "$thp" != 0 ] || return 0
	"$BIN/thpuser" -m "$thp" -p "$THP_PAUSE_MS" -t $((secs + 60)) >/tmp/thp.out 2>&1 &
	thpu=$!
}

# stop_thpuser: the THP user stopped (it finishes its cycle and reports);
# a THP user that failed (no huge pages to be had at all) fails the run.
stop_thpuser() {
	[ -n "$thpu" ] || return 0
	kill "$thpu" 2>/dev/null || true
	thp_rc=0
	wait "$thpu" || thp_rc=$?
	thpu=""
	out "bench: thp_rc $thp_rc"
	cat /tmp/thp.out >"$RESULT"
	if [ "$thp_rc" != 0 ]; then
		out "bench: error thpuser failed: $(head -n 2 /tmp/thp.out | tr '\n' ' ')"
		exit 1
	fi
}

# highatomic_blocks: pageblocks reserved as MIGRATE_HIGHATOMIC, all zones
# (/proc/pagetypeinfo's block counts, the column headed HighAtomic; the
# "mixed blocks" table that page_owner adds is not counted). Reading the
# file walks every free list under zone->lock: only at the end of a run.
highatomic_blocks() {
	awk '/^Number of blocks type/ { for (i = 5; i <= NF; i++) if ($i == "HighAtomic") c = i; on = 1; next }
		!/^Node/ { on = 0 }
		on && c { n += $c } END { print n + 0 }' /proc/pagetypeinfo
}

begin_block() {
	out "== begin"
	cat /proc/vmstat >"$RESULT"
	cpu_line >"$RESULT"
	out "== end"
}

# stop_load: the THP user, the streaming reader and the monitor stopped,
# in that order, before the final counters: the monitor writes to the same
# channel, and a snapshot in the middle of the final block would cut it.
stop_load() {
	stop_thpuser
	kill "$reader"
	wait "$reader" || true
	touch /tmp/bench.stop
	wait "$mon" || true
	freeze_stressng
}

# final_block: the counters at the end of the demand, to subtract from
# begin_block's.
final_block() {
	out "== final"
	cat /proc/vmstat >"$RESULT"
	out "highatomic_blocks $(highatomic_blocks)"
	cpu_line >"$RESULT"
	out "== end"
}

# run_rx: RX ring + streaming reader + monitor for $secs, then the final
# counters.
run_rx() {
	insmod "$MOD/rxring.ko" order=$RX_ORDER sg="$sg" rate="$RX_RATE" ring="$RX_RING" \
		drain_ms=$RX_DRAIN_MS duration_ms=$((secs * 1000))
	rm -f /tmp/bench.stop
	monitor &
	mon=$!
	"$BIN/streamread" -d "$DISK" -o 1024 -t $((secs + 60)) >/tmp/stream.out 2>&1 &
	reader=$!
	start_thpuser
	out "bench: start $(cut -d' ' -f1 /proc/uptime)"
	echo start >"$DBG/control"
	while grep -q '^state running' "$DBG/stats"; do
		sleep 1
	done
	out "bench: stop $(cut -d' ' -f1 /proc/uptime)"
	stop_load
	final_block
	stop_stressng
	sed 's/^/rxring: /' "$DBG/stats" | grep -v ' lat_log2_[0-9]* 0$' >"$RESULT"
	cat /tmp/stream.out >"$RESULT"
	cat /tmp/stream.out
	if [ -n "$holder" ]; then
		kill "$holder" 2>/dev/null || true
	fi
	rmmod rxring
	out "bench: done"
}

# hist_start: two hist triggers on kmem:mm_page_alloc, every allocation of
# order > 0 by order and gfp mask: all of them, and the failed ones (the
# event records pfn -1 when no page was found). No patch is needed, so the
# stock kernel is counted the same way.
HIST_EVENT=/sys/kernel/tracing/events/kmem/mm_page_alloc
hist_start() {
	[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing
	# Append: opening the file with O_TRUNC removes every trigger.
	echo 'hist:keys=order,gfp_flags:vals=hitcount:size=512 if order > 0' >>"$HIST_EVENT/trigger"
	echo 'hist:keys=order,gfp_flags:vals=hitcount:size=512 if order > 0 && pfn == 0xffffffffffffffff' \
		>>"$HIST_EVENT/trigger"
}

# hist_report: both histograms, then the triggers removed (O_TRUNC).
hist_report() {
	out "== hist"
	cat "$HIST_EVENT/hist" >"$RESULT"
	out "== end"
	: >"$HIST_EVENT/trigger"
}

# iperf3_listening: the iperf3 server's port (5201) is in LISTEN.
iperf3_listening() {
	grep -q ':1451 00000000:0000 0A' /proc/net/tcp
}

# wait_listening PID: up to 10 s for the iperf3 server PID to listen; on
# failure the server is killed and the run ends with an error line.
wait_listening() {
	i=0
	while ! iperf3_listening; do
		if [ "$i" -ge 100 ] || ! kill -0 "$1" 2>/dev/null; then
			kill "$1" 2>/dev/null || true
			out "bench: error the iperf3 server did not listen: $(cat /tmp/iperf3-server.out /tmp/iperf3.err 2>/dev/null | head -n 3)"
			exit 1
		fi
		sleep 0.1
		i=$((i + 1))
	done
}

# iperf3_report: iperf3's JSON and exit status (tcp_rc), its errors, the
# reader's line; the fragmenter's holder let go; a failed iperf3 fails the
# run (no "bench: done").
iperf3_report() {
	stop_stressng
	out "== iperf3"
	cat /tmp/iperf3.json >"$RESULT"
	out "== end"
	out "bench: tcp_rc $tcp_rc"
	[ "$tcp_rc" = 0 ] || sed 's/^/bench: iperf3 stderr: /' /tmp/iperf3.err >"$RESULT"
	cat /tmp/stream.out >"$RESULT"
	if [ -n "$holder" ]; then
		kill "$holder" 2>/dev/null || true
	fi
	[ "$tcp_rc" = 0 ] || exit 1
	out "bench: done"
}

# run_tcp: iperf3 over loopback TCP (client and server in the guest, default
# 128 KiB writes) + streaming reader + monitor for $secs, then the final
# counters, the allocation histograms and iperf3's JSON (one summary, -i 0).
run_tcp() {
	ifconfig lo 127.0.0.1 up
	rm -f /tmp/bench.stop
	monitor &
	mon=$!
	"$BIN/streamread" -d "$DISK" -o 1024 -t $((secs + 60)) >/tmp/stream.out 2>&1 &
	reader=$!
	"$IPERF3" -s -1 -B 127.0.0.1 >/tmp/iperf3-server.out 2>&1 &
	server=$!
	wait_listening "$server"
	hist_start
	start_thpuser
	out "bench: start $(cut -d' ' -f1 /proc/uptime)"
	tcp_rc=0
	"$IPERF3" -c 127.0.0.1 -t "$secs" -i 0 -J >/tmp/iperf3.json 2>/tmp/iperf3.err || tcp_rc=$?
	out "bench: stop $(cut -d' ' -f1 /proc/uptime)"
	stop_load
	final_block
	hist_report
	# A client that never reached the one-test server leaves it waiting.
	[ "$tcp_rc" = 0 ] || kill "$server" 2>/dev/null || true
	wait "$server" || true
	iperf3_report
}

# net_dev: the first network interface that is not loopback.
net_dev() {
	for d in /sys/class/net/*; do
		[ "${d##*/}" = lo ] || {
			echo "${d##*/}"
			return
		}
	done
}

# net_counters DEV: the interface's RX statistics and the kernel's drops.
net_counters() {
	for k in rx_packets rx_bytes rx_dropped rx_errors rx_missed_errors rx_fifo_errors; do
		echo "net: $k $(cat "/sys/class/net/$1/statistics/$k" 2>/dev/null || echo -1)"
	done
}

# run_net: an iperf3 server in the guest on the virtio-net interface (QEMU
# user networking: the guest is 10.0.2.15); "bench: net-ready" tells
# bench/run.sh to start the host's client, which sends for $secs seconds
# of host time; the server (-1) ends with that one test. Then as run_tcp.
# Waits at most 600 s of guest time for the client.
run_net() {
	dev=$(net_dev)
	if [ -z "$dev" ]; then
		out "bench: error no network interface (bench/run.sh adds virtio-net)"
		exit 1
	fi
	ifconfig lo 127.0.0.1 up
	ifconfig "$dev" 10.0.2.15 netmask 255.255.255.0 up
	rm -f /tmp/bench.stop
	monitor &
	mon=$!
	"$BIN/streamread" -d "$DISK" -o 1024 -t 900 >/tmp/stream.out 2>&1 &
	reader=$!
	"$IPERF3" -s -1 -J >/tmp/iperf3.json 2>/tmp/iperf3.err &
	server=$!
	wait_listening "$server"
	net_counters "$dev" | sed 's/^net: /net: begin_/' >"$RESULT"
	hist_start
	start_thpuser
	out "bench: start $(cut -d' ' -f1 /proc/uptime)"
	out "bench: net-ready"
	i=0
	while kill -0 "$server" 2>/dev/null && [ "$i" -lt 600 ]; do
		sleep 1
		i=$((i + 1))
	done
	tcp_rc=0
	if kill -0 "$server" 2>/dev/null; then
		kill "$server"
		tcp_rc=124
	fi
	srv_rc=0
	wait "$server" || srv_rc=$?
	[ "$tcp_rc" != 0 ] || tcp_rc=$srv_rc
	out "bench: stop $(cut -d' ' -f1 /proc/uptime)"
	stop_load
	final_block
	hist_report
	net_counters "$dev" >"$RESULT"
	iperf3_report
}

main() {
	frag=$(cmdline_arg lab.frag 1)
	seed=$(cmdline_arg lab.seed 0)
	if ! grep -qx 0x1110 /sys/bus/pci/devices/*/device; then
		out "bench: error no ivshmem device to take the configuration from (run it with bench/run.sh)"
		exit 1
	fi
	# Fragment with the boot defaults and wait to be saved; each restore
	# applies its own configuration and settles, and the counters cover
	# the settle too (its cost).
	out "bench: phase save frag $frag seed $seed"
	fragment "$frag" "$seed"
	out "bench: ready_at $(cut -d' ' -f1 /proc/uptime)"
	out "bench: state-ready"
	wait_for_go
	# nudge: start a few microseconds later (the noise floor of bench/run.sh).
	i=0
	while [ "$i" -lt "$nudge" ]; do
		i=$((i + 1))
	done
	out "bench: restored $(cut -d' ' -f1 /proc/uptime)"
	header
	begin_block
	apply_sysctls "$sysctls"
	report_knobs
	sleep "$settle"
	out "bench: settled $settle"
	case $demand in
	rx) run_rx ;;
	tcp) run_tcp ;;
	net) run_net ;;
	*)
		out "bench: error unknown demand '$demand'"
		exit 1
		;;
	esac
}

main "$@"
