#!/bin/bash
# Every patch of the series builds and boots on its own: for each prefix of
# the series (patch 1, patches 1-2, ...), check out that commit in the
# worktree build/src/linux-series, build it as variant "series" (same config
# fragments as patched, incremental from the previous prefix) and boot it
# with the status job (the KUnit suite only exists from patch 2 on; its
# results are counted by make check). One PASS/FAIL line per patch, for check.sh to count.
#
# usage: scripts/check-series.sh
#   SERIES_FROM=N starts at patch N (the prefixes before it are not checked,
#   and no line is printed for them): to finish a run that was stopped.
set -eu
. "$(dirname "$0")/lib.sh"

WT=$SRC/linux-series

# series_commits: the series' commits in build/src/linux, oldest first.
series_commits() {
	git -C "$TREE" rev-list --reverse base..HEAD
}

# ensure_worktree: the series worktree exists (detached, at base at first).
ensure_worktree() {
	[ -e "$WT/.git" ] && return 0
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$WT" base
}

# check_prefix N COMMIT: build and boot the tree at COMMIT (patch N).
check_prefix() {
	local n=$1 commit=$2 subject
	subject=$(git -C "$TREE" log -1 --format=%s "$commit")
	git -C "$WT" checkout -q --detach "$commit"
	if ! "$LAB_ROOT/scripts/build-kernel.sh" series; then
		echo "FAIL: patch $n builds: $subject (log: build/logs/build-series.log)"
		return 0
	fi
	cp "$BUILD/initramfs/patched.cpio.gz" "$BUILD/initramfs/series.cpio.gz"
	if "$LAB_ROOT/scripts/boot.sh" --variant series --job status \
		--timeout 240 --name "series-$n" >&2; then
		echo "PASS: patch $n builds and boots: $subject"
	else
		echo "FAIL: patch $n boots: $subject (log: build/logs/series-$n.console.log)"
	fi
}

main() {
	local n=0 commit from=${SERIES_FROM:-1}
	case $from in
	'' | *[!0-9]*) die "SERIES_FROM=$from: not a patch number" ;;
	esac
	[ -f "$BUILD/initramfs/patched.cpio.gz" ] ||
		die "build/initramfs/patched.cpio.gz missing: make initramfs-patched"
	ensure_worktree
	for commit in $(series_commits); do
		n=$((n + 1))
		[ "$n" -ge "$from" ] || continue
		timed "patch $n" check_prefix "$n" "$commit"
	done
	[ "$n" -gt 0 ] || echo "FAIL: the series has no patch"
}

main "$@"
