#!/bin/bash
# Host harness given bad input (issue 5.5): a missing package, a corrupted or
# conflicting patch, a full build folder. Each must end the script with a
# non-zero exit and exactly one output line saying what is wrong, and must
# leave what was there as it was. Positive controls (all tools present, the
# intact patch) show the same setups succeed, so a failure is the input's.
#
# Nothing here touches build/src or build/obj: the patch cases run tree.sh on
# a scratch tree (the files patch 0001 touches, copied from the pristine
# build/src/linux-base) through LAB_BUILD and LAB_PATCHES; the full-folder
# cases point LAB_BUILD at a small tmpfs (mounting one needs root; without it
# those cases print SKIP, which is never a pass).
# One PASS:/FAIL:/SKIP: line per case.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"

S=$LAB_ROOT/scripts
SCRATCH=""
MNT=""

cleanup() {
	if [ -n "$MNT" ]; then umount "$MNT" 2>/dev/null || true; fi
	if [ -n "$SCRATCH" ]; then rm -rf "$SCRATCH"; fi
}
trap cleanup EXIT

# expect_one_line NAME REGEX RC OUTPUT: RC is non-zero, and OUTPUT has
# exactly one error line, its last, matching REGEX (progress lines, which
# start with "[script]", may come before it).
expect_one_line() {
	local name=$1 re=$2 rc=$3 out=$4 n last
	n=$(printf '%s\n' "$out" | grep -cv -e '^\[[a-z-]*\] ' -e '^$' || true)
	last=$(printf '%s\n' "$out" | tail -n 1)
	if [ "$rc" != 0 ] && [ "$n" = 1 ] && grep -qE "$re" <<<"$last"; then
		echo "PASS: $name: exit $rc, one line: $last"
	else
		printf '%s\n' "$out" | sed 's/^/# /'
		echo "FAIL: $name: want a non-zero exit and one error line matching /$re/, got exit $rc and $n line(s)"
	fi
}

# check NAME COND MSG: PASS or FAIL on a shell condition (a command line).
check() {
	local name=$1
	shift
	if "$@"; then echo "PASS: $name"; else echo "FAIL: $name"; fi
}

# path_without TOOL DIR: DIR holds a link to every command on PATH except TOOL.
path_without() {
	local tool=$1 dir=$2 d f
	mkdir -p "$dir"
	for d in ${PATH//:/ }; do
		[ -d "$d" ] || continue
		for f in "$d"/*; do
			[ -x "$f" ] && [ ! -e "$dir/${f##*/}" ] && ln -s "$f" "$dir/${f##*/}"
		done
	done
	rm -f "$dir/$tool"
}

# test_missing_package: deps.sh names the one tool that is gone and its package.
test_missing_package() {
	local bin=$SCRATCH/bin out rc=0
	path_without gnuplot "$bin"
	out=$(PATH=$bin LAB_NO_INSTALL=1 "$S/deps.sh" 2>&1) || rc=$?
	check "deps.sh with every tool present succeeds (control)" \
		env PATH="$bin:$PATH" LAB_NO_INSTALL=1 "$S/deps.sh"
	expect_one_line "deps.sh without gnuplot" \
		'^missing: gnuplot \(apt-get install gnuplot-nox\)$' "$rc" "$out"
	rm -rf "$bin"
}

# scratch_tree BUILD: BUILD/src/linux, a git tree tagged `base` holding the
# pristine copies of the files patch 0001 changes.
scratch_tree() {
	local t=$1/src/linux f
	mkdir -p "$t"
	sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$PATCH1" | while read -r f; do
		[ -f "$BASE_TREE/$f" ] || continue
		mkdir -p "$t/$(dirname "$f")"
		cp "$BASE_TREE/$f" "$t/$f"
	done
	git -C "$t" init -q -b master
	git -C "$t" add -f .
	git -C "$t" -c user.name=lab -c user.email=lab@localhost commit -q -m base
	git -C "$t" tag base
}

# patch_dir DIR FILE: a patches folder whose series is FILE alone.
patch_dir() {
	mkdir -p "$1"
	cp "$2" "$1/"
	basename "$2" >"$1/series"
}

# tree_state BUILD: HEAD and dirty files of the scratch tree.
tree_state() {
	git -C "$1/src/linux" rev-parse HEAD
	git -C "$1/src/linux" status --porcelain --untracked-files=no
}

# test_bad_patch: an intact patch applies; a corrupted, a truncated and a
# conflicting one stop tree.sh with one line and leave the tree at `base`.
test_bad_patch() {
	local b=$SCRATCH/tree out rc before name first
	if [ ! -d "$BASE_TREE" ] || [ ! -f "$PATCH1" ]; then
		echo "SKIP: bad patch cases: need build/src/linux-base and $PATCH1 (run scripts/tree.sh)"
		return
	fi
	scratch_tree "$b"
	patch_dir "$SCRATCH/good" "$PATCH1"
	rc=0
	out=$(LAB_BUILD=$b LAB_PATCHES=$SCRATCH/good "$S/tree.sh" 2>&1) || rc=$?
	first=$(git -C "$b/src/linux" log --format=%s base..HEAD)
	check "tree.sh applies the intact patch 0001 (control; exit $rc, base..HEAD: '$first')" \
		test "$rc" = 0 -a "$first" = "$(git -C "$TREE" log --reverse --format=%s base..HEAD | head -n 1)"
	git -C "$b/src/linux" checkout -q -f -B master base
	rm -f "$b/src/series.stamp"

	# corrupted: one line dropped from the middle of the first hunk, so the
	# hunk's line counts no longer match its body.
	mkdir -p "$SCRATCH/corrupt"
	awk '/^@@/ { h++ } h == 1 && /^ / && ++c == 4 { next } { print }' "$PATCH1" \
		>"$SCRATCH/corrupt/${PATCH1##*/}"
	echo "${PATCH1##*/}" >"$SCRATCH/corrupt/series"
	# truncated: the file cut in half, as by a full disk or a bad copy.
	mkdir -p "$SCRATCH/truncated"
	head -c $(($(wc -c <"$PATCH1") / 2)) "$PATCH1" >"$SCRATCH/truncated/${PATCH1##*/}"
	echo "${PATCH1##*/}" >"$SCRATCH/truncated/series"
	# garbage: not a patch at all.
	mkdir -p "$SCRATCH/garbage"
	head -c 4096 /dev/urandom | base64 >"$SCRATCH/garbage/0001-garbage.patch"
	echo 0001-garbage.patch >"$SCRATCH/garbage/series"
	for name in corrupt truncated garbage; do
		before=$(tree_state "$b")
		rc=0
		out=$(LAB_BUILD=$b LAB_PATCHES=$SCRATCH/$name "$S/tree.sh" 2>&1) || rc=$?
		expect_one_line "tree.sh with a $name patch" \
			'^tree: error: patch .* (does not apply: .*git am log|is truncated or damaged: its diffstat)' "$rc" "$out"
		check "tree.sh with a $name patch leaves the tree as it was" \
			test "$before" = "$(tree_state "$b")"
	done

	# conflict: the tree's copy of a file the patch changes is not the one
	# the patch was made against.
	before=$(sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$PATCH1" | while read -r f; do
		[ -f "$b/src/linux/$f" ] && echo "$f"
	done | tail -n 1)
	sed -i 's/[a-z]/X/g' "$b/src/linux/$before"
	git -C "$b/src/linux" -c user.name=lab -c user.email=lab@localhost commit -q -am "not the base"
	git -C "$b/src/linux" tag -f base >/dev/null
	rm -f "$b/src/series.stamp"
	rc=0
	out=$(LAB_BUILD=$b LAB_PATCHES=$SCRATCH/good "$S/tree.sh" 2>&1) || rc=$?
	expect_one_line "tree.sh with a patch that conflicts" \
		"^tree: error: patch .* does not apply: .*files: .*${before##*/}.*git am log" "$rc" "$out"
}

# test_full_build_folder: with build/ on an 8 MiB tmpfs, extracting the tree,
# building a kernel and making an initramfs stop before writing anything.
test_full_build_folder() {
	local out rc
	MNT=$SCRATCH/full
	mkdir -p "$MNT"
	if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=8m lab-full "$MNT" 2>/dev/null; then
		MNT=""
		echo "SKIP: full build folder cases: cannot mount a small tmpfs (needs root)"
		return
	fi
	rc=0
	out=$(LAB_BUILD=$MNT "$S/tree.sh" 2>&1) || rc=$?
	expect_one_line "tree.sh on a full build folder" \
		'^tree: error: build folder full: .* has [0-9]+ MiB free, extracting linux-source-6.12 needs about' "$rc" "$out"
	check "tree.sh on a full build folder wrote nothing" test -z "$(ls -A "$MNT")"

	# The sources are there (a link to the real ones); only the obj dir is short.
	ln -s "$SRC" "$MNT/src"
	rc=0
	out=$(LAB_BUILD=$MNT "$S/build-kernel.sh" patched 2>&1) || rc=$?
	expect_one_line "build-kernel.sh on a full build folder" \
		'^build-kernel: error: build folder full: .* a kernel build in build/obj/patched needs about' "$rc" "$out"
	check "build-kernel.sh on a full build folder wrote nothing" test ! -e "$MNT/obj"

	# Fill what is left, then ask for the initramfs.
	dd if=/dev/zero of="$MNT/fill" bs=1M 2>/dev/null || true
	rc=0
	out=$(LAB_BUILD=$MNT "$S/initramfs.sh" patched 2>&1) || rc=$?
	expect_one_line "initramfs.sh on a full build folder" \
		'^initramfs: error: build folder full: .* has 0 MiB free' "$rc" "$out"

	# A step that runs out of space half way (the log says ENOSPC) is
	# reported as a full folder too, in one line.
	echo "cc1: fatal error: write: No space left on device" >"$SCRATCH/enospc.log"
	rc=0
	out=$(bash -c '. "$1"; die_if_full "$2" "the build" "$3"' enospc "$S/lib.sh" "$MNT" "$SCRATCH/enospc.log" 2>&1) || rc=$?
	expect_one_line "a step that ran out of space half way" \
		'^enospc: error: build folder full: the build ran out of space in .* \(0 MiB free now' "$rc" "$out"
	umount "$MNT"
	MNT=""
}

# test_check_lock: a make check started while another make check or make
# check-debug holds the check disk's lock waits and says why, and runs no
# step meanwhile (both boot from build/check-disk.img, which QEMU refuses to
# a second guest). Run on a scratch LAB_BUILD, so the real lock, which the
# make check running this test holds, is not involved.
test_check_lock() {
	local b=$SCRATCH/lockbuild out holder
	mkdir -p "$b/logs"
	flock "$b/check.lock" sleep 30 &
	holder=$!
	sleep 0.5
	out=$(LAB_BUILD=$b timeout 3 "$S/check.sh" patched 2>&1) || true
	pkill -P "$holder" 2>/dev/null || true
	wait "$holder" 2>/dev/null || true
	if grep -q '^\[check\] another make check or make check-debug is running' <<<"$out" &&
		! grep -q '^== ' <<<"$out"; then
		echo "PASS: make check beside another check: waits, says why, runs no step"
	else
		printf '%s\n' "$out" | sed 's/^/# /'
		echo "FAIL: make check beside another check: want the waiting line and no step run"
	fi
}

main() {
	SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/lab-harness.XXXXXX")
	PATCH1=$(find "$LAB_ROOT/patches" -name '0001-*.patch' | head -n 1)
	test_missing_package
	test_bad_patch
	test_full_build_folder
	test_check_lock
}

main "$@"
