#!/bin/bash
# Run the atomic high-order benchmark: each configuration of a set, REPEATS
# times, one QEMU boot each (scripts/boot.sh, job guest/jobs/bench.sh), then the
# fast-path microbenchmark (job bench-fastpath) once per variant (7 rounds,
# 15 with 5 or more repeats), then the
# report (bench/report.py: CSV/TSV, side-by-side table, gnuplot PNGs).
#
# usage: bench/run.sh [-s SET] [-r REPEATS] [-f FIRST] [-t SECS] [-o OUTDIR] [-n]
#   -s SET      bench/sets/SET lists the configurations (default: run)
#   -r REPEATS  boots per configuration (default 1)
#   -f FIRST    first repeat number (default 1): with -o, finish an interrupted run
#   -t SECS     length of the RX-ring run in the guest (default 30)
#   -o OUTDIR   default build/results/SET-<date>; build/results/latest-SET links it;
#               an existing OUTDIR is extended (its configurations stay in the report)
#   -n          no fast-path boots
# Configurations are bench/configs/NAME.conf (variant=, sysctl=, optional append=
# for more guest command line). Repeats are
# interleaved (rep 1 of every config, then rep 2, ...) so drift on the host
# spreads over all columns. Raw logs stay in OUTDIR next to the parsed data.
set -eu
BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/../scripts/lib.sh"

set_name=run repeats=1 first=1 secs=30 outdir="" fastpath=1 fp_reps=7
MEM=1024
# A fixed -icount shift: the guest runs 2^-SHIFT instructions per virtual ns
# (shift 2: 250 M/s) whatever else the host is doing, so a busy host makes a
# run slower, not different.  shift=auto would slow the guest's CPU down
# against its own timers (the RX ring's rate, the monitor) when the host is
# loaded, and turn host load into failures.
SHIFT=${BENCH_ICOUNT_SHIFT:-2}

while getopts "s:r:f:t:o:n" opt; do
	case $opt in
	s) set_name=$OPTARG ;;
	r)
		repeats=$OPTARG
		[ "$repeats" -ge 5 ] && fp_reps=15
		;;
	f) first=$OPTARG ;;
	t) secs=$OPTARG ;;
	o) outdir=$OPTARG ;;
	n) fastpath=0 ;;
	*) die "usage: bench/run.sh [-s SET] [-r REPEATS] [-f FIRST] [-t SECS] [-o OUTDIR] [-n]" ;;
	esac
done

setfile=$BENCH/sets/$set_name
[ -f "$setfile" ] || die "no configuration set '$set_name' (bench/sets/)"
mapfile -t configs < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$setfile")
[ ${#configs[@]} -gt 0 ] || die "set '$set_name' is empty"

# conf_get NAME KEY: KEY=value from bench/configs/NAME.conf.
conf_get() {
	local f=$BENCH/configs/$1.conf
	[ -f "$f" ] || die "no configuration '$1' (bench/configs/$1.conf)"
	sed -n "s/^$2=//p" "$f" | tail -n 1
}

# ensure_variant V: kernel, modules and initramfs of V are there (built if not).
ensure_variant() {
	if [ ! -f "$OBJ/$1/arch/x86/boot/bzImage" ]; then
		"$LAB_ROOT/scripts/build-kernel.sh" "$1"
	fi
	"$LAB_ROOT/scripts/initramfs.sh" "$1"
}

# boot_one CONFIG REP: one scenario boot; the raw result lands in OUTDIR.
boot_one() {
	local cfg=$1 rep=$2 variant sysctl extra stem rc=0
	variant=$(conf_get "$cfg" variant)
	sysctl=$(conf_get "$cfg" sysctl)
	extra=$(conf_get "$cfg" append)
	stem=bench-$runid-$cfg-$rep
	say "[$cfg rep $rep/$repeats] variant $variant sysctl '${sysctl:-none}'"
	"$LAB_ROOT/scripts/boot.sh" --variant "$variant" --job bench --mem "$MEM" \
		--disk "$disk" --timeout $((secs * 8 + 600)) --name "$stem" --no-icount \
		--append "kunit.enable=0 tsc=reliable lab.cfg=$cfg lab.secs=$secs${sysctl:+ lab.sysctl=$sysctl}${extra:+ $extra}" \
		-- -icount "shift=$SHIFT" || rc=$?
	cp "$LOGS/$stem.result" "$outdir/$cfg.$rep.result" 2>/dev/null || true
	cp "$LOGS/$stem.console.log" "$outdir/$cfg.$rep.console.log" 2>/dev/null || true
	[ "$rc" = 0 ] || say "[$cfg rep $rep] boot FAILED (rc=$rc); kept its logs, going on"
	echo "$cfg	$rep	$variant	$rc" >>"$outdir/runs.tsv"
}

# make_disk IMG: a sparse ext2 image holding one sparse 2 GiB file, big, whose
# page cache the scenario streams (guest/jobs/bench.sh, pick_disk).
make_disk() {
	local dir
	command -v mke2fs >/dev/null || die "mke2fs missing: apt-get install e2fsprogs"
	dir=$(mktemp -d)
	truncate -s 2G "$dir/big"
	mke2fs -q -t ext2 -F -d "$dir" "$1" 3G
	rm -rf "$dir"
}

main() {
	local stamp v cfg rep variants=()
	stamp=$(date -u +%Y%m%d-%H%M%S)
	outdir=${outdir:-$BUILD/results/$set_name-$stamp}
	mkdir -p "$outdir"
	ln -sfn "$outdir" "$BUILD/results/latest-$set_name"
	runid=$(basename "$outdir")
	# One sparse image per result folder: QEMU locks its image, and runs
	# side by side must not share one (nor their log names).
	disk=${BENCH_DISK:-$outdir/disk-ext2.img}
	mkdir -p "$(dirname "$disk")"
	[ -e "$disk" ] || make_disk "$disk"

	for cfg in "${configs[@]}"; do
		v=$(conf_get "$cfg" variant)
		case " ${variants[*]} " in *" $v "*) ;; *) variants+=("$v") ;; esac
	done
	for v in "${variants[@]}"; do
		ensure_variant "$v"
	done
	# An existing OUTDIR is extended: its configurations stay in the report.
	local all_configs=("${configs[@]}")
	if [ -f "$outdir/meta.tsv" ]; then
		local old
		old=$(sed -n 's/^configs\t//p' "$outdir/meta.tsv")
		all_configs=()
		for cfg in $old "${configs[@]}"; do
			case " ${all_configs[*]} " in *" $cfg "*) ;; *) all_configs+=("$cfg") ;; esac
		done
	fi
	{
		echo "set	$set_name"
		echo "repeats	$repeats"
		echo "secs	$secs"
		echo "mem_mib	$MEM"
		echo "icount_shift	$SHIFT"
		echo "date	$(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "configs	${all_configs[*]}"
		echo "debian_kernel	$(dpkg-query -W -f '${Version}' linux-source-6.12 2>/dev/null || echo unknown)"
	} >"$outdir/meta.tsv"
	touch "$outdir/runs.tsv"

	for rep in $(seq "$first" "$repeats"); do
		for cfg in "${configs[@]}"; do
			boot_one "$cfg" "$rep"
		done
	done

	# Fast path: a fixed -icount shift=0 makes the guest clock count
	# instructions (1 ns each), so the on/off ratio is not TCG noise.
	if [ "$fastpath" = 1 ]; then
		for v in "${variants[@]}"; do
			"$LAB_ROOT/scripts/boot.sh" --variant "$v" --job bench-fastpath --mem "$MEM" \
				--timeout 900 --name "bench-$runid-fastpath-$v" --no-icount \
				--append "kunit.enable=0 tsc=reliable lab.reps=$fp_reps" -- -icount shift=0 ||
				say "fast-path boot of $v FAILED; kept its logs"
			cp "$LOGS/bench-$runid-fastpath-$v.result" "$outdir/fastpath-$v.result" 2>/dev/null || true
		done
	fi

	python3 "$BENCH/report.py" "$outdir"
}

main
