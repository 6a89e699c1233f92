#!/bin/bash
# The paired benchmark: fragment once per seed, save the whole guest, then
# run every configuration of that kernel from the same saved state.
#
# usage: bench/run.sh [-s SET] [-n STATES] [-t SECS] [-e SETTLE] [-c CONTROLS]
#                     [-j JOBS] [-i ICOUNT] [-d DEMAND] [-m MiB] [-p VCPUS]
#                     [-o OUTDIR] [-F] [-a]
#   -s SET       bench/sets/SET lists the configurations (default: run); a
#                line demand=NAME there sets the set's demand, frag=stressng
#                or frag=raw its fragmenter, kernel=thp runs every configuration on the
#                THP guest (variant patched-thp or baseline-thp: 2 MiB
#                pageblocks, kconfig/thp.config), thp=MiB adds the THP user
#                (guest/tools/thpuser.c, MiB per cycle) beside the demand,
#                control=NAME the set's control (default ladder-off): run
#                CONTROLS times per state, every configuration without its
#                own control= is compared with it
#   -d DEMAND    what makes the high-order demand (guest/jobs/bench.sh):
#                rx (default: the RX ring, module/rxring.ko), tcp (iperf3
#                over loopback TCP: the kernel's page-frag refills) or net
#                (the host's iperf3 client into the guest through virtio-net:
#                its RX buffer refills; host timing enters, no exact replay)
#   -n STATES    saved states per kernel (default 3): the first seeds (1, 2,
#                ...) whose fragmenter reached its target
#   -t SECS      length of the RX-ring run in the guest (default 30)
#   -e SETTLE    seconds between the sysctls and the run (default 5)
#   -c CONTROLS  runs of the control (ladder-off) from each state (default 3):
#                repeat 2 starts a few microseconds later (nudged: how much a
#                run depends on such a shift, the noise floor of a paired
#                comparison), repeat 3 is an exact replay (it must give the
#                same numbers: the runs are deterministic), 4 and on are
#                nudged further
#   -j JOBS      guests at once (default 2; guest time does not follow the
#                host, so parallel guests do not change what they measure)
#   -i ICOUNT    QEMU's -icount argument (default shift=2,sleep=off); off:
#                no -icount, guest time follows the host's clock (the
#                only way to run more than one vCPU, see -p): runs do not
#                replay, one guest at a time (-j 1)
#   -m MiB       guest memory (default 1024; 4096 populates ZONE_NORMAL
#                above 4 GiB beside DMA32: the scale runs of issue 18);
#                above 2048 the streamed file is 4 x MiB (its own disk).
#   -p VCPUS     vCPUs (default 1; 1..8). More than one needs -i off: the
#                guest boots QEMU's qboot firmware (-bios
#                /usr/share/qemu/qboot.rom; SeaBIOS's MP table lists the boot
#                CPU only and the guest config has no ACPI), and under
#                -icount (QEMU 7.2, round-robin TCG) the second vCPU stops
#                taking its interrupts, fresh boot or restore: RCU stalls
#                on CPU 1 waiting for a TLB-flush IPI, and the RX ring's
#                timer made 2748-4077 of 60000 refills (bench/README.md)
#   -o OUTDIR    default build/results/SET-<date>; build/results/latest-SET links it
#   -F           also the fast-path boots (allocbench, job bench-fastpath)
#   -a           any state counts, target reached or not (check-debug's smoke run)
#
# 1. States: for each kernel variant the set needs, boot job bench with
#    lab.seed=K (K = 1..N): the fragmenter puts memory into the scenario's
#    state and the guest says so; bench/state.py saves it (QEMU migration to
#    a file) into build/states/by-guest/VARIANT-<key>/, where <key> hashes the kernel,
#    initramfs, guest size and clock, so a state is reused only by the same
#    guest (make run's states serve make bench too).
# 2. Runs: for each state and each configuration of its kernel, QEMU with
#    the same command line restores the state (-incoming), paused; the
#    configuration's "go" line is written into the memory of the guest's
#    ivshmem device, then the guest runs on (guest/tools/waitgo.c: no I/O
#    timing enters, so a restore repeats itself); it applies the sysctls,
#    settles and runs the demand.
#    The patched kernel's states are saved with the ladder off
#    (sysctl.vm.watermark_ladder_order=0), so every configuration starts
#    from the same stock-behaving state.
# 3. bench/report.py: runs.csv, summary.csv with intervals, paired ratios
#    against the control from the same state, the frontier and the plots.
# Configurations: bench/configs/NAME.conf (variant=, sysctl=, sg=, frag=,
# rx_rate=, rx_ring=).
set -eu
BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/../scripts/lib.sh"

set_name=run nstates=3 secs=30 settle=5 controls=3 jobs=2 outdir="" fastpath=0 any_state=0 demand=
ICOUNT=shift=2,sleep=off
MEM=1024
VCPUS=1
CONTROL=ladder-off
USAGE="usage: bench/run.sh [-s SET] [-n STATES] [-t SECS] [-e SETTLE] [-c CONTROLS] [-j JOBS] [-i ICOUNT] [-d DEMAND] [-m MiB] [-p VCPUS] [-o OUTDIR] [-F] [-a]"

while getopts ":s:n:t:e:c:j:i:d:m:p:o:Fa" opt; do
	case $opt in
	s) set_name=$OPTARG ;;
	n) nstates=$OPTARG ;;
	t) secs=$OPTARG ;;
	e) settle=$OPTARG ;;
	c) controls=$OPTARG ;;
	j) jobs=$OPTARG ;;
	i) ICOUNT=$OPTARG ;;
	d) demand=$OPTARG ;;
	m) MEM=$OPTARG ;;
	p) VCPUS=$OPTARG ;;
	o) outdir=$OPTARG ;;
	F) fastpath=1 ;;
	a) any_state=1 ;;
	:) die "option -$OPTARG needs a value ($USAGE)" ;;
	*) die "unknown option -$OPTARG ($USAGE)" ;;
	esac
done
for n in "$nstates" "$secs" "$settle" "$controls" "$jobs" "$MEM" "$VCPUS"; do
	case $n in
	'' | *[!0-9]*) die "'$n' is not a number ($USAGE)" ;;
	esac
done
if [ "$nstates" -lt 1 ] || [ "$jobs" -lt 1 ] || [ "$controls" -lt 1 ]; then
	die "-n, -c and -j take 1 or more"
fi
MEM=$((10#$MEM))
if [ "$MEM" -lt 512 ] || [ "$MEM" -gt 8192 ]; then
	die "-m takes 512..8192 (MiB)"
fi
VCPUS=$((10#$VCPUS))
if [ "$VCPUS" -lt 1 ] || [ "$VCPUS" -gt 8 ]; then
	die "-p takes 1..8 (vCPUs)"
fi
if [ "$VCPUS" -gt 1 ] && [ "$ICOUNT" != off ]; then
	die "-p $VCPUS needs -i off: under -icount a second vCPU stops taking its interrupts (bench/README.md, vCPUs)"
fi
QBOOT=/usr/share/qemu/qboot.rom
if [ "$VCPUS" -gt 1 ] && [ ! -f "$QBOOT" ]; then
	die "$QBOOT missing (the firmware that lists every vCPU): apt-get install qemu-system-data"
fi

setfile=$BENCH/sets/$set_name
[ -f "$setfile" ] || die "no configuration set '$set_name' (bench/sets/)"
mapfile -t configs < <(sed -e 's/#.*//' -e '/=/d' -e '/^[[:space:]]*$/d' "$setfile")
[ ${#configs[@]} -gt 0 ] || die "set '$set_name' is empty"
# set_get KEY: the value of the set's last KEY= line ("" if none); each
# value is checked where it is used.
set_get() {
	sed -n "s/^$1=\([A-Za-z0-9-]*\).*/\1/p" "$setfile" | tail -n 1
}
[ -n "$demand" ] || demand=$(set_get demand)
set_frag=$(set_get frag)
set_kernel=$(set_get kernel)
set_control=$(set_get control)
if [ -n "$set_control" ]; then
	CONTROL=$set_control
	case " ${configs[*]} " in
	*" $CONTROL "*) ;;
	*) die "set '$set_name': control=$CONTROL is not one of its configurations" ;;
	esac
fi
set_thp=$(set_get thp)
case ${set_kernel:-} in
'' | thp) ;;
*) die "set '$set_name': unknown kernel=$set_kernel (thp: the THP guest)" ;;
esac
case ${set_thp:-0} in
*[!0-9]*) die "set '$set_name': thp=$set_thp is not a number of MiB" ;;
esac
set_thp=$((10#${set_thp:-0}))
if [ "$set_thp" != 0 ] && { [ "$set_thp" -lt 2 ] || [ "$set_thp" -gt 4096 ] || [ $((set_thp % 2)) != 0 ]; }; then
	die "set '$set_name': thp=$set_thp must be an even number of MiB, 2..4096 (whole 2 MiB chunks)"
fi
if [ "$set_thp" != 0 ] && [ "$set_kernel" != thp ]; then
	die "set '$set_name': thp=$set_thp needs kernel=thp (the other guests have no THP)"
fi
# A set's savemin=KB line: its states are saved with vm.min_free_kbytes=KB
# on the kernel command line, applied after the initcalls, so after
# khugepaged has raised the value at boot; the fragmenter then works to the
# watermarks of KB. Part of the state key.
set_savemin=$(set_get savemin)
case $set_savemin in
'') ;;
*[!0-9]*) die "set '$set_name': savemin=$set_savemin is not a number of KiB" ;;
*)
	set_savemin=$((10#$set_savemin))
	if [ "$set_savemin" -lt 128 ] || [ "$set_savemin" -gt 262144 ]; then
		die "set '$set_name': savemin=$set_savemin must be 128..262144 (KiB)"
	fi
	;;
esac
case ${set_frag:-1} in
1 | raw | stressng) ;;
*) die "set '$set_name': unknown frag=$set_frag (1: the lab's fragmenter, raw: the same with its cache from the raw device, stressng: stress-ng)" ;;
esac
demand=${demand:-rx}
case $demand in
rx | tcp | net) ;;
*) die "unknown demand '$demand' (rx, tcp or net)" ;;
esac
# Host time enters a run with demand=net (its client; a second guest could
# also take the port free_port found) and with -i off (the guest's clock):
# a second guest would take host CPU from it, and so change what it
# measures.
host_timed=
[ "$demand" != net ] || host_timed="demand=net"
[ "$ICOUNT" != off ] || host_timed="-i off"
if [ -n "$host_timed" ] && [ "$jobs" != 1 ]; then
	say "$host_timed: one guest at a time (-j 1), not $jobs"
	jobs=1
fi

# conf_frag NAME: the fragmenter of configuration NAME: its frag= (default 1,
# the lab's fragmenter), or the set's frag= line for those that name none.
conf_frag() {
	local f
	f=$(conf_get "$1" frag)
	echo "${f:-${set_frag:-1}}"
}

# conf_count NAME KEY MAX WHAT: configuration NAME's KEY=, empty if unset,
# else a whole number in 1..MAX or the run stops here with one error line
# (rather than in every guest).
conf_count() {
	local v
	v=$(conf_get "$1" "$2")
	[ -n "$v" ] || return 0
	case $v in
	*[!0-9]* | 0*) die "bench/configs/$1.conf: $2=$v is not $4 of 1..$3" ;;
	esac
	if [ "${#v}" -gt 6 ] || [ "$v" -gt "$3" ]; then
		die "bench/configs/$1.conf: $2=$v is not $4 of 1..$3"
	fi
	echo "$v"
}

# conf_rx NAME: the go line's fields for the RX ring of configuration NAME:
# its rx_rate= (refills per second, rxring.ko takes 1..100000) and rx_ring=
# (buffers, 1..65536), each only if set (the guest's defaults, 2000 and
# 512, stand otherwise).
conf_rx() {
	local rate ring
	rate=$(conf_count "$1" rx_rate 100000 "a rate") || exit 1
	ring=$(conf_count "$1" rx_ring 65536 "a ring") || exit 1
	echo "${rate:+rxrate=$rate}${rate:+${ring:+ }}${ring:+rxring=$ring}"
}

# conf_variant NAME: the kernel variant configuration NAME runs on: its
# variant=, on the THP guest (-thp) when the set says kernel=thp.
conf_variant() {
	local v
	v=$(conf_get "$1" variant)
	[ -n "$v" ] || die "bench/configs/$1.conf has no variant="
	if [ -z "$set_kernel" ]; then
		echo "$v"
		return
	fi
	case $v in
	patched | baseline) echo "$v-$set_kernel" ;;
	*) die "set '$set_name' (kernel=$set_kernel): $1 runs on variant $v, which has no -$set_kernel form" ;;
	esac
}

# conf_get NAME KEY [DEFAULT]: KEY=value from bench/configs/NAME.conf.
conf_get() {
	local f=$BENCH/configs/$1.conf v
	[ -f "$f" ] || die "no configuration '$1' (bench/configs/$1.conf)"
	v=$(sed -n "s/^$2=//p" "$f" | tail -n 1)
	echo "${v:-${3:-}}"
}

# qemu_args FRAG [PORT]: what every save and restore adds to scripts/boot.sh's
# command line; a restore must match its save. FRAG=stressng adds stress-ng's
# disk (/dev/vdb, make_stressng_disk). The virtio-net interface is
# in every guest (down unless demand=net brings it up), without an option
# ROM (the ROM file is migrated, and an ipxe-qemu update would break every
# saved state); QEMU's user
# networking with restrict=on lets the guest reach nothing, and a restore
# given PORT forwards the host's 127.0.0.1:PORT to the guest's iperf3
# server (port 5201), the only way in.
qemu_args() {
	local port=${2:-}
	[ "$ICOUNT" = off ] || printf '%s\n' -icount "$ICOUNT"
	[ "$VCPUS" = 1 ] || printf '%s\n' -bios "$QBOOT"
	printf '%s\n' -rtc clock=vm \
		-drive "file=$(disk_image),format=raw,if=virtio,readonly=on"
	[ "$1" != stressng ] ||
		printf '%s\n' -drive "file=$SNG_IMG,format=raw,if=virtio,readonly=on"
	printf '%s\n' -netdev "user,id=net0,restrict=on${port:+,hostfwd=tcp:127.0.0.1:$port-:5201}" \
		-device virtio-net-pci,netdev=net0,romfile=
}

# free_port: a TCP port nothing on the host's 127.0.0.1 listens on.
free_port() {
	"$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# net_client RESULT PORT OUT: demand=net's client. Waits (up to 15 min of
# host time) for the guest's "bench: net-ready", then runs the host's iperf3
# against 127.0.0.1:PORT for $secs seconds, its JSON into OUT; retries the
# connection a few times while the forwarded port comes up.
net_client() {
	local i=0
	while ! grep -q 'bench: net-ready' "$1" 2>/dev/null; do
		[ "$i" -lt 900 ] || return 1
		sleep 1
		i=$((i + 1))
	done
	local child=""
	trap '[ -z "$child" ] || kill "$child" 2>/dev/null; exit 1' TERM
	for i in 1 2 3 4 5; do
		timeout $((secs + 120)) iperf3 -c 127.0.0.1 -p "$2" -t "$secs" -J >"$3" 2>&1 &
		child=$!
		wait "$child" && return 0
		sleep 2
	done
	return 1
}

# boot_append VARIANT FRAG SEED: the kernel command line of a save.
boot_append() {
	local a="kunit.enable=0 tsc=reliable lab.frag=$2 lab.seed=$3"
	[ -z "$set_savemin" ] || a="$a sysctl.vm.min_free_kbytes=$set_savemin"
	case $1 in baseline*) ;; *) a="$a sysctl.vm.watermark_ladder_order=0" ;; esac
	echo "$a"
}

# state_key VARIANT: what a saved state depends on, hashed.
state_key() {
	{
		echo "$1 $MEM"
		[ "$VCPUS" = 1 ] || echo "smp $VCPUS"
		qemu_args ""
		[ -z "$set_savemin" ] || echo "savemin $set_savemin"
		sha256sum "$OBJ/$1/arch/x86/boot/bzImage" "$BUILD/initramfs/$1.cpio.gz" | cut -d' ' -f1
	} | sha256sum | cut -c1-12
}

# disk_gib: the size of the streamed file, which must not fit in memory:
# 2 GiB up to 2 GiB guests, 4 x the guest's memory above.
disk_gib() {
	if [ "$MEM" -le 2048 ]; then echo 2; else echo $((MEM * 4 / 1024)); fi
}

# disk_image: the page-cache disk of this guest size (the 2 GiB one keeps
# the name every 1 GiB state was saved with).
disk_image() {
	if [ "$(disk_gib)" = 2 ]; then
		echo "$STATES_DIR/../disk-ext2.img"
	else
		echo "$STATES_DIR/../disk-ext2-$(disk_gib)g.img"
	fi
}

# make_disk IMG GiB: a sparse ext2 image holding one sparse file of GiB,
# big, whose page cache the scenario streams (guest/jobs/bench.sh,
# pick_disk). Reading its holes does no I/O, so no disk timing enters the
# guest.
make_disk() {
	local dir
	command -v mke2fs >/dev/null || die "mke2fs missing: apt-get install e2fsprogs"
	dir=$(mktemp -d)
	truncate -s "$2G" "$dir/big"
	truncate -s "$(($2 + 1))G" "$1.tmp.$$"
	mke2fs -q -t ext2 -F -d "$dir" "$1.tmp.$$"
	mv "$1.tmp.$$" "$1"
	rm -rf "$dir"
}

# stressng_files: stress-ng, then the libraries and loader it needs
# (shared_libs), one path per line.
stressng_files() {
	local bin
	bin=$(command -v stress-ng) || die "stress-ng missing: apt-get install stress-ng"
	echo "$bin"
	shared_libs "$bin"
}

# stressng_id: what stress-ng's disk holds, hashed (package version, binary,
# libraries, loader): the image's name and VERSION, so a state saved with
# one stress-ng is never restored with another (state_usable, main).
stressng_id() {
	local ver files
	files=$(stressng_files)
	ver=$(dpkg-query -W -f '${Version}' stress-ng 2>/dev/null) ||
		die "stress-ng is not a Debian package here: apt-get install stress-ng"
	echo "$ver-$(echo "$files" | xargs cat | sha256sum | cut -c1-12)"
}

# make_stressng_disk IMG ID: an ext2 image with Debian's stress-ng (bin/), the
# libraries ldd names and the loader (lib/: the guest runs stress-ng through
# lib/'s loader with --library-path lib, so nothing of the initramfs's glibc
# mixes in) and VERSION (ID); the guest mounts it read-only at /sng.
make_stressng_disk() {
	local dir f
	dir=$(mktemp -d)
	mkdir -p "$dir/bin" "$dir/lib"
	stressng_files >"$dir/files"
	cp "$(head -n 1 "$dir/files")" "$dir/bin/"
	tail -n +2 "$dir/files" | while read -r f; do
		cp -L "$f" "$dir/lib/"
	done
	rm "$dir/files"
	echo "stress-ng $2" >"$dir/VERSION"
	truncate -s 128M "$1.tmp.$$"
	mke2fs -q -t ext2 -F -d "$dir" "$1.tmp.$$"
	mv "$1.tmp.$$" "$1"
	rm -rf "$dir"
}

# go_mem FILE: the 1 MiB file behind the guest's ivshmem device, where
# bench/state.py writes the "go" line of a restore (guest/tools/waitgo.c).
go_mem() {
	printf 'wait\n' >"$1"
	truncate -s 1M "$1"
}

# go_args FILE: QEMU's arguments for that device.
go_args() {
	printf '%s\n' -object "memory-backend-file,id=golatch,mem-path=$1,size=1M,share=on" \
		-device ivshmem-plain,memdev=golatch,master=on
}

# save_state VARIANT FRAG SEED: boot, fragment, save to build/states (skipped
# when that state exists). Logs beside the state; a kernel splat during the
# boot leaves STEM.splat and no state. One save of a state at a time, also
# across runs (make check and make run may want the same state): flock.
save_state() {
	local v=$1 frag=$2 seed=$3 dir stem name rc=0
	dir=$(state_dir "$v")
	stem=$dir/$frag-$seed
	name=state-$v-$frag-$seed
	mkdir -p "$dir"
	exec {lock}>"$stem.lock"
	flock "$lock"
	if [ -f "$stem.state" ]; then
		exec {lock}>&-
		return 0
	fi
	rm -f "$stem.splat"
	go_mem "$stem.wait.mem"
	# QMP's unix socket path must be short (108 bytes): under /tmp.
	local sock=$tmpdir/$name.qmp
	# No earlier run's result may tell state.py that this guest is ready.
	rm -f "$sock" "$LOGS/$name.result" "$LOGS/$name.console.log"
	local -a extra
	mapfile -t extra < <(qemu_args "$frag"; go_args "$stem.wait.mem")
	"$LAB_ROOT/scripts/boot.sh" --variant "$v" --job bench --mem "$MEM" --smp "$VCPUS" \
		--timeout 3600 --name "$name" --no-icount \
		--append "$(boot_append "$v" "$frag" "$seed")" -- "${extra[@]}" \
		-qmp "unix:$sock,server=on,wait=off" >"$stem.boot.log" 2>&1 &
	local qemu=$!
	"$PYTHON" "$BENCH/state.py" save --qmp "$sock" --result "$LOGS/$name.result" \
		--state "$stem.state" --timeout 3000 --pid "$qemu" >"$stem.save.log" 2>&1 || rc=$?
	# On failure QEMU may still be running: it is the one with this socket.
	[ "$rc" = 0 ] || pkill -f -- "$sock" || true
	wait "$qemu" || true
	cp "$LOGS/$name.result" "$stem.result" 2>/dev/null || true
	cp "$LOGS/$name.console.log" "$stem.console.log" 2>/dev/null || true
	rm -f "$sock" "$stem.wait.mem"
	if grep -q '^SPLAT' "$stem.boot.log"; then
		grep -m1 '^SPLAT' "$stem.boot.log" >"$stem.splat"
		rm -f "$stem.state"
		rc=1
	fi
	# A guest may come up with fewer CPUs than -smp gave it (SeaBIOS's MP
	# table lists the boot CPU only): such a state is not the one asked for.
	if [ "$VCPUS" -gt 1 ] && [ -f "$stem.state" ] &&
		! grep -q "smp: Brought up 1 node, $VCPUS CPUs" "$stem.console.log"; then
		echo "the guest did not bring up $VCPUS vCPU(s): $(grep -m1 'smp: Brought up' "$stem.console.log")" >"$stem.splat"
		rm -f "$stem.state"
		rc=1
	fi
	exec {lock}>&-
	return "$rc"
}

# stressng_current STEM: the state STEM was saved with the stress-ng disk
# of now ($SNG_ID).
stressng_current() {
	tr -d '\r' <"$1.result" 2>/dev/null | grep -qxF "  stressng: image stress-ng $SNG_ID"
}

# state_usable VARIANT FRAG SEED: the state exists and its fragmenter reached
# its target (or FRAG=0, or -a); FRAG=stressng: stress-ng was running at the
# save, from the disk of the stress-ng installed now.
state_usable() {
	local stem
	stem=$(state_dir "$1")/$2-$3
	[ -f "$stem.state" ] || return 1
	case $2 in
	0) return 0 ;;
	stressng)
		tr -d '\r' <"$stem.result" | grep -qx '  stressng: result running' &&
			stressng_current "$stem"
		return
		;;
	esac
	[ "$any_state" = 1 ] || tr -d '\r' <"$stem.result" | grep -qx '  fragmenter: result ok'
}

# state_dir VARIANT: build/states/by-guest/VARIANT-<key> (keys hashed once).
declare -A SDIR
state_dir() {
	[ -n "${SDIR[$1]:-}" ] || SDIR[$1]=$STATES_DIR/$1-$(state_key "$1")
	echo "${SDIR[$1]}"
}

# restore_run CONFIG NAME SEED NUDGE: one configuration from one saved state;
# the result is the save's result channel followed by the run's. NAME is
# where the result goes (CONFIG, or CONFIG.repN for the control's repeats);
# the guest is told CONFIG only, so that a repeat is an exact replay unless
# NUDGE > 0 shifts the guest's start by a few microseconds (the noise floor:
# how much a run depends on such a shift).
restore_run() {
	local cfg=$1 name=$2 seed=$3 nudge=$4 v frag dir stem run rc=0
	v=$(conf_variant "$cfg")
	frag=$(conf_frag "$cfg")
	dir=$(state_dir "$v")
	stem=$dir/$frag-$seed
	[ -f "$stem.state" ] || { echo "no state $stem.state" >"$outdir/$name.$seed.boot.log"; return 1; }
	run=bench-$runid-$name-$seed
	go_mem "$tmpdir/$run.mem"
	local -a extra
	local port="" client=""
	[ "$demand" != net ] || port=$(free_port)
	mapfile -t extra < <(qemu_args "$frag" "$port"; go_args "$tmpdir/$run.mem")
	rm -f "$LOGS/$run.result"
	if [ -n "$port" ]; then
		net_client "$LOGS/$run.result" "$port" "$outdir/$name.$seed.client.json" &
		client=$!
	fi
	"$LAB_ROOT/scripts/boot.sh" --variant "$v" --job bench --mem "$MEM" --smp "$VCPUS" \
		--timeout $((secs * 10 + settle * 10 + 600)) --name "$run" --no-icount \
		--append "$(boot_append "$v" "$frag" "$seed")" -- "${extra[@]}" \
		-qmp "unix:$tmpdir/$run.qmp,server=on,wait=off" \
		-incoming "exec:cat '$stem.state'" >"$outdir/$name.$seed.boot.log" 2>&1 &
	local qemu=$!
	# The state was saved paused: it arrives paused, and is let go here.
	"$PYTHON" "$BENCH/state.py" resume --qmp "$tmpdir/$run.qmp" --timeout 600 --pid "$qemu" \
		--go-file "$tmpdir/$run.mem" \
		--go-line "go cfg=$cfg nudge=$nudge secs=$secs settle=$settle sg=$(conf_get "$cfg" sg 0) $(conf_rx "$cfg") demand=$demand thp=$set_thp sysctl=$(conf_get "$cfg" sysctl)" >>"$outdir/$name.$seed.resume.log" 2>&1 || pkill -f -- "$tmpdir/$run.qmp" || true
	wait "$qemu" || rc=$?
	if [ -n "$client" ]; then
		kill "$client" 2>/dev/null || true
		wait "$client" 2>/dev/null || true
	fi
	cat "$stem.result" "$LOGS/$run.result" >"$outdir/$name.$seed.result" 2>/dev/null || true
	cp "$LOGS/$run.console.log" "$outdir/$name.$seed.console.log" 2>/dev/null || true
	rm -f "$tmpdir/$run.mem"
	printf '%s\t%s\t%s\t%s\n' "$name" "$seed" "$v" "$rc" >>"$outdir/runs.tsv"
	return "$rc"
}

# Job queue: at most $jobs at once, progress with an estimate of what is left.
declare -A job_name=()
done_jobs=0 total_jobs=0 failed_jobs=0
t_start=$(date +%s)

# reap: wait for one job, count it, print progress.
reap() {
	local pid rc=0 el left
	wait -n -p pid || rc=$?
	done_jobs=$((done_jobs + 1))
	[ "$rc" = 0 ] || failed_jobs=$((failed_jobs + 1))
	el=$(($(date +%s) - t_start))
	left=$(((total_jobs - done_jobs) * el / done_jobs))
	say "[$done_jobs/$total_jobs] ${job_name[$pid]} $([ "$rc" = 0 ] && echo ok || echo "FAILED rc=$rc") -" \
		"elapsed $((el / 60))m$((el % 60))s, about $((left / 60))m$((left % 60))s left"
	unset "job_name[$pid]"
}

# spawn NAME CMD...: run CMD in the background once a slot is free.
spawn() {
	local name=$1
	shift
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do reap; done
	"$@" &
	job_name[$!]=$name
}

drain() {
	while [ ${#job_name[@]} -gt 0 ]; do reap; done
}

write_manifest() {
	local v
	{
		echo "set	$set_name"
		echo "configs	${configs[*]}"
		echo "control	$CONTROL"
		echo "demand	$demand"
		echo "states	$nstates"
		for k in "${!seeds[@]}"; do
			echo "seeds_${k// /_frag}	${seeds[$k]# }"
		done
		echo "controls_per_state	$controls"
		echo "any_state	$any_state"
		echo "secs	$secs"
		echo "settle	$settle"
		echo "mem_mib	$MEM"
		echo "frag	${set_frag:-1}"
		echo "kernel	${set_kernel:-default}"
		echo "thp_mib	$set_thp"
		echo "savemin_kb	${set_savemin:-boot}"
		echo "icount	$ICOUNT"
		echo "vcpus	$VCPUS"
		echo "rtc	clock=vm"
		echo "jobs	$jobs"
		echo "date	$(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "debian_kernel	$(dpkg-query -W -f '${Version}' linux-source-6.12 2>/dev/null || echo unknown)"
		echo "qemu	$(qemu-system-x86_64 --version | head -n 1)"
		echo "lab_commit	$(git -C "$LAB_ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(git -C "$LAB_ROOT" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
		echo "series_sha256	$(cat "$LAB_ROOT"/patches/series "$LAB_ROOT"/patches/0*.patch | sha256sum | cut -c1-16)"
		for v in "${variants[@]}"; do
			echo "config_sha256_$v	$(sha256sum "$OBJ/$v/.config" | cut -c1-16)"
			echo "state_dir_$v	$(basename "$(state_dir "$v")")"
		done
		echo "command	bench/run.sh ${ARGS[*]}"
		echo "qemu_restore	$(cat "$outdir"/*.boot.log 2>/dev/null | grep -m1 '^qemu-system' || echo '?')"
	} >"$outdir/manifest.tsv"
}

main() {
	local v cfg seed name k frag
	# Every configuration's ring is checked before anything is made.
	for cfg in "${configs[@]}"; do
		conf_rx "$cfg" >/dev/null
	done
	stamp=$(date -u +%Y%m%d-%H%M%S)
	outdir=${outdir:-$BUILD/results/$set_name-$stamp}
	# runs.tsv is appended to, and a result left from an earlier run would
	# be counted with this one's: a folder is used once.
	[ ! -e "$outdir/runs.tsv" ] ||
		die "$outdir already holds a run (runs.tsv); remove it or choose another -o"
	mkdir -p "$outdir" "$BUILD/results"
	outdir=$(cd "$outdir" && pwd)
	ln -sfn "$outdir" "$BUILD/results/latest-$set_name"
	runid=$(basename "$outdir")
	STATES_DIR=$BUILD/states/by-guest
	mkdir -p "$STATES_DIR"
	tmpdir=$(mktemp -d)
	trap 'rm -rf "$tmpdir"' EXIT
	[ -e "$(disk_image)" ] || make_disk "$(disk_image)" "$(disk_gib)"
	SNG_ID="" SNG_IMG=""
	for cfg in "${configs[@]}"; do
		[ "$(conf_frag "$cfg")" = stressng ] || continue
		SNG_ID=$(stressng_id)
		SNG_IMG=$STATES_DIR/../stress-ng-$SNG_ID.img
		[ -e "$SNG_IMG" ] || make_stressng_disk "$SNG_IMG" "$SNG_ID"
		break
	done

	variants=()
	for cfg in "${configs[@]}"; do
		v=$(conf_variant "$cfg")
		case " ${variants[*]} " in *" $v "*) ;; *) variants+=("$v") ;; esac
	done
	for v in "${variants[@]}"; do
		[ -f "$OBJ/$v/arch/x86/boot/bzImage" ] || "$LAB_ROOT/scripts/build-kernel.sh" "$v"
		"$LAB_ROOT/scripts/initramfs.sh" "$v"
		state_dir "$v" >/dev/null
	done

	# The states every configuration needs, per kind (variant x frag): the
	# first NSTATES seeds whose fragmenter reached its target (-a: the first
	# NSTATES seeds, whatever they reached), trying at most 3 x NSTATES.
	local -A need=() seeds=()
	for cfg in "${configs[@]}"; do
		need["$(conf_variant "$cfg") $(conf_frag "$cfg")"]=1
	done
	say "saving states: ${#need[@]} kind(s) x $nstates (saved ones are reused)"
	local next good tried
	for k in "${!need[@]}"; do
		read -r v frag <<<"$k"
		next=1 tried=0
		while :; do
			good=$(for seed in ${seeds[$k]:-}; do echo "$seed"; done | wc -l)
			[ "$good" -lt "$nstates" ] || break
			[ "$tried" -lt $((3 * nstates)) ] ||
				die "only $good of $nstates states of $v (frag=$frag) reached the fragmenter's target in $tried tries"
			total_jobs=$((nstates - good)) done_jobs=0 t_start=$(date +%s)
			local batch=()
			while [ ${#batch[@]} -lt $((nstates - good)) ]; do
				batch+=("$next")
				# A stress-ng state of another stress-ng disk is saved again.
				if [ "$frag" = stressng ] && [ -f "$(state_dir "$v")/$frag-$next.state" ] &&
					! stressng_current "$(state_dir "$v")/$frag-$next"; then
					rm -f "$(state_dir "$v")/$frag-$next".*
				fi
				if [ ! -f "$(state_dir "$v")/$frag-$next.state" ]; then
					spawn "state $v frag=$frag seed=$next" save_state "$v" "$frag" "$next"
				else
					total_jobs=$((total_jobs - 1))
				fi
				next=$((next + 1)) tried=$((tried + 1))
			done
			drain
			for seed in "${batch[@]}"; do
				if [ -f "$(state_dir "$v")/$frag-$seed.splat" ]; then
					die "kernel splat while saving state $v frag=$frag seed=$seed: $(cat "$(state_dir "$v")/$frag-$seed.splat") (logs: $(state_dir "$v")/$frag-$seed.console.log)"
				fi
				if [ ! -f "$(state_dir "$v")/$frag-$seed.state" ]; then
					say "state $v frag=$frag seed=$seed: not saved (see $(state_dir "$v")/$frag-$seed.save.log); trying another seed"
				elif state_usable "$v" "$frag" "$seed"; then
					seeds[$k]="${seeds[$k]:-} $seed"
				else
					say "state $v frag=$frag seed=$seed: the fragmenter missed its target; trying another seed"
				fi
			done
		done
		say "states of $v (frag=$frag): seeds${seeds[$k]}"
	done

	# Every configuration from every state; the control CONTROLS times.
	total_jobs=0
	for cfg in "${configs[@]}"; do
		n=1
		[ "$cfg" = "$CONTROL" ] && n=$controls
		total_jobs=$((total_jobs + n * nstates))
	done
	say "running $total_jobs configuration run(s), $jobs at a time"
	t_start=$(date +%s) done_jobs=0 failed_jobs=0
	local i
	for i in $(seq 1 "$nstates"); do
		for cfg in "${configs[@]}"; do
			k="$(conf_variant "$cfg") $(conf_frag "$cfg")"
			seed=$(awk -v i="$i" '{ print $i }' <<<"${seeds[$k]}")
			spawn "$cfg seed $seed" restore_run "$cfg" "$cfg" "$seed" 0
			if [ "$cfg" = "$CONTROL" ]; then
				# Repeat 2 is nudged, repeat 3 an exact replay, 4.. nudged more.
				for r in $(seq 2 "$controls"); do
					nudge=$((r == 3 ? 0 : r - 1 - (r > 3)))
					spawn "$cfg (repeat $r, nudge $nudge) seed $seed" \
						restore_run "$cfg" "$cfg.rep$r" "$seed" "$nudge"
				done
			fi
		done
	done
	drain
	[ "$failed_jobs" = 0 ] || say "$failed_jobs run(s) failed; their logs are in $outdir"
	write_manifest

	if [ "$fastpath" = 1 ]; then
		# -icount shift=0: the guest clock counts instructions (1 ns each),
		# so the on/off ratio is not TCG noise.
		for v in "${variants[@]}"; do
			"$LAB_ROOT/scripts/boot.sh" --variant "$v" --job bench-fastpath --mem "$MEM" \
				--timeout 900 --name "bench-$runid-fastpath-$v" --no-icount \
				--append "kunit.enable=0 tsc=reliable lab.reps=15" -- -icount shift=0 ||
				say "fast-path boot of $v FAILED; kept its logs"
			cp "$LOGS/bench-$runid-fastpath-$v.result" "$outdir/fastpath-$v.result" 2>/dev/null || true
		done
	fi
	"$PYTHON" "$BENCH/report.py" "$outdir"
}

ARGS=("$@")
main
