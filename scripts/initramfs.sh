#!/bin/bash
# Build the guest initramfs of a kernel variant: build/initramfs/<variant>.cpio.gz
#   /bin/busybox            Debian busybox-static (applet links made by /init)
#   /init                   guest/init
#   /lab/jobs/*.sh          guest/jobs
#   /lab/lib/*.sh           guest/lib (shell sourced by the jobs)
#   /lab/bin/*              guest/tools/*.c and guest/tests/*.c, static, built by
#                           guest/Makefile (tests linked with guest/lib/lab.c),
#                           with the tree's tools/testing/selftests for kselftest.h
#   /lab/modules/*.ko       module/, built against build/obj/<variant>
#   /usr/bin/iperf3         Debian's iperf3 with the shared libraries ldd lists,
#                           at their Debian paths (the real-demand scenarios'
#                           client nobody here wrote)
# The archive is written with the tree's usr/gen_init_cpio from a file list,
# so no root or device nodes are needed on the host.
#
# usage: scripts/initramfs.sh patched|baseline|debug|patched-thp|baseline-thp
set -eu
. "$(dirname "$0")/lib.sh"

OUT=$BUILD/initramfs
BUSYBOX=/bin/busybox
# Debian programs copied in as they are, with their shared libraries.
HOST_PROGRAMS="iperf3"

# build_guest_programs SRC BINDIR: guest/Makefile builds what changed (its
# header dependencies are tracked), against the tree's kselftest.h.
build_guest_programs() {
	make -s -C "$LAB_ROOT/guest" OUT="$2" KSFT="$1/tools/testing/selftests" ||
		die "guest programs do not build (make -C guest)"
}

# gen_init_cpio SRC: the kernel's cpio writer, compiled once from the tree.
gen_init_cpio() {
	local tool=$OUT/gen_init_cpio
	[ "$tool" -nt "$1/usr/gen_init_cpio.c" ] ||
		gcc -O2 -o "$tool" "$1/usr/gen_init_cpio.c"
	echo "$tool"
}

# host_program NAME: gen_init_cpio lines for Debian's NAME at /usr/bin/NAME
# (where the guest jobs look), the shared libraries `ldd` lists and the
# loader at their Debian paths (the files themselves, symlinks resolved),
# with the directories they need.
host_program() {
	local bin path d
	bin=$(command -v "$1") || die "$1 missing (apt-get install $1)"
	echo "dir /usr 0755 0 0"
	echo "dir /usr/bin 0755 0 0"
	echo "file /usr/bin/$1 $(readlink -f "$bin") 0755 0 0"
	shared_libs "$bin" | while read -r path; do
		d=${path%/*}
		while [ -n "$d" ]; do
			echo "dir $d 0755 0 0"
			d=${d%/*}
		done
		echo "file $path $(readlink -f "$path") 0755 0 0"
	done | sort -u -k1,1 -k2,2
}

# file_list VARIANT BINDIR: gen_init_cpio input describing the guest root.
file_list() {
	local variant=$1 bindir=$2 f
	cat <<-LIST
		dir /dev 0755 0 0
		nod /dev/console 0600 0 0 c 5 1
		dir /bin 0755 0 0
		dir /proc 0755 0 0
		dir /sys 0755 0 0
		dir /tmp 1777 0 0
		dir /root 0700 0 0
		dir /lab 0755 0 0
		dir /lab/bin 0755 0 0
		dir /lab/jobs 0755 0 0
		dir /lab/lib 0755 0 0
		dir /lab/modules 0755 0 0
		file /bin/busybox $BUSYBOX 0755 0 0
		slink /bin/sh busybox 0777 0 0
		file /init $LAB_ROOT/guest/init 0755 0 0
	LIST
	for f in "$bindir"/*; do
		[ -f "$f" ] && echo "file /lab/bin/${f##*/} $f 0755 0 0"
	done
	for f in "$LAB_ROOT"/guest/jobs/*.sh; do
		[ -f "$f" ] && echo "file /lab/jobs/${f##*/} $f 0644 0 0"
	done
	for f in "$LAB_ROOT"/guest/lib/*.sh "$LAB_ROOT"/guest/lib/splat-patterns; do
		[ -f "$f" ] && echo "file /lab/lib/${f##*/} $f 0644 0 0"
	done
	for f in "$OBJ/$variant.modules"/*.ko; do
		[ -f "$f" ] && echo "file /lab/modules/${f##*/} $f 0644 0 0"
	done
	for f in $HOST_PROGRAMS; do
		host_program "$f"
	done
	return 0
}

main() {
	local variant=${1:?usage: initramfs.sh patched|baseline|debug|patched-thp|baseline-thp} src bindir tool list
	src=$(variant_src "$variant")
	[ -x "$BUSYBOX" ] || die "$BUSYBOX missing (apt-get install busybox-static)"
	need_space "$OUT" 64 "the $variant initramfs"
	mkdir -p "$OUT"
	bindir=$OUT/bin
	build_guest_programs "$src" "$bindir"
	tool=$(gen_init_cpio "$src")
	list=$OUT/$variant.list
	file_list "$variant" "$bindir" >"$list"
	# A private temporary name: two runs may build the same variant at once.
	# -t 0: entries without a source file (dirs, nodes) get a fixed mtime, so
	# an unchanged guest gives the same archive (bench/run.sh keys saved
	# states by its hash).
	if ! "$tool" -t 0 "$list" 2>"$OUT/$variant.err.$$" | gzip -n -6 >"$OUT/$variant.cpio.gz.$$" 2>>"$OUT/$variant.err.$$"; then
		rm -f "$OUT/$variant.cpio.gz.$$"
		die_if_full "$OUT" "the $variant initramfs" "$OUT/$variant.err.$$"
		cat "$OUT/$variant.err.$$" >&2
		rm -f "$OUT/$variant.err.$$"
		die "cannot write build/initramfs/$variant.cpio.gz"
	fi
	rm -f "$OUT/$variant.err.$$"
	mv "$OUT/$variant.cpio.gz.$$" "$OUT/$variant.cpio.gz"
	say "$variant: build/initramfs/$variant.cpio.gz ($(du -k "$OUT/$variant.cpio.gz" | cut -f1) KiB;" \
		"$(grep -c '^file /lab/bin/' "$list") programs, $(grep -c '^file /lab/modules/' "$list") modules)"
}

main "$@"
