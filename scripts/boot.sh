#!/bin/bash
# Boot a kernel variant in QEMU (TCG) and run one guest job.
#
# usage: scripts/boot.sh --variant V --job NAME [--mem MiB] [--timeout S]
#            [--append ARGS] [--disk IMG] [--smp N] [--name STEM] [--no-icount]
#            [-- QEMU-ARGS...]
#   V        patched | baseline | debug (build/obj/V/arch/x86/boot/bzImage,
#            build/initramfs/V.cpio.gz)
#   --disk   raw image at /dev/vda; created sparse (2 GiB) if it does not exist
#   --name   log file stem, default V-NAME
# Logs: build/logs/STEM.console.log (ttyS0), build/logs/STEM.result (ttyS1).
# Exit 0 only if the job wrote "LAB-END rc=0", QEMU did not time out and the
# console has no kernel splat (scripts/scan-log.sh says which failed).
# LAB_KVM=1 probes KVM with a short boot first and uses it if that boot ends;
# the default is TCG (KVM guests hang in the firmware on these machines).
set -eu
. "$(dirname "$0")/lib.sh"

variant="" job="" mem=1024 timeout=300 append="" disk="" smp=1 stem="" icount=1
qemu_extra=()

# parse_args ARGS...: the options above into the globals.
parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--variant) variant=$2 ;;
		--job) job=$2 ;;
		--mem) mem=$2 ;;
		--timeout) timeout=$2 ;;
		--append) append=$2 ;;
		--disk) disk=$2 ;;
		--smp) smp=$2 ;;
		--name) stem=$2 ;;
		--no-icount) icount=0; shift; continue ;;
		--) shift; qemu_extra=("$@"); return ;;
		*) die "unknown option '$1' (see the header of scripts/boot.sh)" ;;
		esac
		[ $# -ge 2 ] || die "option $1 needs a value"
		shift 2
	done
}

# qemu_cmd ACCEL CONSOLE RESULT: the full QEMU command line, one word per line.
qemu_cmd() {
	local accel=$1 console=$2 result=$3
	printf '%s\n' qemu-system-x86_64 -nographic -monitor none -no-reboot \
		-m "$mem" -smp "$smp" \
		-kernel "$kernel" -initrd "$initrd" \
		-append "panic=-1 console=ttyS0 rdinit=/init lab.job=$job $append" \
		-serial "file:$console" -serial "file:$result"
	case $accel in
	kvm) printf '%s\n' -accel kvm -cpu host ;;
	*)
		printf '%s\n' -accel tcg
		[ "$icount" = 1 ] && printf '%s\n' -icount shift=auto
		;;
	esac
	[ -n "$disk" ] && printf '%s\n' -drive "file=$disk,format=raw,if=virtio"
	# No default NIC (an e1000 on unrestricted user networking): a guest
	# has a network only when the caller gives one (bench/run.sh does).
	case " ${qemu_extra[*]} " in
	*" -netdev "*) ;;
	*) printf '%s\n' -nic none ;;
	esac
	[ ${#qemu_extra[@]} -gt 0 ] && printf '%s\n' "${qemu_extra[@]}"
	return 0
}

# print_cmd WORD...: the command line, shell-quoted, for copy and paste.
print_cmd() {
	printf '%q ' "$@" >&2
	printf '\n' >&2
}

# kvm_works: a short KVM boot (job status) that reaches LAB-END.
kvm_works() {
	[ -w /dev/kvm ] || return 1
	local c=$LOGS/kvm-probe.console.log r=$LOGS/kvm-probe.result
	local -a cmd
	mapfile -t cmd < <(job=status qemu_cmd kvm "$c" "$r")
	rm -f "$c" "$r"
	timeout -k 2 "${LAB_KVM_PROBE_TIMEOUT:-20}" "${cmd[@]}" </dev/null >/dev/null 2>&1 || true
	grep -q '^LAB-END' "$r" 2>/dev/null
}

main() {
	parse_args "$@"
	if [ -z "$variant" ] || [ -z "$job" ]; then die "--variant and --job are required"; fi
	kernel=$OBJ/$variant/arch/x86/boot/bzImage
	initrd=$BUILD/initramfs/$variant.cpio.gz
	[ -f "$kernel" ] || die "$kernel missing: scripts/build-kernel.sh $variant"
	[ -f "$initrd" ] || die "$initrd missing: scripts/initramfs.sh $variant"
	[ -f "$LAB_ROOT/guest/jobs/$job.sh" ] || die "no guest job '$job' (guest/jobs/$job.sh)"
	if [ -n "$disk" ] && [ ! -e "$disk" ]; then
		mkdir -p "$(dirname "$disk")"
		truncate -s 2G "$disk"
	fi
	mkdir -p "$LOGS"
	stem=${stem:-$variant-$job}
	local console=$LOGS/$stem.console.log result=$LOGS/$stem.result accel=tcg rc=0 t0
	if [ "${LAB_KVM:-0}" = 1 ]; then
		if kvm_works; then
			accel=kvm
		else
			say "KVM probe: no /dev/kvm, or a KVM guest did not finish in ${LAB_KVM_PROBE_TIMEOUT:-20} s; using TCG"
		fi
	fi
	# CONFIG_PAGE_OWNER of kconfig/debug.config records nothing unless asked.
	[ "$variant" = debug ] && append="page_owner=on $append"
	local -a cmd
	mapfile -t cmd < <(qemu_cmd "$accel" "$console" "$result")
	rm -f "$console" "$result"
	say "boot $variant, job $job ($accel, ${mem} MiB, timeout ${timeout} s); console: build/logs/$stem.console.log"
	print_cmd "${cmd[@]}"
	t0=$(date +%s)
	timeout -k 5 "$timeout" "${cmd[@]}" </dev/null || rc=$?
	say "QEMU exited after $(($(date +%s) - t0)) s (rc=$rc)"
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		"$LAB_ROOT/scripts/scan-log.sh" --timeout "$timeout" "$job" "$console" "$result"
	else
		"$LAB_ROOT/scripts/scan-log.sh" "$job" "$console" "$result"
	fi
}

main "$@"
